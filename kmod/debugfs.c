// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/metacache/<mount id>/: the files stats,
 * info, flush, policy and fault.
 *
 *	stats	one line per lower operation and one per cache:
 *		op <name> calls <n> avoided <n> total_ns <n>
 *		cache <entry|neg|attr|dir> hits <n> misses <n> expired <n>
 *		      renewed <n> evicted <n> entries <n> bytes <n>
 *		(cache.c and metacache.h say what each counts)
 *	info	"key value" lines: id, dev <major>:<minor> (the mount's
 *		st_dev), lower <path>, lower_type
 *	flush	writing "1" drops all cached state of the mount
 *		(mc_cache_flush())
 *	policy	which rule and values apply to a path (tests; see policy.c)
 *	fault	fault injection on the mount's lower calls (tests; fault.c)
 *
 * Best effort: a debugfs failure never fails a mount.  The files of a
 * mount are removed before its mc_sb_info is freed; debugfs_remove() waits
 * for readers still inside them.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "metacache.h"
#include "ctl.h"

/* /sys/kernel/debug/metacache, or an ERR_PTR/NULL without debugfs. */
static struct dentry *mc_debugfs_root;

static const char *const mc_cache_names[MC_CACHE_NR] = {
	[MC_CACHE_ENTRY]	= "entry",
	[MC_CACHE_NEG]		= "neg",
	[MC_CACHE_ATTR]		= "attr",
	[MC_CACHE_DIR]		= "dir",
	[MC_CACHE_HANDLE]	= "handle",
};

static int mc_stats_show(struct seq_file *m, void *v)
{
	struct mc_sb_info *sbi = m->private;
	struct mc_cache_stats cs;
	unsigned long entries, bytes;
	struct mc_op_stats sum;
	int i;

	for (i = 0; i < MC_OP_NR; i++) {
		mc_stats_read(sbi, i, &sum);
		seq_printf(m, "op %s calls %llu avoided %llu total_ns %llu\n",
			   mc_op_names[i], sum.calls, sum.avoided,
			   sum.total_ns);
	}
	for (i = 0; i < MC_CACHE_NR; i++) {
		mc_cache_read(sbi, i, &cs, &entries, &bytes);
		seq_printf(m, "cache %s hits %llu misses %llu expired %llu renewed %llu evicted %llu entries %lu bytes %lu\n",
			   mc_cache_names[i], cs.hits, cs.misses, cs.expired,
			   cs.renewed, cs.evicted, entries, bytes);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mc_stats);

/* "key value" lines */
static int mc_info_show(struct seq_file *m, void *v)
{
	struct mc_sb_info *sbi = m->private;

	seq_printf(m, "id %u\n", sbi->id);
	seq_printf(m, "dev %u:%u\n", MAJOR(sbi->sb->s_dev),
		   MINOR(sbi->sb->s_dev));
	seq_puts(m, "lower ");
	seq_path(m, &sbi->lower_path, " \t\n\\");
	seq_putc(m, '\n');
	seq_printf(m, "lower_type %s\n",
		   sbi->lower_path.mnt->mnt_sb->s_type->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mc_info);

/* Write "1": drop all cached state of the mount. */
static ssize_t mc_flush_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	struct mc_sb_info *sbi = file->private_data;
	bool yes;
	int err;

	err = kstrtobool_from_user(buf, len, &yes);
	if (err)
		return err;
	if (yes) {
		mc_cache_flush(sbi, NULL);
		mc_handles_flush(sbi);
	}
	return len;
}

static const struct file_operations mc_flush_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= mc_flush_write,
	.llseek	= noop_llseek,
};

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
	debugfs_create_file("flush", 0200, dir, sbi, &mc_flush_fops);
	debugfs_create_file("policy", 0600, dir, sbi, &mc_policy_debugfs_fops);
	debugfs_create_file("fault", 0600, dir, sbi, &mc_fault_fops);
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
