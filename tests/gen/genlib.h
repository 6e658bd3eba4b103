/* SPDX-License-Identifier: GPL-2.0 */
/*
 * genlib.h - driving the module's I/O generator (BENCH_* commands) from
 * the tests over raw generic netlink (../netlink/nllib.h): start a job,
 * read its status and results, stop it, wait for its end.
 */
#ifndef GENLIB_H
#define GENLIB_H

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "../netlink/nllib.h"

/* Parameters of a job; 0 / NULL: not sent. */
struct gen_params {
	const char *target;
	int workload;		/* -1: not sent */
	uint32_t threads, files, dirs, io_size, duration_ms, flags, read_pct;
	uint64_t file_size, ops;
	const char *mix;	/* "70,20,5,5" */
};

struct gen_res {
	uint32_t op;
	uint64_t ops, bytes, entries, elapsed_ns, sum_ns, min_ns, max_ns;
	uint64_t p50, p90, p99, p999, sec_n;
};

struct gen_job {
	uint32_t id, state, phase, err, err_op;
	uint64_t phase_ops, elapsed_ns;
	char workdir[64];
	int nres;
	struct gen_res res[16];
};

static inline void gen_put_u64(struct nl_req *m, uint16_t type, uint64_t v)
{
	nl_put(m, type, &v, 8);
}

/* Build a BENCH_START request from p. */
static inline struct nl_req *gen_start_req(struct nl_sock *s,
					   const struct gen_params *p)
{
	struct nl_req *m = nl_req(s, METACACHE_CMD_BENCH_START, 0);

	nl_nest(m, METACACHE_A_BENCH);
	if (p->target)
		nl_put_str(m, METACACHE_A_BENCH_TARGET, p->target);
	if (p->workload >= 0)
		nl_put_u32(m, METACACHE_A_BENCH_WORKLOAD, (uint32_t)p->workload);
	if (p->threads)
		nl_put_u32(m, METACACHE_A_BENCH_THREADS, p->threads);
	if (p->files)
		nl_put_u32(m, METACACHE_A_BENCH_FILES, p->files);
	if (p->dirs)
		nl_put_u32(m, METACACHE_A_BENCH_DIRS, p->dirs);
	if (p->io_size)
		nl_put_u32(m, METACACHE_A_BENCH_IO_SIZE, p->io_size);
	if (p->file_size)
		gen_put_u64(m, METACACHE_A_BENCH_FILE_SIZE, p->file_size);
	if (p->ops)
		gen_put_u64(m, METACACHE_A_BENCH_OPS, p->ops);
	if (p->duration_ms)
		nl_put_u32(m, METACACHE_A_BENCH_DURATION_MS, p->duration_ms);
	if (p->flags)
		nl_put_u32(m, METACACHE_A_BENCH_FLAGS, p->flags);
	if (p->read_pct)
		nl_put_u32(m, METACACHE_A_BENCH_READ_PCT, p->read_pct);
	if (p->mix) {
		unsigned int v[4] = { 0 };

		sscanf(p->mix, "%u,%u,%u,%u", &v[0], &v[1], &v[2], &v[3]);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_STAT, v[0]);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_OPEN, v[1]);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_CREATE, v[2]);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_UNLINK, v[3]);
	}
	nl_nest_end(m);
	return m;
}

/* The BENCH nest of a reply message. */
static inline struct nlattr *gen_nest(const struct nlmsghdr *h)
{
	return nl_attr(h, METACACHE_A_BENCH);
}

static inline uint32_t gen_u32(const struct nlattr *nest, int type)
{
	struct nlattr *a = nest ? nl_nested(nest, type) : NULL;

	return a ? nl_u32(a) : 0;
}

static inline uint64_t gen_u64(const struct nlattr *nest, int type)
{
	struct nlattr *a = nest ? nl_nested(nest, type) : NULL;

	return a ? nl_u64(a) : 0;
}

/* Start a job: its id, or -errno (the reply in nl_the_reply). */
static inline int64_t gen_start(struct nl_sock *s, const struct gen_params *p)
{
	struct nl_reply *r = nl_call(s, gen_start_req(s, p));

	if (r->error)
		return r->error;
	if (!r->nmsgs)
		return -EIO;
	return gen_u32(gen_nest(nl_first(r)), METACACHE_A_BENCH_JOB_ID);
}

static inline struct nl_req *gen_id_req(struct nl_sock *s, uint8_t cmd,
					uint16_t flags, uint32_t id)
{
	struct nl_req *m = nl_req(s, cmd, flags);

	nl_nest(m, METACACHE_A_BENCH);
	nl_put_u32(m, METACACHE_A_BENCH_JOB_ID, id);
	nl_nest_end(m);
	return m;
}

static inline int gen_stop(struct nl_sock *s, uint32_t id)
{
	return nl_call(s, gen_id_req(s, METACACHE_CMD_BENCH_STOP, 0, id))->error;
}

/* Status of a job into j: 0 or -errno. */
static inline int gen_get(struct nl_sock *s, uint32_t id, struct gen_job *j)
{
	struct nl_reply *r = nl_call(s, gen_id_req(s, METACACHE_CMD_BENCH_GET,
						   0, id));
	struct nlattr *n, *w;

	if (r->error)
		return r->error;
	if (!r->nmsgs)
		return -EIO;
	n = gen_nest(nl_first(r));
	j->id = gen_u32(n, METACACHE_A_BENCH_JOB_ID);
	j->state = gen_u32(n, METACACHE_A_BENCH_STATE);
	j->phase = gen_u32(n, METACACHE_A_BENCH_PHASE);
	j->err = gen_u32(n, METACACHE_A_BENCH_ERRNO);
	j->err_op = gen_u32(n, METACACHE_A_BENCH_ERR_OP);
	j->phase_ops = gen_u64(n, METACACHE_A_BENCH_PHASE_OPS);
	j->elapsed_ns = gen_u64(n, METACACHE_A_BENCH_ELAPSED_NS);
	w = n ? nl_nested(n, METACACHE_A_BENCH_WORKDIR) : NULL;
	snprintf(j->workdir, sizeof(j->workdir), "%s", w ? nl_str(w) : "");
	return 0;
}

/* The results of a job into j->res: 0 or -errno. */
static inline int gen_results(struct nl_sock *s, uint32_t id,
			      struct gen_job *j)
{
	struct nl_reply *r = nl_call(s, gen_id_req(s,
						   METACACHE_CMD_BENCH_RESULTS,
						   NLM_F_DUMP, id));
	struct nlmsghdr *h;

	if (r->error)
		return r->error;
	j->nres = 0;
	for (h = nl_first(r); h && j->nres < 16; h = nl_next(r, h)) {
		struct nlattr *n = gen_nest(h);
		struct nlattr *x = n ? nl_nested(n, METACACHE_A_BENCH_RESULT)
				     : NULL;
		struct gen_res *g = &j->res[j->nres];

		if (!x)
			continue;
		g->op = gen_u32(x, METACACHE_A_BENCH_RES_OP);
		g->ops = gen_u64(x, METACACHE_A_BENCH_RES_OPS);
		g->bytes = gen_u64(x, METACACHE_A_BENCH_RES_BYTES);
		g->entries = gen_u64(x, METACACHE_A_BENCH_RES_ENTRIES);
		g->elapsed_ns = gen_u64(x, METACACHE_A_BENCH_RES_ELAPSED_NS);
		g->sum_ns = gen_u64(x, METACACHE_A_BENCH_RES_SUM_NS);
		g->min_ns = gen_u64(x, METACACHE_A_BENCH_RES_MIN_NS);
		g->max_ns = gen_u64(x, METACACHE_A_BENCH_RES_MAX_NS);
		g->p50 = gen_u64(x, METACACHE_A_BENCH_RES_P50_NS);
		g->p90 = gen_u64(x, METACACHE_A_BENCH_RES_P90_NS);
		g->p99 = gen_u64(x, METACACHE_A_BENCH_RES_P99_NS);
		g->p999 = gen_u64(x, METACACHE_A_BENCH_RES_P999_NS);
		g->sec_n = gen_u64(x, METACACHE_A_BENCH_RES_SEC_N);
		j->nres++;
	}
	return 0;
}

static inline void gen_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Poll until the job has ended (no time limit here: the harness's alarm
 * catches a job that never ends).  0 or -errno.
 */
static inline int gen_wait(struct nl_sock *s, uint32_t id, struct gen_job *j)
{
	int err;

	for (;;) {
		err = gen_get(s, id, j);
		if (err || j->state >= METACACHE_BENCH_ST_DONE)
			return err;
		gen_sleep_ms(50);
	}
}

/* Poll until the job runs its measured phase and has done some ops. */
static inline int gen_wait_running(struct nl_sock *s, uint32_t id,
				   struct gen_job *j)
{
	int err;

	for (;;) {
		err = gen_get(s, id, j);
		if (err || j->state >= METACACHE_BENCH_ST_DONE)
			return err ? err : -ESRCH;
		if (j->state == METACACHE_BENCH_ST_RUNNING && j->phase_ops > 0)
			return 0;
		gen_sleep_ms(20);
	}
}

static inline const struct gen_res *gen_find(const struct gen_job *j,
					     uint32_t op)
{
	int i;

	for (i = 0; i < j->nres; i++)
		if (j->res[i].op == op)
			return &j->res[i];
	return NULL;
}

/* Entries of a directory (without . and ..), -1 if it cannot be read. */
static inline int gen_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

#endif /* GENLIB_H */
