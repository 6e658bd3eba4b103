// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/metacache/<mount id>/{stats,info,policy}
 * (policy: see policy.c).
 *
 * Best effort: a debugfs failure never fails a mount.  The files of a
 * mount are removed before its mc_sb_info is freed; debugfs_remove() waits
 * for readers still inside them.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/seq_file.h>

#include "metacache.h"
#include "ctl.h"

/* /sys/kernel/debug/metacache, or an ERR_PTR/NULL without debugfs. */
static struct dentry *mc_debugfs_root;

/* One line per operation: name calls total_ns */
static int mc_stats_show(struct seq_file *m, void *v)
{
	struct mc_sb_info *sbi = m->private;
	struct mc_op_stats sum;
	int op;

	for (op = 0; op < MC_OP_NR; op++) {
		mc_stats_read(sbi, op, &sum);
		seq_printf(m, "%s %llu %llu\n", mc_op_names[op], sum.calls,
			   sum.total_ns);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mc_stats);

/* "key value" lines */
static int mc_info_show(struct seq_file *m, void *v)
{
	struct mc_sb_info *sbi = m->private;

	seq_printf(m, "id %u\n", sbi->id);
	seq_puts(m, "lower ");
	seq_path(m, &sbi->lower_path, " \t\n\\");
	seq_putc(m, '\n');
	seq_printf(m, "lower_type %s\n",
		   sbi->lower_path.mnt->mnt_sb->s_type->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mc_info);

/**
 * mc_debugfs_init() - create /sys/kernel/debug/metacache at module load
 */
void mc_debugfs_init(void)
{
	mc_debugfs_root = debugfs_create_dir(METACACHE_NAME, NULL);
}

/**
 * mc_debugfs_exit() - remove /sys/kernel/debug/metacache at module unload
 */
void mc_debugfs_exit(void)
{
	debugfs_remove(mc_debugfs_root);
	mc_debugfs_root = NULL;
}

/**
 * mc_debugfs_mount() - create the directory of a new mount
 * @sbi: the mount, with its id and lower path set
 */
void mc_debugfs_mount(struct mc_sb_info *sbi)
{
	char name[12];
	struct dentry *dir;

	if (IS_ERR_OR_NULL(mc_debugfs_root))
		return;
	snprintf(name, sizeof(name), "%u", sbi->id);
	dir = debugfs_create_dir(name, mc_debugfs_root);
	if (IS_ERR(dir)) {
		pr_debug("no debugfs directory for mount %u: %ld\n", sbi->id,
			 PTR_ERR(dir));
		return;
	}
	sbi->debugfs_dir = dir;
	debugfs_create_file("stats", 0444, dir, sbi, &mc_stats_fops);
	debugfs_create_file("info", 0444, dir, sbi, &mc_info_fops);
	debugfs_create_file("policy", 0600, dir, sbi, &mc_policy_debugfs_fops);
}

/**
 * mc_debugfs_umount() - remove the directory of a mount
 * @sbi: the mount
 *
 * Context: may sleep (waits for readers of the files).
 */
void mc_debugfs_umount(struct mc_sb_info *sbi)
{
	debugfs_remove(sbi->debugfs_dir);
	sbi->debugfs_dir = NULL;
}
