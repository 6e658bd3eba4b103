// SPDX-License-Identifier: GPL-2.0
/*
 * test_nl.c - metacachectl's netlink transport (nl.c) and attribute codecs
 * (attrs.c) on the host, without the metacache module: the transport talks
 * to the kernel's own generic netlink controller ("nlctrl"), which answers
 * dumps, replies, errors and extended acks like any family; the codecs
 * decode messages built here the way the module will build them.  TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include "mctest.h"
#include "nl.h"

int mc_json;
const char *mc_prog = "metacachectl";
static char last_err[1024];

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
	return MC_EXIT_USAGE;
}

void mc_cmd_help(const char *name)
{
	(void)name;
}

/* A socket on the controller family, as mc_nl_open() sets it up. */
static int ctrl_open(struct mc_nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk || genl_connect(nl->sk))
		return -1;
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = GENL_ID_CTRL;
	return 0;
}

struct count {
	int msgs;
	int saw_nlctrl;
	int attrs;
};

static int on_family(const struct mc_reply *r, void *arg)
{
	struct count *c = arg;
	struct nlattr *a;
	int rem;

	c->msgs++;
	nla_for_each_attr(a, r->head, r->len, rem)
		c->attrs++;
	if (r->tb[CTRL_ATTR_FAMILY_NAME] &&
	    !strcmp(nla_get_string(r->tb[CTRL_ATTR_FAMILY_NAME]), "nlctrl"))
		c->saw_nlctrl = 1;
	return 0;
}

MCT_TEST(dump_receives_every_message)
{
	struct count c = { 0 };
	struct mc_nl nl;
	struct nl_msg *msg;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	MCT_ASSERT(msg, "mc_nl_msg");
	MCT_EXPECT(mc_nl_call(&nl, msg, on_family, &c) == 0, "dump: %s", last_err);
	MCT_EXPECT(c.msgs >= 1 && c.saw_nlctrl && c.attrs > c.msgs,
		   "%d messages, nlctrl %d, %d attributes", c.msgs, c.saw_nlctrl,
		   c.attrs);
	mc_nl_close(&nl);
}

MCT_TEST(do_gets_reply_then_ack)
{
	struct count c = { 0 };
	struct mc_nl nl;
	struct nl_msg *msg;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	MCT_ASSERT(msg && !nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl"),
		   "build");
	MCT_EXPECT(mc_nl_call(&nl, msg, on_family, &c) == 0, "do: %s", last_err);
	MCT_EXPECT(c.msgs == 1 && c.saw_nlctrl, "%d replies", c.msgs);
	mc_nl_close(&nl);
}

MCT_TEST(error_reported_with_errno)
{
	struct mc_nl nl;
	struct nl_msg *msg;
	int err;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	MCT_ASSERT(msg && !nla_put_string(msg, CTRL_ATTR_FAMILY_NAME,
					  "mc-nosuch"), "build");
	last_err[0] = 0;
	err = mc_nl_call(&nl, msg, NULL, NULL);
	MCT_EXPECT(err == -ENOENT, "err %d, want -ENOENT", err);
	MCT_EXPECT(last_err[0], "nothing printed");
	mct_diag("printed: %s", last_err);
	mc_nl_close(&nl);
}

MCT_TEST(extack_message_printed)
{
	struct mc_nl nl;
	struct nl_msg *msg;
	uint8_t small = 1;
	int err;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	/* CTRL_ATTR_FAMILY_ID is a u16: one byte fails policy validation */
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	MCT_ASSERT(msg && !nla_put(msg, CTRL_ATTR_FAMILY_ID, 1, &small), "build");
	last_err[0] = 0;
	err = mc_nl_call(&nl, msg, NULL, NULL);
	MCT_EXPECT(err == -EINVAL || err == -ERANGE, "err %d, want -EINVAL", err);
	mct_diag("printed: %s", last_err);
	MCT_EXPECT(!strncmp(last_err, "kernel reports: ", 16),
		   "no extack message: '%s'", last_err);
	mc_nl_close(&nl);
}

MCT_TEST(calls_in_sequence_on_one_socket)
{
	struct count c = { 0 };
	struct mc_nl nl;
	struct nl_msg *msg;
	int i;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	/* as stats --watch does: dumps, errors and dos, one after the other */
	for (i = 0; i < 3; i++) {
		msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
		MCT_EXPECT(msg && mc_nl_call(&nl, msg, on_family, &c) == 0,
			   "dump %d: %s", i, last_err);
		msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
		nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "mc-nosuch");
		MCT_EXPECT(mc_nl_call(&nl, msg, NULL, NULL) == -ENOENT,
			   "error %d: %s", i, last_err);
		msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
		nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
		MCT_EXPECT(mc_nl_call(&nl, msg, on_family, &c) == 0,
			   "do %d: %s", i, last_err);
	}
	mc_nl_close(&nl);
}

static int refuse(const struct mc_reply *r, void *arg)
{
	(void)r;
	(void)arg;
	return -EBADMSG;
}

MCT_TEST(callback_error_stops_and_returns)
{
	struct mc_nl nl;
	struct nl_msg *msg;

	if (ctrl_open(&nl))
		MCT_SKIP("no generic netlink here");
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	MCT_ASSERT(msg, "build");
	MCT_EXPECT(mc_nl_call(&nl, msg, refuse, NULL) == -EBADMSG,
		   "callback error lost");
	/* the rest of the dump was read: the socket serves the next call */
	msg = mc_nl_msg(&nl, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	MCT_EXPECT(mc_nl_call(&nl, msg, NULL, NULL) == 0, "next call: %s",
		   last_err);
	mc_nl_close(&nl);
}

/* ------------------------------------------------------------- codecs */

static uint32_t offset_of(struct nl_msg *msg, void *p)
{
	return (uint32_t)((char *)p - (char *)nlmsg_hdr(msg));
}

MCT_TEST(extack_offset_names_the_attribute)
{
	struct nl_msg *msg = nlmsg_alloc_size(8192);
	struct nlattr *mount, *pol, *path, *tun, *ttl, *nest;

	genlmsg_put(msg, 0, 0, 0x20, 0, 0, METACACHE_CMD_POLICY_ADD, 1);
	nla_put_u32(msg, METACACHE_A_MOUNT_ID, 1);
	mount = (struct nlattr *)((char *)nlmsg_tail(nlmsg_hdr(msg)) - NLA_ALIGN(NLA_HDRLEN + 4));
	pol = nla_nest_start(msg, METACACHE_A_POLICY);
	path = (struct nlattr *)nlmsg_tail(nlmsg_hdr(msg));
	nla_put_string(msg, METACACHE_A_POLICY_PATH, "/a");
	tun = nla_nest_start(msg, METACACHE_A_POLICY_TUNABLES);
	nla_put_u32(msg, METACACHE_A_TUN_ENTRY_TTL, 5);
	ttl = (struct nlattr *)nlmsg_tail(nlmsg_hdr(msg));
	nla_put_u32(msg, METACACHE_A_TUN_MAX_NEG, 5);
	nla_nest_end(msg, tun);
	nla_nest_end(msg, pol);
	nest = nla_nest_start(msg, METACACHE_A_TUNABLES);
	nla_put_u32(msg, METACACHE_A_TUN_CLOSE_TTL, 5);
	nla_nest_end(msg, nest);

#define NAMED(p, want) do {						\
		const char *got = mc_nl_attr_at(msg, offset_of(msg, p));	\
		MCT_EXPECT(got && !strcmp(got, want), "%s: got %s", want,	\
			   got ? got : "(null)");				\
	} while (0)
	NAMED(mount, "mount id");
	NAMED(pol, "policy");
	NAMED(path, "policy path");
	NAMED(tun, "tunables");
	NAMED(ttl, "max_neg");
	NAMED((char *)nest + NLA_HDRLEN, "close_ttl");
#undef NAMED
	MCT_EXPECT(!mc_nl_attr_at(msg, 4), "inside the header named");
	nlmsg_free(msg);
}

/* Parse msg's attributes into r, as nl.c does for a reply. */
static void as_reply(struct nl_msg *msg, struct mc_reply *r)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	memset(r, 0, sizeof(*r));
	genlmsg_parse(nlh, 0, r->tb, METACACHE_A_MAX, NULL);
	r->head = genlmsg_attrdata(nlmsg_data(nlh), 0);
	r->len = genlmsg_attrlen(nlmsg_data(nlh), 0);
}

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc_size(65536);

	genlmsg_put(msg, 0, 0, 0x20, 0, 0, cmd, METACACHE_GENL_VERSION);
	return msg;
}

MCT_TEST(tunables_roundtrip)
{
	char *args[] = { "entry_ttl", "1m", "neg_ttl", "0", "max_handles", "64",
			 "neg", "off", "dir", "on" };
	struct mc_tun in = { 0 }, out;
	struct nl_msg *msg = new_msg(METACACHE_CMD_MOUNT_SET);
	struct mc_reply r;

	MCT_ASSERT(!mc_tun_parse_args(&in, 10, args, NULL, NULL), "%s", last_err);
	MCT_ASSERT(!mc_tun_put(msg, METACACHE_A_TUNABLES, &in), "put");
	as_reply(msg, &r);
	MCT_ASSERT(r.tb[METACACHE_A_TUNABLES], "no nest");
	MCT_ASSERT(!mc_tun_get(r.tb[METACACHE_A_TUNABLES], &out), "get");
	MCT_EXPECT(out.present == in.present, "present %#x vs %#x", out.present,
		   in.present);
	MCT_EXPECT(out.val[METACACHE_A_TUN_ENTRY_TTL] == 60 &&
		   out.val[METACACHE_A_TUN_NEG_TTL] == 0 &&
		   out.val[METACACHE_A_TUN_MAX_HANDLES] == 64, "values");
	MCT_EXPECT(out.dis_selector == (METACACHE_CACHE_F_NEG | METACACHE_CACHE_F_DIR)
		   && out.dis_value == METACACHE_CACHE_F_NEG,
		   "bitfield %#x/%#x", out.dis_value, out.dis_selector);
	nlmsg_free(msg);
}

MCT_TEST(mount_decodes_and_tolerates_unknown)
{
	struct nl_msg *msg = new_msg(METACACHE_CMD_MOUNT_GET);
	struct mc_tun t = { 0 };
	struct mc_mount m;
	struct mc_reply r;

	mc_key_set(&t, mc_key_find("attr_ttl"), "7");
	nla_put_u32(msg, METACACHE_A_MOUNT_ID, 3);
	nla_put_string(msg, METACACHE_A_MOUNT_PATH, "/mnt/fast");
	nla_put_string(msg, METACACHE_A_LOWER_PATH, "/mnt/share");
	nla_put_string(msg, METACACHE_A_LOWER_FSTYPE, "nfs4");
	mc_tun_put(msg, METACACHE_A_TUNABLES, &t);
	nla_put_u64(msg, METACACHE_A_N_ENTRIES, 1234);
	nla_put_u64(msg, METACACHE_A_MEM_BYTES, 1ULL << 33);
	nla_put_u32(msg, METACACHE_A_N_POLICIES, 2);
	nla_put_u32(msg, METACACHE_A_MAX + 5, 99);	/* from a newer module */
	as_reply(msg, &r);
	MCT_ASSERT(!mc_mount_get(&r, &m), "decode");
	MCT_EXPECT(m.id == 3 && !strcmp(m.path, "/mnt/fast") &&
		   !strcmp(m.lower_path, "/mnt/share") &&
		   !strcmp(m.lower_fstype, "nfs4") && m.n_entries == 1234 &&
		   m.mem_bytes == 1ULL << 33 && m.n_policies == 2 &&
		   m.tun.val[METACACHE_A_TUN_ATTR_TTL] == 7, "fields");
	MCT_EXPECT(!m.lower_source[0] &&
		   !(m.have & (1U << METACACHE_A_LOWER_SOURCE)), "absent source");
	nlmsg_free(msg);

	msg = new_msg(METACACHE_CMD_MOUNT_GET);
	nla_put_string(msg, METACACHE_A_MOUNT_PATH, "/mnt/fast");
	as_reply(msg, &r);
	MCT_EXPECT(mc_mount_get(&r, &m) == -EBADMSG, "a mount without id");
	nlmsg_free(msg);
}

MCT_TEST(mount_point_from_mountinfo)
{
	char file[] = "/tmp/mcctl-mountinfo-XXXXXX", out[256];
	int fd = mkstemp(file);
	FILE *f;

	MCT_ASSERT(fd >= 0 && (f = fdopen(fd, "w")), "temp file");
	fputs("22 1 0:21 / /proc rw,nosuid shared:5 - proc proc rw\n"
	      "30 22 0:44 / /mnt/share rw - nfs4 srv:/e rw,vers=4.2\n"
	      "31 22 0:45 / /mnt/fast rw shared:9 master:2 - metacache /mnt/share rw\n"
	      "32 22 0:46 / /mnt/with\\040space\\134x rw - metacache /mnt/share rw\n"
	      "33 22 0:47 / /mnt/not-metacache rw - tmpfs tmpfs rw\n", f);
	fclose(f);
	MCT_EXPECT(!mc_mountpoint_of_dev(file, 0, 45, out, sizeof(out)) &&
		   !strcmp(out, "/mnt/fast"), "0:45 -> %s", out);
	MCT_EXPECT(!mc_mountpoint_of_dev(file, 0, 46, out, sizeof(out)) &&
		   !strcmp(out, "/mnt/with space\\x"), "0:46 -> %s", out);
	MCT_EXPECT(mc_mountpoint_of_dev(file, 0, 47, out, sizeof(out)) == -1,
		   "a tmpfs taken for metacache");
	MCT_EXPECT(mc_mountpoint_of_dev(file, 0, 99, out, sizeof(out)) == -1,
		   "unknown device found");
	MCT_EXPECT(mc_mountpoint_of_dev(file, 0, 45, out, 4) == -1,
		   "too long a path truncated");
	unlink(file);
}

static void put_hist(struct nl_msg *msg, int attr, const struct mc_hist *h,
		     int nbuckets)
{
	struct nlattr *n = nla_nest_start(msg, attr);

	nla_put_u64(msg, METACACHE_A_HIST_COUNT, h->count);
	nla_put_u64(msg, METACACHE_A_HIST_SUM_NS, h->sum_ns);
	nla_put_u64(msg, METACACHE_A_HIST_MAX_NS, h->max_ns);
	nla_put(msg, METACACHE_A_HIST_BUCKETS, nbuckets * 8, h->b);
	nla_nest_end(msg, n);
}

MCT_TEST(stats_merge_of_dump_messages)
{
	struct mc_stats *s = calloc(1, sizeof(*s));
	struct mc_hist lower = { 0 };
	struct nl_msg *msg;
	struct nlattr *n;
	struct mc_reply r;
	unsigned int c;
	uint64_t v;

	MCT_ASSERT(s, "calloc");
	/* first message: caches */
	msg = new_msg(METACACHE_CMD_STATS_GET);
	nla_put_u32(msg, METACACHE_A_MOUNT_ID, 1);
	nla_put_string(msg, METACACHE_A_MOUNT_PATH, "/mnt/fast");
	nla_put_u64(msg, METACACHE_A_STATS_AGE_NS, 5000000000ULL);
	for (c = 0; c <= METACACHE_CACHE_MAX + 1; c++) {	/* +1: unknown */
		n = nla_nest_start(msg, METACACHE_A_CACHE);
		nla_put_u32(msg, METACACHE_A_CACHE_ID, c);
		nla_put_u64(msg, METACACHE_A_CACHE_HITS, 100 + c);
		nla_put_u64(msg, METACACHE_A_CACHE_MISSES, 10 + c);
		nla_nest_end(msg, n);
	}
	as_reply(msg, &r);
	MCT_ASSERT(!mc_stats_merge(&r, s), "merge caches");
	nlmsg_free(msg);

	/* then one op, its lower histogram with trailing buckets left out */
	mc_hist_add(&lower, 2000000, 50);
	mc_hist_add(&lower, 4000000, 50);
	msg = new_msg(METACACHE_CMD_STATS_GET);
	nla_put_u32(msg, METACACHE_A_MOUNT_ID, 1);
	n = nla_nest_start(msg, METACACHE_A_OP);
	nla_put_u32(msg, METACACHE_A_OP_ID, METACACHE_OP_GETATTR);
	nla_put_u64(msg, METACACHE_A_OP_CALLS, 100);
	nla_put_u64(msg, METACACHE_A_OP_AVOIDED, 900);
	put_hist(msg, METACACHE_A_OP_HIST_LOWER, &lower,
		 (int)mc_hist_index(4000000) + 1);
	nla_nest_end(msg, n);
	as_reply(msg, &r);
	MCT_ASSERT(!mc_stats_merge(&r, s), "merge op");
	nlmsg_free(msg);

	MCT_EXPECT(s->id == 1 && !strcmp(s->path, "/mnt/fast") &&
		   s->age_ns == 5000000000ULL, "header");
	for (c = 0; c <= METACACHE_CACHE_MAX; c++)
		MCT_EXPECT(s->cache[c].present && s->cache[c].hits == 100 + c &&
			   s->cache[c].misses == 10 + c, "cache %u", c);
	MCT_EXPECT(s->op[METACACHE_OP_GETATTR].present &&
		   s->op[METACACHE_OP_GETATTR].calls == 100 &&
		   s->op[METACACHE_OP_GETATTR].avoided == 900, "op counts");
	MCT_EXPECT(!s->op[METACACHE_OP_LOOKUP].present, "lookup not sent");
	MCT_EXPECT(mc_hist_total(&s->op[METACACHE_OP_GETATTR].lower) == 100 &&
		   s->op[METACACHE_OP_GETATTR].lower.max_ns == 4000000,
		   "histogram");
	MCT_EXPECT(!mc_hist_percentile(&s->op[METACACHE_OP_GETATTR].lower, 0.99, &v) &&
		   v > 3000000 && v <= 4000000, "p99 %llu", (unsigned long long)v);
	free(s);
}

MCT_TEST(policy_decodes)
{
	struct nl_msg *msg = new_msg(METACACHE_CMD_POLICY_GET);
	struct mc_policy p;
	struct mc_reply r;
	struct nlattr *n;

	nla_put_u32(msg, METACACHE_A_MOUNT_ID, 1);
	n = nla_nest_start(msg, METACACHE_A_POLICY);
	nla_put_string(msg, METACACHE_A_POLICY_PATH, "/scratch");
	nla_put_u32(msg, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
	nla_nest_end(msg, n);
	as_reply(msg, &r);
	MCT_ASSERT(r.tb[METACACHE_A_POLICY], "no policy");
	MCT_EXPECT(!mc_policy_get(r.tb[METACACHE_A_POLICY], &p) &&
		   !strcmp(p.path, "/scratch") &&
		   p.flags == METACACHE_POLICY_F_BYPASS && !p.tun.present, "fields");
	nlmsg_free(msg);
}

/* ------------------------------------------------------------- output */

static char *render(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, arg);
	fclose(f);
	return buf;
}

/* python3 SCRIPT on the JSON text; 0 when the assertions hold. */
static int python_check(const char *json, const char *script, char *out,
			size_t len)
{
	char file[] = "/tmp/mcctl-out-XXXXXX", cmd[4096];
	int fd = mkstemp(file), rc;
	size_t n;
	FILE *p;

	if (fd < 0 || write(fd, json, strlen(json)) < 0)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys\n"
		 "d = json.load(open(sys.argv[1]))\n%s' %s 2>&1", script, file);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, len - 1, p) : 0;
	out[n] = 0;
	rc = p ? pclose(p) : -1;
	unlink(file);
	return rc;
}

static struct mc_stats *sample_stats(void)
{
	struct mc_stats *s = calloc(1, sizeof(*s));
	unsigned int c;

	if (!s)
		abort();
	s->id = 7;
	snprintf(s->path, sizeof(s->path), "/mnt/\"odd\" name");
	s->age_ns = 3725ULL * 1000000000ULL;
	for (c = 0; c <= METACACHE_CACHE_MAX; c++) {
		s->cache[c].present = 1;
		s->cache[c].hits = 1000 * (c + 1);
		s->cache[c].misses = c ? 10 : 0;
		s->cache[c].entries = 42;
		s->cache[c].mem_bytes = 4096;
	}
	s->cache[METACACHE_CACHE_HANDLE].hits = 0;
	s->op[METACACHE_OP_LOOKUP].present = 1;
	s->op[METACACHE_OP_LOOKUP].calls = 10;
	s->op[METACACHE_OP_LOOKUP].avoided = 990;
	mc_hist_add(&s->op[METACACHE_OP_LOOKUP].cache, 300, 990);
	mc_hist_add(&s->op[METACACHE_OP_LOOKUP].lower, 2000000, 10);
	s->op[METACACHE_OP_GETATTR].present = 1;	/* all zero: hidden */
	s->op[40].present = 1;				/* unknown to this tool */
	s->op[40].calls = 3;
	s->served_sample = 16;
	return s;
}

static void stats_json(FILE *f, const void *s)
{
	mc_stats_json(f, s);
}

static void stats_human(FILE *f, const void *s)
{
	mc_stats_print(f, s, NULL, 0);
}

MCT_TEST(stats_output)
{
	struct mc_stats *s = sample_stats();
	char *json = render(stats_json, s), *text = render(stats_human, s);
	char out[4096];

	MCT_ASSERT(json && text, "render");
	if (system("python3 -c 1 >/dev/null 2>&1")) {
		mct_diag("no python3: JSON not checked");
	} else {
		MCT_EXPECT(!python_check(json,
			"assert d[\"mount_id\"] == 7\n"
			"assert d[\"mount_point\"] == \"/mnt/\\\"odd\\\" name\"\n"
			"assert d[\"age_ns\"] == 3725 * 10**9\n"
			"assert d[\"served_sample\"] == 16\n"
			"assert set(d[\"caches\"]) == {\"entry\", \"neg\", \"attr\", \"dir\", \"handle\"}\n"
			"assert d[\"caches\"][\"entry\"][\"hit_ratio\"] == 1.0\n"
			"assert d[\"caches\"][\"handle\"][\"hit_ratio\"] is not None\n"
			"assert len(d[\"ops\"]) == 25 and \"op40\" in d[\"ops\"]\n"
			"l = d[\"ops\"][\"lookup\"]\n"
			"assert l[\"calls\"] == 10 and l[\"avoided\"] == 990\n"
			"assert abs(l[\"avoided_ratio\"] - 0.99) < 1e-9\n"
			"assert 256 <= l[\"cache\"][\"p50_ns\"] <= 300\n"
			"assert l[\"cache\"][\"count\"] == 990 and l[\"cache\"][\"mean_ns\"] == 300\n"
			"assert 1.5e6 <= l[\"lower\"][\"p99_9_ns\"] <= 2e6\n"
			"b = l[\"lower\"][\"buckets\"]\n"
			"assert len(b) == 1 and b[0][\"lo_ns\"] <= 2000000 < b[0][\"hi_ns\"]\n"
			"g = d[\"ops\"][\"getattr\"]\n"
			"assert g[\"avoided_ratio\"] is None and g[\"cache\"][\"p50_ns\"] is None\n",
			out, sizeof(out)), "stats JSON: %s\n%s", out, json);
	}
	MCT_EXPECT(strstr(text, "mount 7 /mnt/\"odd\" name, counting for 1h2m"),
		   "header:\n%s", text);
	MCT_EXPECT(strstr(text, "hit%") && strstr(text, "lookup") &&
		   strstr(text, "op40") && !strstr(text, "getattr") &&
		   strstr(text, "p99.9") && strstr(text, "lower") &&
		   strstr(text, "1 hit in 16 timed"),
		   "human:\n%s", text);
	free(json);
	free(text);
	free(s);
}

static void mount_json(FILE *f, const void *m)
{
	struct mc_json j;

	mcj_init(&j, f);
	mc_mount_json(&j, NULL, m);
	mcj_end(&j);
}

static void mount_human(FILE *f, const void *m)
{
	mc_mount_print(f, m);
}

MCT_TEST(mount_output)
{
	struct mc_mount *m = calloc(1, sizeof(*m));
	char out[4096], *json, *text;
	size_t i;

	MCT_ASSERT(m, "calloc");
	m->id = 2;
	snprintf(m->path, sizeof(m->path), "/mnt/fast");
	snprintf(m->lower_path, sizeof(m->lower_path), "/mnt/share");
	snprintf(m->lower_fstype, sizeof(m->lower_fstype), "cifs");
	m->have = (1U << METACACHE_A_MOUNT_ID) | (1U << METACACHE_A_MOUNT_PATH) |
		  (1U << METACACHE_A_LOWER_PATH) | (1U << METACACHE_A_LOWER_FSTYPE);
	m->n_entries = 12345;
	for (i = 0; i < mc_nkeys; i++)
		if (mc_keys[i].kind != MC_KEY_SWITCH)
			mc_key_set(&m->tun, &mc_keys[i], "5");
	mc_key_set(&m->tun, mc_key_find("neg_ttl"), "0");
	mc_key_set(&m->tun, mc_key_find("dir"), "off");
	mc_key_set(&m->tun, mc_key_find("entry"), "on");
	json = render(mount_json, m);
	text = render(mount_human, m);
	MCT_ASSERT(json && text, "render");
	if (!system("python3 -c 1 >/dev/null 2>&1"))
		MCT_EXPECT(!python_check(json,
			"assert d[\"id\"] == 2 and d[\"lower_source\"] is None\n"
			"assert d[\"lower_fstype\"] == \"cifs\" and d[\"entries\"] == 12345\n"
			"t = d[\"tunables\"]\n"
			"assert t[\"entry_ttl\"] == 5 and t[\"neg_ttl\"] == 0\n"
			"assert t[\"dir\"] is False and t[\"entry\"] is True and \"neg\" not in t\n"
			"assert d[\"active\"] == {\"entry\": True, \"neg\": False, "
			"\"attr\": True, \"dir\": False, \"handle\": True}\n",
			out, sizeof(out)), "mount JSON: %s\n%s", out, json);
	MCT_EXPECT(strstr(text, "mount 2: /mnt/fast") &&
		   strstr(text, "neg off (ttl 0)") &&
		   strstr(text, "dir off (switched off)") &&
		   strstr(text, "entry_ttl    5s"), "human:\n%s", text);
	free(json);
	free(text);
	free(m);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
