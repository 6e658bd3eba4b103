/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metacache - a stackable pass-through file system for network file systems.
 *
 * Private definitions shared by the files of the module.
 *
 * Object model: every upper (metacache) object maps to exactly one lower
 * object of the directory we are mounted on:
 *
 *	super_block	-> struct mc_sb_info:	 lower root path, stats, tunables
 *	inode		-> struct mc_inode_info: the lower inode (one upper inode
 *						 per lower inode, hard links share)
 *	dentry		-> struct mc_dentry:	 the lower dentry, maybe negative
 *	file		-> struct mc_file:	 the open lower file
 *
 * Every call into the lower file system goes through lower.c.
 */
#ifndef _METACACHE_H
#define _METACACHE_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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
 * struct mc_tunables - per-mount knobs of the caches.
 *
 * Parsed from the mount options and shown in /proc/mounts; changed at run
 * time by remount and by the control plane.  Each field is an independent
 * u32 written with WRITE_ONCE() and read with READ_ONCE() (use the mc_*()
 * accessors below), so no lock is needed.  They have no effect yet.
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

/*
 * struct mc_op_stats - what one CPU saw of one operation.
 *
 * Only ever modified by its own CPU with preemption disabled; readers sum
 * all CPUs without locking and may see a slightly stale total.
 */
struct mc_op_stats {
	u64 calls;		/* completed lower calls */
	u64 total_ns;		/* sum of their latencies */
};

/* struct mc_stats - the per-cpu block of a mount, one entry per mc_op. */
struct mc_stats {
	struct mc_op_stats op[MC_OP_NR];
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
	/* Control plane: policy rules, histograms (ctl.h). */
	struct mc_ctl *ctl;
};

/*
 * struct mc_inode_info - per-inode data, container of the VFS inode.
 *
 * The lower inode is set in mc_iget() before the inode can be found (the
 * inode cache is keyed by it) and never changes; its reference is dropped
 * in mc_evict_inode().  RCU-walk may still read the pointer of an inode
 * being evicted: the lower inode's memory is freed after a grace period.
 */
struct mc_inode_info {
	struct inode *lower;		/* counted reference (igrab) */
	struct inode vfs_inode;
};

/*
 * struct mc_dentry - per-dentry data, dentry->d_fsdata.
 *
 * @lower is a counted reference to the lower dentry, possibly negative.  It
 * is replaced only while the upper dentry is negative, by an operation that
 * holds the upper parent's i_rwsem exclusively (creation after the lower fs
 * left its dentry unhashed), always under @lock.  Hence:
 *  - a positive upper dentry's @lower never changes;
 *  - under the upper parent's i_rwsem @lower is stable;
 *  - anyone else must take @lock (see mc_get_lower_path()).
 * Freed after an RCU grace period: RCU-walk may read it.
 */
struct mc_dentry {
	spinlock_t lock;		/* protects @lower, see above */
	struct dentry *lower;		/* counted reference */
	struct rcu_head rcu;
};

/* Open flags that F_SETFL can change, see setfl() in fs/fcntl.c. */
#define MC_SETFL_MASK		(O_APPEND | O_NONBLOCK | O_NDELAY | O_DIRECT)

/* Bits of mc_file::flags. */
#define MC_FILE_HAS_LOCKS	0	/* a lock was delegated to @lower */

/*
 * struct mc_file - per-open-file data, file->private_data.
 *
 * @lower is set at open and put at release: it never changes in between.
 */
struct mc_file {
	struct file *lower;		/* counted reference */
	unsigned long flags;		/* MC_FILE_* bits, atomic bitops */
};

static inline struct mc_sb_info *MC_SB(const struct super_block *sb)
{
	return sb->s_fs_info;
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

/* The open lower file of an open upper file. */
static inline struct file *mc_file_lower(const struct file *file)
{
	return MC_F(file)->lower;
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

/* main.c */
extern struct kmem_cache *mc_inode_cachep;
extern struct kmem_cache *mc_dentry_cachep;

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
struct dentry *mc_dentry_lower(const struct dentry *dentry);
int mc_get_lower_path(const struct dentry *dentry, struct path *lower_path);
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
bool mc_lower_name_eq(struct dentry *lower_dir, struct dentry *lower,
		      const struct qstr *name);
struct dentry *mc_lower_lookup(struct mc_sb_info *sbi, struct dentry *lower_dir,
			       const struct qstr *name);
struct dentry *mc_lower_lookup_locked(struct mc_sb_info *sbi,
				      struct dentry *lower_dir,
				      const struct qstr *name);
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
			   const struct path *lower_path, int flags);
void mc_lower_release(struct mc_sb_info *sbi, struct file *lower);
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
loff_t mc_lower_llseek(struct mc_sb_info *sbi, struct file *lower,
		       loff_t offset, int whence);
int mc_lower_fsync(struct mc_sb_info *sbi, struct file *lower, loff_t start,
		   loff_t end, int datasync);
int mc_lower_syncfs(struct mc_sb_info *sbi);
long mc_lower_fallocate(struct mc_sb_info *sbi, struct file *lower, int mode,
			loff_t offset, loff_t len);
int mc_lower_fadvise(struct mc_sb_info *sbi, struct file *lower,
		     loff_t offset, loff_t len, int advice);
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

/* debugfs.c */
void mc_debugfs_init(void);
void mc_debugfs_exit(void);
void mc_debugfs_mount(struct mc_sb_info *sbi);
void mc_debugfs_umount(struct mc_sb_info *sbi);

#endif /* _METACACHE_H */
