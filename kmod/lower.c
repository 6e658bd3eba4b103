// SPDX-License-Identifier: GPL-2.0
/*
 * lower.c - the single choke point for calls into the lower file system.
 *
 * Every call metacache makes into the lower file system (vfs_*() helpers,
 * lower f_op, i_op and d_op methods) goes through one of the mc_lower_*()
 * wrappers below, and nothing else in the module calls them directly.  Each
 * wrapper:
 *  - counts the call and its latency in the mount's per-cpu statistics;
 *  - first asks mc_fault() whether to fail instead of calling the lower
 *    (fault injection for the tests, fault.c; off unless armed), except
 *    where nothing could handle a failure: releases and unlocks.
 * The metadata caches sit in front of these wrappers (cache.c, namei.c,
 * inode.c, dir.c): a cache hit makes no call here and counts the call it
 * saved as "avoided" (mc_avoided()).
 *
 * Wrappers run with the caller's credentials (we never override them: the
 * lower file system must see, and check permissions for, the real user) and
 * take no upper locks.  Where a wrapper needs a lower lock held it says so
 * and asserts it.  Write access to the lower mount (mnt_want_write) is taken
 * here for the single-call operations and by the caller, before it locks the
 * lower parent, for the namespace operations: freeze protection (sb_writers)
 * must always be taken before i_rwsem.
 *
 * Reference counting (dget/dput, igrab/iput, path_get/path_put) is not a
 * call into the lower file system and stays with the code that owns the
 * references.  The lower vfsmount is always sbi->lower_path.mnt: metacache
 * does not cross mount points of the lower namespace, a directory covered by
 * a mount on the lower side shows its own (covered) contents.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/fileattr.h>
#include <linux/sched/clock.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/uio.h>
#include <linux/xattr.h>

#include "metacache.h"
#include "ctl.h"

const char *const mc_op_names[MC_OP_NR] = {
	[MC_OP_LOOKUP]		= "lookup",
	[MC_OP_REVALIDATE]	= "revalidate",
	[MC_OP_GETATTR]		= "getattr",
	[MC_OP_SETATTR]		= "setattr",
	[MC_OP_PERMISSION]	= "permission",
	[MC_OP_CREATE]		= "create",
	[MC_OP_MKDIR]		= "mkdir",
	[MC_OP_MKNOD]		= "mknod",
	[MC_OP_SYMLINK]		= "symlink",
	[MC_OP_LINK]		= "link",
	[MC_OP_UNLINK]		= "unlink",
	[MC_OP_RMDIR]		= "rmdir",
	[MC_OP_RENAME]		= "rename",
	[MC_OP_OPEN]		= "open",
	[MC_OP_RELEASE]		= "release",
	[MC_OP_READ]		= "read",
	[MC_OP_WRITE]		= "write",
	[MC_OP_READDIR]		= "readdir",
	[MC_OP_FSYNC]		= "fsync",
	[MC_OP_XATTR]		= "xattr",
	[MC_OP_LOCK]		= "lock",
	[MC_OP_IOCTL]		= "ioctl",
	[MC_OP_STATFS]		= "statfs",
	[MC_OP_OTHER]		= "other",
};

/* Statistics */

/**
 * mc_stats_alloc() - allocate the per-cpu statistics of a mount
 * @sbi: the mount
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int mc_stats_alloc(struct mc_sb_info *sbi)
{
	sbi->stats = alloc_percpu(struct mc_stats);
	return sbi->stats ? 0 : -ENOMEM;
}

/**
 * mc_stats_free() - free the per-cpu statistics of a mount
 * @sbi: the mount, with no lower call in flight (or none allocated)
 */
void mc_stats_free(struct mc_sb_info *sbi)
{
	free_percpu(sbi->stats);
	sbi->stats = NULL;
}

/**
 * mc_stats_read() - sum the statistics of one operation over all CPUs
 * @sbi: the mount
 * @op: the operation
 * @sum: filled with the totals
 *
 * Lockless: concurrent calls may or may not be included.
 */
void mc_stats_read(const struct mc_sb_info *sbi, enum mc_op op,
		   struct mc_op_stats *sum)
{
	int cpu;

	sum->calls = 0;
	sum->avoided = 0;
	sum->total_ns = 0;
	for_each_possible_cpu(cpu) {
		const struct mc_op_stats *s = &per_cpu_ptr(sbi->stats, cpu)->op[op];

		sum->calls += s->calls;
		sum->avoided += s->avoided;
		sum->total_ns += s->total_ns;
	}
}

/*
 * The clock of the lower calls: the scheduler's clock of the CPU the call
 * began on, sched_clock_cpu(), which reads the cycle counter.
 * ktime_get_ns() reads the clock-source device, and where the kernel does
 * not trust the TSC that is the HPET: a microsecond or more per read, and
 * in the test bed, where every lower call is timed twice, an eighth of the
 * CPU time of a cold `ls -l` of an nfs directory through metacache (the
 * lower alone reads it a few times per RPC).  A call that sleeps may end
 * on another CPU: it then reads the first CPU's clock from there
 * (sched_clock_cpu() of a remote CPU, which the scheduler keeps in step
 * with this one's and monotonic), so the two readings come from one clock.
 */
struct mc_op_start {
	u64 ns;
	int cpu;
};

static inline struct mc_op_start mc_op_begin(void)
{
	struct mc_op_start s;

	s.cpu = raw_smp_processor_id();
	s.ns = sched_clock_cpu(s.cpu);
	return s;
}

unsigned int mc_served_mask = 15;	/* see mc_clock() */
DEFINE_PER_CPU(u32, mc_sample_state);

/**
 * mc_served() - account an operation answered from a cache
 * @sbi: the mount
 * @op: the lower call the answer saved
 * @start: what mc_served_begin() returned when the metacache operation
 *	began: its start time, or 0 when this answer is not timed
 *
 * Counts the call as avoided; if it is timed, records how long the answer
 * took in the mount's cache-served latency histogram (hist.c) and fires the
 * metacache_served tracepoint.
 * Context: any, RCU-walk included; no lock, no allocation.
 */
void mc_served(struct mc_sb_info *sbi, enum mc_op op, u64 start)
{
	u64 now, ns;

	this_cpu_inc(sbi->stats->op[op].avoided);
	if (!start)
		return;
	now = mc_clock();
	ns = now > start ? now - start : 0;
	mc_stats_cache_hit(sbi, op, ns);
	trace_metacache_served(sbi->id, op, ns);
}

/* Account one lower call of type @op that started at @start. */
static void mc_op_end(struct mc_sb_info *sbi, enum mc_op op,
		      struct mc_op_start start)
{
	u64 now = sched_clock_cpu(start.cpu);
	u64 delta = now > start.ns ? now - start.ns : 0;
	struct mc_stats *st;

	st = get_cpu_ptr(sbi->stats);
	st->op[op].calls++;
	st->op[op].total_ns += delta;
	put_cpu_ptr(sbi->stats);
	mc_stats_lower_call(sbi, op, delta);
	trace_metacache_lower_call(sbi->id, op, delta);
}

/* Mount time and helpers that do not reach the lower file system's code */

/**
 * mc_lower_resolve() - look up the lower directory at mount time
 * @name: the path given as mount source
 * @path: on success, the directory, referenced (path_put() it)
 *
 * Not counted: the mount's statistics do not exist yet.
 *
 * Return: 0, or -ENOENT, -ENOTDIR, ... from the path walk.
 */
int mc_lower_resolve(const char *name, struct path *path)
{
	return kern_path(name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, path);
}

/**
 * mc_lower_want_write() - get write access to the lower mount
 * @sbi: the mount
 *
 * Fails with -EROFS if the lower mount is read-only, and waits while the
 * lower file system is frozen.  Must be taken before any lower i_rwsem.
 *
 * Return: 0 or a negative errno.  On success, mc_lower_drop_write() it.
 */
int mc_lower_want_write(struct mc_sb_info *sbi)
{
	return mnt_want_write(sbi->lower_path.mnt);
}

/**
 * mc_lower_drop_write() - release what mc_lower_want_write() took
 * @sbi: the mount
 */
void mc_lower_drop_write(struct mc_sb_info *sbi)
{
	mnt_drop_write(sbi->lower_path.mnt);
}

static bool mc_groups_same(const struct group_info *a,
			   const struct group_info *b)
{
	int i;

	if (a == b)
		return true;
	if (a->ngroups != b->ngroups)
		return false;
	for (i = 0; i < a->ngroups; i++)
		if (!gid_eq(a->gid[i], b->gid[i]))
			return false;
	return true;
}

/*
 * What decides how the lower authenticates a caller and answers his
 * permission checks: the identity its RPCs carry and generic_permission()
 * checks (fsuid, fsgid, supplementary groups, and euid and egid), the
 * effective capabilities and the user namespace they hold in (root without
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH is refused what root with them
 * is granted), and the LSM label (security_inode_permission() on the lower
 * inode, e.g. an SELinux domain).  A struct mc_ident keeps exactly that,
 * without the rest of a cred (keyrings, rlimits' user, security blob).
 */
static void mc_ident_fill(struct mc_ident *id, const struct cred *cred)
{
	id->fsuid = cred->fsuid;
	id->euid = cred->euid;
	id->fsgid = cred->fsgid;
	id->egid = cred->egid;
	id->caps = cred->cap_effective;
	id->user_ns = cred->user_ns;
	id->groups = cred->group_info;
	security_cred_getsecid(cred, &id->secid);
}

/**
 * mc_ident_same() - would the lower treat a caller as a kept identity?
 * @id: the identity
 * @cred: the caller's credentials
 *
 * Context: any, also RCU-walk and under spinlocks.
 * Return: true if the lower cannot tell @cred from @id.
 */
bool mc_ident_same(const struct mc_ident *id, const struct cred *cred)
{
	u32 secid;

	if (!uid_eq(id->fsuid, cred->fsuid) ||
	    !gid_eq(id->fsgid, cred->fsgid) ||
	    !uid_eq(id->euid, cred->euid) || !gid_eq(id->egid, cred->egid) ||
	    id->user_ns != cred->user_ns ||
	    !cap_issubset(id->caps, cred->cap_effective) ||
	    !cap_issubset(cred->cap_effective, id->caps) ||
	    !mc_groups_same(id->groups, cred->group_info))
		return false;
	security_cred_getsecid(cred, &secid);
	return secid == id->secid;
}

/**
 * mc_cred_same() - would the lower treat two callers alike?
 * @a: credentials
 * @b: credentials
 *
 * The handle cache hands a kept lower file only to a caller the same as
 * the one it came from (what "the same" is: above mc_ident_fill()).
 *
 * Context: any, also RCU-walk and under spinlocks.
 * Return: true if the lower cannot tell @a and @b apart.
 */
bool mc_cred_same(const struct cred *a, const struct cred *b)
{
	struct mc_ident ia;

	if (a == b)
		return true;
	mc_ident_fill(&ia, a);	/* no references: @a outlives this */
	return mc_ident_same(&ia, b);
}

/**
 * mc_cred_keys_same() - do two credentials hold the same keyrings?
 * @a: credentials, referenced by the caller
 * @b: credentials, referenced by the caller
 *
 * Keyrings count against their user's key quota for as long as a cred
 * holds them: what keeps a cred keeps them (handle.c).  Both creds are
 * alive, so are their keyrings: equal pointers are the same keyrings.
 *
 * Return: true if @a holds no keyring that @b does not.
 */
bool mc_cred_keys_same(const struct cred *a, const struct cred *b)
{
#ifdef CONFIG_KEYS
	return a->session_keyring == b->session_keyring &&
	       a->process_keyring == b->process_keyring &&
	       a->thread_keyring == b->thread_keyring &&
	       a->request_key_auth == b->request_key_auth;
#else
	return true;
#endif
}

static void mc_ident_free_rcu(struct rcu_head *head)
{
	struct mc_ident *id = container_of(head, struct mc_ident, rcu);

	put_group_info(id->groups);
	put_user_ns(id->user_ns);
	kfree(id);
}

/**
 * mc_ident_put() - drop a reference to an identity
 * @id: the identity, or NULL
 *
 * The last one frees it after a grace period (mc_ident_get() finds
 * identities under RCU): the group list and user namespace are put from
 * the RCU callback, where put_group_info()'s kvfree() and put_user_ns()'s
 * work item are allowed.  Module exit waits for it (two rcu_barrier()s:
 * an inode's own RCU callback may put the last reference).
 *
 * Context: any, also RCU-walk, softirq and under spinlocks.
 */
void mc_ident_put(struct mc_ident *id)
{
	if (id && refcount_dec_and_test(&id->ref))
		call_rcu(&id->rcu, mc_ident_free_rcu);
}

/**
 * mc_ident_get() - a counted identity for the calling credentials
 * @sbi: the mount, whose last made identity is tried first
 * @cred: the caller's credentials
 * @gfp: allocation flags (GFP_NOWAIT in RCU-walk)
 *
 * The permission cache keeps who its answers are for as an identity, not
 * as a reference to the caller's cred: a cred pins its keyrings, which
 * count against the user's key quota (a cached inode per login session
 * would keep each session's keyring alive), and far more memory.  One
 * user walking a tree shares one identity (@sbi's hint); each holds a
 * reference to the group list and the user namespace.
 *
 * Return: a reference to put with mc_ident_put(), or NULL if out of memory.
 */
struct mc_ident *mc_ident_get(struct mc_sb_info *sbi, const struct cred *cred,
			      gfp_t gfp)
{
	struct mc_ident *id;

	rcu_read_lock();
	id = rcu_dereference(sbi->ident_hint);
	if (id && mc_ident_same(id, cred) && refcount_inc_not_zero(&id->ref)) {
		rcu_read_unlock();
		return id;
	}
	rcu_read_unlock();

	id = kmalloc(sizeof(*id), gfp | __GFP_NOWARN);
	if (!id)
		return NULL;
	mc_ident_fill(id, cred);
	get_group_info(id->groups);
	get_user_ns(id->user_ns);
	refcount_set(&id->ref, 2);	/* the caller's and the hint's */
	mc_ident_put(unrcu_pointer(xchg(&sbi->ident_hint,
					RCU_INITIALIZER(id))));
	return id;
}

/**
 * mc_ident_forget() - drop the mount's hint at unmount
 * @sbi: the mount
 */
void mc_ident_forget(struct mc_sb_info *sbi)
{
	mc_ident_put(unrcu_pointer(xchg(&sbi->ident_hint, NULL)));
}

/**
 * mc_lower_name_eq() - does a lower dentry (still) carry a given name?
 * @lower_dir: the lower parent of @lower
 * @lower: the lower dentry
 * @name: the name of the upper dentry
 *
 * Uses the lower file system's d_compare when it has one, so that
 * case-insensitive lower file systems compare as they do themselves.
 * Not counted: a memory-only comparison.
 *
 * Return: true if @lower is called @name.
 */
bool mc_lower_name_eq(struct dentry *lower_dir, struct dentry *lower,
		      const struct qstr *name)
{
	struct name_snapshot snap;
	bool eq;

	take_dentry_name_snapshot(&snap, lower);
	if (lower_dir->d_flags & DCACHE_OP_COMPARE)
		eq = !lower_dir->d_op->d_compare(lower, snap.name.len,
						 snap.name.name, name);
	else
		eq = snap.name.len == name->len &&
		     !memcmp(snap.name.name, name->name, name->len);
	release_dentry_name_snapshot(&snap);
	return eq;
}

/* Names */

/**
 * mc_lower_lookup() - look up a name in a lower directory
 * @sbi: the mount
 * @lower_dir: the lower directory, unlocked
 * @name: the name
 *
 * lookup_one_unlocked() checks MAY_EXEC on @lower_dir with the caller's
 * credentials and the lower mount's idmapping, and revalidates a dentry it
 * finds in the lower dcache.
 *
 * Return: a referenced lower dentry, maybe negative, or an ERR_PTR.
 */
struct dentry *mc_lower_lookup(struct mc_sb_info *sbi, struct dentry *lower_dir,
			       const struct qstr *name)
{
	struct mc_op_start start = mc_op_begin();
	struct dentry *lower;
	int fault;

	fault = mc_fault(sbi, MC_OP_LOOKUP);
	if (fault)
		return ERR_PTR(fault);

	lower = lookup_one_unlocked(sbi->lower_userns, name->name, lower_dir,
				    name->len);
	mc_op_end(sbi, MC_OP_LOOKUP, start);
	pr_debug("lookup %pd/%.*s: %d\n", lower_dir, name->len, name->name,
		 PTR_ERR_OR_ZERO(lower));
	return lower;
}

/**
 * mc_lower_lookup_locked() - look up a name in a locked lower directory
 * @sbi: the mount
 * @lower_dir: the lower directory
 * @name: the name
 *
 * Context: @lower_dir's i_rwsem held.
 * Return: a referenced lower dentry, maybe negative, or an ERR_PTR.
 */
struct dentry *mc_lower_lookup_locked(struct mc_sb_info *sbi,
				      struct dentry *lower_dir,
				      const struct qstr *name)
{
	struct mc_op_start start = mc_op_begin();
	struct dentry *lower;
	int fault;

	fault = mc_fault(sbi, MC_OP_LOOKUP);
	if (fault)
		return ERR_PTR(fault);

	lockdep_assert_held(&d_inode(lower_dir)->i_rwsem);
	lower = lookup_one(sbi->lower_userns, name->name, lower_dir, name->len);
	mc_op_end(sbi, MC_OP_LOOKUP, start);
	pr_debug("relookup %pd/%.*s: %d\n", lower_dir, name->len, name->name,
		 PTR_ERR_OR_ZERO(lower));
	return lower;
}

/**
 * mc_lower_lookup_intent() - look up a name to create or to rename onto
 * @sbi: the mount
 * @lower_dir: the lower directory, locked exclusively
 * @name: the name
 * @intent: LOOKUP_CREATE | LOOKUP_EXCL (mkdir, mknod, symlink, link) or
 *	    LOOKUP_RENAME_TARGET (the target of a rename)
 *
 * As the VFS looks up such a name (filename_create(), do_renameat2()),
 * with the intent that lookup_one() cannot pass: a dentry of the lower
 * dcache is revalidated with it, and the lower's ->lookup is called with
 * it on a new dentry.  NFS then skips its LOOKUP round trip and leaves the
 * dentry unhashed and negative, as for its own creations and renames: the
 * server's reply says whether the name existed.  Other file systems look
 * the name up as usual.
 *
 * Context: @lower_dir's i_rwsem held exclusively.
 * Return: a referenced lower dentry, maybe negative, or an ERR_PTR.
 */
struct dentry *mc_lower_lookup_intent(struct mc_sb_info *sbi,
				      struct dentry *lower_dir,
				      const struct qstr *name,
				      unsigned int intent)
{
	struct inode *dir = d_inode(lower_dir);
	struct qstr this = QSTR_INIT(name->name, name->len);
	struct mc_op_start start;
	struct dentry *lower, *old;
	int err;

	lockdep_assert_held_write(&dir->i_rwsem);
	/* lookup_one()'s permission check, with the same credentials. */
	err = inode_permission(sbi->lower_userns, dir, MAY_EXEC);
	if (err)
		return ERR_PTR(err);
	/* The hash as the lower's dcache computes it (cifs: nocase). */
	this.hash = full_name_hash(lower_dir, this.name, this.len);
	if (lower_dir->d_flags & DCACHE_OP_HASH) {
		err = lower_dir->d_op->d_hash(lower_dir, &this);
		if (err < 0)
			return ERR_PTR(err);
	}
	/*
	 * A dentry the lower has is revalidated with the intent, as the VFS
	 * does (lookup_dcache()): NFS trusts a negative one for a creation,
	 * cifs never does (a plain lookup would not ask it either).
	 */
	lower = d_lookup(lower_dir, &this);
	if (lower) {
		err = mc_lower_revalidate(sbi, lower, intent);
		if (err > 0)
			return lower;
		if (!err)
			d_invalidate(lower);
		dput(lower);
		if (err)
			return ERR_PTR(err);
	}

	start = mc_op_begin();
	err = mc_fault(sbi, MC_OP_LOOKUP);
	if (err)
		return ERR_PTR(err);
	lower = unlikely(IS_DEADDIR(dir)) ? ERR_PTR(-ENOENT) :
					    d_alloc(lower_dir, &this);
	if (!lower) {
		lower = ERR_PTR(-ENOMEM);
	} else if (!IS_ERR(lower)) {
		old = dir->i_op->lookup(dir, lower, intent);
		if (unlikely(old)) {
			dput(lower);
			lower = old;
		}
	}
	mc_op_end(sbi, MC_OP_LOOKUP, start);
	pr_debug("lookup %pd/%.*s with intent 0x%x: %d\n", lower_dir,
		 name->len, name->name, intent, PTR_ERR_OR_ZERO(lower));
	return lower;
}

/**
 * mc_lower_revalidate() - ask the lower file system if a dentry is valid
 * @sbi: the mount
 * @lower: the lower dentry, referenced
 * @flags: the LOOKUP_* flags the VFS gave us (never LOOKUP_RCU)
 *
 * Return: 1 if valid (or the lower has no d_revalidate), 0 if not, or a
 * negative errno.
 */
int mc_lower_revalidate(struct mc_sb_info *sbi, struct dentry *lower,
			unsigned int flags)
{
	struct mc_op_start start;
	int ret;
	int fault;

	if (!(lower->d_flags & DCACHE_OP_REVALIDATE))
		return 1;
	fault = mc_fault(sbi, MC_OP_REVALIDATE);
	if (fault)
		return fault;
	start = mc_op_begin();
	ret = lower->d_op->d_revalidate(lower, flags);
	mc_op_end(sbi, MC_OP_REVALIDATE, start);
	pr_debug("revalidate %pd 0x%x: %d\n", lower, flags, ret);
	return ret;
}

/**
 * mc_lower_weak_revalidate() - d_weak_revalidate of the lower dentry
 * @sbi: the mount
 * @lower: the lower dentry, referenced
 * @flags: the LOOKUP_* flags the VFS gave us
 *
 * Return: as mc_lower_revalidate().
 */
int mc_lower_weak_revalidate(struct mc_sb_info *sbi, struct dentry *lower,
			     unsigned int flags)
{
	struct mc_op_start start;
	int ret;
	int fault;

	if (!(lower->d_flags & DCACHE_OP_WEAK_REVALIDATE))
		return 1;
	fault = mc_fault(sbi, MC_OP_REVALIDATE);
	if (fault)
		return fault;
	start = mc_op_begin();
	ret = lower->d_op->d_weak_revalidate(lower, flags);
	mc_op_end(sbi, MC_OP_REVALIDATE, start);
	return ret;
}

/* Attributes */

/**
 * mc_lower_getattr() - stat a lower object
 * @sbi: the mount
 * @lower_path: the lower object
 * @stat: result
 * @request_mask: STATX_* wanted
 * @flags: AT_STATX_* sync type, passed through
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_getattr(struct mc_sb_info *sbi, const struct path *lower_path,
		     struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_GETATTR);
	if (fault)
		return fault;

	err = vfs_getattr(lower_path, stat, request_mask, flags);
	mc_op_end(sbi, MC_OP_GETATTR, start);
	return err;
}

/**
 * mc_lower_setattr() - change attributes of a lower object
 * @sbi: the mount
 * @lower: the lower dentry, positive and referenced
 * @ia: the change, already translated for the lower (ia_file is a lower
 *	file, no ATTR_MODE together with ATTR_KILL_S*ID)
 *
 * Takes write access to the lower mount, write access to the lower inode
 * for a size change (so a lower file being executed gives -ETXTBSY) and the
 * lower inode lock, like do_truncate()/chmod_common() do.  A delegation on a
 * locally exported lower is not waited for: -EWOULDBLOCK, as overlayfs.
 *
 * Context: the upper inode is locked by the VFS; the lower inode is not.
 * Return: 0 or a negative errno.
 */
int mc_lower_setattr(struct mc_sb_info *sbi, struct dentry *lower,
		     struct iattr *ia)
{
	struct inode *inode = d_inode(lower);
	bool size = ia->ia_valid & ATTR_SIZE;
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_SETATTR);
	if (fault)
		return fault;

	err = mnt_want_write(sbi->lower_path.mnt);
	if (err)
		goto out;
	if (size) {
		err = get_write_access(inode);
		if (err)
			goto out_drop_write;
	}
	inode_lock(inode);
	err = notify_change(sbi->lower_userns, lower, ia, NULL);
	inode_unlock(inode);
	if (size)
		put_write_access(inode);
out_drop_write:
	mnt_drop_write(sbi->lower_path.mnt);
out:
	mc_op_end(sbi, MC_OP_SETATTR, start);
	pr_debug("setattr %pd 0x%x: %d\n", lower, ia->ia_valid, err);
	return err;
}

/**
 * mc_lower_permission() - permission check on a lower inode
 * @sbi: the mount
 * @lower: the lower inode
 * @mask: MAY_* mask; MAY_NOT_BLOCK passes through (RCU-walk)
 *
 * Context: may be called under rcu_read_lock() with MAY_NOT_BLOCK.
 * Return: 0, -ECHILD (retry in ref-walk) or another negative errno.
 */
int mc_lower_permission(struct mc_sb_info *sbi, struct inode *lower, int mask)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_PERMISSION);
	if (fault)
		return fault;

	err = inode_permission(sbi->lower_userns, lower, mask);
	mc_op_end(sbi, MC_OP_PERMISSION, start);
	return err;
}

/**
 * mc_lower_get_link() - read the target of a lower symlink
 * @sbi: the mount
 * @lower: the lower symlink's dentry
 * @done: the VFS's delayed call, set up by the lower file system
 *
 * Return: the target or an ERR_PTR.
 */
const char *mc_lower_get_link(struct mc_sb_info *sbi, struct dentry *lower,
			      struct delayed_call *done)
{
	struct mc_op_start start = mc_op_begin();
	const char *link;
	int fault;

	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return ERR_PTR(fault);

	link = vfs_get_link(lower, done);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return link;
}

/* Namespace: the caller holds write access and the lower parent lock */

/**
 * mc_lower_create() - create a regular file in a lower directory
 * @sbi: the mount
 * @lower_dir: the lower directory's inode
 * @lower: the negative lower dentry
 * @mode: the mode, as the VFS gave it to us
 * @excl: O_EXCL
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_create(struct mc_sb_info *sbi, struct inode *lower_dir,
		    struct dentry *lower, umode_t mode, bool excl)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_CREATE);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_create(sbi->lower_userns, lower_dir, lower, mode, excl);
	mc_op_end(sbi, MC_OP_CREATE, start);
	err = mc_fault_after(sbi, MC_OP_CREATE, err);
	pr_debug("create %pd 0%o: %d\n", lower, mode, err);
	return err;
}

/**
 * mc_lower_mkdir() - create a lower directory
 * @sbi: the mount
 * @lower_dir: the lower parent's inode
 * @lower: the negative lower dentry
 * @mode: the mode
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.  @lower may be left unhashed or negative.
 */
int mc_lower_mkdir(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower, umode_t mode)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_MKDIR);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_mkdir(sbi->lower_userns, lower_dir, lower, mode);
	mc_op_end(sbi, MC_OP_MKDIR, start);
	err = mc_fault_after(sbi, MC_OP_MKDIR, err);
	pr_debug("mkdir %pd 0%o: %d\n", lower, mode, err);
	return err;
}

/**
 * mc_lower_mknod() - create a lower device, fifo or socket
 * @sbi: the mount
 * @lower_dir: the lower parent's inode
 * @lower: the negative lower dentry
 * @mode: the mode, with the type
 * @rdev: the device number
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_mknod(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower, umode_t mode, dev_t rdev)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_MKNOD);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_mknod(sbi->lower_userns, lower_dir, lower, mode, rdev);
	mc_op_end(sbi, MC_OP_MKNOD, start);
	err = mc_fault_after(sbi, MC_OP_MKNOD, err);
	pr_debug("mknod %pd 0%o: %d\n", lower, mode, err);
	return err;
}

/**
 * mc_lower_symlink() - create a lower symlink
 * @sbi: the mount
 * @lower_dir: the lower parent's inode
 * @lower: the negative lower dentry
 * @target: the symlink's contents
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_symlink(struct mc_sb_info *sbi, struct inode *lower_dir,
		     struct dentry *lower, const char *target)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_SYMLINK);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_symlink(sbi->lower_userns, lower_dir, lower, target);
	mc_op_end(sbi, MC_OP_SYMLINK, start);
	err = mc_fault_after(sbi, MC_OP_SYMLINK, err);
	pr_debug("symlink %pd: %d\n", lower, err);
	return err;
}

/**
 * mc_lower_link() - hard link a lower object
 * @sbi: the mount
 * @lower_old: the existing lower object
 * @lower_dir: the lower parent's inode of the new name
 * @lower_new: the negative lower dentry of the new name
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_link(struct mc_sb_info *sbi, struct dentry *lower_old,
		  struct inode *lower_dir, struct dentry *lower_new)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_LINK);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_link(lower_old, sbi->lower_userns, lower_dir, lower_new, NULL);
	mc_op_end(sbi, MC_OP_LINK, start);
	err = mc_fault_after(sbi, MC_OP_LINK, err);
	pr_debug("link %pd -> %pd: %d\n", lower_old, lower_new, err);
	return err;
}

/**
 * mc_lower_unlink() - unlink a lower non-directory
 * @sbi: the mount
 * @lower_dir: the lower parent's inode
 * @lower: the lower dentry
 *
 * NFS silly-renames the file instead if the lower dentry is in use, see
 * mc_unlink().
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_unlink(struct mc_sb_info *sbi, struct inode *lower_dir,
		    struct dentry *lower)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_UNLINK);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_unlink(sbi->lower_userns, lower_dir, lower, NULL);
	mc_op_end(sbi, MC_OP_UNLINK, start);
	err = mc_fault_after(sbi, MC_OP_UNLINK, err);
	pr_debug("unlink %pd: %d\n", lower, err);
	return err;
}

/**
 * mc_lower_rmdir() - remove a lower directory
 * @sbi: the mount
 * @lower_dir: the lower parent's inode
 * @lower: the lower dentry
 *
 * Context: mc_lower_want_write() held and @lower_dir locked.
 * Return: 0 or a negative errno.
 */
int mc_lower_rmdir(struct mc_sb_info *sbi, struct inode *lower_dir,
		   struct dentry *lower)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_RMDIR);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_dir->i_rwsem);
	err = vfs_rmdir(sbi->lower_userns, lower_dir, lower);
	mc_op_end(sbi, MC_OP_RMDIR, start);
	err = mc_fault_after(sbi, MC_OP_RMDIR, err);
	pr_debug("rmdir %pd: %d\n", lower, err);
	return err;
}

/**
 * mc_lower_rename() - rename in the lower file system
 * @sbi: the mount
 * @lower_old_dir: the lower source directory's inode
 * @lower_old: the lower source dentry
 * @lower_new_dir: the lower target directory's inode
 * @lower_new: the lower target dentry, maybe negative
 * @flags: RENAME_* flags, passed through: the lower refuses what it does
 *	   not support (-EINVAL) and we return that
 *
 * Context: mc_lower_want_write() held and both directories locked with
 * lock_rename().
 * Return: 0 or a negative errno.
 */
int mc_lower_rename(struct mc_sb_info *sbi, struct inode *lower_old_dir,
		    struct dentry *lower_old, struct inode *lower_new_dir,
		    struct dentry *lower_new, unsigned int flags)
{
	struct renamedata rd = {
		.old_mnt_userns	= sbi->lower_userns,
		.old_dir	= lower_old_dir,
		.old_dentry	= lower_old,
		.new_mnt_userns	= sbi->lower_userns,
		.new_dir	= lower_new_dir,
		.new_dentry	= lower_new,
		.delegated_inode = NULL,
		.flags		= flags,
	};
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_RENAME);
	if (fault)
		return fault;

	lockdep_assert_held(&lower_old_dir->i_rwsem);
	lockdep_assert_held(&lower_new_dir->i_rwsem);
	err = vfs_rename(&rd);
	mc_op_end(sbi, MC_OP_RENAME, start);
	err = mc_fault_after(sbi, MC_OP_RENAME, err);
	pr_debug("rename %pd -> %pd 0x%x: %d\n", lower_old, lower_new, flags,
		 err);
	return err;
}

/**
 * mc_lower_tmpfile() - create and open an unnamed lower file
 * @sbi: the mount
 * @lower_dir: the lower directory
 * @mode: the mode
 * @open_flags: the upper file's open flags
 *
 * A lower file system without ->tmpfile gives -EOPNOTSUPP, returned as is.
 *
 * Return: the open lower file (mc_lower_release() it) or an ERR_PTR.
 */
struct file *mc_lower_tmpfile(struct mc_sb_info *sbi,
			      const struct path *lower_dir, umode_t mode,
			      int open_flags)
{
	struct mc_op_start start = mc_op_begin();
	struct file *file;
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_CREATE);
	if (fault)
		return ERR_PTR(fault);

	err = mnt_want_write(lower_dir->mnt);
	if (err) {
		file = ERR_PTR(err);
		goto out;
	}
	file = vfs_tmpfile_open(sbi->lower_userns, lower_dir, mode, open_flags,
				current_cred());
	mnt_drop_write(lower_dir->mnt);
out:
	mc_op_end(sbi, MC_OP_CREATE, start);
	pr_debug("tmpfile in %pd 0%o: %d\n", lower_dir->dentry, mode,
		 PTR_ERR_OR_ZERO(file));
	return file;
}

/* Files */

/**
 * mc_lower_open() - open a lower object
 * @sbi: the mount
 * @lower_path: the lower object
 * @flags: open flags, without the creation ones
 * @cred: the credentials of the upper open (the caller's, or the upper
 *	  file's f_cred when a directory's lower file is opened later)
 *
 * Deferred close will hook in here (reuse of a lower file kept open).
 *
 * Return: the open lower file (mc_lower_release() it) or an ERR_PTR.
 */
struct file *mc_lower_open(struct mc_sb_info *sbi,
			   const struct path *lower_path, int flags,
			   const struct cred *cred)
{
	struct mc_op_start start = mc_op_begin();
	struct file *file;
	int fault;

	fault = mc_fault(sbi, MC_OP_OPEN);
	if (fault)
		return ERR_PTR(fault);

	file = dentry_open(lower_path, flags, cred);
	mc_op_end(sbi, MC_OP_OPEN, start);
	pr_debug("open %pd 0%o: %d\n", lower_path->dentry, flags,
		 PTR_ERR_OR_ZERO(file));
	return file;
}

/**
 * mc_lower_open_name() - open, and maybe create, a name in a lower directory
 * @sbi: the mount
 * @lower_dir: the lower directory
 * @name: one path component, no '/'
 * @flags: open flags, O_CREAT and O_EXCL included
 * @mode: the mode of a created file
 *
 * A full open of the lower file system (file_open_root()), so that it can
 * look up, create and open in one request where it has ->atomic_open: one
 * NFS OPEN, one SMB2 CREATE.  Never follows a symlink at @name (-ELOOP).
 * Counted as a create when it created the file, else as an open.
 *
 * Return: the open lower file (mc_lower_release() it) or an ERR_PTR.
 */
struct file *mc_lower_open_name(struct mc_sb_info *sbi,
				const struct path *lower_dir,
				const struct qstr *name, int flags,
				umode_t mode)
{
	struct mc_op_start start = mc_op_begin();
	struct file *file;
	bool created;
	int fault;

	fault = mc_fault(sbi, MC_OP_OPEN);
	if (fault)
		return ERR_PTR(fault);

	file = file_open_root(lower_dir, name->name, flags | O_NOFOLLOW, mode);
	created = !IS_ERR(file) && (file->f_mode & FMODE_CREATED);
	mc_op_end(sbi, created ? MC_OP_CREATE : MC_OP_OPEN, start);
	fault = mc_fault_after(sbi, MC_OP_OPEN, PTR_ERR_OR_ZERO(file));
	if (fault && !IS_ERR(file)) {
		mc_lower_release(sbi, file);
		file = ERR_PTR(fault);
	}
	pr_debug("open %pd/%s 0%o: %d\n", lower_dir->dentry, name->name, flags,
		 PTR_ERR_OR_ZERO(file));
	return file;
}

/**
 * mc_lower_release() - drop an open lower file
 * @sbi: the mount
 * @lower: the lower file; its reference is consumed
 *
 * The final fput() of a task runs when it returns to user space; deferred
 * close (handle.c) decides before this whether to keep the file instead.
 */
void mc_lower_release(struct mc_sb_info *sbi, struct file *lower)
{
	struct mc_op_start start = mc_op_begin();

	fput(lower);
	mc_op_end(sbi, MC_OP_RELEASE, start);
}

/**
 * mc_lower_release_sync() - close a lower file now, from a kernel thread
 * @sbi: the mount
 * @lower: the lower file; its reference is consumed
 *
 * For the handle cache's worker: when this returns the lower file system
 * has run its ->release (NFS and SMB have sent, or queued, their CLOSE).
 *
 * Context: a kernel thread (__fput_sync() requires one), may sleep.
 */
void mc_lower_release_sync(struct mc_sb_info *sbi, struct file *lower)
{
	struct mc_op_start start = mc_op_begin();

	__fput_sync(lower);
	mc_op_end(sbi, MC_OP_RELEASE, start);
}

/**
 * mc_lower_setfl() - apply F_SETFL flags of the upper file to the lower one
 * @sbi: the mount
 * @lower: the lower file
 * @flags: the upper file's f_flags
 *
 * Does what setfl() would have done on the lower file, with the same
 * checks (like overlayfs' ovl_change_flags()).
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_setfl(struct mc_sb_info *sbi, struct file *lower,
		   unsigned int flags)
{
	struct mc_op_start start = mc_op_begin();
	int err = 0;
	int fault;

	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return fault;

	flags &= MC_SETFL_MASK;
	if (((flags ^ lower->f_flags) & O_APPEND) && IS_APPEND(file_inode(lower))) {
		err = -EPERM;
		goto out;
	}
	if ((flags & O_DIRECT) && !(lower->f_mode & FMODE_CAN_ODIRECT)) {
		err = -EINVAL;
		goto out;
	}
	if (lower->f_op->check_flags) {
		err = lower->f_op->check_flags(flags);
		if (err)
			goto out;
	}
	spin_lock(&lower->f_lock);
	lower->f_flags = (lower->f_flags & ~MC_SETFL_MASK) | flags;
	lower->f_iocb_flags = iocb_flags(lower);
	spin_unlock(&lower->f_lock);
out:
	mc_op_end(sbi, MC_OP_OTHER, start);
	return err;
}

/**
 * mc_lower_read() - read from a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @iter: destination
 * @pos: file position (the upper kiocb's)
 * @rwf: RWF_* flags translated from the upper kiocb
 *
 * Return: bytes read or a negative errno.
 */
ssize_t mc_lower_read(struct mc_sb_info *sbi, struct file *lower,
		      struct iov_iter *iter, loff_t *pos, rwf_t rwf)
{
	struct mc_op_start start = mc_op_begin();
	ssize_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_READ);
	if (fault)
		return fault;

	ret = vfs_iter_read(lower, iter, pos, rwf);
	mc_op_end(sbi, MC_OP_READ, start);
	return ret;
}

/**
 * mc_lower_write() - write to a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @iter: source
 * @pos: file position (the upper kiocb's)
 * @rwf: RWF_* flags translated from the upper kiocb
 *
 * Takes the lower freeze protection, as vfs_write() would.
 *
 * Return: bytes written or a negative errno.
 */
ssize_t mc_lower_write(struct mc_sb_info *sbi, struct file *lower,
		       struct iov_iter *iter, loff_t *pos, rwf_t rwf)
{
	struct mc_op_start start = mc_op_begin();
	ssize_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_WRITE);
	if (fault)
		return fault;

	file_start_write(lower);
	ret = vfs_iter_write(lower, iter, pos, rwf);
	file_end_write(lower);
	mc_op_end(sbi, MC_OP_WRITE, start);
	return ret;
}

/**
 * mc_lower_splice_write() - splice from a pipe into a lower file
 * @sbi: the mount
 * @pipe: the source pipe
 * @lower: the lower file
 * @pos: file position
 * @len: bytes
 * @flags: SPLICE_F_*
 *
 * Calls the lower's own ->splice_write, with the lower freeze protection
 * taken before the pipe lock as do_splice() does; see mc_splice_write().
 *
 * Return: bytes written or a negative errno (-EINVAL if the lower cannot
 * splice, as do_splice_from()).
 */
ssize_t mc_lower_splice_write(struct mc_sb_info *sbi,
			      struct pipe_inode_info *pipe, struct file *lower,
			      loff_t *pos, size_t len, unsigned int flags)
{
	struct mc_op_start start;
	ssize_t ret;
	int fault;

	if (!lower->f_op->splice_write)
		return -EINVAL;
	fault = mc_fault(sbi, MC_OP_WRITE);
	if (fault)
		return fault;
	start = mc_op_begin();
	file_start_write(lower);
	ret = lower->f_op->splice_write(pipe, lower, pos, len, flags);
	file_end_write(lower);
	mc_op_end(sbi, MC_OP_WRITE, start);
	return ret;
}

/**
 * mc_lower_iterate() - read entries of a lower directory
 * @sbi: the mount
 * @lower: the open lower directory
 * @ctx: the upper dir_context; entries go straight to its actor
 *
 * iterate_dir() takes the lower directory lock and moves @lower's f_pos.
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_iterate(struct mc_sb_info *sbi, struct file *lower,
		     struct dir_context *ctx)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_READDIR);
	if (fault)
		return fault;

	err = iterate_dir(lower, ctx);
	mc_op_end(sbi, MC_OP_READDIR, start);
	return err;
}

/**
 * mc_lower_llseek() - seek a lower file or directory
 * @sbi: the mount
 * @lower: the lower file
 * @offset: as for lseek(2)
 * @whence: SEEK_*, including SEEK_DATA and SEEK_HOLE
 *
 * Return: the new position or a negative errno.
 */
loff_t mc_lower_llseek(struct mc_sb_info *sbi, struct file *lower,
		       loff_t offset, int whence)
{
	struct mc_op_start start = mc_op_begin();
	loff_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return fault;

	ret = vfs_llseek(lower, offset, whence);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return ret;
}

/**
 * mc_lower_dir_seek() - give a lower directory the upper one's position
 * @sbi: the mount
 * @lower: the lower directory file
 * @pos: the upper f_pos
 *
 * With the lower's own ->llseek, never by setting f_pos: a directory may
 * keep its reading state apart from f_pos (NFS: the cookie to go on from,
 * and EOF), and only its ->llseek starts it again.  A lower directory
 * read to its end for a listing and then read through, with f_pos merely
 * set back to 0, gave nothing (NFS).
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_dir_seek(struct mc_sb_info *sbi, struct file *lower, loff_t pos)
{
	loff_t ret;

	if (lower->f_pos == pos)
		return 0;
	ret = mc_lower_llseek(sbi, lower, pos, SEEK_SET);
	return ret < 0 ? ret : 0;
}

/**
 * mc_lower_fsync() - fsync a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @start: first byte
 * @end: last byte
 * @datasync: fdatasync
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_fsync(struct mc_sb_info *sbi, struct file *lower, loff_t start,
		   loff_t end, int datasync)
{
	struct mc_op_start t = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_FSYNC);
	if (fault)
		return fault;

	err = vfs_fsync_range(lower, start, end, datasync);
	mc_op_end(sbi, MC_OP_FSYNC, t);
	return err;
}

/**
 * mc_lower_syncfs() - sync the lower file system
 * @sbi: the mount
 *
 * Context: our s_umount held; takes the lower's s_umount shared.
 * Return: 0 or a negative errno.
 */
int mc_lower_syncfs(struct mc_sb_info *sbi)
{
	struct super_block *lower_sb = sbi->lower_path.mnt->mnt_sb;
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_FSYNC);
	if (fault)
		return fault;

	down_read(&lower_sb->s_umount);
	err = sync_filesystem(lower_sb);
	up_read(&lower_sb->s_umount);
	mc_op_end(sbi, MC_OP_FSYNC, start);
	return err;
}

/**
 * mc_lower_fallocate() - allocate or punch space in a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @mode: FALLOC_FL_*
 * @offset: start
 * @len: length
 *
 * Return: 0 or a negative errno.
 */
long mc_lower_fallocate(struct mc_sb_info *sbi, struct file *lower, int mode,
			loff_t offset, loff_t len)
{
	struct mc_op_start start = mc_op_begin();
	long err;
	int fault;

	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return fault;

	err = vfs_fallocate(lower, mode, offset, len);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return err;
}

/**
 * mc_lower_copy_file_range() - copy between two lower files
 * @sbi: the mount of the destination
 * @in: the lower source file
 * @pos_in: where to read
 * @out: the lower destination file
 * @pos_out: where to write
 * @len: bytes
 * @flags: copy_file_range(2) flags (none are defined)
 *
 * vfs_copy_file_range() on the lower files: the lower's own
 * ->copy_file_range (NFS COPY, SMB2 server-side copy) when it has one,
 * else its clone, else a copy through the page cache.  Counted as a write.
 *
 * Return: bytes copied, or a negative errno (-EXDEV: the lower cannot copy
 * between these two files).
 */
ssize_t mc_lower_copy_file_range(struct mc_sb_info *sbi, struct file *in,
				 loff_t pos_in, struct file *out,
				 loff_t pos_out, size_t len,
				 unsigned int flags)
{
	struct mc_op_start start = mc_op_begin();
	ssize_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_WRITE);
	if (fault)
		return fault;

	ret = vfs_copy_file_range(in, pos_in, out, pos_out, len, flags);
	mc_op_end(sbi, MC_OP_WRITE, start);
	return ret;
}

/**
 * mc_lower_remap_file_range() - clone or deduplicate between lower files
 * @sbi: the mount of the destination
 * @in: the lower source file
 * @pos_in: source offset
 * @out: the lower destination file
 * @pos_out: destination offset
 * @len: bytes, 0 for "to the end of the source"
 * @remap_flags: REMAP_FILE_DEDUP (compare, then share), REMAP_FILE_ADVISORY
 *
 * vfs_clone_file_range() or vfs_dedupe_file_range_one() on the lower
 * files, which check permissions and ranges for the lower.  Counted as a
 * write.
 *
 * Return: bytes remapped, or a negative errno.
 */
loff_t mc_lower_remap_file_range(struct mc_sb_info *sbi, struct file *in,
				 loff_t pos_in, struct file *out,
				 loff_t pos_out, loff_t len,
				 unsigned int remap_flags)
{
	struct mc_op_start start = mc_op_begin();
	loff_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_WRITE);
	if (fault)
		return fault;

	if (remap_flags & REMAP_FILE_DEDUP)
		ret = vfs_dedupe_file_range_one(in, pos_in, out, pos_out, len,
						remap_flags);
	else
		ret = vfs_clone_file_range(in, pos_in, out, pos_out, len,
					   remap_flags);
	mc_op_end(sbi, MC_OP_WRITE, start);
	return ret;
}

/**
 * mc_lower_fadvise() - pass posix_fadvise() to a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @offset: start
 * @len: length
 * @advice: POSIX_FADV_*
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_fadvise(struct mc_sb_info *sbi, struct file *lower,
		     loff_t offset, loff_t len, int advice)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return fault;

	err = vfs_fadvise(lower, offset, len, advice);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return err;
}

/**
 * mc_lower_mmap() - map a lower file in place of the upper one
 * @sbi: the mount
 * @lower: the lower file
 * @vma: the new mapping, whose vm_file is the upper file
 *
 * Like ovl_mmap(): the mapping is switched to the lower file, so faults and
 * writeback of shared writable mappings go straight to the lower file.
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_mmap(struct mc_sb_info *sbi, struct file *lower,
		  struct vm_area_struct *vma)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	if (!lower->f_op->mmap)
		return -ENODEV;
	fault = mc_fault(sbi, MC_OP_OTHER);
	if (fault)
		return fault;
	vma_set_file(vma, lower);
	err = call_mmap(lower, vma);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return err;
}

/**
 * mc_lower_flush() - close(2) of an upper file descriptor
 * @sbi: the mount
 * @lower: the lower file
 * @id: the closing files_struct, owner of its POSIX locks
 *
 * Calls the lower ->flush (NFS writes back and checks for errors there) and
 * drops @id's POSIX locks: they were set on the lower inode by mc_lock(), so
 * the VFS's locks_remove_posix() on the upper file cannot find them.
 *
 * Return: the lower ->flush result.
 */
int mc_lower_flush(struct mc_sb_info *sbi, struct file *lower, fl_owner_t id)
{
	struct mc_op_start start = mc_op_begin();
	int err;

	/*
	 * An injected fault replaces the result of the lower's flush, which
	 * still runs: close(2) closes whatever it returns, so a failed flush
	 * is a write-back error reported at close, not a close that never
	 * wrote back.  Skipping it left dirty NFS pages whose requests hold
	 * the lower dentry, and the next unlink found it busy and
	 * silly-renamed it (tests/debug/faults lower_calls).
	 */
	err = lower->f_op->flush ? lower->f_op->flush(lower, id) : 0;
	err = mc_fault(sbi, MC_OP_OTHER) ?: err;
	locks_remove_posix(lower, id);
	mc_op_end(sbi, MC_OP_OTHER, start);
	return err;
}

/**
 * mc_lower_lock() - POSIX or OFD byte range lock on a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @cmd: F_GETLK, F_SETLK or F_SETLKW (OFD locks arrive converted)
 * @fl: the request, with fl_file already set to @lower
 *
 * F_GETLK goes to vfs_test_lock(): vfs_lock_file() would take the lock on
 * a lower file system without ->lock (posix_lock_file() knows no test).
 *
 * Return: 0, FILE_LOCK_DEFERRED or a negative errno.
 */
int mc_lower_lock(struct mc_sb_info *sbi, struct file *lower, int cmd,
		  struct file_lock *fl)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = fl->fl_type == F_UNLCK ? 0 : mc_fault(sbi, MC_OP_LOCK);
	if (fault)
		return fault;

	if (cmd == F_GETLK)
		err = vfs_test_lock(lower, fl);
	else
		err = vfs_lock_file(lower, cmd, fl, NULL);
	mc_op_end(sbi, MC_OP_LOCK, start);
	return err;
}

/**
 * mc_lower_flock() - flock(2) on a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @cmd: F_SETLK or F_SETLKW
 * @fl: the request, with fl_file and fl_owner already set to @lower
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_flock(struct mc_sb_info *sbi, struct file *lower, int cmd,
		   struct file_lock *fl)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = fl->fl_type == F_UNLCK ? 0 : mc_fault(sbi, MC_OP_LOCK);
	if (fault)
		return fault;

	if (lower->f_op->flock)
		err = lower->f_op->flock(lower, cmd, fl);
	else
		err = locks_lock_file_wait(lower, fl);
	mc_op_end(sbi, MC_OP_LOCK, start);
	return err;
}

/**
 * mc_lower_ioctl() - pass an ioctl the VFS did not handle to a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @cmd: command
 * @arg: argument (user pointer or value), passed as is
 *
 * Return: the lower result; -ENOTTY if the lower has no ->unlocked_ioctl.
 */
long mc_lower_ioctl(struct mc_sb_info *sbi, struct file *lower,
		    unsigned int cmd, unsigned long arg)
{
	struct mc_op_start start = mc_op_begin();
	long err;
	int fault;

	fault = mc_fault(sbi, MC_OP_IOCTL);
	if (fault)
		return fault;

	err = vfs_ioctl(lower, cmd, arg);
	mc_op_end(sbi, MC_OP_IOCTL, start);
	return err;
}

/**
 * mc_lower_compat_ioctl() - 32-bit ioctl on a lower file
 * @sbi: the mount
 * @lower: the lower file
 * @cmd: command
 * @arg: argument, passed as is
 *
 * Return: the lower result; -ENOTTY if the lower has no ->compat_ioctl.
 */
long mc_lower_compat_ioctl(struct mc_sb_info *sbi, struct file *lower,
			   unsigned int cmd, unsigned long arg)
{
	struct mc_op_start start;
	long err;
	int fault;

	if (!lower->f_op->compat_ioctl)
		return -ENOTTY;
	fault = mc_fault(sbi, MC_OP_IOCTL);
	if (fault)
		return fault;
	start = mc_op_begin();
	err = lower->f_op->compat_ioctl(lower, cmd, arg);
	mc_op_end(sbi, MC_OP_IOCTL, start);
	return err;
}

/**
 * mc_lower_fileattr_get() - FS_IOC_GETFLAGS / FS_IOC_FSGETXATTR on a lower
 * @sbi: the mount
 * @lower: the lower dentry
 * @fa: result
 *
 * Return: 0 or a negative errno; -ENOIOCTLCMD (lower has no fileattr_get)
 * is returned as is so the VFS falls back to ->unlocked_ioctl.
 */
int mc_lower_fileattr_get(struct mc_sb_info *sbi, struct dentry *lower,
			  struct fileattr *fa)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_IOCTL);
	if (fault)
		return fault;

	err = vfs_fileattr_get(lower, fa);
	mc_op_end(sbi, MC_OP_IOCTL, start);
	return err;
}

/**
 * mc_lower_fileattr_set() - FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR on a lower
 * @sbi: the mount
 * @lower: the lower dentry
 * @fa: the new attributes
 *
 * Context: the upper inode locked; vfs_fileattr_set() locks the lower one.
 * Return: 0 or a negative errno, -ENOIOCTLCMD as mc_lower_fileattr_get().
 */
int mc_lower_fileattr_set(struct mc_sb_info *sbi, struct dentry *lower,
			  struct fileattr *fa)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_IOCTL);
	if (fault)
		return fault;

	err = mnt_want_write(sbi->lower_path.mnt);
	if (!err) {
		err = vfs_fileattr_set(sbi->lower_userns, lower, fa);
		mnt_drop_write(sbi->lower_path.mnt);
	}
	mc_op_end(sbi, MC_OP_IOCTL, start);
	return err;
}

/**
 * mc_lower_fiemap() - FS_IOC_FIEMAP on a lower inode
 * @sbi: the mount
 * @lower: the lower inode
 * @fieinfo: the request
 * @start: first byte
 * @len: length
 *
 * Return: 0 or a negative errno, -EOPNOTSUPP if the lower has no ->fiemap.
 */
int mc_lower_fiemap(struct mc_sb_info *sbi, struct inode *lower,
		    struct fiemap_extent_info *fieinfo, u64 start, u64 len)
{
	struct mc_op_start t;
	int err;
	int fault;

	if (!lower->i_op->fiemap)
		return -EOPNOTSUPP;
	fault = mc_fault(sbi, MC_OP_IOCTL);
	if (fault)
		return fault;
	t = mc_op_begin();
	err = lower->i_op->fiemap(lower, fieinfo, start, len);
	mc_op_end(sbi, MC_OP_IOCTL, t);
	return err;
}

/* Extended attributes */

/**
 * mc_lower_getxattr() - read an extended attribute of a lower object
 * @sbi: the mount
 * @lower: the lower dentry
 * @name: full name, with its namespace prefix
 * @value: buffer, or NULL to get the size
 * @size: size of @value
 *
 * Return: the value's size or a negative errno.
 */
ssize_t mc_lower_getxattr(struct mc_sb_info *sbi, struct dentry *lower,
			  const char *name, void *value, size_t size)
{
	struct mc_op_start start = mc_op_begin();
	ssize_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_XATTR);
	if (fault)
		return fault;

	ret = vfs_getxattr(sbi->lower_userns, lower, name, value, size);
	mc_op_end(sbi, MC_OP_XATTR, start);
	return ret;
}

/**
 * mc_lower_setxattr() - set an extended attribute of a lower object
 * @sbi: the mount
 * @lower: the lower dentry
 * @name: full name
 * @value: the value
 * @size: its size
 * @flags: XATTR_CREATE / XATTR_REPLACE
 *
 * Context: the upper inode locked; vfs_setxattr() locks the lower one.
 * Return: 0 or a negative errno.
 */
int mc_lower_setxattr(struct mc_sb_info *sbi, struct dentry *lower,
		      const char *name, const void *value, size_t size,
		      int flags)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_XATTR);
	if (fault)
		return fault;

	err = mnt_want_write(sbi->lower_path.mnt);
	if (!err) {
		err = vfs_setxattr(sbi->lower_userns, lower, name, value, size,
				   flags);
		mnt_drop_write(sbi->lower_path.mnt);
	}
	mc_op_end(sbi, MC_OP_XATTR, start);
	return err;
}

/**
 * mc_lower_removexattr() - remove an extended attribute of a lower object
 * @sbi: the mount
 * @lower: the lower dentry
 * @name: full name
 *
 * Context: the upper inode locked; vfs_removexattr() locks the lower one.
 * Return: 0 or a negative errno.
 */
int mc_lower_removexattr(struct mc_sb_info *sbi, struct dentry *lower,
			 const char *name)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_XATTR);
	if (fault)
		return fault;

	err = mnt_want_write(sbi->lower_path.mnt);
	if (!err) {
		err = vfs_removexattr(sbi->lower_userns, lower, name);
		mnt_drop_write(sbi->lower_path.mnt);
	}
	mc_op_end(sbi, MC_OP_XATTR, start);
	return err;
}

/**
 * mc_lower_listxattr() - list the extended attributes of a lower object
 * @sbi: the mount
 * @lower: the lower dentry
 * @list: buffer, or NULL to get the size
 * @size: size of @list
 *
 * Return: the list's size or a negative errno.
 */
ssize_t mc_lower_listxattr(struct mc_sb_info *sbi, struct dentry *lower,
			   char *list, size_t size)
{
	struct mc_op_start start = mc_op_begin();
	ssize_t ret;
	int fault;

	fault = mc_fault(sbi, MC_OP_XATTR);
	if (fault)
		return fault;

	ret = vfs_listxattr(lower, list, size);
	mc_op_end(sbi, MC_OP_XATTR, start);
	return ret;
}

/* File system */

/**
 * mc_lower_statfs() - statfs of the lower directory
 * @sbi: the mount
 * @buf: result
 *
 * Return: 0 or a negative errno.
 */
int mc_lower_statfs(struct mc_sb_info *sbi, struct kstatfs *buf)
{
	struct mc_op_start start = mc_op_begin();
	int err;
	int fault;

	fault = mc_fault(sbi, MC_OP_STATFS);
	if (fault)
		return fault;

	err = vfs_statfs(&sbi->lower_path, buf);
	mc_op_end(sbi, MC_OP_STATFS, start);
	return err;
}
