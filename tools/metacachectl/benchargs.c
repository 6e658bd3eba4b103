// SPDX-License-Identifier: GPL-2.0
/*
 * benchargs.c - what "bench" needs without libnl: names of workloads,
 * operations and states, parsing of its arguments, figures derived from
 * a result (ops/s, MiB/s, mean, standard deviation of ops/s).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mcctl.h"

static const char *const workloads[] = {
	[METACACHE_BENCH_WL_MDTEST] = "mdtest",
	[METACACHE_BENCH_WL_MIXED] = "mixed",
	[METACACHE_BENCH_WL_RANDRW] = "randrw",
	[METACACHE_BENCH_WL_SEQREAD] = "seqread",
	[METACACHE_BENCH_WL_SEQWRITE] = "seqwrite",
};

static const char *const ops[] = {
	[METACACHE_BENCH_OP_TREE_CREATE] = "tree-create",
	[METACACHE_BENCH_OP_CREATE] = "create",
	[METACACHE_BENCH_OP_STAT] = "stat",
	[METACACHE_BENCH_OP_OPEN] = "open",
	[METACACHE_BENCH_OP_STAT_MISSING] = "stat-missing",
	[METACACHE_BENCH_OP_READDIR] = "readdir",
	[METACACHE_BENCH_OP_RENAME] = "rename",
	[METACACHE_BENCH_OP_UNLINK] = "unlink",
	[METACACHE_BENCH_OP_TREE_REMOVE] = "tree-remove",
	[METACACHE_BENCH_OP_READ] = "read",
	[METACACHE_BENCH_OP_WRITE] = "write",
	[METACACHE_BENCH_OP_ALL] = "all",
};

static const char *const states[] = {
	[METACACHE_BENCH_ST_SETUP] = "setup",
	[METACACHE_BENCH_ST_WARMUP] = "warmup",
	[METACACHE_BENCH_ST_RUNNING] = "running",
	[METACACHE_BENCH_ST_CLEANUP] = "cleanup",
	[METACACHE_BENCH_ST_DONE] = "done",
	[METACACHE_BENCH_ST_STOPPED] = "stopped",
	[METACACHE_BENCH_ST_UNMOUNTED] = "unmounted",
	[METACACHE_BENCH_ST_FAILED] = "failed",
};

_Static_assert(MC_ARRAY_SIZE(workloads) == __METACACHE_BENCH_WL_MAX,
	       "a workload without a name");
_Static_assert(MC_ARRAY_SIZE(ops) == __METACACHE_BENCH_OP_MAX,
	       "an operation without a name");
_Static_assert(MC_ARRAY_SIZE(states) == __METACACHE_BENCH_ST_MAX,
	       "a state without a name");

static const char *name_of(const char *const *names, size_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *mc_bench_workload_name(uint32_t wl)
{
	return name_of(workloads, MC_ARRAY_SIZE(workloads), wl);
}

const char *mc_bench_op_name(uint32_t op)
{
	return name_of(ops, MC_ARRAY_SIZE(ops), op);
}

const char *mc_bench_state_name(uint32_t st)
{
	return name_of(states, MC_ARRAY_SIZE(states), st);
}

int mc_bench_state_final(uint32_t st)
{
	return st >= METACACHE_BENCH_ST_DONE;
}

int mc_bench_parse_workload(const char *s, uint32_t *wl)
{
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(workloads); i++) {
		if (!strcmp(s, workloads[i])) {
			*wl = (uint32_t)i;
			return 0;
		}
	}
	return -1;
}

int mc_bench_parse_u32(const char *s, uint32_t *v, const char **why)
{
	uint64_t n;

	if (mc_parse_count(s, &n, why))
		return -1;
	if (n > UINT32_MAX) {
		*why = "number too large";
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

int mc_bench_parse_pct(const char *s, uint32_t *v, const char **why)
{
	uint64_t n;

	if (mc_parse_count(s, &n, why))
		return -1;
	if (n > 100) {
		*why = "a percentage is 0 to 100";
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

/*
 * "stat=70,open=20,create=5,unlink=5": the keys given, in any order, each
 * once; the others are 0; the sum must be 100.
 */
int mc_bench_parse_mix(const char *s, uint32_t mix[4], const char **why)
{
	static const char *const keys[4] = { "stat", "open", "create", "unlink" };
	char buf[256], *tok, *save = NULL;
	unsigned int seen = 0, sum = 0;
	size_t i;

	if (strlen(s) >= sizeof(buf) || !*s) {
		*why = *s ? "too long" : "empty";
		return -1;
	}
	strcpy(buf, s);
	memset(mix, 0, 4 * sizeof(*mix));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			*why = "expected KEY=PERCENT (stat, open, create, unlink)";
			return -1;
		}
		*eq = 0;
		for (i = 0; i < 4 && strcmp(tok, keys[i]); i++)
			;
		if (i == 4) {
			*why = "unknown key (stat, open, create, unlink)";
			return -1;
		}
		if (seen & (1U << i)) {
			*why = "a key given twice";
			return -1;
		}
		seen |= 1U << i;
		if (mc_bench_parse_pct(eq + 1, &mix[i], why))
			return -1;
		sum += mix[i];
	}
	if (!seen) {
		*why = "empty";
		return -1;
	}
	if (sum != 100) {
		*why = "the percentages must add up to 100";
		return -1;
	}
	return 0;
}

int mc_bench_parse_duration_ms(const char *s, uint32_t *ms, const char **why)
{
	uint64_t ns;

	if (mc_parse_duration_ns(s, &ns, why))
		return -1;
	if (ns < 1000000ULL) {
		*why = "at least 1ms";
		return -1;
	}
	if (ns / 1000000ULL > METACACHE_BENCH_DURATION_MAX) {
		*why = "at most 24h";
		return -1;
	}
	*ms = (uint32_t)(ns / 1000000ULL);
	return 0;
}

double mc_bench_ops_per_s(const struct mc_bench_res *r)
{
	return r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns
			     : NAN;
}

double mc_bench_mib_per_s(const struct mc_bench_res *r)
{
	return r->elapsed_ns ? (double)r->bytes * 1e9 / (double)r->elapsed_ns /
			       1048576.0 : NAN;
}

double mc_bench_mean_ns(const struct mc_bench_res *r)
{
	return r->ops ? (double)r->sum_ns / (double)r->ops : NAN;
}

/* Sample standard deviation of the per-second counts; NaN below 2. */
double mc_bench_stddev(uint64_t n, uint64_t sum, uint64_t sumsq)
{
	double dn = (double)n, var;

	if (n < 2)
		return NAN;
	var = ((double)sumsq - (double)sum * (double)sum / dn) / (dn - 1);
	return var > 0 ? sqrt(var) : 0;
}

/* Relative change of b against a, in percent ((b - a) / a * 100). */
double mc_bench_gain_pct(double a, double b)
{
	if (!(a > 0) || isnan(b))
		return NAN;
	return (b - a) / a * 100.0;
}
