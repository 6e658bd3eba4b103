// SPDX-License-Identifier: GPL-2.0
/*
 * ctl: tools/metacachectl/metacachectl against the module, every
 * subcommand: values set are read back (show -j, defaults -j, policy list
 * -j, parsed by the small JSON reader of tests/lib/ctlrun.h), their
 * effects on the mount (/proc/mounts options, new mounts get the
 * defaults, statistics that move, a flush that makes the next access look
 * up again), and non-root users refused with exit status 1 and a message;
 * a user in a mount namespace of his own is not shown where lowers are.
 *
 * The tool is found by tests/lib/ctlrun.h.  Every run of it costs a
 * process (25-100 ms in the emulated guest): a few dozen here.
 * Restores the defaults, the mount's tunables and its rules.
 */
#include <ctype.h>
#include <grp.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "mctest.h"
#include "mcutil.h"

#include "ctlrun.h"

static const char *upper, *lower, *fstype;

/* --------------------------------------------------------- the mount */

static int setup(void)
{
	upper = mc_env("MC_UPPER");
	lower = mc_env("MC_LOWER");
	fstype = mc_env("MC_FSTYPE");
	if (!upper || !lower)
		return -1;
	return 0;
}

#define SETUP()								\
	do {								\
		if (setup())						\
			MCT_SKIP("needs MC_UPPER and MC_LOWER (mount mode)"); \
		MCT_ASSERT(!find_tool(), "metacachectl not built (%s)", tool); \
	} while (0)

/* The options of the mount at dir in /proc/mounts, or "". */
static const char *mount_opts(const char *dir, char *buf, size_t size)
{
	char line[4096], dev[1024], mnt[1024], type[64], opts[2048];
	FILE *f = fopen("/proc/mounts", "r");

	buf[0] = 0;
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %1023s %63s %2047s", dev, mnt, type,
			   opts) == 4 && !strcmp(mnt, dir) &&
		    !strcmp(type, "metacache"))
			snprintf(buf, size, ",%s,", opts);
	fclose(f);
	return buf;
}

static int has_opt(const char *dir, const char *opt)
{
	char buf[2100], want[128];

	snprintf(want, sizeof(want), ",%s,", opt);
	return strstr(mount_opts(dir, buf, sizeof(buf)), want) != NULL;
}

/* The mount's id, from show -j MOUNT. */
static long long mount_id(const char *mnt)
{
	if (ctl("-j", "show", mnt) || !js_valid(R.out))
		return -1;
	return js_num(R.out, "id");
}

static char idbuf[24];

static const char *id_str(long long id)
{
	snprintf(idbuf, sizeof(idbuf), "%lld", id);
	return idbuf;
}

/* The module parameter that times one cache hit in N. */
#define SAMPLE_PARAM "/sys/module/metacache/parameters/served_sample"
/* The one that lists a directory ahead of the lookups made in it. */
#define LA_PARAM "/sys/module/metacache/parameters/list_ahead"

/* Write @val to module parameter @param: 0, or the errno of the write. */
static int param_write(const char *param, const char *val)
{
	int fd = open(param, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Module parameter @param's value, -1 if unreadable. */
static long param_read(const char *param)
{
	FILE *f = fopen(param, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int sample_write(const char *val)
{
	return param_write(SAMPLE_PARAM, val);
}

static long sample_read(void)
{
	return param_read(SAMPLE_PARAM);
}

/* Set the parameter to @val, keeping its old value in @was (24 bytes). */
static int sample_swap(const char *val, char *was)
{
	long v = sample_read();

	if (v < 1)
		return ENOENT;
	snprintf(was, 24, "%ld", v);
	return sample_write(val);
}

/* ------------------------------------------------------------- tests */

MCT_TEST(version_and_show)
{
	char buf[PATH_MAX], want[PATH_MAX], dev[64];
	struct stat st;
	long long id;
	int i, found = 0;

	SETUP();
	EXPECT_RUN(0, "version");
	MCT_EXPECT(strstr(R.out, "metacache module 0.1.0, control protocol 1"),
		   "version: %s", R.out);
	EXPECT_JSON("-j", "version");
	MCT_EXPECT(!strcmp(js_str(R.out, "module.version", buf, sizeof(buf)),
			   "0.1.0") && js_num(R.out, "module.protocol") == 1 &&
		   js_bool(R.out, "module.compatible") == 1, "version -j: %s",
		   R.out);
	/* every mount; ours by its device */
	MCT_ASSERT(!stat(upper, &st), "stat %s", upper);
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	EXPECT_JSON("-j", "show");
	for (i = 0; i < 64; i++) {
		char path[32];

		snprintf(path, sizeof(path), "mounts.%d.dev", i);
		if (!*js_str(R.out, path, buf, sizeof(buf)))
			break;
		if (strcmp(buf, dev))
			continue;
		found++;
		snprintf(path, sizeof(path), "mounts.%d.mount_point", i);
		MCT_EXPECT(!strcmp(js_str(R.out, path, buf, sizeof(buf)), upper),
			   "mount point %s, want %s", buf, upper);
	}
	MCT_EXPECT(found == 1, "%s (dev %s) listed %d times: %s", upper, dev,
		   found, R.out);
	/* ours alone */
	EXPECT_JSON("-j", "show", upper);
	id = js_num(R.out, "id");
	MCT_EXPECT(id >= 1, "id %lld", id);
	MCT_EXPECT(!strcmp(js_str(R.out, "dev", buf, sizeof(buf)), dev),
		   "dev %s", buf);
	MCT_ASSERT(realpath(lower, want), "realpath %s", lower);
	MCT_EXPECT(!strcmp(js_str(R.out, "lower_path", buf, sizeof(buf)), want),
		   "lower_path %s, want %s", buf, want);
	js_str(R.out, "lower_fstype", buf, sizeof(buf));
	MCT_EXPECT(fstype && (!strncmp(buf, fstype, strlen(fstype)) ||
			      (!strcmp(fstype, "cifs") && !strcmp(buf, "smb3"))),
		   "lower_fstype %s on %s", buf, fstype);
	js_str(R.out, "lower_source", buf, sizeof(buf));
	MCT_EXPECT(buf[0], "no lower_source");
	mct_diag("%s: lower %s %s from %s", upper, want, fstype, buf);
	MCT_EXPECT(js_num(R.out, "tunables.attr_ttl") == 5 &&
		   js_num(R.out, "tunables.max_entries") == 65536 &&
		   js_bool(R.out, "tunables.dir") == 1 &&
		   js_bool(R.out, "active.entry") == 1 &&
		   js_num(R.out, "policies") == 0 &&
		   js_num(R.out, "entries") == 0, "show -j: %s", R.out);
	/* the human forms */
	EXPECT_RUN(0, "show");
	MCT_EXPECT(strstr(R.out, upper), "show: %s", R.out);
	EXPECT_RUN(0, "show", upper);
	snprintf(want, sizeof(want), "mount %lld: %s", id, upper);
	MCT_EXPECT(strstr(R.out, want), "show MOUNT: %s", R.out);
}

MCT_TEST(set_reads_back)
{
	long long id;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	EXPECT_RUN(0, "set", upper, "attr_ttl", "0", "entry_ttl", "1m",
		   "max_neg", "100", "neg", "off");
	MCT_EXPECT(!R.out[0], "set printed: %s", R.out);
	EXPECT_JSON("-j", "show", id_str(id));
	MCT_EXPECT(js_num(R.out, "tunables.attr_ttl") == 0 &&
		   js_num(R.out, "tunables.entry_ttl") == 60 &&
		   js_num(R.out, "tunables.max_neg") == 100 &&
		   js_num(R.out, "tunables.neg_ttl") == 5 &&
		   js_bool(R.out, "tunables.neg") == 0 &&
		   js_bool(R.out, "tunables.attr") == 1 &&
		   js_bool(R.out, "active.attr") == 0 &&
		   js_bool(R.out, "active.neg") == 0 &&
		   js_bool(R.out, "active.entry") == 1, "after set: %s", R.out);
	/* the mount itself shows it */
	MCT_EXPECT(has_opt(upper, "attr_ttl=0") && has_opt(upper, "entry_ttl=60") &&
		   has_opt(upper, "max_neg=100"), "/proc/mounts: no change");
	/* by id, back to the defaults */
	EXPECT_RUN(0, "set", id_str(id), "attr_ttl", "5", "entry_ttl", "5s",
		   "max_neg", "16384", "neg", "on");
	MCT_EXPECT(has_opt(upper, "attr_ttl=5") && has_opt(upper, "entry_ttl=5") &&
		   has_opt(upper, "max_neg=16384"), "/proc/mounts: not restored");
	/* refusals */
	EXPECT_RUN(1, "set", "999999", "attr_ttl", "1");
	MCT_EXPECT(strstr(R.err, "kernel reports:") && strstr(R.err, "mount id"),
		   "unknown id: %s", R.err);
	EXPECT_RUN(1, "set", "/tmp", "attr_ttl", "1");
	MCT_EXPECT(strstr(R.err, "not on a metacache mount"), "/tmp: %s",
		   R.err);
	EXPECT_RUN(2, "set", upper, "attr_ttl", "400d");
}

MCT_TEST(defaults_for_new_mounts)
{
	char sub[PATH_MAX], dir[PATH_MAX], dir2[PATH_MAX];

	SETUP();
	EXPECT_JSON("-j", "defaults");
	MCT_EXPECT(js_num(R.out, "defaults.attr_ttl") == 5 &&
		   js_num(R.out, "defaults.max_handles") == 1024 &&
		   js_bool(R.out, "defaults.dir") == 1, "defaults: %s", R.out);
	EXPECT_RUN(0, "defaults", "attr_ttl", "7", "dir", "off", "max_handles",
		   "10");
	EXPECT_JSON("-j", "defaults");
	MCT_EXPECT(js_num(R.out, "defaults.attr_ttl") == 7 &&
		   js_num(R.out, "defaults.max_handles") == 10 &&
		   js_num(R.out, "defaults.entry_ttl") == 5 &&
		   js_bool(R.out, "defaults.dir") == 0, "defaults: %s", R.out);
	/* a new mount gets them, mount options override them */
	snprintf(sub, sizeof(sub), "%s/ctl.def.%d", lower, getpid());
	snprintf(dir, sizeof(dir), "/tmp/ctl.def.%d", getpid());
	snprintf(dir2, sizeof(dir2), "/tmp/ctl.def2.%d", getpid());
	MCT_ASSERT(!mkdir(sub, 0755) && !mkdir(dir, 0755) && !mkdir(dir2, 0755),
		   "mkdir: %s", strerror(errno));
	MCT_EXPECT(!mount(sub, dir, "metacache", 0, NULL), "mount: %s",
		   strerror(errno));
	MCT_EXPECT(!mount(sub, dir2, "metacache", 0, "attr_ttl=3"),
		   "mount -o: %s", strerror(errno));
	EXPECT_JSON("-j", "show", dir);
	MCT_EXPECT(js_num(R.out, "tunables.attr_ttl") == 7 &&
		   js_num(R.out, "tunables.max_handles") == 10 &&
		   js_num(R.out, "tunables.entry_ttl") == 5 &&
		   js_bool(R.out, "tunables.dir") == 0 &&
		   js_bool(R.out, "active.dir") == 0, "new mount: %s", R.out);
	MCT_EXPECT(has_opt(dir, "attr_ttl=7") && has_opt(dir2, "attr_ttl=3") &&
		   has_opt(dir2, "max_handles=10"), "new mounts' options");
	MCT_EXPECT(has_opt(upper, "attr_ttl=5"), "an existing mount changed");
	EXPECT_RUN(0, "defaults", "attr_ttl", "5", "dir", "on", "max_handles",
		   "1024");
	EXPECT_JSON("-j", "defaults");
	MCT_EXPECT(js_num(R.out, "defaults.attr_ttl") == 5 &&
		   js_num(R.out, "defaults.max_handles") == 1024 &&
		   js_bool(R.out, "defaults.dir") == 1, "restored: %s", R.out);
	MCT_EXPECT(!umount(dir) && !umount(dir2), "umount: %s", strerror(errno));
	rmdir(dir);
	rmdir(dir2);
	rmdir(sub);
}

MCT_TEST(policy_add_list_del)
{
	char buf[256], abs[PATH_MAX];
	long long id;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	EXPECT_RUN(0, "policy", "add", upper, "build", "bypass");
	EXPECT_RUN(0, "policy", "add", upper, "tools", "entry_ttl", "1h",
		   "attr_ttl", "1h");
	snprintf(abs, sizeof(abs), "%s/a/b", upper);
	EXPECT_RUN(0, "policy", "add", id_str(id), abs, "neg", "off");
	EXPECT_JSON("-j", "policy", "list", upper);
	MCT_EXPECT(js_num(R.out, "mount_id") == id, "mount_id: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "policies.0.path", buf, sizeof(buf)),
			   "/a/b") &&
		   js_bool(R.out, "policies.0.bypass") == 0 &&
		   js_bool(R.out, "policies.0.tunables.neg") == 0 &&
		   js_num(R.out, "policies.0.tunables.entry_ttl") == -1,
		   "rule /a/b: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "policies.1.path", buf, sizeof(buf)),
			   "/build") &&
		   js_bool(R.out, "policies.1.bypass") == 1,
		   "rule /build: %s", R.out);
	MCT_EXPECT(!strcmp(js_str(R.out, "policies.2.path", buf, sizeof(buf)),
			   "/tools") &&
		   js_num(R.out, "policies.2.tunables.entry_ttl") == 3600 &&
		   js_num(R.out, "policies.2.tunables.attr_ttl") == 3600 &&
		   js_bool(R.out, "policies.2.bypass") == 0,
		   "rule /tools: %s", R.out);
	MCT_EXPECT(!*js_str(R.out, "policies.3.path", buf, sizeof(buf)),
		   "a fourth rule: %s", R.out);
	EXPECT_RUN(0, "policy", "list", upper);
	MCT_EXPECT(strstr(R.out, "/build") && strstr(R.out, "bypass") &&
		   strstr(R.out, "entry_ttl=1h"), "policy list: %s", R.out);
	EXPECT_JSON("-j", "show", upper);
	MCT_EXPECT(js_num(R.out, "policies") == 3, "show: %s", R.out);
	/* delete */
	EXPECT_RUN(0, "policy", "del", upper, "build");
	EXPECT_RUN(1, "policy", "del", upper, "build");
	MCT_EXPECT(strstr(R.err, "no rule on this path"), "del: %s", R.err);
	EXPECT_RUN(2, "policy", "add", upper, "../x", "bypass");
	EXPECT_JSON("-j", "policy", "list", upper);
	MCT_EXPECT(!strcmp(js_str(R.out, "policies.1.path", buf, sizeof(buf)),
			   "/tools") &&
		   !*js_str(R.out, "policies.2.path", buf, sizeof(buf)),
		   "after del: %s", R.out);
	EXPECT_RUN(0, "policy", "del", upper, "tools/");
	EXPECT_RUN(0, "policy", "del", upper, "a/b/");
	EXPECT_RUN(0, "policy", "list", upper);
	MCT_EXPECT(strstr(R.out, "no policy rules"), "empty list: %s", R.out);
}

MCT_TEST(stats_and_reset)
{
	char work[PATH_MAX], name[PATH_MAX + 16], was[24];
	struct stat st;
	long long id, calls;
	int fd, i, err;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	/* time every cache hit, so that the histogram counts them all */
	err = sample_swap("1", was);
	MCT_ASSERT(!err, "%s=1: %s", SAMPLE_PARAM, strerror(err));
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	snprintf(work, sizeof(work), "%s/ctl.stats.%d", upper, getpid());
	MCT_ASSERT(!mkdir(work, 0755), "mkdir: %s", strerror(errno));
	snprintf(name, sizeof(name), "%s/f", work);
	fd = open(name, O_CREAT | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create: %s", strerror(errno));
	close(fd);
	EXPECT_JSON("-j", "stats", id_str(id));
	MCT_EXPECT(js_num(R.out, "mount_id") == id, "mount_id: %s", R.out);
	MCT_EXPECT(js_num(R.out, "age_ns") > 0, "age: %s", R.out);
	calls = js_num(R.out, "ops.lookup.calls");
	MCT_EXPECT(calls > 0, "lookup calls %lld", calls);
	MCT_EXPECT(js_num(R.out, "ops.lookup.lower.count") == calls,
		   "lookup histogram count %lld, calls %lld",
		   js_num(R.out, "ops.lookup.lower.count"), calls);
	MCT_EXPECT(js_num(R.out, "ops.lookup.lower.max_ns") > 0 &&
		   js_num(R.out, "ops.lookup.lower.p50_ns") > 0 &&
		   js_num(R.out, "ops.lookup.lower.buckets.0.count") > 0,
		   "lookup histogram: %s", R.out);
	/*
	 * open(O_CREAT) is one lower open that creates (->atomic_open): a
	 * create when the lower says it created the file, which cifs says
	 * only for O_EXCL, else an open.
	 */
	MCT_EXPECT(js_num(R.out, "ops.create.calls") +
		   js_num(R.out, "ops.open.calls") >= 1 &&
		   js_num(R.out, "ops.mkdir.calls") >= 1, "create %lld, open %lld, mkdir %lld",
		   js_num(R.out, "ops.create.calls"), js_num(R.out, "ops.open.calls"),
		   js_num(R.out, "ops.mkdir.calls"));
	/* the path walks into work hit its fresh entry (default entry_ttl) */
	MCT_EXPECT(js_num(R.out, "caches.entry.hits") > 0 &&
		   js_num(R.out, "ops.revalidate.avoided") > 0,
		   "entry hits %lld, revalidations avoided %lld",
		   js_num(R.out, "caches.entry.hits"),
		   js_num(R.out, "ops.revalidate.avoided"));
	/* every avoided call has its latency in the cache-served histogram */
	MCT_EXPECT(js_num(R.out, "ops.revalidate.cache.count") ==
		   js_num(R.out, "ops.revalidate.avoided") &&
		   js_num(R.out, "ops.revalidate.cache.max_ns") > 0,
		   "revalidate served from cache: count %lld, avoided %lld",
		   js_num(R.out, "ops.revalidate.cache.count"),
		   js_num(R.out, "ops.revalidate.avoided"));
	MCT_EXPECT(js_num(R.out, "caches.handle.entries") == 0,
		   "a file created by its open was kept open (%lld handles)",
		   js_num(R.out, "caches.handle.entries"));
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	MCT_EXPECT(strstr(R.out, "counting for"), "stats --reset: %s", R.out);
	EXPECT_JSON("-j", "stats", id_str(id));
	MCT_EXPECT(js_num(R.out, "ops.lookup.calls") == 0 &&
		   js_num(R.out, "ops.create.calls") == 0 &&
		   js_num(R.out, "ops.lookup.lower.count") == 0 &&
		   js_num(R.out, "ops.revalidate.cache.count") == 0 &&
		   js_num(R.out, "caches.entry.hits") == 0,
		   "after reset: %s", R.out);
	MCT_EXPECT(js_num(R.out, "age_ns") < 120000000000LL, "age after reset");
	/* and they count again */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s/missing%d", work, i);
		stat(name, &st);
	}
	EXPECT_JSON("-j", "stats", id_str(id));
	MCT_EXPECT(js_num(R.out, "ops.lookup.calls") >= 3,
		   "lookups after reset: %lld",
		   js_num(R.out, "ops.lookup.calls"));
	snprintf(name, sizeof(name), "%s/f", work);
	unlink(name);
	rmdir(work);
	MCT_EXPECT(!sample_write(was), "served_sample back to %s", was);
}

/*
 * served_sample: only a random sample of the cache hits is timed; the
 * counters stay exact.  Bad values are refused and change nothing.
 */
MCT_TEST(served_sample)
{
	static const char *const bad[] = { "0", "3", "131072", "-16", "x", "\n" };
	char name[PATH_MAX], was[24];
	long long id, avoided, timed;
	struct stat st;
	size_t k;
	int fd, i, err;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	err = sample_swap("16", was);
	MCT_ASSERT(!err, "%s=16: %s", SAMPLE_PARAM, strerror(err));
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		MCT_EXPECT(sample_write(bad[k]) == EINVAL,
			   "served_sample=\"%s\" not refused with EINVAL", bad[k]);
	MCT_EXPECT(sample_read() == 16, "after refused writes: %ld",
		   sample_read());

	snprintf(name, sizeof(name), "%s/ctl.sample.%d", upper, getpid());
	fd = open(name, O_CREAT | O_WRONLY, 0644);
	MCT_ASSERT(fd >= 0, "create: %s", strerror(errno));
	close(fd);
	MCT_ASSERT(!stat(name, &st), "stat: %s", strerror(errno));
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	for (i = 0; i < 2000; i++)
		stat(name, &st);
	EXPECT_JSON("-j", "stats", id_str(id));
	avoided = js_num(R.out, "ops.getattr.avoided");
	timed = js_num(R.out, "ops.getattr.cache.count");
	/*
	 * 1 in 16 at random: about 125 of 2000; outside 1/64..1/4 has a
	 * probability far below 1e-12.
	 */
	MCT_EXPECT(avoided >= 2000 && timed >= avoided / 64 &&
		   timed <= avoided / 4,
		   "2000 cached stats: %lld getattr avoided, %lld timed",
		   avoided, timed);
	MCT_EXPECT(js_num(R.out, "served_sample") == 16, "stats -j: %s", R.out);
	EXPECT_RUN(0, "stats", id_str(id));
	MCT_EXPECT(strstr(R.out, "1 hit in 16 timed"), "stats: %s", R.out);
	unlink(name);
	MCT_EXPECT(!sample_write(was), "served_sample back to %s", was);
}

MCT_TEST(flush_works)
{
	char work[PATH_MAX], dir[PATH_MAX + 8], rel[64], buf[PATH_MAX];
	struct stat st;
	long long id, before, after;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	snprintf(rel, sizeof(rel), "ctl.flush.%d", getpid());
	snprintf(work, sizeof(work), "%s/%s", upper, rel);
	snprintf(dir, sizeof(dir), "%s/d", work);
	MCT_ASSERT(!mkdir(work, 0755) && !mkdir(dir, 0755), "mkdir: %s",
		   strerror(errno));
	MCT_ASSERT(!stat(dir, &st), "stat");
	/* a cached directory is not looked up again ... */
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	MCT_ASSERT(!stat(dir, &st), "stat");
	EXPECT_JSON("-j", "stats", id_str(id));
	before = js_num(R.out, "ops.lookup.calls");
	if (strcmp(fstype, "cifs"))
		MCT_EXPECT(before == 0, "lookups of a cached name: %lld", before);
	/* ... until flushed */
	EXPECT_JSON("-j", "flush", upper);
	MCT_EXPECT(js_num(R.out, "flushed_entries") >= 2 &&
		   js_num(R.out, "flushed_handles") == 0,
		   "flush of a mount with work and work/d cached: %s", R.out);
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	MCT_ASSERT(!stat(dir, &st), "stat");
	EXPECT_JSON("-j", "stats", id_str(id));
	/*
	 * Neither name of the walk is answered from the cache: an unused
	 * flushed dentry is looked up anew (a miss), one still in use is
	 * revalidated (a miss that asks the lower, when it has d_revalidate).
	 */
	after = js_num(R.out, "caches.entry.misses");
	MCT_EXPECT(after >= 2 && js_num(R.out, "caches.entry.hits") == 0,
		   "after a flush: %lld entry misses, %lld hits (before: %lld lookups)",
		   after, js_num(R.out, "caches.entry.hits"), before);
	/* a subtree, with every flag */
	EXPECT_JSON("-j", "flush", upper, rel, "--subtree", "--handles");
	snprintf(work, sizeof(work), "/%s", rel);
	MCT_EXPECT(!strcmp(js_str(R.out, "path", buf, sizeof(buf)), work) &&
		   js_bool(R.out, "subtree") == 1 &&
		   js_bool(R.out, "handles") == 1 &&
		   js_num(R.out, "flushed_entries") >= 1 &&
		   js_num(R.out, "flushed_handles") == 0, "flush -j: %s", R.out);
	EXPECT_RUN(0, "flush", id_str(id), "no/such/name");
	EXPECT_RUN(2, "flush", upper, "../x");
	rmdir(dir);
	snprintf(work, sizeof(work), "%s/%s", upper, rel);
	rmdir(work);
}

/*
 * A subtree flush among many cached entries: the flush walks the mount's
 * lists in batches, keeping its place with a cursor while it lets go of
 * the lock (kmod/cache.c mc_cache_flush()).  Names of the flushed
 * directory and of its sibling are cached in turn, FLUSH_N of each kind in
 * each, so every batch holds both.  Exactly the names below the subtree
 * must be asked of the lower again, and none of the others.  Then flushes
 * run while a second process keeps the caches at their limits, so that
 * their eviction from the old end meets the flushes' cursors.
 */
#define FLUSH_N		200
#define FLUSH_LOOPS	12

static void flush_names(const char *base, const char *side, int kind,
			char *buf, size_t size, int i)
{
	snprintf(buf, size, "%s/%s/%c%d", base, side, kind ? 'm' : 'f', i);
}

/*
 * stat() the names of @sides (1: "in", 2: "out", 3: both), in turn, until
 * done or *@stop.  Return: how many answers were wrong.
 */
static int flush_stat_all(const char *base, int sides, int *stop)
{
	char name[PATH_MAX + 32];
	struct stat st;
	int i, k, side, bad = 0;

	for (i = 0; i < FLUSH_N; i++) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			break;
		for (k = 0; k < 2; k++)
			for (side = 0; side < 2; side++) {
				if (!(sides & (1 << side)))
					continue;
				flush_names(base, side ? "out" : "in", k, name,
					    sizeof(name), i);
				if ((stat(name, &st) == 0) != !k)
					bad++;
			}
	}
	return bad;
}

/* The hit and miss counters of the stats -j in R.out, as a message. */
static const char *hits_misses(char *buf, size_t size)
{
	snprintf(buf, size,
		 "entry %lld hits %lld misses, neg %lld hits %lld misses, %lld lookups",
		 js_num(R.out, "caches.entry.hits"),
		 js_num(R.out, "caches.entry.misses"),
		 js_num(R.out, "caches.neg.hits"),
		 js_num(R.out, "caches.neg.misses"),
		 js_num(R.out, "ops.lookup.calls"));
	return buf;
}

/* A tunable's value in the show -j in R.out, as a string for "set". */
#define TUN_WAS(buf, key)						\
	snprintf(buf, sizeof(buf), "%lld", js_num(R.out, "tunables." key))

MCT_TEST(flush_subtree_among_many)
{
	char rel[64], base[PATH_MAX], lbase[PATH_MAX], sbase[PATH_MAX];
	char name[PATH_MAX + 32];
	char sub[96], was_e[24], was_n[24], was_me[24], was_mn[24], msg[160];
	int *shared;
	long long id;
	long was_la;
	int i, fd, status, bad;
	pid_t pid;

	SETUP();
	id = mount_id(upper);
	MCT_ASSERT(id >= 1, "no id: %s", R.err);
	/*
	 * No listing read ahead of the lookups (list_ahead): in in/ it would
	 * answer missing names from a listing read after the flush, answers
	 * from the lower that this test counts as cached ones.
	 */
	was_la = param_read(LA_PARAM);
	MCT_ASSERT(was_la >= 0 && !param_write(LA_PARAM, "0"),
		   "list_ahead 0 (%s)", LA_PARAM);
	TUN_WAS(was_e, "entry_ttl");
	TUN_WAS(was_n, "neg_ttl");
	TUN_WAS(was_me, "max_entries");
	TUN_WAS(was_mn, "max_neg");
	snprintf(rel, sizeof(rel), "ctl.fsub.%d", getpid());
	snprintf(base, sizeof(base), "%s/%s", upper, rel);
	snprintf(lbase, sizeof(lbase), "%s/%s", lower, rel);
	snprintf(sbase, sizeof(sbase), "%s/%s", mc_server_or(lower), rel);
	snprintf(sub, sizeof(sub), "%s/in", rel);
	/*
	 * The files are made beside the stack (on the server where there is
	 * one): only the stat()s below fill the caches.
	 */
	MCT_ASSERT(!mkdir(lbase, 0755), "mkdir %s: %s", lbase, strerror(errno));
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s/%s", lbase, i ? "out" : "in");
		MCT_ASSERT(!mkdir(name, 0755), "mkdir %s: %s", name,
			   strerror(errno));
	}
	for (i = 0; i < 2 * FLUSH_N; i++) {
		flush_names(sbase, i % 2 ? "out" : "in", 0, name, sizeof(name),
			    i / 2);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		MCT_ASSERT(fd >= 0, "create %s: %s", name, strerror(errno));
		close(fd);
	}
	/* no expiry while this runs, however slow the lower */
	EXPECT_RUN(0, "set", upper, "entry_ttl", "1h", "neg_ttl", "1h",
		   "max_entries", "65536", "max_neg", "16384");
	EXPECT_RUN(0, "flush", upper);
	MCT_EXPECT(flush_stat_all(base, 3, NULL) == 0, "stat through the stack");
	EXPECT_JSON("-j", "flush", upper, sub, "--subtree");
	MCT_EXPECT(js_num(R.out, "flushed_entries") >= 2 * FLUSH_N,
		   "flush of %s: %s", sub, R.out);
	/* the sibling's names are all still cached ... */
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	MCT_EXPECT(flush_stat_all(base, 2, NULL) == 0, "stat of out/");
	EXPECT_JSON("-j", "stats", id_str(id));
	MCT_EXPECT(js_num(R.out, "caches.entry.misses") == 0 &&
		   js_num(R.out, "caches.neg.misses") == 0 &&
		   js_num(R.out, "caches.entry.hits") >= FLUSH_N &&
		   js_num(R.out, "caches.neg.hits") >= FLUSH_N &&
		   js_num(R.out, "ops.lookup.calls") == 0,
		   "out/ after a flush of in/: %s", hits_misses(msg, sizeof(msg)));
	/* ... and none of the flushed one's */
	EXPECT_RUN(0, "stats", "--reset", id_str(id));
	MCT_EXPECT(flush_stat_all(base, 1, NULL) == 0, "stat of in/");
	EXPECT_JSON("-j", "stats", id_str(id));
	MCT_EXPECT(js_num(R.out, "caches.entry.misses") >= FLUSH_N &&
		   js_num(R.out, "caches.neg.misses") >= FLUSH_N &&
		   js_num(R.out, "caches.neg.hits") == 0,
		   "in/ after its flush: %s", hits_misses(msg, sizeof(msg)));

	/* limits lowered below what is cached by more than a batch */
	EXPECT_RUN(0, "set", upper, "max_entries", "100", "max_neg", "100");
	EXPECT_JSON("-j", "show", id_str(id));
	MCT_EXPECT(js_num(R.out, "entries") <= 100 &&
		   js_num(R.out, "entries") >= 50 &&
		   js_num(R.out, "negative_entries") == 100,
		   "2 x %d names cached, limits lowered to 100: %s", 2 * FLUSH_N,
		   R.out);

	/*
	 * Flushes against eviction: limits below the names in use (but
	 * above a batch, so that the flushes let go of the lock mid-list),
	 * and a second process that keeps asking for all of them.
	 */
	EXPECT_RUN(0, "set", upper, "max_entries", "300", "max_neg", "280");
	shared = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(shared != MAP_FAILED, "mmap: %s", strerror(errno));
	*shared = 0;
	pid = fork();
	MCT_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		for (bad = 0; !__atomic_load_n(shared, __ATOMIC_RELAXED) && !bad; )
			bad = flush_stat_all(base, 3, shared);
		_exit(bad ? 1 : 0);
	}
	for (i = 0; i < FLUSH_LOOPS; i++) {
		EXPECT_RUN(0, "flush", upper, i % 2 ? sub : rel, "--subtree");
		if (!(i % 4))
			EXPECT_RUN(0, "flush", upper);
	}
	__atomic_store_n(shared, 1, __ATOMIC_RELAXED);
	MCT_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		   !WEXITSTATUS(status),
		   "wrong answers to the stat()s beside the flushes");
	munmap(shared, sizeof(int));
	EXPECT_JSON("-j", "show", id_str(id));
	MCT_EXPECT(js_num(R.out, "entries") <= 300 &&
		   js_num(R.out, "negative_entries") <= 280,
		   "over the limits: %s", R.out);
	EXPECT_RUN(0, "set", upper, "entry_ttl", was_e, "neg_ttl", was_n,
		   "max_entries", was_me, "max_neg", was_mn);
	snprintf(name, sizeof(name), "%ld", was_la);
	MCT_EXPECT(!param_write(LA_PARAM, name), "list_ahead back to %s", name);
	for (i = 0; i < 2 * FLUSH_N; i++) {
		flush_names(sbase, i % 2 ? "out" : "in", 0, name, sizeof(name),
			    i / 2);
		unlink(name);
	}
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s/%s", lbase, i ? "out" : "in");
		rmdir(name);
	}
	MCT_EXPECT(!rmdir(lbase), "rmdir %s: %s", lbase, strerror(errno));
	EXPECT_RUN(0, "flush", upper);
}

MCT_TEST(non_root_refused)
{
	char uid[16];

	SETUP();
	snprintf(uid, sizeof(uid), "%d", test_uid());
#define REFUSED(...)							\
	do {								\
		int __rc = ctl_user(__VA_ARGS__);			\
		MCT_EXPECT(__rc == 1 && strstr(R.err, "metacachectl: ") && \
			   (strstr(R.err, "not permitted") ||		\
			    strstr(R.err, "CAP_SYS_ADMIN")),		\
			   "as uid %s: metacachectl %s: exit %d: %s", uid, \
			   #__VA_ARGS__, __rc, R.err);			\
	} while (0)
#define ALLOWED(...)							\
	do {								\
		int __rc = ctl_user(__VA_ARGS__);			\
		MCT_EXPECT(__rc == 0, "as uid %s: metacachectl %s: exit %d: %s", \
			   uid, #__VA_ARGS__, __rc, R.err);		\
	} while (0)
	REFUSED("set", upper, "attr_ttl", "1");
	REFUSED("defaults", "attr_ttl", "1");
	REFUSED("policy", "add", upper, "x", "bypass");
	REFUSED("policy", "del", upper, "x");
	REFUSED("flush", upper);
	REFUSED("stats", "--reset", upper);
	ALLOWED("-j", "show");
	MCT_EXPECT(js_valid(R.out), "show -j: %s", R.out);
	ALLOWED("-j", "show", upper);
	ALLOWED("-j", "defaults");
	ALLOWED("-j", "policy", "list", upper);
	ALLOWED("-j", "stats", upper);
	MCT_EXPECT(js_valid(R.out), "stats -j: %s", R.out);
	ALLOWED("version");
	MCT_EXPECT(has_opt(upper, "attr_ttl=5"), "a refused set changed it");
#undef REFUSED
#undef ALLOWED
}

/*
 * A user in a mount namespace of his own (a container sharing the host's
 * network, a sandbox), without CAP_SYS_ADMIN: show lists the mounts and
 * their counters, but not where their lowers are (the lower's path and
 * server are the host's); root in the initial namespace sees them.
 */
MCT_TEST(other_namespace_no_paths)
{
	char cmd[PATH_MAX + 256], out[65536];
	size_t n;
	FILE *f;
	int rc;

	SETUP();
	EXPECT_RUN(0, "-j", "show");
	MCT_EXPECT(strstr(R.out, "\"lower_path\":\"") &&
		   strstr(R.out, "\"lower_source\":\""),
		   "root's show -j has no lower path or source: %s", R.out);
	/* root makes the namespace, the tool runs in it as the test user */
	snprintf(cmd, sizeof(cmd),
		 "unshare -m setpriv --reuid=%d --regid=%d --clear-groups %s -j show 2>&1",
		 test_uid(), test_uid(), tool);
	f = popen(cmd, "r");
	MCT_ASSERT(f, "popen: %s", strerror(errno));
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	rc = pclose(f);
	MCT_EXPECT(rc == 0 && js_valid(out), "%s: status 0x%x: %s", cmd, rc, out);
	MCT_EXPECT(strstr(out, "\"mounts\":[{"), "no mount listed: %s", out);
	MCT_EXPECT(!strstr(out, "\"lower_path\":\"") &&
		   !strstr(out, "\"lower_source\":\"") && !strstr(out, lower),
		   "a user in another mount namespace sees the lower: %s", out);
}

MCT_TEST(bad_mounts)
{
	SETUP();
	EXPECT_RUN(1, "show", "/tmp");
	MCT_EXPECT(strstr(R.err, "kernel reports: path is not on a metacache mount"),
		   "show /tmp: %s", R.err);
	EXPECT_RUN(1, "show", "999999");
	MCT_EXPECT(strstr(R.err, "no metacache mount with this id"),
		   "show 999999: %s", R.err);
	EXPECT_RUN(1, "show", "/nonexistent/ctl");
	MCT_EXPECT(strstr(R.err, "kernel reports:"), "show missing: %s", R.err);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
