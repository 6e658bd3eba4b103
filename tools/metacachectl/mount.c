// SPDX-License-Identifier: GPL-2.0
/*
 * mount.c - naming a mount (by id or by a path on it) and paths under it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netlink/attr.h>
#include "nl.h"

/* p made absolute against the working directory (not resolved). */
static int absolute(const char *p, char *out, size_t len)
{
	char cwd[METACACHE_PATH_MAX];
	int n;

	if (p[0] == '/') {
		n = snprintf(out, len, "%s", p);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			mc_err("cannot get the working directory: %s",
			       strerror(errno));
			return MC_EXIT_FAIL;
		}
		n = snprintf(out, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", p);
	}
	if (n < 0 || (size_t)n >= len) {
		mc_err("%s: path too long", p);
		return MC_EXIT_USAGE;
	}
	return 0;
}

int mc_put_mount(struct nl_msg *msg, const char *mount)
{
	char path[METACACHE_PATH_MAX];
	uint32_t id;
	int err;

	if (!*mount) {
		mc_err("empty mount (give a mount point or a mount id)");
		return MC_EXIT_USAGE;
	}
	if (!mc_parse_u32_id(mount, &id)) {
		if (nla_put_u32(msg, METACACHE_A_MOUNT_ID, id))
			goto too_big;
		return 0;
	}
	err = absolute(mount, path, sizeof(path));
	if (err)
		return err;
	if (nla_put_string(msg, METACACHE_A_MOUNT_PATH, path))
		goto too_big;
	return 0;
too_big:
	mc_err("request too large");
	return MC_EXIT_FAIL;
}

/* Undo the octal escapes of mountinfo ("\040" for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

int mc_mountpoint_of_dev(const char *mountinfo, uint32_t major, uint32_t minor,
			 char *out, size_t len)
{
	char *line = NULL, want[32];
	size_t cap = 0;
	int found = -1;
	FILE *f = fopen(mountinfo, "re");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE ... */
	while (found && getline(&line, &cap, f) > 0) {
		char *field[5], *sep, *save = NULL, *type;
		int i;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = 0;
		type = strtok_r(sep + 3, " \n", &save);
		if (!type || strcmp(type, "metacache"))
			continue;
		save = NULL;
		for (i = 0; i < 5; i++)
			if (!(field[i] = strtok_r(i ? NULL : line, " ", &save)))
				break;
		if (i < 5 || strcmp(field[2], want))
			continue;
		unescape(field[4]);
		if (strlen(field[4]) < len) {
			strcpy(out, field[4]);
			found = 0;
		}
	}
	free(line);
	fclose(f);
	return found;
}

struct fetch {
	struct mc_mount *m;
	int got;
};

static int on_mount(const struct mc_reply *r, void *arg)
{
	struct fetch *f = arg;
	int err = mc_mount_get(r, f->m);

	if (!err)
		f->got = 1;
	return err;
}

int mc_mount_fetch(struct mc_nl *nl, const char *mount, struct mc_mount *m)
{
	struct fetch f = { .m = m };
	struct nl_msg *msg = mc_nl_msg(nl, METACACHE_CMD_MOUNT_GET, 0);
	int err;

	if (!msg)
		return MC_EXIT_FAIL;
	err = mc_put_mount(msg, mount);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	if (mc_nl_call(nl, msg, on_mount, &f))
		return MC_EXIT_FAIL;
	if (!f.got) {
		mc_err("the module sent no description of mount %s", mount);
		return MC_EXIT_FAIL;
	}
	return 0;
}

/* If path lies under the directory dir, the rest of it ("" or "/x/y"). */
static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path;
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path + n;
}

int mc_mount_relpath(struct mc_nl *nl, const char *mount, const char *path,
		     char *out, size_t outlen)
{
	char abs[METACACHE_PATH_MAX], mnt[METACACHE_PATH_MAX];
	char mntn[METACACHE_PATH_MAX];
	const char *why = "", *rest = NULL;
	struct mc_mount *m;
	uint32_t id;
	int err;

	if (path[0] != '/') {
		if (mc_path_normalize(path, out, outlen, &why)) {
			mc_err("%s: %s", path, why);
			return MC_EXIT_USAGE;
		}
		return 0;
	}
	if (mc_path_normalize(path, abs, sizeof(abs), &why)) {
		mc_err("%s: %s", path, why);
		return MC_EXIT_USAGE;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		mc_err("out of memory");
		return MC_EXIT_FAIL;
	}
	err = mc_mount_fetch(nl, mount, m);
	if (err)
		goto out;
	if (m->path[0])
		rest = under(abs, m->path);
	if (!rest && mc_parse_u32_id(mount, &id) &&
	    !absolute(mount, mnt, sizeof(mnt)) &&
	    !mc_path_normalize(mnt, mntn, sizeof(mntn), &why))
		rest = under(abs, mntn);
	if (!rest) {
		mc_err("%s is not under the mount point %s: give the path "
		       "relative to the mount root, or under the mount point",
		       path, m->path[0] ? m->path : mount);
		err = MC_EXIT_USAGE;
		goto out;
	}
	if (mc_path_normalize(rest, out, outlen, &why)) {
		mc_err("%s: %s", path, why);
		err = MC_EXIT_USAGE;
	}
out:
	free(m);
	return err;
}
