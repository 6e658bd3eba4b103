// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the machinery shared by metacache's metadata caches.
 *
 * Four caches, each with a TTL (mc_ttl(), 0 = off); the coherence model is
 * in Documentation/coherence.md:
 *
 *  entry	a positive upper dentry is fresh until mc_dentry::deadline:
 *		->d_revalidate answers 1 without asking the lower (namei.c);
 *  neg		the same for a negative dentry: the name is known missing;
 *  attr	the lower getattr's result, per inode (mc_attr_*() below),
 *		and with it the lower's permission answers (mc_perm_*());
 *  dir		a directory's listing, a refcounted snapshot (dir.c).
 *
 * What lives here:
 *  - the per-mount lists: cached dentries (positive and negative, oldest
 *    first) and installed listings, all under mc_sb_info::cache_lock, with
 *    their counts; a flush keeps its place in a list with a cursor while
 *    it lets go of the lock (mc_is_cursor());
 *  - the limits: max_neg negative entries, max_entries positive entries
 *    plus listing entries; going over evicts the oldest at once;
 *  - eviction: the entry loses its cached state; a dentry nobody uses is
 *    also freed: we take a reference and unhash it under its d_lock (so no
 *    lookup can find it again), queue it on ->dispose and dput() it later,
 *    from process context without our spinlock (mc_dispose());
 *  - the lower dentries that ->d_delete detaches (namei.c) are dput() the
 *    same way, from ->lower_puts;
 *  - the expiry pass, a delayed work that frees expired negative entries
 *    and listings, so memory comes back without waiting for the dcache's
 *    LRU; the shrinker, which under memory pressure frees expired, then the
 *    oldest entries; mc_cache_flush();
 *  - the attribute and permission caches of an inode, and a symlink's
 *    target (with the attributes' TTL);
 *  - the counters read by debugfs.c.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/bitmap.h>
#include <linux/bsearch.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/nfs_fs.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "metacache.h"
#include "ctl.h"

/* Period of the expiry pass, in seconds. */
#define MC_EXPIRE_MIN	1
#define MC_EXPIRE_MAX	60

static void mc_link_drop(struct inode *inode);

/* Lower dentries ->d_delete detached: dput() them from process context. */

struct mc_lower_put {
	struct llist_node node;
	struct dentry *dentry;
};

/**
 * mc_lower_put_defer() - dput() a lower dentry later
 * @sbi: the mount
 * @lower: the lower dentry; our reference is consumed (later)
 *
 * Context: any, also under spinlocks (->d_delete holds d_lock).
 * Return: false (and nothing done) if no memory.
 */
bool mc_lower_put_defer(struct mc_sb_info *sbi, struct dentry *lower)
{
	struct mc_lower_put *p = kmalloc(sizeof(*p), GFP_ATOMIC | __GFP_NOWARN);

	if (!p)
		return false;
	p->dentry = lower;
	if (llist_add(&p->node, &sbi->lower_puts))
		queue_work(system_wq, &sbi->work);
	return true;
}

/**
 * mc_lower_puts_drain() - drop the lower dentries detached so far
 * @sbi: the mount
 *
 * A namespace operation calls this first, so that a lower dentry we no
 * longer hold does not look busy to the lower file system (NFS would
 * silly-rename it).
 *
 * Context: process context, may sleep.
 */
void mc_lower_puts_drain(struct mc_sb_info *sbi)
{
	struct llist_node *list = llist_del_all(&sbi->lower_puts);
	struct mc_lower_put *p, *next;

	llist_for_each_entry_safe(p, next, list, node) {
		dput(p->dentry);
		kfree(p);
	}
}

/* Entries */

static enum mc_cache mc_state_cache(u8 state)
{
	return state == MC_DS_POS ? MC_CACHE_ENTRY : MC_CACHE_NEG;
}

/* Take @mcd off its list: nothing cached any more. */
static void mc_entry_unlist(struct mc_sb_info *sbi, struct mc_dentry *mcd)
{
	lockdep_assert_held(&sbi->cache_lock);

	if (mcd->state != MC_DS_POS && mcd->state != MC_DS_NEG)
		return;
	list_del_init(&mcd->node);
	sbi->nr[mc_state_cache(mcd->state)]--;
	WRITE_ONCE(mcd->deadline, 0);
	mc_dstate_set(mcd, MC_DS_NONE);
}

/*
 * Evict @mcd: drop its cached state, and if nobody uses its dentry, unhash
 * it with a reference of ours and queue it on ->dispose to be freed.
 * Return: true if queued (the caller must see that mc_dispose() runs).
 */
static bool mc_entry_evict_locked(struct mc_sb_info *sbi,
				  struct mc_dentry *mcd)
{
	struct dentry *dentry = mcd->dentry;
	bool queued = false;

	lockdep_assert_held(&sbi->cache_lock);

	mc_entry_unlist(sbi, mcd);
	if (sbi->dying)
		return false;
	spin_lock(&dentry->d_lock);
	if (!dentry->d_lockref.count && !d_unhashed(dentry) &&
	    !d_mountpoint(dentry) && !IS_ROOT(dentry)) {
		dget_dlock(dentry);
		__d_drop(dentry);
		mc_dstate_set(mcd, MC_DS_DISPOSE);
		list_add_tail(&mcd->node, &sbi->dispose);
		queued = true;
	}
	spin_unlock(&dentry->d_lock);
	return queued;
}

/* Free the dentries eviction queued.  Process context, may sleep. */
static void mc_dispose(struct mc_sb_info *sbi)
{
	struct mc_dentry *mcd, *next;
	LIST_HEAD(list);

	spin_lock(&sbi->cache_lock);
	list_splice_init(&sbi->dispose, &list);
	spin_unlock(&sbi->cache_lock);

	list_for_each_entry_safe(mcd, next, &list, node) {
		struct dentry *dentry = mcd->dentry;

		/* Ours alone and unhashed: nobody else reaches @mcd now. */
		list_del_init(&mcd->node);
		mc_dstate_set(mcd, MC_DS_NONE);
		dput(dentry);
		cond_resched();
	}
}

static void mc_cache_work(struct work_struct *work)
{
	struct mc_sb_info *sbi = container_of(work, struct mc_sb_info, work);

	mc_lower_puts_drain(sbi);
	mc_dispose(sbi);
}

/**
 * mc_lower_quiesce() - let go of every lower dentry we no longer need, and
 * wait until it is let go of
 * @sbi: the mount
 *
 * For unlink and rename, before the lower one: a lower dentry still held
 * by something of ours other than the dentry being unlinked looks busy,
 * and NFS silly-renames it (a .nfsXXXX file left in the directory).
 * Besides the deferred puts, an evicted upper dentry waiting on ->dispose
 * still holds its lower dentry, which a new upper dentry of the same name
 * shares; and the cache worker may have taken either list a moment ago
 * and not be done with it.  Found by tests/debug/faults lower_calls on
 * nfs, where the caches evict at every injected failure.
 *
 * Context: process context, may sleep; not from sbi->work itself.
 */
void mc_lower_quiesce(struct mc_sb_info *sbi)
{
	mc_lower_puts_drain(sbi);
	mc_dispose(sbi);
	flush_work(&sbi->work);
	/* What the dentries just freed let go of. */
	mc_lower_puts_drain(sbi);
}

/* Listings */

/* Drop @snap from its directory; the directory's reference goes to @put. */
static void mc_snap_unhook_locked(struct mc_sb_info *sbi,
				  struct mc_dirsnap *snap,
				  struct list_head *put)
{
	lockdep_assert_held(&sbi->cache_lock);

	RCU_INIT_POINTER(snap->owner->snap, NULL);
	snap->owner = NULL;
	list_move_tail(&snap->lru, put);
	sbi->nr[MC_CACHE_DIR] -= snap->nr;
	sbi->dir_bytes -= snap->bytes;
}

/* Put the listings mc_snap_unhook_locked() collected.  May sleep. */
static void mc_snaps_put(struct list_head *put)
{
	struct mc_dirsnap *snap, *next;

	list_for_each_entry_safe(snap, next, put, lru) {
		list_del_init(&snap->lru);
		mc_dirsnap_put(snap);
	}
}

/*
 * List cursors.  mc_cache_flush() lets go of cache_lock on its way through
 * an lru[] list and marks its place there with a cursor: a struct
 * mc_dentry of its own with a NULL @dentry, which it alone moves or
 * removes.  Every other walker steps over cursors.
 */
static bool mc_is_cursor(const struct mc_dentry *mcd)
{
	return !mcd->dentry;
}

/* The oldest entry of list @c that is not a cursor, or NULL. */
static struct mc_dentry *mc_lru_first(struct mc_sb_info *sbi, enum mc_cache c)
{
	struct mc_dentry *mcd;

	lockdep_assert_held(&sbi->cache_lock);
	list_for_each_entry(mcd, &sbi->lru[c], node)
		if (!mc_is_cursor(mcd))
			return mcd;
	return NULL;
}

/*
 * Keep the caches within their limits: evict the oldest negative entries
 * above max_neg; the oldest positive entries or listings (whichever
 * expires first) above max_entries.  At most *@budget entries and
 * listings if @budget (which counts down), else as many as it takes.
 * Return: true if dentries were queued for mc_dispose().
 */
static bool mc_trim_locked(struct mc_sb_info *sbi, struct list_head *put,
			   unsigned long *budget)
{
	u32 max_neg = mc_max_neg(sbi), max = mc_max_entries(sbi);
	struct mc_dentry *mcd;
	bool queued = false;

	lockdep_assert_held(&sbi->cache_lock);

	while (sbi->nr[MC_CACHE_NEG] > max_neg && (!budget || *budget) &&
	       (mcd = mc_lru_first(sbi, MC_CACHE_NEG))) {
		queued |= mc_entry_evict_locked(sbi, mcd);
		mc_count_evicted(sbi, MC_CACHE_NEG);
		if (budget)
			--*budget;
	}
	while (sbi->nr[MC_CACHE_ENTRY] + sbi->nr[MC_CACHE_DIR] > max &&
	       (!budget || *budget)) {
		struct mc_dirsnap *snap = list_first_entry_or_null(&sbi->snaps,
						struct mc_dirsnap, lru);

		if (budget)
			--*budget;
		mcd = mc_lru_first(sbi, MC_CACHE_ENTRY);
		if (snap && (!mcd || time_before_eq64(snap->deadline,
						       mcd->deadline))) {
			mc_snap_unhook_locked(sbi, snap, put);
			mc_count_evicted(sbi, MC_CACHE_DIR);
		} else if (mcd) {
			queued |= mc_entry_evict_locked(sbi, mcd);
			mc_count_evicted(sbi, MC_CACHE_ENTRY);
		} else {
			break;
		}
	}
	return queued;
}

/*
 * Make room for one more entry on list @c (ENTRY or NEG) before it is
 * added, so that its counter never passes its limit, not even inside
 * cache_lock: the counters are read without it (mc_cache_read()).  Found
 * by tests/reliability/mempressure, whose sampler saw max_neg + 1.
 * mc_trim_locked() after the addition still applies the limit on
 * entries + listing entries.
 * Return: true if dentries were queued for mc_dispose().
 */
static bool mc_room_locked(struct mc_sb_info *sbi, enum mc_cache c)
{
	u32 max = c == MC_CACHE_NEG ? mc_max_neg(sbi) : mc_max_entries(sbi);
	struct mc_dentry *mcd;
	bool queued = false;

	lockdep_assert_held(&sbi->cache_lock);

	while (sbi->nr[c] && sbi->nr[c] >= max &&
	       (mcd = mc_lru_first(sbi, c))) {
		queued |= mc_entry_evict_locked(sbi, mcd);
		mc_count_evicted(sbi, c);
	}
	return queued;
}

/* After mc_trim_locked() and friends, with cache_lock released. */
static void mc_trim_done(struct mc_sb_info *sbi, bool queued,
			 struct list_head *put)
{
	mc_snaps_put(put);
	if (queued)
		queue_work(system_wq, &sbi->work);
}

/* Names that may vanish without us (struct mc_vanish) */

static u32 mc_vanish_hash(const unsigned char *name, unsigned int len)
{
	return full_name_hash(NULL, name, len);
}

/* Is a name of @mi (a directory) with @hash one that may vanish? */
static bool mc_vanish_has_locked(struct mc_inode_info *mi, u32 hash)
{
	struct mc_vanish *v = mi->vanish;
	u32 i;

	if (!v)
		return false;
	if (v->overflow)
		return true;
	for (i = 0; i < v->nr; i++)
		if (v->hash[i] == hash)
			return true;
	return false;
}

/**
 * mc_vanish_add() - remember a name of @dir that may vanish without us
 * @dir: the upper directory
 * @name: the name, as the lower lists it
 *
 * Called after a lower unlink, rmdir or rename over of an object still in
 * use.  Until a fresh listing of @dir no longer has the name, or the name
 * is created again through us (mc_vanish_forget()), no listing of @dir is
 * cached (mc_vanish_settled()) and no positive entry is cached for the
 * name (mc_entry_set()): either would outlive the name by up to its TTL
 * once the last handle closes.  Drops @dir's cached listing.
 *
 * The set grows as needed; past MC_VANISH_MAX names every name of @dir
 * counts (overflow), until @dir is evicted: which names went can no
 * longer be told.  Its memory is not optional (__GFP_NOFAIL, at most a
 * page): without it a stale listing could be cached.
 *
 * Context: process context, may sleep; @dir's i_rwsem held exclusively.
 */
void mc_vanish_add(struct inode *dir, const struct qstr *name)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct mc_inode_info *mi = MC_I(dir);
	u32 hash = mc_vanish_hash(name->name, name->len);
	struct mc_vanish *new = NULL, *old = NULL, *v;
	u32 cap;

	for (;;) {
		spin_lock(&sbi->cache_lock);
		v = mi->vanish;
		if (mc_vanish_has_locked(mi, hash))
			break;
		if (v && v->nr < v->cap) {
			v->hash[v->nr++] = hash;
			break;
		}
		if (v && v->cap >= MC_VANISH_MAX) {
			v->overflow = true;
			break;
		}
		if (new && new->cap > (v ? v->nr : 0)) {
			if (v) {
				memcpy(new->hash, v->hash,
				       v->nr * sizeof(v->hash[0]));
				new->nr = v->nr;
			}
			new->hash[new->nr++] = hash;
			old = v;
			WRITE_ONCE(mi->vanish, new);
			new = NULL;
			break;
		}
		cap = v ? min_t(u32, 2 * v->cap, MC_VANISH_MAX) : 4;
		spin_unlock(&sbi->cache_lock);
		kfree(new);
		new = kzalloc(struct_size(new, hash, cap),
			      GFP_KERNEL | __GFP_NOFAIL);
		new->cap = cap;
	}
	/* A listing read before this is not cached: mc_vanish_settled(). */
	mi->dir_gen++;
	spin_unlock(&sbi->cache_lock);
	kfree(new);
	kfree(old);
	mc_dir_invalidate(dir);
}

/**
 * mc_vanish_forget() - a name of @dir was created through us
 * @dir: the upper directory
 * @name: the name
 *
 * The lower created it, so what was removed under that name has gone
 * (SMB refuses to create over a delete-pending name; NFS's is .nfsXXXX).
 *
 * Context: process context; @dir's i_rwsem held exclusively.
 */
void mc_vanish_forget(struct inode *dir, const struct qstr *name)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct mc_inode_info *mi = MC_I(dir);
	struct mc_vanish *v, *old = NULL;
	u32 hash, i;

	if (likely(!READ_ONCE(mi->vanish)))
		return;
	hash = mc_vanish_hash(name->name, name->len);
	spin_lock(&sbi->cache_lock);
	v = mi->vanish;
	if (v && !v->overflow) {
		for (i = 0; i < v->nr; i++) {
			if (v->hash[i] == hash) {
				v->hash[i] = v->hash[--v->nr];
				break;
			}
		}
		if (!v->nr) {
			old = v;
			WRITE_ONCE(mi->vanish, NULL);
		}
	}
	/* The same generation means the same names: mc_vanish_settled(). */
	mi->dir_gen++;
	spin_unlock(&sbi->cache_lock);
	kfree(old);
}

static int mc_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/**
 * mc_vanish_settled() - may a fresh listing of @dir be cached?
 * @dir: the upper directory
 * @snap: the listing, just read from the lower
 * @gen: mc_dir_gen() from before the lower was read
 *
 * Forgets the remembered names that @snap no longer has (they have
 * vanished), if the set did not change since @gen.
 *
 * Return: true if no name of @dir may vanish without us any more.
 */
bool mc_vanish_settled(struct inode *dir, struct mc_dirsnap *snap, u32 gen)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct mc_inode_info *mi = MC_I(dir);
	struct mc_vanish *v, *old = NULL;
	unsigned long *seen;
	u32 *want, nr, i, k;
	bool settled;

	if (likely(!READ_ONCE(mi->vanish)))
		return true;
	/* At most MC_VANISH_MAX: a copy to look names up in, sorted. */
	want = kmalloc_array(MC_VANISH_MAX, sizeof(*want), GFP_KERNEL);
	seen = bitmap_zalloc(MC_VANISH_MAX, GFP_KERNEL);
	if (!want || !seen) {
		settled = false;
		goto out_free;
	}
	spin_lock(&sbi->cache_lock);
	v = mi->vanish;
	if (!v || v->overflow || mi->dir_gen != gen) {
		settled = !v;
		spin_unlock(&sbi->cache_lock);
		goto out_free;
	}
	nr = v->nr;
	memcpy(want, v->hash, nr * sizeof(*want));
	spin_unlock(&sbi->cache_lock);

	sort(want, nr, sizeof(*want), mc_u32_cmp, NULL);
	for (i = 0; i < snap->nr; i++) {
		const struct mc_dirent *e = snap->ents[i];
		u32 h = mc_vanish_hash(e->name, e->len);
		u32 *hit = bsearch(&h, want, nr, sizeof(*want), mc_u32_cmp);

		if (hit)
			__set_bit(hit - want, seen);
		if (!(i & 1023))
			cond_resched();
	}

	spin_lock(&sbi->cache_lock);
	v = mi->vanish;
	/* Every change of the set bumps dir_gen: the same names as copied. */
	if (v && mi->dir_gen == gen) {
		for (i = 0, k = 0; i < nr; i++)
			if (test_bit(i, seen))
				v->hash[k++] = want[i];
		v->nr = k;
		if (!k) {
			old = v;
			WRITE_ONCE(mi->vanish, NULL);
		}
	}
	settled = !mi->vanish;
	spin_unlock(&sbi->cache_lock);
	kfree(old);
out_free:
	bitmap_free(seen);
	kfree(want);
	return settled;
}

/*
 * Name generations: other spellings of a name (mc_sb_info::names_fold)
 *
 * A server that ignores case finds "README" when "readme" exists.  A local
 * change of "readme" therefore changes what "README" finds, and our cached
 * entry for "README" is not the one the change updates: after
 * `touch readme`, a "README" cached as missing would stay missing for
 * neg_ttl; after `mv readme x`, a "README" cached as found would stay
 * found for entry_ttl.  We cannot tell which spellings a server folds
 * together (Unicode case, 8.3 short names), nor always that two spellings
 * found one object (cifs without server inode numbers, which it may turn
 * off by itself mid-mount, gives each spelling an inode of its own), so on
 * such a lower a local change makes the entries of its directory that it
 * may contradict ask the lower once more:
 *  - a name added (create, mkdir, mknod, symlink, link, rename target) can
 *    turn any missing name of the directory into a found one: its
 *    negative entries, by the directory's @names_added;
 *  - a name removed or rebound (unlink, rmdir, both names of a rename)
 *    can make any found name of the directory miss or find another
 *    object: its positive entries, by the directory's @names_removed.
 * Both are set from the mount's @names_seq (unique across directories:
 * an entry never matches another directory's value by chance).  Each
 * entry keeps, in mc_dentry::names, the value of its kind when its state
 * was set; it is fresh only while that is still current (mc_entry_fresh()
 * in namei.c).  So creating files keeps the found names of the directory
 * cached, removing one keeps its missing names, and other directories
 * keep everything.
 *
 * The generations change after the lower change, under the directory's
 * i_rwsem held exclusively (every name change holds it), and before the
 * change sets its own entries.  An entry set under the parent's i_rwsem
 * (lookup, readdir priming, the changes themselves) takes the value of
 * the moment; a revalidation, which holds no lock, takes the one it read
 * before asking the lower (mc_entry_set_stamped()): an answer older than
 * a change is never stamped as newer.
 */

static void mc_names_bump(struct inode *dir, u32 *gen)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);

	lockdep_assert_held_write(&dir->i_rwsem);
	if (!sbi->names_fold)
		return;
	/* Pairs with mc_names_stamp_of(): after the lower change. */
	smp_store_release(gen, (u32)atomic_inc_return(&sbi->names_seq));
}

/**
 * mc_names_added() - a local change added a name to @dir
 * @dir: the upper directory, i_rwsem held exclusively
 *
 * Called after the lower change, whether it succeeded or not (it may have
 * been done in part), before the change sets its own entries.
 */
void mc_names_added(struct inode *dir)
{
	mc_names_bump(dir, &MC_I(dir)->names_added);
}

/**
 * mc_names_removed() - a local change removed or rebound a name of @dir
 * @dir: the upper directory, i_rwsem held exclusively
 *
 * Called as mc_names_added().
 */
void mc_names_removed(struct inode *dir)
{
	mc_names_bump(dir, &MC_I(dir)->names_removed);
}

/**
 * mc_names_stamp_of() - the name generation an entry of @dentry must carry
 * @dentry: the upper dentry
 * @state: MC_DS_POS or MC_DS_NEG
 *
 * Context: any, also RCU-walk (inodes are freed after a grace period).
 * Return: 0 on a mount whose lower compares names exactly.
 */
u32 mc_names_stamp_of(struct dentry *dentry, u8 state)
{
	struct inode *dir;
	u32 *gen, names = 0;

	if (!MC_SB(dentry->d_sb)->names_fold)
		return 0;
	rcu_read_lock();
	dir = d_inode_rcu(READ_ONCE(dentry->d_parent));
	if (dir) {
		gen = state == MC_DS_NEG ? &MC_I(dir)->names_added :
					   &MC_I(dir)->names_removed;
		/* Pairs with mc_names_bump(): the lower is asked after. */
		names = smp_load_acquire(gen);
	}
	rcu_read_unlock();
	return names;
}

static void mc_entry_store(struct dentry *dentry, u8 state, u64 until,
			   u32 names);

/**
 * mc_entry_set() - (re)start the lifetime of a dentry's cached entry
 * @dentry: the upper dentry, referenced by the caller
 * @state: MC_DS_POS (the lower confirmed the name exists, as @dentry says)
 *	   or MC_DS_NEG (the lower said "no such name")
 *
 * Called when the lower confirmed the entry (lookup, revalidation,
 * readdir priming) or after a local change made it so (create, unlink,
 * rename).  Moves the entry to the young end of its list and applies the
 * limits.  A TTL of 0 clears the entry instead.
 *
 * Context: process context, no spinlock held.
 */
void mc_entry_set(struct dentry *dentry, u8 state)
{
	mc_entry_set_until(dentry, state, U64_MAX);
}

/**
 * mc_entry_set_until() - mc_entry_set(), trusted no later than @until
 * @dentry: the upper dentry
 * @state: MC_DS_POS or MC_DS_NEG
 * @until: jiffies_64: the entry's deadline is the earlier of this and its
 *	   TTL from now (an answer derived from older knowledge, such as a
 *	   listing, lives no longer than that knowledge is trusted)
 *
 * Such an entry may expire before older ones in its list: the expiry pass
 * (oldest first, up to the first fresh one) frees it later, but a use
 * checks its deadline, so it is never served after @until.
 */
void mc_entry_set_until(struct dentry *dentry, u8 state, u64 until)
{
	mc_entry_store(dentry, state, until, mc_names_stamp_of(dentry, state));
}

/**
 * mc_entry_set_stamped() - mc_entry_set() with a given name generation
 * @dentry: the upper dentry
 * @state: MC_DS_POS or MC_DS_NEG
 * @names: mc_names_stamp_of(@dentry, @state), read before the lower
 *	   answered (see "Name generations" above)
 *
 * For a revalidation, which holds no lock of the parent.
 */
void mc_entry_set_stamped(struct dentry *dentry, u8 state, u32 names)
{
	mc_entry_store(dentry, state, U64_MAX, names);
}

static void mc_entry_store(struct dentry *dentry, u8 state, u64 until,
			   u32 names)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct mc_dentry *mcd = MC_D(dentry);
	enum mc_cache c = mc_state_cache(state);
	struct inode *vdir = NULL;
	u32 ttl, hash = 0;
	u64 deadline;
	bool queued;
	LIST_HEAD(put);

	if (!mcd || IS_ROOT(dentry))
		return;
	ttl = mc_ttl(sbi, dentry, c);
	if (!ttl) {
		mc_entry_clear(dentry);
		return;
	}

	/*
	 * A name of its directory that may vanish without us gets no
	 * positive entry (struct mc_vanish).  rcu_read_lock() keeps the
	 * parent's inode; mc_vanish_add() runs under the parent's i_rwsem,
	 * held by lookups and priming, the other callers that can race.
	 */
	rcu_read_lock();
	if (state == MC_DS_POS && !d_is_dir(dentry)) {
		vdir = d_inode_rcu(READ_ONCE(dentry->d_parent));
		if (vdir && READ_ONCE(MC_I(vdir)->vanish)) {
			spin_lock(&dentry->d_lock);
			hash = mc_vanish_hash(dentry->d_name.name,
					      dentry->d_name.len);
			spin_unlock(&dentry->d_lock);
		} else {
			vdir = NULL;
		}
	}

	spin_lock(&sbi->cache_lock);
	if (unlikely(sbi->dying || mcd->state == MC_DS_DISPOSE)) {
		spin_unlock(&sbi->cache_lock);
		rcu_read_unlock();
		return;
	}
	if (unlikely(vdir && mc_vanish_has_locked(MC_I(vdir), hash))) {
		mc_entry_unlist(sbi, mcd);
		spin_unlock(&sbi->cache_lock);
		rcu_read_unlock();
		return;
	}
	queued = false;
	deadline = min(mc_deadline(ttl), until);
	WRITE_ONCE(mcd->uid, current_fsuid());
	WRITE_ONCE(mcd->names, names);
	/*
	 * Pairs with mc_entry_fresh(): a new deadline comes with its user
	 * and name generation.
	 */
	smp_wmb();
	if (mcd->state == state) {
		WRITE_ONCE(mcd->deadline, deadline);
		list_move_tail(&mcd->node, &sbi->lru[c]);
	} else {
		mc_entry_unlist(sbi, mcd);
		queued = mc_room_locked(sbi, c);
		WRITE_ONCE(mcd->deadline, deadline);
		list_add_tail(&mcd->node, &sbi->lru[c]);
		sbi->nr[c]++;
		/* Publishes @deadline with @state to RCU-walk. */
		mc_dstate_set(mcd, state);
	}
	queued |= mc_trim_locked(sbi, &put, NULL);
	spin_unlock(&sbi->cache_lock);
	rcu_read_unlock();
	mc_trim_done(sbi, queued, &put);
}

/**
 * mc_entry_clear() - forget what is cached about a dentry's name
 * @dentry: the upper dentry
 *
 * The next revalidation asks the lower.  Context: no spinlock held.
 */
void mc_entry_clear(struct dentry *dentry)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct mc_dentry *mcd = MC_D(dentry);

	if (!mcd || !READ_ONCE(mcd->state))
		return;
	spin_lock(&sbi->cache_lock);
	mc_entry_unlist(sbi, mcd);
	spin_unlock(&sbi->cache_lock);
}

/* Expiry, shrinking, flushing */

/*
 * Evict up to @budget entries of list @c: expired ones (from the old end,
 * stopping at the first fresh one) or, if !@expired_only, the oldest.
 * Return: how many were evicted.
 */
static unsigned long mc_evict_list(struct mc_sb_info *sbi, enum mc_cache c,
				   unsigned long budget, bool expired_only)
{
	unsigned long done = 0;
	struct mc_dentry *mcd;
	bool queued = false;

	spin_lock(&sbi->cache_lock);
	while (done < budget && (mcd = mc_lru_first(sbi, c))) {
		bool fresh = mc_fresh(mcd->deadline,
				      mc_ttl(sbi, mcd->dentry, c));

		if (fresh && expired_only)
			break;
		queued |= mc_entry_evict_locked(sbi, mcd);
		if (fresh)
			mc_count_evicted(sbi, c);
		else
			mc_count_expired(sbi, c);
		if (!(++done % MC_SCAN_BATCH)) {
			spin_unlock(&sbi->cache_lock);
			cond_resched();
			spin_lock(&sbi->cache_lock);
		}
	}
	spin_unlock(&sbi->cache_lock);
	if (queued)
		mc_dispose(sbi);
	return done;
}

/* As mc_evict_list(), for the installed listings. */
static unsigned long mc_evict_snaps(struct mc_sb_info *sbi,
				    unsigned long budget, bool expired_only)
{
	unsigned long done = 0, n = 0;
	LIST_HEAD(put);

	spin_lock(&sbi->cache_lock);
	while (done < budget && !list_empty(&sbi->snaps)) {
		struct mc_dirsnap *snap = list_first_entry(&sbi->snaps,
						struct mc_dirsnap, lru);
		bool fresh = mc_fresh(snap->deadline,
				      mc_ttl(sbi, NULL, MC_CACHE_DIR));

		if (fresh && expired_only)
			break;
		done += snap->nr ?: 1;
		mc_snap_unhook_locked(sbi, snap, &put);
		if (fresh)
			mc_count_evicted(sbi, MC_CACHE_DIR);
		else
			mc_count_expired(sbi, MC_CACHE_DIR);
		if (!(++n % MC_SCAN_BATCH)) {
			spin_unlock(&sbi->cache_lock);
			cond_resched();
			spin_lock(&sbi->cache_lock);
		}
	}
	spin_unlock(&sbi->cache_lock);
	mc_snaps_put(&put);
	return done;
}

static unsigned long mc_expire_period(struct mc_sb_info *sbi)
{
	u32 neg = mc_ttl(sbi, NULL, MC_CACHE_NEG);
	u32 dir = mc_ttl(sbi, NULL, MC_CACHE_DIR);
	u32 p = MC_EXPIRE_MAX;

	if (neg)
		p = min(p, neg);
	if (dir)
		p = min(p, dir);
	return (unsigned long)clamp_t(u32, p, MC_EXPIRE_MIN, MC_EXPIRE_MAX) * HZ;
}

/*
 * The expiry pass: frees expired negative entries and listings.  Expired
 * positive entries stay: a revalidation can renew them with one lower call,
 * where a freed one would cost a lookup; the limits and the shrinker bound
 * them.
 */
static void mc_expire_work(struct work_struct *work)
{
	struct mc_sb_info *sbi = container_of(to_delayed_work(work),
					      struct mc_sb_info, expire_work);

	mc_evict_list(sbi, MC_CACHE_NEG, ULONG_MAX, true);
	mc_evict_snaps(sbi, ULONG_MAX, true);
	mc_lower_puts_drain(sbi);
	schedule_delayed_work(&sbi->expire_work, mc_expire_period(sbi));
}

static unsigned long mc_shrink_count(struct shrinker *shrink,
				     struct shrink_control *sc)
{
	struct mc_sb_info *sbi = container_of(shrink, struct mc_sb_info,
					      shrinker);
	unsigned long n = READ_ONCE(sbi->nr[MC_CACHE_NEG]) +
			  READ_ONCE(sbi->nr[MC_CACHE_ENTRY]) +
			  READ_ONCE(sbi->nr[MC_CACHE_DIR]);

	return n ?: SHRINK_EMPTY;
}

/*
 * Under memory pressure: expired entries first (negative, listings,
 * positive), then the oldest.  Freeing dentries may reach the lower file
 * system (dput, iput): not without __GFP_FS, as the dcache's own shrinker.
 */
static unsigned long mc_shrink_scan(struct shrinker *shrink,
				    struct shrink_control *sc)
{
	struct mc_sb_info *sbi = container_of(shrink, struct mc_sb_info,
					      shrinker);
	unsigned long want = sc->nr_to_scan, done = 0;
	int pass;

	if (!(sc->gfp_mask & __GFP_FS))
		return SHRINK_STOP;
	for (pass = 0; pass < 2 && done < want; pass++) {
		bool expired_only = !pass;

		done += mc_evict_list(sbi, MC_CACHE_NEG, want - done,
				      expired_only);
		if (done < want)
			done += mc_evict_snaps(sbi, want - done, expired_only);
		if (done < want)
			done += mc_evict_list(sbi, MC_CACHE_ENTRY, want - done,
					      expired_only);
	}
	mc_lower_puts_drain(sbi);
	return done;
}

/* Is @dentry @subtree or below it?  NULL @subtree: everything is. */
static bool mc_in_subtree(struct dentry *dentry, struct dentry *subtree)
{
	return !subtree || is_subdir(dentry, subtree);
}

/* Is some alias of @inode in @subtree? */
static bool mc_inode_in_subtree(struct inode *inode, struct dentry *subtree)
{
	struct dentry *alias;
	bool in;

	if (!subtree)
		return true;
	alias = d_find_any_alias(inode);
	if (!alias)
		return false;
	in = is_subdir(alias, subtree);
	dput(alias);
	return in;
}

/**
 * mc_cache_flush() - drop cached state of a mount or of a subtree
 * @sbi: the mount
 * @subtree: a dentry of this mount: only what is at or below it; or NULL
 *	     for everything
 *
 * Afterwards every cached answer in scope comes from the lower again:
 * entries (positive and negative), attributes, permission results and
 * directory listings.  Negative entries, listings, and positive entries
 * nobody uses are freed; dentries in use only lose their cached state.
 * Used by the debugfs "flush" file and by the control plane.  Flushed
 * entries count as evicted.  Concurrent lookups may cache new answers
 * while the flush runs: those came from the lower after it started.
 *
 * Context: process context, may sleep; no metacache lock held.
 * Return: how many cached answers were dropped: entries, attribute sets and
 * listings (a permission result or symlink body goes with its inode's
 * attributes and is not counted apart).
 */
int mc_cache_flush(struct mc_sb_info *sbi, struct dentry *subtree)
{
	struct super_block *sb = sbi->sb;
	struct inode *inode, *toput = NULL;
	struct mc_dirsnap *snap;
	bool queued = false;
	enum mc_cache c;
	int flushed = 0;
	LIST_HEAD(put);

	/*
	 * Listings go first: a lookup may cache a name's absence from its
	 * directory's listing (mc_dir_lacks()) while entries are flushed.
	 * All of a mount's listings go here, the oldest first again after
	 * each letting go of the lock (a listing installed meanwhile came
	 * from a lower readdir); a subtree's are found through its inodes.
	 */
	spin_lock(&sbi->cache_lock);
	while (!subtree && !list_empty(&sbi->snaps)) {
		snap = list_first_entry(&sbi->snaps, struct mc_dirsnap, lru);
		mc_snap_unhook_locked(sbi, snap, &put);
		mc_count_evicted(sbi, MC_CACHE_DIR);
		if (!(++flushed % MC_SCAN_BATCH)) {
			spin_unlock(&sbi->cache_lock);
			cond_resched();
			spin_lock(&sbi->cache_lock);
		}
	}
	spin_unlock(&sbi->cache_lock);
	mc_snaps_put(&put);

	/*
	 * Attributes, permissions, symlink bodies, a subtree's listings and
	 * "too big" marks live in the inodes.
	 */
	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		struct mc_inode_info *mi = MC_I(inode);

		if (!READ_ONCE(mi->attr_req) &&
		    !rcu_access_pointer(mi->perm_ident) &&
		    !READ_ONCE(mi->dir_toobig) && !rcu_access_pointer(mi->snap) &&
		    !rcu_access_pointer(mi->link))
			continue;
		if (!igrab(inode))
			continue;
		spin_unlock(&sb->s_inode_list_lock);
		iput(toput);
		toput = inode;
		if (mc_inode_in_subtree(inode, subtree)) {
			if (READ_ONCE(mi->attr_req)) {
				mc_count_evicted(sbi, MC_CACHE_ATTR);
				flushed++;
			}
			mc_attr_invalidate(inode);
			mc_perm_invalidate(inode);
			mc_link_drop(inode);
			if (rcu_access_pointer(mi->snap)) {
				mc_count_evicted(sbi, MC_CACHE_DIR);
				flushed++;
			}
			if (S_ISDIR(inode->i_mode))
				mc_dir_invalidate(inode);
		}
		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(toput);

	/* Entries, positive and negative. */
	spin_lock(&sbi->cache_lock);
	for (c = MC_CACHE_ENTRY; c <= MC_CACHE_NEG; c++) {
		struct mc_dentry cursor = { .dentry = NULL };
		unsigned long todo = sbi->nr[c], n;

		/*
		 * The cursor keeps our place while the lock is let go, so
		 * that the lock is held for MC_SCAN_BATCH entries at a time
		 * whether they are in @subtree or not.  Entries renewed or
		 * added meanwhile move to the new end, behind every entry
		 * that was here when this began and has not moved: those
		 * come first, and there are at most @todo of them.  The
		 * others came from the lower after the flush began.
		 */
		list_add(&cursor.node, &sbi->lru[c]);
		for (n = 0; n < todo; ) {
			struct mc_dentry *mcd = list_next_entry(&cursor, node);

			if (list_entry_is_head(mcd, &sbi->lru[c], node))
				break;
			list_move(&cursor.node, &mcd->node);
			if (mc_is_cursor(mcd))
				continue;
			if (mc_in_subtree(mcd->dentry, subtree)) {
				queued |= mc_entry_evict_locked(sbi, mcd);
				mc_count_evicted(sbi, c);
				flushed++;
			}
			if (!(++n % MC_SCAN_BATCH)) {
				spin_unlock(&sbi->cache_lock);
				cond_resched();
				spin_lock(&sbi->cache_lock);
			}
		}
		list_del(&cursor.node);
	}
	spin_unlock(&sbi->cache_lock);
	if (queued)
		mc_dispose(sbi);
	mc_lower_puts_drain(sbi);
	return flushed;
}

/**
 * mc_cache_apply_limits() - apply new limits and TTLs at once (remount)
 * @sbi: the mount
 */
void mc_cache_apply_limits(struct mc_sb_info *sbi)
{
	unsigned long budget;
	bool queued = false;
	LIST_HEAD(put);

	/* A limit lowered by millions: MC_SCAN_BATCH per hold of the lock. */
	do {
		budget = MC_SCAN_BATCH;
		spin_lock(&sbi->cache_lock);
		if (!sbi->dying)
			queued |= mc_trim_locked(sbi, &put, &budget);
		spin_unlock(&sbi->cache_lock);
		mc_snaps_put(&put);
		cond_resched();
	} while (!budget);
	mc_trim_done(sbi, queued, &put);
	if (!READ_ONCE(sbi->dying))
		mod_delayed_work(system_wq, &sbi->expire_work, 0);
	mc_handles_retune(sbi);
}

/**
 * mc_cache_read() - the counters of one cache, summed over all CPUs
 * @sbi: the mount
 * @c: the cache
 * @sum: filled with hits, misses, expired, renewed, evicted
 * @entries: what the cache holds now
 * @bytes: the memory it holds: for entry, the dentries, our per-dentry
 *	   data and the inodes they pin; for neg, the dentries and our data;
 *	   for attr, the cached attributes (inside the inodes); for dir, the
 *	   installed listings
 */
void mc_cache_read(const struct mc_sb_info *sbi, enum mc_cache c,
		   struct mc_cache_stats *sum, unsigned long *entries,
		   unsigned long *bytes)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct mc_cache_stats *s =
			&per_cpu_ptr(sbi->stats, cpu)->cache[c];

		sum->hits += s->hits;
		sum->misses += s->misses;
		sum->expired += s->expired;
		sum->renewed += s->renewed;
		sum->evicted += s->evicted;
	}
	switch (c) {
	case MC_CACHE_ENTRY:
		*entries = READ_ONCE(sbi->nr[c]);
		*bytes = *entries * (sizeof(struct dentry) +
				     sizeof(struct mc_dentry) +
				     sizeof(struct mc_inode_info));
		break;
	case MC_CACHE_NEG:
		*entries = READ_ONCE(sbi->nr[c]);
		*bytes = *entries * (sizeof(struct dentry) +
				     sizeof(struct mc_dentry));
		break;
	case MC_CACHE_ATTR:
		*entries = atomic_long_read(&sbi->nr_attr);
		*bytes = *entries * sizeof(struct mc_attr);
		break;
	case MC_CACHE_HANDLE:
		*entries = READ_ONCE(sbi->nr_handles);
		*bytes = *entries * mc_handle_bytes();
		break;
	default:
		*entries = READ_ONCE(sbi->nr[MC_CACHE_DIR]);
		*bytes = READ_ONCE(sbi->dir_bytes);
		break;
	}
}

/* Setup and teardown */

/**
 * mc_cache_init() - set up the cache state of a new mount
 * @sbi: the mount, zeroed
 *
 * Cannot fail; nothing runs until mc_cache_start().
 */
void mc_cache_init(struct mc_sb_info *sbi)
{
	spin_lock_init(&sbi->cache_lock);
	INIT_LIST_HEAD(&sbi->lru[MC_CACHE_ENTRY]);
	INIT_LIST_HEAD(&sbi->lru[MC_CACHE_NEG]);
	INIT_LIST_HEAD(&sbi->snaps);
	INIT_LIST_HEAD(&sbi->dispose);
	atomic_long_set(&sbi->nr_attr, 0);
	init_llist_head(&sbi->lower_puts);
	INIT_WORK(&sbi->work, mc_cache_work);
	INIT_DELAYED_WORK(&sbi->expire_work, mc_expire_work);
	sbi->shrinker.count_objects = mc_shrink_count;
	sbi->shrinker.scan_objects = mc_shrink_scan;
	sbi->shrinker.seeks = DEFAULT_SEEKS;
}

/**
 * mc_cache_start() - start the expiry pass and the shrinker of a mount
 * @sbi: the mount, fully set up
 *
 * A shrinker that cannot be registered only costs memory reclaim: the
 * limits and the expiry pass still bound the caches.
 */
void mc_cache_start(struct mc_sb_info *sbi)
{
	if (!register_shrinker(&sbi->shrinker, "metacache-%u", sbi->id))
		sbi->shrinker_registered = true;
	else
		pr_warn("mount %u: no shrinker\n", sbi->id);
	schedule_delayed_work(&sbi->expire_work, mc_expire_period(sbi));
}

/**
 * mc_cache_stop() - stop everything that frees our dentries (umount)
 * @sbi: the mount
 *
 * Before the super block's dentries are killed: afterwards nothing of ours
 * holds a reference to an upper dentry.
 */
void mc_cache_stop(struct mc_sb_info *sbi)
{
	if (sbi->shrinker_registered) {
		unregister_shrinker(&sbi->shrinker);
		sbi->shrinker_registered = false;
	}
	cancel_delayed_work_sync(&sbi->expire_work);
	spin_lock(&sbi->cache_lock);
	sbi->dying = true;
	spin_unlock(&sbi->cache_lock);
	mc_dispose(sbi);
	cancel_work_sync(&sbi->work);
	mc_dispose(sbi);
}

/**
 * mc_cache_destroy() - drop what is left once all dentries are gone
 * @sbi: the mount
 *
 * After kill_anon_super(): the last ->d_delete calls may have queued lower
 * dentries; they must be put before the lower mount is.
 */
void mc_cache_destroy(struct mc_sb_info *sbi)
{
	cancel_work_sync(&sbi->work);
	mc_lower_puts_drain(sbi);
	mc_ident_forget(sbi);
}

/* Attributes */

/*
 * Copy a getattr's answer into @a, if it fits: false for statx attribute
 * bits above 31 (none in 6.1; a later lower's answer is then not cached
 * rather than cut).
 */
static bool mc_attr_from_kstat(struct mc_attr *a, const struct kstat *st)
{
	const struct timespec64 *t[MC_NR_TIMES] = {
		[MC_ATIME] = &st->atime, [MC_MTIME] = &st->mtime,
		[MC_CTIME] = &st->ctime, [MC_BTIME] = &st->btime,
	};
	int i;

	if (upper_32_bits(st->attributes | st->attributes_mask))
		return false;
	a->ino = st->ino;
	a->size = st->size;
	a->blocks = st->blocks;
	for (i = 0; i < MC_NR_TIMES; i++) {
		a->sec[i] = t[i]->tv_sec;
		a->nsec[i] = t[i]->tv_nsec;
	}
	a->attributes = st->attributes;
	a->attributes_mask = st->attributes_mask;
	a->uid = st->uid;
	a->gid = st->gid;
	a->nlink = st->nlink;
	a->blksize = st->blksize;
	a->result_mask = st->result_mask;
	a->rdev = st->rdev;
	a->mode = st->mode;
	return true;
}

/* Fill a kstat as the lower's getattr did (the VFS zeroed it before). */
static void mc_attr_to_kstat(struct kstat *st, const struct mc_attr *a)
{
	st->ino = a->ino;
	st->size = a->size;
	st->blocks = a->blocks;
	st->attributes = a->attributes;
	st->attributes_mask = a->attributes_mask;
	st->atime = mc_attr_time(a, MC_ATIME);
	st->mtime = mc_attr_time(a, MC_MTIME);
	st->ctime = mc_attr_time(a, MC_CTIME);
	st->btime = mc_attr_time(a, MC_BTIME);
	st->uid = a->uid;
	st->gid = a->gid;
	st->nlink = a->nlink;
	st->blksize = a->blksize;
	st->result_mask = a->result_mask;
	st->rdev = a->rdev;
	st->mode = a->mode;
}

/*
 * Does the lower client itself know that its attributes of @lower are out
 * of date (and would ask its server)?  NFS says so in cache_validity; the
 * others have no such flag we can read.
 */
static bool mc_lower_knows_stale(struct inode *lower, unsigned long nfs_bits)
{
	if (lower->i_sb->s_magic == NFS_SUPER_MAGIC)
		return READ_ONCE(NFS_I(lower)->cache_validity) & nfs_bits;
	return false;
}

/*
 * Does the lower inode still show what @a says?  The lower updates its
 * inode when it learns of a change: its own operations (a local user of
 * the lower directory), its revalidations, an open's reply.  Any
 * difference, or a lower that knows its copy is stale, and the cached
 * attributes are not used.  Lockless; a torn read only means a miss.
 */
static bool mc_attr_matches_lower(const struct mc_attr *a, struct inode *lower)
{
	struct timespec64 t;

	if (a->size != i_size_read(lower) ||
	    a->nlink != READ_ONCE(lower->i_nlink) ||
	    a->mode != READ_ONCE(lower->i_mode) ||
	    a->blocks != READ_ONCE(lower->i_blocks))
		return false;
	t = lower->i_mtime;
	if (!mc_attr_time_equal(a, MC_MTIME, &t))
		return false;
	t = lower->i_ctime;
	if (!mc_attr_time_equal(a, MC_CTIME, &t))
		return false;
	return !mc_lower_knows_stale(lower, NFS_INO_INVALID_ATTR);
}

/*
 * A file mapped writable, or with data not yet written back, changes its
 * times and size behind us: no attribute caching for it.
 */
static bool mc_attr_bypass(struct inode *lower)
{
	struct address_space *mapping = lower->i_mapping;

	if (!S_ISREG(lower->i_mode))
		return false;
	return mapping_writably_mapped(mapping) ||
	       mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
	       mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK);
}

/*
 * Can an answer to a getattr asked @req answer one asked @mask, exactly as
 * the lower would have?  Any basic attribute asked must have been asked
 * (then the lower answers with all it has).  STATX_MNT_ID is the VFS's,
 * not the lower's.  STATX_BTIME: a lower answers it only if asked (tmpfs),
 * never (NFS), or always (cifs); once we know which (mc_attr_answered()),
 * an answer asked with it serves a request without it: *@strip_btime says
 * to drop it as the lower would have.  Other optional ones (dio alignment)
 * must have been asked alike.
 */
static bool mc_attr_mask_covers(struct mc_sb_info *sbi, u32 req, u32 mask,
				bool *strip_btime)
{
	u32 exact = ~(STATX_BASIC_STATS | STATX_MNT_ID | STATX_BTIME);

	*strip_btime = false;
	if ((mask & ~req & STATX_BASIC_STATS) ||
	    (mask & exact) != (req & exact))
		return false;
	if (mask & STATX_BTIME)
		return req & STATX_BTIME;
	if (!(req & STATX_BTIME))
		return true;
	switch (READ_ONCE(sbi->btime)) {
	case MC_BTIME_ALWAYS:
		return true;
	case MC_BTIME_ASKED:
		*strip_btime = true;
		return true;
	default:
		return false;
	}
}

/* Drop the birth time from an answer, as a lower that was not asked. */
static void mc_strip_btime(u32 *result_mask, struct timespec64 *btime)
{
	*result_mask &= ~STATX_BTIME;
	*btime = (struct timespec64){};
}

/**
 * mc_attr_ask() - what to ask the lower for on a miss
 * @sbi: the mount
 * @request_mask: what the caller asked for
 *
 * A request for any attribute that needs revalidating gets all the basic
 * ones, and the birth time once we know how the lower answers it, so that
 * the next stat(2), statx() or ls -l finds them cached.  A request for the
 * type or inode number only (which NFS answers without a round trip)
 * stays as it is.
 *
 * Return: the STATX_* mask to ask the lower.
 */
u32 mc_attr_ask(struct mc_sb_info *sbi, u32 request_mask)
{
	if (!(request_mask & STATX_BASIC_STATS & ~(STATX_TYPE | STATX_INO)))
		return request_mask;
	request_mask |= STATX_BASIC_STATS;
	if (READ_ONCE(sbi->btime) != MC_BTIME_UNKNOWN)
		request_mask |= STATX_BTIME;
	return request_mask;
}

/**
 * mc_attr_answered() - after the lower's getattr: learn, and answer the
 * caller as the lower would have
 * @sbi: the mount
 * @stat: the lower's answer, to the caller
 * @asked: the mask the lower was asked (mc_attr_ask())
 * @request_mask: the mask the caller asked
 */
void mc_attr_answered(struct mc_sb_info *sbi, struct kstat *stat,
		      u32 asked, u32 request_mask)
{
	if (!(asked & STATX_BTIME)) {
		if (READ_ONCE(sbi->btime) == MC_BTIME_UNKNOWN)
			WRITE_ONCE(sbi->btime,
				   stat->result_mask & STATX_BTIME ?
				   MC_BTIME_ALWAYS : MC_BTIME_ASKED);
	} else if (!(request_mask & STATX_BTIME) &&
		   READ_ONCE(sbi->btime) == MC_BTIME_ASKED) {
		mc_strip_btime(&stat->result_mask, &stat->btime);
	}
}

/**
 * mc_attr_get() - answer a getattr from the attribute cache
 * @dentry: the upper dentry (for the TTL)
 * @stat: filled on a hit
 * @mask: the STATX_* asked for
 * @dont_sync: AT_STATX_DONT_SYNC: an expired entry will do
 * @old: on a miss with something cached, a copy of it (else ->result_mask
 *	 is 0), to tell "renewed" from "expired"
 *
 * Return: true on a hit.
 */
bool mc_attr_get(struct dentry *dentry, struct kstat *stat, u32 mask,
		 bool dont_sync, struct mc_attr *old)
{
	struct inode *inode = d_inode(dentry);
	struct mc_inode_info *mi = MC_I(inode);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	u32 ttl = mc_ttl(sbi, dentry, MC_CACHE_ATTR);
	bool strip_btime;
	struct mc_attr a;
	unsigned int seq;
	u64 deadline;
	u32 req;

	old->result_mask = 0;
	if (!ttl)
		return false;
	do {
		seq = read_seqbegin(&mi->attr_lock);
		req = mi->attr_req;
		deadline = mi->attr_deadline;
		a = mi->attr;
	} while (read_seqretry(&mi->attr_lock, seq));
	if (!req || !mc_for_user(sbi, a.asker))
		return false;
	*old = a;
	if (!mc_attr_mask_covers(sbi, req, mask, &strip_btime) ||
	    mc_attr_bypass(mi->lower) ||
	    !mc_attr_matches_lower(&a, mi->lower)) {
		pr_debug("attr miss %pd: mask 0x%x/0x%x bypass %d size %lld/%lld nlink %u/%u mtime %lld.%u/%lld.%ld ctime %lld.%u/%lld.%ld blocks %llu/%llu stale %d\n",
			 dentry, mask, req, mc_attr_bypass(mi->lower),
			 a.size, i_size_read(mi->lower), a.nlink,
			 mi->lower->i_nlink, a.sec[MC_MTIME], a.nsec[MC_MTIME],
			 mi->lower->i_mtime.tv_sec, mi->lower->i_mtime.tv_nsec,
			 a.sec[MC_CTIME], a.nsec[MC_CTIME],
			 mi->lower->i_ctime.tv_sec, mi->lower->i_ctime.tv_nsec,
			 a.blocks, (u64)mi->lower->i_blocks,
			 mc_lower_knows_stale(mi->lower, NFS_INO_INVALID_ATTR));
		return false;
	}
	if (!dont_sync && !mc_fresh(deadline, ttl))
		return false;
	mc_attr_to_kstat(stat, &a);
	if (strip_btime)
		mc_strip_btime(&stat->result_mask, &stat->btime);
	return true;
}

/**
 * mc_attr_gen() - the invalidation generation, before asking the lower
 * @inode: the upper inode
 *
 * Return: the value to give mc_attr_store().
 */
u32 mc_attr_gen(struct inode *inode)
{
	return READ_ONCE(MC_I(inode)->attr_gen);
}

/**
 * mc_attr_store() - cache what the lower's getattr returned
 * @dentry: the upper dentry (for the TTL), or NULL
 * @inode: the upper inode
 * @stat: the lower's answer
 * @req: the STATX_* mask it was asked
 * @gen: mc_attr_gen() from before the lower call: if the attributes were
 *	 invalidated since, the answer may predate a local change and is not
 *	 stored
 *
 * Also not stored: a file mapped writable or with dirty pages, an answer
 * that does not match the lower inode (see mc_attr_matches_lower()),
 * dio alignment (never cached).
 */
void mc_attr_store(struct dentry *dentry, struct inode *inode,
		   const struct kstat *stat, u32 req, u32 gen)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	u32 ttl = mc_ttl(sbi, dentry, MC_CACHE_ATTR);
	struct mc_attr a;

	if (!ttl || (stat->result_mask & STATX_DIOALIGN) ||
	    mc_attr_bypass(mi->lower))
		return;
	if (!mc_attr_from_kstat(&a, stat) ||
	    !mc_attr_matches_lower(&a, mi->lower))
		return;

	write_seqlock(&mi->attr_lock);
	if (mi->attr_gen == gen) {
		if (!mi->attr_req)
			atomic_long_inc(&sbi->nr_attr);
		mi->attr = a;
		mi->attr.asker = current_fsuid();
		mi->attr_req = req ?: STATX_TYPE;
		mi->attr_deadline = mc_deadline(ttl);
	}
	write_sequnlock(&mi->attr_lock);
}

/**
 * mc_attr_fill() - cache the lower's attributes of a file unless cached
 * @dentry: the upper dentry, positive
 * @lower_path: its lower object
 * @sync: AT_STATX_* for the lower getattr: how hard the lower tries
 *
 * For those who know the lower's attributes are worth caching now (an
 * open, a listing); nothing is asked while fresh ones are cached.
 *
 * Return: 0, or the lower getattr's error.
 */
int mc_attr_fill(struct dentry *dentry, const struct path *lower_path,
		 unsigned int sync)
{
	struct inode *inode = d_inode(dentry);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	u32 ask = mc_attr_ask(sbi, STATX_BASIC_STATS);
	struct mc_attr old;
	struct kstat st;
	u32 gen;
	int err;

	if (mc_attr_get(dentry, &st, STATX_BASIC_STATS, false, &old))
		return 0;
	gen = mc_attr_gen(inode);
	err = mc_lower_getattr(sbi, lower_path, &st, ask, sync);
	if (err)
		return err;
	mc_attr_answered(sbi, &st, ask, ask);
	mc_attr_store(dentry, inode, &st, ask, gen);
	return 0;
}

/*
 * Are the lower's cached attributes of @lower (a dentry the lower dcache
 * has) as good as a getattr's, without a round trip?  A local file system
 * (no d_revalidate): always.  NFS: while its attribute cache is valid (the
 * LOOKUP or READDIRPLUS that gave the dentry refreshed it).  Others (cifs):
 * no way to tell, so no.
 */
static bool mc_lower_attrs_current(struct dentry *lower)
{
	struct inode *inode = d_inode(lower);

	if (!(lower->d_flags & DCACHE_OP_REVALIDATE))
		return true;
	if (inode->i_sb->s_magic == NFS_SUPER_MAGIC) {
		struct nfs_inode *nfsi = NFS_I(inode);
		unsigned long since = READ_ONCE(nfsi->read_cache_jiffies);

		return !(READ_ONCE(nfsi->cache_validity) &
			 (NFS_INO_INVALID_ATTR | NFS_INO_INVALID_BLOCKS)) &&
		       time_in_range_open(jiffies, since,
					  since + READ_ONCE(nfsi->attrtimeo));
	}
	return false;
}

/**
 * mc_attr_prime_current() - cache the attributes the lower has at hand
 * @dentry: a positive upper dentry, just looked up or listed
 * @lower: its lower dentry, positive, referenced by the caller
 *
 * After a lookup or a listing the lower client often holds attributes as
 * fresh as a getattr's (mc_lower_attrs_current()): NFS's LOOKUP and
 * READDIRPLUS return them.  Caching them now, with no round trip
 * (AT_STATX_DONT_SYNC), spares the stat(2) that usually follows the whole
 * miss path: finding the lower dentry again and asking the lower.  Their
 * attr_ttl starts now, as a getattr's would.  Errors are ignored.
 */
void mc_attr_prime_current(struct dentry *dentry, struct dentry *lower)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	struct path path = { .mnt = sbi->lower_path.mnt, .dentry = lower };

	if (mc_ttl(sbi, dentry, MC_CACHE_ATTR) && mc_lower_attrs_current(lower))
		mc_attr_fill(dentry, &path, AT_STATX_DONT_SYNC);
}

/**
 * mc_attr_prime_new() - cache the attributes of an object just created
 * @dentry: the upper dentry, just instantiated (or left negative)
 * @lower_path: its lower object
 *
 * The lower has just learned them from the server's reply to the create
 * (NFS's post-operation attributes, the SMB2 CREATE response), so they are
 * asked without a round trip (AT_STATX_DONT_SYNC), and stored unless the
 * lower itself knows them to be stale (mc_attr_store()).  A stat(2) of the
 * new file then needs nothing from the lower; a write through an open of
 * it drops them again (file.c).  Errors are ignored: nothing is cached.
 */
void mc_attr_prime_new(struct dentry *dentry, const struct path *lower_path)
{
	if (d_really_is_positive(dentry) &&
	    mc_ttl(MC_SB(dentry->d_sb), dentry, MC_CACHE_ATTR))
		mc_attr_fill(dentry, lower_path, AT_STATX_DONT_SYNC);
}

/**
 * mc_attr_invalidate() - the attributes changed: forget the cached ones
 * @inode: the upper inode
 *
 * Also makes a lower getattr still in flight not store its answer.
 * Context: any but RCU-walk; not under another of our locks.
 */
void mc_attr_invalidate(struct inode *inode)
{
	struct mc_inode_info *mi = MC_I(inode);
	bool had;

	write_seqlock(&mi->attr_lock);
	mi->attr_gen++;
	had = mi->attr_req;
	if (had) {
		mi->attr_req = 0;
		atomic_long_dec(&MC_SB(inode->i_sb)->nr_attr);
	}
	write_sequnlock(&mi->attr_lock);
	if (had)
		trace_metacache_invalidate(MC_SB(inode->i_sb)->id, inode->i_ino,
					   MC_INVAL_ATTR);
}

/* Permissions */

/*
 * The part of a permission mask whose answer we cache: MAY_READ and
 * MAY_EXEC, alone or with bits that do not change the answer.  Never
 * MAY_WRITE/MAY_APPEND (the write goes to the lower anyway, and its answer
 * depends on more than the mode), nor MAY_OPEN on a regular file: NFS
 * skips the check then (its OPEN checks), so that answer says nothing
 * about MAY_READ.
 */
static int mc_perm_key(struct inode *inode, int mask)
{
	int rest = mask & ~(MAY_READ | MAY_EXEC | MAY_NOT_BLOCK |
			    MAY_ACCESS | MAY_CHDIR);

	if (!S_ISREG(inode->i_mode))
		rest &= ~MAY_OPEN;
	if (rest)
		return 0;
	return mask & (MAY_READ | MAY_EXEC);
}

/* Does the lower inode still have the mode and owner the answers saw? */
static bool mc_perm_same_owner(struct mc_inode_info *mi)
{
	struct inode *lower = mi->lower;

	return READ_ONCE(lower->i_mode) == mi->perm_mode &&
	       uid_eq(lower->i_uid, mi->perm_uid) &&
	       gid_eq(lower->i_gid, mi->perm_gid);
}

/* Whose answers @mi keeps, under its attr_lock held for writing. */
static struct mc_ident *mc_perm_ident_locked(struct mc_inode_info *mi)
{
	return rcu_dereference_protected(mi->perm_ident,
					 lockdep_is_held(&mi->attr_lock.lock));
}

/*
 * Are the cached answers of @mi valid for the calling @cred?  Fresh, for
 * a caller the lower cannot tell from the one they came from (identity,
 * capabilities, LSM label: mc_ident_same()), the lower inode's mode and
 * owner unchanged (a chmod or chown the lower learned of), and the lower
 * not knowing its own answers stale (NFS's access cache).  An ACL changed
 * elsewhere is noticed after the TTL, as the attributes.
 *
 * Context: under @mi's attr_lock held for writing.
 */
static bool mc_perm_valid(struct mc_inode_info *mi, const struct cred *cred,
			  u32 ttl)
{
	const struct mc_ident *id = mc_perm_ident_locked(mi);

	return id && mc_fresh(mi->perm_deadline, ttl) &&
	       mc_perm_same_owner(mi) &&
	       !mc_lower_knows_stale(mi->lower, NFS_INO_INVALID_ACCESS) &&
	       mc_ident_same(id, cred);
}

/**
 * mc_perm_get() - answer a permission check from the cache
 * @inode: the upper inode
 * @mask: the MAY_* mask
 * @err: the answer on a hit (0 or -EACCES)
 *
 * Nothing is answered, or stored, while the mount has a policy rule: the
 * answers are the inode's, asked without a name, so no rule can be looked
 * up for them (mc_policy_any()).
 *
 * Lockless: every path walk through a cached directory asks, so no lock
 * (whose cache line all CPUs walking the mount's top directories would
 * share) is taken; the answers and their state are read under the
 * sequence counter of @inode's attr_lock, the identity under RCU.
 *
 * Context: also RCU-walk (MAY_NOT_BLOCK).
 * Return: true on a hit.
 */
bool mc_perm_get(struct inode *inode, int mask, int *err)
{
	struct mc_inode_info *mi = MC_I(inode);
	u32 ttl = mc_ttl(MC_SB(inode->i_sb), NULL, MC_CACHE_ATTR);
	int key = mc_perm_key(inode, mask);
	const struct mc_ident *id;
	u8 granted, denied;
	bool valid, hit;
	unsigned int seq;

	if (!key || !ttl || !rcu_access_pointer(mi->perm_ident) ||
	    mc_policy_any(MC_SB(inode->i_sb)))
		return false;
	rcu_read_lock();
	do {
		seq = read_seqbegin(&mi->attr_lock);
		id = rcu_dereference(mi->perm_ident);
		granted = mi->perm_granted;
		denied = mi->perm_denied;
		valid = id && mc_fresh(mi->perm_deadline, ttl) &&
			mc_perm_same_owner(mi);
	} while (read_seqretry(&mi->attr_lock, seq));
	/* @id is immutable, and cannot be freed before rcu_read_unlock() */
	valid = valid && mc_ident_same(id, current_cred()) &&
		!mc_lower_knows_stale(mi->lower, NFS_INO_INVALID_ACCESS);
	rcu_read_unlock();
	hit = valid && ((key & denied) || (key & granted) == key);
	if (hit)
		*err = (key & denied) ? -EACCES : 0;
	else
		pr_debug("perm miss %lu 0x%x: granted 0x%x denied 0x%x valid %d\n",
			 inode->i_ino, mask, granted, denied, valid);
	return hit;
}

/**
 * mc_perm_begin() - note the state before asking the lower
 * @inode: the upper inode
 *
 * Return: the generation to give mc_perm_store().
 */
u32 mc_perm_begin(struct inode *inode)
{
	return READ_ONCE(MC_I(inode)->attr_gen);
}

/**
 * mc_perm_store() - cache the lower's answer to a permission check
 * @inode: the upper inode
 * @mask: the MAY_* mask
 * @err: the lower's answer; only 0 and -EACCES are cached, and a refusal
 *	 only for a single bit (a refusal of MAY_READ|MAY_EXEC does not say
 *	 which)
 * @gen: from mc_perm_begin(); an invalidation since then: not stored
 *
 * One identity per inode: a caller the lower would treat otherwise
 * replaces it.  It is kept as a struct mc_ident (lower.c), not as the
 * caller's cred, which would pin the cred's keyrings for the inode's life
 * (so access(2)'s temporary, non_rcu, credentials are served too).
 *
 * Context: also RCU-walk (MAY_NOT_BLOCK): the identity is then made with
 * GFP_NOWAIT (none: nothing stored), and the old one's put only queues an
 * RCU callback.
 */
void mc_perm_store(struct inode *inode, int mask, int err, u32 gen)
{
	struct mc_inode_info *mi = MC_I(inode);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	u32 ttl = mc_ttl(sbi, NULL, MC_CACHE_ATTR);
	const struct cred *cred = current_cred();
	struct mc_ident *id, *new = NULL, *old = NULL;
	int key = mc_perm_key(inode, mask);

	if (!key || !ttl || (err && err != -EACCES) ||
	    (err && hweight32(key) != 1) || mc_policy_any(sbi))
		return;
	/* A new identity is made before taking the lock. */
	rcu_read_lock();
	id = rcu_dereference(mi->perm_ident);
	if (!id || !mc_ident_same(id, cred)) {
		rcu_read_unlock();
		new = mc_ident_get(sbi, cred, (mask & MAY_NOT_BLOCK) ?
				   GFP_NOWAIT : GFP_KERNEL);
		if (!new)
			return;
	} else {
		rcu_read_unlock();
	}
	write_seqlock(&mi->attr_lock);
	if (mi->attr_gen != gen)
		goto out;
	if (!mc_perm_valid(mi, cred, ttl)) {
		id = mc_perm_ident_locked(mi);
		if (new) {
			old = id;
			rcu_assign_pointer(mi->perm_ident, new);
			new = NULL;
		} else if (!id || !mc_ident_same(id, cred)) {
			goto out;	/* another caller's, since */
		}
		mi->perm_granted = 0;
		mi->perm_denied = 0;
		mi->perm_mode = READ_ONCE(mi->lower->i_mode);
		mi->perm_uid = mi->lower->i_uid;
		mi->perm_gid = mi->lower->i_gid;
		mi->perm_deadline = mc_deadline(ttl);
	}
	if (err)
		mi->perm_denied |= key;
	else
		mi->perm_granted |= key;
out:
	write_sequnlock(&mi->attr_lock);
	mc_ident_put(old);
	mc_ident_put(new);
}

/**
 * mc_perm_invalidate() - the mode, owner or ACL may have changed
 * @inode: the upper inode
 *
 * Call mc_attr_invalidate() too: its generation also guards the
 * permission answers in flight.
 */
void mc_perm_invalidate(struct inode *inode)
{
	struct mc_inode_info *mi = MC_I(inode);

	write_seqlock(&mi->attr_lock);
	mi->perm_granted = 0;
	mi->perm_denied = 0;
	mi->perm_deadline = 0;
	write_sequnlock(&mi->attr_lock);
}

/* Symlink targets */

static void mc_link_put(struct mc_link *link)
{
	if (link && refcount_dec_and_test(&link->ref))
		kfree_rcu(link, rcu);
}

static void mc_link_put_cb(void *arg)
{
	mc_link_put(arg);
}

/* Drop the cached target of @inode. */
static void mc_link_drop(struct inode *inode)
{
	mc_link_put(unrcu_pointer(xchg(&MC_I(inode)->link, NULL)));
}

/**
 * mc_link_get() - a symlink's target from the cache
 * @inode: the upper symlink
 * @dentry: its dentry (for the TTL), NULL in RCU-walk
 * @done: set to drop the reference the returned string comes with
 *
 * A symlink's target never changes (a new one is a new inode), but it is
 * kept only as long as the attributes (attr_ttl), so that the TTLs say
 * what is cached.  Also in RCU-walk: the reference is taken with
 * refcount_inc_not_zero() and the memory freed after a grace period.
 *
 * Return: the target, or NULL if not cached.
 */
const char *mc_link_get(struct inode *inode, struct dentry *dentry,
			struct delayed_call *done)
{
	u32 ttl = mc_ttl(MC_SB(inode->i_sb), dentry, MC_CACHE_ATTR);
	struct mc_link *link;
	const char *target = NULL;

	/* Without the dentry no rule can be looked up: ask in ref-walk. */
	if (!ttl || (!dentry && mc_policy_any(MC_SB(inode->i_sb))))
		return NULL;
	rcu_read_lock();
	link = rcu_dereference(MC_I(inode)->link);
	if (link && mc_fresh(link->deadline, ttl) &&
	    mc_for_user(MC_SB(inode->i_sb), link->uid) &&
	    refcount_inc_not_zero(&link->ref)) {
		set_delayed_call(done, mc_link_put_cb, link);
		target = link->target;
	}
	rcu_read_unlock();
	return target;
}

/**
 * mc_link_store() - cache a symlink's target
 * @inode: the upper symlink
 * @dentry: its dentry (for the TTL)
 * @target: what the lower's get_link returned
 */
void mc_link_store(struct inode *inode, struct dentry *dentry,
		   const char *target)
{
	u32 ttl = mc_ttl(MC_SB(inode->i_sb), dentry, MC_CACHE_ATTR);
	size_t len = strnlen(target, PATH_MAX);
	struct mc_link *link;

	if (!ttl || len >= PATH_MAX)
		return;
	link = kmalloc(struct_size(link, target, len + 1), GFP_KERNEL);
	if (!link)
		return;
	refcount_set(&link->ref, 1);
	link->uid = current_fsuid();
	link->deadline = mc_deadline(ttl);
	memcpy(link->target, target, len + 1);
	mc_link_put(unrcu_pointer(xchg(&MC_I(inode)->link,
				       RCU_INITIALIZER(link))));
}

/* Inodes */

/**
 * mc_inode_cache_init() - the cache state of a newly allocated inode
 * @mi: the inode
 */
void mc_inode_cache_init(struct mc_inode_info *mi)
{
	seqlock_init(&mi->attr_lock);
	mi->attr_gen = 0;
	mi->attr_req = 0;
	mi->attr_deadline = 0;
	mi->perm_granted = 0;
	mi->perm_denied = 0;
	RCU_INIT_POINTER(mi->perm_ident, NULL);
	mi->perm_deadline = 0;
	RCU_INIT_POINTER(mi->snap, NULL);
	mi->dir_gen = 0;
	mi->names_added = 0;
	mi->names_removed = 0;
	mi->dir_toobig = 0;
	atomic_set(&mi->la_state, 0);
	mi->vanish = NULL;
	RCU_INIT_POINTER(mi->link, NULL);
}

/**
 * mc_inode_cache_free() - drop what an inode's cache holds at its freeing
 * @inode: the upper inode, an RCU grace period after its eviction
 *
 * The permission cache's identity is put here, not at eviction: an
 * RCU-walk may call ->permission on an inode that another CPU is
 * evicting (may_lookup() checks the dentry's sequence only afterwards),
 * and its mc_perm_store() would put a reference into an evicted inode's
 * cache, or race the eviction's put of the old one.  No walker is left
 * once the grace period is over.
 *
 * Context: the inode's RCU callback (->free_inode); mc_ident_put() only
 * queues an RCU callback of its own.
 */
void mc_inode_cache_free(struct inode *inode)
{
	struct mc_inode_info *mi = MC_I(inode);

	/* No walker is left (above), nor any other reference to the inode. */
	mc_ident_put(rcu_dereference_protected(mi->perm_ident, 1));
}

/**
 * mc_inode_cache_evict() - drop an evicted inode's cached state
 * @inode: the upper inode, being evicted
 */
void mc_inode_cache_evict(struct inode *inode)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	struct mc_vanish *vanish;
	struct mc_dirsnap *snap;
	LIST_HEAD(put);

	mc_attr_invalidate(inode);
	mc_link_drop(inode);
	/* perm_ident: mc_inode_cache_free(), an RCU-walk may still store one */
	if (rcu_access_pointer(mi->snap) || READ_ONCE(mi->vanish)) {
		spin_lock(&sbi->cache_lock);
		snap = rcu_dereference_protected(mi->snap,
					lockdep_is_held(&sbi->cache_lock));
		if (snap)
			mc_snap_unhook_locked(sbi, snap, &put);
		vanish = mi->vanish;
		WRITE_ONCE(mi->vanish, NULL);
		spin_unlock(&sbi->cache_lock);
		mc_snaps_put(&put);
		kfree(vanish);
	}
}

/* Directory listings: installing and dropping (the rest is in dir.c) */

/**
 * mc_dir_invalidate() - a directory's entries changed: drop its listing
 * @dir: the upper directory
 *
 * Also makes a listing being built now not installed (dir_gen).
 */
void mc_dir_invalidate(struct inode *dir)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct mc_inode_info *mi = MC_I(dir);
	struct mc_dirsnap *snap;
	LIST_HEAD(put);

	spin_lock(&sbi->cache_lock);
	mi->dir_gen++;
	WRITE_ONCE(mi->dir_toobig, 0);
	snap = rcu_dereference_protected(mi->snap,
					 lockdep_is_held(&sbi->cache_lock));
	if (snap)
		trace_metacache_invalidate(sbi->id, dir->i_ino, MC_INVAL_DIR);
	if (snap)
		mc_snap_unhook_locked(sbi, snap, &put);
	spin_unlock(&sbi->cache_lock);
	mc_snaps_put(&put);
}

/**
 * mc_dir_changed() - a local change in a directory: its attributes (mtime,
 * nlink, size) and its listing are no longer what we cached
 * @dir: the upper directory
 */
void mc_dir_changed(struct inode *dir)
{
	mc_attr_invalidate(dir);
	mc_dir_invalidate(dir);
}

/**
 * mc_dir_gen() - the listing generation, before reading the lower
 * @dir: the upper directory
 *
 * Return: the value to give mc_dirsnap_install().
 */
u32 mc_dir_gen(struct inode *dir)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	u32 gen;

	spin_lock(&sbi->cache_lock);
	gen = MC_I(dir)->dir_gen;
	spin_unlock(&sbi->cache_lock);
	return gen;
}

/**
 * mc_dirsnap_install() - make a listing the directory's cached one
 * @dir: the upper directory
 * @snap: the listing; the directory takes a reference of its own
 * @gen: mc_dir_gen() from before the lower was read
 *
 * Not installed if the directory changed since @gen, or if the listing
 * alone is larger than max_entries.  Replaces the current listing.
 *
 * Return: true if installed.
 */
bool mc_dirsnap_install(struct inode *dir, struct mc_dirsnap *snap, u32 gen)
{
	struct mc_sb_info *sbi = MC_SB(dir->i_sb);
	struct mc_inode_info *mi = MC_I(dir);
	struct mc_dirsnap *old;
	bool queued = false, done = false;
	LIST_HEAD(put);

	spin_lock(&sbi->cache_lock);
	if (sbi->dying || mi->dir_gen != gen || IS_DEADDIR(dir) ||
	    snap->nr > mc_max_entries(sbi))
		goto out;
	old = rcu_dereference_protected(mi->snap,
					lockdep_is_held(&sbi->cache_lock));
	if (old)
		mc_snap_unhook_locked(sbi, old, &put);
	kref_get(&snap->ref);
	snap->owner = mi;
	list_add_tail(&snap->lru, &sbi->snaps);
	sbi->nr[MC_CACHE_DIR] += snap->nr;
	sbi->dir_bytes += snap->bytes;
	rcu_assign_pointer(mi->snap, snap);
	queued = mc_trim_locked(sbi, &put, NULL);
	done = true;
out:
	spin_unlock(&sbi->cache_lock);
	mc_trim_done(sbi, queued, &put);
	return done;
}

/**
 * mc_dirsnap_get() - a reference to a directory's fresh cached listing
 * @dentry: the upper directory's dentry (for the TTL)
 *
 * Return: the listing, or NULL if none is cached or it has expired.
 */
struct mc_dirsnap *mc_dirsnap_get(struct dentry *dentry)
{
	struct mc_inode_info *mi = MC_I(d_inode(dentry));
	u32 ttl = mc_ttl(MC_SB(dentry->d_sb), dentry, MC_CACHE_DIR);
	struct mc_dirsnap *snap;

	if (!ttl)
		return NULL;
	rcu_read_lock();
	snap = rcu_dereference(mi->snap);
	if (snap && (!mc_fresh(snap->deadline, ttl) ||
		     !kref_get_unless_zero(&snap->ref)))
		snap = NULL;
	rcu_read_unlock();
	return snap;
}

/**
 * mc_dirsnap_peek() - has a directory a fresh cached listing?
 * @dentry: the upper directory's dentry
 * @expired: set if it has one that expired
 *
 * Return: true if fresh.
 */
bool mc_dirsnap_peek(struct dentry *dentry, bool *expired)
{
	struct mc_inode_info *mi = MC_I(d_inode(dentry));
	u32 ttl = mc_ttl(MC_SB(dentry->d_sb), dentry, MC_CACHE_DIR);
	struct mc_dirsnap *snap;
	bool fresh = false;

	*expired = false;
	rcu_read_lock();
	snap = rcu_dereference(mi->snap);
	if (snap) {
		fresh = mc_fresh(snap->deadline, ttl);
		*expired = !fresh;
	}
	rcu_read_unlock();
	return fresh;
}

/**
 * mc_cache_stats_get() - the counters of one cache, for the control plane
 * @sbi: the mount
 * @cache: an enum metacache_cache
 * @out: filled: hits ... evicted only ever grow, entries and mem_bytes are
 *	 current values
 *
 * The handle cache (deferred close) does not exist yet: all zero.
 * Context: any; takes no lock (the control plane may hold mc_ctl::lock).
 */
void mc_cache_stats_get(struct mc_sb_info *sbi, int cache,
			struct mc_cache_counters *out)
{
	struct mc_cache_stats sum;
	unsigned long entries, bytes;

	memset(out, 0, sizeof(*out));
	if (cache < 0 || cache >= MC_CACHE_NR)
		return;
	mc_cache_read(sbi, cache, &sum, &entries, &bytes);
	out->hits = sum.hits;
	out->misses = sum.misses;
	out->expired = sum.expired;
	out->renewed = sum.renewed;
	out->evicted = sum.evicted;
	out->entries = entries;
	out->mem_bytes = bytes;
}
