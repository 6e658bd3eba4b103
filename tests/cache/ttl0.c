// SPDX-License-Identifier: GPL-2.0
/*
 * ttl0: with entry_ttl = neg_ttl = attr_ttl = dir_ttl = close_ttl = 0 the
 * caches are off: metacache is a pass-through.
 *
 *  - every stat of a file reaches the lower (getattr or revalidate calls
 *    grow with each one) and counts no attr or entry hit;
 *  - every stat of a missing name reaches the lower (lookup or revalidate;
 *    on tmpfs, which has no ->d_revalidate to call, no neg hit) and counts
 *    no neg hit;
 *  - every readdir reaches the lower (readdir calls) and counts no dir hit;
 *  - another client's changes show through the stack as soon as on the
 *    lower: polled together, the stack is at most one poll round behind;
 *  - bypass_rule_reaches_lower: with every TTL long but a "bypass" policy
 *    rule on a directory, a stat below it reaches the lower every time,
 *    and so does the search permission of its subdirectory, whose cached
 *    answer no rule could cover (Documentation/metacachectl.md).
 */
#include "cachelib.h"

#define N 20

static void no_hits(const char *what, const struct mcs *d)
{
	int i;

	for (i = 0; i < MCS_CACHE_NR; i++)
		MCT_EXPECT(d->cache[i].hits == 0, "%s with every TTL 0: %" PRIu64 " %s cache hits",
			   what, d->cache[i].hits, mcs_cache_names[i]);
}

CL_TEST(every_stat_reaches_lower)
{
	struct mcs s0, d, tot;
	int i, r;

	CL_TTLS(0);
	CL_REMOUNT("close_ttl=0");
	r = cl_writefile(UP("f"), 10, 'a', 0644);
	MCT_ASSERT(r == 0, "create: %s", strerror(-r));
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "lstat: %s", strerror(errno));
	CL_SNAP(&tot);
	for (i = 0; i < N; i++) {
		CL_SNAP(&s0);
		MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "lstat: %s", strerror(errno));
		CL_SINCE(&d, &s0);
		MCT_EXPECT(d.op[MCS_GETATTR].calls + d.op[MCS_REVALIDATE].calls >= 1,
			   "stat #%d with attr_ttl=0 made no lower getattr/revalidate call: %s",
			   i, cl_calls(&d));
	}
	CL_SINCE(&d, &tot);
	mct_diag("%d stats: lower calls: %s", N, cl_calls(&d));
	no_hits("stat of a file", &d);
}

/* metacachectl policy VERB UPPER DIR [bypass], DIR the test's: its exit status */
static int policy(struct cl_ctx *c, const char *verb, const char *rule)
{
	char ctl[PATH_MAX], cmd[3 * PATH_MAX];

	if (mc_find_ctl(ctl, sizeof(ctl)))
		return -1;
	cl_snp(cmd, sizeof(cmd), "%s policy %s %s %s %s", ctl, verb, cl.upper, c->up, rule);
	return system(cmd);
}

CL_TEST(bypass_rule_reaches_lower)
{
	struct mcs s0, d;
	int i;

	CL_TTLS(3600);
	MCT_ASSERT(mkdir(UP("sub"), 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("sub/f"), 10, 'a', 0644) == 0, "create: %s", strerror(errno));
	MCT_ASSERT(policy(c, "add", "bypass") == 0, "metacachectl policy add %s %s bypass failed",
		   cl.upper, c->up);
	MCT_EXPECT(cl_lstat_err(UP("sub/f"), NULL) == 0, "lstat: %s", strerror(errno));
	CL_SNAP(&s0);
	for (i = 0; i < N; i++)
		MCT_EXPECT(cl_lstat_err(UP("sub/f"), NULL) == 0, "lstat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("%d stats under a bypass rule: lower calls: %s; %s", N, cl_calls(&d),
		 cl_caches(&d));
	MCT_EXPECT(d.op[MCS_GETATTR].calls + d.op[MCS_REVALIDATE].calls >= N,
		   "%d stats under a bypass rule made %" PRIu64 " lower getattr/revalidate calls",
		   N, d.op[MCS_GETATTR].calls + d.op[MCS_REVALIDATE].calls);
	MCT_EXPECT(d.op[MCS_PERMISSION].calls >= N,
		   "%d path walks through a directory under a bypass rule made %" PRIu64
		   " lower permission calls: answered from a cache", N,
		   d.op[MCS_PERMISSION].calls);
	MCT_EXPECT(policy(c, "del", "") == 0, "metacachectl policy del %s %s failed", cl.upper,
		   c->up);
}

CL_TEST(every_missing_stat_reaches_lower)
{
	struct mcs s0, d, tot;
	int i, e;

	CL_TTLS(0);
	CL_REMOUNT("close_ttl=0");
	CL_SNAP(&tot);
	for (i = 0; i < N; i++) {
		CL_SNAP(&s0);
		e = cl_lstat_err(UP("missing"), NULL);
		MCT_EXPECT(e == ENOENT, "stat of a missing name: %s", strerror(e));
		CL_SINCE(&d, &s0);
		MCT_EXPECT(cl_lookup_reached_lower(&d, MCS_NEG),
			   "stat #%d of a missing name with neg_ttl=0 made no lower lookup/revalidate: %s; %s",
			   i, cl_calls(&d), cl_caches(&d));
	}
	CL_SINCE(&d, &tot);
	mct_diag("%d stats of a missing name: lower calls: %s", N, cl_calls(&d));
	no_hits("stat of a missing name", &d);
}

CL_TEST(every_readdir_reaches_lower)
{
	struct mcs s0, d, tot;
	int i, n;

	CL_TTLS(0);
	CL_REMOUNT("close_ttl=0");
	for (i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "e%d", i);
		MCT_ASSERT(cl_writefile(UP(name), 0, 0, 0644) == 0, "create: %s", strerror(errno));
	}
	CL_SNAP(&tot);
	for (i = 0; i < 5; i++) {
		CL_SNAP(&s0);
		n = cl_count(c->up);
		CL_SINCE(&d, &s0);
		MCT_EXPECT(n == 10, "readdir: %d entries, want 10", n);
		MCT_EXPECT(d.op[MCS_READDIR].calls >= 1,
			   "readdir #%d with dir_ttl=0 made no lower readdir call: %s",
			   i, cl_calls(&d));
	}
	CL_SINCE(&d, &tot);
	mct_diag("5 readdirs: lower calls: %s", cl_calls(&d));
	no_hits("readdir", &d);
}

enum { P_CHMOD, P_SIZE, P_CREATE, P_UNLINK, P_LISTED, P_UNLISTED, NP };

CL_TEST(other_client_as_fast_as_lower)
{
	struct cl_probe p[NP];
	double itmax;
	struct stat st;
	int i, fd;

	CL_TTLS(0);
	CL_REMOUNT("close_ttl=0");
	memset(p, 0, sizeof(p));
	MCT_ASSERT(mkdir(UP("d"), 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("chmod"), 10, 'a', 0644) == 0 && chmod(UP("chmod"), 0644) == 0,
		   "create: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("size"), 10, 'a', 0644) == 0, "create: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("gone"), 10, 'a', 0644) == 0, "create: %s", strerror(errno));
	MCT_ASSERT(cl_writefile(UP("d/old"), 0, 0, 0644) == 0, "create: %s", strerror(errno));
	cl_count(c->lo2);
	cl_count(LO2("d"));

	p[P_CHMOD] = (struct cl_probe){ .cache = "attr", .what = "chmod", .kind = CL_P_MODE,
					.rel = "chmod" };
	p[P_SIZE] = (struct cl_probe){ .cache = "attr", .what = "size", .kind = CL_P_SIZE,
				       .rel = "size", .val = 1010 };
	p[P_CREATE] = (struct cl_probe){ .cache = "neg", .what = "create", .kind = CL_P_EXISTS,
					 .rel = "new" };
	p[P_UNLINK] = (struct cl_probe){ .cache = "entry", .what = "unlink", .kind = CL_P_GONE,
					 .rel = "gone" };
	p[P_LISTED] = (struct cl_probe){ .cache = "dir", .what = "create (listing)",
					 .kind = CL_P_LISTED, .rel = "d", .name = "added" };
	p[P_UNLISTED] = (struct cl_probe){ .cache = "dir", .what = "unlink (listing)",
					   .kind = CL_P_UNLISTED, .rel = "d", .name = "old" };
	for (i = 0; i < NP; i++)	/* the old state, through the stack */
		MCT_ASSERT(cl_probe_check(&p[i], c->up) >= 0, "%s", p[i].what);

	MCT_ASSERT(chmod(LO2("chmod"), 0444) == 0, "chmod: %s", strerror(errno));
	p[P_CHMOD].t_change = cl_now();
	MCT_ASSERT(lstat(LO2("chmod"), &st) == 0, "lstat: %s", strerror(errno));
	p[P_CHMOD].val = st.st_mode & 07777;
	if (p[P_CHMOD].val == 0644) {
		p[P_CHMOD].na = 1;
		cl_snp(p[P_CHMOD].why, sizeof(p[P_CHMOD].why),
		       "the other client still shows 0644 after chmod 0444");
	}
	fd = open(LO2("size"), O_WRONLY | O_APPEND);
	MCT_ASSERT(fd >= 0 && write(fd, "0123456789012345678901234567890123456789", 40) == 40,
		   "append: %s", strerror(errno));
	for (i = 0; i < 24; i++)
		MCT_ASSERT(write(fd, "0123456789012345678901234567890123456789", 40) == 40,
			   "append: %s", strerror(errno));
	MCT_ASSERT(close(fd) == 0, "close: %s", strerror(errno));
	p[P_SIZE].t_change = cl_now();
	MCT_ASSERT(cl_writefile(LO2("new"), 0, 0, 0644) == 0, "create: %s", strerror(errno));
	p[P_CREATE].t_change = cl_now();
	MCT_ASSERT(unlink(LO2("gone")) == 0, "unlink: %s", strerror(errno));
	p[P_UNLINK].t_change = cl_now();
	MCT_ASSERT(cl_writefile(LO2("d/added"), 0, 0, 0644) == 0, "create: %s", strerror(errno));
	p[P_LISTED].t_change = cl_now();
	MCT_ASSERT(unlink(LO2("d/old")) == 0, "unlink: %s", strerror(errno));
	p[P_UNLISTED].t_change = cl_now();

	itmax = cl_poll(p, NP, c->up, c->lo, cl_lower_wait(), 0.5, 100);
	for (i = 0; i < NP; i++) {
		if (p[i].na) {
			mct_diag("%s: not applicable: %s", p[i].what, p[i].why);
			continue;
		}
		mct_diag("%s: lower %s (round %d), stack %s (round %d)", p[i].what,
			 cl_secs(p[i].lo), p[i].it_lo, cl_secs(p[i].up), p[i].it_up);
		if (p[i].lo < 0)
			continue;
		MCT_EXPECT(p[i].up >= 0 && p[i].it_up <= p[i].it_lo + 1,
			   "%s by the other client with every TTL 0: on the lower in poll round %d (%.2f s), through the stack %s",
			   p[i].what, p[i].it_lo, p[i].lo,
			   p[i].up < 0 ? "never" : cl_secs(p[i].up));
	}
	mct_diag("longest poll round %.2f s", itmax);
}

CL_MAIN()
