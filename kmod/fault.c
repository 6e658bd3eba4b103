// SPDX-License-Identifier: GPL-2.0
/*
 * fault.c - metacache's own fault injection point on every lower call.
 *
 * Every call into the lower file system goes through a wrapper of lower.c,
 * and every wrapper that can fail asks mc_fault() first.  When injection
 * is armed for the mount and the dice say so, the wrapper does not call
 * the lower at all and returns the injected error, exactly as if the lower
 * had failed: this is how the tests show that every failure surfaces as a
 * clean error and that no cache ever holds an answer derived from a failed
 * call (tests/debug/faults.c).  The stock Debian kernel has no
 * CONFIG_FAULT_INJECTION, so this does not use the kernel's fault_attr.
 *
 * Control: /sys/kernel/debug/metacache/<id>/fault (root only, as all of
 * debugfs).  Write one line of space-separated key=value pairs:
 *
 *	ops=all|NAME[,NAME...]	the lower operations to fail (lower.c's
 *				mc_op_names: lookup, getattr, open, ...)
 *	errors=E[,E...]		errnos to return, one chosen at random per
 *				fault: EIO ENOMEM ESTALE ETIMEDOUT ENOSPC
 *				EAGAIN EINTR EACCES (default EIO)
 *	probability=P		percent of matching calls that fail, 1-100
 *				(default 100)
 *	times=N			stop after N faults; -1: no limit (default)
 *	when=before|after	before (default): the lower is not called;
 *				after: the lower call is made and its success
 *				is reported as the error, as when a reply is
 *				lost after the server did the work.  Only
 *				the namespace calls have this point (create,
 *				mkdir, mknod, symlink, link, unlink, rmdir,
 *				rename, and open, which may create):
 *				mc_fault_after()
 *
 * or "off".  Reading it gives the same keys, plus "injected" (faults so
 * far, not reset by re-arming).  A write replaces the whole setting; a bad
 * line is refused with -EINVAL and leaves the old setting in force.
 *
 * Cost when no mount has injection armed: one static branch per lower
 * call (a NOP).  Armed, a matching call costs a random number.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "metacache.h"

/* Enabled while at least one mount has injection armed. */
DEFINE_STATIC_KEY_FALSE(mc_fault_key);

static const struct {
	const char *name;
	int err;
} mc_fault_errnos[] = {
	{ "EIO", EIO }, { "ENOMEM", ENOMEM }, { "ESTALE", ESTALE },
	{ "ETIMEDOUT", ETIMEDOUT }, { "ENOSPC", ENOSPC }, { "EAGAIN", EAGAIN },
	{ "EINTR", EINTR }, { "EACCES", EACCES },
};

/**
 * __mc_fault() - decide whether a lower call fails (mc_fault()'s slow path)
 * @sbi: the mount
 * @op: the lower operation about to be called, or just made
 * @after: asked after the call (mc_fault_after()), not before it
 *
 * Lockless: the setting is read with READ_ONCE(); a call racing with a
 * write to the control file sees the old or the new setting, or fails with
 * -EIO.
 * Context: any, RCU-walk included: no lock, no allocation, no sleep.
 * Return: 0 (call the lower) or the negative errno to return instead.
 */
int __mc_fault(struct mc_sb_info *sbi, enum mc_op op, bool after)
{
	struct mc_fault *f = &sbi->fault;
	unsigned int nerr, prob;
	int err;

	if (!(READ_ONCE(f->ops) & BIT(op)) || READ_ONCE(f->after) != after)
		return 0;
	prob = READ_ONCE(f->probability);
	if (prob < 100 && get_random_u32_below(100) >= prob)
		return 0;
	/* times: -1 is no limit; otherwise take one unless none is left. */
	if (atomic_read(&f->times) >= 0 &&
	    !atomic_add_unless(&f->times, -1, 0))
		return 0;
	nerr = READ_ONCE(f->nerr);
	err = nerr ? READ_ONCE(f->errs[get_random_u32_below(min_t(unsigned int,
					nerr, MC_FAULT_MAX_ERRS))]) : 0;
	if (!err)
		err = EIO;
	atomic64_inc(&f->injected);
	trace_metacache_fault(sbi->id, op, -err);
	return -err;
}

static int mc_fault_parse_ops(char *val, unsigned long *ops)
{
	char *name;
	int i;

	if (!strcmp(val, "all")) {
		*ops = BIT(MC_OP_NR) - 1;
		return 0;
	}
	*ops = 0;
	while ((name = strsep(&val, ","))) {
		i = match_string(mc_op_names, MC_OP_NR, name);
		if (i < 0)
			return -EINVAL;
		*ops |= BIT(i);
	}
	return 0;
}

static int mc_fault_parse_errs(char *val, struct mc_fault *f)
{
	char *name;
	int i;

	f->nerr = 0;
	while ((name = strsep(&val, ","))) {
		for (i = 0; i < ARRAY_SIZE(mc_fault_errnos); i++)
			if (!strcmp(name, mc_fault_errnos[i].name))
				break;
		if (i == ARRAY_SIZE(mc_fault_errnos) ||
		    f->nerr == MC_FAULT_MAX_ERRS)
			return -EINVAL;
		f->errs[f->nerr++] = mc_fault_errnos[i].err;
	}
	return 0;
}

/* Parse a control line into @f (a scratch copy). */
static int mc_fault_parse(char *line, struct mc_fault *f, int *times)
{
	char *tok, *val;
	int err;

	f->ops = 0;
	f->nerr = 0;
	f->probability = 100;
	f->after = false;
	*times = -1;
	line = strim(line);
	if (!strcmp(line, "off"))
		return 0;
	while ((tok = strsep(&line, " \t"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val || !val[1])
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "ops"))
			err = mc_fault_parse_ops(val, &f->ops);
		else if (!strcmp(tok, "errors"))
			err = mc_fault_parse_errs(val, f);
		else if (!strcmp(tok, "probability"))
			err = kstrtouint(val, 10, &f->probability) ?:
			      (f->probability >= 1 && f->probability <= 100 ?
			       0 : -EINVAL);
		else if (!strcmp(tok, "when"))
			err = !strcmp(val, "after") ? (f->after = true, 0) :
			      !strcmp(val, "before") ? 0 : -EINVAL;
		else if (!strcmp(tok, "times"))
			err = kstrtoint(val, 10, times) ?:
			      (*times >= -1 ? 0 : -EINVAL);
		else
			err = -EINVAL;
		if (err)
			return -EINVAL;
	}
	return f->ops ? 0 : -EINVAL;
}

/* Serializes writers of every mount's setting and the static key count. */
static DEFINE_MUTEX(mc_fault_mutex);

static void mc_fault_set(struct mc_sb_info *sbi, const struct mc_fault *new,
			 int times)
{
	struct mc_fault *f = &sbi->fault;
	bool was = f->ops, now = new->ops;
	int i;

	lockdep_assert_held(&mc_fault_mutex);
	/* Disarm, change, re-arm: a racing call sees one or the other. */
	WRITE_ONCE(f->ops, 0);
	WRITE_ONCE(f->probability, new->probability);
	WRITE_ONCE(f->after, new->after);
	for (i = 0; i < new->nerr; i++)
		WRITE_ONCE(f->errs[i], new->errs[i]);
	WRITE_ONCE(f->nerr, new->nerr);
	atomic_set(&f->times, times);
	WRITE_ONCE(f->ops, new->ops);
	if (now && !was)
		static_branch_inc(&mc_fault_key);
	else if (!now && was)
		static_branch_dec(&mc_fault_key);
}

static ssize_t mc_fault_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct mc_sb_info *sbi = file_inode(file)->i_private;
	struct mc_fault new = {};
	char *buf;
	int times, err;

	if (*ppos || len >= 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = mc_fault_parse(buf, &new, &times);
	kfree(buf);
	if (err) {
		pr_info("mount %u: bad fault injection setting (see fault.c)\n",
			sbi->id);
		return err;
	}
	mutex_lock(&mc_fault_mutex);
	mc_fault_set(sbi, &new, times);
	mutex_unlock(&mc_fault_mutex);
	return len;
}

static int mc_fault_show(struct seq_file *m, void *v)
{
	struct mc_sb_info *sbi = m->private;
	struct mc_fault *f = &sbi->fault;
	unsigned long ops = READ_ONCE(f->ops);
	unsigned int i, j, n = 0;

	seq_puts(m, "ops=");
	if (!ops)
		seq_puts(m, "off");
	for (i = 0; i < MC_OP_NR; i++)
		if (ops & BIT(i))
			seq_printf(m, "%s%s", n++ ? "," : "", mc_op_names[i]);
	seq_puts(m, " errors=");
	for (i = 0; i < READ_ONCE(f->nerr) && i < MC_FAULT_MAX_ERRS; i++)
		for (j = 0; j < ARRAY_SIZE(mc_fault_errnos); j++)
			if (mc_fault_errnos[j].err == f->errs[i])
				seq_printf(m, "%s%s", i ? "," : "",
					   mc_fault_errnos[j].name);
	if (!READ_ONCE(f->nerr))
		seq_puts(m, "EIO");
	seq_printf(m, " probability=%u when=%s times=%d injected=%lld\n",
		   READ_ONCE(f->probability),
		   READ_ONCE(f->after) ? "after" : "before",
		   atomic_read(&f->times),
		   (long long)atomic64_read(&f->injected));
	return 0;
}

static int mc_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, mc_fault_show, inode->i_private);
}

const struct file_operations mc_fault_fops = {
	.owner		= THIS_MODULE,
	.open		= mc_fault_open,
	.read		= seq_read,
	.write		= mc_fault_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * mc_fault_init() - a new mount starts with injection off
 * @sbi: the mount
 */
void mc_fault_init(struct mc_sb_info *sbi)
{
	atomic_set(&sbi->fault.times, -1);
	sbi->fault.probability = 100;
}

/**
 * mc_fault_exit() - disarm a mount's injection at unmount
 * @sbi: the mount, whose debugfs files are gone (no writer is left)
 */
void mc_fault_exit(struct mc_sb_info *sbi)
{
	static const struct mc_fault off = { .probability = 100 };

	mutex_lock(&mc_fault_mutex);
	mc_fault_set(sbi, &off, -1);
	mutex_unlock(&mc_fault_mutex);
}
