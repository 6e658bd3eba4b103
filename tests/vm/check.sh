# SPDX-License-Identifier: GPL-2.0
# Guest job of `make check`: set up the servers and lowers, run the suite.
. tests/vm/guest-lib.sh
if ! mc_setup; then
	echo "Bail out! the test bed set-up failed"
	mc_collect
	exit 1
fi
sh tests/run_tests.sh tests/suite.conf "${MC_FILTER:-}"
rc=$?
mc_stage tests
mc_collect
exit $rc
