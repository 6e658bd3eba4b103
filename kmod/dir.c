// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c - directory file operations and the directory listing cache.
 *
 * Without a cached listing an open upper directory reads its open lower
 * directory straight into the caller's dir_context, so names, d_type and
 * d_ino are the lower's (d_ino matches what stat reports), and the
 * directory position is the lower's: NFS cookies, cifs offsets.  The upper
 * f_pos is kept equal to the lower one, which makes telldir/seekdir work on
 * large directories.
 *
 * Listing cache (dir_ttl).  A readdir at position 0 (the first one of an
 * open directory, or after rewinddir) takes the directory's cached listing
 * if it is fresh; otherwise it reads the whole lower directory, from a
 * lower file that was never read, into a new listing (struct mc_dirsnap:
 * name, d_ino and d_type of every entry, "." and ".." included, in the
 * lower's order), installs it as the directory's cached one for dir_ttl,
 * and primes the entry and attribute caches from what the lower already
 * knows (mc_dir_prime()).  The open file keeps its listing until the next
 * readdir at position 0: a position is an index into it, stable for the
 * file's life, so telldir/seekdir/rewinddir work on large directories, and
 * entries added or removed meanwhile do not shift it.  Every local change
 * of the directory's entries drops the cached listing (mc_dir_changed()),
 * so a rewinddir or a new open shows it.  The installed listing also
 * answers lookups of names it does not have (mc_dir_lacks(), below).
 *
 * A directory opened while its listing is fresh is not opened on the lower
 * at all: nothing but readdir needs the lower file, and anything else that
 * does (a passthrough readdir, fsync, locks, ioctl, a seek the listing
 * cannot answer) opens it then, with the opener's credentials
 * (mc_file_lower_get()).
 *
 * Not cached: anything on a lower that lists each user his own names
 * (cifs multiuser: mc_sb_info::per_user_views); a removed directory (read
 * below as the lower shows it); a listing larger than MC_DIRSNAP_MAX
 * entries or half of max_entries (then not tried again for dir_ttl); a
 * listing the lower could not give whole;
 * a listing with a name that may vanish without a call through us (a file
 * unlinked while in use, which SMB lists as "delete pending" and NFS as
 * .nfsXXXX until its last close: struct mc_vanish), which would outlive
 * the name by up to dir_ttl.  Such a listing serves the file that read
 * it, is not primed from, and the next one is read from the lower.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/nfs_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "metacache.h"

/* The largest listing cached, in entries. */
#define MC_DIRSNAP_MAX		65536

#define MC_DCHUNK_DATA		(PAGE_SIZE - offsetof(struct mc_dchunk, data))

static void mc_dirsnap_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct mc_dirsnap, rcu));
}

static void mc_dirsnap_release(struct kref *ref)
{
	struct mc_dirsnap *snap = container_of(ref, struct mc_dirsnap, ref);
	struct mc_dchunk *c, *next;

	for (c = snap->chunks; c; c = next) {
		next = c->next;
		kfree(c);
	}
	kvfree(snap->ents);
	kvfree(snap->hidx);
	/* mc_dirsnap_get() may still be looking at it under RCU. */
	call_rcu(&snap->rcu, mc_dirsnap_free_rcu);
}

/**
 * mc_dirsnap_put() - drop a reference to a listing
 * @snap: the listing
 *
 * Context: process context, may sleep (kvfree).
 */
void mc_dirsnap_put(struct mc_dirsnap *snap)
{
	kref_put(&snap->ref, mc_dirsnap_release);
}

/* Reading the lower directory into a new listing */

struct mc_collect {
	struct dir_context ctx;
	struct mc_dirsnap *snap;
	struct mc_dchunk *tail;
	u32 max;
	u32 emitted;		/* entries the lower gave in this call */
	bool toobig;
	bool nomem;
};

static bool mc_collect_actor(struct dir_context *ctx, const char *name,
			     int len, loff_t offset, u64 ino,
			     unsigned int type)
{
	struct mc_collect *c = container_of(ctx, struct mc_collect, ctx);
	struct mc_dirsnap *snap = c->snap;
	size_t need = ALIGN(sizeof(struct mc_dirent) + len, 8);
	struct mc_dirent *e;

	c->emitted++;
	if (snap->nr >= c->max || need > MC_DCHUNK_DATA || len > U16_MAX) {
		c->toobig = true;
		return false;
	}
	if (!c->tail || c->tail->used + need > MC_DCHUNK_DATA) {
		struct mc_dchunk *chunk = kmalloc(PAGE_SIZE,
						  GFP_KERNEL | __GFP_NOWARN);

		if (!chunk) {
			c->nomem = true;
			return false;
		}
		chunk->next = NULL;
		chunk->used = 0;
		if (c->tail)
			c->tail->next = chunk;
		else
			snap->chunks = chunk;
		c->tail = chunk;
		snap->bytes += PAGE_SIZE;
	}
	e = (struct mc_dirent *)(c->tail->data + c->tail->used);
	e->ino = ino;
	e->len = len;
	e->type = type;
	memcpy(e->name, name, len);
	c->tail->used += need;
	snap->nr++;
	return true;
}

/*
 * Proving a name absent from a listing (mc_dir_lacks())
 *
 * A directory's fresh listing holds every name the lower listed, so a name
 * that is not in it can be answered "no such file" without asking the
 * lower, as rclone's and the kernel's own directory caches of other file
 * systems do.  Only where a listing shows every name a lookup can find:
 *
 * - names compared byte for byte (NFS, local file systems).  A lower
 *   whose dentries hash or compare names their own way (cifs "nocase",
 *   vfat, casefolding), NFS exports that say they ignore case, and FUSE
 *   (its server may do anything) are never answered from a listing;
 * - SMB servers ignore case (Samba does too, for a client without the
 *   POSIX extensions), and Windows also answers 8.3 short names, stream
 *   names and names with trailing dots or spaces, none of them listed.
 *   There, a name is only proved absent if it is plain ASCII without
 *   those (mc_name_plain()), compared ignoring ASCII case, in a listing
 *   of ASCII names only (an SMB server folds other letters too: a listed
 *   "\u0131" may be found as "I");
 * - snapshot directories that servers answer in every directory but do
 *   not list (NetApp and Isilon ".snapshot", ZFS ".zfs", CephFS ".snap",
 *   SMB "@GMT-..." tokens and "~snapshot") are always asked for.  A
 *   server with another hidden name is covered by a policy rule that
 *   turns the negative or the listing cache off for its directories
 *   (Documentation/coherence.md).
 */

/* How the lower directory @d compares names (enum mc_names). */
static u8 mc_names_of(const struct dentry *d)
{
	const struct super_block *sb = d->d_sb;

	if (d->d_flags & (DCACHE_OP_HASH | DCACHE_OP_COMPARE))
		return MC_NAMES_NONE;
	switch (sb->s_magic) {
	case NFS_SUPER_MAGIC:
		return NFS_SB(sb)->caps & NFS_CAP_CASE_INSENSITIVE ?
		       MC_NAMES_NONE : MC_NAMES_EXACT;
	case CIFS_SUPER_MAGIC:
	case SMB2_SUPER_MAGIC:
		return MC_NAMES_ASCII_CI;
	case FUSE_SUPER_MAGIC:
		return MC_NAMES_NONE;
	}
	return MC_NAMES_EXACT;
}

/**
 * mc_lower_folds_names() - may the lower find a name by another spelling?
 * @root: the lower root directory
 *
 * Whatever mc_names_of() cannot prove exact, and a file system with
 * casefolded directories (ext4, f2fs), whose root may not be one.
 * Return: true if so (mc_sb_info::names_fold).
 */
bool mc_lower_folds_names(const struct dentry *root)
{
#if IS_ENABLED(CONFIG_UNICODE)
	if (root->d_sb->s_encoding)
		return true;
#endif
	return mc_names_of(root) != MC_NAMES_EXACT;
}

/* FNV-1a of a name, ignoring ASCII case if @ci. */
static u32 mc_name_hash(const char *name, u32 len, bool ci)
{
	u32 h = 0x811c9dc5;

	while (len--) {
		u8 c = *name++;

		if (ci && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		h = (h ^ c) * 0x01000193;
	}
	return h;
}

/* A name an SMB server answers only as listed (see above). */
static bool mc_name_plain(const unsigned char *name, u32 len)
{
	u32 i;

	if (!len || name[len - 1] == '.' || name[len - 1] == ' ')
		return false;
	for (i = 0; i < len; i++)
		if (name[i] < 0x20 || name[i] > 0x7e ||
		    strchr("\\:*?\"<>|~", name[i]))
			return false;
	return true;
}

/* A name servers answer in directories that do not list it (see above). */
static bool mc_name_unlisted(const struct qstr *q)
{
	static const char * const hidden[] = {
		".snapshot", ".snapshots", ".zfs", ".snap", "~snapshot",
	};
	u32 i;

	if (q->len >= 5 && !memcmp(q->name, "@GMT-", 5))
		return true;
	for (i = 0; i < ARRAY_SIZE(hidden); i++)
		if (q->len == strlen(hidden[i]) &&
		    !memcmp(q->name, hidden[i], q->len))
			return true;
	return false;
}

/*
 * Hash the names of @snap for mc_dirsnap_has(), if @names allows proving
 * one absent.  Return: 0, or -ENOMEM.
 */
static int mc_dirsnap_hash(struct mc_dirsnap *snap, u8 names)
{
	bool ci = names == MC_NAMES_ASCII_CI;
	u32 i, size;

	if (names == MC_NAMES_NONE)
		return 0;
	if (ci) {
		for (i = 0; i < snap->nr; i++) {
			const struct mc_dirent *e = snap->ents[i];
			u32 j;

			for (j = 0; j < e->len; j++)
				if ((u8)e->name[j] > 0x7e)
					return 0;
		}
	}
	/* At most half full: short probe sequences. */
	size = roundup_pow_of_two(max_t(u32, 2 * snap->nr, 4));
	snap->hidx = kvcalloc(size, sizeof(*snap->hidx), GFP_KERNEL);
	if (!snap->hidx)
		return -ENOMEM;
	snap->hmask = size - 1;
	snap->names = names;
	snap->bytes += size * sizeof(*snap->hidx);
	for (i = 0; i < snap->nr; i++) {
		const struct mc_dirent *e = snap->ents[i];
		u32 h = mc_name_hash(e->name, e->len, ci) & snap->hmask;

		while (snap->hidx[h])
			h = (h + 1) & snap->hmask;
		snap->hidx[h] = i + 1;
	}
	return 0;
}

/* Is @q one of the names of @snap (which has its hash, snap->hidx)? */
static bool mc_dirsnap_has(const struct mc_dirsnap *snap,
			   const struct qstr *q)
{
	bool ci = snap->names == MC_NAMES_ASCII_CI;
	u32 h = mc_name_hash(q->name, q->len, ci) & snap->hmask;
	u32 v;

	while ((v = snap->hidx[h])) {
		const struct mc_dirent *e = snap->ents[v - 1];

		if (e->len == q->len &&
		    (ci ? !strncasecmp(e->name, q->name, q->len) :
			  !memcmp(e->name, q->name, q->len)))
			return true;
		h = (h + 1) & snap->hmask;
	}
	return false;
}

/**
 * mc_dir_lacks() - does the parent's fresh listing prove a name absent?
 * @dentry: the name being looked up (its parent's i_rwsem held)
 * @until: set, when it does, to the jiffies_64 until which that holds: the
 *	   listing's own deadline, and neg_ttl from when the listing was
 *	   read (a negative entry is never trusted for longer than neg_ttl
 *	   after the lower last said so, whatever it was learned from)
 *
 * See "Proving a name absent" above.  Every change of the directory's
 * names through us drops its listing first (mc_dir_changed()), under the
 * directory's i_rwsem held exclusively, so a listing seen here is at
 * least as new as the last such change.  A name the lower dcache holds
 * positive (created or found on the lower mount since) is asked for, as
 * the other caches notice what the lower client knows.
 *
 * Return: true if the name can be answered as missing without the lower.
 */
bool mc_dir_lacks(struct dentry *dentry, u64 *until)
{
	struct mc_sb_info *sbi = MC_SB(dentry->d_sb);
	const struct qstr *q = &dentry->d_name;
	struct mc_dirsnap *snap;
	bool lacks = false;
	u64 limit;
	u32 ttl;

	ttl = mc_ttl(sbi, dentry, MC_CACHE_NEG);
	if (!ttl || mc_name_unlisted(q))
		return false;
	snap = mc_dirsnap_get(dentry->d_parent);
	if (!snap)
		return false;
	limit = snap->born + (u64)ttl * HZ;
	if (snap->hidx && time_before64(get_jiffies_64(), limit) &&
	    (snap->names != MC_NAMES_ASCII_CI || mc_name_plain(q->name, q->len)) &&
	    !mc_dirsnap_has(snap, q)) {
		*until = min(snap->deadline, limit);
		lacks = true;
	}
	mc_dirsnap_put(snap);
	if (lacks) {
		struct qstr lname = QSTR_INIT(q->name, q->len);
		struct dentry *lower;

		lower = d_hash_and_lookup(mc_dentry_lower(dentry->d_parent),
					  &lname);
		if (IS_ERR(lower))
			return false;
		if (lower) {
			if (d_really_is_positive(lower) && !d_unhashed(lower))
				lacks = false;
			dput(lower);
		}
	}
	return lacks;
}

/* Index the entries: the position of an entry is its index. */
static int mc_dirsnap_index(struct mc_dirsnap *snap, u8 names)
{
	struct mc_dchunk *c;
	u32 i = 0;

	snap->ents = kvmalloc_array(max_t(u32, snap->nr, 1),
				    sizeof(*snap->ents), GFP_KERNEL);
	if (!snap->ents)
		return -ENOMEM;
	snap->bytes += snap->nr * sizeof(*snap->ents);
	for (c = snap->chunks; c; c = c->next) {
		u32 off = 0;

		while (off < c->used) {
			const struct mc_dirent *e = (void *)(c->data + off);

			snap->ents[i++] = e;
			off += ALIGN(sizeof(*e) + e->len, 8);
		}
	}
	return mc_dirsnap_hash(snap, names);
}

/*
 * Read all of @lower (never read before: a cifs search, for one, must
 * start afresh) into a new listing of at most @max entries.
 * Return: the listing (one reference), NULL if it is not to be cached
 * (too big: *@toobig set, if given; no memory), or an ERR_PTR from the
 * lower's readdir.
 */
static struct mc_dirsnap *mc_dirsnap_read(struct mc_sb_info *sbi,
					  struct file *lower, u32 max,
					  bool *toobig)
{
	struct mc_collect c = {
		.ctx.actor = mc_collect_actor,
		.max = max,
	};
	struct mc_dirsnap *snap;
	int err;

	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return NULL;
	kref_init(&snap->ref);
	INIT_LIST_HEAD(&snap->lru);
	snap->bytes = sizeof(*snap);
	c.snap = snap;

	/* Until a call gives nothing: the lower's EOF. */
	do {
		c.emitted = 0;
		err = mc_lower_iterate(sbi, lower, &c.ctx);
	} while (!err && c.emitted && !c.toobig && !c.nomem);

	if (!err && !c.toobig && !c.nomem)
		err = mc_dirsnap_index(snap, mc_names_of(lower->f_path.dentry));
	else if (!err)
		err = c.toobig ? -E2BIG : -ENOMEM;
	if (toobig)
		*toobig = err == -E2BIG;
	if (err) {
		mc_dirsnap_put(snap);
		return err == -E2BIG || err == -ENOMEM ? NULL : ERR_PTR(err);
	}
	return snap;
}

/*
 * The most entries a listing may have: half the entry budget, so that one
 * listing never evicts them all.
 */
static u32 mc_dirsnap_max(struct mc_sb_info *sbi)
{
	return min_t(u32, MC_DIRSNAP_MAX, mc_max_entries(sbi) / 2);
}

/* Priming */

/*
 * Prime one entry of a fresh listing of @dir: see mc_dir_prime().
 */
static void mc_dir_prime_one(struct mc_sb_info *sbi, struct dentry *dir,
			     struct dentry *lower_dir,
			     const struct mc_dirent *e)
{
	struct qstr uname = QSTR_INIT(e->name, e->len);
	struct qstr lname = QSTR_INIT(e->name, e->len);
	struct dentry *dentry, *lower, *alias;
	struct inode *inode;

	dentry = d_hash_and_lookup(dir, &uname);
	if (IS_ERR(dentry))
		return;
	/* Listed: a negative entry of ours is wrong now. */
	if (dentry && d_really_is_negative(dentry))
		mc_entry_clear(dentry);

	lower = d_hash_and_lookup(lower_dir, &lname);
	if (IS_ERR_OR_NULL(lower))
		goto out;
	if (d_really_is_negative(lower) || d_unhashed(lower) ||
	    (e->ino && e->ino != d_inode(lower)->i_ino) ||
	    (e->type != DT_UNKNOWN &&
	     e->type != fs_umode_to_dtype(d_inode(lower)->i_mode)))
		goto out_lower;

	if (dentry) {
		if (d_really_is_negative(dentry))
			goto out_lower;
		if (mc_inode_lower(d_inode(dentry)) != d_inode(lower)) {
			/* The name is another object now. */
			mc_entry_clear(dentry);
			goto out_lower;
		}
		mc_entry_set(dentry, MC_DS_POS);
		mc_attr_prime_current(dentry, lower);
		goto out_lower;
	}

	/* A new dentry, as mc_lookup() would make it, but from the dcache. */
	{
		DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);

		dentry = d_alloc_parallel(dir, &uname, &wq);
		if (IS_ERR(dentry)) {
			dentry = NULL;
			goto out_lower;
		}
		if (!d_in_lookup(dentry))	/* someone else's */
			goto out_lower;
		/* Non-directories start detached (namei.c). */
		if (mc_dentry_init(dentry, d_is_dir(lower) ? dget(lower) :
				   NULL)) {
			if (d_is_dir(lower))
				dput(lower);
			goto out_done;
		}
		inode = mc_iget(dir->d_sb, d_inode(lower));
		if (IS_ERR(inode))
			goto out_done;
		alias = d_splice_alias(inode, dentry);
		d_lookup_done(dentry);
		if (IS_ERR(alias))
			goto out_lower;
		if (alias) {
			dput(dentry);
			dentry = alias;
		}
		mc_entry_set(dentry, MC_DS_POS);
		mc_attr_prime_current(dentry, lower);
		goto out_lower;
out_done:
		d_lookup_done(dentry);
	}
out_lower:
	dput(lower);
out:
	dput(dentry);
}

/*
 * Prime the caches from a listing just read, with no round trip: for each
 * name the lower dcache has a positive dentry for (NFS READDIRPLUS and
 * cifs put them there while listing; d_lookup() calls nothing in the lower
 * file system), of the inode number and type the listing says, create or
 * refresh our dentry and inode with an entry deadline, and cache the
 * attributes if the lower's are current (mc_attr_prime_current()).  A
 * name we cached as missing is forgotten, as is one we cached as another
 * object.  Anything doubtful is skipped: the lookup will ask the lower.
 *
 * Context: @dir's i_rwsem held shared (by iterate_dir()), as for lookups.
 */
static void mc_dir_prime(struct file *file, struct mc_dirsnap *snap)
{
	struct dentry *dir = file_dentry(file);
	struct mc_sb_info *sbi = MC_SB(dir->d_sb);
	struct dentry *lower_dir = mc_dentry_lower(dir);
	u32 i;

	if (!mc_ttl(sbi, dir, MC_CACHE_ENTRY))
		return;
	for (i = 0; i < snap->nr; i++) {
		const struct mc_dirent *e = snap->ents[i];

		if (!e->len || (e->name[0] == '.' && (e->len == 1 ||
		    (e->len == 2 && e->name[1] == '.'))) ||
		    memchr(e->name, '/', e->len) || memchr(e->name, 0, e->len))
			continue;
		mc_dir_prime_one(sbi, dir, lower_dir, e);
		cond_resched();
	}
}

/* The listing cache at readdir position 0 */

/*
 * Read the lower directory into a new listing and install it.  The lower
 * file is the upper file's own if it was never read, else a fresh one.
 * Return: the listing (a reference for the file) or NULL: read the lower.
 */
static struct mc_dirsnap *mc_dir_build(struct file *file, bool expired)
{
	struct inode *inode = file_inode(file);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_file *mcf = MC_F(file);
	struct mc_inode_info *mi = MC_I(inode);
	struct file *lower, *tmp = NULL;
	struct mc_dirsnap *snap;
	u32 gen = mc_dir_gen(inode);
	u64 born = get_jiffies_64();

	if (!test_and_set_bit(MC_FILE_ITERATED, &mcf->flags)) {
		lower = mc_file_lower_get(file);
		if (IS_ERR(lower))
			return NULL;
	} else {
		struct path lower_path;

		if (mc_get_lower_path(file_dentry(file), &lower_path))
			return NULL;
		tmp = mc_lower_open(sbi, &lower_path,
				    file->f_flags & ~(O_CREAT | O_EXCL |
						      O_NOCTTY),
				    file->f_cred);
		mc_put_lower_path(&lower_path);
		if (IS_ERR(tmp))
			return NULL;
		lower = tmp;
	}

	snap = mc_dirsnap_read(sbi, lower, mc_dirsnap_max(sbi), NULL);
	if (tmp)
		mc_lower_release(sbi, tmp);
	mc_copy_attr(inode);
	if (IS_ERR_OR_NULL(snap)) {
		if (!snap)
			WRITE_ONCE(mi->dir_toobig,
				   mc_deadline(mc_ttl(sbi, file_dentry(file),
						      MC_CACHE_DIR)));
		return NULL;
	}

	snap->born = born;
	snap->deadline = mc_deadline(mc_ttl(sbi, file_dentry(file),
					    MC_CACHE_DIR));
	mc_count_miss(sbi, MC_CACHE_DIR);
	if (expired)
		mc_count_expired(sbi, MC_CACHE_DIR);
	/* A name that may vanish without us: this file's listing only. */
	if (!mc_vanish_settled(inode, snap, gen))
		return snap;
	mc_dirsnap_install(inode, snap, gen);
	mc_dir_prime(file, snap);
	return snap;
}

/* At position 0: which listing does the file read from now, if any? */
static void mc_dir_select(struct file *file)
{
	u64 start = mc_served_begin();
	struct dentry *dentry = file_dentry(file);
	struct inode *inode = d_inode(dentry);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_file *mcf = MC_F(file);
	struct mc_dirsnap *snap;
	bool expired;

	if (mcf->snap) {
		mc_dirsnap_put(mcf->snap);
		mcf->snap = NULL;
	}
	if (!mc_ttl(sbi, dentry, MC_CACHE_DIR) || IS_DEADDIR(inode) ||
	    sbi->per_user_views)
		return;
	snap = mc_dirsnap_get(dentry);
	if (snap) {
		mc_count_hit(sbi, MC_CACHE_DIR);
		mc_served(sbi, MC_OP_READDIR, start);
		mcf->snap = snap;
		return;
	}
	if (time_before64(get_jiffies_64(), READ_ONCE(MC_I(inode)->dir_toobig)))
		return;
	mc_dirsnap_peek(dentry, &expired);
	mcf->snap = mc_dir_build(file, expired);
}

/* Listing ahead of lookups */

/* The most names read ahead the first time a directory is. */
#define MC_LA_FIRST		4096
/*
 * mc_inode_info::la_state: the lookups counted (low bits; at most 65536,
 * the largest threshold), a listing being read (MC_LA_BUSY), and the
 * order of the size of the last listing read ahead, or of the most it
 * could have had when it was not read (high bits).  Changed with
 * atomic_try_cmpxchg(), but for the reader's final atomic_set().
 */
#define MC_LA_COUNT		GENMASK(22, 0)
#define MC_LA_BUSY		BIT(23)
#define MC_LA_ORDER_SHIFT	24
#define MC_LA_ORDER_MAX		ilog2(MC_DIRSNAP_MAX)

/* Forget the names cached as missing in @dir that @snap lists. */
static void mc_dir_unneg(struct dentry *dir, struct mc_dirsnap *snap)
{
	struct dentry *dentry;
	u32 i;

	for (i = 0; i < snap->nr; i++) {
		const struct mc_dirent *e = snap->ents[i];
		struct qstr name = QSTR_INIT(e->name, e->len);

		if (!e->len || memchr(e->name, '/', e->len) ||
		    memchr(e->name, 0, e->len))
			continue;
		dentry = d_hash_and_lookup(dir, &name);
		if (IS_ERR_OR_NULL(dentry))
			continue;
		if (d_really_is_negative(dentry))
			mc_entry_clear(dentry);
		dput(dentry);
	}
}

/**
 * mc_dir_list_ahead() - count a lookup that asked the lower; list if due
 * @dir: the upper directory it was made in
 *
 * Names looked up one after the other, each for the first time, in one
 * directory (a cold `git status` or build stat()ing its files, `stat` of
 * every file of a tree, a program probing a search path) cost a round
 * trip each: an NFS LOOKUP, SMB2 CREATE + QUERY_INFO + CLOSE.  After
 * list_ahead of them (a module parameter, 16 by default; 0 = never) in a
 * directory with no fresh listing, that lookup reads the directory's
 * listing, as a readdir at position 0 would (mc_dir_build()), and
 * installs it as the directory's cached one.  Until the listing expires
 * (dir_ttl) or a change through us drops it, a name it lacks is answered
 * missing without a round trip (mc_dir_lacks()), and a name it has is
 * found in the lower dcache, which NFS READDIRPLUS and cifs fill while
 * listing, attributes included: no LOOKUP either.
 *
 * Bounded, since a listing costs round trips too (one NFS READDIRPLUS or
 * SMB2 QUERY_DIRECTORY per some hundred names):
 *  - only where a listing is cached and can prove a name absent (dir_ttl
 *    and neg_ttl on, names compared as enum mc_names allows, not cifs
 *    multiuser), and with the caller's credentials, if he may read the
 *    directory (MAY_READ on the lower);
 *  - at most MC_LA_FIRST names the first time, then four times the size
 *    of the last listing read ahead, and never more than a readdir would
 *    cache (mc_dirsnap_max());
 *  - the next one waits for a quarter of that size of such lookups, and
 *    at least list_ahead; a listing that was too large, or that failed
 *    (no permission, an error of the lower), counts as one four times
 *    larger than it could have been.  So about four names or fewer are
 *    read per lookup that asked the lower, also in a directory being
 *    filled (`tar x`: a lookup that misses, then a create that drops the
 *    listing) or one too large to cache;
 *  - one listing at a time per directory: the lookup that makes the
 *    count reach the threshold marks it busy and reads it; the others
 *    count nothing meanwhile.
 * The lookup that reads the listing takes its time.  It does not make our
 * dentries for the listed names, as mc_dir_prime() does (the lookups make
 * them, from the lower dcache); it only forgets the names we had cached
 * as missing that the listing has, as mc_dir_prime() does too, so that
 * `stat` does not contradict `ls`.
 *
 * Context: from mc_lookup(), @dir's i_rwsem held, shared in a path walk
 * (as iterate_dir() holds it for mc_dir_build()), exclusively where
 * unlink, rmdir and rename look up their victim, and for nfsd: the lock
 * order is the same (upper, then lower), and a listing read there keeps
 * that directory's other users waiting for its time, which the bounds
 * above bound.
 */
void mc_dir_list_ahead(struct dentry *dir)
{
	struct inode *inode = d_inode(dir);
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_inode_info *mi = MC_I(inode);
	u32 every = READ_ONCE(mc_list_ahead);
	u32 ttl, order, need, max, gen;
	int state, new;
	struct mc_dirsnap *snap = NULL;
	struct path lower_path;
	struct file *lower;
	bool expired, toobig = false;
	u64 born;
	int err;

	if (!every || sbi->per_user_views || IS_DEADDIR(inode) ||
	    !mc_dirsnap_max(sbi))
		return;
	ttl = mc_ttl(sbi, dir, MC_CACHE_DIR);
	if (!ttl || !mc_ttl(sbi, dir, MC_CACHE_NEG) ||
	    mc_names_of(mc_dentry_lower(dir)) == MC_NAMES_NONE)
		return;
	/* Listed: the names it has are in the lower dcache (or changed). */
	if (mc_dirsnap_peek(dir, &expired))
		return;
	born = get_jiffies_64();
	if (time_before64(born, READ_ONCE(mi->dir_toobig)))
		return;
	state = atomic_read(&mi->la_state);
	do {
		if (state & MC_LA_BUSY)
			return;
		order = state >> MC_LA_ORDER_SHIFT;
		need = max_t(u32, every, BIT(order) / 4);
		new = state + 1;
		if ((new & MC_LA_COUNT) >= need)
			new |= MC_LA_BUSY;
	} while (!atomic_try_cmpxchg(&mi->la_state, &state, new));
	if (!(new & MC_LA_BUSY))
		return;

	max = min_t(u32, mc_dirsnap_max(sbi),
		    max_t(u32, MC_LA_FIRST, 4 * BIT(order)));
	gen = mc_dir_gen(inode);
	err = mc_get_lower_path(dir, &lower_path);
	if (err)
		goto out;
	err = mc_lower_permission(sbi, d_inode(lower_path.dentry), MAY_READ);
	lower = err ? ERR_PTR(err) :
		mc_lower_open(sbi, &lower_path, O_RDONLY | O_DIRECTORY,
			      current_cred());
	mc_put_lower_path(&lower_path);
	if (IS_ERR(lower))
		goto out;
	snap = mc_dirsnap_read(sbi, lower, max, &toobig);
	mc_lower_release(sbi, lower);
	mc_copy_attr(inode);
	if (IS_ERR_OR_NULL(snap)) {
		if (toobig && max == mc_dirsnap_max(sbi))
			WRITE_ONCE(mi->dir_toobig, mc_deadline(ttl));
		snap = NULL;
		goto out;
	}
	snap->born = born;
	snap->deadline = mc_deadline(ttl);
	mc_count_miss(sbi, MC_CACHE_DIR);
	if (expired)
		mc_count_expired(sbi, MC_CACHE_DIR);
	if (mc_vanish_settled(inode, snap, gen) &&
	    mc_dirsnap_install(inode, snap, gen))
		mc_dir_unneg(dir, snap);
out:
	pr_debug("%pd: listed ahead: %u names (at most %u)\n", dir,
		 snap ? snap->nr : 0, max);
	/* The order of this listing's size, or of one 4 times too large. */
	order = snap ? order_base_2(max_t(u32, snap->nr, 1)) :
		ilog2(max) + 2;
	atomic_set(&mi->la_state,
		   min_t(u32, order, MC_LA_ORDER_MAX) << MC_LA_ORDER_SHIFT);
	if (snap)
		mc_dirsnap_put(snap);
}

/* Emit the entries of @snap from position ctx->pos on. */
static int mc_dir_emit(struct mc_dirsnap *snap, struct dir_context *ctx)
{
	loff_t i;

	for (i = ctx->pos; i >= 0 && i < snap->nr; i++) {
		const struct mc_dirent *e = snap->ents[i];

		if (!dir_emit(ctx, e->name, e->len, e->ino, e->type))
			break;
		ctx->pos = i + 1;
	}
	return 0;
}

static int mc_iterate_shared(struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file_inode(file);
	struct mc_file *mcf = MC_F(file);
	struct file *lower;
	int err;

	if (ctx->pos == 0)
		mc_dir_select(file);
	if (mcf->snap)
		return mc_dir_emit(mcf->snap, ctx);

	lower = mc_file_lower_get(file);
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	set_bit(MC_FILE_ITERATED, &mcf->flags);
	/*
	 * iterate_dir() starts the lower at its own f_pos: give it ours
	 * (ctx->pos is the upper f_pos), with its own seek: it may have been
	 * read to its end for a listing (mc_dir_build()).  It leaves
	 * ctx->pos == the lower f_pos, which the VFS copies to the upper
	 * f_pos.  Both files are serialized by the upper f_pos_lock.
	 */
	err = mc_lower_dir_seek(MC_SB(inode->i_sb), lower, ctx->pos);
	if (err)
		return err;
	err = mc_lower_iterate(MC_SB(inode->i_sb), lower, ctx);
	mc_copy_attr(inode);
	return err;
}

/*
 * Seek: in a listing, a position is an index (SEEK_SET, SEEK_CUR); the
 * rest is the lower directory's business, its cookies and its rules (no
 * inode lock).  Serialized with readdir by f_pos_lock.
 */
static loff_t mc_dir_llseek(struct file *file, loff_t offset, int whence)
{
	struct mc_file *mcf = MC_F(file);
	loff_t pos;

	if (!mcf->snap || (whence != SEEK_SET && whence != SEEK_CUR))
		return mc_llseek_lower(file, offset, whence);
	pos = whence == SEEK_CUR ? file->f_pos + offset : offset;
	if (pos < 0)
		return -EINVAL;
	file->f_pos = pos;
	return pos;
}

/*
 * ->open: a directory whose listing is fresh is not opened below (see the
 * top of this file); others are, as files are.
 */
static int mc_dir_open(struct inode *inode, struct file *file)
{
	u64 start = mc_served_begin();
	struct mc_sb_info *sbi = MC_SB(inode->i_sb);
	struct mc_file *mcf;
	bool expired;

	if (!mc_dirsnap_peek(file_dentry(file), &expired))
		return mc_open(inode, file);
	mcf = mc_file_alloc();
	if (!mcf)
		return -ENOMEM;
	file->private_data = mcf;
	mc_served(sbi, MC_OP_OPEN, start);
	return 0;
}

const struct file_operations mc_dir_fops = {
	.open		= mc_dir_open,
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
