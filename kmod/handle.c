// SPDX-License-Identifier: GPL-2.0
/*
 * metacache - the open-handle cache: deferred close
 *
 * Over NFS and SMB every open() and close() is a round trip (OPEN/CLOSE,
 * SMB2 CREATE/CLOSE).  When the last reference to an upper regular file
 * opened read-only goes, its lower file is kept open for close_ttl seconds
 * in a per-inode list instead of being closed; the next read-only open of
 * the same inode with the same open flags and the same credentials takes
 * it instead of opening the lower file again.
 *
 * Only read-only opens: a lower file opened for writing is closed at its
 * last close, as without metacache.  What a server does at the close of a
 * written file must happen then: SMB servers set the file's modification
 * time at CLOSE (and cifs sets it locally when it closes), and writes and
 * their errors are the writer's business at close.  The open-heavy work
 * this is for (web and build servers, indexers, tools reading headers and
 * configuration) reads.
 *
 * What is never shared or reused:
 *  - One cached lower file serves one upper file at a time: it is taken
 *    off the list when handed out, and only goes back at that upper file's
 *    release.  flock, OFD locks and leases belong to an open file: a lower
 *    file that ever had a lock is not cached at all (MC_FILE_HAS_LOCKS).
 *  - A handle is handed only to an opener with the same identity as the
 *    one who opened it (fsuid, fsgid, supplementary groups, effective
 *    capabilities and their namespace, LSM label: mc_cred_same()), and only
 *    after the VFS checked the new open's permission with the caller's
 *    credentials (may_open() runs before ->open, through mc_permission()).
 *    A kept file holds its opener's cred, keyrings included: handed to a
 *    caller of another session (other keyrings), it is closed at his
 *    release rather than kept again (mc_cred_keys_same()).
 *  - Opens that must reach the server: any open for writing, O_TRUNC,
 *    O_DIRECT, exclusive or new files (FMODE_CREATED), O_TMPFILE, exec
 *    opens, and any flag other than the handle's.
 *  - Files with several names are not kept: cifs without server inode
 *    numbers gives each name its own inode, whose page cache would not
 *    see a write made through another name.
 *
 * close(2) still calls the lower ->flush at every close (mc_flush()).
 *
 * Cached handles of an inode are closed, synchronously, before anything a
 * held-open lower file would disturb: unlink, rename of it or over it (of
 * every file, for a directory rename: SMB refuses to rename a directory with
 * open files below), truncate, setting a lock, an exec open; and at the
 * inode's eviction (so also when the metadata cache learns the name is gone or
 * replaced), a flush and unmount.  Closing means the final fput() of the lower
 * file, done by a kernel worker (__fput_sync()) that the caller waits for: the
 * lower sees the file closed before the unlink, so NFS does not silly-rename.
 *
 * Bounds: at most max_handles per mount (the oldest is closed first), an
 * expiry work item that closes what outlived close_ttl (the mount's, or a
 * policy rule's for files under the rule's directory), and a shrinker.  A
 * change of the mount's tunables or rules closes every kept handle
 * (mc_handles_retune()).
 *
 * Staleness: a handle is reused for at most close_ttl seconds after its
 * close.  The lower client's close-to-open check (NFS asks the server for
 * the attributes at OPEN and drops cached data of a changed file) is done
 * by mc_open() when it reuses a handle and the attribute cache is not
 * fresh: data read through a reused handle is no older than attr_ttl
 * (Documentation/coherence.md).
 */

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/pagemap.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "metacache.h"

/*
 * struct mc_handle - one lower file kept open after its upper file closed.
 * Kept: on its inode's mc_inode_info::handles, on mc_sb_info::handle_lru
 * (in close order, for max_handles and the shrinker) and in
 * mc_sb_info::handle_deadlines (in deadline order, for the expiry pass).
 * Or on mc_sb_info::handle_dispose (by @lru) on its way to be closed.
 * All under mc_sb_info::handle_lock.
 */
struct mc_handle {
	struct list_head inode_node;
	struct list_head lru;
	struct rb_node by_deadline;
	struct mc_inode_info *mi;	/* NULL once on handle_dispose */
	struct file *lower;		/* counted reference */
	unsigned int flags;		/* open flags it was opened with */
	u64 deadline;			/* jiffies_64 */
};

static struct kmem_cache *mc_handle_cachep;

/* The memory one kept handle pins here: the lower struct file is most of it. */
size_t mc_handle_bytes(void)
{
	return sizeof(struct mc_handle) + sizeof(struct file);
}

/*
 * The open flags that must match for a handle to be reused.
 * __FMODE_NONOTIFY: fanotify's own opens (its event files) pass it to the
 * lower file, whose reads then raise no events; an ordinary open must not
 * get such a file, nor fanotify one that raises them.
 */
#define MC_HANDLE_KEY_FLAGS	(O_ACCMODE | O_APPEND | O_NONBLOCK | O_DSYNC | \
				 __O_SYNC | O_NOATIME | O_LARGEFILE | \
				 O_DIRECT | FASYNC | O_PATH | O_DIRECTORY | \
				 O_NOFOLLOW | __FMODE_NONOTIFY)

/* Opens that always reach the lower file system. */
#define MC_HANDLE_NEVER_FLAGS	(O_TRUNC | O_DIRECT | __O_TMPFILE | \
				 __FMODE_EXEC | O_PATH)

static bool mc_handle_cacheable_open(const struct file *file)
{
	return S_ISREG(file_inode(file)->i_mode) &&
	       !(file->f_flags & MC_HANDLE_NEVER_FLAGS) &&
	       !(file->f_mode & FMODE_CREATED);
}

/*
 * Deadlines are not in close order: a policy rule gives the files under
 * its directory a close_ttl of their own.  Ordered by deadline, the expiry
 * pass takes the expired ones from the left, and the earliest deadline
 * left is the leftmost, whatever the number of kept handles.
 */
static bool mc_handle_deadline_less(struct rb_node *a, const struct rb_node *b)
{
	return time_before64(rb_entry(a, struct mc_handle, by_deadline)->deadline,
			     rb_entry(b, struct mc_handle, by_deadline)->deadline);
}

static struct mc_handle *mc_handle_earliest_locked(struct mc_sb_info *sbi)
{
	struct rb_node *n = rb_first_cached(&sbi->handle_deadlines);

	lockdep_assert_held(&sbi->handle_lock);
	return n ? rb_entry(n, struct mc_handle, by_deadline) : NULL;
}

/* Take a kept @h off its inode, the LRU and the deadlines. */
static void mc_handle_take_locked(struct mc_sb_info *sbi, struct mc_handle *h)
{
	lockdep_assert_held(&sbi->handle_lock);
	list_del_init(&h->inode_node);
	list_del_init(&h->lru);
	rb_erase_cached(&h->by_deadline, &sbi->handle_deadlines);
	sbi->nr_handles--;
}

/* Move a kept @h to the dispose list. */
static void mc_handle_unhook_locked(struct mc_sb_info *sbi, struct mc_handle *h)
{
	mc_handle_take_locked(sbi, h);
	h->mi = NULL;
	list_add_tail(&h->lru, &sbi->handle_dispose);
}

/*
 * The closing worker: the final fput() of each disposed lower file, done
 * synchronously (__fput_sync() is for kernel threads) so that whoever
 * waits on this work knows the lower file system saw the close.
 */
static void mc_handle_dispose_work(struct work_struct *work)
{
	struct mc_sb_info *sbi = container_of(work, struct mc_sb_info,
					      handle_dispose_work);
	struct mc_handle *h, *next;
	LIST_HEAD(list);

	spin_lock(&sbi->handle_lock);
	list_splice_init(&sbi->handle_dispose, &list);
	spin_unlock(&sbi->handle_lock);
	list_for_each_entry_safe(h, next, &list, lru) {
		trace_metacache_handle(sbi->id, file_inode(h->lower)->i_ino,
				       MC_HANDLE_CLOSE);
		mc_lower_release_sync(sbi, h->lower);
		kmem_cache_free(mc_handle_cachep, h);
		cond_resched();
	}
}

/* Close what is on the dispose list; wait for it if @wait. */
static void mc_handle_dispose(struct mc_sb_info *sbi, bool wait)
{
	queue_work(system_unbound_wq, &sbi->handle_dispose_work);
	if (wait)
		flush_work(&sbi->handle_dispose_work);
}

/* Make sure the expiry pass runs no later than @deadline. */
static void mc_handle_arm_by_locked(struct mc_sb_info *sbi, u64 deadline)
{
	struct delayed_work *dw = &sbi->handle_expire_work;
	u64 now = get_jiffies_64();
	unsigned long delay;

	lockdep_assert_held(&sbi->handle_lock);
	if (sbi->handles_dead)
		return;
	delay = time_after64(deadline, now) ?
		min_t(u64, deadline - now, MAX_JIFFY_OFFSET) : 0;
	delay = max_t(unsigned long, delay, HZ / 10);
	if (!delayed_work_pending(dw) ||
	    time_before(jiffies + delay, READ_ONCE(dw->timer.expires)))
		mod_delayed_work(system_unbound_wq, dw, delay);
}

/*
 * Move every handle kept when this began to the dispose list, oldest
 * first, MC_SCAN_BATCH per hold of handle_lock: max_handles may be in the
 * millions, and opens and closes wait on the lock.  Handles kept meanwhile
 * (a close under the new settings) come after them on the LRU and may
 * stay.
 * Context: process context.  Return: how many were moved.
 */
static unsigned long mc_handles_unhook_all(struct mc_sb_info *sbi)
{
	unsigned long n = 0, todo;
	struct mc_handle *h;
	int i;

	spin_lock(&sbi->handle_lock);
	todo = sbi->nr_handles;
	for (;;) {
		for (i = 0; i < MC_SCAN_BATCH; i++, n++) {
			if (n >= todo || list_empty(&sbi->handle_lru))
				goto out;
			h = list_first_entry(&sbi->handle_lru, struct mc_handle,
					     lru);
			mc_handle_unhook_locked(sbi, h);
			mc_count_evicted(sbi, MC_CACHE_HANDLE);
		}
		spin_unlock(&sbi->handle_lock);
		cond_resched();
		spin_lock(&sbi->handle_lock);
	}
out:
	spin_unlock(&sbi->handle_lock);
	return n;
}

/**
 * mc_handles_retune() - the mount's tunables or policy rules changed
 * @sbi: the mount
 *
 * Closes every kept handle, so that each handle is kept under the settings
 * in force: a handle cache switched off (close_ttl 0, `handle off`,
 * max_handles 0, a bypass rule) holds no lower file open from here on, and
 * a rule's close_ttl, longer or shorter than the mount's, is what each
 * handle's deadline says.  Reopening costs one lower open per file, and
 * changes are an administrator's, rare.  A mc_handle_put() that read the
 * old settings sees @handle_gen moved and keeps nothing.
 *
 * Context: process context; the caller stored the new tunables or rule
 * table before the call.
 */
void mc_handles_retune(struct mc_sb_info *sbi)
{
	if (!sbi->handle_lru.next)
		return;		/* never initialised */
	/* The new settings before the generation: see mc_handle_put(). */
	smp_wmb();
	spin_lock(&sbi->handle_lock);
	WRITE_ONCE(sbi->handle_gen, sbi->handle_gen + 1);
	spin_unlock(&sbi->handle_lock);
	/* Kept from here on: under the new settings. */
	if (mc_handles_unhook_all(sbi))
		mc_handle_dispose(sbi, false);
}

/*
 * After the @n-th handle a walk unhooked: every MC_SCAN_BATCH, let go of
 * handle_lock for a moment, so that opens and closes on the mount do not
 * wait behind a long walk.  The walker re-reads what it walks after.
 */
static void mc_handle_batch_locked(struct mc_sb_info *sbi, unsigned long n)
{
	lockdep_assert_held(&sbi->handle_lock);
	if (n % MC_SCAN_BATCH)
		return;
	spin_unlock(&sbi->handle_lock);
	cond_resched();
	spin_lock(&sbi->handle_lock);
}

/*
 * The expiry pass: closes what outlived its deadline, then re-arms for the
 * earliest deadline left.  It looks only at the handles it closes and the
 * first one it keeps (handle_deadlines), so that its time under the lock
 * does not grow with max_handles; it lets go of the lock after every
 * MC_SCAN_BATCH of those it closes.
 */
static void mc_handle_expire_work(struct work_struct *work)
{
	struct mc_sb_info *sbi = container_of(to_delayed_work(work),
					      struct mc_sb_info,
					      handle_expire_work);
	u32 max = mc_max_handles(sbi);
	u64 now = get_jiffies_64();
	struct mc_handle *h;
	unsigned long n = 0;

	spin_lock(&sbi->handle_lock);
	while ((h = mc_handle_earliest_locked(sbi)) &&
	       !time_before64(now, h->deadline)) {
		mc_handle_unhook_locked(sbi, h);
		mc_count_expired(sbi, MC_CACHE_HANDLE);
		mc_handle_batch_locked(sbi, ++n);
	}
	/* A lowered max_handles (retune closed them all; belt and braces). */
	while (sbi->nr_handles > max) {
		h = list_first_entry(&sbi->handle_lru, struct mc_handle, lru);
		mc_handle_unhook_locked(sbi, h);
		mc_count_evicted(sbi, MC_CACHE_HANDLE);
		mc_handle_batch_locked(sbi, ++n);
	}
	h = mc_handle_earliest_locked(sbi);
	if (h)
		mc_handle_arm_by_locked(sbi, h->deadline);
	spin_unlock(&sbi->handle_lock);
	/*
	 * Through the work item, not by calling it: mc_handles_close(wait)
	 * flushes that work item to know the lower saw every close, and
	 * would not wait for closes done here.
	 */
	if (n)
		mc_handle_dispose(sbi, false);
}

/**
 * mc_handle_get() - take a cached lower file for an upper open
 * @file: the upper file being opened (f_flags, f_mode and f_cred set)
 *
 * Context: process context, ->open.
 * Return: the lower file (the caller owns its reference), or NULL: open
 * the lower file.
 */
struct file *mc_handle_get(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	unsigned int key = file->f_flags & MC_HANDLE_KEY_FLAGS;
	struct file *lower = NULL;
	struct mc_handle *h, *next;
	bool expired = false, gone = false;
	u32 ttl;

	if (!S_ISREG(inode->i_mode) || list_empty_careful(&mi->handles))
		return NULL;
	if (!mc_handle_cacheable_open(file)) {
		/* An exec must not meet a lower file held open for write. */
		if (file->f_flags & __FMODE_EXEC)
			mc_handles_close(inode, true);
		return NULL;
	}
	ttl = mc_ttl(sbi, file_dentry(file), MC_CACHE_HANDLE);
	spin_lock(&sbi->handle_lock);
	list_for_each_entry_safe(h, next, &mi->handles, inode_node) {
		/*
		 * The lower name went away since the handle was kept (removed
		 * or renamed on the lower directly, NFS silly-renamed it): an
		 * open of its own would not find this file.  Close it.
		 */
		if (mc_lower_name_gone(h->lower->f_path.dentry)) {
			mc_handle_unhook_locked(sbi, h);
			mc_count_evicted(sbi, MC_CACHE_HANDLE);
			gone = true;
			continue;
		}
		if (h->flags != key || !mc_cred_same(h->lower->f_cred,
						     file->f_cred))
			continue;
		if (!mc_fresh(h->deadline, ttl)) {
			expired = true;
			continue;
		}
		lower = h->lower;
		mc_handle_take_locked(sbi, h);
		break;
	}
	spin_unlock(&sbi->handle_lock);
	/*
	 * Closed before the open goes on to the lower: cifs would hand the
	 * new lower open the very handle that is being closed.
	 */
	if (gone)
		mc_handle_dispose(sbi, true);
	if (!lower) {
		if (expired)
			mc_count_expired(sbi, MC_CACHE_HANDLE);
		mc_count_miss(sbi, MC_CACHE_HANDLE);
		return NULL;
	}
	kmem_cache_free(mc_handle_cachep, h);
	/*
	 * Renamed on the lower directly since (d_move() keeps the lower
	 * dentry hashed, under its new name): not the file this name opens.
	 * Not under handle_lock, a leaf: the check takes d_locks.
	 */
	if (!mc_dentry_matches(file_dentry(file), lower->f_path.dentry)) {
		mc_count_evicted(sbi, MC_CACHE_HANDLE);
		mc_count_miss(sbi, MC_CACHE_HANDLE);
		mc_lower_release(sbi, lower);
		return NULL;
	}
	mc_count_hit(sbi, MC_CACHE_HANDLE);
	trace_metacache_handle(sbi->id, inode->i_ino, MC_HANDLE_REUSE);
	/*
	 * A fresh start for the new upper file, as an open of its own would
	 * have: position, read-ahead state and advice (fadvise), and the
	 * writeback error samples, so that its fsync() does not report an
	 * error from before this open.
	 */
	lower->f_pos = 0;
	lower->f_mode &= ~FMODE_RANDOM;
	file_ra_state_init(&lower->f_ra, lower->f_mapping);
	lower->f_wb_err = filemap_sample_wb_err(lower->f_mapping);
	lower->f_sb_err = file_sample_sb_err(lower);
	return lower;
}

/**
 * mc_handle_put() - keep a lower file open after its upper file's release
 * @file: the upper file being released
 * @lower: its lower file
 *
 * Context: process context, ->release.
 * Return: true if the handle cache took @lower (and its reference); false
 * if the caller must release it.
 */
bool mc_handle_put(struct file *file, struct file *lower)
{
	struct inode *inode = file_inode(file);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	unsigned int gen = READ_ONCE(sbi->handle_gen);
	struct mc_handle *h, *old;
	bool evicted = false;
	u32 ttl, max;

	/*
	 * The settings after the generation (pairs with the smp_wmb() in
	 * mc_handles_retune()): if they are the old ones, the generation
	 * read here is too, and the check under the lock below sees it move.
	 */
	smp_rmb();
	ttl = mc_ttl(sbi, file_dentry(file), MC_CACHE_HANDLE);
	max = mc_max_handles(sbi);

	/*
	 * A file this open created is rarely opened again with the same
	 * (write) flags soon, and a kept handle of a new file is what other
	 * users would trip over (an unlink on the lower mount silly-renames
	 * it, SMB keeps it delete-pending): close it.  f_flags no longer has
	 * O_TRUNC here; a truncating open's handle may be kept.
	 */
	if (!ttl || !max || !S_ISREG(inode->i_mode) ||
	    (file->f_flags & MC_HANDLE_NEVER_FLAGS) ||
	    (file->f_mode & (FMODE_CREATED | FMODE_WRITE)) ||
	    test_bit(MC_FILE_HAS_LOCKS, &MC_F(file)->flags) ||
	    test_bit(MC_FILE_NOCACHE, &MC_F(file)->flags) ||
	    inode->i_nlink != 1 || d_unhashed(file_dentry(file)))
		return false;
	/*
	 * A kept lower file holds the cred it was opened with, and so that
	 * cred's keyrings, which count against the user's key quota.  Handed
	 * to an opener of another session (the same identity, other
	 * keyrings), it is closed at his release, not kept again: a session
	 * that has ended is held no longer than close_ttl after its own last
	 * close, however often others reuse the file.
	 */
	if (!mc_cred_keys_same(lower->f_cred, file->f_cred))
		return false;
	h = kmem_cache_alloc(mc_handle_cachep, GFP_KERNEL);
	if (!h)
		return false;
	h->lower = lower;
	h->flags = file->f_flags & MC_HANDLE_KEY_FLAGS;
	h->deadline = mc_deadline(ttl);

	spin_lock(&sbi->handle_lock);
	/*
	 * The lower name went away under the file (NFS silly-renamed it for
	 * a rename over it or an unlink while it was open, or the lower
	 * dropped it): keeping it open would keep the .nfsXXXX file.  Under
	 * the lock: ordered after an unlink's or rename's mc_handles_allow().
	 * Nor if the settings changed since @ttl was read.
	 */
	if (sbi->handles_dead || sbi->handles_forbidden ||
	    mi->handles_forbidden || gen != sbi->handle_gen ||
	    mc_lower_name_gone(lower->f_path.dentry)) {
		spin_unlock(&sbi->handle_lock);
		kmem_cache_free(mc_handle_cachep, h);
		return false;
	}
	h->mi = mi;
	list_add(&h->inode_node, &mi->handles);
	list_add_tail(&h->lru, &sbi->handle_lru);
	rb_add_cached(&h->by_deadline, &sbi->handle_deadlines,
		      mc_handle_deadline_less);
	sbi->nr_handles++;
	while (sbi->nr_handles > max) {
		old = list_first_entry(&sbi->handle_lru, struct mc_handle, lru);
		mc_handle_unhook_locked(sbi, old);
		mc_count_evicted(sbi, MC_CACHE_HANDLE);
		evicted = true;
	}
	mc_handle_arm_by_locked(sbi, h->deadline);
	spin_unlock(&sbi->handle_lock);
	trace_metacache_handle(sbi->id, inode->i_ino, MC_HANDLE_KEEP);
	if (evicted)
		mc_handle_dispose(sbi, false);
	return true;
}

/**
 * mc_handles_close() - close the cached handles of an inode
 * @inode: an upper inode of any type (only regular files have handles)
 * @wait: wait until the lower file system saw them closed
 *
 * For unlink, rename, truncate, locks, exec (@wait: when this returns, the
 * lower has seen every cached lower file of @inode closed), and eviction
 * (no wait: it may run in reclaim, and a handle holds its own references
 * to everything below).
 *
 * Context: process context; with @wait it sleeps, and the caller may hold
 * the upper locks the VFS holds for those operations, no lower ones.
 */
void mc_handles_close(struct inode *inode, bool wait)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	struct mc_handle *h, *next;
	bool pending = false;

	/*
	 * With @wait, even with none of its own left on the inode: the
	 * expiry pass, the shrinker, max_handles or a flush may have taken a
	 * handle of this inode off it a moment ago, and the worker may not
	 * have closed it yet.  Returning then let an unlink find the lower
	 * file still open (NFS silly-renamed it: a .nfsXXXX file left behind;
	 * found by tests/debug/faults lower_calls on nfs).  Such a handle is
	 * on handle_dispose until the worker takes it, and whoever put it
	 * there may not have queued the worker yet: queue it ourselves then.
	 * Once the worker took the list, flush_work() waits for it.
	 */
	if (wait || !list_empty_careful(&mi->handles)) {
		spin_lock(&sbi->handle_lock);
		list_for_each_entry_safe(h, next, &mi->handles, inode_node) {
			mc_handle_unhook_locked(sbi, h);
			mc_count_evicted(sbi, MC_CACHE_HANDLE);
		}
		pending = !list_empty(&sbi->handle_dispose);
		spin_unlock(&sbi->handle_lock);
	}
	if (pending)
		queue_work(system_unbound_wq, &sbi->handle_dispose_work);
	if (wait)
		flush_work(&sbi->handle_dispose_work);
}

/**
 * mc_handles_forbid() - close an inode's kept handles and keep none until
 * mc_handles_allow()
 * @inode: an upper inode of any type
 *
 * For unlink, rename and truncate: mc_handles_close() alone left a window
 * in which a concurrent close kept a handle again after the close and
 * before the lower operation, which then found the file open (cifs:
 * delete-pending, still listed; NFS: silly-renamed).  Found by
 * tests/stress/stress on cifs: after a flush the stack still listed an
 * unlinked file.  Nests: each call needs its mc_handles_allow().
 *
 * Context: process context, sleeps (waits for the closes).
 */
void mc_handles_forbid(struct inode *inode)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);

	if (!S_ISREG(inode->i_mode))
		return;
	spin_lock(&sbi->handle_lock);
	MC_I(inode)->handles_forbidden++;
	spin_unlock(&sbi->handle_lock);
	mc_handles_close(inode, true);
}

/**
 * mc_handles_allow() - end what mc_handles_forbid() began
 * @inode: the same inode
 */
void mc_handles_allow(struct inode *inode)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);

	if (!S_ISREG(inode->i_mode))
		return;
	spin_lock(&sbi->handle_lock);
	WARN_ON_ONCE(!MC_I(inode)->handles_forbidden);
	MC_I(inode)->handles_forbidden--;
	spin_unlock(&sbi->handle_lock);
}

/**
 * mc_handles_flush() - close every cached handle of a mount, and wait
 * @sbi: the mount
 *
 * Every handle kept when it began; with the mount's handles forbidden or
 * dead, that is every handle.
 *
 * Context: process context, may sleep.
 * Return: how many handles were closed.
 */
int mc_handles_flush(struct mc_sb_info *sbi)
{
	unsigned long n = mc_handles_unhook_all(sbi);

	mc_handle_dispose(sbi, true);
	return min_t(unsigned long, n, INT_MAX);
}

/**
 * mc_handles_forbid_all() - close every kept handle of a mount and keep
 * none until mc_handles_allow_all()
 * @sbi: the mount
 *
 * For a directory rename: SMB refuses to rename a directory with a file
 * open below it, and a file closed between the flush and the lower rename
 * would otherwise be kept again.  Nests.
 *
 * Context: process context, sleeps (waits for the closes).
 */
void mc_handles_forbid_all(struct mc_sb_info *sbi)
{
	spin_lock(&sbi->handle_lock);
	sbi->handles_forbidden++;
	spin_unlock(&sbi->handle_lock);
	mc_handles_flush(sbi);
}

/**
 * mc_handles_allow_all() - end what mc_handles_forbid_all() began
 * @sbi: the same mount
 */
void mc_handles_allow_all(struct mc_sb_info *sbi)
{
	spin_lock(&sbi->handle_lock);
	WARN_ON_ONCE(!sbi->handles_forbidden);
	sbi->handles_forbidden--;
	spin_unlock(&sbi->handle_lock);
}

static unsigned long mc_handle_shrink_count(struct shrinker *shrink,
					    struct shrink_control *sc)
{
	struct mc_sb_info *sbi = container_of(shrink, struct mc_sb_info,
					      handle_shrinker);

	return READ_ONCE(sbi->nr_handles) ?: SHRINK_EMPTY;
}

/* Close the oldest; the closing itself is left to the worker. */
static unsigned long mc_handle_shrink_scan(struct shrinker *shrink,
					   struct shrink_control *sc)
{
	struct mc_sb_info *sbi = container_of(shrink, struct mc_sb_info,
					      handle_shrinker);
	unsigned long n = 0;
	struct mc_handle *h;

	spin_lock(&sbi->handle_lock);
	while (n < sc->nr_to_scan && !list_empty(&sbi->handle_lru)) {
		h = list_first_entry(&sbi->handle_lru, struct mc_handle, lru);
		mc_handle_unhook_locked(sbi, h);
		mc_count_evicted(sbi, MC_CACHE_HANDLE);
		n++;
	}
	spin_unlock(&sbi->handle_lock);
	if (n)
		mc_handle_dispose(sbi, false);
	return n ?: SHRINK_STOP;
}

/**
 * mc_handles_init() - set up the handle cache of a new mount
 * @sbi: the mount, being filled
 *
 * Context: process context.
 * Return: 0 or -ENOMEM (the shrinker); mc_handles_stop() undoes it.
 */
int mc_handles_init(struct mc_sb_info *sbi)
{
	spin_lock_init(&sbi->handle_lock);
	INIT_LIST_HEAD(&sbi->handle_lru);
	sbi->handle_deadlines = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&sbi->handle_dispose);
	INIT_WORK(&sbi->handle_dispose_work, mc_handle_dispose_work);
	INIT_DELAYED_WORK(&sbi->handle_expire_work, mc_handle_expire_work);
	sbi->handle_shrinker.count_objects = mc_handle_shrink_count;
	sbi->handle_shrinker.scan_objects = mc_handle_shrink_scan;
	sbi->handle_shrinker.seeks = DEFAULT_SEEKS;
	if (register_shrinker(&sbi->handle_shrinker, "metacache-handles-%u",
			      sbi->id))
		return -ENOMEM;
	sbi->handle_shrinker_registered = true;
	return 0;
}

/**
 * mc_handles_stop() - close every handle and take no more: unmount
 * @sbi: the mount, no longer reachable by new opens
 *
 * Called before the super block's inodes are evicted, so that no lower
 * file of ours keeps the lower mount busy after the unmount returns.
 * Safe on a mount whose mc_handles_init() failed or never ran.
 *
 * Context: process context, may sleep.
 */
void mc_handles_stop(struct mc_sb_info *sbi)
{
	if (!sbi->handle_lru.next)
		return;		/* never initialised */
	if (sbi->handle_shrinker_registered) {
		unregister_shrinker(&sbi->handle_shrinker);
		sbi->handle_shrinker_registered = false;
	}
	spin_lock(&sbi->handle_lock);
	sbi->handles_dead = true;
	spin_unlock(&sbi->handle_lock);
	cancel_delayed_work_sync(&sbi->handle_expire_work);
	mc_handles_flush(sbi);
	flush_work(&sbi->handle_dispose_work);
}

/**
 * mc_handle_cache_init() - the module's handle slab
 *
 * Return: 0 or -ENOMEM.
 */
int __init mc_handle_cache_init(void)
{
	mc_handle_cachep = KMEM_CACHE(mc_handle, 0);
	return mc_handle_cachep ? 0 : -ENOMEM;
}

/* mc_handle_cache_exit() - free the slab; every mount is gone. */
void mc_handle_cache_exit(void)
{
	kmem_cache_destroy(mc_handle_cachep);
}
