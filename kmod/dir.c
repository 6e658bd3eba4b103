// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c - directory file operations.
 *
 * An open upper directory holds an open lower directory (struct mc_file,
 * see file.c).  readdir reads the lower directory straight into the
 * caller's dir_context, so names, d_type and d_ino are the lower's (d_ino
 * matches what stat reports), and the directory position is the lower's:
 * NFS cookies, cifs offsets.  The upper f_pos is kept equal to the lower
 * one, which makes telldir/seekdir work on large directories.
 */
#include <linux/fs.h>

#include "metacache.h"

static int mc_iterate_shared(struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file_inode(file);
	struct file *lower = mc_file_lower(file);
	int err;

	/*
	 * iterate_dir() starts the lower at its own f_pos: give it ours
	 * (ctx->pos is the upper f_pos).  It leaves ctx->pos == the lower
	 * f_pos, which the VFS copies to the upper f_pos.  Both files are
	 * serialized by the upper f_pos_lock.
	 */
	lower->f_pos = ctx->pos;
	err = mc_lower_iterate(MC_SB(inode->i_sb), lower, ctx);
	mc_copy_attr(inode);
	return err;
}

/* Seek the lower directory: its cookies and its rules (no inode lock). */
static loff_t mc_dir_llseek(struct file *file, loff_t offset, int whence)
{
	return mc_llseek_lower(file, offset, whence);
}

const struct file_operations mc_dir_fops = {
	.open		= mc_open,
	.release	= mc_release,
	.llseek		= mc_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= mc_iterate_shared,
	.fsync		= mc_fsync,
	.flush		= mc_flush,
	.lock		= mc_lock,
	.flock		= mc_flock,
	.unlocked_ioctl	= mc_unlocked_ioctl,
	.compat_ioctl	= mc_compat_ioctl,
};
