#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_job.sh - the guest job of `make bench`: metacache against the peers,
# in one boot.  On the host:
#
#	tests/vm/run --name bench --timeout 3000 --no-slub-debug tests/bench/bench_job.sh
#
# For each lower (nfs, cifs) it mounts, every configuration over its own
# client of the same export (so no two share a client cache):
#
#   default     the lower client with default options (the test bed's mount)
#   tuned       nfs actimeo=3600,nocto,nosharecache;
#               cifs actimeo=60,closetimeo=60,nosharesock
#   mergerfs    mergerfs over the lower, cache.attr/entry/negative_entry=60,
#               cache.readdir=true, minfreespace=0, category.create=ff
#   rclone      rclone mount :local:<lower> --dir-cache-time 60s
#               --attr-timeout 60s (--vfs-cache-mode off, the default)
#   metacache   metacache, default tunables
#   mc-60s      metacache, entry/neg/attr/dir/close ttl 60 s
#   tmpfs       a local tmpfs (the local limit)
#
# creates the fixtures once per lower in the server's export directory
# (tests/bench/peerbench.sh --fixtures), and runs tests/bench/peerbench.sh
# with every configuration.  A peer that cannot be mounted is reported as
# "not run: <reason>".  Results in $MC_RESULTS: bench.tsv (raw), bench.json,
# bench.md (tests/bench/bench_report.py), plots/ (PNG plots made with gnuplot,
# their .gp scripts and .dat data).
#
# Environment (tests/vm/run --env VAR=VALUE):
#   MC_BENCH_LOWERS      "nfs cifs"
#   MC_BENCH_RUNS        runs per lower (3)
#   MC_BENCH_BUDGET_NFS, MC_BENCH_BUDGET_CIFS   seconds after which no new
#                        run of that lower starts (600, 1000)
#   MC_BENCH_TREE        files in the git tree (200)
#   MC_BENCH_PROJ        .c files in the C project (4)
#   MC_BENCH_TAR         files in the tarball (50)
#   MC_BENCH_MD_NFS, MC_BENCH_MD_CIFS   mdbench files (100, 40)
#   MC_BENCH_GEN_FILES, MC_BENCH_GEN_OPS   the in-kernel generator's
#                        files (mdtest, mixed) and operations (mixed, data)
#                        (100, 200)
#   MC_BENCH_WORKLOADS   peerbench.sh workloads (all)
#   MC_BENCH_RTT         added round-trip delay between the clients and the
#                        servers, e.g. 2ms (mc_rtt in tests/vm/guest-lib.sh:
#                        netem on loopback, half each way); "" = none
#   MC_BENCH_HOST        a line about the host machine, for the report
# The test bed runs jobs with /bin/sh: this one needs bash (arrays).
if [ -z "${BASH_VERSION:-}" ]; then exec /bin/bash "$0" "$@"; fi
set -u
. tests/vm/guest-lib.sh

lowers=${MC_BENCH_LOWERS:-nfs cifs}
runs=${MC_BENCH_RUNS:-3}
budget_nfs=${MC_BENCH_BUDGET_NFS:-600}
budget_cifs=${MC_BENCH_BUDGET_CIFS:-1000}
n_tree=${MC_BENCH_TREE:-200}
n_proj=${MC_BENCH_PROJ:-4}
n_tar=${MC_BENCH_TAR:-50}
md_nfs=${MC_BENCH_MD_NFS:-100}
md_cifs=${MC_BENCH_MD_CIFS:-40}
gen_files=${MC_BENCH_GEN_FILES:-100}
gen_ops=${MC_BENCH_GEN_OPS:-200}
workloads=${MC_BENCH_WORKLOADS:-}
rtt=${MC_BENCH_RTT:-}
out=${MC_RESULTS:-/tmp}
pb=$PWD/tests/bench/peerbench.sh
ko=$PWD/kmod/metacache.ko
B=$MC/bench
tsv=$out/bench.tsv
meta=$out/bench-meta.txt
mc60=entry_ttl=60,neg_ttl=60,attr_ttl=60,dir_ttl=60,close_ttl=60
export HOME=/tmp/bench-home
mkdir -p "$HOME"

log() { echo "bench: $*"; }
fail() { log "$*"; mc_collect; exit 1; }
# The configurations that could not be set up: "lower config reason" lines.
notrun() { log "not run: $1 $2: $3"; printf '%s\t%s\t0\t*\ts\t-\tnotrun\t%s\n' "$1" "$2" "$3" >> "$tsv"; }

[ -x "$PWD/tests/bench/mdbench" ] || fail "tests/bench/mdbench not built (make -C tests)"
[ -r "$ko" ] || fail "$ko not built (make module)"
mc_setup || fail "the test bed set-up failed"
# After the set-up: the lowers mount at loopback speed.
if [ -n "$rtt" ]; then mc_rtt "$rtt" || fail "RTT=$rtt could not be applied"; fi
insmod "$ko" || fail "insmod $ko"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
fuse_ok=1
modprobe fuse 2>/dev/null || { fuse_ok=0; log "modprobe fuse failed"; }

: > "$tsv"
{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel	$(uname -r)$(grep -o 'slub_debug=[^ ]*' /proc/cmdline | sed 's/^/, /')"
	echo "host	${MC_BENCH_HOST:-unknown}"
	echo "guest	$(nproc) vCPUs, $(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo)"
	if [ -n "$rtt" ]; then
		echo "rtt	$rtt (netem on loopback, half each way)"
	else
		echo "rtt	none (loopback, no added delay)"
	fi
	echo "runs planned	$runs (per lower: see \"runs\" below)"
	echo "budget	nfs ${budget_nfs}s, cifs ${budget_cifs}s"
	echo "sizes	git tree $n_tree files (from /usr/include, packed repository); C project $n_proj .c files + main.c; tarball $n_tar files; mdbench files: nfs $md_nfs, cifs $md_cifs (rounds 3, depth 8, 4 KiB)"
	echo "versions	mergerfs $(mergerfs --version 2>/dev/null | sed -n '1s/.*version: //p'); rclone $(rclone version 2>/dev/null | sed -n '1s/^rclone //p'); git $(git --version | sed 's/git version //'); metacache $(cat /sys/module/metacache/version 2>/dev/null)"
	echo "mc60	$mc60"
} > "$meta"

# The tarball, on local storage.
"$pb" --mktar /tmp/bench.tar --tar-files "$n_tar" || fail "making the tarball"
# The fixtures, made once on the local tmpfs (the tmpfs configuration of
# every lower), then copied to each export.
"$pb" --fixtures "$(mc_lower tmpfs)/mcbench" --tree-files "$n_tree" --proj-files "$n_proj" ||
	fail "fixtures on tmpfs"

wait_mount() {	# DIR: up to 20 s for a FUSE daemon to mount
	local i=0
	while [ $i -lt 200 ]; do
		mountpoint -q "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# client FS DIR [OPTS]: a new, independent client mount of the export.
client() {
	mkdir -p "$2"
	case $1 in
	nfs) mc_retry mount -t nfs4 -o "vers=4.2,nosharecache${3:+,$3}" 127.0.0.1:/ "$2" ;;
	cifs) mc_retry mount -t cifs //127.0.0.1/share "$2" -o "guest,vers=3.1.1,nosharesock${3:+,$3}" ;;
	esac
}

rc_port=5572
for fs in $lowers; do
	eval md=\$md_$fs budget=\$budget_$fs
	# The same fixtures, copied into the server's export directory (local,
	# fast): every configuration of this lower sees these files.
	cp -a "$(mc_lower tmpfs)/mcbench" "$(mc_server "$fs")/" || fail "copying the fixtures to $fs"
	cfgs=(--config "default=$(mc_lower "$fs")")
	d=$B/$fs
	mkdir -p "$d"
	case $fs in
	nfs) topts=actimeo=3600,nocto ;;
	cifs) topts=actimeo=60,closetimeo=60 ;;
	esac
	if client "$fs" "$d/tuned" "$topts" >/dev/null 2>"$d.err"; then
		cfgs+=(--config "tuned=$d/tuned")
	else
		notrun "$fs" tuned "mount -o $topts failed: $(head -c 200 "$d.err" 2>/dev/null)"
	fi
	if [ $fuse_ok = 0 ]; then
		notrun "$fs" mergerfs "no fuse module"
		notrun "$fs" rclone "no fuse module"
	else
		client "$fs" "$d/mergerfs-lower" && mkdir -p "$d/mergerfs"
		if mergerfs -o cache.attr=60,cache.entry=60,cache.negative_entry=60,cache.readdir=true,minfreespace=0,category.create=ff \
			"$d/mergerfs-lower" "$d/mergerfs" 2>"$d.err" && wait_mount "$d/mergerfs"; then
			cfgs+=(--config "mergerfs=$d/mergerfs")
		else
			notrun "$fs" mergerfs "mergerfs failed to mount: $(head -c 200 "$d.err" | tr '\t\n' '  ')"
		fi
		client "$fs" "$d/rclone-lower" && mkdir -p "$d/rclone"
		: > /tmp/rclone.conf
		# In the background rather than --daemon (whose parent and child
		# both start the rc server); rc is there for vfs/forget (cold runs).
		setsid rclone mount ":local:$d/rclone-lower" "$d/rclone" --config /tmp/rclone.conf \
			--dir-cache-time 60s --attr-timeout 60s --vfs-cache-mode off \
			--rc --rc-addr "127.0.0.1:$rc_port" --rc-no-auth \
			--cache-dir /tmp/rclone-cache-$fs --log-file "$out/rclone-$fs.log" \
			</dev/null >/dev/null 2>"$d.err" &
		rc_pid=$!
		if wait_mount "$d/rclone"; then
			cfgs+=(--config "rclone=$d/rclone")
			rc_hook="rclone rc --rc-addr 127.0.0.1:$rc_port --rc-no-auth vfs/forget"
		else
			rc_hook=
			kill "$rc_pid" 2>/dev/null
			mountpoint -q "$d/rclone" && umount -l "$d/rclone"
			notrun "$fs" rclone "rclone mount failed: $(cat "$d.err" "$out/rclone-$fs.log" 2>/dev/null | head -c 300 | tr '\t\n' '  ')"
		fi
		rc_port=$((rc_port + 1))
	fi
	client "$fs" "$d/mc-lower" && client "$fs" "$d/mc60-lower"
	mkdir -p "$d/metacache" "$d/mc-60s"
	if mount -t metacache "$d/mc-lower" "$d/metacache" 2>"$d.err"; then
		cfgs+=(--config "metacache=$d/metacache")
	else
		notrun "$fs" metacache "mount failed: $(head -c 200 "$d.err")"
	fi
	if mount -t metacache -o "$mc60" "$d/mc60-lower" "$d/mc-60s" 2>"$d.err"; then
		cfgs+=(--config "mc-60s=$d/mc-60s")
	else
		notrun "$fs" mc-60s "mount failed: $(head -c 200 "$d.err")"
	fi
	cfgs+=(--config "tmpfs=$(mc_lower tmpfs)")
	log "$fs: configurations: ${cfgs[*]}"
	# Settle: the first drop_caches after the set-up releases thousands of
	# inodes (the host root over 9p among them) and takes a minute under
	# emulation; let it happen before the clock runs.
	sync; echo 3 > /proc/sys/vm/drop_caches
	mc_stage "setup-$fs"
	"$pb" --lower "$fs" "${cfgs[@]}" --tarball /tmp/bench.tar --runs "$runs" \
		--budget "$budget" --md-files "$md" --tsv "$tsv" \
		--gen-files "$gen_files" --gen-ops "$gen_ops" --ctl "$PWD/tools/metacachectl/metacachectl" \
		${workloads:+--workloads "$workloads"} ${rc_hook:+--cold-hook "$rc_hook"}
	mc_stage "bench-$fs"
	echo "seconds_$fs	$(awk -v s="$(grep "^bench-$fs " "$MC_RESULTS/timings.txt" | cut -d' ' -f2)" \
		-v b="$(grep "^setup-$fs " "$MC_RESULTS/timings.txt" | cut -d' ' -f2)" 'BEGIN { printf "%d", s - b }')" >> "$meta"
	# Unmount this lower's stack before the next lower (FUSE first).
	for m in "$d/rclone" "$d/mergerfs"; do
		mountpoint -q "$m" && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }
	done
	for m in "$d/metacache" "$d/mc-60s" "$d/tuned" "$d/mergerfs-lower" "$d/rclone-lower" \
		"$d/mc-lower" "$d/mc60-lower"; do
		mountpoint -q "$m" && umount "$m"
	done
	[ -n "${rc_pid:-}" ] && kill "$rc_pid" 2>/dev/null
	rc_pid=
done

# The plots (PNG, with their gnuplot scripts and data) go to $out/plots/:
# gnuplot comes from the host's root file system (9p, read only); without
# it bench.md says "plots: skipped: gnuplot not installed".  A gnuplot that
# fails makes bench_report.py fail after writing the tables.
python3 tests/bench/bench_report.py --meta "$meta" --json "$out/bench.json" \
	--plots "$out/plots" --md-dir "$out" "$tsv" > "$out/bench.md" ||
	fail "bench_report.py failed"
cat "$out/bench.md"
mc_collect
exit 0
