// SPDX-License-Identifier: GPL-2.0
/*
 * module: metacache.ko loads and unloads cleanly (one info line in the
 * kernel log, nothing else), registers its file system type, and refuses
 * to unload while a mount exists.
 *
 * Runs first in the suite, with the module not loaded, and leaves it
 * unloaded.  Needs $MC_KO; the mount test uses $MC_LOWER if set, else a
 * fresh directory under /tmp.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "mctest.h"
#include "mcutil.h"

/*
 * The kernel's own notices on the first load of an unsigned out-of-tree
 * module in a boot (module/main.c): not printed by metacache, so they do
 * not count against it.
 */
static int kernel_taint_notice(const char *t)
{
	return strstr(t, "loading out-of-tree module taints kernel") ||
	       strstr(t, "module verification failed: signature");
}

/* Collect what the kernel logged since fd was opened; fail on anything
 * more severe than an info line, and return how many lines there were. */
static int check_log(int fd, const char *what)
{
	char buf[2048];
	const char *t;
	int prio, lines = 0;

	while ((t = mc_kmsg_read(fd, &prio, buf, sizeof(buf)))) {
		if (kernel_taint_notice(t)) {
			mct_diag("%s: kernel's taint notice <%d> %s", what, prio, t);
			continue;
		}
		lines++;
		mct_diag("%s: kernel log <%d> %s", what, prio, t);
		MCT_EXPECT(prio >= 6, "%s logged at priority %d: %s", what, prio, t);
		MCT_EXPECT(strstr(t, "metacache"), "%s logged a foreign line: %s",
			   what, t);
	}
	return lines;
}

static const char *ko(void)
{
	return mc_env("MC_KO");
}

MCT_TEST(load_unload)
{
	int fd, lines, ret;

	if (!ko())
		MCT_SKIP("MC_KO is not set: not running in the test bed");
	MCT_ASSERT(!mc_module_loaded("metacache"),
		   "metacache is already loaded: the suite must start without it");
	fd = mc_kmsg_open();
	MCT_ASSERT(fd >= 0, "/dev/kmsg: %s", strerror(errno));

	ret = mc_insmod(ko(), NULL);
	MCT_ASSERT(ret == 0, "insmod %s: %s", ko(), strerror(-ret));
	MCT_EXPECT(mc_module_loaded("metacache"), "not in /proc/modules");
	MCT_EXPECT(mc_fs_registered("metacache"),
		   "metacache not in /proc/filesystems after load");
	lines = check_log(fd, "load");
	MCT_EXPECT(lines == 1, "load logged %d lines, want exactly 1 info line",
		   lines);

	ret = mc_rmmod("metacache");
	MCT_ASSERT(ret == 0, "rmmod metacache: %s", strerror(-ret));
	MCT_EXPECT(!mc_module_loaded("metacache"), "still in /proc/modules");
	MCT_EXPECT(!mc_fs_registered("metacache"),
		   "metacache still in /proc/filesystems after unload");
	lines = check_log(fd, "unload");
	MCT_EXPECT(lines <= 1, "unload logged %d lines", lines);
	close(fd);
}

MCT_TEST(load_twice_is_refused)
{
	int ret;

	if (!ko())
		MCT_SKIP("MC_KO is not set: not running in the test bed");
	ret = mc_insmod(ko(), NULL);
	MCT_ASSERT(ret == 0, "insmod: %s", strerror(-ret));
	ret = mc_insmod(ko(), NULL);
	MCT_EXPECT(ret == -EEXIST, "second insmod: %s, want EEXIST",
		   strerror(-ret));
	ret = mc_rmmod("metacache");
	MCT_EXPECT(ret == 0, "rmmod: %s", strerror(-ret));
	ret = mc_rmmod("metacache");
	MCT_EXPECT(ret == -ENOENT, "second rmmod: %s, want ENOENT",
		   strerror(-ret));
}

MCT_TEST(unload_refused_while_mounted)
{
	char lower[] = "/tmp/mc-module-lower.XXXXXX";
	char upper[] = "/tmp/mc-module-upper.XXXXXX";
	int ret;

	if (!ko())
		MCT_SKIP("MC_KO is not set: not running in the test bed");
	MCT_ASSERT(mkdtemp(lower) && mkdtemp(upper), "mkdtemp: %s",
		   strerror(errno));
	ret = mc_insmod(ko(), NULL);
	MCT_ASSERT(ret == 0, "insmod: %s", strerror(-ret));
	if (mount(lower, upper, "metacache", 0, NULL)) {
		mct_fail_at(__FILE__, __LINE__, "mount -t metacache %s %s: %s",
			    lower, upper, strerror(errno));
		mc_rmmod("metacache");
		return;
	}
	ret = mc_rmmod("metacache");
	MCT_EXPECT(ret == -EBUSY || ret == -EWOULDBLOCK,
		   "rmmod while mounted: %s, want EBUSY/EWOULDBLOCK",
		   ret ? strerror(-ret) : "succeeded");
	MCT_EXPECT(mc_module_loaded("metacache"), "module gone while mounted");
	MCT_EXPECT(umount(upper) == 0, "umount: %s", strerror(errno));
	ret = mc_rmmod("metacache");
	MCT_EXPECT(ret == 0, "rmmod after umount: %s", strerror(-ret));
	rmdir(lower);
	rmdir(upper);
}

/* Load/mount/unmount/unload cycles: nothing may leak or warn (the test bed
 * fails the run on any kernel report, and slub_debug checks the slabs). */
MCT_TEST(cycles)
{
	char lower[] = "/tmp/mc-cycle-lower.XXXXXX";
	char upper[] = "/tmp/mc-cycle-upper.XXXXXX";
	char path[256];
	int i, ret, fd;

	if (!ko())
		MCT_SKIP("MC_KO is not set: not running in the test bed");
	MCT_ASSERT(mkdtemp(lower) && mkdtemp(upper), "mkdtemp: %s",
		   strerror(errno));
	for (i = 0; i < 5; i++) {
		ret = mc_insmod(ko(), NULL);
		MCT_ASSERT(ret == 0, "cycle %d: insmod: %s", i, strerror(-ret));
		MCT_ASSERT(mount(lower, upper, "metacache", 0, NULL) == 0,
			   "cycle %d: mount: %s", i, strerror(errno));
		snprintf(path, sizeof(path), "%s/f%d", upper, i);
		fd = open(path, O_CREAT | O_RDWR, 0644);
		MCT_EXPECT(fd >= 0, "cycle %d: create: %s", i, strerror(errno));
		if (fd >= 0)
			close(fd);
		MCT_ASSERT(umount(upper) == 0, "cycle %d: umount: %s", i,
			   strerror(errno));
		ret = mc_rmmod("metacache");
		MCT_ASSERT(ret == 0, "cycle %d: rmmod: %s", i, strerror(-ret));
	}
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/f%d", lower, i);
		MCT_EXPECT(unlink(path) == 0, "%s missing on the lower: %s",
			   path, strerror(errno));
	}
	rmdir(lower);
	rmdir(upper);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
