/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachelib.h - shared helpers of metacache's cache tests (tests/cache/).
 *
 * Header-only, included by each test program after mctest.h.  It gives:
 *
 *  - the test bed environment (cl_env: MC_FSTYPE, MC_LOWER, MC_UPPER,
 *    MC_LOWER2, MC_TEST_UID/GID) and the mount's debugfs counters
 *    (mcstats.h), checked once per test by CL_TEST;
 *  - a work directory per test: c->up (through the stack), c->lo (the same
 *    directory on the lower client) and c->lo2 (the same directory seen by
 *    the OTHER client, MC_LOWER2; on tmpfs the lower itself), and c->srv
 *    (the server's own directory, MC_SERVER, for fixtures made quickly);
 *  - the mount's tunables: cl_remount("attr_ttl=2,...") changes them for
 *    the test, and they are put back as they were when the test ends (also
 *    when it fails; after a timeout kill, main() puts them back);
 *  - counter snapshots and deltas: cl_snap(), cl_since();
 *  - the visibility prober (cl_probe, cl_poll): after a change made by the
 *    other client, polls the object through the stack and directly on the
 *    lower, and records when each first shows the change.
 *
 * A test is written as
 *
 *	CL_TEST(name)
 *	{
 *		... c is a struct cl_ctx * with the work directories ...
 *	}
 *	CL_MAIN()
 *
 * A test run outside the test bed (MC_UPPER unset) is skipped with the
 * reason; a test on a mount whose debugfs counters cannot be found fails
 * (the counters are part of the module's contract).
 */
#ifndef CACHELIB_H
#define CACHELIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mctest.h"
#include "mcutil.h"
#include "mcstats.h"

/* ------------------------------------------------------------------ */
/* environment */

struct cl_env {
	const char *fstype;	/* tmpfs | nfs | cifs */
	const char *lower;	/* MC_LOWER */
	const char *upper;	/* MC_UPPER */
	const char *lower2;	/* MC_LOWER2 (MC_LOWER when unset) */
	uid_t uid;
	gid_t gid;
	int other_is_lower;	/* MC_LOWER2 is MC_LOWER (tmpfs) */
	struct mcs_mount mm;
};
static struct cl_env cl;

static inline int cl_fs(const char *name)
{
	return cl.fstype && !strcmp(cl.fstype, name);
}

/* snprintf() without -Wformat-truncation's opinion on long test paths. */
#define cl_snp mcs_snp

/* Loads cl; 1 = ready, 0 = skip (why set), -1 = fail (why set). */
static inline int cl_env_load(char *why, size_t n)
{
	const char *s;
	struct stat a, b;
	int r;

	cl.upper = mc_env("MC_UPPER");
	cl.lower = mc_env("MC_LOWER");
	if (!cl.upper || !cl.lower) {
		cl_snp(why, n, "MC_UPPER and MC_LOWER not set: not in the test bed (see Documentation/testbed.md)");
		return 0;
	}
	cl.fstype = mc_env("MC_FSTYPE") ? mc_env("MC_FSTYPE") : "unknown";
	cl.lower2 = mc_env("MC_LOWER2") ? mc_env("MC_LOWER2") : cl.lower;
	s = mc_env("MC_TEST_UID");
	cl.uid = s ? (uid_t)atoi(s) : 65534;
	s = mc_env("MC_TEST_GID");
	cl.gid = s ? (gid_t)atoi(s) : 65534;
	if (stat(cl.upper, &a) || stat(cl.lower, &b)) {
		cl_snp(why, n, "stat %s or %s: %s", cl.upper, cl.lower, strerror(errno));
		return -1;
	}
	if (mcs_is_metacache(cl.upper) != 1) {
		cl_snp(why, n, "%s is not a metacache mount", cl.upper);
		return 0;
	}
	cl.other_is_lower = !strcmp(cl.lower, cl.lower2);
	r = mcs_open(&cl.mm, cl.upper, why, n);
	if (r)
		return -1;
	return 1;
}

/* ------------------------------------------------------------------ */
/* time */

static inline double cl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void cl_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* tunables */

struct cl_tun {
	unsigned int v[8];
	int valid;
};
static const char *const cl_tun_names[8] = {
	"entry_ttl", "neg_ttl", "attr_ttl", "dir_ttl", "close_ttl",
	"max_entries", "max_neg", "max_handles",
};
static struct cl_tun cl_saved_tun;

/* The tunables of MC_UPPER as /proc/self/mounts shows them: 0 or -errno. */
static inline int cl_tun_get(struct cl_tun *t)
{
	char line[4096], *f[6], *save, *o;
	FILE *fp = fopen("/proc/self/mounts", "r");
	int i, found = 0;

	memset(t, 0, sizeof(*t));
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		save = NULL;
		f[0] = strtok_r(line, " ", &save);
		for (i = 1; i < 6; i++)
			f[i] = f[i - 1] ? strtok_r(NULL, " ", &save) : NULL;
		if (!f[3] || strcmp(f[1], cl.upper) || strcmp(f[2], "metacache"))
			continue;
		found = 1;
		memset(t, 0, sizeof(*t));	/* the last (top) mount wins */
		for (o = strtok_r(f[3], ",", &save); o; o = strtok_r(NULL, ",", &save))
			for (i = 0; i < 8; i++) {
				size_t l = strlen(cl_tun_names[i]);

				if (!strncmp(o, cl_tun_names[i], l) && o[l] == '=') {
					t->v[i] = (unsigned int)strtoul(o + l + 1, NULL, 10);
					t->valid |= 1 << i;
				}
			}
	}
	fclose(fp);
	return found ? 0 : -ENOENT;
}

/* mount -o remount,OPTS MC_UPPER: 0 or -errno. */
static inline int cl_remount_raw(const char *opts)
{
	if (mount(NULL, cl.upper, NULL, MS_REMOUNT, opts))
		return -errno;
	return 0;
}

static inline int cl_tun_set(const struct cl_tun *t)
{
	char opts[512];
	size_t off = 0;
	int i;

	opts[0] = 0;
	for (i = 0; i < 8; i++)
		if (t->valid & (1 << i))
			off += (size_t)snprintf(opts + off, sizeof(opts) - off, "%s%s=%u",
						off ? "," : "", cl_tun_names[i], t->v[i]);
	if (!off)
		return 0;
	return cl_remount_raw(opts);
}

/* Remount with OPTS; the test's end puts the old values back. */
#define CL_REMOUNT(opts)						\
	do {								\
		int __r = cl_remount_raw(opts);				\
		MCT_ASSERT(__r == 0, "mount -o remount,%s %s: %s", (opts), \
			   cl.upper, strerror(-__r));			\
	} while (0)

/* All four TTLs at once. */
#define CL_TTLS(secs)							\
	do {								\
		char __o[160];						\
		cl_snp(__o, sizeof(__o),				\
		       "entry_ttl=%u,neg_ttl=%u,attr_ttl=%u,dir_ttl=%u",	\
		       (unsigned)(secs), (unsigned)(secs), (unsigned)(secs), \
		       (unsigned)(secs));				\
		CL_REMOUNT(__o);					\
	} while (0)

/* ------------------------------------------------------------------ */
/* counters */

/* Snapshot (fails the test on error). */
#define CL_SNAP(s)							\
	do {								\
		int __r = mcs_read(&cl.mm, (s));			\
		MCT_ASSERT(__r == 0, "read %s/stats: %s", cl.mm.dir, strerror(-__r)); \
		MCT_ASSERT(!(s)->old_format && (s)->caches_seen == (1U << MCS_CACHE_NR) - 1, \
			   "%s/stats has no \"op ... avoided\" and \"cache\" lines: the module has no caches (yet)", \
			   cl.mm.dir);					\
	} while (0)

/* d = now - before. */
#define CL_SINCE(d, before)						\
	do {								\
		struct mcs __now;					\
		CL_SNAP(&__now);					\
		mcs_sub((d), &__now, (before));				\
	} while (0)

#define CL_FLUSH()							\
	do {								\
		int __r = mcs_flush(&cl.mm);				\
		MCT_ASSERT(__r == 0, "write 1 to %s/flush: %s", cl.mm.dir, strerror(-__r)); \
	} while (0)

/* Rotating buffers for messages. */
static inline char *cl_buf(void)
{
	static char b[8][1024];
	static int i;

	return b[i++ & 7];
}

static inline const char *cl_calls(const struct mcs *d)
{
	return mcs_fmt_calls(d, cl_buf(), 1024);
}

static inline const char *cl_caches(const struct mcs *d)
{
	return mcs_fmt_caches(d, cl_buf(), 1024);
}

/*
 * Did a lookup (of a cached name, after its TTL ran out) go to the lower?
 * On a lower with ->d_revalidate (nfs, cifs) that is a revalidate or lookup
 * call.  A lower without one (tmpfs) keeps its whole namespace in the
 * dcache: checking the lower dentry is asking the lower, and is no call to
 * count; there the sign is that CACHE counted no hit.
 */
static inline int cl_lookup_reached_lower(const struct mcs *d, int cache)
{
	if (d->op[MCS_LOOKUP].calls + d->op[MCS_REVALIDATE].calls)
		return 1;
	return cl_fs("tmpfs") && d->cache[cache].hits == 0;
}

/*
 * Let files just written settle on the lower.  cifs closes a file for real
 * about a second after close() (deferred close) and then updates its inode
 * (times, blocks) from the server's answer: metacache rightly takes a lower
 * inode that changed under a cached entry as "the lower knows newer
 * attributes" and asks again, which a test counting calls must not see.
 */
static inline void cl_settle(void)
{
	if (cl_fs("cifs"))
		cl_msleep(2200);
}

/* ------------------------------------------------------------------ */
/* files */

static inline int cl_rmtree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char p[PATH_MAX];
	int ret = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) ? -errno : 0;
	chmod(path, 0755);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		cl_snp(p, sizeof(p), "%s/%s", path, de->d_name);
		if (cl_rmtree(p) && !ret)
			ret = -errno;
	}
	closedir(d);
	if (rmdir(path) && !ret)
		ret = -errno;
	return ret;
}

/* Write LEN bytes of BYTE to a new (or truncated) file: 0 or -errno. */
static inline int cl_writefile(const char *path, size_t len, int byte, mode_t mode)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ret = 0;

	if (fd < 0)
		return -errno;
	memset(buf, byte, sizeof(buf));
	while (len && !ret) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w < 0)
			ret = -errno;
		else
			len -= (size_t)w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* Is NAME listed in directory DIR?  1, 0 or -errno (opendir). */
static inline int cl_listed(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			found = 1;
	closedir(d);
	return found;
}

/* Number of entries of DIR (without . and ..), or -errno. */
static inline int cl_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* The source ("//host/share") of the mount on DIR (the last one), from
 * /proc/self/mounts: 1 if found. */
static inline int cl_mount_source(const char *dir, char *src, size_t len)
{
	char line[4096], dev[1024], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %4095s", dev, mnt) == 2 && !strcmp(mnt, dir)) {
			cl_snp(src, len, "%s", dev);
			found = 1;
		}
	fclose(f);
	return found;
}

/*
 * A private stack for one test: another mount of the suite's lower share
 * (cifs or nfs) with the options @lower_opts, and metacache on it with
 * @mc_opts, at /tmp/<tag>-lower.<pid> and /tmp/<tag>-up.<pid>.
 */
struct cl_stack {
	char low[PATH_MAX], up[PATH_MAX];
	int mounted;
	struct mcs_mount mm;	/* its statistics */
};

/* 0, or -1 when it failed (reported); cl_stack_umount() in any case. */
static inline int cl_stack_mount(struct cl_stack *m, const char *tag,
				 const char *lower_opts, const char *mc_opts)
{
	char src[1024], cmd[3 * PATH_MAX];
	int e;

	memset(m, 0, sizeof(*m));
	if (!cl_mount_source(cl.lower, src, sizeof(src))) {
		mct_fail_at(__FILE__, __LINE__, "no mount on %s in /proc/self/mounts",
			    cl.lower);
		return -1;
	}
	cl_snp(m->low, sizeof(m->low), "/tmp/%s-lower.%d", tag, getpid());
	cl_snp(m->up, sizeof(m->up), "/tmp/%s-up.%d", tag, getpid());
	if (mkdir(m->low, 0755) || mkdir(m->up, 0755)) {
		mct_fail_at(__FILE__, __LINE__, "mkdir: %s", strerror(errno));
		return -1;
	}
	cl_snp(cmd, sizeof(cmd), "mount -t %s '%s' %s -o %s", cl.fstype, src,
	       m->low, lower_opts);
	if (system(cmd)) {
		mct_fail_at(__FILE__, __LINE__, "%s failed", cmd);
		return -1;
	}
	m->mounted = 1;
	cl_snp(cmd, sizeof(cmd), "mount -t metacache -o %s %s %s", mc_opts,
	       m->low, m->up);
	if (system(cmd)) {
		mct_fail_at(__FILE__, __LINE__, "%s failed", cmd);
		return -1;
	}
	m->mounted = 2;
	e = mcs_open(&m->mm, m->up, NULL, 0);
	if (e) {
		mct_fail_at(__FILE__, __LINE__, "metacache debugfs of %s: %s", m->up,
			    strerror(-e));
		return -1;
	}
	return 0;
}

static inline void cl_stack_umount(struct cl_stack *m)
{
	if (m->mounted >= 2 && umount(m->up))
		mct_diag("umount %s: %s", m->up, strerror(errno));
	if (m->mounted >= 1 && umount(m->low))
		mct_diag("umount %s: %s", m->low, strerror(errno));
	if (m->low[0])
		rmdir(m->low);
	if (m->up[0])
		rmdir(m->up);
}

/* stat errno: 0 when it exists, else errno. */
static inline int cl_lstat_err(const char *path, struct stat *st)
{
	struct stat tmp;

	return lstat(path, st ? st : &tmp) ? errno : 0;
}

/*
 * Run fn(arg) in a child as MC_TEST_UID/GID (no supplementary groups);
 * returns its exit status, 128+signal, or -1.
 */
static inline int cl_as_user(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(cl.gid) || setuid(cl.uid))
			_exit(125);
		_exit(fn(arg) & 0xff);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ------------------------------------------------------------------ */
/* per-test context */

struct cl_ctx {
	char name[64];
	char rel[128];		/* cache.<name>.<pid> */
	char up[PATH_MAX];	/* $MC_UPPER/rel: through the stack */
	char lo[PATH_MAX];	/* $MC_LOWER/rel: the stack's lower client */
	char lo2[PATH_MAX];	/* $MC_LOWER2/rel: the other client */
	char srv[PATH_MAX];	/* $MC_SERVER/rel, else lo: see mc_server_or() */
	int ready;
};

/* Path of NAME under one of the context's directories (rotating). */
static inline const char *cl_at(const char *base, const char *name)
{
	char *b = cl_buf();

	cl_snp(b, 1024, "%s/%s", base, name);
	return b;
}
#define UP(name)  cl_at(c->up, (name))
#define LO(name)  cl_at(c->lo, (name))
#define LO2(name) cl_at(c->lo2, (name))
#define SRV(name) cl_at(c->srv, (name))

/* 0: go on; else the test was skipped or failed (already reported). */
static inline int cl_begin(struct cl_ctx *c, const char *name)
{
	char why[512];
	int r;

	memset(c, 0, sizeof(*c));
	cl_snp(c->name, sizeof(c->name), "%s", name);
	r = cl_env_load(why, sizeof(why));
	if (r == 0) {
		mct_skip_set("%s", why);
		return -1;
	}
	if (r < 0) {
		mct_fail_at(__FILE__, __LINE__, "%s", why);
		return -1;
	}
	cl_snp(c->rel, sizeof(c->rel), "cache.%s.%d", name, getpid());
	cl_snp(c->up, sizeof(c->up), "%s/%s", cl.upper, c->rel);
	cl_snp(c->lo, sizeof(c->lo), "%s/%s", cl.lower, c->rel);
	cl_snp(c->lo2, sizeof(c->lo2), "%s/%s", cl.lower2, c->rel);
	cl_snp(c->srv, sizeof(c->srv), "%s/%s", mc_server_or(cl.lower), c->rel);
	if (mkdir(c->up, 0755)) {
		mct_fail_at(__FILE__, __LINE__, "mkdir %s: %s", c->up, strerror(errno));
		return -1;
	}
	chmod(c->up, 0755);	/* whatever the umask */
	if (cl_tun_get(&cl_saved_tun))
		cl_saved_tun.valid = 0;
	c->ready = 1;
	return 0;
}

/* Optional: called at the end of every test, before its clean-up. */
static void (*cl_teardown)(void);

static inline void cl_end(struct cl_ctx *c)
{
	if (!c->ready)
		return;
	if (cl_teardown)
		cl_teardown();
	if (cl_saved_tun.valid)
		cl_tun_set(&cl_saved_tun);
	/* through the stack; what it could not remove, on the lower */
	if (cl_rmtree(c->up))
		cl_rmtree(c->lo);
}

#define CL_TEST(tname)							\
	static void cl_body_##tname(struct cl_ctx *c);			\
	static void cl_case_##tname(void)				\
	{								\
		struct cl_ctx _ctx;					\
		if (cl_begin(&_ctx, #tname) == 0)			\
			cl_body_##tname(&_ctx);				\
		cl_end(&_ctx);						\
	}								\
	static void __attribute__((constructor)) cl_reg_##tname(void)	\
	{								\
		if (mct_ncases < MCT_MAX_TESTS)				\
			mct_cases[mct_ncases++] =			\
				(struct mct_case){ #tname, cl_case_##tname }; \
	}								\
	static void cl_body_##tname(struct cl_ctx *c)

/* main(): the tunables as found are put back after all tests (a test
 * killed by its timeout cannot do it itself). */
#define CL_MAIN()							\
	int main(int argc, char **argv)					\
	{								\
		struct cl_tun _t = { { 0 }, 0 };			\
		int _ret;						\
		cl.upper = mc_env("MC_UPPER");				\
		if (cl.upper && cl_tun_get(&_t))			\
			_t.valid = 0;					\
		_ret = mct_main(argc, argv);				\
		if (_t.valid)						\
			cl_tun_set(&_t);				\
		return _ret;						\
	}

/* ------------------------------------------------------------------ */
/* visibility probes */

enum cl_pkind {
	CL_P_EXISTS,	/* lstat(path) succeeds */
	CL_P_GONE,	/* lstat(path) gives ENOENT */
	CL_P_MODE,	/* (st_mode & 07777) == val */
	CL_P_SIZE,	/* st_size == val */
	CL_P_MTIME,	/* st_mtime == val */
	CL_P_MTIME_NE,	/* st_mtime != val */
	CL_P_INO_NE,	/* st_ino != val (the name now is another object) */
	CL_P_NLINK,	/* st_nlink == val */
	CL_P_LISTED,	/* readdir(path) lists name */
	CL_P_UNLISTED,	/* readdir(path) does not list name */
};

struct cl_probe {
	const char *cache;	/* "entry", "neg", "attr", "dir" */
	char what[64];		/* "unlink by the other client" */
	int kind;
	char rel[192];		/* relative to the work directory */
	char name[64];		/* for (UN)LISTED */
	long long val;
	int na;			/* not applicable here (reason in why) */
	char why[128];
	/* results, seconds since the change (-1: never) */
	double t_change;	/* absolute (cl_now) time of the change */
	double up, lo;
	int it_up, it_lo;	/* poll iteration of the first sighting */
	int err_up, err_lo;	/* unexpected errno seen while polling */
};

/* 1: the change is visible at BASE/rel, 0: not yet, -errno: can't tell. */
static inline int cl_probe_check(const struct cl_probe *p, const char *base)
{
	char path[PATH_MAX];
	struct stat st;
	int r;

	cl_snp(path, sizeof(path), "%s/%s", base, p->rel);
	switch (p->kind) {
	case CL_P_LISTED:
	case CL_P_UNLISTED:
		r = cl_listed(path, p->name);
		if (r < 0)
			return r;
		return p->kind == CL_P_LISTED ? r : !r;
	case CL_P_GONE:
		if (!lstat(path, &st))
			return 0;
		return errno == ENOENT ? 1 : -errno;
	default:
		break;
	}
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	switch (p->kind) {
	case CL_P_EXISTS:	return 1;
	case CL_P_MODE:		return (long long)(st.st_mode & 07777) == p->val;
	case CL_P_SIZE:		return (long long)st.st_size == p->val;
	case CL_P_MTIME:	return (long long)st.st_mtime == p->val;
	case CL_P_MTIME_NE:	return (long long)st.st_mtime != p->val;
	case CL_P_INO_NE:	return (long long)st.st_ino != p->val;
	case CL_P_NLINK:	return (long long)st.st_nlink == p->val;
	}
	return -EINVAL;
}

/*
 * Poll probes P[0..N) through UPBASE and LOBASE every POLL_MS until each
 * has been seen on both sides, or the lower has not shown it within
 * LOWER_WAIT s of its change, or the stack has not shown it within
 * BOUND_AFTER s of the lower.  Returns the longest poll iteration (s).
 */
static inline double cl_poll(struct cl_probe *p, int n, const char *upbase,
			     const char *lobase, double lower_wait,
			     double bound_after, int poll_ms)
{
	double itmax = 0;
	int it, i;

	for (i = 0; i < n; i++) {
		p[i].up = p[i].lo = -1;
		p[i].it_up = p[i].it_lo = -1;
		p[i].err_up = p[i].err_lo = 0;
	}
	for (it = 0;; it++) {
		double start = cl_now(), now;
		int open = 0;

		for (i = 0; i < n; i++) {
			struct cl_probe *q = &p[i];
			int r;

			if (q->na)
				continue;
			if (q->up < 0) {
				r = cl_probe_check(q, upbase);
				now = cl_now();
				if (r > 0) {
					q->up = now - q->t_change;
					q->it_up = it;
				} else if (r < 0) {
					q->err_up = -r;
				}
			}
			if (q->lo < 0) {
				r = cl_probe_check(q, lobase);
				now = cl_now();
				if (r > 0) {
					q->lo = now - q->t_change;
					q->it_lo = it;
				} else if (r < 0) {
					q->err_lo = -r;
				}
			}
			now = cl_now() - q->t_change;
			if (q->lo < 0 && now < lower_wait)
				open++;
			else if (q->lo >= 0 && q->up < 0 &&
				 now < q->lo + bound_after + 1.0)
				open++;
		}
		now = cl_now();
		if (now - start > itmax)
			itmax = now - start;
		if (!open)
			break;
		cl_msleep(poll_ms);
	}
	return itmax;
}

/*
 * How long to wait for the lower client itself to show another client's
 * change before calling it "never": NFS keeps directory attributes up to
 * acdirmax (60 s), cifs everything for actimeo (1 s); what cifs has not
 * shown after 20 s its server never stored (e.g. a chmod: without unix
 * extensions it is a DOS attribute, which Samba cannot keep on a tmpfs
 * without user xattrs).  MC_CACHE_LOWER_WAIT overrides.
 */
static inline double cl_lower_wait(void)
{
	const char *env = mc_env("MC_CACHE_LOWER_WAIT");

	if (env)
		return atof(env);
	if (cl_fs("nfs"))
		return 75;
	if (cl_fs("cifs"))
		return 20;
	return 10;
}

static inline const char *cl_secs(double s)
{
	char *b = cl_buf();

	if (s < 0)
		cl_snp(b, 1024, "never");
	else
		cl_snp(b, 1024, "%.2f s", s);
	return b;
}

#endif /* CACHELIB_H */
