// SPDX-License-Identifier: GPL-2.0
/*
 * metacachectl - inspect and tune metacache mounts.
 *
 * The control plane (generic netlink family "metacache") is not written
 * yet; this is the command table it will fill.  Exit status: 0 success,
 * 1 failure, 2 usage error.
 */
#include <stdio.h>
#include <string.h>

#define METACACHECTL_VERSION "0.1.0"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
};

static int cmd_help(int argc, char **argv);

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: metacachectl version\n");
		return 2;
	}
	printf("metacachectl %s\n", METACACHECTL_VERSION);
	return 0;
}

static const struct command commands[] = {
	{ "help", cmd_help, "help" },
	{ "version", cmd_version, "version" },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: metacachectl COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %s\n", commands[i].synopsis);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "metacachectl: unknown command '%s' (try: metacachectl help)\n",
		argv[1]);
	return 2;
}
