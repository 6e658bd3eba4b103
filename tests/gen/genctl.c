// SPDX-License-Identifier: GPL-2.0
/*
 * genctl: "metacachectl bench" against the module's generator: run,
 * start/status/stop, results, list and compare, their JSON (checked with
 * the small JSON reader of tests/lib/ctlrun.h), the
 * progress lines on a pipe, the kernel's refusals passed on with their
 * message, and non-root refused.  A few dozen runs of the tool.
 *
 * Also prints (diagnostics, not assertions) the generator's stat latency
 * next to a userspace loop of stat(2) on the same files.
 */
#include <ctype.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"

#include "ctlrun.h"

static const char *upper, *lower;

/* ----------------------------------------------------------- helpers */

#define SETUP()								\
	do {								\
		upper = mc_env("MC_UPPER");				\
		lower = mc_env("MC_LOWER");				\
		if (!upper || !lower)					\
			MCT_SKIP("needs MC_UPPER and MC_LOWER (mount mode)"); \
		MCT_ASSERT(!find_tool(), "metacachectl not found (make tools)"); \
	} while (0)

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* ------------------------------------------------------------- tests */

MCT_TEST(run_json)
{
	char buf[64];
	int rc;

	SETUP();
	rc = ctl("-j", "bench", "run", upper, "mdtest", "-t", "2", "-n", "20",
		 "-d", "2", "-q");
	MCT_ASSERT(rc == 0, "bench run: exit %d: %s", rc, R.err);
	MCT_ASSERT(js_valid(R.out), "not JSON: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "job.state", buf, sizeof(buf)), "done"),
		   "state %s", buf);
	MCT_EXPECT(!strcmp(js_str(R.out, "job.workload", buf, sizeof(buf)),
			   "mdtest"), "workload %s", buf);
	MCT_EXPECT(!strcmp(js_str(R.out, "results.0.op", buf, sizeof(buf)),
			   "tree-create"), "first phase %s", buf);
	MCT_EXPECT(!strcmp(js_str(R.out, "results.8.op", buf, sizeof(buf)),
			   "tree-remove"), "last phase %s", buf);
	MCT_EXPECT(js_num(R.out, "results.1.ops") == 20, "create ops %lld",
		   js_num(R.out, "results.1.ops"));
	MCT_EXPECT(js_num(R.out, "results.0.ops") == 2, "tree-create ops %lld",
		   js_num(R.out, "results.0.ops"));
	MCT_EXPECT(js_num(R.out, "results.5.entries") == 20, "readdir entries");
	MCT_EXPECT(js_num(R.out, "results.2.lat_ns.p50") > 0 &&
		   js_num(R.out, "results.2.lat_ns.p50") <=
		   js_num(R.out, "results.2.lat_ns.p99_9"), "stat percentiles");
	{
		const char *at = NULL;

		MCT_EXPECT(!js_find(R.out, "results.9", &at) && !at,
			   "more than 9 phases");
	}
	MCT_EXPECT(!R.err[0], "stderr with -q: %s", R.err);
	MCT_EXPECT(js_bool(R.out, "job.keep") == 0 &&
		   js_bool(R.out, "job.warmup") == 0, "flags: %s", R.out);
}

MCT_TEST(run_human_progress)
{
	int rc;

	SETUP();
	rc = ctl("bench", "run", lower, "mixed", "-t", "2", "-n", "10", "-o",
		 "300", "-i", "1ms");
	MCT_ASSERT(rc == 0, "bench run: exit %d: %s", rc, R.err);
	MCT_EXPECT(has(R.out, "mixed on ") && has(R.out, "p99.9") &&
		   has(R.out, "stat") && has(R.out, "all"), "report: %s", R.out);
	/* not a terminal: plain progress lines on stderr */
	MCT_EXPECT(has(R.err, "job ") && has(R.err, "ops/s, ") &&
		   !has(R.err, "\r"), "progress: %s", R.err);
}

MCT_TEST(data_json)
{
	char buf[64];
	int rc;

	SETUP();
	rc = ctl("-j", "bench", "run", upper, "randrw", "-n", "2", "-s", "64K",
		 "-o", "50", "-r", "100", "-q");
	MCT_ASSERT(rc == 0, "bench run: exit %d: %s", rc, R.err);
	MCT_ASSERT(js_valid(R.out), "not JSON: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "results.0.op", buf, sizeof(buf)),
			   "read"), "100%% reads: first result %s", buf);
	MCT_EXPECT(js_num(R.out, "results.0.ops") == 50 &&
		   js_num(R.out, "results.0.bytes") == 50 * 4096,
		   "50 reads of 4 KiB: %s", R.out);
	MCT_EXPECT(js_num(R.out, "job.io_size") == 4096 &&
		   js_num(R.out, "job.file_size") == 65536 &&
		   js_num(R.out, "job.read_pct") == 100, "parameters: %s", R.out);
}

MCT_TEST(start_status_stop_results)
{
	char id[24], buf[64];
	long long n;
	int rc;

	SETUP();
	rc = ctl("-j", "bench", "start", upper, "mixed", "-n", "4", "-D", "1h");
	MCT_ASSERT(rc == 0, "bench start: exit %d: %s", rc, R.err);
	n = js_num(R.out, "id");
	MCT_ASSERT(n > 0, "no id: %s", R.out);
	snprintf(id, sizeof(id), "%lld", n);
	MCT_EXPECT(!strncmp(js_str(R.out, "workdir", buf, sizeof(buf)),
			    ".mcbench-", 9), "workdir %s", buf);
	rc = ctl("-j", "bench", "status", id);
	MCT_EXPECT(rc == 0 && js_valid(R.out) && js_num(R.out, "id") == n,
		   "status: exit %d: %s %s", rc, R.out, R.err);
	rc = ctl("bench", "status", id);
	MCT_EXPECT(rc == 0 && has(R.out, "mixed on"), "status: %s", R.out);
	rc = ctl("-j", "bench", "list");
	MCT_EXPECT(rc == 0 && js_valid(R.out) && has(R.out, "\"target\""),
		   "list: %s", R.out);
	rc = ctl("bench", "list");
	MCT_EXPECT(rc == 0 && (has(R.out, "running") || has(R.out, "setup")),
		   "list: %s", R.out);
	rc = ctl("bench", "stop", id);
	MCT_EXPECT(rc == 0 && has(R.out, "stopped"), "stop: exit %d: %s %s",
		   rc, R.out, R.err);
	/* results of a stopped job: printed, but not a success */
	rc = ctl("-j", "bench", "results", id);
	MCT_EXPECT(rc == 1 && js_valid(R.out) &&
		   !strcmp(js_str(R.out, "job.state", buf, sizeof(buf)),
			   "stopped"), "results: exit %d: %s", rc, R.out);
	MCT_EXPECT(!access(upper, F_OK), "target gone");
}

MCT_TEST(compare_json)
{
	char buf[64];
	long long a, b;
	int rc, i;

	SETUP();
	rc = ctl("-j", "bench", "compare", lower, upper, "mdtest", "-n", "30",
		 "-q");
	MCT_ASSERT(rc == 0, "compare: exit %d: %s", rc, R.err);
	MCT_ASSERT(js_valid(R.out), "not JSON: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "state_a", buf, sizeof(buf)), "done") &&
		   !strcmp(js_str(R.out, "state_b", buf, sizeof(buf)), "done"),
		   "states: %s", R.out);
	for (i = 0; i < 9; i++) {
		char p[64], op[32];

		snprintf(p, sizeof(p), "ops.%d.op", i);
		js_str(R.out, p, op, sizeof(op));
		MCT_EXPECT(op[0], "no op %d: %s", i, R.out);
		snprintf(p, sizeof(p), "ops.%d.mean_ns_a", i);
		a = js_num(R.out, p);
		snprintf(p, sizeof(p), "ops.%d.mean_ns_b", i);
		b = js_num(R.out, p);
		mct_diag("%-13s mean %s %lld ns, metacache %lld ns", op,
			 mc_env("MC_FSTYPE") ?: "lower", a, b);
	}
	rc = ctl("bench", "compare", lower, upper, "seqread", "-n", "1", "-o",
		 "8", "-q");
	MCT_EXPECT(rc == 0 && has(R.out, "IOPS +%") && has(R.out, "read"),
		   "compare: exit %d: %s %s", rc, R.out, R.err);
}

MCT_TEST(refusals)
{
	int rc;

	SETUP();
	rc = ctl("bench", "start", "/tmp/mcgen-no-such-dir", "mdtest");
	MCT_EXPECT(rc == 1 && has(R.err, "kernel reports: cannot resolve the target"),
		   "missing target: exit %d: %s", rc, R.err);
	rc = ctl("bench", "start", upper, "mdtest", "-t", "65");
	MCT_EXPECT(rc == 1 && has(R.err, "kernel reports:") &&
		   has(R.err, "--threads"), "65 threads: exit %d: %s", rc, R.err);
	rc = ctl("bench", "start", upper, "mdtest", "--ops", "10");
	MCT_EXPECT(rc == 1 && has(R.err, "no operation count") &&
		   has(R.err, "--ops"), "mdtest --ops: exit %d: %s", rc, R.err);
	rc = ctl("bench", "start", upper, "mixed");
	MCT_EXPECT(rc == 1 && has(R.err, "operation count or a duration"),
		   "mixed without stop: exit %d: %s", rc, R.err);
	rc = ctl("bench", "status", "999999");
	MCT_EXPECT(rc == 1 && has(R.err, "no job with this id"),
		   "unknown job: exit %d: %s", rc, R.err);
	rc = ctl_user("bench", "start", upper, "mdtest");
	MCT_EXPECT(rc == 1 && (has(R.err, "CAP_SYS_ADMIN") ||
			       has(R.err, "not permitted")),
		   "non-root start: exit %d: %s", rc, R.err);
	rc = ctl_user("bench", "stop", "1");
	MCT_EXPECT(rc == 1, "non-root stop: exit %d: %s", rc, R.err);
	rc = ctl_user("bench", "list");
	MCT_EXPECT(rc == 0, "non-root list: exit %d: %s", rc, R.err);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The generator's stat (mdtest, 200 files) next to a userspace loop of
 * stat(2) over 200 files of the same lower: a diagnostic only.
 */
MCT_TEST(userspace_loop_diag)
{
	enum { N = 200 };
	static uint64_t t[N];
	char dir[PATH_MAX], f[PATH_MAX + 32];
	uint64_t sum = 0, t0;
	struct stat st;
	int i, fd, rc;

	SETUP();
	rc = ctl("-j", "bench", "run", lower, "mdtest", "-n", "200", "-q");
	MCT_ASSERT(rc == 0 && js_valid(R.out), "bench run: exit %d: %s", rc,
		   R.err);
	snprintf(dir, sizeof(dir), "%s/mcgen-loop", lower);
	MCT_ASSERT(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	for (i = 0; i < N; i++) {
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		fd = open(f, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < N; i++) {
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		t0 = now_ns();
		stat(f, &st);
		t[i] = now_ns() - t0;
		sum += t[i];
	}
	qsort(t, N, sizeof(t[0]), cmp_u64);
	mct_diag("stat on %s: generator p50 %lld ns mean %lld ns; userspace loop p50 %llu ns mean %llu ns",
		 mc_env("MC_FSTYPE") ?: "lower",
		 js_num(R.out, "results.2.lat_ns.p50"),
		 js_num(R.out, "results.2.lat_ns.mean"),
		 (unsigned long long)t[N / 2], (unsigned long long)(sum / N));
	for (i = 0; i < N; i++) {
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		unlink(f);
	}
	MCT_EXPECT(!rmdir(dir), "rmdir %s: %s", dir, strerror(errno));
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
