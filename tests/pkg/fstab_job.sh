# SPDX-License-Identifier: GPL-2.0
#
# Guest job: the fstab test alone, in a guest of its own
# (it also runs as part of `make check`, see tests/suite.conf).
#
#   tests/vm/run --name fstab tests/pkg/fstab_job.sh
. tests/vm/guest-lib.sh
if ! mc_setup; then
	echo "Bail out! the test bed set-up failed"
	mc_collect
	exit 1
fi
sh tests/run_tests.sh tests/suite.conf pkg/fstab
rc=$?
mc_collect
exit $rc
