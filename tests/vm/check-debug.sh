# SPDX-License-Identifier: GPL-2.0
# Guest job of `make check-debug` (tests/vm/check-debug): on the debug
# kernel, set up the servers and lowers, run tests/suite-debug.conf
# (tests/suite-soak.conf with MC_SOAK=1: `make soak`).
# $MC_KO is the module built for this kernel; $MC_DEBUG_KDIR its tree.
. tests/vm/guest-lib.sh
# Per-test timeout of the C tests: this kernel is many times slower.
export MCT_TIMEOUT=${MCT_TIMEOUT:-900} MC_FAULT_SECS=${MC_FAULT_SECS:-90}
# tests/stress at reduced sizes (the defaults are for the stock kernel).
export MC_STRESS_SECS=${MC_STRESS_SECS:-20} MC_STRESS_PROCS=${MC_STRESS_PROCS:-3} \
	MC_INTEGRITY_FILES=${MC_INTEGRITY_FILES:-2} MC_INTEGRITY_ROUNDS=${MC_INTEGRITY_ROUNDS:-4} \
	MC_INTEGRITY_MAX=${MC_INTEGRITY_MAX:-65536} MC_INTEGRITY_CONC_SECS=${MC_INTEGRITY_CONC_SECS:-5} \
	MC_INTEGRITY_RENAMES=${MC_INTEGRITY_RENAMES:-40}
# The netlink fuzzer: fewer messages than the 100000 of make check.
export MC_FUZZ_MSGS=${MC_FUZZ_MSGS:-20000}
suite=tests/suite-debug.conf
# `make soak` (tests/vm/check-debug --soak): the concurrency programs for
# longer, fault injection with new seeds (tests/suite-soak.conf).
if [ "${MC_SOAK:-0}" = 1 ]; then
	suite=tests/suite-soak.conf
	export MCT_TIMEOUT=$((${MC_SOAK_SECS:-150} + 1200)) MC_FAULT_SECS=180 \
		MC_STRESS_SECS=${MC_SOAK_SECS:-150} MC_STRESS_PROCS=4 \
		MC_INTEGRITY_ROUNDS=8 MC_INTEGRITY_CONC_SECS=20 MC_INTEGRITY_RENAMES=80
fi
if ! mc_setup; then
	echo "Bail out! the test bed set-up failed"
	mc_collect
	exit 1
fi
# Leaks are counted from here: what booting and starting the servers
# allocated is not the module's.
[ -w /sys/kernel/debug/kmemleak ] && echo clear > /sys/kernel/debug/kmemleak
sh tests/run_tests.sh "${MC_SUITE:-$suite}" "${MC_FILTER:-}"
rc=$?
mc_stage tests
mc_collect
exit $rc
