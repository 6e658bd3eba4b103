// SPDX-License-Identifier: GPL-2.0
/*
 * stress: many processes changing one small shared tree through a
 * metacache mount, while a chaos process changes the mount's tunables,
 * flushes its caches and tries to unmount it and unload the module.
 *
 * In a fresh directory of $MC_UPPER, MC_STRESS_PROCS worker processes
 * (default 6) run for MC_STRESS_SECS seconds (default 20, cifs 12) over 32 names
 * ({"", d0/, d1/, d0/d1/} x {a..f, d0, d1}), so that they collide:
 * create+write, append, rename, link, unlink, mkdir, rmdir, truncate,
 * readdir, lstat, open-read-close, fstat of an open file, lookup of a
 * missing name.  Every failed call must fail with an errno its operation
 * can give in this workload (errno_allowed(): ENOENT, ENOTDIR; EEXIST for
 * link and mkdir; ENOTEMPTY for rename and rmdir; EISDIR; EINVAL for a
 * directory renamed under itself, and on cifs for opens (the plain cifs
 * lower gives it too); EPERM for a link to a directory; ESTALE on nfs and
 * cifs; EBUSY for rename, rmdir, unlink and EACCES for rename on cifs); the
 * histogram
 * per operation is printed, with mean and maximal latencies.
 *
 * Meanwhile one chaos process, every 50-250 ms, does one of (each once
 * in turn first, then at random):
 *  - mount -o remount with random TTLs (0, 1, 2, 5, 3600) and limits;
 *  - metacachectl set MOUNT KEY VALUE (TTLs, limits, on/off switches);
 *  - metacachectl flush MOUNT, flush --handles, flush PATH --subtree;
 *  - umount(MC_UPPER): must fail with EBUSY (this process keeps a
 *    directory of the mount open and the workers have their cwd there);
 *  - delete_module("metacache"): must fail (EWOULDBLOCK/EBUSY).
 * Every remount and metacachectl call must succeed.
 *
 * Then, with everything stopped and the mount's options put back:
 *  - no_flush: the whole tree through the stack and through the lower
 *    ($MC_LOWER) agree (names, listings, type, size, nlink) WITHOUT a
 *    flush: every change was made through the stack, so even with TTLs of
 *    3600 s no cached answer may differ from the lower (on nfs and cifs,
 *    if they differ, compared once more 2 s later: compare_settled());
 *  - after "metacachectl flush": the same;
 *  - the tree can be removed through the stack.
 * Kernel reports (WARNING, BUG, lockdep, hung task) fail the test bed run.
 *
 * A second test, detach, unmounts the stack lazily under load (see there).
 *
 * MC_STRESS_OTHER=N (default 0) makes N of the workers work on the same
 * tree through the second client ($MC_LOWER2) instead: then the stack may
 * legitimately lag (TTLs, the lower client's own caches) and the final
 * comparisons are only reported; errnos, chaos and kernel reports count.
 *
 * Without MC_UPPER (suite mode "plain") the workers run on $MC_LOWER
 * alone, with no chaos and no comparison: the lower's own errno histogram,
 * the baseline for the stacked runs.
 *
 * Environment: MC_UPPER, MC_LOWER, MC_FSTYPE, MC_MOUNT_OPTS
 * (Documentation/testbed.md); MC_STRESS_SECS, MC_STRESS_PROCS,
 * MC_STRESS_SEED, MC_STRESS_NOCHAOS=1 (no chaos process), MC_REPO (where
 * tools/metacachectl/metacachectl is).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"

#define NPFX 4
#define NBASE 8
#define NNAMES (NPFX * NBASE)
#define MAXPROCS 32

static const char *pfx[NPFX] = { "", "d0/", "d1/", "d0/d1/" };
static const char *base_names[NBASE] = { "a", "b", "c", "d", "e", "f", "d0", "d1" };

enum op {
	OP_CREATE, OP_APPEND, OP_RENAME, OP_LINK, OP_UNLINK, OP_MKDIR, OP_RMDIR,
	OP_TRUNCATE, OP_READDIR, OP_STAT, OP_READ, OP_FSTAT, OP_MISSING, NOPS
};
static const char *op_names[NOPS] = {
	"create", "append", "rename", "link", "unlink", "mkdir", "rmdir",
	"truncate", "readdir", "stat", "read", "fstat", "missing"
};

enum chaos {
	CH_REMOUNT, CH_SET, CH_FLUSH, CH_FLUSH_HANDLES, CH_FLUSH_PATH,
	CH_UMOUNT, CH_RMMOD, NCHAOS
};
static const char *chaos_names[NCHAOS] = {
	"remount", "metacachectl-set", "flush", "flush-handles",
	"flush-subtree", "umount", "rmmod"
};

struct shared {
	long ok[MAXPROCS][NOPS];
	long err[MAXPROCS][NOPS][136];
	double lat_sum[MAXPROCS][NOPS], lat_max[MAXPROCS][NOPS];
	long chaos_ok[NCHAOS];
	long chaos_err[NCHAOS];
	long bytes;
	char chaos_msg[8][256];
	int nmsg;
};

static struct shared *sh;
static char tool[PATH_MAX];
static const char *fstype = "";

/*
 * Every worker call and chaos action, in the order they ended, so that a
 * failed comparison can say which calls touched the names that differ
 * (oplog_report()).  A ring in a shared anonymous mapping, of the last
 * OPLOG_MAX calls: only the pages used cost memory.  op is an enum op, or NOPS + an enum chaos for the chaos process.
 */
struct oprec {
	double t0, t1;		/* seconds since the run started */
	unsigned char id, op;
	short err;		/* errno of a failed call, 0 if it succeeded */
	char a[16], b[64];	/* b: the second name, or what chaos set */
};

#define OPLOG_MAX (1 << 18)

struct oplog {
	long n;
	struct oprec rec[OPLOG_MAX];
};

static struct oplog *oplog;
static double oplog_t0;

/* The log, or NULL (then nothing is logged) if it cannot be mapped. */
static struct oplog *oplog_map(void)
{
	void *p = mmap(NULL, sizeof(struct oplog), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		mct_diag("no log of the calls: mmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

static void oplog_add(int id, int op, double t0, double t1, int err, const char *a,
		      const char *b)
{
	long i;
	struct oprec *r;

	if (!oplog)
		return;
	i = __atomic_fetch_add(&oplog->n, 1, __ATOMIC_RELAXED);
	r = &oplog->rec[i % OPLOG_MAX];
	r->t0 = t0 - oplog_t0;
	r->t1 = t1 - oplog_t0;
	r->id = (unsigned char)id;
	r->op = (unsigned char)op;
	r->err = (short)err;
	snprintf(r->a, sizeof(r->a), "%s", a ? a : "");
	snprintf(r->b, sizeof(r->b), "%s", b ? b : "");
}

static unsigned long long rnd_state;
static unsigned int rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rnd_state >> 33);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A random name; file operations mostly pick a..f and mkdir mostly d0, d1,
 * so that the tree keeps directories to work in (any name can still become
 * either).
 */
static void rnd_name(char *buf, size_t len, int kind)
{
	unsigned int b = rnd() % NBASE;

	if (kind == 'f' && b >= 6 && rnd() % 4)
		b = rnd() % 6;
	else if (kind == 'd' && b < 6 && rnd() % 2)
		b = 6 + rnd() % 2;
	snprintf(buf, len, "%s%s", pfx[rnd() % NPFX], base_names[b]);
}

/* Run metacachectl with up to 6 arguments; its exit status (128+sig). */
static int ctl(const char *a1, const char *a2, const char *a3, const char *a4,
	       const char *a5, const char *a6)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		execl(tool, tool, a1, a2, a3, a4, a5, a6, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void fill(char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)('a' + (seed + i) % 26);
}

/* The errnos an operation may fail with in this workload. */
static int errno_allowed(int op, int e)
{
	int nfs = !strcmp(fstype, "nfs"), cifs = !strcmp(fstype, "cifs");

	switch (e) {
	case ENOENT: case ENOTDIR:
		return 1;
	case EEXIST:
		return op == OP_LINK || op == OP_MKDIR;
	case ENOTEMPTY:
		return op == OP_RENAME || op == OP_RMDIR;
	case EISDIR:	/* open for writing, unlink, truncate, read of a dir */
		return op == OP_CREATE || op == OP_APPEND || op == OP_UNLINK ||
		       op == OP_TRUNCATE || op == OP_READ || op == OP_RENAME;
	case EINVAL:	/* a directory moved under itself */
		if (op == OP_RENAME)
			return 1;
		/*
		 * cifs: an open racing with a rename or unlink of the name
		 * fails with EINVAL now and then (Samba answers
		 * STATUS_INVALID_PARAMETER): seen on the plain cifs lower
		 * under this workload, with cifs_open() returning -EINVAL.
		 */
		return cifs && (op == OP_CREATE || op == OP_APPEND || op == OP_READ ||
				op == OP_FSTAT || op == OP_READDIR || op == OP_TRUNCATE);
	case EPERM:	/* a link to a directory */
		return op == OP_LINK;
	/*
	 * A lower's stale handle after the VFS's one retry: nfs4_file_open()
	 * returns EOPENSTALE when the name was replaced between lookup and
	 * open (seen under this workload), and a second race in the retry
	 * is reported as ESTALE; the stack does the same when it finds the
	 * lower object gone (namei.c).
	 */
	case ESTALE:
		return nfs || cifs;
	/*
	 * cifs: Samba refuses to rename a directory under which files are
	 * open (Windows semantics, STATUS_ACCESS_DENIED); seen once through
	 * the stack with the caches off, where no handle is kept, so the
	 * open files were the other workers'.
	 */
	case EACCES:
		return cifs && op == OP_RENAME;
	case EBUSY:	/* cifs: rename/rmdir/unlink of an open or busy name */
		return cifs && (op == OP_RENAME || op == OP_RMDIR || op == OP_UNLINK);
	}
	return 0;
}

static void worker(int id, double end)
{
	static char buf[65536];
	char a[64], b[64];

	rnd_state ^= (unsigned long long)(id + 1) * 0x9e3779b97f4a7c15ULL;
	while (now() < end) {
		int op = rnd() % NOPS, ret = 0, fd, e;
		double t = now(), t1;
		struct stat st;
		ssize_t w;
		DIR *d;

		rnd_name(a, sizeof(a), op == OP_MKDIR || op == OP_RMDIR ? 'd' :
				       op == OP_READDIR || op == OP_RENAME ? 0 : 'f');
		rnd_name(b, sizeof(b), op == OP_LINK ? 'f' : 0);
		errno = 0;
		switch (op) {
		case OP_CREATE:
			fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd < 0) {
				ret = -1;
				break;
			}
			w = 1 + rnd() % 16384;
			fill(buf, (size_t)w, rnd());
			w = write(fd, buf, (size_t)w);
			if (w < 0)
				ret = -1;
			else
				__atomic_add_fetch(&sh->bytes, w, __ATOMIC_RELAXED);
			if (close(fd) && !ret)
				ret = -1;
			break;
		case OP_APPEND:
			fd = open(a, O_WRONLY | O_APPEND);
			if (fd < 0) {
				ret = -1;
				break;
			}
			w = 1 + rnd() % 4096;
			fill(buf, (size_t)w, rnd());
			w = write(fd, buf, (size_t)w);
			if (w < 0)
				ret = -1;
			else
				__atomic_add_fetch(&sh->bytes, w, __ATOMIC_RELAXED);
			if (close(fd) && !ret)
				ret = -1;
			break;
		case OP_RENAME:
			ret = rename(a, b);
			break;
		case OP_LINK:
			ret = link(a, b);
			break;
		case OP_UNLINK:
			ret = unlink(a);
			break;
		case OP_MKDIR:
			ret = mkdir(a, 0755);
			break;
		case OP_RMDIR:
			ret = rmdir(a);
			break;
		case OP_TRUNCATE:
			ret = truncate(a, rnd() % 32768);
			break;
		case OP_READDIR:
			if (rnd() % 2)
				snprintf(a, sizeof(a), ".");
			d = opendir(a);
			if (!d) {
				ret = -1;
				break;
			}
			while (readdir(d))
				;
			if (errno)
				ret = -1;
			closedir(d);
			break;
		case OP_STAT:
			ret = lstat(a, &st);
			break;
		case OP_READ:
			fd = open(a, O_RDONLY);
			if (fd < 0) {
				ret = -1;
				break;
			}
			while ((w = read(fd, buf, sizeof(buf))) > 0)
				;
			if (w < 0)
				ret = -1;
			close(fd);
			break;
		case OP_FSTAT:
			fd = open(a, O_RDONLY);
			if (fd < 0) {
				ret = -1;
				break;
			}
			ret = fstat(fd, &st);
			close(fd);
			break;
		case OP_MISSING:
			snprintf(b, sizeof(b), "%smissing%u", pfx[rnd() % NPFX], rnd() % 4);
			ret = lstat(b, &st);
			if (ret && errno == ENOENT)
				ret = 0;
			break;
		}
		e = ret < 0 ? errno : 0;
		t1 = now();
		oplog_add(id, op, t, t1, e, a,
			  op == OP_RENAME || op == OP_LINK || op == OP_MISSING ? b : NULL);
		t = t1 - t;
		sh->lat_sum[id][op] += t;
		if (t > sh->lat_max[id][op])
			sh->lat_max[id][op] = t;
		if (ret < 0)
			sh->err[id][op][e > 0 && e < 136 ? e : 0]++;
		else
			sh->ok[id][op]++;
	}
}

static void chaos_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void chaos_note(const char *fmt, ...)
{
	va_list ap;
	int i = __atomic_fetch_add(&sh->nmsg, 1, __ATOMIC_RELAXED);

	if (i >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->chaos_msg[i], sizeof(sh->chaos_msg[i]), fmt, ap);
	va_end(ap);
}

static const char *rnd_ttl(void)
{
	static const char *v[] = { "0", "1", "2", "5", "3600" };

	return v[rnd() % 5];
}

static const char *rnd_limit(void)
{
	static const char *v[] = { "0", "4", "16", "1024", "65536" };

	return v[rnd() % 5];
}

static void chaos(const char *upper, const char *dir, double end)
{
	static const char *ttls[] = { "entry_ttl", "neg_ttl", "attr_ttl", "dir_ttl", "close_ttl" };
	static const char *lims[] = { "max_entries", "max_neg", "max_handles" };
	static const char *sw[] = { "entry", "neg", "attr", "dir", "handle" };

	const char *key, *val;
	int first = 0;
	double t0;

	rnd_state ^= 0xc4a05;
	while (now() < end) {
		/* each action once first: on cifs the lower's stalls leave time for few */
		int c = first < NCHAOS ? first++ : (int)(rnd() % NCHAOS), r = 0, k;
		char opts[512], path[PATH_MAX];
		size_t off = 0;

		usleep(50000 + rnd() % 200000);
		t0 = now();
		key = val = NULL;
		switch (c) {
		case CH_REMOUNT:
			opts[0] = 0;
			for (k = 0; k < 5; k++)
				if (rnd() % 2)
					off += (size_t)snprintf(opts + off, sizeof(opts) - off, "%s%s=%s",
								off ? "," : "", ttls[k], rnd_ttl());
			for (k = 0; k < 3; k++)
				if (rnd() % 3 == 0)
					off += (size_t)snprintf(opts + off, sizeof(opts) - off, "%s%s=%s",
								off ? "," : "", lims[k], rnd_limit());
			r = mount(NULL, upper, NULL, MS_REMOUNT, opts);
			if (r)
				chaos_note("mount -o remount,%s %s: %s", opts, upper, strerror(errno));
			break;
		case CH_SET:
			k = rnd() % 3;
			if (k == 0) {
				key = ttls[rnd() % 5];

				val = rnd_ttl();
				r = ctl("set", upper, key, val, NULL, NULL);
				if (r)
					chaos_note("metacachectl set %s %s: exit %d", upper, key, r);
			} else if (k == 1) {
				key = lims[rnd() % 3];

				val = rnd_limit();
				r = ctl("set", upper, key, val, NULL, NULL);
				if (r)
					chaos_note("metacachectl set %s %s: exit %d", upper, key, r);
			} else {
				key = sw[rnd() % 5];

				val = rnd() % 2 ? "on" : "off";
				r = ctl("set", upper, key, val, NULL, NULL);
				if (r)
					chaos_note("metacachectl set %s %s on/off: exit %d", upper, key, r);
			}
			break;
		case CH_FLUSH:
			r = ctl("flush", upper, NULL, NULL, NULL, NULL);
			if (r)
				chaos_note("metacachectl flush %s: exit %d", upper, r);
			break;
		case CH_FLUSH_HANDLES:
			r = ctl("flush", upper, "--handles", NULL, NULL, NULL);
			if (r)
				chaos_note("metacachectl flush %s --handles: exit %d", upper, r);
			break;
		case CH_FLUSH_PATH:
			/* the work directory always exists; its subdirs may not */
			if (rnd() % 2) {
				key = "--subtree";
				val = ".";
				r = ctl("flush", upper, dir, "--subtree", NULL, NULL);
				if (r)
					chaos_note("metacachectl flush %s %s --subtree: exit %d", upper,
						   dir, r);
			} else {
				key = "--handles";
				val = pfx[1 + rnd() % 3];
				snprintf(path, sizeof(path), "%s/%s", dir, val);
				ctl("flush", upper, path, "--handles", NULL, NULL);
			}
			break;
		case CH_UMOUNT:
			if (umount2(upper, 0) == 0) {
				chaos_note("umount %s succeeded while the mount was busy", upper);
				r = 1;
			} else if (errno != EBUSY) {
				chaos_note("umount %s: %s (expected EBUSY)", upper, strerror(errno));
				r = 1;
			}
			break;
		case CH_RMMOD:
			if (mc_rmmod("metacache") == 0) {
				chaos_note("delete_module(metacache) succeeded while mounted");
				r = 1;
			} else if (errno != EWOULDBLOCK && errno != EBUSY) {
				chaos_note("delete_module(metacache): %s (expected EWOULDBLOCK or EBUSY)",
					   strerror(errno));
				r = 1;
			}
			break;
		}
		if (c == CH_REMOUNT)
			val = opts;
		oplog_add(MAXPROCS, NOPS + c, t0, now(), r, key, val);
		if (r)
			sh->chaos_err[c]++;
		else
			sh->chaos_ok[c]++;
	}
}

/* The tunables of MC_UPPER in /proc/mounts, as "key=value,...". */
static int mount_opts(const char *upper, char *out, size_t len)
{
	char line[4096], mp[PATH_MAX], type[64], optbuf[2048];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	out[0] = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;
		size_t off = 0;

		if (sscanf(line, "%*s %4095s %63s %2047s", mp, type, optbuf) != 3)
			continue;
		if (strcmp(mp, upper) || strcmp(type, "metacache"))
			continue;
		for (tok = strtok_r(optbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (strstr(tok, "_ttl=") || !strncmp(tok, "max_", 4))
				off += (size_t)snprintf(out + off, len - off, "%s%s", off ? "," : "", tok);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* A sorted dump of the tree: "path type size nlink" per line. */
struct ent {
	char line[256];
};

static int cmp_ent(const void *x, const void *y)
{
	return strcmp(((const struct ent *)x)->line, ((const struct ent *)y)->line);
}

static void dump(const char *root, const char *rel, struct ent *out, int *n, int max)
{
	char p[PATH_MAX], r[512];
	struct dirent *e;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	d = opendir(p);
	if (!d) {
		if (*n < max)
			snprintf(out[(*n)++].line, 256, "%s/ opendir: %s", rel, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char type;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(r, sizeof(r), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snprintf(p, sizeof(p), "%s/%s", root, r);
		if (*n >= max)
			break;
		if (lstat(p, &st)) {
			snprintf(out[(*n)++].line, 256, "%s lstat: %s", r, strerror(errno));
			continue;
		}
		type = S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : '?';
		snprintf(out[(*n)++].line, 256, "%s %c size=%lld nlink=%lu mode=%o", r, type,
			 type == 'd' ? 0LL : (long long)st.st_size, (unsigned long)st.st_nlink,
			 st.st_mode);
		if (type == 'd')
			dump(root, r, out, n, max);
	}
	closedir(d);
}

#define MAXENT 4096
#define MAXDIFF 8

/* The paths that differed in the last compare(), for oplog_report(). */
static char diff_path[MAXDIFF][256];
static int ndiff;

static void note_diff(const char *line)
{
	if (ndiff < MAXDIFF)
		snprintf(diff_path[ndiff++], sizeof(diff_path[0]), "%.*s",
			 (int)strcspn(line, " "), line);
}

/* Whether the last component of @path is one of @names. */
static int base_in(const char *path, char names[][64], int n)
{
	const char *base = strrchr(path, '/');
	int i;

	base = base ? base + 1 : path;
	for (i = 0; i < n; i++)
		if (*base && !strcmp(base, names[i]))
			return 1;
	return 0;
}

/*
 * After a failed comparison: the calls whose names end in a component of
 * a differing path (for "c/f": any call on a name "c" or "f", in any
 * directory, as directories are renamed), the last 120 of them, oldest
 * first; and the whole log in $MC_RESULTS/stress-oplog.<pid>.txt when the
 * test bed collects results.
 */
static void oplog_report(const char *what)
{
	char names[4 * MAXDIFF][64], file[PATH_MAX];
	const char *res = mc_env("MC_RESULTS");
	long n, i, first, last, shown = 0;
	int nn = 0, k;
	FILE *f;

	if (!oplog || !ndiff)
		return;
	last = oplog->n;
	n = last < OPLOG_MAX ? last : OPLOG_MAX;
	for (k = 0; k < ndiff; k++) {
		char tmp[256], *tok, *save = NULL;

		snprintf(tmp, sizeof(tmp), "%s", diff_path[k]);
		for (tok = strtok_r(tmp, "/", &save); tok && nn < 4 * MAXDIFF;
		     tok = strtok_r(NULL, "/", &save))
			snprintf(names[nn++], sizeof(names[0]), "%s", tok);
	}
	for (first = last; first > last - n && shown < 120; first--) {
		const struct oprec *r = &oplog->rec[(first - 1) % OPLOG_MAX];

		if (r->op < NOPS && (base_in(r->a, names, nn) || base_in(r->b, names, nn)))
			shown++;
	}
	mct_diag("%s: the %ld calls (of %ld) on names ending in a component of a differing path:",
		 what, shown, n);
	for (i = first; i < last; i++) {
		const struct oprec *r = &oplog->rec[i % OPLOG_MAX];

		if (r->op < NOPS && (base_in(r->a, names, nn) || base_in(r->b, names, nn)))
			mct_diag("  %9.4f-%9.4f w%d %-8s %-14s %-14s %s", r->t0, r->t1, r->id,
				 op_names[r->op], r->a, r->b, r->err ? strerrorname_np(r->err) : "ok");
	}
	if (!res)
		return;
	snprintf(file, sizeof(file), "%s/stress-oplog.%d.txt", res, getpid());
	f = fopen(file, "w");
	if (!f)
		return;
	for (i = last - n; i < last; i++) {
		const struct oprec *r = &oplog->rec[i % OPLOG_MAX];

		if (r->op < NOPS)
			fprintf(f, "%9.4f %9.4f w%d %s %s %s %s\n", r->t0, r->t1, r->id,
				op_names[r->op], r->a, *r->b ? r->b : "-",
				r->err ? strerrorname_np(r->err) : "ok");
		else
			fprintf(f, "%9.4f %9.4f chaos %s %s %s %d\n", r->t0, r->t1,
				chaos_names[r->op - NOPS], *r->a ? r->a : "-",
				*r->b ? r->b : "-", r->err);
	}
	fclose(f);
	mct_diag("%s: the last %ld calls and chaos actions in %s", what, n, file);
}

/* Compare the stack's and the lower's view of the tree; number of diffs. */
static int compare(const char *what, const char *ubase, const char *lbase)
{
	static struct ent u[MAXENT], l[MAXENT];
	int nu = 0, nl = 0, i = 0, j = 0, bad = 0;

	ndiff = 0;

	dump(ubase, "", u, &nu, MAXENT);
	dump(lbase, "", l, &nl, MAXENT);
	qsort(u, (size_t)nu, sizeof(u[0]), cmp_ent);
	qsort(l, (size_t)nl, sizeof(l[0]), cmp_ent);
	while (i < nu || j < nl) {
		int c = i >= nu ? 1 : j >= nl ? -1 : strcmp(u[i].line, l[j].line);

		if (!c) {
			i++;
			j++;
			continue;
		}
		note_diff(c < 0 ? u[i].line : l[j].line);
		if (bad++ < 20) {
			if (c < 0)
				mct_diag("  %s: only the stack has: %s", what, u[i].line);
			else
				mct_diag("  %s: only the lower has: %s", what, l[j].line);
		}
		if (c < 0)
			i++;
		else
			j++;
	}
	mct_diag("%s: stack %d entries, lower %d entries, %d differences", what, nu, nl, bad);
	if (bad)
		oplog_report(what);
	return bad;
}

/*
 * compare(), and once more 2 s later if it found differences on a network
 * lower: the one that counts.  A file removed while in use stays listed
 * until its last handle closes (SMB "delete pending", NFS .nfsXXXX), and
 * the cifs client closes a handle up to closetimeo (1 s) after the last
 * close(): such a name can go between the stack's walk and the lower's,
 * which are not taken at the same instant.  A cached answer that is
 * wrong stays for its TTL (an hour here), so it still shows the second
 * time.
 */
static int compare_settled(const char *what, const char *ubase, const char *lbase)
{
	int bad = compare(what, ubase, lbase);

	if (bad && (!strcmp(fstype, "cifs") || !strcmp(fstype, "nfs"))) {
		mct_diag("%s: again in 2 s (a name removed while in use may just have gone)", what);
		sleep(2);
		bad = compare(what, ubase, lbase);
	}
	return bad;
}

/* The first name rm_tree() could not remove, and why. */
static char rm_failed[PATH_MAX];
static int rm_errno;

static void rm_note(const char *path)
{
	if (!rm_failed[0]) {
		rm_errno = errno;
		snprintf(rm_failed, sizeof(rm_failed), "%s", path);
	}
}

static int rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char p[PATH_MAX];
	int ret = 0;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		rm_note(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = unlink(path);
		if (ret)
			rm_note(path);
		return ret;
	}
	d = opendir(path);
	if (!d) {
		rm_note(path);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (rm_tree(p))
			ret = -1;
	}
	closedir(d);
	if (rmdir(path)) {
		rm_note(path);
		ret = -1;
	}
	return ret;
}

/*
 * Remove the tree @path through the stack.  SMB: a file a worker unlinked
 * while open stays listed, "delete pending", until its last handle closes,
 * and the cifs client itself keeps a closed handle for closetimeo (1 s):
 * removing that name meanwhile gives ENOENT, on the lower as through the
 * stack.  On cifs, once more after the client's deferred closes; the tree
 * must go then.  On failure errno is that of the first name not removed.
 */
static int rm_tree_settled(const char *path)
{
	int r;

	rm_failed[0] = '\0';
	r = rm_tree(path);
	if (r && rm_errno == ENOENT && !strcmp(fstype, "cifs")) {
		mct_diag("removing %s: ENOENT at %s (an SMB delete-pending name?), again in 2 s",
			 path, rm_failed);
		sleep(2);
		rm_failed[0] = '\0';
		r = rm_tree(path);
	}
	if (r) {
		mct_diag("removing %s: first failure at %s", path, rm_failed);
		errno = rm_errno;
	}
	return r;
}

MCT_TEST(stress)
{
	const char *up = mc_env("MC_UPPER"), *lo = mc_env("MC_LOWER");
	/* cifs: shorter, each ~35 s lease-break stall of the lower adds to it */
	int secs = mc_env("MC_STRESS_SECS") ? atoi(getenv("MC_STRESS_SECS")) :
		   mc_env("MC_FSTYPE") && !strcmp(getenv("MC_FSTYPE"), "cifs") ? 12 : 20;
	int nprocs = mc_env("MC_STRESS_PROCS") ? atoi(getenv("MC_STRESS_PROCS")) : 6;
	int nother = mc_env("MC_STRESS_OTHER") ? atoi(getenv("MC_STRESS_OTHER")) : 0;
	const char *lo2 = mc_env("MC_LOWER2");
	char obase[PATH_MAX];
	int nochaos = mc_env("MC_STRESS_NOCHAOS") != NULL, plain = 0;
	char ubase[PATH_MAX], lbase[PATH_MAX], opts[1024], opts2[1024];
	pid_t pids[MAXPROCS + 1];
	long tot_ok = 0, tot_err = 0, hist[136] = { 0 };
	int i, op, e, dirfd, status, bad;
	unsigned int seed;
	double t0, end;

	if (!lo)
		MCT_SKIP("MC_LOWER not set: not in the test bed");
	if (!up) {
		/* The lower alone: the baseline of its errnos, nothing else. */
		plain = nochaos = 1;
		up = lo;
	} else if (geteuid()) {
		MCT_SKIP("needs root (remount, umount, delete_module attempts)");
	} else if (mc_find_ctl(tool, sizeof(tool))) {
		MCT_SKIP("tools/metacachectl/metacachectl not built (MC_REPO)");
	}
	fstype = mc_env("MC_FSTYPE") ? getenv("MC_FSTYPE") : "";
	if (nprocs < 1 || nprocs > MAXPROCS)
		nprocs = 6;
	if (nother < 0 || nother >= nprocs || !lo2 || plain)
		nother = 0;
	if (secs < 1)
		secs = 1;
	seed = mc_env("MC_STRESS_SEED") ? (unsigned int)atoi(getenv("MC_STRESS_SEED")) :
					  (unsigned int)time(NULL);
	rnd_state = seed;
	if (plain)
		snprintf(opts, sizeof(opts), "(none: the lower alone, no metacache)");
	else
		MCT_ASSERT(mount_opts(up, opts, sizeof(opts)) == 0, "%s is not a metacache mount", up);
	mct_diag("seed %u (MC_STRESS_SEED), %d workers (%d of them on the second client), %d s, chaos %s, %s options %s",
		 seed, nprocs, nother, secs, nochaos ? "off" : "on", fstype, opts);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));

	oplog = oplog_map();
	snprintf(ubase, sizeof(ubase), "%s/stress.%d", up, getpid());
	snprintf(lbase, sizeof(lbase), "%s/stress.%d", lo, getpid());
	snprintf(obase, sizeof(obase), "%s/stress.%d", lo2 ? lo2 : lo, getpid());
	rm_tree(ubase);
	MCT_ASSERT(mkdir(ubase, 0755) == 0, "mkdir %s: %s", ubase, strerror(errno));
	/* Keeps the mount busy whatever the workers do. */
	dirfd = open(ubase, O_RDONLY | O_DIRECTORY);
	MCT_ASSERT(dirfd >= 0, "open %s: %s", ubase, strerror(errno));

	t0 = now();
	oplog_t0 = t0;
	end = t0 + secs;
	for (i = 0; i <= nprocs; i++) {
		pids[i] = fork();
		MCT_ASSERT(pids[i] >= 0, "fork: %s", strerror(errno));
		if (pids[i] == 0) {
			if (chdir(i < nprocs - nother ? ubase : obase))
				_exit(3);
			if (i < nprocs)
				worker(i, end);
			else if (!nochaos)
				chaos(up, ubase, end);
			_exit(0);
		}
	}
	for (i = 0; i <= nprocs; i++) {
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		MCT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			   "%s %d died: status 0x%x", i < nprocs ? "worker" : "chaos", i, status);
	}
	mct_diag("ran %.1f s, %ld bytes written", now() - t0, sh->bytes);

	/* The operations: per type ok/failed, the errno histogram. */
	for (op = 0; op < NOPS; op++) {
		long ok = 0, err = 0;
		double lsum = 0, lmax = 0;
		char line[1024];
		size_t off = 0;

		line[0] = 0;
		for (e = 0; e < 136; e++) {
			long c = 0;

			for (i = 0; i < nprocs; i++)
				c += sh->err[i][op][e];
			if (!c)
				continue;
			err += c;
			hist[e] += c;
			off += (size_t)snprintf(line + off, sizeof(line) - off, " %s:%ld",
						e ? strerrorname_np(e) : "?", c);
		}
		for (i = 0; i < nprocs; i++) {
			ok += sh->ok[i][op];
			lsum += sh->lat_sum[i][op];
			if (sh->lat_max[i][op] > lmax)
				lmax = sh->lat_max[i][op];
		}
		tot_ok += ok;
		tot_err += err;
		mct_diag("  %-8s ok %6ld failed %6ld mean %7.2f ms max %8.1f ms%s", op_names[op], ok,
			 err, ok + err ? lsum * 1e3 / (double)(ok + err) : 0.0, lmax * 1e3, line);
	}
	mct_diag("operations: %ld, %ld succeeded, %ld failed", tot_ok + tot_err, tot_ok, tot_err);
	for (e = 0; e < 136; e++)
		if (hist[e])
			mct_diag("  errno %-10s %ld", e ? strerrorname_np(e) : "?", hist[e]);
	/* Enforced for the stack's workers; the second client's are the lower's. */
	for (op = 0; op < NOPS; op++)
		for (e = 0; e < 136; e++) {
			long c = 0, o = 0;

			for (i = 0; i < nprocs - nother; i++)
				c += sh->err[i][op][e];
			for (; i < nprocs; i++)
				o += sh->err[i][op][e];
			MCT_EXPECT(!c || (e && errno_allowed(op, e)),
				   "%ld %s calls failed with an unexpected errno %d (%s) on %s", c,
				   op_names[op], e, e ? strerror(e) : "?", fstype);
			if (o && !(e && errno_allowed(op, e)))
				mct_diag("  (the second client's workers: %ld %s calls failed with %s)", o,
					 op_names[op], e ? strerrorname_np(e) : "?");
		}
	MCT_EXPECT(tot_ok > 0, "no operation succeeded");
	for (i = 0; i < NCHAOS; i++)
		mct_diag("  chaos %-14s %ld ok, %ld failed", chaos_names[i], sh->chaos_ok[i],
			 sh->chaos_err[i]);
	for (i = 0; i < sh->nmsg && i < 8; i++)
		mct_diag("  chaos: %s", sh->chaos_msg[i]);
	MCT_EXPECT(nochaos || sh->nmsg == 0, "%d chaos actions failed", sh->nmsg);
	if (plain) {
		close(dirfd);
		MCT_EXPECT(rm_tree_settled(ubase) == 0, "removing %s: %s", ubase, strerror(errno));
		munmap(sh, sizeof(*sh));
		if (oplog)
			munmap(oplog, sizeof(*oplog));
		oplog = NULL;
		return;
	}

	/* The mount's tunables back: the remount, then switches on. */
	MCT_EXPECT(mount(NULL, up, NULL, MS_REMOUNT, opts) == 0, "mount -o remount,%s %s: %s",
		   opts, up, strerror(errno));
	i = ctl("set", up, "entry", "on", "neg", "on");
	MCT_EXPECT(i == 0, "metacachectl set %s entry on neg on: exit %d", up, i);
	i = ctl("set", up, "attr", "on", "dir", "on");
	MCT_EXPECT(i == 0, "metacachectl set %s attr on dir on: exit %d", up, i);
	i = ctl("set", up, "handle", "on", NULL, NULL);
	MCT_EXPECT(i == 0, "metacachectl set %s handle on: exit %d", up, i);
	MCT_EXPECT(mount_opts(up, opts2, sizeof(opts2)) == 0 && !strcmp(opts, opts2),
		   "the options are %s after putting back %s", opts2, opts);

	/* Stack against lower: without a flush first, then after one. */
	bad = compare_settled("no_flush", ubase, lbase);
	MCT_EXPECT(!bad || nother, "without a flush, the stack and the lower differ in %d entries",
		   bad);
	i = ctl("flush", up, "--handles", NULL, NULL, NULL);
	MCT_EXPECT(i == 0, "metacachectl flush %s --handles: exit %d", up, i);
	bad = compare_settled("after_flush", ubase, lbase);
	MCT_EXPECT(!bad || nother, "after a flush, the stack and the lower differ in %d entries",
		   bad);
	if (nother && bad)
		mct_diag("(not a failure with workers on the second client: the lower client's own caches may lag)");

	close(dirfd);
	MCT_EXPECT(rm_tree_settled(ubase) == 0, "removing %s through the stack: %s", ubase,
		   strerror(errno));
	MCT_EXPECT(access(ubase, F_OK) && errno == ENOENT, "%s still there after removal", ubase);
	MCT_EXPECT(access(lbase, F_OK) && errno == ENOENT, "%s still on the lower after removal",
		   lbase);
	munmap(sh, sizeof(*sh));
	if (oplog)
		munmap(oplog, sizeof(*oplog));
	oplog = NULL;
}

/*
 * detach: a lazy unmount (umount -l) of the stack while workers run on
 * it: it succeeds, the workers go on in the detached tree, delete_module
 * is refused while they do, and when the last of them is gone the
 * superblock is torn down under load (kill_sb, kept handles, deferred
 * puts) in the context of an exiting process.  Then the stack is mounted
 * again with its options, shows the same tree as the lower, and the tree
 * is removed.  MC_STRESS_DETACH_SECS (default 6, cifs 4) in all.
 */
MCT_TEST(detach)
{
	const char *up = mc_env("MC_UPPER"), *lo = mc_env("MC_LOWER");
	int secs = mc_env("MC_STRESS_DETACH_SECS") ? atoi(getenv("MC_STRESS_DETACH_SECS")) :
		   mc_env("MC_FSTYPE") && !strcmp(getenv("MC_FSTYPE"), "cifs") ? 4 : 6;
	char ubase[PATH_MAX], lbase[PATH_MAX], opts[1024];
	pid_t pids[4];
	int i, status, bad, r;
	double end;

	if (!up || !lo)
		MCT_SKIP("MC_UPPER/MC_LOWER not set: not on a metacache mount");
	if (geteuid())
		MCT_SKIP("needs root (umount, mount, delete_module)");
	fstype = mc_env("MC_FSTYPE") ? getenv("MC_FSTYPE") : "";
	if (secs < 2)
		secs = 2;
	MCT_ASSERT(mount_opts(up, opts, sizeof(opts)) == 0, "%s is not a metacache mount", up);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));
	rnd_state = (unsigned long long)time(NULL);
	snprintf(ubase, sizeof(ubase), "%s/detach.%d", up, getpid());
	snprintf(lbase, sizeof(lbase), "%s/detach.%d", lo, getpid());
	MCT_ASSERT(mkdir(ubase, 0755) == 0, "mkdir %s: %s", ubase, strerror(errno));
	oplog = oplog_map();

	oplog_t0 = now();
	end = oplog_t0 + secs;
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		MCT_ASSERT(pids[i] >= 0, "fork: %s", strerror(errno));
		if (pids[i] == 0) {
			if (chdir(ubase))
				_exit(3);
			worker(i, end);
			_exit(0);
		}
	}
	usleep((useconds_t)(secs * 1000000 / 3));
	r = umount2(up, MNT_DETACH);
	MCT_EXPECT(r == 0, "umount -l %s while busy: %s", up, strerror(errno));
	r = mc_rmmod("metacache");
	MCT_EXPECT(r == -EWOULDBLOCK || r == -EBUSY,
		   "delete_module(metacache) with a detached but busy mount: %s (expected EWOULDBLOCK or EBUSY)",
		   r ? strerror(-r) : "succeeded");
	for (i = 0; i < 4; i++) {
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		MCT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d died: status 0x%x",
			   i, status);
	}
	for (i = 0; i < 4; i++) {
		long ok = 0, err = 0;
		int op, e;

		for (op = 0; op < NOPS; op++) {
			ok += sh->ok[i][op];
			for (e = 0; e < 136; e++) {
				err += sh->err[i][op][e];
				MCT_EXPECT(!sh->err[i][op][e] || (e && errno_allowed(op, e)),
					   "%ld %s calls failed with an unexpected errno %d (%s)",
					   sh->err[i][op][e], op_names[op], e, e ? strerror(e) : "?");
			}
		}
		mct_diag("worker %d: %ld calls succeeded, %ld failed", i, ok, err);
	}

	/* Mounted again, with the same options, as the runner expects. */
	r = mount(lo, up, "metacache", 0, opts);
	MCT_ASSERT(r == 0, "mount -t metacache -o %s %s %s: %s", opts, lo, up, strerror(errno));
	bad = compare_settled("remounted", ubase, lbase);
	MCT_EXPECT(!bad, "after the remount, the stack and the lower differ in %d entries", bad);
	r = rm_tree_settled(ubase);
	MCT_EXPECT(r == 0, "removing %s through the stack: %s", ubase, strerror(errno));
	munmap(sh, sizeof(*sh));
	if (oplog)
		munmap(oplog, sizeof(*oplog));
	oplog = NULL;
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
