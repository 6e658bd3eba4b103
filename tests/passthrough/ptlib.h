/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptlib.h - shared helpers for metacache's pass-through tests.
 *
 * The method: run one operation sequence twice, once in a work directory
 * reached through the metacache mount ($MC_UPPER) and once in a reference
 * directory directly on the lower file system ($MC_LOWER), record every
 * return value, errno and observed value, and compare:
 *
 *  1. the two recordings step by step (same result, same errno);
 *  2. the resulting trees seen FROM THE LOWER SIDE ($MC_LOWER/<work dir>
 *     against $MC_LOWER/<reference dir>): names, types, modes, owners,
 *     nlink, sizes, contents, symlink targets, xattrs;
 *  3. every object stat()ed through the stack against the same object
 *     stat()ed on the lower (mode, uid, gid, size, nlink, ino, mtime, ...).
 *
 * Where the lower itself refuses a step that a local Linux file system
 * accepts, the comparison still has to match, and the test prints
 * "# lower refuses <step>: <errno>" so that it is visible.
 *
 * Environment (set by the guest runner): MC_FSTYPE, MC_LOWER, MC_UPPER,
 * MC_SERVER, MC_LOWER2, MC_TEST_UID, MC_TEST_GID.  MCT_SEED overrides the
 * seed of the randomised tests.
 *
 * A test is written as
 *
 *	PT_TEST(name)
 *	{
 *		... c is a struct pt_ctx * with the work directories ...
 *	}
 *
 * which creates $MC_UPPER/pt.<name>.<pid> (through the stack) and
 * $MC_LOWER/pt.<name>.<pid>.ref, runs the body and removes both again,
 * also when the body failed or skipped (not on a timeout kill).
 */
#ifndef PTLIB_H
#define PTLIB_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* environment */

struct pt_env {
	const char *fstype;	/* tmpfs | nfs | cifs | other */
	const char *lower;
	const char *upper;
	const char *server;
	const char *lower2;
	uid_t uid;
	gid_t gid;
	int emulated;		/* MC_UPPER and MC_LOWER on one super block: no stacking */
};
extern struct pt_env pt_env;

/* True when MC_FSTYPE is NAME. */
int pt_fs(const char *name);

/* ------------------------------------------------------------------ */
/* per-test context */

struct pt_ctx {
	char name[64];
	char up[PATH_MAX];	/* $MC_UPPER/pt.<name>.<pid>: stacked work dir */
	char lo[PATH_MAX];	/* $MC_LOWER/pt.<name>.<pid>: the same, on the lower */
	char ref[PATH_MAX];	/* $MC_LOWER/pt.<name>.<pid>.ref: reference dir */
	char srv[PATH_MAX];	/* $MC_SERVER/pt.<name>.<pid>: what the server sees */
	char lo2[PATH_MAX];	/* $MC_LOWER2/pt.<name>.<pid>: the other client */
	char ref2[PATH_MAX];	/* $MC_LOWER2/pt.<name>.<pid>.ref */
	uint64_t seed;
};

/* Failure/skip reporting, routed to the harness of the test program. */
void pt_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pt_skip_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pt_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pt_failed(void);
extern void (*pt_hook_fail)(const char *msg);
extern void (*pt_hook_skip)(const char *msg);
extern int (*pt_hook_failed)(void);

int pt_begin(struct pt_ctx *c, const char *name);
void pt_end(struct pt_ctx *c);

/* Build "a/b" into a static rotating buffer (16 slots). */
const char *pt_join(const char *a, const char *b);

/* ------------------------------------------------------------------ */
/* recorded operation sequences */

enum { PT_UP = 0, PT_REF = 1 };
enum { PT_K_RET, PT_K_FD, PT_K_VAL, PT_K_BUF };
#define PT_EXP_OK	(-1)	/* a local Linux fs succeeds */
#define PT_EXP_ANY	(-2)	/* no expectation, only compare */

struct pt_step {
	char label[112];
	int kind;
	int expect;
	long long ret;
	int err;
	uint64_t hash;
	char snip[40];
};

#define PT_MAX_STEPS 1200

struct pt_run {
	struct pt_ctx *c;
	int side;		/* PT_UP or PT_REF */
	const char *sidename;	/* "stack" or "lower" */
	char dir[PATH_MAX];	/* absolute path of this side's directory */
	int dfd;		/* O_DIRECTORY fd of dir */
	void *arg;
	struct pt_step *steps;	/* shared memory: usable from children */
	int *nsteps;
};

struct pt_outcome {
	int mismatches;
	int ref_refused_first;	/* the lower refused step 1 */
	int ref_first_err;
	char first_label[112];
	int nrefused;		/* expected-success steps the lower refused */
};

long long pt_rec(struct pt_run *r, const char *label, int kind, int expect,
		 long long ret, int err);
void pt_rec_buf(struct pt_run *r, const char *label, const void *buf,
		long long len);
void pt_rec_str(struct pt_run *r, const char *label, const char *s);
/* Records fstatat(name): result, then type+mode, nlink, size, uid, gid. */
int pt_rec_stat(struct pt_run *r, const char *name, int flags);
/* Records the whole content of NAME (read through this side). */
int pt_rec_content(struct pt_run *r, const char *name);
/* Records a value; on the lower side diag when it is not EXPECTED. */
void pt_rec_valx(struct pt_run *r, const char *label, long long v,
		 long long expected);
/* Path of NAME inside the run's directory (rotating static buffer). */
const char *pt_path(struct pt_run *r, const char *name);

#define PT__DO(r, kind, expect, label, expr)				\
	({								\
		errno = 0;						\
		long long _pt_v = (long long)(expr);			\
		int _pt_e = errno;					\
		_pt_v = pt_rec((r), (label), (kind), (expect), _pt_v, _pt_e); \
		errno = _pt_e;						\
		_pt_v;							\
	})

/* Expected to succeed on a local fs; compares the return value. */
#define PT_OK(r, ...)  PT__DO(r, PT_K_RET, PT_EXP_OK, #__VA_ARGS__, (__VA_ARGS__))
/* Returns a file descriptor: only "fd or -1/errno" is compared. */
#define PT_FD(r, ...)  PT__DO(r, PT_K_FD, PT_EXP_OK, #__VA_ARGS__, (__VA_ARGS__))
/* Expected to fail with errno E on a local fs. */
#define PT_ERR(r, E, ...) PT__DO(r, PT_K_RET, (E), #__VA_ARGS__, (__VA_ARGS__))
/*
 * An open expected to fail: an fd the lower gives anyway is recorded and
 * closed.  Left open it would hold the file until the test ends; on cifs an
 * unlinked file stays "delete pending" while open, and its name keeps the
 * test's directory from being removed.
 */
#define PT_FDERR(r, E, ...) \
	pt_fd_drop(PT__DO(r, PT_K_FD, (E), #__VA_ARGS__, (__VA_ARGS__)))
/* No expectation at all. */
#define PT_ANY(r, ...) PT__DO(r, PT_K_RET, PT_EXP_ANY, #__VA_ARGS__, (__VA_ARGS__))
#define PT_FDANY(r, ...) PT__DO(r, PT_K_FD, PT_EXP_ANY, #__VA_ARGS__, (__VA_ARGS__))

static inline long long pt_fd_drop(long long fd)
{
	if (fd >= 0)
		close((int)fd);
	return fd;
}
#define PT_VAL(r, label, v) pt_rec((r), (label), PT_K_VAL, PT_EXP_ANY, (long long)(v), 0)
#define PT_BUF(r, label, b, n) pt_rec_buf((r), (label), (b), (n))

typedef void (*pt_seq_fn)(struct pt_run *r);

struct pt_spec {
	const char *sub;	/* subdirectory name, unique within the test */
	pt_seq_fn setup;	/* optional, runs as root before seq */
	pt_seq_fn seq;
	void *arg;
	int as_user;		/* run seq as MC_TEST_UID/GID in a child */
	mode_t submode;		/* chmod of the subdirectory (0: 0755) */
	mode_t umask;		/* umask for seq (as_user only; else 022) */
	int no_tree;		/* skip the tree comparison */
};

struct pt_outcome pt_both_at(const char *file, int line, struct pt_ctx *c,
			     const struct pt_spec *spec);
#define PT_BOTH(c_, sub_, fn_, arg_)					\
	pt_both_at(__FILE__, __LINE__, (c_),				\
		   &(struct pt_spec){ .sub = (sub_), .seq = (fn_), .arg = (arg_) })
#define PT_BOTH_SPEC(c, spec) pt_both_at(__FILE__, __LINE__, (c), (spec))

/* Skip the test when the lower itself refused the first step (and the
 * stack matched, which pt_both already checked). */
#define PT_SKIP_IF_REFUSED(o, ...)					\
	do {								\
		if ((o).ref_refused_first && !(o).mismatches) {		\
			char _why[160];					\
			pt_snp(_why, sizeof(_why), __VA_ARGS__);	\
			MCT_SKIP("%s: %s gives %s on the lower itself (the stack gives the same)", \
				 _why, (o).first_label,			\
				 pt_errname((o).ref_first_err));	\
		}							\
	} while (0)

/* ------------------------------------------------------------------ */
/* comparisons (each reports its own failures, returns their number) */

int pt_tree_cmp_at(const char *file, int line, const char *a, const char *b);
int pt_tree_stat_at(const char *file, int line, const char *up, const char *lo);
int pt_stat_same_at(const char *file, int line, const char *what,
		    const struct stat *up, const struct stat *lo);
int pt_path_stat_same_at(const char *file, int line, const char *up,
			 const char *lo, int flags);
int pt_statx_same_at(const char *file, int line, const char *up,
		     const char *lo, int flags, unsigned int mask);
#define PT_TREE_SAME(a, b) pt_tree_cmp_at(__FILE__, __LINE__, (a), (b))
#define PT_TREE_STAT(up, lo) pt_tree_stat_at(__FILE__, __LINE__, (up), (lo))
#define PT_STAT_SAME(what, up, lo) pt_stat_same_at(__FILE__, __LINE__, (what), (up), (lo))
#define PT_PATH_STAT_SAME(up, lo, fl) pt_path_stat_same_at(__FILE__, __LINE__, (up), (lo), (fl))
#define PT_STATX_SAME(up, lo, fl, m) pt_statx_same_at(__FILE__, __LINE__, (up), (lo), (fl), (m))

/* ------------------------------------------------------------------ */
/* small utilities */

/* snprintf() that -Wformat-truncation does not second-guess: truncating
 * an over-long test path is harmless. */
int pt_snp(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *pt_errname(int e);
const char *pt_esc(const char *s);	/* printable form, rotating buffer */

struct pt_names {
	char **v;
	int n;
};
int pt_listdir(const char *dir, struct pt_names *out);	/* sorted, no . .. */
void pt_names_free(struct pt_names *n);
int pt_names_has(const struct pt_names *n, const char *name);

int pt_rmtree(const char *path);	/* -1/errno of the first failure */
int pt_writefile(const char *path, const void *buf, size_t len, mode_t mode);
int pt_writefileat(int dfd, const char *name, const void *buf, size_t len,
		   mode_t mode);
/* Reads a whole file into a malloc()ed buffer. */
int pt_readfile(const char *path, char **buf, size_t *len);
int pt_readfileat(int dfd, const char *name, char **buf, size_t *len);
ssize_t pt_pread_full(int fd, void *buf, size_t len, off_t off);
ssize_t pt_pwrite_full(int fd, const void *buf, size_t len, off_t off);

uint64_t pt_hash(const void *buf, size_t len);
uint64_t pt_rand(uint64_t *state);
uint64_t pt_seed(const char *name);
void pt_fill(void *buf, size_t len, uint64_t seed);

/* Waits up to MS milliseconds until no ".nfs*" entry is left anywhere
 * below DIR; returns how many are left. */
int pt_wait_no_silly(const char *dir, int ms);

/* Changes made directly on the lower are seen through the stack once the
 * metacache TTLs expire (Documentation/coherence.md).  Makes them expire now:
 * drops all cached state of the mount of $MC_UPPER (debugfs "flush").  A
 * no-op without caches (TTLs 0) or without the file.  Returns 0 or -errno. */
int pt_expire(void);

/* Fork a child that drops to uid/gid (with no supplementary groups) and
 * umask, runs fn(arg) and exits with its return value.  Returns the
 * child's exit status (or 128+signal, or -1). */
int pt_as_user(uid_t uid, gid_t gid, mode_t mask, int (*fn)(void *), void *arg);
/* Fork a child running fn(arg); returns its pid. */
pid_t pt_spawn(int (*fn)(void *), void *arg);
int pt_wait(pid_t pid);	/* exit status, 128+sig, or -1 */

void pt_msleep(int ms);
double pt_now(void);

/* ------------------------------------------------------------------ */
/* glue to mctest.h, only in the test programs */
#ifndef PTLIB_IMPL
#include "mctest.h"

static inline void pt__hook_fail(const char *msg)
{
	/* the message already carries file:line */
	printf("# FAIL %s\n", msg);
	fflush(stdout);
	if (mct_sh)
		mct_sh->failed = 1;
}

static inline void pt__hook_skip(const char *msg)
{
	mct_skip_set("%s", msg);
}

static inline int pt__hook_failed(void)
{
	return MCT_FAILED();
}

static inline void pt__install(void)
{
	pt_hook_fail = pt__hook_fail;
	pt_hook_skip = pt__hook_skip;
	pt_hook_failed = pt__hook_failed;
}

/* Like MCT_TEST, but the C identifiers are prefixed so that a test may be
 * named after the system call it covers (link, rename, truncate...). */
#define PT_TEST(tname)							\
	static void pt_body_##tname(struct pt_ctx *c);			\
	static void pt_case_##tname(void)				\
	{								\
		struct pt_ctx _ctx;					\
		pt__install();						\
		if (pt_begin(&_ctx, #tname) == 0) {			\
			pt_body_##tname(&_ctx);				\
			pt_end(&_ctx);					\
		}							\
	}								\
	static void __attribute__((constructor)) pt_reg_##tname(void)	\
	{								\
		if (mct_ncases < MCT_MAX_TESTS)				\
			mct_cases[mct_ncases++] =			\
				(struct mct_case){ #tname, pt_case_##tname }; \
	}								\
	static void pt_body_##tname(struct pt_ctx *c)

#define PT_MAIN()							\
	int main(int argc, char **argv)					\
	{								\
		return mct_main(argc, argv);				\
	}
#endif /* PTLIB_IMPL */

#endif /* PTLIB_H */
