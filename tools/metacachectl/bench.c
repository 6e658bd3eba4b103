// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - "bench": the module's in-kernel I/O generator.
 *
 *	bench start TARGET WORKLOAD [OPTIONS]	start a job, print its id
 *	bench run TARGET WORKLOAD [OPTIONS]	start, show progress, report
 *	bench compare PATH_A PATH_B WORKLOAD [OPTIONS]
 *	bench status JOB | stop JOB | results JOB | list
 *
 * The protocol: include/uapi/linux/metacache.h, "The I/O generator".
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nl.h"

struct job {
	int got;
	uint32_t id, workload, threads, files, dirs, io_size, duration_ms;
	uint32_t flags, read_pct, mix[4], state, phase, err, err_op;
	uint64_t file_size, ops, elapsed_ns, phase_ops, rate;
	char target[METACACHE_PATH_MAX];
	char workdir[64];
};

#define MAX_RES	__METACACHE_BENCH_OP_MAX

struct results {
	int n;
	struct mc_bench_res r[MAX_RES];
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Attributes */

static uint32_t get32(struct nlattr *a)
{
	uint32_t v = 0;

	if (a && nla_len(a) >= 4)
		memcpy(&v, nla_data(a), 4);
	return v;
}

static uint64_t get64(struct nlattr *a)
{
	uint64_t v = 0;

	if (a && nla_len(a) >= 8)
		memcpy(&v, nla_data(a), 8);
	return v;
}

static void get_str(struct nlattr *a, char *buf, size_t len)
{
	if (!a || !len)
		return;
	snprintf(buf, len, "%.*s", nla_len(a), (const char *)nla_data(a));
}

static int bench_tb(const struct mc_reply *r, struct nlattr **tb)
{
	struct nlattr *nest = r->tb[METACACHE_A_BENCH];

	memset(tb, 0, sizeof(*tb) * (METACACHE_A_BENCH_MAX + 1));
	if (!nest || nla_parse_nested(tb, METACACHE_A_BENCH_MAX, nest, NULL))
		return -EINVAL;
	return 0;
}

static int on_job(const struct mc_reply *r, void *arg)
{
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	struct job *j = arg;

	if (bench_tb(r, tb))
		return 0;
	memset(j, 0, sizeof(*j));
	j->got = 1;
	j->id = get32(tb[METACACHE_A_BENCH_JOB_ID]);
	j->workload = get32(tb[METACACHE_A_BENCH_WORKLOAD]);
	j->threads = get32(tb[METACACHE_A_BENCH_THREADS]);
	j->files = get32(tb[METACACHE_A_BENCH_FILES]);
	j->dirs = get32(tb[METACACHE_A_BENCH_DIRS]);
	j->io_size = get32(tb[METACACHE_A_BENCH_IO_SIZE]);
	j->duration_ms = get32(tb[METACACHE_A_BENCH_DURATION_MS]);
	j->flags = get32(tb[METACACHE_A_BENCH_FLAGS]);
	j->read_pct = get32(tb[METACACHE_A_BENCH_READ_PCT]);
	j->mix[0] = get32(tb[METACACHE_A_BENCH_MIX_STAT]);
	j->mix[1] = get32(tb[METACACHE_A_BENCH_MIX_OPEN]);
	j->mix[2] = get32(tb[METACACHE_A_BENCH_MIX_CREATE]);
	j->mix[3] = get32(tb[METACACHE_A_BENCH_MIX_UNLINK]);
	j->state = get32(tb[METACACHE_A_BENCH_STATE]);
	j->phase = get32(tb[METACACHE_A_BENCH_PHASE]);
	j->err = get32(tb[METACACHE_A_BENCH_ERRNO]);
	j->err_op = get32(tb[METACACHE_A_BENCH_ERR_OP]);
	j->file_size = get64(tb[METACACHE_A_BENCH_FILE_SIZE]);
	j->ops = get64(tb[METACACHE_A_BENCH_OPS]);
	j->elapsed_ns = get64(tb[METACACHE_A_BENCH_ELAPSED_NS]);
	j->phase_ops = get64(tb[METACACHE_A_BENCH_PHASE_OPS]);
	j->rate = get64(tb[METACACHE_A_BENCH_RATE]);
	get_str(tb[METACACHE_A_BENCH_TARGET], j->target, sizeof(j->target));
	get_str(tb[METACACHE_A_BENCH_WORKDIR], j->workdir, sizeof(j->workdir));
	return 0;
}

/* list: one struct job per message */
struct jobs {
	int n, cap;
	struct job *v;
};

static int on_jobs(const struct mc_reply *r, void *arg)
{
	struct jobs *js = arg;

	if (js->n == js->cap) {
		int cap = js->cap ? 2 * js->cap : 8;
		struct job *v = realloc(js->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		js->v = v;
		js->cap = cap;
	}
	on_job(r, &js->v[js->n]);
	if (js->v[js->n].got)
		js->n++;
	return 0;
}

static int on_result(const struct mc_reply *r, void *arg)
{
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	struct nlattr *rt[METACACHE_A_BENCH_RES_MAX + 1];
	struct results *res = arg;
	struct mc_bench_res *x;

	if (bench_tb(r, tb) || !tb[METACACHE_A_BENCH_RESULT] ||
	    res->n >= MAX_RES)
		return 0;
	if (nla_parse_nested(rt, METACACHE_A_BENCH_RES_MAX,
			     tb[METACACHE_A_BENCH_RESULT], NULL))
		return 0;
	x = &res->r[res->n++];
	memset(x, 0, sizeof(*x));
	x->op = get32(rt[METACACHE_A_BENCH_RES_OP]);
	x->ops = get64(rt[METACACHE_A_BENCH_RES_OPS]);
	x->bytes = get64(rt[METACACHE_A_BENCH_RES_BYTES]);
	x->entries = get64(rt[METACACHE_A_BENCH_RES_ENTRIES]);
	x->elapsed_ns = get64(rt[METACACHE_A_BENCH_RES_ELAPSED_NS]);
	x->sum_ns = get64(rt[METACACHE_A_BENCH_RES_SUM_NS]);
	x->min_ns = get64(rt[METACACHE_A_BENCH_RES_MIN_NS]);
	x->max_ns = get64(rt[METACACHE_A_BENCH_RES_MAX_NS]);
	x->p50_ns = get64(rt[METACACHE_A_BENCH_RES_P50_NS]);
	x->p90_ns = get64(rt[METACACHE_A_BENCH_RES_P90_NS]);
	x->p99_ns = get64(rt[METACACHE_A_BENCH_RES_P99_NS]);
	x->p999_ns = get64(rt[METACACHE_A_BENCH_RES_P999_NS]);
	x->sec_n = get64(rt[METACACHE_A_BENCH_RES_SEC_N]);
	x->sec_sum = get64(rt[METACACHE_A_BENCH_RES_SEC_SUM]);
	x->sec_sumsq = get64(rt[METACACHE_A_BENCH_RES_SEC_SUMSQ]);
	return 0;
}

/* Requests */

static struct nl_msg *job_msg(struct mc_nl *nl, uint8_t cmd, int flags,
			      uint32_t id)
{
	struct nl_msg *msg = mc_nl_msg(nl, cmd, flags);
	struct nlattr *nest;

	if (!msg)
		return NULL;
	nest = nla_nest_start(msg, METACACHE_A_BENCH);
	if (!nest || nla_put_u32(msg, METACACHE_A_BENCH_JOB_ID, id)) {
		nlmsg_free(msg);
		return NULL;
	}
	nla_nest_end(msg, nest);
	return msg;
}

static int get_job(struct mc_nl *nl, uint32_t id, struct job *j)
{
	struct nl_msg *msg = job_msg(nl, METACACHE_CMD_BENCH_GET, 0, id);

	if (!msg)
		return -ENOMEM;
	j->got = 0;
	return mc_nl_call(nl, msg, on_job, j);
}

static int get_results(struct mc_nl *nl, uint32_t id, struct results *res)
{
	struct nl_msg *msg = job_msg(nl, METACACHE_CMD_BENCH_RESULTS,
				     NLM_F_DUMP, id);

	if (!msg)
		return -ENOMEM;
	res->n = 0;
	return mc_nl_call(nl, msg, on_result, res);
}

static int stop_job(struct mc_nl *nl, uint32_t id)
{
	struct nl_msg *msg = job_msg(nl, METACACHE_CMD_BENCH_STOP, 0, id);

	if (!msg)
		return -ENOMEM;
	return mc_nl_call(nl, msg, NULL, NULL);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !interrupted)
		;
}

/* Poll until the job has ended; *j is its last status. */
static int wait_job(struct mc_nl *nl, uint32_t id, struct job *j)
{
	int err;

	for (;;) {
		err = get_job(nl, id, j);
		if (err)
			return err;
		if (mc_bench_state_final(j->state))
			return 0;
		sleep_ms(100);
	}
}

/* Options of start, run and compare */

enum {
	O_THREADS, O_FILES, O_DIRS, O_FSIZE, O_IOSIZE, O_OPS, O_DURATION,
	O_READPCT, O_MIX, O_WARMUP, O_KEEP, O_STONEWALL, O_INTERVAL, O_QUIET,
	O_NOWAIT, O_NR
};

static void init_opts(struct mc_opt *o)
{
	static const struct mc_opt def[O_NR] = {
		[O_THREADS] = { "threads", 't', 1, 0, NULL },
		[O_FILES] = { "files", 'n', 1, 0, NULL },
		[O_DIRS] = { "dirs", 'd', 1, 0, NULL },
		[O_FSIZE] = { "file-size", 's', 1, 0, NULL },
		[O_IOSIZE] = { "io-size", 'b', 1, 0, NULL },
		[O_OPS] = { "ops", 'o', 1, 0, NULL },
		[O_DURATION] = { "duration", 'D', 1, 0, NULL },
		[O_READPCT] = { "read-pct", 'r', 1, 0, NULL },
		[O_MIX] = { "mix", 'm', 1, 0, NULL },
		[O_WARMUP] = { "warmup", 'W', 0, 0, NULL },
		[O_KEEP] = { "keep", 'k', 0, 0, NULL },
		[O_STONEWALL] = { "stonewall", 'S', 0, 0, NULL },
		[O_INTERVAL] = { "interval", 'i', 1, 0, NULL },
		[O_QUIET] = { "quiet", 'q', 0, 0, NULL },
		[O_NOWAIT] = { "no-wait", 0, 0, 0, NULL },
	};

	memcpy(o, def, sizeof(def));
}

struct params {
	uint32_t workload;
	int have[METACACHE_A_BENCH_MAX + 1];
	uint32_t v32[METACACHE_A_BENCH_MAX + 1];
	uint64_t v64[METACACHE_A_BENCH_MAX + 1];
	uint32_t flags;
};

static int opt_u32(struct params *p, const struct mc_opt *o, int attr)
{
	const char *why;

	if (!o->seen)
		return 0;
	if (mc_bench_parse_u32(o->arg, &p->v32[attr], &why)) {
		mc_err("bench: --%s %s: %s", o->lng, o->arg, why);
		return -1;
	}
	p->have[attr] = 1;
	return 0;
}

/* Parse the options into p (p->workload set). 0 or -1 after a message. */
static int parse_params(struct params *p, struct mc_opt *o)
{
	const char *why;

	if (opt_u32(p, &o[O_THREADS], METACACHE_A_BENCH_THREADS) ||
	    opt_u32(p, &o[O_FILES], METACACHE_A_BENCH_FILES) ||
	    opt_u32(p, &o[O_DIRS], METACACHE_A_BENCH_DIRS))
		return -1;
	if (o[O_FSIZE].seen) {
		if (mc_parse_size(o[O_FSIZE].arg,
				  &p->v64[METACACHE_A_BENCH_FILE_SIZE], &why)) {
			mc_err("bench: --file-size %s: %s", o[O_FSIZE].arg, why);
			return -1;
		}
		p->have[METACACHE_A_BENCH_FILE_SIZE] = 1;
	}
	if (o[O_IOSIZE].seen) {
		uint64_t v;

		if (mc_parse_size(o[O_IOSIZE].arg, &v, &why) ||
		    (v > UINT32_MAX && (why = "too large"))) {
			mc_err("bench: --io-size %s: %s", o[O_IOSIZE].arg, why);
			return -1;
		}
		p->v32[METACACHE_A_BENCH_IO_SIZE] = (uint32_t)v;
		p->have[METACACHE_A_BENCH_IO_SIZE] = 1;
	}
	if (o[O_OPS].seen) {
		if (mc_parse_count(o[O_OPS].arg, &p->v64[METACACHE_A_BENCH_OPS],
				   &why)) {
			mc_err("bench: --ops %s: %s", o[O_OPS].arg, why);
			return -1;
		}
		p->have[METACACHE_A_BENCH_OPS] = 1;
	}
	if (o[O_DURATION].seen) {
		if (mc_bench_parse_duration_ms(o[O_DURATION].arg,
					       &p->v32[METACACHE_A_BENCH_DURATION_MS],
					       &why)) {
			mc_err("bench: --duration %s: %s", o[O_DURATION].arg, why);
			return -1;
		}
		p->have[METACACHE_A_BENCH_DURATION_MS] = 1;
	}
	if (o[O_READPCT].seen) {
		if (mc_bench_parse_pct(o[O_READPCT].arg,
				       &p->v32[METACACHE_A_BENCH_READ_PCT], &why)) {
			mc_err("bench: --read-pct %s: %s", o[O_READPCT].arg, why);
			return -1;
		}
		p->have[METACACHE_A_BENCH_READ_PCT] = 1;
	}
	if (o[O_MIX].seen) {
		uint32_t mix[4];
		int i;

		if (mc_bench_parse_mix(o[O_MIX].arg, mix, &why)) {
			mc_err("bench: --mix %s: %s", o[O_MIX].arg, why);
			return -1;
		}
		for (i = 0; i < 4; i++) {
			p->v32[METACACHE_A_BENCH_MIX_STAT + i] = mix[i];
			p->have[METACACHE_A_BENCH_MIX_STAT + i] = 1;
		}
	}
	if (o[O_WARMUP].seen)
		p->flags |= METACACHE_BENCH_F_WARMUP;
	if (o[O_KEEP].seen)
		p->flags |= METACACHE_BENCH_F_KEEP;
	if (o[O_STONEWALL].seen)
		p->flags |= METACACHE_BENCH_F_STONEWALL;
	return 0;
}

/* An absolute path, made from the working directory if need be. */
static int abs_path(const char *in, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (in[0] == '/') {
		if (strlen(in) >= len)
			goto too_long;
		strcpy(out, in);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		mc_err("bench: cannot get the working directory: %s",
		       strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(out, len, "%s/%s", cwd, in) >= len)
		goto too_long;
	return 0;
too_long:
	mc_err("bench: %s: path too long", in);
	return -1;
}

static int start_job(struct mc_nl *nl, const char *target,
		     const struct params *p, struct job *j)
{
	char path[METACACHE_PATH_MAX];
	struct nl_msg *msg;
	struct nlattr *nest;
	int a, err = -EMSGSIZE;

	if (abs_path(target, path, sizeof(path)))
		return -EINVAL;
	msg = mc_nl_msg(nl, METACACHE_CMD_BENCH_START, 0);
	if (!msg)
		return -ENOMEM;
	nest = nla_nest_start(msg, METACACHE_A_BENCH);
	if (!nest || nla_put_string(msg, METACACHE_A_BENCH_TARGET, path) ||
	    nla_put_u32(msg, METACACHE_A_BENCH_WORKLOAD, p->workload))
		goto fail;
	for (a = 0; a <= METACACHE_A_BENCH_MAX; a++) {
		if (!p->have[a])
			continue;
		if (a == METACACHE_A_BENCH_FILE_SIZE || a == METACACHE_A_BENCH_OPS) {
			if (nla_put_u64(msg, a, p->v64[a]))
				goto fail;
		} else if (nla_put_u32(msg, a, p->v32[a])) {
			goto fail;
		}
	}
	if (p->flags && nla_put_u32(msg, METACACHE_A_BENCH_FLAGS, p->flags))
		goto fail;
	nla_nest_end(msg, nest);
	j->got = 0;
	err = mc_nl_call(nl, msg, on_job, j);
	if (!err && !j->got) {
		mc_err("bench start: the module did not say the job id");
		err = -EPROTO;
	}
	return err;
fail:
	nlmsg_free(msg);
	mc_err("bench start: request too large");
	return err;
}

/* Output */

static const char *fmt_ns(char *buf, size_t len, uint64_t ns, int have)
{
	return have ? mc_fmt_ns(buf, len, ns) : "-";
}

static const char *fmt_dbl(char *buf, size_t len, double v, const char *f)
{
	if (isnan(v))
		return "-";
	snprintf(buf, len, f, v);
	return buf;
}

static void job_json(struct mc_json *js, const struct job *j)
{
	mcj_u64(js, "id", j->id);
	mcj_str(js, "target", j->target);
	mcj_str(js, "workdir", j->workdir);
	mcj_str(js, "workload", mc_bench_workload_name(j->workload));
	mcj_str(js, "state", mc_bench_state_name(j->state));
	mcj_str(js, "phase", mc_bench_op_name(j->phase));
	mcj_u64(js, "threads", j->threads);
	mcj_u64(js, "files", j->files);
	if (j->workload == METACACHE_BENCH_WL_MDTEST)
		mcj_u64(js, "dirs", j->dirs);
	if (j->workload >= METACACHE_BENCH_WL_RANDRW) {
		mcj_u64(js, "file_size", j->file_size);
		mcj_u64(js, "io_size", j->io_size);
	}
	if (j->workload == METACACHE_BENCH_WL_RANDRW)
		mcj_u64(js, "read_pct", j->read_pct);
	if (j->workload == METACACHE_BENCH_WL_MIXED) {
		mcj_obj(js, "mix");
		mcj_u64(js, "stat", j->mix[0]);
		mcj_u64(js, "open", j->mix[1]);
		mcj_u64(js, "create", j->mix[2]);
		mcj_u64(js, "unlink", j->mix[3]);
		mcj_obj_end(js);
	}
	if (j->ops)
		mcj_u64(js, "ops", j->ops);
	if (j->duration_ms)
		mcj_u64(js, "duration_ms", j->duration_ms);
	mcj_bool(js, "keep", !!(j->flags & METACACHE_BENCH_F_KEEP));
	mcj_bool(js, "stonewall", !!(j->flags & METACACHE_BENCH_F_STONEWALL));
	mcj_bool(js, "warmup", !!(j->flags & METACACHE_BENCH_F_WARMUP));
	mcj_u64(js, "elapsed_ns", j->elapsed_ns);
	mcj_u64(js, "phase_ops", j->phase_ops);
	mcj_u64(js, "rate", j->rate);
	if (j->err) {
		mcj_i64(js, "errno", j->err);
		mcj_str(js, "error", strerror((int)j->err));
		mcj_str(js, "error_op", mc_bench_op_name(j->err_op));
	}
}

static void job_print(const struct job *j)
{
	char a[MC_FMT_LEN], b[MC_FMT_LEN];

	printf("job %u: %s on %s (%s)\n", j->id,
	       mc_bench_workload_name(j->workload), j->target, j->workdir);
	printf("  state    %s", mc_bench_state_name(j->state));
	if (!mc_bench_state_final(j->state))
		printf(", phase %s, %llu ops, %llu ops/s",
		       mc_bench_op_name(j->phase),
		       (unsigned long long)j->phase_ops,
		       (unsigned long long)j->rate);
	printf(", %s elapsed\n", mc_fmt_ns(a, sizeof(a), j->elapsed_ns));
	if (j->err)
		printf("  error    %s in %s\n", strerror((int)j->err),
		       mc_bench_op_name(j->err_op));
	printf("  threads  %u, files %u", j->threads, j->files);
	if (j->workload == METACACHE_BENCH_WL_MDTEST)
		printf(", dirs %u", j->dirs);
	if (j->workload >= METACACHE_BENCH_WL_RANDRW)
		printf(", file size %s, io size %s",
		       mc_fmt_size(a, sizeof(a), j->file_size),
		       mc_fmt_size(b, sizeof(b), j->io_size));
	if (j->workload == METACACHE_BENCH_WL_RANDRW)
		printf(", %u%% reads", j->read_pct);
	if (j->workload == METACACHE_BENCH_WL_MIXED)
		printf(", mix stat=%u,open=%u,create=%u,unlink=%u", j->mix[0],
		       j->mix[1], j->mix[2], j->mix[3]);
	if (j->ops)
		printf(", %llu ops", (unsigned long long)j->ops);
	if (j->duration_ms)
		printf(", %ums", j->duration_ms);
	printf("%s%s%s\n", j->flags & METACACHE_BENCH_F_WARMUP ? ", warm-up" : "",
	       j->flags & METACACHE_BENCH_F_STONEWALL ? ", stonewall" : "",
	       j->flags & METACACHE_BENCH_F_KEEP ? ", keep" : "");
}

static void res_json(struct mc_json *js, const struct mc_bench_res *r)
{
	mcj_obj(js, NULL);
	mcj_str(js, "op", mc_bench_op_name(r->op));
	mcj_u64(js, "ops", r->ops);
	mcj_u64(js, "elapsed_ns", r->elapsed_ns);
	mcj_dbl(js, "ops_per_s", mc_bench_ops_per_s(r));
	mcj_u64(js, "bytes", r->bytes);
	mcj_dbl(js, "mib_per_s", mc_bench_mib_per_s(r));
	if (r->op == METACACHE_BENCH_OP_READDIR)
		mcj_u64(js, "entries", r->entries);
	mcj_obj(js, "lat_ns");
	mcj_u64(js, "min", r->min_ns);
	mcj_dbl(js, "mean", mc_bench_mean_ns(r));
	mcj_u64(js, "p50", r->p50_ns);
	mcj_u64(js, "p90", r->p90_ns);
	mcj_u64(js, "p99", r->p99_ns);
	mcj_u64(js, "p99_9", r->p999_ns);
	mcj_u64(js, "max", r->max_ns);
	mcj_obj_end(js);
	mcj_u64(js, "seconds", r->sec_n);
	mcj_dbl(js, "ops_per_s_stddev",
		mc_bench_stddev(r->sec_n, r->sec_sum, r->sec_sumsq));
	mcj_obj_end(js);
}

static void res_print(const struct results *res, int data)
{
	static const char *const head[] = {
		"op", "ops", "ops/s", "MiB/s", "min", "mean", "p50", "p90",
		"p99", "p99.9", "max", "sd ops/s",
	};
	struct mc_table t;
	int i;

	mc_table_init(&t, 12, head, "lrrrrrrrrrrr");
	for (i = 0; i < res->n; i++) {
		const struct mc_bench_res *r = &res->r[i];
		char c[12][MC_FMT_LEN];
		int h = r->ops > 0;

		snprintf(c[1], MC_FMT_LEN, "%llu", (unsigned long long)r->ops);
		mc_table_row(&t, mc_bench_op_name(r->op), c[1],
			     fmt_dbl(c[2], MC_FMT_LEN, mc_bench_ops_per_s(r), "%.1f"),
			     data ? fmt_dbl(c[3], MC_FMT_LEN, mc_bench_mib_per_s(r),
					    "%.2f") : "-",
			     fmt_ns(c[4], MC_FMT_LEN, r->min_ns, h),
			     fmt_ns(c[5], MC_FMT_LEN,
				    h ? (uint64_t)mc_bench_mean_ns(r) : 0, h),
			     fmt_ns(c[6], MC_FMT_LEN, r->p50_ns, h),
			     fmt_ns(c[7], MC_FMT_LEN, r->p90_ns, h),
			     fmt_ns(c[8], MC_FMT_LEN, r->p99_ns, h),
			     fmt_ns(c[9], MC_FMT_LEN, r->p999_ns, h),
			     fmt_ns(c[10], MC_FMT_LEN, r->max_ns, h),
			     fmt_dbl(c[11], MC_FMT_LEN,
				     mc_bench_stddev(r->sec_n, r->sec_sum,
						     r->sec_sumsq), "%.1f"));
	}
	mc_table_print(&t, stdout, "  ");
	mc_table_free(&t);
}

/* The report of a job: status and results. */
static int report(const struct job *j, const struct results *res)
{
	struct mc_json js;
	int i;

	if (mc_json) {
		mcj_init(&js, stdout);
		mcj_obj(&js, NULL);
		mcj_obj(&js, "job");
		job_json(&js, j);
		mcj_obj_end(&js);
		mcj_arr(&js, "results");
		for (i = 0; i < res->n; i++)
			res_json(&js, &res->r[i]);
		mcj_arr_end(&js);
		mcj_obj_end(&js);
		return mcj_end(&js) ? MC_EXIT_FAIL : MC_EXIT_OK;
	}
	job_print(j);
	if (res->n)
		res_print(res, j->workload >= METACACHE_BENCH_WL_RANDRW);
	else
		printf("  no results\n");
	return MC_EXIT_OK;
}

static void progress(const struct job *j, int tty, int last)
{
	char a[MC_FMT_LEN];

	if (tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "job %u %s %s: %llu ops, %llu ops/s, %s",
		j->id, mc_bench_state_name(j->state),
		mc_bench_op_name(j->phase), (unsigned long long)j->phase_ops,
		(unsigned long long)j->rate,
		mc_fmt_ns(a, sizeof(a), j->elapsed_ns));
	if (!tty || last)
		fputc('\n', stderr);
	fflush(stderr);
}

/*
 * Run a job to its end: progress every interval on stderr (in place on a
 * terminal), stopped on SIGINT.  *j is its final status, res its results.
 */
static int run_job(struct mc_nl *nl, const char *target,
		   const struct params *p, unsigned int interval_ms, int quiet,
		   struct job *j, struct results *res)
{
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	int tty = isatty(2), err, stopping = 0;
	unsigned int waited = 0;

	err = start_job(nl, target, p, j);
	if (err)
		return err;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (;;) {
		uint32_t id = j->id;

		err = get_job(nl, id, j);
		if (err)
			break;
		if (mc_bench_state_final(j->state))
			break;
		if (interrupted && !stopping) {
			stopping = 1;
			err = stop_job(nl, id);
			if (err)
				break;
		}
		if (!quiet && waited >= interval_ms) {
			progress(j, tty, 0);
			waited = 0;
		}
		sleep_ms(100);
		waited += 100;
	}
	sigaction(SIGINT, &old, NULL);
	if (err)
		return err;
	if (!quiet)	/* the last state: in place, or one more line */
		progress(j, tty, 1);
	return get_results(nl, j->id, res);
}

/* compare */

static const struct mc_bench_res *find_res(const struct results *r, uint32_t op)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->r[i].op == op)
			return &r->r[i];
	return NULL;
}

static int compare_report(const char *pa, const struct job *ja,
			  const struct results *ra, const char *pb,
			  const struct job *jb, const struct results *rb)
{
	static const char *const head[] = {
		"op", "ops/s A", "ops/s B", "IOPS +%", "mean A", "mean B",
		"lat -%", "p99 A", "p99 B", "p99 -%",
	};
	struct mc_table t;
	struct mc_json js;
	int i;

	if (mc_json) {
		mcj_init(&js, stdout);
		mcj_obj(&js, NULL);
		mcj_str(&js, "a", pa);
		mcj_str(&js, "b", pb);
		mcj_str(&js, "state_a", mc_bench_state_name(ja->state));
		mcj_str(&js, "state_b", mc_bench_state_name(jb->state));
		if (ja->err)
			mcj_str(&js, "error_a", strerror((int)ja->err));
		if (jb->err)
			mcj_str(&js, "error_b", strerror((int)jb->err));
		mcj_arr(&js, "ops");
	} else {
		const struct job *jj[2] = { ja, jb };
		const char *pp[2] = { pa, pb };

		for (i = 0; i < 2; i++) {
			printf("%c: %s (job %u, %s", 'A' + i, pp[i], jj[i]->id,
			       mc_bench_state_name(jj[i]->state));
			if (jj[i]->err)
				printf(": %s in %s", strerror((int)jj[i]->err),
				       mc_bench_op_name(jj[i]->err_op));
			printf(")\n");
		}
		mc_table_init(&t, 10, head, "lrrrrrrrrr");
	}
	for (i = 0; i < ra->n; i++) {
		const struct mc_bench_res *a = &ra->r[i];
		const struct mc_bench_res *b = find_res(rb, a->op);
		double ia, ib, ma, mb;
		char c[10][MC_FMT_LEN];

		if (!b)
			continue;
		ia = mc_bench_ops_per_s(a);
		ib = mc_bench_ops_per_s(b);
		ma = mc_bench_mean_ns(a);
		mb = mc_bench_mean_ns(b);
		if (mc_json) {
			mcj_obj(&js, NULL);
			mcj_str(&js, "op", mc_bench_op_name(a->op));
			mcj_dbl(&js, "ops_per_s_a", ia);
			mcj_dbl(&js, "ops_per_s_b", ib);
			mcj_dbl(&js, "iops_increase_pct", mc_bench_gain_pct(ia, ib));
			mcj_dbl(&js, "mean_ns_a", ma);
			mcj_dbl(&js, "mean_ns_b", mb);
			mcj_dbl(&js, "latency_reduction_pct",
				-mc_bench_gain_pct(ma, mb));
			mcj_u64(&js, "p99_ns_a", a->p99_ns);
			mcj_u64(&js, "p99_ns_b", b->p99_ns);
			mcj_dbl(&js, "p99_reduction_pct",
				-mc_bench_gain_pct((double)a->p99_ns,
						   (double)b->p99_ns));
			mcj_obj_end(&js);
			continue;
		}
		mc_table_row(&t, mc_bench_op_name(a->op),
			     fmt_dbl(c[1], MC_FMT_LEN, ia, "%.1f"),
			     fmt_dbl(c[2], MC_FMT_LEN, ib, "%.1f"),
			     fmt_dbl(c[3], MC_FMT_LEN, mc_bench_gain_pct(ia, ib),
				     "%+.1f"),
			     fmt_ns(c[4], MC_FMT_LEN, (uint64_t)ma, a->ops > 0),
			     fmt_ns(c[5], MC_FMT_LEN, (uint64_t)mb, b->ops > 0),
			     fmt_dbl(c[6], MC_FMT_LEN, -mc_bench_gain_pct(ma, mb),
				     "%+.1f"),
			     fmt_ns(c[7], MC_FMT_LEN, a->p99_ns, a->ops > 0),
			     fmt_ns(c[8], MC_FMT_LEN, b->p99_ns, b->ops > 0),
			     fmt_dbl(c[9], MC_FMT_LEN,
				     -mc_bench_gain_pct((double)a->p99_ns,
							(double)b->p99_ns),
				     "%+.1f"));
	}
	if (mc_json) {
		mcj_arr_end(&js);
		mcj_obj_end(&js);
		return mcj_end(&js) ? MC_EXIT_FAIL : MC_EXIT_OK;
	}
	mc_table_print(&t, stdout, "  ");
	mc_table_free(&t);
	printf("IOPS +%%: IOPS increase of B over A; lat -%%: latency reduction of B.\n");
	return MC_EXIT_OK;
}

/* The command */

static int parse_job_id(const char *s, uint32_t *id)
{
	if (mc_parse_u32_id(s, id) || !*id) {
		mc_err("bench: '%s' is not a job id", s);
		return -1;
	}
	return 0;
}

static int cmd_list(struct mc_nl *nl)
{
	static const char *const head[] = {
		"id", "state", "workload", "threads", "elapsed", "target",
	};
	struct jobs js = { 0 };
	struct mc_table t;
	struct mc_json j;
	struct nl_msg *msg;
	int i, err;

	msg = mc_nl_msg(nl, METACACHE_CMD_BENCH_GET, NLM_F_DUMP);
	if (!msg)
		return MC_EXIT_FAIL;
	err = mc_nl_call(nl, msg, on_jobs, &js);
	if (err) {
		free(js.v);
		return MC_EXIT_FAIL;
	}
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_arr(&j, NULL);
		for (i = 0; i < js.n; i++) {
			mcj_obj(&j, NULL);
			job_json(&j, &js.v[i]);
			mcj_obj_end(&j);
		}
		mcj_arr_end(&j);
		err = mcj_end(&j) ? MC_EXIT_FAIL : MC_EXIT_OK;
	} else {
		mc_table_init(&t, 6, head, "llllrl");
		for (i = 0; i < js.n; i++) {
			char id[16], th[16], el[MC_FMT_LEN];

			snprintf(id, sizeof(id), "%u", js.v[i].id);
			snprintf(th, sizeof(th), "%u", js.v[i].threads);
			mc_table_row(&t, id, mc_bench_state_name(js.v[i].state),
				     mc_bench_workload_name(js.v[i].workload), th,
				     mc_fmt_ns(el, sizeof(el), js.v[i].elapsed_ns),
				     js.v[i].target);
		}
		mc_table_print(&t, stdout, "");
		mc_table_free(&t);
	}
	free(js.v);
	return err;
}

int cmd_bench(int argc, char **argv)
{
	struct mc_opt o[O_NR];
	struct params p = { 0 };
	struct results *res = NULL, *res2 = NULL;
	struct job j = { 0 }, j2 = { 0 };
	unsigned int interval_ms = 1000;
	const char *sub, *why;
	struct mc_nl nl;
	char *pos[5];
	int npos, err, need, wl_at;
	uint32_t id = 0;

	init_opts(o);
	err = mc_parse_opts("bench", argc, argv, o, O_NR, pos, 5, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	sub = npos ? pos[0] : "";
	if (!strcmp(sub, "start") || !strcmp(sub, "run"))
		need = 3;
	else if (!strcmp(sub, "compare"))
		need = 4;
	else if (!strcmp(sub, "status") || !strcmp(sub, "stop") ||
		 !strcmp(sub, "results"))
		need = 2;
	else if (!strcmp(sub, "list"))
		need = 1;
	else {
		if (*sub)
			mc_err("bench: unknown subcommand '%s'", sub);
		return mc_usage("bench");
	}
	if (npos != need) {
		mc_err("bench %s: %s arguments", sub,
		       npos < need ? "missing" : "too many");
		return mc_usage("bench");
	}
	if (need == 2 && parse_job_id(pos[1], &id))
		return mc_usage("bench");
	if (need >= 3) {
		wl_at = need - 1;
		if (mc_bench_parse_workload(pos[wl_at], &p.workload)) {
			mc_err("bench: unknown workload '%s' (mdtest, mixed, randrw, seqread, seqwrite)",
			       pos[wl_at]);
			return mc_usage("bench");
		}
		if (parse_params(&p, o))
			return mc_usage("bench");
	}
	if (o[O_INTERVAL].seen) {
		uint32_t ms;

		if (mc_bench_parse_duration_ms(o[O_INTERVAL].arg, &ms, &why)) {
			mc_err("bench: --interval %s: %s", o[O_INTERVAL].arg, why);
			return mc_usage("bench");
		}
		interval_ms = ms;
	}
	err = mc_nl_open(&nl);
	if (err)
		return err;
	res = calloc(1, sizeof(*res));
	res2 = calloc(1, sizeof(*res2));
	if (!res || !res2) {
		err = MC_EXIT_FAIL;
		goto out;
	}
	switch (!strcmp(sub, "start") ? 'a' : !strcmp(sub, "status") ? 't' :
		!strcmp(sub, "stop") ? 'o' : sub[0]) {
	case 'a':	/* start */
		err = mc_nl_status(start_job(&nl, pos[1], &p, &j));
		if (err)
			break;
		if (mc_json) {
			struct mc_json js;

			mcj_init(&js, stdout);
			mcj_obj(&js, NULL);
			mcj_u64(&js, "id", j.id);
			mcj_str(&js, "workdir", j.workdir);
			mcj_obj_end(&js);
			err = mcj_end(&js) ? MC_EXIT_FAIL : MC_EXIT_OK;
		} else {
			printf("%u\n", j.id);
		}
		break;
	case 'r':	/* run, results */
		if (sub[1] == 'u') {
			err = mc_nl_status(run_job(&nl, pos[1], &p, interval_ms,
						   o[O_QUIET].seen, &j, res));
		} else {
			err = mc_nl_status(get_job(&nl, id, &j));
			if (!err)
				err = mc_nl_status(get_results(&nl, id, res));
		}
		if (!err)
			err = report(&j, res);
		if (!err && j.state != METACACHE_BENCH_ST_DONE)
			err = MC_EXIT_FAIL;
		break;
	case 'c':	/* compare */
		err = mc_nl_status(run_job(&nl, pos[1], &p, interval_ms,
					   o[O_QUIET].seen, &j, res));
		if (!err && j.state == METACACHE_BENCH_ST_DONE && !interrupted)
			err = mc_nl_status(run_job(&nl, pos[2], &p, interval_ms,
						   o[O_QUIET].seen, &j2, res2));
		if (!err)
			err = compare_report(pos[1], &j, res, pos[2], &j2, res2);
		if (!err && (j.state != METACACHE_BENCH_ST_DONE ||
			     j2.state != METACACHE_BENCH_ST_DONE))
			err = MC_EXIT_FAIL;
		break;
	case 'o':	/* stop */
		err = mc_nl_status(stop_job(&nl, id));
		if (!err && !o[O_NOWAIT].seen)
			err = mc_nl_status(wait_job(&nl, id, &j));
		else if (!err)
			err = mc_nl_status(get_job(&nl, id, &j));
		if (err)
			break;
		if (mc_json) {
			struct mc_json js;

			mcj_init(&js, stdout);
			mcj_obj(&js, NULL);
			job_json(&js, &j);
			mcj_obj_end(&js);
			err = mcj_end(&js) ? MC_EXIT_FAIL : MC_EXIT_OK;
		} else {
			printf("job %u: %s\n", j.id, mc_bench_state_name(j.state));
		}
		break;
	case 't':	/* status */
		err = mc_nl_status(get_job(&nl, id, &j));
		if (err)
			break;
		if (mc_json) {
			struct mc_json js;

			mcj_init(&js, stdout);
			mcj_obj(&js, NULL);
			job_json(&js, &j);
			mcj_obj_end(&js);
			err = mcj_end(&js) ? MC_EXIT_FAIL : MC_EXIT_OK;
		} else {
			job_print(&j);
		}
		break;
	case 'l':	/* list */
		err = cmd_list(&nl);
		break;
	}
out:
	free(res);
	free(res2);
	mc_nl_close(&nl);
	return err;
}
