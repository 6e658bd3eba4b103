#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the debug kernel of `make check-debug`: Debian's
# linux-source-6.1 configured as allnoconfig + tests/vm/debug.config (KASAN,
# lockdep, kmemleak, fault injection, and everything the test bed guest
# needs, built in).  Prints the kernel tree's directory on stdout; the image
# is DIR/arch/x86/boot/bzImage and DIR is a KDIR for out-of-tree modules.
#
# usage: scripts/debug-kernel.sh [--key]
#   --key   print only the cache key and exit
#
# The tree lives outside the repository, in
#   $MC_DEBUG_KERNEL_CACHE (default /var/cache/metacache/debug-kernel)/<key>/
# where <key> hashes the source package's version, the config fragment and
# this script's build recipe.  A finished build is renamed into place at the
# very end, so a directory under that name is always complete; a build that
# was interrupted leaves only a .build-<key>-* directory, which the next run
# removes.  Builds of the same key are serialised with a lock.
#
# Needs: linux-source-6.1 bc bison flex libssl-dev libelf-dev dwarves rsync
# cpio (make deps).  Costs ~1.8 GiB of disk and, on 2 cores, about half an
# hour; the build runs under `nice -n 19` with MC_DEBUG_JOBS (default 2) jobs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
frag=$repo/tests/vm/debug.config
src_tar=/usr/src/linux-source-6.1.tar.xz
cache=${MC_DEBUG_KERNEL_CACHE:-/var/cache/metacache/debug-kernel}
jobs=${MC_DEBUG_JOBS:-2}

die() {
	echo "debug-kernel: error: $*" >&2
	exit 1
}
log() {
	echo "debug-kernel: $*" >&2
}

# Bump when the recipe below changes in a way that changes the result.
recipe=1
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed (make deps)"
[ -r "$src_tar" ] || die "cannot read $src_tar (Debian package linux-source-6.1)"
key=$( { echo "linux-source-6.1 $srcver"; echo "recipe $recipe";
	 cat "$frag"; } | sha256sum | cut -c1-16)
if [ "${1:-}" = --key ]; then
	echo "$key"
	exit 0
fi

dir=$cache/$key
if [ -r "$dir/arch/x86/boot/bzImage" ] && [ -r "$dir/Module.symvers" ]; then
	log "reusing $dir"
	echo "$dir"
	exit 0
fi

for t in bc bison flex pahole rsync cpio gcc make xz perl; do
	command -v $t >/dev/null || die "missing $t (make deps)"
done
[ -e /usr/include/openssl/ssl.h ] || die "missing libssl-dev (make deps)"
[ -e /usr/include/libelf.h ] || die "missing libelf-dev (make deps)"

mkdir -p "$cache"
exec 9> "$cache/.lock-$key"
log "waiting for the build lock $cache/.lock-$key"
flock 9
# Someone else may have finished it while we waited.
if [ -r "$dir/arch/x86/boot/bzImage" ] && [ -r "$dir/Module.symvers" ]; then
	log "reusing $dir"
	echo "$dir"
	exit 0
fi
[ -e "$dir" ] && { log "removing the incomplete $dir"; rm -rf "$dir"; }
rm -rf "$cache/.build-$key-"*
tmp=$cache/.build-$key-$$
mkdir -p "$tmp"
start=$(date +%s)
log "building linux-source-6.1 $srcver with $(basename "$frag") in $tmp (key $key)"
tar -xJf "$src_tar" -C "$tmp" --strip-components=1
cd "$tmp"

mk() {
	nice -n 19 make ARCH=x86_64 "$@"
}
# allnoconfig + the fragment.  (Not tinyconfig: it forces SLOB, which KASAN
# cannot use.)
cp "$frag" mc-debug.config
ARCH=x86_64 nice -n 19 scripts/kconfig/merge_config.sh -n mc-debug.config >merge.log 2>&1 ||
	{ cat merge.log >&2; die "merge_config.sh failed"; }

# Every line of the fragment must have survived.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	sym=${line%%=*} want=${line#*=}
	if [ "$want" = n ]; then
		if grep -q "^$sym=" .config; then
			log "config: $sym should be off, is $(grep "^$sym=" .config)"
			bad=1
		fi
	elif ! grep -qxF "$line" .config; then
		log "config: wanted $line, got: $(grep "^$sym=\|^# $sym is not set" .config || echo absent)"
		bad=1
	fi
done < "$frag"
[ $bad -eq 0 ] || die "the merged config lacks options of $frag (see above; missing dependency?)"
log "config verified: every option of $(basename "$frag") is set"

log "make -j$jobs bzImage modules_prepare (nice 19)"
mk -j"$jobs" bzImage modules_prepare >build.log 2>&1 ||
	{ tail -n 40 build.log >&2; die "kernel build failed (log: $tmp/build.log)"; }
# Writes Module.symvers, without which out-of-tree modules warn of every
# kernel symbol as undefined.
mk -j"$jobs" modules >>build.log 2>&1 ||
	{ tail -n 40 build.log >&2; die "make modules failed (log: $tmp/build.log)"; }
[ -r arch/x86/boot/bzImage ] && [ -r Module.symvers ] || die "build produced no bzImage/Module.symvers"
secs=$(( $(date +%s) - start ))
echo "$secs" > build-seconds
make -s ARCH=x86_64 kernelrelease > kernelrelease
cd /
mv "$tmp" "$dir"
log "built $(cat "$dir/kernelrelease") in ${secs}s: $dir"
echo "$dir"
