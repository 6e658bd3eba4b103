// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - control plane state: per mount (struct mc_ctl) and module-wide
 * (the defaults given to new mounts), and the mapping between the
 * protocol's tunable attributes and struct mc_tunables.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/build_bug.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include "metacache.h"
#include "ctl.h"

/* The module's constants and the protocol's must agree. */
#define MC_SAME(a, b)	static_assert((int)(a) == (int)(b))
MC_SAME(MC_TTL_MAX, METACACHE_TTL_MAX);
MC_SAME(MC_LIMIT_MAX, METACACHE_LIMIT_MAX);
MC_SAME(MC_OP_NR, __METACACHE_OP_MAX);
MC_SAME(MC_OP_LOOKUP, METACACHE_OP_LOOKUP);
MC_SAME(MC_OP_REVALIDATE, METACACHE_OP_REVALIDATE);
MC_SAME(MC_OP_GETATTR, METACACHE_OP_GETATTR);
MC_SAME(MC_OP_SETATTR, METACACHE_OP_SETATTR);
MC_SAME(MC_OP_PERMISSION, METACACHE_OP_PERMISSION);
MC_SAME(MC_OP_CREATE, METACACHE_OP_CREATE);
MC_SAME(MC_OP_MKDIR, METACACHE_OP_MKDIR);
MC_SAME(MC_OP_MKNOD, METACACHE_OP_MKNOD);
MC_SAME(MC_OP_SYMLINK, METACACHE_OP_SYMLINK);
MC_SAME(MC_OP_LINK, METACACHE_OP_LINK);
MC_SAME(MC_OP_UNLINK, METACACHE_OP_UNLINK);
MC_SAME(MC_OP_RMDIR, METACACHE_OP_RMDIR);
MC_SAME(MC_OP_RENAME, METACACHE_OP_RENAME);
MC_SAME(MC_OP_OPEN, METACACHE_OP_OPEN);
MC_SAME(MC_OP_RELEASE, METACACHE_OP_RELEASE);
MC_SAME(MC_OP_READ, METACACHE_OP_READ);
MC_SAME(MC_OP_WRITE, METACACHE_OP_WRITE);
MC_SAME(MC_OP_READDIR, METACACHE_OP_READDIR);
MC_SAME(MC_OP_FSYNC, METACACHE_OP_FSYNC);
MC_SAME(MC_OP_XATTR, METACACHE_OP_XATTR);
MC_SAME(MC_OP_LOCK, METACACHE_OP_LOCK);
MC_SAME(MC_OP_IOCTL, METACACHE_OP_IOCTL);
MC_SAME(MC_OP_STATFS, METACACHE_OP_STATFS);
MC_SAME(MC_OP_OTHER, METACACHE_OP_OTHER);
MC_SAME(MC_DEFAULT_ENTRY_TTL, METACACHE_DEFAULT_ENTRY_TTL);
MC_SAME(MC_DEFAULT_NEG_TTL, METACACHE_DEFAULT_NEG_TTL);
MC_SAME(MC_DEFAULT_ATTR_TTL, METACACHE_DEFAULT_ATTR_TTL);
MC_SAME(MC_DEFAULT_DIR_TTL, METACACHE_DEFAULT_DIR_TTL);
MC_SAME(MC_DEFAULT_CLOSE_TTL, METACACHE_DEFAULT_CLOSE_TTL);
MC_SAME(MC_DEFAULT_MAX_ENTRIES, METACACHE_DEFAULT_MAX_ENTRIES);
MC_SAME(MC_DEFAULT_MAX_NEG, METACACHE_DEFAULT_MAX_NEG);
MC_SAME(MC_DEFAULT_MAX_HANDLES, METACACHE_DEFAULT_MAX_HANDLES);
MC_SAME(METACACHE_HIST_NBUCKETS, 126);

/* Tunables and their attributes */

/* Where each METACACHE_A_TUN_* u32 lives in struct mc_tunables. */
static const size_t mc_tun_offset[METACACHE_A_TUN_MAX + 1] = {
	[METACACHE_A_TUN_ENTRY_TTL]	= offsetof(struct mc_tunables, entry_ttl),
	[METACACHE_A_TUN_NEG_TTL]	= offsetof(struct mc_tunables, neg_ttl),
	[METACACHE_A_TUN_ATTR_TTL]	= offsetof(struct mc_tunables, attr_ttl),
	[METACACHE_A_TUN_DIR_TTL]	= offsetof(struct mc_tunables, dir_ttl),
	[METACACHE_A_TUN_CLOSE_TTL]	= offsetof(struct mc_tunables, close_ttl),
	[METACACHE_A_TUN_MAX_ENTRIES]	= offsetof(struct mc_tunables, max_entries),
	[METACACHE_A_TUN_MAX_NEG]	= offsetof(struct mc_tunables, max_neg),
	[METACACHE_A_TUN_MAX_HANDLES]	= offsetof(struct mc_tunables, max_handles),
	[METACACHE_A_TUN_DISABLED]	= offsetof(struct mc_tunables, disabled),
};

static bool mc_tun_attr_valid(int attr)
{
	return attr >= METACACHE_A_TUN_ENTRY_TTL && attr <= METACACHE_A_TUN_MAX;
}

/**
 * mc_tun_value() - one tunable by its attribute type
 * @tun: the tunables
 * @attr: METACACHE_A_TUN_ENTRY_TTL ... METACACHE_A_TUN_DISABLED (the
 *	disabled mask)
 *
 * Return: the value, 0 for an attribute that is no tunable.
 */
u32 mc_tun_value(const struct mc_tunables *tun, int attr)
{
	if (WARN_ON_ONCE(!mc_tun_attr_valid(attr)))
		return 0;
	return *(const u32 *)((const char *)tun + mc_tun_offset[attr]);
}

/**
 * mc_tun_set_value() - set one tunable by its attribute type
 * @tun: the tunables, not those of a live mount (use mc_tunables_store())
 * @attr: as for mc_tun_value()
 * @value: the new value, already validated
 */
void mc_tun_set_value(struct mc_tunables *tun, int attr, u32 value)
{
	if (WARN_ON_ONCE(!mc_tun_attr_valid(attr)))
		return;
	*(u32 *)((char *)tun + mc_tun_offset[attr]) = value;
}

/**
 * mc_cache_ttl_attr() - the tunable holding the time to live of a cache
 * @cache: the cache
 *
 * Return: METACACHE_A_TUN_*_TTL (close_ttl for the handle cache).
 */
int mc_cache_ttl_attr(enum metacache_cache cache)
{
	static const u8 attr[] = {
		[METACACHE_CACHE_ENTRY]		= METACACHE_A_TUN_ENTRY_TTL,
		[METACACHE_CACHE_NEG]		= METACACHE_A_TUN_NEG_TTL,
		[METACACHE_CACHE_ATTR]		= METACACHE_A_TUN_ATTR_TTL,
		[METACACHE_CACHE_DIR]		= METACACHE_A_TUN_DIR_TTL,
		[METACACHE_CACHE_HANDLE]	= METACACHE_A_TUN_CLOSE_TTL,
	};

	BUILD_BUG_ON(ARRAY_SIZE(attr) != __METACACHE_CACHE_MAX);
	return attr[cache];
}

/* Module-wide defaults */

/*
 * The tunables of new mounts (mount options override them).  Protected by
 * mc_defaults_lock: DEFAULTS_SET changes a subset all at once, and a mount
 * made meanwhile gets either all the old values or all the new ones.
 */
DEFINE_MUTEX(mc_defaults_lock);
static struct mc_tunables mc_defaults = {
	.entry_ttl	= MC_DEFAULT_ENTRY_TTL,
	.neg_ttl	= MC_DEFAULT_NEG_TTL,
	.attr_ttl	= MC_DEFAULT_ATTR_TTL,
	.dir_ttl	= MC_DEFAULT_DIR_TTL,
	.close_ttl	= MC_DEFAULT_CLOSE_TTL,
	.max_entries	= MC_DEFAULT_MAX_ENTRIES,
	.max_neg	= MC_DEFAULT_MAX_NEG,
	.max_handles	= MC_DEFAULT_MAX_HANDLES,
};

/**
 * mc_defaults_load() - the defaults for a new mount
 * @tun: filled with a consistent copy
 *
 * Context: process context, may sleep; takes mc_defaults_lock.
 */
void mc_defaults_load(struct mc_tunables *tun)
{
	mutex_lock(&mc_defaults_lock);
	*tun = mc_defaults;
	mutex_unlock(&mc_defaults_lock);
}

/**
 * mc_defaults_load_locked() - the defaults, for a read-modify-write
 * @tun: filled with the current values
 *
 * Context: mc_defaults_lock held.
 */
void mc_defaults_load_locked(struct mc_tunables *tun)
{
	lockdep_assert_held(&mc_defaults_lock);
	*tun = mc_defaults;
}

/**
 * mc_defaults_store() - replace the defaults for new mounts
 * @tun: the new values, validated
 *
 * Context: mc_defaults_lock held (the caller read, changed and now
 * writes back the values).
 */
void mc_defaults_store(const struct mc_tunables *tun)
{
	lockdep_assert_held(&mc_defaults_lock);
	mc_defaults = *tun;
}

/* Per-mount state */

/**
 * mc_ctl_alloc() - set up the control plane state of a new mount
 * @sbi: the mount being filled, not yet published
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.  On failure mc_ctl_free() still has to be called
 * (mc_fill_super() failures end in mc_kill_sb()).
 */
int mc_ctl_alloc(struct mc_sb_info *sbi)
{
	struct mc_ctl *ctl;

	ctl = kzalloc(sizeof(*ctl), GFP_KERNEL);
	if (!ctl)
		return -ENOMEM;
	mutex_init(&ctl->lock);
	INIT_LIST_HEAD(&ctl->rules);
	RCU_INIT_POINTER(ctl->table, NULL);
	ctl->stats_since = ktime_get_ns();
	sbi->ctl = ctl;
	return mc_hist_alloc(ctl);
}

/**
 * mc_ctl_free() - release the control plane state of a mount
 * @sbi: the mount, no longer published and with no operation in flight
 *	(its super block is shut down, or was never set up)
 *
 * Nobody can look at the rules any more: the file system has no
 * operation in flight and the control plane only reaches a mount through
 * mc_mounts while holding an active reference.
 */
void mc_ctl_free(struct mc_sb_info *sbi)
{
	struct mc_ctl *ctl = sbi->ctl;

	if (!ctl)
		return;
	mc_policy_free_all(ctl);
	mc_hist_free(ctl);
	mutex_destroy(&ctl->lock);
	kfree(ctl);
	sbi->ctl = NULL;
}
