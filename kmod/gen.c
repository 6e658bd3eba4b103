// SPDX-License-Identifier: GPL-2.0
/*
 * gen.c - the in-kernel I/O generator: jobs, their control, histograms.
 *
 * A job (BENCH_START) resolves its target in the starter's context, makes
 * a private clone of the target's mount (clone_private_mount(), as
 * overlayfs does for its layers) and creates its working directory there,
 * then runs as one work item on mc_gen_wq (the "control work"): setup,
 * an optional warm-up, the measured run, cleanup.  Each phase of a run is
 * done by up to METACACHE_BENCH_THREADS_MAX kernel threads (workers,
 * "mcbench/<job>:<n>"), created for the phase and stopped with
 * kthread_stop() once every one is done; meanwhile the control work
 * wakes up every 100 ms to sample progress (per-second ops for the
 * standard deviation of ops/s) and to check the stop conditions.
 *
 * Unmount.  The job holds no reference on the user's mount (only on its
 * private clone), so umount(2) of the target is never refused nor held
 * up by a job.  The clone keeps the super block alive: once the file
 * system is mounted nowhere else (s_active has only the references of
 * the jobs' clones, mc_gen_clones_of()) the control work ends the job
 * (STATE UNMOUNTED), removes its working tree through the clone, and
 * drops the clone; the last job's shuts the super block down.
 *
 * Module unload.  mc_gen_exit() asks every job to stop and waits for the
 * work items (destroy_workqueue()); workers are always stopped by their
 * control work, so no thread of the module outlives it.
 *
 * Credentials.  Every file system call of a job (setup, workers, cleanup)
 * is made under a copy of the starter's credentials (prepare_creds() at
 * start, override_creds() in the work item and in each worker).
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gen.h"

/* Protects mc_gen_jobs, mc_gen_next_id (see struct mc_gen_job). */
DEFINE_MUTEX(mc_gen_lock);
static LIST_HEAD(mc_gen_jobs);
static u32 mc_gen_next_id = 1;
static struct workqueue_struct *mc_gen_wq;

/* Histograms */

static unsigned int mc_gen_hist_index(u64 ns)
{
	unsigned int e;

	if (ns < BIT_ULL(METACACHE_HIST_MIN_SHIFT))
		return 0;
	if (ns >= BIT_ULL(METACACHE_HIST_MAX_SHIFT))
		return MC_GEN_NB - 1;
	e = ilog2(ns);
	return 1 + ((e - METACACHE_HIST_MIN_SHIFT) <<
		    METACACHE_BENCH_HIST_SUB_BITS) +
	       ((ns >> (e - METACACHE_BENCH_HIST_SUB_BITS)) &
		(BIT(METACACHE_BENCH_HIST_SUB_BITS) - 1));
}

static u64 mc_gen_hist_lower(unsigned int i)
{
	unsigned int e, s;

	if (!i)
		return 0;
	if (i >= MC_GEN_NB - 1)
		return BIT_ULL(METACACHE_HIST_MAX_SHIFT);
	e = METACACHE_HIST_MIN_SHIFT + ((i - 1) >> METACACHE_BENCH_HIST_SUB_BITS);
	s = (i - 1) & (BIT(METACACHE_BENCH_HIST_SUB_BITS) - 1);
	return BIT_ULL(e) + ((u64)s << (e - METACACHE_BENCH_HIST_SUB_BITS));
}

/**
 * mc_gen_hist_record() - add one sample
 * @h: a worker's histogram (only that worker writes it)
 * @ns: the latency
 *
 * Context: any; no lock, no allocation.
 */
void mc_gen_hist_record(struct mc_gen_hist *h, u64 ns)
{
	h->bucket[mc_gen_hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static void mc_gen_hist_reset(struct mc_gen_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = U64_MAX;
}

static void mc_gen_hist_merge(struct mc_gen_hist *to,
			      const struct mc_gen_hist *from)
{
	int i;

	if (!from->count)
		return;
	for (i = 0; i < MC_GEN_NB; i++)
		to->bucket[i] += from->bucket[i];
	to->count += from->count;
	to->sum_ns += from->sum_ns;
	to->min_ns = min(to->min_ns, from->min_ns);
	to->max_ns = max(to->max_ns, from->max_ns);
}

/**
 * mc_gen_hist_pct() - a percentile of a histogram
 * @h: the histogram
 * @per100k: the fraction, in 1/100000 (50000 is the median)
 *
 * The sample of rank ceil(q * count), interpolated linearly inside its
 * bucket and kept within [min, max].
 *
 * Return: nanoseconds, 0 for an empty histogram.
 */
u64 mc_gen_hist_pct(const struct mc_gen_hist *h, u32 per100k)
{
	u64 rank, cum = 0, lo, hi, v;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = DIV_ROUND_UP_ULL(h->count * per100k, 100000);
	rank = clamp_t(u64, rank, 1, h->count);
	for (i = 0; i < MC_GEN_NB; i++) {
		u64 c = h->bucket[i];

		if (cum + c < rank) {
			cum += c;
			continue;
		}
		lo = mc_gen_hist_lower(i);
		hi = i == MC_GEN_NB - 1 ? max(h->max_ns, lo) :
					  mc_gen_hist_lower(i + 1);
		v = lo + mul_u64_u64_div_u64(hi - lo, rank - cum, c);
		return clamp_t(u64, v, h->min_ns, h->max_ns);
	}
	return h->max_ns;
}

/* Jobs */

static bool mc_gen_final(u32 state)
{
	return state >= METACACHE_BENCH_ST_DONE;
}

/**
 * mc_gen_find() - the job with this id
 * @id: job id
 *
 * Context: mc_gen_lock held; the job stays valid while it is.
 * Return: the job or NULL.
 */
struct mc_gen_job *mc_gen_find(u32 id)
{
	struct mc_gen_job *job;

	lockdep_assert_held(&mc_gen_lock);
	list_for_each_entry(job, &mc_gen_jobs, node)
		if (job->id == id)
			return job;
	return NULL;
}

/**
 * mc_gen_clones_of() - how many jobs hold a private clone of @sb
 * @sb: the target's super block
 *
 * Each clone holds one s_active reference, so a super block whose
 * s_active is no more than this is mounted nowhere but in jobs.  A job
 * is counted only while job->mnt is set under mc_gen_lock: it is set
 * after the clone is made and cleared before the clone is dropped, so a
 * job in between makes the count low, never high, and no job is ended
 * while its file system is still mounted.  (Another kernel user's
 * private clone, such as an overlayfs layer, also keeps a job running.)
 *
 * Return: the count.
 */
static unsigned int mc_gen_clones_of(struct super_block *sb)
{
	struct mc_gen_job *job;
	unsigned int n = 0;

	mutex_lock(&mc_gen_lock);
	list_for_each_entry(job, &mc_gen_jobs, node)
		if (job->mnt && job->mnt->mnt_sb == sb)
			n++;
	mutex_unlock(&mc_gen_lock);
	return n;
}

/**
 * mc_gen_next() - the job with the smallest id above @after
 * @after: 0 for the first
 *
 * Context: mc_gen_lock held.
 * Return: the job or NULL.
 */
struct mc_gen_job *mc_gen_next(u32 after)
{
	struct mc_gen_job *job, *found = NULL;

	lockdep_assert_held(&mc_gen_lock);
	list_for_each_entry(job, &mc_gen_jobs, node)
		if (job->id > after && (!found || job->id < found->id))
			found = job;
	return found;
}

/**
 * mc_gen_phase_ops() - operations done so far in the current phase
 * @job: the job
 *
 * Context: @job->lock held (the workers array lives as long as the run;
 * the control work frees it under @job->lock).
 * Return: the sum over workers and operation types.
 */
u64 mc_gen_phase_ops(struct mc_gen_job *job)
{
	u64 n = 0;
	int i, op;

	lockdep_assert_held(&job->lock);
	if (!job->w)
		return 0;
	for (i = 0; i < job->nr_w; i++)
		for (op = 0; op < MC_GEN_NOPS; op++)
			n += READ_ONCE(job->w[i].ops[op]);
	return n;
}

static void mc_gen_free(struct mc_gen_job *job)
{
	kvfree(job->res);
	kfree(job->target);
	kfree(job);
}

static void mc_gen_set_state(struct mc_gen_job *job, u32 state)
{
	mutex_lock(&job->lock);
	job->state = state;
	mutex_unlock(&job->lock);
}

/* Ask a job to end with @state (the first reason given wins). */
static void mc_gen_request_stop(struct mc_gen_job *job, int state)
{
	cmpxchg(&job->stop, 0, state);
	WRITE_ONCE(job->phase_stop, 1);
	wake_up(&job->wq);
}

/* Record a worker's failure: the first error ends the job. */
static void mc_gen_fail(struct mc_gen_job *job, int err, u32 op)
{
	mutex_lock(&job->lock);
	if (!job->err) {
		job->err = err;
		job->err_op = op;
	}
	mutex_unlock(&job->lock);
	mc_gen_request_stop(job, METACACHE_BENCH_ST_FAILED);
}

static int mc_gen_worker_fn(void *arg)
{
	struct mc_gen_worker *w = arg;
	struct mc_gen_job *job = w->job;
	const struct cred *old;
	u64 before = 0, after = 0;
	int op;

	for (op = 0; op < MC_GEN_NOPS; op++)
		before += w->ops[op];
	old = override_creds(job->cred);
	w->err = job->phase_fn(w);
	revert_creds(old);
	if (w->err)
		mc_gen_fail(job, w->err, w->err_op);
	for (op = 0; op < MC_GEN_NOPS; op++)
		after += w->ops[op];
	/* stonewall: the first worker done with a share of work ends it */
	if (job->stonewall && after > before)
		WRITE_ONCE(job->phase_stop, 1);
	if (atomic_dec_and_test(&job->running))
		wake_up(&job->wq);
	/* wait for kthread_stop(): the control work reaps every worker */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * mc_gen_worker_reset() - forget what a worker measured (after warm-up)
 * @w: the worker, not running
 */
void mc_gen_worker_reset(struct mc_gen_worker *w)
{
	int op;

	memset(w->ops, 0, sizeof(w->ops));
	memset(w->bytes, 0, sizeof(w->bytes));
	w->entries = 0;
	for (op = 0; op < MC_GEN_NOPS; op++)
		mc_gen_hist_reset(&w->hist[op]);
}

static u64 mc_gen_sum_ops(struct mc_gen_job *job, int op)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < job->nr_w; i++)
		n += READ_ONCE(job->w[i].ops[op]);
	return n;
}

/* Per-second samples of one phase, per operation type (ALL: the sum). */
struct mc_gen_secs {
	u64 last[MC_GEN_NOPS];
	u64 n;
	u64 sum[MC_GEN_NOPS];
	u64 sumsq[MC_GEN_NOPS];
};

static void mc_gen_sample(struct mc_gen_job *job, u32 kinds,
			  struct mc_gen_secs *s)
{
	u64 all = 0, d;
	int op;

	for (op = 0; op < METACACHE_BENCH_OP_ALL; op++) {
		if (!(kinds & BIT(op)))
			continue;
		d = mc_gen_sum_ops(job, op);
		d -= s->last[op];
		s->last[op] += d;
		s->sum[op] += d;
		s->sumsq[op] += d * d;
		all += d;
	}
	s->sum[METACACHE_BENCH_OP_ALL] += all;
	s->sumsq[METACACHE_BENCH_OP_ALL] += all * all;
	s->n++;
	mutex_lock(&job->lock);
	job->rate = all;
	mutex_unlock(&job->lock);
}

/* Merge the workers' measurements of the phase into the job's results. */
static void mc_gen_collect(struct mc_gen_job *job, u32 kinds, u64 elapsed,
			   const struct mc_gen_secs *s)
{
	struct mc_gen_result *r;
	unsigned int i, first;
	int op;

	mutex_lock(&job->lock);
	first = job->nres;
	for (op = 0; op < MC_GEN_NOPS; op++) {
		if (!(kinds & BIT(op)) || job->nres >= MC_GEN_NOPS)
			continue;
		r = &job->res[job->nres];
		memset(r, 0, sizeof(*r));
		mc_gen_hist_reset(&r->h);
		r->op = op;
		r->elapsed_ns = elapsed;
		r->sec_n = s->n;
		r->sec_sum = s->sum[op];
		r->sec_sumsq = s->sumsq[op];
		if (op == METACACHE_BENCH_OP_ALL) {
			/* the last type: every row of the phase is before it */
			for (i = first; i < job->nres; i++) {
				mc_gen_hist_merge(&r->h, &job->res[i].h);
				r->bytes += job->res[i].bytes;
			}
			job->nres++;
			continue;
		}
		for (i = 0; i < job->nr_w; i++) {
			mc_gen_hist_merge(&r->h, &job->w[i].hist[op]);
			r->bytes += job->w[i].bytes[op];
			if (op == METACACHE_BENCH_OP_READDIR)
				r->entries += job->w[i].entries;
		}
		/* a mixed phase leaves out what it did not do */
		if (!r->h.count && hweight32(kinds) > 1)
			continue;
		job->nres++;
	}
	mutex_unlock(&job->lock);
}

/**
 * mc_gen_run_phase() - run one phase in every worker
 * @job: the job
 * @phase: what status reports as the phase (enum metacache_bench_op)
 * @kinds: BIT() of the operation types measured in it (0: setup work,
 *	nothing reported)
 * @stonewall: the phase ends for every worker when the first is done
 * @fn: the work of one worker; returns 0 or a negative errno (setting
 *	w->err_op)
 *
 * Starts one kernel thread per worker and waits for them, sampling every
 * second and ending the phase on DURATION_MS, a stop request, or the
 * target's unmount.  Skipped when the job is being stopped.
 *
 * Context: the control work, under the starter's credentials.
 * Return: 0 or a negative errno when the workers could not be started
 * (the errors of the workers end the job through mc_gen_fail()).
 */
int mc_gen_run_phase(struct mc_gen_job *job, u32 phase, u32 kinds,
		     bool stonewall, int (*fn)(struct mc_gen_worker *w))
{
	struct super_block *sb = job->mnt->mnt_sb;
	struct mc_gen_secs *s;
	u64 start, now, next_sec, deadline = 0;
	unsigned int i;
	int op, err = 0;

	if (READ_ONCE(job->stop))
		return 0;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (op = 0; op < METACACHE_BENCH_OP_ALL; op++)
		s->last[op] = mc_gen_sum_ops(job, op);
	mutex_lock(&job->lock);
	job->phase = phase;
	job->phase_base = mc_gen_phase_ops(job);
	job->phase_start_ns = ktime_get_ns();
	job->rate = 0;
	start = job->phase_start_ns;
	mutex_unlock(&job->lock);
	if (job->p.duration_ms && kinds)
		deadline = start + (u64)job->p.duration_ms * NSEC_PER_MSEC;
	job->phase_fn = fn;
	job->stonewall = stonewall;
	WRITE_ONCE(job->phase_stop, 0);
	if (READ_ONCE(job->stop))	/* raced with a stop request */
		WRITE_ONCE(job->phase_stop, 1);
	atomic_set(&job->running, job->nr_w);
	for (i = 0; i < job->nr_w; i++) {
		struct mc_gen_worker *w = &job->w[i];
		struct task_struct *t;

		t = kthread_create(mc_gen_worker_fn, w, "mcbench/%u:%u",
				   job->id, i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			WRITE_ONCE(job->phase_stop, 1);
			atomic_sub(job->nr_w - i, &job->running);
			break;
		}
		get_task_struct(t);
		w->task = t;
		wake_up_process(t);
	}
	next_sec = start + NSEC_PER_SEC;
	while (atomic_read(&job->running) > 0) {
		wait_event_timeout(job->wq, !atomic_read(&job->running),
				   HZ / 10);
		now = ktime_get_ns();
		if (deadline && now >= deadline)
			WRITE_ONCE(job->phase_stop, 1);
		/* only the jobs' private clones left: unmounted everywhere */
		if (atomic_read(&sb->s_active) <= mc_gen_clones_of(sb))
			mc_gen_request_stop(job, METACACHE_BENCH_ST_UNMOUNTED);
		if (now >= next_sec && atomic_read(&job->running)) {
			if (kinds)
				mc_gen_sample(job, kinds, s);
			next_sec += NSEC_PER_SEC;
			if (next_sec <= now)	/* late: skip what was lost */
				next_sec = now + NSEC_PER_SEC;
		}
	}
	now = ktime_get_ns();
	for (i = 0; i < job->nr_w; i++) {
		struct mc_gen_worker *w = &job->w[i];

		if (!w->task)
			continue;
		kthread_stop(w->task);
		put_task_struct(w->task);
		w->task = NULL;
	}
	if (kinds && job->measuring)
		mc_gen_collect(job, kinds, now - start, s);
	kfree(s);
	return err;
}

static void mc_gen_work_fn(struct work_struct *work)
{
	struct mc_gen_job *job = container_of(work, struct mc_gen_job, work);
	const struct cred *old;
	struct vfsmount *mnt;
	int err;

	old = override_creds(job->cred);
	err = mc_gen_setup(job);
	if (!err && !READ_ONCE(job->stop) &&
	    (job->p.flags & METACACHE_BENCH_F_WARMUP)) {
		unsigned int i;

		mc_gen_set_state(job, METACACHE_BENCH_ST_WARMUP);
		job->measuring = false;
		err = mc_gen_run(job);
		/* readers sum the counters under the lock: reset them there */
		mutex_lock(&job->lock);
		for (i = 0; i < job->nr_w; i++)
			mc_gen_worker_reset(&job->w[i]);
		job->phase_base = 0;
		mutex_unlock(&job->lock);
	}
	if (!err && !READ_ONCE(job->stop)) {
		mc_gen_set_state(job, METACACHE_BENCH_ST_RUNNING);
		job->measuring = true;
		err = mc_gen_run(job);
	}
	if (err)
		mc_gen_fail(job, err, job->phase);
	mc_gen_set_state(job, METACACHE_BENCH_ST_CLEANUP);
	mc_gen_teardown(job);
	if (!(job->p.flags & METACACHE_BENCH_F_KEEP)) {
		err = mc_gen_rm_workdir(job);
		if (err)
			mc_gen_fail(job, err, METACACHE_BENCH_OP_TREE_REMOVE);
	}
	revert_creds(old);
	path_put(&job->work_dir);
	path_put(&job->base);
	mnt = job->mnt;
	mutex_lock(&mc_gen_lock);	/* uncounted before s_active drops */
	job->mnt = NULL;
	mutex_unlock(&mc_gen_lock);
	kern_unmount(mnt);
	put_cred(job->cred);
	job->cred = NULL;
	mutex_lock(&job->lock);
	job->end_ns = ktime_get_ns();
	job->state = READ_ONCE(job->stop) ?: METACACHE_BENCH_ST_DONE;
	mutex_unlock(&job->lock);
}

/* Free a job off the list whose work has finished or never was queued. */
static void mc_gen_destroy(struct mc_gen_job *job)
{
	flush_work(&job->work);
	mc_gen_free(job);
}

/**
 * mc_gen_start() - start a job (BENCH_START)
 * @p: the parameters, checked and completed by the caller
 * @target: the target directory, resolved in the caller's context
 * @id: the new job's id
 * @why: on error, what went wrong (static text)
 *
 * Context: process context (the requester's), no lock held.
 * Return: 0 or a negative errno.
 */
int mc_gen_start(const struct mc_gen_params *p, const char *target,
		 u32 *id, const char **why)
{
	struct mc_gen_job *job, *j, *tmp;
	unsigned int running = 0, done = 0;
	struct dentry *busy = NULL;
	struct path path;
	LIST_HEAD(evict);
	int err;

	err = kern_path(target, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err) {
		*why = err == -ENOTDIR ? "the target is not a directory" :
					 "cannot resolve the target directory";
		return err;
	}
	err = -ENOTDIR;
	*why = "the target is not a directory";
	if (!d_is_dir(path.dentry))
		goto out_path;
	err = mnt_want_write(path.mnt);
	*why = "the target is on a read-only mount";
	if (err)
		goto out_path;
	mnt_drop_write(path.mnt);
	err = inode_permission(mnt_user_ns(path.mnt), d_inode(path.dentry),
			       MAY_WRITE | MAY_EXEC);
	*why = "no permission to create in the target directory";
	if (err)
		goto out_path;

	err = -ENOMEM;
	*why = "out of memory";
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		goto out_path;
	job->res = kvcalloc(MC_GEN_NOPS, sizeof(*job->res), GFP_KERNEL);
	job->target = kstrdup(target, GFP_KERNEL);
	job->cred = prepare_creds();
	if (!job->res || !job->target || !job->cred)
		goto out_free;
	job->p = *p;
	mutex_init(&job->lock);
	init_waitqueue_head(&job->wq);
	INIT_WORK(&job->work, mc_gen_work_fn);
	job->state = METACACHE_BENCH_ST_SETUP;
	job->start_ns = ktime_get_ns();
	job->mnt = clone_private_mount(&path);
	if (IS_ERR(job->mnt)) {
		err = PTR_ERR(job->mnt);
		job->mnt = NULL;
		*why = "cannot make a private mount of the target";
		goto out_free;
	}
	job->base.mnt = mntget(job->mnt);
	job->base.dentry = dget(job->mnt->mnt_root);

	mutex_lock(&mc_gen_lock);
	list_for_each_entry(j, &mc_gen_jobs, node) {
		if (mc_gen_final(READ_ONCE(j->state))) {
			done++;
			continue;
		}
		running++;
		if (j->base.dentry == path.dentry)
			busy = path.dentry;
	}
	if (busy || running >= METACACHE_BENCH_JOBS_MAX) {
		mutex_unlock(&mc_gen_lock);
		err = busy ? -EBUSY : -EAGAIN;
		*why = busy ? "a job already runs on this target" :
			      "too many jobs running";
		goto out_mnt;
	}
	do {
		job->id = mc_gen_next_id++;
	} while (!job->id || mc_gen_find(job->id));
	list_for_each_entry_safe(j, tmp, &mc_gen_jobs, node) {
		if (done < METACACHE_BENCH_KEEP_DONE)
			break;
		if (mc_gen_final(READ_ONCE(j->state))) {
			list_move_tail(&j->node, &evict);
			done--;
		}
	}
	list_add_tail(&job->node, &mc_gen_jobs);
	mutex_unlock(&mc_gen_lock);
	list_for_each_entry_safe(j, tmp, &evict, node)
		mc_gen_destroy(j);

	snprintf(job->workdir, sizeof(job->workdir), ".mcbench-%u", job->id);
	err = mc_gen_mkdir(&job->base, job->workdir, &job->work_dir);
	if (err) {
		*why = "cannot create the working directory in the target";
		mutex_lock(&mc_gen_lock);
		list_del(&job->node);
		mutex_unlock(&mc_gen_lock);
		goto out_mnt;
	}
	*id = job->id;
	queue_work(mc_gen_wq, &job->work);
	path_put(&path);
	return 0;

out_mnt:
	path_put(&job->base);
	kern_unmount(job->mnt);
out_free:
	if (job->cred)
		put_cred(job->cred);
	mc_gen_free(job);
out_path:
	path_put(&path);
	return err;
}

/**
 * mc_gen_stop() - ask a job to stop (BENCH_STOP); returns at once
 * @id: the job
 *
 * A job already removing its working tree has its results complete, and
 * the removal is not cut short: it still ends DONE.
 *
 * Return: 0, also for a finished job, or -ENOENT.
 */
int mc_gen_stop(u32 id)
{
	struct mc_gen_job *job;
	int err = -ENOENT;
	u32 state;

	mutex_lock(&mc_gen_lock);
	job = mc_gen_find(id);
	if (job) {
		state = READ_ONCE(job->state);
		if (!mc_gen_final(state) && state != METACACHE_BENCH_ST_CLEANUP)
			mc_gen_request_stop(job, METACACHE_BENCH_ST_STOPPED);
		err = 0;
	}
	mutex_unlock(&mc_gen_lock);
	return err;
}

/**
 * mc_gen_init() - at module load
 *
 * Return: 0 or -ENOMEM.
 */
int mc_gen_init(void)
{
	mc_gen_wq = alloc_workqueue("metacache_bench", WQ_UNBOUND, 0);
	return mc_gen_wq ? 0 : -ENOMEM;
}

/**
 * mc_gen_exit() - at module unload: stop every job, wait, free them all
 *
 * Called after the netlink family is gone, so no job can be started.
 */
void mc_gen_exit(void)
{
	struct mc_gen_job *job, *tmp;
	LIST_HEAD(all);

	mutex_lock(&mc_gen_lock);
	list_for_each_entry(job, &mc_gen_jobs, node)
		if (!mc_gen_final(READ_ONCE(job->state)))
			mc_gen_request_stop(job, METACACHE_BENCH_ST_STOPPED);
	list_splice_init(&mc_gen_jobs, &all);
	mutex_unlock(&mc_gen_lock);
	destroy_workqueue(mc_gen_wq);	/* waits for every control work */
	list_for_each_entry_safe(job, tmp, &all, node) {
		list_del(&job->node);
		mc_gen_free(job);
	}
}
