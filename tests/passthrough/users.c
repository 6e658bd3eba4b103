// SPDX-License-Identifier: GPL-2.0
/*
 * users.c - permission checks for an unprivileged user (MC_TEST_UID/GID)
 * through metacache: EACCES/EPERM exactly where the lower gives them, and
 * the same owner and mode for what the user creates.
 */
#include "ptlib.h"

#include <sys/xattr.h>

#define SETUP(cond, what)						\
	do {								\
		if (!(cond))						\
			pt_fail_at(__FILE__, __LINE__, "%s setup: %s: %s", \
				   r->sidename, (what), pt_errname(errno)); \
	} while (0)

struct reach {
	const char *a, *b;
};

static int reach_fn(void *p)
{
	struct reach *r = p;

	return (access(r->a, X_OK) == 0 ? 0 : 1) | (access(r->b, X_OK) == 0 ? 0 : 2);
}

/* The unprivileged user must be able to reach the work directories.
 * Returns 0, or skips/fails the test and returns -1. */
static int check_reach(struct pt_ctx *c)
{
	struct reach r = { c->up, c->ref };
	int rc = pt_as_user(pt_env.uid, pt_env.gid, 022, reach_fn, &r);

	if (rc & 2) {
		pt_skip_msg("uid %u cannot reach %s on the lower itself (a parent directory is not searchable)",
			    (unsigned)pt_env.uid, c->ref);
		return -1;
	}
	if (rc) {
		pt_fail_at(__FILE__, __LINE__, "uid %u cannot reach %s through the stack (exit %d)",
			   (unsigned)pt_env.uid, c->up, rc);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static void setup_matrix(struct pt_run *r)
{
	static const struct { const char *name; mode_t mode; int dir; } t[] = {
		{ "priv", 0700, 1 }, { "priv/f", 0644, 0 }, { "priv/sub", 0755, 1 },
		{ "pub", 0755, 1 }, { "pub/secret", 0600, 0 }, { "pub/readable", 0644, 0 },
		{ "pub/exec", 0755, 0 },
		{ "xonly", 0711, 1 }, { "xonly/f", 0644, 0 },
		{ "ronly", 0744, 1 }, { "ronly/f", 0644, 0 },
		{ "wx", 0733, 1 }, { "wx/f", 0644, 0 }, { "wx/g", 0644, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].dir)
			SETUP(mkdirat(r->dfd, t[i].name, t[i].mode) == 0, t[i].name);
		else
			SETUP(pt_writefileat(r->dfd, t[i].name, "content", 7, t[i].mode) == 0,
			      t[i].name);
		SETUP(fchmodat(r->dfd, t[i].name, t[i].mode, 0) == 0, t[i].name);
	}
}

static void seq_matrix(struct pt_run *r)
{
	struct stat st;
	char buf[32];
	int fd;

	/* 0700 directory of root */
	PT_FDERR(r, EACCES, openat(r->dfd, "priv/f", O_RDONLY));
	PT_FDERR(r, EACCES, openat(r->dfd, "priv", O_RDONLY | O_DIRECTORY));
	PT_ERR(r, EACCES, fstatat(r->dfd, "priv/f", &st, 0));
	PT_OK(r, fstatat(r->dfd, "priv", &st, 0));
	PT_FDERR(r, EACCES, openat(r->dfd, "priv/new", O_CREAT | O_WRONLY, 0644));
	PT_ERR(r, EACCES, unlinkat(r->dfd, "priv/f", 0));
	PT_ERR(r, EACCES, mkdirat(r->dfd, "priv/d", 0755));
	PT_ERR(r, EACCES, unlinkat(r->dfd, "priv/sub", AT_REMOVEDIR));
	PT_ERR(r, EACCES, faccessat(r->dfd, "priv/f", F_OK, 0));
	/* 0755 directory: 0600 / 0644 / 0755 files of root */
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/secret", O_RDONLY));
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/secret", O_WRONLY));
	fd = PT_FD(r, openat(r->dfd, "pub/secret", O_PATH));
	if (fd >= 0)
		close(fd);
	fd = PT_FD(r, openat(r->dfd, "pub/readable", O_RDONLY));
	if (fd >= 0) {
		ssize_t n = PT_OK(r, read(fd, buf, sizeof(buf)));

		PT_BUF(r, "pub/readable", buf, n);
		close(fd);
	}
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/readable", O_WRONLY));
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/readable", O_RDWR));
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/readable", O_RDONLY | O_TRUNC));
	PT_FDERR(r, EACCES, openat(r->dfd, "pub/new", O_CREAT | O_WRONLY, 0644));
	PT_ERR(r, EACCES, unlinkat(r->dfd, "pub/readable", 0));
	PT_ERR(r, EACCES, renameat(r->dfd, "pub/readable", r->dfd, "pub/x"));
	PT_ERR(r, EACCES, renameat(r->dfd, "pub/readable", r->dfd, "wx/x"));
	PT_ERR(r, EACCES, truncate(pt_path(r, "pub/readable"), 0));
	PT_ERR(r, EACCES, utimensat(r->dfd, "pub/readable", NULL, 0));
	PT_ANY(r, setxattr(pt_path(r, "pub/readable"), "user.x", "1", 1, 0));
	PT_OK(r, faccessat(r->dfd, "pub/readable", R_OK, 0));
	PT_ERR(r, EACCES, faccessat(r->dfd, "pub/readable", W_OK, 0));
	PT_ERR(r, EACCES, faccessat(r->dfd, "pub/readable", X_OK, 0));
	PT_OK(r, faccessat(r->dfd, "pub/exec", X_OK, 0));
	PT_ERR(r, EACCES, faccessat(r->dfd, "pub/secret", R_OK, AT_EACCESS));
	/* 0711: search only */
	PT_FDERR(r, EACCES, openat(r->dfd, "xonly", O_RDONLY | O_DIRECTORY));
	PT_OK(r, fstatat(r->dfd, "xonly/f", &st, 0));
	fd = PT_FD(r, openat(r->dfd, "xonly/f", O_RDONLY));
	if (fd >= 0)
		close(fd);
	/* 0744: read but no search */
	fd = PT_FD(r, openat(r->dfd, "ronly", O_RDONLY | O_DIRECTORY));
	if (fd >= 0)
		close(fd);
	PT_ERR(r, EACCES, fstatat(r->dfd, "ronly/f", &st, 0));
	PT_FDERR(r, EACCES, openat(r->dfd, "ronly/f", O_RDONLY));
	/* 0733: write + search, no read */
	PT_FDERR(r, EACCES, openat(r->dfd, "wx", O_RDONLY | O_DIRECTORY));
	fd = PT_FD(r, openat(r->dfd, "wx/mine", O_CREAT | O_EXCL | O_WRONLY, 0644));
	if (fd >= 0) {
		PT_OK(r, write(fd, "mine", 4));
		close(fd);
	}
	pt_rec_stat(r, "wx/mine", 0);
	PT_OK(r, renameat(r->dfd, "wx/mine", r->dfd, "wx/mine2"));
	PT_OK(r, unlinkat(r->dfd, "wx/f", 0));	/* root's file, no sticky bit */
	PT_OK(r, renameat(r->dfd, "wx/g", r->dfd, "wx/g2"));
	PT_OK(r, mkdirat(r->dfd, "wx/mydir", 0700));
	pt_rec_stat(r, "wx/mydir", 0);
	PT_ERR(r, EACCES, mkdirat(r->dfd, "mine-top", 0755));	/* 0755 work dir */
}

PT_TEST(eacces_matrix)
{
	if (check_reach(c))
		return;
	PT_BOTH_SPEC(c, &((struct pt_spec){ .sub = "matrix", .setup = setup_matrix,
					      .seq = seq_matrix, .as_user = 1,
					      .umask = 022 }));
}

/* ------------------------------------------------------------------ */

static void seq_create(struct pt_run *r)
{
	mode_t mask = umask(0);
	struct stat dst;
	gid_t wantgid = pt_env.gid;
	int fd;

	umask(mask);
	if (fstat(r->dfd, &dst) == 0 && (dst.st_mode & S_ISGID))
		wantgid = dst.st_gid;	/* inherited from a setgid directory */
	fd = PT_FD(r, openat(r->dfd, "file", O_CREAT | O_EXCL | O_WRONLY, 0666));
	if (fd >= 0) {
		struct stat st;

		PT_OK(r, write(fd, "x", 1));
		PT_OK(r, fstat(fd, &st));
		pt_rec_valx(r, "file.uid", st.st_uid, pt_env.uid);
		pt_rec_valx(r, "file.gid", st.st_gid, wantgid);
		pt_rec_valx(r, "file.mode", st.st_mode, S_IFREG | (0666 & ~mask));
		PT_OK(r, close(fd));
	}
	PT_OK(r, mkdirat(r->dfd, "dir", 0777));
	pt_rec_stat(r, "dir", 0);
	PT_ANY(r, mkfifoat(r->dfd, "fifo", 0666));
	pt_rec_stat(r, "fifo", 0);
	PT_ANY(r, symlinkat("file", r->dfd, "link"));
	pt_rec_stat(r, "link", AT_SYMLINK_NOFOLLOW);
	PT_OK(r, mknodat(r->dfd, "node", S_IFREG | 0640, 0));
	pt_rec_stat(r, "node", 0);
	fd = PT_FD(r, openat(r->dfd, "sgid", O_CREAT | O_WRONLY, 02755));
	if (fd >= 0)
		close(fd);
	pt_rec_stat(r, "sgid", 0);
	fd = PT_FDANY(r, openat(r->dfd, ".", O_TMPFILE | O_WRONLY, 0640));
	if (fd >= 0) {
		struct stat st;

		PT_OK(r, fstat(fd, &st));
		PT_VAL(r, "tmpfile mode", st.st_mode);
		PT_VAL(r, "tmpfile uid", st.st_uid);
		PT_ANY(r, linkat(fd, "", r->dfd, "tmp-linked", AT_EMPTY_PATH));	/* needs CAP */
		close(fd);
	}
	/* root's existing file: O_CREAT without O_EXCL opens it, owner unchanged */
	fd = PT_FDANY(r, openat(r->dfd, "rootfile", O_CREAT | O_RDONLY, 0600));
	if (fd >= 0)
		close(fd);
	pt_rec_stat(r, "rootfile", 0);
	/* the owner may chmod and chgrp to its own group, not give it away */
	PT_OK(r, fchmodat(r->dfd, "file", 0604, 0));
	pt_rec_stat(r, "file", 0);
	PT_OK(r, fchownat(r->dfd, "file", (uid_t)-1, pt_env.gid, 0));
	PT_ERR(r, EPERM, fchownat(r->dfd, "file", 0, (gid_t)-1, 0));
	PT_ERR(r, EPERM, fchownat(r->dfd, "file", (uid_t)-1, 0, 0));
	PT_OK(r, utimensat(r->dfd, "file", (struct timespec[2]){ { 1e9, 0 }, { 1e9, 0 } }, 0));
	PT_OK(r, truncate(pt_path(r, "file"), 3));
	PT_ANY(r, setxattr(pt_path(r, "file"), "user.mine", "v", 1, 0));
	pt_rec_stat(r, "file", 0);
}

static void setup_create(struct pt_run *r)
{
	SETUP(pt_writefileat(r->dfd, "rootfile", "root", 4, 0644) == 0, "rootfile");
}

PT_TEST(create_owner_umask)
{
	if (check_reach(c))
		return;
	PT_BOTH_SPEC(c, &((struct pt_spec){ .sub = "um022", .setup = setup_create,
					      .seq = seq_create, .as_user = 1,
					      .umask = 022, .submode = 0777 }));
	PT_BOTH_SPEC(c, &((struct pt_spec){ .sub = "um077", .setup = setup_create,
					      .seq = seq_create, .as_user = 1,
					      .umask = 077, .submode = 0777 }));
	/* setgid directory owned by root:root: new entries get gid 0 */
	PT_BOTH_SPEC(c, &((struct pt_spec){ .sub = "sgid", .setup = setup_create,
					      .seq = seq_create, .as_user = 1,
					      .umask = 022, .submode = 02777 }));
}

/* ------------------------------------------------------------------ */

static void setup_nonowner(struct pt_run *r)
{
	SETUP(pt_writefileat(r->dfd, "f", "root file", 9, 0644) == 0, "f");
	SETUP(pt_writefileat(r->dfd, "shared", "shared", 6, 0666) == 0, "shared");
	SETUP(fchmodat(r->dfd, "shared", 06666, 0) == 0, "chmod shared");
	SETUP(pt_writefileat(r->dfd, "suid", "suid", 4, 0666) == 0, "suid");
	SETUP(fchmodat(r->dfd, "suid", 04777, 0) == 0, "chmod suid");
	SETUP(mkdirat(r->dfd, "sticky", 0777) == 0, "sticky");
	SETUP(fchmodat(r->dfd, "sticky", 01777, 0) == 0, "chmod sticky");
	SETUP(pt_writefileat(r->dfd, "sticky/rootfile", "r", 1, 0666) == 0, "rootfile");
	SETUP(fchmodat(r->dfd, "sticky/rootfile", 0666, 0) == 0, "chmod rootfile");
	SETUP(pt_writefileat(r->dfd, "sticky/userfile", "u", 1, 0644) == 0, "userfile");
	SETUP(fchownat(r->dfd, "sticky/userfile", pt_env.uid, pt_env.gid, 0) == 0,
	      "chown userfile");
}

static void seq_nonowner(struct pt_run *r)
{
	struct timespec ts[2] = { { 1e9, 0 }, { 1e9, 0 } };
	int fd;

	PT_ERR(r, EPERM, fchmodat(r->dfd, "f", 0666, 0));
	PT_ERR(r, EPERM, fchownat(r->dfd, "f", pt_env.uid, pt_env.gid, 0));
	PT_ERR(r, EPERM, fchownat(r->dfd, "f", (uid_t)-1, pt_env.gid, 0));
	PT_ERR(r, EPERM, utimensat(r->dfd, "f", ts, 0));
	PT_ERR(r, EACCES, utimensat(r->dfd, "f", NULL, 0));
	PT_ERR(r, EACCES, truncate(pt_path(r, "f"), 0));
	PT_ANY(r, setxattr(pt_path(r, "f"), "user.x", "1", 1, 0));
	PT_ANY(r, removexattr(pt_path(r, "f"), "user.x"));
	/* writable by all, but not ours */
	PT_OK(r, utimensat(r->dfd, "shared", NULL, 0));
	PT_ERR(r, EPERM, utimensat(r->dfd, "shared", ts, 0));
	PT_ERR(r, EPERM, fchmodat(r->dfd, "shared", 0600, 0));
	fd = PT_FD(r, openat(r->dfd, "suid", O_WRONLY));
	if (fd >= 0) {
		PT_OK(r, write(fd, "write strips suid", 17));	/* kills S_ISUID */
		PT_OK(r, close(fd));
	}
	pt_rec_stat(r, "suid", 0);
	fd = PT_FD(r, openat(r->dfd, "shared", O_WRONLY));
	if (fd >= 0) {
		PT_OK(r, write(fd, "x", 1));
		PT_OK(r, close(fd));
	}
	pt_rec_stat(r, "shared", 0);
	PT_OK(r, truncate(pt_path(r, "shared"), 2));
	/* sticky directory */
	PT_ERR(r, EPERM, unlinkat(r->dfd, "sticky/rootfile", 0));
	PT_ERR(r, EPERM, renameat(r->dfd, "sticky/rootfile", r->dfd, "sticky/x"));
	PT_OK(r, renameat(r->dfd, "sticky/userfile", r->dfd, "sticky/userfile2"));
	PT_OK(r, unlinkat(r->dfd, "sticky/userfile2", 0));
	fd = PT_FD(r, openat(r->dfd, "sticky/mine", O_CREAT | O_WRONLY, 0600));
	if (fd >= 0)
		close(fd);
	PT_ERR(r, EPERM, renameat(r->dfd, "sticky/mine", r->dfd, "sticky/rootfile"));
	PT_ANY(r, linkat(r->dfd, "f", r->dfd, "sticky/hl", 0));	/* protected_hardlinks */
	PT_ERR(r, EPERM, fchmodat(r->dfd, "sticky", 0777, 0));
	pt_rec_stat(r, "sticky/mine", 0);
}

PT_TEST(nonowner_perm)
{
	if (check_reach(c))
		return;
	PT_BOTH_SPEC(c, &((struct pt_spec){ .sub = "nonowner", .setup = setup_nonowner,
					      .seq = seq_nonowner, .as_user = 1,
					      .umask = 022, .submode = 0755 }));
}

PT_MAIN()
