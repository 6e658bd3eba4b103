// SPDX-License-Identifier: GPL-2.0
/*
 * hits: what the caches answer without asking the lower file system.
 *
 * With every TTL at 3600 s, after a first access:
 *  - repeated stat()s of a file make no lower lookup/revalidate/getattr
 *    call and count entry and attr hits (and "avoided" calls);
 *  - repeated stat()s of a missing name make none and count neg hits;
 *  - a second and third readdir of a directory make no lower readdir call,
 *    count dir hits and list the same names as the lower;
 *  - an `ls -l` pass (readdir + lstat of every entry) over 60 entries makes
 *    no lower call but the directory's own open/release;
 *  - a file made directly on the lower is a miss (lower calls) the first
 *    time, then a hit: the counters do move;
 *  - the first stat() of a file no cache holds (flushed, and the kernel's
 *    dentries and inodes dropped) makes a lower lookup, and on tmpfs and
 *    nfs is an attr hit: the lookup cached the attributes the lower client
 *    had just received, and they are the lower's (cifs gives no way to
 *    tell its attributes are current: not checked there);
 *  - a file and a directory just created through the stack are hits at
 *    their first stat, with the lower's attributes; a file opened for
 *    writing and closed unwritten stays a hit; one written through is
 *    asked again after its close and shows its new size.
 * Runs per lower (tmpfs, nfs, cifs) on a metacache mount.
 */
#include "cachelib.h"

#define NSTAT	50

CL_TEST(stat_hits)
{
	struct mcs s0, d;
	struct stat st, first;
	int i, r;

	CL_TTLS(3600);
	r = cl_writefile(UP("f"), 100, 'a', 0644);
	MCT_ASSERT(r == 0, "create %s: %s", UP("f"), strerror(-r));
	cl_settle();
	MCT_ASSERT(stat(UP("f"), &first) == 0, "stat: %s", strerror(errno));

	CL_SNAP(&s0);
	for (i = 0; i < NSTAT; i++) {
		MCT_ASSERT(stat(UP("f"), &st) == 0, "stat #%d: %s", i, strerror(errno));
		MCT_EXPECT(st.st_ino == first.st_ino && st.st_size == 100 &&
			   st.st_mode == first.st_mode,
			   "stat #%d: ino %ju size %jd mode %o, first ino %ju size 100 mode %o",
			   i, (uintmax_t)st.st_ino, (intmax_t)st.st_size, st.st_mode,
			   (uintmax_t)first.st_ino, first.st_mode);
	}
	CL_SINCE(&d, &s0);
	mct_diag("%d stats: lower calls: %s", NSTAT, cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "%d repeated stats of a cached file made lower calls: %s",
		   NSTAT, cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_ATTR].hits >= NSTAT,
		   "attr hits +%" PRIu64 " for %d stats", d.cache[MCS_ATTR].hits, NSTAT);
	MCT_EXPECT(d.cache[MCS_ENTRY].hits >= NSTAT,
		   "entry hits +%" PRIu64 " for %d path walks", d.cache[MCS_ENTRY].hits, NSTAT);
	MCT_EXPECT(mcs_avoided(&d, MCS_META) >= NSTAT,
		   "avoided lookup+revalidate+getattr +%" PRIu64 " for %d stats",
		   mcs_avoided(&d, MCS_META), NSTAT);
	if (d.op[MCS_PERMISSION].calls)
		mct_diag("note: %" PRIu64 " lower permission calls for %d cached stats",
			 d.op[MCS_PERMISSION].calls, NSTAT);
}

CL_TEST(neg_hits)
{
	struct mcs s0, d;
	int i, e;

	CL_TTLS(3600);
	e = cl_lstat_err(UP("missing"), NULL);
	MCT_ASSERT(e == ENOENT, "first stat of a missing name: %s", strerror(e));

	CL_SNAP(&s0);
	for (i = 0; i < NSTAT; i++) {
		e = cl_lstat_err(UP("missing"), NULL);
		MCT_EXPECT(e == ENOENT, "stat #%d of a missing name: %s", i, strerror(e));
	}
	CL_SINCE(&d, &s0);
	mct_diag("%d stats of a missing name: lower calls: %s", NSTAT, cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "%d repeated stats of a cached missing name made lower calls: %s",
		   NSTAT, cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_NEG].hits >= NSTAT,
		   "neg hits +%" PRIu64 " for %d stats", d.cache[MCS_NEG].hits, NSTAT);
	MCT_EXPECT(d.cache[MCS_NEG].entries >= 1, "neg entries %" PRIu64,
		   d.cache[MCS_NEG].entries);
}

/* Names of DIR, sorted into one string "a/b/c/", or NULL on error. */
static char *listing(const char *dir, int *n)
{
	struct dirent **v;
	size_t len = 1, off = 0;
	char *s;
	int i, k;

	k = scandir(dir, &v, NULL, alphasort);
	if (k < 0)
		return NULL;
	for (i = 0; i < k; i++)
		len += strlen(v[i]->d_name) + 1;
	s = malloc(len);
	s[0] = 0;
	for (i = 0; i < k; i++) {
		off += (size_t)sprintf(s + off, "%s/", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	*n = k;
	return s;
}

CL_TEST(dir_hits)
{
	struct mcs s0, d;
	char *first, *again, *lower;
	int i, n1, n2, nl;

	CL_TTLS(3600);
	MCT_ASSERT(mkdir(UP("d"), 0755) == 0, "mkdir: %s", strerror(errno));
	for (i = 0; i < 20; i++) {
		char name[32];
		int r;

		snprintf(name, sizeof(name), "d/e%02d", i);
		r = cl_writefile(UP(name), 0, 0, 0644);
		MCT_ASSERT(r == 0, "create %s: %s", name, strerror(-r));
	}
	cl_settle();
	first = listing(UP("d"), &n1);
	MCT_ASSERT(first, "readdir %s: %s", UP("d"), strerror(errno));
	MCT_EXPECT(n1 == 22, "first readdir: %d entries, want 22", n1);

	CL_SNAP(&s0);
	for (i = 0; i < 2; i++) {
		again = listing(UP("d"), &n2);
		MCT_ASSERT(again, "readdir #%d: %s", i + 2, strerror(errno));
		MCT_EXPECT(!strcmp(first, again), "readdir #%d lists %s, the first listed %s",
			   i + 2, again, first);
		free(again);
	}
	CL_SINCE(&d, &s0);
	mct_diag("2 more readdirs: lower calls: %s", cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(d.op[MCS_READDIR].calls == 0,
		   "readdir of a cached directory made %" PRIu64 " lower readdir calls",
		   d.op[MCS_READDIR].calls);
	MCT_EXPECT(d.cache[MCS_DIR].hits >= 2, "dir hits +%" PRIu64 " for 2 readdirs",
		   d.cache[MCS_DIR].hits);
	lower = listing(LO("d"), &nl);
	MCT_ASSERT(lower, "readdir %s: %s", LO("d"), strerror(errno));
	MCT_EXPECT(!strcmp(first, lower), "the stack lists %s, the lower %s", first, lower);
	free(lower);
	free(first);
}

#define NLS 60

/* One ls -l pass: readdir, then fstatat(AT_SYMLINK_NOFOLLOW) of each. */
static int ls_l(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;

	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			int e = errno;

			closedir(d);
			return -e;
		}
		(*n)++;
	}
	closedir(d);
	return 0;
}

CL_TEST(ls_l_no_lower_calls)
{
	struct mcs s0, d;
	int i, n, r, nosymlink = 0;
	uint64_t other;

	CL_TTLS(3600);
	MCT_ASSERT(mkdir(UP("d"), 0755) == 0, "mkdir: %s", strerror(errno));
	for (i = 0; i < NLS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d/%s%03d", i % 3 == 2 ? "s" : "f", i);
		if (i % 3 == 1)
			r = mkdir(UP(name), 0755) ? -errno : 0;
		else if (i % 3 == 2 && nosymlink)
			r = cl_writefile(UP(name), 1, 's', 0644);
		else if (i % 3 == 2)
			r = symlink("target", UP(name)) ? -errno : 0;
		else
			r = cl_writefile(UP(name), (size_t)i, 'x', 0644);
		if (i % 3 == 2 && !nosymlink && (r == -EOPNOTSUPP || r == -EPERM)) {
			mct_diag("no symlinks on %s: regular files instead", cl.fstype);
			nosymlink = 1;
			r = cl_writefile(UP(name), 1, 's', 0644);
		}
		MCT_ASSERT(r == 0, "create %s: %s", name, strerror(-r));
	}
	cl_settle();
	r = ls_l(UP("d"), &n);
	MCT_ASSERT(r == 0, "first ls -l pass: %s", strerror(-r));
	MCT_EXPECT(n == NLS + 2, "first pass saw %d entries, want %d", n, NLS + 2);

	CL_SNAP(&s0);
	r = ls_l(UP("d"), &n);
	MCT_ASSERT(r == 0, "second ls -l pass: %s", strerror(-r));
	CL_SINCE(&d, &s0);
	mct_diag("second ls -l pass over %d entries: lower calls: %s", n, cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(n == NLS + 2, "second pass saw %d entries, want %d", n, NLS + 2);
	other = mcs_calls(&d, MCS_ALL & ~(MCS_BIT(MCS_OPEN) | MCS_BIT(MCS_RELEASE)));
	MCT_EXPECT(other == 0, "a cached ls -l pass made lower calls: %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_OPEN].calls <= 1 && d.op[MCS_RELEASE].calls <= 1,
		   "a cached ls -l pass opened %" PRIu64 " lower files",
		   d.op[MCS_OPEN].calls);
	MCT_EXPECT(d.cache[MCS_ATTR].hits >= NLS, "attr hits +%" PRIu64 " for %d lstats",
		   d.cache[MCS_ATTR].hits, NLS);
}

CL_TEST(miss_then_hit)
{
	struct mcs s0, d;
	int r;

	CL_TTLS(3600);
	/* made on the lower, in a directory the stack has never seen */
	MCT_ASSERT(mkdir(LO("dd"), 0755) == 0, "mkdir %s: %s", LO("dd"), strerror(errno));
	r = cl_writefile(LO("dd/direct"), 10, 'd', 0644);
	MCT_ASSERT(r == 0, "create %s: %s", LO("dd/direct"), strerror(-r));

	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("dd/direct"), NULL) == 0, "stat through the stack: %s",
		   strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("first stat: lower calls: %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_LOOKUP].calls >= 1,
		   "the first stat of a name never seen made no lower lookup: %s",
		   cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_ENTRY].misses >= 1, "entry misses +%" PRIu64,
		   d.cache[MCS_ENTRY].misses);

	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("dd/direct"), NULL) == 0, "second stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("second stat: lower calls: %s", cl_calls(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0, "the second stat made lower calls: %s",
		   cl_calls(&d));
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int r = 0;

	if (fd < 0)
		return -errno;
	sync();
	if (write(fd, "2", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

CL_TEST(cold_lookup_caches_attrs)
{
	struct stat su, sl;
	struct mcs s0, d;
	int r;

	CL_TTLS(3600);
	r = cl_writefile(LO("cold"), 123, 'c', 0640);
	MCT_ASSERT(r == 0, "create %s: %s", LO("cold"), strerror(-r));
	cl_settle();
	CL_FLUSH();
	r = drop_caches();
	if (r)
		MCT_SKIP("cannot drop the kernel's dentries and inodes: %s",
			 strerror(-r));

	CL_SNAP(&s0);
	MCT_ASSERT(lstat(UP("cold"), &su) == 0, "lstat %s: %s", UP("cold"),
		   strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("cold stat: lower calls: %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_LOOKUP].calls >= 1,
		   "a cold stat made no lower lookup: %s", cl_calls(&d));
	/*
	 * The lookup takes the attributes with a lower getattr that asks no
	 * server (AT_STATX_DONT_SYNC), counted as a lower call like any: what
	 * shows it is that the stat(2) itself is an attr hit, not a miss.
	 */
	if (cl_fs("cifs"))
		mct_diag("cifs: attributes not taken at lookup (attr misses +%" PRIu64 ")",
			 d.cache[MCS_ATTR].misses);
	else
		MCT_EXPECT(d.cache[MCS_ATTR].misses == 0 && d.cache[MCS_ATTR].hits >= 1,
			   "a cold stat was %" PRIu64 " attr misses, %" PRIu64 " hits: the lookup did not cache the attributes (%s)",
			   d.cache[MCS_ATTR].misses, d.cache[MCS_ATTR].hits, cl_calls(&d));
	MCT_ASSERT(lstat(LO("cold"), &sl) == 0, "lstat %s: %s", LO("cold"),
		   strerror(errno));
	MCT_EXPECT(su.st_ino == sl.st_ino && su.st_mode == sl.st_mode &&
		   su.st_size == sl.st_size && su.st_nlink == sl.st_nlink &&
		   su.st_mtim.tv_sec == sl.st_mtim.tv_sec &&
		   su.st_mtim.tv_nsec == sl.st_mtim.tv_nsec,
		   "cold stat: stack ino %ju mode %o size %jd mtime %jd.%09ld; lower ino %ju mode %o size %jd mtime %jd.%09ld",
		   (uintmax_t)su.st_ino, su.st_mode, (intmax_t)su.st_size,
		   (intmax_t)su.st_mtim.tv_sec, su.st_mtim.tv_nsec,
		   (uintmax_t)sl.st_ino, sl.st_mode, (intmax_t)sl.st_size,
		   (intmax_t)sl.st_mtim.tv_sec, sl.st_mtim.tv_nsec);
}

/* The attributes both stat(2)s report, as a string for a diagnostic. */
static const char *attr_str(const struct stat *st, char *buf, size_t len)
{
	snprintf(buf, len, "ino %ju mode %o nlink %ju size %jd mtime %jd.%09ld ctime %jd.%09ld",
		 (uintmax_t)st->st_ino, st->st_mode, (uintmax_t)st->st_nlink,
		 (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec,
		 st->st_ctim.tv_nsec);
	return buf;
}

/* lstat through the stack makes no lower getattr and agrees with the lower. */
static void new_hit_at(const char *file, int line, struct cl_ctx *c,
		       const char *rel, const char *what)
{
	char bu[160], bl[160];
	struct stat su, sl;
	struct mcs s0, d;

	CL_SNAP(&s0);
	if (lstat(UP(rel), &su)) {
		mct_fail_at(file, line, "lstat %s: %s", UP(rel), strerror(errno));
		return;
	}
	CL_SINCE(&d, &s0);
	if (d.op[MCS_GETATTR].calls || !d.cache[MCS_ATTR].hits)
		mct_fail_at(file, line, "%s: lstat made %" PRIu64 " lower getattr calls, %" PRIu64 " attr hits (%s)",
			    what, d.op[MCS_GETATTR].calls, d.cache[MCS_ATTR].hits,
			    cl_calls(&d));
	if (lstat(LO(rel), &sl)) {
		mct_fail_at(file, line, "lstat %s: %s", LO(rel), strerror(errno));
		return;
	}
	if (su.st_ino != sl.st_ino || su.st_mode != sl.st_mode ||
	    su.st_nlink != sl.st_nlink || su.st_size != sl.st_size ||
	    su.st_mtim.tv_sec != sl.st_mtim.tv_sec ||
	    su.st_mtim.tv_nsec != sl.st_mtim.tv_nsec ||
	    su.st_ctim.tv_sec != sl.st_ctim.tv_sec ||
	    su.st_ctim.tv_nsec != sl.st_ctim.tv_nsec)
		mct_fail_at(file, line, "%s: stack %s; lower %s", what,
			    attr_str(&su, bu, sizeof(bu)), attr_str(&sl, bl, sizeof(bl)));
}
#define NEW_HIT(rel, what) new_hit_at(__FILE__, __LINE__, c, (rel), (what))

CL_TEST(new_then_hit)
{
	struct mcs s0, d;
	struct stat st;
	int fd;

	CL_TTLS(3600);
	fd = open(UP("new"), O_CREAT | O_EXCL | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create %s: %s", UP("new"), strerror(errno));
	MCT_ASSERT(close(fd) == 0, "close: %s", strerror(errno));
	MCT_ASSERT(mkdir(UP("newd"), 0755) == 0, "mkdir: %s", strerror(errno));
	NEW_HIT("new", "a file just created, closed unwritten");
	NEW_HIT("newd", "a directory just made");

	fd = open(UP("new"), O_WRONLY);
	MCT_ASSERT(fd >= 0, "open for writing: %s", strerror(errno));
	MCT_ASSERT(close(fd) == 0, "close: %s", strerror(errno));
	NEW_HIT("new", "opened for writing, closed unwritten");

	fd = open(UP("new"), O_WRONLY);
	MCT_ASSERT(fd >= 0, "open for writing: %s", strerror(errno));
	MCT_ASSERT(write(fd, "written", 7) == 7, "write: %s", strerror(errno));
	MCT_ASSERT(close(fd) == 0, "close: %s", strerror(errno));
	CL_SNAP(&s0);
	MCT_ASSERT(lstat(UP("new"), &st) == 0, "lstat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(st.st_size == 7, "size %jd after writing 7 bytes and closing",
		   (intmax_t)st.st_size);
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "the stat after a write and close was answered from the cache: %s",
		   cl_calls(&d));
}

CL_MAIN()
