// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - open files: the regular file operations, and the parts shared
 * with directories (open, release, fsync, flush, locks, ioctl).
 *
 * An open upper file holds one open lower file (struct mc_file), opened
 * with the caller's credentials, and every operation is done on it.  A
 * directory whose listing is cached may be opened without it: it is opened
 * on first need (mc_file_lower_get(), dir.c).
 *
 * Attribute cache: whatever may change the size or times through a file
 * (write, truncate, fallocate, fsync, close after a write, a shared
 * writable mapping, an ioctl) drops the inode's cached attributes, so the
 * next stat asks the lower.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/uio.h>

#include "metacache.h"

/*
 * Open flags the lower open must not see: the VFS created the file through
 * our ->create already.  O_TRUNC does reach the lower open, as when the
 * lower is used directly: NFSv4 and cifs truncate in the OPEN itself (and
 * refuse O_RDONLY|O_TRUNC there), fuse with atomic_o_trunc too.  The VFS
 * then calls ->setattr with ATTR_OPEN (handle_truncate(), after ->open),
 * which they know to skip or find a no-op; other lowers truncate there.
 */
#define MC_OPEN_DROP_FLAGS	(O_CREAT | O_EXCL | O_NOCTTY)

/*
 * What the upper file takes over from the lower one once that is open.
 * O_DIRECT is possible on the upper file (F_SETFL checks FMODE_CAN_ODIRECT)
 * exactly when it is on the lower one; we have no ->direct_IO, so
 * do_dentry_open() does not set it for us.
 */
static void mc_file_opened(struct file *file, struct mc_file *mcf)
{
	file->f_mode |= mcf->lower->f_mode & FMODE_CAN_ODIRECT;
	file->private_data = mcf;
}

/*
 * Something may be written through @file: data, a size, an extent.  Its
 * ->flush and ->release then drop the cached attributes, as the lower
 * writes back at close (and SMB learns the server's times then).  A file
 * opened for writing and never written through leaves them alone: a new
 * empty file (touch, a lock file, mdtest's files) stays cached as its
 * create left it.  Set before the lower call, so that a close racing with
 * the write sees it.
 */
static void mc_file_wrote(struct file *file)
{
	struct mc_file *mcf = MC_F(file);

	if (!test_bit(MC_FILE_WRITTEN, &mcf->flags))
		set_bit(MC_FILE_WRITTEN, &mcf->flags);
}

static bool mc_file_written(struct file *file)
{
	return test_bit(MC_FILE_WRITTEN, &MC_F(file)->flags);
}

/**
 * mc_file_alloc() - allocate the private data of an open upper file
 *
 * Return: a zeroed struct mc_file or NULL.
 */
struct mc_file *mc_file_alloc(void)
{
	return kzalloc(sizeof(struct mc_file), GFP_KERNEL);
}

/**
 * mc_file_free() - free what mc_file_alloc() allocated
 * @mcf: the mc_file; its lower file must have been released
 */
void mc_file_free(struct mc_file *mcf)
{
	kfree(mcf);
}

/*
 * An open served from a kept lower file (handle.c) skips what the lower
 * client does at open: NFS checks the file's attributes with the server
 * (close-to-open) and drops its cached data if the file changed.  Do that
 * here unless the attribute cache is fresh: data read through a reused
 * handle is then no older than the attributes metacache already trusts
 * (attr_ttl).  Return: 0, or an error: the kept file is no good (the file
 * is gone on the server): open the lower file afresh.
 */
static int mc_open_revalidate(struct file *file, struct file *lower)
{
	return mc_attr_fill(file_dentry(file), &lower->f_path,
			    AT_STATX_FORCE_SYNC);
}

/*
 * After a lower open of a regular file for reading: the lower has just
 * brought its attributes up to date (NFS's close-to-open check, the
 * attributes in an SMB2 CREATE reply), or holds a lease or delegation that
 * vouches for them.  Cache them as a stat(2) on the lower would see them
 * now (which makes no round trip then, as a rule), unless the attribute
 * cache has them already: the next stat(2) is then served from the cache,
 * and so is the check of mc_open_revalidate() when the lower file is kept
 * and reused, which would otherwise ask the server once more.  An open for
 * writing is not primed: a write through it drops the attributes, and so
 * does its close then.  A new file is primed when it is created
 * (mc_attr_prime_new()).  mc_attr_store() refuses attributes the lower
 * itself knows to be stale.
 */
static void mc_open_prime_attr(struct file *file, struct file *lower)
{
	struct dentry *dentry = file_dentry(file);

	if (S_ISREG(file_inode(file)->i_mode) &&
	    !(file->f_mode & FMODE_WRITE) &&
	    mc_ttl(MC_SB(dentry->d_sb), dentry, MC_CACHE_ATTR))
		mc_attr_fill(dentry, &lower->f_path, AT_STATX_SYNC_AS_STAT);
}

/**
 * mc_open() - ->open of files and directories: open the lower object
 * @inode: the upper inode
 * @file: the upper file
 *
 * Return: 0 or a negative errno (the lower open's, e.g. -EOPENSTALE from
 * NFS, which makes the VFS retry with LOOKUP_REVAL).
 */
int mc_open(struct inode *inode, struct file *file)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct file *lower_file;
	struct path lower_path;
	struct mc_file *mcf;
	int flags, err;

	mcf = mc_file_alloc();
	if (!mcf)
		return -ENOMEM;

	flags = file->f_flags & ~MC_OPEN_DROP_FLAGS;
	/* We just created it (FMODE_CREATED): nothing to truncate. */
	if (file->f_mode & FMODE_CREATED)
		flags &= ~O_TRUNC;

	/* A lower file kept open after a close (handle.c)? */
	lower_file = mc_handle_get(file);
	if (lower_file) {
		if (!mc_open_revalidate(file, lower_file)) {
			mc_served(sbi, MC_OP_OPEN, start);
			goto opened;
		}
		mc_lower_release(sbi, lower_file);
	}
	/* A reopen through /proc/self/fd/N: the object (mc_get_lower_obj()). */
	err = mc_get_lower_obj(file_dentry(file), &lower_path);
	if (err)
		goto out_free;
	lower_file = mc_lower_open(sbi, &lower_path, flags, current_cred());
	mc_put_lower_path(&lower_path);
	if (IS_ERR(lower_file)) {
		err = PTR_ERR(lower_file);
		goto out_free;
	}
	mc_open_prime_attr(file, lower_file);
opened:

	mcf->lower = lower_file;
	mc_file_opened(file, mcf);
	/*
	 * NFS revalidates on open (close-to-open): pick that up; cached
	 * attributes that no longer match the lower inode are not used
	 * (cache.c).  A truncating open changed them.
	 */
	if (flags & O_TRUNC)
		mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return 0;

out_free:
	mc_file_free(mcf);
	return err;
}

/**
 * mc_file_lower_get() - the lower file of an upper file, opened if need be
 * @file: the upper file
 *
 * A directory opened while its listing was cached has no lower file yet:
 * open it now, with the credentials and flags of the upper open.  Two
 * callers racing both open one; the first to install it wins.
 *
 * Return: the lower file (valid until the upper file's release) or an
 * ERR_PTR.
 */
struct file *mc_file_lower_get(struct file *file)
{
	struct mc_sb_info *sbi = MC_SB(file_inode(file)->i_sb);
	struct mc_file *mcf = MC_F(file);
	struct file *lower = READ_ONCE(mcf->lower), *old;
	struct path lower_path;
	int err;

	if (likely(lower))
		return lower;
	err = mc_get_lower_path(file_dentry(file), &lower_path);
	if (err)
		return ERR_PTR(err);
	lower = mc_lower_open(sbi, &lower_path,
			      file->f_flags & ~MC_OPEN_DROP_FLAGS,
			      file->f_cred);
	mc_put_lower_path(&lower_path);
	if (IS_ERR(lower))
		return lower;
	old = cmpxchg(&mcf->lower, NULL, lower);
	if (old) {
		mc_lower_release(sbi, lower);
		return old;
	}
	return lower;
}

/**
 * mc_open_prepared() - ->open for finish_open() when the lower file is open
 * @inode: the upper inode
 * @file: the upper file, whose private_data already holds the mc_file
 *
 * Used by O_TMPFILE, which gets its lower file from vfs_tmpfile_open().
 *
 * Return: 0 (-EIO, with a warning, if the mc_file is missing).
 */
int mc_open_prepared(struct inode *inode, struct file *file)
{
	struct mc_file *mcf = MC_F(file);

	if (WARN_ON_ONCE(!mcf))
		return -EIO;
	mc_file_opened(file, mcf);
	return 0;
}

/**
 * mc_release() - ->release of files and directories
 * @inode: the upper inode
 * @file: the upper file
 *
 * Return: 0.
 */
int mc_release(struct inode *inode, struct file *file)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_file *mcf = MC_F(file);

	/*
	 * The file's name was removed on the lower behind our back while it
	 * was open: NFS silly-renamed it, or the lower dcache dropped it.
	 * Our entry is usually detached from the lower dentry (namei.c), and
	 * the lower inode keeps its link count until the lower's own close
	 * ends, which NFS finishes asynchronously: forget the entry now, so
	 * that no lookup after this close finds the name.
	 */
	if (mcf->lower && !S_ISDIR(inode->i_mode) &&
	    mc_lower_name_gone(mcf->lower->f_path.dentry))
		mc_entry_clear(file_dentry(file));
	/*
	 * A task's last fput() of the lower file runs before it returns to
	 * user space, as the upper one did.  A kernel thread's (the I/O
	 * generator, the delayed fput worker) would be deferred to a work
	 * item: the lower would close after the upper close returned, its
	 * cost missing from what the generator times and its CLOSE racing
	 * with the thread's next calls.  Close it now, as the lower's own
	 * kernel-thread users do.
	 */
	if (mcf->lower && !mc_handle_put(file, mcf->lower)) {
		if (current->flags & PF_KTHREAD)
			mc_lower_release_sync(sbi, mcf->lower);
		else
			mc_lower_release(sbi, mcf->lower);
	} else {
		mc_served(sbi, MC_OP_RELEASE, start);
	}
	if (mcf->snap)
		mc_dirsnap_put(mcf->snap);
	/* The lower flushed at close: its size and times may have moved. */
	if (mc_file_written(file))
		mc_attr_invalidate(inode);
	mc_file_free(mcf);
	return 0;
}

/*
 * Apply to the lower file what F_SETFL changed on the upper one since open
 * (O_APPEND, O_NONBLOCK, O_DIRECT): the lower file's flags decide how its
 * ->read_iter/->write_iter behave.
 */
static int mc_sync_flags(struct file *file)
{
	struct file *lower = mc_file_lower(file);
	unsigned int flags = READ_ONCE(file->f_flags);

	if (likely(!((flags ^ READ_ONCE(lower->f_flags)) & MC_SETFL_MASK)))
		return 0;
	return mc_lower_setfl(MC_SB(file_inode(file)->i_sb), lower, flags);
}

/* The per-I/O flags of an upper kiocb, as RWF_* for vfs_iter_read/write. */
static rwf_t mc_iocb_to_rwf(int ifl)
{
	rwf_t flags = 0;

	if (ifl & IOCB_NOWAIT)
		flags |= RWF_NOWAIT;
	if (ifl & IOCB_HIPRI)
		flags |= RWF_HIPRI;
	if (ifl & IOCB_DSYNC)
		flags |= RWF_DSYNC;
	if (ifl & IOCB_SYNC)
		flags |= RWF_SYNC;
	if (ifl & IOCB_APPEND)
		flags |= RWF_APPEND;
	return flags;
}

/*
 * Reads and writes are synchronous on the lower file, also for aio and
 * io_uring: the result is returned, never -EIOCBQUEUED, and the callers
 * complete the request themselves.  The upper ki_pos is the position.
 */
static ssize_t mc_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct file *file = iocb->ki_filp;
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	ret = mc_sync_flags(file);
	if (ret)
		return ret;
	return mc_lower_read(MC_SB(file_inode(file)->i_sb), mc_file_lower(file),
			     iter, &iocb->ki_pos,
			     mc_iocb_to_rwf(iocb->ki_flags));
}

/*
 * Writes hold the upper inode's i_rwsem, as overlayfs' ovl_write_iter()
 * does, and not only to keep the size copied up in order.  Every name
 * change through the stack (unlink, rename, truncate) holds the
 * upper i_rwsem of the file it changes before it locks the lower one and
 * waits for the server; a writer now waits for it here, above the lower.
 * Otherwise a cifs writer would wait for the lower i_rwsem while marked
 * as a pending writer (cifs_get_writer()), and cifs' oplock break worker
 * waits for pending writers to finish before it acknowledges a lease break:
 * a Samba server that breaks the lease for the unlink or rename answers
 * only when its break times out, after 35 s (Linux 6.1 cifs; the plain
 * cifs mount stalls the same way, see Documentation/testbed.md).
 *
 * Lock order: upper i_rwsem, then the lower's freeze protection and
 * i_rwsem (taken by the lower write).  mc_splice_write() does not take it:
 * it must not be taken after a pipe lock, which a file system stacked on us
 * holds when it calls our ->write_iter from its own splice.
 */
static ssize_t mc_write_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;
	ret = mc_sync_flags(file);
	if (ret)
		return ret;
	/*
	 * No IOCB_NOWAIT here: upper files do not have FMODE_NOWAIT, so the
	 * VFS refuses RWF_NOWAIT and io_uring writes from a worker.
	 */
	inode_lock(inode);
	mc_file_wrote(file);
	/* The lower write removes suid/sgid and privileges itself. */
	ret = mc_lower_write(MC_SB(inode->i_sb), mc_file_lower(file), iter,
			     &iocb->ki_pos, mc_iocb_to_rwf(iocb->ki_flags));
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);	/* size, times, mode */
	inode_unlock(inode);
	return ret;
}

/*
 * Not iter_file_splice_write() on the upper file: it would take the pipe
 * lock and then, in our ->write_iter, the lower freeze protection: the
 * reverse of splice into a lower file (do_splice()), a lockdep report and
 * a deadlock against freeze.  Splice into the lower file instead, as
 * overlayfs' ovl_splice_write() does.
 */
static ssize_t mc_splice_write(struct pipe_inode_info *pipe, struct file *out,
			       loff_t *ppos, size_t len, unsigned int flags)
{
	struct inode *inode = file_inode(out);
	ssize_t ret;

	ret = mc_sync_flags(out);
	if (ret)
		return ret;
	mc_file_wrote(out);
	ret = mc_lower_splice_write(MC_SB(inode->i_sb), pipe,
				    mc_file_lower(out), ppos, len, flags);
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

static int mc_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (WARN_ON_ONCE(file != vma->vm_file))
		return -EIO;
	/* Writes through it bypass us: see mc_attr_bypass() in cache.c. */
	if ((vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) ==
	    (VM_SHARED | VM_MAYWRITE)) {
		mc_file_wrote(file);
		mc_attr_invalidate(file_inode(file));
		/* Its pages may still be dirty after the last close. */
		set_bit(MC_FILE_NOCACHE, &MC_F(file)->flags);
	}
	return mc_lower_mmap(MC_SB(file_inode(file)->i_sb),
			     mc_file_lower(file), vma);
}

/**
 * mc_llseek_lower() - seek the lower file and keep both positions equal
 * @file: the upper file
 * @offset: as for lseek(2)
 * @whence: SEEK_*; SEEK_DATA, SEEK_HOLE and directory cookies are the
 *	    lower's business
 *
 * Context: the caller serializes seeks on @file (f_pos_lock, and for
 * regular files the inode lock).
 * Return: the new position or a negative errno.
 */
loff_t mc_llseek_lower(struct file *file, loff_t offset, int whence)
{
	struct file *lower = mc_file_lower_get(file);
	loff_t ret;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	if (S_ISDIR(file_inode(file)->i_mode)) {
		/* not a plain f_pos: see mc_lower_dir_seek() */
		ret = mc_lower_dir_seek(MC_SB(file_inode(file)->i_sb), lower,
					file->f_pos);
		if (ret)
			return ret;
	} else {
		lower->f_pos = file->f_pos;
	}
	ret = mc_lower_llseek(MC_SB(file_inode(file)->i_sb), lower, offset,
			      whence);
	file->f_pos = lower->f_pos;
	return ret;
}

/* Under the inode lock, as overlayfs' ovl_llseek(). */
static loff_t mc_file_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	loff_t ret;

	inode_lock(inode);
	ret = mc_llseek_lower(file, offset, whence);
	inode_unlock(inode);
	return ret;
}

/**
 * mc_fsync() - ->fsync of files and directories
 * @file: the upper file
 * @start: first byte
 * @end: last byte
 * @datasync: fdatasync
 *
 * Return: 0 or a negative errno.
 */
int mc_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct file *lower = mc_file_lower_get(file);
	int err;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	err = mc_lower_fsync(MC_SB(file_inode(file)->i_sb), lower, start, end,
			     datasync);
	mc_attr_invalidate(file_inode(file));
	return err;
}

static long mc_fallocate(struct file *file, int mode, loff_t offset,
			 loff_t len)
{
	struct inode *inode = file_inode(file);
	long ret;

	mc_file_wrote(file);
	ret = mc_lower_fallocate(MC_SB(inode->i_sb), mc_file_lower(file), mode,
				 offset, len);
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

/*
 * copy_file_range(2) between two metacache files (the VFS calls this only
 * when both are ours; they may be on two metacache mounts): the lower
 * files copy, so that NFS and SMB copy on the server instead of moving the
 * data through this machine.  When the lower cannot copy between the two
 * (-EXDEV, -EOPNOTSUPP: different lower file systems), files of one mount
 * are copied as the VFS would copy them without this method, through our
 * read and write; across mounts the caller gets -EXDEV and copies itself,
 * as cp(1) does.
 */
static ssize_t mc_copy_file_range(struct file *file_in, loff_t pos_in,
				  struct file *file_out, loff_t pos_out,
				  size_t len, unsigned int flags)
{
	struct inode *inode = file_inode(file_out);
	ssize_t ret;

	mc_file_wrote(file_out);
	ret = mc_lower_copy_file_range(MC_SB(inode->i_sb),
				       mc_file_lower(file_in), pos_in,
				       mc_file_lower(file_out), pos_out, len,
				       flags);
	/* Nothing copied: our ->splice_write refreshes the attributes. */
	if ((ret == -EXDEV || ret == -EOPNOTSUPP) &&
	    file_inode(file_in)->i_sb == inode->i_sb)
		return generic_copy_file_range(file_in, pos_in, file_out,
					       pos_out, len, flags);
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

/*
 * FICLONE, FICLONERANGE and FIDEDUPERANGE: the lower files share the
 * range, if the lower file system can (NFS 4.2 CLONE, SMB2 duplicate
 * extents, btrfs/xfs below a local stack).  The VFS has checked that both
 * files are on this mount; the lower checks the ranges and permissions
 * again for its own files and flushes its page cache.
 */
static loff_t mc_remap_file_range(struct file *file_in, loff_t pos_in,
				  struct file *file_out, loff_t pos_out,
				  loff_t len, unsigned int remap_flags)
{
	struct inode *inode = file_inode(file_out);
	loff_t ret;

	if (remap_flags & ~(REMAP_FILE_DEDUP | REMAP_FILE_ADVISORY))
		return -EINVAL;
	mc_file_wrote(file_out);
	ret = mc_lower_remap_file_range(MC_SB(inode->i_sb),
					mc_file_lower(file_in), pos_in,
					mc_file_lower(file_out), pos_out, len,
					remap_flags);
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

static int mc_fadvise(struct file *file, loff_t offset, loff_t len,
		      int advice)
{
	return mc_lower_fadvise(MC_SB(file_inode(file)->i_sb),
				mc_file_lower(file), offset, len, advice);
}

/**
 * mc_flush() - ->flush of files and directories (every close(2))
 * @file: the upper file
 * @id: the files_struct closing it
 *
 * POSIX locks live on the lower inode (see mc_lock()), so they are dropped
 * here: the VFS's locks_remove_posix() after ->flush looks at the upper
 * inode, which never has any.
 *
 * Return: the lower ->flush result.
 */
int mc_flush(struct file *file, fl_owner_t id)
{
	struct file *lower = mc_file_lower(file);
	int err;

	/* A directory never opened below has nothing to flush, no locks. */
	if (!lower)
		return 0;
	err = mc_lower_flush(MC_SB(file_inode(file)->i_sb), lower, id);
	if (mc_file_written(file))
		mc_attr_invalidate(file_inode(file));
	return err;
}

/**
 * mc_lock() - ->lock: POSIX and OFD byte range locks, on the lower file
 * @file: the upper file
 * @cmd: F_GETLK, F_SETLK, F_SETLKW
 * @fl: the request
 *
 * The lock is set on the lower file, so NFS and SMB take it on the server
 * and other clients see it (as nfsd does with vfs_lock_file()).  For the
 * call, fl_file is the lower file and an OFD lock's owner (the open file)
 * is the lower file as well, so that the lower file's release removes it;
 * both are restored for the VFS afterwards.  A POSIX lock's owner, the
 * files_struct, stays.  With FILE_LOCK_DEFERRED the VFS waits and calls
 * us again.
 *
 * Return: 0, FILE_LOCK_DEFERRED or a negative errno.
 */
int mc_lock(struct file *file, int cmd, struct file_lock *fl)
{
	struct mc_file *mcf = MC_F(file);
	struct file *lower = mc_file_lower_get(file);
	fl_owner_t owner = fl->fl_owner;
	int err;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	/*
	 * Deferred close must never keep this lower file open, and no other
	 * lower file of the inode stays open while locks are set.
	 */
	if (cmd != F_GETLK && fl->fl_type != F_UNLCK) {
		set_bit(MC_FILE_HAS_LOCKS, &mcf->flags);
		mc_handles_close(file_inode(file), true);
	}

	fl->fl_file = lower;
	if (owner == (fl_owner_t)file)
		fl->fl_owner = lower;
	err = mc_lower_lock(MC_SB(file_inode(file)->i_sb), lower, cmd, fl);
	fl->fl_file = file;
	fl->fl_owner = owner;
	return err;
}

/**
 * mc_flock() - ->flock: flock(2) locks, on the lower file
 * @file: the upper file
 * @cmd: F_SETLK or F_SETLKW
 * @fl: the request
 *
 * A flock lock belongs to the open file: owner and fl_file become the lower
 * file for the call, so the lower file's release (locks_remove_flock())
 * finds it.  See mc_lock().
 *
 * Return: 0 or a negative errno.
 */
int mc_flock(struct file *file, int cmd, struct file_lock *fl)
{
	struct mc_file *mcf = MC_F(file);
	struct file *lower = mc_file_lower_get(file);
	fl_owner_t owner = fl->fl_owner;
	int err;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	if (fl->fl_type != F_UNLCK) {
		set_bit(MC_FILE_HAS_LOCKS, &mcf->flags);
		mc_handles_close(file_inode(file), true);
	}

	fl->fl_file = lower;
	fl->fl_owner = lower;
	err = mc_lower_flock(MC_SB(file_inode(file)->i_sb), lower, cmd, fl);
	fl->fl_file = file;
	fl->fl_owner = owner;
	return err;
}

/**
 * mc_unlocked_ioctl() - pass an ioctl the VFS did not handle to the lower
 * @file: the upper file
 * @cmd: command
 * @arg: argument
 *
 * Return: the lower result, -ENOTTY if the lower has no ioctls.
 */
long mc_unlocked_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	struct file *lower = mc_file_lower_get(file);
	long ret;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	/* It may have changed state of the open lower file: do not reuse. */
	set_bit(MC_FILE_NOCACHE, &MC_F(file)->flags);
	mc_file_wrote(file);
	ret = mc_lower_ioctl(MC_SB(inode->i_sb), lower, cmd, arg);
	/* e.g. FS_IOC_SETFLAGS handled by the lower */
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

/**
 * mc_compat_ioctl() - 32-bit ioctl, passed to the lower
 * @file: the upper file
 * @cmd: command
 * @arg: argument
 *
 * Return: the lower result, -ENOTTY if the lower has no compat ioctls.
 */
long mc_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	struct file *lower = mc_file_lower_get(file);
	long ret;

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	set_bit(MC_FILE_NOCACHE, &MC_F(file)->flags);
	mc_file_wrote(file);
	ret = mc_lower_compat_ioctl(MC_SB(inode->i_sb), lower, cmd, arg);
	mc_attr_invalidate(inode);
	mc_copy_attr(inode);
	return ret;
}

const struct file_operations mc_file_fops = {
	.open		= mc_open,
	.release	= mc_release,
	.llseek		= mc_file_llseek,
	.read_iter	= mc_read_iter,
	.write_iter	= mc_write_iter,
	.splice_read	= generic_file_splice_read,
	.splice_write	= mc_splice_write,
	.mmap		= mc_mmap,
	.fsync		= mc_fsync,
	.fallocate	= mc_fallocate,
	.fadvise	= mc_fadvise,
	.copy_file_range = mc_copy_file_range,
	.remap_file_range = mc_remap_file_range,
	.flush		= mc_flush,
	.lock		= mc_lock,
	.flock		= mc_flock,
	/* A lease on the upper inode would not see other clients: refuse. */
	.setlease	= simple_nosetlease,
	.unlocked_ioctl	= mc_unlocked_ioctl,
	.compat_ioctl	= mc_compat_ioctl,
};
