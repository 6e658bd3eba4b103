// SPDX-License-Identifier: GPL-2.0
/*
 * serverfault: the file server goes away under a metacache mount and comes
 * back.  Run in the test bed with MC_FSTYPE=nfs or cifs, as the last test
 * of a boot (it stops and restarts the test bed's nfsd or smbd, which the
 * lowers of the other tests also use).
 *
 * It mounts its own lower client of the test bed's export, soft, so that
 * calls fail after a timeout instead of blocking (a hard lower blocks,
 * and metacache then blocks exactly as it does), and two metacache
 * mounts on it with TTLs of TTL seconds (env MC_SF_TTL, default 5):
 *
 *  1. warm: a file and a directory are looked up and listed through the
 *     stack, so they are cached;
 *  2. the lower is synced (see sync_lower()) and the server is stopped
 *     (rpc.nfsd 0 / kill smbd):
 *     - a name neither the stack nor the lower has seen fails through the
 *       stack as it fails on the lower: both fail;
 *     - once TTL seconds have passed since the warm-up, the stack answers
 *       a stat of the cached file only if the lower also does: no cached
 *       entry outlives its TTL across the outage;
 *     - the second metacache mount, with a kept (deferred-close) handle,
 *       is unmounted while the server is down: umount succeeds;
 *  3. the server is started again: after the lower recovers, the same
 *     mount is usable (create, write, read, list, unlink through the
 *     stack) and agrees with the lower;
 *  4. the lower is synced, the server is stopped again and both mounts
 *     are unmounted in that state (metacache plainly, the lower with
 *     umount -l as it needs);
 *     the server is restarted and the test bed's own lowers are waited
 *     for, so that later tests find them working.
 *
 * Every step prints what the stack and the lower answered; the time an
 * outage took to be noticed is a diagnostic, never asserted.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"

#define BASE "/tmp/mc/sf"

static const char *fstype;
static char lower[256], upper[256], upper2[256];
/*
 * Long enough that the first stat after the server stops (stopping smbd
 * takes ~3 s in the emulated test bed) is still answered from the cache,
 * short enough to have passed by the time the pair of failing calls on a
 * name never seen (6-10 s) has been waited out.
 */
static int ttl = 5;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int server(int up)
{
	if (!strcmp(fstype, "nfs"))
		return mct_system(up ? "rpc.nfsd 8" : "rpc.nfsd 0");
	if (up)
		return mct_system("smbd -D");
	/* smbd's children serve the sessions: all of them go. */
	return mct_system("pkill -KILL -x smbd; sleep 1; ! pgrep -x smbd >/dev/null");
}

/* 0 or -errno of stat(path), timed. */
static int try_stat(const char *path, struct stat *st, double *secs)
{
	struct stat dummy;
	double t = now();
	int ret = stat(path, st ? st : &dummy) ? -errno : 0;

	if (secs)
		*secs = now() - t;
	return ret;
}

struct timed_stat {
	const char *path;
	struct stat st;
	double secs;
	int ret;
};

static void *timed_stat_thread(void *arg)
{
	struct timed_stat *t = arg;

	t->ret = try_stat(t->path, &t->st, &t->secs);
	return NULL;
}

/*
 * stat() @l (a lower path) and @u (a stack path) at the same time.  With the
 * server down each call waits out the lower client's timeout (about 6 s on
 * the soft nfs client below, 10 s on cifs's reconnect wait): side by side,
 * the pair costs one wait instead of two.
 */
static void stat_pair(struct timed_stat *l, struct timed_stat *u)
{
	pthread_t th;

	if (pthread_create(&th, NULL, timed_stat_thread, l)) {
		timed_stat_thread(l);
		timed_stat_thread(u);
		return;
	}
	timed_stat_thread(u);
	pthread_join(th, NULL);
}

static const char *err_s(int ret)
{
	return ret ? strerror(-ret) : "ok";
}

/* Wait up to @secs for stat(@path) to succeed. */
static int wait_ok(const char *path, int secs)
{
	double end = now() + secs;

	while (now() < end) {
		if (try_stat(path, NULL, NULL) == 0)
			return 0;
		sleep(1);
	}
	return -1;
}

static int write_file(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, strlen(data));
	if (close(fd) || n != (ssize_t)strlen(data))
		return -EIO;
	return 0;
}

static void mount_all(void)
{
	const char *ko = mc_env("MC_KO");
	char opts[256];

	mct_system("mkdir -p %s %s %s", lower, upper, upper2);
	if (!strcmp(fstype, "nfs"))
		MCT_ASSERT(mct_system("mount -t nfs4 -o vers=4.2,soft,timeo=20,retrans=1,nosharecache 127.0.0.1:/ %s",
			      lower) == 0, "mounting a soft nfs client");
	else
		MCT_ASSERT(mct_system("mount -t cifs //127.0.0.1/share %s -o guest,vers=3.1.1,soft,nosharesock,echo_interval=1",
			      lower) == 0, "mounting a soft cifs client");
	if (!mc_fs_registered("metacache") && ko)
		mct_system("insmod %s", ko);
	snprintf(opts, sizeof(opts),
		 "entry_ttl=%d,neg_ttl=%d,attr_ttl=%d,dir_ttl=%d,close_ttl=%d", ttl,
		 ttl, ttl, ttl, 60);
	MCT_ASSERT(mount(lower, upper, "metacache", 0, opts) == 0, "mount metacache on %s: %s",
		   lower, strerror(errno));
	MCT_ASSERT(mount(lower, upper2, "metacache", 0, opts) == 0, "mount metacache on %s: %s",
		   lower, strerror(errno));
}

/* Restart the server and wait for the test bed's own lowers. */
static void restore(void)
{
	double t = now();
	char p[512];

	server(1);
	snprintf(p, sizeof(p), "/tmp/mc/lower/%s/.", fstype);
	if (wait_ok(p, 180))
		mct_diag("the test bed's %s lower did not come back within 180 s", fstype);
	else
		mct_diag("the test bed's %s lower answered %.1f s after the restart", fstype,
			 now() - t);
}

/*
 * Have the lower write back what it holds dirty, while the server is up.
 * With the cifs server down, the lower's flusher can block in
 * cifs_writepages() waiting for credits (it asks for them before it looks
 * for dirty pages) until the connection is back, holding the lower's
 * s_umount; the lazy unmount of the lower at the end then waits for the
 * server too.  Seen in CI as a hung task in deactivate_super(), then in a
 * loop of this test, with the flusher's stack dumped: it came once the
 * outages began within dirty_expire (30 s) of the test's writes.  What
 * metacache does while the server is down is what this test checks, not
 * how long the cifs client keeps its flusher waiting.
 */
static void sync_lower(void)
{
	int fd = open(lower, O_RDONLY | O_DIRECTORY);

	MCT_EXPECT(fd >= 0 && syncfs(fd) == 0, "syncfs %s: %s", lower, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void run_outage(void)
{
	char d[300], f[320], f2[320], nf[320], g[320], lf[320], ld[300], ln[320], p[64];
	struct timed_stat tl = { 0 }, tu = { 0 };
	double t_warm, t, secs_u;
	struct stat su, sl;
	int ru, rl, fd, i;
	char buf[32] = "";

	fstype = mc_env("MC_FSTYPE");
	if (!fstype || (strcmp(fstype, "nfs") && strcmp(fstype, "cifs")))
		MCT_SKIP("MC_FSTYPE is not nfs or cifs: only a network lower has a server to stop");
	if (getuid())
		MCT_SKIP("needs root");
	if (mc_env("MC_SF_TTL"))
		ttl = atoi(getenv("MC_SF_TTL"));
	snprintf(lower, sizeof(lower), BASE "/%s/lower", fstype);
	snprintf(upper, sizeof(upper), BASE "/%s/upper", fstype);
	snprintf(upper2, sizeof(upper2), BASE "/%s/upper2", fstype);
	mount_all();

	snprintf(d, sizeof(d), "%s/sf", upper);
	snprintf(ld, sizeof(ld), "%s/sf", lower);
	snprintf(f, sizeof(f), "%s/file", d);
	snprintf(lf, sizeof(lf), "%s/file", ld);
	snprintf(nf, sizeof(nf), "%s/never-seen", d);
	snprintf(ln, sizeof(ln), "%s/never-seen-either", ld);
	mct_system("rm -rf %s", ld);
	MCT_ASSERT(mkdir(d, 0755) == 0, "mkdir %s: %s", d, strerror(errno));
	MCT_ASSERT(write_file(f, "before") == 0, "write %s", f);
	/* A kept handle on the second mount. */
	snprintf(f2, sizeof(f2), "%s/sf/file", upper2);
	fd = open(f2, O_RDONLY);
	MCT_ASSERT(fd >= 0, "open %s: %s", f2, strerror(errno));
	close(fd);

	/* 1. warm */
	MCT_ASSERT(try_stat(f, NULL, NULL) == 0, "stat %s: %s", f, strerror(errno));
	t_warm = now();

	/* 2. outage */
	sync_lower();
	MCT_ASSERT(server(0) == 0, "stopping the %s server", fstype);
	t = now();
	ru = try_stat(f, NULL, &secs_u);
	mct_diag("server down %.1f s after the warm-up; cached file through the stack: %s (%.2f s)",
		 t - t_warm, err_s(ru), secs_u);
	tl.path = ln;
	tu.path = nf;
	stat_pair(&tl, &tu);
	rl = tl.ret;
	ru = tu.ret;
	mct_diag("a name never seen: lower %s (%.1f s), stack %s (%.1f s)", err_s(rl), tl.secs,
		 err_s(ru), tu.secs);
	MCT_EXPECT(rl != 0 && ru != 0 && rl != -ENOENT && ru != -ENOENT,
		   "with the server down, a lookup of a name never seen: lower %s, stack %s (both should fail, not answer)",
		   err_s(rl), err_s(ru));
	while (now() - t_warm < ttl + 1)
		usleep(100000);
	t = now();
	tl.path = lf;
	tu.path = f;
	stat_pair(&tl, &tu);
	rl = tl.ret;
	ru = tu.ret;
	mct_diag("the cached file, %.1f s after the warm-up (TTL %d s): lower %s (%.1f s), stack %s (%.1f s)",
		 t - t_warm, ttl, err_s(rl), tl.secs, err_s(ru), tu.secs);
	MCT_EXPECT(!(ru == 0 && rl != 0),
		   "the stack answered a stat from its cache past the TTL while the lower could not (%s)",
		   err_s(rl));
	t = now();
	i = umount(upper2) ? -errno : 0;
	mct_diag("umount of a metacache mount with a kept handle, server down: %s (%.1f s)",
		 err_s(i), now() - t);
	MCT_EXPECT(i == 0, "umount %s with the server down: %s", upper2, err_s(i));

	/* 3. back */
	server(1);
	t = now();
	if (wait_ok(ld, 180)) {
		restore();
		MCT_ASSERT(0, "the lower did not recover within 180 s of the server's restart");
	}
	mct_diag("the lower recovered %.1f s after the restart", now() - t);
	t = now();
	snprintf(g, sizeof(g), "%s/after", d);
	MCT_EXPECT(try_stat(f, NULL, NULL) == 0, "stat %s after the outage: %s", f, strerror(errno));
	ru = write_file(g, "after");
	MCT_EXPECT(ru == 0, "create+write %s after the outage: %s", g, err_s(ru));
	fd = open(g, O_RDONLY);
	MCT_EXPECT(fd >= 0, "open %s: %s", g, strerror(errno));
	if (fd >= 0) {
		MCT_EXPECT(read(fd, buf, sizeof(buf)) == 5 && !memcmp(buf, "after", 5),
			   "read back [%s]", buf);
		close(fd);
	}
	snprintf(buf, sizeof(buf), "%s", "");
	rl = try_stat(ln, NULL, NULL);
	ru = try_stat(nf, NULL, NULL);
	MCT_EXPECT(rl == -ENOENT && ru == -ENOENT,
		   "missing names after the outage: lower %s, stack %s (want ENOENT: no failure was cached)",
		   err_s(rl), err_s(ru));
	rl = try_stat(lf, &sl, NULL);
	ru = try_stat(f, &su, NULL);
	MCT_EXPECT(!rl && !ru && su.st_size == sl.st_size && su.st_ino == sl.st_ino,
		   "the file after the outage: lower %s size %lld, stack %s size %lld", err_s(rl),
		   (long long)sl.st_size, err_s(ru), (long long)su.st_size);
	MCT_EXPECT(unlink(g) == 0, "unlink %s: %s", g, strerror(errno));
	MCT_EXPECT(try_stat(g, NULL, NULL) == -ENOENT, "%s after unlink", g);
	mct_diag("stat, create, write, read and unlink after the outage: %.1f s", now() - t);

	/* 4. unmount in the outage */
	sync_lower();
	MCT_EXPECT(server(0) == 0, "stopping the %s server again", fstype);
	t = now();
	i = umount(upper) ? -errno : 0;
	mct_diag("umount of metacache, server down: %s (%.1f s)", err_s(i), now() - t);
	MCT_EXPECT(i == 0, "umount %s with the server down: %s", upper, err_s(i));
	if (i)
		umount2(upper, MNT_DETACH);
	i = umount2(lower, MNT_DETACH) ? -errno : 0;
	MCT_EXPECT(i == 0, "umount -l of the lower %s: %s", lower, err_s(i));
	restore();
	/*
	 * Where the server keeps it: a restarted nfsd refuses REMOVE during
	 * its grace period, and the test bed's hard client would wait it out.
	 */
	snprintf(p, sizeof(p), "/tmp/mc/lower/%s", fstype);
	mct_system("rm -rf %s/sf", mc_server_or(p));
}

MCT_TEST(outage)
{
	run_outage();
}

int main(int argc, char **argv)
{
	int ret = mct_main(argc, argv);

	/* Whatever happened in the test: the server runs, nothing stays mounted. */
	fstype = mc_env("MC_FSTYPE");
	if (fstype && !strcmp(fstype, "nfs"))
		system("rpc.nfsd 8");
	else if (fstype && !strcmp(fstype, "cifs"))
		system("pgrep -x smbd >/dev/null || smbd -D");
	if (fstype)
		system("for m in " BASE "/*/upper2 " BASE "/*/upper " BASE "/*/lower; do mountpoint -q $m && umount -l $m; done; true");
	return ret;
}
