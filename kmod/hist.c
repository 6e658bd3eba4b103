// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - latency histograms per mount, operation and source (served by
 * a cache, or a call to the lower file system), and the statistics reset.
 *
 * Recording is per-cpu, lock-free and allocation-free: the recording CPU
 * adds to its own struct mc_hist_cpu with preemption disabled.  The bucket
 * scheme is the protocol's (include/uapi/linux/metacache.h, "Latency
 * histograms"): log-linear, 4 sub-buckets per power of two from 64 ns to
 * 2^37 ns, plus underflow and overflow.
 *
 * Memory: 2 sources x MC_OP_NR x 1 KiB = 48 KiB per CPU per mount, in two
 * per-cpu allocations of 24 KiB (the per-cpu allocator's limit is 32 KiB).
 *
 * Reset: per-cpu counters are never written by another CPU (that would
 * race with the owner's increments), so STATS_RESET takes a snapshot of
 * every counter (struct mc_stats_base) and readers subtract it.  Each
 * per-cpu counter only grows, so the difference never goes below zero.
 * The maxima cannot be subtracted: reset zeroes them (benign race).
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "metacache.h"
#include "ctl.h"

/*
 * struct mc_stats_base - every counter of a mount at its last reset.
 * Allocated at the first STATS_RESET, under mc_ctl::lock like its
 * contents.
 */
struct mc_stats_base {
	struct mc_op_stats op[MC_OP_NR];
	struct mc_hist_sum hist[MC_HIST_NR][MC_OP_NR];
	struct mc_cache_counters cache[__METACACHE_CACHE_MAX];
};

/**
 * mc_hist_alloc() - allocate the per-cpu histograms of a mount
 * @ctl: the mount's control state
 *
 * Return: 0 or -ENOMEM (mc_hist_free() cleans up either way).
 */
int mc_hist_alloc(struct mc_ctl *ctl)
{
	int src;

	BUILD_BUG_ON(sizeof(struct mc_hist_pcpu) > PCPU_MIN_UNIT_SIZE);
	for (src = 0; src < MC_HIST_NR; src++) {
		ctl->hist[src] = alloc_percpu(struct mc_hist_pcpu);
		if (!ctl->hist[src])
			return -ENOMEM;
	}
	return 0;
}

/**
 * mc_hist_free() - free what mc_hist_alloc() and mc_stats_reset() allocated
 * @ctl: the mount's control state, with no recording in flight
 */
void mc_hist_free(struct mc_ctl *ctl)
{
	int src;

	for (src = 0; src < MC_HIST_NR; src++) {
		free_percpu(ctl->hist[src]);
		ctl->hist[src] = NULL;
	}
	kvfree(ctl->base);
	ctl->base = NULL;
}

/* The protocol's bucket of a sample of @ns nanoseconds. */
static unsigned int mc_hist_index(u64 ns)
{
	unsigned int e;

	if (ns < BIT_ULL(METACACHE_HIST_MIN_SHIFT))
		return 0;
	if (ns >= BIT_ULL(METACACHE_HIST_MAX_SHIFT))
		return METACACHE_HIST_NBUCKETS - 1;
	e = ilog2(ns);
	return 1 + ((e - METACACHE_HIST_MIN_SHIFT) << METACACHE_HIST_SUB_BITS) +
	       ((ns >> (e - METACACHE_HIST_SUB_BITS)) &
		(METACACHE_HIST_SUBS - 1));
}

static void mc_hist_record(struct mc_sb_info *sbi, enum mc_hist_src src,
			   enum mc_op op, u64 ns)
{
	struct mc_ctl *ctl = sbi->ctl;
	struct mc_hist_pcpu *pc;
	struct mc_hist_cpu *h;

	if (unlikely(!ctl || op >= MC_OP_NR))
		return;
	pc = get_cpu_ptr(ctl->hist[src]);
	h = &pc->op[op];
	h->bucket[mc_hist_index(ns)]++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	put_cpu_ptr(ctl->hist[src]);
}

/**
 * mc_stats_lower_call() - record the latency of a call to the lower
 * @sbi: the mount
 * @op: the operation type
 * @ns: how long the lower file system took
 *
 * Called by lower.c's accounting for every counted lower call.
 * Context: process context; no lock, no allocation.
 */
void mc_stats_lower_call(struct mc_sb_info *sbi, enum mc_op op, u64 ns)
{
	mc_hist_record(sbi, MC_HIST_LOWER, op, ns);
}

/**
 * mc_stats_cache_hit() - record an operation served from a cache
 * @sbi: the mount
 * @op: the operation type that would have gone to the lower
 * @ns: how long serving it took, from entry to return of the metacache
 *	operation
 *
 * Records the latency of a timed answer: a random sample of the avoided
 * calls (mc_served(); the exact count is mc_op_stats::avoided).
 * Context: process context, also RCU-walk; no lock, no allocation.
 */
void mc_stats_cache_hit(struct mc_sb_info *sbi, enum mc_op op, u64 ns)
{
	mc_hist_record(sbi, MC_HIST_CACHE, op, ns);
}

/* Sum one histogram over every CPU, without the reset baseline. */
static void mc_hist_sum_raw(const struct mc_ctl *ctl, enum mc_hist_src src,
			    enum mc_op op, struct mc_hist_sum *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct mc_hist_cpu *h =
			&per_cpu_ptr(ctl->hist[src], cpu)->op[op];
		u64 max = READ_ONCE(h->max_ns);

		for (i = 0; i < METACACHE_HIST_NBUCKETS; i++)
			sum->bucket[i] += READ_ONCE(h->bucket[i]);
		sum->sum_ns += READ_ONCE(h->sum_ns);
		if (max > sum->max_ns)
			sum->max_ns = max;
	}
	for (i = 0; i < METACACHE_HIST_NBUCKETS; i++)
		sum->count += sum->bucket[i];
}

static void mc_hist_sub(struct mc_hist_sum *sum, const struct mc_hist_sum *base)
{
	int i;

	sum->count -= base->count;
	sum->sum_ns -= base->sum_ns;
	for (i = 0; i < METACACHE_HIST_NBUCKETS; i++)
		sum->bucket[i] -= base->bucket[i];
}

/**
 * mc_stats_op_read() - the statistics of one operation since the reset
 * @sbi: the mount
 * @op: the operation type
 * @calls: filled with the lower calls made, their total time, and the
 *	calls avoided (every one; @cache holds only the timed sample)
 * @cache: filled with the histogram of calls served from a cache
 * @lower: filled with the histogram of calls made to the lower
 *
 * Context: the mount's mc_ctl::lock held (for the reset baseline).
 * Counters are summed without stopping recorders: not one snapshot.
 */
void mc_stats_op_read(struct mc_sb_info *sbi, enum mc_op op,
		      struct mc_op_stats *calls, struct mc_hist_sum *cache,
		      struct mc_hist_sum *lower)
{
	struct mc_ctl *ctl = sbi->ctl;
	const struct mc_stats_base *base = ctl->base;

	lockdep_assert_held(&ctl->lock);
	mc_stats_read(sbi, op, calls);
	mc_hist_sum_raw(ctl, MC_HIST_CACHE, op, cache);
	mc_hist_sum_raw(ctl, MC_HIST_LOWER, op, lower);
	if (!base)
		return;
	calls->calls -= base->op[op].calls;
	calls->avoided -= base->op[op].avoided;
	calls->total_ns -= base->op[op].total_ns;
	mc_hist_sub(cache, &base->hist[MC_HIST_CACHE][op]);
	mc_hist_sub(lower, &base->hist[MC_HIST_LOWER][op]);
}

/**
 * mc_stats_cache_read() - the counters of one cache since the reset
 * @sbi: the mount
 * @cache: the cache
 * @out: filled; the gauges (entries, memory) are current values
 *
 * Context: the mount's mc_ctl::lock held.
 */
void mc_stats_cache_read(struct mc_sb_info *sbi, enum metacache_cache cache,
			 struct mc_cache_counters *out)
{
	struct mc_ctl *ctl = sbi->ctl;
	const struct mc_cache_counters *b;

	lockdep_assert_held(&ctl->lock);
	mc_cache_stats_get(sbi, cache, out);
	if (!ctl->base)
		return;
	b = &ctl->base->cache[cache];
	/* min(): in case the caches ever restart a counter */
	out->hits -= min(out->hits, b->hits);
	out->misses -= min(out->misses, b->misses);
	out->expired -= min(out->expired, b->expired);
	out->renewed -= min(out->renewed, b->renewed);
	out->evicted -= min(out->evicted, b->evicted);
}

/**
 * mc_stats_age_ns() - time since the mount or the last reset
 * @sbi: the mount
 *
 * Context: the mount's mc_ctl::lock held.
 * Return: nanoseconds.
 */
u64 mc_stats_age_ns(struct mc_sb_info *sbi)
{
	lockdep_assert_held(&sbi->ctl->lock);
	return ktime_get_ns() - sbi->ctl->stats_since;
}

/**
 * mc_stats_reset() - zero the statistics of a mount (STATS_RESET)
 * @sbi: the mount
 *
 * Zeroes calls, avoided calls, histograms and the cache counters (not
 * their gauges) as the control plane reports them, and restarts the age.
 *
 * Context: process context; the mount's mc_ctl::lock held.
 * Return: 0 or -ENOMEM (nothing changed).
 */
int mc_stats_reset(struct mc_sb_info *sbi)
{
	struct mc_ctl *ctl = sbi->ctl;
	struct mc_stats_base *base = ctl->base;
	int cpu, op, src, c;

	lockdep_assert_held(&ctl->lock);
	if (!base) {
		base = kvzalloc(sizeof(*base), GFP_KERNEL);
		if (!base)
			return -ENOMEM;
		ctl->base = base;
	}
	for (op = 0; op < MC_OP_NR; op++) {
		mc_stats_read(sbi, op, &base->op[op]);
		for (src = 0; src < MC_HIST_NR; src++)
			mc_hist_sum_raw(ctl, src, op, &base->hist[src][op]);
	}
	for (c = 0; c < __METACACHE_CACHE_MAX; c++)
		mc_cache_stats_get(sbi, c, &base->cache[c]);
	for_each_possible_cpu(cpu)
		for (src = 0; src < MC_HIST_NR; src++)
			for (op = 0; op < MC_OP_NR; op++)
				WRITE_ONCE(per_cpu_ptr(ctl->hist[src], cpu)->op[op].max_ns, 0);
	ctl->stats_since = ktime_get_ns();
	return 0;
}
