// SPDX-License-Identifier: GPL-2.0
/*
 * keys.c - the keyword table of tunables, shared by set, defaults and
 * policy: one line per key with its attribute, parser and help.
 */
#include <stdio.h>
#include <string.h>
#include "mcctl.h"

static int parse_ttl(const char *s, uint32_t *v, const char **why)
{
	return mc_parse_ttl(s, v, why);
}

static int parse_limit(const char *s, uint32_t *v, const char **why)
{
	uint64_t n;

	if (mc_parse_count(s, &n, why))
		return -1;
	if (n > METACACHE_LIMIT_MAX) {
		*why = "out of range 0..16777216 (16Mi)";
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

static int parse_switch(const char *s, uint32_t *v, const char **why)
{
	int on;

	if (mc_parse_switch(s, &on, why))
		return -1;
	*v = (uint32_t)on;
	return 0;
}

#define TTL(a)		METACACHE_A_TUN_##a, -1, MC_KEY_TTL, parse_ttl
#define LIMIT(a)	METACACHE_A_TUN_##a, -1, MC_KEY_LIMIT, parse_limit
#define SWITCH(c)	METACACHE_A_TUN_DISABLED, METACACHE_CACHE_##c, \
			MC_KEY_SWITCH, parse_switch

const struct mc_key mc_keys[] = {
	/* name          attribute, parser       default  help */
	{ "entry_ttl",   TTL(ENTRY_TTL),         5,     "trust a positive lookup this long (0: entry cache off)" },
	{ "neg_ttl",     TTL(NEG_TTL),           5,     "trust a negative lookup (ENOENT) this long (0: off)" },
	{ "attr_ttl",    TTL(ATTR_TTL),          5,     "trust attributes (size, times, mode) this long (0: off)" },
	{ "dir_ttl",     TTL(DIR_TTL),           5,     "trust a directory listing this long (0: off)" },
	{ "close_ttl",   TTL(CLOSE_TTL),         5,     "keep an idle lower file handle open this long (0: off)" },
	{ "max_entries", LIMIT(MAX_ENTRIES),     65536, "most positive entries cached (0: none)" },
	{ "max_neg",     LIMIT(MAX_NEG),         16384, "most negative entries cached (0: none)" },
	{ "max_handles", LIMIT(MAX_HANDLES),     1024,  "most lower handles kept open after close (0: none)" },
	{ "entry",       SWITCH(ENTRY),          1,     "on|off: the entry cache, keeping entry_ttl" },
	{ "neg",         SWITCH(NEG),            1,     "on|off: the negative cache, keeping neg_ttl" },
	{ "attr",        SWITCH(ATTR),           1,     "on|off: the attribute cache, keeping attr_ttl" },
	{ "dir",         SWITCH(DIR),            1,     "on|off: the directory cache, keeping dir_ttl" },
	{ "handle",      SWITCH(HANDLE),         1,     "on|off: deferred close, keeping close_ttl" },
};
const size_t mc_nkeys = MC_ARRAY_SIZE(mc_keys);

static const char *const cache_names[] = {
	[METACACHE_CACHE_ENTRY] = "entry",
	[METACACHE_CACHE_NEG] = "neg",
	[METACACHE_CACHE_ATTR] = "attr",
	[METACACHE_CACHE_DIR] = "dir",
	[METACACHE_CACHE_HANDLE] = "handle",
};

_Static_assert(MC_ARRAY_SIZE(cache_names) == METACACHE_CACHE_MAX + 1,
	       "a cache without a name");

static const char *const op_names[] = {
	[METACACHE_OP_LOOKUP] = "lookup",
	[METACACHE_OP_REVALIDATE] = "revalidate",
	[METACACHE_OP_GETATTR] = "getattr",
	[METACACHE_OP_SETATTR] = "setattr",
	[METACACHE_OP_PERMISSION] = "permission",
	[METACACHE_OP_CREATE] = "create",
	[METACACHE_OP_MKDIR] = "mkdir",
	[METACACHE_OP_MKNOD] = "mknod",
	[METACACHE_OP_SYMLINK] = "symlink",
	[METACACHE_OP_LINK] = "link",
	[METACACHE_OP_UNLINK] = "unlink",
	[METACACHE_OP_RMDIR] = "rmdir",
	[METACACHE_OP_RENAME] = "rename",
	[METACACHE_OP_OPEN] = "open",
	[METACACHE_OP_RELEASE] = "release",
	[METACACHE_OP_READ] = "read",
	[METACACHE_OP_WRITE] = "write",
	[METACACHE_OP_READDIR] = "readdir",
	[METACACHE_OP_FSYNC] = "fsync",
	[METACACHE_OP_XATTR] = "xattr",
	[METACACHE_OP_LOCK] = "lock",
	[METACACHE_OP_IOCTL] = "ioctl",
	[METACACHE_OP_STATFS] = "statfs",
	[METACACHE_OP_OTHER] = "other",
};

_Static_assert(MC_ARRAY_SIZE(op_names) == METACACHE_OP_MAX + 1,
	       "an operation without a name");

const char *mc_cache_name(unsigned int cache)
{
	return cache < MC_ARRAY_SIZE(cache_names) ? cache_names[cache] : NULL;
}

const char *mc_op_name(unsigned int op, char *buf, size_t len)
{
	if (op < MC_ARRAY_SIZE(op_names))
		return op_names[op];
	snprintf(buf, len, "op%u", op);
	return buf;
}

const struct mc_key *mc_key_find(const char *name)
{
	size_t i;

	for (i = 0; i < mc_nkeys; i++)
		if (!strcmp(mc_keys[i].name, name))
			return &mc_keys[i];
	return NULL;
}

int mc_key_set(struct mc_tun *t, const struct mc_key *k, const char *value)
{
	const char *why = "invalid value";
	uint32_t v;

	if (k->parse(value, &v, &why)) {
		mc_err("%s: '%s': %s", k->name, value, why);
		return -1;
	}
	if (k->kind == MC_KEY_SWITCH) {
		uint32_t bit = 1U << k->cache;

		t->dis_selector |= bit;
		if (v)
			t->dis_value &= ~bit;
		else
			t->dis_value |= bit;
	} else {
		t->val[k->attr] = v;
	}
	t->present |= 1U << k->attr;
	return 0;
}

/* "entry_ttl, neg_ttl, ..." */
static void key_names(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < mc_nkeys && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "", mc_keys[i].name);
}

int mc_tun_parse_args(struct mc_tun *t, int argc, char **argv, int *bypass,
		      const char *cmd)
{
	int i;

	for (i = 0; i < argc; i++) {
		const struct mc_key *k;

		if (bypass && !strcmp(argv[i], "bypass")) {
			*bypass = 1;
			continue;
		}
		k = mc_key_find(argv[i]);
		if (!k) {
			char names[256];

			key_names(names, sizeof(names));
			mc_err("unknown key '%s' (keys: %s)", argv[i], names);
			return cmd ? mc_usage(cmd) : MC_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			mc_err("%s: needs a value", k->name);
			return cmd ? mc_usage(cmd) : MC_EXIT_USAGE;
		}
		if (mc_key_set(t, k, argv[++i]))
			return cmd ? mc_usage(cmd) : MC_EXIT_USAGE;
	}
	return 0;
}

int mc_cache_ttl_attr(unsigned int cache)
{
	static const int ttl[] = {
		[METACACHE_CACHE_ENTRY] = METACACHE_A_TUN_ENTRY_TTL,
		[METACACHE_CACHE_NEG] = METACACHE_A_TUN_NEG_TTL,
		[METACACHE_CACHE_ATTR] = METACACHE_A_TUN_ATTR_TTL,
		[METACACHE_CACHE_DIR] = METACACHE_A_TUN_DIR_TTL,
		[METACACHE_CACHE_HANDLE] = METACACHE_A_TUN_CLOSE_TTL,
	};

	return cache < MC_ARRAY_SIZE(ttl) ? ttl[cache] : -1;
}

int mc_tun_cache_active(const struct mc_tun *t, unsigned int cache)
{
	int a = mc_cache_ttl_attr(cache);

	if (a < 0 || !(t->present & (1U << a)) || !t->val[a])
		return 0;
	return !(t->dis_value & (1U << cache));
}

int mc_tun_empty(const struct mc_tun *t)
{
	return !t->present;
}

static int key_present(const struct mc_tun *t, const struct mc_key *k)
{
	if (!(t->present & (1U << k->attr)))
		return 0;
	if (k->kind == MC_KEY_SWITCH)
		return !!(t->dis_selector & (1U << k->cache));
	return 1;
}

static const char *key_value(const struct mc_tun *t, const struct mc_key *k,
			     char *buf, size_t len)
{
	switch (k->kind) {
	case MC_KEY_TTL:
		return mc_fmt_ttl(buf, len, t->val[k->attr]);
	case MC_KEY_LIMIT:
		snprintf(buf, len, "%u", t->val[k->attr]);
		return buf;
	case MC_KEY_SWITCH:
		return t->dis_value & (1U << k->cache) ? "off" : "on";
	}
	return "?";
}

void mc_tun_str(const struct mc_tun *t, char *buf, size_t len)
{
	size_t i, off = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (i = 0; i < mc_nkeys && off < len; i++) {
		char v[MC_FMT_LEN];

		if (!key_present(t, &mc_keys[i]))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
					off ? " " : "", mc_keys[i].name,
					key_value(t, &mc_keys[i], v, sizeof(v)));
	}
}

void mc_tun_print(FILE *f, const struct mc_tun *t, const char *indent)
{
	size_t i;

	for (i = 0; i < mc_nkeys; i++) {
		const struct mc_key *k = &mc_keys[i];
		char v[MC_FMT_LEN];

		if (!key_present(t, k))
			continue;
		fprintf(f, "%s%-12s %s", indent, k->name,
			key_value(t, k, v, sizeof(v)));
		if (k->kind == MC_KEY_TTL && t->val[k->attr] == 0)
			fputs("  (cache off)", f);
		fputc('\n', f);
	}
}

void mc_tun_json(struct mc_json *j, const struct mc_tun *t)
{
	size_t i;

	for (i = 0; i < mc_nkeys; i++) {
		const struct mc_key *k = &mc_keys[i];

		if (!key_present(t, k))
			continue;
		if (k->kind == MC_KEY_SWITCH)
			mcj_bool(j, k->name, !(t->dis_value & (1U << k->cache)));
		else
			mcj_u64(j, k->name, t->val[k->attr]);
	}
}
