// SPDX-License-Identifier: GPL-2.0
/*
 * defaults.c - "defaults [KEY VALUE...]": the module-wide tunables given to
 * new mounts.
 */
#include <errno.h>
#include <stdlib.h>
#include "nl.h"

static int on_defaults(const struct mc_reply *r, void *arg)
{
	if (!r->tb[METACACHE_A_TUNABLES])
		return -EBADMSG;
	return mc_tun_get(r->tb[METACACHE_A_TUNABLES], arg);
}

static int show_defaults(struct mc_nl *nl)
{
	struct nl_msg *msg = mc_nl_msg(nl, METACACHE_CMD_DEFAULTS_GET, 0);
	struct mc_tun t = { 0 };
	struct mc_json j;

	if (!msg || mc_nl_call(nl, msg, on_defaults, &t))
		return MC_EXIT_FAIL;
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_obj(&j, NULL);
		mcj_obj(&j, "defaults");
		mc_tun_json(&j, &t);
		mcj_obj_end(&j);
		mcj_obj_end(&j);
		return mcj_end(&j) ? MC_EXIT_FAIL : 0;
	}
	printf("defaults for new mounts:\n");
	mc_tun_print(stdout, &t, "  ");
	return 0;
}

int cmd_defaults(int argc, char **argv)
{
	struct mc_tun t = { 0 };
	struct nl_msg *msg;
	struct mc_nl nl;
	char **pos;
	int npos, err;

	pos = calloc((size_t)argc, sizeof(*pos));
	if (!pos)
		return MC_EXIT_FAIL;
	err = mc_parse_opts("defaults", argc, argv, NULL, 0, pos, argc, &npos);
	if (err) {
		free(pos);
		return err < 0 ? MC_EXIT_OK : err;
	}
	err = mc_tun_parse_args(&t, npos, pos, NULL, "defaults");
	if (err)
		goto out;
	err = mc_nl_open(&nl);
	if (err)
		goto out;
	if (!npos) {
		err = show_defaults(&nl);
	} else {
		msg = mc_nl_msg(&nl, METACACHE_CMD_DEFAULTS_SET, 0);
		if (!msg || mc_tun_put(msg, METACACHE_A_TUNABLES, &t)) {
			nlmsg_free(msg);
			err = MC_EXIT_FAIL;
		} else {
			err = mc_nl_status(mc_nl_call(&nl, msg, NULL, NULL));
		}
	}
	mc_nl_close(&nl);
out:
	free(pos);
	return err;
}
