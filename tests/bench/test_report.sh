#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test (TAP) of tests/bench/bench_report.py and its gnuplot plots:
#
#   tests/bench/test_report.sh        (from anywhere; run by make check)
#
# Runs bench_report.py --plots on the checked-in fixture
# tests/bench/fixtures/report.tsv (real measurements, see its README.md)
# and checks: the tables of bench.md, its image links (relative to the
# directory of bench.md), that every linked PNG exists, is a PNG (its
# 8-byte signature) and is larger than 2 KB, that its gnuplot script and
# data are next to it and redraw it, bench.json, the goals and Azure-terms
# tables; headline.py's and publish.sh's outputs and bad input;
# peerbench.sh --tap on a local directory; then, with gnuplot hidden from
# PATH, that the report still exits 0 and says the plots were skipped.
#
# Exit status: 0 all passed, 1 something failed, 4 nothing could run
# (python3 or gnuplot missing: 'make deps' installs them).
# The last line is "bench-report: N passed, N failed, N skipped".
set -u
export LC_ALL=C.UTF-8
here=$(cd "$(dirname "$0")" && pwd)
report=$here/bench_report.py
fixture=$here/fixtures/report.tsv

n=0 npass=0 nfail=0
ok()   { n=$((n + 1)); npass=$((npass + 1)); echo "ok $n $1"; }
fail() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
skip_all() {
	echo "1..0 # SKIP $1"
	echo "bench-report: 0 passed, 0 failed, 0 skipped"
	exit 4
}

python3=$(command -v python3) || skip_all "python3 not installed (make deps)"
command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot not installed (apt-get install gnuplot-nox, or make deps)"

tmp=$(mktemp -d /tmp/test_report.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"

# --- the report with plots -------------------------------------------------
"$python3" "$report" --json "$tmp/out/bench.json" --plots "$tmp/out/plots" \
	--md-dir "$tmp/out" "$fixture" > "$tmp/out/bench.md" 2> "$tmp/err"
rc=$?
if [ $rc = 0 ]; then ok "bench_report.py --plots exits 0"
else fail "bench_report.py --plots exits 0" "exit $rc" "$(cat "$tmp/err")"; fi
md=$tmp/out/bench.md

for h in "## nfs" "### nfs: time per configuration" "### nfs: ratio vs the lower with default options" \
	 "## cifs" "### cifs: time per configuration" "### cifs: ratio vs tmpfs (1 = local speed)" \
	 "## Plots"; do
	check "bench.md has \"$h\"" grep -qxF "$h" "$md"
done
check "bench.md: a table row of md_create" grep -q '^| md_create | us/op | ' "$md"
check "bench.md: a table row of git_status" grep -q '^| git_status | s | ' "$md"
check "bench.md: cifs has two runs" grep -qxF -- "- runs: 1, 2" "$md"
# Issue 8's goals on the fixture: nfs md_stat with 60 s TTLs is 840.58 us
# against tmpfs's 90.1 (one run): 9.33x, over the 2x bound.
check "bench.md: the goals table" grep -qxF "### nfs: issue 8's goals (mc-60s)" "$md"
check "bench.md: a goal missed, with the workload and its ratio" \
	grep -qxF '| cached metadata ops within 2x of tmpfs | no | md_stat (9.33) |' "$md"
# ... and 6.8x the lower's time: latency -580%, IOPS 1/6.8 - 1 = -85%.
check "bench.md: the Azure-terms table" grep -qxF "### nfs: mc-60s's gain in Azure's terms" "$md"
check "bench.md: md_stat against the lower in Azure's terms" grep -q '^| md_stat | -580% / -85% | ' "$md"
check "bench.json: six goals per lower, md_stat missed" "$python3" -c '
import json, sys
g = json.load(open(sys.argv[1]))["lowers"]["nfs"]["goals"]
sys.exit(0 if len(g) == 6 and g[0]["met"] == "no" and "md_stat" in g[0]["missed"] else 1)' "$tmp/out/bench.json"

# Every expected plot is linked, with a path relative to bench.md's directory.
want=
for l in nfs cifs; do
	for p in mdbench-ops programs-rate programs-ratio mdbench-latency; do
		want="$want $l-$p"
	done
done
links=$(grep -o '!\[[^]]*\]([^)]*)' "$md" | sed 's/.*(\(.*\))/\1/')
nl=$(printf '%s\n' "$links" | grep -c .)
check "bench.md links 8 images (has $nl)" [ "$nl" = 8 ]
for w in $want; do
	if ! printf '%s\n' "$links" | grep -qxF "plots/$w.png"; then
		fail "bench.md links plots/$w.png" "links: $links"
		continue
	fi
	ok "bench.md links plots/$w.png"
	f=$tmp/out/plots/$w.png
	if [ ! -f "$f" ]; then fail "$w.png exists"; continue; fi
	sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
	check "$w.png has the PNG signature ($sig)" [ "$sig" = 89504e470d0a1a0a ]
	sz=$(stat -c %s "$f")
	check "$w.png is larger than 2 KB ($sz bytes)" [ "$sz" -gt 2048 ]
	check "$w.gp exists" [ -s "$tmp/out/plots/$w.gp" ]
	check "$w.dat exists" [ -s "$tmp/out/plots/$w.dat" ]
done
# The script redraws its plot (it names its data and output relative to
# its own directory).
rm -f "$tmp/out/plots/cifs-mdbench-ops.png"
(cd "$tmp/out/plots" && gnuplot cifs-mdbench-ops.gp) > "$tmp/err" 2>&1
check "gnuplot cifs-mdbench-ops.gp redraws cifs-mdbench-ops.png" [ -s "$tmp/out/plots/cifs-mdbench-ops.png" ]
# The data are the fixture's: cifs md_create default, median of the two
# runs' 1e6 / us per op.
want_ops=$(awk -F'\t' '$1=="cifs" && $2=="default" && $4=="md_create" { s += 1e6 / $6; k++ }
	END { printf "%.4g", s / k }' "$fixture")
got_ops=$(awk -F'\t' '$1=="md_create" { printf "%.4g", $2 }' "$tmp/out/plots/cifs-mdbench-ops.dat")
check "cifs-mdbench-ops.dat: md_create default = $want_ops ops/s (has $got_ops)" [ "$want_ops" = "$got_ops" ]
check "bench.json lists the 8 plots" "$python3" -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if len(j["plots"]["files"]) == 8 else 1)' "$tmp/out/bench.json"

# --- publish.sh: results/<date-time>/ and the headline -----------------------
run=$tmp/bench-20261130-120301
mkdir "$run"
cp -r "$tmp/out/bench.md" "$tmp/out/bench.json" "$tmp/out/plots" "$run/"
cp "$fixture" "$run/bench.tsv"
printf 'date\t2026-11-30 12:03 UTC\n' > "$run/bench-meta.txt"
got=$("$here/publish.sh" "$run" "$tmp/results" 2> "$tmp/err")
rc=$?
check "publish.sh exits 0 (has $rc: $(cat "$tmp/err"))" [ $rc = 0 ]
pub=$tmp/results/2026-11-30-1203
check "publish.sh prints $pub/report.md (has $got)" [ "$got" = "$pub/report.md" ]
for f in report.md report.json bench.tsv meta.txt headline.md plots/nfs-mdbench-ops.png; do
	check "published $f" [ -s "$pub/$f" ]
done
check "report.md's plot links resolve" sh -c 'cd "$1" && for l in $(grep -o "(plots/[^)]*)" report.md | tr -d "()"); do [ -f "$l" ] || exit 1; done' - "$pub"
# headline.md: the fixture's nfs md_stat: default 123.59 us -> "124",
# metacache with 60 s TTLs 840.58 -> "841"; 60 s vs default 123.59 / 840.58.
check "headline.md: the nfs table header" grep -q '^nfs | default | best peer | metacache | metacache 60 s | tmpfs' "$pub/headline.md"
check "headline.md: nfs stat row from the fixture" grep -qF 'stat, warm (us/op) | 124 | 166 (rclone) | 1066 | 841 | 90.1 | 0.15x | 0.2x' "$pub/headline.md"
check "headline.md: a cifs table" grep -q '^cifs | default' "$pub/headline.md"
"$python3" "$here/headline.py" "$here/README.md" > /dev/null 2> "$tmp/err"
check "headline.py refuses a file that is no report.json" [ $? = 1 ]
check "headline.py says why, without a traceback" sh -c '! grep -q Traceback "$1" && grep -q "not a make bench report.json" "$1"' - "$tmp/err"
"$here/publish.sh" "$tmp/out2-missing" "$tmp/results" > /dev/null 2>&1
check "publish.sh of a directory without a report fails" [ $? != 0 ]

# --- percentiles from the rows' notes ---------------------------------------
# peerbench.sh's notes: mdbench "p50 X us, p99 Y us, Z ops/s, lower/op W";
# older generator rows "p99 Y us, Z ops/s".  Medians over the runs.
printf '%s\n' \
	"nfs	default	1	md_stat	us	40	ok	p50 38.5 us, p99 61.25 us, 25000.0 ops/s" \
	"nfs	default	2	md_stat	us	42	ok	p50 39.5 us, p99 70.75 us, 23000.0 ops/s" \
	"nfs	mc-60s	1	md_stat	us	20	ok	p50 19 us, p99 30 us, 50000.0 ops/s, lower/op 0.00" \
	"nfs	mc-60s	2	md_stat	us	22	ok	p50 21 us, p99 34 us, 46000.0 ops/s, lower/op 0.50" \
	"nfs	default	1	gen_mdtest_stat	us	7.48	ok	p99 28.7 us, 65703.0 ops/s" \
	"nfs	mc-60s	1	gen_mdtest_stat	us	9.1	ok	p50 8.0 us, p99 30.1 us, 50000.0 ops/s" \
	> "$tmp/pct.tsv"
"$python3" "$report" --json "$tmp/pct.json" --plots "$tmp/pctplots" --md-dir "$tmp" \
	"$tmp/pct.tsv" > "$tmp/pct.md" 2> "$tmp/err"
check "percentiles: the report exits 0 ($(head -c 200 "$tmp/err"))" [ $? = 0 ]
for f in nfs-mdbench-p99.png nfs-generator-p99.png; do
	check "percentiles: $f drawn and linked" sh -c '[ -s "$1/$2" ] && grep -qF "(pctplots/$2)" "$3"' - "$tmp/pctplots" "$f" "$tmp/pct.md"
done
check "percentiles: the p99 plot's data, medians and min-max over the runs" \
	grep -qP '^md_stat\t66\t61.25\t70.75\t32\t30\t34$' "$tmp/pctplots/nfs-mdbench-p99.dat"
check "percentiles: the table" grep -qxF "### nfs: latency percentiles and operations per second" "$tmp/pct.md"
check "percentiles: md_stat, medians of p50 / p99 (ops/s) per configuration" \
	grep -qxF '| md_stat | 39.0 / 66.0 (24000) | 20.0 / 32.0 (48000) |' "$tmp/pct.md"
check "percentiles: a row without p50 shows -" \
	grep -qxF '| gen_mdtest_stat | - / 28.7 (65703) | 8.00 / 30.1 (50000) |' "$tmp/pct.md"
check "percentiles: lower/op still read from the note" grep -qxF '| md_stat | 0.25 |' "$tmp/pct.md"
check "percentiles: in report.json" "$python3" -c '
import json, sys
c = json.load(open(sys.argv[1]))["lowers"]["nfs"]["workloads"]["md_stat"]["configs"]["default"]
sys.exit(0 if (c["p50"], c["p99"], c["ops_per_s"]) == (39.0, 66.0, 24000.0) else 1)' "$tmp/pct.json"

# --- peerbench.sh --tap, on a local directory -------------------------------
pb=$tmp/pb
mkdir -p "$pb/c/mcbench/tree/.git" && echo x > "$pb/c/mcbench/tree/f"
echo "not a tarball" > "$pb/bad.tar"
"$here/peerbench.sh" --lower local --config c="$pb/c" --runs 1 --workloads ls_lR,tar_x \
	--tap --tsv "$pb/t.tsv" > "$pb/tap" 2> "$tmp/err"
rc=$?
check "peerbench --tap: exits 0 (has $rc: $(tail -n 1 "$tmp/err"))" [ $rc = 0 ]
check "peerbench --tap: the version line first" [ "$(head -n 1 "$pb/tap")" = "TAP version 13" ]
check "peerbench --tap: a test point with its figure" grep -qE '^ok 1 local c run 1 ls_lR: [0-9.]+ s$' "$pb/tap"
check "peerbench --tap: what was not run is a SKIP" \
	grep -qxF 'ok 2 local c run 1 tar_x # SKIP notrun: no --tarball' "$pb/tap"
check "peerbench --tap: the plan last" [ "$(tail -n 1 "$pb/tap")" = "1..2" ]
check "peerbench --tap: the figures in the TSV" [ "$(wc -l < "$pb/t.tsv")" = 2 ]
"$here/peerbench.sh" --lower local --config c="$pb/c" --runs 1 --workloads tar_x \
	--tarball "$pb/bad.tar" --tap --tsv "$pb/t2.tsv" > "$pb/tap2" 2>/dev/null
check "peerbench --tap: a failed command fails the run" [ $? = 1 ]
check "peerbench --tap: ... as a not ok test point" grep -qxF 'not ok 1 local c run 1 tar_x' "$pb/tap2"
"$here/peerbench.sh" --lower local --config c="$pb/c" --tap > /dev/null 2> "$tmp/err"
check "peerbench --tap without --tsv FILE is refused" [ $? = 1 ]

# --- without gnuplot -------------------------------------------------------
# A PATH with only the python interpreter (its real path: python3 may be
# a wrapper script such as a pyenv shim that needs a full PATH).
mkdir "$tmp/bin" "$tmp/out2"
py=$("$python3" -c 'import sys; print(sys.executable)')
ln -s "$py" "$tmp/bin/python3"
PATH=$tmp/bin "$py" "$report" --plots "$tmp/out2/plots" --md-dir "$tmp/out2" "$fixture" \
	> "$tmp/out2/bench.md" 2> "$tmp/err"
rc=$?
check "without gnuplot: exit 0 (has $rc)" [ $rc = 0 ]
check "without gnuplot: bench.md says plots: skipped: gnuplot not installed" \
	grep -qxF "plots: skipped: gnuplot not installed" "$tmp/out2/bench.md"
check "without gnuplot: the tables are there" grep -qxF "### cifs: time per configuration" "$tmp/out2/bench.md"
check "without gnuplot: a message on stderr" grep -q "gnuplot not installed" "$tmp/err"
check "without gnuplot: no image links" [ "$(grep -c '!\[' "$tmp/out2/bench.md")" = 0 ]

# mdbench's arguments: --cold-wait is bounded, and a bad value changes
# nothing (exit 2 before touching the target).
if [ -x "$here/mdbench" ]; then
	for bad in 60001 -1 x ""; do
		"$here/mdbench" --target "$tmp/none" --cold-wait "$bad" > "$tmp/out.md" 2> "$tmp/err"
		rc=$?
		check "mdbench --cold-wait '$bad': exit 2 (has $rc), a message" \
			sh -c "[ $rc = 2 ] && grep -q cold-wait '$tmp/err' && [ ! -e '$tmp/none' ]"
	done
fi

echo "1..$n"
echo "bench-report: $npass passed, $nfail failed, 0 skipped"
[ $nfail -eq 0 ] || exit 1
exit 0
