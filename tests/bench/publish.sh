#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# publish.sh - copy the report of one `make bench` run out of the test
# bed's results into results/<date-time>/ (run by make bench):
#
#	tests/bench/publish.sh RUN-DIR [DEST-ROOT]
#
# RUN-DIR is the run's results directory (build/vm/bench-<date>-<time>,
# written by tests/bench/bench_job.sh); DEST-ROOT defaults to results/.
# Writes DEST-ROOT/<YYYY-MM-DD-HHMM>/:
#
#   report.md     the tables, its plots linked as plots/*.png
#   report.json   the same figures
# (both made again here by tests/bench/bench_report.py from bench.tsv,
# with the plots: gnuplot runs on the host; the guest's bench.md if that
# fails)
#   headline.md   the short table for the README (tests/bench/headline.py)
#   bench.tsv     the raw measurements, one line each
#   meta.txt      the run's conditions (host, kernel, RTT, sizes)
#   plots/        the PNG plots, with their gnuplot scripts and data
#
# Prints the path of report.md.  Exit status 1 if the run left no report.
set -eu
run=${1:?usage: tests/bench/publish.sh RUN-DIR [DEST-ROOT]}
root=${2:-results}
run=$(cd "$run" && pwd -P)
[ -s "$run/bench.md" ] || { echo "publish: no bench.md in $run" >&2; exit 1; }
# bench-20261130-120301 -> 2026-11-30-1203
stamp=$(basename "$run" | sed -n 's/^bench-\([0-9]\{4\}\)\([0-9]\{2\}\)\([0-9]\{2\}\)-\([0-9]\{4\}\).*/\1-\2-\3-\4/p')
[ -n "$stamp" ] || stamp=$(date +%Y-%m-%d-%H%M)
dest=$root/$stamp
mkdir -p "$dest"
[ -f "$run/bench.tsv" ] && cp "$run/bench.tsv" "$dest/bench.tsv"
[ -f "$run/bench-meta.txt" ] && cp "$run/bench-meta.txt" "$dest/meta.txt"
rm -rf "$dest/plots"
# The report again, on the host, from the same measurements: the plots
# are drawn here (gnuplot in the guest is slow, and may be missing).  If
# that fails, the guest's own report.
here=$(cd "$(dirname "$0")" && pwd)
set --
[ -f "$run/bench-meta.txt" ] && set -- --meta "$run/bench-meta.txt"
if [ -f "$run/bench.tsv" ] && command -v python3 >/dev/null &&
   python3 "$here/bench_report.py" "$@" \
	--json "$dest/report.json" --plots "$dest/plots" --md-dir "$dest" \
	"$run/bench.tsv" > "$dest/report.md.new" 2> "$dest/report.err"; then
	mv "$dest/report.md.new" "$dest/report.md"
	rm -f "$dest/report.err"
else
	echo "publish: bench_report.py failed on the host ($(cat "$dest/report.err" 2>/dev/null)); the guest's report instead" >&2
	rm -f "$dest/report.md.new" "$dest/report.err"
	cp "$run/bench.md" "$dest/report.md"
	[ -f "$run/bench.json" ] && cp "$run/bench.json" "$dest/report.json"
	[ -d "$run/plots" ] && cp -r "$run/plots" "$dest/plots"
fi
if [ -f "$dest/report.json" ]; then
	python3 "$here/headline.py" "$dest/report.json" > "$dest/headline.md" ||
		echo "publish: headline.py failed" >&2
fi
echo "$dest/report.md"
