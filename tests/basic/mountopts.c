// SPDX-License-Identifier: GPL-2.0
/*
 * mountopts: mounting metacache, its options and its refusals.
 *
 * Every bad option or source is refused with EINVAL/ENOENT/ENOTDIR and a
 * message in the mount API's log (what mount(8) prints); good options show
 * in /proc/mounts; remount changes tunables; stacking on metacache, and
 * unmounting while busy, are refused.  Runs per lower with the module
 * loaded ($MC_KO) and nothing mounted on $MC_UPPER.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "mctest.h"
#include "mcutil.h"

static char lowerdir[512], upperdir[512];

/* Load the module if needed and make fresh lower and upper directories. */
static int setup(void)
{
	const char *lower = mc_env("MC_LOWER");
	int ret;

	if (!lower || !mc_env("MC_KO"))
		return -1;
	if (!mc_fs_registered("metacache")) {
		ret = mc_insmod(mc_env("MC_KO"), NULL);
		if (ret && ret != -EEXIST)
			return ret;
	}
	snprintf(lowerdir, sizeof(lowerdir), "%s/mo.%d", lower, getpid());
	snprintf(upperdir, sizeof(upperdir), "/tmp/mo-upper.%d", getpid());
	if (mkdir(lowerdir, 0755) || mkdir(upperdir, 0755))
		return -errno;
	return 0;
}

static void teardown(void)
{
	umount2(upperdir, MNT_DETACH);
	rmdir(upperdir);
	rmdir(lowerdir);
}

#define SETUP()								\
	do {								\
		int __r = setup();					\
		if (__r == -1)						\
			MCT_SKIP("MC_LOWER/MC_KO not set: not in the test bed"); \
		MCT_ASSERT(__r == 0, "setup: %s", strerror(-__r));	\
	} while (0)

/*
 * Mount with the new API, so the kernel's message can be read back from
 * the fs_context.  Returns 0 or -errno; the log goes to msg.
 */
static int fsmount_opts(const char *source, const char *opts, char *msg,
			size_t msglen)
{
	char buf[4096], *o, *save = NULL, *kv;
	int fsfd, mfd, ret = 0;
	ssize_t n;

	msg[0] = 0;
	fsfd = fsopen("metacache", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return -errno;
	if (source && fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source, 0)) {
		ret = -errno;
		goto out_log;
	}
	if (opts) {
		snprintf(buf, sizeof(buf), "%s", opts);
		for (kv = strtok_r(buf, ",", &save); kv;
		     kv = strtok_r(NULL, ",", &save)) {
			o = strchr(kv, '=');
			if (o)
				*o++ = 0;
			if (fsconfig(fsfd, o ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
				     kv, o, 0)) {
				ret = -errno;
				goto out_log;
			}
		}
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		ret = -errno;
		goto out_log;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0) {
		ret = -errno;
		goto out_log;
	}
	if (move_mount(mfd, "", AT_FDCWD, upperdir, MOVE_MOUNT_F_EMPTY_PATH))
		ret = -errno;
	close(mfd);
out_log:
	while ((n = read(fsfd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		strncat(msg, buf, msglen - strlen(msg) - 2);
		strcat(msg, " ");
	}
	close(fsfd);
	return ret;
}

/* The /proc/mounts options of the mount on upperdir, or "" */
static void proc_mount_opts(char *out, size_t len)
{
	char dev[512], mnt[512], type[64], opts[1024];
	FILE *f = fopen("/proc/mounts", "r");

	out[0] = 0;
	if (!f)
		return;
	while (fscanf(f, "%511s %511s %63s %1023s %*d %*d", dev, mnt, type,
		      opts) == 4)
		if (!strcmp(mnt, upperdir) && !strcmp(type, "metacache"))
			snprintf(out, len, "%s", opts);
	fclose(f);
}

MCT_TEST(defaults_shown)
{
	static const char *const keys[] = {
		"entry_ttl=", "neg_ttl=", "attr_ttl=", "dir_ttl=",
		"close_ttl=", "max_entries=", "max_neg=", "max_handles=",
	};
	char msg[4096], opts[1024];
	unsigned int i;
	int ret;

	SETUP();
	ret = fsmount_opts(lowerdir, NULL, msg, sizeof(msg));
	MCT_ASSERT(ret == 0, "mount: %s [%s]", strerror(-ret), msg);
	proc_mount_opts(opts, sizeof(opts));
	mct_diag("options: %s", opts);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		MCT_EXPECT(strstr(opts, keys[i]), "%s not in /proc/mounts: %s",
			   keys[i], opts);
	MCT_EXPECT(umount(upperdir) == 0, "umount: %s", strerror(errno));
	teardown();
}

MCT_TEST(bad_options_refused)
{
	static const char *const bad[] = {
		"no_such_option=1", "no_such_flag", "entry_ttl=-1",
		"entry_ttl=abc", "entry_ttl=", "entry_ttl=1x",
		"entry_ttl=99999999999999999999", "attr_ttl=31536001",
		"neg_ttl=4294967296", "max_entries=-5", "max_entries=16777217",
		"dir_ttl=0x", "close_ttl= 5", "max_handles=1e3",
	};
	char msg[4096], opts[1024];
	unsigned int i;
	int ret;

	SETUP();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = fsmount_opts(lowerdir, bad[i], msg, sizeof(msg));
		MCT_EXPECT(ret == -EINVAL, "'%s': %s, want EINVAL", bad[i],
			   ret ? strerror(-ret) : "accepted");
		MCT_EXPECT(strlen(msg) > 2, "'%s': no message in the mount log",
			   bad[i]);
		mct_diag("'%s' -> %s", bad[i], msg);
		proc_mount_opts(opts, sizeof(opts));
		if (opts[0]) {
			mct_fail_at(__FILE__, __LINE__, "'%s' left a mount", bad[i]);
			umount2(upperdir, MNT_DETACH);
		}
	}
	teardown();
}

MCT_TEST(good_options_and_repeats)
{
	char msg[4096], opts[1024];
	int ret;

	SETUP();
	/* A repeated option: the last one wins, like other file systems. */
	ret = fsmount_opts(lowerdir,
			   "entry_ttl=3,attr_ttl=0,entry_ttl=7,neg_ttl=31536000,max_neg=0",
			   msg, sizeof(msg));
	MCT_ASSERT(ret == 0, "mount: %s [%s]", strerror(-ret), msg);
	proc_mount_opts(opts, sizeof(opts));
	MCT_EXPECT(strstr(opts, "entry_ttl=7"), "entry_ttl=7 not shown: %s", opts);
	MCT_EXPECT(strstr(opts, "attr_ttl=0"), "attr_ttl=0 not shown: %s", opts);
	MCT_EXPECT(strstr(opts, "neg_ttl=31536000"), "neg_ttl not shown: %s", opts);
	MCT_EXPECT(strstr(opts, "max_neg=0"), "max_neg=0 not shown: %s", opts);

	/* Legacy mount(2) remount changes tunables in place. */
	ret = mount(NULL, upperdir, NULL, MS_REMOUNT, "attr_ttl=9,dir_ttl=4");
	MCT_EXPECT(ret == 0, "remount: %s", strerror(errno));
	proc_mount_opts(opts, sizeof(opts));
	MCT_EXPECT(strstr(opts, "attr_ttl=9") && strstr(opts, "dir_ttl=4"),
		   "remount not shown: %s", opts);
	ret = mount(NULL, upperdir, NULL, MS_REMOUNT, "attr_ttl=-3");
	MCT_EXPECT(ret == -1 && errno == EINVAL, "bad remount: %s",
		   ret ? strerror(errno) : "accepted");
	proc_mount_opts(opts, sizeof(opts));
	MCT_EXPECT(strstr(opts, "attr_ttl=9"), "bad remount changed: %s", opts);
	MCT_EXPECT(umount(upperdir) == 0, "umount: %s", strerror(errno));
	teardown();
}

MCT_TEST(bad_sources_refused)
{
	char msg[4096], path[600];
	int ret, fd;

	SETUP();
	ret = fsmount_opts(NULL, NULL, msg, sizeof(msg));
	MCT_EXPECT(ret == -EINVAL, "no source: %s, want EINVAL",
		   ret ? strerror(-ret) : "accepted");
	MCT_EXPECT(strlen(msg) > 2, "no source: no message");

	snprintf(path, sizeof(path), "%s/missing", lowerdir);
	ret = fsmount_opts(path, NULL, msg, sizeof(msg));
	MCT_EXPECT(ret == -ENOENT, "missing lower: %s, want ENOENT",
		   ret ? strerror(-ret) : "accepted");

	snprintf(path, sizeof(path), "%s/file", lowerdir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create %s: %s", path, strerror(errno));
	close(fd);
	ret = fsmount_opts(path, NULL, msg, sizeof(msg));
	MCT_EXPECT(ret == -ENOTDIR, "file as lower: %s, want ENOTDIR",
		   ret ? strerror(-ret) : "accepted");
	unlink(path);

	ret = fsmount_opts("", NULL, msg, sizeof(msg));
	MCT_EXPECT(ret < 0, "empty source accepted");
	teardown();
}

MCT_TEST(no_stacking_on_metacache)
{
	char msg[4096], second[600];
	int ret;

	SETUP();
	ret = fsmount_opts(lowerdir, NULL, msg, sizeof(msg));
	MCT_ASSERT(ret == 0, "mount: %s [%s]", strerror(-ret), msg);
	snprintf(second, sizeof(second), "/tmp/mo-second.%d", getpid());
	mkdir(second, 0755);
	ret = mount(upperdir, second, "metacache", 0, NULL);
	MCT_EXPECT(ret == -1 && errno == EINVAL,
		   "metacache on metacache: %s, want EINVAL",
		   ret ? strerror(errno) : "accepted");
	if (!ret)
		umount(second);
	rmdir(second);
	MCT_EXPECT(umount(upperdir) == 0, "umount: %s", strerror(errno));
	teardown();
}

MCT_TEST(odd_lower_names)
{
	static const char *const names[] = {
		"with space", "comma,in,name", "tab\tname", "new\nline",
		"-dash", "\xc3\xa9t\xc3\xa9", "back\\slash",
	};
	char msg[4096], path[700], opts[1024];
	unsigned int i;
	int ret;

	SETUP();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", lowerdir, names[i]);
		if (mkdir(path, 0755)) {
			mct_diag("the lower refuses the name %d: %s", i,
				 strerror(errno));
			continue;
		}
		ret = fsmount_opts(path, NULL, msg, sizeof(msg));
		MCT_EXPECT(ret == 0, "name %d: %s [%s]", i, strerror(-ret), msg);
		if (!ret) {
			proc_mount_opts(opts, sizeof(opts));
			MCT_EXPECT(opts[0], "name %d: mount not in /proc/mounts", i);
			MCT_EXPECT(umount(upperdir) == 0, "umount: %s",
				   strerror(errno));
		}
		rmdir(path);
	}
	teardown();
}

MCT_TEST(umount_busy)
{
	char msg[4096], path[600];
	int ret, fd;

	SETUP();
	ret = fsmount_opts(lowerdir, NULL, msg, sizeof(msg));
	MCT_ASSERT(ret == 0, "mount: %s [%s]", strerror(-ret), msg);
	snprintf(path, sizeof(path), "%s/busy", upperdir);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	MCT_ASSERT(fd >= 0, "create: %s", strerror(errno));
	ret = umount(upperdir);
	MCT_EXPECT(ret == -1 && errno == EBUSY, "umount while open: %s",
		   ret ? strerror(errno) : "succeeded");
	close(fd);
	MCT_EXPECT(unlink(path) == 0, "unlink: %s", strerror(errno));
	MCT_EXPECT(umount(upperdir) == 0, "umount after close: %s",
		   strerror(errno));
	teardown();
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
