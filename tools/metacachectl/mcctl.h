/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcctl.h - what the parts of metacachectl share.
 *
 * Layout (like wireguard-tools and iw): main.c dispatches, one file per
 * subcommand (show.c set.c defaults.c policy.c stats.c flush.c version.c
 * bench.c), benchargs.c the parts of bench that need no libnl,
 * nl.c is the whole netlink transport, attrs.c turns attributes into the
 * structs below, keys.c is the keyword table of tunables, units.c parses
 * and prints durations, sizes and counts, hist.c computes percentiles,
 * json.c is the JSON emitter, opts.c the option parser, table.c aligns
 * human tables.  units.c, keys.c, hist.c, json.c, opts.c and table.c do
 * not use libnl, so test_units.c links them alone.
 */
#ifndef MCCTL_H
#define MCCTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/metacache.h>

#define METACACHECTL_VERSION "0.1.0"

/* Exit status of every command. */
#define MC_EXIT_OK	0	/* success */
#define MC_EXIT_FAIL	1	/* the operation failed */
#define MC_EXIT_USAGE	2	/* bad command line */

#define MC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MC_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* main.c */
extern int mc_json;		/* -j / --json given */
extern const char *mc_prog;	/* "metacachectl" */

struct mc_cmd {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
	const char *synopsis;	/* arguments, after the command name */
	const char *summary;	/* one line */
	const char *help;	/* paragraphs for help COMMAND, or NULL */
};

const struct mc_cmd *mc_find_cmd(const char *name);
/* What "help CMD" prints, on stdout. */
void mc_cmd_help(const char *name);
/* Print "usage: metacachectl CMD SYNOPSIS" to stderr; return MC_EXIT_USAGE. */
int mc_usage(const char *cmd);
/* "metacachectl: ..." on stderr. */
void mc_err(const char *fmt, ...) MC_PRINTF(1, 2);

/* opts.c: options anywhere among the arguments, "--" ends them. */
struct mc_opt {
	const char *lng;	/* "watch" for --watch */
	char shrt;		/* 'w' for -w, 0 for none */
	int has_arg;
	int seen;		/* out: times given */
	const char *arg;	/* out: the last argument */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command name).  -j/--json sets
 * mc_json and -h/--help prints the command's help, everywhere.  Positional
 * arguments are stored in pos[] (up to maxpos, in order) and counted in
 * *npos.  Returns 0, MC_EXIT_USAGE after printing the problem and the
 * synopsis, or -1 when help was printed (the caller returns MC_EXIT_OK).
 */
int mc_parse_opts(const char *cmd, int argc, char **argv, struct mc_opt *opts,
		  size_t nopts, char **pos, int maxpos, int *npos);

/* units.c.  Parsers return 0 or -1 with a reason in *why (static text). */
int mc_parse_duration_ns(const char *s, uint64_t *ns, const char **why);
int mc_parse_ttl(const char *s, uint32_t *sec, const char **why);
int mc_parse_size(const char *s, uint64_t *bytes, const char **why);
int mc_parse_count(const char *s, uint64_t *n, const char **why);
int mc_parse_switch(const char *s, int *on, const char **why);
int mc_parse_u32_id(const char *s, uint32_t *id);	/* digits only */
/*
 * A path relative to a mount root, normalized: "a//b/./c/" -> "/a/b/c",
 * "" or "." -> "/".  ".." is refused (-1, *why set).
 */
int mc_path_normalize(const char *in, char *out, size_t len, const char **why);

#define MC_FMT_LEN 32
/* Exact ttl: "0", "5s", "1m30s", "2h", "365d". */
const char *mc_fmt_ttl(char *buf, size_t len, uint64_t sec);
/* Latency, 3 significant digits: "812ns", "3.20us", "1.25ms", "2.50s". */
const char *mc_fmt_ns(char *buf, size_t len, uint64_t ns);
/* Bytes, binary units: "512B", "1.50K", "64.0M", "1.00G". */
const char *mc_fmt_size(char *buf, size_t len, uint64_t bytes);
/* Counts, decimal: "999", "1.23k", "45.6M", "7.89G". */
const char *mc_fmt_count(char *buf, size_t len, uint64_t n);
/* Whole duration for "since reset": "45s", "12m3s", "3h4m", "2d3h". */
const char *mc_fmt_age(char *buf, size_t len, uint64_t ns);

/* keys.c: the tunables, their keyword table, parsing and printing. */
enum mc_key_kind { MC_KEY_TTL, MC_KEY_LIMIT, MC_KEY_SWITCH };

struct mc_key {
	const char *name;
	int attr;		/* METACACHE_A_TUN_* */
	int cache;		/* MC_KEY_SWITCH: enum metacache_cache */
	enum mc_key_kind kind;
	/* duration (ttl), count (limit) or on|off (switch); *why on error */
	int (*parse)(const char *s, uint32_t *v, const char **why);
	uint32_t dflt;		/* module default (switches: 1 = on) */
	const char *help;
};

extern const struct mc_key mc_keys[];
extern const size_t mc_nkeys;

struct mc_tun {
	uint32_t present;	/* bit (1 << METACACHE_A_TUN_x) for each given */
	uint32_t val[METACACHE_A_TUN_MAX + 1];
	uint32_t dis_value;	/* METACACHE_A_TUN_DISABLED */
	uint32_t dis_selector;
};

const struct mc_key *mc_key_find(const char *name);
/* Parse VALUE for KEY into t.  Returns 0, or -1 with a message printed. */
int mc_key_set(struct mc_tun *t, const struct mc_key *k, const char *value);
/*
 * Parse "KEY VALUE..." pairs; "bypass" is accepted when bypass != NULL.
 * Returns 0, or MC_EXIT_USAGE after a message (an unknown key or a
 * missing value also prints the synopsis of cmd).
 */
int mc_tun_parse_args(struct mc_tun *t, int argc, char **argv, int *bypass,
		      const char *cmd);
/* The ttl attribute of a cache. */
int mc_cache_ttl_attr(unsigned int cache);
/* A cache works: its ttl is known and non-zero and it is not switched off. */
int mc_tun_cache_active(const struct mc_tun *t, unsigned int cache);
int mc_tun_empty(const struct mc_tun *t);
/* "entry_ttl=5s neg_ttl=5s ... neg=off" of what is present. */
void mc_tun_str(const struct mc_tun *t, char *buf, size_t len);
/* One row per key: "  entry_ttl     5s" (indent first). */
void mc_tun_print(FILE *f, const struct mc_tun *t, const char *indent);
struct mc_json;
/* The present tunables as members of the open JSON object. */
void mc_tun_json(struct mc_json *j, const struct mc_tun *t);
const char *mc_cache_name(unsigned int cache);
const char *mc_op_name(unsigned int op, char *buf, size_t len);

/* hist.c: the bucket scheme of the uapi header and percentiles. */
struct mc_hist {
	int present;
	uint64_t count, sum_ns, max_ns;
	uint64_t b[METACACHE_HIST_NBUCKETS];
};

unsigned int mc_hist_index(uint64_t ns);
uint64_t mc_hist_lower(unsigned int i);
/* Upper bound (exclusive); UINT64_MAX for the overflow bucket. */
uint64_t mc_hist_upper(unsigned int i);
void mc_hist_add(struct mc_hist *h, uint64_t ns, uint64_t n);
uint64_t mc_hist_total(const struct mc_hist *h);
/* q in (0, 1]; returns 0 and the value in ns, or -1 when empty. */
int mc_hist_percentile(const struct mc_hist *h, double q, uint64_t *ns);

/* benchargs.c: what "bench" needs without libnl. */
struct mc_bench_res {
	uint32_t op;
	uint64_t ops, bytes, entries, elapsed_ns, sum_ns, min_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns;
	uint64_t sec_n, sec_sum, sec_sumsq;
};

const char *mc_bench_workload_name(uint32_t wl);
const char *mc_bench_op_name(uint32_t op);
const char *mc_bench_state_name(uint32_t st);
int mc_bench_state_final(uint32_t st);
/* Parsers return 0 or -1 (with *why set, except for the workload). */
int mc_bench_parse_workload(const char *s, uint32_t *wl);
/* A count (k, M, Ki... suffixes) that fits 32 bits. */
int mc_bench_parse_u32(const char *s, uint32_t *v, const char **why);
int mc_bench_parse_pct(const char *s, uint32_t *v, const char **why);
/* "stat=70,open=20,create=5,unlink=5" into stat, open, create, unlink. */
int mc_bench_parse_mix(const char *s, uint32_t mix[4], const char **why);
int mc_bench_parse_duration_ms(const char *s, uint32_t *ms, const char **why);
double mc_bench_ops_per_s(const struct mc_bench_res *r);	/* NaN: none */
double mc_bench_mib_per_s(const struct mc_bench_res *r);
double mc_bench_mean_ns(const struct mc_bench_res *r);
/* Sample standard deviation from count, sum, sum of squares; NaN if n < 2. */
double mc_bench_stddev(uint64_t n, uint64_t sum, uint64_t sumsq);
/* (b - a) / a in percent; NaN when a is not positive. */
double mc_bench_gain_pct(double a, double b);

/* json.c: a streaming emitter; nesting up to MC_JSON_DEPTH. */
#define MC_JSON_DEPTH 16
struct mc_json {
	FILE *f;
	int depth;
	int count[MC_JSON_DEPTH];	/* members written at each level */
	int error;			/* misuse: too deep, unbalanced */
};

void mcj_init(struct mc_json *j, FILE *f);
void mcj_obj(struct mc_json *j, const char *key);	/* key NULL in arrays */
void mcj_obj_end(struct mc_json *j);
void mcj_arr(struct mc_json *j, const char *key);
void mcj_arr_end(struct mc_json *j);
void mcj_str(struct mc_json *j, const char *key, const char *s);
void mcj_u64(struct mc_json *j, const char *key, uint64_t v);
void mcj_i64(struct mc_json *j, const char *key, int64_t v);
void mcj_dbl(struct mc_json *j, const char *key, double v);	/* NaN: null */
void mcj_bool(struct mc_json *j, const char *key, int v);
void mcj_null(struct mc_json *j, const char *key);
/* Ends the document with a newline; returns 0 or -1 on misuse/IO error. */
int mcj_end(struct mc_json *j);
/* A JSON string literal with quotes; invalid UTF-8 becomes U+FFFD. */
void mcj_write_string(FILE *f, const char *s);

/* table.c: aligned human tables. */
#define MC_TABLE_COLS 16
struct mc_table {
	int ncols;
	int nrows, cap;
	char **cells;		/* nrows * ncols, row 0 = header */
	unsigned char right[MC_TABLE_COLS];	/* right-align column */
};

void mc_table_init(struct mc_table *t, int ncols, const char *const *header,
		   const char *align);	/* align: "lrr..." */
void mc_table_row(struct mc_table *t, ...);	/* ncols const char * */
void mc_table_print(struct mc_table *t, FILE *f, const char *indent);
void mc_table_free(struct mc_table *t);

#endif /* MCCTL_H */
