#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pair_bench.sh - guest job: first-touch (cold) operations and the
# create/unlink loop through metacache against its lower, measured in
# pairs by tests/bench/pairbench (see pairbench.c), in one boot.  From the
# repository root on the host (after make):
#
#	tests/vm/run --name pair-bench --no-slub-debug tests/bench/pair_bench.sh
#
# For each lower (nfs, cifs) it stacks metacache with the default options
# over the lower client, and runs pairbench once per delay in
# MC_BENCH_RTTS: "none" (loopback: the emulated CPU dominates, so the
# stack's own CPU time shows at its largest) and, e.g., "2ms" (netem on
# lo: closer to a real network share).  Results, in $MC_RESULTS
# (build/vm/pair-bench-*/): pair-bench.txt (the tables) and
# pair-bench.tsv (pairbench --tsv, label "<lower>/<rtt>").
#
# For reference, each lower is also measured through overlayfs with the
# lower as its only real layer (read-only: lowerdir=LOWER:EMPTY), labelled
# "<lower>/<rtt>/overlayfs": what stacking alone costs, a VFS layer with
# no cache of its own over the same client (the cold phases: stat, neg,
# ls).
#
# Environment (tests/vm/run --env VAR=VALUE):
#   MC_BENCH_FILES_NFS, MC_BENCH_FILES_CIFS   files (1000, 300)
#   MC_BENCH_RUNS      timed rounds per pairbench (3)
#   MC_BENCH_RTTS      delays, space-separated ("none 2ms")
#   MC_BENCH_LOWERS    "nfs cifs"
#   MC_BENCH_FLOOR     "overlayfs" (the reference above) or "" (none)
#   MC_BENCH_OPS       pairbench --ops (all phases); the overlayfs
#                      reference runs those of stat, neg and ls among them
#   MC_BENCH_LIST_AHEAD  values of the module parameter list_ahead to run
#                      metacache with, one pairbench each, labelled
#                      "<lower>/<rtt>/list_ahead=<value>" (unset: the
#                      module's default, labelled "<lower>/<rtt>")
set -u
. tests/vm/guest-lib.sh

files_nfs=${MC_BENCH_FILES_NFS:-1000}
files_cifs=${MC_BENCH_FILES_CIFS:-300}
runs=${MC_BENCH_RUNS:-3}
rtts=${MC_BENCH_RTTS:-none 2ms}
lowers=${MC_BENCH_LOWERS:-nfs cifs}
floor=${MC_BENCH_FLOOR-overlayfs}
ops=${MC_BENCH_OPS:-stat,neg,ls,cycle,negls}
las=${MC_BENCH_LIST_AHEAD:-}
floor_ops=
for op in $(echo "$ops" | tr , ' '); do
	case $op in stat|neg|ls) floor_ops=${floor_ops:+$floor_ops,}$op ;; esac
done
out=${MC_RESULTS:-/tmp}
bench=$PWD/tests/bench/pairbench
ko=$PWD/kmod/metacache.ko
rc=0

fail() { echo "pair-bench: $*"; echo "not ok 1 pair-bench # $*"; exit 1; }

[ -x "$bench" ] || fail "$bench not built (make -C tests)"
[ -r "$ko" ] || fail "$ko not built (make -C kmod)"
mc_setup || fail "the test bed set-up failed"
insmod "$ko" || fail "insmod $ko"
for fs in $lowers; do
	mkdir -p "$MC/upper/$fs"
	mount -t metacache "$(mc_lower "$fs")" "$MC/upper/$fs" ||
		fail "mount metacache on $fs"
done
mkdir -p "$MC/floor-empty"
ovl=
if [ "$floor" = overlayfs ]; then
	for fs in $lowers; do
		mkdir -p "$MC/floor/$fs"
		if mount -t overlay -o "lowerdir=$(mc_lower "$fs"):$MC/floor-empty" \
			overlay "$MC/floor/$fs"; then
			ovl="$ovl $fs"
		else
			echo "pair-bench: SKIP the overlayfs reference on $fs: mount failed"
		fi
	done
elif [ -n "$floor" ]; then
	fail "MC_BENCH_FLOOR=$floor: want overlayfs or nothing"
fi
grep "metacache\|overlay" /proc/mounts
: > "$out/pair-bench.tsv"
for rtt in $rtts; do
	if [ "$rtt" = none ]; then mc_rtt 0; else mc_rtt "$rtt" || fail "RTT $rtt"; fi
	for fs in $lowers; do
		eval n=\$files_$fs
		t0=$(mc_uptime)
		for la in ${las:--}; do
			label=$fs/$rtt
			if [ "$la" != - ]; then
				echo "$la" > /sys/module/metacache/parameters/list_ahead ||
					fail "list_ahead=$la"
				label=$label/list_ahead=$la
			fi
			"$bench" --lower "$(mc_lower "$fs")" --stack "$MC/upper/$fs" \
				--files "$n" --rounds "$runs" \
				--tsv "$out/pair-bench.tsv" --ops "$ops" \
				--label "$label" > /tmp/pair-bench.out || rc=1
			{ echo "# $label"; cat /tmp/pair-bench.out; } |
				tee -a "$out/pair-bench.txt"
		done
		[ -n "$floor_ops" ] && case " $ovl " in *" $fs "*)
			"$bench" --lower "$(mc_lower "$fs")" --other-stack \
				--stack "$MC/floor/$fs" --ops "$floor_ops" \
				--files "$n" --rounds "$runs" \
				--tsv "$out/pair-bench.tsv" \
				--label "$fs/$rtt/overlayfs" > /tmp/pair-bench.out || rc=1
			cat /tmp/pair-bench.out | tee -a "$out/pair-bench.txt"
		esac
		echo "pair-bench: $fs rtt $rtt: $(echo "$(mc_uptime) $t0" |
			awk '{ printf "%.0f", $1 - $2 }') s"
	done
done
mc_rtt 0
for fs in $lowers; do umount "$MC/upper/$fs" || rc=1; done
for fs in $ovl; do umount "$MC/floor/$fs" || rc=1; done
rmmod metacache || rc=1
mc_collect
[ $rc -eq 0 ] && echo "ok 1 pair-bench" || echo "not ok 1 pair-bench"
exit $rc
