// SPDX-License-Identifier: GPL-2.0
/*
 * gen_ops.c - the workloads of the I/O generator and the file system
 * calls they make.
 *
 * Every call goes through the VFS entry points a system call would use,
 * relative to a directory of the job's private mount: names are looked up with
 * lookup_one_len_unlocked() (a path walk's last step) or, for changes, with
 * lookup_one_len() under the parent's lock (I_MUTEX_PARENT, lock_rename() for
 * rename), as overlayfs and nfsd do; files are opened with
 * file_open_root()/dentry_open() and closed synchronously (->flush, then
 * __fput_sync(): a kernel thread's fput() would be deferred to a work item,
 * which would both hide the cost of the close and keep the mount busy after
 * the job).  Names are never followed out of the working directory: no symlink
 * is followed (O_NOFOLLOW, single-component lookups) and no name has a "/" or
 * "..".
 *
 * Names in the working directory ".mcbench-<id>":
 *	mdtest	d<n>/ (DIRS directories), d<i % DIRS>/f<i> (file i),
 *		r<i> after rename, m<i> (never created: the missing names)
 *	mixed	w<worker>.<seq>
 *	data	data<i>
 *
 * Each timed operation is bracketed by ktime_get_ns() and recorded in the
 * worker's own histogram (mc_gen_hist_record(): no lock, no allocation).
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/string.h>

#include "gen.h"

#define MC_GEN_NAME	32
#define MC_GEN_DIRBUF	16384	/* names collected per readdir pass */

/* File system calls */

static int mc_gen_close(struct file *f)
{
	int err = 0;

	if (f->f_op->flush)
		err = f->f_op->flush(f, NULL);
	__fput_sync(f);
	return err;
}

static struct file *mc_gen_open(const struct path *dir, const char *name,
				int flags, umode_t mode)
{
	return file_open_root(dir, name, flags | O_NOFOLLOW | O_LARGEFILE,
			      mode);
}

/* A name in @dir, referenced; -ENOENT if it does not exist. */
static int mc_gen_lookup(const struct path *dir, const char *name,
			 struct path *out)
{
	struct dentry *d;

	d = lookup_one_len_unlocked(name, dir->dentry, strlen(name));
	if (IS_ERR(d))
		return PTR_ERR(d);
	if (d_is_negative(d)) {
		dput(d);
		return -ENOENT;
	}
	out->mnt = mntget(dir->mnt);
	out->dentry = d;
	return 0;
}

/* stat(2) of a name in @dir: lookup (dcache, revalidation) + getattr. */
static int mc_gen_stat(const struct path *dir, const char *name)
{
	struct kstat st;
	struct path p;
	int err;

	err = mc_gen_lookup(dir, name, &p);
	if (err)
		return err;
	err = vfs_getattr(&p, &st, STATX_BASIC_STATS, AT_STATX_SYNC_AS_STAT);
	path_put(&p);
	return err;
}

/**
 * mc_gen_mkdir() - make a directory and return it
 * @parent: where
 * @name: its name (one component)
 * @out: the new directory, referenced
 *
 * Return: 0 or a negative errno (-EEXIST if the name exists).
 */
int mc_gen_mkdir(const struct path *parent, const char *name,
		 struct path *out)
{
	struct inode *dir = d_inode(parent->dentry);
	struct dentry *d;
	int err;

	err = mnt_want_write(parent->mnt);
	if (err)
		return err;
	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, parent->dentry, strlen(name));
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto unlock;
	}
	err = d_is_negative(d) ? vfs_mkdir(mnt_user_ns(parent->mnt), dir, d,
					   0755) : -EEXIST;
	/* some file systems leave the new dentry unhashed or negative */
	if (!err && (d_unhashed(d) || d_is_negative(d))) {
		dput(d);
		d = lookup_one_len(name, parent->dentry, strlen(name));
		if (IS_ERR(d)) {
			err = PTR_ERR(d);
			goto unlock;
		}
		if (!d_is_dir(d))
			err = -ENOENT;
	}
	if (err) {
		dput(d);
		goto unlock;
	}
	out->mnt = mntget(parent->mnt);
	out->dentry = d;
unlock:
	inode_unlock(dir);
	mnt_drop_write(parent->mnt);
	return err;
}

/* unlink (dir false) or rmdir (dir true) of @name in @parent. */
static int mc_gen_remove(const struct path *parent, const char *name,
			 bool isdir)
{
	struct inode *dir = d_inode(parent->dentry);
	struct inode *deleg = NULL;
	struct dentry *d;
	int err;

	err = mnt_want_write(parent->mnt);
	if (err)
		return err;
retry:
	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(name, parent->dentry, strlen(name));
	err = PTR_ERR_OR_ZERO(d);
	if (!err) {
		if (d_is_negative(d))
			err = -ENOENT;
		else if (isdir)
			err = vfs_rmdir(mnt_user_ns(parent->mnt), dir, d);
		else if (d_is_dir(d))
			err = -EISDIR;
		else
			err = vfs_unlink(mnt_user_ns(parent->mnt), dir, d,
					 &deleg);
		dput(d);
	}
	inode_unlock(dir);
	if (deleg) {
		err = break_deleg_wait(&deleg);
		if (!err)
			goto retry;
	}
	mnt_drop_write(parent->mnt);
	return err;
}

static int mc_gen_rename(const struct path *parent, const char *from,
			 const char *to)
{
	struct dentry *dir = parent->dentry;
	struct inode *deleg = NULL;
	struct renamedata rd = {};
	struct dentry *o, *n;
	int err;

	err = mnt_want_write(parent->mnt);
	if (err)
		return err;
retry:
	lock_rename(dir, dir);
	o = lookup_one_len(from, dir, strlen(from));
	err = PTR_ERR_OR_ZERO(o);
	if (err)
		goto unlock;
	n = lookup_one_len(to, dir, strlen(to));
	err = PTR_ERR_OR_ZERO(n);
	if (err)
		goto put_old;
	if (d_is_negative(o))
		err = -ENOENT;
	else if (d_is_positive(n))
		err = -EEXIST;
	if (!err) {
		rd.old_mnt_userns = mnt_user_ns(parent->mnt);
		rd.old_dir = d_inode(dir);
		rd.old_dentry = o;
		rd.new_mnt_userns = mnt_user_ns(parent->mnt);
		rd.new_dir = d_inode(dir);
		rd.new_dentry = n;
		rd.delegated_inode = &deleg;
		err = vfs_rename(&rd);
	}
	dput(n);
put_old:
	dput(o);
unlock:
	unlock_rename(dir, dir);
	if (deleg) {
		err = break_deleg_wait(&deleg);
		if (!err)
			goto retry;
	}
	mnt_drop_write(parent->mnt);
	return err;
}

/* Directory listing: names into a buffer, "\0"-separated. */
struct mc_gen_names {
	struct dir_context ctx;
	char *buf;
	size_t size, len;
	unsigned int n;
};

static bool mc_gen_filldir(struct dir_context *ctx, const char *name,
			   int len, loff_t off, u64 ino, unsigned int type)
{
	struct mc_gen_names *nm = container_of(ctx, struct mc_gen_names, ctx);

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (nm->len + len + 1 > nm->size)
		return false;	/* full: the next pass goes on from here */
	memcpy(nm->buf + nm->len, name, len);
	nm->buf[nm->len + len] = '\0';
	nm->len += len + 1;
	nm->n++;
	return true;
}

/*
 * One pass over an open directory: names into @nm (until it is full or
 * the directory ends).  Return: names found (0 at the end) or -errno.
 */
static int mc_gen_readdir_pass(struct file *f, struct mc_gen_names *nm)
{
	int err;

	nm->len = 0;
	nm->n = 0;
	nm->ctx.actor = mc_gen_filldir;
	err = iterate_dir(f, &nm->ctx);
	if (err)
		return err;
	return nm->n;
}

static int mc_gen_rm_tree(const struct path *parent, const char *name,
			  int depth, char *buf);

/*
 * rmdir, retrying ENOTEMPTY for up to MC_GEN_RMDIR_WAIT ms: a file
 * unlinked while a handle on it is open stays in its directory until the
 * handle is closed (an SMB delete-pending file, an nfs ".nfsXXXX"
 * silly-rename), and a client may keep a handle open for a while after
 * the last close (deferred close: cifs, and metacache's handle cache,
 * close_ttl).
 */
#define MC_GEN_RMDIR_WAIT	10000
#define MC_GEN_RMDIR_STEP	50

static int mc_gen_rmdir_wait(const struct path *parent, const char *name)
{
	unsigned int waited = 0;
	int err;

	for (;;) {
		err = mc_gen_remove(parent, name, true);
		if (err != -ENOTEMPTY || waited >= MC_GEN_RMDIR_WAIT ||
		    kthread_should_stop())
			return err;
		msleep(MC_GEN_RMDIR_STEP);
		waited += MC_GEN_RMDIR_STEP;
	}
}

/* Remove what a directory holds, @depth levels down at most. */
static int mc_gen_rm_contents(const struct path *dir, int depth, char *buf)
{
	struct mc_gen_names nm = { .buf = buf, .size = MC_GEN_DIRBUF };
	unsigned int removed;
	struct file *f;
	char *p;
	int n, err;

	for (;;) {
		f = dentry_open(dir, O_RDONLY | O_DIRECTORY, current_cred());
		if (IS_ERR(f))
			return PTR_ERR(f);
		n = mc_gen_readdir_pass(f, &nm);
		mc_gen_close(f);
		if (n <= 0)
			return n;
		removed = 0;
		for (p = buf; p < buf + nm.len; p += strlen(p) + 1) {
			struct path c;

			err = mc_gen_lookup(dir, p, &c);
			if (err == -ENOENT)
				continue;
			if (!err) {
				bool isdir = d_is_dir(c.dentry);

				path_put(&c);
				if (isdir && depth > 0) {
					/* @buf is reused: list again after */
					char *sub = kmalloc(MC_GEN_DIRBUF,
							    GFP_KERNEL);

					err = -ENOMEM;
					if (sub) {
						err = mc_gen_rm_tree(dir, p,
								     depth - 1,
								     sub);
						kfree(sub);
					}
				} else {
					err = mc_gen_remove(dir, p, isdir);
				}
			}
			/*
			 * EBUSY: an nfs "silly-renamed" file (.nfsXXXX), still
			 * open somewhere; it goes when closed: rmdir waits.
			 */
			if (err && err != -ENOENT && err != -EBUSY)
				return err;
			removed += !err;
		}
		if (!removed)	/* only stale names listed: let rmdir judge */
			return 0;
	}
}

/* rm -r of @name in @parent (a tree of depth @depth at most). */
static int mc_gen_rm_tree(const struct path *parent, const char *name,
			  int depth, char *buf)
{
	unsigned int tries = 0;
	struct path dir;
	int err;

	err = mc_gen_lookup(parent, name, &dir);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (!d_is_dir(dir.dentry)) {
		path_put(&dir);
		return mc_gen_remove(parent, name, false);
	}
	/* a name may show up late in a listing: list again on ENOTEMPTY */
	do {
		err = mc_gen_rm_contents(&dir, depth, buf);
		if (!err)
			err = mc_gen_rmdir_wait(parent, name);
	} while (err == -ENOTEMPTY && ++tries < 3);
	path_put(&dir);
	return err;
}

/**
 * mc_gen_rm_workdir() - remove the job's working tree
 * @job: the job, its run over
 *
 * Only names inside the working directory are removed, and no symlink is
 * followed.
 *
 * Return: 0 or a negative errno.
 */
int mc_gen_rm_workdir(struct mc_gen_job *job)
{
	char *buf = kmalloc(MC_GEN_DIRBUF, GFP_KERNEL);
	int err;

	if (!buf)
		return -ENOMEM;
	err = mc_gen_rm_tree(&job->base, job->workdir, 2, buf);
	kfree(buf);
	return err;
}

/* The workers' work */

static u64 mc_gen_rand(struct mc_gen_worker *w)
{
	u64 x = w->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	w->rng = x;
	return x;
}

static bool mc_gen_stopping(struct mc_gen_worker *w)
{
	return READ_ONCE(w->job->phase_stop) || kthread_should_stop();
}

static void mc_gen_done(struct mc_gen_worker *w, u32 op, u64 t0)
{
	u64 ns = ktime_get_ns() - t0;

	mc_gen_hist_record(&w->hist[op], ns);
	WRITE_ONCE(w->ops[op], w->ops[op] + 1);
}

static int mc_gen_err(struct mc_gen_worker *w, u32 op, int err)
{
	w->err_op = op;
	return err;
}

/* The directories [*lo, *hi) of worker @w in mdtest. */
static void mc_gen_my_dirs(struct mc_gen_worker *w, u32 *lo, u32 *hi)
{
	const struct mc_gen_params *p = &w->job->p;

	*lo = div_u64((u64)p->dirs * w->idx, p->threads);
	*hi = div_u64((u64)p->dirs * (w->idx + 1), p->threads);
}

static const struct path *mc_gen_dir_of(struct mc_gen_worker *w, u32 i)
{
	return &w->job->dirs[i % w->job->p.dirs];
}

static void mc_gen_fname(struct mc_gen_worker *w, char *name, u32 i)
{
	snprintf(name, MC_GEN_NAME, "%c%u", i - w->lo < w->renamed ? 'r' : 'f',
		 i);
}

static int mc_gen_md_tree_create(struct mc_gen_worker *w)
{
	u32 d, lo, hi;
	char name[MC_GEN_NAME];
	int err;
	u64 t0;

	mc_gen_my_dirs(w, &lo, &hi);
	for (d = lo; d < hi; d++) {
		/*
		 * Whole, whatever DURATION_MS and stonewalling say; but not
		 * for a job that ends (BENCH_STOP, unmount, an error): no
		 * later phase will use it.
		 */
		if (READ_ONCE(w->job->stop) || kthread_should_stop())
			break;
		snprintf(name, sizeof(name), "d%u", d);
		t0 = ktime_get_ns();
		err = mc_gen_mkdir(&w->job->work_dir, name, &w->job->dirs[d]);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_TREE_CREATE, err);
		mc_gen_done(w, METACACHE_BENCH_OP_TREE_CREATE, t0);
	}
	return 0;
}

static int mc_gen_md_tree_remove(struct mc_gen_worker *w)
{
	u32 d, lo, hi;
	char name[MC_GEN_NAME];
	int err;
	u64 t0;

	mc_gen_my_dirs(w, &lo, &hi);
	for (d = lo; d < hi; d++) {
		snprintf(name, sizeof(name), "d%u", d);
		t0 = ktime_get_ns();
		/* the wait for delete-pending files is part of the latency */
		err = mc_gen_rmdir_wait(&w->job->work_dir, name);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_TREE_REMOVE, err);
		mc_gen_done(w, METACACHE_BENCH_OP_TREE_REMOVE, t0);
	}
	return 0;
}

static int mc_gen_md_create(struct mc_gen_worker *w)
{
	char name[MC_GEN_NAME];
	struct file *f;
	u32 i;
	u64 t0;
	int err;

	w->done = 0;
	w->renamed = 0;
	for (i = w->lo; i < w->hi && !mc_gen_stopping(w); i++) {
		mc_gen_fname(w, name, i);
		t0 = ktime_get_ns();
		f = mc_gen_open(mc_gen_dir_of(w, i), name,
				O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (IS_ERR(f))
			return mc_gen_err(w, METACACHE_BENCH_OP_CREATE,
					  PTR_ERR(f));
		err = mc_gen_close(f);
		w->done++;
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_CREATE, err);
		mc_gen_done(w, METACACHE_BENCH_OP_CREATE, t0);
	}
	return 0;
}

static int mc_gen_md_stat(struct mc_gen_worker *w)
{
	char name[MC_GEN_NAME];
	u32 i;
	u64 t0;
	int err;

	for (i = w->lo; i < w->lo + w->done && !mc_gen_stopping(w); i++) {
		mc_gen_fname(w, name, i);
		t0 = ktime_get_ns();
		err = mc_gen_stat(mc_gen_dir_of(w, i), name);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_STAT, err);
		mc_gen_done(w, METACACHE_BENCH_OP_STAT, t0);
	}
	return 0;
}

static int mc_gen_md_open(struct mc_gen_worker *w)
{
	char name[MC_GEN_NAME];
	struct file *f;
	u32 i;
	u64 t0;
	int err;

	for (i = w->lo; i < w->lo + w->done && !mc_gen_stopping(w); i++) {
		mc_gen_fname(w, name, i);
		t0 = ktime_get_ns();
		f = mc_gen_open(mc_gen_dir_of(w, i), name, O_RDONLY, 0);
		if (IS_ERR(f))
			return mc_gen_err(w, METACACHE_BENCH_OP_OPEN,
					  PTR_ERR(f));
		err = mc_gen_close(f);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_OPEN, err);
		mc_gen_done(w, METACACHE_BENCH_OP_OPEN, t0);
	}
	return 0;
}

static int mc_gen_md_missing(struct mc_gen_worker *w)
{
	char name[MC_GEN_NAME];
	u32 i;
	u64 t0;
	int err;

	for (i = w->lo; i < w->lo + w->done && !mc_gen_stopping(w); i++) {
		snprintf(name, sizeof(name), "m%u", i);
		t0 = ktime_get_ns();
		err = mc_gen_stat(mc_gen_dir_of(w, i), name);
		if (err != -ENOENT)
			return mc_gen_err(w, METACACHE_BENCH_OP_STAT_MISSING,
					  err ?: -EEXIST);
		mc_gen_done(w, METACACHE_BENCH_OP_STAT_MISSING, t0);
	}
	return 0;
}

/* List each of the worker's directories and stat every entry. */
static int mc_gen_md_readdir(struct mc_gen_worker *w)
{
	struct mc_gen_names nm = { .buf = w->buf, .size = w->buf_size };
	const struct path *dir;
	struct file *f;
	u32 d, lo, hi;
	char *p;
	int n, err = 0;
	u64 t0;

	mc_gen_my_dirs(w, &lo, &hi);
	for (d = lo; d < hi && !mc_gen_stopping(w); d++) {
		dir = &w->job->dirs[d];
		t0 = ktime_get_ns();
		f = dentry_open(dir, O_RDONLY | O_DIRECTORY, current_cred());
		if (IS_ERR(f))
			return mc_gen_err(w, METACACHE_BENCH_OP_READDIR,
					  PTR_ERR(f));
		while ((n = mc_gen_readdir_pass(f, &nm)) > 0) {
			for (p = nm.buf; p < nm.buf + nm.len;
			     p += strlen(p) + 1) {
				err = mc_gen_stat(dir, p);
				if (err)
					break;
				w->entries++;
			}
			if (err)
				break;
		}
		if (n < 0)
			err = n;
		mc_gen_close(f);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_READDIR, err);
		mc_gen_done(w, METACACHE_BENCH_OP_READDIR, t0);
	}
	return 0;
}

static int mc_gen_md_rename(struct mc_gen_worker *w)
{
	char from[MC_GEN_NAME], to[MC_GEN_NAME];
	u32 i;
	u64 t0;
	int err;

	for (i = w->lo; i < w->lo + w->done && !mc_gen_stopping(w); i++) {
		snprintf(from, sizeof(from), "f%u", i);
		snprintf(to, sizeof(to), "r%u", i);
		t0 = ktime_get_ns();
		err = mc_gen_rename(mc_gen_dir_of(w, i), from, to);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_RENAME, err);
		w->renamed++;
		mc_gen_done(w, METACACHE_BENCH_OP_RENAME, t0);
	}
	return 0;
}

/* Measured until the phase ends; the rest is removed, not measured. */
static int mc_gen_md_unlink(struct mc_gen_worker *w)
{
	char name[MC_GEN_NAME];
	u32 i;
	u64 t0;
	int err;

	for (i = w->lo; i < w->lo + w->done; i++) {
		bool timed = !mc_gen_stopping(w);

		if (READ_ONCE(w->job->stop))
			break;		/* the cleanup removes the rest */
		mc_gen_fname(w, name, i);
		t0 = ktime_get_ns();
		err = mc_gen_remove(mc_gen_dir_of(w, i), name, false);
		if (err)
			return mc_gen_err(w, METACACHE_BENCH_OP_UNLINK, err);
		if (timed)
			mc_gen_done(w, METACACHE_BENCH_OP_UNLINK, t0);
	}
	return 0;
}

static int mc_gen_run_mdtest(struct mc_gen_job *job)
{
	static const struct {
		u32 op;
		int (*fn)(struct mc_gen_worker *w);
	} phases[] = {
		{ METACACHE_BENCH_OP_TREE_CREATE, mc_gen_md_tree_create },
		{ METACACHE_BENCH_OP_CREATE, mc_gen_md_create },
		{ METACACHE_BENCH_OP_STAT, mc_gen_md_stat },
		{ METACACHE_BENCH_OP_OPEN, mc_gen_md_open },
		{ METACACHE_BENCH_OP_STAT_MISSING, mc_gen_md_missing },
		{ METACACHE_BENCH_OP_READDIR, mc_gen_md_readdir },
		{ METACACHE_BENCH_OP_RENAME, mc_gen_md_rename },
		{ METACACHE_BENCH_OP_UNLINK, mc_gen_md_unlink },
		{ METACACHE_BENCH_OP_TREE_REMOVE, mc_gen_md_tree_remove },
	};
	bool sw = job->p.flags & METACACHE_BENCH_F_STONEWALL;
	unsigned int i;
	int err = 0;
	u32 d;

	for (i = 0; i < ARRAY_SIZE(phases) && !err; i++) {
		u32 op = phases[i].op;
		/* the tree is needed whole: no stonewall to make or remove it */
		bool wall = sw && op != METACACHE_BENCH_OP_TREE_CREATE &&
			    op != METACACHE_BENCH_OP_TREE_REMOVE;

		err = mc_gen_run_phase(job, op, BIT(op), wall, phases[i].fn);
		if (READ_ONCE(job->stop))
			break;
	}
	/* the directories' references; a run that ended early leaves some */
	for (d = 0; d < job->p.dirs; d++) {
		path_put(&job->dirs[d]);
		job->dirs[d].mnt = NULL;
		job->dirs[d].dentry = NULL;
	}
	return err;
}

/* Mixed metadata */

static void mc_gen_mname(struct mc_gen_worker *w, char *name, u64 seq)
{
	snprintf(name, MC_GEN_NAME, "w%u.%llu", w->idx, seq);
}

static int mc_gen_mix_create(struct mc_gen_worker *w, u32 op)
{
	char name[MC_GEN_NAME];
	struct file *f;

	mc_gen_mname(w, name, w->tail);
	f = mc_gen_open(&w->job->work_dir, name, O_CREAT | O_EXCL | O_WRONLY,
			0644);
	if (IS_ERR(f))
		return mc_gen_err(w, op, PTR_ERR(f));
	w->tail++;
	return mc_gen_close(f) ? mc_gen_err(w, op, -EIO) : 0;
}

static int mc_gen_mix_setup(struct mc_gen_worker *w)
{
	int err;

	w->head = 0;
	w->tail = 0;
	while (w->tail < w->hi - w->lo) {
		if (READ_ONCE(w->job->stop))
			return 0;
		err = mc_gen_mix_create(w, METACACHE_BENCH_OP_CREATE);
		if (err)
			return err;
	}
	return 0;
}

static int mc_gen_mix_run(struct mc_gen_worker *w)
{
	const u32 *mix = w->job->p.mix;
	char name[MC_GEN_NAME];
	struct file *f;
	u64 t0, n = 0, seq;
	u32 r, op;
	int err;

	while (!mc_gen_stopping(w) && (!w->job->p.ops || n < w->quota)) {
		r = (u32)(mc_gen_rand(w) >> 32) % 100;
		if (r < mix[0])
			op = METACACHE_BENCH_OP_STAT;
		else if (r < mix[0] + mix[1])
			op = METACACHE_BENCH_OP_OPEN;
		else if (r < mix[0] + mix[1] + mix[2])
			op = METACACHE_BENCH_OP_CREATE;
		else
			op = METACACHE_BENCH_OP_UNLINK;
		if (op == METACACHE_BENCH_OP_UNLINK && w->tail - w->head <= 1)
			op = METACACHE_BENCH_OP_CREATE;	/* keep one file */
		div64_u64_rem(mc_gen_rand(w), w->tail - w->head, &seq);
		seq += w->head;
		t0 = ktime_get_ns();
		switch (op) {
		case METACACHE_BENCH_OP_STAT:
			mc_gen_mname(w, name, seq);
			err = mc_gen_stat(&w->job->work_dir, name);
			break;
		case METACACHE_BENCH_OP_OPEN:
			mc_gen_mname(w, name, seq);
			f = mc_gen_open(&w->job->work_dir, name, O_RDONLY, 0);
			err = IS_ERR(f) ? PTR_ERR(f) : mc_gen_close(f);
			break;
		case METACACHE_BENCH_OP_CREATE:
			err = mc_gen_mix_create(w, op);
			break;
		default:
			mc_gen_mname(w, name, w->head);
			err = mc_gen_remove(&w->job->work_dir, name, false);
			if (!err)
				w->head++;
			break;
		}
		if (err)
			return mc_gen_err(w, op, err);
		mc_gen_done(w, op, t0);
		n++;
	}
	return 0;
}

/* Data */

static void mc_gen_dname(char *name, u32 i)
{
	snprintf(name, MC_GEN_NAME, "data%u", i);
}

/* Create and fill the worker's files [lo, hi). */
static int mc_gen_data_setup(struct mc_gen_worker *w)
{
	const struct mc_gen_params *p = &w->job->p;
	char name[MC_GEN_NAME];
	struct file *f;
	loff_t pos;
	ssize_t n;
	u32 i;
	int err;

	for (i = w->lo; i < w->hi; i++) {
		mc_gen_dname(name, i);
		f = mc_gen_open(&w->job->work_dir, name,
				O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (IS_ERR(f))
			return mc_gen_err(w, METACACHE_BENCH_OP_WRITE,
					  PTR_ERR(f));
		for (pos = 0, err = 0; pos < p->file_size && !err;) {
			size_t len = min_t(u64, p->io_size, p->file_size - pos);

			if (READ_ONCE(w->job->stop))
				break;
			n = kernel_write(f, w->buf, len, &pos);
			if (n < 0)
				err = n;
			else if (n != len)
				err = -EIO;
		}
		n = mc_gen_close(f);
		if (err || n)
			return mc_gen_err(w, METACACHE_BENCH_OP_WRITE,
					  err ?: (int)n);
	}
	return 0;
}

static void mc_gen_data_close(struct mc_gen_worker *w)
{
	u32 i;

	for (i = 0; i < w->job->p.files; i++) {
		if (w->files[i])
			mc_gen_close(w->files[i]);
		w->files[i] = NULL;
	}
}

static int mc_gen_data_run(struct mc_gen_worker *w)
{
	const struct mc_gen_params *p = &w->job->p;
	u64 blocks = div_u64(p->file_size, p->io_size);
	bool seq = p->workload != METACACHE_BENCH_WL_RANDRW;
	char name[MC_GEN_NAME];
	u64 t0, n = 0, blk;
	u32 i, fi = w->idx % p->files;
	loff_t pos = 0, off;
	ssize_t got;
	u32 op;
	int err = 0;

	for (i = 0; i < p->files; i++) {
		mc_gen_dname(name, i);
		w->files[i] = mc_gen_open(&w->job->work_dir, name, O_RDWR, 0);
		if (IS_ERR(w->files[i])) {
			err = PTR_ERR(w->files[i]);
			w->files[i] = NULL;
			mc_gen_data_close(w);
			return mc_gen_err(w, METACACHE_BENCH_OP_OPEN, err);
		}
	}
	while (!mc_gen_stopping(w) && (!p->ops || n < w->quota)) {
		if (seq) {
			if (pos + p->io_size > p->file_size) {
				fi = (fi + 1) % p->files;
				pos = 0;
			}
			off = pos;
			pos += p->io_size;
			op = p->workload == METACACHE_BENCH_WL_SEQREAD ?
			     METACACHE_BENCH_OP_READ : METACACHE_BENCH_OP_WRITE;
		} else {
			u64 r = mc_gen_rand(w);

			fi = (u32)(r >> 40) % p->files;
			div64_u64_rem(r & GENMASK_ULL(39, 0), blocks, &blk);
			off = (loff_t)blk * p->io_size;
			op = (u32)(r >> 8 & 0xffff) % 100 < p->read_pct ?
			     METACACHE_BENCH_OP_READ : METACACHE_BENCH_OP_WRITE;
		}
		t0 = ktime_get_ns();
		if (op == METACACHE_BENCH_OP_READ)
			got = kernel_read(w->files[fi], w->buf, p->io_size, &off);
		else
			got = kernel_write(w->files[fi], w->buf, p->io_size,
					   &off);
		if (got != p->io_size) {
			err = got < 0 ? (int)got : -EIO;
			err = mc_gen_err(w, op, err);
			break;
		}
		mc_gen_done(w, op, t0);
		w->bytes[op] += p->io_size;
		n++;
	}
	mc_gen_data_close(w);
	return err;
}

/* Setup and teardown of a job (control work) */

/**
 * mc_gen_setup() - workers, buffers, and the file set of the workload
 * @job: the job, its working directory made
 *
 * Return: 0 or a negative errno.
 */
int mc_gen_setup(struct mc_gen_job *job)
{
	const struct mc_gen_params *p = &job->p;
	struct mc_gen_worker *w;
	unsigned int i;
	int err;

	w = kvcalloc(p->threads, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mutex_lock(&job->lock);
	job->w = w;
	job->nr_w = p->threads;
	mutex_unlock(&job->lock);
	if (p->workload == METACACHE_BENCH_WL_MDTEST) {
		job->dirs = kvcalloc(p->dirs, sizeof(*job->dirs), GFP_KERNEL);
		if (!job->dirs)
			return -ENOMEM;
	}
	for (i = 0; i < p->threads; i++) {
		w = &job->w[i];
		w->job = job;
		w->idx = i;
		w->rng = ((u64)job->id << 32 | (i + 1)) * 0x9E3779B97F4A7C15ULL;
		w->lo = div_u64((u64)p->files * i, p->threads);
		w->hi = div_u64((u64)p->files * (i + 1), p->threads);
		if (p->ops)
			w->quota = div_u64(p->ops * (i + 1), p->threads) -
				   div_u64(p->ops * i, p->threads);
		w->hist = kvmalloc_array(MC_GEN_NOPS, sizeof(*w->hist),
					 GFP_KERNEL);
		w->buf_size = p->workload >= METACACHE_BENCH_WL_RANDRW ?
			      p->io_size : MC_GEN_DIRBUF;
		w->buf = kvzalloc(w->buf_size, GFP_KERNEL);
		if (!w->hist || !w->buf)
			return -ENOMEM;
		if (p->workload >= METACACHE_BENCH_WL_RANDRW) {
			w->files = kvcalloc(p->files, sizeof(*w->files),
					    GFP_KERNEL);
			if (!w->files)
				return -ENOMEM;
			memset(w->buf, 0x5a, w->buf_size);
		}
		mc_gen_worker_reset(w);
	}
	switch (p->workload) {
	case METACACHE_BENCH_WL_MIXED:
		err = mc_gen_run_phase(job, METACACHE_BENCH_OP_CREATE, 0, false,
				       mc_gen_mix_setup);
		break;
	case METACACHE_BENCH_WL_RANDRW:
	case METACACHE_BENCH_WL_SEQREAD:
	case METACACHE_BENCH_WL_SEQWRITE:
		/* the file set is written by the workers that own it */
		err = mc_gen_run_phase(job, METACACHE_BENCH_OP_WRITE, 0, false,
				       mc_gen_data_setup);
		break;
	default:
		err = 0;
	}
	return err;
}

/**
 * mc_gen_run() - one run of the workload (the warm-up or the measured one)
 * @job: the job, set up
 *
 * Return: 0 or a negative errno (failures of the workers are recorded in
 * the job by the workers themselves).
 */
int mc_gen_run(struct mc_gen_job *job)
{
	switch (job->p.workload) {
	case METACACHE_BENCH_WL_MDTEST:
		return mc_gen_run_mdtest(job);
	case METACACHE_BENCH_WL_MIXED:
		return mc_gen_run_phase(job, METACACHE_BENCH_OP_ALL,
					BIT(METACACHE_BENCH_OP_STAT) |
					BIT(METACACHE_BENCH_OP_OPEN) |
					BIT(METACACHE_BENCH_OP_CREATE) |
					BIT(METACACHE_BENCH_OP_UNLINK) |
					BIT(METACACHE_BENCH_OP_ALL),
					false, mc_gen_mix_run);
	case METACACHE_BENCH_WL_RANDRW:
		return mc_gen_run_phase(job, METACACHE_BENCH_OP_ALL,
					BIT(METACACHE_BENCH_OP_READ) |
					BIT(METACACHE_BENCH_OP_WRITE) |
					BIT(METACACHE_BENCH_OP_ALL),
					false, mc_gen_data_run);
	case METACACHE_BENCH_WL_SEQREAD:
		return mc_gen_run_phase(job, METACACHE_BENCH_OP_READ,
					BIT(METACACHE_BENCH_OP_READ), false,
					mc_gen_data_run);
	default:
		return mc_gen_run_phase(job, METACACHE_BENCH_OP_WRITE,
					BIT(METACACHE_BENCH_OP_WRITE), false,
					mc_gen_data_run);
	}
}

/**
 * mc_gen_teardown() - free the workers (their threads are gone)
 * @job: the job
 */
void mc_gen_teardown(struct mc_gen_job *job)
{
	struct mc_gen_worker *w = job->w;
	unsigned int i;

	mutex_lock(&job->lock);
	job->w = NULL;
	mutex_unlock(&job->lock);
	if (job->dirs) {
		for (i = 0; i < job->p.dirs; i++)
			path_put(&job->dirs[i]);
		kvfree(job->dirs);
		job->dirs = NULL;
	}
	if (!w)
		return;
	for (i = 0; i < job->nr_w; i++) {
		kvfree(w[i].files);
		kvfree(w[i].buf);
		kvfree(w[i].hist);
	}
	kvfree(w);
}
