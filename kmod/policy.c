// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - per-directory policy rules of a mount.
 *
 * A rule sits on a directory, named by its path relative to the mount
 * root ("/" or "/a/b"), and overrides some tunables of the mount for the
 * names in that directory and below, or (BYPASS) switches every cache off
 * there.  For a name, the rule on the longest path that is the name's
 * directory or one of its ancestors wins; the tunables it does not set
 * come from the mount.  At most METACACHE_POLICY_MAX rules per mount.
 *
 * Rules are keyed by their path string, not by a dentry: the directory
 * need not exist, its dentry may be evicted and come back, and unmount
 * has no rule reference to drop before the dentries are shrunk (rules are
 * freed with the rest of the control state, after kill_anon_super()).
 * A rename moves the names, not the rules: the rules follow the paths.
 * Names are compared byte for byte (a case-insensitive lower file system
 * still needs the exact case in the rule).
 *
 * Readers (mc_policy_ttl(), mc_policy_get(), mc_policy_bypass()) run on
 * the file system's paths: no sleeping, no lock but RCU, and when the
 * mount has no rule a single READ_ONCE of the table pointer.  They walk
 * from the name's directory up to the root (d_parent), under RCU and
 * rename_lock's sequence count (retrying if a rename raced), comparing
 * the ancestors with the rules of the published table, deepest first.
 *
 * Writers (POLICY_ADD/DEL through netlink.c) hold mc_ctl::lock, keep the
 * list mc_ctl::rules in path order, and publish an immutable table of
 * the rules sorted by depth (rcu_replace_pointer(), old table and removed
 * rules freed with kfree_rcu()).  Every allocation is made before the
 * list changes, so a failed change changes nothing.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "metacache.h"
#include "ctl.h"

/* struct mc_rule_table - the published rules, deepest first. */
struct mc_rule_table {
	struct rcu_head rcu;
	unsigned int n;
	struct mc_rule *rule[];
};

/**
 * mc_path_normalize() - check and normalize a mount-relative path
 * @in: as given: a leading "/" is ignored, "" and "/" are the root, empty
 *	components ("a//b", "a/") are dropped
 * @out: the normalized path, "/" or "/a/b"
 * @size: size of @out (METACACHE_PATH_MAX is always enough)
 * @depth: number of components
 * @why: on error, a static explanation
 *
 * Return: 0, or -EINVAL for a "." or ".." component, a component longer
 * than NAME_MAX, or a result that does not fit.
 */
int mc_path_normalize(const char *in, char *out, size_t size, u16 *depth,
		      const char **why)
{
	size_t o = 0;
	u16 d = 0;

	while (*in) {
		const char *end;
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchrnul(in, '/');
		n = end - in;
		if ((n == 1 && in[0] == '.') ||
		    (n == 2 && in[0] == '.' && in[1] == '.')) {
			*why = "\".\" and \"..\" are not allowed in a path";
			return -EINVAL;
		}
		if (n > NAME_MAX) {
			*why = "path component longer than NAME_MAX";
			return -EINVAL;
		}
		if (o + 1 + n + 1 > size || d == U16_MAX) {
			*why = "path too long";
			return -EINVAL;
		}
		out[o++] = '/';
		memcpy(out + o, in, n);
		o += n;
		d++;
		in = end;
	}
	if (!o) {
		if (size < 2) {
			*why = "path too long";
			return -EINVAL;
		}
		out[o++] = '/';
	}
	out[o] = '\0';
	*depth = d;
	return 0;
}

/**
 * mc_rule_alloc() - a new, empty rule
 * @path: normalized by mc_path_normalize()
 * @depth: its depth, from mc_path_normalize()
 *
 * Return: the rule (kfree() it if it is not added), or NULL.
 */
struct mc_rule *mc_rule_alloc(const char *path, u16 depth)
{
	size_t len = strlen(path);
	struct mc_rule *rule;

	rule = kzalloc(struct_size(rule, path, len + 1), GFP_KERNEL);
	if (!rule)
		return NULL;
	INIT_LIST_HEAD(&rule->node);
	rule->depth = depth;
	rule->len = len;
	memcpy(rule->path, path, len + 1);
	return rule;
}

static int mc_rule_cmp_depth(const void *a, const void *b)
{
	const struct mc_rule *ra = *(const struct mc_rule * const *)a;
	const struct mc_rule *rb = *(const struct mc_rule * const *)b;

	return (int)rb->depth - (int)ra->depth;
}

static struct mc_rule_table *mc_table_alloc(unsigned int n)
{
	struct mc_rule_table *t;

	return kmalloc(struct_size(t, rule, n), GFP_KERNEL);
}

/* Fill @t from the list (under the lock) and publish it. */
static void mc_table_publish(struct mc_ctl *ctl, struct mc_rule_table *t)
{
	struct mc_rule_table *old;
	struct mc_rule *rule;
	unsigned int n = 0;

	lockdep_assert_held(&ctl->lock);
	if (t) {
		list_for_each_entry(rule, &ctl->rules, node)
			t->rule[n++] = rule;
		t->n = n;
		sort(t->rule, n, sizeof(t->rule[0]), mc_rule_cmp_depth, NULL);
	}
	old = rcu_replace_pointer(ctl->table, t, lockdep_is_held(&ctl->lock));
	if (old)
		kfree_rcu(old, rcu);
	WRITE_ONCE(ctl->nr_rules, n);
	ctl->rules_gen++;
}

static struct mc_rule *mc_rule_find_path(struct mc_ctl *ctl, const char *path,
					 struct list_head **pos)
{
	struct mc_rule *rule;

	lockdep_assert_held(&ctl->lock);
	*pos = &ctl->rules;
	list_for_each_entry(rule, &ctl->rules, node) {
		int c = strcmp(rule->path, path);

		if (!c)
			return rule;
		if (c > 0) {
			*pos = &rule->node;
			break;
		}
	}
	return NULL;
}

/**
 * mc_policy_add() - add a rule, or replace the rule on the same path
 * @sbi: the mount
 * @rule: from mc_rule_alloc(), filled; owned by the mount on success
 * @excl: fail with -EEXIST rather than replace
 *
 * Context: process context; takes the mount's mc_ctl::lock.
 * Return: 0, -EEXIST, -ENOSPC (METACACHE_POLICY_MAX rules already) or
 * -ENOMEM.  On failure nothing changed and @rule is still the caller's.
 */
int mc_policy_add(struct mc_sb_info *sbi, struct mc_rule *rule, bool excl)
{
	struct mc_ctl *ctl = sbi->ctl;
	struct mc_rule *old;
	struct mc_rule_table *t;
	struct list_head *pos;
	int err = 0;

	mutex_lock(&ctl->lock);
	old = mc_rule_find_path(ctl, rule->path, &pos);
	if (old && excl) {
		err = -EEXIST;
		goto out;
	}
	if (!old && ctl->nr_rules >= METACACHE_POLICY_MAX) {
		err = -ENOSPC;
		goto out;
	}
	t = mc_table_alloc(ctl->nr_rules + 1);
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	if (old)
		list_replace(&old->node, &rule->node);
	else
		list_add_tail(&rule->node, pos);
	mc_table_publish(ctl, t);
	/* Only now: readers of the old table may still look at it. */
	if (old)
		kfree_rcu(old, rcu);
out:
	mutex_unlock(&ctl->lock);
	if (!err)
		mc_handles_retune(sbi);
	return err;
}

/**
 * mc_policy_del() - delete the rule on a path
 * @sbi: the mount
 * @path: normalized
 *
 * The names under the path get the mount's tunables again (or those of a
 * less specific rule) from their next operation on.  As after an add, the
 * mount's kept handles are closed (mc_handles_retune()).
 *
 * Context: process context; takes the mount's mc_ctl::lock.
 * Return: 0, -ENOENT (no rule there) or -ENOMEM.
 */
int mc_policy_del(struct mc_sb_info *sbi, const char *path)
{
	struct mc_ctl *ctl = sbi->ctl;
	struct mc_rule_table *t = NULL;
	struct mc_rule *rule;
	struct list_head *pos;
	int err = 0;

	mutex_lock(&ctl->lock);
	rule = mc_rule_find_path(ctl, path, &pos);
	if (!rule) {
		err = -ENOENT;
		goto out;
	}
	if (ctl->nr_rules > 1) {
		t = mc_table_alloc(ctl->nr_rules - 1);
		if (!t) {
			err = -ENOMEM;
			goto out;
		}
	}
	list_del(&rule->node);
	mc_table_publish(ctl, t);
	kfree_rcu(rule, rcu);
out:
	mutex_unlock(&ctl->lock);
	if (!err)
		mc_handles_retune(sbi);
	return err;
}

/**
 * mc_policy_free_all() - free every rule of a mount being torn down
 * @ctl: the mount's control state, unreachable by anyone else
 */
void mc_policy_free_all(struct mc_ctl *ctl)
{
	struct mc_rule *rule, *tmp;

	kfree(rcu_dereference_protected(ctl->table, true));
	RCU_INIT_POINTER(ctl->table, NULL);
	list_for_each_entry_safe(rule, tmp, &ctl->rules, node) {
		list_del(&rule->node);
		kfree(rule);
	}
	ctl->nr_rules = 0;
}

/* Matching, under RCU */

/*
 * Is the name of @dentry the @len bytes at @s?  @dentry's name may be
 * changed by a concurrent d_move(): read like prepend_name() does (the
 * pointer with acquire, the bytes up to the NUL that ends every name); a
 * torn result is caught by the caller's rename_lock retry.  @s has no NUL.
 */
static bool mc_name_is(const struct dentry *dentry, const char *s, size_t len)
{
	const unsigned char *name;
	size_t i;

	/* pairs with the store-release of the name in __d_alloc()/d_move() */
	name = smp_load_acquire(&dentry->d_name.name);

	if (READ_ONCE(dentry->d_name.len) != len)
		return false;
	for (i = 0; i < len; i++)
		if (name[i] != (unsigned char)s[i])
			return false;	/* also stops at the NUL */
	return true;
}

/* Is @dir, at depth @rule->depth, the directory of @rule? */
static bool mc_rule_matches(const struct mc_rule *rule,
			    const struct dentry *dir)
{
	const char *end = rule->path + rule->len;
	unsigned int k;

	for (k = rule->depth; k; k--) {
		const char *p = end;

		while (p[-1] != '/')
			p--;
		if (!mc_name_is(dir, p, end - p))
			return false;
		end = p - 1;
		dir = READ_ONCE(dir->d_parent);
	}
	return true;
}

/* The most specific rule of @t covering the names in @dir, or NULL. */
static const struct mc_rule *mc_rule_lookup(const struct mc_rule_table *t,
					    const struct dentry *dir)
{
	const struct mc_rule *found;
	const struct dentry *d;
	unsigned int seq, depth, cur, i;

	do {
		seq = read_seqbegin(&rename_lock);
		found = NULL;
		depth = 0;
		for (d = dir; !IS_ROOT(d); d = READ_ONCE(d->d_parent))
			depth++;
		d = dir;
		cur = depth;
		for (i = 0; i < t->n; i++) {
			const struct mc_rule *rule = t->rule[i];

			if (rule->depth > depth)
				continue;
			while (cur > rule->depth) {
				d = READ_ONCE(d->d_parent);
				cur--;
			}
			if (mc_rule_matches(rule, d)) {
				found = rule;
				break;
			}
		}
	} while (read_seqretry(&rename_lock, seq));
	return found;
}

/**
 * mc_policy_get() - a tunable of a mount as it applies to a name
 * @sbi: the mount
 * @dentry: the name the operation is on (its directory, @dentry->d_parent,
 *	selects the rule; the root stands for itself)
 * @attr: METACACHE_A_TUN_ENTRY_TTL ... METACACHE_A_TUN_MAX_HANDLES, or
 *	METACACHE_A_TUN_DISABLED for the mask of caches switched off
 * @mount_value: the mount's value of @attr (the caller has just read it)
 *
 * A BYPASS rule reads as every ttl 0 and every cache switched off; its
 * limits are the mount's.
 *
 * Context: any context that may read the dcache under RCU (also RCU-walk),
 * but not with a d_lock held (like d_path()).  Never sleeps.
 * Return: the value in force for @dentry.
 */
u32 mc_policy_get(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  int attr, u32 mount_value)
{
	const struct mc_rule_table *t;
	const struct mc_rule *rule;
	u32 value = mount_value;

	if (!rcu_access_pointer(sbi->ctl->table))
		return mount_value;
	rcu_read_lock();
	t = rcu_dereference(sbi->ctl->table);
	rule = t ? mc_rule_lookup(t, READ_ONCE(dentry->d_parent)) : NULL;
	if (!rule) {
		/* value = mount_value */
	} else if (rule->flags & METACACHE_POLICY_F_BYPASS) {
		if (attr == METACACHE_A_TUN_DISABLED)
			value = METACACHE_CACHE_F_ALL;
		else if (attr <= METACACHE_A_TUN_CLOSE_TTL)
			value = 0;
	} else if (attr == METACACHE_A_TUN_DISABLED) {
		value = (mount_value & ~rule->dis_mask) |
			(rule->tun.disabled & rule->dis_mask);
	} else if (rule->set & BIT(attr)) {
		value = mc_tun_value(&rule->tun, attr);
	}
	rcu_read_unlock();
	return value;
}

/**
 * mc_policy_ttl() - the time to live of a cache for a name
 * @sbi: the mount
 * @dentry: the name the operation is on; its directory selects the rule.
 *	For METACACHE_CACHE_DIR, the directory being listed (its listing
 *	holds names in it, so it selects the rule itself).
 * @cache: the cache
 * @mount_value: the mount's ttl for @cache (e.g. mc_attr_ttl(sbi))
 *
 * The single answer the caches need: 0 when the cache must not be used
 * (ttl 0, switched off in the mount or by a rule, or BYPASS), else the
 * ttl in seconds.  Cheap without rules: one READ_ONCE of the rule table
 * pointer and one of the mount's disabled mask.
 *
 * Context: as mc_policy_get().
 * Return: the ttl in force, in seconds, 0 for "do not cache".
 */
u32 mc_policy_ttl(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  enum metacache_cache cache, u32 mount_value)
{
	const struct mc_rule_table *t;
	const struct mc_rule *rule;
	const struct dentry *dir;
	u32 off = mc_disabled(sbi);
	u32 ttl = mount_value;
	int attr;

	if (!rcu_access_pointer(sbi->ctl->table))
		return off & BIT(cache) ? 0 : mount_value;
	attr = mc_cache_ttl_attr(cache);
	rcu_read_lock();
	t = rcu_dereference(sbi->ctl->table);
	dir = cache == METACACHE_CACHE_DIR ? dentry : READ_ONCE(dentry->d_parent);
	rule = t ? mc_rule_lookup(t, dir) : NULL;
	if (rule) {
		if (rule->flags & METACACHE_POLICY_F_BYPASS)
			ttl = 0;
		else if (rule->set & BIT(attr))
			ttl = mc_tun_value(&rule->tun, attr);
		off = (off & ~rule->dis_mask) |
		      (rule->tun.disabled & rule->dis_mask);
	}
	rcu_read_unlock();
	return off & BIT(cache) ? 0 : ttl;
}

/**
 * mc_policy_any() - does the mount have any rule?
 * @sbi: the mount
 *
 * For the caches that cannot tell which rule covers what they keep: the
 * permission answers (kept per inode, asked without a name) are not kept
 * while a rule exists, and a symlink's target, still kept for ref-walk
 * (which asks with the name), is then not served in RCU-walk.
 *
 * Context: any.
 * Return: true if a rule table is published.
 */
bool mc_policy_any(const struct mc_sb_info *sbi)
{
	return rcu_access_pointer(sbi->ctl->table);
}

/**
 * mc_policy_bypass() - is nothing to be cached for a name?
 * @sbi: the mount
 * @dentry: the name; its directory selects the rule
 *
 * Context: as mc_policy_get().
 * Return: true if the most specific rule covering @dentry is BYPASS.
 */
bool mc_policy_bypass(const struct mc_sb_info *sbi, const struct dentry *dentry)
{
	const struct mc_rule_table *t;
	const struct mc_rule *rule;
	bool bypass = false;

	if (!rcu_access_pointer(sbi->ctl->table))
		return false;
	rcu_read_lock();
	t = rcu_dereference(sbi->ctl->table);
	rule = t ? mc_rule_lookup(t, READ_ONCE(dentry->d_parent)) : NULL;
	if (rule)
		bypass = rule->flags & METACACHE_POLICY_F_BYPASS;
	rcu_read_unlock();
	return bypass;
}

/*
 * debugfs: /sys/kernel/debug/metacache/<id>/policy, for tests and for
 * looking at a rule set.  Write the path of a name on the mount (resolved
 * in the writer's context), then read, on the same open file, what
 * applies to it: the rule that covers it (one lookup: "rule=/a/b", or
 * "rule=-"), every tunable (mc_policy_get()), whether it is bypassed and
 * the ttl each cache would use (mc_policy_ttl()); each of these looks the
 * rule up again, so a concurrent change can make them disagree.
 */

#define MC_PROBE_SIZE	512

/*
 * The probe's answer hangs off file->private_data; mc_probe_lock orders
 * its replacement by a write against a read of the same open file
 * (pread() and pwrite() do not take the file position lock).
 */
static DEFINE_MUTEX(mc_probe_lock);

static ssize_t mc_policy_probe_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	static const char *const names[] = {
		[METACACHE_A_TUN_ENTRY_TTL]	= "entry_ttl",
		[METACACHE_A_TUN_NEG_TTL]	= "neg_ttl",
		[METACACHE_A_TUN_ATTR_TTL]	= "attr_ttl",
		[METACACHE_A_TUN_DIR_TTL]	= "dir_ttl",
		[METACACHE_A_TUN_CLOSE_TTL]	= "close_ttl",
		[METACACHE_A_TUN_MAX_ENTRIES]	= "max_entries",
		[METACACHE_A_TUN_MAX_NEG]	= "max_neg",
		[METACACHE_A_TUN_MAX_HANDLES]	= "max_handles",
		[METACACHE_A_TUN_DISABLED]	= "disabled",
	};
	static const char *const caches[] = {
		[METACACHE_CACHE_ENTRY]		= "entry",
		[METACACHE_CACHE_NEG]		= "neg",
		[METACACHE_CACHE_ATTR]		= "attr",
		[METACACHE_CACHE_DIR]		= "dir",
		[METACACHE_CACHE_HANDLE]	= "handle",
	};
	struct mc_sb_info *sbi = file_inode(file)->i_private;
	const struct mc_rule_table *t;
	const struct mc_rule *rule;
	struct mc_tunables tun;
	struct path path;
	char *name, *out;
	int attr, c, n = 0;
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(names) != METACACHE_A_TUN_MAX + 1);
	BUILD_BUG_ON(ARRAY_SIZE(caches) != __METACACHE_CACHE_MAX);
	if (count >= PATH_MAX)
		return -ENAMETOOLONG;
	name = memdup_user_nul(ubuf, count);
	if (IS_ERR(name))
		return PTR_ERR(name);
	strim(name);
	err = kern_path(name, LOOKUP_FOLLOW, &path);
	kfree(name);
	if (err)
		return err;
	err = -EXDEV;
	if (path.dentry->d_sb != sbi->sb)
		goto out;
	err = -ENOMEM;
	out = kzalloc(MC_PROBE_SIZE, GFP_KERNEL);
	if (!out)
		goto out;
	rcu_read_lock();
	t = rcu_dereference(sbi->ctl->table);
	rule = t ? mc_rule_lookup(t, READ_ONCE(path.dentry->d_parent)) : NULL;
	n += scnprintf(out + n, MC_PROBE_SIZE - n, "rule=%.200s ",
		       rule ? rule->path : "-");
	rcu_read_unlock();
	mc_tunables_load(sbi, &tun);
	for (attr = METACACHE_A_TUN_ENTRY_TTL; attr <= METACACHE_A_TUN_MAX;
	     attr++)
		n += scnprintf(out + n, MC_PROBE_SIZE - n, "%s=%u ",
			       names[attr],
			       mc_policy_get(sbi, path.dentry, attr,
					     mc_tun_value(&tun, attr)));
	n += scnprintf(out + n, MC_PROBE_SIZE - n, "bypass=%d",
		       mc_policy_bypass(sbi, path.dentry));
	for (c = 0; c < __METACACHE_CACHE_MAX; c++) {
		attr = mc_cache_ttl_attr(c);
		n += scnprintf(out + n, MC_PROBE_SIZE - n, " ttl.%s=%u",
			       caches[c],
			       mc_policy_ttl(sbi, path.dentry, c,
					     mc_tun_value(&tun, attr)));
	}
	scnprintf(out + n, MC_PROBE_SIZE - n, "\n");
	mutex_lock(&mc_probe_lock);
	swap(out, file->private_data);
	mutex_unlock(&mc_probe_lock);
	kfree(out);
	err = count;
out:
	path_put(&path);
	return err;
}

static ssize_t mc_policy_probe_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	const char *out;
	ssize_t ret = 0;

	mutex_lock(&mc_probe_lock);
	out = file->private_data;
	if (out)
		ret = simple_read_from_buffer(ubuf, count, ppos, out,
					      strlen(out));
	mutex_unlock(&mc_probe_lock);
	return ret;
}

static int mc_policy_probe_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

const struct file_operations mc_policy_debugfs_fops = {
	.owner		= THIS_MODULE,
	.write		= mc_policy_probe_write,
	.read		= mc_policy_probe_read,
	.release	= mc_policy_probe_release,
	.llseek		= no_llseek,
};

/**
 * mc_ttl_policy() - the policy hook behind mc_ttl()
 * @sbi: the mount
 * @dentry: the name (see mc_policy_ttl()), or NULL: the mount's value and
 *	    its switched-off caches only, no rule walk (for callers that hold
 *	    a d_lock, where rename_lock must not be read)
 * @cache: an enum mc_cache (the same numbers as enum metacache_cache)
 * @mount_value: the mount's ttl for @cache
 *
 * Context: any, RCU-walk included; with a @dentry, no d_lock held.
 * Return: the ttl in force, in seconds, 0 for "do not cache".
 */
u32 mc_ttl_policy(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  int cache, u32 mount_value)
{
	BUILD_BUG_ON((int)MC_CACHE_ENTRY != (int)METACACHE_CACHE_ENTRY);
	BUILD_BUG_ON((int)MC_CACHE_NEG != (int)METACACHE_CACHE_NEG);
	BUILD_BUG_ON((int)MC_CACHE_ATTR != (int)METACACHE_CACHE_ATTR);
	BUILD_BUG_ON((int)MC_CACHE_DIR != (int)METACACHE_CACHE_DIR);
	BUILD_BUG_ON((int)MC_CACHE_HANDLE != (int)METACACHE_CACHE_HANDLE);

	if (!dentry)
		return mc_disabled(sbi) & BIT(cache) ? 0 : mount_value;
	return mc_policy_ttl(sbi, dentry, cache, mount_value);
}
