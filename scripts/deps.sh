#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing metacache needs on Debian 12 (as root).
# Idempotent: apt-get installs only what is missing.  The list is also in
# the README; keep both in sync.
set -eu
PKGS="build-essential make gcc cpio kmod sparse
linux-image-amd64 linux-headers-amd64
qemu-system-x86 busybox-static
nfs-kernel-server rpcbind samba cifs-utils iproute2
libnl-3-dev libnl-genl-3-dev pkg-config python3 python3-docutils python3-yaml
dkms dh-dkms debhelper lintian man-db
git fuse3 mergerfs rclone gnuplot-nox
linux-source-6.1 bc bison flex libssl-dev libelf-dev dwarves rsync xz-utils"

if [ "$(id -u)" != 0 ]; then
	echo "deps: run as root (apt-get install needs it)" >&2
	exit 1
fi
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: everything is installed"
	exit 0
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
