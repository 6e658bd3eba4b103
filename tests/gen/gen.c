// SPDX-License-Identifier: GPL-2.0
/*
 * gen: the in-kernel I/O generator (kmod/gen*.c) on the lower directory
 * ($MC_LOWER: tmpfs, nfs or cifs) and on the metacache mount over it
 * ($MC_UPPER): every workload runs small jobs whose results must add up
 * (operation counts as asked, percentiles ordered, bytes = ops x io
 * size), the working tree is gone afterwards (or kept with KEEP), nothing
 * is left in the target; a job stops on BENCH_STOP and when its target is
 * unmounted (the unmount neither fails nor hangs); hostile parameters are
 * refused with the right errno and a message; only root starts and stops.
 *
 * No timing assertion: waiting has no limit but the harness's alarm.
 */
#include <grp.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "mctest.h"
#include "mcutil.h"
#include "genlib.h"

static struct nl_sock S;

static void open_family(void)
{
	int err = nl_open(&S);

	if (err) {
		printf("Bail out! cannot open the metacache family: %s\n",
		       strerror(-err));
		exit(MCT_EXIT_FAIL);
	}
}

static const char *target(int upper)
{
	const char *t = mc_env(upper ? "MC_UPPER" : "MC_LOWER");

	if (!t) {
		printf("Bail out! MC_LOWER/MC_UPPER not set\n");
		exit(MCT_EXIT_FAIL);
	}
	return t;
}

static int exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &st);
}

/* Every figure of a result is consistent with the others. */
static void check_res(const struct gen_res *r, const char *what)
{
	MCT_EXPECT(r->ops > 0, "%s: no operations", what);
	if (!r->ops)
		return;
	MCT_EXPECT(r->min_ns <= r->p50 && r->p50 <= r->p90 &&
		   r->p90 <= r->p99 && r->p99 <= r->p999 &&
		   r->p999 <= r->max_ns,
		   "%s: min %llu p50 %llu p90 %llu p99 %llu p99.9 %llu max %llu not ordered",
		   what, (unsigned long long)r->min_ns,
		   (unsigned long long)r->p50, (unsigned long long)r->p90,
		   (unsigned long long)r->p99, (unsigned long long)r->p999,
		   (unsigned long long)r->max_ns);
	MCT_EXPECT(r->sum_ns >= r->min_ns * r->ops &&
		   r->sum_ns <= r->max_ns * r->ops,
		   "%s: mean outside [min, max]", what);
	MCT_EXPECT(r->max_ns > 0, "%s: a zero latency", what);
	MCT_EXPECT(r->elapsed_ns > 0, "%s: no elapsed time", what);
}

/* Run a job to its end; the job's status and results in *j.  0 or -1. */
static int run(struct gen_params *p, struct gen_job *j)
{
	int64_t id = gen_start(&S, p);

	MCT_EXPECT(id > 0, "start %s: %s (%s)", p->target,
		   strerror((int)-id), nl_the_reply.ext_msg);
	if (id <= 0)
		return -1;
	if (gen_wait(&S, (uint32_t)id, j) || gen_results(&S, (uint32_t)id, j)) {
		MCT_EXPECT(0, "job %lld: status or results failed", (long long)id);
		return -1;
	}
	MCT_EXPECT(j->state == METACACHE_BENCH_ST_DONE,
		   "job %u ended in state %u (errno %u in op %u)", j->id,
		   j->state, j->err, j->err_op);
	return j->state == METACACHE_BENCH_ST_DONE ? 0 : -1;
}

static void check_gone(const char *t, const struct gen_job *j, int before)
{
	MCT_EXPECT(j->workdir[0] && !exists(t, j->workdir),
		   "%s/%s left behind", t, j->workdir);
	MCT_EXPECT(gen_count_entries(t) == before,
		   "%s: %d entries before, %d after", t, before,
		   gen_count_entries(t));
}

static void mdtest_on(int upper)
{
	static const uint32_t phases[] = {
		METACACHE_BENCH_OP_TREE_CREATE, METACACHE_BENCH_OP_CREATE,
		METACACHE_BENCH_OP_STAT, METACACHE_BENCH_OP_OPEN,
		METACACHE_BENCH_OP_STAT_MISSING, METACACHE_BENCH_OP_READDIR,
		METACACHE_BENCH_OP_RENAME, METACACHE_BENCH_OP_UNLINK,
		METACACHE_BENCH_OP_TREE_REMOVE,
	};
	const char *t = target(upper);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MDTEST,
		.threads = 2, .files = 30, .dirs = 3,
	};
	struct gen_job j = { 0 };
	int before = gen_count_entries(t);
	unsigned int i;

	open_family();
	if (run(&p, &j))
		return;
	MCT_EXPECT(j.nres == 9, "%d results, want one per phase", j.nres);
	for (i = 0; i < 9 && (int)i < j.nres; i++) {
		const struct gen_res *r = &j.res[i];
		uint64_t want = (phases[i] == METACACHE_BENCH_OP_TREE_CREATE ||
				 phases[i] == METACACHE_BENCH_OP_TREE_REMOVE ||
				 phases[i] == METACACHE_BENCH_OP_READDIR) ? 3 : 30;
		char what[32];

		snprintf(what, sizeof(what), "phase %u", i);
		MCT_EXPECT(r->op == phases[i], "result %u is op %u, want %u",
			   i, r->op, phases[i]);
		MCT_EXPECT(r->ops == want, "op %u: %llu ops, want %llu", r->op,
			   (unsigned long long)r->ops, (unsigned long long)want);
		check_res(r, what);
	}
	if (j.nres > 5)
		MCT_EXPECT(j.res[5].entries == 30,
			   "readdir saw %llu entries, want 30",
			   (unsigned long long)j.res[5].entries);
	check_gone(t, &j, before);
}

MCT_TEST(mdtest_lower) { mdtest_on(0); }
MCT_TEST(mdtest_upper) { mdtest_on(1); }

static void mixed_on(int upper, uint32_t flags)
{
	const char *t = target(upper);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 2, .files = 20, .ops = 200, .flags = flags,
	};
	struct gen_job j = { 0 };
	const struct gen_res *all;
	uint64_t sum = 0;
	int i, before = gen_count_entries(t);

	open_family();
	if (run(&p, &j))
		return;
	all = gen_find(&j, METACACHE_BENCH_OP_ALL);
	MCT_ASSERT(all, "no 'all' result");
	for (i = 0; i < j.nres; i++) {
		if (j.res[i].op == METACACHE_BENCH_OP_ALL)
			continue;
		MCT_EXPECT(j.res[i].op == METACACHE_BENCH_OP_STAT ||
			   j.res[i].op == METACACHE_BENCH_OP_OPEN ||
			   j.res[i].op == METACACHE_BENCH_OP_CREATE ||
			   j.res[i].op == METACACHE_BENCH_OP_UNLINK,
			   "unexpected op %u", j.res[i].op);
		check_res(&j.res[i], "mixed op");
		sum += j.res[i].ops;
	}
	MCT_EXPECT(sum == 200 && all->ops == 200,
		   "ops: %llu by type, %llu in all, want 200",
		   (unsigned long long)sum, (unsigned long long)all->ops);
	MCT_EXPECT(gen_find(&j, METACACHE_BENCH_OP_STAT) &&
		   gen_find(&j, METACACHE_BENCH_OP_STAT)->ops > 50,
		   "70%% stat: too few stats");
	check_res(all, "mixed all");
	check_gone(t, &j, before);
}

MCT_TEST(mixed_lower) { mixed_on(0, 0); }
MCT_TEST(mixed_upper) { mixed_on(1, 0); }
/* the warm-up run is discarded: the counts are those of one run */
MCT_TEST(mixed_warmup) { mixed_on(1, METACACHE_BENCH_F_WARMUP); }

static void data_on(int upper, int wl)
{
	const char *t = target(upper);
	struct gen_params p = {
		.target = t, .workload = wl, .threads = 2, .files = 3,
		.file_size = 256 * 1024, .ops = 60,
		.read_pct = wl == METACACHE_BENCH_WL_RANDRW ? 70 : 0,
	};
	struct gen_job j = { 0 };
	uint32_t io = wl == METACACHE_BENCH_WL_RANDRW ? 4096 : 65536;
	uint64_t ops = 0, bytes = 0;
	int i, before = gen_count_entries(t);

	open_family();
	if (run(&p, &j))
		return;
	for (i = 0; i < j.nres; i++) {
		const struct gen_res *r = &j.res[i];

		if (r->op == METACACHE_BENCH_OP_ALL)
			continue;
		MCT_EXPECT(r->op == METACACHE_BENCH_OP_READ ||
			   r->op == METACACHE_BENCH_OP_WRITE, "op %u", r->op);
		MCT_EXPECT(r->bytes == r->ops * io, "op %u: %llu bytes for %llu ops",
			   r->op, (unsigned long long)r->bytes,
			   (unsigned long long)r->ops);
		check_res(r, "data op");
		ops += r->ops;
		bytes += r->bytes;
	}
	MCT_EXPECT(ops == 60, "%llu ops, want 60", (unsigned long long)ops);
	if (wl == METACACHE_BENCH_WL_SEQREAD)
		MCT_EXPECT(gen_find(&j, METACACHE_BENCH_OP_READ), "no reads");
	if (wl == METACACHE_BENCH_WL_SEQWRITE)
		MCT_EXPECT(gen_find(&j, METACACHE_BENCH_OP_WRITE), "no writes");
	if (wl == METACACHE_BENCH_WL_RANDRW) {
		const struct gen_res *all = gen_find(&j, METACACHE_BENCH_OP_ALL);

		MCT_EXPECT(all && all->ops == 60 && all->bytes == bytes,
			   "randrw: 'all' does not add up");
	}
	check_gone(t, &j, before);
}

MCT_TEST(randrw_lower) { data_on(0, METACACHE_BENCH_WL_RANDRW); }
MCT_TEST(randrw_upper) { data_on(1, METACACHE_BENCH_WL_RANDRW); }
MCT_TEST(seqread_lower) { data_on(0, METACACHE_BENCH_WL_SEQREAD); }
MCT_TEST(seqread_upper) { data_on(1, METACACHE_BENCH_WL_SEQREAD); }
MCT_TEST(seqwrite_lower) { data_on(0, METACACHE_BENCH_WL_SEQWRITE); }
MCT_TEST(seqwrite_upper) { data_on(1, METACACHE_BENCH_WL_SEQWRITE); }

/*
 * rmdir, waiting while it is ENOTEMPTY: through metacache on nfs a file
 * unlinked soon after its last close is silly-renamed (.nfsXXXX) until
 * metacache's deferred close (close_ttl) closes the lower handle.
 */
static int rmdir_wait(const char *dir)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (!rmdir(dir))
			return 0;
		if (errno != ENOTEMPTY)
			return -1;
		gen_sleep_ms(50);
	}
	return -1;
}

/* KEEP: the working directory and the data files stay. */
MCT_TEST(keep)
{
	const char *t = target(1);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_SEQWRITE,
		.files = 2, .file_size = 128 * 1024, .ops = 4,
		.flags = METACACHE_BENCH_F_KEEP,
	};
	struct gen_job j = { 0 };
	char dir[4096], f[4200];
	struct stat st;
	int i;

	open_family();
	if (run(&p, &j))
		return;
	snprintf(dir, sizeof(dir), "%s/%s", t, j.workdir);
	MCT_ASSERT(exists(t, j.workdir), "%s removed despite KEEP", dir);
	MCT_EXPECT(gen_count_entries(dir) == 2, "%d entries in %s, want 2",
		   gen_count_entries(dir), dir);
	for (i = 0; i < 2; i++) {
		snprintf(f, sizeof(f), "%s/data%d", dir, i);
		MCT_EXPECT(!stat(f, &st) && st.st_size == 128 * 1024,
			   "%s: %s, size %lld", f, strerror(errno),
			   (long long)st.st_size);
		unlink(f);
	}
	MCT_EXPECT(!rmdir_wait(dir), "rmdir %s: %s", dir, strerror(errno));
}

/* Stonewalling: each phase ends with the first worker; still consistent. */
MCT_TEST(stonewall)
{
	const char *t = target(0);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MDTEST,
		.threads = 3, .files = 30, .dirs = 3,
		.flags = METACACHE_BENCH_F_STONEWALL,
	};
	struct gen_job j = { 0 };
	const struct gen_res *c;
	int i, before = gen_count_entries(t);

	open_family();
	if (run(&p, &j))
		return;
	c = gen_find(&j, METACACHE_BENCH_OP_CREATE);
	MCT_ASSERT(c, "no create result");
	for (i = 0; i < j.nres; i++)
		MCT_EXPECT(j.res[i].ops <= c->ops ||
			   j.res[i].op == METACACHE_BENCH_OP_TREE_CREATE ||
			   j.res[i].op == METACACHE_BENCH_OP_TREE_REMOVE ||
			   j.res[i].op == METACACHE_BENCH_OP_READDIR,
			   "op %u did %llu ops, more than the %llu files made",
			   j.res[i].op, (unsigned long long)j.res[i].ops,
			   (unsigned long long)c->ops);
	MCT_EXPECT(c->ops >= 10 && c->ops <= 30, "%llu files created",
		   (unsigned long long)c->ops);
	check_gone(t, &j, before);
}

/* A long job, stopped: STOPPED, results so far, the tree removed. */
static void stop_on(int upper)
{
	const char *t = target(upper);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 2, .files = 10, .duration_ms = 3600 * 1000,
	};
	struct gen_job j = { 0 };
	int64_t id;
	int before = gen_count_entries(t);

	open_family();
	id = gen_start(&S, &p);
	MCT_ASSERT(id > 0, "start: %s (%s)", strerror((int)-id),
		   nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_wait_running(&S, (uint32_t)id, &j),
		   "job %lld did not run (state %u)", (long long)id, j.state);
	/* a second job on the same target is refused */
	p.duration_ms = 1000;
	MCT_EXPECT(gen_start(&S, &p) == -EBUSY, "second job on %s: %s", t,
		   strerror(-nl_the_reply.error));
	MCT_EXPECT(strstr(nl_the_reply.ext_msg, "already"), "message: '%s'",
		   nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_stop(&S, (uint32_t)id), "stop: %s (%s)",
		   strerror(-nl_the_reply.error), nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status after stop");
	MCT_EXPECT(j.state == METACACHE_BENCH_ST_STOPPED, "state %u after stop",
		   j.state);
	MCT_EXPECT(!gen_stop(&S, (uint32_t)id), "stopping a stopped job");
	MCT_ASSERT(!gen_results(&S, (uint32_t)id, &j), "results");
	MCT_EXPECT(gen_find(&j, METACACHE_BENCH_OP_ALL) &&
		   gen_find(&j, METACACHE_BENCH_OP_ALL)->ops > 0,
		   "no results of the stopped run");
	check_gone(t, &j, before);
}

MCT_TEST(stop_lower) { stop_on(0); }
MCT_TEST(stop_upper) { stop_on(1); }

/*
 * A stop that arrives while a finished job removes its working tree (a
 * file set of its own, here) does not cut the removal short, and the job
 * still ends DONE with its results: it used to end STOPPED.
 */
MCT_TEST(stop_in_cleanup)
{
	const char *t = target(0);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 1, .files = 300, .ops = 20,
	};
	struct gen_job j = { 0 };
	int64_t id;
	int before = gen_count_entries(t);

	open_family();
	id = gen_start(&S, &p);
	MCT_ASSERT(id > 0, "start: %s (%s)", strerror((int)-id),
		   nl_the_reply.ext_msg);
	do {
		MCT_ASSERT(!gen_get(&S, (uint32_t)id, &j), "status");
		if (j.state < METACACHE_BENCH_ST_CLEANUP)
			gen_sleep_ms(5);
	} while (j.state < METACACHE_BENCH_ST_CLEANUP);
	if (j.state != METACACHE_BENCH_ST_CLEANUP) {
		MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status");
		check_gone(t, &j, before);
		MCT_SKIP("the job's cleanup on %s was over before a poll saw it", t);
	}
	MCT_ASSERT(!gen_stop(&S, (uint32_t)id), "stop: %s (%s)",
		   strerror(-nl_the_reply.error), nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status after stop");
	MCT_EXPECT(j.state == METACACHE_BENCH_ST_DONE,
		   "state %u after a stop during the cleanup, want DONE (%u)",
		   j.state, METACACHE_BENCH_ST_DONE);
	MCT_ASSERT(!gen_results(&S, (uint32_t)id, &j), "results");
	MCT_EXPECT(gen_find(&j, METACACHE_BENCH_OP_ALL) &&
		   gen_find(&j, METACACHE_BENCH_OP_ALL)->ops == 20,
		   "the run's 20 operations are not all in the results");
	check_gone(t, &j, before);
}

/*
 * Stopped while it makes its directories: the job ends soon, not after
 * making all 65536 of them (the tree create phase did not look at stop
 * requests: minutes on nfs, found by netlink/nlfuzz).
 */
MCT_TEST(stop_in_tree_create)
{
	const char *t = target(1);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MDTEST,
		.threads = 2, .files = 1, .dirs = METACACHE_BENCH_DIRS_MAX,
	};
	struct gen_job j = { 0 };
	int64_t id;
	int i, before = gen_count_entries(t);

	open_family();
	id = gen_start(&S, &p);
	MCT_ASSERT(id > 0, "start: %s (%s)", strerror((int)-id),
		   nl_the_reply.ext_msg);
	gen_sleep_ms(200);
	MCT_ASSERT(!gen_stop(&S, (uint32_t)id), "stop: %s (%s)",
		   strerror(-nl_the_reply.error), nl_the_reply.ext_msg);
	/* ends within 30 s (the directories made so far removed) */
	for (i = 0; i < 300; i++) {
		MCT_ASSERT(!gen_get(&S, (uint32_t)id, &j), "status");
		if (j.state >= METACACHE_BENCH_ST_DONE)
			break;
		gen_sleep_ms(100);
	}
	MCT_EXPECT(j.state == METACACHE_BENCH_ST_STOPPED,
		   "state %u phase %u phase_ops %llu 30 s after stop", j.state,
		   j.phase, (unsigned long long)j.phase_ops);
	MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status");
	check_gone(t, &j, before);
}

/*
 * Unmount the target's file system during a job: umount(2) succeeds at
 * once, the job ends UNMOUNTED.  On a tmpfs of our own, and on a second
 * metacache mount over $MC_LOWER (its working tree must be gone from the
 * lower afterwards).
 */
static void umount_during(int metacache)
{
	const char *dir = metacache ? "/tmp/mcgen-mc" : "/tmp/mcgen-tmpfs";
	const char *lower = target(0);
	struct gen_params p = {
		.target = dir, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 2, .files = 10, .duration_ms = 3600 * 1000,
	};
	struct gen_job j = { 0 };
	int64_t id;
	int rc, before = gen_count_entries(lower);

	open_family();
	mkdir(dir, 0755);
	rc = metacache ? mount(lower, dir, "metacache", 0, NULL)
		       : mount("mcgen", dir, "tmpfs", 0, "size=16m");
	MCT_ASSERT(!rc, "mount %s: %s", dir, strerror(errno));
	id = gen_start(&S, &p);
	if (id <= 0) {
		umount(dir);
		MCT_ASSERT(0, "start: %s (%s)", strerror((int)-id),
			   nl_the_reply.ext_msg);
	}
	if (gen_wait_running(&S, (uint32_t)id, &j)) {
		gen_stop(&S, (uint32_t)id);
		gen_wait(&S, (uint32_t)id, &j);
		umount(dir);
		MCT_ASSERT(0, "job did not run (state %u)", j.state);
	}
	rc = umount(dir);
	MCT_EXPECT(!rc, "umount %s during a job: %s", dir, strerror(errno));
	if (rc) {
		gen_stop(&S, (uint32_t)id);
		gen_wait(&S, (uint32_t)id, &j);
		umount(dir);
		return;
	}
	MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status after umount");
	MCT_EXPECT(j.state == METACACHE_BENCH_ST_UNMOUNTED,
		   "state %u after umount, want unmounted", j.state);
	rmdir(dir);
	if (metacache)
		check_gone(lower, &j, before);
}

MCT_TEST(umount_tmpfs) { umount_during(0); }
MCT_TEST(umount_metacache) { umount_during(1); }

/*
 * Two jobs on one file system (two directories of one tmpfs): each holds
 * a private clone, so after the umount the super block is still active
 * twice over.  Both jobs must still end UNMOUNTED, not run on for their
 * hour on a file system mounted nowhere.
 */
MCT_TEST(umount_two_jobs)
{
	static const char *const sub[2] = { "/tmp/mcgen-two/a",
					    "/tmp/mcgen-two/b" };
	const char *dir = "/tmp/mcgen-two";
	struct gen_params p = {
		.workload = METACACHE_BENCH_WL_MIXED,
		.threads = 1, .files = 10, .duration_ms = 3600 * 1000,
	};
	struct gen_job j[2] = { 0 };
	int64_t id[2] = { 0, 0 };
	int i, rc, polls, ended = 0;

	open_family();
	mkdir(dir, 0755);
	MCT_ASSERT(!mount("mcgen", dir, "tmpfs", 0, "size=16m"), "mount %s: %s",
		   dir, strerror(errno));
	for (i = 0; i < 2; i++) {
		MCT_EXPECT(!mkdir(sub[i], 0755), "mkdir %s: %s", sub[i],
			   strerror(errno));
		p.target = sub[i];
		id[i] = gen_start(&S, &p);
		MCT_EXPECT(id[i] > 0, "start on %s: %s (%s)", sub[i],
			   strerror((int)-id[i]), nl_the_reply.ext_msg);
		if (id[i] <= 0)
			goto out_stop;
		rc = gen_wait_running(&S, (uint32_t)id[i], &j[i]);
		MCT_EXPECT(!rc, "job on %s did not run (state %u)", sub[i],
			   j[i].state);
		if (rc)
			goto out_stop;
	}
	rc = umount(dir);
	MCT_EXPECT(!rc, "umount %s during two jobs: %s", dir, strerror(errno));
	if (rc)
		goto out_stop;
	/* 60 s: the control work looks every 100 ms; then stop them */
	for (polls = 0; polls < 1200 && ended < 2; polls++) {
		for (i = 0, ended = 0; i < 2; i++) {
			rc = gen_get(&S, (uint32_t)id[i], &j[i]);
			MCT_EXPECT(!rc, "status of job %lld: %s",
				   (long long)id[i], strerror(-rc));
			if (rc)
				goto out_stop;
			ended += j[i].state >= METACACHE_BENCH_ST_DONE;
		}
		gen_sleep_ms(50);
	}
	for (i = 0; i < 2; i++)
		MCT_EXPECT(j[i].state == METACACHE_BENCH_ST_UNMOUNTED,
			   "job %d state %u 60 s after umount, want unmounted",
			   i, j[i].state);
out_stop:
	for (i = 0; i < 2; i++) {
		if (id[i] <= 0)
			continue;
		gen_stop(&S, (uint32_t)id[i]);
		gen_wait(&S, (uint32_t)id[i], &j[i]);
	}
	umount(dir);
	rmdir(dir);
}

/*
 * An error ends a job: remove its working tree from under it; the job
 * must end FAILED with the errno and the operation, not spin.
 */
MCT_TEST(io_error)
{
	const char *t = target(0);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MIXED,
		.threads = 2, .files = 10, .duration_ms = 3600 * 1000,
	};
	struct gen_job j = { 0 };
	char dir[4096], f[4200];
	struct dirent *e;
	int64_t id;
	DIR *d;
	int before = gen_count_entries(t);

	open_family();
	id = gen_start(&S, &p);
	MCT_ASSERT(id > 0, "start: %s (%s)", strerror((int)-id),
		   nl_the_reply.ext_msg);
	MCT_ASSERT(!gen_wait_running(&S, (uint32_t)id, &j), "job not running");
	snprintf(dir, sizeof(dir), "%s/%s", t, j.workdir);
	/* empty it until rmdir succeeds or the job has noticed */
	for (;;) {
		d = opendir(dir);
		if (d) {
			while ((e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
				unlink(f);
			}
			closedir(d);
		}
		if (!rmdir(dir) || errno == ENOENT)
			break;
		if (gen_get(&S, (uint32_t)id, &j) ||
		    j.state >= METACACHE_BENCH_ST_DONE)
			break;
	}
	MCT_ASSERT(!gen_wait(&S, (uint32_t)id, &j), "status");
	MCT_EXPECT(j.state == METACACHE_BENCH_ST_FAILED,
		   "state %u, want failed", j.state);
	MCT_EXPECT(j.err == ENOENT, "errno %u, want ENOENT", j.err);
	MCT_EXPECT(j.err_op == METACACHE_BENCH_OP_STAT ||
		   j.err_op == METACACHE_BENCH_OP_OPEN ||
		   j.err_op == METACACHE_BENCH_OP_CREATE ||
		   j.err_op == METACACHE_BENCH_OP_UNLINK,
		   "failed op %u", j.err_op);
	MCT_EXPECT(gen_count_entries(t) == before, "entries left in %s", t);
}

/*
 * METACACHE_BENCH_JOBS_MAX jobs at once on different directories, the
 * next one refused (EAGAIN), all listed, all stopped; then enough short
 * jobs that the first of them is forgotten (KEEP_DONE finished jobs).
 */
MCT_TEST(many_jobs)
{
	const char *t = target(0);
	struct gen_params p = {
		.workload = METACACHE_BENCH_WL_MIXED, .files = 2,
		.duration_ms = 3600 * 1000,
	};
	char dirs[METACACHE_BENCH_JOBS_MAX + 1][4096];
	int64_t ids[METACACHE_BENCH_JOBS_MAX];
	struct gen_job j = { 0 };
	struct nlmsghdr *h;
	struct nl_reply *r;
	int i, listed = 0, before = gen_count_entries(t);

	open_family();
	for (i = 0; i <= METACACHE_BENCH_JOBS_MAX; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "%s/mcgen-many%d", t, i);
		MCT_ASSERT(!mkdir(dirs[i], 0755), "mkdir %s: %s", dirs[i],
			   strerror(errno));
	}
	for (i = 0; i < METACACHE_BENCH_JOBS_MAX; i++) {
		p.target = dirs[i];
		ids[i] = gen_start(&S, &p);
		MCT_EXPECT(ids[i] > 0, "job %d: %s (%s)", i,
			   strerror((int)-ids[i]), nl_the_reply.ext_msg);
	}
	p.target = dirs[METACACHE_BENCH_JOBS_MAX];
	MCT_EXPECT(gen_start(&S, &p) == -EAGAIN && nl_the_reply.ext_msg[0],
		   "one job too many: %d (%s)", nl_the_reply.error,
		   nl_the_reply.ext_msg);
	r = nl_call(&S, nl_req(&S, METACACHE_CMD_BENCH_GET, NLM_F_DUMP));
	MCT_EXPECT(!r->error, "list: %d", r->error);
	for (h = nl_first(r); h; h = nl_next(r, h)) {
		uint32_t id = gen_u32(gen_nest(h), METACACHE_A_BENCH_JOB_ID);

		for (i = 0; i < METACACHE_BENCH_JOBS_MAX; i++)
			listed += ids[i] > 0 && id == (uint32_t)ids[i];
	}
	MCT_EXPECT(listed == METACACHE_BENCH_JOBS_MAX, "%d of the jobs listed",
		   listed);
	for (i = 0; i < METACACHE_BENCH_JOBS_MAX; i++)
		if (ids[i] > 0)
			MCT_EXPECT(!gen_stop(&S, (uint32_t)ids[i]), "stop %d", i);
	for (i = 0; i < METACACHE_BENCH_JOBS_MAX; i++) {
		if (ids[i] <= 0)
			continue;
		MCT_EXPECT(!gen_wait(&S, (uint32_t)ids[i], &j) &&
			   j.state == METACACHE_BENCH_ST_STOPPED,
			   "job %d: state %u", i, j.state);
		MCT_EXPECT(gen_count_entries(dirs[i]) == 0, "%s not empty",
			   dirs[i]);
	}
	/* more finished jobs than remembered: the first is forgotten */
	p.workload = METACACHE_BENCH_WL_MDTEST;
	p.files = 1;
	p.duration_ms = 0;
	for (i = 0; i < METACACHE_BENCH_KEEP_DONE; i++) {
		int64_t id;

		p.target = dirs[i % (METACACHE_BENCH_JOBS_MAX + 1)];
		id = gen_start(&S, &p);
		MCT_EXPECT(id > 0 && !gen_wait(&S, (uint32_t)id, &j) &&
			   j.state == METACACHE_BENCH_ST_DONE, "short job %d", i);
	}
	if (ids[0] > 0)
		MCT_EXPECT(gen_get(&S, (uint32_t)ids[0], &j) == -ENOENT,
			   "job %lld still remembered", (long long)ids[0]);
	for (i = 0; i <= METACACHE_BENCH_JOBS_MAX; i++)
		MCT_EXPECT(!rmdir(dirs[i]), "rmdir %s: %s", dirs[i],
			   strerror(errno));
	MCT_EXPECT(gen_count_entries(t) == before, "entries left in %s", t);
}

/* ----------------------------------------------------------- hostile */

struct hostile {
	const char *name;
	struct gen_params p;
	int err;
	int miss;	/* a missing attribute reported */
};

MCT_TEST(hostile_parameters)
{
	const char *t = target(1);
	static char file[4200];
	const struct hostile cases[] = {
		{ "zero threads", { t, METACACHE_BENCH_WL_MDTEST, .threads = 0xffffffff }, -ERANGE },
		{ "65 threads", { t, METACACHE_BENCH_WL_MDTEST, .threads = 65 }, -ERANGE },
		{ "unknown workload", { t, 5 }, -ERANGE },
		{ "no workload", { t, -1 }, -EINVAL, METACACHE_A_BENCH_WORKLOAD },
		{ "no target", { NULL, METACACHE_BENCH_WL_MDTEST }, -EINVAL, METACACHE_A_BENCH_TARGET },
		{ "2^20 + 1 files", { t, METACACHE_BENCH_WL_MDTEST, .files = (1 << 20) + 1 }, -ERANGE },
		{ "2^41 byte files", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .file_size = 1ULL << 41 }, -ERANGE },
		{ "2^64 - 1 ops", { t, METACACHE_BENCH_WL_RANDRW, .ops = ~0ULL }, -ERANGE },
		{ "io size 1000", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .io_size = 1000 }, -EINVAL },
		{ "io size 2 MiB", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .io_size = 2 << 20 }, -ERANGE },
		{ "file smaller than io", { t, METACACHE_BENCH_WL_SEQREAD, .ops = 1, .file_size = 4096 }, -EINVAL },
		{ "2000 data files", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .files = 2000 }, -ERANGE },
		{ "mdtest with ops", { t, METACACHE_BENCH_WL_MDTEST, .ops = 10 }, -EINVAL },
		{ "mixed without stop", { t, METACACHE_BENCH_WL_MIXED }, -EINVAL },
		{ "mix not 100", { t, METACACHE_BENCH_WL_MIXED, .ops = 1, .mix = "50,20,5,5" }, -EINVAL },
		{ "mixed, fewer files than threads", { t, METACACHE_BENCH_WL_MIXED, .ops = 1, .threads = 4, .files = 3 }, -EINVAL },
		{ "read pct for seqread", { t, METACACHE_BENCH_WL_SEQREAD, .ops = 1, .read_pct = 10 }, -EINVAL },
		{ "read pct 101", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .read_pct = 101 }, -ERANGE },
		{ "stonewall for randrw", { t, METACACHE_BENCH_WL_RANDRW, .ops = 1, .flags = METACACHE_BENCH_F_STONEWALL }, -EINVAL },
		{ "unknown flag", { t, METACACHE_BENCH_WL_MDTEST, .flags = 1 << 7 }, -EINVAL },
		{ "dirs for mixed", { t, METACACHE_BENCH_WL_MIXED, .ops = 1, .dirs = 2 }, -EINVAL },
		{ "duration 25 h", { t, METACACHE_BENCH_WL_MIXED, .duration_ms = 90000000 }, -ERANGE },
		{ "missing target", { "/tmp/mcgen-no-such-dir", METACACHE_BENCH_WL_MDTEST }, -ENOENT },
		{ "target a file", { file, METACACHE_BENCH_WL_MDTEST }, -ENOTDIR },
		{ "relative target", { "mcgen-no-such-relative-dir", METACACHE_BENCH_WL_MDTEST }, -ENOENT },
	};
	int before = gen_count_entries(t);
	size_t i;
	int fd;

	open_family();
	snprintf(file, sizeof(file), "%s/mcgen-file", t);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create %s: %s", file, strerror(errno));
	close(fd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hostile *c = &cases[i];
		struct gen_params p = c->p;
		int64_t r;

		/* threads 0 is "not sent" in gen_params: send a real 0 */
		if (p.threads == 0xffffffff) {
			struct nl_req *m = gen_start_req(&S, &(struct gen_params){
				.target = t, .workload = METACACHE_BENCH_WL_MDTEST });
			/* append THREADS 0 inside the nest */
			m->depth = 1;
			m->nest[0] = NLMSG_HDRLEN + GENL_HDRLEN;
			nl_put_u32(m, METACACHE_A_BENCH_THREADS, 0);
			nl_nest_end(m);
			r = nl_call(&S, m)->error;
		} else {
			r = gen_start(&S, &p);
		}
		MCT_EXPECT(r == c->err, "%s: got %lld (%s), want %s", c->name,
			   (long long)r, r < 0 ? strerror((int)-r) : "a job",
			   strerror(-c->err));
		MCT_EXPECT(nl_the_reply.ext_msg[0] || r > 0,
			   "%s: no extack message", c->name);
		if (c->miss)
			MCT_EXPECT(nl_the_reply.has_miss &&
				   nl_the_reply.miss_type == (uint32_t)c->miss,
				   "%s: missing attribute not reported", c->name);
		else if (r < 0 && r != -ENOENT && r != -ENOTDIR)
			MCT_EXPECT(nl_the_reply.has_offs,
				   "%s: no attribute offset", c->name);
		if (r > 0) {	/* should not happen: clean up */
			struct gen_job j;

			gen_stop(&S, (uint32_t)r);
			gen_wait(&S, (uint32_t)r, &j);
		}
	}
	unlink(file);
	MCT_EXPECT(gen_count_entries(t) == before,
		   "the refused jobs left %d entries in %s",
		   gen_count_entries(t) - before, t);
}

/* Commands on jobs that do not exist, and a read-only target. */
MCT_TEST(hostile_jobs)
{
	struct nl_req *m;
	struct gen_job j;

	open_family();
	MCT_EXPECT(gen_stop(&S, 999999) == -ENOENT, "stop of no job: %d",
		   nl_the_reply.error);
	MCT_EXPECT(gen_get(&S, 999999, &j) == -ENOENT, "status of no job");
	MCT_EXPECT(gen_results(&S, 999999, &j) == -ENOENT, "results of no job");
	/* stop takes only a job id */
	m = nl_req(&S, METACACHE_CMD_BENCH_STOP, 0);
	nl_nest(m, METACACHE_A_BENCH);
	nl_put_u32(m, METACACHE_A_BENCH_JOB_ID, 1);
	nl_put_u32(m, METACACHE_A_BENCH_THREADS, 1);
	nl_nest_end(m);
	MCT_EXPECT(nl_call(&S, m)->error == -EINVAL && nl_the_reply.has_offs,
		   "stop with threads: %d", nl_the_reply.error);
	/* no nest at all */
	m = nl_req(&S, METACACHE_CMD_BENCH_STOP, 0);
	MCT_EXPECT(nl_call(&S, m)->error == -EINVAL && nl_the_reply.has_miss &&
		   nl_the_reply.miss_type == METACACHE_A_BENCH,
		   "stop without attributes: %d", nl_the_reply.error);
	/* job id 0 */
	m = gen_id_req(&S, METACACHE_CMD_BENCH_GET, 0, 0);
	MCT_EXPECT(nl_call(&S, m)->error == -ERANGE, "job id 0: %d",
		   nl_the_reply.error);
	/* a reply attribute in a request */
	m = nl_req(&S, METACACHE_CMD_BENCH_GET, 0);
	nl_nest(m, METACACHE_A_BENCH);
	nl_put_u32(m, METACACHE_A_BENCH_JOB_ID, 1);
	nl_put_u32(m, METACACHE_A_BENCH_STATE, 1);
	nl_nest_end(m);
	MCT_EXPECT(nl_call(&S, m)->error == -EINVAL, "state in a request: %d",
		   nl_the_reply.error);
	/* list takes nothing */
	m = gen_id_req(&S, METACACHE_CMD_BENCH_GET, NLM_F_DUMP, 1);
	MCT_EXPECT(nl_call(&S, m)->error == -EINVAL, "list with an id: %d",
		   nl_the_reply.error);
	m = nl_req(&S, METACACHE_CMD_BENCH_GET, NLM_F_DUMP);
	MCT_EXPECT(!nl_call(&S, m)->error, "list: %d", nl_the_reply.error);

	/* a read-only target */
	mkdir("/tmp/mcgen-ro", 0755);
	MCT_ASSERT(!mount("mcgen", "/tmp/mcgen-ro", "tmpfs", MS_RDONLY, NULL),
		   "mount ro tmpfs: %s", strerror(errno));
	MCT_EXPECT(gen_start(&S, &(struct gen_params){
			.target = "/tmp/mcgen-ro",
			.workload = METACACHE_BENCH_WL_MDTEST }) == -EROFS,
		   "read-only target: %d (%s)", nl_the_reply.error,
		   nl_the_reply.ext_msg);
	umount("/tmp/mcgen-ro");
	rmdir("/tmp/mcgen-ro");
}

static int drop_root(void)
{
	const char *u = mc_env("MC_TEST_UID"), *g = mc_env("MC_TEST_GID");
	uid_t uid = u ? (uid_t)atoi(u) : 65534;
	gid_t gid = g ? (gid_t)atoi(g) : 65534;

	return setgroups(0, NULL) || setgid(gid) || setuid(uid) ? -1 : 0;
}

/* Non-root: start and stop refused (EPERM), status and list allowed. */
MCT_TEST(unprivileged)
{
	const char *t = target(1);
	struct gen_params p = {
		.target = t, .workload = METACACHE_BENCH_WL_MIXED,
		.files = 4, .duration_ms = 3600 * 1000,
	};
	struct gen_job j;
	int64_t id;
	pid_t pid;
	int status, before = gen_count_entries(t);

	open_family();
	id = gen_start(&S, &p);
	MCT_ASSERT(id > 0, "start as root: %s", strerror((int)-id));
	pid = fork();
	MCT_ASSERT(pid >= 0, "fork");
	if (!pid) {
		struct nl_sock s;
		struct gen_job uj;
		int bad = 0;

		if (drop_root() || nl_open(&s))
			_exit(2);
		if (gen_start(&s, &p) != -EPERM)
			bad |= 1;
		if (gen_stop(&s, (uint32_t)id) != -EPERM)
			bad |= 2;
		if (gen_get(&s, (uint32_t)id, &uj) || uj.id != (uint32_t)id)
			bad |= 4;
		if (nl_call(&s, nl_req(&s, METACACHE_CMD_BENCH_GET,
				       NLM_F_DUMP))->error)
			bad |= 8;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	MCT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "as uid 65534: status %d (1 start, 2 stop not refused, 4 status, 8 list failed)",
		   WEXITSTATUS(status));
	MCT_EXPECT(!gen_get(&S, (uint32_t)id, &j) &&
		   j.state < METACACHE_BENCH_ST_DONE,
		   "the job did not survive the unprivileged stop");
	gen_stop(&S, (uint32_t)id);
	gen_wait(&S, (uint32_t)id, &j);
	MCT_EXPECT(gen_count_entries(t) == before, "entries left in %s", t);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
