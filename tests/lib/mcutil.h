/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcutil.h - helpers shared by metacache's C tests: the test bed
 * environment, module loading and the kernel log.
 */
#ifndef MCUTIL_H
#define MCUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* An environment variable of the test bed, or NULL. */
static inline const char *mc_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * Where a test makes many files "on the lower" only to have something to
 * look up: the server's own directory of the export ($MC_SERVER, a local
 * file system inside the test bed), else the lower mount.  One create
 * through an SMB client costs several round trips; a test that needs
 * hundreds of files spends most of its time making them otherwise.  The
 * names must be new to both clients (never looked up before), so that no
 * client cache can hide them.
 */
static inline const char *mc_server_or(const char *lower)
{
	const char *srv = mc_env("MC_SERVER");

	return srv ? srv : lower;
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

/*
 * mc_find_ctl() - where tools/metacachectl/metacachectl is
 * @buf: its path, out
 * @len: size of @buf
 *
 * $MC_CTL if set (tests/run_tests.sh copies the tool where an
 * unprivileged user can run it: the repository may sit in a directory
 * only root can enter); $MC_REPO/tools/metacachectl/metacachectl if
 * MC_REPO is set; else
 * ../../tools/metacachectl/metacachectl from the test program's own
 * directory; else tools/metacachectl/metacachectl from the current one.
 *
 * Return: 0 if @buf names an executable, -1 if not.
 */
static inline int mc_find_ctl(char *buf, size_t len)
{
	const char *repo = mc_env("MC_REPO"), *ctl = mc_env("MC_CTL");
	char self[4096];
	ssize_t n;

	if (ctl) {
		snprintf(buf, len, "%s", ctl);
		return access(buf, X_OK) ? -1 : 0;
	}
	if (repo) {
		snprintf(buf, len, "%s/tools/metacachectl/metacachectl", repo);
		return access(buf, X_OK) ? -1 : 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(buf, len, "%.3000s/../../tools/metacachectl/metacachectl", self);
		if (!access(buf, X_OK))
			return 0;
	}
	snprintf(buf, len, "tools/metacachectl/metacachectl");
	return access(buf, X_OK) ? -1 : 0;
}

#endif /* MCUTIL_H */
