#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side packaging checks (TAP): the .debs, DKMS, make install, man pages.
#
#   tests/pkg/check.sh            (as root, from anywhere; or: make pkgcheck)
#
# Builds the .debs with 'make deb' (into build/deb/), checks their file
# lists, control data and lintian's verdict; builds the module with DKMS
# from the metacache-dkms package's payload for the installed kernel
# ($KVER, default the test bed's: newest image with headers), in temporary
# DKMS, source and install trees, and checks its vermagic; checks that
# 'make install DESTDIR=' lays out the expected tree and 'make uninstall'
# removes every file again; renders the man pages with man -l.
#
# Nothing is installed into the system's dpkg database, /usr/src,
# /var/lib/dkms or /lib/modules.  The one thing DKMS writes outside the
# temporary trees, its module signing key (/var/lib/dkms/mok.key, .pub) on
# its first build, is removed again if this run created it.
#
# Exit status: 0 all passed, 1 something failed, 4 nothing could run (not
# root, a tool or the kernel headers missing: 'make deps' installs them).
# The last line is "pkg: N passed, N failed, N skipped".
set -u
export LC_ALL=C.UTF-8
export PATH=$PATH:/usr/sbin:/sbin
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1

n=0 npass=0 nfail=0 nskip=0
ok()   { n=$((n + 1)); npass=$((npass + 1)); echo "ok $n $1"; }
fail() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); nskip=$((nskip + 1)); echo "ok $n $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }
# check NAME COMMAND...: one test from a command's exit status
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }
finish() {
	echo "1..$n"
	echo "pkg: $npass passed, $nfail failed, $nskip skipped"
	[ $nfail -eq 0 ] || exit 1
	[ $npass -gt 0 ] || exit 4
	exit 0
}
skip_all() {
	echo "1..0 # SKIP $1"
	echo "pkg: 0 passed, 0 failed, 0 skipped"
	exit 4
}

# --- prerequisites ---------------------------------------------------------
[ "$(id -u)" = 0 ] || skip_all "needs root (dkms, the module build trees)"
missing=
for t in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms dkms:dkms \
	 lintian:lintian man:man-db modinfo:kmod rst2man:python3-docutils \
	 readelf:binutils make:make gcc:gcc; do
	command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
[ -z "$missing" ] || skip_all "missing Debian packages:$missing (make deps)"
. tests/vm/lib.sh
kver=$(mc_kver)
[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
	skip_all "no kernel with headers (linux-headers-amd64; or set KVER)"
ver=$(make -s --no-print-directory version)
[ -n "$ver" ] || skip_all "no METACACHE_VERSION in kmod/metacache.h"
arch=$(dpkg --print-architecture)

work=$(mktemp -d /tmp/mcpkg.XXXXXX) || exit 1
export TMPDIR=$work
mok_before=
for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
	[ -e "$f" ] && mok_before="$mok_before $f"
done
cleanup() {
	for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
		case " $mok_before " in *" $f "*) ;; *) rm -f "$f" ;; esac
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo "TAP version 13"
echo "# metacache $ver, kernel $kver, work dir $work"

# A copy of the tree as 'make deb' takes it (tracked and untracked, not
# ignored files), so that builds here never touch the work tree.
copy_tree() {
	mkdir -p "$1"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z -c -o --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -
	else
		tar --exclude=./build --exclude=./.git --exclude='*.o' \
		    --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		    --exclude='.*.cmd' -cf - .
	fi | tar -xf - -C "$1"
}

# --- versions agree --------------------------------------------------------
# kmod/metacache.h is the source; the changelog, metacachectl and the man
# pages must say the same.
vbad=
cv=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "$cv" = "$ver" ] || vbad="$vbad debian/changelog=$cv"
tv=$(sed -n 's/^#define[[:space:]]*METACACHECTL_VERSION[[:space:]]*"\(.*\)".*/\1/p' tools/metacachectl/mcctl.h)
[ "$tv" = "$ver" ] || vbad="$vbad tools/metacachectl/mcctl.h=$tv"
for r in tools/man/*.rst; do
	mv_=$(sed -n 's/^:Version:[[:space:]]*//p' "$r")
	[ -z "$mv_" ] || [ "$mv_" = "$ver" ] || vbad="$vbad $r=$mv_"
done
if [ -z "$vbad" ]; then ok "version $ver agrees everywhere"
else fail "version $ver (kmod/metacache.h) agrees everywhere" "differs:$vbad"; fi

# --- make deb --------------------------------------------------------------
rm -rf build/deb	# never test the packages of an earlier run
t0=$(date +%s)
if make deb >"$work/deb.log" 2>&1; then
	ok "make deb ($(( $(date +%s) - t0 )) s)"
else
	fail "make deb" "last lines of the log:"
	tail -n 30 "$work/deb.log" | diag
fi
dkms_deb=build/deb/metacache-dkms_${ver}_all.deb
tools_deb=build/deb/metacache-tools_${ver}_${arch}.deb
if [ -s "$dkms_deb" ] && [ -s "$tools_deb" ]; then
	ok "build/deb has metacache-dkms and metacache-tools"
	have_debs=1
else
	fail "build/deb has metacache-dkms and metacache-tools" "$(ls build/deb 2>&1 | tr '\n' ' ')"
	have_debs=0
fi

if [ $have_debs = 1 ]; then
	lintian build/deb/*.changes >"$work/lintian.log" 2>&1
	if grep -q '^E:' "$work/lintian.log"; then
		fail "lintian: no errors" "$(grep -c '^E:' "$work/lintian.log") errors:"
		grep '^[EW]:' "$work/lintian.log" | diag
	else
		ok "lintian: no errors ($(grep -c '^W:' "$work/lintian.log") warnings)"
		grep '^W:' "$work/lintian.log" | diag
	fi

	# File lists: exactly what is expected, nothing more.
	listing() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort; }
	{
		echo "usr/share/doc/metacache-dkms/changelog.gz"
		echo "usr/share/doc/metacache-dkms/copyright"
		src=usr/src/metacache-$ver
		echo "$src/dkms.conf"
		for f in include/uapi/linux/*.h kmod/Kbuild kmod/Makefile kmod/*.h kmod/*.c; do
			case "$f" in *.mod.c) continue ;; esac
			echo "$src/$f"
		done
	} | sort >"$work/dkms.want"
	listing "$dkms_deb" >"$work/dkms.have"
	if cmp -s "$work/dkms.want" "$work/dkms.have"; then
		ok "metacache-dkms file list ($(wc -l <"$work/dkms.have") files)"
	else
		fail "metacache-dkms file list" "- expected, + in the package:"
		diff "$work/dkms.want" "$work/dkms.have" | grep '^[<>]' | sed 's/^</-/; s/^>/+/' | diag
	fi
	printf '%s\n' usr/sbin/metacachectl \
		usr/share/bash-completion/completions/metacachectl \
		usr/share/doc/metacache-tools/changelog.gz \
		usr/share/doc/metacache-tools/copyright \
		usr/share/man/man5/metacache.5.gz \
		usr/share/man/man8/metacachectl.8.gz | sort >"$work/tools.want"
	listing "$tools_deb" >"$work/tools.have"
	if cmp -s "$work/tools.want" "$work/tools.have"; then
		ok "metacache-tools file list ($(wc -l <"$work/tools.have") files)"
	else
		fail "metacache-tools file list" "- expected, + in the package:"
		diff "$work/tools.want" "$work/tools.have" | grep '^[<>]' | sed 's/^</-/; s/^>/+/' | diag
	fi

	# Control data and maintainer scripts.
	dep=$(dpkg-deb -f "$dkms_deb" Depends)
	case "$dep" in
	*dkms*) ok "metacache-dkms depends on dkms ($dep)" ;;
	*) fail "metacache-dkms depends on dkms" "Depends: $dep" ;;
	esac
	dpkg-deb -e "$dkms_deb" "$work/dkms.ctl"
	if grep -q 'common.postinst' "$work/dkms.ctl/postinst" 2>/dev/null &&
	   grep -q "DKMS_VERSION=$ver" "$work/dkms.ctl/postinst" &&
	   grep -q 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all' "$work/dkms.ctl/prerm" 2>/dev/null; then
		ok "metacache-dkms registers with DKMS in postinst, removes in prerm"
	else
		fail "metacache-dkms registers with DKMS in postinst, removes in prerm"
	fi
	dep=$(dpkg-deb -f "$tools_deb" Depends)
	case "$dep" in
	*libnl-genl-3-200*) ok "metacache-tools depends on libnl-genl-3-200" ;;
	*) fail "metacache-tools depends on libnl-genl-3-200" "Depends: $dep" ;;
	esac

	mkdir -p "$work/root" "$work/tools"
	dpkg-deb -x "$dkms_deb" "$work/root"
	dpkg-deb -x "$tools_deb" "$work/tools"
	conf=$work/root/usr/src/metacache-$ver/dkms.conf
	if grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf" && ! grep -q '#MODULE_VERSION#' "$conf" &&
	   grep -qx 'PACKAGE_NAME="metacache"' "$conf" && grep -qx 'AUTOINSTALL="yes"' "$conf" &&
	   grep -qx 'DEST_MODULE_LOCATION\[0\]="/updates/dkms"' "$conf"; then
		ok "packaged dkms.conf: metacache $ver, /updates/dkms, AUTOINSTALL"
	else
		fail "packaged dkms.conf: metacache $ver, /updates/dkms, AUTOINSTALL"
		diag <"$conf"
	fi
	ctl=$work/tools/usr/sbin/metacachectl
	if readelf -d "$ctl" | grep -q 'BIND_NOW' && readelf -lW "$ctl" | grep -q GNU_RELRO &&
	   readelf -hW "$ctl" | grep -q 'DYN'; then
		ok "metacachectl is built hardened (PIE, RELRO, BIND_NOW)"
	else
		fail "metacachectl is built hardened (PIE, RELRO, BIND_NOW)"
	fi
	if "$ctl" --help >"$work/help.out" 2>&1 || [ -s "$work/help.out" ]; then
		ok "packaged metacachectl runs"
	else
		fail "packaged metacachectl runs"
	fi

	# DKMS from the payload, in temporary trees.
	dk=(--sourcetree "$work/root/usr/src" --dkmstree "$work/dkms"
	    --installtree "$work/modules")
	mkdir -p "$work/dkms" "$work/modules/$kver"
	t0=$(date +%s)
	if dkms add -m metacache -v "$ver" "${dk[@]}" >"$work/dkms.log" 2>&1 &&
	   dkms build -m metacache -v "$ver" -k "$kver" "${dk[@]}" >>"$work/dkms.log" 2>&1; then
		ok "dkms add, build for $kver from the package payload ($(( $(date +%s) - t0 )) s)"
	else
		fail "dkms add, build for $kver from the package payload" "dkms output:"
		diag <"$work/dkms.log"
		mlog=$work/dkms/metacache/$ver/build/make.log
		[ -r "$mlog" ] && tail -n 30 "$mlog" | diag
	fi
	if dkms install -m metacache -v "$ver" -k "$kver" --no-depmod "${dk[@]}" >>"$work/dkms.log" 2>&1 &&
	   dkms status -m metacache -v "$ver" "${dk[@]}" 2>/dev/null | grep -q "$kver.*installed"; then
		ok "dkms install into a temporary /lib/modules"
	else
		fail "dkms install into a temporary /lib/modules"
		tail -n 20 "$work/dkms.log" | diag
	fi
	ko=$work/modules/$kver/updates/dkms/metacache.ko
	if [ -s "$ko" ]; then
		vm=$(modinfo -F vermagic "$ko")
		# the whole vermagic of a module shipped with that kernel
		ref=$(find "/lib/modules/$kver/kernel" -name '*.ko*' 2>/dev/null | head -n 1)
		want=$(modinfo -F vermagic "$ref" 2>/dev/null)
		if [ "${vm%% *}" = "$kver" ] && [ "$vm" = "$want" ]; then
			ok "vermagic matches the installed kernel ($vm)"
		else
			fail "vermagic matches the installed kernel" "module: $vm" "kernel ($ref): $want"
		fi
		mv_=$(modinfo -F version "$ko")
		if [ "$mv_" = "$ver" ]; then ok "module version is $ver"
		else fail "module version is $ver" "modinfo says '$mv_'"; fi
	else
		fail "vermagic matches the installed kernel" "no $ko"
		skip "module version is $ver" "no module built"
	fi
	if dkms remove -m metacache -v "$ver" --all --no-depmod "${dk[@]}" >>"$work/dkms.log" 2>&1 &&
	   [ ! -e "$ko" ] && [ ! -e "$work/dkms/metacache/$ver" ]; then
		ok "dkms remove undoes it"
	else
		fail "dkms remove undoes it"
		tail -n 20 "$work/dkms.log" | diag
	fi

	# The man pages render, without groff warnings.
	for m in man8/metacachectl.8.gz man5/metacache.5.gz; do
		f=$work/tools/usr/share/man/$m
		if MANWIDTH=80 man --warnings -l "$f" >"$work/man.out" 2>"$work/man.err" &&
		   [ ! -s "$work/man.err" ] && grep -q '^NAME' "$work/man.out" &&
		   [ "$(wc -l <"$work/man.out")" -gt 20 ]; then
			ok "man -l $m renders ($(wc -l <"$work/man.out") lines)"
		else
			fail "man -l $m renders"
			diag <"$work/man.err"
		fi
	done
	comp=$work/tools/usr/share/bash-completion/completions/metacachectl
	if bash -c ". '$comp' && complete -p metacachectl" >/dev/null 2>&1; then
		ok "bash completion defines completion for metacachectl"
	else
		fail "bash completion defines completion for metacachectl"
	fi
else
	for t in "lintian" "file lists" "control data" "dkms build from the payload" \
		 "vermagic" "man pages"; do
		skip "$t" "no .debs"
	done
fi

# --- make install / uninstall, in a copy of the tree ----------------------
src=$work/src
copy_tree "$src"
dest=$work/dest
moddep=/lib/modules/$kver/modules.dep
dep_before=$(stat -c %Y "$moddep" 2>/dev/null)
t0=$(date +%s)
if make -C "$src" install KVER="$kver" DESTDIR="$dest" >"$work/install.log" 2>&1; then
	ok "make install DESTDIR ($(( $(date +%s) - t0 )) s)"
else
	fail "make install DESTDIR" "last lines of the log:"
	tail -n 30 "$work/install.log" | diag
fi
(cd "$dest" 2>/dev/null && find . \( -type f -o -type l \) -printf '%m %P\n' | sort) >"$work/inst.have"
sort >"$work/inst.want" <<EOF
644 lib/modules/$kver/updates/metacache.ko
755 usr/local/sbin/metacachectl
644 usr/local/share/man/man8/metacachectl.8
644 usr/local/share/man/man5/metacache.5
644 usr/local/share/bash-completion/completions/metacachectl
EOF
if cmp -s "$work/inst.want" "$work/inst.have"; then
	ok "make install lays out the expected tree (modes too)"
else
	fail "make install lays out the expected tree (modes too)" "- expected, + installed:"
	diff "$work/inst.want" "$work/inst.have" | grep '^[<>]' | sed 's/^</-/; s/^>/+/' | diag
fi
if [ "$(stat -c %Y "$moddep" 2>/dev/null)" = "$dep_before" ] &&
   [ ! -e "/lib/modules/$kver/updates/metacache.ko" ] && ! grep -q '^depmod' "$work/install.log"; then
	ok "make install with DESTDIR leaves the system alone (no depmod)"
else
	fail "make install with DESTDIR leaves the system alone (no depmod)"
fi
ko=$dest/lib/modules/$kver/updates/metacache.ko
vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
if [ "${vm%% *}" = "$kver" ]; then ok "installed module is built for $kver"
else fail "installed module is built for $kver" "vermagic: $vm"; fi
if make -C "$src" uninstall KVER="$kver" DESTDIR="$dest" >"$work/uninstall.log" 2>&1 &&
   [ -z "$(find "$dest" \( -type f -o -type l \) -print)" ]; then
	ok "make uninstall DESTDIR removes every file"
else
	fail "make uninstall DESTDIR removes every file" "left:"
	find "$dest" \( -type f -o -type l \) -printf '%P\n' | diag
	tail -n 10 "$work/uninstall.log" | diag
fi
# PREFIX: the tools alone under /usr, as the package lays them out.
dest2=$work/dest2
if make -C "$src" install-tools PREFIX=/usr DESTDIR="$dest2" >"$work/install2.log" 2>&1 &&
   [ -x "$dest2/usr/sbin/metacachectl" ] && [ -s "$dest2/usr/share/man/man8/metacachectl.8" ] &&
   [ -s "$dest2/usr/share/bash-completion/completions/metacachectl" ] &&
   make -C "$src" uninstall-tools PREFIX=/usr DESTDIR="$dest2" >>"$work/install2.log" 2>&1 &&
   [ -z "$(find "$dest2" -type f -print)" ]; then
	ok "make install-tools/uninstall-tools PREFIX=/usr"
else
	fail "make install-tools/uninstall-tools PREFIX=/usr"
	tail -n 20 "$work/install2.log" | diag
fi

finish
