#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fstab: metacache mounted from /etc/fstab (Documentation/install.md).
# A test program of the suite (tests/suite.conf), run in the test bed guest
# after its set-up (servers and lowers up); tests/pkg/fstab_job.sh runs it
# alone in a guest of its own.
#
# Writes fstab lines into the guest's /etc/fstab (an overlay with a tmpfs
# upper: the host's file is untouched) and checks, in TAP:
#   - mount -a mounts metacache over the nfs lower with the documented line
#     (defaults,x-systemd.requires-mounts-for=...,nofail) and over the cifs
#     lower with the recommended one (_netdev too); the options that are
#     only for userspace (x-*, nofail, _netdev) never reach the kernel;
#   - a second mount -a changes nothing; umount and mount MOUNTPOINT work;
#   - a line whose lower directory does not exist fails within seconds
#     (timeout 30 around it: a hang is a failure) with a clear error, alone
#     and inside mount -a, and with nofail mount -a goes on past it.
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/guest-lib.sh

n=0 npass=0 nfail=0
out() { echo "$*"; }
ok() { n=$((n + 1)); npass=$((npass + 1)); out "ok $n $1"; }
notok() {
	n=$((n + 1)); nfail=$((nfail + 1)); out "not ok $n $1"; shift
	for l in "$@"; do out "# $l"; done
}
diag() { while IFS= read -r l; do out "# $l"; done; }
finish() {
	out "1..$n"
	out "metacache: $npass passed, $nfail failed, 0 skipped"
	[ $nfail -eq 0 ]
	exit $?
}
bail() {
	out "Bail out! $*"
	out "metacache: $npass passed, $((nfail + 1)) failed, 0 skipped"
	exit 1
}

out "TAP version 13"
grep -q metacache /proc/filesystems || insmod kmod/metacache.ko ||
	bail "insmod kmod/metacache.ko failed"

nfs=$MC/lower/nfs cifs=$MC/lower/cifs
up_nfs=$MC/upper/nfs up_cifs=$MC/upper/cifs
missing=$MC/lower/missing up_missing=$MC/upper/missing
mkdir -p "$up_missing"
rm -rf "$missing"
echo hello >"$nfs/fstab-probe" || bail "cannot write to $nfs"
echo hello >"$cifs/fstab-probe" || bail "cannot write to $cifs"

# fsmounts TARGET: how many mounts of type metacache are on TARGET
fsmounts() {
	awk -v t="$1" '$2 == t && $3 == "metacache"' /proc/mounts | wc -l
}
# timed OUTFILE CMD...: run CMD under timeout 30, stdout+stderr to OUTFILE;
# sets rc and secs
timed() {
	local o=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	timeout 30 "$@" >"$o" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	secs=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
}

# The lowers are mounted by mc_setup: fstab lists the nfs one first, as a
# real system would, and mount -a must leave it alone.
cat >/etc/fstab <<EOF
# metacache fstab test (tests/pkg/fstab_job.sh)
127.0.0.1:/ $nfs nfs4 vers=4.2,_netdev 0 0
$nfs $up_nfs metacache defaults,x-systemd.requires-mounts-for=$nfs,nofail 0 0
$cifs $up_cifs metacache defaults,_netdev,x-systemd.requires-mounts-for=$cifs,nofail 0 0
EOF
out "# /etc/fstab:"
diag </etc/fstab

nfs_before=$(awk -v t="$nfs" '$2 == t' /proc/mounts | wc -l)
timed /tmp/fstab.out mount -a
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_nfs")" = 1 ] && [ "$(fsmounts "$up_cifs")" = 1 ]; then
	ok "mount -a mounts both metacache lines (${secs} s)"
else
	notok "mount -a mounts both metacache lines" "rc=$rc after ${secs} s"
	diag </tmp/fstab.out
	grep " $MC/" /proc/mounts | diag
fi
if [ "$(awk -v t="$nfs" '$2 == t' /proc/mounts | wc -l)" = "$nfs_before" ]; then
	ok "mount -a leaves the mounted nfs lower alone"
else
	notok "mount -a leaves the mounted nfs lower alone" "mounts on $nfs:"
	awk -v t="$nfs" '$2 == t' /proc/mounts | diag
fi
if [ "$(cat "$up_nfs/fstab-probe" 2>&1)" = hello ] &&
   [ "$(cat "$up_cifs/fstab-probe" 2>&1)" = hello ]; then
	ok "the lowers' files are seen through the fstab mounts"
else
	notok "the lowers' files are seen through the fstab mounts"
fi
opts=$(awk -v a="$up_nfs" -v b="$up_cifs" '($2 == a || $2 == b) && $3 == "metacache" { print $4 }' /proc/mounts)
case "$opts" in
*x-systemd*|*nofail*|*_netdev*|*defaults*)
	notok "userspace-only options do not reach the kernel" "options: $opts" ;;
*) ok "userspace-only options do not reach the kernel" ;;
esac

timed /tmp/fstab.out mount -a
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_nfs")" = 1 ] && [ "$(fsmounts "$up_cifs")" = 1 ]; then
	ok "a second mount -a changes nothing"
else
	notok "a second mount -a changes nothing" "rc=$rc; metacache mounts: nfs $(fsmounts "$up_nfs"), cifs $(fsmounts "$up_cifs")"
	diag </tmp/fstab.out
fi

timed /tmp/fstab.out umount "$up_nfs"
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_nfs")" = 0 ]; then
	ok "umount $up_nfs"
else
	notok "umount $up_nfs" "rc=$rc"
	diag </tmp/fstab.out
fi
timed /tmp/fstab.out mount "$up_nfs"
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_nfs")" = 1 ]; then
	ok "mount MOUNTPOINT takes the rest from fstab"
else
	notok "mount MOUNTPOINT takes the rest from fstab" "rc=$rc"
	diag </tmp/fstab.out
fi

# A lower directory that does not exist: a clear error, at once.
echo "$missing $up_missing metacache defaults 0 0" >>/etc/fstab
timed /tmp/fstab.out mount "$up_missing"
msg=$(tr -s "\n\t " "   " </tmp/fstab.out)
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	notok "a missing lower fails: mount MOUNTPOINT" "hung: killed after 30 s"
elif [ $rc -eq 0 ] || [ "$(fsmounts "$up_missing")" != 0 ]; then
	notok "a missing lower fails: mount MOUNTPOINT" "mount succeeded (rc=$rc)"
elif ! echo "$msg" | grep -qiE "does not exist|no such file|not found"; then
	notok "a missing lower fails: mount MOUNTPOINT" "unclear message (rc=$rc): $msg"
elif [ "${secs%.*}" -ge 10 ]; then
	notok "a missing lower fails: mount MOUNTPOINT" "took ${secs} s"
else
	ok "a missing lower fails: mount MOUNTPOINT (rc=$rc, ${secs} s)"
fi
out "# mount said: $msg"
kmsg=$(dmesg | grep -E "metacache.*$missing" | tail -n 1)
out "# kernel log: ${kmsg:-(nothing)}"

umount "$up_cifs" 2>/dev/null
timed /tmp/fstab.out mount -a
msg=$(tr -s "\n\t " "   " </tmp/fstab.out)
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	notok "a missing lower fails: mount -a" "hung: killed after 30 s"
elif [ $rc -eq 0 ]; then
	notok "a missing lower fails: mount -a" "mount -a exited 0: $msg"
elif ! echo "$msg" | grep -q "$up_missing"; then
	notok "a missing lower fails: mount -a" "the message does not name the line: $msg"
elif [ "$(fsmounts "$up_cifs")" != 1 ] || [ "$(fsmounts "$up_nfs")" != 1 ]; then
	notok "a missing lower fails: mount -a" "the good lines were not all mounted"
else
	ok "a missing lower fails: mount -a, the other lines mount (rc=$rc, ${secs} s)"
fi
out "# mount -a said: $msg"

# With nofail, as the documented line has, mount -a goes on quietly.
sed -i "s|^$missing $up_missing metacache defaults 0 0|$missing $up_missing metacache defaults,nofail 0 0|" /etc/fstab
timed /tmp/fstab.out mount -a
msg=$(tr -s "\n\t " "   " </tmp/fstab.out)
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_missing")" = 0 ]; then
	ok "nofail: mount -a exits 0 past a missing lower (${secs} s)"
elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	notok "nofail: mount -a exits 0 past a missing lower" "hung: killed after 30 s"
else
	notok "nofail: mount -a exits 0 past a missing lower" "rc=$rc: $msg"
fi
[ -z "$msg" ] || out "# mount -a said: $msg"

timed /tmp/fstab.out umount "$up_nfs" "$up_cifs"
if [ $rc -eq 0 ] && [ "$(fsmounts "$up_nfs")" = 0 ] && [ "$(fsmounts "$up_cifs")" = 0 ]; then
	ok "umount both"
else
	notok "umount both" "rc=$rc"
	diag </tmp/fstab.out
fi
if rmmod metacache 2>/tmp/fstab.out; then
	ok "rmmod metacache after the fstab mounts are gone"
else
	notok "rmmod metacache after the fstab mounts are gone"
	diag </tmp/fstab.out
fi
rm -f "$nfs/fstab-probe" "$cifs/fstab-probe"
finish
