// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - "show [MOUNT]": list the metacache mounts, or describe one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nl.h"

struct mount_list {
	struct mc_mount *m;
	size_t n, cap;
};

static int on_mount(const struct mc_reply *r, void *arg)
{
	struct mount_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct mc_mount *m = realloc(l->m, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		l->m = m;
		l->cap = cap;
	}
	if (mc_mount_get(r, &l->m[l->n]))
		return 0;	/* skip a malformed one */
	l->n++;
	return 0;
}

void mc_mount_json(struct mc_json *j, const char *key, const struct mc_mount *m)
{
	unsigned int c;

#define HAVE(a) (m->have & (1ULL << METACACHE_A_##a))
	mcj_obj(j, key);
	mcj_u64(j, "id", m->id);
	mcj_str(j, "mount_point", HAVE(MOUNT_PATH) ? m->path : NULL);
	if (HAVE(DEV_MAJOR) && HAVE(DEV_MINOR)) {
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", m->dev_major, m->dev_minor);
		mcj_str(j, "dev", dev);
	} else {
		mcj_null(j, "dev");
	}
	mcj_str(j, "lower_path", HAVE(LOWER_PATH) ? m->lower_path : NULL);
	mcj_str(j, "lower_source", HAVE(LOWER_SOURCE) ? m->lower_source : NULL);
	mcj_str(j, "lower_fstype", HAVE(LOWER_FSTYPE) ? m->lower_fstype : NULL);
	mcj_u64(j, "entries", m->n_entries);
	mcj_u64(j, "negative_entries", m->n_neg);
	mcj_u64(j, "handles", m->n_handles);
	mcj_u64(j, "memory_bytes", m->mem_bytes);
	mcj_u64(j, "policies", m->n_policies);
	mcj_obj(j, "tunables");
	mc_tun_json(j, &m->tun);
	mcj_obj_end(j);
	mcj_obj(j, "active");
	for (c = 0; c <= METACACHE_CACHE_MAX; c++)
		mcj_bool(j, mc_cache_name(c), mc_tun_cache_active(&m->tun, c));
	mcj_obj_end(j);
	mcj_obj_end(j);
#undef HAVE
}

void mc_mount_print(FILE *f, const struct mc_mount *m)
{
	char a[MC_FMT_LEN], b[MC_FMT_LEN], c[MC_FMT_LEN], d[MC_FMT_LEN];
	unsigned int i;

	fprintf(f, "mount %u: %s\n", m->id,
		m->path[0] ? m->path : "(mount point unknown)");
	/* not sent to a user outside the initial mount namespace */
	fprintf(f, "  lower        %s (%s%s%s)\n",
		m->lower_path[0] ? m->lower_path : "(not shown)",
	       m->lower_fstype[0] ? m->lower_fstype : "?",
	       m->lower_source[0] ? " " : "", m->lower_source);
	fprintf(f, "  cached       %s entries, %s negative, %s handles, %s of memory\n",
	       mc_fmt_count(a, sizeof(a), m->n_entries),
	       mc_fmt_count(b, sizeof(b), m->n_neg),
	       mc_fmt_count(c, sizeof(c), m->n_handles),
	       mc_fmt_size(d, sizeof(d), m->mem_bytes));
	fprintf(f, "  policies     %u%s\n", m->n_policies,
	       m->n_policies ? " (metacachectl policy list)" : "");
	fprintf(f, "  caches      ");
	for (i = 0; i <= METACACHE_CACHE_MAX; i++) {
		int ttl = mc_cache_ttl_attr(i);
		const char *why = "";

		if (!mc_tun_cache_active(&m->tun, i))
			why = m->tun.dis_value & (1U << i) ? " off (switched off)"
			      : m->tun.present & (1U << ttl) ? " off (ttl 0)" : " ?";
		fprintf(f, " %s%s%s", mc_cache_name(i), *why ? why : " on",
		       i < METACACHE_CACHE_MAX ? "," : "\n");
	}
	fprintf(f, "  tunables\n");
	mc_tun_print(f, &m->tun, "    ");
}

static void print_table(const struct mount_list *l)
{
	static const char *const head[] = {
		"ID", "MOUNT", "LOWER", "TYPE", "ENTRIES", "NEG", "HANDLES", "MEMORY",
	};
	struct mc_table t;
	size_t i;

	if (!l->n) {
		printf("no metacache mounts\n");
		return;
	}
	mc_table_init(&t, 8, head, "rlllrrrr");
	for (i = 0; i < l->n; i++) {
		const struct mc_mount *m = &l->m[i];
		char id[16], e[MC_FMT_LEN], n[MC_FMT_LEN], h[MC_FMT_LEN];
		char mem[MC_FMT_LEN];

		snprintf(id, sizeof(id), "%u", m->id);
		mc_table_row(&t, id, m->path[0] ? m->path : "?",
			     m->lower_path[0] ? m->lower_path : "-",
			     m->lower_fstype[0] ? m->lower_fstype : "?",
			     mc_fmt_count(e, sizeof(e), m->n_entries),
			     mc_fmt_count(n, sizeof(n), m->n_neg),
			     mc_fmt_count(h, sizeof(h), m->n_handles),
			     mc_fmt_size(mem, sizeof(mem), m->mem_bytes));
	}
	mc_table_print(&t, stdout, NULL);
	mc_table_free(&t);
}

int cmd_show(int argc, char **argv)
{
	struct mount_list l = { 0 };
	struct mc_json j;
	struct mc_nl nl;
	struct nl_msg *msg;
	char *pos[1];
	int npos, err;
	size_t i;

	err = mc_parse_opts("show", argc, argv, NULL, 0, pos, 1, &npos);
	if (err)
		return err < 0 ? MC_EXIT_OK : err;
	err = mc_nl_open(&nl);
	if (err)
		return err;
	if (npos) {
		struct mc_mount *m = calloc(1, sizeof(*m));

		err = m ? mc_mount_fetch(&nl, pos[0], m) : MC_EXIT_FAIL;
		if (!err) {
			if (mc_json) {
				mcj_init(&j, stdout);
				mc_mount_json(&j, NULL, m);
				err = mcj_end(&j) ? MC_EXIT_FAIL : 0;
			} else {
				mc_mount_print(stdout, m);
			}
		}
		free(m);
		mc_nl_close(&nl);
		return err;
	}

	msg = mc_nl_msg(&nl, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP);
	err = msg ? mc_nl_call(&nl, msg, on_mount, &l) : -1;
	mc_nl_close(&nl);
	if (err) {
		free(l.m);
		return MC_EXIT_FAIL;
	}
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_obj(&j, NULL);
		mcj_arr(&j, "mounts");
		for (i = 0; i < l.n; i++)
			mc_mount_json(&j, NULL, &l.m[i]);
		mcj_arr_end(&j);
		mcj_obj_end(&j);
		err = mcj_end(&j) ? MC_EXIT_FAIL : 0;
	} else {
		print_table(&l);
	}
	free(l.m);
	return err;
}
