// SPDX-License-Identifier: GPL-2.0
/*
 * namei.c - lookup, dentry operations, the upper -> lower dentry mapping,
 * and the entry caches (positive and negative).
 *
 * Each upper dentry carries a struct mc_dentry holding a reference to the
 * lower dentry of the same name in the lower parent, negative if the name
 * does not exist there.  The rules for reading it are in metacache.h; the
 * helpers below are the only code that changes mc_dentry::lower.
 *
 * Entry cache.  When the lower confirms a name (lookup, revalidation, our
 * own create/link/rename/unlink, readdir priming), mc_entry_set() gives the
 * dentry a deadline, now + entry_ttl (neg_ttl for a negative one).  Until
 * then ->d_revalidate answers "valid" without any call into the lower, also
 * in RCU-walk: the deadline and the state are read locklessly.  Always asked
 * of the lower: LOOKUP_REVAL (the VFS's retry after ESTALE) and the intents
 * that create or replace (LOOKUP_CREATE, which O_CREAT sets, LOOKUP_EXCL,
 * LOOKUP_RENAME_TARGET), so that a name another client created is never
 * refused or overwritten because of a stale negative entry, nor opened
 * without O_CREAT's creation because of a stale positive one.  After the
 * deadline, the lower's revalidation is asked once: valid renews the
 * deadline, invalid drops the dentry.  A hit also checks, without a lower
 * call, what the lower already knows: an attached lower dentry that was
 * unhashed, silly-renamed or changed object, a lower inode whose last link
 * went, a negative lower dentry that became positive.
 *
 * Detached positive entries.  The entry cache must keep unused positive
 * dentries, but a cached upper dentry holding its lower dentry would make the
 * lower dentry look busy to NFS: an unlink (or rename over it) done directly
 * on the lower, by a local process, would then silly-rename the file and leave
 * a .nfsXXXX file on the server for as long as we cache the name.  So when the
 * last reference to a positive non-directory goes, ->d_delete (under d_lock,
 * where we cannot dput()) detaches the lower dentry: mc_dentry::lower becomes
 * NULL and the reference is handed to a work item (mc_lower_put_defer()).  The
 * upper inode keeps its reference to the lower inode (an inode reference does
 * not make NFS silly-rename), and getattr is answered from the attribute cache
 * without a lower dentry.  A positive non-directory made by a lookup or a
 * listing starts detached.  Whoever needs the lower dentry finds it for the
 * time of its use (mc_get_lower_path(), mc_get_child() in inode.c): in the
 * lower dcache with d_lookup(), which calls nothing in the lower file system,
 * and only if the lower dcache no longer has it by a real lower lookup; if the
 * name now names another object, that is -ESTALE (the VFS retries with
 * LOOKUP_REVAL, which drops our dentry).  open(O_CREAT) makes its new dentry
 * detached too (the open file holds the lower dentry); the other creations let
 * go of it when they are done, if nobody else uses the new dentry.  Only
 * link() and an unlink of a dentry that others still use attach one again.
 * While our entry is fresh the lower dentry found is not revalidated: that is
 * the point of the cache.  Directories keep their lower dentry (NFS never
 * silly-renames a directory, and their children need the lower parent), so
 * does the root.  Negative dentries hold none once unused either: a lookup
 * makes them detached, an unlink through us lets go of the lower dentry at
 * once (mc_dentry_detach_now()), and ->d_delete detaches any other.  The name
 * may be created directly on the lower afterwards, turning a held lower dentry
 * positive, and NFS would silly-rename it at its unlink there (a .nfsXXXX file
 * left on the server for as long as our negative entry lived).  An expired
 * negative entry is looked up afresh.  Unlink and rename first drain the
 * deferred puts and the evicted dentries and wait for the cache worker
 * (mc_lower_quiesce()), so that a lower dentry we let go of does not look busy
 * to their own lower unlink or rename.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "metacache.h"

/* Intents for which the entry cache is never trusted: see above. */
#define MC_ASK_LOWER	(LOOKUP_REVAL | LOOKUP_CREATE | LOOKUP_EXCL | \
			 LOOKUP_RENAME_TARGET)

/**
 * mc_dentry_init() - attach a lower dentry to a new upper dentry
 * @dentry: the upper dentry, without d_fsdata yet
 * @lower: the lower dentry, referenced; or NULL (detached, see above)
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
	mcd->dentry = dentry;
	mcd->state = MC_DS_NONE;
	INIT_LIST_HEAD(&mcd->node);
	dentry->d_fsdata = mcd;
	return 0;
}

/**
 * mc_dentry_set_lower() - replace the lower dentry of a negative upper one
 * @dentry: the upper dentry, negative
 * @lower: the new lower dentry, its reference consumed; or NULL to detach
 *
 * Used when a lower creation left its dentry unhashed and we looked the
 * name up again, and by ->atomic_open, whose new dentry starts detached.
 * Drops the reference to the previous lower dentry: callers must not use a
 * borrowed pointer to it afterwards.
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
 * mc_dentry_attach() - give a detached upper dentry its lower dentry back
 * @dentry: the upper dentry, referenced by the caller
 * @lower: the lower dentry, the object @dentry names; a reference is taken
 *
 * Does nothing if @dentry has a lower dentry already (someone else attached
 * it meanwhile: the same object, see mc_lower_find()).
 */
void mc_dentry_attach(struct dentry *dentry, struct dentry *lower)
{
	struct mc_dentry *mcd = MC_D(dentry);
	bool done = false;

	spin_lock(&mcd->lock);
	if (!mcd->lower) {
		WRITE_ONCE(mcd->lower, dget(lower));
		done = true;
	}
	spin_unlock(&mcd->lock);
	pr_debug("attach %pd: %d\n", dentry, done);
}

/* Detach and return the lower dentry or NULL (a trylock: mc_dentry_detach). */
static struct dentry *mc_dentry_take_lower(struct mc_dentry *mcd)
{
	struct dentry *lower;

	if (!spin_trylock(&mcd->lock))
		return NULL;
	lower = mcd->lower;
	WRITE_ONCE(mcd->lower, NULL);
	spin_unlock(&mcd->lock);
	return lower;
}

/**
 * mc_dentry_detach_now() - let go of the lower dentry if nobody else uses
 * the upper one
 * @dentry: the upper dentry, a non-directory, referenced by the caller only
 *
 * For a dentry about to become a negative entry (mc_unlink()) or just
 * created (mc_create_object()), see the top of this file: saves ->d_delete
 * a deferred lower dput().  Under d_lock, so
 * that no other user can take the upper dentry meanwhile; one that comes
 * later finds the lower dentry itself.  If that cannot be done now,
 * ->d_delete detaches it later.
 *
 * Context: process context, may sleep (the lower dput()).
 */
void mc_dentry_detach_now(struct dentry *dentry)
{
	struct dentry *old = NULL;

	spin_lock(&dentry->d_lock);
	if (d_count(dentry) == 1)
		old = mc_dentry_take_lower(MC_D(dentry));
	spin_unlock(&dentry->d_lock);
	dput(old);
}

/**
 * mc_dentry_lower() - borrow the lower dentry of an upper dentry
 * @dentry: the upper dentry, referenced by the caller
 *
 * No reference is taken: the result is valid as long as @dentry is
 * referenced and either @dentry is positive or the caller holds its
 * parent's i_rwsem (see struct mc_dentry).  Never NULL for a directory.
 * Namespace operations use this for parents, so that they add no reference
 * to the lower dentry: NFS silly-renames an unlinked dentry that has other
 * users.
 *
 * Return: the lower dentry, or NULL if detached.
 */
struct dentry *mc_dentry_lower(const struct dentry *dentry)
{
	return READ_ONCE(MC_D(dentry)->lower);
}

/**
 * mc_lower_find() - find the lower dentry of a detached upper dentry
 * @dentry: the upper dentry, referenced
 * @lower_dir: its lower parent, if the caller holds its i_rwsem (then the
 *	       lookup is made under it); NULL to use the upper parent's
 *	       lower dentry, unlocked
 *
 * In the lower dcache first, which makes no call into the lower file
 * system; else by a lower lookup.  The result must be the object @dentry
 * says: the same lower inode, or negative for a negative @dentry.
 *
 * Return: a referenced lower dentry, -ESTALE if the name names something
 * else now, or another ERR_PTR from the lower lookup.
 */
struct dentry *mc_lower_find(struct dentry *dentry, struct dentry *lower_dir)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct dentry *parent = NULL, *lower;
	struct name_snapshot name;
	struct qstr q;
	bool locked = !!lower_dir;

	if (!lower_dir) {
		parent = dget_parent(dentry);
		/* A directory: never detached (see struct mc_dentry). */
		lower_dir = mc_dentry_lower(parent);
	}
	take_dentry_name_snapshot(&name, dentry);
	q = name.name;
	lower = d_hash_and_lookup(lower_dir, &q);
	if (IS_ERR_OR_NULL(lower) || d_unhashed(lower) ||
	    !mc_same_object(dentry, lower)) {
		if (!IS_ERR_OR_NULL(lower))
			dput(lower);
		if (locked)
			lower = mc_lower_lookup_locked(sbi, lower_dir,
						       &name.name);
		else
			lower = mc_lower_lookup(sbi, lower_dir, &name.name);
		if (!IS_ERR(lower) && !mc_same_object(dentry, lower)) {
			dput(lower);
			lower = ERR_PTR(-ESTALE);
		}
	}
	release_dentry_name_snapshot(&name);
	dput(parent);
	pr_debug("find %pd: %d\n", dentry, PTR_ERR_OR_ZERO(lower));
	return lower;
}

/**
 * mc_get_lower_path() - get the lower path of an upper dentry
 * @dentry: the upper dentry, referenced by the caller
 * @lower_path: filled with the lower mount and dentry, both referenced
 *
 * The caller owns the references and drops them with mc_put_lower_path().
 * Safe without any upper lock.  A detached positive dentry stays detached:
 * the lower one is found (in the lower dcache, as a rule) for this use.
 *
 * A positive upper dentry may have lost its lower object: unlinked through
 * us while another user, who got the upper dentry after mc_unlink() looked
 * (see there), keeps it positive; or unlinked or replaced on the lower
 * while we had it detached.  That is -ESTALE, and so is a lower dentry of
 * any other object; as long as we hold the reference taken here, the
 * lower dentry cannot turn negative or change its inode.
 *
 * Return: 0, or -ESTALE (or a lower lookup's error) and nothing to put.
 */
int mc_get_lower_path(const struct dentry *dentry, struct path *lower_path)
{
	struct mc_dentry *mcd = MC_D(dentry);
	struct dentry *lower;

	spin_lock(&mcd->lock);
	lower = dget(mcd->lower);
	spin_unlock(&mcd->lock);
	if (!lower) {
		lower = mc_lower_find((struct dentry *)dentry, NULL);
		if (IS_ERR(lower))
			return PTR_ERR(lower);
		/*
		 * A detached dentry stays detached: the reference is the
		 * caller's alone.  Attaching it would make the final dput()
		 * of the upper dentry detach it again, which costs a deferred
		 * lower dput() (an allocation and a work item) per use: for a
		 * stat that needed the lower's getattr, five times the rest
		 * of the stat (tests/bench, mdtest stat).
		 */
	}
	lower_path->dentry = lower;
	lower_path->mnt = mntget(MC_SB(dentry->d_sb)->lower_path.mnt);

	/*
	 * Not only a lower dentry turned negative: any lower object other
	 * than our inode's.  Handing the lower file system a dentry of
	 * another object is a wrong answer at best and a BUG() at worst:
	 * tests/stress/stress, truncate() racing renames, links and mkdirs
	 * of the same names on nfs, once reached nfs_setattr()'s
	 * BUG_ON(!S_ISREG) with a directory's lower dentry under a regular
	 * file's upper one.  Checked under our reference: a referenced
	 * positive dentry keeps its inode.
	 */
	if (unlikely(d_really_is_positive(dentry) &&
		     !mc_same_object(dentry, lower_path->dentry))) {
		pr_debug("%pd: lower %pd is another object\n", dentry,
			 lower_path->dentry);
		path_put(lower_path);
		return -ESTALE;
	}
	return 0;
}

/* mc_get_lower_obj(), and mc_peek_lower_obj() if !@drop: see there. */
static int __mc_get_lower_obj(struct dentry *dentry, struct path *lower_path,
			      bool drop)
{
	struct dentry *alias;
	int err;

	err = mc_get_lower_path(dentry, lower_path);
	if (err != -ESTALE || d_really_is_negative(dentry))
		return err;
	/*
	 * Not for a name still hashed: drop it, so that the VFS's retry with
	 * LOOKUP_REVAL walks the name afresh (stat(), chmod(), open() by
	 * path: ENOENT or the new object), or, for an open file's dentry,
	 * comes back here with it unhashed (fstatat(AT_EMPTY_PATH) and an
	 * open of /proc/self/fd/N retry; a call that does not, such as
	 * fstat(2) itself or fchmod(), sees ESTALE once).  As the VFS drops
	 * a dentry that failed ->d_revalidate: d_invalidate() also detaches
	 * what is mounted on it.
	 */
	if (!d_unhashed(dentry)) {
		if (drop)
			d_invalidate(dentry);
		return err;
	}
	alias = d_find_any_alias(mc_inode_lower(d_inode(dentry)));
	if (!alias)
		return err;
	pr_debug("%pd: the lower object, by its alias %pd\n", dentry, alias);
	lower_path->dentry = alias;
	lower_path->mnt = mntget(MC_SB(dentry->d_sb)->lower_path.mnt);
	return 0;
}

/**
 * mc_get_lower_obj() - the lower path of an upper object, for using it
 * @dentry: the upper dentry, referenced by the caller
 * @lower_path: as for mc_get_lower_path()
 *
 * For the calls on an object that also reach us from an open file: those
 * that read its attributes, extended attributes or flags (getattr,
 * getxattr, listxattr, FS_IOC_GETFLAGS: fstat(), fgetxattr(), ioctl()),
 * those that change them (setattr, setxattr, removexattr,
 * FS_IOC_SETFLAGS: fchmod(), fchown(), futimens(), fsetxattr()), ->open
 * (a reopen through /proc/self/fd/N) and ->d_weak_revalidate (a dentry
 * reached without a name, as by fstat()'s AT_EMPTY_PATH or
 * /proc/self/fd/N).  When the name no longer leads to the object (removed
 * or replaced on the lower while metacache had the name detached; NFS
 * silly-renamed a file held open), they act on the object, as the lower
 * file system does for an open file, through any alias of our lower
 * inode, but only once the upper name is dropped (see below): while it is
 * hashed, a call by path name (chmod(), open()) cannot be told from one
 * by file descriptor, and a change by name must reach what the name names
 * now, not an object the name left.  (A call by name that found the name
 * before it was dropped acts on the object, as on a local file system
 * when a rename races it.)  Calls that work on the name itself (lookup,
 * unlink, rename, link, readlink) use mc_get_lower_path().
 *
 * Return: 0, or a negative errno and nothing to put.
 */
int mc_get_lower_obj(struct dentry *dentry, struct path *lower_path)
{
	return __mc_get_lower_obj(dentry, lower_path, true);
}

/**
 * mc_peek_lower_obj() - mc_get_lower_obj() that never drops the name
 * @dentry: the upper dentry, referenced by the caller
 * @lower_path: as for mc_get_lower_path()
 *
 * For a read that the kernel itself makes on the way to a change, within
 * the same system call, and whose error it ignores: notify_change() asks
 * for security.capability (security_inode_need_killpriv()) before
 * chown(), truncate() and the like reach our ->setattr.  Dropping the name
 * there would let that ->setattr, by path name, find it dropped and act
 * on an object that left the name; the ->setattr drops it itself and
 * returns the ESTALE that makes the VFS walk the name again.
 *
 * Return: 0, or a negative errno and nothing to put.
 */
int mc_peek_lower_obj(struct dentry *dentry, struct path *lower_path)
{
	return __mc_get_lower_obj(dentry, lower_path, false);
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
 * @flags: LOOKUP_* flags
 *
 * A negative lower result gives a negative upper dentry, detached (see the top
 * of this file), and a negative entry.  Any lower error is returned as is,
 * never turned into a negative dentry.
 *
 * The lookup of a name about to be created (LOOKUP_EXCL: mkdir, mknod,
 * symlink, link) or renamed onto (LOOKUP_RENAME_TARGET) does not ask the
 * lower: the operation does, under the lower parent's lock and with the
 * intent (mc_get_child() in inode.c), so that NFS makes no LOOKUP round
 * trip, as without us.  Until then the dentry is negative, detached and not
 * cached: any other use looks it up again.  The VFS's checks of the target
 * (RENAME_NOREPLACE) are then made on the lower one by mc_rename().
 *
 * A name that the directory's fresh listing proves absent (mc_dir_lacks())
 * gets a negative entry without asking the lower, trusted no longer than
 * that listing and neg_ttl from when it was read.  Not for lookups with
 * an intent that must reach the lower (MC_ASK_LOWER: LOOKUP_REVAL, for
 * one, the ESTALE retry).
 *
 * Context: @dir's i_rwsem held shared.
 * Return: NULL, an alias of @dentry, or an ERR_PTR.
 */
struct dentry *mc_lookup(struct inode *dir, struct dentry *dentry,
			 unsigned int flags)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct inode *inode = NULL;
	struct dentry *lower, *ret;
	bool keep;
	int err;

	if (flags & (LOOKUP_EXCL | LOOKUP_RENAME_TARGET)) {
		err = mc_dentry_init(dentry, NULL);
		return err ? ERR_PTR(err) : d_splice_alias(NULL, dentry);
	}

	/* A name the directory's fresh listing does not have (dir.c). */
	if (!(flags & MC_ASK_LOWER)) {
		u64 start = mc_served_begin();
		u64 until;

		if (mc_dir_lacks(dentry, &until)) {
			err = mc_dentry_init(dentry, NULL);
			if (err)
				return ERR_PTR(err);
			ret = d_splice_alias(NULL, dentry);
			if (!IS_ERR(ret)) {
				mc_count_hit(sbi, MC_CACHE_NEG);
				mc_entry_set_until(ret ?: dentry, MC_DS_NEG,
						   until);
				mc_served(sbi, MC_OP_LOOKUP, start);
			}
			return ret;
		}
	}

	/* The parent is a positive directory: its lower one is too (mc_rmdir). */
	lower = mc_lower_lookup(sbi, mc_dentry_lower(dentry->d_parent),
				&dentry->d_name);
	if (IS_ERR(lower))
		return ERR_CAST(lower);

	/*
	 * Non-directories and negative dentries start detached (see the top
	 * of this file), as readdir priming makes them: attaching here would
	 * only make the first final dput() pay for a deferred lower dput.
	 */
	keep = d_really_is_positive(lower) && d_is_dir(lower);
	err = mc_dentry_init(dentry, keep ? lower : NULL);
	if (err) {
		dput(lower);
		return ERR_PTR(err);
	}

	/*
	 * From here on a kept @lower is @dentry's, freed by mc_d_release();
	 * another is ours until the end (the upper inode holds the lower one).
	 */
	if (d_really_is_positive(lower)) {
		inode = mc_iget(dir->i_sb, d_inode(lower));
		if (IS_ERR(inode)) {
			ret = ERR_CAST(inode);
			goto out;
		}
	}
	ret = d_splice_alias(inode, dentry);
	if (!IS_ERR(ret)) {
		mc_count_miss(sbi, inode ? MC_CACHE_ENTRY : MC_CACHE_NEG);
		mc_entry_set(ret ?: dentry, inode ? MC_DS_POS : MC_DS_NEG);
		/* The stat(2) that usually follows needs nothing more. */
		if (inode)
			mc_attr_prime_current(ret ?: dentry, lower);
		/* Many such lookups here: read the listing (dir.c). */
		if (!(flags & MC_ASK_LOWER))
			mc_dir_list_ahead(dentry->d_parent);
	}
out:
	if (!keep)
		dput(lower);
	return ret;
}

/**
 * mc_dentry_matches() - does the upper dentry still describe a lower one?
 * @dentry: the upper dentry, referenced
 * @lower: the lower dentry, referenced
 *
 * The lower one may have been changed behind our back: by another client
 * of the network file system (noticed by its own d_revalidate, which then
 * unhashes it) or by a local user of the lower directory (unlinked,
 * renamed: another parent or name).
 *
 * Context: process context, no spinlock held (takes d_locks).
 * Return: true if @lower is @dentry's object under @dentry's name.
 */
bool mc_dentry_matches(struct dentry *dentry, struct dentry *lower)
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
 * Is the cached entry of @dentry fresh, and does nothing the lower already
 * knows contradict it?  No call into the lower.  RCU-walk safe: the lower
 * dentry, the inodes and our mc_dentry are all freed after a grace period;
 * the caller's walk validates @dentry's own state afterwards.
 */
static bool mc_entry_fresh(struct mc_sb_info *sbi, struct dentry *dentry,
			   struct mc_dentry *mcd, bool *expired)
{
	struct inode *inode = READ_ONCE(dentry->d_inode);
	enum mc_cache c = inode ? MC_CACHE_ENTRY : MC_CACHE_NEG;
	struct inode *lower_inode = inode ? READ_ONCE(MC_I(inode)->lower) : NULL;
	struct dentry *lower;

	*expired = false;
	if (mc_dstate(mcd) != (inode ? MC_DS_POS : MC_DS_NEG))
		return false;
	if (!mc_fresh(READ_ONCE(mcd->deadline), mc_ttl(sbi, dentry, c))) {
		*expired = true;
		return false;
	}
	/* Pairs with mc_entry_set_until(): the user of that deadline. */
	smp_rmb();
	if (!mc_for_user(sbi, READ_ONCE(mcd->uid)))
		return false;
	/* Another spelling of the name changed since (cache.c). */
	if (sbi->names_fold && READ_ONCE(mcd->names) !=
	    mc_names_stamp_of(dentry, inode ? MC_DS_POS : MC_DS_NEG))
		return false;
	lower = READ_ONCE(mcd->lower);
	if (lower) {
		if (mc_lower_name_gone(lower) ||
		    READ_ONCE(lower->d_inode) != lower_inode)
			return false;
	} else if (lower_inode && !READ_ONCE(lower_inode->i_nlink)) {
		return false;
	}
	return true;
}

/*
 * ->d_revalidate: see the top of this file.
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
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct mc_dentry *mcd = MC_D(dentry);
	struct path lower_path;
	bool expired = false, positive;
	enum mc_cache c;
	u32 names;
	int ret;

	/*
	 * NFSv2/v3 check a file with the server (close-to-open) when a path
	 * walk's last step opens it: pass that step on (sbi->open_reval).
	 */
	if (!(flags & MC_ASK_LOWER) &&
	    !(sbi->open_reval && (flags & LOOKUP_OPEN) && d_is_reg(dentry)) &&
	    mc_entry_fresh(sbi, dentry, mcd, &expired)) {
		mc_count_hit(sbi, d_really_is_positive(dentry) ?
				  MC_CACHE_ENTRY : MC_CACHE_NEG);
		mc_served(sbi, MC_OP_REVALIDATE, start);
		return 1;
	}
	if (flags & LOOKUP_RCU)
		return -ECHILD;

	positive = d_really_is_positive(dentry);
	c = positive ? MC_CACHE_ENTRY : MC_CACHE_NEG;
	mc_count_miss(sbi, c);
	/* Before the lower answers: see "Name generations" in cache.c. */
	names = mc_names_stamp_of(dentry, positive ? MC_DS_POS : MC_DS_NEG);
	/*
	 * Not fresh for a change of another spelling: the lower may still
	 * hold its own answer from before it, which it renews without asking
	 * the server (cifs: a negative dentry for 1 s, attributes for
	 * actimeo).  A found name asks it with LOOKUP_REVAL, a missing one
	 * is looked up again (a lower lookup drops such a negative dentry).
	 */
	if (sbi->names_fold && READ_ONCE(mcd->names) != names) {
		if (!positive) {
			ret = 0;
			goto out;
		}
		flags |= LOOKUP_REVAL;
	}
	/* A negative entry without lower dentry: look the name up again. */
	if (!positive && !mc_dentry_lower(dentry)) {
		ret = 0;
		goto out;
	}
	if (mc_get_lower_path(dentry, &lower_path)) {
		ret = 0;
		goto out;
	}
	ret = mc_lower_revalidate(sbi, lower_path.dentry, flags);
	if (ret > 0 && !mc_dentry_matches(dentry, lower_path.dentry))
		ret = 0;
	if (ret > 0) {
		if (positive)
			mc_copy_attr(d_inode(dentry));
		mc_entry_set_stamped(dentry, positive ? MC_DS_POS : MC_DS_NEG,
				     names);
	}
	mc_put_lower_path(&lower_path);
out:
	if (expired && ret > 0)
		mc_count_renewed(sbi, c);
	else if (expired && !ret)
		mc_count_expired(sbi, c);
	pr_debug("d_revalidate %pd 0x%x: %d\n", dentry, flags, ret);
	return ret;
}

/*
 * ->d_weak_revalidate: called on the last component of a path that was not
 * reached by a lookup (".", "..", a mount point, /proc/self/fd/N).  A fresh
 * entry (and our root, which has none) is valid; otherwise we pass it on
 * (NFS checks the attributes) and refresh the upper inode.
 */
static int mc_d_weak_revalidate(struct dentry *dentry, unsigned int flags)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct path lower_path;
	bool expired;
	int ret;

	if (!(flags & LOOKUP_REVAL)) {
		if (IS_ROOT(dentry) ? mc_ttl(sbi, dentry, MC_CACHE_ENTRY) :
		    mc_entry_fresh(sbi, dentry, MC_D(dentry), &expired)) {
			mc_served(sbi, MC_OP_REVALIDATE, start);
			return 1;
		}
	}
	/* The object, not a name: fstat() is one of these (AT_EMPTY_PATH). */
	if (mc_get_lower_obj(dentry, &lower_path))
		return 0;
	ret = mc_lower_weak_revalidate(sbi, lower_path.dentry, flags);
	if (ret > 0 && d_really_is_positive(dentry))
		mc_copy_attr(d_inode(dentry));
	mc_put_lower_path(&lower_path);
	return ret;
}

/*
 * Detach the lower dentry of @dentry (see the top of this file) and hand
 * our reference to it to the deferred puts.
 *
 * Called under @dentry's d_lock, and mc_get_lower_path() takes the lower
 * dentry's d_lock (dget()) under @mcd->lock: two different dentries, but
 * lockdep has one class for every d_lock and reported the pair as a
 * cycle (debug kernel lane).  A trylock records no dependency; it fails
 * only if someone holds @mcd->lock right now, and then the dentry is just
 * not kept.
 *
 * Return: false if that was not possible (contention, no memory).
 */
static bool mc_dentry_detach(const struct dentry *dentry,
			     struct mc_dentry *mcd)
{
	struct dentry *lower;

	lockdep_assert_held(&dentry->d_lock);

	if (!spin_trylock(&mcd->lock))
		return false;
	lower = mcd->lower;
	if (lower && !mc_lower_put_defer(MC_SB(dentry->d_sb), lower)) {
		spin_unlock(&mcd->lock);
		return false;
	}
	WRITE_ONCE(mcd->lower, NULL);
	spin_unlock(&mcd->lock);
	return true;
}

/*
 * ->d_delete, called under d_lock when the last reference to @dentry goes:
 * should it be freed now rather than kept in the dcache?
 *
 * A positive non-directory is kept with its lower dentry detached (see the
 * top of this file), unless the entry cache is off: then it is not kept,
 * as the pass-through layer did (the next use looks the name up again,
 * which finds the lower dentry in the lower dcache).  A lower dentry that
 * died (unhashed, silly-renamed, another object) is not kept either.
 *
 * A negative dentry is kept, detached, only as a negative entry of the
 * negative cache, and not if its lower dentry died otherwise than by our
 * rmdir (the lower learned that the name changed).  Directories and the
 * root keep their lower dentry and are kept unless it died.
 */
static int mc_d_delete(const struct dentry *dentry)
{
	struct mc_dentry *mcd = MC_D(dentry);
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	const struct dentry *lower;
	bool dead;

	if (!mcd)
		return 1;
	if (IS_ROOT(dentry))
		return 0;
	lower = READ_ONCE(mcd->lower);
	/*
	 * Under d_lock: the mount's TTLs only (mc_ttl() with no dentry), no
	 * policy rule walk.  A name kept here under a BYPASS rule is still
	 * revalidated with the lower at its next use (mc_ttl() is 0 there).
	 */
	if (d_really_is_positive(dentry) && !d_is_dir(dentry)) {
		if (!mc_ttl(sbi, NULL, MC_CACHE_ENTRY))
			return 1;
		if (!lower)
			return 0;
		if (mc_lower_name_gone(lower) ||
		    d_inode(lower) != mc_inode_lower(d_inode(dentry)))
			return 1;
		return !mc_dentry_detach(dentry, mcd);
	}
	if (d_really_is_negative(dentry)) {
		if (READ_ONCE(mcd->state) != MC_DS_NEG ||
		    !mc_ttl(sbi, NULL, MC_CACHE_NEG))
			return 1;
		if (!lower)
			return 0;
		dead = mc_lower_name_gone(lower);
		/*
		 * Kept: a live negative lower dentry, or the directory we
		 * removed (mc_rmdir(): positive, dead).  Not: one that died
		 * negative, or came to life (created on the lower).
		 */
		if (d_really_is_positive(lower) != dead)
			return 1;
		return !mc_dentry_detach(dentry, mcd);
	}
	if (!lower)
		return 0;
	dead = d_unhashed(lower) ||
	       (READ_ONCE(lower->d_flags) & DCACHE_NFSFS_RENAMED);
	return dead;
}

static void mc_dentry_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(mc_dentry_cachep,
			container_of(head, struct mc_dentry, rcu));
}

/*
 * ->d_release: forget the entry, drop the lower dentry now and free the
 * mc_dentry after a grace period (RCU-walk may still be looking at it).
 * d_fsdata is NULL for a dentry whose lookup failed before
 * mc_dentry_init().
 */
static void mc_d_release(struct dentry *dentry)
{
	struct mc_dentry *mcd = MC_D(dentry);

	if (!mcd)
		return;
	mc_entry_clear(dentry);
	dput(mcd->lower);
	call_rcu(&mcd->rcu, mc_dentry_free_rcu);
}

const struct dentry_operations mc_dentry_ops = {
	.d_revalidate		= mc_d_revalidate,
	.d_weak_revalidate	= mc_d_weak_revalidate,
	.d_delete		= mc_d_delete,
	.d_release		= mc_d_release,
};
