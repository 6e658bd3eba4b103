# SPDX-License-Identifier: GPL-2.0
#
# metacache: a metadata cache for network file systems, as a stackable
# Linux file system module.  See README.
#
#   make               build the module, the tools and the tests
#   make check         run the test suite in the QEMU test bed
#   make deps          install what a Debian 12 machine needs (root)
#   make clean
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

# Host-side tests first (the tool's parsers, output, netlink transport),
# then the suite in the QEMU test bed.
check: all
	$(MAKE) -C tools test
	tests/vm/run --name check --env MC_FILTER=$(FILTER) tests/vm/check.sh

deps:
	scripts/deps.sh

clean:
	$(MAKE) -C kmod KDIR=$(KDIR) clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests clean
	rm -rf build

.PHONY: all preflight module tools tests check deps clean
