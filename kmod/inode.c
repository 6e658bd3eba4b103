// SPDX-License-Identifier: GPL-2.0
/*
 * inode.c - upper inodes: mapping to lower inodes, attribute refresh and the
 * inode operations (namespace operations included).
 *
 * Every operation runs with the caller's credentials: permission checks are
 * the lower file system's, for the real user.  Namespace operations follow
 * one pattern:
 *
 *	mc_lower_want_write()		freeze protection first
 *	mc_lock_child()			lock the lower parent, find the child
 *	mc_lower_<op>()			the vfs_<op>() call, through lower.c
 *	mc_copy_attr()			refresh what changed
 *	unlock, mc_lower_drop_write()
 *
 * The VFS holds the upper parent (and victim) locks; we take the lower ones.
 * The lower dentries are borrowed (mc_dentry_lower()): stable under the
 * upper parent lock, and taking no extra reference keeps NFS from
 * silly-renaming an unlinked file that only we were holding.  Our lookup
 * ran without the lower parent lock, so mc_get_child() checks, under it,
 * that the lower child still is what the upper dentry says; it also finds
 * the lower child of a detached upper dentry (namei.c).
 *
 * Caches: a successful operation leaves the caches as fresh as the lower:
 * new names get a positive entry (mc_instantiate()), removed ones a
 * negative entry, the renamed dentry a positive one; the attributes of
 * every inode involved and the listing and attributes of every directory
 * involved are dropped (mc_attr_invalidate(), mc_dir_changed()): the next
 * stat asks the lower, which knows the new times and link counts.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/fiemap.h>
#include <linux/fileattr.h>
#include <linux/fs_stack.h>
#include <linux/mm.h>
#include <linux/mnt_idmapping.h>
#include <linux/namei.h>

#include "metacache.h"

/* Inode flags that describe the object itself and follow the lower inode. */
#define MC_COPY_I_FLAGS	(S_SYNC | S_APPEND | S_IMMUTABLE | S_DIRSYNC)

/*
 * set_nlink() keeps sb->s_remove_count in step with 0 <-> n transitions of
 * i_nlink and is not atomic: serialize concurrent refreshes with i_lock so
 * the count stays balanced (__destroy_inode() checks it).
 */
static void mc_copy_nlink(struct inode *inode, unsigned int nlink)
{
	if (inode->i_nlink == nlink)
		return;
	spin_lock(&inode->i_lock);
	if (inode->i_nlink != nlink)
		set_nlink(inode, nlink);
	spin_unlock(&inode->i_lock);
}

/**
 * mc_copy_attr() - refresh an upper inode from its lower inode
 * @inode: the upper inode
 *
 * The single place that copies attributes up; called at iget and after
 * every operation that may change them.  Like fsstack_copy_attr_all(), but
 * it applies the lower mount's idmapping to the owner (as overlayfs'
 * ovl_copyattr()) and copies only the i_flags that describe the object:
 * the others (S_AUTOMOUNT, S_DAX, S_PRIVATE, S_NOSEC, ...) describe the
 * lower inode's relation to its own file system.  S_NOATIME is always set:
 * the lower file system keeps its own atime when we read through it.
 *
 * No lock but for i_nlink: each field is copied on its own.  The upper
 * inode is never the authority (getattr returns the lower's stat); a reader
 * racing with a refresh sees the old or the new value of a field.
 */
void mc_copy_attr(struct inode *inode)
{
	struct inode *lower = mc_inode_lower(inode);
	struct user_namespace *userns = MC_SB(inode->i_sb)->lower_userns;

	inode->i_mode = lower->i_mode;
	inode->i_uid = vfsuid_into_kuid(i_uid_into_vfsuid(userns, lower));
	inode->i_gid = vfsgid_into_kgid(i_gid_into_vfsgid(userns, lower));
	inode->i_rdev = lower->i_rdev;
	inode->i_atime = lower->i_atime;
	inode->i_mtime = lower->i_mtime;
	inode->i_ctime = lower->i_ctime;
	inode->i_blkbits = lower->i_blkbits;
	mc_copy_nlink(inode, READ_ONCE(lower->i_nlink));
	inode_set_flags(inode, (lower->i_flags & MC_COPY_I_FLAGS) | S_NOATIME,
			MC_COPY_I_FLAGS | S_NOATIME);
	fsstack_copy_inode_size(inode, lower);
}

static const struct inode_operations mc_dir_iops;
static const struct inode_operations mc_file_iops;
static const struct inode_operations mc_symlink_iops;
static const struct inode_operations mc_special_iops;

static int mc_inode_test(struct inode *inode, void *lower)
{
	return mc_inode_lower(inode) == lower;
}

/* Called under inode_hash_lock: no sleeping. */
static int mc_inode_set(struct inode *inode, void *data)
{
	struct inode *lower = data;

	MC_I(inode)->lower = lower;
	inode->i_ino = lower->i_ino;
	return 0;
}

/**
 * mc_iget() - get the upper inode of a lower inode
 * @sb: our super block
 * @lower: the lower inode; the caller holds a reference to it
 *
 * One upper inode per lower inode: the inode cache is keyed by the lower
 * inode pointer, so hard links share an upper inode.  A new upper inode
 * takes its own reference to @lower, dropped in mc_evict_inode().
 *
 * Context: process context, may sleep.
 * Return: a referenced inode or an ERR_PTR.
 */
struct inode *mc_iget(struct super_block *sb, struct inode *lower)
{
	struct inode *inode;

	if (!igrab(lower))
		return ERR_PTR(-ESTALE);
	inode = iget5_locked(sb, (unsigned long)lower, mc_inode_test,
			     mc_inode_set, lower);
	if (!inode) {
		iput(lower);
		return ERR_PTR(-ENOMEM);
	}
	if (!(inode->i_state & I_NEW)) {
		iput(lower);	/* the inode has its own */
		return inode;
	}

	switch (lower->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &mc_dir_iops;
		inode->i_fop = &mc_dir_fops;
		break;
	case S_IFREG:
		inode->i_op = &mc_file_iops;
		inode->i_fop = &mc_file_fops;
		break;
	case S_IFLNK:
		inode->i_op = &mc_symlink_iops;
		break;
	default:
		/* Devices, fifos, sockets: opened on the upper inode. */
		inode->i_op = &mc_special_iops;
		init_special_inode(inode, lower->i_mode, lower->i_rdev);
		break;
	}
	mc_copy_attr(inode);
	unlock_new_inode(inode);
	return inode;
}

/**
 * mc_evict_inode() - ->evict_inode: drop the lower inode
 * @inode: the upper inode
 *
 * MC_I(inode)->lower keeps its value: an RCU-walk still looking at this
 * inode may read it, and the lower inode's memory is freed after a grace
 * period too.
 */
void mc_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	mc_handles_close(inode, false);
	mc_inode_cache_evict(inode);
	clear_inode(inode);
	iput(mc_inode_lower(inode));
}

/* Attributes */

/*
 * The lower's answers to MAY_READ/MAY_EXEC checks are cached with the
 * attributes (cache.c: one caller identity per inode, attr_ttl): a cached
 * path walk makes no permission call into the lower.  Also in RCU-walk
 * (MAY_NOT_BLOCK): the lower answers -ECHILD when it must block (NFS going
 * to the server), which is not cached.
 */
static int mc_permission(struct user_namespace *mnt_userns,
			 struct inode *inode, int mask)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	u32 gen;
	int err;

	if (mc_perm_get(inode, mask, &err)) {
		mc_served(sbi, MC_OP_PERMISSION, start);
		return err;
	}
	gen = mc_perm_begin(inode);
	err = mc_lower_permission(sbi, READ_ONCE(MC_I(inode)->lower), mask);
	mc_perm_store(inode, mask, err, gen);
	return err;
}

/* Did a refresh of expired attributes find them unchanged? */
static bool mc_attr_unchanged(const struct mc_attr *old,
			      const struct kstat *stat)
{
	return old->ino == stat->ino && old->size == stat->size &&
	       old->blocks == stat->blocks && old->nlink == stat->nlink &&
	       old->mode == stat->mode && uid_eq(old->uid, stat->uid) &&
	       gid_eq(old->gid, stat->gid) &&
	       mc_attr_time_equal(old, MC_MTIME, &stat->mtime) &&
	       mc_attr_time_equal(old, MC_CTIME, &stat->ctime);
}

/*
 * ->getattr: from the attribute cache when it is fresh (AT_STATX_DONT_SYNC:
 * whatever is cached), else from the lower, whose answer is cached unless
 * it was AT_STATX_DONT_SYNC's (that may be older than the lower's own
 * timeout).  AT_STATX_FORCE_SYNC always asks the lower.  The attributes are
 * the lower's but for the device: ours; the inode number is the lower's,
 * as readdir reports it.
 */
static int mc_getattr(struct user_namespace *mnt_userns,
		      const struct path *path, struct kstat *stat,
		      u32 request_mask, unsigned int flags)
{
	u64 start = mc_served_begin();
	struct dentry *dentry = path->dentry;
	struct inode *inode = d_inode(dentry);
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	unsigned int sync = flags & AT_STATX_SYNC_TYPE;
	struct path lower_path;
	struct mc_attr old;
	u32 mask, gen;
	int err;

	if (sync != AT_STATX_FORCE_SYNC &&
	    mc_attr_get(dentry, stat, request_mask,
			sync == AT_STATX_DONT_SYNC, &old)) {
		stat->dev = dentry->d_sb->s_dev;
		mc_count_hit(sbi, MC_CACHE_ATTR);
		mc_served(sbi, MC_OP_GETATTR, start);
		return 0;
	}
	if (sync == AT_STATX_FORCE_SYNC)
		old.result_mask = 0;

	mask = mc_attr_ask(sbi, request_mask);
	gen = mc_attr_gen(inode);
	err = mc_get_lower_obj(dentry, &lower_path);
	if (err)
		return err;
	err = mc_lower_getattr(sbi, &lower_path, stat, mask, flags);
	mc_put_lower_path(&lower_path);
	if (err)
		return err;

	mc_count_miss(sbi, MC_CACHE_ATTR);
	if (old.result_mask) {
		if (mc_attr_unchanged(&old, stat))
			mc_count_renewed(sbi, MC_CACHE_ATTR);
		else
			mc_count_expired(sbi, MC_CACHE_ATTR);
	}
	if (sync != AT_STATX_DONT_SYNC)
		mc_attr_store(dentry, inode, stat, mask, gen);
	mc_attr_answered(sbi, stat, mask, request_mask);
	stat->dev = dentry->d_sb->s_dev;
	mc_copy_attr(inode);
	return 0;
}

static int mc_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		      struct iattr *ia)
{
	struct iattr lower_ia = *ia;
	struct path lower_path;
	int err;

	/*
	 * No kept lower file sees its file truncated.  Other changes leave
	 * them open: closing one right before would make cifs overwrite the
	 * times just set with those of the server's CLOSE reply.
	 */
	if (ia->ia_valid & ATTR_SIZE)
		mc_handles_forbid(d_inode(dentry));
	/* ftruncate(), open(O_TRUNC): NFS finds its open state by the file. */
	if (ia->ia_valid & ATTR_FILE)
		lower_ia.ia_file = mc_file_lower(ia->ia_file);
	/*
	 * notify_change() turned ATTR_KILL_S*ID into an ATTR_MODE computed
	 * from our copy of the mode, and BUG()s when it gets both: let the
	 * lower notify_change() compute the mode from its own inode.
	 */
	if (ia->ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		lower_ia.ia_valid &= ~ATTR_MODE;
	/*
	 * ATTR_OPEN (open(O_TRUNC)) stays: the lower open saw O_TRUNC too,
	 * see MC_OPEN_DROP_FLAGS in file.c.
	 */

	/*
	 * ftruncate(): the open file's own object, also when its name has
	 * gone from the lower since.  fchmod(), fchown(), futimens() give
	 * no file: the object once the name is dropped (mc_get_lower_obj()).
	 */
	if (ia->ia_valid & ATTR_FILE) {
		lower_path = lower_ia.ia_file->f_path;
		path_get(&lower_path);
	} else {
		err = mc_get_lower_obj(dentry, &lower_path);
		if (err)
			goto out;
	}
	err = mc_lower_setattr(MC_SB(dentry->d_sb), lower_path.dentry,
			       &lower_ia);
	mc_put_lower_path(&lower_path);
	/* Also on failure: part of the change may have been made. */
	mc_attr_invalidate(d_inode(dentry));
	mc_perm_invalidate(d_inode(dentry));
	mc_copy_attr(d_inode(dentry));
out:
	if (ia->ia_valid & ATTR_SIZE)
		mc_handles_allow(d_inode(dentry));
	return err;
}

static const char *mc_get_link(struct dentry *dentry, struct inode *inode,
			       struct delayed_call *done)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct path lower_path;
	const char *link;
	int err;

	/* Also in RCU-walk: a path through a cached symlink asks nothing. */
	link = mc_link_get(inode, dentry, done);
	if (link) {
		mc_served(sbi, MC_OP_OTHER, start);
		return link;
	}
	if (!dentry)
		return ERR_PTR(-ECHILD);	/* RCU-walk */
	err = mc_get_lower_path(dentry, &lower_path);
	if (err)
		return ERR_PTR(err);
	/* @done keeps what the link needs; the lower inode is ours anyway. */
	link = mc_lower_get_link(sbi, lower_path.dentry, done);
	mc_put_lower_path(&lower_path);
	if (!IS_ERR(link))
		mc_link_store(inode, dentry, link);
	return link;
}

static int mc_fiemap(struct inode *inode, struct fiemap_extent_info *fieinfo,
		     u64 start, u64 len)
{
	return mc_lower_fiemap(MC_SB(inode->i_sb), mc_inode_lower(inode),
			       fieinfo, start, len);
}

static int mc_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	struct path lower_path;
	int err;

	err = mc_get_lower_obj(dentry, &lower_path);
	if (err)
		return err;
	err = mc_lower_fileattr_get(MC_SB(dentry->d_sb), lower_path.dentry, fa);
	mc_put_lower_path(&lower_path);
	return err;
}

static int mc_fileattr_set(struct user_namespace *mnt_userns,
			   struct dentry *dentry, struct fileattr *fa)
{
	struct path lower_path;
	int err;

	err = mc_get_lower_obj(dentry, &lower_path);
	if (err)
		return err;
	err = mc_lower_fileattr_set(MC_SB(dentry->d_sb), lower_path.dentry, fa);
	mc_put_lower_path(&lower_path);
	mc_attr_invalidate(d_inode(dentry));
	mc_copy_attr(d_inode(dentry));
	return err;
}

/* Namespace operations */

/* What a namespace operation needs of the lower child of an upper dentry. */
enum mc_want {
	MC_WANT_SAME,	/* the object the upper dentry names (victim, source) */
	MC_WANT_NEW,	/* no object: the upper dentry is negative (creation) */
	MC_WANT_TARGET,	/* whatever has the name now (a rename's target) */
};

/*
 * The intent the VFS would look the name up with (mc_lower_lookup_intent()),
 * or 0 for a plain lookup.  A switch, not a table: a new enum value must not
 * index past its end.
 */
static unsigned int mc_want_intent(enum mc_want want)
{
	switch (want) {
	case MC_WANT_NEW:
		return LOOKUP_CREATE | LOOKUP_EXCL;
	case MC_WANT_TARGET:
		return LOOKUP_RENAME_TARGET;
	default:
		return 0;
	}
}

/*
 * struct mc_child - the lower child a namespace operation works on
 * @lower: the lower dentry to pass to the vfs_*() call
 * @ref: a reference of ours to @lower, or NULL when @lower is borrowed from
 *	 the upper dentry (the common case: see mc_unlink() for why we add no
 *	 reference then)
 */
struct mc_child {
	struct dentry *lower;
	struct dentry *ref;
};

/*
 * mc_get_child() - find the lower child for the upper @dentry
 * @lower_dir: the lower parent, locked
 * @dentry: the upper dentry, its parent locked by the VFS
 * @want: what the operation needs
 * @child: result, released with mc_put_child()
 *
 * Our lookup ran without the lower parent lock, so another client or a
 * local user of the lower directory may have moved, removed or created the
 * name since.  If the stored lower dentry is no longer @lower_dir's child
 * with @dentry's name, or no longer the object @dentry says (existing iff
 * @dentry is positive, the same inode), look the name up again now that
 * nothing can change it and go on with that if it fits @want:
 *  - the object is gone: -ENOENT, as if the other change came first;
 *  - a name to create exists: -EEXIST, as the lower would say (a
 *    creation's lookup did not ask the lower: see mc_lookup());
 *  - a rename's target is whatever has the name (it is replaced; its
 *    lookup did not ask the lower either);
 *  - the name is another object now: -ESTALE, and the VFS retries the
 *    system call once with LOOKUP_REVAL, where mc_d_revalidate() drops the
 *    stale upper dentry and the name is looked up afresh (so open(O_CREAT)
 *    of a file created meanwhile opens it).
 *
 * Return: 0 or a negative errno.
 */
static int mc_get_child(struct dentry *lower_dir, struct dentry *dentry,
			enum mc_want want, struct mc_child *child)
{
	struct dentry *lower = mc_dentry_lower(dentry);
	struct dentry *fresh;
	int err;

	lockdep_assert_held(&d_inode(lower_dir)->i_rwsem);

	child->lower = lower;
	child->ref = NULL;
	if (lower) {
		if (lower->d_parent == lower_dir && !d_unhashed(lower) &&
		    mc_lower_name_eq(lower_dir, lower, &dentry->d_name) &&
		    mc_same_object(dentry, lower))
			return 0;
	} else if (d_really_is_positive(dentry)) {
		/*
		 * Detached (namei.c): find it in the lower dcache, without
		 * a call into the lower.  Our reference is the only one we
		 * add: the caller decides whether the upper dentry is busy.
		 * A negative one (a name to create or rename onto) asks the
		 * lower with the intent instead (below), as the VFS would:
		 * NFS then makes no round trip, and cifs, which does not
		 * trust its negative dentries for a creation, looks again.
		 */
		struct qstr name = QSTR_INIT(dentry->d_name.name,
					     dentry->d_name.len);

		fresh = d_hash_and_lookup(lower_dir, &name);
		if (!IS_ERR_OR_NULL(fresh) && !d_unhashed(fresh) &&
		    mc_same_object(dentry, fresh)) {
			child->lower = fresh;
			child->ref = fresh;
			return 0;
		}
		if (!IS_ERR_OR_NULL(fresh))
			dput(fresh);
	}

	/*
	 * A creation or a rename tells the lower so, also about a dentry of
	 * its dcache (mc_lookup() did not ask the lower).
	 */
	if (mc_want_intent(want))
		fresh = mc_lower_lookup_intent(MC_SB(dentry->d_sb), lower_dir,
					       &dentry->d_name,
					       mc_want_intent(want));
	else
		fresh = mc_lower_lookup_locked(MC_SB(dentry->d_sb), lower_dir,
					       &dentry->d_name);
	if (IS_ERR(fresh))
		return PTR_ERR(fresh);
	pr_debug("lower of %pd changed: %s\n", dentry,
		 d_really_is_positive(fresh) ? "positive" : "negative");

	if (want == MC_WANT_TARGET || mc_same_object(dentry, fresh)) {
		/* A negative upper dentry may take the new lower one. */
		if (d_really_is_negative(dentry) && d_really_is_negative(fresh))
			mc_dentry_set_lower(dentry, dget(fresh));
		child->lower = fresh;
		child->ref = fresh;
		return 0;
	}
	if (want == MC_WANT_SAME && d_really_is_negative(fresh))
		err = -ENOENT;
	else if (want == MC_WANT_NEW)
		err = -EEXIST;	/* what the creation would say on the lower */
	else
		err = -ESTALE;
	dput(fresh);
	/* A listing may say otherwise: it must not answer lookups now. */
	mc_dir_invalidate(d_inode(dentry->d_parent));
	return err;
}

static void mc_put_child(struct mc_child *child)
{
	dput(child->ref);
}

/*
 * Lock @lower_dir, the lower parent of the upper @dentry, and find the
 * lower child (mc_get_child()).  On success the caller unlocks @lower_dir
 * and puts @child.
 */
static int mc_lock_child(struct dentry *lower_dir, struct dentry *dentry,
			 enum mc_want want, struct mc_child *child)
{
	int err;

	inode_lock_nested(d_inode(lower_dir), I_MUTEX_PARENT);
	err = mc_get_child(lower_dir, dentry, want, child);
	if (err)
		inode_unlock(d_inode(lower_dir));
	return err;
}

/*
 * A namespace operation on @dentry in @dir failed after it asked the lower,
 * which may have done it in part: a network client can fail after the
 * server created or removed the name (no memory for the new inode, a lost
 * reply), and our own allocations can fail after the lower call succeeded.
 * Nothing cached about the name or the listing from before is served again:
 * the next lookup and readdir ask the lower.  Found by tests/debug/faults
 * (a failed upper inode allocation after a lower create left the parent's
 * cached listing without the new file).
 */
static void mc_name_failed(struct inode *dir, struct dentry *dentry)
{
	mc_entry_clear(dentry);
	mc_dir_changed(dir);
}

/*
 * Make the negative upper @dentry positive after the lower object @lower was
 * created (or linked).  vfs_create()/vfs_mkdir()/... may succeed and leave
 * the lower dentry unhashed or negative (cifs and nfs can, see overlayfs'
 * ovl_mkdir_real()): then look the name up again and keep the new lower
 * dentry.
 */
static int mc_instantiate(struct dentry *dentry, struct dentry *lower_dir,
			  struct dentry *lower)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct dentry *alias;
	struct inode *inode;

	lockdep_assert_held(&d_inode(lower_dir)->i_rwsem);

	if (unlikely(d_unhashed(lower) || d_really_is_negative(lower))) {
		lower = mc_lower_lookup_locked(sbi, lower_dir, &dentry->d_name);
		if (IS_ERR(lower))
			return PTR_ERR(lower);
		if (d_really_is_negative(lower)) {
			/* Created, then removed by someone else already. */
			dput(lower);
			return -ENOENT;
		}
		mc_dentry_set_lower(dentry, lower);
	} else if (lower != mc_dentry_lower(dentry)) {
		/* A re-looked-up child (mc_get_child()): keep it. */
		mc_dentry_set_lower(dentry, dget(lower));
	}

	inode = mc_iget(dentry->d_sb, d_inode(lower));
	if (IS_ERR(inode))
		return PTR_ERR(inode);

	/*
	 * A directory has a single dentry.  If a lookup raced us to this one,
	 * leave ours unhashed and negative, as vfs_mkdir() allows.
	 */
	if (S_ISDIR(inode->i_mode)) {
		alias = d_find_any_alias(inode);
		if (alias) {
			dput(alias);
			iput(inode);
			d_drop(dentry);
			return 0;
		}
	}
	d_instantiate(dentry, inode);
	mc_vanish_forget(d_inode(dentry->d_parent), &dentry->d_name);
	mc_entry_set(dentry, MC_DS_POS);
	return 0;
}

/* What to create: which vfs_*() call, its mode and extra argument. */
struct mc_cattr {
	enum { MC_CREATE, MC_MKDIR, MC_MKNOD, MC_SYMLINK } op;
	umode_t mode;
	dev_t rdev;
	const char *link;
	bool excl;
};

static int mc_create_object(struct inode *dir, struct dentry *dentry,
			    const struct mc_cattr *attr)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *lower_dir = mc_dentry_lower(dentry->d_parent);
	struct inode *lower_dir_inode = d_inode(lower_dir);
	struct path lower_path;
	struct mc_child child;
	umode_t mode = attr->mode;
	int err;

	err = mc_lower_want_write(sbi);
	if (err)
		return err;
	err = mc_lock_child(lower_dir, dentry, MC_WANT_NEW, &child);
	if (err)
		goto out_drop_write;

	switch (attr->op) {
	case MC_CREATE:
		err = mc_lower_create(sbi, lower_dir_inode, child.lower, mode,
				      attr->excl);
		break;
	case MC_MKDIR:
		err = mc_lower_mkdir(sbi, lower_dir_inode, child.lower, mode);
		break;
	case MC_MKNOD:
		err = mc_lower_mknod(sbi, lower_dir_inode, child.lower, mode,
				     attr->rdev);
		break;
	case MC_SYMLINK:
		err = mc_lower_symlink(sbi, lower_dir_inode, child.lower,
				       attr->link);
		break;
	}
	mc_names_added(dir);
	if (!err)
		err = mc_instantiate(dentry, lower_dir, child.lower);
	if (err)
		mc_name_failed(dir, dentry);
	else
		mc_dir_changed(dir);
	mc_copy_attr(dir);
	inode_unlock(lower_dir_inode);
	mc_put_child(&child);
	if (!err && !mc_get_lower_path(dentry, &lower_path)) {
		mc_attr_prime_new(dentry, &lower_path);
		mc_put_lower_path(&lower_path);
		/* A new non-directory is kept detached, as a looked-up one. */
		if (d_really_is_positive(dentry) && !d_is_dir(dentry))
			mc_dentry_detach_now(dentry);
	}
out_drop_write:
	mc_lower_drop_write(sbi);
	return err;
}

static int mc_create(struct user_namespace *mnt_userns, struct inode *dir,
		     struct dentry *dentry, umode_t mode, bool excl)
{
	struct mc_cattr attr = { .op = MC_CREATE, .mode = mode, .excl = excl };

	return mc_create_object(dir, dentry, &attr);
}

static int mc_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
		    struct dentry *dentry, umode_t mode)
{
	struct mc_cattr attr = { .op = MC_MKDIR, .mode = mode };

	return mc_create_object(dir, dentry, &attr);
}

static int mc_mknod(struct user_namespace *mnt_userns, struct inode *dir,
		    struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct mc_cattr attr = { .op = MC_MKNOD, .mode = mode, .rdev = rdev };

	return mc_create_object(dir, dentry, &attr);
}

static int mc_symlink(struct user_namespace *mnt_userns, struct inode *dir,
		      struct dentry *dentry, const char *target)
{
	struct mc_cattr attr = { .op = MC_SYMLINK, .link = target };

	return mc_create_object(dir, dentry, &attr);
}

static int mc_link(struct dentry *old_dentry, struct inode *dir,
		   struct dentry *new_dentry)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *lower_dir = mc_dentry_lower(new_dentry->d_parent);
	struct path lower_old;
	struct mc_child child;
	int err;

	/* Before any lower lock: re-attaching may look the source up. */
	err = mc_get_lower_path(old_dentry, &lower_old);
	if (err)
		return err;
	err = mc_lower_want_write(sbi);
	if (err)
		goto out_put;
	err = mc_lock_child(lower_dir, new_dentry, MC_WANT_NEW, &child);
	if (err)
		goto out_drop_write;

	/* A vanished source: vfs_link() says -ENOENT (or the server -ESTALE). */
	err = mc_lower_link(sbi, lower_old.dentry, d_inode(lower_dir),
			    child.lower);
	mc_names_added(dir);
	if (!err)
		err = mc_instantiate(new_dentry, lower_dir, child.lower);
	if (err)
		mc_name_failed(dir, new_dentry);
	else
		mc_dir_changed(dir);
	mc_attr_invalidate(d_inode(old_dentry));
	mc_copy_attr(d_inode(old_dentry));
	mc_copy_attr(dir);
	inode_unlock(d_inode(lower_dir));
	mc_put_child(&child);
out_drop_write:
	mc_lower_drop_write(sbi);
out_put:
	mc_put_lower_path(&lower_old);
	return err;
}

/*
 * Unlink of an NFS silly-renamed file (.nfsXXXX, DCACHE_NFSFS_RENAMED): NFS
 * removes it when its dentry goes away, returns -EBUSY for it while it is
 * in use, and WARNs (-ETXTBSY) if asked while nobody else holds it.  Our
 * cached upper dentry may be that last holder once the file was closed:
 * then the file is as good as gone, so report success and drop our dentry,
 * whose release lets NFS finish the removal.
 */
static int mc_unlink_silly(struct dentry *dentry, struct dentry *lower)
{
	if (d_count(lower) > 1)
		return -EBUSY;
	d_drop(dentry);
	return 0;
}

/*
 * After a lower unlink, rmdir or rename over @lower: the names of @dir that
 * stay listed until the object's last close, without a call through us
 * (struct mc_vanish): @name if @busy (SMB lists a removed file or
 * directory still in use, "delete pending"), and the .nfsXXXX name NFS
 * gave @lower if it silly-renamed it.
 */
static void mc_vanish_note(struct inode *dir, const struct qstr *name,
			   bool busy, struct dentry *lower)
{
	struct name_snapshot n;

	if (busy)
		mc_vanish_add(dir, name);
	if (READ_ONCE(lower->d_flags) & DCACHE_NFSFS_RENAMED) {
		take_dentry_name_snapshot(&n, lower);
		mc_vanish_add(dir, &n.name);
		release_dentry_name_snapshot(&n);
	}
}

/*
 * After a successful lower unlink of @child.  The VFS then makes @dentry
 * negative if nobody else uses it, or unhashes it.
 *  - Silly-renamed (still positive, called .nfsXXXX), or we worked on a
 *    re-looked-up lower dentry of an attached upper one: do not let our
 *    dentry become a negative one over its old lower dentry: drop it.
 *  - A detached upper dentry that nobody else uses becomes a negative
 *    entry, detached.
 *  - Otherwise it becomes a negative entry, if nobody else uses it, and
 *    lets go of its lower dentry (namei.c: a negative entry holds none).
 */
static void mc_unlink_done(struct dentry *dentry, struct mc_child *child)
{
	bool alone = d_count(dentry) == 1;

	if (child->lower->d_flags & DCACHE_NFSFS_RENAMED) {
		d_drop(dentry);
	} else if (child->ref) {
		if (alone && !mc_dentry_lower(dentry) &&
		    d_really_is_negative(child->lower))
			mc_entry_set(dentry, MC_DS_NEG);
		else
			d_drop(dentry);
	} else if (alone) {
		mc_entry_set(dentry, MC_DS_NEG);
		mc_dentry_detach_now(dentry);
	} else {
		mc_entry_clear(dentry);
	}
}

static int mc_unlink(struct inode *dir, struct dentry *dentry)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *lower_dir = mc_dentry_lower(dentry->d_parent);
	struct dentry *held = NULL;
	struct mc_child child;
	int err;

	/*
	 * Closed before the lower looks at how busy the file is, and none
	 * kept by a close racing with us until the lower unlink is done.
	 */
	mc_handles_forbid(d_inode(dentry));
	mc_lower_quiesce(sbi);
	err = mc_lower_want_write(sbi);
	if (err)
		goto out_allow;
	err = mc_lock_child(lower_dir, dentry, MC_WANT_SAME, &child);
	if (err)
		goto out_drop_write;

	/*
	 * The lower dentry must look exactly as busy as the upper one.  We
	 * hold one reference (mc_dentry's, or mc_child's) on behalf of all
	 * users of the upper dentry; the VFS holds one on the upper dentry
	 * for this call.
	 *  - No other user: lend the lower file system that one reference.
	 *    It then really removes the file (NFS: no silly-rename) and makes
	 *    its dentry negative, as the VFS will do with ours.
	 *  - Other users (an open file, an O_PATH fd, a path walk): the VFS
	 *    will only unhash our dentry, which stays positive, so the lower
	 *    must stay positive too: hold a second reference.  NFS then
	 *    silly-renames, as it would for a busy dentry without us.
	 * A user arriving after this check finds a positive upper dentry over
	 * a negative lower one: mc_get_lower_path() gives it -ESTALE.
	 *
	 * wrapfs always held an extra reference, so NFS silly-renamed on
	 * every unlink, and turned any -EBUSY on a silly-renamed dentry into
	 * success.  We pass -EBUSY on only while the .nfsXXXX file is in use,
	 * as NFS does without us, see mc_unlink_silly().
	 *
	 * A detached upper dentry (namei.c) holds no lower reference: when
	 * others use it, it takes one now, which stays as long as the upper
	 * dentry lives, as an attached one's would.
	 */
	if (unlikely(child.lower->d_flags & DCACHE_NFSFS_RENAMED)) {
		err = mc_unlink_silly(dentry, child.lower);
		goto out_unlock;
	}
	if (d_count(dentry) > 1) {
		if (!mc_dentry_lower(dentry))
			mc_dentry_attach(dentry, child.lower);
		held = dget(child.lower);
	}
	err = mc_lower_unlink(sbi, d_inode(lower_dir), child.lower);
	mc_names_removed(dir);
	if (!err) {
		mc_vanish_note(dir, &dentry->d_name, held, child.lower);
		mc_unlink_done(dentry, &child);
	} else {
		mc_entry_clear(dentry);	/* the lower may have removed it */
	}
	mc_attr_invalidate(d_inode(dentry));
	mc_dir_changed(dir);
	mc_copy_attr(d_inode(dentry));
	mc_copy_attr(dir);
out_unlock:
	inode_unlock(d_inode(lower_dir));
	dput(held);
	mc_put_child(&child);
out_drop_write:
	mc_lower_drop_write(sbi);
out_allow:
	mc_handles_allow(d_inode(dentry));
	return err;
}

static int mc_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *lower_dir = mc_dentry_lower(dentry->d_parent);
	struct dentry *held;
	struct mc_child child;
	int err;

	err = mc_lower_want_write(sbi);
	if (err)
		return err;
	err = mc_lock_child(lower_dir, dentry, MC_WANT_SAME, &child);
	if (err)
		goto out_drop_write;

	/*
	 * Hold a second reference, so the lower directory is only unhashed,
	 * never made negative: an upper directory kept by a user (a cwd) stays
	 * positive, and a positive upper directory must have a positive lower
	 * one (mc_lookup() and the namespace operations rely on it).  The
	 * VFS marks the upper directory dead, so nothing is created in it.
	 */
	held = dget(child.lower);
	err = mc_lower_rmdir(sbi, d_inode(lower_dir), child.lower);
	mc_names_removed(dir);
	if (!err) {
		mc_vanish_note(dir, &dentry->d_name, d_count(dentry) > 1,
			       child.lower);
		/*
		 * The VFS makes it negative if nobody else uses it: a
		 * negative entry, which ->d_delete detaches from the dead
		 * lower directory.
		 */
		if (d_count(dentry) == 1)
			mc_entry_set(dentry, MC_DS_NEG);
		else
			mc_entry_clear(dentry);
		mc_dir_invalidate(d_inode(dentry));
	} else {
		mc_entry_clear(dentry);	/* as in mc_unlink() */
	}
	mc_attr_invalidate(d_inode(dentry));
	mc_dir_changed(dir);
	mc_copy_attr(d_inode(dentry));
	mc_copy_attr(dir);
	inode_unlock(d_inode(lower_dir));
	dput(held);
	mc_put_child(&child);
out_drop_write:
	mc_lower_drop_write(sbi);
	return err;
}

/*
 * A lower object changed by a call made through another of its names (a
 * hard link): the upper inode of that object, if one is in memory, must
 * not answer from the attributes it has cached.  Only an upper inode
 * already in memory is looked for (no allocation, no lower call): a new
 * one would ask the lower anyway.  Users:
 *  - a lower open with O_CREAT, which then failed (O_TRUNC may have
 *    emptied the file before or after the lower did its work);
 *  - a rename over a name we had no upper object for (another client made
 *    it, or a negative entry of ours was stale): the overwritten object
 *    lost a link, and may still be reached by another name.
 */
static void mc_attr_invalidate_lower(struct super_block *sb,
				     struct inode *lower)
{
	struct inode *inode;

	if (!lower)
		return;
	inode = ilookup5(sb, (unsigned long)lower, mc_inode_test, lower);
	if (inode) {
		mc_attr_invalidate(inode);
		iput(inode);
	}
}

/*
 * After a successful lower rename, before the VFS moves the dentries: the
 * moved dentry (both, for an exchange) is a fresh positive entry under its
 * new name; an overwritten target is forgotten (the VFS unhashes it).  The
 * old name gets no negative entry: the VFS moves the dentry after we
 * return, and it cannot be done here instead (FS_RENAME_DOES_D_MOVE would
 * need d_exchange(), which modules cannot call); its next lookup asks the
 * lower.  A moved directory's listing has a new "..".
 */
static void mc_rename_done(struct inode *old_dir, struct dentry *old_dentry,
			   struct inode *new_dir, struct dentry *new_dentry,
			   unsigned int flags)
{
	struct inode *moved = d_inode(old_dentry);
	struct inode *target = d_inode(new_dentry);

	mc_dir_changed(old_dir);
	if (new_dir != old_dir)
		mc_dir_changed(new_dir);
	mc_attr_invalidate(moved);
	if (S_ISDIR(moved->i_mode))
		mc_dir_invalidate(moved);
	if (target) {
		mc_attr_invalidate(target);
		if (S_ISDIR(target->i_mode))
			mc_dir_invalidate(target);
	}
	mc_vanish_forget(new_dir, &new_dentry->d_name);
	mc_entry_set(old_dentry, MC_DS_POS);
	if (flags & RENAME_EXCHANGE)
		mc_entry_set(new_dentry, MC_DS_POS);
	else
		mc_entry_clear(new_dentry);
}

static int mc_rename(struct user_namespace *mnt_userns, struct inode *old_dir,
		     struct dentry *old_dentry, struct inode *new_dir,
		     struct dentry *new_dentry, unsigned int flags)
{
	struct mc_sb_info *sbi = MC_SB(old_dir->i_sb);
	struct dentry *lower_old_dir = mc_dentry_lower(old_dentry->d_parent);
	struct dentry *lower_new_dir = mc_dentry_lower(new_dentry->d_parent);
	struct mc_child old = { NULL, NULL }, new = { NULL, NULL };
	struct dentry *held = NULL;
	struct inode *target, *over = NULL;
	struct dentry *trap;
	bool dirs;
	int err;

	/*
	 * Neither a moved nor an overwritten file stays open below; nor any
	 * file, when a directory moves (SMB refuses to rename a directory
	 * with open files in it), until the lower rename is done.
	 */
	dirs = d_is_dir(old_dentry) ||
	       (d_really_is_positive(new_dentry) && d_is_dir(new_dentry));
	if (dirs)
		mc_handles_forbid_all(sbi);
	/* Files: closed, and none kept again until the lower rename is done. */
	target = d_inode(new_dentry);
	mc_handles_forbid(d_inode(old_dentry));
	if (target)
		mc_handles_forbid(target);
	mc_lower_quiesce(sbi);
	err = mc_lower_want_write(sbi);
	if (err)
		goto out_allow;

	trap = lock_rename(lower_old_dir, lower_new_dir);
	err = mc_get_child(lower_old_dir, old_dentry, MC_WANT_SAME, &old);
	if (err)
		goto out_unlock;
	/* An exchange's target moves too: it must be the object we know. */
	err = mc_get_child(lower_new_dir, new_dentry,
			   (flags & RENAME_EXCHANGE) ? MC_WANT_SAME :
						       MC_WANT_TARGET, &new);
	if (err)
		goto out_unlock;
	/*
	 * The checks do_renameat2() made on the upper side, for the lower.
	 * An exchange's target exists (MC_WANT_SAME: no lower file system
	 * expects an exchange with a negative dentry, tmpfs WARNs).  A
	 * rename's target was not looked up on the lower before (mc_lookup())
	 * or may have changed there since: NOREPLACE must not replace what
	 * the lower has now.
	 */
	err = -EEXIST;
	if ((flags & RENAME_NOREPLACE) && d_is_positive(new.lower)) {
		/* Made by another client: no older listing may deny it. */
		if (d_really_is_negative(new_dentry))
			mc_dir_invalidate(new_dir);
		goto out_unlock;
	}
	err = -EINVAL;
	if (old.lower == trap)
		goto out_unlock;
	if (!(flags & RENAME_EXCHANGE))
		err = -ENOTEMPTY;
	if (new.lower == trap)
		goto out_unlock;
	/* Over an NFS .nfsXXXX file: see mc_unlink_silly(); NFS would WARN. */
	err = -EBUSY;
	if (new.lower->d_flags & DCACHE_NFSFS_RENAMED)
		goto out_unlock;

	/* An overwritten target in use must look in use below: mc_unlink(). */
	if (d_really_is_positive(new_dentry) && d_count(new_dentry) > 2) {
		if (!mc_dentry_lower(new_dentry))
			mc_dentry_attach(new_dentry, new.lower);
		held = dget(new.lower);	/* vfs_rename() holds one too */
	}
	/* An object of the lower we had no upper one for, overwritten. */
	if (!target && !(flags & RENAME_EXCHANGE) && d_is_positive(new.lower))
		over = igrab(d_inode(new.lower));
	err = mc_lower_rename(sbi, d_inode(lower_old_dir), old.lower,
			      d_inode(lower_new_dir), new.lower, flags);
	/*
	 * Both names change what they find: the old one loses its object,
	 * the new one may replace another's (on a lower that ignores case,
	 * also when our target is negative: "README" over "readme").  An
	 * exchange adds no name to either directory.
	 */
	mc_names_removed(old_dir);
	mc_names_removed(new_dir);
	if (!(flags & RENAME_EXCHANGE))
		mc_names_added(new_dir);
	/*
	 * A failed rename may still have removed the target: cifs, refused
	 * a rename over a file, unlinks the file and tries again (then the
	 * lower inode has no link left), and a file in use stays listed.
	 */
	if (target && !S_ISDIR(target->i_mode) && !(flags & RENAME_EXCHANGE))
		mc_vanish_note(new_dir, &new_dentry->d_name,
			       err && d_really_is_positive(new.lower) &&
			       !d_inode(new.lower)->i_nlink, new.lower);
	if (!err) {
		mc_rename_done(old_dir, old_dentry, new_dir, new_dentry, flags);
	} else {
		/* It may be done in part: see mc_name_failed(). */
		mc_entry_clear(new_dentry);
		mc_name_failed(old_dir, old_dentry);
		if (new_dir != old_dir)
			mc_dir_changed(new_dir);
		mc_attr_invalidate(d_inode(old_dentry));
		if (d_is_dir(old_dentry))
			mc_dir_invalidate(d_inode(old_dentry));
	}
	mc_copy_attr(old_dir);
	if (new_dir != old_dir)
		mc_copy_attr(new_dir);
	mc_copy_attr(d_inode(old_dentry));
	if (d_really_is_positive(new_dentry))
		mc_copy_attr(d_inode(new_dentry));
out_unlock:
	unlock_rename(lower_old_dir, lower_new_dir);
	dput(held);
	mc_put_child(&new);
	mc_put_child(&old);
	mc_lower_drop_write(sbi);
	if (over) {
		mc_attr_invalidate_lower(old_dir->i_sb, over);
		iput(over);
	}
out_allow:
	if (target)
		mc_handles_allow(target);
	mc_handles_allow(d_inode(old_dentry));
	if (dirs)
		mc_handles_allow_all(sbi);
	return err;
}

/*
 * ->atomic_open: called by the VFS for an open of a name it has no positive
 * dentry for.  Without O_CREAT it is a lookup (the VFS then opens through
 * ->open).  With O_CREAT the lower file system gets one full open of the
 * name (mc_lower_open_name()), so a network lower looks up, creates and
 * opens in one request, as it does without us; the lower file it opened
 * becomes the upper file's.
 *
 * Whatever is not a plain regular file at the name (a directory, a symlink
 * created meanwhile) is left to the VFS's own path: a lookup, after which
 * it follows the symlink or reports EISDIR itself.
 *
 * Context: the parent's i_rwsem held, exclusively with O_CREAT.
 */
static int mc_atomic_open(struct inode *dir, struct dentry *dentry,
			  struct file *file, unsigned int open_flag,
			  umode_t mode)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *lower, *res = NULL;
	struct file *lower_file;
	struct path lower_dir;
	struct mc_file *mcf;
	struct inode *inode;
	int err;

	if (!(open_flag & O_CREAT))
		goto no_open;

	err = mc_get_lower_path(dentry->d_parent, &lower_dir);
	if (err)
		return err;
	lower_file = mc_lower_open_name(sbi, &lower_dir, &dentry->d_name,
					open_flag, mode);
	mc_names_added(dir);
	if (IS_ERR(lower_file)) {
		err = PTR_ERR(lower_file);
		if (err == -ELOOP || err == -EISDIR) {
			/*
			 * The lower has the name: a listing without it (read
			 * before another client made it) must not answer the
			 * lookup below.
			 */
			mc_dir_invalidate(dir);
			mc_put_lower_path(&lower_dir);
			goto no_open;
		}
		/*
		 * A lower open can fail after its create or truncation was
		 * done: the name's entry and the listing go, and so do the
		 * attributes of the file the name had, if the lower's dcache
		 * knows it.
		 */
		mc_name_failed(dir, dentry);
		if (open_flag & O_TRUNC) {
			lower = d_hash_and_lookup(lower_dir.dentry, &dentry->d_name);
			if (!IS_ERR_OR_NULL(lower)) {
				mc_attr_invalidate_lower(dir->i_sb, d_inode(lower));
				dput(lower);
			}
		}
		mc_put_lower_path(&lower_dir);
		return err;
	}
	/*
	 * Whether created here or by someone else meanwhile, the name exists
	 * where we had none: the listing changed (and cifs says "created"
	 * only for O_EXCL).  Before anything below can fail.
	 */
	mc_dir_changed(dir);
	mc_copy_attr(dir);
	lower = lower_file->f_path.dentry;
	if (unlikely(lower->d_parent != lower_dir.dentry ||
		     lower_file->f_path.mnt != lower_dir.mnt ||
		     !S_ISREG(file_inode(lower_file)->i_mode))) {
		mc_put_lower_path(&lower_dir);
		mc_lower_release(sbi, lower_file);
		goto no_open;
	}
	mc_put_lower_path(&lower_dir);

	err = -ENOMEM;
	mcf = mc_file_alloc();
	if (!mcf)
		goto out_release;
	inode = mc_iget(dir->i_sb, d_inode(lower));
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out_free;
	}
	/*
	 * Detached from the start (see namei.c): the open file holds the
	 * lower dentry for as long as it needs it, and a dentry that held one
	 * would have to hand it to a deferred put at its last dput(), which
	 * the unlink of a create-write-close-unlink loop then waits for.
	 */
	if (d_in_lookup(dentry)) {
		err = mc_dentry_init(dentry, NULL);
		if (err) {
			iput(inode);
			goto out_free;
		}
		/* Not a directory: no alias to find, @dentry is added. */
		res = d_splice_alias(inode, dentry);
		if (IS_ERR(res)) {
			err = PTR_ERR(res);
			goto out_free;
		}
		if (WARN_ON_ONCE(res)) {
			dput(res);
			err = -EIO;
			goto out_free;
		}
	} else {
		mc_dentry_set_lower(dentry, NULL);
		d_instantiate(dentry, inode);
	}
	mc_vanish_forget(dir, &dentry->d_name);
	mc_entry_set(dentry, MC_DS_POS);
	if (lower_file->f_mode & FMODE_CREATED)
		file->f_mode |= FMODE_CREATED;
	mc_attr_prime_new(dentry, &lower_file->f_path);

	mcf->lower = lower_file;
	/*
	 * Not to be kept after close (handle.c): a file that may just have
	 * been created (cifs reports FMODE_CREATED only with O_EXCL).
	 */
	set_bit(MC_FILE_NOCACHE, &mcf->flags);
	file->private_data = mcf;
	err = finish_open(file, dentry, mc_open_prepared);
	/* Once FMODE_OPENED is set, ->release cleans up at fput(). */
	if (err && !(file->f_mode & FMODE_OPENED)) {
		file->private_data = NULL;
		goto out_free;
	}
	return err;

no_open:
	if (d_in_lookup(dentry)) {
		res = mc_lookup(dir, dentry, 0);
		if (IS_ERR(res))
			return PTR_ERR(res);
	} else if (open_flag & O_CREAT) {
		/*
		 * Our negative entry hides what the lower has now: the VFS
		 * retries with LOOKUP_REVAL, which asks the lower afresh.
		 */
		return -ESTALE;
	}
	return finish_no_open(file, res);

out_free:
	mc_file_free(mcf);
out_release:
	mc_attr_invalidate_lower(dir->i_sb, file_inode(lower_file));
	mc_lower_release(sbi, lower_file);
	/* Our negative entry, if the name had one, is wrong now. */
	mc_entry_clear(dentry);
	return err;
}

/*
 * O_TMPFILE: create and open the unnamed lower file in one go, make the
 * upper inode for it, and finish the upper open with that lower file
 * instead of opening another one (mc_open_prepared()).
 */
static int mc_tmpfile(struct user_namespace *mnt_userns, struct inode *dir,
		      struct file *file, umode_t mode)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct dentry *dentry = file->f_path.dentry;
	struct file *lower_file;
	struct path lower_dir;
	struct dentry *lower;
	struct mc_file *mcf;
	struct inode *inode;
	int err;

	mcf = mc_file_alloc();
	if (!mcf)
		return -ENOMEM;

	err = mc_get_lower_path(dentry->d_parent, &lower_dir);
	if (err)
		goto out_free;
	lower_file = mc_lower_tmpfile(sbi, &lower_dir, mode, file->f_flags);
	mc_put_lower_path(&lower_dir);
	if (IS_ERR(lower_file)) {
		err = PTR_ERR(lower_file);
		goto out_free;
	}

	lower = dget(lower_file->f_path.dentry);
	err = mc_dentry_init(dentry, lower);
	if (err) {
		dput(lower);
		goto out_release;
	}

	inode = mc_iget(dir->i_sb, file_inode(lower_file));
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out_release;
	}
	/*
	 * d_tmpfile() drops the link a new inode comes with; ours copied the
	 * lower's nlink, already 0.  The inode is new: nobody else sees it.
	 */
	set_nlink(inode, 1);
	d_tmpfile(file, inode);
	mc_attr_invalidate(dir);

	mcf->lower = lower_file;
	file->private_data = mcf;
	err = finish_open(file, dentry, mc_open_prepared);
	/* Once FMODE_OPENED is set, ->release cleans up at fput(). */
	if (err && !(file->f_mode & FMODE_OPENED)) {
		file->private_data = NULL;
		goto out_release;
	}
	return err;

out_release:
	mc_lower_release(sbi, lower_file);
out_free:
	mc_file_free(mcf);
	return err;
}

static const struct inode_operations mc_dir_iops = {
	.lookup		= mc_lookup,
	.create		= mc_create,
	.atomic_open	= mc_atomic_open,
	.link		= mc_link,
	.unlink		= mc_unlink,
	.symlink	= mc_symlink,
	.mkdir		= mc_mkdir,
	.rmdir		= mc_rmdir,
	.mknod		= mc_mknod,
	.rename		= mc_rename,
	.tmpfile	= mc_tmpfile,
	.permission	= mc_permission,
	.getattr	= mc_getattr,
	.setattr	= mc_setattr,
	.listxattr	= mc_listxattr,
	.fileattr_get	= mc_fileattr_get,
	.fileattr_set	= mc_fileattr_set,
};

static const struct inode_operations mc_file_iops = {
	.permission	= mc_permission,
	.getattr	= mc_getattr,
	.setattr	= mc_setattr,
	.listxattr	= mc_listxattr,
	.fiemap		= mc_fiemap,
	.fileattr_get	= mc_fileattr_get,
	.fileattr_set	= mc_fileattr_set,
};

static const struct inode_operations mc_symlink_iops = {
	.get_link	= mc_get_link,
	.getattr	= mc_getattr,
	.setattr	= mc_setattr,
	.listxattr	= mc_listxattr,
};

static const struct inode_operations mc_special_iops = {
	.permission	= mc_permission,
	.getattr	= mc_getattr,
	.setattr	= mc_setattr,
	.listxattr	= mc_listxattr,
};
