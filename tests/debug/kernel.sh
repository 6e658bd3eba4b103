#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh: the guest really runs a debug kernel with the checkers that
# tests/vm/debug.config asks for, and they are on (first of
# tests/suite-debug.conf).  Skipped on a kernel without /proc/config.gz.
echo "TAP version 13"
echo "1..1"
if [ ! -r /proc/config.gz ]; then
	echo "ok 1 debug_kernel # SKIP no /proc/config.gz: not the debug kernel"
	exit 4
fi
miss=
for o in KASAN KASAN_GENERIC PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LIST \
	 DEBUG_KMEMLEAK FAILSLAB FAIL_PAGE_ALLOC FAULT_INJECTION_DEBUG_FS; do
	zcat /proc/config.gz | grep -qx "CONFIG_$o=y" || miss="$miss $o"
done
echo "# $(uname -r): $(cat /proc/cmdline)"
[ -r /proc/lockdep_stats ] || miss="$miss (no /proc/lockdep_stats)"
[ -e /sys/kernel/debug/kmemleak ] || miss="$miss (no /sys/kernel/debug/kmemleak)"
[ -d /sys/kernel/debug/failslab ] || miss="$miss (no /sys/kernel/debug/failslab)"
if [ -n "$miss" ]; then
	echo "# missing:$miss"
	echo "not ok 1 debug_kernel"
	exit 1
fi
echo "ok 1 debug_kernel"
