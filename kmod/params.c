// SPDX-License-Identifier: GPL-2.0
/*
 * metacache - module parameters: the module-wide defaults at load time
 *
 *	modprobe metacache entry_ttl=30 neg_ttl=10 max_handles=4096
 *
 * Each parameter is one of the defaults that new mounts start from (mount
 * options override them per mount; metacachectl defaults changes them at
 * run time, and so does writing /sys/module/metacache/parameters/<name>
 * as root).  They are the same values: reading a parameter shows the
 * current default whichever way it was set.  A value out of range is
 * refused with -EINVAL (modprobe then fails with a message naming the
 * parameter), as a mount option or the netlink family would refuse it.
 * Two parameters are module-wide and no mount default: served_sample and
 * list_ahead (at the end of this file).
 */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/sysfs.h>

#include "metacache.h"
#include "ctl.h"

struct mc_param {
	size_t offset;		/* of the u32 in struct mc_tunables */
	u32 max;
};

static u32 *mc_param_field(struct mc_tunables *tun, const struct mc_param *p)
{
	return (u32 *)((char *)tun + p->offset);
}

/* Runs at load time too, before mc_init(): only static state is used. */
static int mc_param_set(const char *val, const struct kernel_param *kp)
{
	const struct mc_param *p = kp->arg;
	struct mc_tunables tun;
	u32 v;
	int err;

	err = kstrtou32(val, 0, &v);
	if (err)
		return -EINVAL;
	if (v > p->max) {
		pr_err("%s=%u is out of range (0 to %u)\n", kp->name, v, p->max);
		return -EINVAL;
	}
	mutex_lock(&mc_defaults_lock);
	mc_defaults_load_locked(&tun);
	*mc_param_field(&tun, p) = v;
	mc_defaults_store(&tun);
	mutex_unlock(&mc_defaults_lock);
	return 0;
}

static int mc_param_get(char *buf, const struct kernel_param *kp)
{
	const struct mc_param *p = kp->arg;
	struct mc_tunables tun;

	mc_defaults_load(&tun);
	return sysfs_emit(buf, "%u\n", *mc_param_field(&tun, p));
}

static const struct kernel_param_ops mc_param_ops = {
	.set	= mc_param_set,
	.get	= mc_param_get,
};

#define MC_PARAM(name, maxval, desc)					\
	static struct mc_param mc_param_##name = {			\
		.offset = offsetof(struct mc_tunables, name),		\
		.max = (maxval),					\
	};								\
	module_param_cb(name, &mc_param_ops, &mc_param_##name, 0644);	\
	MODULE_PARM_DESC(name, desc)

MC_PARAM(entry_ttl, MC_TTL_MAX,
	 "seconds a name's lookup is trusted, default for new mounts (5; 0 = off)");
MC_PARAM(neg_ttl, MC_TTL_MAX,
	 "seconds a missing name is trusted, default for new mounts (5; 0 = off)");
MC_PARAM(attr_ttl, MC_TTL_MAX,
	 "seconds attributes are trusted, default for new mounts (5; 0 = off)");
MC_PARAM(dir_ttl, MC_TTL_MAX,
	 "seconds a directory listing is trusted, default for new mounts (5; 0 = off)");
MC_PARAM(close_ttl, MC_TTL_MAX,
	 "seconds a closed file's lower handle is kept open, default for new mounts (5; 0 = off)");
MC_PARAM(max_entries, MC_LIMIT_MAX,
	 "most cached entries per mount, default for new mounts (65536)");
MC_PARAM(max_neg, MC_LIMIT_MAX,
	 "most cached missing names per mount, default for new mounts (16384)");
MC_PARAM(max_handles, MC_LIMIT_MAX,
	 "most lower files kept open after close per mount, default for new mounts (1024)");

/*
 * served_sample: time one cache hit in N, at random, for the cache-served
 * latency histograms (see mc_clock() in metacache.h).  Module-wide, not a
 * mount default: it changes at once for every mount.  A power of two from
 * 1 (every hit) to 65536.
 */
static int mc_sample_set(const char *val, const struct kernel_param *kp)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	if (!v || v > 65536 || !is_power_of_2(v)) {
		pr_err("served_sample=%u: must be a power of two from 1 to 65536\n",
		       v);
		return -EINVAL;
	}
	WRITE_ONCE(mc_served_mask, v - 1);
	return 0;
}

static int mc_sample_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mc_served_mask) + 1);
}

static const struct kernel_param_ops mc_sample_ops = {
	.set	= mc_sample_set,
	.get	= mc_sample_get,
};

module_param_cb(served_sample, &mc_sample_ops, NULL, 0644);
MODULE_PARM_DESC(served_sample,
		 "time one cache hit in N for the served-latency histograms (16; 1 = every hit)");

/*
 * list_ahead: after this many lookups that asked the lower in a directory
 * with no fresh listing, the next one reads the directory's listing, so
 * that the lookups after it need no round trip (dir.c,
 * mc_dir_list_ahead(), which also bounds how often).  Module-wide: it
 * changes at once for every mount.  0 turns it off; at most 65536.
 */
#define MC_LIST_AHEAD_MAX	65536

unsigned int mc_list_ahead = 16;

static int mc_list_ahead_set(const char *val, const struct kernel_param *kp)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	if (v > MC_LIST_AHEAD_MAX) {
		pr_err("list_ahead=%u is out of range (0 to %u)\n", v,
		       MC_LIST_AHEAD_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(mc_list_ahead, v);
	return 0;
}

static int mc_list_ahead_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mc_list_ahead));
}

static const struct kernel_param_ops mc_list_ahead_ops = {
	.set	= mc_list_ahead_set,
	.get	= mc_list_ahead_get,
};

module_param_cb(list_ahead, &mc_list_ahead_ops, NULL, 0644);
MODULE_PARM_DESC(list_ahead,
		 "read a directory's listing after this many lookups in it that asked the lower (16; 0 = off)");
