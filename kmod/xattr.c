// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - extended attributes, passed to the lower object.
 *
 * A single catch-all handler (empty prefix, like overlayfs 6.1's
 * ovl_other_xattr_handler) takes every name, including system.posix_acl_*
 * and security.*, and hands it to the lower vfs_*xattr() helpers with the
 * lower mount's idmapping.  The VFS above us has done the permission checks
 * on our inode (which delegate to the lower), and the lower vfs helpers do
 * theirs again for the lower inode, so the lower decides.
 */
#include <linux/fs.h>
#include <linux/xattr.h>

#include "metacache.h"

static int mc_xattr_get(const struct xattr_handler *handler,
			struct dentry *dentry, struct inode *inode,
			const char *name, void *value, size_t size)
{
	struct path lower_path;
	ssize_t ret;

	if (!dentry)
		return -EOPNOTSUPP;

	/*
	 * security.capability: notify_change()'s probe before a chown() or
	 * truncate() by path name (mc_peek_lower_obj()).  A caller of
	 * fgetxattr() for it sees ESTALE until another call drops the name.
	 */
	if (!strcmp(name, XATTR_NAME_CAPS))
		ret = mc_peek_lower_obj(dentry, &lower_path);
	else
		ret = mc_get_lower_obj(dentry, &lower_path);
	if (ret)
		return ret;
	ret = mc_lower_getxattr(MC_SB(inode->i_sb), lower_path.dentry, name,
				value, size);
	mc_put_lower_path(&lower_path);
	return ret;
}

/* Also removal: __vfs_removexattr() calls ->set with a NULL value. */
static int mc_xattr_set(const struct xattr_handler *handler,
			struct user_namespace *mnt_userns,
			struct dentry *dentry, struct inode *inode,
			const char *name, const void *value, size_t size,
			int flags)
{
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct path lower_path;
	int err;

	/* fsetxattr(): the open file's object (mc_get_lower_obj()). */
	err = mc_get_lower_obj(dentry, &lower_path);
	if (err)
		return err;
	if (value)
		err = mc_lower_setxattr(sbi, lower_path.dentry, name, value,
					size, flags);
	else
		err = mc_lower_removexattr(sbi, lower_path.dentry, name);
	mc_put_lower_path(&lower_path);
	/* ctime; the mode and the permissions for ACLs */
	mc_attr_invalidate(inode);
	mc_perm_invalidate(inode);
	mc_copy_attr(inode);
	return err;
}

static const struct xattr_handler mc_xattr_handler = {
	.prefix	= "",	/* catch all */
	.get	= mc_xattr_get,
	.set	= mc_xattr_set,
};

const struct xattr_handler *mc_xattr_handlers[] = {
	&mc_xattr_handler,
	NULL
};

/**
 * mc_listxattr() - ->listxattr: the lower object's list, unfiltered
 * @dentry: the upper dentry
 * @list: buffer, or NULL to get the size
 * @size: size of @list
 *
 * Return: the list's size or a negative errno.
 */
ssize_t mc_listxattr(struct dentry *dentry, char *list, size_t size)
{
	struct path lower_path;
	ssize_t ret;

	ret = mc_get_lower_obj(dentry, &lower_path);
	if (ret)
		return ret;
	ret = mc_lower_listxattr(MC_SB(dentry->d_sb), lower_path.dentry, list,
				 size);
	mc_put_lower_path(&lower_path);
	return ret;
}
