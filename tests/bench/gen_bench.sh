#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gen_bench.sh - guest job: the in-kernel I/O generator, lower against
# metacache, in one boot.  Run from the repository root on the host:
#
#	tests/vm/run --name gen-bench --no-slub-debug tests/bench/gen_bench.sh
#
# (build first: make).  For each lower (nfs, cifs) it stacks metacache
# (default options) over the lower client and runs "metacachectl bench
# compare LOWER METACACHE" for the mdtest phases, 4 KiB random I/O and
# 64 KiB sequential reads; on tmpfs it runs the generator's mdtest next to
# a userspace loop of the same calls (tests/bench/mdbench --ops stat,neg,open
# --cold none) to show what the system call path adds.  Results, in
# $MC_RESULTS (build/vm/gen-bench-*/):
#
#   gen-bench.json   one line per comparison: {"lower", "workload",
#                    "compare": <metacachectl -j bench compare>}, and the
#                    tmpfs lines {"tmpfs": <bench run>, "mdbench": <...>}
#   gen-bench.md     the tables
#
# Environment (tests/vm/run --env VAR=VALUE): MC_GB_FILES (files of the
# mdtest phases, 200), MC_GB_OPS (operations of the data workloads, 400),
# MC_GB_THREADS (1), MC_GB_LOWERS ("nfs cifs").
set -u
. tests/vm/guest-lib.sh

files=${MC_GB_FILES:-200}
ops=${MC_GB_OPS:-400}
threads=${MC_GB_THREADS:-1}
lowers=${MC_GB_LOWERS:-nfs cifs}
out=${MC_RESULTS:-/tmp}
ctl=$PWD/tools/metacachectl/metacachectl
mdbench=$PWD/tests/bench/mdbench
ko=$PWD/kmod/metacache.ko
json=$out/gen-bench.json
md=$out/gen-bench.md

fail() {
	echo "gen-bench: $*" >&2
	mc_collect
	exit 1
}

[ -x "$ctl" ] || fail "$ctl not built (make tools)"
[ -r "$ko" ] || fail "$ko not built (make module)"
mc_setup || fail "the test bed set-up failed"
grep -q metacache /proc/filesystems || insmod "$ko" || fail "insmod $ko"
: > "$json"

# table LOWER WORKLOAD JSON: one markdown table of a comparison
table() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
lower, wl, doc = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def f(v, unit=1, d=1):
    return '-' if v is None else f'{v / unit:.{d}f}'
print(f'\n### {lower}: {wl}\n')
print('| op | ops/s lower | ops/s metacache | IOPS increase % | mean lower (us) '
      '| mean metacache (us) | latency reduction % | p99 lower (us) | p99 metacache (us) |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for o in doc['ops']:
    print(f"| {o['op']} | {f(o['ops_per_s_a'])} | {f(o['ops_per_s_b'])} "
          f"| {f(o['iops_increase_pct'])} | {f(o['mean_ns_a'], 1000)} "
          f"| {f(o['mean_ns_b'], 1000)} | {f(o['latency_reduction_pct'])} "
          f"| {f(o['p99_ns_a'], 1000)} | {f(o['p99_ns_b'], 1000)} |")
EOF
}

{
	echo "# The in-kernel I/O generator: lower against metacache"
	echo
	echo "One boot, QEMU TCG ($(nproc) vCPUs), metacache with its default"
	echo "options; mdtest $files files, data $ops operations, $threads thread(s)."
	echo "Absolute figures mean little under emulation; the ratios do."
} > "$md"

for fs in $lowers; do
	upper=$(mc_upper "$fs")
	mkdir -p "$upper"
	mount -t metacache "$(mc_lower "$fs")" "$upper" || fail "mount metacache on $fs"
	for wl in "mdtest -n $files" "randrw -n 4 -s 1M -o $ops" \
		  "seqread -n 4 -s 1M -o $ops"; do
		name=${wl%% *}
		# shellcheck disable=SC2086
		doc=$("$ctl" -j bench compare "$(mc_lower "$fs")" "$upper" $wl \
			-t "$threads" -q) || mc_log "compare $fs $name failed"
		[ -n "$doc" ] || continue
		echo "{\"lower\": \"$fs\", \"workload\": \"$name\", \"compare\": $doc}" >> "$json"
		table "$fs" "$name" "$doc" >> "$md"
	done
	umount "$upper"
done

# tmpfs: the generator and a userspace loop of the same calls
t=$(mc_lower tmpfs)
gen=$("$ctl" -j bench run "$t" mdtest -n "$files" -q)
usr=$("$mdbench" --target "$t" --files "$files" --rounds 2 --ops stat,neg,open \
	--cold none --json 2>/dev/null)
echo "{\"tmpfs\": $gen, \"mdbench\": ${usr:-null}}" >> "$json"
python3 - "$gen" "${usr:-null}" >> "$md" <<'EOF'
import json, sys
gen, usr = json.loads(sys.argv[1]), json.loads(sys.argv[2])
g = {r['op']: r for r in gen['results']}
u = (usr or {}).get('phases', {})
print('\n### tmpfs: the generator against a userspace loop (mdbench)\n')
print('| op | generator mean (us) | generator p50 (us) | userspace mean (us) | userspace p50 (us) |')
print('|---|---:|---:|---:|---:|')
for gop, uop in (('create', 'create'), ('stat', 'stat'), ('stat-missing', 'neg'),
                 ('open', 'open'), ('unlink', 'unlink')):
    r, x = g.get(gop), u.get(uop)
    gm = f"{r['lat_ns']['mean'] / 1000:.1f}" if r else '-'
    gp = f"{r['lat_ns']['p50'] / 1000:.1f}" if r else '-'
    um = f"{x['mean_us']:.1f}" if x else '-'
    up = f"{x['p50_us']:.1f}" if x else '-'
    print(f'| {gop} | {gm} | {gp} | {um} | {up} |')
print('\n(mdbench create also writes 4 KiB; the generator creates empty files.)')
EOF
cat "$md"
mc_stage bench
mc_collect
