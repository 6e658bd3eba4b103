// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - options of a subcommand, anywhere among its arguments:
 * "-j", "--json", "--watch 2", "--watch=2", "-w 2", "-w2"; "--" ends the
 * options.  -j/--json and -h/--help are understood by every command.
 */
#include <ctype.h>
#include <string.h>
#include "mcctl.h"

int mc_parse_opts(const char *cmd, int argc, char **argv, struct mc_opt *opts,
		  size_t nopts, char **pos, int maxpos, int *npos)
{
	int i, only_pos = 0;

	*npos = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		struct mc_opt *o = NULL;
		size_t k;

		/*
		 * "-1" is a (negative) value, not an option (no option is a
		 * digit): the value's own parser says why it is refused.
		 */
		if (only_pos || a[0] != '-' || !a[1] ||
		    isdigit((unsigned char)a[1])) {
			if (*npos >= maxpos) {
				mc_err("%s: too many arguments ('%s')", cmd, a);
				return mc_usage(cmd);
			}
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			mc_json = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			mc_cmd_help(cmd);
			return -1;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			for (k = 0; k < nopts; k++)
				if (strlen(opts[k].lng) == len &&
				    !strncmp(opts[k].lng, name, len))
					o = &opts[k];
			if (o && eq)
				val = eq + 1;
			if (o && eq && !o->has_arg) {
				mc_err("%s: option '--%s' takes no value", cmd, o->lng);
				return mc_usage(cmd);
			}
		} else {
			for (k = 0; k < nopts; k++)
				if (opts[k].shrt && opts[k].shrt == a[1])
					o = &opts[k];
			if (o && a[2]) {
				if (!o->has_arg)
					o = NULL;	/* no bundling of flags */
				else
					val = a + 2;
			}
		}
		if (!o) {
			mc_err("%s: unknown option '%s'", cmd, a);
			return mc_usage(cmd);
		}
		if (o->has_arg && !val) {
			if (i + 1 >= argc) {
				mc_err("%s: option '%s' needs a value", cmd, a);
				return mc_usage(cmd);
			}
			val = argv[++i];
		}
		o->seen++;
		o->arg = val;
	}
	return 0;
}
