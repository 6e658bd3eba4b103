#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the test bed's initramfs: a static busybox, the modules the stock
# Debian kernel needs to reach the host's root over virtio 9p (virtio-pci,
# 9p, its transport, overlayfs: all modules in Debian's kernel) and /init.
#
# usage: mkinitramfs.sh KVER OUTPUT.cpio.gz
#
# KVER "builtin" makes an initramfs without modules, for a kernel that has
# all of them built in (the debug kernel, tests/vm/debug.config).
set -eu
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev" \
	 "$tmp/newroot" "$tmp/scratch"
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"

# Module load order, dependencies first.  9pnet_virtio is requested by name
# at mount time, so modprobe does not list it as a dependency of 9p.
: > "$tmp/modules/order"
mods="virtio_pci 9pnet_virtio 9p overlay"
[ "$kver" = builtin ] && mods=
for m in $mods; do
	modprobe -S "$kver" --show-depends "$m" | while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		name=$(basename "$path")
		grep -qx "$name" "$tmp/modules/order" && continue
		cp "$path" "$tmp/modules/$name"
		echo "$name" >> "$tmp/modules/order"
	done
done

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
