// SPDX-License-Identifier: GPL-2.0
/*
 * local: a change made THROUGH metacache is visible through metacache at
 * once, whatever it had cached.
 *
 * Every TTL is 3600 s, so anything not invalidated by the change itself
 * would stay stale for an hour.  Each test first caches the old state
 * (stat of the names involved, missing ones too, and a readdir of their
 * directories), makes the change through the stack, then checks right away
 * the stack's answers: against the value the change must produce, and
 * against the lower client's own view (lstat of the same path on MC_LOWER:
 * the lower client made the change itself, so it knows).
 *
 * create, unlink (also of an open file), rename (to a missing name, over
 * an existing one, across directories, of a directory with children),
 * chmod/fchmod, truncate/ftruncate/O_TRUNC, write then stat (open and
 * after close: size and mtime), mkdir then readdir, rmdir, link counts,
 * utimensat, symlink, unlink then re-create; and on a lower that ignores
 * case, what other spellings of a changed name find.
 */
#include "cachelib.h"

#define OLD_MTIME 978307200LL	/* 2001-01-01 */

/* lstat through the stack and on the lower agree (existence and attrs). */
static void same_at(const char *file, int line, const char *up, const char *lo)
{
	struct stat su, sl;
	int eu = cl_lstat_err(up, &su), el = cl_lstat_err(lo, &sl);

	if (eu != el) {
		mct_fail_at(file, line, "lstat %s: %s, on the lower: %s", up,
			    eu ? strerror(eu) : "exists", el ? strerror(el) : "exists");
		return;
	}
	if (eu)
		return;
	if (su.st_ino != sl.st_ino || su.st_mode != sl.st_mode ||
	    su.st_nlink != sl.st_nlink || su.st_size != sl.st_size ||
	    su.st_uid != sl.st_uid || su.st_gid != sl.st_gid)
		mct_fail_at(file, line,
			    "%s: stack ino %ju mode %o nlink %ju size %jd uid %u gid %u; lower ino %ju mode %o nlink %ju size %jd uid %u gid %u",
			    up, (uintmax_t)su.st_ino, su.st_mode, (uintmax_t)su.st_nlink,
			    (intmax_t)su.st_size, su.st_uid, su.st_gid,
			    (uintmax_t)sl.st_ino, sl.st_mode, (uintmax_t)sl.st_nlink,
			    (intmax_t)sl.st_size, sl.st_uid, sl.st_gid);
}
#define SAME(rel) same_at(__FILE__, __LINE__, UP(rel), LO(rel))

/* Cache the current state of NAME (existing or not) through the stack. */
static void warm(struct cl_ctx *c, const char *rel)
{
	struct stat st;

	lstat(UP(rel), &st);
	lstat(UP(rel), &st);
}

#define EXISTS(rel)							\
	MCT_EXPECT(cl_lstat_err(UP(rel), NULL) == 0, "lstat %s after the change: %s", \
		   (rel), strerror(errno))
#define MISSING(rel)							\
	do {								\
		int __e = cl_lstat_err(UP(rel), NULL);			\
		MCT_EXPECT(__e == ENOENT, "lstat %s after the change: %s, want ENOENT", \
			   (rel), __e ? strerror(__e) : "exists");	\
	} while (0)
#define LISTED(dir, name, want)						\
	do {								\
		int __l = cl_listed(UP(dir), (name));			\
		MCT_EXPECT(__l == (want), "readdir %s: %s %s after the change", \
			   (dir), (name), __l ? "listed" : "not listed"); \
	} while (0)

static ino_t ino_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_ino;
}

#define MKFILE(rel, len)						\
	do {								\
		int __r = cl_writefile(UP(rel), (len), 'x', 0644);	\
		MCT_ASSERT(__r == 0, "create %s: %s", (rel), strerror(-__r)); \
	} while (0)
#define MKDIR(rel)							\
	MCT_ASSERT(mkdir(UP(rel), 0755) == 0, "mkdir %s: %s", (rel), strerror(errno))

CL_TEST(create_then_stat)
{
	int fd;

	CL_TTLS(3600);
	umask(022);
	warm(c, "f");
	warm(c, "d");
	warm(c, "s");
	warm(c, "p");
	cl_count(c->up);
	fd = open(UP("f"), O_CREAT | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create f: %s", strerror(errno));
	close(fd);
	MKDIR("d");
	if (symlink("target", UP("s")) && errno != EOPNOTSUPP && errno != EPERM)
		mct_fail_at(__FILE__, __LINE__, "symlink: %s", strerror(errno));
	if (mkfifo(UP("p"), 0644) && errno != EPERM && errno != EOPNOTSUPP)
		mct_fail_at(__FILE__, __LINE__, "mkfifo: %s", strerror(errno));
	EXISTS("f");
	EXISTS("d");
	SAME("f");
	SAME("d");
	SAME("s");
	SAME("p");
	LISTED(".", "f", 1);
	LISTED(".", "d", 1);
	LISTED(".", "s", cl_lstat_err(LO("s"), NULL) == 0);
	LISTED(".", "p", cl_lstat_err(LO("p"), NULL) == 0);
}

/* Does DIR list an NFS silly-renamed file (.nfsXXXX)? */
static int nfs_silly(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ".nfs", 4))
			found = 1;
	closedir(d);
	return found;
}

CL_TEST(unlink_then_stat)
{
	struct stat st;
	int fd, i, n;

	CL_TTLS(3600);
	MKFILE("f", 10);
	MKFILE("open", 10);
	warm(c, "f");
	warm(c, "open");
	cl_count(c->up);
	MCT_ASSERT(unlink(UP("f")) == 0, "unlink: %s", strerror(errno));
	MISSING("f");
	SAME("f");
	LISTED(".", "f", 0);

	fd = open(UP("open"), O_RDONLY);
	MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	MCT_ASSERT(unlink(UP("open")) == 0, "unlink of an open file: %s", strerror(errno));
	/*
	 * SMB keeps an open file's name, "delete pending", until its last
	 * handle closes: the stack shows what the lower shows, and the
	 * listing and the lstat here must not make it cache that name.
	 */
	SAME("open");
	LISTED(".", "open", cl_listed(c->lo, "open"));
	n = cl_count(c->up);
	MCT_EXPECT(n == cl_count(c->lo), "%d entries through the stack, %d on the lower", n,
		   cl_count(c->lo));
	MCT_EXPECT(fstat(fd, &st) == 0, "fstat of the unlinked open file: %s", strerror(errno));
	close(fd);
	/*
	 * Once closed, the name goes on the server: after the cifs client's
	 * own deferred close (closetimeo, 1 s by default); on NFS, its
	 * .nfsXXXX name goes.  Wait (up to 10 s) until the lower lists
	 * neither; then the stack, whose TTLs are an hour, must not list or
	 * find them either.
	 */
	for (i = 0; i < 100 && (cl_listed(c->lo, "open") > 0 || nfs_silly(c->lo)); i++)
		usleep(100000);
	mct_diag("the lower lists the unlinked file %.1f s after its close%s", i / 10.0,
		 i == 100 ? " still" : ": no more");
	SAME("open");
	LISTED(".", "open", cl_listed(c->lo, "open"));
	n = cl_count(c->up);
	MCT_EXPECT(n == cl_count(c->lo), "%d entries through the stack, %d on the lower", n,
		   cl_count(c->lo));
	MCT_EXPECT(nfs_silly(c->up) == nfs_silly(c->lo),
		   "an .nfsXXXX name listed %s the stack than on the lower",
		   nfs_silly(c->up) ? "longer through" : "shorter through");
}

CL_TEST(rename_both_names)
{
	ino_t a, x, sub;

	CL_TTLS(3600);
	MKFILE("a", 10);
	MKFILE("x", 10);
	MKFILE("y", 20);
	MKDIR("d1");
	MKDIR("d2");
	MKFILE("d1/m", 5);
	MKDIR("tree");
	MKDIR("tree/sub");
	MKFILE("tree/sub/leaf", 7);
	a = ino_of(UP("a"));
	x = ino_of(UP("x"));
	sub = ino_of(UP("tree/sub"));
	warm(c, "a");
	warm(c, "b");
	warm(c, "x");
	warm(c, "y");
	warm(c, "d1/m");
	warm(c, "d2/m");
	warm(c, "tree/sub/leaf");
	warm(c, "moved/sub/leaf");
	cl_count(c->up);
	cl_count(UP("d1"));
	cl_count(UP("d2"));

	/* to a name cached as missing */
	MCT_ASSERT(rename(UP("a"), UP("b")) == 0, "rename a b: %s", strerror(errno));
	MISSING("a");
	MCT_EXPECT(ino_of(UP("b")) == a, "b is not the renamed a");
	SAME("a");
	SAME("b");
	LISTED(".", "a", 0);
	LISTED(".", "b", 1);

	/* over an existing (cached) file: the name now shows x's attributes */
	MCT_ASSERT(rename(UP("x"), UP("y")) == 0, "rename x y: %s", strerror(errno));
	MISSING("x");
	MCT_EXPECT(ino_of(UP("y")) == x, "y is not the renamed x");
	SAME("y");
	LISTED(".", "x", 0);

	/* across directories */
	MCT_ASSERT(rename(UP("d1/m"), UP("d2/m")) == 0, "rename d1/m d2/m: %s", strerror(errno));
	MISSING("d1/m");
	EXISTS("d2/m");
	SAME("d2/m");
	LISTED("d1", "m", 0);
	LISTED("d2", "m", 1);

	/* a directory with children, reached through the new and old paths */
	MCT_ASSERT(rename(UP("tree"), UP("moved")) == 0, "rename tree moved: %s", strerror(errno));
	MISSING("tree/sub/leaf");
	MISSING("tree");
	EXISTS("moved/sub/leaf");
	MCT_EXPECT(ino_of(UP("moved/sub")) == sub, "moved/sub is not the old tree/sub");
	SAME("moved/sub/leaf");
	LISTED(".", "moved", 1);
	LISTED(".", "tree", 0);
}

CL_TEST(chmod_visible)
{
	struct stat su, sl;
	int fd;

	CL_TTLS(3600);
	MKFILE("f", 10);
	MCT_ASSERT(chmod(UP("f"), 0644) == 0, "chmod: %s", strerror(errno));
	warm(c, "f");
	MCT_ASSERT(chmod(UP("f"), 0444) == 0, "chmod 0444: %s", strerror(errno));
	SAME("f");
	MCT_ASSERT(lstat(UP("f"), &su) == 0 && lstat(LO("f"), &sl) == 0, "lstat: %s",
		   strerror(errno));
	if ((sl.st_mode & 07777) == 0444)
		MCT_EXPECT((su.st_mode & 07777) == 0444, "mode %o after chmod 0444",
			   su.st_mode & 07777);
	else
		mct_diag("the lower shows mode %o after chmod 0444", sl.st_mode & 07777);

	fd = open(UP("f"), O_RDONLY);
	MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	warm(c, "f");
	MCT_EXPECT(fchmod(fd, 0644) == 0, "fchmod: %s", strerror(errno));
	close(fd);
	SAME("f");
}

CL_TEST(truncate_visible)
{
	struct stat st;
	int fd;

	CL_TTLS(3600);
	MKFILE("f", 1000);
	warm(c, "f");
	MCT_ASSERT(truncate(UP("f"), 10) == 0, "truncate: %s", strerror(errno));
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_size == 10,
		   "size %jd after truncate to 10", (intmax_t)st.st_size);
	SAME("f");

	fd = open(UP("f"), O_WRONLY);
	MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	MCT_EXPECT(ftruncate(fd, 20) == 0, "ftruncate: %s", strerror(errno));
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_size == 20,
		   "size %jd after ftruncate to 20 (file open)", (intmax_t)st.st_size);
	close(fd);
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_size == 20,
		   "size %jd after ftruncate to 20 and close", (intmax_t)st.st_size);

	warm(c, "f");
	fd = open(UP("f"), O_WRONLY | O_TRUNC);
	MCT_ASSERT(fd >= 0, "open O_TRUNC: %s", strerror(errno));
	close(fd);
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_size == 0,
		   "size %jd after open(O_TRUNC)", (intmax_t)st.st_size);
	SAME("f");
}

CL_TEST(write_then_stat)
{
	struct timespec ts[2] = { { OLD_MTIME, 0 }, { OLD_MTIME, 0 } };
	char buf[1000];
	struct stat st;
	time_t now;
	int fd;

	CL_TTLS(3600);
	MKFILE("f", 100);
	MCT_ASSERT(utimensat(AT_FDCWD, UP("f"), ts, 0) == 0, "utimensat: %s", strerror(errno));
	warm(c, "f");
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_mtime == OLD_MTIME,
		   "mtime %jd after utimensat to %lld", (intmax_t)st.st_mtime, OLD_MTIME);

	fd = open(UP("f"), O_WRONLY | O_APPEND);
	MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
	memset(buf, 'w', sizeof(buf));
	MCT_ASSERT(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write: %s",
		   strerror(errno));
	/* still open */
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_size == 1100,
		   "size %jd after writing 1000 bytes to 100 (file still open)",
		   (intmax_t)st.st_size);
	MCT_EXPECT(close(fd) == 0, "close: %s", strerror(errno));
	now = time(NULL);
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_EXPECT(st.st_size == 1100, "size %jd after write and close, want 1100",
		   (intmax_t)st.st_size);
	MCT_EXPECT(st.st_mtime > now - 120 && st.st_mtime < now + 120,
		   "mtime %jd after the write: not about now (%jd); was %lld",
		   (intmax_t)st.st_mtime, (intmax_t)now, OLD_MTIME);
	SAME("f");
}

CL_TEST(mkdir_rmdir_readdir)
{
	CL_TTLS(3600);
	MKDIR("p");
	MKDIR("p/old");
	warm(c, "p");
	warm(c, "p/sub");
	warm(c, "p/old");
	cl_count(UP("p"));
	MKDIR("p/sub");
	LISTED("p", "sub", 1);
	EXISTS("p/sub");
	SAME("p");		/* nlink of the parent */
	SAME("p/sub");
	MCT_EXPECT(cl_count(UP("p/sub")) == 0, "the new directory is not empty");

	MCT_ASSERT(rmdir(UP("p/old")) == 0, "rmdir: %s", strerror(errno));
	MISSING("p/old");
	LISTED("p", "old", 0);
	SAME("p");
	MCT_EXPECT(cl_count(UP("p")) == 1, "p has %d entries, want 1 (sub)", cl_count(UP("p")));
}

CL_TEST(link_count)
{
	struct stat st;

	CL_TTLS(3600);
	MKFILE("f", 10);
	warm(c, "f");
	warm(c, "g");
	if (link(UP("f"), UP("g"))) {
		int e = errno;

		if (e == EPERM || e == EOPNOTSUPP || e == ENOSYS)
			MCT_SKIP("link() on %s: %s", cl.fstype, strerror(e));
		MCT_ASSERT(0, "link: %s", strerror(e));
	}
	MCT_ASSERT(lstat(LO("f"), &st) == 0, "lstat on the lower: %s", strerror(errno));
	if (st.st_nlink != 2)
		mct_diag("the lower shows nlink %ju after link()", (uintmax_t)st.st_nlink);
	SAME("f");
	SAME("g");
	/*
	 * The names share an inode through the stack exactly when they do on
	 * the lower: a cifs share without server inode numbers (noserverino)
	 * gives each name its own.
	 */
	if (ino_of(LO("f")) == ino_of(LO("g")))
		MCT_EXPECT(ino_of(UP("f")) == ino_of(UP("g")),
			   "f and g are not the same inode (they are on the lower)");
	else
		mct_diag("the lower shows f and g as different inodes");

	/* a change through one name shows through the other */
	warm(c, "g");
	MCT_EXPECT(chmod(UP("f"), 0600) == 0, "chmod: %s", strerror(errno));
	SAME("g");

	MCT_ASSERT(unlink(UP("g")) == 0, "unlink g: %s", strerror(errno));
	SAME("f");
	MISSING("g");
	MCT_ASSERT(lstat(LO("f"), &st) == 0, "lstat on the lower: %s", strerror(errno));
	if (st.st_nlink == 1)
		MCT_EXPECT(lstat(UP("f"), &st) == 0 && st.st_nlink == 1,
			   "nlink %ju after unlinking the second name", (uintmax_t)st.st_nlink);
	else
		mct_diag("the lower shows nlink %ju after unlinking the second name",
			 (uintmax_t)st.st_nlink);
}

CL_TEST(utimes_visible)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1111111111, 0 } };
	struct stat st;

	CL_TTLS(3600);
	MKFILE("f", 10);
	warm(c, "f");
	MCT_ASSERT(utimensat(AT_FDCWD, UP("f"), ts, 0) == 0, "utimensat: %s", strerror(errno));
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_EXPECT(st.st_mtime == 1111111111, "mtime %jd, want 1111111111", (intmax_t)st.st_mtime);
	MCT_EXPECT(st.st_atime == 1000000000 || cl_fs("cifs"),
		   "atime %jd, want 1000000000", (intmax_t)st.st_atime);
}

CL_TEST(symlink_on_missing)
{
	char buf[64];
	ssize_t n;
	struct stat st;

	CL_TTLS(3600);
	warm(c, "s");
	if (symlink("some/target", UP("s")) && (errno == EOPNOTSUPP || errno == EPERM))
		MCT_SKIP("no symlinks on %s: %s", cl.fstype, strerror(errno));
	MCT_ASSERT(cl_lstat_err(UP("s"), NULL) == 0, "symlink: %s", strerror(errno));
	MCT_ASSERT(lstat(UP("s"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_EXPECT(S_ISLNK(st.st_mode), "not a symlink: mode %o", st.st_mode);
	n = readlink(UP("s"), buf, sizeof(buf) - 1);
	MCT_EXPECT(n == 11 && !memcmp(buf, "some/target", 11), "readlink: %zd", n);
}

CL_TEST(recreate_same_name)
{
	struct stat st;
	ino_t old;

	CL_TTLS(3600);
	MKFILE("f", 500);
	old = ino_of(UP("f"));
	warm(c, "f");
	MCT_ASSERT(unlink(UP("f")) == 0, "unlink: %s", strerror(errno));
	MKFILE("f", 3);
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_EXPECT(st.st_size == 3, "size %jd, want 3 (the old file had 500)",
		   (intmax_t)st.st_size);
	MCT_EXPECT(st.st_ino != old || cl_fs("cifs"), "the new file has the old inode number");
	SAME("f");

	/* and a file replaced by a directory */
	warm(c, "f");
	MCT_ASSERT(unlink(UP("f")) == 0, "unlink: %s", strerror(errno));
	MKDIR("f");
	MCT_EXPECT(lstat(UP("f"), &st) == 0 && S_ISDIR(st.st_mode),
		   "f is not a directory after unlink + mkdir");
	SAME("f");
}

/*
 * Other spellings of a changed name, on a lower that ignores case (SMB):
 * "README" finds "readme" there, so a change of "readme" through the stack
 * changes what "README" finds, though it is not the entry the change
 * updated.  The lower client itself learns of it from the server within
 * its own caching time (cifs: a negative dentry 1 s, attributes actimeo);
 * once it shows the change, the stack must too, with every TTL an hour.
 */
static int lower_ignores_case(struct cl_ctx *c)
{
	int r = cl_writefile(UP("casefold"), 0, 'x', 0644);

	if (r) {
		mct_fail_at(__FILE__, __LINE__, "create casefold: %s", strerror(-r));
		return -1;
	}
	return cl_lstat_err(LO("CASEFOLD"), NULL) == 0;
}

#define NEED_CASE_INSENSITIVE()						\
	do {								\
		int __i = lower_ignores_case(c);			\
		if (__i < 0)						\
			return;						\
		if (!__i)						\
			MCT_SKIP("%s compares names exactly: no other spelling", \
				 cl.fstype);				\
	} while (0)

/*
 * Wait until lstat of @lo on the lower gives @want (0 or an errno) and, if
 * it exists, @size (unless -1).
 */
static int lower_shows(const char *lo, int want, off_t size)
{
	double end = cl_now() + cl_lower_wait();
	struct stat st;
	int e;

	while ((e = cl_lstat_err(lo, &st)) != want ||
	       (!e && size >= 0 && st.st_size != size)) {
		if (cl_now() > end)
			return 0;
		cl_msleep(100);
	}
	return 1;
}

/*
 * Ask the stack right after the change, while the lower client may still
 * hold its own older answer: that must not be cached again as fresh.
 */
static void ask_early(struct cl_ctx *c, const char *rel)
{
	cl_lstat_err(UP(rel), NULL);
}

/*
 * Whether two spellings give one inode number is the lower's business
 * (cifs gives each its own once it stops using the server's inode
 * numbers, which it may decide by itself mid-mount): the stack must agree.
 */
#define SAME_FILE_AS_LOWER(a, b)					\
	do {								\
		int __lo = ino_of(LO(a)) == ino_of(LO(b));		\
		int __up = ino_of(UP(a)) == ino_of(UP(b));		\
		MCT_EXPECT(__up == __lo, "the stack shows %s and %s as %s, the lower as %s", \
			   (a), (b), __up ? "one file" : "two files",	\
			   __lo ? "one file" : "two files");		\
	} while (0)

CL_TEST(case_variant_created)
{
	CL_TTLS(3600);
	NEED_CASE_INSENSITIVE();
	warm(c, "README");
	MCT_ASSERT(cl_lstat_err(UP("README"), NULL) == ENOENT, "README exists before");
	MKFILE("readme", 1);
	ask_early(c, "README");
	MCT_ASSERT(lower_shows(LO("README"), 0, -1),
		   "the lower never found README after creating readme");
	EXISTS("README");
	SAME_FILE_AS_LOWER("README", "readme");
}

CL_TEST(case_variant_renamed_away)
{
	CL_TTLS(3600);
	NEED_CASE_INSENSITIVE();
	MKFILE("readme", 1);
	warm(c, "README");
	MCT_ASSERT(cl_lstat_err(UP("README"), NULL) == 0, "README not found: %s",
		   strerror(errno));
	MCT_ASSERT(rename(UP("readme"), UP("other")) == 0, "rename: %s",
		   strerror(errno));
	ask_early(c, "README");
	MCT_ASSERT(lower_shows(LO("README"), ENOENT, -1),
		   "the lower still finds README after renaming readme away");
	MISSING("README");
	EXISTS("other");
}

CL_TEST(case_variant_unlinked_and_replaced)
{
	struct stat st;

	CL_TTLS(3600);
	NEED_CASE_INSENSITIVE();
	MKFILE("readme", 1);
	warm(c, "README");
	MCT_ASSERT(unlink(UP("readme")) == 0, "unlink: %s", strerror(errno));
	ask_early(c, "README");
	MCT_ASSERT(lower_shows(LO("README"), ENOENT, -1),
		   "the lower still finds README after unlinking readme");
	MISSING("README");

	MKFILE("readme", 1);
	MKFILE("new", 5);
	warm(c, "README");
	MCT_ASSERT(rename(UP("new"), UP("readme")) == 0, "rename: %s",
		   strerror(errno));
	ask_early(c, "README");
	MCT_ASSERT(lower_shows(LO("README"), 0, 5),
		   "the lower never showed README as the new file");
	MCT_ASSERT(lstat(UP("README"), &st) == 0, "lstat README: %s",
		   strerror(errno));
	MCT_EXPECT(st.st_size == 5, "README is still the replaced file: size %jd, want 5",
		   (intmax_t)st.st_size);
	SAME_FILE_AS_LOWER("README", "readme");
}

/*
 * What such a change leaves cached (cache.c, "Name generations"): adding
 * a name cannot make another name missing, and removing one cannot make
 * a missing name found, so those entries stay hits; the others ask once.
 */
CL_TEST(case_variant_keeps_the_rest)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	NEED_CASE_INSENSITIVE();
	MKFILE("kept", 1);
	MKFILE("gone", 1);
	cl_settle();

	/* A create: the missing names ask again, the found ones do not. */
	warm(c, "kept");
	warm(c, "missing");
	MKFILE("added", 1);
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("kept"), NULL) == 0, "kept: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "a found name asked the lower after another name was created: %s; %s",
		   cl_calls(&d), cl_caches(&d));
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("missing"), NULL) == ENOENT, "missing exists");
	CL_SINCE(&d, &s0);
	MCT_EXPECT(mcs_calls(&d, MCS_META) > 0,
		   "a missing name was answered from the cache after a create: %s; %s",
		   cl_calls(&d), cl_caches(&d));

	/* An unlink: the missing names stay, the found ones ask once. */
	warm(c, "missing");
	warm(c, "kept");
	MCT_ASSERT(unlink(UP("gone")) == 0, "unlink: %s", strerror(errno));
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("missing"), NULL) == ENOENT, "missing exists");
	CL_SINCE(&d, &s0);
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "a missing name asked the lower after another file was removed: %s; %s",
		   cl_calls(&d), cl_caches(&d));
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("kept"), NULL) == 0, "kept: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(mcs_calls(&d, MCS_META) > 0,
		   "a found name was answered from the cache after a removal: %s; %s",
		   cl_calls(&d), cl_caches(&d));
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("kept"), NULL) == 0, "kept: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "a found name asked the lower twice after one removal: %s; %s",
		   cl_calls(&d), cl_caches(&d));
}

/*
 * A cifs mount without server inode numbers ("noserverino", which cifs
 * also turns on by itself when a server's numbers look wrong) gives each
 * spelling its own inode: "README" and "readme" are two objects to the
 * stack too, and a change of one must still reach the other.
 */
CL_TEST(case_variant_own_inodes)
{
	char up[3][PATH_MAX], lo[PATH_MAX];
	struct cl_stack m = { .mounted = 0 };
	struct stat st;
	int e;

	if (!cl_fs("cifs"))
		MCT_SKIP("a cifs noserverino mount: cifs only");
	NEED_CASE_INSENSITIVE();
	MKFILE("readme", 1);
	cl_settle();
	if (cl_stack_mount(&m, "local-nsi", "guest,vers=3.1.1,noserverino,nosharesock",
			   "entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600"))
		goto out;
	cl_snp(up[0], PATH_MAX, "%s/%s/readme", m.up, c->rel);
	cl_snp(up[1], PATH_MAX, "%s/%s/README", m.up, c->rel);
	cl_snp(up[2], PATH_MAX, "%s/%s/new", m.up, c->rel);
	cl_snp(lo, PATH_MAX, "%s/%s/README", m.low, c->rel);

	/* Both spellings cached as found. */
	if (lstat(up[0], &st) || lstat(up[1], &st)) {
		mct_fail_at(__FILE__, __LINE__, "lstat: %s", strerror(errno));
		goto out;
	}
	mct_diag("readme and README: inodes %ju and %ju", (uintmax_t)ino_of(up[0]),
		 (uintmax_t)ino_of(up[1]));

	/* readme removed: README misses. */
	if (unlink(up[0])) {
		mct_fail_at(__FILE__, __LINE__, "unlink %s: %s", up[0], strerror(errno));
		goto out;
	}
	cl_lstat_err(up[1], NULL);	/* ask early, as ask_early() */
	MCT_EXPECT(lower_shows(lo, ENOENT, -1),
		   "the lower still finds README after unlinking readme");
	e = cl_lstat_err(up[1], NULL);
	MCT_EXPECT(e == ENOENT, "README after unlinking readme: %s, want ENOENT",
		   strerror(e));

	/* readme created again, then replaced: README finds the new file. */
	if (cl_writefile(up[0], 1, 'o', 0644) || cl_writefile(up[2], 5, 'n', 0644)) {
		mct_fail_at(__FILE__, __LINE__, "create: %s", strerror(errno));
		goto out;
	}
	MCT_EXPECT(lower_shows(lo, 0, 1), "the lower never found README");
	e = cl_lstat_err(up[1], NULL);
	MCT_EXPECT(e == 0, "README after creating readme: %s", strerror(e));
	if (rename(up[2], up[0])) {
		mct_fail_at(__FILE__, __LINE__, "rename: %s", strerror(errno));
		goto out;
	}
	cl_lstat_err(up[1], NULL);
	MCT_EXPECT(lower_shows(lo, 0, 5), "the lower never showed README as the new file");
	e = cl_lstat_err(up[1], &st);
	MCT_EXPECT(e == 0 && st.st_size == 5, "README after replacing readme: %s, size %jd, want 5",
		   strerror(e), (intmax_t)(e ? -1 : st.st_size));
out:
	cl_stack_umount(&m);
}

CL_MAIN()
