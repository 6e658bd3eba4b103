// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - "stats MOUNT [--reset] [--watch SECONDS] [--all]": cache
 * counters, lower calls made and avoided, latency percentiles.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nl.h"

static const struct { double q; const char *json; const char *head; } pct[] = {
	{ 0.50, "p50_ns", "p50" },
	{ 0.90, "p90_ns", "p90" },
	{ 0.99, "p99_ns", "p99" },
	{ 0.999, "p99_9_ns", "p99.9" },
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct fetch {
	struct mc_stats *s;
	int got;
};

static int on_stats(const struct mc_reply *r, void *arg)
{
	struct fetch *f = arg;
	uint32_t id;

	if (!r->tb[METACACHE_A_MOUNT_ID] ||
	    nla_len(r->tb[METACACHE_A_MOUNT_ID]) < (int)sizeof(id))
		return 0;
	id = nla_get_u32(r->tb[METACACHE_A_MOUNT_ID]);
	if (f->got && id != f->s->id)
		return 0;	/* another mount: the filter was not applied */
	if (mc_stats_merge(r, f->s))
		return 0;
	f->got = 1;
	return 0;
}

/*
 * The module times only a sample of its cache hits (served_sample, a
 * module parameter, not part of the netlink protocol): 0 if unreadable.
 */
static uint32_t served_sample(void)
{
	FILE *f = fopen("/sys/module/metacache/parameters/served_sample", "r");
	unsigned int v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int fetch(struct mc_nl *nl, const char *mount, struct mc_stats *s)
{
	struct fetch f = { .s = s };
	struct nl_msg *msg;
	int err;

	memset(s, 0, sizeof(*s));
	msg = mc_nl_msg(nl, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	if (!msg)
		return MC_EXIT_FAIL;
	err = mc_put_mount(msg, mount);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	if (mc_nl_call(nl, msg, on_stats, &f))
		return MC_EXIT_FAIL;
	if (!f.got) {
		mc_err("the module sent no statistics for mount %s", mount);
		return MC_EXIT_FAIL;
	}
	s->served_sample = served_sample();
	return 0;
}

static int reset(struct mc_nl *nl, const char *mount)
{
	struct nl_msg *msg = mc_nl_msg(nl, METACACHE_CMD_STATS_RESET, 0);
	int err;

	if (!msg)
		return MC_EXIT_FAIL;
	err = mc_put_mount(msg, mount);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return mc_nl_status(mc_nl_call(nl, msg, NULL, NULL));
}

static const char *ratio(char *buf, size_t len, uint64_t part, uint64_t rest)
{
	if (!part && !rest)
		return "-";
	snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)(part + rest));
	return buf;
}

/* Events per second between two snapshots (or since the reset). */
static double rate(uint64_t now, uint64_t before, uint64_t age_now,
		   uint64_t age_before, int have_before)
{
	if (have_before && age_now > age_before && now >= before)
		return (double)(now - before) * 1e9 / (double)(age_now - age_before);
	return age_now ? (double)now * 1e9 / (double)age_now : 0;
}

static const char *fmt_rate(char *buf, size_t len, double r)
{
	if (r < 10)
		snprintf(buf, len, "%.1f", r);
	else
		mc_fmt_count(buf, len, (uint64_t)(r + 0.5));
	return buf;
}

static int op_shown(const struct mc_op_stats *o, unsigned int id, int all)
{
	if (all && id <= METACACHE_OP_MAX)
		return 1;
	return o->present && (o->calls || o->avoided || mc_hist_total(&o->cache) ||
			      mc_hist_total(&o->lower));
}

void mc_stats_print(FILE *f, const struct mc_stats *s,
		    const struct mc_stats *prev, int all)
{
	static const char *const chead[] = {
		"cache", "hits", "misses", "hit%", "expired", "renewed",
		"evicted", "entries", "memory",
	};
	static const char *const ohead[] = {
		"op", "calls", "avoided", "avoided%", "calls/s", "avoided/s",
	};
	static const char *const lhead[] = {
		"latency", "from", "count", "mean", "p50", "p90", "p99",
		"p99.9", "max",
	};
	struct mc_table t;
	char b[12][MC_FMT_LEN];
	unsigned int i;
	int any;

	fprintf(f, "mount %u %s, counting for %s\n", s->id,
		s->path[0] ? s->path : "(mount point unknown)",
	       mc_fmt_age(b[0], sizeof(b[0]), s->age_ns));

	mc_table_init(&t, 9, chead, "lrrrrrrrr");
	for (i = 0; i <= METACACHE_CACHE_MAX; i++) {
		const struct mc_cache_stats *c = &s->cache[i];

		if (!c->present)
			continue;
		mc_table_row(&t, mc_cache_name(i),
			     mc_fmt_count(b[0], sizeof(b[0]), c->hits),
			     mc_fmt_count(b[1], sizeof(b[1]), c->misses),
			     ratio(b[2], sizeof(b[2]), c->hits, c->misses),
			     mc_fmt_count(b[3], sizeof(b[3]), c->expired),
			     mc_fmt_count(b[4], sizeof(b[4]), c->renewed),
			     mc_fmt_count(b[5], sizeof(b[5]), c->evicted),
			     mc_fmt_count(b[6], sizeof(b[6]), c->entries),
			     mc_fmt_size(b[7], sizeof(b[7]), c->mem_bytes));
	}
	fputc('\n', f);
	mc_table_print(&t, f, NULL);
	mc_table_free(&t);

	mc_table_init(&t, 6, ohead, "lrrrrr");
	any = 0;
	for (i = 0; i < MC_MAX_OPS; i++) {
		const struct mc_op_stats *o = &s->op[i];
		const struct mc_op_stats *p = prev ? &prev->op[i] : NULL;
		int hp = p && p->present;

		if (!op_shown(o, i, all))
			continue;
		any = 1;
		mc_table_row(&t, mc_op_name(i, b[0], sizeof(b[0])),
			     mc_fmt_count(b[1], sizeof(b[1]), o->calls),
			     mc_fmt_count(b[2], sizeof(b[2]), o->avoided),
			     ratio(b[3], sizeof(b[3]), o->avoided, o->calls),
			     fmt_rate(b[4], sizeof(b[4]),
				      rate(o->calls, hp ? p->calls : 0, s->age_ns,
					   prev ? prev->age_ns : 0, hp)),
			     fmt_rate(b[5], sizeof(b[5]),
				      rate(o->avoided, hp ? p->avoided : 0,
					   s->age_ns, prev ? prev->age_ns : 0, hp)));
	}
	fputc('\n', f);
	if (any)
		mc_table_print(&t, f, NULL);
	else
		fprintf(f, "no operations counted yet\n");
	mc_table_free(&t);

	mc_table_init(&t, 9, lhead, "llrrrrrrr");
	any = 0;
	for (i = 0; i < MC_MAX_OPS; i++) {
		const struct mc_op_stats *o = &s->op[i];
		int w;

		if (!op_shown(o, i, 0))
			continue;
		for (w = 0; w < 2; w++) {
			const struct mc_hist *h = w ? &o->lower : &o->cache;
			uint64_t n = mc_hist_total(h), v;
			size_t k;

			if (!n)
				continue;
			any = 1;
			for (k = 0; k < MC_ARRAY_SIZE(pct); k++) {
				if (mc_hist_percentile(h, pct[k].q, &v))
					snprintf(b[4 + k], sizeof(b[4 + k]), "-");
				else
					mc_fmt_ns(b[4 + k], sizeof(b[4 + k]), v);
			}
			mc_table_row(&t, mc_op_name(i, b[0], sizeof(b[0])),
				     w ? "lower" : "cache",
				     mc_fmt_count(b[2], sizeof(b[2]), n),
				     h->count ? mc_fmt_ns(b[3], sizeof(b[3]),
							   h->sum_ns / h->count) : "-",
				     b[4], b[5], b[6], b[7],
				     h->max_ns ? mc_fmt_ns(b[8], sizeof(b[8]), h->max_ns)
					       : "-");
		}
	}
	if (any) {
		fputc('\n', f);
		mc_table_print(&t, f, NULL);
		if (s->served_sample > 1)
			fprintf(f, "(cache latencies: 1 hit in %u timed, module parameter served_sample)\n",
				s->served_sample);
	}
	mc_table_free(&t);
}

static void hist_json(struct mc_json *j, const char *key, const struct mc_hist *h)
{
	uint64_t v, n = mc_hist_total(h);
	unsigned int i;
	size_t k;

	mcj_obj(j, key);
	mcj_u64(j, "count", h->count ? h->count : n);
	mcj_u64(j, "sum_ns", h->sum_ns);
	mcj_u64(j, "max_ns", h->max_ns);
	if (h->count)
		mcj_u64(j, "mean_ns", h->sum_ns / h->count);
	else
		mcj_null(j, "mean_ns");
	for (k = 0; k < MC_ARRAY_SIZE(pct); k++) {
		if (mc_hist_percentile(h, pct[k].q, &v))
			mcj_null(j, pct[k].json);
		else
			mcj_u64(j, pct[k].json, v);
	}
	mcj_arr(j, "buckets");
	for (i = 0; i < METACACHE_HIST_NBUCKETS; i++) {
		if (!h->b[i])
			continue;
		mcj_obj(j, NULL);
		mcj_u64(j, "index", i);
		mcj_u64(j, "lo_ns", mc_hist_lower(i));
		if (i + 1 < METACACHE_HIST_NBUCKETS)
			mcj_u64(j, "hi_ns", mc_hist_upper(i));
		else
			mcj_null(j, "hi_ns");
		mcj_u64(j, "count", h->b[i]);
		mcj_obj_end(j);
	}
	mcj_arr_end(j);
	mcj_obj_end(j);
}

int mc_stats_json(FILE *f, const struct mc_stats *s)
{
	struct mc_json j;
	unsigned int i;
	char name[MC_FMT_LEN];

	mcj_init(&j, f);
	mcj_obj(&j, NULL);
	mcj_u64(&j, "mount_id", s->id);
	mcj_str(&j, "mount_point", s->path[0] ? s->path : NULL);
	mcj_u64(&j, "age_ns", s->age_ns);
	if (s->served_sample)
		mcj_u64(&j, "served_sample", s->served_sample);
	else
		mcj_null(&j, "served_sample");
	mcj_obj(&j, "caches");
	for (i = 0; i <= METACACHE_CACHE_MAX; i++) {
		const struct mc_cache_stats *c = &s->cache[i];

		if (!c->present)
			continue;
		mcj_obj(&j, mc_cache_name(i));
		mcj_u64(&j, "hits", c->hits);
		mcj_u64(&j, "misses", c->misses);
		if (c->hits + c->misses)
			mcj_dbl(&j, "hit_ratio", (double)c->hits /
				(double)(c->hits + c->misses));
		else
			mcj_null(&j, "hit_ratio");
		mcj_u64(&j, "expired", c->expired);
		mcj_u64(&j, "renewed", c->renewed);
		mcj_u64(&j, "evicted", c->evicted);
		mcj_u64(&j, "entries", c->entries);
		mcj_u64(&j, "memory_bytes", c->mem_bytes);
		mcj_obj_end(&j);
	}
	mcj_obj_end(&j);
	mcj_obj(&j, "ops");
	for (i = 0; i < MC_MAX_OPS; i++) {
		const struct mc_op_stats *o = &s->op[i];

		if (i > METACACHE_OP_MAX && !o->present)
			continue;
		mcj_obj(&j, mc_op_name(i, name, sizeof(name)));
		mcj_u64(&j, "calls", o->calls);
		mcj_u64(&j, "avoided", o->avoided);
		if (o->calls + o->avoided)
			mcj_dbl(&j, "avoided_ratio", (double)o->avoided /
				(double)(o->calls + o->avoided));
		else
			mcj_null(&j, "avoided_ratio");
		hist_json(&j, "cache", &o->cache);
		hist_json(&j, "lower", &o->lower);
		mcj_obj_end(&j);
	}
	mcj_obj_end(&j);
	mcj_obj_end(&j);
	return mcj_end(&j) ? MC_EXIT_FAIL : 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	/* a signal ends the sleep early: stop is then set */
	nanosleep(&ts, NULL);
}

int cmd_stats(int argc, char **argv)
{
	struct mc_opt opts[] = {
		{ "reset", 0, 0, 0, NULL },
		{ "watch", 'w', 1, 0, NULL },
		{ "all", 'a', 0, 0, NULL },
	};
	struct mc_stats *s, *prev;
	uint64_t interval = 0;
	const char *why = "";
	int npos, err, tty, n;
	struct mc_nl nl;
	char *pos[1];

	err = mc_parse_opts("stats", argc, argv, opts, MC_ARRAY_SIZE(opts),
			    pos, 1, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	if (npos != 1) {
		mc_err("stats: needs a mount");
		return mc_usage("stats");
	}
	if (opts[1].seen) {
		if (mc_parse_duration_ns(opts[1].arg, &interval, &why)) {
			mc_err("stats: --watch '%s': %s", opts[1].arg, why);
			return mc_usage("stats");
		}
		if (interval < 100000000ULL) {
			mc_err("stats: --watch '%s': the shortest interval is 100ms",
			       opts[1].arg);
			return mc_usage("stats");
		}
	}
	s = calloc(1, sizeof(*s));
	prev = calloc(1, sizeof(*prev));
	if (!s || !prev) {
		free(s);
		free(prev);
		mc_err("out of memory");
		return MC_EXIT_FAIL;
	}
	err = mc_nl_open(&nl);
	if (err)
		goto out;

	if (interval) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;	/* no SA_RESTART: end the sleep */
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	tty = isatty(STDOUT_FILENO);
	for (n = 0; !stop; n++) {
		struct mc_stats *t;

		err = fetch(&nl, pos[0], s);
		if (err)
			break;
		if (mc_json) {
			err = mc_stats_json(stdout, s);
		} else {
			if (interval && tty) {
				fputs("\033[H\033[J", stdout);
			} else if (interval) {
				char when[32];
				time_t now = time(NULL);

				strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
					 localtime(&now));
				printf("%s--- %s ---\n", n ? "\n" : "", when);
			}
			mc_stats_print(stdout, s, n ? prev : NULL, opts[2].seen);
		}
		fflush(stdout);
		if (!err && opts[0].seen)
			err = reset(&nl, pos[0]);
		if (err || !interval)
			break;
		t = prev;
		prev = s;
		s = t;
		sleep_ns(interval);
	}
	mc_nl_close(&nl);
out:
	free(s);
	free(prev);
	return err;
}
