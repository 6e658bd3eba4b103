// SPDX-License-Identifier: GPL-2.0
/*
 * integrity: every byte written through a metacache mount is read back
 * right, through the stack, after close and reopen, and from a second
 * client of the same server.
 *
 *  - model: MC_INTEGRITY_FILES files (default 4) in a fresh directory of
 *    $MC_UPPER, each with an in-memory model.  Per round and file, a batch
 *    of random steps on one O_RDWR descriptor: pwrite of 1..16 KiB at a
 *    random offset (files up to MC_INTEGRITY_MAX bytes, default 192 KiB),
 *    ftruncate up and down, a MAP_SHARED mmap write + msync, pread of a
 *    random range; then the whole file is verified (size and every byte)
 *    on that descriptor, the file is closed, and verified again:
 *      - through the stack, opened read-only, twice (the second open can
 *        reuse the lower file kept by deferred close);
 *      - through the lower ($MC_LOWER), the same client;
 *      - from the second client ($MC_LOWER2), after a fresh open
 *        (close-to-open: the writer's close flushed the data), buffered
 *        and, except on tmpfs, with O_DIRECT.
 *    Every few rounds the second client writes a file itself (pwrite,
 *    fsync, close) and the stack must read it back: with O_DIRECT always,
 *    buffered after "metacachectl flush --handles" (a kept handle and
 *    cached attributes may legitimately hide another client's write for up
 *    to attr_ttl, Documentation/coherence.md).
 *    Runs MC_INTEGRITY_ROUNDS rounds (default 12), at most
 *    MC_INTEGRITY_SECS seconds (default 40).
 *  - concurrent: two files of 16 regions of 16 KiB, every 8-byte word
 *    encoding its own offset and a version.  A writer rewrites random
 *    regions with a new version, fsyncs and closes, then publishes the
 *    versions (shared memory): on the stack for the first file, on the
 *    second client for the other.  At the same time readers open and read
 *    a whole file: the first file on the stack (buffered, may reuse kept
 *    handles), on the second client (buffered, fresh open) and on the
 *    second client with O_DIRECT; the second file on the stack with
 *    O_DIRECT, and buffered (only checked for valid data: another client's
 *    write may be seen up to attr_ttl late through the stack).  No O_DIRECT
 *    on tmpfs.  Each word must be a
 *    valid encoding of its offset (never garbage, zeros or another
 *    offset's data) with a version at least the one published before the
 *    reader opened the file; a word read while it is being rewritten may
 *    be torn, so each byte is checked against the versions in that range.
 *    MC_INTEGRITY_CONC_SECS seconds (default 8).
 *  - write_beside_rename: a writer appends numbered records to one file
 *    while it is renamed back and forth and linked and unlinked
 *    (MC_INTEGRITY_RENAMES times, default 120); the file must hold every
 *    record, and on cifs Samba must have timed out no lease break (see
 *    there).
 *
 * Any mismatch prints the file, offset, expected and found bytes and
 * fails.  Bytes written and verified are printed.
 * Environment: MC_UPPER, MC_LOWER, MC_LOWER2, MC_FSTYPE, MC_REPO,
 * MC_SMB_LOGDIR (Documentation/testbed.md), the MC_INTEGRITY_* above,
 * MC_INTEGRITY_SEED.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"

#define MAXFILES 16
#define CHUNK (16 * 1024)

static char tool[PATH_MAX];
static unsigned long long rnd_state;
static long long bytes_written, bytes_verified;

static unsigned int rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rnd_state >> 33);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long def)
{
	const char *v = mc_env(name);

	return v && atol(v) > 0 ? atol(v) : def;
}

static int ctl_flush_handles(const char *upper)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		execl(tool, tool, "flush", upper, "--handles", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int is_fs(const char *t)
{
	const char *f = mc_env("MC_FSTYPE");

	return f && !strcmp(f, t);
}

/* Read the whole of fd into buf (at most cap bytes); bytes read or -errno. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
	size_t off = 0;
	ssize_t n;

	while (off < cap) {
		n = pread(fd, buf + off, cap - off, (off_t)off);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		off += (size_t)n;
	}
	return (ssize_t)off;
}

/* Compare got[0..len) with want; print the first mismatch; 0 if equal. */
static int cmp_bytes(const char *what, const char *path, off_t base, const char *want,
		     const char *got, size_t len)
{
	size_t i, first = len, n = 0;

	for (i = 0; i < len; i++)
		if (want[i] != got[i]) {
			if (first == len)
				first = i;
			n++;
		}
	if (!n) {
		bytes_verified += (long long)len;
		return 0;
	}
	mct_fail_at(__FILE__, __LINE__,
		    "%s: %s: %zu bytes differ, the first at offset %lld: expected 0x%02x, got 0x%02x",
		    what, path, n, (long long)(base + (off_t)first), (unsigned char)want[first],
		    (unsigned char)got[first]);
	for (i = first; i < len && i < first + 16; i++)
		mct_diag("  offset %lld: expected 0x%02x got 0x%02x", (long long)(base + (off_t)i),
			 (unsigned char)want[i], (unsigned char)got[i]);
	return -1;
}

struct mfile {
	char up[PATH_MAX], lo[PATH_MAX], lo2[PATH_MAX];
	char *model;
	size_t size;
};

static char *scratch;		/* aligned, max + 4096 */
static size_t maxsz;

/* Verify a whole file through path with open flags; 0 if right. */
static int verify_path(const char *what, const char *path, int flags, const struct mfile *f)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | flags);

	if (fd < 0) {
		mct_fail_at(__FILE__, __LINE__, "%s: open %s: %s", what, path, strerror(errno));
		return -1;
	}
	n = read_all(fd, scratch, maxsz + 4096);
	close(fd);
	if (n < 0) {
		mct_fail_at(__FILE__, __LINE__, "%s: read %s: %s", what, path, strerror((int)-n));
		return -1;
	}
	if ((size_t)n != f->size) {
		mct_fail_at(__FILE__, __LINE__, "%s: %s has %zd bytes, expected %zu", what, path, n,
			    f->size);
		if (n > 0)
			cmp_bytes(what, path, 0, f->model, scratch,
				  (size_t)n < f->size ? (size_t)n : f->size);
		return -1;
	}
	return cmp_bytes(what, path, 0, f->model, scratch, f->size);
}

static void randbuf(char *b, size_t len)
{
	size_t i;
	unsigned int x = rnd();

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (char)(x >> 16);
	}
}

enum { S_PWRITE, S_TRUNC, S_MMAP, S_PREAD, NSTEPS };
static const char *step_names[NSTEPS] = { "pwrite", "ftruncate", "mmap-write", "pread" };
static long step_count[NSTEPS];

/* One random step on fd; 0 or -1 (failure recorded). */
static int step(int fd, struct mfile *f)
{
	static char buf[CHUNK];
	int s = rnd() % 10;
	size_t off, len;
	ssize_t n;
	char *m;

	s = s < 4 ? S_PWRITE : s < 6 ? S_TRUNC : s < 8 ? S_MMAP : S_PREAD;
	if ((s == S_MMAP || s == S_PREAD) && !f->size)
		s = S_PWRITE;
	step_count[s]++;
	switch (s) {
	case S_PWRITE:
		len = 1 + rnd() % CHUNK;
		off = rnd() % (maxsz - len + 1);
		randbuf(buf, len);
		n = pwrite(fd, buf, len, (off_t)off);
		if (n != (ssize_t)len) {
			mct_fail_at(__FILE__, __LINE__, "pwrite %s %zu@%zu: %zd %s", f->up, len, off,
				    n, strerror(errno));
			return -1;
		}
		memcpy(f->model + off, buf, len);
		if (off + len > f->size)
			f->size = off + len;
		bytes_written += (long long)len;
		break;
	case S_TRUNC:
		len = rnd() % (maxsz + 1);
		if (ftruncate(fd, (off_t)len)) {
			mct_fail_at(__FILE__, __LINE__, "ftruncate %s %zu: %s", f->up, len,
				    strerror(errno));
			return -1;
		}
		if (len > f->size)
			memset(f->model + f->size, 0, len - f->size);
		else
			memset(f->model + len, 0, f->size - len);
		f->size = len;
		break;
	case S_MMAP:
		len = 1 + rnd() % (f->size < CHUNK ? f->size : CHUNK);
		off = rnd() % (f->size - len + 1);
		m = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			mct_fail_at(__FILE__, __LINE__, "mmap %s %zu: %s", f->up, f->size,
				    strerror(errno));
			return -1;
		}
		randbuf(buf, len);
		memcpy(m + off, buf, len);
		if (msync(m, f->size, MS_SYNC)) {
			mct_fail_at(__FILE__, __LINE__, "msync %s: %s", f->up, strerror(errno));
			munmap(m, f->size);
			return -1;
		}
		munmap(m, f->size);
		memcpy(f->model + off, buf, len);
		bytes_written += (long long)len;
		break;
	case S_PREAD:
		len = 1 + rnd() % (f->size < CHUNK ? f->size : CHUNK);
		off = rnd() % (f->size - len + 1);
		n = pread(fd, buf, len, (off_t)off);
		if (n != (ssize_t)len) {
			mct_fail_at(__FILE__, __LINE__, "pread %s %zu@%zu: %zd %s", f->up, len, off, n,
				    strerror(errno));
			return -1;
		}
		return cmp_bytes("pread", f->up, (off_t)off, f->model + off, buf, len);
	}
	return 0;
}

/* The second client writes f (pwrite, fsync, close). */
static int lower2_write(struct mfile *f)
{
	static char buf[CHUNK];
	size_t len = 1 + rnd() % CHUNK, off = rnd() % (maxsz - len + 1);
	int fd = open(f->lo2, O_RDWR);

	if (fd < 0) {
		mct_fail_at(__FILE__, __LINE__, "open %s: %s", f->lo2, strerror(errno));
		return -1;
	}
	randbuf(buf, len);
	if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len || fsync(fd)) {
		mct_fail_at(__FILE__, __LINE__, "write/fsync %s: %s", f->lo2, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd)) {
		mct_fail_at(__FILE__, __LINE__, "close %s: %s", f->lo2, strerror(errno));
		return -1;
	}
	memcpy(f->model + off, buf, len);
	if (off + len > f->size)
		f->size = off + len;
	bytes_written += (long long)len;
	return 0;
}

MCT_TEST(model)
{
	const char *up = mc_env("MC_UPPER"), *lo = mc_env("MC_LOWER");
	const char *lo2 = mc_env("MC_LOWER2");
	long nfiles = env_long("MC_INTEGRITY_FILES", 4);
	long rounds = env_long("MC_INTEGRITY_ROUNDS", 12);
	long secs = env_long("MC_INTEGRITY_SECS", 40);
	int direct = !is_fs("tmpfs");
	struct mfile *files;
	char dir[3][PATH_MAX];
	long r, i, k, done = 0, l2w = 0;
	unsigned int seed;
	double t0 = now();
	int bad = 0;

	if (!up || !lo)
		MCT_SKIP("MC_UPPER/MC_LOWER not set: not on a metacache mount");
	if (!lo2)
		lo2 = lo;
	if (mc_find_ctl(tool, sizeof(tool)))
		MCT_SKIP("tools/metacachectl/metacachectl not built (MC_REPO)");
	if (nfiles > MAXFILES)
		nfiles = MAXFILES;
	maxsz = (size_t)env_long("MC_INTEGRITY_MAX", 192 * 1024);
	if (maxsz < CHUNK)
		maxsz = CHUNK;
	seed = mc_env("MC_INTEGRITY_SEED") ? (unsigned int)atoi(getenv("MC_INTEGRITY_SEED")) :
					     (unsigned int)time(NULL);
	rnd_state = seed;
	mct_diag("seed %u (MC_INTEGRITY_SEED), %ld files of up to %zu bytes, %ld rounds, at most %ld s",
		 seed, nfiles, maxsz, rounds, secs);
	MCT_ASSERT(!posix_memalign((void **)&scratch, 4096, maxsz + 4096), "posix_memalign");
	files = calloc((size_t)nfiles, sizeof(*files));
	MCT_ASSERT(files, "calloc");

	snprintf(dir[0], PATH_MAX, "%s/integrity.%d", up, getpid());
	snprintf(dir[1], PATH_MAX, "%s/integrity.%d", lo, getpid());
	snprintf(dir[2], PATH_MAX, "%s/integrity.%d", lo2, getpid());
	MCT_ASSERT(mkdir(dir[0], 0755) == 0, "mkdir %s: %s", dir[0], strerror(errno));
	for (i = 0; i < nfiles; i++) {
		struct mfile *f = &files[i];
		int fd;

		snprintf(f->up, PATH_MAX, "%s/f%ld", dir[0], i);
		snprintf(f->lo, PATH_MAX, "%s/f%ld", dir[1], i);
		snprintf(f->lo2, PATH_MAX, "%s/f%ld", dir[2], i);
		f->model = calloc(1, maxsz);
		MCT_ASSERT(f->model, "calloc");
		fd = open(f->up, O_CREAT | O_EXCL | O_RDWR, 0644);
		MCT_ASSERT(fd >= 0, "create %s: %s", f->up, strerror(errno));
		close(fd);
	}

	for (r = 0; r < rounds && !bad && (r == 0 || now() - t0 < secs); r++) {
		for (i = 0; i < nfiles && !bad; i++) {
			struct mfile *f = &files[i];
			int fd = open(f->up, O_RDWR);

			MCT_ASSERT(fd >= 0, "open %s: %s", f->up, strerror(errno));
			for (k = 0; k < 8 && !bad; k++)
				bad |= step(fd, f);
			if (!bad) {
				struct stat st;
				ssize_t n;

				MCT_EXPECT(fstat(fd, &st) == 0 && (size_t)st.st_size == f->size,
					   "fstat %s: size %lld, expected %zu", f->up,
					   (long long)st.st_size, f->size);
				n = read_all(fd, scratch, maxsz + 4096);
				if (n != (ssize_t)f->size) {
					mct_fail_at(__FILE__, __LINE__,
						    "read on the open file %s: %zd bytes, expected %zu",
						    f->up, n, f->size);
					bad = 1;
				} else {
					bad |= !!cmp_bytes("open file", f->up, 0, f->model, scratch,
							   f->size);
				}
			}
			if (close(fd)) {
				mct_fail_at(__FILE__, __LINE__, "close %s: %s", f->up, strerror(errno));
				bad = 1;
			}
			if (bad)
				break;
			bad |= !!verify_path("stack, reopened", f->up, 0, f);
			bad |= !!verify_path("stack, reopened again", f->up, 0, f);
			bad |= !!verify_path("lower", f->lo, 0, f);
			bad |= !!verify_path("second client", f->lo2, 0, f);
			if (direct)
				bad |= !!verify_path("second client, O_DIRECT", f->lo2, O_DIRECT, f);
			/* The second client writes; the stack reads it back. */
			if (!bad && r % 3 == 2) {
				l2w++;
				bad |= !!lower2_write(f);
				if (direct)
					bad |= !!verify_path("stack, O_DIRECT, after the second client wrote",
							     f->up, O_DIRECT, f);
				MCT_EXPECT(ctl_flush_handles(up) == 0, "metacachectl flush %s --handles",
					   up);
				bad |= !!verify_path("stack, after the second client wrote and a flush",
						     f->up, 0, f);
			}
		}
		done = r + 1;
	}
	for (k = 0; k < NSTEPS; k++)
		mct_diag("  %-10s %ld", step_names[k], step_count[k]);
	mct_diag("%ld rounds x %ld files in %.1f s (%ld writes by the second client): %lld bytes written, %lld bytes verified",
		 done, nfiles, now() - t0, l2w, bytes_written, bytes_verified);
	MCT_EXPECT(!bad, "data mismatch or I/O error (see above)");
	for (i = 0; i < nfiles; i++) {
		MCT_EXPECT(unlink(files[i].up) == 0, "unlink %s: %s", files[i].up, strerror(errno));
		free(files[i].model);
	}
	MCT_EXPECT(rmdir(dir[0]) == 0, "rmdir %s: %s", dir[0], strerror(errno));
	free(files);
}

/* ---- concurrent readers and a writer ---- */

#define NREG 16
#define REGSZ (16 * 1024)
#define CSIZE (NREG * REGSZ)
#define NREADERS 5

/* One file: what its writer started and what it published. */
struct cfile {
	unsigned int published[NREG];	/* flushed and closed */
	unsigned int started[NREG];	/* being written */
	long rounds, wbytes;
};

struct cshared {
	struct cfile f[2];	/* [0] written on the stack, [1] by the second client */
	long reads[NREADERS], words[NREADERS], bad[NREADERS];
	char msg[NREADERS][256];
};

static uint64_t enc(uint64_t word, uint64_t v)
{
	uint64_t h = (word + 1) * 0x9e3779b97f4a7c15ULL ^ (v * 0xff51afd7ed558ccdULL);

	h ^= h >> 29;
	return (v << 32) | ((h & 0xffffffffULL) | 1);
}

static void fill_region(char *buf, int reg, unsigned int v)
{
	uint64_t *w = (uint64_t *)buf;
	uint64_t base = (uint64_t)reg * (REGSZ / 8);
	size_t i;

	for (i = 0; i < REGSZ / 8; i++)
		w[i] = enc(base + i, v);
}

/*
 * A word read while the writer rewrites it can be torn: a read concurrent
 * with a write is not atomic (not even per 8-byte word: the kernel copies
 * bytes), so each byte may come from a different version.  Each byte must
 * be the byte of some version in [lo, hi]: the oldest the reader may see
 * (published before it opened the file) to the newest started.
 */
static int word_ok(uint64_t i, uint64_t w, unsigned int lo, unsigned int hi)
{
	unsigned int v = (unsigned int)(w >> 32), b, x;

	if (w == enc(i, v))
		return v >= lo && v <= hi;
	for (b = 0; b < 8; b++) {
		unsigned int byte = (unsigned int)(w >> (8 * b)) & 0xff, found = 0;

		for (x = lo; x <= hi && !found; x++)
			found = ((enc(i, x) >> (8 * b)) & 0xff) == byte;
		if (!found)
			return 0;
	}
	return 1;
}

static void writer(const char *path, struct cfile *c, double end)
{
	static char buf[REGSZ];

	while (now() < end) {
		int fd = open(path, O_RDWR), k, n = 1 + rnd() % 4, regs[4];

		if (fd < 0)
			_exit(10);
		for (k = 0; k < n; k++) {
			int reg = rnd() % NREG;
			unsigned int v = c->started[reg] + 1;

			regs[k] = reg;
			__atomic_store_n(&c->started[reg], v, __ATOMIC_SEQ_CST);
			fill_region(buf, reg, v);
			if (pwrite(fd, buf, REGSZ, (off_t)reg * REGSZ) != REGSZ)
				_exit(11);
			c->wbytes += REGSZ;
		}
		if (fsync(fd) || close(fd))
			_exit(12);
		for (k = 0; k < n; k++)
			__atomic_store_n(&c->published[regs[k]], c->started[regs[k]],
					 __ATOMIC_SEQ_CST);
		c->rounds++;
	}
}

/*
 * Reader id of file cf: every byte must be from a version at least the one
 * published before the open (fresh), or just valid (fresh == 0).
 */
static void reader(int id, const char *path, int flags, int fresh, struct cshared *c,
		   struct cfile *cf, double end)
{
	char *buf;

	if (posix_memalign((void **)&buf, 4096, CSIZE))
		_exit(20);
	while (now() < end) {
		unsigned int snap[NREG];
		ssize_t n;
		size_t i;
		int fd;

		for (i = 0; i < NREG; i++)
			snap[i] = fresh ? __atomic_load_n(&cf->published[i], __ATOMIC_SEQ_CST) : 0;
		fd = open(path, O_RDONLY | flags);
		if (fd < 0) {
			snprintf(c->msg[id], 256, "open %s: %s", path, strerror(errno));
			c->bad[id]++;
			return;
		}
		n = read_all(fd, buf, CSIZE);
		close(fd);
		if (n != CSIZE) {
			snprintf(c->msg[id], 256, "read %s: %zd bytes of %d (%s)", path, n, CSIZE,
				 n < 0 ? strerror((int)-n) : "short");
			c->bad[id]++;
			return;
		}
		for (i = 0; i < CSIZE / 8; i++) {
			uint64_t w = ((uint64_t *)buf)[i];
			unsigned int v = (unsigned int)(w >> 32), reg = (unsigned int)(i / (REGSZ / 8));

			if (!word_ok(i, w, snap[reg],
				     __atomic_load_n(&cf->started[reg], __ATOMIC_SEQ_CST))) {
				if (!c->bad[id]++)
					snprintf(c->msg[id], 256,
						 "%s offset %zu: got 0x%016llx (version %u), expected version >= %u (0x%016llx), <= %u",
						 path, i * 8, (unsigned long long)w, v, snap[reg],
						 (unsigned long long)enc(i, snap[reg]), cf->started[reg]);
			}
		}
		c->reads[id]++;
		c->words[id] += CSIZE / 8;
		if (c->bad[id])
			return;
	}
	free(buf);
}

MCT_TEST(concurrent)
{
	const char *up = mc_env("MC_UPPER"), *lo2 = mc_env("MC_LOWER2");
	long secs = env_long("MC_INTEGRITY_CONC_SECS", 8);
	static const char *rname[NREADERS] = {
		"stack", "second client", "second client O_DIRECT",
		"stack O_DIRECT (2nd client writes)", "stack (2nd client writes)"
	};
	char path[2][PATH_MAX], path2[2][PATH_MAX], *buf;
	pid_t pids[NREADERS + 2];
	int fd, i, j, status, direct = !is_fs("tmpfs");
	struct cshared *c;
	double end;

	if (!up)
		MCT_SKIP("MC_UPPER not set: not on a metacache mount");
	if (!lo2)
		lo2 = mc_env("MC_LOWER");
	MCT_ASSERT(lo2, "MC_LOWER not set");
	rnd_state = mc_env("MC_INTEGRITY_SEED") ? (unsigned int)atoi(getenv("MC_INTEGRITY_SEED")) :
						  (unsigned int)time(NULL);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(c != MAP_FAILED, "mmap");
	memset(c, 0, sizeof(*c));
	buf = malloc(REGSZ);
	MCT_ASSERT(buf, "malloc");
	for (j = 0; j < 2; j++) {
		snprintf(path[j], PATH_MAX, "%s/integrity-conc%d.%d", up, j, getpid());
		snprintf(path2[j], PATH_MAX, "%s/integrity-conc%d.%d", lo2, j, getpid());
		fd = open(path[j], O_CREAT | O_EXCL | O_RDWR, 0644);
		MCT_ASSERT(fd >= 0, "create %s: %s", path[j], strerror(errno));
		for (i = 0; i < NREG; i++) {
			fill_region(buf, i, 0);
			MCT_ASSERT(pwrite(fd, buf, REGSZ, (off_t)i * REGSZ) == REGSZ, "pwrite: %s",
				   strerror(errno));
		}
		MCT_ASSERT(fsync(fd) == 0 && close(fd) == 0, "fsync/close %s: %s", path[j],
			   strerror(errno));
	}

	/*
	 * Readers 0-2 read file 0, which the stack writes: fresh data on every
	 * open (close-to-open).  Readers 3-4 read file 1, which the second
	 * client writes: fresh with O_DIRECT; buffered through the stack only
	 * valid, since a kept handle and cached attributes may legitimately
	 * serve another client's older data for up to attr_ttl
	 * (Documentation/coherence.md).  No O_DIRECT on tmpfs.
	 */
	end = now() + secs;
	for (i = 0; i < NREADERS + 2; i++) {
		pids[i] = -1;
		if (!direct && (i == 2 || i == 3))
			continue;
		pids[i] = fork();
		MCT_ASSERT(pids[i] >= 0, "fork: %s", strerror(errno));
		if (pids[i] == 0) {
			rnd_state ^= (unsigned long long)(i + 1) * 0x9e3779b97f4a7c15ULL;
			switch (i) {
			case 0:
				reader(i, path[0], 0, 1, c, &c->f[0], end);
				break;
			case 1:
				reader(i, path2[0], 0, 1, c, &c->f[0], end);
				break;
			case 2:
				reader(i, path2[0], O_DIRECT, 1, c, &c->f[0], end);
				break;
			case 3:
				reader(i, path[1], O_DIRECT, 1, c, &c->f[1], end);
				break;
			case 4:
				reader(i, path[1], 0, 0, c, &c->f[1], end);
				break;
			case 5:
				writer(path[0], &c->f[0], end);
				break;
			case 6:
				writer(path2[1], &c->f[1], end);
				break;
			}
			_exit(0);
		}
	}
	for (i = 0; i < NREADERS + 2; i++) {
		if (pids[i] < 0)
			continue;
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		MCT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s died: status 0x%x",
			   i < NREADERS ? rname[i] : i == 5 ? "the stack's writer" : "the second client's writer",
			   status);
	}
	mct_diag("writer on the stack: %ld rounds, %ld bytes; writer on the second client: %ld rounds, %ld bytes",
		 c->f[0].rounds, c->f[0].wbytes, c->f[1].rounds, c->f[1].wbytes);
	for (i = 0; i < NREADERS; i++) {
		if (pids[i] < 0)
			continue;
		mct_diag("reader %-36s %ld whole-file reads, %ld bytes verified, %ld bad words",
			 rname[i], c->reads[i], c->words[i] * 8, c->bad[i]);
		MCT_EXPECT(!c->bad[i], "%s reader: %s", rname[i], c->msg[i]);
		MCT_EXPECT(c->reads[i] > 0, "%s reader never completed a read", rname[i]);
	}
	MCT_EXPECT(c->f[0].rounds > 0 && c->f[1].rounds > 0, "a writer completed no round");
	for (j = 0; j < 2; j++)
		MCT_EXPECT(unlink(path[j]) == 0, "unlink %s: %s", path[j], strerror(errno));
	free(buf);
	munmap(c, sizeof(*c));
}

/*
 * Samba's count of lease breaks it gave up waiting for: "lease break timed
 * out" lines (log level 1) in the files of $MC_SMB_LOGDIR.  -1 if there is
 * no such directory (not on cifs, or not in the test bed).
 */
static long smb_break_timeouts(void)
{
	const char *dir = mc_env("MC_SMB_LOGDIR");
	static const char needle[] = "lease break timed out";
	char path[PATH_MAX], line[1024];
	struct dirent *de;
	long n = 0;
	DIR *d;

	if (!dir || !is_fs("cifs"))
		return -1;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, "log.", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, needle))
				n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

#define WBR_REC 4096
#define WBR_MAXREC 2048

/* Record @rec: every 8-byte word holds rec * 512 + its index. */
static void wbr_fill(uint64_t *w, long rec)
{
	size_t i;

	for (i = 0; i < WBR_REC / 8; i++)
		w[i] = (uint64_t)rec * (WBR_REC / 8) + i;
}

/* The file at @path holds records 0..nrec-1 in order; 0 or -1 (reported). */
static int wbr_verify(const char *path, long nrec)
{
	uint64_t want[WBR_REC / 8], got[WBR_REC / 8];
	struct stat st;
	long rec;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		mct_fail_at(__FILE__, __LINE__, "open/fstat %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size != (off_t)nrec * WBR_REC) {
		mct_fail_at(__FILE__, __LINE__, "%s: %lld bytes, want %ld records of %d",
			    path, (long long)st.st_size, nrec, WBR_REC);
		close(fd);
		return -1;
	}
	for (rec = 0; rec < nrec; rec++) {
		wbr_fill(want, rec);
		if (pread(fd, got, WBR_REC, (off_t)rec * WBR_REC) != WBR_REC ||
		    memcmp(want, got, WBR_REC)) {
			mct_fail_at(__FILE__, __LINE__, "%s: record %ld is short or wrong", path, rec);
			close(fd);
			return -1;
		}
	}
	close(fd);
	bytes_verified += (long long)nrec * WBR_REC;
	return 0;
}

/*
 * write_beside_rename: one process appends numbered 4 KiB records through
 * one descriptor while this one renames the file back and forth (a <-> b)
 * and, every fourth time, links a third name to it and unlinks that name:
 * each of these holds the file's i_rwsem while it waits for the server.
 * Every write and name change must succeed and the file must hold every
 * record once, in order, through the stack and through the lower.
 *
 * On cifs, Samba must also not have timed out a lease break meanwhile.
 * Linux 6.1's cifs client does not acknowledge a lease break while a
 * writer of the file waits for its i_rwsem, and the unlink or rename that
 * holds that i_rwsem waits for the server, which waits for the
 * acknowledgement: both stall until Samba gives up, after 35 s.  A write
 * through metacache waits for the upper i_rwsem instead (mc_write_iter(),
 * design.md "Locking").  Without MC_UPPER the test runs on MC_LOWER alone:
 * the plain cifs mount, which stalls so (how this check was seen to fail).
 */
MCT_TEST(write_beside_rename)
{
	const char *up = mc_env("MC_UPPER"), *lo = mc_env("MC_LOWER");
	const char *base = up ? up : lo;
	long renames = env_long("MC_INTEGRITY_RENAMES", 120);
	char dir[PATH_MAX], name[3][PATH_MAX], lodir[PATH_MAX], lopath[PATH_MAX + 4];
	struct wshared { long nrec; int err; int done; } *w;
	long before, after, i;
	int fd, status, cur = 0;
	pid_t pid;

	if (!base)
		MCT_SKIP("neither MC_UPPER nor MC_LOWER is set");
	before = smb_break_timeouts();
	snprintf(dir, sizeof(dir), "%s/wbr.%d", base, getpid());
	snprintf(name[0], PATH_MAX, "%s/a", dir);
	snprintf(name[1], PATH_MAX, "%s/b", dir);
	snprintf(name[2], PATH_MAX, "%s/l", dir);
	MCT_ASSERT(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
	fd = open(name[0], O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
	MCT_ASSERT(fd >= 0, "create %s: %s", name[0], strerror(errno));
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(w != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(w, 0, sizeof(*w));

	pid = fork();
	MCT_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		uint64_t buf[WBR_REC / 8];
		long rec;

		for (rec = 0; rec < WBR_MAXREC && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); rec++) {
			wbr_fill(buf, rec);
			if (write(fd, buf, WBR_REC) != WBR_REC) {
				w->err = errno ? errno : EIO;
				break;
			}
			__atomic_store_n(&w->nrec, rec + 1, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	close(fd);
	/* Let the writer start, so that the names change under its writes. */
	while (!__atomic_load_n(&w->nrec, __ATOMIC_ACQUIRE) && !w->err && !waitpid(pid, &status, WNOHANG))
		usleep(1000);
	for (i = 0; i < renames; i++) {
		if (rename(name[cur], name[!cur])) {
			mct_fail_at(__FILE__, __LINE__, "rename %s -> %s: %s", name[cur], name[!cur],
				    strerror(errno));
			break;
		}
		cur = !cur;
		if (i % 4 == 3 && (link(name[cur], name[2]) || unlink(name[2]))) {
			mct_fail_at(__FILE__, __LINE__, "link/unlink %s: %s", name[2], strerror(errno));
			break;
		}
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	MCT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer died: status 0x%x", status);
	MCT_EXPECT(!w->err, "write: %s", strerror(w->err));
	mct_diag("%ld renames (and %ld link+unlink) beside %ld appended records", i, i / 4, w->nrec);
	MCT_EXPECT(w->nrec > 0, "the writer wrote nothing");
	if (!wbr_verify(name[cur], w->nrec) && up && lo) {
		snprintf(lodir, sizeof(lodir), "%s/wbr.%d", lo, getpid());
		snprintf(lopath, sizeof(lopath), "%s/%c", lodir, cur ? 'b' : 'a');
		wbr_verify(lopath, w->nrec);
	}
	after = smb_break_timeouts();
	if (before < 0 || after < 0)
		mct_diag("no Samba log (MC_SMB_LOGDIR, cifs only): lease break time-outs not checked");
	else
		MCT_EXPECT(after == before,
			   "Samba timed out %ld lease breaks meanwhile: a writer and a name change of one file stalled each other",
			   after - before);
	MCT_EXPECT(unlink(name[cur]) == 0, "unlink %s: %s", name[cur], strerror(errno));
	MCT_EXPECT(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
	munmap(w, sizeof(*w));
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
