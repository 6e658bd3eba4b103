#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lockdep.sh: lockdep never panics and turns itself off after its first
# report; debug_locks in /proc/lockdep_stats says whether it is still on.
# Run near the end of tests/suite-debug.conf.  Skipped without lockdep.
echo "TAP version 13"
echo "1..1"
f=/proc/lockdep_stats
if [ ! -r $f ]; then
	echo "ok 1 debug_locks # SKIP no $f: not a lockdep kernel"
	exit 4
fi
v=$(awk '$1 == "debug_locks:" { print $2 }' $f)
grep -E 'lock-classes|dependency chains|debug_locks' $f | sed 's/^ */# /'
if [ "$v" != 1 ]; then
	dmesg | grep -E -A 30 'possible circular|possible recursive|inconsistent lock|WARNING: .*lock|BUG: .*lock' | head -n 200 | sed 's/^/# /'
	echo "not ok 1 debug_locks # lockdep switched itself off: it reported something"
	exit 1
fi
echo "ok 1 debug_locks # still 1"
