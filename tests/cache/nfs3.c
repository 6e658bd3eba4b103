// SPDX-License-Identifier: GPL-2.0
/*
 * nfs3: close-to-open over NFSv3, whose client checks a file with the
 * server when a path walk's last step opens it (->d_revalidate with
 * LOOKUP_OPEN), not in its ->open (NFSv4's OPEN does it there).
 *
 * It mounts its own two NFSv3 clients of the test bed's export ($MC_SERVER
 * on 127.0.0.1; nolock, and actimeo=3600 so that nothing but the
 * close-to-open check makes the first client look again) and metacache
 * over the first twice, with every TTL 3600, close_ttl 0 and 3600 (opens
 * then served from a kept file).  The second client writes a file and
 * closes it; an open of the file through metacache must read the new
 * data, as an open on the first client directly does (checked after, so
 * that it cannot have refreshed the cache first), though metacache's
 * entry of the name is fresh.
 *
 * Runs once, on the nfs lower, in mode "plain" (it makes its own mounts).
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mctest.h"
#include "mcutil.h"

#define BASE "/tmp/mc/nfs3"

static const char *const dirs[] = { BASE "/a", BASE "/b", BASE "/up",
				     BASE "/upk" };

static void unmount_all(void)
{
	int i;

	for (i = 3; i >= 0; i--)
		umount2(dirs[i], MNT_DETACH);
}

static int put(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, strlen(data));
	if (close(fd) || n != (ssize_t)strlen(data))
		return -EIO;
	return 0;
}

/* The first bytes of @path as a string, or "<errno text>". */
static const char *get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		snprintf(buf, len, "<%s>", strerror(errno));
		return buf;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/*
 * The second client writes NAME, metacache (mounted at UP) reads it
 * twice, the second client rewrites it: the next open through metacache
 * must read the new data.  With close_ttl, the reads after the first are
 * served from a kept file.
 */
static void rewritten(const char *name, const char *up)
{
	char b[PATH_MAX], u[PATH_MAX], a[PATH_MAX], buf[64];
	struct stat st;

	snprintf(b, sizeof(b), BASE "/b/%s", name);
	snprintf(u, sizeof(u), "%s/%s", up, name);
	snprintf(a, sizeof(a), BASE "/a/%s", name);
	MCT_ASSERT(put(b, "old1") == 0, "write %s on the second client", b);
	/* the first client and metacache learn the file and its data */
	MCT_ASSERT(stat(u, &st) == 0, "stat %s: %s", u, strerror(errno));
	MCT_EXPECT(!strcmp(get(u, buf, sizeof(buf)), "old1"),
		   "first read of %s: '%s'", u, buf);
	MCT_EXPECT(!strcmp(get(u, buf, sizeof(buf)), "old1"),
		   "second read of %s: '%s'", u, buf);
	/* a second later (a new mtime), same size */
	usleep(1100 * 1000);
	MCT_ASSERT(put(b, "new2") == 0, "rewrite %s on the second client", b);
	MCT_EXPECT(!strcmp(get(u, buf, sizeof(buf)), "new2"),
		   "open of %s after the other client's close: '%s', want 'new2' (close-to-open)",
		   u, buf);
	MCT_EXPECT(!strcmp(get(a, buf, sizeof(buf)), "new2"),
		   "the same open on the NFSv3 client directly: '%s'", buf);
	unlink(b);
}

MCT_TEST(close_to_open)
{
	const char *server = getenv("MC_SERVER"), *ko = getenv("MC_KO");
	int i, err;

	if (!server || !*server)
		MCT_SKIP("MC_SERVER is not set (run by tests/run_tests.sh)");
	if (ko && *ko && !mc_fs_registered("metacache")) {
		err = mc_insmod(ko, "");
		MCT_ASSERT(err == 0, "insmod %s: %s", ko, strerror(-err));
	}
	for (i = 0; i < 4; i++)
		MCT_ASSERT(!mct_system("mkdir -p %s", dirs[i]), "mkdir %s", dirs[i]);
	/* the test bed serves NFSv3 too (rpcbind, mountd): no skip */
	MCT_ASSERT(!mct_system("mount -t nfs -o vers=3,nolock,actimeo=3600 127.0.0.1:%s %s",
		       server, dirs[0]), "NFSv3 mount of 127.0.0.1:%s", server);
	MCT_ASSERT(!mct_system("mount -t nfs -o vers=3,nolock,actimeo=3600,nosharecache 127.0.0.1:%s %s",
		       server, dirs[1]), "second NFSv3 client");
	MCT_ASSERT(!mct_system("mount -t metacache -o entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600,close_ttl=0 %s %s",
		       dirs[0], dirs[2]), "metacache over NFSv3");
	MCT_ASSERT(!mct_system("mount -t metacache -o entry_ttl=3600,neg_ttl=3600,attr_ttl=3600,dir_ttl=3600,close_ttl=3600 %s %s",
		       dirs[0], dirs[3]), "metacache over NFSv3, keeping files");
	rewritten("f", BASE "/up");
	rewritten("g", BASE "/upk");
}

int main(int argc, char **argv)
{
	int ret = mct_main(argc, argv);

	unmount_all();	/* also after a failed or skipped test */
	return ret;
}
