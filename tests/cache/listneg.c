// SPDX-License-Identifier: GPL-2.0
/*
 * listneg: a directory's fresh cached listing answers "no such file" for
 * the names it does not have, without asking the lower (dir.c,
 * mc_dir_lacks()), and only where the lower could not find such a name.
 *
 * After a readdir through the stack has cached a directory's listing:
 *  - stat()s of never-seen names not in it give ENOENT with no lower call,
 *    counted as neg hits and avoided lookups;
 *  - a name created through the stack afterwards is found at once, and so
 *    is one created on the stack's lower mount itself (the lower dcache
 *    has it);
 *  - names that servers answer without listing them (".snapshot",
 *    "@GMT-..." tokens) are asked of the lower;
 *  - a name that differs only in case from a listed one gives what the
 *    lower gives (cifs: Samba ignores case, so the file; nfs and tmpfs:
 *    ENOENT); on cifs that lookup asks the lower;
 *  - on cifs, a listing with a non-ASCII name answers nothing, and on a
 *    cifs "multiuser" mount no listing is cached at all;
 *  - open(O_CREAT) of a name the other client made a directory after the
 *    listing was read gives what the lower gives (EISDIR), not ENOENT,
 *    also when the stack had answered the name as missing before;
 *  - a name that mkdir or rename(RENAME_NOREPLACE) found to exist (EEXIST:
 *    the other client made it after the listing was read) is then found
 *    by stat too;
 *  - neg_ttl bounds the answer even when dir_ttl is longer: with
 *    neg_ttl 2 s and dir_ttl 3600 s, a name the other client creates
 *    after the listing was read shows through the stack no later than
 *    2 s + 1 s + one poll after it shows on the lower client itself.
 *
 * Listing ahead of lookups (the list_ahead module parameter, dir.c
 * mc_dir_list_ahead()), in directories nothing lists:
 *  - the first 15 lookups that ask the lower read no listing; the 16th
 *    reads it, and the missing names after it are answered from it, the
 *    existing ones still found; with list_ahead 0 every one asks the
 *    lower;
 *  - a name cached as missing, made by the other client since, is found
 *    once the listing read ahead has it;
 *  - a user who may search a directory but not read it reads no listing
 *    through his lookups (where the lower would not let him list it);
 *  - a directory filled by a lookup and a create per name (`tar x`) is
 *    listed about once per list_ahead names, not once per name.
 * Runs per lower (tmpfs, nfs, cifs) on a metacache mount.
 */
#include "cachelib.h"

#define NMISS	20
#define NEG_TTL	2
#define POLL_MS	100

/* Cache the listing of the test directory through the stack. */
#define LIST()								\
	do {								\
		int __n = cl_count(c->up);				\
		MCT_ASSERT(__n >= 0, "readdir %s: %s", c->up, strerror(-__n)); \
	} while (0)

#define MKFILE(path)							\
	do {								\
		int __r = cl_writefile((path), 10, 'a', 0644);		\
		MCT_ASSERT(__r == 0, "create %s: %s", (path), strerror(-__r)); \
	} while (0)

static const char *err_str(int e)
{
	return e ? strerror(e) : "found";
}

CL_TEST(missing_names_from_listing)
{
	struct mcs s0, d;
	char name[32];
	int i, e;

	CL_TTLS(3600);
	MKFILE(UP("a"));
	MKFILE(UP("b"));
	cl_settle();
	LIST();

	CL_SNAP(&s0);
	for (i = 0; i < NMISS; i++) {
		cl_snp(name, sizeof(name), "zz%02d", i);
		e = cl_lstat_err(UP(name), NULL);
		MCT_EXPECT(e == ENOENT, "stat %s: %s, want ENOENT", name, err_str(e));
	}
	CL_SINCE(&d, &s0);
	mct_diag("%d stats of unlisted names: lower calls: %s", NMISS, cl_calls(&d));
	mct_diag("caches: %s", cl_caches(&d));
	MCT_EXPECT(d.op[MCS_LOOKUP].calls == 0,
		   "%d stats of names the cached listing lacks made lower lookups: %s",
		   NMISS, cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_NEG].hits >= NMISS,
		   "neg hits +%" PRIu64 " for %d names", d.cache[MCS_NEG].hits, NMISS);
	MCT_EXPECT(mcs_avoided(&d, MCS_BIT(MCS_LOOKUP)) >= NMISS,
		   "avoided lookups +%" PRIu64 " for %d names",
		   mcs_avoided(&d, MCS_BIT(MCS_LOOKUP)), NMISS);

	/* What is listed is still found, what the stack creates too. */
	e = cl_lstat_err(UP("a"), NULL);
	MCT_EXPECT(e == 0, "stat of a listed name: %s", strerror(e));
	MKFILE(UP("zz00"));
	e = cl_lstat_err(UP("zz00"), NULL);
	MCT_EXPECT(e == 0, "stat of a name created through the stack after it was answered missing: %s",
		   strerror(e));
	MCT_EXPECT(mkdir(UP("zz01"), 0755) == 0, "mkdir zz01: %s", strerror(errno));
	e = cl_lstat_err(UP("zz01"), NULL);
	MCT_EXPECT(e == 0, "stat of a directory made through the stack: %s", strerror(e));
	e = unlink(UP("zz02")) ? errno : 0;
	MCT_EXPECT(e == ENOENT, "unlink of an unlisted name: %s, want ENOENT",
		   e ? strerror(e) : "success");
}

CL_TEST(unlisted_names_ask_lower)
{
	static const char *const names[] = {
		".snapshot", ".zfs", "@GMT-2026.01.01-00.00.00", "~snapshot",
	};
	struct mcs s0, d;
	unsigned int i;
	int e;

	CL_TTLS(3600);
	MKFILE(UP("a"));
	cl_settle();
	LIST();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CL_SNAP(&s0);
		e = cl_lstat_err(UP(names[i]), NULL);
		CL_SINCE(&d, &s0);
		MCT_EXPECT(e == ENOENT, "stat %s: %s", names[i], err_str(e));
		MCT_EXPECT(d.op[MCS_LOOKUP].calls >= 1 && d.cache[MCS_NEG].hits == 0,
			   "stat of %s, a name servers answer without listing it, was answered from the listing: %s; %s",
			   names[i], cl_calls(&d), cl_caches(&d));
	}
}

CL_TEST(case_as_lower)
{
	struct mcs s0, d;
	int eu, el;

	CL_TTLS(3600);
	MKFILE(UP("Mixed"));
	cl_settle();
	LIST();
	CL_SNAP(&s0);
	eu = cl_lstat_err(UP("MIXED"), NULL);
	CL_SINCE(&d, &s0);
	el = cl_lstat_err(LO("MIXED"), NULL);
	mct_diag("MIXED next to a listed Mixed: stack %s, lower %s; lower calls: %s",
		 err_str(eu), err_str(el), cl_calls(&d));
	MCT_EXPECT(eu == el, "stat MIXED through the stack: %s, on the lower: %s",
		   err_str(eu), err_str(el));
	if (cl_fs("cifs"))
		MCT_EXPECT(d.op[MCS_LOOKUP].calls >= 1,
			   "on cifs a name differing in case from a listed one must be asked of the lower: %s",
			   cl_calls(&d));
	else
		MCT_EXPECT(d.op[MCS_LOOKUP].calls == 0,
			   "a name differing in case was not answered from the listing: %s",
			   cl_calls(&d));
}

CL_TEST(cifs_non_ascii_listing)
{
	struct mcs s0, d;
	int e;

	CL_TTLS(3600);
	MKFILE(UP("caf\xc3\xa9"));
	cl_settle();
	LIST();
	CL_SNAP(&s0);
	e = cl_lstat_err(UP("zz"), NULL);
	CL_SINCE(&d, &s0);
	MCT_EXPECT(e == ENOENT, "stat zz: %s", err_str(e));
	if (cl_fs("cifs"))
		MCT_EXPECT(d.op[MCS_LOOKUP].calls >= 1,
			   "on cifs a listing with a non-ASCII name answered a lookup: %s",
			   cl_calls(&d));
	else
		MCT_EXPECT(d.op[MCS_LOOKUP].calls == 0,
			   "a listing with a non-ASCII name did not answer a lookup: %s",
			   cl_calls(&d));
}

CL_TEST(lower_mount_create_seen)
{
	int e;

	CL_TTLS(3600);
	MKFILE(UP("a"));
	cl_settle();
	LIST();
	MKFILE(LO("direct"));
	e = cl_lstat_err(UP("direct"), NULL);
	MCT_EXPECT(e == 0, "stat of a file created on the lower mount of this machine after the listing: %s (the lower client knows it)",
		   err_str(e));
}

/* open(O_CREAT|O_WRONLY): 0 or errno. */
static int creat_err(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

CL_TEST(creat_over_other_clients_dir)
{
	int e, eu, el;

	CL_TTLS(3600);
	MKFILE(UP("a"));
	cl_settle();
	LIST();
	/* d1: never looked up; d2: answered missing first */
	e = cl_lstat_err(UP("d2"), NULL);
	MCT_ASSERT(e == ENOENT, "stat d2 before: %s", err_str(e));
	MCT_ASSERT(mkdir(LO2("d1"), 0755) == 0, "the other client's mkdir d1: %s", strerror(errno));
	MCT_ASSERT(mkdir(LO2("d2"), 0755) == 0, "the other client's mkdir d2: %s", strerror(errno));

	eu = creat_err(UP("d1"));
	el = creat_err(LO("d1"));
	MCT_EXPECT(eu == el, "open(O_CREAT) of d1, a directory the other client made after the listing: stack %s, lower %s",
		   err_str(eu), err_str(el));
	eu = creat_err(UP("d2"));
	el = creat_err(LO("d2"));
	MCT_EXPECT(eu == el, "open(O_CREAT) of d2, answered missing before the other client made it a directory: stack %s, lower %s",
		   err_str(eu), err_str(el));
	e = cl_lstat_err(UP("d1"), NULL);
	MCT_EXPECT(e == 0, "stat d1 through the stack after that: %s", err_str(e));
}

CL_TEST(eexist_drops_listing)
{
	int e, fd;

	CL_TTLS(3600);
	MKFILE(UP("a"));
	cl_settle();
	LIST();
	fd = open(LO2("x"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	MCT_ASSERT(fd >= 0, "the other client's create: %s", strerror(errno));
	close(fd);
	e = mkdir(UP("x"), 0755) ? errno : 0;
	MCT_EXPECT(e == EEXIST, "mkdir over the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	e = cl_lstat_err(UP("x"), NULL);
	MCT_EXPECT(e == 0, "stat of the name mkdir just found to exist: %s (the listing from before answered)",
		   err_str(e));

	LIST();
	fd = open(LO2("t"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	MCT_ASSERT(fd >= 0, "the other client's create: %s", strerror(errno));
	close(fd);
	e = renameat2(AT_FDCWD, UP("a"), AT_FDCWD, UP("t"), RENAME_NOREPLACE) ? errno : 0;
	if (e == EINVAL) {	/* NFS has no RENAME_NOREPLACE */
		mct_diag("rename(RENAME_NOREPLACE): %s: not checked here", strerror(e));
		return;
	}
	MCT_EXPECT(e == EEXIST, "rename(RENAME_NOREPLACE) onto the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	e = cl_lstat_err(UP("t"), NULL);
	MCT_EXPECT(e == 0, "stat of the name the rename just found to exist: %s (the listing from before answered)",
		   err_str(e));
}

CL_TEST(neg_ttl_bounds_listing)
{
	struct cl_probe p;
	struct mcs s0, d;
	double itmax, slack;
	int fd, e;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=2,attr_ttl=3600,dir_ttl=3600");
	MKFILE(UP("a"));
	cl_settle();
	cl_count(c->lo2);	/* the other client knows the directory */
	LIST();
	CL_SNAP(&s0);
	e = cl_lstat_err(UP("new"), NULL);
	CL_SINCE(&d, &s0);
	MCT_ASSERT(e == ENOENT, "stat new before: %s", err_str(e));
	MCT_EXPECT(d.op[MCS_LOOKUP].calls == 0,
		   "the listing did not answer: the test would not test it: %s", cl_calls(&d));

	memset(&p, 0, sizeof(p));
	p.cache = "neg";
	p.kind = CL_P_EXISTS;
	cl_snp(p.what, sizeof(p.what), "create by the other client");
	cl_snp(p.rel, sizeof(p.rel), "new");
	fd = open(LO2("new"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	MCT_ASSERT(fd >= 0, "the other client's create: %s", strerror(errno));
	close(fd);
	p.t_change = cl_now();
	itmax = cl_poll(&p, 1, c->up, c->lo, cl_lower_wait(), NEG_TTL + 1.0, POLL_MS);
	slack = NEG_TTL + 1.0 + itmax;
	mct_diag("create by the other client: lower %s, stack %s (bound: lower + %.2f s)",
		 cl_secs(p.lo), cl_secs(p.up), slack);
	if (p.lo < 0)
		MCT_SKIP("the lower itself did not show the other client's create within %.0f s",
			 cl_lower_wait());
	MCT_EXPECT(p.up >= 0 && p.up <= p.lo + slack,
		   "a name the other client created showed through the stack after %s, on the lower after %.2f s: more than neg_ttl %d s + 1 s + poll %.2f s later (dir_ttl 3600 s)",
		   cl_secs(p.up), p.lo, NEG_TTL, itmax);
}

/*
 * On a cifs "multiuser" mount each user is listed what the server shows
 * him (access-based enumeration): no listing is cached, so none answers
 * another user's readdir or lookup.  Root alone can show it: a second
 * readdir reaches the lower, and so does a missing name after a listing.
 */
CL_TEST(cifs_multiuser_no_listing)
{
	char src[1024], low[PATH_MAX], up[PATH_MAX], cmd[3 * PATH_MAX], p[PATH_MAX];
	struct mcs_mount mm;
	struct mcs s0, d;
	int mounted = 0, e;

	if (!cl_fs("cifs"))
		MCT_SKIP("a cifs multiuser mount: cifs only");
	MCT_ASSERT(cl_mount_source(cl.lower, src, sizeof(src)), "no mount on %s in /proc/self/mounts",
		   cl.lower);
	cl_snp(low, sizeof(low), "/tmp/listneg-mu-lower.%d", getpid());
	cl_snp(up, sizeof(up), "/tmp/listneg-mu-up.%d", getpid());
	MCT_ASSERT(!mkdir(low, 0755) && !mkdir(up, 0755), "mkdir: %s", strerror(errno));
	cl_snp(cmd, sizeof(cmd), "mount -t cifs '%s' %s -o guest,vers=3.1.1,multiuser,nosharesock",
	       src, low);
	if (system(cmd)) {
		mct_fail_at(__FILE__, __LINE__, "%s failed", cmd);
		goto out;
	}
	mounted = 1;
	cl_snp(cmd, sizeof(cmd), "mount -t metacache %s %s", low, up);
	if (system(cmd)) {
		mct_fail_at(__FILE__, __LINE__, "%s failed", cmd);
		goto out;
	}
	mounted = 2;
	e = mcs_open(&mm, up, NULL, 0);
	if (e) {
		mct_fail_at(__FILE__, __LINE__, "metacache debugfs of %s: %s", up, strerror(-e));
		goto out;
	}
	cl_snp(p, sizeof(p), "%s/%s", up, c->rel);
	cl_count(p);
	if (mcs_read(&mm, &s0)) {
		mct_fail_at(__FILE__, __LINE__, "read %s/stats", mm.dir);
		goto out;
	}
	cl_count(p);
	cl_snp(p, sizeof(p), "%s/%s/zz", up, c->rel);
	e = cl_lstat_err(p, NULL);
	if (!mcs_read(&mm, &d)) {
		struct mcs now = d;

		mcs_sub(&d, &now, &s0);
		mct_diag("second readdir and a missing name on the multiuser mount: lower calls: %s; %s",
			 cl_calls(&d), cl_caches(&d));
		MCT_EXPECT(d.op[MCS_READDIR].calls >= 1 && d.cache[MCS_DIR].hits == 0,
			   "a listing was cached on a cifs multiuser mount: %s; %s",
			   cl_calls(&d), cl_caches(&d));
		MCT_EXPECT(e == ENOENT && d.op[MCS_LOOKUP].calls >= 1,
			   "a missing name on a cifs multiuser mount: %s, lower calls %s",
			   err_str(e), cl_calls(&d));
	} else {
		mct_fail_at(__FILE__, __LINE__, "read %s/stats", mm.dir);
	}
out:
	if (mounted >= 2 && umount(up))
		mct_diag("umount %s: %s", up, strerror(errno));
	if (mounted >= 1 && umount(low))
		mct_diag("umount %s: %s", low, strerror(errno));
	rmdir(up);
	rmdir(low);
}

/* list_ahead: the module parameter */

#define LA_PARAM "/sys/module/metacache/parameters/list_ahead"
#define LA_EVERY 16

static char la_saved[32];

static int la_write(const char *v)
{
	FILE *f = fopen(LA_PARAM, "w");
	int bad;

	if (!f)
		return -errno;
	bad = fputs(v, f) < 0;
	bad |= fclose(f) != 0;
	return bad ? -EIO : 0;
}

static void la_restore(void)
{
	if (la_saved[0] && la_write(la_saved))
		mct_diag("could not put list_ahead back to %s", la_saved);
	la_saved[0] = 0;
}

/* Set list_ahead for this test; the test's end puts it back. */
#define LA_SET(v)							\
	do {								\
		FILE *__f = fopen(LA_PARAM, "r");			\
		MCT_ASSERT(__f, "%s: %s (the module has no list_ahead)", \
			   LA_PARAM, strerror(errno));			\
		if (!fgets(la_saved, sizeof(la_saved), __f))		\
			la_saved[0] = 0;				\
		fclose(__f);						\
		la_saved[strcspn(la_saved, "\n")] = 0;			\
		cl_teardown = la_restore;				\
		MCT_ASSERT(la_write(v) == 0, "write %s to %s", (v), LA_PARAM); \
	} while (0)

/* NFILES files made on the lower mount, so that the stack never saw them. */
#define LA_NFILES 40

static void la_make_lower(struct cl_ctx *c)
{
	char name[32];
	int i;

	for (i = 0; i < LA_NFILES; i++) {
		cl_snp(name, sizeof(name), "f%02d", i);
		MKFILE(LO(name));
	}
	cl_settle();
}

static void la_stat_files(struct cl_ctx *c, int from, int to)
{
	char name[32];
	int i, e;

	for (i = from; i < to; i++) {
		cl_snp(name, sizeof(name), "f%02d", i);
		e = cl_lstat_err(UP(name), NULL);
		MCT_EXPECT(e == 0, "stat %s: %s", name, err_str(e));
	}
}

/* Stat missing names z<tag>00...: *@calls = the lower lookups they made. */
static void la_stat_missing(struct cl_ctx *c, const char *tag, int n,
			    uint64_t *calls)
{
	struct mcs s0, d;
	char name[32];
	int i, e;

	CL_SNAP(&s0);
	for (i = 0; i < n; i++) {
		cl_snp(name, sizeof(name), "z%s%02d", tag, i);
		e = cl_lstat_err(UP(name), NULL);
		MCT_EXPECT(e == ENOENT, "stat %s: %s, want ENOENT", name, err_str(e));
	}
	CL_SINCE(&d, &s0);
	*calls = d.op[MCS_LOOKUP].calls;
}

CL_TEST(list_ahead_after_misses)
{
	struct mcs s0, d;
	uint64_t calls = UINT64_MAX;

	LA_SET("16");
	CL_TTLS(3600);
	la_make_lower(c);
	CL_SNAP(&s0);
	/* 14 lookups of files and a missing name: 15 that ask the lower. */
	la_stat_files(c, 0, LA_EVERY - 2);
	la_stat_missing(c, "a", 1, &calls);
	CL_SINCE(&d, &s0);
	mct_diag("15 first lookups: lower calls %s; %s", cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(calls == 1 && d.op[MCS_READDIR].calls == 0 &&
		   d.cache[MCS_DIR].misses == 0,
		   "the 15th lookup in a directory read a listing or was not asked of the lower: %s; %s",
		   cl_calls(&d), cl_caches(&d));

	/* The 16th asks the lower and reads the listing. */
	CL_SNAP(&s0);
	la_stat_missing(c, "b", 1, &calls);
	CL_SINCE(&d, &s0);
	mct_diag("16th lookup: lower calls %s; %s", cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(calls == 1 && d.op[MCS_READDIR].calls >= 1 &&
		   d.cache[MCS_DIR].misses == 1,
		   "the 16th lookup that asked the lower did not read the listing: %s; %s",
		   cl_calls(&d), cl_caches(&d));

	/* Missing names are answered from it, files still found. */
	la_stat_missing(c, "c", 20, &calls);
	MCT_EXPECT(calls == 0, "20 missing names after the listing was read ahead made %" PRIu64
		   " lower lookups", calls);
	la_stat_files(c, LA_EVERY - 2, LA_NFILES);
	MKFILE(LO("late"));
	MCT_EXPECT(cl_lstat_err(UP("late"), NULL) == 0,
		   "a file made on the lower mount after the listing was read ahead not found");
}

/*
 * A name cached as missing that another client then made is found once a
 * listing read ahead has it, as after a readdir: stat agrees with ls.
 */
CL_TEST(list_ahead_forgets_missing)
{
	int e;

	if (cl.other_is_lower)
		MCT_SKIP("no second client on %s", cl.fstype);
	LA_SET("16");
	CL_TTLS(3600);
	la_make_lower(c);
	e = cl_lstat_err(UP("x"), NULL);
	MCT_ASSERT(e == ENOENT, "stat x before: %s", err_str(e));
	MKFILE(LO2("x"));
	/* x, then 15 lookups of files: the 16th reads the listing. */
	la_stat_files(c, 0, LA_EVERY - 1);
	e = cl_lstat_err(UP("x"), NULL);
	MCT_EXPECT(e == 0, "stat x, made by the other client and in the listing read ahead: %s",
		   err_str(e));
	MCT_EXPECT(cl_listed(c->up, "x") == 1, "ls does not show x, made by the other client");
}

CL_TEST(list_ahead_off)
{
	uint64_t calls = UINT64_MAX;

	LA_SET("0");
	CL_TTLS(3600);
	la_make_lower(c);
	la_stat_files(c, 0, LA_NFILES);
	la_stat_missing(c, "a", 20, &calls);
	MCT_EXPECT(calls == 20, "with list_ahead 0, 20 missing names made %" PRIu64
		   " lower lookups, want 20", calls);
}

/* As the test user: stat 30 missing names of the directory in @arg. */
static int la_user_misses(void *arg)
{
	char p[PATH_MAX + 32];
	struct stat st;
	int i, bad = 0;

	for (i = 0; i < 30; i++) {
		snprintf(p, sizeof(p), "%s/zu%02d", (const char *)arg, i);
		if (!lstat(p, &st) || errno != ENOENT)
			bad++;
	}
	return bad ? 1 : 0;
}

/* As the test user: 0 if he can list the directory in @arg. */
static int la_user_lists(void *arg)
{
	DIR *d = opendir(arg);
	int err;

	if (!d)
		return 1;
	errno = 0;
	while (readdir(d))
		;
	err = errno;
	closedir(d);
	return err ? 1 : 0;
}

CL_TEST(list_ahead_needs_read)
{
	struct mcs s0, d;
	int r;

	LA_SET("16");
	CL_TTLS(3600);
	MKFILE(UP("a"));
	MCT_ASSERT(chmod(UP("."), 0711) == 0, "chmod 0711: %s", strerror(errno));
	cl_settle();
	if (!cl_as_user(la_user_lists, c->lo)) {
		mct_skip_set("the lower lets uid %u list a directory of mode 0711 (a mount without permission checks)",
			     (unsigned int)cl.uid);
		return;
	}
	CL_FLUSH();
	CL_SNAP(&s0);
	r = cl_as_user(la_user_misses, c->up);
	CL_SINCE(&d, &s0);
	mct_diag("30 missing names looked up by uid %u: lower calls %s; %s",
		 (unsigned int)cl.uid, cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(r == 0, "the test user's stats of missing names did not all give ENOENT (%d)", r);
	MCT_EXPECT(d.cache[MCS_DIR].misses == 0 && d.op[MCS_LOOKUP].calls >= 30,
		   "lookups by a user who may not read the directory read its listing: %s; %s",
		   cl_calls(&d), cl_caches(&d));
}

CL_TEST(list_ahead_filling)
{
	struct mcs s0, d;
	char name[32];
	int i, e;

	LA_SET("16");
	CL_TTLS(3600);
	CL_SNAP(&s0);
	for (i = 0; i < 200; i++) {
		cl_snp(name, sizeof(name), "t%03d", i);
		e = cl_lstat_err(UP(name), NULL);
		MCT_EXPECT(e == ENOENT, "stat %s before its create: %s", name, err_str(e));
		MKFILE(UP(name));
	}
	CL_SINCE(&d, &s0);
	mct_diag("200 lookups and creates: lower calls %s; %s", cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(d.cache[MCS_DIR].misses <= 200 / LA_EVERY + 1,
		   "200 lookups and creates in one directory read %" PRIu64
		   " listings, more than one per %d", d.cache[MCS_DIR].misses, LA_EVERY);
	MCT_EXPECT(d.cache[MCS_DIR].misses >= 1,
		   "200 lookups that asked the lower in one directory read no listing: %s",
		   cl_caches(&d));
}

CL_MAIN()
