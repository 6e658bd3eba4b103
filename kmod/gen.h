/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen.h - the in-kernel I/O generator (issue 7): what its files share.
 *
 *	gen.c		jobs: start, stop, the control work, the histograms
 *	gen_ops.c	the workloads: file system calls made by the workers
 *	gen_nl.c	the BENCH_* commands of the netlink family
 *
 * The protocol: include/uapi/linux/metacache.h, "The I/O generator".
 */
#ifndef _METACACHE_GEN_H
#define _METACACHE_GEN_H

#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "../include/uapi/linux/metacache.h"

#define MC_GEN_NB	METACACHE_BENCH_HIST_NBUCKETS
#define MC_GEN_NOPS	__METACACHE_BENCH_OP_MAX

/*
 * struct mc_gen_hist - latencies of one operation type, log-linear
 * buckets (the uapi's bench scheme).  Written by one worker only, with no
 * lock and no allocation; merged by the control work once the worker is
 * gone.
 */
struct mc_gen_hist {
	u64 count;
	u64 sum_ns;
	u64 min_ns;		/* U64_MAX while empty */
	u64 max_ns;
	u64 bucket[MC_GEN_NB];
};

/* struct mc_gen_params - what BENCH_START asked for, defaults filled in. */
struct mc_gen_params {
	u32 workload;		/* enum metacache_bench_workload */
	u32 threads, files, dirs;
	u64 file_size;
	u32 io_size;
	u64 ops;		/* 0: none given */
	u32 duration_ms;	/* 0: none given */
	u32 flags;		/* METACACHE_BENCH_F_* */
	u32 read_pct;
	u32 mix[4];		/* stat, open, create, unlink; sum 100 */
};

/* struct mc_gen_result - one measured operation of a job. */
struct mc_gen_result {
	u32 op;			/* enum metacache_bench_op */
	u64 bytes, entries, elapsed_ns;
	u64 sec_n, sec_sum, sec_sumsq;
	struct mc_gen_hist h;
};

struct mc_gen_job;

/*
 * struct mc_gen_worker - one worker thread of a job.  Everything but
 * @ops is private to the worker while it runs; @ops is read (READ_ONCE)
 * by the control work for progress and per-second rates.
 */
struct mc_gen_worker {
	struct mc_gen_job *job;
	struct task_struct *task;
	unsigned int idx;
	u64 rng;			/* xorshift64 state */
	u64 ops[MC_GEN_NOPS];		/* done in this run, per op */
	u64 bytes[MC_GEN_NOPS];
	u64 entries;			/* readdir entries seen */
	struct mc_gen_hist *hist;	/* [MC_GEN_NOPS] */
	/* the files of this worker: [lo, hi) of the job's file indexes */
	u32 lo, hi;
	u32 done;		/* mdtest: files present (stonewall) */
	u32 renamed;		/* mdtest: [lo, lo + renamed) are renamed */
	u64 head, tail;		/* mixed: live files are seq [head, tail) */
	u64 quota;		/* ops to do in this run (0: until stopped) */
	void *buf;		/* io buffer or readdir names, preallocated */
	size_t buf_size;
	struct file **files;	/* data workloads: open files */
	int err;
	u32 err_op;
};

/*
 * struct mc_gen_job - a job.
 *
 * Lifetime: on mc_gen_jobs from BENCH_START until evicted (finished, and
 * more than METACACHE_BENCH_KEEP_DONE finished jobs) or module unload;
 * freed only with mc_gen_lock held and after @work has finished, so
 * netlink handlers may read a job while they hold mc_gen_lock.
 *
 * Locking: mc_gen_lock (global mutex) protects the list, job ids and the
 * one-job-per-target rule.  @lock (mutex) protects what readers see of a
 * running job: @state, @phase, @phase_start, @nres, @res[], @err*,
 * @rate.  Lock order: mc_gen_lock, then @lock.  The private state of the
 * run (@w, @mnt, @work_dir) is touched only by the control work and its
 * workers.  @stop and @phase_stop are written with WRITE_ONCE by anyone
 * and read locklessly by the workers between operations.
 */
struct mc_gen_job {
	struct list_head node;		/* on mc_gen_jobs */
	u32 id;
	struct mc_gen_params p;
	char *target;			/* as given */
	char workdir[32];		/* ".mcbench-<id>" */

	/* the run (control work and workers only) */
	struct work_struct work;
	/*
	 * Private clone of the target mount; set before the job is listed,
	 * cleared under mc_gen_lock before the clone is dropped.
	 */
	struct vfsmount *mnt;
	struct path base;		/* the target directory, in @mnt */
	struct path work_dir;		/* the working directory */
	struct path *dirs;		/* mdtest: the tree's directories */
	const struct cred *cred;	/* the starter's */
	struct mc_gen_worker *w;
	unsigned int nr_w;
	atomic_t running;		/* workers still in the phase */
	wait_queue_head_t wq;		/* the control work waits here */
	int stop;			/* enum metacache_bench_state to end */
	int phase_stop;			/* workers: end the phase now */
	bool stonewall;			/* this phase ends with the first */
	int (*phase_fn)(struct mc_gen_worker *w);	/* this phase's work */
	bool measuring;			/* false during the warm-up */

	/* seen by readers, under @lock */
	struct mutex lock;
	u32 state;			/* enum metacache_bench_state */
	u32 phase;			/* enum metacache_bench_op */
	u64 start_ns, end_ns, phase_start_ns;
	u64 phase_base;			/* ops done before this phase */
	u64 rate;			/* ops in the last whole second */
	int err;			/* negative errno of a failure */
	u32 err_op;
	unsigned int nres;
	struct mc_gen_result *res;	/* [MC_GEN_NOPS] */
};

extern struct mutex mc_gen_lock;

/* gen.c */
int mc_gen_init(void);
void mc_gen_exit(void);
int mc_gen_start(const struct mc_gen_params *p, const char *target,
		 u32 *id, const char **why);
int mc_gen_stop(u32 id);
struct mc_gen_job *mc_gen_find(u32 id);
struct mc_gen_job *mc_gen_next(u32 after);
u64 mc_gen_phase_ops(struct mc_gen_job *job);
void mc_gen_hist_record(struct mc_gen_hist *h, u64 ns);
u64 mc_gen_hist_pct(const struct mc_gen_hist *h, u32 per100k);
int mc_gen_run_phase(struct mc_gen_job *job, u32 phase, u32 kinds,
		     bool stonewall, int (*fn)(struct mc_gen_worker *w));
void mc_gen_worker_reset(struct mc_gen_worker *w);

/* gen_ops.c */
int mc_gen_setup(struct mc_gen_job *job);
int mc_gen_run(struct mc_gen_job *job);
void mc_gen_teardown(struct mc_gen_job *job);
int mc_gen_rm_workdir(struct mc_gen_job *job);
int mc_gen_mkdir(const struct path *parent, const char *name,
		 struct path *out);

/* gen_nl.c: handlers of netlink.c's op table */
struct sk_buff;
struct genl_info;
struct netlink_callback;
int metacache_nl_bench_start_doit(struct sk_buff *skb, struct genl_info *info);
int metacache_nl_bench_stop_doit(struct sk_buff *skb, struct genl_info *info);
int metacache_nl_bench_get_doit(struct sk_buff *skb, struct genl_info *info);
int metacache_nl_bench_get_start(struct netlink_callback *cb);
int metacache_nl_bench_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int metacache_nl_bench_results_start(struct netlink_callback *cb);
int metacache_nl_bench_results_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb);
extern const struct nla_policy mc_nl_bench_policy[];
extern struct genl_family mc_genl_family;	/* netlink.c */
bool mc_nl_may_see_paths(const struct sk_buff *skb);	/* netlink.c */

#endif /* _METACACHE_GEN_H */
