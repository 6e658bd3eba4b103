// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - "policy add|del|list": per-directory rules of a mount.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nl.h"

struct rules {
	struct mc_policy *p;
	size_t n, cap;
};

static int on_rule(const struct mc_reply *r, void *arg)
{
	struct rules *l = arg;

	if (!r->tb[METACACHE_A_POLICY])
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct mc_policy *p = realloc(l->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->p = p;
		l->cap = cap;
	}
	if (!mc_policy_get(r->tb[METACACHE_A_POLICY], &l->p[l->n]))
		l->n++;
	return 0;
}

static int list_rules(struct mc_nl *nl, const char *mount)
{
	struct mc_mount *m = calloc(1, sizeof(*m));
	struct rules l = { 0 };
	struct nl_msg *msg;
	struct mc_json j;
	size_t i;
	int err;

	if (!m)
		return MC_EXIT_FAIL;
	err = mc_mount_fetch(nl, mount, m);
	if (err)
		goto out;
	msg = mc_nl_msg(nl, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	if (!msg || nla_put_u32(msg, METACACHE_A_MOUNT_ID, m->id)) {
		nlmsg_free(msg);
		err = MC_EXIT_FAIL;
		goto out;
	}
	err = mc_nl_status(mc_nl_call(nl, msg, on_rule, &l));
	if (err)
		goto out;
	if (mc_json) {
		mcj_init(&j, stdout);
		mcj_obj(&j, NULL);
		mcj_u64(&j, "mount_id", m->id);
		mcj_str(&j, "mount_point", m->path[0] ? m->path : NULL);
		mcj_arr(&j, "policies");
		for (i = 0; i < l.n; i++) {
			mcj_obj(&j, NULL);
			mcj_str(&j, "path", l.p[i].path);
			mcj_bool(&j, "bypass",
				 !!(l.p[i].flags & METACACHE_POLICY_F_BYPASS));
			mcj_obj(&j, "tunables");
			mc_tun_json(&j, &l.p[i].tun);
			mcj_obj_end(&j);
			mcj_obj_end(&j);
		}
		mcj_arr_end(&j);
		mcj_obj_end(&j);
		err = mcj_end(&j) ? MC_EXIT_FAIL : 0;
	} else if (!l.n) {
		printf("mount %u (%s) has no policy rules\n", m->id, m->path);
	} else {
		static const char *const head[] = { "PATH", "RULE" };
		struct mc_table t;

		mc_table_init(&t, 2, head, "ll");
		for (i = 0; i < l.n; i++) {
			char rule[1024];

			if (l.p[i].flags & METACACHE_POLICY_F_BYPASS)
				snprintf(rule, sizeof(rule), "bypass");
			else
				mc_tun_str(&l.p[i].tun, rule, sizeof(rule));
			mc_table_row(&t, l.p[i].path, rule);
		}
		mc_table_print(&t, stdout, NULL);
		mc_table_free(&t);
	}
out:
	free(l.p);
	free(m);
	return err;
}

static int change_rule(struct mc_nl *nl, int add, const char *mount,
		       const char *path, const struct mc_tun *t, int bypass)
{
	char rel[METACACHE_PATH_MAX];
	struct nl_msg *msg;
	struct nlattr *nest;
	int err;

	err = mc_mount_relpath(nl, mount, path, rel, sizeof(rel));
	if (err)
		return err;
	msg = mc_nl_msg(nl, add ? METACACHE_CMD_POLICY_ADD
				: METACACHE_CMD_POLICY_DEL, 0);
	if (!msg)
		return MC_EXIT_FAIL;
	err = mc_put_mount(msg, mount);
	if (err)
		goto fail;
	nest = nla_nest_start(msg, METACACHE_A_POLICY);
	if (!nest || nla_put_string(msg, METACACHE_A_POLICY_PATH, rel) ||
	    (bypass && nla_put_u32(msg, METACACHE_A_POLICY_FLAGS,
				   METACACHE_POLICY_F_BYPASS)) ||
	    (add && !mc_tun_empty(t) &&
	     mc_tun_put(msg, METACACHE_A_POLICY_TUNABLES, t))) {
		mc_err("request too large");
		err = MC_EXIT_FAIL;
		goto fail;
	}
	nla_nest_end(msg, nest);
	return mc_nl_status(mc_nl_call(nl, msg, NULL, NULL));
fail:
	nlmsg_free(msg);
	return err;
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

int cmd_policy(int argc, char **argv)
{
	struct mc_tun t = { 0 };
	int npos, err, bypass = 0;
	const char *sub;
	struct mc_nl nl;
	char **pos;

	pos = calloc((size_t)argc, sizeof(*pos));
	if (!pos)
		return MC_EXIT_FAIL;
	err = mc_parse_opts("policy", argc, argv, NULL, 0, pos, argc, &npos);
	if (err) {
		free(pos);
		return err < 0 ? MC_EXIT_OK : err;
	}
	sub = npos ? pos[0] : "";
	if (!strcmp(sub, "add")) {
		if (npos < 4) {
			mc_err("policy add: needs MOUNT PATH and KEY VALUE pairs or bypass");
			goto usage;
		}
		err = mc_tun_parse_args(&t, npos - 3, pos + 3, &bypass, "policy");
		if (err)
			goto out;
		if (bypass && !mc_tun_empty(&t)) {
			mc_err("policy add: bypass caches nothing, so it takes no tunables");
			goto usage;
		}
	} else if (!strcmp(sub, "del") || !strcmp(sub, "delete")) {
		if (npos != 3) {
			mc_err("policy del: needs MOUNT PATH");
			goto usage;
		}
	} else if (!strcmp(sub, "list") || !strcmp(sub, "show")) {
		if (npos != 2) {
			mc_err("policy list: needs MOUNT");
			goto usage;
		}
	} else {
		if (*sub)
			mc_err("policy: unknown subcommand '%s'", sub);
		goto usage;
	}
	if (sub[0] != 'l' && sub[0] != 's' && check_path(pos[2]))
		goto usage;
	err = mc_nl_open(&nl);
	if (err)
		goto out;
	if (sub[0] == 'l' || sub[0] == 's')
		err = list_rules(&nl, pos[1]);
	else
		err = change_rule(&nl, sub[0] == 'a', pos[1], pos[2], &t, bypass);
	mc_nl_close(&nl);
out:
	free(pos);
	return err;
usage:
	free(pos);
	return mc_usage("policy");
}
