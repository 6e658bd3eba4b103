// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - the latency histogram scheme of include/uapi/linux/metacache.h
 * and percentiles computed from it.
 */
#include <math.h>
#include "mcctl.h"

#define MIN_SHIFT	METACACHE_HIST_MIN_SHIFT
#define MAX_SHIFT	METACACHE_HIST_MAX_SHIFT
#define SUB_BITS	METACACHE_HIST_SUB_BITS
#define NB		METACACHE_HIST_NBUCKETS

_Static_assert(NB == 126, "the bucket scheme changed: update the docs");

unsigned int mc_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < (1ULL << MIN_SHIFT))
		return 0;
	if (v >= (1ULL << MAX_SHIFT))
		return NB - 1;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return 1 + ((e - MIN_SHIFT) << SUB_BITS) +
	       (unsigned int)((v >> (e - SUB_BITS)) & ((1U << SUB_BITS) - 1));
}

uint64_t mc_hist_lower(unsigned int i)
{
	unsigned int e, s;

	if (i == 0)
		return 0;
	if (i >= NB - 1)
		return 1ULL << MAX_SHIFT;
	e = MIN_SHIFT + ((i - 1) >> SUB_BITS);
	s = (i - 1) & ((1U << SUB_BITS) - 1);
	return (1ULL << e) + ((uint64_t)s << (e - SUB_BITS));
}

uint64_t mc_hist_upper(unsigned int i)
{
	if (i >= NB - 1)
		return UINT64_MAX;
	return mc_hist_lower(i + 1);
}

void mc_hist_add(struct mc_hist *h, uint64_t ns, uint64_t n)
{
	h->present = 1;
	h->b[mc_hist_index(ns)] += n;
	h->count += n;
	h->sum_ns += ns * n;
	if (n && ns > h->max_ns)
		h->max_ns = ns;
}

uint64_t mc_hist_total(const struct mc_hist *h)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < NB; i++)
		t += h->b[i];
	return t;
}

/*
 * The value below which a fraction q of the samples fall: find the bucket
 * holding the sample of rank ceil(q * total) and interpolate linearly
 * inside it (samples assumed spread evenly over the bucket).  The overflow
 * bucket ends at the largest sample; no result exceeds the largest sample.
 */
int mc_hist_percentile(const struct mc_hist *h, double q, uint64_t *ns)
{
	uint64_t total = mc_hist_total(h), rank, cum = 0;
	unsigned int i;

	if (!total || !(q > 0))
		return -1;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	for (i = 0; i < NB; i++) {
		uint64_t lo, hi, c = h->b[i];
		double v;

		if (cum + c < rank) {
			cum += c;
			continue;
		}
		lo = mc_hist_lower(i);
		hi = mc_hist_upper(i);
		if (i == NB - 1)
			hi = h->max_ns > lo ? h->max_ns : lo;
		v = (double)lo + (double)(hi - lo) * (double)(rank - cum) / (double)c;
		*ns = (uint64_t)v;
		if (h->max_ns && *ns > h->max_ns)
			*ns = h->max_ns;
		return 0;
	}
	return -1;	/* not reached: rank <= total */
}
