#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak.sh: the end of a debug run (last of tests/suite-debug.conf).
# Unmounts every metacache mount and unloads the module, so that what it
# leaked is no longer referenced from its own data, then has kmemleak scan
# twice (a fresh leak is reported only by the second scan; each scan takes
# ~25 s under emulation).  Any unreferenced object fails; the report is
# printed and kept in $MC_RESULTS/kmemleak-suite.txt.  The job cleared
# kmemleak's list after setting up the servers, so what is reported was
# allocated while the suite ran.  Skipped without kmemleak.
k=/sys/kernel/debug/kmemleak
echo "TAP version 13"
echo "1..2"
# A fault test killed by its timeout may have left injection on.
[ -w /sys/kernel/debug/failslab/probability ] &&
	echo 0 > /sys/kernel/debug/failslab/probability
n=0
for m in $(awk '$3 == "metacache" { print $2 }' /proc/mounts); do
	umount "$m" || umount -l "$m"
	n=$((n + 1))
done
if grep -q '^metacache ' /proc/modules; then
	if rmmod metacache; then
		echo "ok 1 unload # $n mounts unmounted, module unloaded"
	else
		echo "not ok 1 unload # rmmod metacache failed: $(grep '^metacache ' /proc/modules)"
	fi
else
	echo "ok 1 unload # SKIP the module was not loaded"
fi
if [ ! -w $k ] || ! echo scan > $k 2>/dev/null; then
	echo "ok 2 kmemleak # SKIP kmemleak is not available or is off"
	exit 0
fi
sleep 2
echo scan > $k
out=${MC_RESULTS:-/tmp}/kmemleak-suite.txt
cat $k > "$out"
if [ -s "$out" ]; then
	echo "# $(grep -c '^unreferenced object' "$out") unreferenced objects:"
	sed 's/^/# /' "$out"
	echo "not ok 2 kmemleak"
	exit 1
fi
rm -f "$out"
echo "ok 2 kmemleak # two scans, no leak"
