#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# other.sh: tests/stress with one of its workers (MC_STRESS_OTHER, default
# 1) on the same tree through the second lower client ($MC_LOWER2) instead
# of the stack.  The stack then learns of that worker's changes only
# through its TTLs and the lower client's own caching, so the final
# comparisons are reported, not asserted; every errno, the chaos process's
# calls and the kernel's reports still count.  For tests/suite-soak.conf
# (`make soak`); on a lower without a second client it is the plain stress.
MC_STRESS_OTHER=${MC_STRESS_OTHER:-1} exec "$(dirname "$0")/stress" "$@"
