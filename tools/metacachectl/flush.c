// SPDX-License-Identifier: GPL-2.0
/*
 * flush.c - "flush MOUNT [PATH] [--subtree] [--handles]": drop cached
 * state of a mount, a name or a subtree.
 */
#include <string.h>
#include "nl.h"

struct flushed {
	uint64_t entries, handles;
	int got;
};

static int on_flushed(const struct mc_reply *r, void *arg)
{
	struct flushed *f = arg;
	struct nlattr *e = r->tb[METACACHE_A_FLUSHED_ENTRIES];
	struct nlattr *h = r->tb[METACACHE_A_FLUSHED_HANDLES];

	if (e && nla_len(e) >= 8)
		memcpy(&f->entries, nla_data(e), 8);
	if (h && nla_len(h) >= 8)
		memcpy(&f->handles, nla_data(h), 8);
	f->got = 1;
	return 0;
}

/* Refuse a malformed PATH before talking to the module. */
static int check_path(const char *path)
{
	char buf[METACACHE_PATH_MAX];
	const char *why;

	if (mc_path_normalize(path, buf, sizeof(buf), &why)) {
		mc_err("%s: %s", path, why);
		return -1;
	}
	return 0;
}

int cmd_flush(int argc, char **argv)
{
	struct mc_opt opts[] = {
		{ "subtree", 's', 0, 0, NULL },
		{ "handles", 0, 0, 0, NULL },
	};
	char rel[METACACHE_PATH_MAX];
	struct flushed f = { 0 };
	struct nl_msg *msg;
	struct mc_json j;
	struct mc_nl nl;
	uint32_t flags = 0;
	char *pos[2];
	int npos, err;

	err = mc_parse_opts("flush", argc, argv, opts, MC_ARRAY_SIZE(opts),
			    pos, 2, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	if (npos < 1) {
		mc_err("flush: needs a mount");
		return mc_usage("flush");
	}
	if (opts[0].seen)
		flags |= METACACHE_FLUSH_F_SUBTREE;
	if (opts[1].seen)
		flags |= METACACHE_FLUSH_F_HANDLES;
	if (npos == 2 && check_path(pos[1]))
		return mc_usage("flush");
	err = mc_nl_open(&nl);
	if (err)
		return err;
	if (npos == 2) {
		err = mc_mount_relpath(&nl, pos[0], pos[1], rel, sizeof(rel));
		if (err)
			goto out;
	}
	msg = mc_nl_msg(&nl, METACACHE_CMD_FLUSH, 0);
	err = msg ? mc_put_mount(msg, pos[0]) : MC_EXIT_FAIL;
	if (!err && ((npos == 2 && nla_put_string(msg, METACACHE_A_PATH, rel)) ||
		     (flags && nla_put_u32(msg, METACACHE_A_FLUSH_FLAGS, flags)))) {
		mc_err("request too large");
		err = MC_EXIT_FAIL;
	}
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = mc_nl_status(mc_nl_call(&nl, msg, on_flushed, &f));
	if (err)
		goto out;
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_obj(&j, NULL);
		mcj_str(&j, "path", npos == 2 ? rel : NULL);
		mcj_bool(&j, "subtree", npos < 2 || opts[0].seen);
		mcj_bool(&j, "handles", opts[1].seen);
		mcj_u64(&j, "flushed_entries", f.entries);
		mcj_u64(&j, "flushed_handles", f.handles);
		mcj_obj_end(&j);
		err = mcj_end(&j) ? MC_EXIT_FAIL : 0;
	} else {
		printf("flushed %llu entr%s and %llu handle%s\n",
		       (unsigned long long)f.entries, f.entries == 1 ? "y" : "ies",
		       (unsigned long long)f.handles, f.handles == 1 ? "" : "s");
	}
out:
	mc_nl_close(&nl);
	return err;
}
