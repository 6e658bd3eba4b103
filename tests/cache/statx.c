// SPDX-License-Identifier: GPL-2.0
/*
 * statx: the synchronisation flags of statx(2) are honoured.
 *
 *  - AT_STATX_FORCE_SYNC asks the lower (a lower getattr call) even with
 *    the attributes cached for an hour, and sees another client's change
 *    (size, mode) at once: the stack's forced statx is made BEFORE anything
 *    else looks at the lower, so it must have passed the flag down to the
 *    lower client (whose own cache would otherwise answer for seconds); a
 *    change the lower itself does not show when forced afterwards (cifs:
 *    another client's chmod) skips;
 *  - AT_STATX_DONT_SYNC makes no lower call even when the attribute TTL has
 *    expired (attr_ttl 1 s, entry_ttl 3600 s), and still answers;
 *  - a plain stat after that does reach the lower (the TTL had expired).
 */
#include <sys/syscall.h>

#include "cachelib.h"

static int do_statx(const char *path, int flags, struct statx *stx)
{
	return statx(AT_FDCWD, path, flags | AT_SYMLINK_NOFOLLOW,
		     STATX_BASIC_STATS, stx) ? -errno : 0;
}

CL_TEST(force_sync)
{
	struct mcs s0, d;
	struct statx sx;
	struct stat st;
	int r, fd;
	char buf[3000];

	CL_TTLS(3600);
	r = cl_writefile(UP("f"), 100, 'a', 0644);
	MCT_ASSERT(r == 0, "create: %s", strerror(-r));
	MCT_ASSERT(lstat(UP("f"), &st) == 0 && st.st_size == 100, "lstat: %s", strerror(errno));
	/* the other client knows the file */
	MCT_ASSERT(lstat(LO2("f"), &st) == 0, "lstat on the other client: %s", strerror(errno));

	/* the other client grows the file */
	fd = open(LO2("f"), O_WRONLY | O_APPEND);
	MCT_ASSERT(fd >= 0, "open on the other client: %s", strerror(errno));
	memset(buf, 'b', sizeof(buf));
	MCT_ASSERT(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write: %s",
		   strerror(errno));
	MCT_ASSERT(fsync(fd) == 0 && close(fd) == 0, "fsync/close: %s", strerror(errno));

	CL_SNAP(&s0);
	r = do_statx(UP("f"), AT_STATX_FORCE_SYNC, &sx);
	CL_SINCE(&d, &s0);
	MCT_ASSERT(r == 0, "statx FORCE_SYNC: %s", strerror(-r));
	mct_diag("statx(AT_STATX_FORCE_SYNC): size %llu, lower calls: %s",
		 (unsigned long long)sx.stx_size, cl_calls(&d));
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "statx(AT_STATX_FORCE_SYNC) made no lower getattr call: %s", cl_calls(&d));
	MCT_EXPECT(sx.stx_size == 3100,
		   "statx(AT_STATX_FORCE_SYNC) right after the other client's write: size %llu, want 3100",
		   (unsigned long long)sx.stx_size);

	/* what the lower shows with the flag (for the record) */
	r = do_statx(LO("f"), AT_STATX_FORCE_SYNC, &sx);
	mct_diag("the lower's own forced statx afterwards: %s, size %llu",
		 r ? strerror(-r) : "ok", (unsigned long long)sx.stx_size);

	/* a plain stat afterwards: the refreshed value, from the cache */
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_EXPECT(st.st_size == 3100,
		   "a plain stat after the forced one shows size %jd, want 3100 (the forced value was not kept)",
		   (intmax_t)st.st_size);
}

CL_TEST(force_sync_mode)
{
	struct mcs s0, d;
	struct statx sx, lx;
	struct stat st;
	int r;

	CL_TTLS(3600);
	r = cl_writefile(UP("f"), 10, 'a', 0644);
	MCT_ASSERT(r == 0, "create: %s", strerror(-r));
	MCT_ASSERT(chmod(UP("f"), 0644) == 0, "chmod: %s", strerror(errno));
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	MCT_ASSERT(chmod(LO2("f"), 0444) == 0, "chmod on the other client: %s", strerror(errno));

	CL_SNAP(&s0);
	r = do_statx(UP("f"), AT_STATX_FORCE_SYNC, &sx);
	CL_SINCE(&d, &s0);
	MCT_ASSERT(r == 0, "statx FORCE_SYNC: %s", strerror(-r));
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "statx(AT_STATX_FORCE_SYNC) made no lower getattr call: %s", cl_calls(&d));
	/* only now the lower's own forced view: is the change there at all? */
	r = do_statx(LO("f"), AT_STATX_FORCE_SYNC, &lx);
	MCT_ASSERT(r == 0, "statx FORCE_SYNC on the lower: %s", strerror(-r));
	mct_diag("after the other client's chmod 0444: stack (forced) %o, lower (forced) %o",
		 sx.stx_mode & 07777, lx.stx_mode & 07777);
	if ((lx.stx_mode & 07777) == (st.st_mode & 07777))
		MCT_SKIP("the lower itself, forced, still shows mode %o after the other client's chmod 0444 (%s)",
			 lx.stx_mode & 07777, cl.fstype);
	MCT_EXPECT((sx.stx_mode & 07777) == (lx.stx_mode & 07777),
		   "statx(AT_STATX_FORCE_SYNC) after the other client's chmod: mode %o, the lower (forced, afterwards) %o",
		   sx.stx_mode & 07777, lx.stx_mode & 07777);
}

CL_TEST(dont_sync)
{
	struct mcs s0, d;
	struct statx sx;
	struct stat st;
	int r, i;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=3600,attr_ttl=1,dir_ttl=3600");
	r = cl_writefile(UP("f"), 100, 'a', 0644);
	MCT_ASSERT(r == 0, "create: %s", strerror(-r));
	/*
	 * Let the lower settle first: cifs closes a file for real about a
	 * second after close() (deferred close) and then updates the times
	 * and blocks of its inode, which metacache rightly takes as "the lower
	 * knows newer attributes" (no hit, even for DONT_SYNC).
	 */
	cl_msleep(2200);
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	cl_msleep(1600);	/* the attributes' TTL has expired */

	CL_SNAP(&s0);
	for (i = 0; i < 5; i++) {
		r = do_statx(UP("f"), AT_STATX_DONT_SYNC, &sx);
		MCT_EXPECT(r == 0, "statx DONT_SYNC #%d: %s", i, strerror(-r));
		MCT_EXPECT(r || sx.stx_size == 100, "statx DONT_SYNC: size %llu, want 100",
			   (unsigned long long)sx.stx_size);
	}
	CL_SINCE(&d, &s0);
	mct_diag("5 x statx(AT_STATX_DONT_SYNC) after attr_ttl expired: lower calls: %s; %s",
		 cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "statx(AT_STATX_DONT_SYNC) made lower calls: %s", cl_calls(&d));

	/* the control: a plain stat now does ask the lower */
	CL_SNAP(&s0);
	MCT_ASSERT(lstat(UP("f"), &st) == 0, "lstat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("plain stat after attr_ttl expired: lower calls: %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "a stat after attr_ttl (1 s) expired made no lower getattr call: %s",
		   cl_calls(&d));
	MCT_EXPECT(d.cache[MCS_ATTR].expired >= 1 || d.cache[MCS_ATTR].renewed >= 1 ||
		   d.cache[MCS_ATTR].misses >= 1,
		   "the expired attribute lookup is counted nowhere: %s", cl_caches(&d));
}

CL_MAIN()
