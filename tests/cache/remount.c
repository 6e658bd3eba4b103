// SPDX-License-Identifier: GPL-2.0
/*
 * remount: a TTL changed by "mount -o remount" applies to the very next
 * operation, also to what was cached under the old value.
 *
 *  - attr_ttl 3600 -> 0: the next stat of a cached file makes a lower
 *    getattr call;
 *  - entry_ttl 3600 -> 0: the next stat makes a lower revalidate/lookup
 *    (on tmpfs, which has no ->d_revalidate: counts no entry hit);
 *  - neg_ttl 3600 -> 0: the next stat of a cached missing name reaches
 *    the lower;
 *  - dir_ttl 3600 -> 0: the next readdir makes a lower readdir call;
 *  - attr_ttl 0 -> 3600: the second stat after the remount is a hit;
 *  - attr_ttl 3600 -> 1: an attribute cached under 3600 expires 1 s after
 *    the remount (a shortened TTL bounds old entries too);
 *  - a remount changes only the options it names: a change made with
 *    metacachectl while it is under way (between fspick() and fsconfig())
 *    is kept.
 * The other TTLs stay at 3600 so that only the changed one can explain a
 * lower call.  A remount makes the VFS drop the mount's UNUSED dentries
 * (shrink_dcache_sb()), which would empty the caches and prove nothing:
 * the tests keep the work directory and the file open across the remount,
 * so that their dentries and inodes, and what is cached with them, stay.
 * (A negative dentry cannot be held from user space: neg_ttl_to_0 only
 * shows that the next lookup is not answered from a stale negative.)
 */
#include <sys/mount.h>

#include "cachelib.h"

/* Fds that keep the work directory and f in the dcache (see above). */
static int pin_dir = -1, pin_file = -1;

static void unpin(void)
{
	if (pin_file >= 0)
		close(pin_file);
	if (pin_dir >= 0)
		close(pin_dir);
	pin_file = pin_dir = -1;
}

static void __attribute__((constructor)) set_teardown(void)
{
	cl_teardown = unpin;
}

static void warm_file(struct cl_ctx *c)
{
	MCT_ASSERT(cl_writefile(UP("f"), 5, 'a', 0644) == 0, "create: %s", strerror(errno));
	pin_dir = open(c->up, O_RDONLY | O_DIRECTORY);
	pin_file = open(UP("f"), O_RDONLY);
	MCT_ASSERT(pin_dir >= 0 && pin_file >= 0, "open: %s", strerror(errno));
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
}

/* the cache is warm: a stat makes no lower call */
#define CONTROL(stmt)							\
	do {								\
		struct mcs __s, __d;					\
		CL_SNAP(&__s);						\
		stmt;							\
		CL_SINCE(&__d, &__s);					\
		MCT_ASSERT(mcs_calls(&__d, MCS_META | MCS_BIT(MCS_READDIR)) == 0, \
			   "cached, before the remount, it still made lower calls: %s (see the hits test)", \
			   cl_calls(&__d));				\
	} while (0)

CL_TEST(attr_ttl_to_0)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	warm_file(c);
	CONTROL(cl_lstat_err(UP("f"), NULL));
	CL_REMOUNT("attr_ttl=0");
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("stat after attr_ttl 3600 -> 0: lower calls %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "the first stat after remount attr_ttl=0 made no lower getattr: %s", cl_calls(&d));
}

CL_TEST(entry_ttl_to_0)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	warm_file(c);
	CONTROL(cl_lstat_err(UP("f"), NULL));
	CL_REMOUNT("entry_ttl=0");
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("stat after entry_ttl 3600 -> 0: lower calls %s", cl_calls(&d));
	MCT_EXPECT(cl_lookup_reached_lower(&d, MCS_ENTRY),
		   "the first stat after remount entry_ttl=0 made no lower revalidate/lookup: %s; %s",
		   cl_calls(&d), cl_caches(&d));
}

CL_TEST(neg_ttl_to_0)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	pin_dir = open(c->up, O_RDONLY | O_DIRECTORY);
	MCT_ASSERT(pin_dir >= 0, "open: %s", strerror(errno));
	MCT_ASSERT(cl_lstat_err(UP("m"), NULL) == ENOENT, "stat: %s", strerror(errno));
	CONTROL(cl_lstat_err(UP("m"), NULL));
	CL_REMOUNT("neg_ttl=0");
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("m"), NULL) == ENOENT, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("stat of a missing name after neg_ttl 3600 -> 0: lower calls %s", cl_calls(&d));
	MCT_EXPECT(cl_lookup_reached_lower(&d, MCS_NEG),
		   "the first stat of a cached missing name after remount neg_ttl=0 made no lower call: %s; %s",
		   cl_calls(&d), cl_caches(&d));
}

CL_TEST(dir_ttl_to_0)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(UP("e"), 0, 0, 0644) == 0, "create: %s", strerror(errno));
	pin_dir = open(c->up, O_RDONLY | O_DIRECTORY);
	MCT_ASSERT(pin_dir >= 0, "open: %s", strerror(errno));
	cl_count(c->up);
	CONTROL(cl_count(c->up));
	CL_REMOUNT("dir_ttl=0");
	CL_SNAP(&s0);
	MCT_EXPECT(cl_count(c->up) == 1, "readdir: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("readdir after dir_ttl 3600 -> 0: lower calls %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_READDIR].calls >= 1,
		   "the first readdir after remount dir_ttl=0 made no lower readdir: %s", cl_calls(&d));
}

CL_TEST(attr_ttl_from_0)
{
	struct mcs s0, d;

	CL_REMOUNT("entry_ttl=3600,neg_ttl=3600,attr_ttl=0,dir_ttl=3600");
	warm_file(c);
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1, "attr_ttl=0: a stat made no lower getattr: %s",
		   cl_calls(&d));
	CL_REMOUNT("attr_ttl=3600");
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("second stat after attr_ttl 0 -> 3600: lower calls %s", cl_calls(&d));
	MCT_EXPECT(mcs_calls(&d, MCS_META) == 0,
		   "the second stat after remount attr_ttl=3600 still made lower calls: %s",
		   cl_calls(&d));
}

CL_TEST(attr_ttl_shortened)
{
	struct mcs s0, d;

	CL_TTLS(3600);
	warm_file(c);
	CONTROL(cl_lstat_err(UP("f"), NULL));
	CL_REMOUNT("attr_ttl=1");
	cl_msleep(1500);
	CL_SNAP(&s0);
	MCT_ASSERT(cl_lstat_err(UP("f"), NULL) == 0, "stat: %s", strerror(errno));
	CL_SINCE(&d, &s0);
	mct_diag("stat 1.5 s after attr_ttl 3600 -> 1: lower calls %s", cl_calls(&d));
	MCT_EXPECT(d.op[MCS_GETATTR].calls >= 1,
		   "attributes cached under attr_ttl=3600 were still served 1.5 s after remount attr_ttl=1: %s",
		   cl_calls(&d));
}

/*
 * The value of KEY in the super block options of the mount at MNT
 * (mountinfo), or -1.
 */
static long mount_opt(const char *mnt, const char *key)
{
	char line[4096], point[PATH_MAX], want[64], *sep, *o;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	long val = -1;

	if (!f)
		return -1;
	cl_snp(want, sizeof(want), ",%s=", key);
	while (val < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    strcmp(point, mnt))
			continue;
		sep = strstr(line, " - ");
		/* " - fstype source opts": the options after the third space */
		o = sep ? strchr(sep + 3, ' ') : NULL;
		o = o ? strchr(o + 1, ' ') : NULL;
		if (!o)
			continue;
		*o = ',';	/* so that the first option matches ",key=" */
		o = strstr(o, want);
		if (o)
			val = strtol(o + strlen(want), NULL, 10);
	}
	fclose(f);
	return val;
}

/*
 * A remount changes only the options it is given, on the values of the
 * moment it is applied: a change made by the control plane after the
 * remount began (fspick() makes the remount's context, fsconfig() applies
 * it) is kept, not overwritten with the values of when it began.
 */
CL_TEST(remount_keeps_ctl_change)
{
	char tool[PATH_MAX], cmd[2 * PATH_MAX];
	int fd, rc;

	(void)c;
	CL_TTLS(3600);
	if (mc_find_ctl(tool, sizeof(tool)))
		MCT_SKIP("metacachectl not found (make -C tools)");
	fd = fspick(AT_FDCWD, cl.upper, FSPICK_CLOEXEC);
	if (fd < 0 && errno == ENOSYS)
		MCT_SKIP("no fspick(2) in this kernel");
	MCT_ASSERT(fd >= 0, "fspick %s: %s", cl.upper, strerror(errno));
	cl_snp(cmd, sizeof(cmd), "%s set %s neg_ttl 77", tool, cl.upper);
	rc = system(cmd);
	MCT_EXPECT(rc == 0, "%s: status %d", cmd, rc);
	MCT_EXPECT(mount_opt(cl.upper, "neg_ttl") == 77,
		   "neg_ttl %ld after metacachectl set, want 77",
		   mount_opt(cl.upper, "neg_ttl"));
	MCT_EXPECT(fsconfig(fd, FSCONFIG_SET_STRING, "attr_ttl", "5", 0) == 0,
		   "fsconfig attr_ttl=5: %s", strerror(errno));
	MCT_EXPECT(fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) == 0,
		   "fsconfig reconfigure: %s", strerror(errno));
	close(fd);
	MCT_EXPECT(mount_opt(cl.upper, "attr_ttl") == 5,
		   "attr_ttl %ld after the remount, want 5",
		   mount_opt(cl.upper, "attr_ttl"));
	MCT_EXPECT(mount_opt(cl.upper, "neg_ttl") == 77,
		   "neg_ttl %ld after a remount that did not name it, want 77 (set during the remount)",
		   mount_opt(cl.upper, "neg_ttl"));
	MCT_EXPECT(mount_opt(cl.upper, "entry_ttl") == 3600,
		   "entry_ttl %ld after a remount that did not name it, want 3600",
		   mount_opt(cl.upper, "entry_ttl"));
}

CL_MAIN()
