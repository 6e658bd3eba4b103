// SPDX-License-Identifier: GPL-2.0
/*
 * set.c - "set MOUNT KEY VALUE...": change tunables of one mount.
 */
#include <stdlib.h>
#include "nl.h"

int cmd_set(int argc, char **argv)
{
	struct mc_tun t = { 0 };
	struct nl_msg *msg;
	struct mc_nl nl;
	char **pos;
	int npos, err;

	pos = calloc((size_t)argc, sizeof(*pos));
	if (!pos)
		return MC_EXIT_FAIL;
	err = mc_parse_opts("set", argc, argv, NULL, 0, pos, argc, &npos);
	if (err) {
		free(pos);
		return err < 0 ? MC_EXIT_OK : err;
	}
	if (npos < 3) {
		mc_err("set: needs a mount and at least one KEY VALUE");
		free(pos);
		return mc_usage("set");
	}
	err = mc_tun_parse_args(&t, npos - 1, pos + 1, NULL, "set");
	if (err)
		goto out;
	err = mc_nl_open(&nl);
	if (err)
		goto out;
	msg = mc_nl_msg(&nl, METACACHE_CMD_MOUNT_SET, 0);
	err = msg ? mc_put_mount(msg, pos[0]) : MC_EXIT_FAIL;
	if (!err && mc_tun_put(msg, METACACHE_A_TUNABLES, &t)) {
		mc_err("request too large");
		err = MC_EXIT_FAIL;
	}
	if (err) {
		nlmsg_free(msg);
	} else {
		err = mc_nl_status(mc_nl_call(&nl, msg, NULL, NULL));
	}
	mc_nl_close(&nl);
out:
	free(pos);
	return err;
}
