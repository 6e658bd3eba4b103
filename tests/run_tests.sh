#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test runner, run INSIDE the test bed guest (see Documentation/testbed.md).
#
# usage: tests/run_tests.sh [SUITE-FILE] [FILTER]
#
# Reads the suite file (default tests/suite.conf): one test program per line,
#
#	PROGRAM   LOWERS   MODE
#
# PROGRAM is a path under tests/ (a built C program speaking TAP 13), LOWERS
# a comma-separated subset of tmpfs,nfs,cifs or "-" for a test that needs
# no lower, MODE "plain" (the runner mounts nothing) or "mount:NAME"
# (the runner mounts metacache on the lower with the options of mode NAME
# from tests/modes.conf at /tmp/mc/upper/<fs> before the test and unmounts
# it after; a failed mount or unmount fails the test).  FILTER, if given,
# runs only the programs whose name contains it.
#
# Output: TAP 13 in the kselftest style (each program's own TAP indented
# as "# " comment lines, then "ok N program [lower,mode]"), a summary line
# "metacache: N passed, N failed, N skipped", and exit status 0 only if
# nothing failed.  Copied to $MC_RESULTS/tap.txt.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/vm/guest-lib.sh

suite=${1:-tests/suite.conf}
filter=${2:-}
# $MC_KO, if set, is the module to load (the debug kernel's build of it).
ko=${MC_KO:-$PWD/kmod/metacache.ko}
tap=${MC_RESULTS:-/tmp}/tap.txt
: > "$tap"

out() {
	echo "$*"
	echo "$*" >> "$tap"
}

mode_opts() {
	sed -n "s/^$1[[:space:]]\{1,\}//p" tests/modes.conf | head -n 1
}

# Expand the suite into one line per run: PROGRAM LOWER MODE.
runs=$(grep -v '^[[:space:]]*\(#\|$\)' "$suite" | while read -r prog lowers mode; do
	case "$prog" in *"$filter"*) ;; *) continue ;; esac
	for l in $(echo "$lowers" | tr ',' ' '); do
		echo "$prog $l $mode"
	done
done)
total=$(echo "$runs" | grep -c .)

# metacachectl where the unprivileged test user (65534) can run it: the
# repository may be in a directory only root can enter (a mktemp -d clone).
if [ -x tools/metacachectl/metacachectl ] && mkdir -p /tmp/mc-bin &&
   cp tools/metacachectl/metacachectl /tmp/mc-bin/ && chmod 755 /tmp/mc-bin; then
	export MC_CTL=/tmp/mc-bin/metacachectl
fi

out "TAP version 13"
out "1..$total"
n=0 pass=0 fail=0 skip=0
echo "$runs" | grep . > /tmp/mc-runs
# Each failure's first reasons, repeated at the end: a long run's output is
# often read from its tail only (CI shows a part of it).
: > /tmp/mc-fails
while read -r prog lower mode; do
	n=$((n + 1))
	label="$prog [$lower${mode:+,$mode}]"
	bin=tests/$prog
	out "# selftests: $label"
	if [ ! -x "$bin" ]; then
		out "not ok $n $label # program not built: $bin"
		echo "$label: program not built" >> /tmp/mc-fails
		fail=$((fail + 1))
		continue
	fi
	unset MC_FSTYPE MC_LOWER MC_UPPER MC_SERVER MC_LOWER2 MC_SMB_LOGDIR
	export MC_KO="$ko" MC_TEST_UID=65534 MC_TEST_GID=65534
	if [ "$lower" != - ]; then
		export MC_FSTYPE="$lower" MC_LOWER="$(mc_lower "$lower")" \
		       MC_SERVER="$(mc_server "$lower")" MC_LOWER2="$(mc_lower2 "$lower")"
	fi
	[ "$lower" = cifs ] && export MC_SMB_LOGDIR="$MC_SMB_LOGS"
	mounted=
	case "$mode" in
	mount:*)
		opts=$(mode_opts "${mode#mount:}")
		export MC_UPPER="$(mc_upper "$lower")" MC_MOUNT_OPTS="$opts"
		if ! grep -q metacache /proc/filesystems && ! insmod "$ko"; then
			out "not ok $n $label # cannot load $ko"
			echo "$label: cannot load $ko" >> /tmp/mc-fails
			fail=$((fail + 1))
			continue
		fi
		if ! mount -t metacache ${opts:+-o "$opts"} "$MC_LOWER" "$MC_UPPER" 2>/tmp/mc-mount.err; then
			out "# mount -t metacache ${opts:+-o $opts} $MC_LOWER $MC_UPPER: $(cat /tmp/mc-mount.err)"
			out "not ok $n $label # mount failed"
			echo "$label: mount failed: $(cat /tmp/mc-mount.err)" >> /tmp/mc-fails
			fail=$((fail + 1))
			continue
		fi
		mounted=$MC_UPPER
		;;
	esac
	start=$(mc_uptime)
	"$bin" > /tmp/mc-test.out 2>&1 < /dev/null
	rc=$?
	sed 's/^/# /' /tmp/mc-test.out | while IFS= read -r l; do out "$l"; done
	if [ -n "$mounted" ] && ! umount "$mounted" 2>/tmp/mc-umount.err; then
		out "# umount $mounted: $(cat /tmp/mc-umount.err)"
		grep -q " $mounted " /proc/mounts && umount -l "$mounted"
		rc=1
	fi
	secs=$(echo "$(mc_uptime) $start" | awk '{ printf "%.1f", $1 - $2 }')
	case $rc in
	0) out "ok $n $label # ${secs}s"; pass=$((pass + 1)) ;;
	4) out "ok $n $label # SKIP $(grep -m1 'SKIP' /tmp/mc-test.out | sed 's/.*# SKIP //')"
	   skip=$((skip + 1)) ;;
	*) out "not ok $n $label # exit $rc, ${secs}s"; fail=$((fail + 1))
	   {
		echo "$label: exit $rc"
		grep -E '^not ok |^# FAIL |: killed by signal|: exited with' /tmp/mc-test.out |
			head -n 8 | sed 's/^/  /'
		[ -s /tmp/mc-umount.err ] && [ -n "$mounted" ] &&
			echo "  umount $mounted: $(cat /tmp/mc-umount.err)"
	   } >> /tmp/mc-fails ;;
	esac
done < /tmp/mc-runs

if [ -s /tmp/mc-fails ]; then
	out "# what failed (each program's first reasons, as printed above):"
	sed 's/^/#   /' /tmp/mc-fails | while IFS= read -r l; do out "$l"; done
fi
out "metacache: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
