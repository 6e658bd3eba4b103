// SPDX-License-Identifier: GPL-2.0
/*
 * handles: the open-handle cache (deferred close, kmod/handle.c).
 *
 *  - reuse: repeated open+close of a file opens the lower file once; the
 *    rest are handle hits, and every read sees the file's data;
 *  - a different user, or a different access mode, or O_TRUNC, never gets
 *    a cached handle; a denied open stays denied;
 *  - close-to-open: data written and closed through the stack is seen by
 *    the other client at once; data the other client writes is seen
 *    through reused handles once the attributes expire (attr_ttl);
 *  - unlink, rename of and over, and truncate of a file with a cached
 *    handle: correct results and no NFS ".nfs*" file left on the lower;
 *    a file removed on the lower directly is not opened from its kept
 *    handle, and fstat()/ftruncate() of an open one work as on the lower,
 *    and so do fchmod(), fchown(), futimens(), fsetxattr(),
 *    fremovexattr(), FS_IOC_SETFLAGS and a reopen through /proc/self/fd/N;
 *    the same changes by name of a name renamed away on the lower give
 *    ENOENT and leave the file alone;
 *  - locks (flock and POSIX) taken through a reused handle conflict with
 *    the other client's, and are gone after close;
 *  - close_ttl=0 keeps nothing; max_handles bounds the count (oldest
 *    closed first); an expired handle is closed by the expiry pass; a
 *    flush closes all;
 *  - retune: a change of the mount's settings at run time closes its kept
 *    handles at once (`metacachectl set MOUNT handle off` leaves no lower
 *    file open), and a policy rule's close_ttl longer than the mount's keeps
 *    the handles under its directory past the mount's expiry pass;
 *  - many: 300 kept at once (more than one batch of the kernel's
 *    whole-mount walks): flushed, expired with interleaved deadlines, and
 *    closed by a rule's deletion, each exactly;
 *  - unmount with cached handles leaves the lower mount free and the
 *    files removable at once;
 *  - overlay_on_top: overlayfs over metacache, which opens our files with
 *    its own path (open_with_fake_path()): read(2) and mmap through it,
 *    repeatedly (a kept lower file reused), and a clean unmount.
 * Runs per lower (tmpfs, nfs, cifs) on a metacache mount.
 */
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/xattr.h>

#include "cachelib.h"

#define N 20

static int open_close(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Entries of a directory on the lower whose name starts with ".nfs". */
static int silly_count(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ".nfs", 4))
			n++;
	closedir(d);
	return n;
}

/* NFS removes a silly-renamed file at the last close: give it time. */
static int silly_wait(const char *dir)
{
	int i, n = silly_count(dir);

	for (i = 0; n > 0 && i < 50; i++) {
		cl_msleep(100);
		n = silly_count(dir);
	}
	return n;
}

static void handles_on(void)
{
	CL_REMOUNT("close_ttl=3600,max_handles=1024");
}

CL_TEST(reuse)
{
	struct mcs s0, d;
	char buf[64];
	int i, fd, r;

	CL_TTLS(3600);
	handles_on();
	r = cl_writefile(UP("f"), 40, 'x', 0644);
	MCT_ASSERT(r == 0, "create: %s", strerror(-r));
	MCT_ASSERT(open_close(UP("f"), O_RDONLY) == 0, "open: %s", strerror(errno));
	CL_SNAP(&s0);
	for (i = 0; i < N; i++) {
		fd = open(UP("f"), O_RDONLY);
		MCT_ASSERT(fd >= 0, "open #%d: %s", i, strerror(errno));
		memset(buf, 0, sizeof(buf));
		MCT_EXPECT(read(fd, buf, sizeof(buf)) == 40 && buf[0] == 'x' &&
			   buf[39] == 'x', "read #%d through a reused handle", i);
		close(fd);
	}
	CL_SINCE(&d, &s0);
	mct_diag("%d open+read+close: lower calls: %s", N, cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(d.op[MCS_OPEN].calls == 0,
		   "%d opens of a file with a cached handle opened the lower %" PRIu64 " times",
		   N, d.op[MCS_OPEN].calls);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == N, "handle hits +%" PRIu64 ", want %d",
		   d.cache[MCS_HANDLE].hits, N);
	MCT_EXPECT(d.op[MCS_OPEN].avoided >= N && d.op[MCS_RELEASE].avoided >= N,
		   "avoided open +%" PRIu64 ", release +%" PRIu64,
		   d.op[MCS_OPEN].avoided, d.op[MCS_RELEASE].avoided);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 1, "%" PRIu64 " handles cached, want 1",
		   d.cache[MCS_HANDLE].entries);

	/* two opens at once: one takes the handle, the other opens anew */
	CL_SNAP(&s0);
	fd = open(UP("f"), O_RDONLY);
	r = open(UP("f"), O_RDONLY);
	MCT_ASSERT(fd >= 0 && r >= 0, "two opens: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 1 && d.op[MCS_OPEN].calls == 1,
		   "two concurrent opens: %" PRIu64 " hits, %" PRIu64 " lower opens (want 1, 1)",
		   d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls);
	close(fd);
	close(r);
	CL_SNAP(&s0);
	MCT_EXPECT(s0.cache[MCS_HANDLE].entries == 2, "after closing both: %" PRIu64 " handles",
		   s0.cache[MCS_HANDLE].entries);
}

struct uarg {
	const char *path;
	int flags;
};

static int user_open(void *p)
{
	const struct uarg *a = p;
	int fd = open(a->path, a->flags);

	if (fd < 0)
		return errno == EACCES ? 13 : 1;
	close(fd);
	return 0;
}

CL_TEST(not_shared)
{
	struct mcs s0, d;
	struct uarg a;
	struct stat st;
	int r, e;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("pub"), 10, 'p', 0644) == 0, "create pub");
	MCT_ASSERT(cl_writefile(UP("priv"), 10, 'q', 0600) == 0, "create priv");
	MCT_ASSERT(open_close(UP("pub"), O_RDONLY) == 0, "open pub");
	MCT_ASSERT(open_close(UP("priv"), O_RDONLY) == 0, "open priv");

	/* another user: never root's handle */
	CL_SNAP(&s0);
	a.path = UP("pub");
	a.flags = O_RDONLY;
	r = cl_as_user(user_open, &a);
	CL_SINCE(&d, &s0);
	if (r == 13 && cl_fs("cifs")) {
		/* the share maps every user to one account: nothing to show */
		mct_diag("cifs: user %u cannot read a 0644 file here", (unsigned)cl.uid);
	} else {
		MCT_EXPECT(r == 0, "user %u opening a 0644 file: %d", (unsigned)cl.uid, r);
		MCT_EXPECT(d.cache[MCS_HANDLE].hits == 0,
			   "user %u got a cached handle of root's", (unsigned)cl.uid);
	}
	a.path = LO("priv");
	e = cl_as_user(user_open, &a);
	a.path = UP("priv");
	r = cl_as_user(user_open, &a);
	if (e == 13)
		MCT_EXPECT(r == 13, "user %u opening root's 0600 file with a kept handle: %d, want EACCES (as on the lower)",
			   (unsigned)cl.uid, r);
	else
		mct_diag("the lower lets user %u open a 0600 file of root's (%d): nothing to deny",
			 (unsigned)cl.uid, e);

	/* another access mode, O_TRUNC: the lower is asked */
	CL_SNAP(&s0);
	MCT_EXPECT(open_close(UP("pub"), O_WRONLY) == 0, "O_WRONLY: %s", strerror(errno));
	MCT_EXPECT(open_close(UP("pub"), O_RDWR) == 0, "O_RDWR: %s", strerror(errno));
	MCT_EXPECT(open_close(UP("pub"), O_RDONLY | O_NONBLOCK) == 0, "O_NONBLOCK: %s",
		   strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 0 && d.op[MCS_OPEN].calls == 3,
		   "other modes: %" PRIu64 " handle hits, %" PRIu64 " lower opens (want 0, 3)",
		   d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls);
	CL_SNAP(&s0);
	MCT_EXPECT(open_close(UP("pub"), O_WRONLY | O_TRUNC) == 0, "O_TRUNC: %s",
		   strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 0 && d.op[MCS_OPEN].calls == 1,
		   "O_TRUNC: %" PRIu64 " handle hits, %" PRIu64 " lower opens (want 0, 1)",
		   d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls);
	MCT_EXPECT(stat(UP("pub"), &st) == 0 && st.st_size == 0 &&
		   stat(LO("pub"), &st) == 0 && st.st_size == 0,
		   "O_TRUNC through the stack truncated: size %jd", (intmax_t)st.st_size);
}

CL_TEST(close_to_open)
{
	char buf[32];
	int fd, i;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("f"), 4, 'a', 0644) == 0, "create");
	for (i = 0; i < 3; i++) {
		char want = 'b' + i;

		/*
		 * A server without i_version (nfsd on tmpfs) derives the
		 * change attribute from ctime, which moves once per clock
		 * tick: a write in the tick of the other client's last read
		 * would look like no change to it, with or without us.
		 */
		cl_msleep(20);
		fd = open(UP("f"), O_WRONLY);
		MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
		memset(buf, want, 8);
		MCT_EXPECT(pwrite(fd, buf, 8, 0) == 8, "write: %s", strerror(errno));
		MCT_EXPECT(close(fd) == 0, "close: %s", strerror(errno));
		/* the other client, right after close() */
		fd = open(LO2("f"), O_RDONLY);
		MCT_ASSERT(fd >= 0, "open on the other client: %s", strerror(errno));
		memset(buf, 0, sizeof(buf));
		MCT_EXPECT(read(fd, buf, sizeof(buf)) == 8 && buf[0] == want && buf[7] == want,
			   "round %d: the other client reads \"%.8s\" after close, want %c", i, buf,
			   want);
		close(fd);
	}
}

/* Read the whole (small) file at @path into @buf; its length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

CL_TEST(other_writer)
{
	static char buf[4096], want[4096];
	struct mcs s0, d;
	double t0, waited = -1, limit;
	int fd;

	if (cl.other_is_lower)
		MCT_SKIP("no second client on %s", cl.fstype);
	CL_TTLS(3600);
	CL_REMOUNT("attr_ttl=1,close_ttl=3600,max_handles=1024");
	MCT_ASSERT(cl_writefile(UP("f"), sizeof(buf), 'a', 0644) == 0, "create");
	MCT_ASSERT(read_small(UP("f"), buf, sizeof(buf)) == sizeof(buf) && buf[0] == 'a',
		   "first read");
	/* the other client rewrites it, same size */
	memset(want, 'b', sizeof(want));
	fd = open(LO2("f"), O_WRONLY);
	MCT_ASSERT(fd >= 0, "open on the other client: %s", strerror(errno));
	MCT_ASSERT(pwrite(fd, want, sizeof(want), 0) == sizeof(want), "write: %s",
		   strerror(errno));
	MCT_ASSERT(close(fd) == 0, "close: %s", strerror(errno));

	/* reopen through the stack (a kept handle) until the new data shows */
	limit = 1 + cl_lower_wait();
	CL_SNAP(&s0);
	t0 = cl_now();
	while (cl_now() - t0 < limit) {
		if (read_small(UP("f"), buf, sizeof(buf)) == sizeof(buf) &&
		    !memcmp(buf, want, sizeof(want))) {
			waited = cl_now() - t0;
			break;
		}
		cl_msleep(100);
	}
	CL_SINCE(&d, &s0);
	mct_diag("the other client's data seen through reused handles after %.1f s (attr_ttl=1); %" PRIu64 " handle hits, %" PRIu64 " lower opens",
		 waited, d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls);
	MCT_EXPECT(waited >= 0, "the other client's data not seen through the stack within %.0f s",
		   limit);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits >= 1,
		   "no open was served from a kept handle: the test did not test it");
}

CL_TEST(namespace_ops)
{
	struct mcs s;
	struct stat st;
	int n;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("a"), 10, 'a', 0644) == 0, "create a");
	MCT_ASSERT(cl_writefile(UP("b"), 10, 'b', 0644) == 0, "create b");
	MCT_ASSERT(cl_writefile(UP("c"), 10, 'c', 0644) == 0, "create c");
	MCT_ASSERT(cl_writefile(UP("t"), 10, 't', 0644) == 0, "create t");
	MCT_ASSERT(open_close(UP("a"), O_RDONLY) == 0 && open_close(UP("b"), O_RDONLY) == 0 &&
		   open_close(UP("c"), O_RDONLY) == 0 && open_close(UP("t"), O_RDONLY) == 0,
		   "open+close: %s", strerror(errno));
	CL_SNAP(&s);
	MCT_EXPECT(s.cache[MCS_HANDLE].entries >= 4, "%" PRIu64 " handles cached, want 4",
		   s.cache[MCS_HANDLE].entries);

	MCT_EXPECT(unlink(UP("a")) == 0, "unlink: %s", strerror(errno));
	MCT_EXPECT(rename(UP("b"), UP("b2")) == 0, "rename: %s", strerror(errno));
	MCT_EXPECT(rename(UP("b2"), UP("c")) == 0, "rename over: %s", strerror(errno));
	MCT_EXPECT(truncate(UP("t"), 3) == 0, "truncate: %s", strerror(errno));
	MCT_EXPECT(cl_lstat_err(LO("a"), NULL) == ENOENT && cl_lstat_err(LO("b"), NULL) == ENOENT,
		   "a or b still on the lower");
	MCT_EXPECT(stat(LO("c"), &st) == 0 && st.st_size == 10, "c on the lower");
	MCT_EXPECT(stat(LO("t"), &st) == 0 && st.st_size == 3 &&
		   stat(UP("t"), &st) == 0 && st.st_size == 3, "t truncated: %jd",
		   (intmax_t)st.st_size);
	n = silly_wait(c->lo);
	MCT_EXPECT(n == 0, "%d .nfs* files left on the lower after unlink/rename", n);
	/* removing the directory works: nothing holds a file in it */
	MCT_EXPECT(unlink(UP("c")) == 0 && unlink(UP("t")) == 0, "unlink: %s", strerror(errno));
	n = silly_wait(c->lo);
	MCT_EXPECT(n == 0, "%d .nfs* files left on the lower", n);
	MCT_EXPECT(cl_count(c->lo) == 0, "the lower directory still has %d entries",
		   cl_count(c->lo));
}

/* The other client tries the locks: returns a bit per conflict seen. */
static int other_locks(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR), r = 0;

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETLK, &fl) < 0 && (errno == EAGAIN || errno == EACCES))
		r |= 1;
	close(fd);
	return r;
}

/* 0 or the errno of an open for reading of PATH */
static int open_err(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * A file removed directly on the lower mount of this machine while
 * metacache keeps it open (NFS silly-renames it): the next open of the
 * name through metacache must not be served the kept file of a name that
 * is gone, but fail as on the lower after an open and close there (cifs
 * too closes the handle it keeps after a close, when the file is
 * removed): ENOENT; and leave no .nfs*.
 */
CL_TEST(lower_unlink)
{
	struct mcs s0, d;
	int err, err_st, err_lo, err_up, n;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(LO("g"), 10, 'g', 0644) == 0, "create g");
	MCT_ASSERT(open_close(LO("g"), O_RDONLY) == 0, "open g on the lower: %s",
		   strerror(errno));
	MCT_ASSERT(unlink(LO("g")) == 0, "unlink g on the lower: %s", strerror(errno));
	err_lo = open_err(LO("g"));

	MCT_ASSERT(cl_writefile(UP("f"), 10, 'f', 0644) == 0, "create f");
	CL_SNAP(&s0);
	MCT_ASSERT(open_close(UP("f"), O_RDONLY) == 0, "open f: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_ASSERT(d.cache[MCS_HANDLE].entries == 1, "%" PRIu64 " handles kept, want 1",
		   d.cache[MCS_HANDLE].entries);
	MCT_ASSERT(unlink(LO("f")) == 0, "unlink on the lower: %s", strerror(errno));
	/*
	 * A stat by the name: metacache knows the lower changed (the lower
	 * inode lost its link, or NFS marked it stale for its silly-rename)
	 * and answers as the lower: ENOENT (on cifs the server still finds
	 * the file, "delete pending" while the kept file holds it open).
	 */
	err = cl_lstat_err(UP("f"), NULL);
	err_st = cl_lstat_err(LO("f"), NULL);
	MCT_EXPECT(err == err_st, "stat of the removed name through metacache: %s, on the lower: %s",
		   err ? strerror(err) : "found", err_st ? strerror(err_st) : "found");
	if (!cl_fs("cifs"))
		MCT_EXPECT(err == ENOENT, "stat of the removed name: %s, want ENOENT",
			   err ? strerror(err) : "found");
	err_up = open_err(UP("f"));
	mct_diag("open of a name removed on the lower after an open and close: lower %s, metacache %s",
		 err_lo ? strerror(err_lo) : "opened", err_up ? strerror(err_up) : "opened");
	MCT_EXPECT(err_up == ENOENT, "through metacache: %s, want ENOENT (the lower: %s)",
		   err_up ? strerror(err_up) : "opened", err_lo ? strerror(err_lo) : "opened");
	MCT_EXPECT(err_lo == ENOENT, "on the lower: %s, want ENOENT",
		   err_lo ? strerror(err_lo) : "opened");
	n = silly_wait(c->lo);
	MCT_EXPECT(n == 0, "%d .nfs* files left on the lower", n);
	MCT_EXPECT(cl_count(c->lo) == 0, "the lower directory still has %d entries",
		   cl_count(c->lo));
}

/*
 * The same for a file renamed directly on the lower while kept: the open
 * of the old name must not get the kept file (now another name's).
 */
CL_TEST(lower_rename)
{
	struct mcs s0, d;
	int err_up;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("h"), 10, 'h', 0644) == 0, "create h");
	CL_SNAP(&s0);
	MCT_ASSERT(open_close(UP("h"), O_RDONLY) == 0, "open h: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_ASSERT(d.cache[MCS_HANDLE].entries == 1, "%" PRIu64 " handles kept, want 1",
		   d.cache[MCS_HANDLE].entries);
	MCT_ASSERT(rename(LO("h"), LO("h2")) == 0, "rename on the lower: %s", strerror(errno));
	err_up = open_err(UP("h"));
	MCT_EXPECT(err_up == ENOENT, "open of a name renamed away on the lower: %s, want ENOENT",
		   err_up ? strerror(err_up) : "opened");
	MCT_EXPECT(open_err(UP("h2")) == 0, "open of the new name: %s", strerror(errno));
	MCT_EXPECT(unlink(UP("h2")) == 0, "unlink h2: %s", strerror(errno));
	MCT_EXPECT(silly_wait(c->lo) == 0, ".nfs* files left on the lower");
}

/* fstat() and ftruncate() of a file open at FD, size 10 before: 0 or errno */
static int fd_ops(int fd, off_t *size)
{
	struct stat st;

	if (fstat(fd, &st) || ftruncate(fd, 3) || fstat(fd, &st))
		return errno;
	*size = st.st_size;
	return 0;
}

/*
 * An open file whose name is removed directly on the lower (NFS
 * silly-renames it, cifs marks it delete pending): fstat() and
 * ftruncate() on it work through metacache as they do on the lower
 * (metacache had the name detached: it must not look the object up by a
 * name that is gone and fail with ESTALE).
 */
CL_TEST(fd_after_lower_unlink)
{
	off_t size_lo = -1, size_up = -1;
	int fd, err_lo, err_up;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(LO("g"), 10, 'g', 0644) == 0, "create g");
	MCT_ASSERT(cl_writefile(UP("f"), 10, 'f', 0644) == 0, "create f");
	fd = open(LO("g"), O_RDWR);
	MCT_ASSERT(fd >= 0, "open g on the lower: %s", strerror(errno));
	MCT_ASSERT(unlink(LO("g")) == 0, "unlink g on the lower: %s", strerror(errno));
	err_lo = fd_ops(fd, &size_lo);
	close(fd);
	fd = open(UP("f"), O_RDWR);
	MCT_ASSERT(fd >= 0, "open f: %s", strerror(errno));
	MCT_ASSERT(unlink(LO("f")) == 0, "unlink f on the lower: %s", strerror(errno));
	err_up = fd_ops(fd, &size_up);
	close(fd);
	mct_diag("fstat+ftruncate of a file removed on the lower: lower %s, metacache %s",
		 err_lo ? strerror(err_lo) : "ok", err_up ? strerror(err_up) : "ok");
	MCT_EXPECT(err_up == err_lo, "through metacache: %s, on the lower: %s",
		   err_up ? strerror(err_up) : "ok", err_lo ? strerror(err_lo) : "ok");
	MCT_EXPECT(size_up == size_lo, "size after ftruncate: %jd, on the lower %jd",
		   (intmax_t)size_up, (intmax_t)size_lo);
	MCT_EXPECT(silly_wait(c->lo) == 0, ".nfs* files left on the lower");
}

/* What the calls on an open file's object gave, one errno (or 0) each. */
enum {
	FC_REOPEN, FC_CHMOD, FC_CHOWN, FC_UTIMENS, FC_SETXATTR, FC_RMXATTR,
	FC_SETFLAGS, FC_FSTAT, FC_NR
};

struct fd_changes {
	int err[FC_NR];
	mode_t mode;
	gid_t gid;
	time_t mtime;
};

/*
 * Reopen through /proc/self/fd/N, then fchmod(), fchown() to group 1,
 * futimens(), fsetxattr(), fremovexattr() and FS_IOC_SETFLAGS (with the
 * flags it has) of the file open at FD, then fstat() to see what they did.
 */
static void fd_change(int fd, struct fd_changes *r)
{
	const struct timespec ts[2] = { { .tv_sec = 1 }, { .tv_sec = 2 } };
	char proc[64];
	struct stat st;
	int fd2, fl = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	fd2 = open(proc, O_RDONLY | O_CLOEXEC);
	r->err[FC_REOPEN] = fd2 < 0 ? errno : 0;
	if (fd2 >= 0)
		close(fd2);
	r->err[FC_CHMOD] = fchmod(fd, 0600) ? errno : 0;
	r->err[FC_CHOWN] = fchown(fd, -1, 1) ? errno : 0;
	r->err[FC_UTIMENS] = futimens(fd, ts) ? errno : 0;
	r->err[FC_SETXATTR] = fsetxattr(fd, "user.mc", "v", 1, 0) ? errno : 0;
	r->err[FC_RMXATTR] = fremovexattr(fd, "user.mc") ? errno : 0;
	r->err[FC_SETFLAGS] = ioctl(fd, FS_IOC_GETFLAGS, &fl) ||
			      ioctl(fd, FS_IOC_SETFLAGS, &fl) ? errno : 0;
	r->err[FC_FSTAT] = fstat(fd, &st) ? errno : 0;
	r->mode = st.st_mode & 07777;
	r->gid = st.st_gid;
	r->mtime = st.st_mtime;
}

static const char *err_str(int e)
{
	return e ? strerror(e) : "ok";
}

/*
 * The calls that change an open file's object (fchmod(), fchown(),
 * futimens(), fsetxattr()) and a reopen through /proc/self/fd/N, once its
 * name was removed directly on the lower: through metacache they act on
 * the object, as on the lower.  Metacache cannot tell fchmod() from
 * chmod() of the name while it still has the name: the first such raw
 * call on a name nobody has looked at since may see ESTALE once, then
 * the name is dropped and the next call acts on the object.
 */
CL_TEST(fd_changes_after_lower_unlink)
{
	struct fd_changes lo = { 0 }, up = { 0 };
	static const char *const what[FC_NR] = {
		"reopen", "fchmod", "fchown", "futimens", "fsetxattr",
		"fremovexattr", "FS_IOC_SETFLAGS", "fstat",
	};
	int i, fd, first, again;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(LO("g"), 10, 'g', 0644) == 0, "create g");
	MCT_ASSERT(cl_writefile(UP("f"), 10, 'f', 0644) == 0, "create f");
	MCT_ASSERT(cl_writefile(UP("h"), 10, 'h', 0644) == 0, "create h");
	fd = open(LO("g"), O_RDWR);
	MCT_ASSERT(fd >= 0, "open g on the lower: %s", strerror(errno));
	MCT_ASSERT(unlink(LO("g")) == 0, "unlink g on the lower: %s", strerror(errno));
	fd_change(fd, &lo);
	close(fd);
	fd = open(UP("f"), O_RDWR);
	MCT_ASSERT(fd >= 0, "open f: %s", strerror(errno));
	MCT_ASSERT(unlink(LO("f")) == 0, "unlink f on the lower: %s", strerror(errno));
	fd_change(fd, &up);
	close(fd);
	for (i = 0; i < FC_NR; i++) {
		mct_diag("%s of a file removed on the lower: lower %s, metacache %s",
			 what[i], err_str(lo.err[i]), err_str(up.err[i]));
		MCT_EXPECT(up.err[i] == lo.err[i], "%s: %s through metacache, %s on the lower",
			   what[i], err_str(up.err[i]), err_str(lo.err[i]));
	}
	if (!lo.err[FC_FSTAT] && !up.err[FC_FSTAT]) {
		MCT_EXPECT(up.mode == lo.mode, "mode after fchmod: %o, on the lower %o",
			   (unsigned int)up.mode, (unsigned int)lo.mode);
		MCT_EXPECT(up.gid == lo.gid, "group after fchown: %u, on the lower %u",
			   (unsigned int)up.gid, (unsigned int)lo.gid);
		MCT_EXPECT(up.mtime == lo.mtime, "mtime after futimens: %jd, on the lower %jd",
			   (intmax_t)up.mtime, (intmax_t)lo.mtime);
	}

	/* The first call, raw: ESTALE at most once (see above). */
	fd = open(UP("h"), O_RDWR);
	MCT_ASSERT(fd >= 0, "open h: %s", strerror(errno));
	MCT_ASSERT(unlink(LO("h")) == 0, "unlink h on the lower: %s", strerror(errno));
	first = fchmod(fd, 0600) ? errno : 0;
	again = fchmod(fd, 0600) ? errno : 0;
	close(fd);
	mct_diag("fchmod as the first call after the lower unlink: %s, then %s",
		 err_str(first), err_str(again));
	MCT_EXPECT(first == lo.err[FC_CHMOD] || first == ESTALE,
		   "first fchmod: %s, on the lower %s", err_str(first),
		   err_str(lo.err[FC_CHMOD]));
	MCT_EXPECT(again == lo.err[FC_CHMOD], "second fchmod: %s, on the lower %s",
		   err_str(again), err_str(lo.err[FC_CHMOD]));
	MCT_EXPECT(silly_wait(c->lo) == 0, ".nfs* files left on the lower");
}

/*
 * The other side of fd_changes_after_lower_unlink: a change or an open BY
 * NAME of a name renamed away directly on the lower, while metacache
 * still caches it as naming its file, must not reach that file under its
 * new name: each gives ENOENT, as the lower does, and the file is left as
 * it was.  truncate() and chown() are the ones at risk: before their
 * ->setattr, the kernel itself reads security.capability of the name
 * (notify_change()'s killpriv check) and ignores that read's ESTALE.
 */
CL_TEST(by_name_after_lower_rename)
{
	static const char *const what[] = {
		"truncate", "chown", "chmod", "utimensat", "setxattr", "open",
	};
	const struct timespec ts[2] = { { .tv_sec = 1 }, { .tv_sec = 2 } };
	char from[16], to[16];
	struct stat st, st0;
	int i, r, e;

	CL_TTLS(3600);
	for (i = 0; i < (int)(sizeof(what) / sizeof(what[0])); i++) {
		snprintf(from, sizeof(from), "n%d", i);
		snprintf(to, sizeof(to), "m%d", i);
		MCT_ASSERT(cl_writefile(UP(from), 10, 'n', 0644) == 0, "create %s", from);
		MCT_ASSERT(stat(UP(from), &st) == 0, "stat %s: %s", from, strerror(errno));
		MCT_ASSERT(stat(LO(from), &st0) == 0, "stat %s on the lower: %s", from,
			   strerror(errno));
		MCT_ASSERT(rename(LO(from), LO(to)) == 0, "rename %s to %s on the lower: %s",
			   from, to, strerror(errno));
		switch (i) {
		case 0:
			r = truncate(UP(from), 0);
			break;
		case 1:
			r = chown(UP(from), -1, 1);
			break;
		case 2:
			r = chmod(UP(from), 0600);
			break;
		case 3:
			r = utimensat(AT_FDCWD, UP(from), ts, 0);
			break;
		case 4:
			r = setxattr(UP(from), "user.mc", "v", 1, 0);
			break;
		default:
			r = open(UP(from), O_RDWR | O_CLOEXEC);
			if (r >= 0)
				close(r);
			r = r < 0 ? -1 : 0;
			break;
		}
		e = r ? errno : 0;
		MCT_EXPECT(e == ENOENT, "%s of a name renamed away on the lower: %s, want ENOENT",
			   what[i], err_str(e));
		MCT_ASSERT(stat(LO(to), &st) == 0, "stat %s on the lower: %s", to, strerror(errno));
		MCT_EXPECT(st.st_size == st0.st_size && st.st_mode == st0.st_mode &&
			   st.st_gid == st0.st_gid && st.st_mtime == st0.st_mtime,
			   "%s by the old name changed the renamed file: size %jd mode %o gid %u mtime %jd, before %jd %o %u %jd",
			   what[i], (intmax_t)st.st_size, (unsigned int)st.st_mode,
			   (unsigned int)st.st_gid, (intmax_t)st.st_mtime,
			   (intmax_t)st0.st_size, (unsigned int)st0.st_mode,
			   (unsigned int)st0.st_gid, (intmax_t)st0.st_mtime);
	}
}

/* Lines of /proc/self/mountinfo: how many mounts this process sees. */
static int mount_count(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int n = 0, ch;

	if (!f)
		return -1;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/*
 * A file with something bind-mounted on it, open, and its name removed on
 * the lower: when metacache drops the stale name (the fchmod() on the open
 * file), the mount on it goes too, as when the VFS drops a name that fails
 * revalidation; it is not left attached where no path reaches it.  Not
 * while the lower client still finds the name (cifs: see below).
 */
CL_TEST(mount_on_stale_name)
{
	int fd, n0, n1, n2, e, gone;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(UP("b"), 10, 'b', 0644) == 0, "create b");
	MCT_ASSERT(cl_writefile(LO("src"), 10, 's', 0644) == 0, "create src");
	fd = open(UP("b"), O_RDWR | O_CLOEXEC);
	MCT_ASSERT(fd >= 0, "open b: %s", strerror(errno));
	n0 = mount_count();
	MCT_ASSERT(mount(LO("src"), UP("b"), NULL, MS_BIND, NULL) == 0,
		   "bind-mount src on b: %s", strerror(errno));
	n1 = mount_count();
	MCT_ASSERT(unlink(LO("b")) == 0, "unlink b on the lower: %s", strerror(errno));
	e = fchmod(fd, 0600) ? errno : 0;
	if (e == ESTALE)		/* once: see fd_changes_after_lower_unlink */
		e = fchmod(fd, 0600) ? errno : 0;
	n2 = mount_count();
	close(fd);
	gone = access(LO("b"), F_OK) ? errno : 0;
	mct_diag("mounts: %d, %d with the bind mount, %d after the unlink; b on the lower: %s",
		 n0, n1, n2, gone ? strerror(gone) : "still there");
	MCT_EXPECT(e == 0, "fchmod of the open file: %s", strerror(e));
	MCT_EXPECT(n1 == n0 + 1, "the bind mount did not show in mountinfo");
	if (!gone) {
		/*
		 * cifs: the server keeps an open file's name until its last
		 * close (delete pending), so the lower client still finds
		 * it and the name is not stale: the mount stays, as on the
		 * lower.
		 */
		MCT_EXPECT(n2 == n1, "a mount on a name still there went (%d mounts, %d before)",
			   n2, n1);
		MCT_EXPECT(umount2(UP("b"), MNT_DETACH) == 0, "umount b: %s", strerror(errno));
	} else {
		MCT_EXPECT(n2 == n0, "the mount on the dropped name is still attached (%d mounts, %d before)",
			   n2, n0);
	}
	MCT_EXPECT(silly_wait(c->lo) == 0, ".nfs* files left on the lower");
}

CL_TEST(locks)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct mcs s0, s;
	int fd, r;

	if (cl.other_is_lower)
		MCT_SKIP("no second client on %s", cl.fstype);
	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("f"), 10, 'a', 0644) == 0, "create");
	MCT_ASSERT(open_close(UP("f"), O_RDONLY) == 0, "open+close");
	CL_SNAP(&s0);
	fd = open(UP("f"), O_RDONLY);		/* the kept handle */
	MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	CL_SINCE(&s, &s0);
	MCT_EXPECT(s.cache[MCS_HANDLE].hits == 1, "the open did not reuse the kept handle");
	MCT_ASSERT(fcntl(fd, F_SETLK, &fl) == 0, "F_SETLK F_RDLCK: %s", strerror(errno));
	r = other_locks(LO2("f"));
	MCT_EXPECT(r == 1, "the other client's write lock did not conflict with our read lock (%d)", r);
	close(fd);
	CL_SNAP(&s);
	MCT_EXPECT(s.cache[MCS_HANDLE].entries == 0,
		   "a handle that had locks was kept (%" PRIu64 " cached)",
		   s.cache[MCS_HANDLE].entries);
	r = other_locks(LO2("f"));
	MCT_EXPECT(r == 0, "the lock outlived close() through the stack (%d)", r);
}

CL_TEST(bounds)
{
	struct mcs s0, d;
	char name[32];
	int i, waited;

	CL_TTLS(3600);
	CL_REMOUNT("close_ttl=0");
	MCT_ASSERT(cl_writefile(UP("f"), 10, 'a', 0644) == 0, "create");
	CL_SNAP(&s0);
	for (i = 0; i < 5; i++)
		MCT_ASSERT(open_close(UP("f"), O_RDONLY) == 0, "open");
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 0 && d.cache[MCS_HANDLE].entries == 0 &&
		   d.op[MCS_OPEN].calls == 5,
		   "close_ttl=0: %" PRIu64 " hits, %" PRIu64 " cached, %" PRIu64 " lower opens",
		   d.cache[MCS_HANDLE].hits, d.cache[MCS_HANDLE].entries, d.op[MCS_OPEN].calls);

	/* max_handles: the oldest are closed */
	CL_REMOUNT("close_ttl=3600,max_handles=3");
	CL_SNAP(&s0);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		MCT_ASSERT(cl_writefile(UP(name), 10, 'a', 0644) == 0, "create %s", name);
		MCT_ASSERT(open_close(UP(name), O_RDONLY) == 0, "open %s", name);
	}
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 3 && d.cache[MCS_HANDLE].evicted >= 7,
		   "max_handles=3: %" PRIu64 " cached, %" PRIu64 " evicted",
		   d.cache[MCS_HANDLE].entries, d.cache[MCS_HANDLE].evicted);
	/* the newest is still there */
	CL_SNAP(&s0);
	MCT_ASSERT(open_close(UP("g9"), O_RDONLY) == 0, "open g9");
	MCT_ASSERT(open_close(UP("g0"), O_RDONLY) == 0, "open g0");
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 1, "newest reused, oldest not: %" PRIu64 " hits",
		   d.cache[MCS_HANDLE].hits);

	/* a flush closes every one */
	CL_FLUSH();
	CL_SNAP(&s0);
	MCT_EXPECT(s0.cache[MCS_HANDLE].entries == 0, "after a flush: %" PRIu64 " cached",
		   s0.cache[MCS_HANDLE].entries);

	/* expiry: the expiry pass closes them (polled: no timing asserted) */
	CL_REMOUNT("close_ttl=1,max_handles=1024");
	MCT_ASSERT(open_close(UP("g1"), O_RDONLY) == 0, "open g1");
	CL_SNAP(&s0);
	for (waited = 0; waited < 300; waited++) {
		CL_SNAP(&d);
		if (d.cache[MCS_HANDLE].entries == 0)
			break;
		cl_msleep(100);
	}
	CL_SINCE(&d, &s0);
	mct_diag("close_ttl=1: closed after %.1f s", waited / 10.0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0 && d.cache[MCS_HANDLE].expired >= 1,
		   "close_ttl=1: %" PRIu64 " still cached after 30 s, %" PRIu64 " expired",
		   d.cache[MCS_HANDLE].entries, d.cache[MCS_HANDLE].expired);
}

/* metacachectl ARGS... (a shell command line, paths without spaces): its status */
static int ctl(const char *fmt, ...)
{
	char tool[PATH_MAX], args[2 * PATH_MAX], cmd[4 * PATH_MAX];
	va_list ap;

	if (mc_find_ctl(tool, sizeof(tool)))
		return -1;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	cl_snp(cmd, sizeof(cmd), "%s %s", tool, args);
	return system(cmd);
}

CL_TEST(retune)
{
	struct mcs s0, d;
	int n, waited;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("f"), 10, 'a', 0644) == 0, "create f");
	MCT_ASSERT(open_close(UP("f"), O_RDONLY) == 0, "open f: %s", strerror(errno));
	CL_SNAP(&s0);
	MCT_ASSERT(s0.cache[MCS_HANDLE].entries == 1, "%" PRIu64 " handles kept, want 1",
		   s0.cache[MCS_HANDLE].entries);

	/* switched off at run time: the kept handle is closed at once */
	MCT_ASSERT(ctl("set %s handle off", cl.upper) == 0, "metacachectl set handle off");
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0 && d.cache[MCS_HANDLE].evicted >= 1,
		   "handle off: %" PRIu64 " still kept, %" PRIu64 " closed",
		   d.cache[MCS_HANDLE].entries, d.cache[MCS_HANDLE].evicted);
	CL_SNAP(&s0);
	for (n = 0; n < 3; n++)
		MCT_EXPECT(open_close(UP("f"), O_RDONLY) == 0, "open f: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.op[MCS_OPEN].calls == 3 && d.cache[MCS_HANDLE].hits == 0 &&
		   d.cache[MCS_HANDLE].entries == 0,
		   "handle off: %" PRIu64 " lower opens of 3, %" PRIu64 " hits, %" PRIu64 " kept",
		   d.op[MCS_OPEN].calls, d.cache[MCS_HANDLE].hits, d.cache[MCS_HANDLE].entries);
	/* the lower file is closed: removing it on the lower leaves no .nfs* */
	MCT_EXPECT(unlink(LO("f")) == 0, "unlink on the lower: %s", strerror(errno));
	n = silly_wait(c->lo);
	MCT_EXPECT(n == 0, "%d .nfs* files left on the lower", n);
	MCT_ASSERT(ctl("set %s handle on close_ttl 1", cl.upper) == 0,
		   "metacachectl set handle on close_ttl 1");

	/*
	 * A rule's close_ttl (1 h) outlasts the mount's (1 s): the expiry pass
	 * that closes g (mount's ttl) leaves sub/h open.
	 */
	MCT_ASSERT(mkdir(UP("sub"), 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("sub/h"), 10, 'h', 0644) == 0, "create sub/h");
	MCT_ASSERT(cl_writefile(UP("g"), 10, 'g', 0644) == 0, "create g");
	MCT_ASSERT(ctl("policy add %s %s close_ttl 1h", cl.upper, UP("sub")) == 0,
		   "metacachectl policy add %s close_ttl 1h", UP("sub"));
	MCT_EXPECT(open_close(UP("sub/h"), O_RDONLY) == 0 && open_close(UP("g"), O_RDONLY) == 0,
		   "open: %s", strerror(errno));
	CL_SNAP(&s0);
	MCT_EXPECT(s0.cache[MCS_HANDLE].entries == 2, "%" PRIu64 " handles kept, want 2",
		   s0.cache[MCS_HANDLE].entries);
	for (waited = 0; waited < 300; waited++) {
		CL_SNAP(&d);
		if (d.cache[MCS_HANDLE].expired > s0.cache[MCS_HANDLE].expired)
			break;
		cl_msleep(100);
	}
	CL_SINCE(&d, &s0);
	mct_diag("close_ttl=1: g closed after %.1f s", waited / 10.0);
	MCT_EXPECT(d.cache[MCS_HANDLE].expired == 1 && d.cache[MCS_HANDLE].entries == 1,
		   "after the mount's expiry: %" PRIu64 " expired, %" PRIu64 " kept (want 1, 1)",
		   d.cache[MCS_HANDLE].expired, d.cache[MCS_HANDLE].entries);
	CL_SNAP(&s0);
	MCT_EXPECT(open_close(UP("sub/h"), O_RDONLY) == 0, "open sub/h: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == 1 && d.op[MCS_OPEN].calls == 0,
		   "sub/h under a close_ttl 1h rule: %" PRIu64 " hits, %" PRIu64 " lower opens",
		   d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls);

	/* deleting the rule closes the kept handles */
	CL_SNAP(&s0);
	MCT_EXPECT(ctl("policy del %s %s", cl.upper, UP("sub")) == 0,
		   "metacachectl policy del %s", UP("sub"));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0 && d.cache[MCS_HANDLE].evicted >= 1,
		   "policy del: %" PRIu64 " still kept", d.cache[MCS_HANDLE].entries);
}

/*
 * Many handles at once, more than one batch of the whole-mount walks
 * (MC_HANDLE_BATCH, 256): a flush closes every one; with deadlines
 * interleaved (a 1 h rule on one directory, 1 s for the mount, files of the
 * two opened in turn), the expiry pass closes exactly the mount's and
 * keeps every one under the rule; deleting the rule closes the rest, and
 * the lower files can all be removed at once.
 */
#define MANY 300

static int many_path(char *buf, size_t len, const char *base, int i)
{
	return snprintf(buf, len, "%s/%s/m%d", base, i & 1 ? "late" : "soon", i);
}

CL_TEST(many)
{
	char path[PATH_MAX + 64];
	struct mcs s0, d;
	int i, n, waited;

	CL_TTLS(3600);
	CL_REMOUNT("close_ttl=3600,max_handles=1024");
	MCT_ASSERT(mkdir(UP("soon"), 0755) == 0 && mkdir(UP("late"), 0755) == 0,
		   "mkdir: %s", strerror(errno));
	for (i = 0; i < MANY; i++) {	/* quickly, on the server */
		many_path(path, sizeof(path), c->srv, i);
		MCT_ASSERT(cl_writefile(path, 10, 'm', 0644) == 0, "create %s", path);
	}
	CL_SNAP(&s0);
	for (i = 0; i < MANY; i++) {
		many_path(path, sizeof(path), c->up, i);
		MCT_ASSERT(open_close(path, O_RDONLY) == 0, "open %s: %s", path, strerror(errno));
	}
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == MANY, "%" PRIu64 " handles kept, want %d",
		   d.cache[MCS_HANDLE].entries, MANY);
	CL_SNAP(&s0);
	CL_FLUSH();
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0 && d.cache[MCS_HANDLE].evicted == MANY,
		   "flush: %" PRIu64 " still kept, %" PRIu64 " closed, want 0, %d",
		   d.cache[MCS_HANDLE].entries, d.cache[MCS_HANDLE].evicted, MANY);

	MCT_ASSERT(ctl("set %s handle on close_ttl 1", cl.upper) == 0,
		   "metacachectl set handle on close_ttl 1");
	MCT_ASSERT(ctl("policy add %s %s close_ttl 1h", cl.upper, UP("late")) == 0,
		   "metacachectl policy add %s close_ttl 1h", UP("late"));
	CL_SNAP(&s0);
	for (i = 0; i < MANY; i++) {
		many_path(path, sizeof(path), c->up, i);
		MCT_ASSERT(open_close(path, O_RDONLY) == 0, "open %s: %s", path, strerror(errno));
	}
	for (waited = 0; waited < 600; waited++) {
		CL_SINCE(&d, &s0);
		if (d.cache[MCS_HANDLE].expired >= MANY / 2)
			break;
		cl_msleep(100);
	}
	cl_msleep(1500);	/* another pass: would it close one too many? */
	CL_SINCE(&d, &s0);
	mct_diag("close_ttl=1: %" PRIu64 " expired within %.1f s", d.cache[MCS_HANDLE].expired,
		 waited / 10.0);
	MCT_EXPECT(d.cache[MCS_HANDLE].expired == MANY / 2 &&
		   d.cache[MCS_HANDLE].entries == MANY / 2,
		   "%" PRIu64 " expired, %" PRIu64 " kept, want %d and %d",
		   d.cache[MCS_HANDLE].expired, d.cache[MCS_HANDLE].entries, MANY / 2, MANY / 2);
	CL_SNAP(&s0);
	for (i = 1; i < MANY; i += 2) {
		many_path(path, sizeof(path), c->up, i);
		MCT_EXPECT(open_close(path, O_RDONLY) == 0, "open %s: %s", path, strerror(errno));
	}
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].hits == MANY / 2 && d.op[MCS_OPEN].calls == 0,
		   "under the 1h rule: %" PRIu64 " hits, %" PRIu64 " lower opens, want %d, 0",
		   d.cache[MCS_HANDLE].hits, d.op[MCS_OPEN].calls, MANY / 2);

	CL_SNAP(&s0);
	MCT_EXPECT(ctl("policy del %s %s", cl.upper, UP("late")) == 0,
		   "metacachectl policy del %s", UP("late"));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0 && d.cache[MCS_HANDLE].evicted == MANY / 2,
		   "policy del: %" PRIu64 " still kept, %" PRIu64 " closed, want 0, %d",
		   d.cache[MCS_HANDLE].entries, d.cache[MCS_HANDLE].evicted, MANY / 2);
	for (i = 0; i < MANY; i++) {
		many_path(path, sizeof(path), c->lo, i);
		MCT_EXPECT(unlink(path) == 0, "unlink %s on the lower: %s", path,
			   strerror(errno));
	}
	n = silly_wait(LO("late"));
	MCT_EXPECT(n == 0, "%d .nfs* files left on the lower", n);
}

CL_TEST(unmount)
{
	char mnt[64], path[PATH_MAX + 64];
	int i, n;

	snprintf(mnt, sizeof(mnt), "/tmp/mc-handles.%d", getpid());
	MCT_ASSERT(mkdir(mnt, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", mnt,
		   strerror(errno));
	MCT_ASSERT(mount(c->lo, mnt, "metacache", 0, "close_ttl=3600") == 0,
		   "mount -t metacache %s %s: %s", c->lo, mnt, strerror(errno));
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/u%d", mnt, i);
		if (cl_writefile(path, 10, 'a', 0644) || open_close(path, O_RDONLY))
			mct_fail_at(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
	}
	MCT_EXPECT(umount(mnt) == 0, "umount with cached handles: %s", strerror(errno));
	rmdir(mnt);
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/u%d", c->lo, i);
		unlink(path);
	}
	n = silly_wait(c->lo);
	MCT_EXPECT(n == 0, "%d .nfs* files on the lower: a lower file stayed open after umount", n);
}

/*
 * overlayfs opens a file of its lower layer with its own path in f_path
 * (open_with_fake_path()): metacache's ->open and ->release must find
 * their dentry with file_dentry().  Before they did, this test corrupted
 * overlayfs's dentry data.
 */
CL_TEST(overlay_on_top)
{
	char mnt[64], empty[64], opts[PATH_MAX + 80], path[PATH_MAX + 64], buf[64];
	struct mcs s0, d;
	int i, fd, e;
	char *p;

	CL_TTLS(3600);
	handles_on();
	MCT_ASSERT(cl_writefile(UP("o"), 40, 'o', 0644) == 0, "create o");
	snprintf(mnt, sizeof(mnt), "/tmp/mc-ovl.%d", getpid());
	snprintf(empty, sizeof(empty), "/tmp/mc-ovl-empty.%d", getpid());
	MCT_ASSERT((mkdir(mnt, 0755) == 0 || errno == EEXIST) &&
		   (mkdir(empty, 0755) == 0 || errno == EEXIST), "mkdir: %s", strerror(errno));
	/* read-only, two lower layers: the stack's directory and an empty one */
	snprintf(opts, sizeof(opts), "lowerdir=%s:%s", c->up, empty);
	if (mount("overlay", mnt, "overlay", MS_RDONLY, opts)) {
		e = errno;
		rmdir(mnt);
		rmdir(empty);
		if (e == ENODEV)
			MCT_SKIP("no overlayfs in this kernel");
		MCT_ASSERT(0, "mount -t overlay -o %s: %s", opts, strerror(e));
	}
	snprintf(path, sizeof(path), "%s/o", mnt);
	CL_SNAP(&s0);
	for (i = 0; i < 3; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			mct_fail_at(__FILE__, __LINE__, "open %s: %s", path, strerror(errno));
			break;
		}
		memset(buf, 0, sizeof(buf));
		MCT_EXPECT(read(fd, buf, sizeof(buf)) == 40 && buf[0] == 'o' && buf[39] == 'o',
			   "read #%d through the overlay", i);
		p = mmap(NULL, 40, PROT_READ, MAP_SHARED, fd, 0);
		MCT_EXPECT(p != MAP_FAILED, "mmap #%d through the overlay: %s", i,
			   strerror(errno));
		if (p != MAP_FAILED) {
			MCT_EXPECT(p[0] == 'o' && p[39] == 'o', "mmap #%d: wrong data", i);
			munmap(p, 40);
		}
		close(fd);
	}
	CL_SINCE(&d, &s0);
	mct_diag("3 opens through the overlay: lower calls %s; %s", cl_calls(&d),
		 cl_caches(&d));
	MCT_EXPECT(d.cache[MCS_HANDLE].hits >= 1,
		   "no open through the overlay reused a kept lower file: the test did not test it");
	MCT_EXPECT(umount(mnt) == 0, "umount the overlay: %s", strerror(errno));
	rmdir(mnt);
	rmdir(empty);
}

CL_MAIN()
