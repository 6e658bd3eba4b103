/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcutil.h - helpers shared by metacache's C tests: the test bed
 * environment, module loading, the kernel log, removing a tree and
 * finding metacachectl.
 */
#ifndef MCUTIL_H
#define MCUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* An environment variable of the test bed, or NULL. */
static inline const char *mc_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* Is a file system type registered (listed in /proc/filesystems)? */
static inline int mc_fs_registered(const char *type)
{
	char line[128];
	FILE *f = fopen("/proc/filesystems", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *t = strrchr(line, '\t');

		t = t ? t + 1 : line;
		t[strcspn(t, "\n")] = 0;
		if (!strcmp(t, type))
			found = 1;
	}
	fclose(f);
	return found;
}

/* insmod: 0 or -errno. */
static inline int mc_insmod(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

/* rmmod (non-blocking, like rmmod(8)): 0 or -errno. */
static inline int mc_rmmod(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		return -errno;
	return 0;
}

/* Is the module loaded (listed in /proc/modules)? */
static inline int mc_module_loaded(const char *name)
{
	char line[256];
	FILE *f = fopen("/proc/modules", "r");
	size_t n = strlen(name);
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			found = 1;
	fclose(f);
	return found;
}

/*
 * The kernel log from now on: mc_kmsg_open() positions a reader at the end
 * of /dev/kmsg, mc_kmsg_read() returns the next record (priority in *prio,
 * text without the header) or NULL when there is none yet.
 */
static inline int mc_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static inline const char *mc_kmsg_read(int fd, int *prio, char *buf,
				       size_t len)
{
	ssize_t n;
	char *text;

	for (;;) {
		n = read(fd, buf, len - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: skip ahead */
			continue;
		if (n <= 0)
			return NULL;
		break;
	}
	buf[n] = 0;
	*prio = atoi(buf) & 7;
	text = strchr(buf, ';');
	text = text ? text + 1 : buf;
	text[strcspn(text, "\n")] = 0;
	return text;
}

/* Remove @path and everything under it: 0, or -1 with errno of a failure. */
static inline int mc_rm_tree(const char *path)
{
	struct stat st;
	struct dirent *e;
	char p[PATH_MAX];
	int ret = 0;
	DIR *d;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", path,
				     e->d_name) >= sizeof(p)) {
			errno = ENAMETOOLONG;
			ret = -1;
			continue;
		}
		if (mc_rm_tree(p))
			ret = -1;
	}
	closedir(d);
	if (rmdir(path))
		ret = -1;
	return ret;
}

/*
 * Find tools/metacachectl/metacachectl: $MC_REPO/..., else ../../ from the
 * test program, else relative to the working directory.  0, or -1 (@tool
 * then names the last place tried).
 */
static inline int mc_find_ctl(char *tool, size_t len)
{
	const char *repo = mc_env("MC_REPO");
	char self[PATH_MAX];
	ssize_t n;

	if (repo) {
		snprintf(tool, len, "%s/tools/metacachectl/metacachectl", repo);
		return access(tool, X_OK) ? -1 : 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(tool, len, "%.3000s/../../tools/metacachectl/metacachectl",
			 self);
		if (!access(tool, X_OK))
			return 0;
	}
	snprintf(tool, len, "tools/metacachectl/metacachectl");
	return access(tool, X_OK) ? -1 : 0;
}

#endif /* MCUTIL_H */
