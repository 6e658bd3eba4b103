// SPDX-License-Identifier: GPL-2.0
/*
 * ptlib.c - shared helpers for metacache's pass-through tests (see ptlib.h).
 */
#define PTLIB_IMPL
#include "ptlib.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

struct pt_env pt_env;

void (*pt_hook_fail)(const char *msg);
void (*pt_hook_skip)(const char *msg);
int (*pt_hook_failed)(void);

/* ------------------------------------------------------------------ */
/* reporting */

/* Tree walks report at most this many failures each (then a summary), so
 * that one systematic difference does not flood the output. */
static int tree_quota = -1, tree_suppressed;

static void tree_quota_begin(void)
{
	tree_quota = 12;
	tree_suppressed = 0;
}

static void tree_quota_end(const char *file, int line)
{
	int n = tree_suppressed;

	tree_quota = -1;
	tree_suppressed = 0;
	if (n)
		pt_fail_at(file, line, "... and %d more differences in this tree", n);
}

void pt_fail_at(const char *file, int line, const char *fmt, ...)
{
	char msg[2048];
	int n;
	va_list ap;

	if (tree_quota == 0) {
		tree_suppressed++;	/* the test has already failed */
		return;
	}
	if (tree_quota > 0)
		tree_quota--;
	n = pt_snp(msg, sizeof(msg), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (pt_hook_fail) {
		pt_hook_fail(msg);
	} else {
		printf("# FAIL %s\n", msg);
		fflush(stdout);
	}
}

void pt_skip_msg(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pt_hook_skip)
		pt_hook_skip(msg);
}

void pt_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int pt_failed(void)
{
	return pt_hook_failed ? pt_hook_failed() : 0;
}

/* ------------------------------------------------------------------ */
/* small utilities */

int pt_snp(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(dst, n, fmt, ap);
	va_end(ap);
	return r;
}

const char *pt_errname(int e)
{
	static char buf[4][24];
	static int slot;
	char *b;

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case ETXTBSY: return "ETXTBSY";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	case EROFS: return "EROFS";
	case EMLINK: return "EMLINK";
	case EPIPE: return "EPIPE";
	case ERANGE: return "ERANGE";
	case EDEADLK: return "EDEADLK";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOLCK: return "ENOLCK";
	case ENOSYS: return "ENOSYS";
	case ENOTEMPTY: return "ENOTEMPTY";
	case ELOOP: return "ELOOP";
	case ENODATA: return "ENODATA";
	case EOVERFLOW: return "EOVERFLOW";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESTALE: return "ESTALE";
	case EREMOTEIO: return "EREMOTEIO";
	case EDQUOT: return "EDQUOT";
	case EILSEQ: return "EILSEQ";
	case EBADMSG: return "EBADMSG";
	case ENOTCONN: return "ENOTCONN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOTSOCK: return "ENOTSOCK";
	case EPROTO: return "EPROTO";
	case EUCLEAN: return "EUCLEAN";
	default:
		break;
	}
	b = buf[slot++ & 3];
	pt_snp(b, sizeof(buf[0]), "errno %d", e);
	return b;
}

const char *pt_esc(const char *s)
{
	static char buf[8][320];
	static int slot;
	char *b = buf[slot++ & 7], *p = b;
	size_t room = sizeof(buf[0]) - 8;

	*p++ = '\'';
	for (; *s && (size_t)(p - b) < room; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else if (ch == '\t') {
			*p++ = '\\';
			*p++ = 't';
		} else if (ch < 0x20 || ch == 0x7f || ch == '\\') {
			p += sprintf(p, "\\x%02x", ch);
		} else {
			*p++ = (char)ch;
		}
	}
	if (*s) {
		*p++ = '.';
		*p++ = '.';
		*p++ = '.';
	}
	*p++ = '\'';
	*p = 0;
	return b;
}

const char *pt_join(const char *a, const char *b)
{
	static char buf[16][PATH_MAX];
	static int slot;
	char *p = buf[slot++ & 15];

	pt_snp(p, PATH_MAX, "%s/%s", a, b);
	return p;
}

int pt_fs(const char *name)
{
	return pt_env.fstype && !strcmp(pt_env.fstype, name);
}

uint64_t pt_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t pt_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t pt_seed(const char *name)
{
	const char *env = getenv("MCT_SEED");

	if (env && *env)
		return strtoull(env, NULL, 0) ^ pt_hash(name, strlen(name));
	return pt_hash(name, strlen(name));
}

void pt_fill(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	uint64_t s = seed, v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = pt_rand(&s);
		p[i] = (unsigned char)(v >> ((i & 7) * 8));
	}
}

void pt_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

double pt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pt_listdir(const char *dir, struct pt_names *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int cap = 0, e;

	out->v = NULL;
	out->n = 0;
	if (!d)
		return -1;
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 64;
			out->v = realloc(out->v, (size_t)cap * sizeof(char *));
		}
		out->v[out->n++] = strdup(de->d_name);
		errno = 0;
	}
	e = errno;
	closedir(d);
	if (out->n)
		qsort(out->v, (size_t)out->n, sizeof(char *), name_cmp);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

void pt_names_free(struct pt_names *n)
{
	int i;

	for (i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	n->v = NULL;
	n->n = 0;
}

int pt_names_has(const struct pt_names *n, const char *name)
{
	const char *key = name;

	return n->n && bsearch(&key, n->v, (size_t)n->n, sizeof(char *),
			       name_cmp) != NULL;
}

int pt_rmtree(const char *arg)
{
	struct pt_names n;
	int i, pass, err = 0;
	char path[PATH_MAX];

	pt_snp(path, sizeof(path), "%s", arg);
	/* try the cheap thing first: no lstat per entry */
	if (unlink(path) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	for (pass = 0; pass < 5; pass++) {
		if (pass)
			pt_msleep(200);	/* e.g. nfs silly-renamed files */
		if (pt_listdir(path, &n) < 0) {
			err = errno;
			if (err == ENOTDIR)
				return unlink(path);
			if (err == EACCES && chmod(path, 0700) == 0)
				continue;
			break;
		}
		for (i = 0; i < n.n; i++) {
			if (pt_rmtree(pt_join(path, n.v[i])) < 0 && errno != ENOENT &&
			    !err)
				err = errno;
		}
		pt_names_free(&n);
		if (rmdir(path) == 0)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST) {
			if (!err)
				err = errno;
			break;
		}
		err = 0;
	}
	if (!err)
		err = ENOTEMPTY;
	errno = err;
	return -1;
}

ssize_t pt_pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t pt_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!n) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int pt_writefileat(int dfd, const char *name, const void *buf, size_t len,
		   mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, mode);
	int e;

	if (fd < 0)
		return -1;
	if (pt_pwrite_full(fd, buf, len, 0) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int pt_writefile(const char *path, const void *buf, size_t len, mode_t mode)
{
	return pt_writefileat(AT_FDCWD, path, buf, len, mode);
}

static int read_fd_all(int fd, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap);

	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap);
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(b);
			return -1;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int pt_readfileat(int dfd, const char *name, char **buf, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY), rc, e;

	if (fd < 0)
		return -1;
	rc = read_fd_all(fd, buf, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int pt_readfile(const char *path, char **buf, size_t *len)
{
	return pt_readfileat(AT_FDCWD, path, buf, len);
}

static int count_silly(const char *dir, int depth)
{
	struct pt_names n;
	struct stat st;
	int i, cnt = 0;

	if (pt_listdir(dir, &n) < 0)
		return 0;
	for (i = 0; i < n.n; i++) {
		const char *p = pt_join(dir, n.v[i]);

		if (!strncmp(n.v[i], ".nfs", 4)) {
			cnt++;
			continue;
		}
		if (depth < 8 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			char sub[PATH_MAX];

			pt_snp(sub, sizeof(sub), "%s", p);
			cnt += count_silly(sub, depth + 1);
		}
	}
	pt_names_free(&n);
	return cnt;
}

int pt_wait_no_silly(const char *dir, int ms)
{
	double end = pt_now() + ms / 1000.0;
	int n;

	for (;;) {
		n = count_silly(dir, 0);
		if (!n || pt_now() >= end)
			return n;
		pt_msleep(100);
	}
}

int pt_expire(void)
{
	char path[PATH_MAX], line[256];
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	if (!pt_env.upper || stat(pt_env.upper, &st) < 0)
		return -errno;
	dir = opendir("/sys/kernel/debug/metacache");
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		unsigned int maj, min;
		FILE *f;
		int fd, match = 0;

		if (de->d_name[0] == '.')
			continue;
		pt_snp(path, sizeof(path), "/sys/kernel/debug/metacache/%s/info",
		       de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "dev %u:%u", &maj, &min) == 2 &&
			    makedev(maj, min) == st.st_dev)
				match = 1;
		fclose(f);
		if (!match)
			continue;
		pt_snp(path, sizeof(path), "/sys/kernel/debug/metacache/%s/flush",
		       de->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			break;
		if (write(fd, "1\n", 2) != 2)
			ret = -errno;
		close(fd);
		break;
	}
	closedir(dir);
	return ret;
}

pid_t pt_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		int rc = fn(arg);

		fflush(stdout);
		_exit(rc);
	}
	return pid;
}

int pt_wait(pid_t pid)
{
	int st;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

struct as_user_arg {
	uid_t uid;
	gid_t gid;
	mode_t mask;
	int (*fn)(void *);
	void *arg;
};

static int as_user_trampoline(void *p)
{
	struct as_user_arg *a = p;

	if (setgroups(0, NULL) < 0 || setresgid(a->gid, a->gid, a->gid) < 0 ||
	    setresuid(a->uid, a->uid, a->uid) < 0) {
		pt_diag("cannot become %u:%u: %s", (unsigned)a->uid,
			(unsigned)a->gid, strerror(errno));
		return 99;
	}
	umask(a->mask);
	return a->fn(a->arg);
}

int pt_as_user(uid_t uid, gid_t gid, mode_t mask, int (*fn)(void *), void *arg)
{
	struct as_user_arg a = { uid, gid, mask, fn, arg };

	return pt_wait(pt_spawn(as_user_trampoline, &a));
}

/* ------------------------------------------------------------------ */
/* environment and context */

static const char *detect_fstype(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return "unknown";
	switch ((unsigned long)sf.f_type) {
	case 0x01021994UL: return "tmpfs";
	case 0x6969UL: return "nfs";
	case 0xFF534D42UL: return "cifs";
	case 0xFE534D42UL: return "cifs";
	default: return "other";
	}
}

static int env_load(char *why, size_t n)
{
	const char *up = getenv("MC_UPPER"), *lo = getenv("MC_LOWER");
	const char *s;
	char a[PATH_MAX], b[PATH_MAX];
	struct stat su, sl;

	if (!up || !*up || !lo || !*lo) {
		pt_snp(why, n, "MC_UPPER and MC_LOWER must be set (MC_UPPER=%s, MC_LOWER=%s)",
			 up ? up : "unset", lo ? lo : "unset");
		return -1;
	}
	pt_env.upper = up;
	pt_env.lower = lo;
	s = getenv("MC_SERVER");
	pt_env.server = s && *s ? s : lo;
	s = getenv("MC_LOWER2");
	pt_env.lower2 = s && *s ? s : lo;
	s = getenv("MC_FSTYPE");
	pt_env.fstype = s && *s ? s : detect_fstype(lo);
	s = getenv("MC_TEST_UID");
	pt_env.uid = s && *s ? (uid_t)strtoul(s, NULL, 10) : 65534;
	s = getenv("MC_TEST_GID");
	pt_env.gid = s && *s ? (gid_t)strtoul(s, NULL, 10) : 65534;
	/* no stacking when both paths are the same super block (a plain
	 * directory or a bind mount standing in for metacache) */
	pt_env.emulated = (realpath(up, a) && realpath(lo, b) && !strcmp(a, b)) ||
			  (stat(up, &su) == 0 && stat(lo, &sl) == 0 &&
			   su.st_dev == sl.st_dev);
	return 0;
}

int pt_begin(struct pt_ctx *c, const char *name)
{
	char why[300];
	int pid = (int)getpid();

	memset(c, 0, sizeof(*c));
	pt_snp(c->name, sizeof(c->name), "%s", name);
	if (env_load(why, sizeof(why)) < 0) {
		pt_skip_msg("%s", why);
		return -1;
	}
	umask(022);
	pt_snp(c->up, sizeof(c->up), "%s/pt.%s.%d", pt_env.upper, name, pid);
	pt_snp(c->lo, sizeof(c->lo), "%s/pt.%s.%d", pt_env.lower, name, pid);
	pt_snp(c->ref, sizeof(c->ref), "%s/pt.%s.%d.ref", pt_env.lower, name, pid);
	pt_snp(c->srv, sizeof(c->srv), "%s/pt.%s.%d", pt_env.server, name, pid);
	pt_snp(c->lo2, sizeof(c->lo2), "%s/pt.%s.%d", pt_env.lower2, name, pid);
	pt_snp(c->ref2, sizeof(c->ref2), "%s/pt.%s.%d.ref", pt_env.lower2, name, pid);
	c->seed = pt_seed(name);
	/* left over by an earlier run that was killed (same pid)? */
	if (access(c->up, F_OK) == 0)
		pt_rmtree(c->up);
	if (access(c->ref, F_OK) == 0)
		pt_rmtree(c->ref);
	if (mkdir(c->up, 0755) < 0) {
		pt_fail_at(__FILE__, __LINE__, "mkdir %s through the stack: %s",
			   c->up, pt_errname(errno));
		return -1;
	}
	if (mkdir(c->ref, 0755) < 0) {
		pt_fail_at(__FILE__, __LINE__, "mkdir %s on the lower: %s",
			   c->ref, pt_errname(errno));
		pt_rmtree(c->up);
		return -1;
	}
	return 0;
}

void pt_end(struct pt_ctx *c)
{
	struct stat st;
	int rc, e = 0;

	if (chdir("/") < 0)
		pt_diag("chdir /: %s", strerror(errno));
	if (pt_fs("nfs"))
		pt_wait_no_silly(c->lo, 2000);
	rc = pt_rmtree(c->up);
	if (rc < 0 && errno != ENOENT)
		e = errno;
	if (lstat(c->lo, &st) == 0) {
		if (rc == 0)
			pt_fail_at(__FILE__, __LINE__,
				   "cleanup: %s was removed through the stack but is still on the lower",
				   c->up);
		if (pt_rmtree(c->lo) == 0 && e)
			pt_fail_at(__FILE__, __LINE__,
				   "cleanup: removing %s through the stack failed (%s), the lower removed it",
				   c->up, pt_errname(e));
		else if (lstat(c->lo, &st) == 0)
			pt_diag("cleanup: could not remove %s: %s", c->lo,
				strerror(errno));
	}
	/*
	 * The reference tree is not under test.  On cifs it goes where the
	 * server keeps it, a local file system: removing it through the cifs
	 * client took a round trip or two per entry, a fifth to a third of
	 * the time of tests that fill directories (readdir_mutation,
	 * rewinddir).  Not on nfs, where a local unlink would wait for the
	 * client to give back a delegation.  What the server could not
	 * remove is removed through the lower.
	 */
	if (pt_fs("cifs") && strcmp(pt_env.server, pt_env.lower)) {
		char sref[PATH_MAX];

		pt_snp(sref, sizeof(sref), "%s.ref", c->srv);
		if (pt_rmtree(sref) < 0 && errno != ENOENT)
			pt_diag("cleanup: could not remove %s on the server: %s", sref,
				strerror(errno));
	}
	if (pt_rmtree(c->ref) < 0 && errno != ENOENT)
		pt_diag("cleanup: could not remove %s: %s", c->ref,
			strerror(errno));
}

/* ------------------------------------------------------------------ */
/* recorded sequences */

const char *pt_path(struct pt_run *r, const char *name)
{
	return pt_join(r->dir, name);
}

static struct pt_step *new_step(struct pt_run *r, const char *label)
{
	struct pt_step *s;
	size_t l;

	if (*r->nsteps >= PT_MAX_STEPS) {
		if (*r->nsteps == PT_MAX_STEPS)
			pt_fail_at(__FILE__, __LINE__, "too many steps");
		(*r->nsteps)++;
		return NULL;
	}
	s = &r->steps[(*r->nsteps)++];
	memset(s, 0, sizeof(*s));
	l = strlen(label);
	if (l < sizeof(s->label)) {
		memcpy(s->label, label, l + 1);
	} else {
		memcpy(s->label, label, sizeof(s->label) - 4);
		strcpy(s->label + sizeof(s->label) - 4, "...");
	}
	return s;
}

long long pt_rec(struct pt_run *r, const char *label, int kind, int expect,
		 long long ret, int err)
{
	struct pt_step *s = new_step(r, label);

	if (!s)
		return ret;
	s->kind = kind;
	s->expect = expect;
	s->ret = (kind == PT_K_FD && ret >= 0) ? 0 : ret;
	s->err = (kind == PT_K_RET || kind == PT_K_FD) && ret < 0 ? err : 0;
	if (r->side == PT_REF && (kind == PT_K_RET || kind == PT_K_FD)) {
		if (expect == PT_EXP_OK && ret < 0)
			pt_diag("lower refuses %s: %s", s->label,
				pt_errname(err));
		else if (expect >= 0 && (ret >= 0 || err != expect))
			pt_diag("lower answers %s with %s (a local Linux fs: %s)",
				s->label, ret >= 0 ? "success" : pt_errname(err),
				pt_errname(expect));
	}
	return ret;
}

void pt_rec_valx(struct pt_run *r, const char *label, long long v,
		 long long expected)
{
	pt_rec(r, label, PT_K_VAL, PT_EXP_ANY, v, 0);
	if (r->side == PT_REF && v != expected)
		pt_diag("lower differs from a local Linux fs: %s = %lld (local: %lld)",
			label, v, expected);
}

void pt_rec_buf(struct pt_run *r, const char *label, const void *buf,
		long long len)
{
	struct pt_step *s = new_step(r, label);
	const unsigned char *p = buf;
	long long i;
	char *q;

	if (!s)
		return;
	s->kind = PT_K_BUF;
	s->expect = PT_EXP_ANY;
	s->ret = len;
	if (len < 0 || !buf)
		return;
	s->hash = pt_hash(buf, (size_t)len);
	q = s->snip;
	for (i = 0; i < len && q < s->snip + sizeof(s->snip) - 5; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			*q++ = (char)p[i];
		else
			q += sprintf(q, "\\%02x", p[i]);
	}
	*q = 0;
}

void pt_rec_str(struct pt_run *r, const char *label, const char *s)
{
	pt_rec_buf(r, label, s, s ? (long long)strlen(s) : -1);
}

int pt_rec_stat(struct pt_run *r, const char *name, int flags)
{
	struct stat st;
	char label[160];
	int rc, e;

	pt_snp(label, sizeof(label), "fstatat(%s%s)", pt_esc(name),
		 flags & AT_SYMLINK_NOFOLLOW ? ", NOFOLLOW" : "");
	errno = 0;
	rc = fstatat(r->dfd, name, &st, flags);
	e = errno;
	pt_rec(r, label, PT_K_RET, PT_EXP_ANY, rc, e);
	if (rc == 0) {
		pt_snp(label, sizeof(label), "%s.mode", pt_esc(name));
		PT_VAL(r, label, st.st_mode);
		pt_snp(label, sizeof(label), "%s.nlink", pt_esc(name));
		PT_VAL(r, label, st.st_nlink);
		if (!S_ISDIR(st.st_mode)) {
			pt_snp(label, sizeof(label), "%s.size", pt_esc(name));
			PT_VAL(r, label, st.st_size);
		}
		pt_snp(label, sizeof(label), "%s.uid", pt_esc(name));
		PT_VAL(r, label, st.st_uid);
		pt_snp(label, sizeof(label), "%s.gid", pt_esc(name));
		PT_VAL(r, label, st.st_gid);
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			pt_snp(label, sizeof(label), "%s.rdev", pt_esc(name));
			PT_VAL(r, label, st.st_rdev);
		}
	}
	errno = e;
	return rc;
}

int pt_rec_content(struct pt_run *r, const char *name)
{
	char label[160], *buf = NULL;
	size_t len = 0;
	int rc, e;

	pt_snp(label, sizeof(label), "content(%s)", pt_esc(name));
	errno = 0;
	rc = pt_readfileat(r->dfd, name, &buf, &len);
	e = errno;
	if (rc < 0) {
		pt_rec(r, label, PT_K_RET, PT_EXP_ANY, -1, e);
	} else {
		pt_rec_buf(r, label, buf, (long long)len);
		free(buf);
	}
	errno = e;
	return rc;
}

static const char *step_result(const struct pt_step *s, char *buf, size_t n)
{
	switch (s->kind) {
	case PT_K_FD:
		if (s->ret >= 0)
			pt_snp(buf, n, "fd");
		else
			pt_snp(buf, n, "%lld %s", s->ret, pt_errname(s->err));
		break;
	case PT_K_RET:
		if (s->ret >= 0)
			pt_snp(buf, n, "%lld", s->ret);
		else
			pt_snp(buf, n, "%lld %s", s->ret, pt_errname(s->err));
		break;
	case PT_K_VAL:
		pt_snp(buf, n, "%lld (0%llo)", s->ret, s->ret);
		break;
	default:
		if (s->ret < 0)
			pt_snp(buf, n, "no data");
		else
			pt_snp(buf, n, "%lld bytes \"%s\"", s->ret, s->snip);
	}
	return buf;
}

static int steps_equal(const struct pt_step *a, const struct pt_step *b)
{
	return a->kind == b->kind && a->ret == b->ret && a->err == b->err &&
	       a->hash == b->hash && !strcmp(a->label, b->label);
}

static int run_side(struct pt_ctx *c, const struct pt_spec *spec,
		    struct pt_run *r)
{
	int rc = 0;

	r->dfd = open(r->dir, O_RDONLY | O_DIRECTORY);
	if (r->dfd < 0)
		return -1;
	if (spec->setup) {
		umask(022);
		spec->setup(r);
	}
	if (spec->as_user) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (setgroups(0, NULL) < 0 ||
			    setresgid(pt_env.gid, pt_env.gid, pt_env.gid) < 0 ||
			    setresuid(pt_env.uid, pt_env.uid, pt_env.uid) < 0) {
				pt_diag("cannot become %u:%u: %s",
					(unsigned)pt_env.uid,
					(unsigned)pt_env.gid, strerror(errno));
				_exit(99);
			}
			umask(spec->umask);
			spec->seq(r);
			fflush(stdout);
			_exit(0);
		}
		rc = pt_wait(pid);
		if (rc)
			pt_fail_at(__FILE__, __LINE__,
				   "[%s] %s side: unprivileged child ended with %d",
				   spec->sub, r->sidename, rc);
	} else {
		umask(022);
		spec->seq(r);
	}
	umask(022);
	close(r->dfd);
	(void)c;
	return rc ? -1 : 0;
}

struct pt_outcome pt_both_at(const char *file, int line, struct pt_ctx *c,
			     const struct pt_spec *spec)
{
	struct pt_outcome o;
	struct pt_run r[2];
	size_t shsz = 2 * (PT_MAX_STEPS * sizeof(struct pt_step) + 64);
	char *sh;
	int side, i, n, shown = 0;
	char upd[PATH_MAX], lod[PATH_MAX], refd[PATH_MAX];

	memset(&o, 0, sizeof(o));
	pt_snp(upd, sizeof(upd), "%s/%s", c->up, spec->sub);
	pt_snp(lod, sizeof(lod), "%s/%s", c->lo, spec->sub);
	pt_snp(refd, sizeof(refd), "%s/%s", c->ref, spec->sub);
	if (mkdir(upd, 0755) < 0 || mkdir(refd, 0755) < 0) {
		pt_fail_at(file, line, "[%s] mkdir of the work dirs: %s",
			   spec->sub, pt_errname(errno));
		o.mismatches++;
		return o;
	}
	if (spec->submode) {
		chmod(upd, spec->submode);
		chmod(refd, spec->submode);
	}
	sh = mmap(NULL, shsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED) {
		pt_fail_at(file, line, "mmap: %s", strerror(errno));
		o.mismatches++;
		return o;
	}
	for (side = 0; side < 2; side++) {
		struct pt_run *p = &r[side];

		memset(p, 0, sizeof(*p));
		p->c = c;
		p->side = side;
		p->sidename = side == PT_UP ? "stack" : "lower";
		pt_snp(p->dir, sizeof(p->dir), "%s", side == PT_UP ? upd : refd);
		p->arg = spec->arg;
		p->nsteps = (int *)(sh + side * (shsz / 2));
		p->steps = (struct pt_step *)(sh + side * (shsz / 2) + 64);
		if (run_side(c, spec, p) < 0) {
			pt_fail_at(file, line, "[%s] %s side could not run: %s",
				   spec->sub, p->sidename, pt_errname(errno));
			o.mismatches++;
		}
	}

	n = *r[0].nsteps > *r[1].nsteps ? *r[0].nsteps : *r[1].nsteps;
	if (n > PT_MAX_STEPS)
		n = PT_MAX_STEPS;
	for (i = 0; i < n; i++) {
		const struct pt_step *a = i < *r[0].nsteps ? &r[0].steps[i] : NULL;
		const struct pt_step *b = i < *r[1].nsteps ? &r[1].steps[i] : NULL;
		char ra[96], rb[96];

		if (b && b->expect == PT_EXP_OK && b->ret < 0 &&
		    (b->kind == PT_K_RET || b->kind == PT_K_FD)) {
			o.nrefused++;
			if (i == 0) {
				o.ref_refused_first = 1;
				o.ref_first_err = b->err;
				pt_snp(o.first_label, sizeof(o.first_label),
					 "%s", b->label);
			}
		}
		if (a && b && steps_equal(a, b))
			continue;
		o.mismatches++;
		if (shown++ >= 8)
			continue;
		if (!a || !b) {
			pt_fail_at(file, line, "[%s] step %d `%s` only on the %s side (%s)",
				   spec->sub, i + 1, a ? a->label : b->label,
				   a ? "stack" : "lower",
				   step_result(a ? a : b, ra, sizeof(ra)));
		} else if (strcmp(a->label, b->label)) {
			pt_fail_at(file, line, "[%s] step %d: sequences diverged: stack did `%s` = %s, lower did `%s` = %s",
				   spec->sub, i + 1, a->label,
				   step_result(a, ra, sizeof(ra)), b->label,
				   step_result(b, rb, sizeof(rb)));
		} else {
			pt_fail_at(file, line, "[%s] step %d `%s`: stack %s, lower %s",
				   spec->sub, i + 1, a->label,
				   step_result(a, ra, sizeof(ra)),
				   step_result(b, rb, sizeof(rb)));
		}
	}
	if (shown > 8)
		pt_diag("[%s] ... %d more step mismatches", spec->sub, shown - 8);
	munmap(sh, shsz);

	if (pt_fs("nfs")) {
		pt_wait_no_silly(lod, 2000);
		pt_wait_no_silly(refd, 2000);
	}
	if (!spec->no_tree)
		o.mismatches += pt_tree_cmp_at(file, line, lod, refd);
	o.mismatches += pt_tree_stat_at(file, line, upd, lod);
	return o;
}

/* ------------------------------------------------------------------ */
/* comparisons */

static int xattr_names(const char *path, char ***names, int *count)
{
	static char buf[65536];
	ssize_t len = llistxattr(path, buf, sizeof(buf));
	char *p;
	int n = 0;

	*names = NULL;
	*count = 0;
	if (len < 0)
		return -1;
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		n++;
	*names = calloc((size_t)n + 1, sizeof(char *));
	n = 0;
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		(*names)[n++] = strdup(p);
	if (n)
		qsort(*names, (size_t)n, sizeof(char *), name_cmp);
	*count = n;
	return 0;
}

static void free_strv(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int xattr_cmp(const char *file, int line, const char *a, const char *b,
		     const char *rel)
{
	char **na, **nb;
	int ca, cb, ea, eb, ra, rb, i, bad = 0;

	ra = xattr_names(a, &na, &ca);
	ea = errno;
	rb = xattr_names(b, &nb, &cb);
	eb = errno;
	if (ra < 0 || rb < 0) {
		if (!(ra < 0 && rb < 0 && ea == eb)) {
			pt_fail_at(file, line, "[tree] %s: listxattr %s vs %s",
				   pt_esc(rel), ra < 0 ? pt_errname(ea) : "ok",
				   rb < 0 ? pt_errname(eb) : "ok");
			bad++;
		}
		goto out;
	}
	if (ca != cb) {
		pt_fail_at(file, line, "[tree] %s: %d xattrs vs %d in the reference",
			   pt_esc(rel), ca, cb);
		bad++;
		goto out;
	}
	for (i = 0; i < ca; i++) {
		char va[65536], vb[65536];
		ssize_t la, lb;

		if (strcmp(na[i], nb[i])) {
			pt_fail_at(file, line, "[tree] %s: xattr %s vs %s",
				   pt_esc(rel), na[i], nb[i]);
			bad++;
			continue;
		}
		la = lgetxattr(a, na[i], va, sizeof(va));
		lb = lgetxattr(b, nb[i], vb, sizeof(vb));
		if (la != lb || (la > 0 && memcmp(va, vb, (size_t)la))) {
			pt_fail_at(file, line, "[tree] %s: xattr %s value differs (%zd vs %zd bytes)",
				   pt_esc(rel), na[i], la, lb);
			bad++;
		}
	}
out:
	if (ra == 0)
		free_strv(na, ca);
	if (rb == 0)
		free_strv(nb, cb);
	return bad;
}

static int tree_cmp(const char *file, int line, const char *a, const char *b,
		    const char *rel, int depth)
{
	struct stat sa, sb;
	int bad = 0, ra, rb, ea, eb;

	ra = lstat(a, &sa);
	ea = errno;
	rb = lstat(b, &sb);
	eb = errno;
	if (ra < 0 || rb < 0) {
		if (ra < 0 && rb < 0 && ea == eb)
			return 0;
		pt_fail_at(file, line, "[tree] %s: lstat %s (work dir, on the lower) vs %s (reference)",
			   pt_esc(rel), ra < 0 ? pt_errname(ea) : "ok",
			   rb < 0 ? pt_errname(eb) : "ok");
		return 1;
	}
	if ((sa.st_mode & S_IFMT) != (sb.st_mode & S_IFMT)) {
		pt_fail_at(file, line, "[tree] %s: type 0%o vs 0%o in the reference",
			   pt_esc(rel), sa.st_mode & S_IFMT, sb.st_mode & S_IFMT);
		return 1;
	}
	if ((sa.st_mode & 07777) != (sb.st_mode & 07777) ||
	    sa.st_uid != sb.st_uid || sa.st_gid != sb.st_gid ||
	    sa.st_nlink != sb.st_nlink) {
		pt_fail_at(file, line, "[tree] %s: mode/uid/gid/nlink %04o %u %u %lu vs %04o %u %u %lu in the reference",
			   pt_esc(rel), sa.st_mode & 07777, (unsigned)sa.st_uid,
			   (unsigned)sa.st_gid, (unsigned long)sa.st_nlink,
			   sb.st_mode & 07777, (unsigned)sb.st_uid,
			   (unsigned)sb.st_gid, (unsigned long)sb.st_nlink);
		bad++;
	}
	if ((S_ISREG(sa.st_mode) || S_ISLNK(sa.st_mode)) &&
	    sa.st_size != sb.st_size) {
		pt_fail_at(file, line, "[tree] %s: size %lld vs %lld in the reference",
			   pt_esc(rel), (long long)sa.st_size,
			   (long long)sb.st_size);
		bad++;
	}
	if ((S_ISCHR(sa.st_mode) || S_ISBLK(sa.st_mode)) &&
	    sa.st_rdev != sb.st_rdev) {
		pt_fail_at(file, line, "[tree] %s: rdev differs", pt_esc(rel));
		bad++;
	}
	if (S_ISREG(sa.st_mode)) {
		char *ba = NULL, *bb = NULL;
		size_t la = 0, lb = 0;
		int rca = pt_readfile(a, &ba, &la), rcb = pt_readfile(b, &bb, &lb);

		if (rca < 0 || rcb < 0) {
			if (!(rca < 0 && rcb < 0)) {
				pt_fail_at(file, line, "[tree] %s: read %s vs %s",
					   pt_esc(rel), rca < 0 ? "fails" : "ok",
					   rcb < 0 ? "fails" : "ok");
				bad++;
			}
		} else if (la != lb || memcmp(ba, bb, la)) {
			size_t k = 0;

			while (k < la && k < lb && ba[k] == bb[k])
				k++;
			pt_fail_at(file, line, "[tree] %s: content differs at byte %zu (%zu vs %zu bytes)",
				   pt_esc(rel), k, la, lb);
			bad++;
		}
		free(ba);
		free(bb);
	} else if (S_ISLNK(sa.st_mode)) {
		char la[PATH_MAX + 1], lb[PATH_MAX + 1];
		ssize_t na = readlink(a, la, PATH_MAX), nb = readlink(b, lb, PATH_MAX);

		if (na != nb || (na > 0 && memcmp(la, lb, (size_t)na))) {
			pt_fail_at(file, line, "[tree] %s: symlink target differs",
				   pt_esc(rel));
			bad++;
		}
	}
	bad += xattr_cmp(file, line, a, b, rel);
	if (S_ISDIR(sa.st_mode) && depth < 16) {
		struct pt_names na, nb;
		int i = 0, j = 0, shown = 0;

		if (pt_listdir(a, &na) < 0 || pt_listdir(b, &nb) < 0) {
			pt_fail_at(file, line, "[tree] %s: cannot list: %s",
				   pt_esc(rel), strerror(errno));
			return bad + 1;
		}
		while (i < na.n || j < nb.n) {
			int cmp = i >= na.n ? 1 : j >= nb.n ? -1 :
				  strcmp(na.v[i], nb.v[j]);
			char ap[PATH_MAX], bp[PATH_MAX], rp[PATH_MAX];

			if (cmp) {
				if (shown++ < 10)
					pt_fail_at(file, line, "[tree] %s/%s only in the %s",
						   pt_esc(rel),
						   pt_esc(cmp < 0 ? na.v[i] : nb.v[j]),
						   cmp < 0 ? "work dir (seen on the lower)" : "reference dir");
				bad++;
				if (cmp < 0)
					i++;
				else
					j++;
				continue;
			}
			pt_snp(ap, sizeof(ap), "%s/%s", a, na.v[i]);
			pt_snp(bp, sizeof(bp), "%s/%s", b, nb.v[j]);
			pt_snp(rp, sizeof(rp), "%s/%s", rel, na.v[i]);
			bad += tree_cmp(file, line, ap, bp, rp, depth + 1);
			i++;
			j++;
		}
		pt_names_free(&na);
		pt_names_free(&nb);
	}
	return bad;
}

int pt_tree_cmp_at(const char *file, int line, const char *a, const char *b)
{
	const char *rel = strrchr(a, '/');
	int bad;

	tree_quota_begin();
	bad = tree_cmp(file, line, a, b, rel ? rel + 1 : a, 0);
	tree_quota_end(file, line);
	return bad;
}

#define TS_NE(a, b) ((a).tv_sec != (b).tv_sec || (a).tv_nsec != (b).tv_nsec)

/* Describes the differences between two stats into D; returns their number. */
static int stat_diff(const struct stat *u, const struct stat *l, char *d, size_t dn)
{
	int n = 0, cnt = 0;

	d[0] = 0;
#define F(cond, ...)							\
	do {								\
		if (cond) {						\
			cnt++;						\
			n += pt_snp(d + n, dn > (size_t)n ? dn - (size_t)n : 0, __VA_ARGS__); \
		}							\
	} while (0)
	F(u->st_mode != l->st_mode, " mode 0%o/0%o", u->st_mode, l->st_mode);
	F(u->st_uid != l->st_uid, " uid %u/%u", (unsigned)u->st_uid, (unsigned)l->st_uid);
	F(u->st_gid != l->st_gid, " gid %u/%u", (unsigned)u->st_gid, (unsigned)l->st_gid);
	F(u->st_size != l->st_size, " size %lld/%lld", (long long)u->st_size, (long long)l->st_size);
	F(u->st_nlink != l->st_nlink, " nlink %lu/%lu", (unsigned long)u->st_nlink, (unsigned long)l->st_nlink);
	F(u->st_ino != l->st_ino, " ino %llu/%llu", (unsigned long long)u->st_ino, (unsigned long long)l->st_ino);
	F(u->st_rdev != l->st_rdev, " rdev %llx/%llx", (unsigned long long)u->st_rdev, (unsigned long long)l->st_rdev);
	F(u->st_blocks != l->st_blocks, " blocks %lld/%lld", (long long)u->st_blocks, (long long)l->st_blocks);
	F(TS_NE(u->st_mtim, l->st_mtim), " mtime %lld.%09ld/%lld.%09ld",
	  (long long)u->st_mtim.tv_sec, u->st_mtim.tv_nsec,
	  (long long)l->st_mtim.tv_sec, l->st_mtim.tv_nsec);
	F(TS_NE(u->st_ctim, l->st_ctim), " ctime %lld.%09ld/%lld.%09ld",
	  (long long)u->st_ctim.tv_sec, u->st_ctim.tv_nsec,
	  (long long)l->st_ctim.tv_sec, l->st_ctim.tv_nsec);
#undef F
	return cnt;
}

int pt_stat_same_at(const char *file, int line, const char *what,
		    const struct stat *u, const struct stat *l)
{
	char d[512];

	if (!stat_diff(u, l, d, sizeof(d)))
		return 0;
	pt_fail_at(file, line, "stat through the stack differs from the lower for %s (stack/lower):%s",
		   pt_esc(what), d);
	return 1;
}

/*
 * stat() of one object through the stack and on the lower.  A difference
 * is re-checked twice (lower first, then stack) before it is reported: a
 * lower client may refresh its attribute cache between the two calls
 * (cifs actimeo), which is not the stack's doing; a stack that really
 * reports other attributes keeps doing so.
 */
static int stat_pair(const char *file, int line, const char *up, const char *lo,
		     int flags, struct stat *su, struct stat *sl)
{
	int ru, rl, eu, el, attempt;
	char d[512], first[512];

	for (attempt = 0; attempt < 3; attempt++) {
		if (attempt) {
			rl = fstatat(AT_FDCWD, lo, sl, flags);
			el = errno;
			ru = fstatat(AT_FDCWD, up, su, flags);
			eu = errno;
		} else {
			ru = fstatat(AT_FDCWD, up, su, flags);
			eu = errno;
			rl = fstatat(AT_FDCWD, lo, sl, flags);
			el = errno;
		}
		if (ru < 0 || rl < 0) {
			if (ru < 0 && rl < 0 && eu == el)
				return 0;
			if (attempt < 2)
				continue;
			pt_fail_at(file, line, "stat %s: stack %s, lower %s", pt_esc(up),
				   ru < 0 ? pt_errname(eu) : "ok",
				   rl < 0 ? pt_errname(el) : "ok");
			return 1;
		}
		if (!stat_diff(su, sl, d, sizeof(d))) {
			if (attempt)
				pt_diag("stat of %s differed transiently (%s), then agreed",
					pt_esc(up), first);
			return 0;
		}
		if (!attempt)
			memcpy(first, d, sizeof(first));
	}
	pt_fail_at(file, line, "stat through the stack differs from the lower for %s (stack/lower):%s",
		   pt_esc(up), d);
	return 1;
}

int pt_path_stat_same_at(const char *file, int line, const char *up,
			 const char *lo, int flags)
{
	struct stat su, sl;

	return stat_pair(file, line, up, lo, flags, &su, &sl);
}

static int tree_stat(const char *file, int line, const char *up, const char *lo,
		     int depth)
{
	struct stat su, sl;
	struct pt_names nu, nl;
	int bad, i = 0, j = 0, shown = 0;

	memset(&su, 0, sizeof(su));
	memset(&sl, 0, sizeof(sl));
	bad = stat_pair(file, line, up, lo, AT_SYMLINK_NOFOLLOW, &su, &sl);
	if (!S_ISDIR(su.st_mode) || !S_ISDIR(sl.st_mode) || depth >= 16)
		return bad;
	if (pt_listdir(up, &nu) < 0) {
		pt_fail_at(file, line, "readdir %s through the stack: %s", up,
			   pt_errname(errno));
		return bad + 1;
	}
	if (pt_listdir(lo, &nl) < 0) {
		pt_fail_at(file, line, "readdir %s on the lower: %s", lo,
			   pt_errname(errno));
		pt_names_free(&nu);
		return bad + 1;
	}
	while (i < nu.n || j < nl.n) {
		int cmp = i >= nu.n ? 1 : j >= nl.n ? -1 : strcmp(nu.v[i], nl.v[j]);
		char a[PATH_MAX], b[PATH_MAX];

		if (cmp) {
			if (shown++ < 10)
				pt_fail_at(file, line, "readdir: %s listed only %s in %s",
					   pt_esc(cmp < 0 ? nu.v[i] : nl.v[j]),
					   cmp < 0 ? "through the stack" : "on the lower",
					   up);
			bad++;
			if (cmp < 0)
				i++;
			else
				j++;
			continue;
		}
		pt_snp(a, sizeof(a), "%s/%s", up, nu.v[i]);
		pt_snp(b, sizeof(b), "%s/%s", lo, nl.v[j]);
		bad += tree_stat(file, line, a, b, depth + 1);
		i++;
		j++;
	}
	pt_names_free(&nu);
	pt_names_free(&nl);
	return bad;
}

int pt_tree_stat_at(const char *file, int line, const char *up, const char *lo)
{
	int bad;

	tree_quota_begin();
	bad = tree_stat(file, line, up, lo, 0);
	tree_quota_end(file, line);
	return bad;
}

int pt_statx_same_at(const char *file, int line, const char *up,
		     const char *lo, int flags, unsigned int mask)
{
	struct statx a, b;
	int ra, rb, ea, eb, n = 0;
	char d[700];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = statx(AT_FDCWD, up, flags, mask, &a);
	ea = errno;
	rb = statx(AT_FDCWD, lo, flags, mask, &b);
	eb = errno;
	if (ra < 0 || rb < 0) {
		if (ra < 0 && rb < 0 && ea == eb)
			return 0;
		pt_fail_at(file, line, "statx(%s, flags 0x%x, mask 0x%x): stack %s, lower %s",
			   up, flags, mask, ra < 0 ? pt_errname(ea) : "ok",
			   rb < 0 ? pt_errname(eb) : "ok");
		return 1;
	}
	d[0] = 0;
#define F(cond, ...)							\
	do {								\
		if (cond)						\
			n += pt_snp(d + n, sizeof(d) > (size_t)n ? sizeof(d) - (size_t)n : 0, __VA_ARGS__); \
	} while (0)
#define XT_NE(x, y) ((x).tv_sec != (y).tv_sec || (x).tv_nsec != (y).tv_nsec)
	F(a.stx_mask != b.stx_mask, " mask 0x%x/0x%x", a.stx_mask, b.stx_mask);
	F(a.stx_mode != b.stx_mode, " mode 0%o/0%o", a.stx_mode, b.stx_mode);
	F(a.stx_uid != b.stx_uid, " uid %u/%u", a.stx_uid, b.stx_uid);
	F(a.stx_gid != b.stx_gid, " gid %u/%u", a.stx_gid, b.stx_gid);
	F(a.stx_size != b.stx_size, " size %llu/%llu", (unsigned long long)a.stx_size, (unsigned long long)b.stx_size);
	F(a.stx_nlink != b.stx_nlink, " nlink %u/%u", a.stx_nlink, b.stx_nlink);
	F(a.stx_ino != b.stx_ino, " ino %llu/%llu", (unsigned long long)a.stx_ino, (unsigned long long)b.stx_ino);
	F(a.stx_blocks != b.stx_blocks, " blocks %llu/%llu", (unsigned long long)a.stx_blocks, (unsigned long long)b.stx_blocks);
	F(a.stx_attributes != b.stx_attributes, " attributes 0x%llx/0x%llx", (unsigned long long)a.stx_attributes, (unsigned long long)b.stx_attributes);
	F(a.stx_attributes_mask != b.stx_attributes_mask, " attributes_mask 0x%llx/0x%llx", (unsigned long long)a.stx_attributes_mask, (unsigned long long)b.stx_attributes_mask);
	F(a.stx_rdev_major != b.stx_rdev_major || a.stx_rdev_minor != b.stx_rdev_minor, " rdev differs");
	F(XT_NE(a.stx_mtime, b.stx_mtime), " mtime %lld.%09u/%lld.%09u",
	  (long long)a.stx_mtime.tv_sec, a.stx_mtime.tv_nsec,
	  (long long)b.stx_mtime.tv_sec, b.stx_mtime.tv_nsec);
	F(XT_NE(a.stx_ctime, b.stx_ctime), " ctime differs");
	F((a.stx_mask & b.stx_mask & STATX_BTIME) && XT_NE(a.stx_btime, b.stx_btime),
	  " btime differs");
#undef F
#undef XT_NE
	if (!n)
		return 0;
	pt_fail_at(file, line, "statx(%s, flags 0x%x) through the stack differs from the lower (stack/lower):%s",
		   up, flags, d);
	return 1;
}
