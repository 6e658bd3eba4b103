// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - "version": the tool's version and, when the module is
 * loaded, the module's version and control protocol.
 */
#include "nl.h"

int cmd_version(int argc, char **argv)
{
	struct mc_nl nl;
	struct mc_json j;
	int npos, err, absent = 0, compatible;
	char *pos[1];

	err = mc_parse_opts("version", argc, argv, NULL, 0, pos, 0, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	if (!mc_json)
		printf("metacachectl %s, control protocol %u\n",
		       METACACHECTL_VERSION, METACACHE_GENL_VERSION);
	err = mc_nl_probe(&nl, &absent);
	compatible = !err && !absent && nl.info.proto == METACACHE_GENL_VERSION &&
		     nl.info.nbuckets == METACACHE_HIST_NBUCKETS;
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_obj(&j, NULL);
		mcj_str(&j, "metacachectl", METACACHECTL_VERSION);
		mcj_u64(&j, "protocol", METACACHE_GENL_VERSION);
		if (err || absent) {
			mcj_null(&j, "module");
		} else {
			mcj_obj(&j, "module");
			mcj_str(&j, "version", nl.info.version);
			mcj_u64(&j, "protocol", nl.info.proto);
			mcj_u64(&j, "mounts", nl.info.mount_count);
			mcj_bool(&j, "compatible", compatible);
			mcj_obj_end(&j);
		}
		mcj_obj_end(&j);
		if (mcj_end(&j))
			err = MC_EXIT_FAIL;
	} else if (absent) {
		printf("metacache module: not loaded\n");
	} else if (!err) {
		printf("metacache module %s, control protocol %u, %u mount%s%s\n",
		       nl.info.version[0] ? nl.info.version : "(no version)",
		       nl.info.proto, nl.info.mount_count,
		       nl.info.mount_count == 1 ? "" : "s",
		       compatible ? "" : " (incompatible with this metacachectl)");
	}
	mc_nl_close(&nl);
	return err ? MC_EXIT_FAIL : MC_EXIT_OK;
}
