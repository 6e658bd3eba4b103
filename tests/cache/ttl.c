// SPDX-License-Identifier: GPL-2.0
/*
 * ttl: changes made by another client become visible through the stack in
 * bounded time, per cache.
 *
 * With entry_ttl = neg_ttl = attr_ttl = dir_ttl = T (2 s), each change below
 * is made by the OTHER client (MC_LOWER2: a second NFS/SMB client of the
 * same export; on tmpfs the lower itself) right after the stack has cached
 * the old state.  Then the object is polled every 100 ms both through the
 * stack (MC_UPPER) and directly on the stack's own lower client (MC_LOWER),
 * and the first sighting of the change on each is recorded.  The lower
 * client has caches of its own (NFS: acregmin 3 s, acdirmin 30 s; cifs:
 * actimeo 1 s), so the bound asserted is relative to it:
 *
 *	seen through the stack <= seen on the lower + T + 1 s + one poll
 *
 * Only the upper bound is asserted (an early sighting is never wrong); the
 * measured delays are printed.  A change the lower itself does not show
 * within cl_lower_wait() (nfs 75 s, cifs 20 s, tmpfs 10 s, or
 * MC_CACHE_LOWER_WAIT) is reported, not failed.
 *
 *   entry   unlink, rename away, replace by a new file, rmdir
 *   neg     create, mkdir, rename onto, symlink on a name cached missing
 *   attr    chmod, size (append), mtime (write), truncate, utimes, nlink
 *   dir     create, unlink, rename (old and new name), mkdir in a
 *           directory whose listing is cached
 *
 * All changes are made and polled together (one wait for the slow lower
 * caches, not one per change); the four tests report per cache.
 */
#include "cachelib.h"

#define TTL		2
#define POLL_MS		100
#define OLD_MTIME	978307200LL	/* 2001-01-01 */
#define SET_MTIME	1234567890LL

enum {
	E_UNLINK, E_RENAME_AWAY, E_REPLACE, E_RMDIR,
	N_CREATE, N_MKDIR, N_RENAME_ONTO, N_SYMLINK,
	A_CHMOD, A_SIZE, A_MTIME_WRITE, A_TRUNCATE, A_UTIMES, A_NLINK,
	D_CREATE, D_UNLINK, D_RENAME_OLD, D_RENAME_NEW, D_MKDIR,
	NPROBE
};

struct shared {
	int done;
	int failed;		/* the experiment itself failed */
	char why[512];
	double itmax, lower_wait;
	char calls[512];	/* lower calls during the poll */
	struct cl_probe p[NPROBE];
};
static struct shared *sh;

#define EXP_FAIL(...)							\
	do {								\
		sh->failed = 1;						\
		cl_snp(sh->why, sizeof(sh->why), __VA_ARGS__);		\
		return;							\
	} while (0)

static void set(struct cl_probe *p, const char *cache, const char *what,
		int kind, int i, const char *obj, const char *name)
{
	p->cache = cache;
	cl_snp(p->what, sizeof(p->what), "%s", what);
	p->kind = kind;
	if (obj)
		cl_snp(p->rel, sizeof(p->rel), "p%02d/%s", i, obj);
	else
		cl_snp(p->rel, sizeof(p->rel), "p%02d", i);
	cl_snp(p->name, sizeof(p->name), "%s", name ? name : "");
}

/* Objects of probe I in UP/p<I>, made through the stack. */
static int setup(struct cl_ctx *c, int i)
{
	char d[PATH_MAX], f[PATH_MAX + 16];
	struct timespec ts[2] = { { OLD_MTIME, 0 }, { OLD_MTIME, 0 } };
	struct cl_probe *p = &sh->p[i];
	struct stat st;
	int r = 0;

	cl_snp(d, sizeof(d), "%s/p%02d", c->up, i);
	if (mkdir(d, 0755))
		return -errno;
	cl_snp(f, sizeof(f), "%s/f", d);
	switch (i) {
	case E_UNLINK:
		set(p, "entry", "unlink", CL_P_GONE, i, "f", NULL);
		return cl_writefile(f, 10, 'e', 0644);
	case E_RENAME_AWAY:
		set(p, "entry", "rename away", CL_P_GONE, i, "f", NULL);
		return cl_writefile(f, 10, 'e', 0644);
	case E_REPLACE:
		set(p, "entry", "replace by a new file", CL_P_INO_NE, i, "f", NULL);
		r = cl_writefile(f, 10, 'e', 0644);
		if (!r)
			r = lstat(f, &st) ? -errno : 0;
		if (!r)
			p->val = (long long)st.st_ino;
		return r;
	case E_RMDIR:
		set(p, "entry", "rmdir", CL_P_GONE, i, "d", NULL);
		cl_snp(f, sizeof(f), "%s/d", d);
		return mkdir(f, 0755) ? -errno : 0;
	case N_CREATE:
		set(p, "neg", "create", CL_P_EXISTS, i, "n", NULL);
		return 0;
	case N_MKDIR:
		set(p, "neg", "mkdir", CL_P_EXISTS, i, "n", NULL);
		return 0;
	case N_RENAME_ONTO:
		set(p, "neg", "rename onto", CL_P_EXISTS, i, "n", NULL);
		cl_snp(f, sizeof(f), "%s/src", d);
		return cl_writefile(f, 10, 's', 0644);
	case N_SYMLINK:
		set(p, "neg", "symlink", CL_P_EXISTS, i, "n", NULL);
		return 0;
	case A_CHMOD:
		set(p, "attr", "chmod 0644 -> 0444", CL_P_MODE, i, "f", NULL);
		r = cl_writefile(f, 10, 'a', 0644);
		if (!r && chmod(f, 0644))
			r = -errno;
		return r;
	case A_SIZE:
		set(p, "attr", "size (append 1000 bytes)", CL_P_SIZE, i, "f", NULL);
		p->val = 1100;
		return cl_writefile(f, 100, 'a', 0644);
	case A_MTIME_WRITE:
		set(p, "attr", "mtime (write)", CL_P_MTIME_NE, i, "f", NULL);
		p->val = OLD_MTIME;
		r = cl_writefile(f, 100, 'a', 0644);
		if (!r && utimensat(AT_FDCWD, f, ts, 0))
			r = -errno;
		return r;
	case A_TRUNCATE:
		set(p, "attr", "truncate 5000 -> 10", CL_P_SIZE, i, "f", NULL);
		p->val = 10;
		return cl_writefile(f, 5000, 'a', 0644);
	case A_UTIMES:
		set(p, "attr", "utimes", CL_P_MTIME, i, "f", NULL);
		p->val = SET_MTIME;
		r = cl_writefile(f, 100, 'a', 0644);
		if (!r && utimensat(AT_FDCWD, f, ts, 0))
			r = -errno;
		return r;
	case A_NLINK:
		set(p, "attr", "nlink (link)", CL_P_NLINK, i, "f", NULL);
		return cl_writefile(f, 10, 'a', 0644);
	case D_CREATE:
		set(p, "dir", "create", CL_P_LISTED, i, NULL, "new");
		return cl_writefile(f, 0, 0, 0644);
	case D_UNLINK:
		set(p, "dir", "unlink", CL_P_UNLISTED, i, NULL, "f");
		return cl_writefile(f, 0, 0, 0644);
	case D_RENAME_OLD:
		set(p, "dir", "rename (old name)", CL_P_UNLISTED, i, NULL, "f");
		return cl_writefile(f, 0, 0, 0644);
	case D_RENAME_NEW:
		set(p, "dir", "rename (new name)", CL_P_LISTED, i, NULL, "g");
		return cl_writefile(f, 0, 0, 0644);
	case D_MKDIR:
		set(p, "dir", "mkdir", CL_P_LISTED, i, NULL, "sub");
		return cl_writefile(f, 0, 0, 0644);
	}
	return -EINVAL;
}

/* Cache the old state through the stack. */
static void warm(struct cl_ctx *c, int i)
{
	struct cl_probe *p = &sh->p[i];
	char path[PATH_MAX];
	struct stat st;

	cl_snp(path, sizeof(path), "%s/%s", c->up, p->rel);
	if (p->kind == CL_P_LISTED || p->kind == CL_P_UNLISTED)
		cl_count(path);
	else
		lstat(path, &st);
	if (i == N_RENAME_ONTO) {
		cl_snp(path, sizeof(path), "%s/p%02d/src", c->up, i);
		lstat(path, &st);
	}
}

/* The change, by the other client: 0 or -errno. */
static int change(struct cl_ctx *c, int i)
{
	struct timespec ts[2] = { { SET_MTIME, 0 }, { SET_MTIME, 0 } };
	struct cl_probe *p = &sh->p[i];
	char d[PATH_MAX], f[PATH_MAX + 16], g[PATH_MAX + 16];
	struct stat st;
	int fd, r = 0;

	cl_snp(d, sizeof(d), "%s/p%02d", c->lo2, i);
	cl_snp(f, sizeof(f), "%s/f", d);
	switch (i) {
	case E_UNLINK:
	case D_UNLINK:
		return unlink(f) ? -errno : 0;
	case E_RENAME_AWAY:
	case D_RENAME_OLD:
	case D_RENAME_NEW:
		cl_snp(g, sizeof(g), "%s/g", d);
		return rename(f, g) ? -errno : 0;
	case E_REPLACE: {
		int r, n;

		if (unlink(f))
			return -errno;
		/*
		 * SMB: while a client still has the old file open (the lower
		 * cifs client's own deferred close, or metacache's within
		 * close_ttl) it is "delete pending", and creating the name
		 * again fails with ENOENT until that handle is closed.
		 */
		for (n = 0; n < 100; n++) {
			r = cl_writefile(f, 20, 'r', 0644);
			if (r != -ENOENT || !cl_fs("cifs"))
				break;
			cl_msleep(100);
		}
		return r;
	}
	case E_RMDIR:
		cl_snp(g, sizeof(g), "%s/d", d);
		return rmdir(g) ? -errno : 0;
	case N_CREATE:
		cl_snp(g, sizeof(g), "%s/n", d);
		return cl_writefile(g, 0, 0, 0644);
	case N_MKDIR:
		cl_snp(g, sizeof(g), "%s/n", d);
		return mkdir(g, 0755) ? -errno : 0;
	case N_RENAME_ONTO:
		cl_snp(f, sizeof(f), "%s/src", d);
		cl_snp(g, sizeof(g), "%s/n", d);
		return rename(f, g) ? -errno : 0;
	case N_SYMLINK:
		cl_snp(g, sizeof(g), "%s/n", d);
		if (symlink("target", g) && (errno == EOPNOTSUPP || errno == EPERM)) {
			p->na = 1;
			cl_snp(p->why, sizeof(p->why), "symlink on the other client: %s",
			       strerror(errno));
			return 0;
		}
		return cl_lstat_err(g, NULL) ? -errno : 0;
	case A_CHMOD:
		if (chmod(f, 0444))
			return -errno;
		if (lstat(f, &st))
			return -errno;
		p->val = st.st_mode & 07777;
		if (p->val == 0644) {
			p->na = 1;
			cl_snp(p->why, sizeof(p->why),
			       "the other client itself still shows mode 0644 after chmod 0444");
		}
		return 0;
	case A_SIZE:
	case A_MTIME_WRITE:
		fd = open(f, O_WRONLY | O_APPEND);
		if (fd < 0)
			return -errno;
		memset(g, 'w', 1000);
		if (write(fd, g, i == A_SIZE ? 1000 : 10) < 0)
			r = -errno;
		if (close(fd) && !r)
			r = -errno;
		return r;
	case A_TRUNCATE:
		return truncate(f, 10) ? -errno : 0;
	case A_UTIMES:
		return utimensat(AT_FDCWD, f, ts, 0) ? -errno : 0;
	case A_NLINK:
		cl_snp(g, sizeof(g), "%s/f2", d);
		if (link(f, g)) {
			p->na = 1;
			cl_snp(p->why, sizeof(p->why), "link on the other client: %s",
			       strerror(errno));
			return 0;
		}
		if (lstat(f, &st))
			return -errno;
		p->val = (long long)st.st_nlink;
		if (p->val == 1) {
			p->na = 1;
			cl_snp(p->why, sizeof(p->why),
			       "the other client itself shows nlink 1 after link()");
		}
		return 0;
	case D_CREATE:
		cl_snp(g, sizeof(g), "%s/new", d);
		return cl_writefile(g, 0, 0, 0644);
	case D_MKDIR:
		cl_snp(g, sizeof(g), "%s/sub", d);
		return mkdir(g, 0755) ? -errno : 0;
	}
	return -EINVAL;
}

static void experiment(struct cl_ctx *c)
{
	char opts[160];
	struct mcs s0, s1, d;
	int i, r;

	sh->lower_wait = cl_lower_wait();
	cl_snp(opts, sizeof(opts), "entry_ttl=%d,neg_ttl=%d,attr_ttl=%d,dir_ttl=%d",
	       TTL, TTL, TTL, TTL);
	r = cl_remount_raw(opts);
	if (r)
		EXP_FAIL("mount -o remount,%s %s: %s", opts, cl.upper, strerror(-r));
	for (i = 0; i < NPROBE; i++) {
		r = setup(c, i);
		if (r)
			EXP_FAIL("setting up probe %d (%s %s) through the stack: %s",
				 i, sh->p[i].cache, sh->p[i].what, strerror(-r));
	}
	/* the other client must know the objects before it changes them */
	for (i = 0; i < NPROBE; i++) {
		char path[PATH_MAX];

		cl_snp(path, sizeof(path), "%s/p%02d", c->lo2, i);
		cl_count(path);
	}
	if (mcs_read(&cl.mm, &s0))
		EXP_FAIL("read %s/stats: %s", cl.mm.dir, strerror(errno));
	for (i = 0; i < NPROBE; i++) {
		warm(c, i);
		r = change(c, i);
		if (r)
			EXP_FAIL("probe %s %s: the other client's change failed: %s",
				 sh->p[i].cache, sh->p[i].what, strerror(-r));
		sh->p[i].t_change = cl_now();
	}
	sh->itmax = cl_poll(sh->p, NPROBE, c->up, c->lo, sh->lower_wait,
			    TTL + 1.0, POLL_MS);
	if (mcs_read(&cl.mm, &s1) == 0) {
		mcs_sub(&d, &s1, &s0);
		mcs_fmt_calls(&d, sh->calls, sizeof(sh->calls));
	}
}

static void report(const char *cache)
{
	struct cl_ctx ctx;
	double bound_slack;
	int i, n = 0, na = 0;

	if (!sh->done) {
		if (cl_begin(&ctx, "ttl") == 0)
			experiment(&ctx);
		cl_end(&ctx);
		if (MCT_FAILED() || (mct_sh && mct_sh->skipped))
			return;	/* cl_begin reported it */
		sh->done = 1;
	}
	if (sh->failed) {
		mct_fail_at(__FILE__, __LINE__, "%s", sh->why);
		return;
	}
	bound_slack = TTL + 1.0 + sh->itmax;
	for (i = 0; i < NPROBE; i++) {
		struct cl_probe *p = &sh->p[i];

		if (strcmp(p->cache, cache))
			continue;
		n++;
		if (p->na) {
			na++;
			mct_diag("%s %s: not applicable: %s", cache, p->what, p->why);
			continue;
		}
		mct_diag("%s %s: lower %s, stack %s (bound: lower + %.2f s)%s%s",
			 cache, p->what, cl_secs(p->lo), cl_secs(p->up), bound_slack,
			 p->err_up ? ", stack errno " : "",
			 p->err_up ? strerror(p->err_up) : "");
		if (p->lo < 0) {
			na++;
			mct_diag("%s %s: the lower itself did not show it within %.0f s: nothing to compare",
				 cache, p->what, sh->lower_wait);
			continue;
		}
		MCT_EXPECT(p->up >= 0,
			   "%s %s by the other client: never visible through the stack (lower after %.2f s, waited until %.2f s)",
			   cache, p->what, p->lo, p->lo + bound_slack + 1.0);
		MCT_EXPECT(p->up < 0 || p->up <= p->lo + bound_slack,
			   "%s %s by the other client: visible through the stack after %.2f s, the lower after %.2f s: more than TTL %d s + 1 s + poll %.2f s later",
			   cache, p->what, p->up, p->lo, TTL, sh->itmax);
	}
	mct_diag("longest poll round %.2f s; lower calls while polling: %s", sh->itmax,
		 sh->calls[0] ? sh->calls : "?");
	if (n && na == n)
		MCT_SKIP("no %s change was visible on the lower itself", cache);
}

MCT_TEST(ttl_entry) { report("entry"); }
MCT_TEST(ttl_neg) { report("neg"); }
MCT_TEST(ttl_attr) { report("attr"); }
MCT_TEST(ttl_dir) { report("dir"); }

int main(int argc, char **argv)
{
	struct cl_tun t = { { 0 }, 0 };
	int ret;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return MCT_EXIT_FAIL;
	}
	memset(sh, 0, sizeof(*sh));
	cl.upper = mc_env("MC_UPPER");
	if (cl.upper && cl_tun_get(&t))
		t.valid = 0;
	ret = mct_main(argc, argv);
	if (t.valid)
		cl_tun_set(&t);
	return ret;
}
