// SPDX-License-Identifier: GPL-2.0
/*
 * concurrency.c - several processes working in the same stacked directory
 * (and some directly on the lower); the final state, checked from the lower
 * side, must be exactly what the processes report they left.
 */
#include "ptlib.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mman.h>

#define NW 4
#define NITER 50	/* iterations per worker; the arrays below hold this many */
/*
 * On cifs a call costs about ten times what it costs on nfs in the emulated
 * test bed (a create ~33 ms, a rename ~110 ms): fewer iterations there keep
 * `make check` within its time, with the same checks.
 */
#define NITER_CIFS 30

static int niter(void)
{
	return pt_fs("cifs") ? NITER_CIFS : NITER;
}

struct shared {
	/* per worker and iteration: 0 gone, 1 own file p<w>.<n>.r exists,
	 * 2 moved onto shared.<k> */
	unsigned char own[NW][NITER];
	unsigned char dir[NW][NITER];	/* 1: d<w>.<n>.r/inner exists */
	/* shared.<k>: which p<w>.<n> were renamed onto it */
	unsigned char onto[4][NW][NITER];
	int errors[NW];
	int renames[NW];
	int go;
};

static void *shmem(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, n);
	return p;
}

struct wctx {
	struct shared *sh;
	int id;
	char dir[PATH_MAX];	/* where this worker operates */
	uint64_t seed;
};

#define WERR(w, ...)							\
	do {								\
		(w)->sh->errors[(w)->id]++;				\
		if ((w)->sh->errors[(w)->id] <= 5)			\
			mct_fail_at(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

static void wait_go(struct shared *sh)
{
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		pt_msleep(1);
}

static int crd_worker(void *p)
{
	struct wctx *w = p;
	char a[64], b[64], content[64];
	int n, fd;

	wait_go(w->sh);
	for (n = 0; n < niter(); n++) {
		int len = pt_snp(content, sizeof(content), "p%d.%d\n", w->id, n);

		pt_snp(a, sizeof(a), "p%d.%d", w->id, n);
		fd = openat(AT_FDCWD, pt_join(w->dir, a), O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			WERR(w, "worker %d: create %s: %s", w->id, a, strerror(errno));
			continue;
		}
		if (write(fd, content, (size_t)len) != len)
			WERR(w, "worker %d: write %s: %s", w->id, a, strerror(errno));
		close(fd);
		pt_snp(b, sizeof(b), "p%d.%d.r", w->id, n);
		if (rename(pt_join(w->dir, a), pt_join(w->dir, b)) < 0) {
			WERR(w, "worker %d: rename %s -> %s: %s", w->id, a, b, strerror(errno));
			continue;
		}
		w->sh->own[w->id][n] = 1;
		if (n % 3 == 0) {
			if (unlink(pt_join(w->dir, b)) < 0)
				WERR(w, "worker %d: unlink %s: %s", w->id, b, strerror(errno));
			else
				w->sh->own[w->id][n] = 0;
		} else if (n % 5 == 1) {
			char s[32];

			pt_snp(s, sizeof(s), "shared.%d", n % 4);
			if (rename(pt_join(w->dir, b), pt_join(w->dir, s)) < 0) {
				WERR(w, "worker %d: rename %s -> %s: %s", w->id, b, s,
				     strerror(errno));
			} else {
				w->sh->own[w->id][n] = 2;
				w->sh->onto[n % 4][w->id][n] = 1;
			}
		}
		if (n % 11 == 5) {
			char s[32];

			pt_snp(s, sizeof(s), "shared.%d", (n / 11) % 4);
			if (unlink(pt_join(w->dir, s)) < 0 && errno != ENOENT)
				WERR(w, "worker %d: unlink %s: %s", w->id, s, strerror(errno));
		}
		if (n % 7 == 2) {
			char d[64], d2[64];

			pt_snp(d, sizeof(d), "d%d.%d", w->id, n);
			pt_snp(d2, sizeof(d2), "d%d.%d.r", w->id, n);
			if (mkdir(pt_join(w->dir, d), 0755) < 0 ||
			    pt_writefile(pt_join(pt_join(w->dir, d), "inner"), d, strlen(d), 0644) < 0 ||
			    rename(pt_join(w->dir, d), pt_join(w->dir, d2)) < 0)
				WERR(w, "worker %d: dir %s: %s", w->id, d, strerror(errno));
			else
				w->sh->dir[w->id][n] = 1;
		}
	}
	return 0;
}

/* Expected names + contents, compared against the lower's listing. */
static void check_crd(const char *lo, struct shared *sh)
{
	struct pt_names names;
	int w, n, i, k, expected = 0, bad = 0;

	MCT_ASSERT(pt_listdir(lo, &names) == 0, "list %s: %s", lo, strerror(errno));
	for (w = 0; w < NW; w++) {
		for (n = 0; n < NITER; n++) {
			char nm[64], want[64], *buf;
			size_t len;

			pt_snp(nm, sizeof(nm), "p%d.%d.r", w, n);
			if (sh->own[w][n] == 1) {
				expected++;
				pt_snp(want, sizeof(want), "p%d.%d\n", w, n);
				if (pt_readfile(pt_join(lo, nm), &buf, &len) < 0) {
					if (bad++ < 10)
						mct_fail_at(__FILE__, __LINE__, "%s missing on the lower: %s",
							    nm, strerror(errno));
					continue;
				}
				if (len != strlen(want) || memcmp(buf, want, len))
					if (bad++ < 10)
						mct_fail_at(__FILE__, __LINE__, "%s has wrong content", nm);
				free(buf);
			} else if (pt_names_has(&names, nm)) {
				if (bad++ < 10)
					mct_fail_at(__FILE__, __LINE__, "%s exists but its worker removed/moved it", nm);
			}
			pt_snp(nm, sizeof(nm), "p%d.%d", w, n);
			if (pt_names_has(&names, nm) && bad++ < 10)
				mct_fail_at(__FILE__, __LINE__, "%s (pre-rename name) still exists", nm);
			pt_snp(nm, sizeof(nm), "d%d.%d.r", w, n);
			if (sh->dir[w][n]) {
				expected++;
				if (access(pt_join(pt_join(lo, nm), "inner"), F_OK) < 0 && bad++ < 10)
					mct_fail_at(__FILE__, __LINE__, "%s/inner missing: %s", nm,
						    strerror(errno));
			}
		}
	}
	for (k = 0; k < 4; k++) {
		char nm[32], *buf;
		size_t len;

		pt_snp(nm, sizeof(nm), "shared.%d", k);
		if (!pt_names_has(&names, nm))
			continue;
		expected++;
		if (pt_readfile(pt_join(lo, nm), &buf, &len) < 0) {
			mct_fail_at(__FILE__, __LINE__, "read %s: %s", nm, strerror(errno));
			continue;
		}
		if (sscanf(buf, "p%d.%d", &w, &n) != 2 || w < 0 || w >= NW || n < 0 ||
		    n >= NITER || !sh->onto[k][w][n])
			mct_fail_at(__FILE__, __LINE__, "%s holds \"%.*s\", which nobody renamed onto it",
				    nm, (int)(len > 20 ? 20 : len), buf);
		free(buf);
	}
	MCT_EXPECT(names.n == expected, "%d entries on the lower, workers account for %d",
		   names.n, expected);
	for (i = 0; i < names.n; i++) {
		if (strncmp(names.v[i], "p", 1) && strncmp(names.v[i], "d", 1) &&
		    strncmp(names.v[i], "shared.", 7))
			mct_fail_at(__FILE__, __LINE__, "unexpected entry %s", pt_esc(names.v[i]));
	}
	pt_names_free(&names);
}

PT_TEST(create_rename_delete)
{
	struct shared *sh = shmem(sizeof(*sh));
	struct wctx w[NW];
	pid_t pid[NW];
	char up[PATH_MAX], lo[PATH_MAX];
	double t0;
	int i;

	MCT_ASSERT(sh, "mmap: %s", strerror(errno));
	pt_snp(up, sizeof(up), "%s/w", c->up);
	pt_snp(lo, sizeof(lo), "%s/w", c->lo);
	MCT_ASSERT(mkdir(up, 0755) == 0, "mkdir: %s", strerror(errno));
	for (i = 0; i < NW; i++) {
		w[i].sh = sh;
		w[i].id = i;
		pt_snp(w[i].dir, sizeof(w[i].dir), "%s", up);
		pid[i] = pt_spawn(crd_worker, &w[i]);
	}
	t0 = pt_now();
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NW; i++)
		MCT_EXPECT(pt_wait(pid[i]) == 0, "worker %d did not finish cleanly", i);
	mct_diag("%d workers x %d iterations: %.1f s", NW, niter(), pt_now() - t0);
	check_crd(lo, sh);
	PT_TREE_STAT(up, lo);
	munmap(sh, sizeof(*sh));
}

/* ------------------------------------------------------------------ */
/* a single token moved around by renames from the stack and the lower */

struct tok_shared {
	int errors[NW];
	int moved[NW];
	int enoent[NW];
	unsigned char own[NW][NITER];
	int go;
};

struct tctx {
	struct tok_shared *sh;
	int id;
	char dir[PATH_MAX];
	uint64_t seed;
};

static int tok_worker(void *p)
{
	struct tctx *t = p;
	uint64_t s = t->seed;
	char a[32], b[32], f[32];
	int n;

	while (!__atomic_load_n(&t->sh->go, __ATOMIC_ACQUIRE))
		pt_msleep(1);
	for (n = 0; n < niter(); n++) {
		int from = (int)(pt_rand(&s) % 4), to = (from + 1 + (int)(pt_rand(&s) % 3)) % 4;

		pt_snp(a, sizeof(a), "token.%d", from);
		pt_snp(b, sizeof(b), "token.%d", to);
		if (rename(pt_join(t->dir, a), pt_join(t->dir, b)) == 0) {
			t->sh->moved[t->id]++;
		} else if (errno == ENOENT) {
			t->sh->enoent[t->id]++;
		} else {
			t->sh->errors[t->id]++;
			if (t->sh->errors[t->id] <= 3)
				mct_fail_at(__FILE__, __LINE__, "worker %d (%s): rename %s -> %s: %s",
					    t->id, t->id < 2 ? "stack" : "lower", a, b,
					    strerror(errno));
		}
		/* own files: create each, remove every other */
		pt_snp(f, sizeof(f), "w%d.%d", t->id, n);
		if (pt_writefile(pt_join(t->dir, f), f, strlen(f), 0644) < 0) {
			t->sh->errors[t->id]++;
			mct_fail_at(__FILE__, __LINE__, "worker %d: create %s: %s", t->id, f,
				    strerror(errno));
			continue;
		}
		t->sh->own[t->id][n] = 1;
		if (n & 1) {
			if (unlink(pt_join(t->dir, f)) < 0)
				mct_fail_at(__FILE__, __LINE__, "worker %d: unlink %s: %s", t->id, f,
					    strerror(errno));
			else
				t->sh->own[t->id][n] = 0;
		}
		/* stat of names the other side may just have moved */
		{
			struct stat st;

			if (stat(pt_join(t->dir, b), &st) < 0 && errno != ENOENT)
				mct_fail_at(__FILE__, __LINE__, "worker %d: stat %s: %s", t->id, b,
					    strerror(errno));
		}
	}
	return 0;
}

PT_TEST(mixed_stack_lower)
{
	struct tok_shared *sh = shmem(sizeof(*sh));
	struct tctx t[NW];
	pid_t pid[NW];
	char up[PATH_MAX], lo[PATH_MAX];
	struct pt_names nl, nu;
	int i, n, tokens = 0, expected = 0, moved = 0;

	MCT_ASSERT(sh, "mmap: %s", strerror(errno));
	pt_snp(up, sizeof(up), "%s/tok", c->up);
	pt_snp(lo, sizeof(lo), "%s/tok", c->lo);
	MCT_ASSERT(mkdir(up, 0755) == 0, "mkdir: %s", strerror(errno));
	MCT_ASSERT(pt_writefile(pt_join(up, "token.0"), "THE-TOKEN", 9, 0644) == 0,
		   "create token: %s", strerror(errno));
	for (i = 0; i < NW; i++) {
		t[i].sh = sh;
		t[i].id = i;
		t[i].seed = c->seed + (uint64_t)i * 7919;
		pt_snp(t[i].dir, sizeof(t[i].dir), "%s", i < 2 ? up : lo);
		pid[i] = pt_spawn(tok_worker, &t[i]);
	}
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NW; i++)
		MCT_EXPECT(pt_wait(pid[i]) == 0, "worker %d did not finish cleanly", i);
	for (i = 0; i < NW; i++)
		moved += sh->moved[i];
	mct_diag("token moved %d times (stack %d+%d, lower %d+%d), ENOENT %d/%d/%d/%d",
		 moved, sh->moved[0], sh->moved[1], sh->moved[2], sh->moved[3],
		 sh->enoent[0], sh->enoent[1], sh->enoent[2], sh->enoent[3]);

	MCT_ASSERT(pt_listdir(lo, &nl) == 0, "list lower: %s", strerror(errno));
	for (i = 0; i < nl.n; i++) {
		if (!strncmp(nl.v[i], "token.", 6)) {
			char *b;
			size_t len;

			tokens++;
			if (pt_readfile(pt_join(lo, nl.v[i]), &b, &len) == 0) {
				MCT_EXPECT(len == 9 && !memcmp(b, "THE-TOKEN", 9),
					   "%s has the wrong content", nl.v[i]);
				free(b);
			}
		}
	}
	MCT_EXPECT(tokens == 1, "%d token files on the lower after the renames, expected 1", tokens);
	for (i = 0; i < NW; i++) {
		for (n = 0; n < NITER; n++) {
			char f[32];

			pt_snp(f, sizeof(f), "w%d.%d", i, n);
			expected += sh->own[i][n];
			MCT_EXPECT(pt_names_has(&nl, f) == sh->own[i][n],
				   "%s %s on the lower, its worker says %s", f,
				   pt_names_has(&nl, f) ? "exists" : "is missing",
				   sh->own[i][n] ? "it exists" : "it was removed");
		}
	}
	MCT_EXPECT(nl.n == expected + 1, "%d entries on the lower, expected %d", nl.n, expected + 1);
	MCT_ASSERT(pt_listdir(up, &nu) == 0, "list through the stack: %s", strerror(errno));
	MCT_EXPECT(nu.n == nl.n, "%d entries through the stack, %d on the lower", nu.n, nl.n);
	pt_names_free(&nu);
	pt_names_free(&nl);
	PT_TREE_STAT(up, lo);
	munmap(sh, sizeof(*sh));
}

/* ------------------------------------------------------------------ */

struct churn_shared {
	int stop;
	int go;
	int created[3];
};

struct churn {
	struct churn_shared *sh;
	int id;
	char dir[PATH_MAX];
};

static int churn_worker(void *p)
{
	struct churn *ch = p;
	char f[32];
	int n;

	while (!__atomic_load_n(&ch->sh->go, __ATOMIC_ACQUIRE))
		pt_msleep(1);
	for (n = 0; n < 60 && !__atomic_load_n(&ch->sh->stop, __ATOMIC_ACQUIRE); n++) {
		pt_snp(f, sizeof(f), "tmp%d.%d", ch->id, n);
		if (pt_writefile(pt_join(ch->dir, f), "t", 1, 0644) < 0) {
			mct_fail_at(__FILE__, __LINE__, "churn %d: create %s: %s", ch->id, f,
				    strerror(errno));
			return 1;
		}
		if (n >= 2) {
			pt_snp(f, sizeof(f), "tmp%d.%d", ch->id, n - 2);
			if (unlink(pt_join(ch->dir, f)) < 0) {
				mct_fail_at(__FILE__, __LINE__, "churn %d: unlink %s: %s", ch->id, f,
					    strerror(errno));
				return 1;
			}
		}
		ch->sh->created[ch->id] = n + 1;
	}
	return 0;
}

/* Lists DIR NLIST times (small getdents buffer) while 3 churners work in
 * CHURNDIRS; returns the number of bad listings. */
static int churn_run(const char *dir, const char *const churndirs[3], int nlist,
		     const char *tag)
{
	struct churn_shared *sh = shmem(sizeof(*sh));
	struct churn ch[3];
	pid_t pid[3];
	int i, l, badlists = 0;

	if (!sh)
		return 1;
	for (i = 0; i < 3; i++) {
		ch[i].sh = sh;
		ch[i].id = i;
		pt_snp(ch[i].dir, sizeof(ch[i].dir), "%s", churndirs[i]);
		pid[i] = pt_spawn(churn_worker, &ch[i]);
	}
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	for (l = 0; l < nlist; l++) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY), keep[50] = { 0 }, bad = 0;
		char buf[512];
		struct pt_names all = { 0 };
		int cap = 0;
		ssize_t n;

		if (fd < 0) {
			mct_fail_at(__FILE__, __LINE__, "%s: open: %s", tag, strerror(errno));
			badlists++;
			continue;
		}
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
			ssize_t pos;

			for (pos = 0; pos < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + pos);
				int k;

				if (sscanf(d->d_name, "keep%d", &k) == 1 && k >= 0 && k < 50)
					keep[k]++;
				if (all.n == cap) {
					cap = cap ? cap * 2 : 256;
					all.v = realloc(all.v, (size_t)cap * sizeof(char *));
				}
				all.v[all.n++] = strdup(d->d_name);
				pos += d->d_reclen;
			}
		}
		if (n < 0) {
			mct_fail_at(__FILE__, __LINE__, "%s: getdents64 during churn: %s", tag,
				    strerror(errno));
			bad++;
		}
		close(fd);
		for (i = 0; i < 50; i++)
			if (keep[i] != 1) {
				if (bad++ < 3)
					mct_diag("%s listing %d: keep%02d seen %d times", tag, l, i, keep[i]);
			}
		/* a churned name listed twice is reported but not counted:
		 * only the untouched entries must be listed exactly once */
		for (i = 0; i < all.n; i++) {
			int j;

			for (j = i + 1; j < all.n; j++)
				if (!strcmp(all.v[i], all.v[j]) && strncmp(all.v[i], "keep", 4))
					mct_diag("%s listing %d: %s (changing) listed twice", tag, l,
						 pt_esc(all.v[i]));
		}
		pt_names_free(&all);
		if (bad)
			badlists++;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		if (pt_wait(pid[i]) != 0)
			badlists++;
	munmap(sh, sizeof(*sh));
	return badlists;
}

static int populate_keep(const char *dir)
{
	char f[32];
	int i;

	if (mkdir(dir, 0755) < 0)
		return -1;
	for (i = 0; i < 50; i++) {
		pt_snp(f, sizeof(f), "keep%02d", i);
		if (pt_writefile(pt_join(dir, f), "k", 1, 0644) < 0)
			return -1;
	}
	return 0;
}

PT_TEST(readdir_during_churn)
{
	char up[PATH_MAX], lo[PATH_MAX], ref[PATH_MAX];
	const char *cref[3], *cmix[3];
	int base, st;

	pt_snp(up, sizeof(up), "%s/churn", c->up);
	pt_snp(lo, sizeof(lo), "%s/churn", c->lo);
	pt_snp(ref, sizeof(ref), "%s/churn", c->ref);
	MCT_ASSERT(populate_keep(ref) == 0, "populate reference: %s", strerror(errno));
	MCT_ASSERT(populate_keep(up) == 0, "populate through the stack: %s", strerror(errno));
	cref[0] = cref[1] = cref[2] = ref;
	cmix[0] = up;
	cmix[1] = up;
	cmix[2] = lo;
	base = churn_run(ref, cref, 15, "lower");
	st = churn_run(up, cmix, 15, "stack");
	mct_diag("imperfect listings during churn, out of 15: lower %d, stack %d", base, st);
	/*
	 * A local file system lists a directory under its lock: every
	 * untouched entry exactly once, and the stack must keep that.  A
	 * network client's readdir spans several round trips and restarts
	 * when the directory changes (the lower nfs client itself listed
	 * untouched entries twice or not at all in most runs), and the two
	 * runs cannot have the same timing: there the counts are reported,
	 * and errors (open, getdents) still fail the test.
	 */
	if (!strcmp(pt_env.fstype, "tmpfs"))
		MCT_EXPECT(st == 0 && base == 0,
			   "%d imperfect listings through the stack (lower: %d) out of 15",
			   st, base);
	PT_TREE_STAT(up, lo);
}

/* ------------------------------------------------------------------ */

#define REGION (64 * 1024)

struct wr {
	char path[PATH_MAX];
	int id;
};

static int region_writer(void *p)
{
	struct wr *w = p;
	char buf[4096];
	int fd = open(w->path, O_WRONLY), k;

	if (fd < 0)
		return 90;
	for (k = 0; k < REGION / 4096; k++) {
		pt_fill(buf, sizeof(buf), (uint64_t)(w->id * 1000 + k));
		if (pwrite(fd, buf, sizeof(buf), (off_t)w->id * REGION + k * 4096) != 4096) {
			close(fd);
			return 91;
		}
		if (k % 4 == 3)
			sched_yield();
	}
	return close(fd) ? 92 : 0;
}

static int appender(void *p)
{
	struct wr *w = p;
	char rec[64];
	int fd = open(w->path, O_WRONLY | O_APPEND), k;

	if (fd < 0)
		return 90;
	for (k = 0; k < 30; k++) {
		memset(rec, '-', sizeof(rec));
		pt_snp(rec, sizeof(rec), "A%d.%02d", w->id, k);
		rec[5] = '-';
		rec[63] = '\n';
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
			close(fd);
			return 91;
		}
	}
	return close(fd) ? 92 : 0;
}

/* Checks the appended file; returns the number of problems. */
static int check_appends(const char *path, int quiet)
{
	char *b;
	size_t len, i;
	int seen[4][30] = { { 0 } }, bad = 0, w, k;

	if (pt_readfile(path, &b, &len) < 0)
		return 1;
	if (len != 4 * 30 * 64) {
		if (!quiet)
			mct_diag("appended file is %zu bytes, expected %d", len, 4 * 30 * 64);
		bad++;
	}
	for (i = 0; i + 64 <= len; i += 64) {
		if (sscanf(b + i, "A%d.%d", &w, &k) == 2 && w >= 0 && w < 4 && k >= 0 && k < 30 &&
		    b[i + 63] == '\n')
			seen[w][k]++;
		else
			bad++;
	}
	for (w = 0; w < 4; w++)
		for (k = 0; k < 30; k++)
			if (seen[w][k] != 1)
				bad++;
	free(b);
	return bad;
}

PT_TEST(concurrent_writers)
{
	char up[PATH_MAX], lo[PATH_MAX], lo2[PATH_MAX], ref[PATH_MAX];
	struct wr w[4];
	pid_t pid[4];
	char *b, expect[4096];
	size_t len;
	int i, k, base, st;

	pt_snp(up, sizeof(up), "%s/regions", c->up);
	pt_snp(lo, sizeof(lo), "%s/regions", c->lo);
	pt_snp(lo2, sizeof(lo2), "%s/regions", c->lo2);
	MCT_ASSERT(pt_writefile(up, "", 0, 0644) == 0, "create: %s", strerror(errno));
	MCT_ASSERT(truncate(up, 4 * REGION) == 0, "truncate: %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		/* two writers through the stack, one on the lower, one on the other client */
		pt_snp(w[i].path, sizeof(w[i].path), "%s", i < 2 ? up : i == 2 ? lo : lo2);
		w[i].id = i;
		pid[i] = pt_spawn(region_writer, &w[i]);
	}
	for (i = 0; i < 4; i++)
		MCT_EXPECT(pt_wait(pid[i]) == 0, "writer %d failed", i);
	MCT_ASSERT(pt_readfile(lo, &b, &len) == 0, "read: %s", strerror(errno));
	MCT_EXPECT(len == 4 * REGION, "size %zu, expected %d", len, 4 * REGION);
	for (i = 0; i < 4 && len == 4 * REGION; i++) {
		for (k = 0; k < REGION / 4096; k++) {
			pt_fill(expect, sizeof(expect), (uint64_t)(i * 1000 + k));
			if (memcmp(b + i * REGION + k * 4096, expect, 4096)) {
				mct_fail_at(__FILE__, __LINE__,
					    "region %d (%s) block %d differs on the lower", i,
					    i < 2 ? "stack" : i == 2 ? "lower" : "other client", k);
				break;
			}
		}
	}
	free(b);
	PT_PATH_STAT_SAME(up, lo, 0);

	/* concurrent O_APPEND writers: baseline on the lower, then the stack */
	pt_snp(up, sizeof(up), "%s/appends", c->up);
	pt_snp(lo, sizeof(lo), "%s/appends", c->lo);
	pt_snp(ref, sizeof(ref), "%s/appends", c->ref);
	MCT_ASSERT(pt_writefile(ref, "", 0, 0644) == 0, "create: %s", strerror(errno));
	MCT_ASSERT(pt_writefile(up, "", 0, 0644) == 0, "create: %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		pt_snp(w[i].path, sizeof(w[i].path), "%s", ref);
		w[i].id = i;
		pid[i] = pt_spawn(appender, &w[i]);
	}
	for (i = 0; i < 4; i++)
		pt_wait(pid[i]);
	base = check_appends(ref, 1);
	for (i = 0; i < 4; i++) {
		pt_snp(w[i].path, sizeof(w[i].path), "%s", up);
		pid[i] = pt_spawn(appender, &w[i]);
	}
	for (i = 0; i < 4; i++)
		MCT_EXPECT(pt_wait(pid[i]) == 0, "appender %d failed", i);
	st = check_appends(lo, 0);
	if (base)
		mct_diag("the lower itself loses/garbles %d appended records", base);
	MCT_EXPECT(st <= base, "%d appended records lost or garbled through the stack (lower: %d)",
		   st, base);
	PT_PATH_STAT_SAME(up, lo, 0);
}

PT_MAIN()
