// SPDX-License-Identifier: GPL-2.0
/*
 * metacachectl - inspect and tune metacache mounts over the generic
 * netlink family "metacache" (include/uapi/linux/metacache.h).
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "mcctl.h"

int mc_json;
const char *mc_prog = "metacachectl";

int cmd_show(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_defaults(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_bench(int argc, char **argv);
static int cmd_help(int argc, char **argv);

#define MOUNT_HELP \
	"MOUNT is a mount point (or any path on the mount) or a mount id as\n" \
	"listed by 'show'; a path made only of digits is read as an id (write\n" \
	"./123 for a directory named 123).\n"

#define KEYS_HELP "KEY VALUE pairs (see 'metacachectl help keys'):\n"

static const struct mc_cmd commands[] = {
	{ "show", cmd_show, "[MOUNT]",
	  "List metacache mounts, or describe one.",
	  "Without MOUNT: a table of all mounts (id, mount point, lower, type,\n"
	  "entries, negative entries, open handles, memory).  With MOUNT: its\n"
	  "lower file system, every tunable and what it holds.\n\n" MOUNT_HELP },
	{ "set", cmd_set, "MOUNT KEY VALUE...",
	  "Change tunables of a mount (needs CAP_SYS_ADMIN).",
	  "All values are checked first; either all change or none.  The\n"
	  "change applies to the next operation on the mount.\n"
	  "Example: metacachectl set /mnt/fast entry_ttl 30s neg_ttl 0 dir off\n\n"
	  KEYS_HELP "%KEYS\n" MOUNT_HELP },
	{ "defaults", cmd_defaults, "[KEY VALUE...]",
	  "Show or change the module-wide defaults for new mounts.",
	  "Without arguments: the defaults.  With KEY VALUE pairs: change them\n"
	  "(needs CAP_SYS_ADMIN); mounts made afterwards start from them, mount\n"
	  "options still override them, existing mounts keep theirs.\n\n"
	  KEYS_HELP "%KEYS" },
	{ "policy", cmd_policy,
	  "add MOUNT PATH {KEY VALUE...|bypass}\n"
	  "del MOUNT PATH\n"
	  "list MOUNT",
	  "Per-directory rules of a mount.",
	  "A rule on a directory overrides the mount's tunables for everything\n"
	  "under it; 'bypass' caches nothing there.  The most specific rule\n"
	  "(the longest path) wins, and the tunables it does not set come from\n"
	  "the mount.  add replaces a rule already on PATH.  PATH is relative to\n"
	  "the mount root (\"/\" is the root) or an absolute path under the mount\n"
	  "point.  add and del need CAP_SYS_ADMIN.\n\n" KEYS_HELP "%KEYS\n"
	  MOUNT_HELP },
	{ "stats", cmd_stats, "MOUNT [--reset] [--watch SECONDS] [--all]",
	  "Cache counters, lower calls made and avoided, latency percentiles.",
	  "Per cache: hits, misses, hit ratio, expirations, renewals, evictions,\n"
	  "entries, memory.  Per operation type: calls made to the lower, calls\n"
	  "avoided (served from a cache) and p50/p90/p99/p99.9 latency of both\n"
	  "(from the module's log-scale histograms, within 25%).  Operation\n"
	  "types with nothing counted are left out unless --all.\n\n"
	  "  --reset          zero the counters after printing them (needs\n"
	  "                   CAP_SYS_ADMIN); with --watch, every refresh, so\n"
	  "                   each shows one interval\n"
	  "  -w, --watch T    refresh every T (1, 2s, 500ms) until interrupted;\n"
	  "                   in place on a terminal, else blocks one after the\n"
	  "                   other (with -j: one JSON document per line)\n"
	  "  -a, --all        show every operation type\n\n" MOUNT_HELP },
	{ "flush", cmd_flush, "MOUNT [PATH] [--subtree] [--handles]",
	  "Drop cached state (needs CAP_SYS_ADMIN).",
	  "Without PATH: everything cached for the mount.  With PATH (relative to\n"
	  "the mount root or absolute under the mount point): what is cached\n"
	  "about that name, positive or negative; with --subtree also all under\n"
	  "it.  --handles also closes the idle lower file handles kept open for\n"
	  "deferred close in that scope.\n\n" MOUNT_HELP },
	{ "bench", cmd_bench,
	  "run TARGET WORKLOAD [OPTIONS]\n"
	  "start TARGET WORKLOAD [OPTIONS]\n"
	  "compare PATH_A PATH_B WORKLOAD [OPTIONS]\n"
	  "status JOB\n"
	  "stop JOB [--no-wait]\n"
	  "results JOB\n"
	  "list",
	  "The in-kernel I/O generator: latency and IOPS of a directory.",
	  "Runs a workload in kernel threads on TARGET (any directory, on a\n"
	  "metacache mount or not) in a fresh working directory .mcbench-<id>\n"
	  "there, removed afterwards unless --keep.  start and stop need\n"
	  "CAP_SYS_ADMIN.  run starts a job, shows its progress on stderr and\n"
	  "prints the report (exit status 1 unless the job completed); compare\n"
	  "runs the same job on PATH_A, then PATH_B, and prints the IOPS\n"
	  "increase and latency reduction of B.  stop waits for the job to end.\n\n"
	  "WORKLOAD: mdtest (phases: tree-create create stat open stat-missing\n"
	  "readdir rename unlink tree-remove), mixed (stat/open/create/unlink\n"
	  "over a file set), randrw (random reads/writes), seqread, seqwrite.\n\n"
	  "  -t, --threads N     worker threads (1..64, default 1)\n"
	  "  -n, --files N       files (default 100; data workloads 4)\n"
	  "  -d, --dirs N        mdtest directories (default 1)\n"
	  "  -s, --file-size S   data: bytes per file (default 1M)\n"
	  "  -b, --io-size S     data: bytes per I/O (default 4K randrw, 64K seq)\n"
	  "  -o, --ops N         operations of a run (mixed and data)\n"
	  "  -D, --duration T    length of a run (mdtest: cap of each phase)\n"
	  "  -r, --read-pct P    randrw: percentage of reads (default 50)\n"
	  "  -m, --mix SPEC      mixed: stat=70,open=20,create=5,unlink=5\n"
	  "  -W, --warmup        run once first and discard the figures\n"
	  "  -S, --stonewall     mdtest: a phase ends when the first thread is done\n"
	  "  -k, --keep          keep the working directory\n"
	  "  -i, --interval T    run: progress every T (default 1s)\n"
	  "  -q, --quiet         run: no progress\n\n"
	  "Documentation/generator.md tells what each figure means.\n" },
	{ "version", cmd_version, "",
	  "Versions of metacachectl and, when loaded, of the module.", NULL },
	{ "help", cmd_help, "[COMMAND|keys]",
	  "Help on metacachectl, a command, or the tunable keys.", NULL },
};

void mc_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", mc_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const struct mc_cmd *mc_find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_synopsis(FILE *f, const struct mc_cmd *c, const char *first)
{
	const char *s = c->synopsis, *nl;
	int lead = 0;

	do {
		nl = strchr(s, '\n');
		fprintf(f, "%*s%s%s %s%s%.*s\n", lead, "", lead ? "" : first,
			mc_prog, c->name, *s ? " " : "",
			nl ? (int)(nl - s) : (int)strlen(s), s);
		lead = (int)strlen(first);
		s = nl ? nl + 1 : NULL;
	} while (s);
}

int mc_usage(const char *cmd)
{
	const struct mc_cmd *c = mc_find_cmd(cmd);

	if (c) {
		print_synopsis(stderr, c, "usage: ");
		fprintf(stderr, "(try: %s help %s)\n", mc_prog, c->name);
	}
	return MC_EXIT_USAGE;
}

static void print_keys(FILE *f)
{
	size_t i;

	for (i = 0; i < mc_nkeys; i++) {
		const struct mc_key *k = &mc_keys[i];
		char d[MC_FMT_LEN];

		if (k->kind == MC_KEY_TTL)
			mc_fmt_ttl(d, sizeof(d), k->dflt);
		else if (k->kind == MC_KEY_LIMIT)
			snprintf(d, sizeof(d), "%u", k->dflt);
		else
			snprintf(d, sizeof(d), "%s", k->dflt ? "on" : "off");
		fprintf(f, "  %-12s %-6s %s\n", k->name, d, k->help);
	}
	fprintf(f,
		"  ttl values: durations (30, 30s, 5m, 1h, 1d, 1h30m, off = 0), whole\n"
		"  seconds up to 365d; limits: 0..16777216, k/M suffixes (64k, 1M,\n"
		"  64Ki); switches: on|off.  The second column is the module default.\n");
}

/* Print text, replacing a line "%KEYS" with the key table. */
static void print_help_text(const char *text)
{
	const char *k = strstr(text, "%KEYS");

	if (!k) {
		fputs(text, stdout);
		return;
	}
	fwrite(text, 1, (size_t)(k - text), stdout);
	print_keys(stdout);
	fputs(k + 5, stdout);
}

void mc_cmd_help(const char *name)
{
	const struct mc_cmd *c = mc_find_cmd(name);

	if (!c)
		return;
	print_synopsis(stdout, c, "usage: ");
	printf("\n%s\n", c->summary);
	if (c->help) {
		putchar('\n');
		print_help_text(c->help);
	}
}

static void print_main_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s [-j|--json] COMMAND [ARGS]\n\n"
		"Inspect and tune metacache, the metadata cache for nfs and cifs\n"
		"mounts.\n\ncommands:\n", mc_prog);
	for (i = 0; i < MC_ARRAY_SIZE(commands); i++)
		print_synopsis(f, &commands[i], "  ");
	fprintf(f, "\noptions (anywhere):\n"
		"  -j, --json   JSON output (see Documentation/metacachectl.md)\n"
		"  -h, --help   help of the command\n\n"
		"exit status: 0 success, 1 failure, 2 usage error.\n"
		"'%s help COMMAND' tells more.\n", mc_prog);
}

static int cmd_help(int argc, char **argv)
{
	const struct mc_cmd *c;
	char *pos[1];
	int npos, err;

	err = mc_parse_opts("help", argc, argv, NULL, 0, pos, 1, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	if (!npos) {
		print_main_help(stdout);
		return MC_EXIT_OK;
	}
	if (!strcmp(pos[0], "keys")) {
		printf("tunables (set, defaults, policy add):\n");
		print_keys(stdout);
		return MC_EXIT_OK;
	}
	c = mc_find_cmd(pos[0]);
	if (!c) {
		mc_err("unknown command '%s'", pos[0]);
		return mc_usage("help");
	}
	mc_cmd_help(c->name);
	return MC_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct mc_cmd *c;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			mc_json = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_main_help(stdout);
			return MC_EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			return cmd_version(1, (char *[]){ "version", NULL });
		} else {
			mc_err("unknown option '%s'", argv[i]);
			print_main_help(stderr);
			return MC_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		print_main_help(stderr);
		return MC_EXIT_USAGE;
	}
	c = mc_find_cmd(argv[i]);
	if (!c) {
		mc_err("unknown command '%s' (try: %s help)", argv[i], mc_prog);
		return MC_EXIT_USAGE;
	}
	return c->run(argc - i, argv + i);
}
