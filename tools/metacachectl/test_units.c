// SPDX-License-Identifier: GPL-2.0
/*
 * test_units.c - host unit tests of metacachectl's parts that need no
 * kernel: unit parsing and printing, the keyword table, JSON escaping
 * (checked with python3's json module when python3 is there) and
 * percentiles from histograms.  TAP output (tests/lib/mctest.h).
 *
 *	make -C tools test
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include "mctest.h"
#include "mcctl.h"

/* What keys.c and units.c need from main.c, recording the messages. */
int mc_json;
const char *mc_prog = "metacachectl";
static char last_err[512];
static int usage_calls;

void mc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

int mc_usage(const char *cmd)
{
	(void)cmd;
	usage_calls++;
	return MC_EXIT_USAGE;
}

#define NS 1ULL
#define US 1000ULL
#define MS 1000000ULL
#define S 1000000000ULL

/* ---------------------------------------------------------------- units */

MCT_TEST(duration_parse)
{
	static const struct { const char *in; uint64_t ns; } ok[] = {
		{ "0", 0 }, { "5", 5 * S }, { "30s", 30 * S },
		{ "500ms", 500 * MS }, { "5m", 300 * S }, { "1h", 3600 * S },
		{ "2d", 172800 * S }, { "1h30m", 5400 * S }, { "1m30s", 90 * S },
		{ "250us", 250 * US }, { "10ns", 10 * NS }, { "1s500ms", 1500 * MS },
	};
	static const char *const bad[] = {
		"", "s", "5x", "5 s", "-5", "1.5s", "1m30", "5min", "5sec",
		"99999999999999999999", "18446744073709551615s", "s5", "5s ",
	};
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(ok); i++) {
		why = NULL;
		MCT_EXPECT(mc_parse_duration_ns(ok[i].in, &v, &why) == 0,
			   "'%s' rejected: %s", ok[i].in, why);
		MCT_EXPECT(v == ok[i].ns, "'%s' = %" PRIu64 ", want %" PRIu64,
			   ok[i].in, v, ok[i].ns);
	}
	for (i = 0; i < MC_ARRAY_SIZE(bad); i++) {
		why = NULL;
		MCT_EXPECT(mc_parse_duration_ns(bad[i], &v, &why) == -1,
			   "'%s' accepted", bad[i]);
		MCT_EXPECT(why && *why, "'%s': no reason given", bad[i]);
	}
}

MCT_TEST(ttl_parse)
{
	static const struct { const char *in; uint32_t s; } ok[] = {
		{ "0", 0 }, { "off", 0 }, { "5", 5 }, { "30s", 30 },
		{ "5m", 300 }, { "1h", 3600 }, { "1500ms", 0 /* bad */ },
		{ "365d", 31536000 }, { "31536000", 31536000 }, { "2000ms", 2 },
	};
	const char *why;
	uint32_t v;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(ok); i++) {
		int r = mc_parse_ttl(ok[i].in, &v, &why);

		if (!strcmp(ok[i].in, "1500ms")) {
			MCT_EXPECT(r == -1 && strstr(why, "whole"),
				   "1500ms accepted as a ttl");
			continue;
		}
		MCT_EXPECT(r == 0 && v == ok[i].s, "ttl '%s' = %u (r %d), want %u",
			   ok[i].in, v, r, ok[i].s);
	}
	MCT_EXPECT(mc_parse_ttl("31536001", &v, &why) == -1 &&
		   strstr(why, "maximum"), "31536001 accepted");
	MCT_EXPECT(mc_parse_ttl("366d", &v, &why) == -1, "366d accepted");
	MCT_EXPECT(mc_parse_ttl("500ms", &v, &why) == -1, "500ms accepted");
	MCT_EXPECT(mc_parse_ttl("on", &v, &why) == -1, "'on' accepted as ttl");
}

MCT_TEST(size_parse)
{
	static const struct { const char *in; uint64_t v; } ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 },
		{ "64M", 64ULL << 20 }, { "1G", 1ULL << 30 }, { "2T", 2ULL << 40 },
		{ "1KiB", 1024 }, { "1KB", 1024 }, { "100B", 100 },
	};
	static const char *const bad[] = {
		"", "K", "1X", "1Kx", "1.5G", "-1", "17179869184G", "1 K",
	};
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(ok); i++)
		MCT_EXPECT(mc_parse_size(ok[i].in, &v, &why) == 0 && v == ok[i].v,
			   "size '%s' = %" PRIu64 ", want %" PRIu64, ok[i].in, v,
			   ok[i].v);
	for (i = 0; i < MC_ARRAY_SIZE(bad); i++)
		MCT_EXPECT(mc_parse_size(bad[i], &v, &why) == -1 && *why,
			   "size '%s' accepted", bad[i]);
}

MCT_TEST(count_parse)
{
	static const struct { const char *in; uint64_t v; } ok[] = {
		{ "0", 0 }, { "65536", 65536 }, { "64k", 64000 }, { "64K", 64000 },
		{ "64Ki", 65536 }, { "2M", 2000000 }, { "1Mi", 1048576 },
		{ "16Mi", 16777216 }, { "1G", 1000000000 },
	};
	static const char *const bad[] = {
		"", "k", "1m", "1x", "1kk", "1Kib", "-3", "1.5k", "99999999999999999999",
	};
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(ok); i++)
		MCT_EXPECT(mc_parse_count(ok[i].in, &v, &why) == 0 && v == ok[i].v,
			   "count '%s' = %" PRIu64 ", want %" PRIu64, ok[i].in, v,
			   ok[i].v);
	for (i = 0; i < MC_ARRAY_SIZE(bad); i++)
		MCT_EXPECT(mc_parse_count(bad[i], &v, &why) == -1 && *why,
			   "count '%s' accepted", bad[i]);
}

MCT_TEST(switch_and_id_parse)
{
	const char *why;
	uint32_t id;
	int on;

	MCT_EXPECT(!mc_parse_switch("on", &on, &why) && on == 1, "on");
	MCT_EXPECT(!mc_parse_switch("off", &on, &why) && on == 0, "off");
	MCT_EXPECT(!mc_parse_switch("1", &on, &why) && on == 1, "1");
	MCT_EXPECT(!mc_parse_switch("no", &on, &why) && on == 0, "no");
	MCT_EXPECT(mc_parse_switch("maybe", &on, &why) == -1, "maybe");
	MCT_EXPECT(!mc_parse_u32_id("42", &id) && id == 42, "id 42");
	MCT_EXPECT(!mc_parse_u32_id("4294967295", &id) && id == UINT32_MAX,
		   "id max");
	MCT_EXPECT(mc_parse_u32_id("4294967296", &id) == -1, "id overflow");
	MCT_EXPECT(mc_parse_u32_id("/mnt/fast", &id) == -1, "path as id");
	MCT_EXPECT(mc_parse_u32_id("./12", &id) == -1, "./12 as id");
	MCT_EXPECT(mc_parse_u32_id("", &id) == -1, "empty id");
}

MCT_TEST(ttl_print_roundtrip)
{
	static const struct { uint64_t s; const char *out; } want[] = {
		{ 0, "0" }, { 5, "5s" }, { 60, "1m" }, { 90, "1m30s" },
		{ 3600, "1h" }, { 5400, "1h30m" }, { 86461, "1d1m1s" },
		{ 31536000, "365d" },
	};
	char buf[MC_FMT_LEN];
	const char *why;
	uint32_t v, s;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(want); i++)
		MCT_EXPECT(!strcmp(mc_fmt_ttl(buf, sizeof(buf), want[i].s),
				   want[i].out), "%" PRIu64 "s printed '%s', want '%s'",
			   want[i].s, buf, want[i].out);
	/* every printed ttl parses back to itself */
	for (s = 0; s <= METACACHE_TTL_MAX; s = s * 3 + 7) {
		mc_fmt_ttl(buf, sizeof(buf), s);
		MCT_EXPECT(!mc_parse_ttl(buf, &v, &why) && v == s,
			   "%u printed '%s' parsed %u", s, buf, v);
	}
}

MCT_TEST(latency_size_count_print)
{
	static const struct { uint64_t v; const char *ns, *size, *count; } w[] = {
		{ 0, "0ns", "0B", "0" },
		{ 999, "999ns", "999B", "999" },
		{ 1000, "1.00us", "1000B", "1.00k" },
		{ 1024, "1.02us", "1.00K", "1.02k" },
		{ 1536, "1.54us", "1.50K", "1.54k" },
		{ 12345678, "12.3ms", "11.8M", "12.3M" },
		{ 999499, "999us", "976K", "999k" },
		{ 999500, "1.00ms", "976K", "1.00M" },
		{ 2500000000ULL, "2.50s", "2.33G", "2.50G" },
		{ 67108864, "67.1ms", "64.0M", "67.1M" },
	};
	char a[MC_FMT_LEN], b[MC_FMT_LEN], c[MC_FMT_LEN];
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(w); i++) {
		mc_fmt_ns(a, sizeof(a), w[i].v);
		mc_fmt_size(b, sizeof(b), w[i].v);
		mc_fmt_count(c, sizeof(c), w[i].v);
		MCT_EXPECT(!strcmp(a, w[i].ns), "ns %" PRIu64 ": '%s', want '%s'",
			   w[i].v, a, w[i].ns);
		MCT_EXPECT(!strcmp(b, w[i].size), "size %" PRIu64 ": '%s', want '%s'",
			   w[i].v, b, w[i].size);
		MCT_EXPECT(!strcmp(c, w[i].count), "count %" PRIu64 ": '%s', want '%s'",
			   w[i].v, c, w[i].count);
	}
	MCT_EXPECT(!strcmp(mc_fmt_ns(a, sizeof(a), 10000 * S), "10000s"),
		   "10000s printed '%s'", a);
	MCT_EXPECT(!strcmp(mc_fmt_age(a, sizeof(a), 3725 * S), "1h2m"),
		   "age '%s'", a);
	MCT_EXPECT(!strcmp(mc_fmt_age(a, sizeof(a), 45 * S), "45s"), "age '%s'", a);
	MCT_EXPECT(!strcmp(mc_fmt_age(a, sizeof(a), 2 * 86400 * S + 3 * 3600 * S),
			   "2d3h"), "age '%s'", a);
}

MCT_TEST(path_normalize)
{
	static const struct { const char *in, *out; } w[] = {
		{ "", "/" }, { ".", "/" }, { "/", "/" }, { "a", "/a" },
		{ "a/b", "/a/b" }, { "/a//b/./c/", "/a/b/c" }, { "./x", "/x" },
		{ "a/.hidden", "/a/.hidden" }, { "a/...", "/a/..." },
	};
	char out[64];
	const char *why;
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(w); i++)
		MCT_EXPECT(!mc_path_normalize(w[i].in, out, sizeof(out), &why) &&
			   !strcmp(out, w[i].out), "'%s' -> '%s', want '%s'",
			   w[i].in, out, w[i].out);
	MCT_EXPECT(mc_path_normalize("a/../b", out, sizeof(out), &why) == -1,
		   "'..' accepted");
	MCT_EXPECT(mc_path_normalize("..", out, sizeof(out), &why) == -1,
		   "'..' accepted");
	MCT_EXPECT(mc_path_normalize("abcdef", out, 4, &why) == -1,
		   "overflow not detected");
}

/* ------------------------------------------------------------ keywords */

MCT_TEST(keyword_table_is_sound)
{
	uint32_t ttl_attrs = 0, limit_attrs = 0, switches = 0;
	size_t i, k;

	MCT_ASSERT(mc_nkeys > 0, "no keys");
	for (i = 0; i < mc_nkeys; i++) {
		const struct mc_key *key = &mc_keys[i];

		MCT_EXPECT(key->name && *key->name && key->help && *key->help &&
			   key->parse, "key %zu incomplete", i);
		MCT_EXPECT(key->attr > METACACHE_A_TUN_UNSPEC &&
			   key->attr <= METACACHE_A_TUN_MAX, "%s: attribute %d",
			   key->name, key->attr);
		for (k = 0; k < i; k++)
			MCT_EXPECT(strcmp(mc_keys[k].name, key->name),
				   "%s twice", key->name);
		MCT_EXPECT(mc_key_find(key->name) == key, "%s not found", key->name);
		switch (key->kind) {
		case MC_KEY_TTL:
			MCT_EXPECT(!(ttl_attrs & (1U << key->attr)), "%s: attr twice",
				   key->name);
			ttl_attrs |= 1U << key->attr;
			break;
		case MC_KEY_LIMIT:
			limit_attrs |= 1U << key->attr;
			break;
		case MC_KEY_SWITCH:
			MCT_EXPECT(key->attr == METACACHE_A_TUN_DISABLED &&
				   key->cache >= 0 && key->cache <= METACACHE_CACHE_MAX,
				   "%s: bad switch", key->name);
			switches |= 1U << key->cache;
			break;
		}
	}
	/* every tunable attribute has its key, every cache its switch */
	MCT_EXPECT((ttl_attrs | limit_attrs | (1U << METACACHE_A_TUN_DISABLED)) ==
		   (((1U << (METACACHE_A_TUN_MAX + 1)) - 1) & ~1U),
		   "attributes without a key: ttl %#x limit %#x", ttl_attrs,
		   limit_attrs);
	MCT_EXPECT(switches == METACACHE_CACHE_F_ALL, "switches %#x", switches);
	/* the documented defaults are the header's */
	MCT_EXPECT(mc_key_find("entry_ttl")->dflt == METACACHE_DEFAULT_ENTRY_TTL &&
		   mc_key_find("neg_ttl")->dflt == METACACHE_DEFAULT_NEG_TTL &&
		   mc_key_find("attr_ttl")->dflt == METACACHE_DEFAULT_ATTR_TTL &&
		   mc_key_find("dir_ttl")->dflt == METACACHE_DEFAULT_DIR_TTL &&
		   mc_key_find("close_ttl")->dflt == METACACHE_DEFAULT_CLOSE_TTL &&
		   mc_key_find("max_entries")->dflt == METACACHE_DEFAULT_MAX_ENTRIES &&
		   mc_key_find("max_neg")->dflt == METACACHE_DEFAULT_MAX_NEG &&
		   mc_key_find("max_handles")->dflt == METACACHE_DEFAULT_MAX_HANDLES,
		   "key defaults differ from METACACHE_DEFAULT_*");
	for (i = 0; i <= METACACHE_CACHE_MAX; i++)
		MCT_EXPECT(mc_key_find(mc_cache_name((unsigned int)i)) &&
			   mc_cache_ttl_attr((unsigned int)i) > 0,
			   "cache %zu: no switch key or ttl", i);
}

MCT_TEST(every_key_parses)
{
	size_t i;

	for (i = 0; i < mc_nkeys; i++) {
		const struct mc_key *k = &mc_keys[i];
		const char *good = k->kind == MC_KEY_TTL ? "1m30s" :
				   k->kind == MC_KEY_LIMIT ? "64Ki" : "off";
		uint32_t want = k->kind == MC_KEY_TTL ? 90 :
				k->kind == MC_KEY_LIMIT ? 65536 : 0;
		struct mc_tun t = { 0 };

		last_err[0] = 0;
		MCT_EXPECT(mc_key_set(&t, k, good) == 0, "%s %s: %s", k->name,
			   good, last_err);
		MCT_EXPECT(t.present == 1U << k->attr, "%s: present %#x", k->name,
			   t.present);
		if (k->kind == MC_KEY_SWITCH)
			MCT_EXPECT(t.dis_selector == 1U << k->cache &&
				   t.dis_value == 1U << k->cache,
				   "%s off: selector %#x value %#x", k->name,
				   t.dis_selector, t.dis_value);
		else
			MCT_EXPECT(t.val[k->attr] == want, "%s = %u, want %u",
				   k->name, t.val[k->attr], want);
	}
}

MCT_TEST(bad_values_rejected_with_message)
{
	static const struct { const char *key, *val; } bad[] = {
		{ "entry_ttl", "5x" }, { "entry_ttl", "366d" },
		{ "neg_ttl", "-1" }, { "attr_ttl", "500ms" }, { "dir_ttl", "" },
		{ "close_ttl", "on" }, { "max_entries", "-1" },
		{ "max_entries", "16777217" }, { "max_neg", "17M" },
		{ "max_handles", "1.5k" }, { "entry", "maybe" }, { "handle", "5" },
	};
	size_t i;

	for (i = 0; i < MC_ARRAY_SIZE(bad); i++) {
		const struct mc_key *k = mc_key_find(bad[i].key);
		struct mc_tun t = { 0 };

		MCT_ASSERT(k, "no key %s", bad[i].key);
		last_err[0] = 0;
		MCT_EXPECT(mc_key_set(&t, k, bad[i].val) == -1, "%s '%s' accepted",
			   bad[i].key, bad[i].val);
		MCT_EXPECT(strstr(last_err, bad[i].key) && strlen(last_err) >
			   strlen(bad[i].key) + 4, "%s '%s': message '%s'",
			   bad[i].key, bad[i].val, last_err);
		MCT_EXPECT(!t.present, "%s '%s' left a value", bad[i].key, bad[i].val);
	}
	MCT_EXPECT(!mc_key_set(&(struct mc_tun){ 0 }, mc_key_find("max_neg"), "16Mi"),
		   "16Mi (the maximum) rejected: %s", last_err);
}

MCT_TEST(parse_key_value_args)
{
	char *args[] = { "entry_ttl", "30s", "neg", "off", "max_neg", "2k",
			 "neg", "on", "dir", "off" };
	char *unknown[] = { "entry_ttl", "5", "bogus", "1" };
	char *missing[] = { "entry_ttl" };
	char *with_bypass[] = { "bypass" };
	struct mc_tun t = { 0 };
	char buf[256];
	int bypass = 0;

	MCT_ASSERT(mc_tun_parse_args(&t, 10, args, NULL, NULL) == 0, "%s", last_err);
	MCT_EXPECT(t.val[METACACHE_A_TUN_ENTRY_TTL] == 30 &&
		   t.val[METACACHE_A_TUN_MAX_NEG] == 2000, "values");
	/* neg off then on: selected, value clear; dir off */
	MCT_EXPECT(t.dis_selector == (METACACHE_CACHE_F_NEG | METACACHE_CACHE_F_DIR) &&
		   t.dis_value == METACACHE_CACHE_F_DIR,
		   "switches: selector %#x value %#x", t.dis_selector, t.dis_value);
	mc_tun_str(&t, buf, sizeof(buf));
	MCT_EXPECT(!strcmp(buf, "entry_ttl=30s max_neg=2000 neg=on dir=off"),
		   "tun_str '%s'", buf);

	memset(&t, 0, sizeof(t));
	usage_calls = 0;
	MCT_EXPECT(mc_tun_parse_args(&t, 4, unknown, NULL, "set") == MC_EXIT_USAGE &&
		   strstr(last_err, "bogus") && usage_calls == 1,
		   "unknown key: '%s', usage %d", last_err, usage_calls);
	MCT_EXPECT(mc_tun_parse_args(&t, 1, missing, NULL, "set") == MC_EXIT_USAGE &&
		   strstr(last_err, "needs a value"), "missing value: '%s'", last_err);
	MCT_EXPECT(mc_tun_parse_args(&t, 1, with_bypass, NULL, NULL) == MC_EXIT_USAGE,
		   "bypass accepted where it is not a key");
	memset(&t, 0, sizeof(t));
	MCT_EXPECT(mc_tun_parse_args(&t, 1, with_bypass, &bypass, NULL) == 0 &&
		   bypass && mc_tun_empty(&t), "bypass refused");
}

MCT_TEST(cache_active)
{
	struct mc_tun t = { 0 };

	mc_key_set(&t, mc_key_find("entry_ttl"), "5");
	mc_key_set(&t, mc_key_find("neg_ttl"), "0");
	mc_key_set(&t, mc_key_find("attr_ttl"), "5");
	mc_key_set(&t, mc_key_find("attr"), "off");
	MCT_EXPECT(mc_tun_cache_active(&t, METACACHE_CACHE_ENTRY), "entry off");
	MCT_EXPECT(!mc_tun_cache_active(&t, METACACHE_CACHE_NEG), "neg ttl 0 on");
	MCT_EXPECT(!mc_tun_cache_active(&t, METACACHE_CACHE_ATTR), "attr off on");
	MCT_EXPECT(!mc_tun_cache_active(&t, METACACHE_CACHE_DIR), "dir unknown on");
}

/* ---------------------------------------------------------------- JSON */

static char *json_of(void (*fn)(struct mc_json *, const void *), const void *arg,
		     int *rc)
{
	*rc = -2;
	struct mc_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	mcj_init(&j, f);
	fn(&j, arg);
	*rc = mcj_end(&j);
	fclose(f);
	return buf;
}

static void one_string(struct mc_json *j, const void *s)
{
	mcj_str(j, NULL, s);
}

MCT_TEST(json_escaping)
{
	static const struct { const char *in, *out; } w[] = {
		{ "plain", "\"plain\"\n" },
		{ "a\"b", "\"a\\\"b\"\n" },
		{ "back\\slash", "\"back\\\\slash\"\n" },
		{ "tab\there\nnl\rcr\bbs\fff", "\"tab\\there\\nnl\\rcr\\bbs\\fff\"\n" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"\n" },
		{ "/slash/", "\"/slash/\"\n" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n" },
		{ "bad\xff", "\"bad\\ufffd\"\n" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"\n" },		/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"\n" },	/* surrogate */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"\n" },		/* truncated */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"\n" },
		{ "", "\"\"\n" },
	};
	size_t i;
	int rc;

	for (i = 0; i < MC_ARRAY_SIZE(w); i++) {
		char *out = json_of(one_string, w[i].in, &rc);

		MCT_ASSERT(out, "open_memstream");
		MCT_EXPECT(rc == 0 && !strcmp(out, w[i].out),
			   "case %zu: got %s want %s", i, out, w[i].out);
		free(out);
	}
}

static void misuse(struct mc_json *j, const void *arg)
{
	(void)arg;
	mcj_obj(j, NULL);
	mcj_arr(j, "open");
}

MCT_TEST(json_misuse_detected)
{
	int rc = 0;
	char *out = json_of(misuse, NULL, &rc);

	MCT_EXPECT(rc == -1, "unbalanced document not reported");
	free(out);
}

static const char *const tricky[] = {
	"plain", "quote\" and \\ backslash", "ctl \x01\x02\x1f end",
	"nl\nret\rtab\t", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	"/mnt/share with spaces", "del\x7f", "",
};

static void document(struct mc_json *j, const void *arg)
{
	size_t i;
	char key[16];

	(void)arg;
	mcj_obj(j, NULL);
	mcj_arr(j, "strings");
	for (i = 0; i < MC_ARRAY_SIZE(tricky); i++)
		mcj_str(j, NULL, tricky[i]);
	mcj_arr_end(j);
	mcj_obj(j, "numbers");
	mcj_u64(j, "u64max", UINT64_MAX);
	mcj_i64(j, "neg", -42);
	mcj_dbl(j, "ratio", 0.9375);
	mcj_dbl(j, "nan", NAN);
	mcj_dbl(j, "inf", INFINITY);
	mcj_obj_end(j);
	mcj_bool(j, "t", 1);
	mcj_bool(j, "f", 0);
	mcj_null(j, "n");
	mcj_str(j, "null_str", NULL);
	mcj_str(j, "key \"with\" quotes\n", "v");
	mcj_str(j, "bad utf8 \xff", "\xfe\xff");
	mcj_arr(j, "empty_arr");
	mcj_arr_end(j);
	mcj_obj(j, "empty_obj");
	mcj_obj_end(j);
	mcj_arr(j, "nested");
	for (i = 0; i < 3; i++) {
		mcj_obj(j, NULL);
		snprintf(key, sizeof(key), "k%zu", i);
		mcj_u64(j, key, i);
		mcj_obj_end(j);
	}
	mcj_arr_end(j);
	mcj_obj_end(j);
}

/* Run python3 on the document; NULL when there is no python3. */
static int python(const char *script, const char *file, char *out, size_t len)
{
	char cmd[1024];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "python3 %s %s 2>&1", script, file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	return pclose(p);
}

MCT_TEST(json_valid_for_python)
{
	char file[] = "/tmp/mcctl-json-XXXXXX", out[8192], hex[8192], *doc;
	size_t i, off = 0;
	int rc, fd;
	FILE *f;

	if (system("python3 -c 'import json' >/dev/null 2>&1"))
		MCT_SKIP("python3 is not installed");
	doc = json_of(document, NULL, &rc);
	MCT_ASSERT(doc && rc == 0, "emitter reported misuse");
	fd = mkstemp(file);
	MCT_ASSERT(fd >= 0, "mkstemp: %s", strerror(errno));
	f = fdopen(fd, "w");
	MCT_ASSERT(f, "fdopen: %s", strerror(errno));
	fputs(doc, f);
	fclose(f);

	rc = python("-m json.tool", file, out, sizeof(out));
	MCT_EXPECT(rc == 0, "python3 -m json.tool rejects %s: %s", doc, out);

	/* the strings decode to exactly what was encoded */
	rc = python("-c 'import json,sys; d=json.load(open(sys.argv[1])); "
		    "print(\" \".join(s.encode().hex() for s in d[\"strings\"]))'",
		    file, out, sizeof(out));
	for (i = 0; i < MC_ARRAY_SIZE(tricky); i++) {
		const unsigned char *s = (const unsigned char *)tricky[i];

		if (i)
			hex[off++] = ' ';
		for (; *s; s++)
			off += (size_t)snprintf(hex + off, sizeof(hex) - off, "%02x", *s);
	}
	hex[off++] = '\n';
	hex[off] = 0;
	MCT_EXPECT(rc == 0 && !strcmp(out, hex),
		   "round trip differs:\n#  got  %s#  want %s", out, hex);
	rc = python("-c 'import json,sys; d=json.load(open(sys.argv[1])); "
		    "assert d[\"numbers\"][\"u64max\"] == 2**64-1; "
		    "assert d[\"numbers\"][\"nan\"] is None; "
		    "assert d[\"numbers\"][\"ratio\"] == 0.9375; "
		    "assert d[\"null_str\"] is None and d[\"t\"] is True; "
		    "assert d[\"bad utf8 \\ufffd\"] == \"\\ufffd\\ufffd\"; "
		    "assert d[\"nested\"][2][\"k2\"] == 2'",
		    file, out, sizeof(out));
	MCT_EXPECT(rc == 0, "values differ: %s", out);
	unlink(file);
	free(doc);
}

/* ---------------------------------------------------------- histograms */

MCT_TEST(hist_bucket_scheme)
{
	unsigned int i;

	MCT_EXPECT(METACACHE_HIST_NBUCKETS == 126, "nbuckets %d",
		   METACACHE_HIST_NBUCKETS);
	MCT_EXPECT(mc_hist_index(0) == 0 && mc_hist_index(63) == 0, "underflow");
	MCT_EXPECT(mc_hist_index(64) == 1 && mc_hist_lower(1) == 64, "first");
	MCT_EXPECT(mc_hist_index(80) == 2 && mc_hist_index(79) == 1, "sub-bucket");
	MCT_EXPECT(mc_hist_index(1ULL << 37) == 125 &&
		   mc_hist_index((1ULL << 37) - 1) == 124 &&
		   mc_hist_index(UINT64_MAX) == 125, "overflow");
	MCT_EXPECT(mc_hist_upper(124) == 1ULL << 37 &&
		   mc_hist_upper(125) == UINT64_MAX, "last bounds");
	MCT_EXPECT(mc_hist_index(100 * S) >= 121 && mc_hist_index(100 * S) <= 124,
		   "100 s is not in the last power of two (2^36..2^37 ns)");
	for (i = 1; i < METACACHE_HIST_NBUCKETS - 1; i++) {
		uint64_t lo = mc_hist_lower(i), hi = mc_hist_upper(i);

		MCT_EXPECT(lo < hi, "bucket %u empty", i);
		MCT_EXPECT(mc_hist_index(lo) == i && mc_hist_index(hi - 1) == i,
			   "bucket %u: [%" PRIu64 ", %" PRIu64 ") maps to %u, %u",
			   i, lo, hi, mc_hist_index(lo), mc_hist_index(hi - 1));
		MCT_EXPECT((double)(hi - lo) / (double)lo <= 0.25 + 1e-12,
			   "bucket %u wider than 25%%", i);
		MCT_EXPECT(mc_hist_lower(i + 1) == hi, "gap after bucket %u", i);
	}
}

MCT_TEST(percentiles_empty_and_single_bucket)
{
	struct mc_hist h = { 0 };
	uint64_t v;

	MCT_EXPECT(mc_hist_percentile(&h, 0.5, &v) == -1, "empty histogram");
	/* 100 samples of 1100 ns: bucket [1024, 1280) */
	mc_hist_add(&h, 1100, 100);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.01, &v) && v == 1026, "p1 = %" PRIu64, v);
	/* interpolation gives 1152, but never above the largest sample */
	MCT_EXPECT(!mc_hist_percentile(&h, 0.5, &v) && v == 1100, "p50 = %" PRIu64, v);
	MCT_EXPECT(!mc_hist_percentile(&h, 1.0, &v) && v == 1100, "p100 = %" PRIu64, v);
	MCT_EXPECT(mc_hist_percentile(&h, 0, &v) == -1, "q = 0 accepted");
}

static int near(uint64_t got, double want, double tol)
{
	return fabs((double)got - want) <= tol * want;
}

MCT_TEST(percentiles_uniform)
{
	static const struct { double q, want; } w[] = {
		{ 0.5, 500e3 }, { 0.9, 900e3 }, { 0.99, 990e3 }, { 0.999, 999e3 },
	};
	struct mc_hist h = { 0 };
	uint64_t v, last = 0;
	unsigned int i;

	for (i = 1; i <= 100000; i++)	/* 10 ns steps from 10 ns to 1 ms */
		mc_hist_add(&h, (uint64_t)i * 10, 1);
	MCT_EXPECT(mc_hist_total(&h) == 100000 && h.max_ns == 1000000, "total");
	for (i = 0; i < MC_ARRAY_SIZE(w); i++) {
		MCT_ASSERT(!mc_hist_percentile(&h, w[i].q, &v), "q %g", w[i].q);
		/* interpolation inside 25% buckets: a few % off at most */
		MCT_EXPECT(near(v, w[i].want, 0.05), "q %g = %" PRIu64 ", want ~%g",
			   w[i].q, v, w[i].want);
		MCT_EXPECT(v >= last, "not monotonic at q %g", w[i].q);
		last = v;
	}
}

MCT_TEST(percentiles_bimodal_and_overflow)
{
	struct mc_hist h = { 0 };
	uint64_t v;

	/* 900 cache hits at ~200 ns, 100 lower calls at ~5 ms */
	mc_hist_add(&h, 200, 900);
	mc_hist_add(&h, 5 * MS, 100);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.5, &v) && v >= 192 && v < 256,
		   "p50 = %" PRIu64, v);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.9, &v) && v >= 192 && v < 256,
		   "p90 = %" PRIu64, v);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.99, &v) && near(v, 5e6, 0.25),
		   "p99 = %" PRIu64, v);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.999, &v) && near(v, 5e6, 0.25) &&
		   v <= 5 * MS, "p99.9 = %" PRIu64, v);

	/* beyond 2^37 ns: the overflow bucket, bounded by the largest sample */
	memset(&h, 0, sizeof(h));
	mc_hist_add(&h, 150 * S, 1);
	mc_hist_add(&h, 200 * S, 1);
	MCT_EXPECT(!mc_hist_percentile(&h, 0.5, &v) && v >= (1ULL << 37) &&
		   v <= 200 * S, "overflow p50 = %" PRIu64, v);
	MCT_EXPECT(!mc_hist_percentile(&h, 1, &v) && v == 200 * S,
		   "overflow p100 = %" PRIu64, v);

	/* without max_ns (a module that does not send it) still bounded */
	h.max_ns = 0;
	MCT_EXPECT(!mc_hist_percentile(&h, 0.999, &v) && v == 1ULL << 37,
		   "overflow without max = %" PRIu64, v);
}

/* ---------------------------------------------------------------- bench */

MCT_TEST(bench_workloads)
{
	static const char *const names[] = {
		"mdtest", "mixed", "randrw", "seqread", "seqwrite",
	};
	uint32_t wl, i;

	for (i = 0; i < 5; i++) {
		MCT_EXPECT(!mc_bench_parse_workload(names[i], &wl) && wl == i,
			   "%s -> %u", names[i], wl);
		MCT_EXPECT(!strcmp(mc_bench_workload_name(i), names[i]),
			   "name of %u", i);
	}
	MCT_EXPECT(mc_bench_parse_workload("MDTEST", &wl), "case matters");
	MCT_EXPECT(mc_bench_parse_workload("", &wl), "empty");
	MCT_EXPECT(mc_bench_parse_workload("randread", &wl), "randread");
	MCT_EXPECT(!strcmp(mc_bench_workload_name(99), "unknown"), "99");
	MCT_EXPECT(!strcmp(mc_bench_op_name(METACACHE_BENCH_OP_STAT_MISSING),
			   "stat-missing"), "op name");
	MCT_EXPECT(!strcmp(mc_bench_op_name(METACACHE_BENCH_OP_ALL), "all"),
		   "all");
	MCT_EXPECT(!strcmp(mc_bench_state_name(METACACHE_BENCH_ST_UNMOUNTED),
			   "unmounted"), "state name");
	MCT_EXPECT(mc_bench_state_final(METACACHE_BENCH_ST_DONE) &&
		   mc_bench_state_final(METACACHE_BENCH_ST_FAILED) &&
		   !mc_bench_state_final(METACACHE_BENCH_ST_CLEANUP),
		   "final states");
}

MCT_TEST(bench_mix)
{
	static const char *const bad[] = {
		"", "stat", "stat=", "stat=70", "stat=70,open=20,create=5",
		"stat=70,open=20,create=5,unlink=6", "stat=101",
		"stat=50,stat=50", "foo=100", "stat=-1,open=101",
		"stat=70;open=30", "stat=1e2", "=100",
		"stat=99999999999999999999999",
	};
	uint32_t mix[4];
	const char *why;
	size_t i;

	MCT_EXPECT(!mc_bench_parse_mix("stat=70,open=20,create=5,unlink=5",
				       mix, &why) &&
		   mix[0] == 70 && mix[1] == 20 && mix[2] == 5 && mix[3] == 5,
		   "default mix");
	MCT_EXPECT(!mc_bench_parse_mix("unlink=50,create=50", mix, &why) &&
		   mix[0] == 0 && mix[1] == 0 && mix[2] == 50 && mix[3] == 50,
		   "any order, missing keys are 0");
	MCT_EXPECT(!mc_bench_parse_mix("stat=100", mix, &why) &&
		   mix[0] == 100, "stat only");
	for (i = 0; i < MC_ARRAY_SIZE(bad); i++) {
		why = NULL;
		MCT_EXPECT(mc_bench_parse_mix(bad[i], mix, &why) && why,
			   "'%s' refused with a reason", bad[i]);
	}
}

MCT_TEST(bench_numbers)
{
	const char *why;
	uint32_t v;

	MCT_EXPECT(!mc_bench_parse_u32("64", &v, &why) && v == 64, "64");
	MCT_EXPECT(!mc_bench_parse_u32("4k", &v, &why) && v == 4000, "4k");
	MCT_EXPECT(!mc_bench_parse_u32("4294967295", &v, &why) &&
		   v == UINT32_MAX, "u32 max");
	MCT_EXPECT(mc_bench_parse_u32("4294967296", &v, &why), "u32 max + 1");
	MCT_EXPECT(mc_bench_parse_u32("5G", &v, &why), "5G overflows 32 bits");
	MCT_EXPECT(mc_bench_parse_u32("-1", &v, &why), "-1");
	MCT_EXPECT(mc_bench_parse_u32("", &v, &why), "empty");
	MCT_EXPECT(!mc_bench_parse_pct("0", &v, &why) && v == 0, "0%%");
	MCT_EXPECT(!mc_bench_parse_pct("100", &v, &why) && v == 100, "100%%");
	MCT_EXPECT(mc_bench_parse_pct("101", &v, &why), "101%%");
	MCT_EXPECT(!mc_bench_parse_duration_ms("2s", &v, &why) && v == 2000,
		   "2s");
	MCT_EXPECT(!mc_bench_parse_duration_ms("1ms", &v, &why) && v == 1,
		   "1ms");
	MCT_EXPECT(mc_bench_parse_duration_ms("999us", &v, &why), "999us");
	MCT_EXPECT(mc_bench_parse_duration_ms("0", &v, &why), "0");
	MCT_EXPECT(!mc_bench_parse_duration_ms("24h", &v, &why) &&
		   v == 86400000, "24h");
	MCT_EXPECT(mc_bench_parse_duration_ms("25h", &v, &why), "25h");
}

MCT_TEST(bench_figures)
{
	struct mc_bench_res r = {
		.ops = 1000, .elapsed_ns = 2 * S, .bytes = 4ULL << 20,
		.sum_ns = 5 * MS,
	};
	double sd;

	MCT_EXPECT(fabs(mc_bench_ops_per_s(&r) - 500) < 1e-9, "ops/s");
	MCT_EXPECT(fabs(mc_bench_mib_per_s(&r) - 2) < 1e-9, "MiB/s");
	MCT_EXPECT(fabs(mc_bench_mean_ns(&r) - 5000) < 1e-9, "mean");
	r.elapsed_ns = 0;
	r.ops = 0;
	MCT_EXPECT(isnan(mc_bench_ops_per_s(&r)) && isnan(mc_bench_mean_ns(&r)),
		   "nothing measured: NaN");
	/* samples 2, 4, 4, 4, 5, 5, 7, 9: sample sd = sqrt(32 / 7) */
	sd = mc_bench_stddev(8, 40, 232);
	MCT_EXPECT(fabs(sd - sqrt(32.0 / 7)) < 1e-9, "stddev %f", sd);
	MCT_EXPECT(mc_bench_stddev(3, 30, 300) == 0, "constant: 0");
	MCT_EXPECT(isnan(mc_bench_stddev(1, 5, 25)), "one second: NaN");
	MCT_EXPECT(isnan(mc_bench_stddev(0, 0, 0)), "none: NaN");
	MCT_EXPECT(fabs(mc_bench_gain_pct(100, 150) - 50) < 1e-9, "+50%%");
	MCT_EXPECT(fabs(mc_bench_gain_pct(200, 50) + 75) < 1e-9, "-75%%");
	MCT_EXPECT(isnan(mc_bench_gain_pct(0, 5)), "from 0: NaN");
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
