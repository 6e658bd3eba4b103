// SPDX-License-Identifier: GPL-2.0
/*
 * dirs.c - directory reading through metacache: getdents, telldir/seekdir
 * and lseek on the fd of a large directory (readdir_large), rewinddir,
 * readdir while entries are added and removed, directory fds of
 * renamed/removed directories.
 */
#include "ptlib.h"

#include <dirent.h>

#define NBIG 300

struct ent {
	char *name;
	uint64_t ino;
	int64_t off;
	unsigned char type;
};

struct entlist {
	struct ent *v;
	int n, cap;
};

static void el_add(struct entlist *l, const char *name, uint64_t ino,
		   int64_t off, unsigned char type)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 128;
		l->v = realloc(l->v, (size_t)l->cap * sizeof(*l->v));
	}
	l->v[l->n].name = strdup(name);
	l->v[l->n].ino = ino;
	l->v[l->n].off = off;
	l->v[l->n].type = type;
	l->n++;
}

static void el_free(struct entlist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* One getdents64 call; appends entries; returns the byte count or -1. */
static ssize_t gd_once(int fd, char *buf, size_t bufsz, struct entlist *l)
{
	ssize_t n = getdents64(fd, buf, bufsz), pos;

	if (n <= 0)
		return n;
	for (pos = 0; pos < n;) {
		struct dirent64 *d = (struct dirent64 *)(buf + pos);

		el_add(l, d->d_name, d->d_ino, d->d_off, d->d_type);
		pos += d->d_reclen;
	}
	return n;
}

static int gd_all(int fd, size_t bufsz, struct entlist *l)
{
	char *buf = malloc(bufsz);
	ssize_t n;

	while ((n = gd_once(fd, buf, bufsz, l)) > 0)
		;
	free(buf);
	return n < 0 ? -1 : 0;
}

static int gd_path(const char *dir, size_t bufsz, struct entlist *l)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc, e;

	if (fd < 0)
		return -1;
	rc = gd_all(fd, bufsz, l);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

static void el_sort(struct entlist *l)
{
	if (l->n)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), ent_cmp);
}

/* Sorted-set comparison: duplicates, names only on one side, d_ino and
 * d_type differences.  Returns the number of problems (reported). */
static int el_compare(const char *what, struct entlist *st, struct entlist *lo,
		      int cmp_ino)
{
	int i = 0, j = 0, bad = 0;

	el_sort(st);
	el_sort(lo);
	for (i = 1; i < st->n; i++)
		if (!strcmp(st->v[i].name, st->v[i - 1].name) && bad++ < 5)
			mct_fail_at(__FILE__, __LINE__, "%s: %s listed twice through the stack",
				    what, pt_esc(st->v[i].name));
	i = 0;
	while (i < st->n || j < lo->n) {
		int c = i >= st->n ? 1 : j >= lo->n ? -1 : strcmp(st->v[i].name, lo->v[j].name);

		if (c) {
			if (bad++ < 10)
				mct_fail_at(__FILE__, __LINE__, "%s: %s only %s", what,
					    pt_esc(c < 0 ? st->v[i].name : lo->v[j].name),
					    c < 0 ? "through the stack" : "on the lower");
			if (c < 0)
				i++;
			else
				j++;
			continue;
		}
		if (st->v[i].type != lo->v[j].type && bad++ < 10)
			mct_fail_at(__FILE__, __LINE__, "%s: d_type of %s: stack %d, lower %d",
				    what, pt_esc(st->v[i].name), st->v[i].type, lo->v[j].type);
		if (cmp_ino && strcmp(st->v[i].name, "..") &&
		    st->v[i].ino != lo->v[j].ino && bad++ < 10)
			mct_fail_at(__FILE__, __LINE__, "%s: d_ino of %s: stack %llu, lower %llu",
				    what, pt_esc(st->v[i].name),
				    (unsigned long long)st->v[i].ino,
				    (unsigned long long)lo->v[j].ino);
		i++;
		j++;
	}
	return bad;
}

static void big_name(char *buf, size_t n, int i)
{
	char pad[200];
	int plen = (i * 37) % 180;

	memset(pad, 'x', (size_t)plen);
	pad[plen] = 0;
	pt_snp(buf, n, "e%03d-%s", i, pad);
}

/* NBIG entries: half created through the stack, half on the lower; some
 * directories, symlinks and FIFOs where the lower has them. */
static int make_big(const char *up, const char *lo)
{
	char name[256];
	int i;

	for (i = 0; i < NBIG; i++) {
		const char *d = i & 1 ? lo : up;
		const char *p;

		big_name(name, sizeof(name), i);
		p = pt_join(d, name);
		if (i % 10 == 3) {
			if (mkdir(p, 0755) < 0)
				return -1;
		} else if (i % 25 == 7 && symlink("target", p) == 0) {
			continue;
		} else if (i % 50 == 11 && mkfifo(p, 0644) == 0) {
			continue;
		} else if (pt_writefile(p, name, 4, 0644) < 0) {
			return -1;
		}
	}
	return 0;
}

static void seek_checks(struct pt_ctx *c, const char *up, const char *lo);

PT_TEST(readdir_large)
{
	struct entlist su = { 0 }, sl = { 0 }, small = { 0 }, r3 = { 0 };
	char up[PATH_MAX], lo[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *de;
	int i, dots = 0;

	pt_snp(up, sizeof(up), "%s/big", c->up);
	pt_snp(lo, sizeof(lo), "%s/big", c->lo);
	MCT_ASSERT(mkdir(up, 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(make_big(up, lo) == 0, "populating: %s", strerror(errno));

	MCT_ASSERT(gd_path(up, 32768, &su) == 0, "getdents64 through the stack: %s",
		   strerror(errno));
	MCT_ASSERT(gd_path(lo, 32768, &sl) == 0, "getdents64 on the lower: %s",
		   strerror(errno));
	MCT_EXPECT(su.n == NBIG + 2, "%d entries through the stack, expected %d",
		   su.n, NBIG + 2);
	el_compare("getdents64 32K", &su, &sl, 1);
	for (i = 0; i < su.n; i++) {
		if (!strcmp(su.v[i].name, ".")) {
			dots++;
			MCT_EXPECT(stat(up, &st) == 0 && st.st_ino == su.v[i].ino,
				   "d_ino of . (%llu) is not st_ino of the directory (%llu)",
				   (unsigned long long)su.v[i].ino, (unsigned long long)st.st_ino);
		} else if (!strcmp(su.v[i].name, "..")) {
			dots++;
		}
	}
	MCT_EXPECT(dots == 2, ". and .. appear %d times", dots);

	/* a tiny buffer: many calls, one or two entries each */
	MCT_ASSERT(gd_path(up, 300, &small) == 0, "getdents64 small buffer: %s",
		   strerror(errno));
	el_compare("getdents64 300 bytes", &small, &sl, 1);
	{
		int fd = open(up, O_RDONLY | O_DIRECTORY);
		char b[16];

		errno = 0;
		MCT_EXPECT(fd >= 0 && getdents64(fd, b, sizeof(b)) < 0 && errno == EINVAL,
			   "getdents64 with a too small buffer: %s", pt_errname(errno));
		if (fd >= 0)
			close(fd);
	}
	/* readdir(3) */
	d = opendir(up);
	MCT_ASSERT(d, "opendir: %s", strerror(errno));
	while ((de = readdir(d)))
		el_add(&r3, de->d_name, de->d_ino, de->d_off, de->d_type);
	closedir(d);
	el_compare("readdir(3)", &r3, &sl, 1);

	/* stat() of a sample agrees with d_ino/d_type */
	for (i = 0; i < su.n; i += 13) {
		if (!strcmp(su.v[i].name, ".."))
			continue;
		if (lstat(pt_join(up, su.v[i].name), &st) < 0) {
			mct_fail_at(__FILE__, __LINE__, "lstat %s: %s", pt_esc(su.v[i].name),
				    strerror(errno));
			continue;
		}
		MCT_EXPECT(st.st_ino == su.v[i].ino, "%s: d_ino %llu but st_ino %llu",
			   pt_esc(su.v[i].name), (unsigned long long)su.v[i].ino,
			   (unsigned long long)st.st_ino);
		MCT_EXPECT(su.v[i].type == DT_UNKNOWN ||
			   (unsigned)su.v[i].type == IFTODT(st.st_mode),
			   "%s: d_type %d but st_mode 0%o", pt_esc(su.v[i].name),
			   su.v[i].type, st.st_mode);
		PT_PATH_STAT_SAME(pt_join(up, su.v[i].name), pt_join(lo, su.v[i].name),
				  AT_SYMLINK_NOFOLLOW);
	}
	el_free(&su);
	el_free(&sl);
	el_free(&small);
	el_free(&r3);
	seek_checks(c, up, lo);
}

/* ------------------------------------------------------------------ */

/* Reads the directory once with telldir before every entry. */
static int read_positions(DIR *d, char ***names, long **pos, int *n)
{
	struct dirent *de;
	int cap = NBIG + 16;

	*names = calloc((size_t)cap, sizeof(char *));
	*pos = calloc((size_t)cap + 1, sizeof(long));
	*n = 0;
	for (;;) {
		long p = telldir(d);

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (*n == cap) {
			cap *= 2;
			*names = realloc(*names, (size_t)cap * sizeof(char *));
			*pos = realloc(*pos, ((size_t)cap + 1) * sizeof(long));
		}
		(*pos)[*n] = p;
		(*names)[(*n)++] = strdup(de->d_name);
	}
	(*pos)[*n] = telldir(d);
	return errno ? -1 : 0;
}

static void free_positions(char **names, long *pos, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(pos);
}

/* Is the order of two successive full reads the same on DIR? */
static int order_stable(const char *dir)
{
	struct entlist a = { 0 }, b = { 0 };
	int i, same;

	if (gd_path(dir, 4096, &a) < 0 || gd_path(dir, 4096, &b) < 0)
		return -1;
	same = a.n == b.n;
	for (i = 0; same && i < a.n; i++)
		same = !strcmp(a.v[i].name, b.v[i].name);
	el_free(&a);
	el_free(&b);
	return same;
}

/*
 * telldir/seekdir, rewinddir and lseek(d_off) in the big directory UP (LO
 * on the lower), made by readdir_large: one directory of NBIG entries,
 * made once, serves both (making it is most of the time these tests take
 * on an SMB lower).
 */
static void seek_checks(struct pt_ctx *c, const char *up, const char *lo)
{
	char **names;
	long *pos;
	int n, i, k, lower_stable;
	uint64_t s = c->seed;
	DIR *d;
	struct dirent *de;
	int picks[20] = { 0, 1, 2, 57, 150, -2, -1 };
	int npicks = 7;

	d = opendir(up);
	MCT_ASSERT(d, "opendir through the stack: %s", strerror(errno));
	MCT_ASSERT(read_positions(d, &names, &pos, &n) == 0, "readdir: %s", strerror(errno));
	MCT_EXPECT(n == NBIG + 2, "%d entries, expected %d", n, NBIG + 2);
	while (npicks < 17)
		picks[npicks++] = (int)(pt_rand(&s) % (uint64_t)n);
	for (i = 0; i < npicks; i++) {
		int p = picks[i] < 0 ? n + picks[i] : picks[i];

		if (p < 0 || p >= n)
			continue;
		seekdir(d, pos[p]);
		for (k = p; k < p + 5 && k < n; k++) {
			errno = 0;
			de = readdir(d);
			if (!de || strcmp(de->d_name, names[k])) {
				mct_fail_at(__FILE__, __LINE__,
					    "seekdir to the position of entry %d: entry %d is %s, expected %s",
					    p, k, de ? pt_esc(de->d_name) : "end", pt_esc(names[k]));
				break;
			}
		}
	}
	seekdir(d, pos[n]);
	MCT_EXPECT(readdir(d) == NULL, "readdir after seekdir to the end returns an entry");
	/* rewinddir: everything again, in the same order if the lower's is stable */
	rewinddir(d);
	lower_stable = order_stable(lo);
	for (k = 0; k < n; k++) {
		de = readdir(d);
		if (!de) {
			mct_fail_at(__FILE__, __LINE__, "after rewinddir only %d of %d entries", k, n);
			break;
		}
		if (lower_stable == 1 && strcmp(de->d_name, names[k])) {
			mct_fail_at(__FILE__, __LINE__,
				    "after rewinddir entry %d is %s, first pass had %s (the lower's order is stable)",
				    k, pt_esc(de->d_name), pt_esc(names[k]));
			break;
		}
	}
	MCT_EXPECT(k < n || readdir(d) == NULL, "extra entries after rewinddir");
	closedir(d);
	free_positions(names, pos, n);

	/* raw: lseek(fd, d_off) continues after that entry */
	{
		struct entlist all = { 0 }, cont = { 0 };
		int fd = open(up, O_RDONLY | O_DIRECTORY);
		char buf[600];

		MCT_ASSERT(fd >= 0, "open: %s", strerror(errno));
		MCT_ASSERT(gd_all(fd, 600, &all) == 0, "getdents64: %s", strerror(errno));
		for (i = 0; i < 12; i++) {
			int p = i < 2 ? i : (int)(pt_rand(&s) % (uint64_t)(all.n - 1));

			el_free(&cont);
			errno = 0;
			if (lseek(fd, all.v[p].off, SEEK_SET) < 0) {
				mct_fail_at(__FILE__, __LINE__, "lseek(dir, d_off %lld): %s",
					    (long long)all.v[p].off, strerror(errno));
				continue;
			}
			if (gd_once(fd, buf, sizeof(buf), &cont) <= 0 || !cont.n ||
			    strcmp(cont.v[0].name, all.v[p + 1].name))
				mct_fail_at(__FILE__, __LINE__,
					    "after lseek to d_off of entry %d the next entry is %s, expected %s",
					    p, cont.n ? pt_esc(cont.v[0].name) : "none",
					    pt_esc(all.v[p + 1].name));
		}
		el_free(&cont);
		MCT_EXPECT(lseek(fd, 0, SEEK_SET) == 0, "lseek(dir, 0): %s", strerror(errno));
		MCT_EXPECT(gd_once(fd, buf, sizeof(buf), &cont) > 0 && cont.n &&
			   !strcmp(cont.v[0].name, all.v[0].name),
			   "lseek(dir, 0) does not restart the listing");
		el_free(&cont);
		el_free(&all);
		close(fd);
	}
}

/* ------------------------------------------------------------------ */

static int count_name(DIR *d, const char *name, int *total)
{
	struct dirent *de;
	int cnt = 0;

	*total = 0;
	while ((de = readdir(d))) {
		(*total)++;
		if (!strcmp(de->d_name, name))
			cnt++;
	}
	return cnt;
}

/*
 * One rewinddir sequence in dir (as seen through "via"), with changes made
 * through "via" and directly on the lower ("lower" is the same directory
 * seen on the lower).  Records what each rewind listed in r[].
 */
struct rewind_result {
	int partial_total, f42;		/* after a partial read + rewind */
	int total_up, new_up;		/* after a create through via */
	int new_lo;			/* after a create on the lower */
	int total_rm, f10, f11;		/* after removals */
};

static int rewind_seq(const char *via, const char *lower, struct rewind_result *r)
{
	char name[32];
	DIR *d;
	int i;

	if (mkdir(via, 0755))
		return -errno;
	for (i = 0; i < 60; i++) {
		pt_snp(name, sizeof(name), "f%02d", i);
		if (pt_writefile(pt_join(via, name), "x", 1, 0644))
			return -errno;
	}
	d = opendir(via);
	if (!d)
		return -errno;
	for (i = 0; i < 20 && readdir(d); i++)
		;
	rewinddir(d);
	r->f42 = count_name(d, "f42", &r->partial_total);
	if (pt_writefile(pt_join(via, "new-up"), "x", 1, 0644) ||
	    pt_writefile(pt_join(lower, "new-lo"), "x", 1, 0644)) {
		closedir(d);
		return -errno;
	}
	rewinddir(d);
	r->new_up = count_name(d, "new-up", &r->total_up);
	rewinddir(d);
	r->new_lo = count_name(d, "new-lo", &i);
	unlink(pt_join(lower, "f10"));
	unlink(pt_join(via, "f11"));
	rewinddir(d);
	r->f10 = count_name(d, "f10", &r->total_rm);
	rewinddir(d);
	r->f11 = count_name(d, "f11", &i);
	closedir(d);
	return 0;
}

PT_TEST(rewinddir)
{
	char up[PATH_MAX], lo[PATH_MAX], ref[PATH_MAX];
	struct rewind_result rs = { 0 }, rl = { 0 };
	int ret;

	pt_snp(up, sizeof(up), "%s/rw", c->up);
	pt_snp(lo, sizeof(lo), "%s/rw", c->lo);
	pt_snp(ref, sizeof(ref), "%s/rw", c->ref);
	ret = rewind_seq(ref, ref, &rl);
	MCT_ASSERT(ret == 0, "on the lower: %s", strerror(-ret));
	ret = rewind_seq(up, lo, &rs);
	MCT_ASSERT(ret == 0, "through the stack: %s", strerror(-ret));

	/*
	 * POSIX: after rewinddir, a directory stream reflects the
	 * directory's current state.  Hold the stack to that wherever the
	 * lower itself does, and otherwise to what the lower did: a cifs
	 * client serves a small directory from the buffer of its open
	 * search and restarts the search only when it noticed a change, so
	 * the lower itself may not show entries created or removed while
	 * the directory was open, even through the same mount.
	 */
	MCT_EXPECT(rs.partial_total == 62 && rs.f42 == 1,
		   "after a partial read + rewinddir: %d entries, f42 %d times",
		   rs.partial_total, rs.f42);
	if (rl.new_up != 1 || rl.new_lo != 1 || rl.f10 != 0 || rl.f11 != 0)
		mct_diag("the lower itself, after rewinddir: new entries seen %d and %d times, removed entries seen %d and %d times",
			 rl.new_up, rl.new_lo, rl.f10, rl.f11);
	if (rl.new_up == 1)
		MCT_EXPECT(rs.total_up == rl.total_up && rs.new_up == 1,
			   "after creates (stack, lower) + rewinddir: %d entries, new-up %d times (the lower: %d entries, once)",
			   rs.total_up, rs.new_up, rl.total_up);
	if (rl.new_lo == 1)
		MCT_EXPECT(rs.new_lo == 1,
			   "entry created on the lower seen %d times after rewinddir (the lower: once)",
			   rs.new_lo);
	if (rl.f10 == 0)
		MCT_EXPECT(rs.f10 == 0 && rs.total_rm == rl.total_rm,
			   "after removals + rewinddir: %d entries, f10 %d times (the lower: %d entries, f10 gone)",
			   rs.total_rm, rs.f10, rl.total_rm);
	if (rl.f11 == 0)
		MCT_EXPECT(rs.f11 == 0, "f11 still listed after unlink through the stack");
}

/* ------------------------------------------------------------------ */

struct mut_result {
	int problems, keep_missing, keep_dup, dup, unknown;
};

/*
 * NMUT "keep" and NMUT "vol" entries; the buffer holds 16 of them, so a
 * read takes 8 calls, and 3 "vol" entries go and 3 "new" ones come
 * between any two.
 */
#define NMUT		60
#define MUT_BUF		512

/* Reads DIR with a small buffer, mutating between calls through MUTA and
 * MUTB (alternately); checks the "keep" entries. */
static void mutate_read(const char *dir, const char *muta, const char *mutb,
			const char *tag, struct mut_result *res)
{
	struct entlist seen = { 0 };
	char buf[MUT_BUF], name[64];
	int fd, i, round = 0, vol_next = 0, new_next = 0;
	int seen_keep[NMUT] = { 0 };

	memset(res, 0, sizeof(*res));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		res->problems++;
		return;
	}
	for (;;) {
		ssize_t n = gd_once(fd, buf, sizeof(buf), &seen);

		if (n < 0) {
			mct_fail_at(__FILE__, __LINE__, "%s: getdents64 while mutating: %s", tag,
				    strerror(errno));
			res->problems++;
			break;
		}
		if (!n)
			break;
		/* remove 3 volatile entries and add 3 new ones */
		for (i = 0; i < 3; i++, round++) {
			const char *m = round & 1 ? mutb : muta;

			if (vol_next < NMUT) {
				pt_snp(name, sizeof(name), "vol%03d", vol_next++);
				unlink(pt_join(m, name));
			}
			pt_snp(name, sizeof(name), "new%03d", new_next++);
			pt_writefile(pt_join(m, name), "n", 1, 0644);
		}
	}
	close(fd);
	for (i = 0; i < seen.n; i++) {
		const char *nm = seen.v[i].name;
		int k;

		if (sscanf(nm, "keep%d", &k) == 1 && k >= 0 && k < NMUT)
			seen_keep[k]++;
		else if (strncmp(nm, "vol", 3) && strncmp(nm, "new", 3) &&
			 strcmp(nm, ".") && strcmp(nm, ".."))
			res->unknown++;
	}
	el_sort(&seen);
	for (i = 1; i < seen.n; i++)
		if (!strcmp(seen.v[i].name, seen.v[i - 1].name))
			res->dup++;
	for (i = 0; i < NMUT; i++) {
		if (!seen_keep[i])
			res->keep_missing++;
		else if (seen_keep[i] > 1)
			res->keep_dup++;
	}
	res->problems += res->keep_missing + res->keep_dup + res->unknown;
	el_free(&seen);
}

static int populate_mut(const char *dir)
{
	char name[32];
	int i;

	if (mkdir(dir, 0755) < 0)
		return -1;
	for (i = 0; i < NMUT; i++) {
		pt_snp(name, sizeof(name), "keep%03d", i);
		if (pt_writefile(pt_join(dir, name), "k", 1, 0644) < 0)
			return -1;
		pt_snp(name, sizeof(name), "vol%03d", i);
		if (pt_writefile(pt_join(dir, name), "v", 1, 0644) < 0)
			return -1;
	}
	return 0;
}

PT_TEST(readdir_mutation)
{
	char up[PATH_MAX], lo[PATH_MAX], ref[PATH_MAX];
	struct mut_result base, st;

	pt_snp(up, sizeof(up), "%s/mut", c->up);
	pt_snp(lo, sizeof(lo), "%s/mut", c->lo);
	pt_snp(ref, sizeof(ref), "%s/mut", c->ref);
	MCT_ASSERT(populate_mut(ref) == 0, "populate reference: %s", strerror(errno));
	MCT_ASSERT(populate_mut(up) == 0, "populate through the stack: %s", strerror(errno));

	/* baseline: read on the lower, mutate on the lower */
	mutate_read(ref, ref, ref, "lower", &base);
	/* read through the stack, mutate through the stack and on the lower */
	mutate_read(up, up, lo, "stack", &st);
	mct_diag("lower: %d untouched entries missing, %d listed twice, %d names listed twice overall",
		 base.keep_missing, base.keep_dup, base.dup);
	if (base.problems) {
		mct_diag("the lower itself does not list every untouched entry exactly once while the directory changes");
		MCT_EXPECT(st.problems <= base.problems,
			   "stack: %d untouched missing, %d twice, %d unknown (worse than the lower)",
			   st.keep_missing, st.keep_dup, st.unknown);
	} else {
		MCT_EXPECT(!st.problems,
			   "through the stack: %d untouched entries missing, %d listed twice, %d unknown names",
			   st.keep_missing, st.keep_dup, st.unknown);
	}
	if (st.dup > base.dup)
		mct_diag("through the stack %d names (added/removed ones) were listed twice; lower %d",
			 st.dup, base.dup);
	PT_TREE_STAT(up, lo);
}

/* ------------------------------------------------------------------ */

static void rec_listing(struct pt_run *r, int fd, const char *label)
{
	struct entlist l = { 0 };
	char joined[2048];
	size_t off = 0;
	int i, rc;

	errno = 0;
	rc = gd_all(fd, 4096, &l);
	pt_rec(r, label, PT_K_RET, PT_EXP_ANY, rc, errno);
	if (rc < 0)
		goto out;
	el_sort(&l);
	joined[0] = 0;
	for (i = 0; i < l.n && off < sizeof(joined) - 1; i++)
		off += (size_t)pt_snp(joined + off, sizeof(joined) - off, "%s:%d;",
				      l.v[i].name, l.v[i].type);
	PT_BUF(r, label, joined, (long long)strlen(joined));
out:
	el_free(&l);
}

static void seq_dirfd(struct pt_run *r)
{
	char buf[64];
	struct stat st;
	int d, f, fd;

	PT_OK(r, mkdirat(r->dfd, "d", 0755));
	d = PT_FD(r, openat(r->dfd, "d", O_RDONLY | O_DIRECTORY));
	if (d < 0)
		return;
	rec_listing(r, d, "empty dir");
	PT_ERR(r, EISDIR, read(d, buf, sizeof(buf)));
	PT_ERR(r, EBADF, write(d, "x", 1));
	PT_ANY(r, lseek(d, 0, SEEK_END));
	PT_OK(r, lseek(d, 0, SEEK_SET));
	f = PT_FD(r, openat(r->dfd, "file", O_RDWR | O_CREAT, 0644));
	if (f >= 0) {
		PT_ERR(r, ENOTDIR, getdents64(f, buf, sizeof(buf)));
		close(f);
	}
	PT_OK(r, renameat(r->dfd, "d", r->dfd, "d2"));	/* fd follows the dir */
	fd = PT_FD(r, openat(d, "x", O_CREAT | O_WRONLY, 0644));
	if (fd >= 0)
		close(fd);
	PT_OK(r, fstatat(r->dfd, "d2/x", &st, 0));
	PT_OK(r, mkdirat(d, "sub", 0755));
	PT_OK(r, lseek(d, 0, SEEK_SET));
	rec_listing(r, d, "renamed dir");
	PT_OK(r, fstat(d, &st));
	PT_VAL(r, "nlink of d2", st.st_nlink);
	PT_OK(r, unlinkat(d, "x", 0));
	PT_OK(r, unlinkat(d, "sub", AT_REMOVEDIR));
	PT_OK(r, unlinkat(r->dfd, "d2", AT_REMOVEDIR));	/* removed while open */
	PT_OK(r, lseek(d, 0, SEEK_SET));
	rec_listing(r, d, "removed dir");
	PT_FDERR(r, ENOENT, openat(d, "y", O_CREAT | O_WRONLY, 0644));
	PT_ERR(r, ENOENT, mkdirat(d, "z", 0755));
	PT_OK(r, fstat(d, &st));
	PT_VAL(r, "nlink of removed dir", st.st_nlink);
	PT_OK(r, close(d));
	/* opendir of a file / of a missing name */
	PT_FDERR(r, ENOTDIR, openat(r->dfd, "file", O_RDONLY | O_DIRECTORY));
	PT_FDERR(r, ENOENT, openat(r->dfd, "nothing", O_RDONLY | O_DIRECTORY));
	d = PT_FD(r, openat(r->dfd, ".", O_RDONLY | O_DIRECTORY));
	if (d >= 0) {
		rec_listing(r, d, "work dir");
		close(d);
	}
}

PT_TEST(dirfd_ops)
{
	PT_BOTH(c, "dirfd", seq_dirfd, NULL);
}

PT_MAIN()
