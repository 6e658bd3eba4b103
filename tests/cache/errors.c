// SPDX-License-Identifier: GPL-2.0
/*
 * errors: failed lookups other than "no such name" are not cached, and in
 * particular never as negative entries.  Every TTL is 3600 s.
 *
 *  - eacces: as MC_TEST_UID, a lookup in a directory without search
 *    permission gives EACCES (twice); root chmods the directory 0755
 *    through the stack; the same user's lookup of an existing name then
 *    succeeds at once, and of a missing one gives ENOENT; root chmods it
 *    back to 0700 and the user gets EACCES again at once;
 *  - enotdir: "file/x" gives ENOTDIR every time (not ENOENT from a cached
 *    negative); after the file is replaced by a directory holding x
 *    (through the stack), "file/x" is found at once;
 *  - enametoolong: a 256-byte name gives ENAMETOOLONG every time and adds
 *    no negative entry; a 255-byte name works normally.
 */
#include "cachelib.h"

struct lk {
	const char *path;
};

/* In the child, as the unprivileged user: 0 found, else errno. */
static int lookup_as_user(void *arg)
{
	struct lk *l = arg;
	struct stat st;

	return stat(l->path, &st) ? errno : 0;
}

static int user_stat(const char *path)
{
	struct lk l = { path };

	return cl_as_user(lookup_as_user, &l);
}

static const char *ename(int e)
{
	return e == 0 ? "success" : e == 125 ? "setuid failed" : strerror(e);
}

CL_TEST(eacces_not_cached)
{
	int e;

	CL_TTLS(3600);
	MCT_ASSERT(mkdir(UP("locked"), 0700) == 0 && chmod(UP("locked"), 0700) == 0,
		   "mkdir: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("locked/f"), 1, 'a', 0644) == 0, "create: %s",
		   strerror(errno));

	e = user_stat(LO("locked/f"));
	if (e != EACCES)
		MCT_SKIP("the lower itself does not refuse uid %u a lookup in a 0700 directory (%s): %s ignores the mode",
			 cl.uid, ename(e), cl.fstype);

	e = user_stat(UP("locked/f"));
	MCT_EXPECT(e == EACCES, "uid %u stat locked/f through the stack: %s, want EACCES",
		   cl.uid, ename(e));
	e = user_stat(UP("locked/missing"));
	MCT_EXPECT(e == EACCES, "uid %u stat locked/missing: %s, want EACCES", cl.uid, ename(e));
	e = user_stat(UP("locked/f"));
	MCT_EXPECT(e == EACCES, "uid %u second stat locked/f: %s, want EACCES", cl.uid, ename(e));

	MCT_ASSERT(chmod(UP("locked"), 0755) == 0, "chmod 0755: %s", strerror(errno));
	e = user_stat(UP("locked/f"));
	MCT_EXPECT(e == 0, "uid %u stat locked/f right after chmod 0755 through the stack: %s (an EACCES/ENOENT was cached)",
		   cl.uid, ename(e));
	e = user_stat(UP("locked/missing"));
	MCT_EXPECT(e == ENOENT, "uid %u stat locked/missing after chmod 0755: %s, want ENOENT",
		   cl.uid, ename(e));

	MCT_ASSERT(chmod(UP("locked"), 0700) == 0, "chmod 0700: %s", strerror(errno));
	e = user_stat(UP("locked/f"));
	MCT_EXPECT(e == EACCES, "uid %u stat locked/f right after chmod 0700 through the stack: %s, want EACCES",
		   cl.uid, ename(e));
	/* root still finds it: the user's refusal was not cached for everyone */
	MCT_EXPECT(cl_lstat_err(UP("locked/f"), NULL) == 0, "root stat locked/f: %s",
		   strerror(errno));
}

CL_TEST(enotdir_not_cached)
{
	struct mcs s0, d;
	int e, i;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(UP("file"), 1, 'a', 0644) == 0, "create: %s", strerror(errno));
	CL_SNAP(&s0);
	for (i = 0; i < 3; i++) {
		e = cl_lstat_err(UP("file/x"), NULL);
		MCT_EXPECT(e == ENOTDIR, "stat file/x #%d: %s, want ENOTDIR", i, ename(e));
	}
	CL_SINCE(&d, &s0);
	mct_diag("3 x stat file/x: lower calls %s; %s", cl_calls(&d), cl_caches(&d));

	MCT_ASSERT(unlink(UP("file")) == 0, "unlink: %s", strerror(errno));
	MCT_ASSERT(mkdir(UP("file"), 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("file/x"), 1, 'a', 0644) == 0, "create file/x: %s",
		   strerror(errno));
	e = cl_lstat_err(UP("file/x"), NULL);
	MCT_EXPECT(e == 0, "stat file/x after file became a directory holding x: %s", ename(e));
}

CL_TEST(enametoolong_not_cached)
{
	char longname[300], okname[300];
	struct mcs s0, d;
	int e, i;

	CL_TTLS(3600);
	memset(longname, 'L', 256);
	longname[256] = 0;
	memset(okname, 'k', 255);
	okname[255] = 0;

	CL_SNAP(&s0);
	for (i = 0; i < 3; i++) {
		e = cl_lstat_err(UP(longname), NULL);
		MCT_EXPECT(e == ENAMETOOLONG, "stat of a 256-byte name #%d: %s, want ENAMETOOLONG",
			   i, ename(e));
	}
	CL_SINCE(&d, &s0);
	mct_diag("3 x stat of a 256-byte name: lower calls %s", cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_NEG].hits == 0,
		   "a 256-byte name was answered from the negative cache (%" PRIu64 " hits)",
		   d.cache[MCS_NEG].hits);
	e = open(UP(longname), O_CREAT | O_WRONLY, 0644) < 0 ? errno : 0;
	MCT_EXPECT(e == ENAMETOOLONG, "create of a 256-byte name: %s", ename(e));

	e = cl_lstat_err(UP(okname), NULL);
	if (e == ENAMETOOLONG)
		MCT_SKIP("%s refuses 255-byte names", cl.fstype);
	MCT_EXPECT(e == ENOENT, "stat of a missing 255-byte name: %s", ename(e));
	e = cl_writefile(UP(okname), 1, 'a', 0644);
	MCT_EXPECT(e == 0, "create of a 255-byte name: %s", ename(-e));
	e = cl_lstat_err(UP(okname), NULL);
	MCT_EXPECT(e == 0, "stat of the 255-byte name just created: %s", ename(e));
}

CL_MAIN()
