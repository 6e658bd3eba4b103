// SPDX-License-Identifier: GPL-2.0
/*
 * namei.c - lookup, dentry operations and the upper -> lower dentry mapping.
 *
 * Each upper dentry carries a struct mc_dentry holding a reference to the
 * lower dentry of the same name in the lower parent, negative if the name
 * does not exist there.  The rules for reading it are in metacache.h; the
 * helpers below are the only code that touches mc_dentry::lower.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "metacache.h"

/**
 * mc_dentry_init() - attach a lower dentry to a new upper dentry
 * @dentry: the upper dentry, without d_fsdata yet
 * @lower: the lower dentry, referenced
 *
 * On success the reference to @lower belongs to @dentry and is dropped by
 * mc_d_release(); on failure it stays with the caller.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int mc_dentry_init(struct dentry *dentry, struct dentry *lower)
{
	struct mc_dentry *mcd;

	mcd = kmem_cache_zalloc(mc_dentry_cachep, GFP_KERNEL);
	if (!mcd)
		return -ENOMEM;
	spin_lock_init(&mcd->lock);
	mcd->lower = lower;
	dentry->d_fsdata = mcd;
	return 0;
}

/**
 * mc_dentry_set_lower() - replace the lower dentry of a negative upper one
 * @dentry: the upper dentry, negative
 * @lower: the new lower dentry; its reference is consumed
 *
 * Used when a lower creation left its dentry unhashed and we looked the
 * name up again.  Drops the reference to the previous lower dentry: callers
 * must not use a borrowed pointer to it afterwards.
 *
 * Context: the upper parent's i_rwsem held exclusively.
 */
void mc_dentry_set_lower(struct dentry *dentry, struct dentry *lower)
{
	struct mc_dentry *mcd = MC_D(dentry);
	struct dentry *old;

	lockdep_assert_held_write(&d_inode(dentry->d_parent)->i_rwsem);
	WARN_ON_ONCE(d_really_is_positive(dentry));

	spin_lock(&mcd->lock);
	old = mcd->lower;
	WRITE_ONCE(mcd->lower, lower);
	spin_unlock(&mcd->lock);
	dput(old);
}

/**
 * mc_dentry_lower() - borrow the lower dentry of an upper dentry
 * @dentry: the upper dentry, referenced by the caller
 *
 * No reference is taken: the result is valid as long as @dentry is
 * referenced and either @dentry is positive or the caller holds its
 * parent's i_rwsem (see struct mc_dentry).  Namespace operations use this
 * so that they add no reference to the lower dentry: NFS silly-renames an
 * unlinked dentry that has other users.
 *
 * Return: the lower dentry.
 */
struct dentry *mc_dentry_lower(const struct dentry *dentry)
{
	return MC_D(dentry)->lower;
}

/**
 * mc_get_lower_path() - get the lower path of an upper dentry
 * @dentry: the upper dentry, referenced by the caller
 * @lower_path: filled with the lower mount and dentry, both referenced
 *
 * The caller owns the references and drops them with mc_put_lower_path().
 * Safe without any upper lock.
 *
 * A positive upper dentry may have lost its lower object: unlinked through
 * us while another user, who got the upper dentry after mc_unlink() looked
 * (see there), keeps it positive.  That is -ESTALE; as long as we hold the
 * reference taken here, the lower dentry cannot turn negative.
 *
 * Return: 0, or -ESTALE and nothing to put.
 */
int mc_get_lower_path(const struct dentry *dentry, struct path *lower_path)
{
	struct mc_dentry *mcd = MC_D(dentry);

	lower_path->mnt = MC_SB(dentry->d_sb)->lower_path.mnt;
	spin_lock(&mcd->lock);
	lower_path->dentry = mcd->lower;
	path_get(lower_path);
	spin_unlock(&mcd->lock);

	if (unlikely(d_really_is_positive(dentry) &&
		     d_really_is_negative(lower_path->dentry))) {
		path_put(lower_path);
		return -ESTALE;
	}
	return 0;
}

/**
 * mc_put_lower_path() - drop what mc_get_lower_path() took
 * @lower_path: the lower path
 */
void mc_put_lower_path(struct path *lower_path)
{
	path_put(lower_path);
}

/**
 * mc_lookup() - ->lookup of metacache directories
 * @dir: the upper directory
 * @dentry: the upper dentry to look up, in-lookup
 * @flags: LOOKUP_* flags (unused: the lower lookup is a plain one)
 *
 * A negative lower result gives a negative upper dentry that keeps the
 * lower negative dentry (its revalidation is the lower's).  Any lower error
 * is returned as is, never turned into a negative dentry.
 *
 * Context: @dir's i_rwsem held shared.
 * Return: NULL, an alias of @dentry, or an ERR_PTR.
 */
struct dentry *mc_lookup(struct inode *dir, struct dentry *dentry,
			 unsigned int flags)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct inode *inode = NULL;
	struct dentry *lower;
	int err;

	/* The parent is a positive directory: its lower one is too (mc_rmdir). */
	lower = mc_lower_lookup(sbi, mc_dentry_lower(dentry->d_parent),
				&dentry->d_name);
	if (IS_ERR(lower))
		return ERR_CAST(lower);

	err = mc_dentry_init(dentry, lower);
	if (err) {
		dput(lower);
		return ERR_PTR(err);
	}

	/* From here on @lower is @dentry's, freed by mc_d_release(). */
	if (d_really_is_positive(lower)) {
		inode = mc_iget(dir->i_sb, d_inode(lower));
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	}
	return d_splice_alias(inode, dentry);
}

/*
 * Does the upper dentry still describe its lower dentry?  The lower one may
 * have been changed behind our back: by another client of the network file
 * system (noticed by its own d_revalidate, which then unhashes it) or by a
 * local user of the lower directory.
 */
static bool mc_dentry_matches(struct dentry *dentry, struct dentry *lower)
{
	struct dentry *parent, *lower_dir;
	struct name_snapshot name;
	bool ok;

	if (!mc_same_object(dentry, lower))
		return false;
	/* Our root's lower dentry may be a file system root: never hashed. */
	if (IS_ROOT(dentry))
		return true;
	if (d_unhashed(lower))
		return false;

	/* Not moved: same parent, same name. */
	parent = dget_parent(dentry);
	lower_dir = mc_dentry_lower(parent);	/* positive: stable */
	ok = READ_ONCE(lower->d_parent) == lower_dir;
	if (ok) {
		take_dentry_name_snapshot(&name, dentry);
		ok = mc_lower_name_eq(lower_dir, lower, &name.name);
		release_dentry_name_snapshot(&name);
	}
	dput(parent);
	return ok;
}

/*
 * ->d_revalidate.  No caching yet: every revalidation in ref-walk mode asks
 * the lower file system, then checks that the lower dentry still is what the
 * upper dentry says (see mc_dentry_matches()).  Invalid makes the VFS drop
 * the upper dentry and look the name up again.
 *
 * ESTALE: when an operation finds a changed lower object (a stale file
 * handle from the server, mc_get_lower_path() finding the lower object
 * gone, or mc_get_child() in inode.c finding the name bound to another
 * object) it returns -ESTALE; the VFS's retry_estale() then repeats the
 * whole system call once with LOOKUP_REVAL.  That flag reaches the lower
 * d_revalidate through us (NFS then asks the server), the stale dentry is
 * found invalid here, and the name is looked up afresh.  If the retry fails
 * again, the error is reported.
 */
static int mc_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct mc_sb_info *sbi;
	struct path lower_path;
	int ret;

	/* The caches will add an RCU-walk fast path. */
	if (flags & LOOKUP_RCU)
		return -ECHILD;

	sbi = MC_SB(dentry->d_sb);
	if (mc_get_lower_path(dentry, &lower_path))
		return 0;
	ret = mc_lower_revalidate(sbi, lower_path.dentry, flags);
	if (ret > 0 && !mc_dentry_matches(dentry, lower_path.dentry))
		ret = 0;
	if (ret > 0 && d_really_is_positive(dentry))
		mc_copy_attr(d_inode(dentry));
	pr_debug("d_revalidate %pd 0x%x: %d\n", dentry, flags, ret);
	mc_put_lower_path(&lower_path);
	return ret;
}

/*
 * ->d_weak_revalidate: called on the last component of a path that was not
 * reached by a lookup (".", "..", a mount point, /proc/self/fd/N).  We only
 * pass it on (NFS checks the attributes) and refresh the upper inode.
 */
static int mc_d_weak_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct path lower_path;
	int ret;

	if (mc_get_lower_path(dentry, &lower_path))
		return 0;
	ret = mc_lower_weak_revalidate(MC_SB(dentry->d_sb), lower_path.dentry,
				       flags);
	if (ret > 0 && d_really_is_positive(dentry))
		mc_copy_attr(d_inode(dentry));
	mc_put_lower_path(&lower_path);
	return ret;
}

/*
 * ->d_delete, called under d_lock when the last reference to @dentry goes:
 * should it be freed now rather than kept in the dcache?
 *
 * A cached upper dentry holds a reference to its lower dentry.  For a
 * non-directory that reference makes NFS treat the file as busy: an unlink
 * or a rename over it done directly on the lower (by a local process) then
 * becomes a silly-rename, and the .nfsXXXX file stays on the server as long
 * as we cache the name.  So unused positive non-directories are not kept:
 * the next use looks the name up again, which finds the lower dentry in
 * the lower dcache (the lower's own revalidation, as before, and no extra
 * lower round trip).  The entry cache will revisit this.
 *
 * Directories (never silly-renamed) and negative dentries are kept unless
 * their lower dentry is dead (unhashed) or silly-renamed.
 */
static int mc_d_delete(const struct dentry *dentry)
{
	const struct mc_dentry *mcd = MC_D(dentry);
	const struct dentry *lower;

	if (!mcd)
		return 1;
	if (IS_ROOT(dentry))
		return 0;
	if (d_really_is_positive(dentry) && !d_is_dir(dentry))
		return 1;
	lower = READ_ONCE(mcd->lower);
	return d_unhashed(lower) ||
	       (READ_ONCE(lower->d_flags) & DCACHE_NFSFS_RENAMED);
}

static void mc_dentry_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(mc_dentry_cachep,
			container_of(head, struct mc_dentry, rcu));
}

/*
 * ->d_release: drop the lower dentry now and free the mc_dentry after a
 * grace period (RCU-walk may still be looking at it).  d_fsdata is NULL for
 * a dentry whose lookup failed before mc_dentry_init().
 */
static void mc_d_release(struct dentry *dentry)
{
	struct mc_dentry *mcd = MC_D(dentry);

	if (!mcd)
		return;
	dput(mcd->lower);
	call_rcu(&mcd->rcu, mc_dentry_free_rcu);
}

const struct dentry_operations mc_dentry_ops = {
	.d_revalidate		= mc_d_revalidate,
	.d_weak_revalidate	= mc_d_weak_revalidate,
	.d_delete		= mc_d_delete,
	.d_release		= mc_d_release,
};
