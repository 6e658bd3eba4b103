// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module load and unload.
 *
 * metacache is a stackable file system mounted on a directory of another
 * file system, normally a cifs or nfs mount:
 *
 *	mount -t metacache /mnt/share /mnt/fast
 *
 * Every operation goes to the lower file system through lower.c, with the
 * caller's credentials, unless one of the caches (cache.c, dir.c,
 * handle.c) can answer it; Documentation/design.md tells the whole story.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "metacache.h"
#include "ctl.h"
#include "gen.h"

struct kmem_cache *mc_inode_cachep;	/* struct mc_inode_info */
struct kmem_cache *mc_dentry_cachep;	/* struct mc_dentry */

static void mc_inode_init_once(void *obj)
{
	struct mc_inode_info *mi = obj;

	inode_init_once(&mi->vfs_inode);
}

/*
 * What a cached object costs beyond the upper dentry and inode the kernel
 * keeps anyway: our per-dentry and per-inode parts.  Issue 4 aimed at
 * under 300 bytes; Documentation/design.md ("Memory") accounts for them.
 * A field added to either must find its room, or change the budget here
 * and there on purpose.  Checked where the sizes are a production
 * kernel's: lock debugging (the test bed's debug kernel) makes every
 * spinlock larger.
 */
#define MC_OBJECT_BUDGET	300
#if IS_ENABLED(CONFIG_LOCKDEP) || IS_ENABLED(CONFIG_DEBUG_SPINLOCK) || \
	IS_ENABLED(CONFIG_PREEMPT_RT)
#define MC_CHECK_BUDGET		0
#else
#define MC_CHECK_BUDGET		1
#endif

/* mc_init() and mc_exit() mirror each other, step by step. */
static int __init mc_init(void)
{
	int err = -ENOMEM;

	BUILD_BUG_ON(MC_CHECK_BUDGET &&
		     sizeof(struct mc_dentry) +
		     offsetof(struct mc_inode_info, vfs_inode) >=
		     MC_OBJECT_BUDGET);
	BUILD_BUG_ON(offsetofend(struct mc_inode_info, vfs_inode) !=
		     sizeof(struct mc_inode_info));
	mc_inode_cachep = kmem_cache_create("metacache_inode",
					    sizeof(struct mc_inode_info), 0,
					    SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					    mc_inode_init_once);
	if (!mc_inode_cachep)
		goto out;
	mc_dentry_cachep = KMEM_CACHE(mc_dentry, SLAB_RECLAIM_ACCOUNT);
	if (!mc_dentry_cachep)
		goto out_inode_cache;
	err = mc_handle_cache_init();
	if (err)
		goto out_dentry_cache;
	mc_debugfs_init();	/* best effort */
	err = mc_gen_init();
	if (err)
		goto out_debugfs;
	/* Before the file system: nothing can be mounted if this fails. */
	err = mc_netlink_init();
	if (err)
		goto out_gen;
	err = register_filesystem(&mc_fs_type);
	if (err)
		goto out_netlink;

	pr_info("loaded, version %s\n", METACACHE_VERSION);
	return 0;

out_netlink:
	mc_netlink_exit();
out_gen:
	mc_gen_exit();
out_debugfs:
	mc_debugfs_exit();
	mc_handle_cache_exit();
out_dentry_cache:
	kmem_cache_destroy(mc_dentry_cachep);
out_inode_cache:
	kmem_cache_destroy(mc_inode_cachep);
out:
	return err;
}

/*
 * Cannot run while mounted: every super block holds a reference to the
 * module (mc_fs_type.owner).
 */
static void __exit mc_exit(void)
{
	unregister_filesystem(&mc_fs_type);
	mc_netlink_exit();
	mc_gen_exit();		/* stops the generator's jobs, waits for them */
	mc_debugfs_exit();
	/*
	 * Wait for the RCU frees of dentry info (call_rcu) and inodes, then
	 * for the identities the inodes' callbacks put (lower.c).
	 */
	rcu_barrier();
	rcu_barrier();
	mc_handle_cache_exit();
	kmem_cache_destroy(mc_dentry_cachep);
	kmem_cache_destroy(mc_inode_cachep);
	pr_info("unloaded\n");
}

module_init(mc_init);
module_exit(mc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("metacache: stackable pass-through file system for network file systems");
MODULE_AUTHOR("metacache developers");
MODULE_VERSION(METACACHE_VERSION);
MODULE_ALIAS_FS("metacache");
