/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl.h - the control plane of metacache: what its files share.
 *
 *	ctl.c			per-mount control state, module-wide defaults
 *	netlink.c		the generic netlink family "metacache"
 *	policy.c		per-directory policy rules, mc_policy_*()
 *	hist.c			latency histograms, statistics reset
 *	params.c		module parameters: the defaults at modprobe
 *
 * The protocol itself is include/uapi/linux/metacache.h.
 */
#ifndef _METACACHE_CTL_H
#define _METACACHE_CTL_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "../include/uapi/linux/metacache.h"
#include "metacache.h"

/* Latency histograms: which service answered an operation. */
enum mc_hist_src {
	MC_HIST_CACHE,		/* served from a cache (avoided call) */
	MC_HIST_LOWER,		/* a call made to the lower file system */
	MC_HIST_NR
};

/*
 * struct mc_hist_cpu - what one CPU saw of one operation from one source.
 *
 * Only modified by its own CPU with preemption disabled (never from
 * interrupts); read by any CPU without locking.  The sample count is the
 * sum of @bucket.  @max_ns is reset by STATS_RESET from another CPU (a
 * benign race: a sample recorded at that moment may survive the reset).
 */
struct mc_hist_cpu {
	u64 sum_ns;
	u64 max_ns;
	u64 bucket[METACACHE_HIST_NBUCKETS];
};

/* struct mc_hist_pcpu - the per-cpu histograms of a mount, one source. */
struct mc_hist_pcpu {
	struct mc_hist_cpu op[MC_OP_NR];
};

/* struct mc_hist_sum - a histogram summed over all CPUs. */
struct mc_hist_sum {
	u64 count;
	u64 sum_ns;
	u64 max_ns;
	u64 bucket[METACACHE_HIST_NBUCKETS];
};

/*
 * struct mc_cache_counters - the counters of one cache of one mount, as
 * mc_cache_stats_get() reports them.  @hits ... @evicted only ever grow
 * (STATS_RESET is done by the control plane on its copy); @entries and
 * @mem_bytes are gauges.
 */
struct mc_cache_counters {
	u64 hits;
	u64 misses;
	u64 expired;
	u64 renewed;
	u64 evicted;
	u64 entries;
	u64 mem_bytes;
};

struct mc_stats_base;		/* hist.c */
struct mc_rule_table;		/* policy.c */

/*
 * struct mc_rule - a policy rule on a directory of a mount.
 *
 * Immutable once published: a change replaces the rule.  Found by readers
 * through mc_ctl::table under RCU, freed with kfree_rcu().  Rules are
 * keyed by their path string (not by a dentry), so they hold no dentry:
 * a directory that does not exist yet, or whose dentry is evicted, keeps
 * its rule, and unmount has nothing to release early.
 */
struct mc_rule {
	struct list_head node;	/* on mc_ctl::rules, by path; under its lock */
	struct rcu_head rcu;
	u32 flags;		/* METACACHE_POLICY_F_* */
	u32 set;		/* BIT(METACACHE_A_TUN_*) of the values given */
	struct mc_tunables tun;	/* the values given (the others are 0) */
	u32 dis_mask;		/* caches whose on/off bit tun.disabled sets */
	u16 depth;		/* components of @path: 0 for "/" */
	u16 len;		/* strlen(@path) */
	char path[];		/* normalized: "/" or "/a/b" */
};

/*
 * struct mc_ctl - control plane state of a mount, mc_sb_info::ctl.
 *
 * Allocated by mc_ctl_alloc() in mc_fill_super() before the mount is
 * published, freed by mc_ctl_free() when the super block is gone.
 *
 * Locking: @lock (a mutex, taken in process context only, never while
 * holding mc_mounts_lock or a spinlock) serialises every change made by
 * the control plane to the mount: its tunables (load-modify-store in
 * MOUNT_SET and in a remount, whose s_umount comes first), its rules
 * (@rules, @nr_rules, @rules_gen, publishing @table) and its statistics
 * baseline (@base, @stats_since).  Readers on
 * the file system's paths take no lock: @table is RCU-protected (NULL
 * when there is no rule) and the histograms are per-cpu.
 */
struct mc_ctl {
	struct mutex lock;
	/* policy.c */
	struct list_head rules;		/* struct mc_rule, in path order */
	unsigned int nr_rules;		/* written under @lock, READ_ONCE */
	unsigned int rules_gen;		/* bumped by every change of @rules */
	struct mc_rule_table __rcu *table;
	/* hist.c */
	struct mc_hist_pcpu __percpu *hist[MC_HIST_NR];
	struct mc_stats_base *base;	/* NULL until the first reset */
	u64 stats_since;		/* ktime_get_ns(), under @lock */
};

/* ctl.c */
int mc_ctl_alloc(struct mc_sb_info *sbi);
void mc_ctl_free(struct mc_sb_info *sbi);
void mc_defaults_load(struct mc_tunables *tun);
void mc_defaults_load_locked(struct mc_tunables *tun);
void mc_defaults_store(const struct mc_tunables *tun);
extern struct mutex mc_defaults_lock;	/* protects the defaults, ctl.c */
u32 mc_tun_value(const struct mc_tunables *tun, int attr);
void mc_tun_set_value(struct mc_tunables *tun, int attr, u32 value);
int mc_cache_ttl_attr(enum metacache_cache cache);

/* netlink.c */
int mc_netlink_init(void);
void mc_netlink_exit(void);

/* policy.c */
int mc_path_normalize(const char *in, char *out, size_t size, u16 *depth,
		      const char **why);
struct mc_rule *mc_rule_alloc(const char *path, u16 depth);
int mc_policy_add(struct mc_sb_info *sbi, struct mc_rule *rule, bool excl);
int mc_policy_del(struct mc_sb_info *sbi, const char *path);
void mc_policy_free_all(struct mc_ctl *ctl);
u32 mc_policy_get(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  int attr, u32 mount_value);
u32 mc_policy_ttl(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  enum metacache_cache cache, u32 mount_value);
bool mc_policy_bypass(const struct mc_sb_info *sbi,
		      const struct dentry *dentry);
extern const struct file_operations mc_policy_debugfs_fops;

/* hist.c */
int mc_hist_alloc(struct mc_ctl *ctl);
void mc_hist_free(struct mc_ctl *ctl);
void mc_stats_lower_call(struct mc_sb_info *sbi, enum mc_op op, u64 ns);
void mc_stats_cache_hit(struct mc_sb_info *sbi, enum mc_op op, u64 ns);
void mc_stats_op_read(struct mc_sb_info *sbi, enum mc_op op,
		      struct mc_op_stats *calls, struct mc_hist_sum *cache,
		      struct mc_hist_sum *lower);
void mc_stats_cache_read(struct mc_sb_info *sbi, enum metacache_cache cache,
			 struct mc_cache_counters *out);
u64 mc_stats_age_ns(struct mc_sb_info *sbi);
int mc_stats_reset(struct mc_sb_info *sbi);

/*
 * cache.c: the caches' counters and flush, for the control plane.
 */
void mc_cache_stats_get(struct mc_sb_info *sbi, int cache,
			struct mc_cache_counters *out);
int mc_cache_flush(struct mc_sb_info *sbi, struct dentry *subtree);

#endif /* _METACACHE_CTL_H */
