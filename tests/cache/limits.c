// SPDX-License-Identifier: GPL-2.0
/*
 * limits: the caches stay within max_neg and max_entries, and flush empties
 * them.
 *
 *  - max_neg=100: stat of 500 distinct missing names; the neg cache's
 *    "entries" never exceeds 100 (read after every stat), "evicted" grows,
 *    and every answer is still ENOENT;
 *  - max_entries=200: 500 files (made on the server), stat of each through
 *    the stack; the entry cache's "entries" never exceeds 200 and every
 *    answer is right (size of each file);
 *  - flush: with files, missing names and a listing cached, writing "1" to
 *    debugfs "flush" leaves every cache with 0 entries, and the next stat of
 *    a cached file reaches the lower;
 *  - listing_too_big: max_entries=20 and 30 files: every readdir (the first
 *    one after a local change included) lists every entry.
 */
#include "cachelib.h"

#define NNAMES 500

CL_TEST(max_neg)
{
	struct mcs s0, s, d;
	uint64_t maxent = 0;
	char name[32];
	int i, e;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600,max_neg=100");
	CL_SNAP(&s0);
	for (i = 0; i < NNAMES; i++) {
		snprintf(name, sizeof(name), "missing%04d", i);
		e = cl_lstat_err(UP(name), NULL);
		MCT_EXPECT(e == ENOENT, "stat %s: %s", name, strerror(e));
		CL_SNAP(&s);
		if (s.cache[MCS_NEG].entries > maxent)
			maxent = s.cache[MCS_NEG].entries;
	}
	mcs_sub(&d, &s, &s0);
	mct_diag("%d missing names with max_neg=100: neg entries max %" PRIu64 ", now %" PRIu64
		 ", evicted +%" PRIu64 ", misses +%" PRIu64, NNAMES, maxent,
		 d.cache[MCS_NEG].entries, d.cache[MCS_NEG].evicted, d.cache[MCS_NEG].misses);
	MCT_EXPECT(maxent <= 100, "the neg cache held %" PRIu64 " entries with max_neg=100", maxent);
	MCT_EXPECT(maxent > 0, "the neg cache never held an entry");
	MCT_EXPECT(d.cache[MCS_NEG].evicted > 0, "no neg evictions for %d names and max_neg=100",
		   NNAMES);
	if (d.cache[MCS_NEG].evicted < NNAMES - 100)
		mct_diag("note: %" PRIu64 " evictions for %d names into 100 slots",
			 d.cache[MCS_NEG].evicted, NNAMES);

	/* the most recent names are still cached (a diagnostic: LRU or not) */
	CL_SNAP(&s0);
	for (i = NNAMES - 50; i < NNAMES; i++) {
		snprintf(name, sizeof(name), "missing%04d", i);
		cl_lstat_err(UP(name), NULL);
	}
	CL_SINCE(&d, &s0);
	mct_diag("the last 50 names again: neg hits %" PRIu64 ", lower calls %s",
		 d.cache[MCS_NEG].hits, cl_calls(&d));
}

CL_TEST(max_entries)
{
	struct mcs s0, s, d;
	uint64_t maxent = 0;
	char name[32];
	struct stat st;
	int i, r;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600,max_entries=200");
	/* made beside the stack, on the server: nothing of them is cached yet */
	for (i = 0; i < NNAMES; i++) {
		snprintf(name, sizeof(name), "f%04d", i);
		r = cl_writefile(SRV(name), (size_t)(i % 50), 'x', 0644);
		MCT_ASSERT(r == 0, "create %s on the server: %s", name, strerror(-r));
	}
	CL_SNAP(&s0);
	for (i = 0; i < NNAMES; i++) {
		snprintf(name, sizeof(name), "f%04d", i);
		MCT_EXPECT(lstat(UP(name), &st) == 0 && st.st_size == i % 50,
			   "stat %s: %s size %jd", name, strerror(errno), (intmax_t)st.st_size);
		CL_SNAP(&s);
		if (s.cache[MCS_ENTRY].entries > maxent)
			maxent = s.cache[MCS_ENTRY].entries;
	}
	mcs_sub(&d, &s, &s0);
	mct_diag("%d files with max_entries=200: entry entries max %" PRIu64 ", evicted +%" PRIu64
		 "; attr entries %" PRIu64, NNAMES, maxent, d.cache[MCS_ENTRY].evicted,
		 d.cache[MCS_ATTR].entries);
	MCT_EXPECT(maxent <= 200, "the entry cache held %" PRIu64 " entries with max_entries=200",
		   maxent);
	MCT_EXPECT(maxent > 0, "the entry cache never held an entry");
	MCT_EXPECT(d.cache[MCS_ENTRY].evicted > 0,
		   "no entry evictions for %d files and max_entries=200", NNAMES);
	/* and a second pass is still right */
	for (i = 0; i < NNAMES; i += 7) {
		snprintf(name, sizeof(name), "f%04d", i);
		MCT_EXPECT(lstat(UP(name), &st) == 0 && st.st_size == i % 50,
			   "second stat %s: %s size %jd", name, strerror(errno), (intmax_t)st.st_size);
	}
}

CL_TEST(flush)
{
	struct mcs s0, s, d;
	int i;

	CL_TTLS(3600);
	for (i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		MCT_ASSERT(cl_writefile(UP(name), 1, 'a', 0644) == 0, "create: %s", strerror(errno));
		cl_lstat_err(UP(name), NULL);
		snprintf(name, sizeof(name), "m%d", i);
		cl_lstat_err(UP(name), NULL);
	}
	cl_count(c->up);
	CL_SNAP(&s);
	mct_diag("before flush: %s", cl_caches(&s));
	MCT_EXPECT(s.cache[MCS_ENTRY].entries > 0 && s.cache[MCS_NEG].entries > 0 &&
		   s.cache[MCS_ATTR].entries > 0,
		   "nothing cached before the flush: %s", cl_caches(&s));

	CL_FLUSH();
	CL_SNAP(&s);
	mct_diag("after flush: %s", cl_caches(&s));
	for (i = 0; i < MCS_CACHE_NR; i++)
		MCT_EXPECT(s.cache[i].entries == 0, "%s cache: %" PRIu64 " entries after flush",
			   mcs_cache_names[i], s.cache[i].entries);

	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f0"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("first stat after flush: lower calls %s", cl_calls(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) >= 1,
		   "the first stat after flush made no lower lookup/revalidate/getattr call");
	CL_SNAP(&s0);
	MCT_EXPECT(cl_lstat_err(UP("m0"), NULL) == ENOENT, "stat m0: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(cl_lookup_reached_lower(&d, MCS_NEG),
		   "the first stat of a missing name after flush made no lower call: %s; %s",
		   cl_calls(&d), cl_caches(&d));
	CL_SNAP(&s0);
	cl_count(c->up);
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.op[MCS_READDIR].calls >= 1,
		   "the first readdir after flush made no lower readdir call");
}

/*
 * A listing too big to cache (more entries than half of max_entries) is
 * read through: every readdir must still list every entry.  The first
 * one after a change used to read the lower directory on from where the
 * attempt at a listing had left it: on NFS it listed nothing.
 */
CL_TEST(listing_too_big)
{
	char name[32];
	int i, n, found;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600,max_entries=20");
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "f%02d", i);
		MCT_ASSERT(cl_writefile(UP(name), 1, 'a', 0644) == 0, "create %s: %s", name,
			   strerror(errno));
	}
	for (i = 0; i < 5; i++) {
		/* a local change: the listing is tried again */
		snprintf(name, sizeof(name), "new%d", i);
		MCT_ASSERT(cl_writefile(UP(name), 1, 'a', 0644) == 0, "create %s: %s", name,
			   strerror(errno));
		found = cl_listed(c->up, name);
		n = cl_count(c->up);
		MCT_EXPECT(found == 1, "round %d: %s not listed (%d)", i, name, found);
		MCT_EXPECT(n == 31 + i, "round %d: %d entries listed, want %d", i, n, 31 + i);
		n = cl_count(c->up);
		MCT_EXPECT(n == 31 + i, "round %d, again: %d entries listed, want %d", i, n,
			   31 + i);
	}
}

CL_MAIN()
