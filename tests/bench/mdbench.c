// SPDX-License-Identifier: GPL-2.0
/*
 * mdbench - a metadata micro-benchmark: latency and throughput of the
 * file system operations a metadata cache is for.
 *
 * usage: mdbench --target DIR [--files N] [--rounds R] [--depth D]
 *                [--size BYTES] [--cycles C] [--walks W] [--ops LIST]
 *                [--cold auto|drop|flush|none] [--json] [--tsv FILE]
 *                [--label TEXT]
 *
 * Works in a fresh directory DIR/mdbench.<pid>.<n>, removed at the end
 * (also after an error).  One process, one system call loop, every
 * operation timed with clock_gettime(CLOCK_MONOTONIC) into a log-linear
 * histogram of fixed size (32 sub-buckets per power of two: <= 3% error),
 * which gives min, mean, p50, p90, p99, p99.9 and max; ops/s is the
 * phase's operations over its wall time.  Phases, in order:
 *
 *   create     create N files of BYTES bytes (open O_CREAT, write, close)
 *   stat_cold  stat of every file, first round after making caches cold
 *   stat       R-1 more rounds of stat over every file (warm)
 *   neg_cold   stat of N names that do not exist, first round (ENOENT;
 *              names never looked up: cold without dropping caches)
 *   neg        R-1 more rounds of the same missing names
 *   open       open(O_RDONLY) + close of every file, the first time
 *   open_warm  R-1 more rounds of open + close (warm: a deferred close
 *              lets metacache reuse the lower file)
 *   read       open + read 4 KiB + close of every file
 *   walk       W stats of a file D directories deep (path walk), after
 *              one untimed walk (warm)
 *   ls_cold    ls -l: readdir of the directory + lstat of every entry,
 *              first round after making caches cold (one op = one entry)
 *   ls         R-1 more ls -l rounds
 *   cycle      C x (create, write BYTES, close, unlink) of a new file
 *   unlink     unlink the N files
 *
 * --ops LIST (comma-separated: stat,neg,open,read,walk,ls,cycle) selects
 * the middle phases; create and unlink always run.  "Cold" (--cold, before
 * the stat_cold and ls_cold rounds):
 * drop = write 2 to /proc/sys/vm/drop_caches (root; dentries and inodes of
 * every file system, so NFS/SMB clients forget too) and, on metacache, its
 * debugfs flush; flush = only metacache's flush; none = nothing (the first
 * round then is merely the first after create); auto (default) = drop when
 * possible, else flush on metacache, else none.  Before dropping, mdbench
 * waits --cold-wait milliseconds (1500) for the clients' deferred closes:
 * cifs keeps a closed file open for closetimeo (1 s), and an open file's
 * dentry and inode survive drop_caches.
 *
 * On a metacache mount (statfs magic), every phase also reports the lower
 * calls it caused per operation and the cache hit counters, from debugfs
 * (tests/cache/mcstats.c) when available.
 *
 * Output: TAP 13 (a "# " table, then "ok 1 mdbench", or "not ok 1 mdbench
 * # reason" on any system call error, exit 1); --json: one JSON object with
 * every phase's numbers instead; --tsv FILE: also append one line per phase
 * (label, phase, ops, mean_us, p50_us, p99_us, ops_per_s, lower_per_op).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "mcstats.h"

/* ------------------------------------------------------------------ */
/* log-linear histogram of nanoseconds */

#define H_SUB_BITS	5
#define H_SUB		(1u << H_SUB_BITS)
#define H_MAX_EXP	44		/* 2^44 ns: about 4.9 hours */
#define H_NB		((H_MAX_EXP - H_SUB_BITS + 2) * H_SUB)

struct hist {
	uint64_t b[H_NB];
	uint64_t n, sum, min, max;
};

static unsigned int h_index(uint64_t v)
{
	unsigned int e, idx;

	if (v < H_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	if (e > H_MAX_EXP)
		return H_NB - 1;
	idx = (e - H_SUB_BITS + 1) * H_SUB + (unsigned int)((v >> (e - H_SUB_BITS)) - H_SUB);
	return idx < H_NB ? idx : H_NB - 1;
}

/* The middle value of bucket IDX. */
static double h_value(unsigned int idx)
{
	unsigned int g, sub, e;
	uint64_t lo, width;

	if (idx < H_SUB)
		return idx;
	g = idx / H_SUB;
	sub = idx % H_SUB;
	e = g + H_SUB_BITS - 1;
	width = 1ULL << (e - H_SUB_BITS);
	lo = (uint64_t)(H_SUB + sub) << (e - H_SUB_BITS);
	return (double)lo + (double)(width - 1) / 2.0;
}

static void h_add(struct hist *h, uint64_t ns)
{
	h->b[h_index(ns)]++;
	if (!h->n || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	h->sum += ns;
}

/* Percentile P (0-100) in ns, clamped to [min, max]. */
static double h_pct(const struct hist *h, double p)
{
	uint64_t rank, cum = 0;
	unsigned int i;
	double v;

	if (!h->n)
		return 0;
	rank = (uint64_t)(p / 100.0 * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < H_NB; i++) {
		cum += h->b[i];
		if (cum >= rank)
			break;
	}
	v = h_value(i < H_NB ? i : H_NB - 1);
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

/* ------------------------------------------------------------------ */
/* phases */

enum {
	PH_CREATE, PH_STAT_COLD, PH_STAT, PH_NEG_COLD, PH_NEG, PH_OPEN,
	PH_OPEN_WARM, PH_READ, PH_WALK, PH_LS_COLD, PH_LS, PH_CYCLE, PH_UNLINK, PH_NR
};

static const char *const ph_names[PH_NR] = {
	"create", "stat_cold", "stat", "neg_cold", "neg", "open",
	"open_warm", "read", "walk", "ls_cold", "ls", "cycle", "unlink",
};

static const char *const ph_what[PH_NR] = {
	"open(O_CREAT)+write+close",
	"stat, first round (cold)",
	"stat, warm rounds",
	"stat of a never-seen missing name",
	"stat of a missing name, warm rounds",
	"open(O_RDONLY)+close, first time",
	"open(O_RDONLY)+close, warm rounds",
	"open+read 4 KiB+close",
	"stat through D directories",
	"ls -l per entry, first round (cold)",
	"ls -l per entry, warm rounds",
	"create+write+close+unlink",
	"unlink",
};

struct phase {
	struct hist h;
	int ran;
	double secs;		/* wall time of the phase */
	int have_mcs;
	struct mcs d;		/* metacache counters over the phase */
};

static struct phase ph[PH_NR];

/* ------------------------------------------------------------------ */
/* options and state */

static struct {
	const char *target;
	long files, rounds, depth, size, cycles, walks;
	long cold_wait_ms;
	unsigned int ops;	/* bit per middle phase group */
	const char *cold;
	int json;
	const char *tsv;
	const char *label;
} opt = {
	.files = 1000, .rounds = 3, .depth = 8, .size = 4096, .cycles = -1,
	.walks = -1, .ops = ~0u, .cold = "auto", .cold_wait_ms = 1500,
};

enum { G_STAT = 1, G_NEG = 2, G_OPEN = 4, G_READ = 8, G_WALK = 16, G_LS = 32,
       G_CYCLE = 64 };

static char work[PATH_MAX], files_dir[PATH_MAX], walk_dir[PATH_MAX],
	cycle_dir[PATH_MAX], leaf[PATH_MAX * 2];
static char error[1024];
static int is_mc;
static struct mcs_mount mm;
static int have_mm;
static const char *cold_used = "none";
static char fsname[32];
static char *wbuf;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(error, sizeof(error), fmt, ap);
	va_end(ap);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void fname(char *buf, size_t len, char kind, long i)
{
	mcs_snp(buf, len, "%s/%c%07ld", files_dir, kind, i);
}

static void phase_begin(int p, uint64_t *t0, struct mcs *s0)
{
	memset(&ph[p], 0, sizeof(ph[p]));
	ph[p].ran = 1;
	if (have_mm && mcs_read(&mm, s0) == 0)
		ph[p].have_mcs = s0->old_format ? 2 : 1;	/* 2: calls only */
	*t0 = now_ns();
}

static void phase_end(int p, uint64_t t0, const struct mcs *s0)
{
	struct mcs s1;

	ph[p].secs = (double)(now_ns() - t0) / 1e9;
	if (ph[p].have_mcs && mcs_read(&mm, &s1) == 0)
		mcs_sub(&ph[p].d, &s1, s0);
	else
		ph[p].have_mcs = 0;
}

/* Make caches cold before a first round (see --cold). */
static void make_cold(void)
{
	int flushed = 0, dropped = 0, fd;

	if (!strcmp(opt.cold, "none"))
		return;
	if (is_mc && have_mm && mcs_flush(&mm) == 0)
		flushed = 1;
	if (strcmp(opt.cold, "flush")) {
		/*
		 * Let the clients close what they keep open after close(2)
		 * (cifs's deferred close: closetimeo, 1 s by default): an open
		 * file pins its dentry and inode, which drop_caches cannot free,
		 * so the "cold" stat of a file just created would be warm.
		 */
		if (opt.cold_wait_ms) {
			struct timespec ts = {
				.tv_sec = opt.cold_wait_ms / 1000,
				.tv_nsec = opt.cold_wait_ms % 1000 * 1000000L,
			};

			nanosleep(&ts, NULL);
		}
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			/* twice: stacked dentries pin their lower ones */
			if (write(fd, "2\n", 2) == 2 && write(fd, "2\n", 2) == 2)
				dropped = 1;
			close(fd);
		}
		if (!dropped && !strcmp(opt.cold, "drop"))
			fail("--cold drop: /proc/sys/vm/drop_caches: %s", strerror(errno));
	}
	cold_used = dropped ? (flushed ? "flush+drop_caches" : "drop_caches") :
		    flushed ? "flush" : "none";
}

/* ------------------------------------------------------------------ */
/* the operations */

static int create_file(const char *path, size_t size)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0) {
		fail("open(O_CREAT) %s: %s", path, strerror(errno));
		return -1;
	}
	while (done < size) {
		size_t n = size - done > 65536 ? 65536 : size - done;
		ssize_t w = write(fd, wbuf, n);

		if (w <= 0) {
			fail("write %s: %s", path, w < 0 ? strerror(errno) : "short");
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	if (close(fd)) {
		fail("close %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void ph_create(void)
{
	char p[PATH_MAX];
	struct mcs s0;
	uint64_t t0, t;
	long i;

	phase_begin(PH_CREATE, &t0, &s0);
	for (i = 0; i < opt.files && !error[0]; i++) {
		fname(p, sizeof(p), 'f', i);
		t = now_ns();
		if (create_file(p, (size_t)opt.size))
			break;
		h_add(&ph[PH_CREATE].h, now_ns() - t);
	}
	phase_end(PH_CREATE, t0, &s0);
}

static void ph_stat(int p, char kind, long rounds)
{
	char path[PATH_MAX];
	struct stat st;
	struct mcs s0;
	uint64_t t0, t;
	long r, i;
	int ret;

	phase_begin(p, &t0, &s0);
	for (r = 0; r < rounds && !error[0]; r++) {
		for (i = 0; i < opt.files; i++) {
			fname(path, sizeof(path), kind, i);
			t = now_ns();
			ret = stat(path, &st);
			h_add(&ph[p].h, now_ns() - t);
			if (kind == 'f' && ret) {
				fail("stat %s: %s", path, strerror(errno));
				break;
			}
			if (kind == 'm' && (!ret || errno != ENOENT)) {
				fail("stat of missing %s: %s", path,
				     ret ? strerror(errno) : "exists");
				break;
			}
		}
	}
	phase_end(p, t0, &s0);
}

static void ph_open(int p, int doread, long rounds)
{
	char path[PATH_MAX], buf[4096];
	struct mcs s0;
	uint64_t t0, t;
	long i;
	int fd;

	phase_begin(p, &t0, &s0);
	for (i = 0; i < opt.files * rounds && !error[0]; i++) {
		fname(path, sizeof(path), 'f', i % opt.files);
		t = now_ns();
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail("open %s: %s", path, strerror(errno));
			break;
		}
		if (doread && read(fd, buf, sizeof(buf)) < 0) {
			fail("read %s: %s", path, strerror(errno));
			close(fd);
			break;
		}
		if (close(fd)) {
			fail("close %s: %s", path, strerror(errno));
			break;
		}
		h_add(&ph[p].h, now_ns() - t);
	}
	phase_end(p, t0, &s0);
}

static void ph_walk(void)
{
	struct stat st;
	struct mcs s0;
	uint64_t t0, t;
	long i;

	/*
	 * Warm: one untimed walk first.  Nothing touched the tree since the
	 * caches were made cold before stat_cold, so the first walk looks up
	 * every directory again; with a few hundred walks that one walk was
	 * most of the phase's mean.
	 */
	if (stat(leaf, &st)) {
		fail("stat %s: %s", leaf, strerror(errno));
		return;
	}
	phase_begin(PH_WALK, &t0, &s0);
	for (i = 0; i < opt.walks && !error[0]; i++) {
		t = now_ns();
		if (stat(leaf, &st)) {
			fail("stat %s: %s", leaf, strerror(errno));
			break;
		}
		h_add(&ph[PH_WALK].h, now_ns() - t);
	}
	phase_end(PH_WALK, t0, &s0);
}

/*
 * ls -l: getdents64 in 32 KiB chunks and fstatat(AT_SYMLINK_NOFOLLOW) of
 * every entry but . and ..; one op = one entry, its time = its lstat plus
 * its share of the getdents call (and of the open/close of the directory)
 * that returned it.
 */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void ph_ls(int p, long rounds)
{
	static char buf[32768];
	struct mcs s0;
	uint64_t t0;
	long r;

	phase_begin(p, &t0, &s0);
	for (r = 0; r < rounds && !error[0]; r++) {
		uint64_t t = now_ns(), share;
		long n = 0, in_chunk;
		int fd = open(files_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		uint64_t overhead = now_ns() - t;	/* open */

		if (fd < 0) {
			fail("open %s: %s", files_dir, strerror(errno));
			break;
		}
		for (;;) {
			long got, off = 0;
			uint64_t tg = now_ns();

			got = getdents64(fd, buf, sizeof(buf));
			tg = now_ns() - tg;
			if (got < 0) {
				fail("getdents64 %s: %s", files_dir, strerror(errno));
				break;
			}
			if (got == 0) {
				overhead += tg;
				break;
			}
			in_chunk = 0;
			for (off = 0; off < got;) {
				struct linux_dirent64 *de = (void *)(buf + off);

				off += de->d_reclen;
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
					in_chunk++;
			}
			share = in_chunk ? (tg + overhead) / (uint64_t)in_chunk : 0;
			if (in_chunk)
				overhead = 0;
			else
				overhead += tg;
			for (off = 0; off < got && !error[0];) {
				struct linux_dirent64 *de = (void *)(buf + off);
				struct stat st;
				uint64_t ts;

				off += de->d_reclen;
				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				ts = now_ns();
				if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
					fail("lstat %s/%s: %s", files_dir, de->d_name,
					     strerror(errno));
					break;
				}
				h_add(&ph[p].h, now_ns() - ts + share);
				n++;
			}
			if (error[0])
				break;
		}
		close(fd);
		if (!error[0] && n != opt.files)
			fail("readdir %s: %ld entries, want %ld", files_dir, n, opt.files);
	}
	phase_end(p, t0, &s0);
}

static void ph_cycle(void)
{
	char path[PATH_MAX + 16];
	struct mcs s0;
	uint64_t t0, t;
	long i;

	phase_begin(PH_CYCLE, &t0, &s0);
	for (i = 0; i < opt.cycles && !error[0]; i++) {
		mcs_snp(path, sizeof(path), "%s/c%07ld", cycle_dir, i);
		t = now_ns();
		if (create_file(path, (size_t)opt.size))
			break;
		if (unlink(path)) {
			fail("unlink %s: %s", path, strerror(errno));
			break;
		}
		h_add(&ph[PH_CYCLE].h, now_ns() - t);
	}
	phase_end(PH_CYCLE, t0, &s0);
}

static void ph_unlink(void)
{
	char p[PATH_MAX];
	struct mcs s0;
	uint64_t t0, t;
	long i;

	phase_begin(PH_UNLINK, &t0, &s0);
	for (i = 0; i < opt.files; i++) {
		fname(p, sizeof(p), 'f', i);
		t = now_ns();
		if (unlink(p)) {
			if (errno == ENOENT && error[0])
				continue;	/* never created: an earlier error */
			fail("unlink %s: %s", p, strerror(errno));
			continue;
		}
		h_add(&ph[PH_UNLINK].h, now_ns() - t);
	}
	phase_end(PH_UNLINK, t0, &s0);
}

/* ------------------------------------------------------------------ */
/* set-up and clean-up */

static int setup_dirs(void)
{
	static unsigned int seq;
	char p[PATH_MAX * 2];
	long d;
	size_t off;

	for (;;) {
		mcs_snp(work, sizeof(work), "%s/mdbench.%d.%u", opt.target, (int)getpid(), seq++);
		if (!mkdir(work, 0755))
			break;
		if (errno != EEXIST) {
			fail("mkdir %s: %s", work, strerror(errno));
			return -1;
		}
	}
	mcs_snp(files_dir, sizeof(files_dir), "%s/files", work);
	mcs_snp(walk_dir, sizeof(walk_dir), "%s/walk", work);
	mcs_snp(cycle_dir, sizeof(cycle_dir), "%s/cycle", work);
	if (mkdir(files_dir, 0755) || mkdir(walk_dir, 0755) || mkdir(cycle_dir, 0755)) {
		fail("mkdir in %s: %s", work, strerror(errno));
		return -1;
	}
	off = (size_t)mcs_snp(p, sizeof(p), "%s", walk_dir);
	for (d = 1; d <= opt.depth; d++) {
		off += (size_t)mcs_snp(p + off, sizeof(p) - off, "/d%02ld", d);
		if (mkdir(p, 0755)) {
			fail("mkdir %s: %s", p, strerror(errno));
			return -1;
		}
	}
	mcs_snp(leaf, sizeof(leaf), "%s/leaf", p);
	return create_file(leaf, 0);
}

static void cleanup(void)
{
	char p[PATH_MAX * 2];
	long d;

	if (!work[0])
		return;
	if (leaf[0])
		unlink(leaf);
	mcs_snp(p, sizeof(p), "%s", leaf);
	for (d = opt.depth; d >= 1; d--) {
		char *slash = strrchr(p, '/');

		if (!slash)
			break;
		*slash = 0;
		rmdir(p);
	}
	/* leftovers of an interrupted phase */
	{
		DIR *dir = opendir(cycle_dir);
		struct dirent *de;

		while (dir && (de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			mcs_snp(p, sizeof(p), "%s/%s", cycle_dir, de->d_name);
			unlink(p);
		}
		if (dir)
			closedir(dir);
		dir = opendir(files_dir);
		while (dir && (de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			mcs_snp(p, sizeof(p), "%s/%s", files_dir, de->d_name);
			unlink(p);
		}
		if (dir)
			closedir(dir);
	}
	rmdir(cycle_dir);
	rmdir(walk_dir);
	rmdir(files_dir);
	if (rmdir(work) && !error[0])
		fail("rmdir %s: %s", work, strerror(errno));
}

static const char *fs_name(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf))
		return "unknown";
	switch ((unsigned long)sf.f_type) {
	case 0x01021994UL: return "tmpfs";
	case 0x6969UL: return "nfs";
	case 0xFF534D42UL: return "cifs";
	case 0xFE534D42UL: return "smb2";
	case MCS_SUPER_MAGIC: return "metacache";
	case 0xEF53UL: return "ext4";
	case 0x58465342UL: return "xfs";
	case 0x9123683EUL: return "btrfs";
	case 0x794c7630UL: return "overlay";
	case 0x65735546UL: return "fuse";
	case 0x01021997UL: return "9p";
	}
	mcs_snp(fsname, sizeof(fsname), "0x%lx", (unsigned long)sf.f_type);
	return fsname;
}

/* ------------------------------------------------------------------ */
/* output */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static double us(double ns)
{
	return ns / 1000.0;
}

static double mean_ns(const struct phase *p)
{
	return p->h.n ? (double)p->h.sum / (double)p->h.n : 0;
}

static double ops_per_s(const struct phase *p)
{
	return p->secs > 0 ? (double)p->h.n / p->secs : 0;
}

static void print_json(double total)
{
	int i, k, first = 1;

	printf("{\"tool\": \"mdbench\", \"version\": 1, \"label\": ");
	json_str(stdout, opt.label ? opt.label : "");
	printf(", \"target\": ");
	json_str(stdout, opt.target);
	printf(", \"fs\": ");
	json_str(stdout, fs_name(opt.target));
	printf(", \"metacache\": %s, \"counters\": %s,\n", is_mc ? "true" : "false",
	       have_mm ? "true" : "false");
	printf(" \"files\": %ld, \"rounds\": %ld, \"depth\": %ld, \"size\": %ld, \"cycles\": %ld, \"walks\": %ld, \"cold\": ",
	       opt.files, opt.rounds, opt.depth, opt.size, opt.cycles, opt.walks);
	json_str(stdout, cold_used);
	printf(", \"seconds\": %.3f, \"ok\": %s, \"error\": ", total, error[0] ? "false" : "true");
	if (error[0])
		json_str(stdout, error);
	else
		printf("null");
	printf(",\n \"phases\": {");
	for (i = 0; i < PH_NR; i++) {
		const struct phase *p = &ph[i];

		if (!p->ran)
			continue;
		printf("%s\n  \"%s\": {\"ops\": %" PRIu64 ", \"seconds\": %.6f, \"ops_per_s\": %.1f, "
		       "\"min_us\": %.2f, \"mean_us\": %.2f, \"p50_us\": %.2f, \"p90_us\": %.2f, "
		       "\"p99_us\": %.2f, \"p999_us\": %.2f, \"max_us\": %.2f",
		       first ? "" : ",", ph_names[i], p->h.n, p->secs, ops_per_s(p),
		       us((double)p->h.min), us(mean_ns(p)), us(h_pct(&p->h, 50)),
		       us(h_pct(&p->h, 90)), us(h_pct(&p->h, 99)), us(h_pct(&p->h, 99.9)),
		       us((double)p->h.max));
		first = 0;
		if (p->have_mcs) {
			uint64_t calls = mcs_calls(&p->d, MCS_ALL);
			int f2 = 1;

			printf(",\n   \"lower\": {\"calls\": %" PRIu64 ", \"calls_per_op\": %.3f, \"ops\": {",
			       calls, p->h.n ? (double)calls / (double)p->h.n : 0.0);
			for (k = 0; k < MCS_OP_NR; k++) {
				if (!p->d.op[k].calls && !p->d.op[k].avoided)
					continue;
				printf("%s\"%s\": {\"calls\": %" PRIu64 ", \"avoided\": %" PRIu64 "}",
				       f2 ? "" : ", ", mcs_op_names[k], p->d.op[k].calls,
				       p->d.op[k].avoided);
				f2 = 0;
			}
			printf("}");
			if (p->have_mcs == 1) {
				printf(", \"caches\": {");
				for (k = 0; k < MCS_CACHE_NR; k++)
					printf("%s\"%s\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
					       ", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64
					       ", \"entries\": %" PRIu64 "}",
					       k ? ", " : "", mcs_cache_names[k], p->d.cache[k].hits,
					       p->d.cache[k].misses, p->d.cache[k].expired,
					       p->d.cache[k].evicted, p->d.cache[k].entries);
				printf("}");
			}
			printf("}");
		}
		printf("}");
	}
	printf("\n }\n}\n");
}

static void print_tap(double total)
{
	int i;

	printf("TAP version 13\n1..1\n");
	printf("# mdbench%s%s: target %s (%s%s), files %ld of %ld bytes, rounds %ld, depth %ld, walks %ld, cycles %ld, cold: %s\n",
	       opt.label ? " " : "", opt.label ? opt.label : "", opt.target, fs_name(opt.target),
	       is_mc && !have_mm ? ", no debugfs counters" : "", opt.files, opt.size,
	       opt.rounds, opt.depth, opt.walks, opt.cycles, cold_used);
	printf("# %-10s %7s %10s %9s %9s %9s %9s %9s %9s %9s%s\n", "phase", "ops", "ops/s",
	       "min", "mean", "p50", "p90", "p99", "p99.9", "max",
	       have_mm ? "  lower/op" : "");
	for (i = 0; i < PH_NR; i++) {
		const struct phase *p = &ph[i];
		char lower[32] = "";

		if (!p->ran)
			continue;
		if (have_mm && p->have_mcs)
			mcs_snp(lower, sizeof(lower), "  %8.2f",
				 p->h.n ? (double)mcs_calls(&p->d, MCS_ALL) / (double)p->h.n : 0.0);
		printf("# %-10s %7" PRIu64 " %10.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f%s\n",
		       ph_names[i], p->h.n, ops_per_s(p), us((double)p->h.min), us(mean_ns(p)),
		       us(h_pct(&p->h, 50)), us(h_pct(&p->h, 90)), us(h_pct(&p->h, 99)),
		       us(h_pct(&p->h, 99.9)), us((double)p->h.max), lower);
	}
	printf("# (latencies in microseconds)\n");
	for (i = 0; i < PH_NR; i++)
		if (ph[i].ran)
			printf("# %-10s %s\n", ph_names[i], ph_what[i]);
	printf("# total %.1f s\n", total);
	if (error[0])
		printf("not ok 1 mdbench # %s\n", error);
	else
		printf("ok 1 mdbench\n");
}

static void write_tsv(void)
{
	FILE *f = fopen(opt.tsv, "a");
	int i;

	if (!f) {
		fprintf(stderr, "mdbench: %s: %s\n", opt.tsv, strerror(errno));
		return;
	}
	for (i = 0; i < PH_NR; i++) {
		const struct phase *p = &ph[i];

		if (!p->ran)
			continue;
		fprintf(f, "%s\t%s\t%" PRIu64 "\t%.2f\t%.2f\t%.2f\t%.1f\t", opt.label ? opt.label : "-",
			ph_names[i], p->h.n, us(mean_ns(p)), us(h_pct(&p->h, 50)),
			us(h_pct(&p->h, 99)), ops_per_s(p));
		if (p->have_mcs)
			fprintf(f, "%.3f\n", p->h.n ? (double)mcs_calls(&p->d, MCS_ALL) /
					     (double)p->h.n : 0.0);
		else
			fprintf(f, "-\n");
	}
	fclose(f);
}

/* ------------------------------------------------------------------ */

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: mdbench --target DIR [--files N] [--rounds R] [--depth D] [--size BYTES]\n"
		"               [--cycles C] [--walks W] [--ops LIST] [--cold auto|drop|flush|none]\n"
		"               [--json] [--tsv FILE] [--label TEXT]\n"
		"  --files N     files per phase (1000)\n"
		"  --rounds R    rounds of stat, missing-name stat and ls -l; the first is cold (3)\n"
		"  --depth D     directories above the path-walk file (8)\n"
		"  --size BYTES  bytes written to each file (4096)\n"
		"  --cycles C    create-write-close-unlink iterations (N/4)\n"
		"  --walks W     path walks (N)\n"
		"  --ops LIST    middle phases: stat,neg,open,read,walk,ls,cycle (all)\n"
		"  --cold MODE   how first rounds are made cold (auto)\n"
		"  --cold-wait MS  before dropping caches, wait for the clients' deferred\n"
		"                closes (1500)\n"
		"  --json        one JSON object instead of TAP\n"
		"  --tsv FILE    append one tab-separated line per phase to FILE\n"
		"  --label TEXT  a label for the run\n");
	exit(code);
}

static long num(const char *s, const char *name, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == 0 || *end || v < min) {
		fprintf(stderr, "mdbench: --%s: not a number >= %ld: %s\n", name, min, s);
		exit(2);
	}
	return v;
}

static unsigned int parse_ops(const char *list)
{
	static const struct { const char *n; unsigned int g; } t[] = {
		{ "stat", G_STAT }, { "neg", G_NEG }, { "open", G_OPEN }, { "read", G_READ },
		{ "walk", G_WALK }, { "ls", G_LS }, { "cycle", G_CYCLE },
		{ "create", 0 }, { "unlink", 0 },
	};
	char buf[256], *tok, *save = NULL;
	unsigned int g = 0;
	size_t i;

	mcs_snp(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (!strcmp(tok, t[i].n))
				break;
		if (i == sizeof(t) / sizeof(t[0])) {
			fprintf(stderr, "mdbench: --ops: unknown phase %s\n", tok);
			exit(2);
		}
		g |= t[i].g;
	}
	return g;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "target", required_argument, NULL, 't' },
		{ "files", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "depth", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "cycles", required_argument, NULL, 'c' },
		{ "walks", required_argument, NULL, 'w' },
		{ "ops", required_argument, NULL, 'o' },
		{ "cold", required_argument, NULL, 'C' },
		{ "cold-wait", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "tsv", required_argument, NULL, 'T' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t start;
	double total;
	int c;

	while ((c = getopt_long(argc, argv, "t:n:r:d:s:c:w:o:C:W:jT:l:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': opt.target = optarg; break;
		case 'n': opt.files = num(optarg, "files", 1); break;
		case 'r': opt.rounds = num(optarg, "rounds", 1); break;
		case 'd': opt.depth = num(optarg, "depth", 0); break;
		case 's': opt.size = num(optarg, "size", 0); break;
		case 'c': opt.cycles = num(optarg, "cycles", 0); break;
		case 'w': opt.walks = num(optarg, "walks", 0); break;
		case 'o': opt.ops = parse_ops(optarg); break;
		case 'C': opt.cold = optarg; break;
		case 'W': opt.cold_wait_ms = num(optarg, "cold-wait", 0); break;
		case 'j': opt.json = 1; break;
		case 'T': opt.tsv = optarg; break;
		case 'l': opt.label = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!opt.target || optind != argc)
		usage(2);
	if (strcmp(opt.cold, "auto") && strcmp(opt.cold, "drop") &&
	    strcmp(opt.cold, "flush") && strcmp(opt.cold, "none")) {
		fprintf(stderr, "mdbench: --cold: auto, drop, flush or none\n");
		return 2;
	}
	if (opt.cold_wait_ms > 60000) {
		fprintf(stderr, "mdbench: --cold-wait: at most 60000 ms\n");
		return 2;
	}
	if (opt.depth > 200) {
		fprintf(stderr, "mdbench: --depth: at most 200\n");
		return 2;
	}
	if (opt.cycles < 0)
		opt.cycles = opt.files / 4 ? opt.files / 4 : 1;
	if (opt.walks < 0)
		opt.walks = opt.files;
	wbuf = malloc(65536);
	if (!wbuf)
		return 1;
	memset(wbuf, 'm', 65536);

	is_mc = mcs_is_metacache(opt.target) == 1;
	if (is_mc)
		have_mm = mcs_open(&mm, opt.target, NULL, 0) == 0;

	start = now_ns();
	if (setup_dirs() == 0) {
		ph_create();
		if (!error[0] && (opt.ops & G_STAT)) {
			make_cold();
			ph_stat(PH_STAT_COLD, 'f', 1);
			if (opt.rounds > 1 && !error[0])
				ph_stat(PH_STAT, 'f', opt.rounds - 1);
		}
		if (!error[0] && (opt.ops & G_NEG)) {
			/* never looked up: cold without dropping anything
			 * (a drop here would make the open phase cold too) */
			ph_stat(PH_NEG_COLD, 'm', 1);
			if (opt.rounds > 1 && !error[0])
				ph_stat(PH_NEG, 'm', opt.rounds - 1);
		}
		if (!error[0] && (opt.ops & G_OPEN)) {
			ph_open(PH_OPEN, 0, 1);
			if (opt.rounds > 1 && !error[0])
				ph_open(PH_OPEN_WARM, 0, opt.rounds - 1);
		}
		if (!error[0] && (opt.ops & G_READ))
			ph_open(PH_READ, 1, 1);
		if (!error[0] && (opt.ops & G_WALK) && opt.walks)
			ph_walk();
		if (!error[0] && (opt.ops & G_LS)) {
			make_cold();
			ph_ls(PH_LS_COLD, 1);
			if (opt.rounds > 1 && !error[0])
				ph_ls(PH_LS, opt.rounds - 1);
		}
		if (!error[0] && (opt.ops & G_CYCLE) && opt.cycles)
			ph_cycle();
		ph_unlink();
	}
	cleanup();
	total = (double)(now_ns() - start) / 1e9;

	if (opt.json)
		print_json(total);
	else
		print_tap(total);
	if (opt.tsv)
		write_tsv();
	free(wbuf);
	return error[0] ? 1 : 0;
}
