// SPDX-License-Identifier: GPL-2.0
/*
 * pairbench - first-touch (cold) metadata operations through metacache and
 * on its lower file system directly, measured in pairs.
 *
 * usage: pairbench --lower DIR --stack DIR [--files N] [--per-dir M]
 *                  [--rounds R] [--cycles C] [--size BYTES] [--ops LIST]
 *                  [--cold-wait MS] [--no-count] [--tsv FILE] [--label TEXT]
 *                  [--other-stack]
 *
 * --stack is a metacache mount of --lower's file system, so that
 * STACK/x and LOWER/x are the same file (checked).  mdbench (mdbench.c)
 * times one configuration after the other; on an emulated machine shared
 * with other jobs, the machine's speed drifts between them by more than
 * the few per cent a first-touch goal is about.  pairbench instead works
 * in two trees of the same shape in one directory of the lower,
 * LOWER/pairbench.<pid>/a (used through LOWER) and .../b (used through
 * STACK), and times every operation as a pair: the operation on file k
 * of tree a, then the same on file k of tree b (the order alternates
 * with k), so that drift hits both sides alike.  Each side's latency is
 * the median of its N operations; the ratio stack/lower per round, and
 * the median over the rounds, are the result.
 *
 * Phases (--ops, comma-separated; all by default):
 *   stat    stat of every file, first time after making caches cold
 *   neg     stat of a missing name never looked up before (ENOENT), in
 *           a directory nothing lists
 *   ls      ls -l of every directory (readdir + lstat of each entry;
 *           one op = one entry), first time after making caches cold;
 *           the files are spread over directories of --per-dir
 *           (N / 10: ten pairs a round)
 *   cycle   create + write BYTES + close + unlink of a new file
 *   negls   stat of a missing name never looked up before, in a directory
 *           just listed (each side's directories read once, untimed,
 *           before the round): metacache answers it from the listing
 *           (Documentation/coherence.md), the lower client asks its server
 *
 * --other-stack: STACK is another stacked file system over LOWER, not
 * metacache (overlayfs with LOWER as its only, read-only layer): what
 * stacking alone costs, for reference.  Cold is then drop_caches alone;
 * the cycle phase needs a writable stack.
 *
 * Cold: metacache's debugfs flush (tests/cache/mcstats.c), --cold-wait
 * milliseconds (1500, for cifs's deferred close), then drop_caches (3:
 * the page cache too) twice.  Needs root.
 *
 * Round trips (unless --no-count): before the timed rounds, one counting
 * round runs each phase on one side at a time and reads the lower
 * clients' counters around it: /proc/self/mountstats (NFS: the per-op
 * RPC counts, summed over every nfs mount) and /proc/fs/cifs/Stats
 * (SMB: the per-command counts, summed over every share).  Other mounts
 * of the same clients must be idle meanwhile.  It reports the round trips
 * per operation of each side, and per command where they differ: equal
 * counts mean the stack costs the same round trips, and what remains of
 * its cost is its own CPU time, which a real network's latency dwarfs.
 *
 * The cycle phase is also timed per system call: under its line the table
 * has one for each of open, write, close and unlink (phases "cycle.open"
 * and so on in the TSV), to show where a difference between the sides
 * comes from.
 *
 * Output: a "# " table, then TAP "ok 1 pairbench" (or "not ok 1 pairbench
 * # reason", exit 1).  --tsv FILE appends one line per round and phase:
 * label, phase, round, ops, lower_p50_us, stack_p50_us, ratio_p50,
 * lower_mean_us, stack_mean_us, ratio_mean; and per counted phase:
 * label, phase, "rtt", -, -, lower_rt_per_op, stack_rt_per_op.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "mcstats.h"

#define MAX_FILES	100000
#define MAX_ROUNDS	100
#define MAX_CTR		128

enum { P_STAT, P_NEG, P_LS, P_CYCLE, P_NEGLS, P_NR };
static const char *const p_names[P_NR] = {
	"stat", "neg", "ls", "cycle", "negls",
};
static const char *const p_what[P_NR] = {
	"stat, first time (cold)",
	"stat of a never-seen missing name",
	"ls -l per entry, first time (cold)",
	"create+write+close+unlink",
	"the same, in a directory just listed",
};

static struct {
	const char *lower, *stack, *tsv, *label;
	long files, per_dir, rounds, cycles, size, cold_wait_ms;
	unsigned int ops;
	int count;
	int other;	/* --other-stack: not metacache (no flush) */
} opt = {
	.files = 1000, .per_dir = -1, .rounds = 3, .cycles = -1, .size = 4096,
	.cold_wait_ms = 1500, .ops = (1u << P_NR) - 1, .count = 1, .label = "",
};

static char wl[PATH_MAX], ws[PATH_MAX];	/* LOWER/pairbench.<pid>, STACK/... */
static struct mcs_mount mm;
static char *wbuf;
static long ndirs;
static uint64_t *samp[2];		/* [side][op] ns of the current phase */
static double res[P_NR][MAX_ROUNDS][4];	/* p50 lower, p50 stack, mean l, s */

/* The cycle's system calls, timed one by one. */
enum { S_OPEN, S_WRITE, S_CLOSE, S_UNLINK, S_NR };
static const char *const s_names[S_NR] = {
	"cycle.open", "cycle.write", "cycle.close", "cycle.unlink",
};
static const char *const s_what[S_NR] = {
	"  of which open(O_CREAT|O_EXCL)",
	"  of which write",
	"  of which close",
	"  of which unlink",
};
static uint64_t *ssamp[S_NR][2];	/* [call][side][op] ns, cycle phase */
static double sres[S_NR][MAX_ROUNDS][4];	/* as res[] */
static int ran[P_NR];
static double rt[P_NR][2];		/* round trips per op, per side */
static int have_rt[P_NR];
static char rt_diff[P_NR][512];
static FILE *tsv;			/* --tsv */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void cleanup(void);

static void die(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cleanup();
	printf("not ok 1 pairbench # %s\n", msg);
	exit(1);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* side 0: tree a through LOWER; side 1: tree b through STACK. */
static void path(char *buf, size_t n, int side, const char *fmt, long d, long i)
{
	char rel[64];

	mcs_snp(rel, sizeof(rel), fmt, d, i);
	mcs_snp(buf, n, "%s/%c/%s", side ? ws : wl, side ? 'b' : 'a', rel);
}

/* ------------------------------------------------------------------ */
/* the lower clients' round-trip counters */

struct ctr {
	int n;
	char name[MAX_CTR][40];
	uint64_t v[MAX_CTR];
};

static void ctr_add(struct ctr *c, const char *name, uint64_t v)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name)) {
			c->v[i] += v;
			return;
		}
	if (c->n == MAX_CTR)
		return;
	mcs_snp(c->name[c->n], sizeof(c->name[0]), "%s", name);
	c->v[c->n++] = v;
}

static uint64_t ctr_get(const struct ctr *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->v[i];
	return 0;
}

/*
 * NFS: in /proc/self/mountstats, after "per-op statistics", lines
 * "\t<OP>: <ops> <trans> ...": the RPCs of each op (named "nfs:<OP>").
 * SMB: in /proc/fs/cifs/Stats, per share, lines "<Cmd>: <n> total ..."
 * (smb2/3; "SMBs:" is the share's total): named "smb:<Cmd>".
 */
static void ctr_read(struct ctr *c)
{
	char line[512], name[64];
	unsigned long long v;
	FILE *f;
	int perop = 0;

	memset(c, 0, sizeof(*c));
	f = fopen("/proc/self/mountstats", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "device ", 7)) {
				perop = 0;
				continue;
			}
			if (strstr(line, "per-op statistics")) {
				perop = 1;
				continue;
			}
			if (perop && sscanf(line, " %40[A-Z_0-9]: %llu", name, &v) == 2 && v) {
				char full[64];

				mcs_snp(full, sizeof(full), "nfs:%s", name);
				ctr_add(c, full, v);
			}
		}
		fclose(f);
	}
	f = fopen("/proc/fs/cifs/Stats", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p = line;

			/* a line may hold two counters: "Bytes read: 0  Bytes written: 0" */
			while (sscanf(p, " %40[A-Za-z]: %llu total", name, &v) == 2) {
				char full[64];

				if (strcmp(name, "SMBs") && v) {
					mcs_snp(full, sizeof(full), "smb:%s", name);
					ctr_add(c, full, v);
				}
				if (!strstr(p, " total"))
					break;
				p = strstr(p, " total") + 6;
			}
		}
		fclose(f);
	}
}

/* d = b - a, over the names of b. */
static void ctr_sub(struct ctr *d, const struct ctr *b, const struct ctr *a)
{
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < b->n; i++) {
		uint64_t av = ctr_get(a, b->name[i]);

		if (b->v[i] > av)
			ctr_add(d, b->name[i], b->v[i] - av);
	}
}

static uint64_t ctr_sum(const struct ctr *c)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < c->n; i++)
		s += c->v[i];
	return s;
}

/* ------------------------------------------------------------------ */
/* set-up */

/*
 * Drop the dentry and inode caches and the page cache, twice: stacked
 * dentries pin their lower ones.  The page cache too, because it holds
 * the lower client's directory listings: with dentries and inodes alone
 * dropped, an NFS directory listed by an earlier round keeps its pages
 * (its inode is revalidated, not refetched), and the next "cold" ls -l
 * reads them and then makes a LOOKUP per entry, instead of the
 * READDIR with attributes of a listing really made the first time.
 * Return: 0, or the errno (EACCES: not root).
 */
static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, "3\n", 2) != 2 || write(fd, "3\n", 2) != 2)
		err = errno;
	close(fd);
	return err;
}

static void cold(void)
{
	struct timespec ts = {
		.tv_sec = opt.cold_wait_ms / 1000,
		.tv_nsec = opt.cold_wait_ms % 1000 * 1000000L,
	};
	int err;

	if (!opt.other && mcs_flush(&mm))
		die("metacache flush (debugfs) failed");
	nanosleep(&ts, NULL);
	sync();
	err = drop_caches();
	if (err)
		die("/proc/sys/vm/drop_caches: %s (needs root)", strerror(err));
}

static void make_file(const char *p)
{
	int fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		die("create %s: %s", p, strerror(errno));
	if (write(fd, wbuf, 16) != 16)
		die("write %s: %s", p, strerror(errno));
	if (close(fd))
		die("close %s: %s", p, strerror(errno));
}

static void setup(void)
{
	char p[PATH_MAX + 64], why[256];
	struct statfs sf;
	struct stat a, b;
	long d, i;
	int s;

	if (statfs(opt.stack, &sf))
		die("--stack %s: %s", opt.stack, strerror(errno));
	if (opt.other) {
		struct statfs lf;

		if (statfs(opt.lower, &lf))
			die("--lower %s: %s", opt.lower, strerror(errno));
		if (sf.f_type == lf.f_type)
			die("--other-stack: --stack %s is the lower's file system type, not a stacked one",
			    opt.stack);
	} else if ((unsigned long)sf.f_type != MCS_SUPER_MAGIC) {
		die("--stack %s is not a metacache mount (--other-stack for another stacked file system)",
		    opt.stack);
	} else if (mcs_open(&mm, opt.stack, why, sizeof(why))) {
		die("metacache debugfs for %s: %s", opt.stack, why);
	}
	mcs_snp(wl, sizeof(wl), "%s/pairbench.%d", opt.lower, (int)getpid());
	mcs_snp(ws, sizeof(ws), "%s/pairbench.%d", opt.stack, (int)getpid());
	if (mkdir(wl, 0755))
		die("mkdir %s: %s", wl, strerror(errno));
	/* Another stacked file system may number its inodes its own way. */
	if (stat(ws, &b) || stat(wl, &a) || !S_ISDIR(b.st_mode) ||
	    (!opt.other && a.st_ino != b.st_ino))
		die("%s is not %s through the stack: --stack must be a stacked mount of --lower",
		    ws, wl);
	ndirs = (opt.files + opt.per_dir - 1) / opt.per_dir;
	for (s = 0; s < 2; s++) {
		mcs_snp(p, sizeof(p), "%s/%c", wl, s ? 'b' : 'a');
		if (mkdir(p, 0755))
			die("mkdir %s: %s", p, strerror(errno));
		for (d = 0; d < ndirs; d++) {
			mcs_snp(p, sizeof(p), "%s/%c/d%03ld", wl, s ? 'b' : 'a', d);
			if (mkdir(p, 0755))
				die("mkdir %s: %s", p, strerror(errno));
			/* neg's directories: never listed (see op_neg()) */
			mcs_snp(p, sizeof(p), "%s/%c/n%03ld", wl, s ? 'b' : 'a', d);
			if (mkdir(p, 0755))
				die("mkdir %s: %s", p, strerror(errno));
		}
		for (i = 0; i < opt.files; i++) {
			mcs_snp(p, sizeof(p), "%s/%c/d%03ld/f%06ld", wl, s ? 'b' : 'a',
			    i / opt.per_dir, i);
			make_file(p);
		}
	}
}

/* Remove the work tree, through the lower (nothing is left on the stack). */
static void rm_tree(const char *dir)
{
	char p[PATH_MAX + 300];
	struct dirent *e;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		mcs_snp(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(dp);
	rmdir(dir);
}

static void cleanup(void)
{
	/*
	 * overlayfs holds a reference to the lower dentry of every object
	 * it has looked up: unlinking those through the lower makes NFS
	 * silly-rename them, and their REMOVEs would come later, in some
	 * other run's counting round.  Let it drop them first.
	 */
	if (wl[0] && opt.other && drop_caches())
		fprintf(stderr, "pairbench: drop_caches failed before the clean-up\n");
	if (wl[0]) {
		rm_tree(wl);
		wl[0] = 0;
	}
}

/* ------------------------------------------------------------------ */
/* one operation on one side; returns its duration in ns, or dies */

static uint64_t op_stat(int side, long i)
{
	char p[PATH_MAX + 64];
	struct stat st;
	uint64_t t;

	path(p, sizeof(p), side, "d%03ld/f%06ld", i / opt.per_dir, i);
	t = now_ns();
	if (stat(p, &st))
		die("stat %s: %s", p, strerror(errno));
	return now_ns() - t;
}

static long neg_round;

/*
 * neg: in directories n000... that nothing lists, so that no phase run
 * before (ls, negls) leaves a listing that metacache could answer from;
 * negls: in the directories d000... of the files, just listed.
 */
static uint64_t op_neg(int side, long i, int listed)
{
	char p[PATH_MAX + 64], rel[64];
	struct stat st;
	uint64_t t;
	int r;

	mcs_snp(rel, sizeof(rel), "%c%02ld_%%06ld", listed ? 'm' : 'n', neg_round);
	path(p, sizeof(p), side, listed ? "d%03ld/" : "n%03ld/", i / opt.per_dir, 0);
	mcs_snp(p + strlen(p), sizeof(p) - strlen(p), rel, i);
	t = now_ns();
	r = stat(p, &st);
	t = now_ns() - t;
	if (!r || errno != ENOENT)
		die("stat %s: %s, not ENOENT", p, r ? strerror(errno) : "exists");
	return t;
}

/* ls -l of directory D: returns the ns of the whole directory. */
static long ls_entries, ls_total;

static uint64_t op_ls(int side, long d)
{
	char p[PATH_MAX + 64];
	struct dirent *e;
	struct stat st;
	uint64_t t;
	long n = 0;
	DIR *dp;

	path(p, sizeof(p), side, "d%03ld", d, 0);
	t = now_ns();
	dp = opendir(p);
	if (!dp)
		die("opendir %s: %s", p, strerror(errno));
	while ((e = readdir(dp))) {
		if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			die("lstat %s/%s: %s", p, e->d_name, strerror(errno));
		n++;
	}
	closedir(dp);
	t = now_ns() - t;
	ls_entries = n;
	ls_total += n;
	return t;
}

static long cycle_round;

static uint64_t op_cycle(int side, long i)
{
	char p[PATH_MAX + 64], rel[64];
	uint64_t t[S_NR + 1];
	int fd, k;

	mcs_snp(rel, sizeof(rel), "c%02ld_%%06ld", cycle_round);
	path(p, sizeof(p), side, "d%03ld/", 0, 0);
	mcs_snp(p + strlen(p), sizeof(p) - strlen(p), rel, i);
	t[0] = now_ns();
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create %s: %s", p, strerror(errno));
	t[1] = now_ns();
	if (write(fd, wbuf, (size_t)opt.size) != opt.size)
		die("write %s: %s", p, strerror(errno));
	t[2] = now_ns();
	if (close(fd))
		die("close %s: %s", p, strerror(errno));
	t[3] = now_ns();
	if (unlink(p))
		die("unlink %s: %s", p, strerror(errno));
	t[4] = now_ns();
	for (k = 0; k < S_NR; k++)
		ssamp[k][side][i] = t[k + 1] - t[k];
	return t[S_NR] - t[0];
}

/* ------------------------------------------------------------------ */
/* phases */

static long phase_n(int ph)
{
	switch (ph) {
	case P_LS:
		return ndirs;
	case P_CYCLE:
		return opt.cycles;
	default:
		return opt.files;
	}
}

static uint64_t run_op(int ph, int side, long i)
{
	switch (ph) {
	case P_STAT:
		return op_stat(side, i);
	case P_NEG:
		return op_neg(side, i, 0);
	case P_NEGLS:
		return op_neg(side, i, 1);
	case P_LS: {
		uint64_t t = op_ls(side, i);

		/* per entry: "." and ".." are listed and lstat'ed too */
		return ls_entries ? t / (uint64_t)ls_entries : t;
	}
	default:
		return op_cycle(side, i);
	}
}

/* Read every directory of both sides once (negls). */
static void list_dirs(void)
{
	char p[PATH_MAX + 64];
	long d;
	int s;

	for (s = 0; s < 2; s++)
		for (d = 0; d < ndirs; d++) {
			DIR *dp;

			path(p, sizeof(p), s, "d%03ld", d, 0);
			dp = opendir(p);
			if (!dp)
				die("opendir %s: %s", p, strerror(errno));
			while (readdir(dp))
				;
			closedir(dp);
		}
}

/*
 * neg's directories are walked into once, untimed, before the round: the
 * stat phase's cold start dropped them, and a directory's own first
 * lookup is not what neg measures (with few names per directory it would
 * be most of it).
 */
static void warm_neg_dirs(void)
{
	char p[PATH_MAX + 64];
	struct stat st;
	long d;
	int s;

	for (s = 0; s < 2; s++)
		for (d = 0; d < ndirs; d++) {
			path(p, sizeof(p), s, "n%03ld/.", d, 0);
			if (stat(p, &st))
				die("stat %s: %s", p, strerror(errno));
		}
}

static void phase_prepare(int ph, long round)
{
	neg_round = round;
	cycle_round = round;
	if (ph == P_STAT || ph == P_LS)
		cold();
	if (ph == P_NEG)
		warm_neg_dirs();
	if (ph == P_NEGLS)
		list_dirs();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	if (!n)
		return 0;
	return (n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) / 1e3;
}

static double mean_us(const uint64_t *v, long n)
{
	double s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += (double)v[i];
	return n ? s / (double)n / 1e3 : 0;
}

/* o[]: lower p50, stack p50, lower mean, stack mean of @n samples (sorts them) */
static void summarize(double *o, uint64_t *const v[2], long n)
{
	o[2] = mean_us(v[0], n);
	o[3] = mean_us(v[1], n);
	o[0] = median_us(v[0], n);
	o[1] = median_us(v[1], n);
}

/* The timed, paired round R of phase PH. */
static void phase_pairs(int ph, long r)
{
	long i, n = phase_n(ph);

	phase_prepare(ph, r + 1);
	for (i = 0; i < n; i++) {
		int first = (int)(i & 1);

		samp[first][i] = run_op(ph, first, i);
		samp[!first][i] = run_op(ph, !first, i);
	}
	summarize(res[ph][r], samp, n);
	ran[ph] = 1;
	for (i = 0; ph == P_CYCLE && i < S_NR; i++)
		summarize(sres[i][r], ssamp[i], n);
}

/* The counting round: each side alone, the clients' counters around it. */
static void phase_count(int ph)
{
	struct ctr c0, c1, d[2];
	long i, n = phase_n(ph);
	char *o = rt_diff[ph];
	size_t len = 0;
	int s, k;

	for (s = 0; s < 2; s++) {
		phase_prepare(ph, 0);
		ls_total = 0;
		ctr_read(&c0);
		for (i = 0; i < n; i++)
			run_op(ph, s, i);
		ctr_read(&c1);
		ctr_sub(&d[s], &c1, &c0);
		rt[ph][s] = (double)ctr_sum(&d[s]) / (double)(ph == P_LS ? ls_total : n);
	}
	have_rt[ph] = ctr_sum(&d[0]) || ctr_sum(&d[1]);
	o[0] = 0;
	for (s = 0; s < 2; s++)
		for (k = 0; k < d[s].n && len < 400; k++) {
			uint64_t a = ctr_get(&d[0], d[s].name[k]);
			uint64_t b = ctr_get(&d[1], d[s].name[k]);

			if (a == b || (s == 1 && ctr_get(&d[0], d[s].name[k])))
				continue;
			len += (size_t)mcs_snp(o + len, sizeof(rt_diff[0]) - len, "%s%s %llu/%llu",
					   len ? ", " : "", d[s].name[k] + 4,
					   (unsigned long long)a, (unsigned long long)b);
		}
}

/* ------------------------------------------------------------------ */

static long num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die("--%s %s: want an integer in [%ld, %ld]", what, s, lo, hi);
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pairbench --lower DIR --stack DIR [--files N] [--per-dir M]\n"
		   "                 [--rounds R] [--cycles C] [--size BYTES] [--ops LIST]\n"
		   "                 [--cold-wait MS] [--no-count] [--tsv FILE] [--label TEXT]\n"
		   "                 [--other-stack]\n"
		   "  LIST: comma-separated stat,neg,ls,cycle,negls (default: all)\n"
		   "  --other-stack: STACK is another stacked file system over LOWER\n"
		   "                 (overlayfs, say: the cost of stacking alone)\n");
}

static double med3(double *v, int n)
{
	double t[MAX_ROUNDS];
	int i, j;

	for (i = 0; i < n; i++) {
		t[i] = v[i];
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			double x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	}
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/*
 * One line of the table, and the TSV lines of its rounds: @r holds, per
 * round, what phase_pairs() stores in res[].
 */
static void report(const char *name, const char *what, double (*r)[4], long n,
		   const char *rts)
{
	double rp[MAX_ROUNDS], l[MAX_ROUNDS], s[MAX_ROUNDS];
	char rounds[512] = "";
	size_t len = 0;
	long i;

	for (i = 0; i < opt.rounds; i++) {
		double *o = r[i];

		l[i] = o[0];
		s[i] = o[1];
		rp[i] = o[0] > 0 ? o[1] / o[0] : 0;
		len += (size_t)mcs_snp(rounds + len, sizeof(rounds) - len, "%s%.2f;%.2f",
				   i ? " " : "", rp[i], o[2] > 0 ? o[3] / o[2] : 0);
		if (tsv)
			fprintf(tsv, "%s\t%s\t%ld\t%ld\t%.2f\t%.2f\t%.3f\t%.2f\t%.2f\t%.3f\n",
				opt.label, name, i + 1, n, o[0], o[1], rp[i], o[2], o[3],
				o[2] > 0 ? o[3] / o[2] : 0);
	}
	printf("# %-12s %-36s %9.1f %9.1f %6.3f  %s  %s\n", name, what,
	       med3(l, (int)opt.rounds), med3(s, (int)opt.rounds),
	       med3(rp, (int)opt.rounds), rounds, rts);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "lower", 1, 0, 'l' }, { "stack", 1, 0, 's' },
		{ "files", 1, 0, 'n' }, { "per-dir", 1, 0, 'm' },
		{ "rounds", 1, 0, 'r' }, { "cycles", 1, 0, 'c' },
		{ "size", 1, 0, 'z' }, { "ops", 1, 0, 'o' },
		{ "cold-wait", 1, 0, 'w' }, { "no-count", 0, 0, 'N' },
		{ "tsv", 1, 0, 't' }, { "label", 1, 0, 'L' },
		{ "other-stack", 0, 0, 'O' },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	int c, ph, k;
	long r, nsamp;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l': opt.lower = optarg; break;
		case 's': opt.stack = optarg; break;
		case 'n': opt.files = num(optarg, "files", 2, MAX_FILES); break;
		case 'm': opt.per_dir = num(optarg, "per-dir", 1, 1000000); break;
		case 'r': opt.rounds = num(optarg, "rounds", 1, MAX_ROUNDS); break;
		case 'c': opt.cycles = num(optarg, "cycles", 2, MAX_FILES); break;
		case 'z': opt.size = num(optarg, "size", 0, 1 << 24); break;
		case 'w': opt.cold_wait_ms = num(optarg, "cold-wait", 0, 60000); break;
		case 'N': opt.count = 0; break;
		case 'O': opt.other = 1; break;
		case 't': opt.tsv = optarg; break;
		case 'L': opt.label = optarg; break;
		case 'o': {
			char *s = strdup(optarg), *tok, *save = NULL;

			opt.ops = 0;
			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				for (ph = 0; ph < P_NR && strcmp(tok, p_names[ph]); ph++)
					;
				if (ph == P_NR)
					die("--ops: unknown phase '%s' (stat, neg, ls, cycle, negls)", tok);
				opt.ops |= 1u << ph;
			}
			free(s);
			if (!opt.ops)
				die("--ops: no phase given");
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !opt.lower || !opt.stack) {
		usage(stderr);
		return 2;
	}
	if (opt.cycles < 0)
		opt.cycles = opt.files;
	if (opt.per_dir < 0)		/* ten directories: ten ls pairs a round */
		opt.per_dir = opt.files >= 10 ? opt.files / 10 : 1;
	if (opt.per_dir > opt.files)
		opt.per_dir = opt.files;
	wbuf = calloc(1, (size_t)opt.size + 16);
	nsamp = opt.files > opt.cycles ? opt.files : opt.cycles;
	for (c = 0; c < 2; c++) {
		samp[c] = calloc((size_t)nsamp, sizeof(uint64_t));
		if (!samp[c])
			die("out of memory");
		for (k = 0; k < S_NR; k++) {
			ssamp[k][c] = calloc((size_t)opt.cycles, sizeof(uint64_t));
			if (!ssamp[k][c])
				die("out of memory");
		}
	}
	if (!wbuf)
		die("out of memory");
	if (opt.tsv) {
		tsv = fopen(opt.tsv, "a");
		if (!tsv)
			die("--tsv %s: %s", opt.tsv, strerror(errno));
	}
	setup();

	for (ph = 0; ph < P_NR; ph++)
		if (opt.count && (opt.ops & (1u << ph)))
			phase_count(ph);
	for (r = 0; r < opt.rounds; r++)
		for (ph = 0; ph < P_NR; ph++)
			if (opt.ops & (1u << ph))
				phase_pairs(ph, r);
	cleanup();

	printf("# pairbench: lower %s, stack %s, %ld files in %ld directories, %ld rounds%s%s\n",
	       opt.lower, opt.stack, opt.files, ndirs, opt.rounds,
	       opt.label[0] ? ", label " : "", opt.label);
	printf("# %-12s %-36s %9s %9s %6s  %s  %s\n", "phase", "what", "lower us", "stack us",
	       "ratio", "ratio per round (p50; mean)", "round trips/op lower/stack");
	for (ph = 0; ph < P_NR; ph++) {
		char rts[640] = "-";

		if (!ran[ph])
			continue;
		if (have_rt[ph])
			mcs_snp(rts, sizeof(rts), "%.2f/%.2f%s%s", rt[ph][0], rt[ph][1],
			    rt_diff[ph][0] ? " differ: " : " same per command",
			    rt_diff[ph]);
		report(p_names[ph], p_what[ph], res[ph], phase_n(ph), rts);
		if (have_rt[ph] && tsv)
			fprintf(tsv, "%s\t%s\trtt\t-\t-\t%.3f\t%.3f\n", opt.label,
				p_names[ph], rt[ph][0], rt[ph][1]);
		for (k = 0; ph == P_CYCLE && k < S_NR; k++)
			report(s_names[k], s_what[k], sres[k], phase_n(ph), "-");
	}
	printf("# lower/stack us: medians over the rounds of each side's median; ratio:\n"
	       "# median over the rounds of stack p50 / lower p50 (below 1: the stack is faster)\n");
	if (tsv)
		fclose(tsv);
	printf("ok 1 pairbench\n");
	return 0;
}
