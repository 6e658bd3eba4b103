// SPDX-License-Identifier: GPL-2.0
/*
 * lowers: the test bed's lower file systems work before anything is
 * stacked on them.  A file written through the client ($MC_LOWER) reads back
 * byte for byte on the server side ($MC_SERVER) and through the second,
 * independent client ($MC_LOWER2); the mount is of the expected type.
 */
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/vfs.h>

#include "mctest.h"
#include "mcutil.h"

#define NFS_SUPER_MAGIC		0x6969
#define CIFS_SUPER_MAGIC	0xFF534D42
#define SMB2_SUPER_MAGIC	0xFE534D42
#define TMPFS_MAGIC		0x01021994

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	close(fd);
	return n < 0 ? -errno : (int)n;
}

static int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (close(fd) && n >= 0)
		return -errno;
	return n < 0 ? -errno : (int)n;
}

MCT_TEST(fstype)
{
	const char *fs = mc_env("MC_FSTYPE"), *lower = mc_env("MC_LOWER");
	struct statfs sf;

	if (!fs || !lower)
		MCT_SKIP("MC_FSTYPE/MC_LOWER not set: not in the test bed");
	MCT_ASSERT(statfs(lower, &sf) == 0, "statfs %s: %s", lower,
		   strerror(errno));
	if (!strcmp(fs, "nfs"))
		MCT_EXPECT(sf.f_type == NFS_SUPER_MAGIC, "f_type %lx",
			   (long)sf.f_type);
	else if (!strcmp(fs, "cifs"))
		MCT_EXPECT(sf.f_type == CIFS_SUPER_MAGIC ||
			   sf.f_type == SMB2_SUPER_MAGIC, "f_type %lx",
			   (long)sf.f_type);
	else
		MCT_EXPECT(sf.f_type == TMPFS_MAGIC, "f_type %lx",
			   (long)sf.f_type);
}

MCT_TEST(write_read_back)
{
	const char *lower = mc_env("MC_LOWER"), *server = mc_env("MC_SERVER");
	const char *lower2 = mc_env("MC_LOWER2");
	char path[512], buf[70000], data[65536 + 17];
	unsigned int i;
	int n;

	if (!lower || !server || !lower2)
		MCT_SKIP("MC_LOWER/MC_SERVER/MC_LOWER2 not set: not in the test bed");
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + i / 251);

	snprintf(path, sizeof(path), "%s/lowers.%d", lower, getpid());
	n = write_file(path, data, sizeof(data));
	MCT_ASSERT(n == (int)sizeof(data), "write %s: %s", path,
		   n < 0 ? strerror(-n) : "short");

	snprintf(path, sizeof(path), "%s/lowers.%d", server, getpid());
	n = read_file(path, buf, sizeof(buf));
	MCT_EXPECT(n == (int)sizeof(data) && !memcmp(buf, data, sizeof(data)),
		   "server side %s: %d bytes, %s", path, n,
		   n < 0 ? strerror(-n) : "content differs");

	snprintf(path, sizeof(path), "%s/lowers.%d", lower2, getpid());
	n = read_file(path, buf, sizeof(buf));
	MCT_EXPECT(n == (int)sizeof(data) && !memcmp(buf, data, sizeof(data)),
		   "second client %s: %d bytes, %s", path, n,
		   n < 0 ? strerror(-n) : "content differs");

	snprintf(path, sizeof(path), "%s/lowers.%d", lower, getpid());
	MCT_EXPECT(unlink(path) == 0, "unlink: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
