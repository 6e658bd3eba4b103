# SPDX-License-Identifier: GPL-2.0
#
# metacache: a metadata cache for network file systems, as a stackable
# Linux file system module.  See README.
#
#   make               build the module, the tools and the tests
#   make check         run the test suite in the QEMU test bed (after the
#                      host tests: tools, bench_report.py's plots, packaging)
#   make check-debug   a reduced suite on a debug kernel (KASAN, lockdep,
#                      kmemleak, fault injection) built from Debian's
#                      linux-source-6.1 and cached outside the repository
#                      (Documentation/testbed.md)
#   make soak          the stress and fault programs for longer on that
#                      kernel (tests/suite-soak.conf; SOAK_SECS=150: seconds
#                      per stress run), about 25 minutes
#   make debug-kernel  only build (or find) that kernel
#   make deps          install what a Debian 12 machine needs (root)
#   make bench         metacache against the lower clients and the peers
#                      (mergerfs, rclone) in the QEMU test bed, one boot,
#                      report in results/<date-time>/report.md
#                      (Documentation/benchmark.md); QUICK=1: tiny sizes,
#                      one run, a few minutes; RTT=2ms: added round-trip
#                      delay between clients and servers (netem)
#   make pairbench     first-touch operations and the create/unlink loop,
#                      metacache against its lower in interleaved pairs, with
#                      the lower clients' round trips counted, and overlayfs
#                      over the same lower for reference (one boot,
#                      tests/bench/README.md); QUICK=1: tiny, a few minutes
#   make clean
#
# Installing and packaging (Documentation/install.md):
#   make install       the module into /lib/modules/$(KVER)/updates (then
#                      depmod), metacachectl, its man pages and completion
#                      under $(PREFIX) (default /usr/local); DESTDIR honoured
#   make uninstall     removes exactly the files install put
#   make dkms-install  registers the module source with DKMS, builds and
#                      installs it for $(KVER) (root); make dkms-uninstall
#   make deb           metacache-dkms and metacache-tools .debs in build/deb/
#   make pkgcheck      the packaging checks (tests/pkg/check.sh, root)
#   make version       prints the version (from kmod/metacache.h)
#
# KVER selects the kernel (default: the newest installed Debian image that
# has headers); KDIR the kernel build tree (default: its headers).
# FILTER=text runs only the suite programs whose name contains text.

KVER ?= $(shell . tests/vm/lib.sh; mc_kver)
KDIR ?= /lib/modules/$(KVER)/build
FILTER ?=

all: module tools tests

preflight:
	@tests/vm/preflight

module: preflight
	$(MAKE) -C kmod KDIR=$(KDIR)

tools:
	$(MAKE) -C tools

tests:
	$(MAKE) -C tests

# Host-side tests first (the tool's parsers, output, netlink transport;
# the benchmark report and its plots; packaging, DKMS and install), then
# the suite in the QEMU test bed.
check: all
	$(MAKE) -C tools test
	tests/bench/test_report.sh || [ $$? -eq 4 ]
	tests/pkg/check.sh || [ $$? -eq 4 ]
	tests/vm/run --name check --timeout 3600 --env MC_FILTER=$(FILTER) tests/vm/check.sh

# The debug kernel lane: builds (or reuses) the kernel, the module against
# it in build/debug/, and runs tests/suite-debug.conf on it.
check-debug: tools tests
	tests/vm/check-debug $(if $(FILTER),--filter $(FILTER))

# The same kernel, the concurrency programs for longer (not run by CI).
SOAK_SECS ?= 150
soak: tools tests
	MC_SOAK_SECS=$(SOAK_SECS) tests/vm/check-debug --soak $(if $(FILTER),--filter $(FILTER))

debug-kernel:
	scripts/debug-kernel.sh

deps:
	scripts/deps.sh

# The peer benchmark (Documentation/benchmark.md).  Sizes: see
# tests/bench/bench_job.sh; QUICK=1 shrinks them to check the path works.
RTT ?=
QUICK ?=
BENCH_ENV ?=
BENCH_RESULTS ?= results
BENCH_QUICK_ENV := --env MC_BENCH_RUNS=1 --env MC_BENCH_TREE=50 --env MC_BENCH_PROJ=2 \
	--env MC_BENCH_TAR=10 --env MC_BENCH_MD_NFS=20 --env MC_BENCH_MD_CIFS=10 \
	--env MC_BENCH_GEN_FILES=20 --env MC_BENCH_GEN_OPS=40
bench: all
	@echo "$(RTT)" | grep -Eq '^([0-9]+(ms|us))?$$' || { echo "make bench: RTT=$(RTT): want e.g. RTT=2ms or RTT=500us" >&2; exit 2; }
	tests/vm/run --name bench --timeout 3600 --no-slub-debug $(if $(RTT),--env MC_BENCH_RTT=$(RTT)) \
		--env "MC_BENCH_HOST=$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $$(nproc) cores, $$(awk '/MemTotal/ { printf "%d GiB", $$2 / 1048576 }' /proc/meminfo), load $$(cut -d' ' -f1-3 /proc/loadavg) at start, $$(cat build/vm/accel 2>/dev/null || echo tcg)" \
		$(if $(QUICK),$(BENCH_QUICK_ENV)) $(BENCH_ENV) tests/bench/bench_job.sh
	tests/bench/publish.sh build/vm/bench-latest $(BENCH_RESULTS)

PAIR_QUICK_ENV := --env MC_BENCH_FILES_NFS=20 --env MC_BENCH_FILES_CIFS=20 \
	--env MC_BENCH_RUNS=1 --env MC_BENCH_RTTS=none
pairbench: all
	tests/vm/run --name pair-bench --timeout 2400 --no-slub-debug \
		$(if $(QUICK),$(PAIR_QUICK_ENV)) $(BENCH_ENV) tests/bench/pair_bench.sh

clean:
	$(MAKE) -C kmod KDIR=$(KDIR) clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests clean
	rm -rf build

.PHONY: all preflight module tools tests check check-debug soak debug-kernel deps bench pairbench clean

# ---------------------------------------------------------------------------
# Installing and packaging.  The one source of the version is
# METACACHE_VERSION in kmod/metacache.h (what the module reports); dkms.conf
# carries the placeholder #MODULE_VERSION#, and debian/changelog must agree
# (make deb checks it).
VERSION := $(shell sed -n 's/^\#define[[:space:]]*METACACHE_VERSION[[:space:]]*"\(.*\)".*/\1/p' kmod/metacache.h)
PREFIX ?= /usr/local
DESTDIR ?=
MODDIR := /lib/modules/$(KVER)/updates
DKMS_SRC := /usr/src/metacache-$(VERSION)
DEB_OUT := build/deb
export PATH := $(PATH):/usr/sbin:/sbin

version:
	@echo $(VERSION)

install: install-module install-tools

uninstall: uninstall-module uninstall-tools

# The module is built here (not through 'module', whose test bed preflight
# wants QEMU and the servers) and must have been built for $(KVER).
install-module:
	@test -n "$(KVER)" || { echo "make install: no kernel with headers found; set KVER=<release>" >&2; exit 1; }
	$(MAKE) -C kmod KDIR=$(KDIR)
	@v=$$(modinfo -F vermagic kmod/metacache.ko | cut -d' ' -f1); \
	test "$$v" = "$(KVER)" || { echo "make install: kmod/metacache.ko is built for '$$v', not $(KVER) (make clean, or set KVER/KDIR to agree)" >&2; exit 1; }
	install -d $(DESTDIR)$(MODDIR)
	install -m 0644 kmod/metacache.ko $(DESTDIR)$(MODDIR)/metacache.ko
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi

uninstall-module:
	@test -n "$(KVER)" || { echo "make uninstall: no kernel found; set KVER=<release>" >&2; exit 1; }
	rm -f $(DESTDIR)$(MODDIR)/metacache.ko
	@if [ -d $(DESTDIR)$(MODDIR) ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$(MODDIR); fi
	@if [ -z "$(DESTDIR)" ] && [ -d /lib/modules/$(KVER) ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi

install-tools:
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall-tools:
	$(MAKE) -C tools uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# The DKMS source tree: dkms.conf, kmod/ (sources only) and the uapi
# header, laid out as in this repository.
DKMS_FILES := kmod/Kbuild kmod/Makefile $(wildcard kmod/*.h) \
	$(filter-out %.mod.c,$(wildcard kmod/*.c))
dkms-source:
	@test -n "$(VERSION)" || { echo "no METACACHE_VERSION in kmod/metacache.h" >&2; exit 1; }
	install -d $(DESTDIR)$(DKMS_SRC)/kmod $(DESTDIR)$(DKMS_SRC)/include/uapi/linux
	install -m 0644 $(DKMS_FILES) $(DESTDIR)$(DKMS_SRC)/kmod/
	install -m 0644 $(wildcard include/uapi/linux/*.h) $(DESTDIR)$(DKMS_SRC)/include/uapi/linux/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRC)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMS_SRC)/dkms.conf

# On this machine, as root: /usr/src/metacache-<ver>, dkms add, build and
# install for $(KVER).  dkms-uninstall undoes all of it.
dkms-install:
	@command -v dkms >/dev/null || { echo "make dkms-install: dkms is not installed (apt-get install dkms)" >&2; exit 1; }
	@if dkms status -m metacache -v $(VERSION) | grep -q .; then \
		echo "make dkms-install: metacache/$(VERSION) is already in DKMS (make dkms-uninstall first)" >&2; exit 1; fi
	$(MAKE) dkms-source DESTDIR=
	dkms add -m metacache -v $(VERSION)
	dkms build -m metacache -v $(VERSION) -k $(KVER)
	dkms install -m metacache -v $(VERSION) -k $(KVER)

dkms-uninstall:
	@command -v dkms >/dev/null || { echo "make dkms-uninstall: dkms is not installed" >&2; exit 1; }
	@if dpkg-query -S $(DKMS_SRC) >/dev/null 2>&1; then \
		echo "make dkms-uninstall: $(DKMS_SRC) belongs to a package (apt remove metacache-dkms)" >&2; exit 1; fi
	if dkms status -m metacache -v $(VERSION) | grep -q .; then \
		dkms remove -m metacache -v $(VERSION) --all; fi
	rm -rf $(DKMS_SRC)

# Binary packages with Debian's tools, built in a copy of the tree (what git
# tracks plus untracked, not ignored files) so that nothing is written
# outside build/.  lintian runs on the result when it is installed.
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "make deb: needs dpkg-dev, debhelper and dh-dkms (make deps)" >&2; exit 1; }
	@cv=$$(dpkg-parsechangelog -l debian/changelog -S Version); \
	test "$$cv" = "$(VERSION)" || { echo "make deb: debian/changelog is at $$cv but kmod/metacache.h says $(VERSION): add a changelog entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src/metacache-$(VERSION)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar --null -T - -cf - ; \
	else \
		tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.ko' \
		    --exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' -cf - . ; \
	fi | tar -xf - -C $(DEB_OUT)/src/metacache-$(VERSION)
	cd $(DEB_OUT)/src/metacache-$(VERSION) && dpkg-buildpackage -b -us -uc
	mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.changes $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/
	rm -rf $(DEB_OUT)/src
	@if command -v lintian >/dev/null; then \
		echo "lintian $(DEB_OUT)/*.changes"; \
		lintian --fail-on error $(DEB_OUT)/*.changes; \
	else echo "make deb: lintian not installed, not run"; fi
	@ls -l $(DEB_OUT)/*.deb

pkgcheck:
	tests/pkg/check.sh || [ $$? -eq 4 ]

.PHONY: version install uninstall install-module uninstall-module \
	install-tools uninstall-tools dkms-source dkms-install dkms-uninstall \
	deb pkgcheck
