#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# peerbench.sh - time metadata workloads and real programs on several
# configurations (mount points) of one share, interleaved, and write one
# TSV line per measurement.  Runs anywhere: in the test bed (driven by
# tests/bench/bench_job.sh) or on a user's machine against real mounts.
#
#   tests/bench/peerbench.sh --fixtures DIR [--tree-files N] [--proj-files N]
#       creates the fixtures under DIR (once per share, on the share itself or
#       its server's directory; every configuration of that share then sees
#       the same files): DIR/tree (a git repository of N files copied from
#       /usr/include, packed), DIR/proj (a C project of N .c files and a
#       Makefile).  Also needs: the tarball (--tarball, made with --mktar).
#
#   tests/bench/peerbench.sh --mktar FILE [--tar-files N]
#       makes the tarball that the tar_x workload extracts (N files of
#       /usr/include), on local storage.
#
#   tests/bench/peerbench.sh --lower NAME --config NAME=PATH [--config ...]
#       [--base REL] [--tarball FILE] [--runs R] [--budget SECS]
#       [--workloads LIST] [--md-files N] [--tsv FILE] [--cold-hook CMD]
#       [--deadline SECS] [--gen-files N] [--gen-ops N] [--ctl PATH] [--tap]
#       measures.  Each PATH is the root of one configuration (e.g. the
#       share mounted with default options, the same share tuned, metacache
#       over it, a tmpfs); PATH/REL (REL defaults to "mcbench") must hold the
#       fixtures.  Configurations named "default" and "tmpfs" are the
#       references of the report's ratios (tests/bench/bench_report.py).
#       Scratch files go to PATH/REL/scratch-<config>-<pid>, removed after.
#
# Each run measures every workload on every configuration, the workloads in
# order and, for each, the configurations one after another (the order
# rotated by one every run), so drift of the machine's speed hits all alike.
# No run starts once --budget seconds have passed (0 = no limit) or when the
# previous run's duration would overrun it; the skipped runs are named on
# stderr and in the TSV (status "skipped").  Past --deadline seconds
# (default: twice the budget) even a started run stops: every measurement
# left is recorded as skipped.
#
# Cold measurements (name ending in _cold) first run the cold hook: sync,
# drop_caches (3: dentries, inodes and page cache of every file system, so
# NFS/SMB clients, FUSE and the page cache forget), write 1 to every
# metacache mount's debugfs flush, then --cold-hook CMD (e.g. rclone's
# vfs/forget).  That needs root; without it the cold measurements are
# recorded as not run.  Dropping caches is global to the machine.
#
# TSV columns: lower, config, run, workload, unit (s = seconds for the
# whole command, us = mean microseconds per operation), value, status
# (ok, fail, notrun, skipped), note.
#
# --tap (kselftest style; needs --tsv FILE, which then keeps the figures):
# stdout is TAP 13, one test point per TSV line: "ok" with the figure, "not
# ok" for a failed command (its exit status and first error line), "ok ...
# # SKIP" with the reason for what was not run; the plan comes last.  The
# exit status is then 1 if any measurement failed.
#
# Adding a workload: write wl_NAME (it gets the configuration's fixture
# directory, its scratch directory and the run number, and calls
# `measure NAME [--cold] COMMAND...` once per figure) and add NAME to
# WORKLOADS below.
set -u
here=$(cd "$(dirname "$0")" && pwd)

WORKLOADS="mdbench gen git_status find_ls ls_lR du_s tar_x rm_rf make_j2 make_noop"

lower= base=mcbench tarball= runs=3 budget=0 deadline= md_files=200 tsv=/dev/stdout
cold_hook= fixtures= mktar= tree_files=1000 proj_files=30 tar_files=200
gen_files=100 gen_ops=200 ctl= tap=0
workloads=$WORKLOADS
cfg_names=() cfg_paths=()

usage() { sed -n '4,60p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--lower) lower=$2; shift 2 ;;
	--config) cfg_names+=("${2%%=*}"); cfg_paths+=("${2#*=}"); shift 2 ;;
	--base) base=$2; shift 2 ;;
	--tarball) tarball=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	--workloads) workloads=${2//,/ }; shift 2 ;;
	--md-files) md_files=$2; shift 2 ;;
	--tsv) tsv=$2; shift 2 ;;
	--cold-hook) cold_hook=$2; shift 2 ;;
	--fixtures) fixtures=$2; shift 2 ;;
	--mktar) mktar=$2; shift 2 ;;
	--tree-files) tree_files=$2; shift 2 ;;
	--proj-files) proj_files=$2; shift 2 ;;
	--tar-files) tar_files=$2; shift 2 ;;
	--gen-files) gen_files=$2; shift 2 ;;
	--gen-ops) gen_ops=$2; shift 2 ;;
	--ctl) ctl=$2; shift 2 ;;
	--tap) tap=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "peerbench: unknown argument $1" >&2; usage ;;
	esac
done

log() { echo "peerbench: $*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------------
# Fixtures.

# N regular files of /usr/include: the first N that find lists (stable on
# one machine; no sort, so that find stops early: a walk of all of
# /usr/include over the test bed's 9p root takes minutes under emulation).
include_files() {
	(cd /usr/include && find . -type f -size -64k 2>/dev/null | head -n "$1")
}

make_tree() {
	local d=$1/tree
	rm -rf "$d" && mkdir -p "$d" || return 1
	include_files "$tree_files" | (cd /usr/include && cpio -pdm --quiet "$d") || return 1
	# Stat data is compared by size and mtime only: every configuration
	# shows its own inode numbers (FUSE) and ctimes, and git status must
	# not rewrite the index on one of them and re-hash on another.
	(cd "$d" && git init -q && git config core.checkStat minimal &&
	 git config core.trustctime false && git config core.untrackedCache false &&
	 git config gc.auto 0 && git add -A &&
	 git -c user.name=bench -c user.email=bench@localhost commit -q -m tree &&
	 git repack -q -a -d && git prune-packed && git reflog expire --all &&
	 sleep 1.1 && git status --porcelain >/dev/null) || return 1
}

make_proj() {
	local d=$1/proj i n=$proj_files
	rm -rf "$d" && mkdir -p "$d/include" || return 1
	cat > "$d/include/proj.h" <<EOF
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
EOF
	i=0
	while [ $i -lt "$n" ]; do
		echo "int f$i(int x);" >> "$d/include/proj.h"
		cat > "$d/f$i.c" <<EOF
#include "proj.h"
int f$i(int x)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%d", x * $i);
	return (int)strlen(buf) + x;
}
EOF
		i=$((i + 1))
	done
	{
		echo '#include "proj.h"'
		echo 'int main(void) { int s = 0;'
		i=0
		while [ $i -lt "$n" ]; do echo "s += f$i($i);"; i=$((i + 1)); done
		echo 'printf("%d\n", s); return 0; }'
	} > "$d/main.c"
	cat > "$d/Makefile" <<'EOF'
CFLAGS = -O0 -Iinclude
SRCS = $(wildcard *.c)
OBJS = $(SRCS:.c=.o)
prog: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c include/proj.h
	$(CC) $(CFLAGS) -c -o $@ $<
clean:
	rm -f prog *.o
EOF
}

if [ -n "$mktar" ]; then
	include_files "$tar_files" | tar -C /usr/include -cf "$mktar" -T - || die "making $mktar"
	exit 0
fi
if [ -n "$fixtures" ]; then
	mkdir -p "$fixtures" || die "mkdir $fixtures"
	make_tree "$fixtures" || die "making the git tree in $fixtures/tree"
	make_proj "$fixtures" || die "making the C project in $fixtures/proj"
	log "fixtures in $fixtures: tree $(cd "$fixtures/tree" && git ls-files | wc -l) files, proj $proj_files .c files"
	exit 0
fi

[ -n "$lower" ] || usage
[ ${#cfg_names[@]} -gt 0 ] || usage
[ $tap = 0 ] || [ "$tsv" != /dev/stdout ] || die "--tap writes TAP to stdout: give the figures a --tsv FILE"
for i in "${!cfg_names[@]}"; do
	[ -d "${cfg_paths[$i]}/$base/tree/.git" ] ||
		die "${cfg_names[$i]}: no fixtures in ${cfg_paths[$i]}/$base (make them with --fixtures)"
done

# ---------------------------------------------------------------------
# Measuring.

is_root=0
[ "$(id -u)" = 0 ] && is_root=1

make_cold() {
	local f
	sync
	echo 3 > /proc/sys/vm/drop_caches || return 1
	for f in /sys/kernel/debug/metacache/*/flush; do
		[ -w "$f" ] && echo 1 > "$f"
	done
	if [ -n "$cold_hook" ]; then eval "$cold_hook" >/dev/null 2>&1; fi
	return 0
}

# Current measurement context, set by the main loop.
c_name= c_dir= c_scratch= c_run=
errlog=$(mktemp /tmp/peerbench.err.XXXXXX)

# --tap numbers its test points by the TSV's lines (rows are also written
# from subshells, which cannot count in a variable of ours).
tsv0=0
[ $tap = 1 ] && [ -f "$tsv" ] && tsv0=$(wc -l < "$tsv")
row() {	# WORKLOAD UNIT VALUE STATUS NOTE
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$lower" "$c_name" "$c_run" "$1" "$2" "$3" "$4" "$5" >> "$tsv"
	[ $tap = 1 ] || return 0
	local n=$(($(wc -l < "$tsv") - tsv0)) what="$lower $c_name run $c_run $1"
	case $4 in
	ok) echo "ok $n $what: $3 $2${5:+ ($5)}" ;;
	fail) echo "not ok $n $what"; echo "# $5" ;;
	*) echo "ok $n $what # SKIP $4: $5" ;;
	esac
}

# measure NAME [--cold] [--in DIR] COMMAND...: time COMMAND (its output
# discarded) with bash's clock (no extra process), one TSV line.
measure() {
	local name=$1 cold=0 dir=$c_dir t0 t1 rc
	shift
	while :; do
		case "$1" in
		--cold) cold=1; shift ;;
		--in) dir=$2; shift 2 ;;
		*) break ;;
		esac
	done
	if [ $cold = 1 ]; then
		if [ $is_root = 0 ]; then row "$name" s - notrun "needs root (drop_caches)"; return 0; fi
		make_cold || { row "$name" s - fail "drop_caches failed"; return 0; }
	fi
	progress "$name"
	: > "$errlog"
	t0=$EPOCHREALTIME
	(cd "$dir" && "$@") >/dev/null 2>"$errlog"
	rc=$?
	t1=$EPOCHREALTIME
	if [ $rc = 0 ]; then
		row "$name" s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')" ok ""
	else
		row "$name" s - fail "rc $rc: $(head -c 200 "$errlog" | tr '\t\n' '  ')"
	fi
	return 0
}

n_done=0 n_total=0
progress() {
	n_done=$((n_done + 1))
	printf 'peerbench: [%s run %s/%s %d/%d %ss] %s %s\n' "$lower" "$c_run" "$runs" \
		"$n_done" "$n_total" "$(elapsed)" "$c_name" "$1" >&2
}

# ---------------------------------------------------------------------
# Workloads.  wl_NAME: the fixtures are in $c_dir (tree, proj), scratch
# space in $c_scratch (empty, removed after the run).

wl_mdbench() {
	local t rc
	t=$(mktemp /tmp/peerbench.md.XXXXXX)
	progress mdbench
	"$here/mdbench" --target "$c_scratch" --files "$md_files" --rounds 3 --depth 8 \
		--size 4096 --cold "$([ $is_root = 1 ] && echo drop || echo none)" \
		--tsv "$t" --label x > "$errlog" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		# mdbench --tsv: label phase ops mean_us p50 p99 ops/s lower/op
		# (lower/op: calls metacache made to the lower per operation, "-"
		# elsewhere).  The mean is the figure; the rest goes in the note.
		awk -F'\t' '{ printf "%s\t%s\tp50 %s us, p99 %s us, %s ops/s%s\n", $2, $4, $5, $6, $7,
			       $8 == "-" ? "" : ", lower/op " $8 }' "$t" |
		while IFS=$'\t' read -r p v note; do
			row "md_$p" us "$v" ok "$note"
		done
	else
		row md_create us - fail "rc $rc: $(grep -m1 'not ok' "$errlog" | tr '\t' ' ')"
	fi
	rm -f "$t"
}

# The in-kernel generator (Documentation/generator.md) on the configuration:
# `metacachectl bench run` of its mdtest phases (--gen-files files), its
# mixed metadata workload, 4 KiB random read/write and 64 KiB sequential
# reads (--gen-ops operations each) in the scratch directory.  One row per
# operation type: gen_<workload>_<op>, mean microseconds, p50, p99 and
# ops/s in the note.  Needs the metacache module loaded (the generator lives in it)
# and root (starting a job needs CAP_SYS_ADMIN); --ctl names metacachectl.
gen_ctl() {
	local c
	for c in "$ctl" "$here/../../tools/metacachectl/metacachectl" "$(command -v metacachectl)"; do
		[ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
	done
	return 1
}

wl_gen() {
	local c spec name j
	if ! c=$(gen_ctl) || ! grep -qw metacache /proc/filesystems || [ $is_root = 0 ]; then
		row gen_mdtest us - notrun "needs root, metacachectl and the metacache module"
		return 0
	fi
	for spec in "mdtest -n $gen_files" "mixed -n $gen_files -o $gen_ops" \
		    "randrw -n 2 -s 1M -o $gen_ops" "seqread -n 2 -s 1M -o $gen_ops"; do
		name=${spec%% *}
		progress "gen_$name"
		# shellcheck disable=SC2086
		if ! j=$("$c" -j bench run "$c_scratch" $spec -q 2>"$errlog"); then
			row "gen_$name" us - fail "$(head -c 200 "$errlog" | tr '\t\n' '  ')"
			continue
		fi
		python3 -c '
import json, sys
for r in json.loads(sys.argv[2])["results"]:
    if r["op"] in ("tree-create", "tree-remove") or not r["ops"]:
        continue
    l = r["lat_ns"]
    print("gen_%s_%s\t%.2f\tp50 %.1f us, p99 %.1f us, %.1f ops/s" % (
          sys.argv[1], r["op"], l["mean"] / 1e3, l["p50"] / 1e3, l["p99"] / 1e3,
          r["ops_per_s"]))
' "$name" "$j" | while IFS=$'\t' read -r w v note; do
			row "$w" us "$v" ok "$note"
		done
	done
}

wl_git_status() {
	measure git_status_cold --cold --in "$c_dir/tree" git --no-optional-locks status --porcelain
	measure git_status --in "$c_dir/tree" git --no-optional-locks status --porcelain
}

wl_find_ls() {
	measure find_ls_cold --cold find tree -ls
	measure find_ls find tree -ls
}

wl_ls_lR() {
	measure ls_lR ls -lR tree
}

wl_du_s() {
	measure du_s_cold --cold du -s tree
	measure du_s du -s tree
}

wl_tar_x() {
	if [ -z "$tarball" ] || [ ! -r "$tarball" ]; then
		row tar_x s - notrun "no --tarball"
		return
	fi
	mkdir -p "$c_scratch/tar"
	measure tar_x --in "$c_scratch/tar" tar -xf "$tarball"
}

wl_rm_rf() {
	[ -d "$c_scratch/tar" ] || { row rm_rf s - notrun "needs tar_x before it"; return; }
	measure rm_rf --in "$c_scratch" rm -rf tar
}

wl_make_j2() {
	# A private copy of the project (not timed), then a clean build.
	rm -rf "$c_scratch/proj"
	cp -r "$c_dir/proj" "$c_scratch/proj" 2>"$errlog" ||
		{ row make_j2 s - fail "copying the project: $(head -c 200 "$errlog")"; return; }
	measure make_j2 --in "$c_scratch/proj" make -s -j2
}

wl_make_noop() {
	[ -x "$c_scratch/proj/prog" ] || { row make_noop s - notrun "needs make_j2 before it"; return; }
	measure make_noop --in "$c_scratch/proj" make -s -j2
}

for w in $workloads; do
	declare -F "wl_$w" >/dev/null || die "unknown workload $w (known: $WORKLOADS)"
done

# ---------------------------------------------------------------------
# The runs.

start=$EPOCHSECONDS
elapsed() { echo $((EPOCHSECONDS - start)); }

ncfg=${#cfg_names[@]}
# Progress total: one step per measure call (cold+warm pairs count 2).
steps=0
for w in $workloads; do
	case $w in git_status|find_ls|du_s) steps=$((steps + 2)) ;; gen) steps=$((steps + 4)) ;;
	*) steps=$((steps + 1)) ;; esac
done
n_total=$((steps * ncfg * runs))

[ -n "$deadline" ] || deadline=$((budget * 2))
[ $tap = 1 ] && echo "TAP version 13"
last=0
r=1
while [ $r -le "$runs" ]; do
	el=$(elapsed)
	if [ "$budget" -gt 0 ] && { [ "$el" -ge "$budget" ] || [ $((el + last)) -gt "$budget" ]; }; then
		log "budget of ${budget}s: skipping run $r of $runs (elapsed ${el}s, last run ${last}s)"
		for i in "${!cfg_names[@]}"; do
			c_name=${cfg_names[$i]} c_run=$r
			row "*" s - skipped "time budget"
		done
		r=$((r + 1))
		continue
	fi
	r0=$EPOCHSECONDS
	for i in "${!cfg_names[@]}"; do
		c_name=${cfg_names[$i]} c_run=$r
		c_dir=${cfg_paths[$i]}/$base
		scr[$i]=$c_dir/scratch-$c_name-$$
		rm -rf "${scr[$i]}"
		mkdir -p "${scr[$i]}" || log "$c_name: cannot mkdir ${scr[$i]}"
	done
	for w in $workloads; do
		k=0
		while [ $k -lt "$ncfg" ]; do
			i=$(( (k + r - 1) % ncfg ))
			c_name=${cfg_names[$i]} c_run=$r
			c_dir=${cfg_paths[$i]}/$base c_scratch=${scr[$i]}
			if [ "$deadline" -gt 0 ] && [ "$(elapsed)" -ge "$deadline" ]; then
				row "$w" s - skipped "deadline of ${deadline}s"
			else
				"wl_$w"
			fi
			k=$((k + 1))
		done
	done
	for i in "${!cfg_names[@]}"; do
		rm -rf "${scr[$i]}" || log "${cfg_names[$i]}: cannot remove ${scr[$i]}"
	done
	last=$((EPOCHSECONDS - r0))
	log "$lower run $r done in ${last}s"
	r=$((r + 1))
done
rm -f "$errlog"
log "$lower: $(elapsed)s"
if [ $tap = 1 ]; then
	echo "1..$(($(wc -l < "$tsv") - tsv0))"
	tail -n +$((tsv0 + 1)) "$tsv" | awk -F'\t' '$7 == "fail" { f = 1 } END { exit f }' || exit 1
fi
