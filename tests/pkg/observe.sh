#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# observe: what an administrator sees of the module with the kernel's own
# tools.  A test program of the suite (tests/suite.conf), run in the test
# bed guest with MC_KO and MC_LOWER set (one lower is enough), in TAP:
#   - modinfo lists every module parameter with a description;
#   - modprobe/insmod parameters set the defaults of new mounts, readable
#     in /sys/module/metacache/parameters, and writable there at run time
#     (new mounts only); out-of-range and non-numeric values make the load
#     fail with a message naming the parameter, and leave nothing loaded;
#   - the tracepoints exist in tracefs and fire: lower calls, answers served
#     from a cache, cache hits and misses, invalidations, and kept handles
#     (kept and reused).
# Leaves the module loaded with its defaults and nothing mounted.
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/guest-lib.sh

ko=${MC_KO:-$PWD/kmod/metacache.ko}
lower=${MC_LOWER:-}
mnt=/tmp/mc-observe.$$
params="entry_ttl neg_ttl attr_ttl dir_ttl close_ttl max_entries max_neg max_handles served_sample list_ahead"

n=0 npass=0 nfail=0
out() { echo "$*"; }
ok() { n=$((n + 1)); npass=$((npass + 1)); out "ok $n $1"; }
notok() {
	n=$((n + 1)); nfail=$((nfail + 1)); out "not ok $n $1"; shift
	for l in "$@"; do out "# $l"; done
}
check() {	# check DESCRIPTION COMMAND...: ok if COMMAND succeeds
	d=$1; shift
	if "$@" >/tmp/mc-observe.out 2>&1; then ok "$d"; else
		notok "$d" "$(head -c 600 /tmp/mc-observe.out)"; fi
}
finish() {
	umount "$mnt" 2>/dev/null; rmdir "$mnt" 2>/dev/null
	grep -q '^metacache ' /proc/modules || insmod "$ko"
	out "1..$n"
	out "metacache: $npass passed, $nfail failed, 0 skipped"
	[ $nfail -eq 0 ]
	exit $?
}
refuses() {	# refuses PARAM VALUE: ok if sysfs refuses VALUE for PARAM
	if sh -c "echo $2 > /sys/module/metacache/parameters/$1" 2>/dev/null; then
		notok "sysfs refuses $1=$2"
	else
		ok "sysfs refuses $1=$2"
	fi
}
[ -n "$lower" ] && [ -d "$lower" ] || { out "1..0 # SKIP no lower (MC_LOWER)"; exit 4; }
mkdir -p "$mnt"

# 1. modinfo
for p in $params; do
	check "modinfo describes $p" sh -c "modinfo '$ko' | grep -q '^parm:[[:space:]]*$p:..........'"
done

# 2. parameters at load time
grep -q metacache /proc/mounts && { notok "a metacache mount is left from before"; finish; }
grep -q '^metacache ' /proc/modules && rmmod metacache
check "insmod with entry_ttl=7 max_handles=9 served_sample=4" insmod "$ko" entry_ttl=7 max_handles=9 served_sample=4
check "the parameter reads back" sh -c "[ \$(cat /sys/module/metacache/parameters/entry_ttl) = 7 ]"
check "served_sample reads back" sh -c "[ \$(cat /sys/module/metacache/parameters/served_sample) = 4 ]"
check "list_ahead is 16 by default" sh -c "[ \$(cat /sys/module/metacache/parameters/list_ahead) = 16 ]"
check "list_ahead set at run time" sh -c "echo 0 > /sys/module/metacache/parameters/list_ahead && [ \$(cat /sys/module/metacache/parameters/list_ahead) = 0 ]"
refuses list_ahead 65537
check "list_ahead back to 16" sh -c "echo 16 > /sys/module/metacache/parameters/list_ahead"
check "mount" mount -t metacache "$lower" "$mnt"
check "a new mount starts from them" sh -c "grep ' $mnt metacache ' /proc/mounts | grep -q 'entry_ttl=7,.*max_handles=9'"
check "a mount option overrides them" mount -o remount,entry_ttl=3 "$mnt"
check "set at run time in sysfs" sh -c "echo 11 > /sys/module/metacache/parameters/neg_ttl"
check "an existing mount keeps its value" sh -c "grep ' $mnt metacache ' /proc/mounts | grep -q 'neg_ttl=5,'"
umount "$mnt"
check "the next mount gets it" sh -c "mount -t metacache '$lower' '$mnt' && grep ' $mnt metacache ' /proc/mounts | grep -q 'neg_ttl=11,'"
refuses attr_ttl 99999999999
check "attr_ttl unchanged" sh -c "[ \$(cat /sys/module/metacache/parameters/attr_ttl) = 5 ]"
umount "$mnt"
check "rmmod" rmmod metacache
for bad in entry_ttl=31536001 max_neg=16777217 attr_ttl=abc close_ttl=-1 served_sample=3 served_sample=0 list_ahead=65537; do
	dmesg -c >/dev/null 2>&1
	if insmod "$ko" "$bad" 2>/tmp/mc-observe.err; then
		notok "insmod $bad is refused"
		rmmod metacache
	elif grep -q '^metacache ' /proc/modules; then
		notok "insmod $bad failed but left the module loaded"
	elif ! dmesg | grep -q "${bad%%=*}"; then
		notok "insmod $bad: the kernel log names the parameter" "$(dmesg | tail -3)"
	else
		ok "insmod $bad is refused, naming the parameter"
	fi
done

# 3. tracepoints
check "insmod with defaults" insmod "$ko"
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
if [ ! -d $tr/events/metacache ]; then
	notok "tracefs has events/metacache" "$(ls $tr/events 2>&1 | head -5)"
	finish
fi
for e in metacache_lower_call metacache_served metacache_cache metacache_invalidate metacache_handle; do
	check "tracepoint $e exists" test -d $tr/events/metacache/$e
done
check "mount for tracing" mount -t metacache -o entry_ttl=60,attr_ttl=60,neg_ttl=60,close_ttl=60 "$lower" "$mnt"
f=$mnt/observe.$$
echo data > "$f"
echo > $tr/trace
echo 1 > $tr/events/metacache/enable
stat "$f" >/dev/null; stat "$f" >/dev/null
stat "$mnt/missing.$$" >/dev/null 2>&1; stat "$mnt/missing.$$" >/dev/null 2>&1
cat "$f" >/dev/null; cat "$f" >/dev/null
echo more >> "$f"
echo 0 > $tr/events/metacache/enable
cat $tr/trace > /tmp/mc-observe.trace
for pat in "metacache_lower_call: mount=[0-9]* op=lookup ns=" \
	   "metacache_served: mount=[0-9]* op=getattr ns=" \
	   "metacache_cache: mount=[0-9]* cache=attr hit" \
	   "metacache_cache: mount=[0-9]* cache=neg hit" \
	   "metacache_invalidate: mount=[0-9]* ino=[0-9]* attr" \
	   "metacache_handle: mount=[0-9]* ino=[0-9]* keep" \
	   "metacache_handle: mount=[0-9]* ino=[0-9]* reuse"; do
	if grep -q "$pat" /tmp/mc-observe.trace; then ok "traced: $pat"; else
		notok "traced: $pat" "$(grep -c metacache /tmp/mc-observe.trace) metacache events; first:" \
			"$(grep metacache /tmp/mc-observe.trace | head -5)"
	fi
done
echo > $tr/trace
rm -f "$f"
umount "$mnt"
finish
