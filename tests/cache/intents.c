// SPDX-License-Identifier: GPL-2.0
/*
 * intents: creating over a stale negative entry never clobbers what another
 * client made meanwhile.
 *
 * Every TTL is 3600 s.  A name is looked up through the stack (ENOENT:
 * cached negative), then the OTHER client (MC_LOWER2) creates it.  The
 * stack's cached "missing" is stale, and an exclusive operation must go by
 * the lower's truth:
 *  - open(O_CREAT|O_EXCL) gives EEXIST, the other client's file intact;
 *  - open(O_CREAT) opens the existing file: its content is readable, it is
 *    not truncated, no second file appears;
 *  - mkdir gives EEXIST (over a file and over a directory);
 *  - symlink and link give EEXIST; mknod (fifo) gives EEXIST.
 * On tmpfs the "other client" is the lower itself.
 */
#include "cachelib.h"

#define CONTENT "made by the other client\n"

static int read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return (int)n;
}

static int other_create(struct cl_ctx *c, const char *name)
{
	int fd = open(LO2(name), O_CREAT | O_EXCL | O_WRONLY, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, CONTENT, strlen(CONTENT));
	if (close(fd) || n != (ssize_t)strlen(CONTENT))
		return -EIO;
	return 0;
}

/* cache NAME as missing through the stack */
#define NEG(name)							\
	do {								\
		int __e = cl_lstat_err(UP(name), NULL);			\
		MCT_ASSERT(__e == ENOENT, "stat %s before: %s", (name),	\
			   __e ? strerror(__e) : "exists");		\
	} while (0)

/* the other client's file is intact, as seen by the other client */
#define INTACT(name)							\
	do {								\
		char __b[128];						\
		int __n = read_all(LO2(name), __b, sizeof(__b));	\
		MCT_EXPECT(__n == (int)strlen(CONTENT) && !strcmp(__b, CONTENT), \
			   "%s as the other client sees it: %d bytes \"%s\"", (name), \
			   __n, __n >= 0 ? __b : strerror(-__n));	\
	} while (0)

CL_TEST(open_excl_eexist)
{
	int fd, e;

	CL_TTLS(3600);
	cl_count(c->lo2);
	NEG("n");
	MCT_ASSERT(other_create(c, "n") == 0, "the other client's create: %s", strerror(errno));
	fd = open(UP("n"), O_CREAT | O_EXCL | O_WRONLY, 0600);
	e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	MCT_EXPECT(e == EEXIST,
		   "open(O_CREAT|O_EXCL) of a name the other client created after the stack cached it missing: %s, want EEXIST",
		   e ? strerror(e) : "success (a file was created over the other client's)");
	INTACT("n");
	MCT_EXPECT(cl_count(c->lo2) == 1, "%d entries in the directory, want 1",
		   cl_count(c->lo2));
}

CL_TEST(open_creat_opens_existing)
{
	char buf[128];
	struct stat st;
	int fd;
	ssize_t n;

	CL_TTLS(3600);
	cl_count(c->lo2);
	NEG("n");
	MCT_ASSERT(other_create(c, "n") == 0, "the other client's create: %s", strerror(errno));
	fd = open(UP("n"), O_CREAT | O_RDWR, 0600);
	MCT_ASSERT(fd >= 0, "open(O_CREAT): %s", strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	MCT_EXPECT(n == (ssize_t)strlen(CONTENT),
		   "read through the stack after open(O_CREAT) of the other client's file: %zd bytes, want %zu",
		   n, strlen(CONTENT));
	if (n >= 0) {
		buf[n] = 0;
		MCT_EXPECT(!strcmp(buf, CONTENT), "content \"%s\"", buf);
	}
	MCT_EXPECT(fstat(fd, &st) == 0 && st.st_size == (off_t)strlen(CONTENT),
		   "fstat size %jd", (intmax_t)st.st_size);
	close(fd);
	INTACT("n");
	MCT_EXPECT(cl_count(c->lo2) == 1, "%d entries in the directory, want 1",
		   cl_count(c->lo2));
	MCT_EXPECT(cl_lstat_err(UP("n"), NULL) == 0, "stat through the stack after the open: %s",
		   strerror(errno));
}

CL_TEST(mkdir_eexist)
{
	int e;

	CL_TTLS(3600);
	cl_count(c->lo2);
	NEG("file");
	NEG("dir");
	MCT_ASSERT(other_create(c, "file") == 0, "the other client's create: %s", strerror(errno));
	MCT_ASSERT(mkdir(LO2("dir"), 0700) == 0, "the other client's mkdir: %s", strerror(errno));
	e = mkdir(UP("file"), 0755) ? errno : 0;
	MCT_EXPECT(e == EEXIST, "mkdir over the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	INTACT("file");
	e = mkdir(UP("dir"), 0755) ? errno : 0;
	MCT_EXPECT(e == EEXIST, "mkdir over the other client's new directory: %s, want EEXIST",
		   e ? strerror(e) : "success");
}

CL_TEST(symlink_link_mknod_eexist)
{
	int e;

	CL_TTLS(3600);
	MCT_ASSERT(cl_writefile(UP("src"), 1, 'a', 0644) == 0, "create: %s", strerror(errno));
	cl_count(c->lo2);
	NEG("s");
	NEG("l");
	NEG("p");
	MCT_ASSERT(other_create(c, "s") == 0 && other_create(c, "l") == 0 &&
		   other_create(c, "p") == 0, "the other client's creates: %s", strerror(errno));
	e = symlink("target", UP("s")) ? errno : 0;
	MCT_EXPECT(e == EEXIST, "symlink over the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	e = link(UP("src"), UP("l")) ? errno : 0;
	MCT_EXPECT(e == EEXIST || e == EPERM || e == EOPNOTSUPP,
		   "link over the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	e = mkfifo(UP("p"), 0644) ? errno : 0;
	MCT_EXPECT(e == EEXIST || e == EPERM || e == EOPNOTSUPP,
		   "mkfifo over the other client's new file: %s, want EEXIST",
		   e ? strerror(e) : "success");
	INTACT("s");
	INTACT("l");
	INTACT("p");
}

CL_MAIN()
