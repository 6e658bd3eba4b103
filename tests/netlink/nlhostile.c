// SPDX-License-Identifier: GPL-2.0
/*
 * nlhostile: the metacache generic netlink family against hostile and
 * malformed requests, sent on a raw socket (nllib.h): wrong attribute
 * types and lengths, missing, unknown and repeated attributes, huge
 * strings, nested garbage, out of range values, unknown flag bits, bad
 * netlink headers, unknown mounts, paths outside the mount, the id of a
 * mount that was just unmounted (also racing with the unmount, and in
 * the middle of a dump), every command as an unprivileged user and as a
 * user with CAP_NET_ADMIN but not CAP_SYS_ADMIN, the rule limit, and
 * random messages.  Each must be refused with the right errno and, where
 * the module or the netlink core can say why, an extended ack; the family
 * must keep answering correctly afterwards.
 *
 * Environment: the test bed's mount mode (MC_UPPER is a metacache mount
 * on MC_LOWER); MC_TEST_UID/MC_TEST_GID for the unprivileged user.
 * Restores the module-wide defaults, the mount's tunables and rules.
 */
#include <linux/capability.h>
#include <limits.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <grp.h>

#include "mctest.h"
#include "mcutil.h"
#include "nllib.h"

static const char *upper, *lower;

static int setup(struct nl_sock *s)
{
	int err;

	upper = mc_env("MC_UPPER");
	lower = mc_env("MC_LOWER");
	if (!upper || !lower)
		return -ENOTSUP;
	err = nl_open(s);
	if (err)
		mct_diag("cannot open the metacache family: %s", strerror(-err));
	return err;
}

#define SETUP(s)							\
	do {								\
		int __e = setup(s);					\
		if (__e == -ENOTSUP)					\
			MCT_SKIP("needs MC_UPPER and MC_LOWER (mount mode)"); \
		MCT_ASSERT(!__e, "no metacache family");		\
	} while (0)

static const char *err_name(int e)
{
	return e ? strerror(-e) : "success";
}

/*
 * The reply must be the error want, with an extack message (or a missing
 * attribute); with offs >= 0 the extack must point at the attribute that
 * starts at that offset of the request.
 */
static void expect_err(const char *file, int line, const struct nl_reply *r,
		       int want, long offs, const char *what)
{
	if (r->timeout)
		mct_fail_at(file, line, "%s: no answer", what);
	else if (r->error != -want)
		mct_fail_at(file, line, "%s: got %s, want %s ('%s')", what,
			    err_name(r->error), strerror(want), r->ext_msg);
	else if (!r->ext_msg[0] && !r->has_miss)
		mct_fail_at(file, line, "%s: no extack message", what);
	else if (offs >= 0 && (!r->has_offs || r->offs != (uint32_t)offs))
		mct_fail_at(file, line,
			    "%s: extack offset %s%u, want %ld (msg '%s')",
			    what, r->has_offs ? "" : "none ", r->offs, offs,
			    r->ext_msg);
}

static void expect_ok(const char *file, int line, const struct nl_reply *r,
		      const char *what)
{
	if (r->error || r->timeout)
		mct_fail_at(file, line, "%s: %s (%s)", what, err_name(r->error),
			    r->ext_msg);
}

#define EXPECT_ERR(r, want, what) \
	expect_err(__FILE__, __LINE__, r, want, -1, what)
#define EXPECT_ERR_AT(r, want, at, what) \
	expect_err(__FILE__, __LINE__, r, want, (long)(at), what)
#define EXPECT_OK(r, what) expect_ok(__FILE__, __LINE__, r, what)

static uint32_t upper_id(struct nl_sock *s)
{
	return nl_mount_id(s, upper);
}

/* ------------------------------------------------------- sane answers */

MCT_TEST(get_info)
{
	struct nl_sock s;
	struct nl_reply *r;
	struct nlmsghdr *h;
	nl_tun_t t;

	SETUP(&s);
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_GET_INFO, 0));
	EXPECT_OK(r, "GET_INFO");
	MCT_ASSERT(r->nmsgs == 1, "%d replies", r->nmsgs);
	h = nl_first(r);
	MCT_EXPECT(!strcmp(nl_str(nl_attr(h, METACACHE_A_VERSION)), "0.1.0"),
		   "version");
	MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_PROTO_VERSION)) ==
		   METACACHE_GENL_VERSION, "protocol version");
	MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_HIST_NBUCKETS)) ==
		   METACACHE_HIST_NBUCKETS, "buckets");
	MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_MOUNT_COUNT)) >= 1,
		   "mount count");
	MCT_EXPECT(nl_get_tun(nl_attr(h, METACACHE_A_DEFAULTS), t) ==
		   0x3fe, "defaults: not every tunable");
	nl_close(&s);
}

/* -------------------------------------------------- malformed requests */

MCT_TEST(unknown_and_unsupported_attributes)
{
	struct nl_sock s;
	struct nl_req *m;
	uint32_t at;

	SETUP(&s);
	/* GET_INFO takes no attribute at all */
	m = nl_req(&s, METACACHE_CMD_GET_INFO, 0);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "GET_INFO + MOUNT_ID");
	/* beyond METACACHE_A_MAX */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_MAX + 1, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "type MAX + 1");
	m = nl_req(&s, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	at = nl_here(m);
	nl_put_u32(m, 0x3fff, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "type 0x3fff");
	/* type 0 */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_GET, 0);
	at = nl_here(m);
	nl_put_u32(m, 0, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "type 0");
	/* a known attribute that this command does not take */
	m = nl_req(&s, METACACHE_CMD_STATS_RESET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_FLUSH_FLAGS, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "STATS_RESET + FLUSH_FLAGS");
	/* a reply-only attribute in a request */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_N_POLICIES, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "MOUNT_SET + N_POLICIES");
	/* inside a nest: an unknown tunable */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nl_nest(m, METACACHE_A_TUNABLES);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_TUN_MAX + 1, 5);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "unknown tunable");
	nl_close(&s);
}

MCT_TEST(wrong_lengths_and_types)
{
	static const uint32_t two[2] = { 1, 0 };
	struct nl_sock s;
	struct nl_req *m;
	uint32_t at;
	int len;

	SETUP(&s);
	/* u32 of 0, 2 and 8 bytes */
	for (len = 0; len <= 8; len += 2) {
		char what[64];

		if (len == 4)
			continue;
		m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
		at = nl_here(m);
		nl_put(m, METACACHE_A_MOUNT_ID, two, (size_t)len);
		snprintf(what, sizeof(what), "MOUNT_ID of %d bytes", len);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, what);
	}
	/* a tunable of 1 byte inside the nest */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nl_nest(m, METACACHE_A_TUNABLES);
	at = nl_here(m);
	nl_put(m, METACACHE_A_TUN_ATTR_TTL, "x", 1);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "1-byte attr_ttl");
	/* a bitfield32 of 4 bytes */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nl_nest(m, METACACHE_A_TUNABLES);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_TUN_DISABLED, 1);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), ERANGE, at, "4-byte DISABLED");
	/* a string without its NUL */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put(m, METACACHE_A_MOUNT_PATH, "/tmp", 4);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "path without NUL");
	/* an empty string attribute (0 bytes) */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put(m, METACACHE_A_MOUNT_PATH, NULL, 0);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "path of 0 bytes");
	/* a nest without NLA_F_NESTED */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_TUNABLES, 5);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "TUNABLES not nested");
	/* NLA_F_NESTED on a u32 */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_MOUNT_ID | NLA_F_NESTED, 1);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "MOUNT_ID flagged nested");
	/* NLA_F_NET_BYTEORDER on a u32 is just another bit of the type */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID | NLA_F_NET_BYTEORDER,
		   upper_id(&s));
	EXPECT_OK(nl_call(&s, m), "MOUNT_ID with NLA_F_NET_BYTEORDER");
	/* a nest too short to hold an attribute */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	at = nl_here(m);
	nl_put(m, METACACHE_A_TUNABLES | NLA_F_NESTED, "ab", 2);
	EXPECT_ERR_AT(nl_call(&s, m), ERANGE, at, "2-byte nest");
	nl_close(&s);
}

MCT_TEST(missing_attributes)
{
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	uint32_t nest;
	uint32_t id;

	SETUP(&s);
	id = upper_id(&s);
	MCT_ASSERT(id, "no id for %s", upper);
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_MOUNT_GET, 0));
	EXPECT_ERR(r, EINVAL, "MOUNT_GET without a mount");
	MCT_EXPECT(r->has_miss && r->miss_type == METACACHE_A_MOUNT_ID,
		   "missing attribute not reported");
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	EXPECT_ERR(r, EINVAL, "MOUNT_SET without TUNABLES");
	MCT_EXPECT(r->has_miss && r->miss_type == METACACHE_A_TUNABLES,
		   "missing TUNABLES not reported");
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0));
	EXPECT_ERR(r, EINVAL, "DEFAULTS_SET without TUNABLES");
	MCT_EXPECT(r->has_miss && r->miss_type == METACACHE_A_TUNABLES,
		   "missing TUNABLES not reported");
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	EXPECT_ERR(r, EINVAL, "POLICY_ADD without POLICY");
	MCT_EXPECT(r->has_miss && r->miss_type == METACACHE_A_POLICY,
		   "missing POLICY not reported");
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nest = nl_here(m);
	nl_nest(m, METACACHE_A_POLICY);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	r = nl_call(&s, m);
	EXPECT_ERR(r, EINVAL, "POLICY without its path");
	MCT_EXPECT(r->has_miss && r->miss_type == METACACHE_A_POLICY_PATH &&
		   r->miss_nest == nest, "missing path: type %u nest %u",
		   r->miss_type, r->miss_nest);
	m = nl_req(&s, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	r = nl_call(&s, m);
	EXPECT_ERR(r, EINVAL, "POLICY_GET without a mount");
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_STATS_RESET, 0));
	EXPECT_ERR(r, EINVAL, "STATS_RESET without a mount");
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_FLUSH, 0));
	EXPECT_ERR(r, EINVAL, "FLUSH without a mount");
	/* an empty TUNABLES nest gives nothing to set */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nest = nl_here(m);
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, nest, "empty TUNABLES");
	/* DISABLED with an empty selector sets nothing either */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nest = nl_here(m);
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_put_bf32(m, METACACHE_A_TUN_DISABLED, 0, 0);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, nest, "DISABLED selecting nothing");
	nl_close(&s);
}

MCT_TEST(two_selectors)
{
	struct nl_sock s;
	struct nl_req *m;
	uint32_t at;

	SETUP(&s);
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, upper);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "id and path");
	nl_close(&s);
}

MCT_TEST(huge_and_repeated)
{
	static char big[70000];
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	uint32_t at;
	int i;

	SETUP(&s);
	/* the longest path allowed passes the policy, then fails to resolve */
	memset(big, 'a', METACACHE_PATH_MAX - 1);
	big[METACACHE_PATH_MAX - 1] = 0;
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, big);
	EXPECT_ERR_AT(nl_call(&s, m), ENAMETOOLONG, at, "4095-byte path");
	/* one more is refused by the policy */
	memset(big, 'a', METACACHE_PATH_MAX);
	big[METACACHE_PATH_MAX] = 0;
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, big);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "4096-byte path");
	/* nearly the largest attribute there is */
	memset(big, '/', 65000);
	big[65000] = 0;
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	nl_nest(m, METACACHE_A_POLICY);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_POLICY_PATH, big);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "65000-byte policy path");
	m = nl_req(&s, METACACHE_CMD_FLUSH, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_PATH, big);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "65000-byte flush path");
	/* the same attribute 3000 times: the last one counts */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	for (i = 0; i < 3000; i++)
		nl_put_u32(m, METACACHE_A_MOUNT_ID, 999999);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, upper_id(&s));
	r = nl_call(&s, m);
	EXPECT_OK(r, "3001 MOUNT_IDs");
	MCT_EXPECT(r->nmsgs == 1, "%d replies", r->nmsgs);
	nl_close(&s);
}

MCT_TEST(nested_garbage)
{
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	unsigned char junk[64];
	uint32_t id, at;
	int i;

	SETUP(&s);
	id = upper_id(&s);
	/* bytes left over inside a nest */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_ENTRY_TTL, 5);
	nl_put(m, 0, "\x07\x00", 0);	/* an attribute header ... */
	((struct nlattr *)(m->buf + m->len - 4))->nla_len = 2;	/* ... of 2 */
	nl_nest_end(m);
	r = nl_call(&s, m);
	MCT_EXPECT(r->error == -EINVAL || r->error == -ERANGE,
		   "leftover bytes: %s", err_name(r->error));
	MCT_EXPECT(r->ext_msg[0], "leftover bytes: no message");
	/* an inner attribute claiming more than the nest holds */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_ENTRY_TTL, 5);
	((struct nlattr *)(m->buf + m->len - 8))->nla_len = 200;
	nl_nest_end(m);
	r = nl_call(&s, m);
	MCT_EXPECT(r->error == -EINVAL || r->error == -ERANGE,
		   "overrunning attribute: %s", err_name(r->error));
	/* a tunable that is a nest */
	m = nl_req(&s, METACACHE_CMD_DEFAULTS_SET, 0);
	nl_nest(m, METACACHE_A_TUNABLES);
	at = nl_here(m);
	nl_nest(m, METACACHE_A_TUN_NEG_TTL);
	nl_put_u32(m, 1, 1);
	nl_nest_end(m);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "nested neg_ttl");
	/* three levels: POLICY { TUNABLES { garbage } } */
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_POLICY);
	nl_put_str(m, METACACHE_A_POLICY_PATH, "/g");
	nl_nest(m, METACACHE_A_POLICY_TUNABLES);
	at = nl_here(m);
	nl_put(m, METACACHE_A_TUN_CLOSE_TTL, "\xff\xff\xff\xff\xff", 5);
	nl_nest_end(m);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "5-byte close_ttl in a rule");
	/* random bytes as the contents of every nest, many times */
	srand(1234);
	for (i = 0; i < 300; i++) {
		static const uint8_t cmds[] = {
			METACACHE_CMD_MOUNT_SET, METACACHE_CMD_DEFAULTS_SET,
			METACACHE_CMD_POLICY_ADD, METACACHE_CMD_POLICY_DEL,
		};
		uint8_t cmd = cmds[i % 4];
		size_t n = (size_t)(rand() % (int)sizeof(junk)), k;

		for (k = 0; k < n; k++)
			junk[k] = (unsigned char)rand();
		m = nl_req(&s, cmd, 0);
		if (cmd != METACACHE_CMD_DEFAULTS_SET)
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		nl_put(m, (cmd == METACACHE_CMD_POLICY_ADD ||
			   cmd == METACACHE_CMD_POLICY_DEL ?
			   METACACHE_A_POLICY : METACACHE_A_TUNABLES) |
		       NLA_F_NESTED, junk, n);
		r = nl_call(&s, m);
		MCT_EXPECT(r->acked, "random nest %d: no answer", i);
		if (!r->error)
			mct_diag("random nest %d (cmd %u, %zu bytes) accepted",
				 i, cmd, n);
	}
	nl_policy_clear(&s, id);
	nl_close(&s);
}

MCT_TEST(out_of_range)
{
	struct nl_sock s;
	struct nl_req *m;
	nl_tun_t saved, t;
	uint32_t id, at;
	int a;

	SETUP(&s);
	id = upper_id(&s);
	MCT_ASSERT(!nl_mount_tun_get(&s, id, saved), "MOUNT_GET");
	for (a = METACACHE_A_TUN_ENTRY_TTL; a < METACACHE_A_TUN_DISABLED; a++) {
		uint32_t max = a <= METACACHE_A_TUN_CLOSE_TTL ?
			       METACACHE_TTL_MAX : METACACHE_LIMIT_MAX;
		uint32_t bad[] = { max + 1, 0xffffffffu };
		char what[64];
		size_t b;

		for (b = 0; b < 2; b++) {
			m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
			nl_nest(m, METACACHE_A_TUNABLES);
			nl_put_u32(m, METACACHE_A_TUN_ENTRY_TTL, 1);
			at = nl_here(m);
			nl_put_u32(m, (uint16_t)a, bad[b]);
			nl_nest_end(m);
			snprintf(what, sizeof(what), "tunable %d = %u", a,
				 bad[b]);
			EXPECT_ERR_AT(nl_call(&s, m), ERANGE, at, what);
		}
		/* the largest value is fine */
		m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		nl_nest(m, METACACHE_A_TUNABLES);
		nl_put_u32(m, (uint16_t)a, max);
		nl_nest_end(m);
		snprintf(what, sizeof(what), "tunable %d = max", a);
		EXPECT_OK(nl_call(&s, m), what);
	}
	/* all or nothing: a refused request changed nothing */
	MCT_ASSERT(!nl_mount_tun_get(&s, id, t), "MOUNT_GET");
	MCT_EXPECT(t[METACACHE_A_TUN_ENTRY_TTL] == METACACHE_TTL_MAX,
		   "entry_ttl %u after refused requests",
		   t[METACACHE_A_TUN_ENTRY_TTL]);
	/* mount id 0 */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, 0);
	EXPECT_ERR_AT(nl_call(&s, m), ERANGE, at, "mount id 0");
	MCT_EXPECT(!nl_mount_tun_set(&s, id, saved), "restore");
	nl_close(&s);
}

MCT_TEST(unknown_flag_bits)
{
	static const struct { uint32_t value, selector; } bad_bf[] = {
		{ 0, 1U << 5 }, { 1U << 5, 1U << 5 }, { 1, 0 }, { 2, 1 },
		{ 0, 0x80000000u },
	};
	struct nl_sock s;
	struct nl_req *m;
	uint32_t id, at;
	size_t i;

	SETUP(&s);
	id = upper_id(&s);
	for (i = 0; i < 3; i++) {
		static const uint32_t bad[] = { 4, 0x80000000u, 0xffffffffu };

		m = nl_req(&s, METACACHE_CMD_FLUSH, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		at = nl_here(m);
		nl_put_u32(m, METACACHE_A_FLUSH_FLAGS, bad[i]);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "flush flags");
		m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		nl_nest(m, METACACHE_A_POLICY);
		nl_put_str(m, METACACHE_A_POLICY_PATH, "/f");
		at = nl_here(m);
		nl_put_u32(m, METACACHE_A_POLICY_FLAGS, bad[i] | 2);
		nl_nest_end(m);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "policy flags");
	}
	for (i = 0; i < sizeof(bad_bf) / sizeof(bad_bf[0]); i++) {
		m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		nl_nest(m, METACACHE_A_TUNABLES);
		at = nl_here(m);
		nl_put_bf32(m, METACACHE_A_TUN_DISABLED, bad_bf[i].value,
			    bad_bf[i].selector);
		nl_nest_end(m);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "DISABLED bits");
	}
	nl_close(&s);
}

/* --------------------------------------------------- mounts and paths */

MCT_TEST(unknown_mounts_and_paths)
{
	char sub[PATH_MAX], link[PATH_MAX];
	struct nl_sock s;
	struct nl_req *m;
	struct nl_reply *r;
	uint32_t id, at;

	SETUP(&s);
	id = upper_id(&s);
	MCT_ASSERT(id, "no id for %s", upper);
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	at = nl_here(m);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, 999999);
	EXPECT_ERR_AT(nl_call(&s, m), ENOENT, at, "id 999999");
	/* paths that are not on a metacache mount */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, "/");
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_ATTR_TTL, 1);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), ENOENT, at, "path /");
	m = nl_req(&s, METACACHE_CMD_FLUSH, 0);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, lower);
	EXPECT_ERR_AT(nl_call(&s, m), ENOENT, at, "the lower directory");
	/* (refusals of dumps come in NLMSG_DONE: a message, no offset) */
	m = nl_req(&s, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, "/nonexistent/nlhostile");
	EXPECT_ERR(nl_call(&s, m), ENOENT, "a missing path");
	m = nl_req(&s, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, "");
	EXPECT_ERR(nl_call(&s, m), ENOENT, "an empty path");
	/* any path on the mount names it, symlinks followed */
	snprintf(sub, sizeof(sub), "%s/nlh.%d", upper, getpid());
	MCT_ASSERT(!mkdir(sub, 0755), "mkdir %s: %s", sub, strerror(errno));
	MCT_EXPECT(nl_mount_id(&s, sub) == id, "a directory on the mount");
	snprintf(link, sizeof(link), "/tmp/nlh-link.%d", getpid());
	MCT_ASSERT(!symlink(sub, link), "symlink: %s", strerror(errno));
	MCT_EXPECT(nl_mount_id(&s, link) == id, "a symlink to the mount");
	unlink(link);
	/* a relative path resolves against the caller's directory */
	MCT_ASSERT(!chdir(sub), "chdir");
	MCT_EXPECT(nl_mount_id(&s, ".") == id, "a relative path");
	MCT_EXPECT(!chdir("/"), "chdir /");
	rmdir(sub);
	/* and a path through a file is not a directory */
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	nl_put_str(m, METACACHE_A_MOUNT_PATH, "/proc/self/status/x");
	r = nl_call(&s, m);
	EXPECT_ERR(r, ENOTDIR, "a path through a file");
	nl_close(&s);
}

static struct nl_req *rule_req(struct nl_sock *s, uint8_t cmd, uint32_t id,
			       const char *path, uint32_t *path_at)
{
	struct nl_req *m = nl_req(s, cmd, 0);

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_POLICY);
	if (path_at)
		*path_at = nl_here(m);
	nl_put_str(m, METACACHE_A_POLICY_PATH, path);
	return m;
}

MCT_TEST(bad_rule_and_flush_paths)
{
	static const char *const bad[] = {
		"..", "../x", "/a/../b", "a/..", ".", "/./a", "a/./b", "/x/.",
	};
	char longname[300];
	struct nl_sock s;
	struct nl_req *m;
	uint32_t id, at, at2;
	size_t i;

	SETUP(&s);
	id = upper_id(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, bad[i], &at);
		nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
			   METACACHE_POLICY_F_BYPASS);
		nl_nest_end(m);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, bad[i]);
		m = nl_req(&s, METACACHE_CMD_FLUSH, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		at = nl_here(m);
		nl_put_str(m, METACACHE_A_PATH, bad[i]);
		EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, bad[i]);
	}
	memset(longname, 'n', 256);
	longname[256] = 0;
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, longname, &at);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "256-byte component");
	/* bypass with tunables, neither, empty tunables */
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "/b", NULL);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	at = nl_here(m);
	nl_nest(m, METACACHE_A_POLICY_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_ATTR_TTL, 1);
	nl_nest_end(m);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "bypass with tunables");
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	at = nl_here(m);
	nl_nest(m, METACACHE_A_POLICY);
	nl_put_str(m, METACACHE_A_POLICY_PATH, "/b");
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, 0);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "a rule setting nothing");
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "/b", NULL);
	at = nl_here(m);
	nl_nest(m, METACACHE_A_POLICY_TUNABLES);
	nl_nest_end(m);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at, "empty rule tunables");
	/* deleting: only a path, and a rule that exists */
	m = rule_req(&s, METACACHE_CMD_POLICY_DEL, id, "/nope", &at);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), ENOENT, at, "delete a missing rule");
	m = rule_req(&s, METACACHE_CMD_POLICY_DEL, id, "/nope", NULL);
	at2 = nl_here(m);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EINVAL, at2, "delete with flags");
	/* a flush of a path with nothing cached is no error */
	m = nl_req(&s, METACACHE_CMD_FLUSH, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_put_str(m, METACACHE_A_PATH, "/no/such/dir/nlhostile");
	nl_put_u32(m, METACACHE_A_FLUSH_FLAGS, METACACHE_FLUSH_F_ALL);
	EXPECT_OK(nl_call(&s, m), "flush of an uncached path");
	nl_close(&s);
}

/* ------------------------------------------- a mount that just went */

struct tmpmount {
	char lower[PATH_MAX];
	char dir[PATH_MAX];
};

static int tmp_mount(struct tmpmount *t, const char *tag)
{
	snprintf(t->lower, sizeof(t->lower), "%s/nlh-%s.%d", lower, tag,
		 getpid());
	snprintf(t->dir, sizeof(t->dir), "/tmp/nlh-%s.%d", tag, getpid());
	if ((mkdir(t->lower, 0755) && errno != EEXIST) ||
	    (mkdir(t->dir, 0755) && errno != EEXIST))
		return -errno;
	if (mount(t->lower, t->dir, "metacache", 0, NULL))
		return -errno;
	return 0;
}

static void tmp_cleanup(struct tmpmount *t)
{
	umount2(t->dir, MNT_DETACH);
	rmdir(t->dir);
	rmdir(t->lower);
}

/* Every command that names a mount, by id. */
static void all_by_id(struct nl_sock *s, uint32_t id, int want,
		      const char *when)
{
	static const uint8_t dumps[] = {
		METACACHE_CMD_POLICY_GET, METACACHE_CMD_STATS_GET,
	};
	struct nl_req *m;
	struct nl_reply *r;
	char what[96];
	size_t i;
	int k;

	for (k = 0; k < 6; k++) {
		static const uint8_t cmds[] = {
			METACACHE_CMD_MOUNT_GET, METACACHE_CMD_MOUNT_SET,
			METACACHE_CMD_POLICY_ADD, METACACHE_CMD_POLICY_DEL,
			METACACHE_CMD_STATS_RESET, METACACHE_CMD_FLUSH,
		};

		m = nl_req(s, cmds[k], 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		if (cmds[k] == METACACHE_CMD_MOUNT_SET) {
			nl_nest(m, METACACHE_A_TUNABLES);
			nl_put_u32(m, METACACHE_A_TUN_ATTR_TTL, 3);
			nl_nest_end(m);
		} else if (cmds[k] == METACACHE_CMD_POLICY_ADD ||
			   cmds[k] == METACACHE_CMD_POLICY_DEL) {
			nl_nest(m, METACACHE_A_POLICY);
			nl_put_str(m, METACACHE_A_POLICY_PATH, "/gone");
			if (cmds[k] == METACACHE_CMD_POLICY_ADD)
				nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
					   METACACHE_POLICY_F_BYPASS);
			nl_nest_end(m);
		}
		r = nl_call(s, m);
		snprintf(what, sizeof(what), "%s: command %u", when, cmds[k]);
		if (want)
			EXPECT_ERR(r, want, what);
		else
			MCT_EXPECT(!r->error || r->error == -ENOENT,
				   "%s: %s", what, err_name(r->error));
	}
	for (i = 0; i < sizeof(dumps); i++) {
		m = nl_req(s, dumps[i], NLM_F_DUMP);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		r = nl_call(s, m);
		snprintf(what, sizeof(what), "%s: dump %u", when, dumps[i]);
		if (want)
			EXPECT_ERR(r, want, what);
		else
			MCT_EXPECT(!r->error || r->error == -ENOENT,
				   "%s: %s", what, err_name(r->error));
	}
}

MCT_TEST(just_unmounted)
{
	struct tmpmount t;
	struct nl_sock s;
	uint32_t id;
	int err;

	SETUP(&s);
	err = tmp_mount(&t, "gone");
	MCT_ASSERT(!err, "mount: %s", strerror(-err));
	id = nl_mount_id(&s, t.dir);
	MCT_ASSERT(id, "no id for %s", t.dir);
	all_by_id(&s, id, 0, "mounted");
	MCT_ASSERT(!umount2(t.dir, 0), "umount: %s", strerror(errno));
	all_by_id(&s, id, ENOENT, "unmounted");
	tmp_cleanup(&t);
	nl_close(&s);
}

/* Unmount while another process keeps using the mount's id. */
MCT_TEST(unmount_races)
{
	struct tmpmount t;
	struct nl_sock s;
	int round, err;

	SETUP(&s);
	for (round = 0; round < 20; round++) {
		uint32_t id;
		pid_t pid;
		int status;

		err = tmp_mount(&t, "race");
		MCT_ASSERT(!err, "mount: %s", strerror(-err));
		id = nl_mount_id(&s, t.dir);
		MCT_ASSERT(id, "no id");
		pid = fork();
		MCT_ASSERT(pid >= 0, "fork");
		if (!pid) {
			struct nl_sock c;
			int i;

			if (nl_open(&c))
				_exit(2);
			for (i = 0; i < 6; i++)
				all_by_id(&c, id, 0, "racing");
			_exit(MCT_FAILED() ? 1 : 0);
		}
		usleep((useconds_t)(round * 2000));
		MCT_EXPECT(!umount2(t.dir, 0), "umount: %s", strerror(errno));
		waitpid(pid, &status, 0);
		MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			   "round %d: the racing child failed", round);
		tmp_cleanup(&t);
	}
	nl_close(&s);
}

/* Does a received buffer hold the end of a dump? */
static int has_done(const void *buf, ssize_t n)
{
	const struct nlmsghdr *h;
	int rem = (int)n;

	for (h = buf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem))
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			return 1;
	return 0;
}

/* Unmount a mount in the middle of a STATS_GET dump of every mount. */
MCT_TEST(unmount_during_dump)
{
	static unsigned char buf[8192];
	char name[PATH_MAX + 8];
	struct tmpmount t;
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	struct stat st;
	int err, i, fd;
	ssize_t n;

	SETUP(&s);
	nl_close(&s);
	/* small receive buffers: the dump comes in several parts */
	err = nl_open_sz(&s, 4096);
	MCT_ASSERT(!err, "open");
	for (i = 0; i < 5; i++) {
		err = tmp_mount(&t, "dump");
		MCT_ASSERT(!err, "mount: %s", strerror(-err));
		/* something to show in the histograms */
		snprintf(name, sizeof(name), "%s/f", t.dir);
		fd = open(name, O_CREAT | O_RDWR, 0644);
		if (fd >= 0) {
			MCT_EXPECT(write(fd, "x", 1) == 1, "write");
			close(fd);
		}
		stat(name, &st);
		unlink(name);
		stat(name, &st);
		m = nl_req(&s, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
		MCT_ASSERT(!nl_send(&s, m), "send");
		n = recv(s.fd, buf, sizeof(buf) / 2, 0);
		MCT_EXPECT(n > 0, "first part: %s", strerror(errno));
		if (i & 1)
			MCT_EXPECT(!umount2(t.dir, 0), "umount: %s",
				   strerror(errno));
		else
			MCT_EXPECT(!umount2(t.dir, MNT_DETACH), "umount -l");
		if (has_done(buf, n)) {
			mct_diag("the whole dump came in one part");
		} else {
			r = nl_recv(&s);
			MCT_EXPECT(r->acked && !r->error,
				   "rest of the dump: %s", err_name(r->error));
		}
		tmp_cleanup(&t);
	}
	/* a dump abandoned half way */
	m = nl_req(&s, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	MCT_ASSERT(!nl_send(&s, m), "send");
	MCT_EXPECT(recv(s.fd, buf, sizeof(buf) / 2, 0) > 0, "first part");
	nl_close(&s);
}

/* ------------------------------------------------------- permissions */

/* Every command, with valid attributes; changing ones want EPERM. */
static void every_command(struct nl_sock *s, uint32_t id, const char *who,
			  int changing_errno, int needs_message)
{
	struct nl_req *m;
	struct nl_reply *r;
	char what[96];
	uint8_t cmd;

	for (cmd = METACACHE_CMD_GET_INFO; cmd <= METACACHE_CMD_MAX; cmd++) {
		int dump = cmd == METACACHE_CMD_POLICY_GET ||
			   cmd == METACACHE_CMD_STATS_GET;
		int changing = cmd == METACACHE_CMD_MOUNT_SET ||
			       cmd == METACACHE_CMD_DEFAULTS_SET ||
			       cmd == METACACHE_CMD_POLICY_ADD ||
			       cmd == METACACHE_CMD_POLICY_DEL ||
			       cmd == METACACHE_CMD_STATS_RESET ||
			       cmd == METACACHE_CMD_FLUSH;

		m = nl_req(s, cmd, dump ? NLM_F_DUMP : 0);
		if (cmd != METACACHE_CMD_GET_INFO &&
		    cmd != METACACHE_CMD_DEFAULTS_GET &&
		    cmd != METACACHE_CMD_DEFAULTS_SET)
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		if (cmd == METACACHE_CMD_MOUNT_SET ||
		    cmd == METACACHE_CMD_DEFAULTS_SET) {
			nl_nest(m, METACACHE_A_TUNABLES);
			nl_put_u32(m, METACACHE_A_TUN_DIR_TTL, 9);
			nl_nest_end(m);
		}
		if (cmd == METACACHE_CMD_POLICY_ADD ||
		    cmd == METACACHE_CMD_POLICY_DEL) {
			nl_nest(m, METACACHE_A_POLICY);
			nl_put_str(m, METACACHE_A_POLICY_PATH, "/perm");
			if (cmd == METACACHE_CMD_POLICY_ADD)
				nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
					   METACACHE_POLICY_F_BYPASS);
			nl_nest_end(m);
		}
		r = nl_call(s, m);
		snprintf(what, sizeof(what), "%s: command %u", who, cmd);
		if (changing) {
			MCT_EXPECT(r->error == -changing_errno, "%s: %s", what,
				   err_name(r->error));
			if (needs_message)
				MCT_EXPECT(strstr(r->ext_msg, "CAP_SYS_ADMIN"),
					   "%s: message '%s'", what, r->ext_msg);
		} else {
			EXPECT_OK(r, what);
			/* (the mount may have no rule: an empty dump) */
			MCT_EXPECT(r->nmsgs >= 1 ||
				   cmd == METACACHE_CMD_POLICY_GET,
				   "%s: no reply", what);
		}
	}
	/* the mount listing works for everyone */
	r = nl_call(s, nl_req(s, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP));
	EXPECT_OK(r, "MOUNT_GET dump");
	MCT_EXPECT(r->nmsgs >= 1, "%s: no mount listed", who);
}

static int run_child(void (*fn)(uint32_t), uint32_t id)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		fn(id);
		_exit(MCT_FAILED() ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void as_nobody(uint32_t id)
{
	const char *u = mc_env("MC_TEST_UID"), *g = mc_env("MC_TEST_GID");
	uid_t uid = u ? (uid_t)atoi(u) : 65534;
	gid_t gid = g ? (gid_t)atoi(g) : 65534;
	struct nl_sock s;
	struct nl_req *m;

	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		MCT_EXPECT(0, "cannot become %u: %s", uid, strerror(errno));
		return;
	}
	MCT_ASSERT(!nl_open(&s), "open as %u", uid);
	every_command(&s, id, "unprivileged", EPERM, 0);
	/* malformed and privileged: still EPERM first */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, 0);
	nl_put(m, METACACHE_A_TUNABLES, "junk", 4);
	MCT_EXPECT(nl_call(&s, m)->error == -EPERM, "malformed MOUNT_SET");
	nl_close(&s);
}

MCT_TEST(unprivileged_user)
{
	struct nl_sock s;
	uint32_t id;

	SETUP(&s);
	id = upper_id(&s);
	nl_close(&s);
	MCT_EXPECT(run_child(as_nobody, id) == 0, "unprivileged child failed");
}

/* Root without CAP_SYS_ADMIN, with CAP_NET_ADMIN: the module's own check. */
static void without_sys_admin(uint32_t id)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct nl_sock s;

	MCT_ASSERT(!syscall(SYS_capget, &hdr, data), "capget");
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	MCT_ASSERT(!syscall(SYS_capset, &hdr, data), "capset: %s",
		   strerror(errno));
	MCT_ASSERT(!nl_open(&s), "open");
	every_command(&s, id, "no CAP_SYS_ADMIN", EPERM, 1);
	nl_close(&s);
}

MCT_TEST(net_admin_without_sys_admin)
{
	struct nl_sock s;
	uint32_t id;

	SETUP(&s);
	id = upper_id(&s);
	nl_policy_clear(&s, id);
	nl_close(&s);
	MCT_EXPECT(run_child(without_sys_admin, id) == 0, "child failed");
}

/* ------------------------------------------------------------ headers */

MCT_TEST(bad_headers_and_commands)
{
	static const uint8_t unknown[] = {
		METACACHE_CMD_UNSPEC, METACACHE_CMD_MAX + 1,
		METACACHE_CMD_BENCH_RESULTS + 1, METACACHE_CMD_BENCH_LAST, 200, 255,
	};
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	uint32_t id;
	size_t i;

	SETUP(&s);
	id = upper_id(&s);
	/* reserved field: checked by the module (GET_INFO) and by genetlink */
	m = nl_req_raw(s.family, 0, METACACHE_CMD_GET_INFO, 1, 1);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "GET_INFO reserved");
	m = nl_req_raw(s.family, NLM_F_DUMP, METACACHE_CMD_MOUNT_GET, 1, 7);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "MOUNT_GET dump reserved");
	m = nl_req_raw(s.family, 0, METACACHE_CMD_STATS_RESET, 1, 1);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "STATS_RESET reserved");
	/* netlink flags beyond request/ack/echo/dump */
	m = nl_req(&s, METACACHE_CMD_MOUNT_SET, NLM_F_EXCL);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_DIR_TTL, 5);
	nl_nest_end(m);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "MOUNT_SET with NLM_F_EXCL");
	m = nl_req(&s, METACACHE_CMD_GET_INFO, NLM_F_REPLACE);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "GET_INFO with NLM_F_REPLACE");
	m = nl_req(&s, METACACHE_CMD_FLUSH, NLM_F_APPEND);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "FLUSH with NLM_F_APPEND");
	/* commands that do not exist, or not in that form */
	for (i = 0; i < sizeof(unknown); i++) {
		r = nl_call(&s, nl_req(&s, unknown[i], 0));
		MCT_EXPECT(r->error == -EOPNOTSUPP, "command %u: %s",
			   unknown[i], err_name(r->error));
	}
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_GET_INFO, NLM_F_DUMP));
	MCT_EXPECT(r->error == -EOPNOTSUPP, "GET_INFO dump: %s",
		   err_name(r->error));
	m = nl_req(&s, METACACHE_CMD_STATS_GET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	MCT_EXPECT(r->error == -EOPNOTSUPP, "STATS_GET do: %s",
		   err_name(r->error));
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	EXPECT_ERR(nl_call(&s, m), EINVAL, "MOUNT_GET dump with a mount");
	/* a genetlink header cut short */
	m = nl_req(&s, METACACHE_CMD_GET_INFO, 0);
	m->len = NLMSG_HDRLEN + 2;
	r = nl_call(&s, m);
	MCT_EXPECT(r->error == -EINVAL, "short genl header: %s",
		   err_name(r->error));
	nl_close(&s);
}

MCT_TEST(policy_excl_replace_and_limit)
{
	struct nl_sock s;
	struct nl_reply *r;
	struct nl_req *m;
	struct nlmsghdr *h;
	char path[64], prev[64] = "";
	uint32_t id, at;
	nl_tun_t t;
	int i, n, sorted = 1;

	SETUP(&s);
	id = upper_id(&s);
	nl_policy_clear(&s, id);
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "/x", NULL);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_OK(nl_call(&s, m), "add /x");
	m = nl_req(&s, METACACHE_CMD_POLICY_ADD, NLM_F_EXCL | NLM_F_CREATE);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_POLICY);
	at = nl_here(m);
	nl_put_str(m, METACACHE_A_POLICY_PATH, "x/");	/* the same rule */
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_ERR_AT(nl_call(&s, m), EEXIST, at, "exclusive add of /x");
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "//x", NULL);
	nl_nest(m, METACACHE_A_POLICY_TUNABLES);
	nl_put_u32(m, METACACHE_A_TUN_ATTR_TTL, 77);
	nl_nest_end(m);
	nl_nest_end(m);
	EXPECT_OK(nl_call(&s, m), "replace /x");
	m = nl_req(&s, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	EXPECT_OK(r, "POLICY_GET");
	MCT_ASSERT(r->nmsgs == 1, "%d rules", r->nmsgs);
	h = nl_first(r);
	MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_MOUNT_ID)) == id, "id");
	MCT_EXPECT(!strcmp(nl_str(nl_nested(nl_attr(h, METACACHE_A_POLICY),
					    METACACHE_A_POLICY_PATH)), "/x"),
		   "path not normalized");
	MCT_EXPECT(nl_u32(nl_nested(nl_attr(h, METACACHE_A_POLICY),
				    METACACHE_A_POLICY_FLAGS)) == 0,
		   "replaced rule still bypass");
	MCT_EXPECT(nl_get_tun(nl_nested(nl_attr(h, METACACHE_A_POLICY),
					METACACHE_A_POLICY_TUNABLES), t) ==
		   1U << METACACHE_A_TUN_ATTR_TTL &&
		   t[METACACHE_A_TUN_ATTR_TTL] == 77, "replaced tunables");
	/* up to the limit */
	for (i = 1; i < METACACHE_POLICY_MAX; i++) {
		snprintf(path, sizeof(path), "/r/%03d", (i * 37) % 1000);
		m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, path, NULL);
		nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
			   METACACHE_POLICY_F_BYPASS);
		nl_nest_end(m);
		r = nl_call(&s, m);
		if (r->error) {
			EXPECT_OK(r, path);
			break;
		}
	}
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "/one/too/many", NULL);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	r = nl_call(&s, m);
	EXPECT_ERR(r, ENOSPC, "rule 257");
	m = rule_req(&s, METACACHE_CMD_POLICY_ADD, id, "/x", NULL);
	nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nl_nest_end(m);
	EXPECT_OK(nl_call(&s, m), "replacing at the limit");
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	MCT_EXPECT(nl_u32(nl_attr(nl_first(r), METACACHE_A_N_POLICIES)) ==
		   METACACHE_POLICY_MAX, "N_POLICIES");
	/* the dump: every rule, in path order */
	m = nl_req(&s, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	EXPECT_OK(r, "POLICY_GET");
	n = 0;
	for (h = nl_first(r); h; h = nl_next(r, h)) {
		const char *p = nl_str(nl_nested(nl_attr(h, METACACHE_A_POLICY),
						 METACACHE_A_POLICY_PATH));

		if (strcmp(prev, p) >= 0)
			sorted = 0;
		snprintf(prev, sizeof(prev), "%s", p);
		n++;
	}
	MCT_EXPECT(n == METACACHE_POLICY_MAX, "%d rules dumped", n);
	MCT_EXPECT(sorted, "rules not in path order");
	MCT_EXPECT(nl_policy_clear(&s, id) == METACACHE_POLICY_MAX, "clear");
	m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&s, m);
	MCT_EXPECT(nl_u32(nl_attr(nl_first(r), METACACHE_A_N_POLICIES)) == 0,
		   "N_POLICIES after clearing");
	nl_close(&s);
}

/* ------------------------------------------------------------ fuzzing */

static uint64_t rnd_state = 88172645463325252ULL;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)rnd_state;
}

static void fuzz_attrs(struct nl_req *m, int depth)
{
	int n = (int)(rnd() % 5), i;

	for (i = 0; i < n && m->len < 8000; i++) {
		uint16_t type = (uint16_t)(rnd() % 32);
		unsigned char payload[48];
		size_t len = rnd() % sizeof(payload), k;

		if (depth < 3 && !(rnd() % 3)) {
			nl_nest(m, type);
			fuzz_attrs(m, depth + 1);
			nl_nest_end(m);
			continue;
		}
		switch (rnd() % 4) {
		case 0:
			nl_put_u32(m, type, rnd() % 64);
			break;
		case 1:
			nl_put_str(m, type, rnd() % 2 ? "/" : "a/b");
			break;
		default:
			for (k = 0; k < len; k++)
				payload[k] = (unsigned char)rnd();
			nl_put(m, type | (rnd() % 4 ? 0 : NLA_F_NESTED),
			       payload, len);
		}
	}
}

MCT_TEST(random_messages)
{
	nl_tun_t defaults, tun;
	struct nl_sock s;
	int i, accepted = 0;
	uint32_t id;

	SETUP(&s);
	id = upper_id(&s);
	MCT_ASSERT(!nl_defaults_get(&s, defaults), "DEFAULTS_GET");
	MCT_ASSERT(!nl_mount_tun_get(&s, id, tun), "MOUNT_GET");
	for (i = 0; i < 3000; i++) {
		uint8_t cmd = (uint8_t)(rnd() % 14);
		uint16_t flags = rnd() % 3 ? 0 : NLM_F_DUMP;
		struct nl_req *m = nl_req(&s, cmd, flags);
		struct nl_reply *r;

		if (rnd() % 2)
			nl_put_u32(m, METACACHE_A_MOUNT_ID, rnd() % 2 ? id :
				   rnd() % 8);
		fuzz_attrs(m, 0);
		if (!(rnd() % 8)) {	/* unaligned junk at the end */
			size_t k, n = rnd() % 7;

			for (k = 0; k < n; k++)
				m->buf[m->len++] = (unsigned char)rnd();
		}
		r = nl_call(&s, m);
		MCT_EXPECT(r->acked, "message %d (command %u): no answer", i,
			   cmd);
		if (!r->acked)
			break;
		accepted += !r->error;
	}
	mct_diag("%d of %d random messages accepted", accepted, i);
	MCT_EXPECT(!nl_defaults_set(&s, defaults), "restore defaults");
	MCT_EXPECT(!nl_mount_tun_set(&s, id, tun), "restore tunables");
	MCT_EXPECT(nl_policy_clear(&s, id) >= 0, "clear rules");
	nl_close(&s);
}

/* ------------------------------------------------- still answering */

MCT_TEST(family_still_answers)
{
	uint32_t maj = 0, min = 0;
	struct nl_sock s;
	struct nl_reply *r;
	struct nlmsghdr *h;
	nl_tun_t t;
	int found = 0, a;

	SETUP(&s);
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_GET_INFO, 0));
	EXPECT_OK(r, "GET_INFO");
	MCT_EXPECT(r->nmsgs == 1 &&
		   nl_u32(nl_attr(nl_first(r), METACACHE_A_PROTO_VERSION)) ==
		   METACACHE_GENL_VERSION, "GET_INFO reply");
	MCT_ASSERT(!nl_dev_of(upper, &maj, &min), "stat %s", upper);
	r = nl_call(&s, nl_req(&s, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP));
	EXPECT_OK(r, "MOUNT_GET dump");
	for (h = nl_first(r); h; h = nl_next(r, h))
		if (nl_u32(nl_attr(h, METACACHE_A_DEV_MAJOR)) == maj &&
		    nl_u32(nl_attr(h, METACACHE_A_DEV_MINOR)) == min)
			found++;
	MCT_EXPECT(found == 1, "%s listed %d times", upper, found);
	MCT_EXPECT(upper_id(&s), "MOUNT_GET by path");
	/* the defaults are the module's again */
	MCT_ASSERT(!nl_defaults_get(&s, t), "DEFAULTS_GET");
	for (a = METACACHE_A_TUN_ENTRY_TTL; a <= METACACHE_A_TUN_CLOSE_TTL; a++)
		MCT_EXPECT(t[a] == 5, "default %d is %u", a, t[a]);
	MCT_EXPECT(t[METACACHE_A_TUN_MAX_ENTRIES] == 65536 &&
		   t[METACACHE_A_TUN_MAX_NEG] == 16384 &&
		   t[METACACHE_A_TUN_MAX_HANDLES] == 1024 &&
		   t[METACACHE_A_TUN_DISABLED] == 0, "default limits");
	nl_close(&s);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
