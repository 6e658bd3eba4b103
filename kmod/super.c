// SPDX-License-Identifier: GPL-2.0
/*
 * super.c - mounting: the fs_context, mount options, the super block and
 * the registry of live mounts.
 *
 *	mount -t metacache [-o option=value,...] LOWERDIR MOUNTPOINT
 *
 * Options (all always shown in /proc/mounts, last one given wins):
 *	entry_ttl, neg_ttl, attr_ttl, dir_ttl, close_ttl	0..31536000 s
 *	max_entries, max_neg, max_handles			0..16777216
 * They can be changed with "mount -o remount,attr_ttl=9 MOUNTPOINT"; the
 * lower directory cannot.  What they mean: Documentation/coherence.md.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/string.h>

#include "metacache.h"
#include "ctl.h"

/*
 * Live mounts, for the control plane.  A mount is added at the end of
 * mc_fill_super() and removed at the start of mc_kill_sb(), before its
 * super block is torn down: an entry found under mc_mounts_lock is a fully
 * set up mount whose mc_sb_info stays valid while the lock is held.
 */
LIST_HEAD(mc_mounts);
DEFINE_MUTEX(mc_mounts_lock);		/* protects mc_mounts */

/*
 * Mount ids, >= 1.  The IDA has its own lock.  Handed out in turn, not
 * lowest free first, so that an id is not reused as soon as its mount
 * goes: a netlink dump spread over several calls, which finds its mount
 * again by id, or a script holding an id, would otherwise carry on with
 * the next mount as if it were the same.  mc_mount_id_next is a hint: two
 * mounts racing for it still get distinct ids from the IDA.
 */
static DEFINE_IDA(mc_mount_ida);
static atomic_t mc_mount_id_next = ATOMIC_INIT(1);

static int mc_mount_id_alloc(void)
{
	int next = atomic_read(&mc_mount_id_next), id;

	id = ida_alloc_range(&mc_mount_ida, next > 0 ? next : 1, INT_MAX,
			     GFP_KERNEL);
	if (id == -ENOSPC)	/* wrapped: from the start again */
		id = ida_alloc_min(&mc_mount_ida, 1, GFP_KERNEL);
	if (id > 0)
		atomic_set(&mc_mount_id_next, id < INT_MAX ? id + 1 : 1);
	return id;
}

/* Tunables */

/**
 * mc_tunables_load() - snapshot the tunables of a mount
 * @sbi: the mount
 * @tun: where to copy them
 *
 * Each field is read once; fields changed concurrently may come from
 * before or after the change.
 */
void mc_tunables_load(const struct mc_sb_info *sbi, struct mc_tunables *tun)
{
	tun->entry_ttl = mc_entry_ttl(sbi);
	tun->neg_ttl = mc_neg_ttl(sbi);
	tun->attr_ttl = mc_attr_ttl(sbi);
	tun->dir_ttl = mc_dir_ttl(sbi);
	tun->close_ttl = mc_close_ttl(sbi);
	tun->max_entries = mc_max_entries(sbi);
	tun->max_neg = mc_max_neg(sbi);
	tun->max_handles = mc_max_handles(sbi);
	tun->disabled = mc_disabled(sbi);
}

/**
 * mc_tunables_store() - change the tunables of a live mount
 * @sbi: the mount
 * @tun: the new values, already validated
 *
 * Lockless (WRITE_ONCE() per field), for remount and the control plane.
 */
void mc_tunables_store(struct mc_sb_info *sbi, const struct mc_tunables *tun)
{
	WRITE_ONCE(sbi->tun.entry_ttl, tun->entry_ttl);
	WRITE_ONCE(sbi->tun.neg_ttl, tun->neg_ttl);
	WRITE_ONCE(sbi->tun.attr_ttl, tun->attr_ttl);
	WRITE_ONCE(sbi->tun.dir_ttl, tun->dir_ttl);
	WRITE_ONCE(sbi->tun.close_ttl, tun->close_ttl);
	WRITE_ONCE(sbi->tun.max_entries, tun->max_entries);
	WRITE_ONCE(sbi->tun.max_neg, tun->max_neg);
	WRITE_ONCE(sbi->tun.max_handles, tun->max_handles);
	WRITE_ONCE(sbi->tun.disabled, tun->disabled);
}

/* Mount options */

enum {
	MC_OPT_ENTRY_TTL,
	MC_OPT_NEG_TTL,
	MC_OPT_ATTR_TTL,
	MC_OPT_DIR_TTL,
	MC_OPT_CLOSE_TTL,
	MC_OPT_MAX_ENTRIES,
	MC_OPT_MAX_NEG,
	MC_OPT_MAX_HANDLES,
};

static const u32 mc_ttl_max = MC_TTL_MAX;
static const u32 mc_limit_max = MC_LIMIT_MAX;

/*
 * fs_parser type: a decimal u32 in 0..*p->data.  Our own, rather than
 * fs_param_is_u32, so that every refusal (no value, empty, negative,
 * not a number, too large) names the option and its range.
 */
static int mc_param_is_bounded_u32(struct p_log *log,
				   const struct fs_parameter_spec *p,
				   struct fs_parameter *param,
				   struct fs_parse_result *result)
{
	u32 max = *(const u32 *)p->data;
	unsigned int val;
	int err;

	if (param->type != fs_value_is_string || !*param->string)
		return inval_plog(log, "%s: missing value, expected 0..%u",
				  param->key, max);
	err = kstrtouint(param->string, 10, &val);
	if (err == -ERANGE || (!err && val > max))
		return inval_plog(log, "%s: %s is out of range 0..%u",
				  param->key, param->string, max);
	if (err)
		return inval_plog(log, "%s: '%s' is not a number in 0..%u",
				  param->key, param->string, max);
	result->uint_32 = val;
	return 0;
}

#define mc_fsparam_u32(NAME, OPT, MAX) \
	__fsparam(mc_param_is_bounded_u32, NAME, OPT, 0, &(MAX))

static const struct fs_parameter_spec mc_param_specs[] = {
	mc_fsparam_u32("entry_ttl", MC_OPT_ENTRY_TTL, mc_ttl_max),
	mc_fsparam_u32("neg_ttl", MC_OPT_NEG_TTL, mc_ttl_max),
	mc_fsparam_u32("attr_ttl", MC_OPT_ATTR_TTL, mc_ttl_max),
	mc_fsparam_u32("dir_ttl", MC_OPT_DIR_TTL, mc_ttl_max),
	mc_fsparam_u32("close_ttl", MC_OPT_CLOSE_TTL, mc_ttl_max),
	mc_fsparam_u32("max_entries", MC_OPT_MAX_ENTRIES, mc_limit_max),
	mc_fsparam_u32("max_neg", MC_OPT_MAX_NEG, mc_limit_max),
	mc_fsparam_u32("max_handles", MC_OPT_MAX_HANDLES, mc_limit_max),
	{}
};

/* fc->fs_private: the options being parsed for a mount or a remount. */
struct mc_fs_context {
	struct mc_tunables tun;
	u32 given;		/* BIT(MC_OPT_*) of the options given */
};

static int mc_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct mc_fs_context *ctx = fc->fs_private;
	struct mc_tunables *tun = &ctx->tun;
	struct fs_parse_result result;
	int opt;

	/*
	 * -ENOPARAM lets the VFS handle "source" and refuse anything else
	 * with "Unknown parameter".
	 */
	opt = fs_parse(fc, mc_param_specs, param, &result);
	if (opt < 0)
		return opt;
	ctx->given |= BIT(opt);

	switch (opt) {
	case MC_OPT_ENTRY_TTL:
		tun->entry_ttl = result.uint_32;
		break;
	case MC_OPT_NEG_TTL:
		tun->neg_ttl = result.uint_32;
		break;
	case MC_OPT_ATTR_TTL:
		tun->attr_ttl = result.uint_32;
		break;
	case MC_OPT_DIR_TTL:
		tun->dir_ttl = result.uint_32;
		break;
	case MC_OPT_CLOSE_TTL:
		tun->close_ttl = result.uint_32;
		break;
	case MC_OPT_MAX_ENTRIES:
		tun->max_entries = result.uint_32;
		break;
	case MC_OPT_MAX_NEG:
		tun->max_neg = result.uint_32;
		break;
	case MC_OPT_MAX_HANDLES:
		tun->max_handles = result.uint_32;
		break;
	}
	return 0;
}

static int mc_show_options(struct seq_file *m, struct dentry *root)
{
	struct mc_tunables tun;

	mc_tunables_load(MC_SB(root->d_sb), &tun);
	seq_printf(m, ",entry_ttl=%u,neg_ttl=%u,attr_ttl=%u,dir_ttl=%u,close_ttl=%u",
		   tun.entry_ttl, tun.neg_ttl, tun.attr_ttl, tun.dir_ttl,
		   tun.close_ttl);
	seq_printf(m, ",max_entries=%u,max_neg=%u,max_handles=%u",
		   tun.max_entries, tun.max_neg, tun.max_handles);
	return 0;
}

/* Super block */

static struct inode *mc_alloc_inode(struct super_block *sb)
{
	struct mc_inode_info *mi;

	mi = alloc_inode_sb(sb, mc_inode_cachep, GFP_KERNEL);
	if (!mi)
		return NULL;
	mi->lower = NULL;
	INIT_LIST_HEAD(&mi->handles);
	mi->handles_forbidden = 0;
	mc_inode_cache_init(mi);
	return &mi->vfs_inode;
}

/* Called after an RCU grace period. */
static void mc_free_inode(struct inode *inode)
{
	mc_inode_cache_free(inode);
	kmem_cache_free(mc_inode_cachep, MC_I(inode));
}

static int mc_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	int err;

	err = mc_lower_statfs(MC_SB(dentry->d_sb), buf);
	if (!err)
		buf->f_type = METACACHE_SUPER_MAGIC;
	return err;
}

/*
 * syncfs(2) on us syncs the lower file system, where all our data is.
 * sync(2) skips us (SB_I_SKIP_SYNC): it syncs the lower one itself.
 *
 * Not at unmount (generic_shutdown_super() syncs us): we hold no data of
 * our own, what was written through us is the lower's, in the lower's
 * page cache, and the lower's own writeback and unmount write it.  Found
 * by tests/reliability/serverfault: with the cifs server down, syncing the
 * lower waited forever on its writeback, so metacache could not be
 * unmounted until the server came back.
 */
static int mc_sync_fs(struct super_block *sb, int wait)
{
	struct mc_sb_info *sbi = MC_SB(sb);

	if (!wait || READ_ONCE(sbi->dying))
		return 0;
	return mc_lower_syncfs(sbi);
}

/*
 * No ->put_super: all teardown is in mc_kill_sb(), which also runs when
 * mc_fill_super() fails half way.
 */
static const struct super_operations mc_sops = {
	.alloc_inode	= mc_alloc_inode,
	.free_inode	= mc_free_inode,
	.evict_inode	= mc_evict_inode,
	.drop_inode	= generic_delete_inode,
	.statfs		= mc_statfs,
	.sync_fs	= mc_sync_fs,
	.show_options	= mc_show_options,
};

/* Undo mc_fill_super(), for whatever part of it was done. */
static void mc_free_sbi(struct mc_sb_info *sbi)
{
	if (sbi->lower_path.dentry)
		path_put(&sbi->lower_path);
	mc_stats_free(sbi);
	mc_ctl_free(sbi);
	if (sbi->id)
		ida_free(&mc_mount_ida, sbi->id);
	kfree(sbi);
}

/*
 * Does the lower list each local user what that user may see?  A cifs
 * mount with "multiuser" sends each user's requests with the user's own
 * credentials, and a server with access-based enumeration (Windows ABE,
 * Samba "hide unreadable") lists to each only what it lets him read: one
 * user's listing must answer neither another's readdir nor, by its
 * absences, his lookups.  Nor may what the server told one user about a
 * name or a file (it exists, its attributes, a symlink's target) answer
 * another, whom the server may refuse (mc_for_user()).  cifs exports no
 * way to ask but its mount options, which its ->show_options() writes
 * into a seq_file (buffer operations only, nothing else of the seq_file
 * is used).  If they cannot be read whole, assume it does.
 */
static bool mc_lower_per_user(const struct path *lower)
{
	struct super_block *lsb = lower->dentry->d_sb;
	struct seq_file m = { .size = PAGE_SIZE };
	bool per_user = true;

	if (lsb->s_magic != CIFS_SUPER_MAGIC && lsb->s_magic != SMB2_SUPER_MAGIC)
		return false;
	if (!lsb->s_op->show_options)
		return true;
	m.buf = kmalloc(m.size, GFP_KERNEL);
	if (!m.buf)
		return true;
	if (!lsb->s_op->show_options(&m, lower->mnt->mnt_root) &&
	    m.count < m.size) {
		m.buf[m.count] = '\0';
		per_user = strstr(m.buf, ",multiuser") != NULL;
	}
	kfree(m.buf);
	return per_user;
}

static int mc_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct mc_fs_context *ctx = fc->fs_private;
	struct super_block *lower_sb;
	struct mc_sb_info *sbi;
	struct dentry *lower;
	struct inode *inode;
	int err;

	if (!fc->source || !*fc->source)
		return invalfc(fc, "missing lower directory");

	/* From here on, mc_kill_sb() undoes whatever fails. */
	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sbi->sb = sb;
	INIT_LIST_HEAD(&sbi->list);
	sbi->tun = ctx->tun;
	mc_fault_init(sbi);
	mc_cache_init(sbi);

	err = mc_stats_alloc(sbi);
	if (err)
		return err;
	/* The id first: the shrinkers are named after it. */
	err = mc_mount_id_alloc();
	if (err < 0)
		return err;
	sbi->id = err;
	err = mc_handles_init(sbi);
	if (err)
		return err;
	err = mc_ctl_alloc(sbi);
	if (err)
		return err;

	err = mc_lower_resolve(fc->source, &sbi->lower_path);
	if (err) {
		if (err == -ENOENT)
			errorfc(fc, "lower directory %s not found", fc->source);
		else if (err == -ENOTDIR)
			errorfc(fc, "lower %s is not a directory", fc->source);
		else
			errorfc(fc, "cannot resolve lower directory %s: error %d",
				fc->source, err);
		return err;
	}

	lower_sb = sbi->lower_path.dentry->d_sb;
	if (lower_sb->s_type == &mc_fs_type)
		return invalfc(fc, "cannot stack metacache on metacache");
	sb->s_stack_depth = lower_sb->s_stack_depth + 1;
	if (sb->s_stack_depth > FILESYSTEM_MAX_STACK_DEPTH)
		return invalfc(fc, "maximum file system stacking depth exceeded");
	sbi->lower_userns = mnt_user_ns(sbi->lower_path.mnt);
	sbi->per_user_views = mc_lower_per_user(&sbi->lower_path);
	sbi->names_fold = mc_lower_folds_names(sbi->lower_path.dentry);
	sbi->open_reval = lower_sb->s_magic == NFS_SUPER_MAGIC &&
			  !d_inode(sbi->lower_path.dentry)->i_op->atomic_open;
	if (sbi->per_user_views)
		pr_info("%s: the lower answers each user with his own credentials (cifs multiuser): no listing is cached, and what is cached serves only the user who asked\n",
			fc->source);

	sb->s_magic = METACACHE_SUPER_MAGIC;
	sb->s_maxbytes = lower_sb->s_maxbytes;
	sb->s_time_gran = lower_sb->s_time_gran;
	sb->s_time_min = lower_sb->s_time_min;
	sb->s_time_max = lower_sb->s_time_max;
	sb->s_blocksize = lower_sb->s_blocksize;
	sb->s_blocksize_bits = lower_sb->s_blocksize_bits;
	/*
	 * SB_POSIXACL decides who applies the umask to a new object's mode:
	 * the VFS before calling the file system (mode_strip_umask()), or
	 * the file system through posix_acl_create(), after looking for a
	 * default ACL.  We never apply it: our vfs_*() call on the lower
	 * applies the rule for the lower.  Copying the lower's flag makes
	 * the VFS do to us exactly what it does to the lower, so the mode
	 * and default ACLs come out as if the lower had been used directly.
	 */
	sb->s_flags |= lower_sb->s_flags & SB_POSIXACL;
	sb->s_iflags |= SB_I_SKIP_SYNC;
	sb->s_op = &mc_sops;
	sb->s_d_op = &mc_dentry_ops;
	sb->s_xattr = mc_xattr_handlers;

	inode = mc_iget(sb, d_inode(sbi->lower_path.dentry));
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;
	lower = dget(sbi->lower_path.dentry);
	err = mc_dentry_init(sb->s_root, lower);
	if (err) {
		dput(lower);
		return err;
	}

	/* Publish. */
	mc_cache_start(sbi);
	mc_debugfs_mount(sbi);
	mutex_lock(&mc_mounts_lock);
	list_add_tail(&sbi->list, &mc_mounts);
	mutex_unlock(&mc_mounts_lock);
	return 0;
}

static void mc_kill_sb(struct super_block *sb)
{
	struct mc_sb_info *sbi = MC_SB(sb);

	/*
	 * Unpublish first: nobody may find a mount being torn down.  Then
	 * stop what frees our dentries (expiry, shrinker, eviction).
	 */
	if (sbi) {
		mutex_lock(&mc_mounts_lock);
		list_del_init(&sbi->list);
		mutex_unlock(&mc_mounts_lock);
		mc_debugfs_umount(sbi);
		mc_fault_exit(sbi);
		/* No lower file of ours may keep the lower mount busy. */
		mc_handles_stop(sbi);
		mc_cache_stop(sbi);
	}
	/* Drops all dentries and inodes, hence all lower references... */
	kill_anon_super(sb);
	if (sbi) {
		/*
		 * An RCU path walk holds no reference: one that entered the
		 * mount before its last mntput() (from a file of a lazily
		 * unmounted mount, say) may still be in our ->d_revalidate or
		 * ->permission on an inode (freed only after a grace period),
		 * reading the tunables and writing the identity hint of @sbi.
		 * Let every such walk end before @sbi goes.
		 */
		synchronize_rcu();
		/* The lower dentries ->d_delete handed to deferred puts. */
		mc_cache_destroy(sbi);
		mc_free_sbi(sbi);
	}
}

/* fs_context */

static int mc_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, mc_fill_super);
}

/*
 * A remount changes only the options it was given, on the mount's values
 * of now: a MOUNT_SET of the control plane (another tunable, or a cache
 * switched off) between the remount's start and this is kept.  Under
 * mc_ctl::lock, as MOUNT_SET's load-modify-store (lock order: s_umount,
 * then mc_ctl::lock).
 */
static int mc_reconfigure(struct fs_context *fc)
{
	struct mc_sb_info *sbi = MC_SB(fc->root->d_sb);
	struct mc_fs_context *ctx = fc->fs_private;
	const struct mc_tunables *opt = &ctx->tun;
	struct mc_tunables tun;

	if (fc->source)
		return invalfc(fc, "the lower directory cannot be changed");
	mutex_lock(&sbi->ctl->lock);
	mc_tunables_load(sbi, &tun);
	if (ctx->given & BIT(MC_OPT_ENTRY_TTL))
		tun.entry_ttl = opt->entry_ttl;
	if (ctx->given & BIT(MC_OPT_NEG_TTL))
		tun.neg_ttl = opt->neg_ttl;
	if (ctx->given & BIT(MC_OPT_ATTR_TTL))
		tun.attr_ttl = opt->attr_ttl;
	if (ctx->given & BIT(MC_OPT_DIR_TTL))
		tun.dir_ttl = opt->dir_ttl;
	if (ctx->given & BIT(MC_OPT_CLOSE_TTL))
		tun.close_ttl = opt->close_ttl;
	if (ctx->given & BIT(MC_OPT_MAX_ENTRIES))
		tun.max_entries = opt->max_entries;
	if (ctx->given & BIT(MC_OPT_MAX_NEG))
		tun.max_neg = opt->max_neg;
	if (ctx->given & BIT(MC_OPT_MAX_HANDLES))
		tun.max_handles = opt->max_handles;
	mc_tunables_store(sbi, &tun);
	mutex_unlock(&sbi->ctl->lock);
	/* Lower limits and TTLs take effect at once. */
	mc_cache_apply_limits(sbi);
	return 0;
}

static void mc_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations mc_context_ops = {
	.parse_param	= mc_parse_param,
	.get_tree	= mc_get_tree,
	.reconfigure	= mc_reconfigure,
	.free		= mc_free_fc,
};

/*
 * A remount changes only the options given (mc_reconfigure()); a new
 * mount starts from the module-wide defaults (which the control plane can
 * change, see ctl.c).
 */
static int mc_init_fs_context(struct fs_context *fc)
{
	struct mc_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	if (fc->purpose != FS_CONTEXT_FOR_RECONFIGURE)
		mc_defaults_load(&ctx->tun);
	fc->fs_private = ctx;
	fc->ops = &mc_context_ops;
	return 0;
}

struct file_system_type mc_fs_type = {
	.owner			= THIS_MODULE,
	.name			= METACACHE_NAME,
	.init_fs_context	= mc_init_fs_context,
	.parameters		= mc_param_specs,
	.kill_sb		= mc_kill_sb,
};
