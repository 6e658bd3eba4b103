// SPDX-License-Identifier: GPL-2.0
/*
 * policy: which rule applies to a name, as the caches will ask it
 * (mc_policy_ttl(), mc_policy_get(), mc_policy_bypass()), seen through the
 * module's debugfs file <mount id>/policy: write a path, read what applies.
 *
 * The rule on the longest path that is the name's directory or one of its
 * ancestors wins (components, not string prefixes); what it does not set
 * comes from the mount (not from a less specific rule); BYPASS and cache
 * switches; the directory cache asks about the directory itself; rules
 * follow paths (renames, directories made after the rule, dentries
 * flushed); removing a rule restores the mount's values.
 *
 * Rules are added over netlink (nllib.h).  Restores the mount.
 */
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "mctest.h"
#include "mcutil.h"
#include "nllib.h"

static const char *upper;
static char base[PATH_MAX];	/* $MC_UPPER/pol.<pid> */
static char rel[64];		/* "/pol.<pid>" */
static uint32_t id;
static struct nl_sock S;
static char P[512];		/* the last probe's answer */

static int setup(void)
{
	upper = mc_env("MC_UPPER");
	if (!upper)
		return -1;
	if (nl_open(&S))
		return -2;
	id = nl_mount_id(&S, upper);
	if (!id)
		return -2;
	snprintf(rel, sizeof(rel), "/pol.%d", getpid());
	snprintf(base, sizeof(base), "%s%s", upper, rel);
	nl_policy_clear(&S, id);
	return 0;
}

#define SETUP()								\
	do {								\
		int __e = setup();					\
		char __f[64];						\
		if (__e == -1)						\
			MCT_SKIP("needs MC_UPPER (mount mode)");	\
		MCT_ASSERT(!__e, "no metacache family or mount id");	\
		snprintf(__f, sizeof(__f),				\
			 "/sys/kernel/debug/metacache/%u/policy", id);	\
		if (access(__f, W_OK))					\
			MCT_SKIP("no %s (debugfs)", __f);		\
	} while (0)

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

/* Remove base and the rules. */
static void done(void)
{
	nl_policy_clear(&S, id);
	MCT_EXPECT(!nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS),
		   "cannot remove %s: %s", base, strerror(errno));
}

/* Make a path under base (and its parents); a trailing "/" makes a dir. */
static void make(const char *path)
{
	char full[PATH_MAX], *p;
	int fd;

	snprintf(full, sizeof(full), "%s/%s", base, path);
	for (p = full + strlen(upper) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	if (full[strlen(full) - 1] != '/') {
		fd = open(full, O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
	}
}

/* Probe base/path; returns the answer (also in P). */
static const char *probe(const char *path)
{
	char full[PATH_MAX];
	int err;

	snprintf(full, sizeof(full), "%s%s%s", base, *path ? "/" : "", path);
	err = nl_probe(id, full, P, sizeof(P));
	if (err)
		snprintf(P, sizeof(P), "error=%d", err);
	return P;
}

/* Rule path under base: "/pol.<pid>/x". */
static const char *rp(const char *path)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s%s%s", rel, *path ? "/" : "", path);
	return buf;
}

static nl_tun_t T;

static int add(const char *path, uint32_t flags, uint32_t mask,
	       uint32_t dis_sel)
{
	return nl_rule_add(&S, id, rp(path), flags, T, mask, dis_sel);
}

#define BIT_(a) (1U << METACACHE_A_TUN_##a)

/* probe(path) must show key=want */
#define EXPECT_VAL(path, key, want)					\
	do {								\
		long __v = nl_probe_val(probe(path), key);		\
		MCT_EXPECT(__v == (long)(want), "%s: %s=%ld, want %ld (%s)", \
			   path, key, __v, (long)(want), P);		\
	} while (0)

MCT_TEST(no_rules)
{
	SETUP();
	make("f");
	EXPECT_VAL("f", "entry_ttl", 5);
	EXPECT_VAL("f", "ttl.entry", 5);
	EXPECT_VAL("f", "ttl.handle", 5);
	EXPECT_VAL("f", "bypass", 0);
	EXPECT_VAL("f", "disabled", 0);
	EXPECT_VAL("f", "max_entries", 65536);
	EXPECT_VAL("", "ttl.dir", 5);
	done();
}

MCT_TEST(most_specific_rule_wins)
{
	SETUP();
	make("top");
	make("a/f");
	make("a/bb/f");
	make("a/b/f");
	make("a/b/c/f");
	make("a/b/c/d/e/f");
	memset(T, 0, sizeof(T));
	T[METACACHE_A_TUN_DIR_TTL] = 7;
	T[METACACHE_A_TUN_MAX_NEG] = 11;
	MCT_ASSERT(!add("", 0, BIT_(DIR_TTL) | BIT_(MAX_NEG), 0), "rule /");
	T[METACACHE_A_TUN_ENTRY_TTL] = 100;
	MCT_ASSERT(!add("a", 0, BIT_(ENTRY_TTL), 0), "rule /a");
	T[METACACHE_A_TUN_ATTR_TTL] = 200;
	T[METACACHE_A_TUN_DISABLED] = 1U << METACACHE_CACHE_NEG;
	MCT_ASSERT(!add("a/b", 0, BIT_(ATTR_TTL), 1U << METACACHE_CACHE_NEG),
		   "rule /a/b");
	MCT_ASSERT(!add("a/b/c", METACACHE_POLICY_F_BYPASS, 0, 0),
		   "rule /a/b/c");

	/* the base directory is a name in the mount root: no rule */
	EXPECT_VAL("", "entry_ttl", 5);
	/* names in the base directory: its rule */
	EXPECT_VAL("top", "dir_ttl", 7);
	EXPECT_VAL("top", "max_neg", 11);
	EXPECT_VAL("top", "entry_ttl", 5);
	/* "a" is a name in the base directory */
	EXPECT_VAL("a", "entry_ttl", 5);
	EXPECT_VAL("a", "dir_ttl", 7);
	/* in a: rule /a, and the mount for the rest (not rule "/") */
	EXPECT_VAL("a/f", "entry_ttl", 100);
	EXPECT_VAL("a/f", "ttl.entry", 100);
	EXPECT_VAL("a/f", "dir_ttl", 5);
	EXPECT_VAL("a/f", "max_neg", 16384);
	/* "bb" is not "b" */
	EXPECT_VAL("a/bb/f", "entry_ttl", 100);
	EXPECT_VAL("a/bb/f", "attr_ttl", 5);
	/* in a/b: its own rule; neg switched off, its ttl kept */
	EXPECT_VAL("a/b/f", "attr_ttl", 200);
	EXPECT_VAL("a/b/f", "entry_ttl", 5);
	EXPECT_VAL("a/b/f", "neg_ttl", 5);
	EXPECT_VAL("a/b/f", "ttl.neg", 0);
	EXPECT_VAL("a/b/f", "ttl.attr", 200);
	EXPECT_VAL("a/b/f", "disabled", 1U << METACACHE_CACHE_NEG);
	EXPECT_VAL("a/b/f", "bypass", 0);
	/* in a/b/c and below: bypass, every cache off */
	EXPECT_VAL("a/b/c/f", "bypass", 1);
	{
		char want[128], got[128];

		snprintf(want, sizeof(want), "%s/a/b/c", rel);
		nl_probe_rule(probe("a/b/c/d/e/f"), got, sizeof(got));
		MCT_EXPECT(!strcmp(got, want), "rule %s, want %s", got, want);
		nl_probe_rule(probe(""), got, sizeof(got));
		MCT_EXPECT(!strcmp(got, "-"), "rule %s for the base", got);
	}
	EXPECT_VAL("a/b/c/f", "ttl.entry", 0);
	EXPECT_VAL("a/b/c/f", "ttl.attr", 0);
	EXPECT_VAL("a/b/c/f", "ttl.handle", 0);
	EXPECT_VAL("a/b/c/f", "disabled", METACACHE_CACHE_F_ALL);
	EXPECT_VAL("a/b/c/f", "max_entries", 65536);
	EXPECT_VAL("a/b/c/d/e/f", "bypass", 1);
	EXPECT_VAL("a/b/c/d/e", "ttl.neg", 0);
	/* c is a name in a/b, but its listing is under c's own rule */
	EXPECT_VAL("a/b/c", "bypass", 0);
	EXPECT_VAL("a/b/c", "ttl.attr", 200);
	EXPECT_VAL("a/b/c", "ttl.dir", 0);
	EXPECT_VAL("a/b", "ttl.dir", 5);
	/* removing a rule restores what is under it */
	MCT_EXPECT(!nl_rule_del(&S, id, rp("a/b/c")), "del /a/b/c");
	EXPECT_VAL("a/b/c/f", "bypass", 0);
	EXPECT_VAL("a/b/c/f", "attr_ttl", 200);
	MCT_EXPECT(!nl_rule_del(&S, id, rp("a/b")), "del /a/b");
	EXPECT_VAL("a/b/c/f", "entry_ttl", 100);
	EXPECT_VAL("a/b/c/f", "attr_ttl", 5);
	EXPECT_VAL("a/b/c/f", "ttl.neg", 5);
	nl_policy_clear(&S, id);
	EXPECT_VAL("a/b/c/f", "entry_ttl", 5);
	EXPECT_VAL("top", "dir_ttl", 5);
	done();
}

MCT_TEST(switches_of_mount_and_rule)
{
	nl_tun_t saved, t;

	SETUP();
	make("on/f");
	make("off/f");
	MCT_ASSERT(!nl_mount_tun_get(&S, id, saved), "MOUNT_GET");
	memcpy(t, saved, sizeof(t));
	t[METACACHE_A_TUN_DISABLED] = 1U << METACACHE_CACHE_ENTRY;
	MCT_ASSERT(!nl_mount_tun_set(&S, id, t), "MOUNT_SET");
	/* the mount's switch, with no rule and under a rule setting a ttl */
	EXPECT_VAL("on/f", "ttl.entry", 0);
	memset(T, 0, sizeof(T));
	T[METACACHE_A_TUN_ENTRY_TTL] = 30;
	MCT_ASSERT(!add("off", 0, BIT_(ENTRY_TTL), 0), "rule /off");
	EXPECT_VAL("off/f", "entry_ttl", 30);
	EXPECT_VAL("off/f", "ttl.entry", 0);
	/* a rule switching the entry cache on again */
	T[METACACHE_A_TUN_DISABLED] = 0;
	MCT_ASSERT(!add("on", 0, 0, 1U << METACACHE_CACHE_ENTRY), "rule /on");
	EXPECT_VAL("on/f", "ttl.entry", 5);
	EXPECT_VAL("on/f", "disabled", 0);
	/* a ttl of 0 is off too */
	t[METACACHE_A_TUN_DISABLED] = 0;
	t[METACACHE_A_TUN_ATTR_TTL] = 0;
	MCT_ASSERT(!nl_mount_tun_set(&S, id, t), "MOUNT_SET");
	EXPECT_VAL("off/f", "ttl.attr", 0);
	EXPECT_VAL("off/f", "ttl.entry", 30);
	MCT_EXPECT(!nl_mount_tun_set(&S, id, saved), "restore");
	done();
}

MCT_TEST(rules_follow_paths)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct nl_req *m;

	SETUP();
	make("r/x/f");
	memset(T, 0, sizeof(T));
	MCT_ASSERT(!add("r/x", METACACHE_POLICY_F_BYPASS, 0, 0), "rule");
	EXPECT_VAL("r/x/f", "bypass", 1);
	/* renamed away: the rule stays on the path */
	snprintf(from, sizeof(from), "%s/r/x", base);
	snprintf(to, sizeof(to), "%s/r/y", base);
	MCT_ASSERT(!rename(from, to), "rename: %s", strerror(errno));
	EXPECT_VAL("r/y/f", "bypass", 0);
	/* a new directory at the path gets it */
	make("r/x/g");
	EXPECT_VAL("r/x/g", "bypass", 1);
	/* a rule for a directory that does not exist yet */
	MCT_ASSERT(!add("later/on", METACACHE_POLICY_F_BYPASS, 0, 0), "rule");
	make("later/on/f");
	EXPECT_VAL("later/on/f", "bypass", 1);
	EXPECT_VAL("later/on", "bypass", 0);
	/* dentries dropped and looked up again: same answer */
	m = nl_req(&S, METACACHE_CMD_FLUSH, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	MCT_EXPECT(!nl_call(&S, m)->error, "flush");
	EXPECT_VAL("later/on/f", "bypass", 1);
	EXPECT_VAL("r/x/g", "bypass", 1);
	/* a deep tree: 40 levels, a rule at 20 */
	{
		char deep[PATH_MAX] = "deep", rule[PATH_MAX];
		int i;

		for (i = 1; i < 40; i++) {
			if (i == 20)
				snprintf(rule, sizeof(rule), "%s", deep);
			strcat(deep, "/d");
		}
		strcat(deep, "/f");
		make(deep);
		T[METACACHE_A_TUN_CLOSE_TTL] = 3;
		MCT_ASSERT(!add(rule, 0, BIT_(CLOSE_TTL), 0), "deep rule");
		EXPECT_VAL(deep, "ttl.handle", 3);
		deep[strlen(rule)] = 0;	/* the directory of the rule */
		EXPECT_VAL(deep, "ttl.handle", 5);
	}
	done();
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
