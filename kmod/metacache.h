/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metacache - a stackable pass-through file system for network file systems.
 *
 * Private definitions shared by the files of the module.
 *
 * Object model: every upper (metacache) object maps to exactly one lower
 * object of the directory we are mounted on:
 *
 *	super_block	-> struct mc_sb_info:	 lower root path, stats, tunables,
 *						 the cache lists (cache.c)
 *	inode		-> struct mc_inode_info: the lower inode (one upper inode
 *						 per lower inode, hard links
 *						 share), cached attributes and
 *						 permission, a directory's
 *						 cached listing, a file's kept
 *						 lower files (handle.c)
 *	dentry		-> struct mc_dentry:	 the lower dentry, maybe negative,
 *						 maybe detached (see namei.c);
 *						 the entry's deadline
 *	file		-> struct mc_file:	 the open lower file (opened lazily
 *						 for directories), a directory's
 *						 listing snapshot
 *
 * Every call into the lower file system goes through lower.c.  The caches
 * and their coherence model are described in Documentation/coherence.md;
 * the shared machinery (lists, limits, expiry, shrinker, flush, counters)
 * is in cache.c.
 *
 * Lock order (outer first; each lock's rules are next to it):
 *	upper i_rwsem -> lower i_rwsem			(the VFS, then us)
 *	mc_sb_info::cache_lock -> dentry::d_lock -> mc_dentry::lock
 *	dentry::d_lock -> mc_dentry::lock		(->d_delete: trylock)
 *	mc_inode_info::attr_lock			(a leaf: nothing nests)
 *	mc_sb_info::handle_lock				(leaf: nothing nests)
 *	super_block::s_umount -> mc_ctl::lock		(remount, ctl.h)
 * A caller waiting for kept handles to close (mc_handles_close() with
 * wait) may hold upper i_rwsems, never a lower one nor a spinlock.
 * Writes hold the file's upper i_rwsem too (mc_write_iter() takes it
 * itself), so that a writer waits above the lower file system while a name
 * change of the file is under way.
 */
#ifndef _METACACHE_H
#define _METACACHE_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/sched/clock.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/shrinker.h>
#include <linux/spinlock.h>
#include <linux/stat.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct fiemap_extent_info;
struct fileattr;
struct mc_ctl;
struct kstatfs;
struct pipe_inode_info;
struct vm_area_struct;
struct xattr_handler;

#define METACACHE_NAME		"metacache"
#define METACACHE_VERSION	"0.1.0"
#define METACACHE_SUPER_MAGIC	0x4d434348	/* "MCCH" */

/* Tunable defaults (seconds for the *_ttl ones, counts for the max_* ones). */
#define MC_DEFAULT_ENTRY_TTL	5
#define MC_DEFAULT_NEG_TTL	5
#define MC_DEFAULT_ATTR_TTL	5
#define MC_DEFAULT_DIR_TTL	5
#define MC_DEFAULT_CLOSE_TTL	5
#define MC_DEFAULT_MAX_ENTRIES	65536
#define MC_DEFAULT_MAX_NEG	16384
#define MC_DEFAULT_MAX_HANDLES	1024

/* Tunable bounds, inclusive.  A TTL of 0 turns that cache off. */
#define MC_TTL_MAX		(86400U * 365)
#define MC_LIMIT_MAX		(1U << 24)

/*
 * Walks over a whole mount's cached objects (a flush, a change of
 * settings, an expiry pass) handle this many, then let go of their
 * spinlock for a moment: with limits up to MC_LIMIT_MAX, a walk in one
 * hold would stall every lookup, open and close of the mount behind it.
 */
#define MC_SCAN_BATCH		256

/*
 * struct mc_tunables - per-mount knobs of the caches.
 *
 * Parsed from the mount options and shown in /proc/mounts; changed at run
 * time by remount and by the control plane.  Each field is an independent
 * u32 written with WRITE_ONCE() and read with READ_ONCE() (use the mc_*()
 * accessors below), so no lock is needed.
 */
struct mc_tunables {
	u32 entry_ttl;		/* positive dentry cache lifetime, s */
	u32 neg_ttl;		/* negative dentry cache lifetime, s */
	u32 attr_ttl;		/* attribute cache lifetime, s */
	u32 dir_ttl;		/* readdir cache lifetime, s */
	u32 close_ttl;		/* deferred close lifetime, s */
	u32 max_entries;	/* max cached entries */
	u32 max_neg;		/* max cached negative entries */
	u32 max_handles;	/* max lower files kept open after close */
	u32 disabled;		/* BIT(enum metacache_cache): caches off */
};

/* Operations on the lower file system, as counted by lower.c. */
enum mc_op {
	MC_OP_LOOKUP,
	MC_OP_REVALIDATE,
	MC_OP_GETATTR,
	MC_OP_SETATTR,
	MC_OP_PERMISSION,
	MC_OP_CREATE,
	MC_OP_MKDIR,
	MC_OP_MKNOD,
	MC_OP_SYMLINK,
	MC_OP_LINK,
	MC_OP_UNLINK,
	MC_OP_RMDIR,
	MC_OP_RENAME,
	MC_OP_OPEN,
	MC_OP_RELEASE,
	MC_OP_READ,
	MC_OP_WRITE,
	MC_OP_READDIR,
	MC_OP_FSYNC,
	MC_OP_XATTR,
	MC_OP_LOCK,
	MC_OP_IOCTL,
	MC_OP_STATFS,
	MC_OP_OTHER,
	MC_OP_NR
};

/* The caches, as counted and as named in debugfs. */
enum mc_cache {
	MC_CACHE_ENTRY,		/* positive dentries */
	MC_CACHE_NEG,		/* negative dentries */
	MC_CACHE_ATTR,		/* attributes (and permission results) */
	MC_CACHE_DIR,		/* directory listings */
	MC_CACHE_HANDLE,	/* open lower files after close (handle.c) */
	MC_CACHE_NR
};

/*
 * struct mc_op_stats - what one CPU saw of one operation.
 *
 * Only ever modified by its own CPU (this_cpu_inc() or with preemption
 * disabled); readers sum all CPUs without locking and may see a slightly
 * stale total.
 */
struct mc_op_stats {
	u64 calls;		/* completed lower calls */
	u64 avoided;		/* lower calls a cache hit saved */
	u64 total_ns;		/* sum of their latencies */
};

/* struct mc_cache_stats - what one CPU saw of one cache (as mc_op_stats). */
struct mc_cache_stats {
	u64 hits;		/* answered from the cache */
	u64 misses;		/* had to ask the lower */
	u64 expired;		/* asked the lower after expiry: it changed */
	u64 renewed;		/* asked the lower after expiry: unchanged */
	u64 evicted;		/* dropped for a limit, memory or a flush */
};

/* struct mc_stats - the per-cpu block of a mount. */
struct mc_stats {
	struct mc_op_stats op[MC_OP_NR];
	struct mc_cache_stats cache[MC_CACHE_NR];
};

#define MC_FAULT_MAX_ERRS	8

/*
 * struct mc_fault - a mount's fault injection setting (fault.c).  Written
 * under fault.c's mutex with WRITE_ONCE(), read locklessly on every lower
 * call; @ops == 0 is off.
 */
struct mc_fault {
	unsigned long ops;		/* BIT(enum mc_op) of the calls to fail */
	unsigned int probability;	/* percent, 1-100 */
	unsigned int nerr;		/* entries of @errs in use */
	int errs[MC_FAULT_MAX_ERRS];	/* positive errnos, one at random */
	bool after;			/* fail after the call: mc_fault_after() */
	atomic_t times;			/* faults left; -1: no limit */
	atomic64_t injected;		/* faults so far */
};

/*
 * struct mc_sb_info - per-mount data, sb->s_fs_info.
 *
 * Everything but @tun and @list is set up in mc_fill_super() and stays
 * unchanged until mc_kill_sb().
 */
struct mc_sb_info {
	struct super_block *sb;
	/* Lower root directory; we hold the reference (path_get). */
	struct path lower_path;
	/* mnt_user_ns(lower_path.mnt): lives as long as lower_path.mnt. */
	struct user_namespace *lower_userns;
	/*
	 * The lower answers each user with his own credentials and may
	 * show each user other names and objects (super.c,
	 * mc_lower_per_user()): no listing is cached, and an entry,
	 * attributes or a symlink target serve only the user whose lower
	 * call cached them (mc_for_user()).  Set before the mount is
	 * published, constant after.
	 */
	bool per_user_views;
	/*
	 * The lower may find a name by another spelling (SMB ignores case):
	 * a local change of one name can change what others find, so
	 * entries carry name generations (mc_inode_info::names_*,
	 * cache.c).  Set before the mount is published, constant after.
	 */
	bool names_fold;
	/*
	 * The lower checks a file with the server when a path walk's last
	 * step opens it (->d_revalidate with LOOKUP_OPEN), not in its open:
	 * NFSv2/v3's close-to-open, which has no atomic_open
	 * (mc_d_revalidate() passes such a step on).
	 * Set before the mount is published, constant after.
	 */
	bool open_reval;
	/* Source of name generations (cache.c). */
	atomic_t names_seq;
	/* From mc_mount_ida, >= 1, stable for the mount's life (0: none). */
	u32 id;
	/* On mc_mounts, protected by mc_mounts_lock. */
	struct list_head list;
	/* Per-cpu lower call statistics, see lower.c. */
	struct mc_stats __percpu *stats;
	/* Lockless: WRITE_ONCE() to change, READ_ONCE() (mc_*()) to read. */
	struct mc_tunables tun;
	/* /sys/kernel/debug/metacache/<id>; NULL or ERR_PTR if absent. */
	struct dentry *debugfs_dir;

	/*
	 * The caches (cache.c).  @cache_lock protects the lists, @nr[] and
	 * @dir_bytes, mc_dentry::state and ::node, mc_inode_info::snap and
	 * mc_dirsnap::owner/::lru, and @dying.  Taken in process context
	 * only, never under a dentry's d_lock (it nests outside it).
	 */
	spinlock_t cache_lock;
	/* mc_dentry::node of cached dentries, oldest first: ENTRY and NEG. */
	struct list_head lru[2];
	/* mc_dirsnap::lru of installed listings, oldest first. */
	struct list_head snaps;
	/* mc_dentry::node of evicted dentries we hold (unhashed) to dput. */
	struct list_head dispose;
	/* Entries per cache (ENTRY, NEG: dentries; DIR: listing entries). */
	unsigned long nr[MC_CACHE_NR];
	/* Bytes held by installed listings. */
	unsigned long dir_bytes;
	/* Inodes with cached attributes (no lock: atomic). */
	atomic_long_t nr_attr;
	/* Set at unmount: no more dentries go to @dispose. */
	bool dying;
	/* Lower dentries detached in ->d_delete, to dput (cache.c). */
	struct llist_head lower_puts;
	/* Drains @lower_puts and @dispose. */
	struct work_struct work;
	/* The expiry pass. */
	struct delayed_work expire_work;
	/* Frees cached state under memory pressure. */
	struct shrinker shrinker;
	bool shrinker_registered;
	/* Control plane: policy rules, histograms (ctl.h). */
	struct mc_ctl *ctl;
	/* MC_BTIME_*: how the lower answers STATX_BTIME (cache.c). */
	u8 btime;
	/*
	 * The identity the permission cache last made (lower.c,
	 * mc_ident_get()), a counted reference: the next caller with the
	 * same one shares it.  Replaced with xchg(), read under RCU; put at
	 * unmount (mc_ident_forget()).
	 */
	struct mc_ident __rcu *ident_hint;

	/*
	 * The handle cache (handle.c).  @handle_lock protects @handle_lru,
	 * @handle_deadlines, @handle_dispose, @nr_handles, @handles_dead,
	 * @handles_forbidden, @handle_gen and every inode's
	 * mc_inode_info::handles and ::handles_forbidden.
	 * A leaf lock: nothing is taken under it, and it is never taken in
	 * RCU-walk or under a d_lock.
	 */
	spinlock_t handle_lock;
	struct list_head handle_lru;	/* mc_handle::lru, oldest first */
	struct rb_root_cached handle_deadlines;	/* the same, by deadline */
	struct list_head handle_dispose; /* mc_handle::lru, to be closed */
	unsigned long nr_handles;	/* on @handle_lru */
	bool handles_dead;		/* unmounting: cache no more */
	unsigned int handles_forbidden;	/* directory renames under way */
	unsigned int handle_gen;	/* bumped by each change of settings */
	bool handle_shrinker_registered;
	struct work_struct handle_dispose_work;	/* closes @handle_dispose */
	struct delayed_work handle_expire_work;	/* closes expired handles */
	struct shrinker handle_shrinker;

	/* Fault injection on lower calls (fault.c, tests only). */
	struct mc_fault fault;
};

/* mc_sb_info::btime, learned from the lower's first getattr answer. */
#define MC_BTIME_UNKNOWN	0
#define MC_BTIME_ASKED		1	/* only if asked for (tmpfs), or never */
#define MC_BTIME_ALWAYS		2	/* whether asked or not (cifs) */

/* Which time an index into mc_attr::sec[] and ::nsec[] is. */
enum {
	MC_ATIME,
	MC_MTIME,
	MC_CTIME,
	MC_BTIME,
	MC_NR_TIMES
};

/*
 * struct mc_attr - the attributes the lower's getattr gave, as in a kstat
 * (without what is not the object's: dev, mnt_id; and without dio_*, never
 * cached).  Packed tighter than a kstat, as every cached inode has one:
 * the times' seconds and nanoseconds apart (a timespec64 pads its 32-bit
 * tv_nsec to 64), and the statx attribute bits in 32 (6.1 defines none
 * above bit 21; an answer with higher ones is not cached, see
 * mc_attr_from_kstat()).  112 bytes, where a copy of the kstat fields
 * took 136.
 */
struct mc_attr {
	u64 ino;
	loff_t size;
	u64 blocks;
	s64 sec[MC_NR_TIMES];
	u32 nsec[MC_NR_TIMES];
	u32 attributes;
	u32 attributes_mask;
	kuid_t uid;
	kgid_t gid;
	u32 nlink;
	u32 blksize;
	u32 result_mask;
	dev_t rdev;
	umode_t mode;
	/*
	 * Not an attribute: whose lower getattr it was, for the cache in
	 * mc_inode_info (mc_for_user()).  Kept here, in what would be the
	 * struct's tail padding.
	 */
	kuid_t asker;
};

static inline struct timespec64 mc_attr_time(const struct mc_attr *a, int i)
{
	return (struct timespec64){ .tv_sec = a->sec[i], .tv_nsec = a->nsec[i] };
}

static inline bool mc_attr_time_equal(const struct mc_attr *a, int i,
				      const struct timespec64 *t)
{
	return a->sec[i] == t->tv_sec && a->nsec[i] == t->tv_nsec;
}

/*
 * struct mc_ident - who a caller is to the lower (lower.c, mc_ident_*()):
 * what the lower's permission checks and its server see of his
 * credentials, kept by the permission cache instead of the cred itself.
 * Immutable once made; @groups and @user_ns are counted references, put
 * an RCU grace period after @ref drops to zero.
 */
struct mc_ident {
	refcount_t ref;
	kuid_t fsuid;
	kuid_t euid;
	kgid_t fsgid;
	kgid_t egid;
	u32 secid;
	kernel_cap_t caps;
	struct user_namespace *user_ns;
	struct group_info *groups;
	struct rcu_head rcu;
};

/*
 * A directory listing, as the lower's readdir gave it (dir.c).  Entries
 * are packed in page-sized chunks; @ents indexes them: the position of an
 * entry in a directory file reading from the listing is its index.
 */
struct mc_dirent {
	u64 ino;
	u16 len;
	u8 type;
	char name[];
};

struct mc_dchunk {
	struct mc_dchunk *next;
	u32 used;			/* bytes of @data in use */
	char data[];
};

/*
 * struct mc_dirsnap - a refcounted listing.
 *
 * Immutable once built but for @owner and @lru, which are protected by
 * mc_sb_info::cache_lock: while installed as its directory's cached listing
 * (mc_inode_info::snap, which holds a reference), @owner is that directory
 * and @lru is on mc_sb_info::snaps.  Open directory files hold references
 * of their own.  Freed after an RCU grace period (mc_dirsnap_get() looks it
 * up under RCU).
 */
struct mc_dirsnap {
	struct kref ref;
	u32 nr;				/* entries */
	u64 born;			/* jiffies_64 before the lower was read */
	u64 deadline;			/* jiffies_64 */
	size_t bytes;			/* memory held */
	struct mc_inode_info *owner;
	struct list_head lru;
	struct rcu_head rcu;
	struct mc_dchunk *chunks;
	const struct mc_dirent **ents;
	/*
	 * The names, hashed (index + 1 of @ents, 0 = empty slot; open
	 * addressing), to tell a name absent (mc_dir_lacks()); NULL when
	 * this listing cannot, @names says how names compare.
	 */
	u32 *hidx;
	u32 hmask;
	u8 names;			/* enum mc_names */
};

/*
 * enum mc_names - how the lower compares names, as far as a listing can
 * prove one absent (dir.c, mc_dir_lacks()).
 */
enum mc_names {
	MC_NAMES_NONE,		/* no proof: always ask the lower */
	MC_NAMES_EXACT,		/* byte for byte */
	MC_NAMES_ASCII_CI,	/* SMB: ignoring case; plain ASCII names only */
};

/*
 * Names of a directory that may vanish without a call through us: a file
 * unlinked (or renamed over) while in use stays listed by SMB, "delete
 * pending", until its last handle closes, and NFS lists it as .nfsXXXX
 * until then.  Kept as full_name_hash() values (a collision only makes a
 * listing uncached), until a fresh listing no longer has them (cache.c,
 * mc_vanish_*()).
 */
#define MC_VANISH_MAX	1000	/* the set fits in a page */

struct mc_vanish {
	u32 nr, cap;
	bool overflow;			/* more than MC_VANISH_MAX were added */
	u32 hash[];
};

/* A cached symlink target (cache.c). */
struct mc_link {
	refcount_t ref;
	kuid_t uid;			/* whose get_link read it */
	u64 deadline;			/* jiffies_64 */
	struct rcu_head rcu;
	char target[];
};

/*
 * struct mc_inode_info - per-inode data, container of the VFS inode.
 *
 * The lower inode is set in mc_iget() before the inode can be found (the
 * inode cache is keyed by it) and never changes; its reference is dropped
 * in mc_evict_inode().  RCU-walk may still read the pointer of an inode
 * being evicted: the lower inode's memory is freed after a grace period.
 *
 * Attribute cache (cache.c, mc_attr_*()): @attr_lock's sequence counter
 * lets getattr copy @attr without a lock; writers take its spinlock.
 * @attr_req is the STATX_* mask that was asked of the lower (0: nothing
 * cached), @attr_deadline the jiffies_64 until which @attr is fresh.  Every
 * invalidation bumps @attr_gen: a lower getattr that started before it
 * does not store its (older) result.
 *
 * Permission cache: one caller identity (@perm_ident, a counted
 * reference to a struct mc_ident, not to the caller's cred) and the
 * MAY_READ/MAY_EXEC bits it was granted or refused, valid until
 * @perm_deadline and while the lower inode's mode and owner are still
 * @perm_mode, @perm_uid, @perm_gid.  Written under @attr_lock (its
 * spinlock, also in RCU-walk), read locklessly under its sequence counter
 * (mc_perm_get(), which every cached path walk step calls).  @perm_ident
 * is replaced with rcu_assign_pointer() and read under RCU (identities
 * are freed after a grace period).  The last @perm_ident is put when the
 * inode is freed, after a grace period (mc_inode_cache_free()), not when
 * it is evicted.
 *
 * Directory listing (dir.c): @snap, RCU-protected, changed under
 * mc_sb_info::cache_lock; @dir_gen is bumped (also under cache_lock) by
 * every change of the directory's entries; @dir_toobig (jiffies_64): the
 * listing was too large to cache, do not try again before.
 *
 * Symlink target: @link, RCU-protected and refcounted, replaced with
 * xchg() (cache.c, mc_link_*()).
 */
struct mc_inode_info {
	struct inode *lower;		/* counted reference (igrab) */

	seqlock_t attr_lock;		/* @attr_*, @attr and @perm_* */
	u32 attr_gen;
	u32 attr_req;
	u64 attr_deadline;
	struct mc_attr attr;

	/* @perm_*: under @attr_lock too (above) */
	u8 perm_granted;		/* MAY_READ | MAY_EXEC bits */
	u8 perm_denied;
	umode_t perm_mode;
	kuid_t perm_uid;
	kgid_t perm_gid;
	/*
	 * Not under @attr_lock, in what was a hole: a directory's lookups
	 * that asked the lower since it was last listed ahead, a bit for a
	 * listing being read, and the order of the last one's size (dir.c,
	 * mc_dir_list_ahead(), atomic_try_cmpxchg()).
	 */
	atomic_t la_state;
	struct mc_ident __rcu *perm_ident;
	u64 perm_deadline;

	/* mc_handle::inode_node, under mc_sb_info::handle_lock (handle.c) */
	struct list_head handles;
	/* Operations during which no handle is kept (handle.c), same lock */
	unsigned int handles_forbidden;

	u32 dir_gen;
	/* A directory's name generations, see "Name generations" in cache.c */
	u32 names_added;
	u32 names_removed;	/* (here: no hole before @snap) */
	struct mc_dirsnap __rcu *snap;
	u64 dir_toobig;
	/* Names that may vanish without us, cache.c; under cache_lock */
	struct mc_vanish *vanish;

	struct mc_link __rcu *link;	/* a symlink's target, cache.c */

	struct inode vfs_inode;
};

/* mc_dentry::state: on which list the entry is and what its deadline means */
#define MC_DS_NONE	0	/* nothing cached */
#define MC_DS_POS	1	/* on lru[MC_CACHE_ENTRY]: positive, deadline */
#define MC_DS_NEG	2	/* on lru[MC_CACHE_NEG]: negative, deadline */
#define MC_DS_DISPOSE	3	/* evicted, on ->dispose: referenced, unhashed */

/*
 * struct mc_dentry - per-dentry data, dentry->d_fsdata.
 *
 * @lower is a counted reference to the lower dentry, possibly negative, or
 * NULL: the entry is "detached" (namei.c explains why).  Rules:
 *  - NULL -> a lower dentry ("attach"): by anyone holding a reference to
 *    the upper dentry, under @lock (mc_dentry_attach(): the namespace
 *    operations);
 *  - a lower dentry -> NULL ("detach"): in ->d_delete, when the last
 *    reference to a positive non-directory or a negative dentry goes, or
 *    by mc_dentry_detach_now() under d_lock while the caller's is the only
 *    reference; under @lock;
 *  - a lower dentry -> another: only while the upper dentry is negative,
 *    by an operation that holds the upper parent's i_rwsem exclusively
 *    (mc_dentry_set_lower()), under @lock.
 * Hence, while one holds a reference to the upper dentry, a non-NULL
 * @lower of a positive one does not change; directories (and the root)
 * are never detached.  Readers without such a guarantee take @lock.
 *
 * @state, @node (and the meaning of @deadline) are protected by
 * mc_sb_info::cache_lock; RCU-walk reads @state (smp_load_acquire) and
 * @deadline (READ_ONCE, written before @state) locklessly.  @deadline is
 * the jiffies_64 until which the entry is fresh.  @uid, written under
 * cache_lock before @deadline (smp_wmb()), is the user whose lower call
 * (or change) set @deadline: on a mount with per_user_views only he is
 * served from the entry (mc_for_user()).  @names, written with @uid, is
 * the name generation that the entry's lower answer (or change) saw: on a
 * mount with names_fold the entry is fresh only while it is still current
 * (mc_names_stamp_of()).
 *
 * Freed after an RCU grace period: RCU-walk may read it.  @node is unused
 * by then, so it shares memory with @rcu.
 */
struct mc_dentry {
	spinlock_t lock;		/* protects @lower, see above */
	kuid_t uid;			/* fsuid that last set @deadline */
	u8 state;			/* MC_DS_* */
	u32 names;			/* name generation, ditto */
	struct dentry *lower;		/* counted reference, or NULL */
	struct dentry *dentry;		/* ours; NULL: a list cursor (cache.c) */
	u64 deadline;
	union {
		struct list_head node;	/* on an lru[] or ->dispose */
		struct rcu_head rcu;
	};
};

/* Open flags that F_SETFL can change, see setfl() in fs/fcntl.c. */
#define MC_SETFL_MASK		(O_APPEND | O_NONBLOCK | O_NDELAY | O_DIRECT)

/* Bits of mc_file::flags. */
#define MC_FILE_HAS_LOCKS	0	/* a lock was delegated to @lower */
#define MC_FILE_ITERATED	1	/* @lower's readdir position was used */
#define MC_FILE_NOCACHE		2	/* @lower not to be kept after release */
#define MC_FILE_WRITTEN		3	/* written through: see mc_file_wrote() */

/*
 * struct mc_file - per-open-file data, file->private_data.
 *
 * @lower is set at open and put at release: it never changes in between,
 * except for a directory, which may be opened without it when its listing
 * is cached: it is then set once, on first need, with cmpxchg() (use
 * mc_file_lower_get()).
 *
 * @snap: the listing a directory file reads from (dir.c), NULL when it
 * reads the lower directory.  Changed only by readdir at position 0 and
 * used by readdir and llseek, all serialized by the file's f_pos_lock.
 */
struct mc_file {
	struct file *lower;		/* counted reference */
	unsigned long flags;		/* MC_FILE_* bits, atomic bitops */
	struct mc_dirsnap *snap;	/* counted reference */
};

/*
 * mc_dentry::state is written (under mc_sb_info::cache_lock) after
 * ::deadline and read locklessly before it: the release/acquire pair makes
 * an RCU-walk reader that sees a state also see the deadline that goes
 * with it.
 */
static inline void mc_dstate_set(struct mc_dentry *mcd, u8 state)
{
	/* Pairs with mc_dstate(): publishes ::deadline. */
	smp_store_release(&mcd->state, state);
}

static inline u8 mc_dstate(const struct mc_dentry *mcd)
{
	/* Pairs with mc_dstate_set(). */
	return smp_load_acquire(&mcd->state);
}

static inline struct mc_sb_info *MC_SB(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * May the caller be answered from what a lower call made by @uid cached?
 * Always, unless the lower answers each user with his own credentials
 * (mc_sb_info::per_user_views, cifs multiuser): then only @uid himself,
 * as cifs picks the server session by fsuid.  RCU-walk safe.
 */
static inline bool mc_for_user(const struct mc_sb_info *sbi, kuid_t uid)
{
	return !sbi->per_user_views || uid_eq(uid, current_fsuid());
}

/*
 * Has the lower name @lower gone: unhashed by the lower dcache, or
 * silly-renamed by NFS (.nfsXXXX) for an unlink of, or a rename over, a
 * file still open?  RCU-walk safe.
 */
static inline bool mc_lower_name_gone(const struct dentry *lower)
{
	return d_unhashed(lower) ||
	       (READ_ONCE(lower->d_flags) & DCACHE_NFSFS_RENAMED);
}

static inline struct mc_inode_info *MC_I(const struct inode *inode)
{
	return container_of(inode, struct mc_inode_info, vfs_inode);
}

static inline struct mc_dentry *MC_D(const struct dentry *dentry)
{
	return dentry->d_fsdata;
}

static inline struct mc_file *MC_F(const struct file *file)
{
	return file->private_data;
}

/* The lower inode of a live upper inode (not for RCU-walk, see MC_I()). */
static inline struct inode *mc_inode_lower(const struct inode *inode)
{
	return MC_I(inode)->lower;
}

/*
 * Do an upper dentry and its lower dentry agree on existence and on the
 * object?  (The inode comparison needs no lock: a positive dentry's inode
 * does not change.)
 */
static inline bool mc_same_object(const struct dentry *dentry,
				  const struct dentry *lower)
{
	if (d_really_is_negative(dentry))
		return d_really_is_negative(lower);
	return d_inode(lower) == mc_inode_lower(d_inode(dentry));
}

/* The open lower file of an open upper file (see mc_file_lower_get()). */
static inline struct file *mc_file_lower(const struct file *file)
{
	return READ_ONCE(MC_F(file)->lower);
}

/* Tunable accessors: every reader goes through these. */
static inline u32 mc_entry_ttl(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.entry_ttl);
}

static inline u32 mc_neg_ttl(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.neg_ttl);
}

static inline u32 mc_attr_ttl(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.attr_ttl);
}

static inline u32 mc_dir_ttl(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.dir_ttl);
}

static inline u32 mc_close_ttl(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.close_ttl);
}

static inline u32 mc_max_entries(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.max_entries);
}

static inline u32 mc_max_neg(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.max_neg);
}

static inline u32 mc_max_handles(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.max_handles);
}

static inline u32 mc_disabled(const struct mc_sb_info *sbi)
{
	return READ_ONCE(sbi->tun.disabled);
}

/* policy.c: the policy hook behind mc_ttl(); @cache is an enum mc_cache. */
u32 mc_ttl_policy(const struct mc_sb_info *sbi, const struct dentry *dentry,
		  int cache, u32 mount_value);
bool mc_policy_any(const struct mc_sb_info *sbi);

/**
 * mc_ttl() - the lifetime of a cache for an object: the policy hook
 * @sbi: the mount
 * @dentry: the dentry concerned, or NULL when only an inode is known (the
 *	    mount's value applies then)
 * @which: the cache
 *
 * Every cache reads its TTL through here, so that per-directory rules (the
 * control plane) can be added in this one place.  Called in RCU-walk too:
 * whatever it consults must be safe under rcu_read_lock() without
 * references, and must not sleep.
 *
 * With a @dentry, the most specific policy rule covering it applies
 * (policy.c; the rule walk reads rename_lock, so never pass a dentry while
 * holding a d_lock: pass NULL there).  Without one, the mount's value and
 * its switched-off caches apply.
 *
 * Return: the TTL in seconds, 0 when the cache is off.
 */
static inline u32 mc_ttl(const struct mc_sb_info *sbi,
			 const struct dentry *dentry, enum mc_cache which)
{
	u32 ttl;

	switch (which) {
	case MC_CACHE_ENTRY:
		ttl = mc_entry_ttl(sbi);
		break;
	case MC_CACHE_NEG:
		ttl = mc_neg_ttl(sbi);
		break;
	case MC_CACHE_ATTR:
		ttl = mc_attr_ttl(sbi);
		break;
	case MC_CACHE_DIR:
		ttl = mc_dir_ttl(sbi);
		break;
	case MC_CACHE_HANDLE:
		ttl = mc_close_ttl(sbi);
		break;
	default:
		return 0;
	}
	return mc_ttl_policy(sbi, dentry, which, ttl);
}

/* A deadline @ttl seconds from now, in jiffies_64. */
static inline u64 mc_deadline(u32 ttl)
{
	return get_jiffies_64() + (u64)ttl * HZ;
}

/*
 * Is @deadline still in the future, and no further than the current @ttl
 * allows (lowering a TTL at run time takes effect at once)?
 */
static inline bool mc_fresh(u64 deadline, u32 ttl)
{
	u64 now = get_jiffies_64();

	return ttl && time_before64(now, deadline) &&
	       deadline - now <= (u64)ttl * HZ;
}

/*
 * Counters (cache.c): lockless, per cpu, also in RCU-walk; each also
 * fires the metacache_cache tracepoint (mc_count(), after trace.h).
 */
#define mc_count_hit(sbi, c)	 mc_count(sbi, c, MC_EV_HIT)
#define mc_count_miss(sbi, c)	 mc_count(sbi, c, MC_EV_MISS)
#define mc_count_expired(sbi, c) mc_count(sbi, c, MC_EV_EXPIRED)
#define mc_count_renewed(sbi, c) mc_count(sbi, c, MC_EV_RENEWED)
#define mc_count_evicted(sbi, c) mc_count(sbi, c, MC_EV_EVICTED)

/*
 * Timing the answers served from the caches.  A hit is timed from the
 * entry of the metacache operation (mc_served_begin()) to its end
 * (mc_served()), with local_clock(): the scheduler's clock of this CPU,
 * which reads the cycle counter, never a clock-source device
 * (ktime_get_ns() reads the HPET where the TSC is not trusted: a
 * microsecond or more per read, twice per path component of a walk).
 * A hit does not sleep; one that migrated and saw the clock go back is
 * recorded as 0 ns.
 *
 * Only a random sample of the hits is timed, one in served_sample (a
 * module parameter, 16 by default, 1 to time every hit): even the cheap
 * clock, read twice per hit, was a quarter of the cost of a cached path
 * walk in the test bed.  The counters stay exact; the cache-served
 * histograms hold the sample, whose percentiles are those of all hits.
 * While the metacache_served tracepoint is on, every hit is timed.
 *
 * mc_served_mask is served_sample - 1 (a power of two, minus one);
 * mc_sample_state the per-CPU xorshift32 state of the draw: updated
 * without preemption off (a draw that moved CPUs mixes two states, which
 * stay non-zero), so no lock.
 */
extern unsigned int mc_served_mask;
extern unsigned int mc_list_ahead;
DECLARE_PER_CPU(u32, mc_sample_state);

static inline u64 mc_clock(void)
{
	return local_clock();
}

/* Is this hit one of the sample?  Context: any, RCU-walk included. */
static inline bool mc_served_draw(void)
{
	u32 mask = READ_ONCE(mc_served_mask);
	u32 x;

	if (!mask)
		return true;
	x = raw_cpu_read(mc_sample_state);
	if (unlikely(!x))
		x = get_random_u32() | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	raw_cpu_write(mc_sample_state, x);
	return !(x & mask);
}

/*
 * lower.c: a cache hit saved a lower call of type @op; @start is what
 * mc_served_begin() returned when the operation began.
 */
void mc_served(struct mc_sb_info *sbi, enum mc_op op, u64 start);

/* main.c */
extern struct kmem_cache *mc_inode_cachep;
extern struct kmem_cache *mc_dentry_cachep;

/* handle.c */
struct file *mc_handle_get(struct file *file);
bool mc_handle_put(struct file *file, struct file *lower);
void mc_handles_close(struct inode *inode, bool wait);
void mc_handles_forbid(struct inode *inode);
void mc_handles_allow(struct inode *inode);
int mc_handles_flush(struct mc_sb_info *sbi);
void mc_handles_forbid_all(struct mc_sb_info *sbi);
void mc_handles_allow_all(struct mc_sb_info *sbi);
void mc_handles_retune(struct mc_sb_info *sbi);
size_t mc_handle_bytes(void);
int mc_handles_init(struct mc_sb_info *sbi);
void mc_handles_stop(struct mc_sb_info *sbi);
int mc_handle_cache_init(void);
void mc_handle_cache_exit(void);

/* cache.c */
void mc_cache_init(struct mc_sb_info *sbi);
void mc_cache_start(struct mc_sb_info *sbi);
void mc_cache_stop(struct mc_sb_info *sbi);
void mc_cache_destroy(struct mc_sb_info *sbi);
void mc_cache_apply_limits(struct mc_sb_info *sbi);
int mc_cache_flush(struct mc_sb_info *sbi, struct dentry *subtree);
void mc_cache_read(const struct mc_sb_info *sbi, enum mc_cache c,
		   struct mc_cache_stats *sum, unsigned long *entries,
		   unsigned long *bytes);
bool mc_lower_put_defer(struct mc_sb_info *sbi, struct dentry *lower);
void mc_lower_puts_drain(struct mc_sb_info *sbi);
void mc_lower_quiesce(struct mc_sb_info *sbi);
void mc_entry_set(struct dentry *dentry, u8 state);
void mc_entry_set_until(struct dentry *dentry, u8 state, u64 until);
void mc_entry_set_stamped(struct dentry *dentry, u8 state, u32 names);
u32 mc_names_stamp_of(struct dentry *dentry, u8 state);
void mc_names_added(struct inode *dir);
void mc_names_removed(struct inode *dir);
void mc_entry_clear(struct dentry *dentry);
bool mc_attr_get(struct dentry *dentry, struct kstat *stat, u32 mask,
		 bool dont_sync, struct mc_attr *old);
u32 mc_attr_gen(struct inode *inode);
u32 mc_attr_ask(struct mc_sb_info *sbi, u32 request_mask);
void mc_attr_answered(struct mc_sb_info *sbi, struct kstat *stat,
		      u32 asked, u32 request_mask);
void mc_attr_store(struct dentry *dentry, struct inode *inode,
		   const struct kstat *stat, u32 req, u32 gen);
int mc_attr_fill(struct dentry *dentry, const struct path *lower_path,
		 unsigned int sync);
void mc_attr_prime_new(struct dentry *dentry, const struct path *lower_path);
void mc_attr_prime_current(struct dentry *dentry, struct dentry *lower);
void mc_attr_invalidate(struct inode *inode);
bool mc_perm_get(struct inode *inode, int mask, int *err);
u32 mc_perm_begin(struct inode *inode);
void mc_perm_store(struct inode *inode, int mask, int err, u32 gen);
void mc_perm_invalidate(struct inode *inode);
const char *mc_link_get(struct inode *inode, struct dentry *dentry,
			struct delayed_call *done);
void mc_link_store(struct inode *inode, struct dentry *dentry,
		   const char *target);
void mc_inode_cache_init(struct mc_inode_info *mi);
void mc_inode_cache_free(struct inode *inode);
void mc_inode_cache_evict(struct inode *inode);
void mc_dir_invalidate(struct inode *dir);
void mc_dir_changed(struct inode *dir);
u32 mc_dir_gen(struct inode *dir);
bool mc_dirsnap_install(struct inode *dir, struct mc_dirsnap *snap, u32 gen);
void mc_vanish_add(struct inode *dir, const struct qstr *name);
void mc_vanish_forget(struct inode *dir, const struct qstr *name);
bool mc_vanish_settled(struct inode *dir, struct mc_dirsnap *snap, u32 gen);
struct mc_dirsnap *mc_dirsnap_get(struct dentry *dentry);
bool mc_dirsnap_peek(struct dentry *dentry, bool *expired);
void mc_dir_list_ahead(struct dentry *dir);

/* super.c */
extern struct file_system_type mc_fs_type;
extern struct list_head mc_mounts;
extern struct mutex mc_mounts_lock;
void mc_tunables_load(const struct mc_sb_info *sbi, struct mc_tunables *tun);
void mc_tunables_store(struct mc_sb_info *sbi, const struct mc_tunables *tun);

/* namei.c */
extern const struct dentry_operations mc_dentry_ops;
int mc_dentry_init(struct dentry *dentry, struct dentry *lower);
void mc_dentry_set_lower(struct dentry *dentry, struct dentry *lower);
void mc_dentry_attach(struct dentry *dentry, struct dentry *lower);
void mc_dentry_detach_now(struct dentry *dentry);
struct dentry *mc_dentry_lower(const struct dentry *dentry);
struct dentry *mc_lower_find(struct dentry *dentry, struct dentry *lower_dir);
int mc_get_lower_path(const struct dentry *dentry, struct path *lower_path);
int mc_get_lower_obj(struct dentry *dentry, struct path *lower_path);
int mc_peek_lower_obj(struct dentry *dentry, struct path *lower_path);
bool mc_dentry_matches(struct dentry *dentry, struct dentry *lower);
void mc_put_lower_path(struct path *lower_path);
struct dentry *mc_lookup(struct inode *dir, struct dentry *dentry,
			 unsigned int flags);

/* inode.c */
struct inode *mc_iget(struct super_block *sb, struct inode *lower);
void mc_copy_attr(struct inode *inode);
void mc_evict_inode(struct inode *inode);

/* file.c */
extern const struct file_operations mc_file_fops;
int mc_open(struct inode *inode, struct file *file);
int mc_open_prepared(struct inode *inode, struct file *file);
struct file *mc_file_lower_get(struct file *file);
int mc_release(struct inode *inode, struct file *file);
struct mc_file *mc_file_alloc(void);
void mc_file_free(struct mc_file *mcf);
loff_t mc_llseek_lower(struct file *file, loff_t offset, int whence);
int mc_fsync(struct file *file, loff_t start, loff_t end, int datasync);
int mc_flush(struct file *file, fl_owner_t id);
int mc_lock(struct file *file, int cmd, struct file_lock *fl);
int mc_flock(struct file *file, int cmd, struct file_lock *fl);
long mc_unlocked_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
long mc_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* dir.c */
extern const struct file_operations mc_dir_fops;
void mc_dirsnap_put(struct mc_dirsnap *snap);
bool mc_dir_lacks(struct dentry *dentry, u64 *until);
bool mc_lower_folds_names(const struct dentry *root);

/* xattr.c */
extern const struct xattr_handler *mc_xattr_handlers[];
ssize_t mc_listxattr(struct dentry *dentry, char *list, size_t size);

/* lower.c */
extern const char *const mc_op_names[MC_OP_NR];
int mc_stats_alloc(struct mc_sb_info *sbi);
void mc_stats_free(struct mc_sb_info *sbi);
void mc_stats_read(const struct mc_sb_info *sbi, enum mc_op op,
		   struct mc_op_stats *sum);
int mc_lower_resolve(const char *name, struct path *path);
int mc_lower_want_write(struct mc_sb_info *sbi);
void mc_lower_drop_write(struct mc_sb_info *sbi);
bool mc_cred_same(const struct cred *a, const struct cred *b);
bool mc_cred_keys_same(const struct cred *a, const struct cred *b);
bool mc_ident_same(const struct mc_ident *id, const struct cred *cred);
struct mc_ident *mc_ident_get(struct mc_sb_info *sbi, const struct cred *cred,
			      gfp_t gfp);
void mc_ident_put(struct mc_ident *id);
void mc_ident_forget(struct mc_sb_info *sbi);
bool mc_lower_name_eq(struct dentry *lower_dir, struct dentry *lower,
		      const struct qstr *name);
struct dentry *mc_lower_lookup(struct mc_sb_info *sbi, struct dentry *lower_dir,
			       const struct qstr *name);
struct dentry *mc_lower_lookup_locked(struct mc_sb_info *sbi,
				      struct dentry *lower_dir,
				      const struct qstr *name);
struct dentry *mc_lower_lookup_intent(struct mc_sb_info *sbi,
				      struct dentry *lower_dir,
				      const struct qstr *name,
				      unsigned int intent);
int mc_lower_revalidate(struct mc_sb_info *sbi, struct dentry *lower,
			unsigned int flags);
int mc_lower_weak_revalidate(struct mc_sb_info *sbi, struct dentry *lower,
			     unsigned int flags);
int mc_lower_getattr(struct mc_sb_info *sbi, const struct path *lower_path,
		     struct kstat *stat, u32 request_mask, unsigned int flags);
int mc_lower_setattr(struct mc_sb_info *sbi, struct dentry *lower,
		     struct iattr *ia);
int mc_lower_permission(struct mc_sb_info *sbi, struct inode *lower, int mask);
const char *mc_lower_get_link(struct mc_sb_info *sbi, struct dentry *lower,
			      struct delayed_call *done);
int mc_lower_create(struct mc_sb_info *sbi, struct inode *lower_dir,
		    struct dentry *lower, umode_t mode, bool excl);
int mc_lower_mkdir(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower, umode_t mode);
int mc_lower_mknod(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower, umode_t mode, dev_t rdev);
int mc_lower_symlink(struct mc_sb_info *sbi, struct inode *lower_dir,
		     struct dentry *lower, const char *target);
int mc_lower_link(struct mc_sb_info *sbi, struct dentry *lower_old,
		  struct inode *lower_dir, struct dentry *lower_new);
int mc_lower_unlink(struct mc_sb_info *sbi, struct inode *lower_dir,
		    struct dentry *lower);
int mc_lower_rmdir(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower);
int mc_lower_rename(struct mc_sb_info *sbi, struct inode *lower_old_dir,
		    struct dentry *lower_old, struct inode *lower_new_dir,
		    struct dentry *lower_new, unsigned int flags);
struct file *mc_lower_tmpfile(struct mc_sb_info *sbi,
			      const struct path *lower_dir, umode_t mode,
			      int open_flags);
struct file *mc_lower_open(struct mc_sb_info *sbi,
			   const struct path *lower_path, int flags,
			   const struct cred *cred);
struct file *mc_lower_open_name(struct mc_sb_info *sbi,
				const struct path *lower_dir,
				const struct qstr *name, int flags,
				umode_t mode);
void mc_lower_release(struct mc_sb_info *sbi, struct file *lower);
void mc_lower_release_sync(struct mc_sb_info *sbi, struct file *lower);
int mc_lower_setfl(struct mc_sb_info *sbi, struct file *lower,
		   unsigned int flags);
ssize_t mc_lower_read(struct mc_sb_info *sbi, struct file *lower,
		      struct iov_iter *iter, loff_t *pos, rwf_t rwf);
ssize_t mc_lower_write(struct mc_sb_info *sbi, struct file *lower,
		       struct iov_iter *iter, loff_t *pos, rwf_t rwf);
ssize_t mc_lower_splice_write(struct mc_sb_info *sbi,
			      struct pipe_inode_info *pipe, struct file *lower,
			      loff_t *pos, size_t len, unsigned int flags);
int mc_lower_iterate(struct mc_sb_info *sbi, struct file *lower,
		     struct dir_context *ctx);
int mc_lower_dir_seek(struct mc_sb_info *sbi, struct file *lower, loff_t pos);
loff_t mc_lower_llseek(struct mc_sb_info *sbi, struct file *lower,
		       loff_t offset, int whence);
int mc_lower_fsync(struct mc_sb_info *sbi, struct file *lower, loff_t start,
		   loff_t end, int datasync);
int mc_lower_syncfs(struct mc_sb_info *sbi);
long mc_lower_fallocate(struct mc_sb_info *sbi, struct file *lower, int mode,
			loff_t offset, loff_t len);
int mc_lower_fadvise(struct mc_sb_info *sbi, struct file *lower,
		     loff_t offset, loff_t len, int advice);
ssize_t mc_lower_copy_file_range(struct mc_sb_info *sbi, struct file *in,
				 loff_t pos_in, struct file *out,
				 loff_t pos_out, size_t len,
				 unsigned int flags);
loff_t mc_lower_remap_file_range(struct mc_sb_info *sbi, struct file *in,
				 loff_t pos_in, struct file *out,
				 loff_t pos_out, loff_t len,
				 unsigned int remap_flags);
int mc_lower_mmap(struct mc_sb_info *sbi, struct file *lower,
		  struct vm_area_struct *vma);
int mc_lower_flush(struct mc_sb_info *sbi, struct file *lower, fl_owner_t id);
int mc_lower_lock(struct mc_sb_info *sbi, struct file *lower, int cmd,
		  struct file_lock *fl);
int mc_lower_flock(struct mc_sb_info *sbi, struct file *lower, int cmd,
		   struct file_lock *fl);
long mc_lower_ioctl(struct mc_sb_info *sbi, struct file *lower,
		    unsigned int cmd, unsigned long arg);
long mc_lower_compat_ioctl(struct mc_sb_info *sbi, struct file *lower,
			   unsigned int cmd, unsigned long arg);
int mc_lower_fileattr_get(struct mc_sb_info *sbi, struct dentry *lower,
			  struct fileattr *fa);
int mc_lower_fileattr_set(struct mc_sb_info *sbi, struct dentry *lower,
			  struct fileattr *fa);
int mc_lower_fiemap(struct mc_sb_info *sbi, struct inode *lower,
		    struct fiemap_extent_info *fieinfo, u64 start, u64 len);
ssize_t mc_lower_getxattr(struct mc_sb_info *sbi, struct dentry *lower,
			  const char *name, void *value, size_t size);
int mc_lower_setxattr(struct mc_sb_info *sbi, struct dentry *lower,
		      const char *name, const void *value, size_t size,
		      int flags);
int mc_lower_removexattr(struct mc_sb_info *sbi, struct dentry *lower,
			 const char *name);
ssize_t mc_lower_listxattr(struct mc_sb_info *sbi, struct dentry *lower,
			   char *list, size_t size);
int mc_lower_statfs(struct mc_sb_info *sbi, struct kstatfs *buf);

/* fault.c */
DECLARE_STATIC_KEY_FALSE(mc_fault_key);
extern const struct file_operations mc_fault_fops;
int __mc_fault(struct mc_sb_info *sbi, enum mc_op op, bool after);
void mc_fault_init(struct mc_sb_info *sbi);
void mc_fault_exit(struct mc_sb_info *sbi);

/**
 * mc_fault() - the fault injection point of a lower call (fault.c)
 * @sbi: the mount
 * @op: the lower operation about to be called
 *
 * Context: any, RCU-walk included.
 * Return: 0 to make the call, or the negative errno to fail it with.
 */
static inline int mc_fault(struct mc_sb_info *sbi, enum mc_op op)
{
	if (static_branch_unlikely(&mc_fault_key))
		return __mc_fault(sbi, op, false);
	return 0;
}

/**
 * mc_fault_after() - the fault injection point after a namespace call
 * @sbi: the mount
 * @op: the lower operation that was just made
 * @err: what it returned
 *
 * With "when=after" (fault.c) the call is made and a success is turned
 * into the injected error: a reply lost after the server did the work.
 *
 * Context: as the wrapper's.
 * Return: @err, or the negative errno to report instead of a success.
 */
static inline int mc_fault_after(struct mc_sb_info *sbi, enum mc_op op,
				 int err)
{
	if (static_branch_unlikely(&mc_fault_key) && !err)
		return __mc_fault(sbi, op, true);
	return err;
}

/* debugfs.c */
void mc_debugfs_init(void);
void mc_debugfs_exit(void);
void mc_debugfs_mount(struct mc_sb_info *sbi);
void mc_debugfs_umount(struct mc_sb_info *sbi);

/* What the tracepoints report (trace.h). */
enum mc_cache_event {
	MC_EV_HIT, MC_EV_MISS, MC_EV_EXPIRED, MC_EV_RENEWED, MC_EV_EVICTED
};
enum mc_inval { MC_INVAL_ATTR, MC_INVAL_DIR };
enum mc_handle_event { MC_HANDLE_REUSE, MC_HANDLE_KEEP, MC_HANDLE_CLOSE };

#include "trace.h"

/*
 * Where a metacache operation that may be answered from a cache begins:
 * the start time when this answer is to be timed (see mc_clock()), 0 when
 * not.
 */
static inline u64 mc_served_begin(void)
{
	if (!mc_served_draw() && !trace_metacache_served_enabled())
		return 0;
	return mc_clock() ?: 1;
}

static inline void mc_count(struct mc_sb_info *sbi, enum mc_cache c,
			    enum mc_cache_event ev)
{
	struct mc_cache_stats __percpu *s = &sbi->stats->cache[c];

	switch (ev) {
	case MC_EV_HIT:
		this_cpu_inc(s->hits);
		break;
	case MC_EV_MISS:
		this_cpu_inc(s->misses);
		break;
	case MC_EV_EXPIRED:
		this_cpu_inc(s->expired);
		break;
	case MC_EV_RENEWED:
		this_cpu_inc(s->renewed);
		break;
	case MC_EV_EVICTED:
		this_cpu_inc(s->evicted);
		break;
	}
	trace_metacache_cache(sbi->id, c, ev);
}

#endif /* _METACACHE_H */
