// SPDX-License-Identifier: GPL-2.0
/*
 * metacache - creates the tracepoints declared in trace.h.
 */
#include "metacache.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
