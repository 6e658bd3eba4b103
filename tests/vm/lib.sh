# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the host side of the test bed (sourced, not run).

mc_die() {
	echo "testbed: error: $*" >&2
	exit 1
}

# The Debian kernel the test bed boots: the newest /boot/vmlinuz-*-amd64 that
# also has headers installed (the module must be built for exactly that one).
# $KVER overrides.
mc_kver() {
	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
		return
	fi
	for img in $(ls -1 /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		v=${img#/boot/vmlinuz-}
		if [ -d "/lib/modules/$v/build" ]; then
			echo "$v"
			return
		fi
	done
}

# Every tool and file the test bed needs, with the package that brings it.
# Prints one line per missing item and returns non-zero if any is missing.
mc_preflight() {
	local miss=0 kver
	for t in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		 cpio:cpio modprobe:kmod rpc.nfsd:nfs-kernel-server \
		 rpcbind:rpcbind exportfs:nfs-kernel-server smbd:samba \
		 mount.cifs:cifs-utils gcc:build-essential make:make \
		 ip:iproute2 timeout:coreutils; do
		if ! PATH="$PATH:/usr/sbin:/sbin" command -v "${t%%:*}" >/dev/null 2>&1; then
			echo "missing: ${t%%:*} (Debian package ${t#*:})"
			miss=1
		fi
	done
	if [ ! -e /usr/include/libnl3/netlink/genl/genl.h ]; then
		echo "missing: libnl-genl-3 headers (Debian packages libnl-genl-3-dev libnl-3-dev)"
		miss=1
	fi
	kver=$(mc_kver)
	if [ -z "$kver" ]; then
		if ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1; then
			echo "missing: headers for the installed kernel image(s) $(ls /boot/vmlinuz-*-amd64 | tr '\n' ' ')(Debian package linux-headers-amd64, matching linux-image-amd64)"
		else
			echo "missing: a Debian kernel image /boot/vmlinuz-*-amd64 (Debian packages linux-image-amd64 linux-headers-amd64)"
		fi
		miss=1
	fi
	if [ $miss -ne 0 ]; then
		echo "run 'make deps' (as root) to install what is missing"
	fi
	return $miss
}
