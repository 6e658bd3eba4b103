// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - the netlink transport: resolve the "metacache" family, check its
 * protocol version, send a request, receive replies, acks and dumps, and
 * report errors with the kernel's extended ack ("kernel reports: ...").
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* What the user asked for, by command, to prefix errors with. */
static const char *const cmd_names[] = {
	[METACACHE_CMD_GET_INFO] = "module info",
	[METACACHE_CMD_MOUNT_GET] = "show",
	[METACACHE_CMD_MOUNT_SET] = "set",
	[METACACHE_CMD_DEFAULTS_GET] = "defaults",
	[METACACHE_CMD_DEFAULTS_SET] = "defaults",
	[METACACHE_CMD_POLICY_ADD] = "policy add",
	[METACACHE_CMD_POLICY_DEL] = "policy del",
	[METACACHE_CMD_POLICY_GET] = "policy list",
	[METACACHE_CMD_STATS_GET] = "stats",
	[METACACHE_CMD_STATS_RESET] = "stats --reset",
	[METACACHE_CMD_FLUSH] = "flush",
	[METACACHE_CMD_BENCH_START] = "bench start",
	[METACACHE_CMD_BENCH_STOP] = "bench stop",
	[METACACHE_CMD_BENCH_GET] = "bench status",
	[METACACHE_CMD_BENCH_RESULTS] = "bench results",
};

/* What the extended ack of an error said. */
struct extack {
	char msg[512];
	int has_offs, has_miss;
	uint32_t offs, miss_type, miss_nest;
};

struct call {
	mc_reply_fn fn;
	void *arg;
	int done;
	int err;		/* negative errno from the kernel or fn */
	int from_kernel;	/* err came in an NLMSG_ERROR or DONE */
	struct extack ext;
};

static void parse_tlvs(struct extack *x, void *start, int len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (len <= 0 || nla_parse(tb, NLMSGERR_ATTR_MAX, start, len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		size_t n = (size_t)nla_len(tb[NLMSGERR_ATTR_MSG]);

		if (n >= sizeof(x->msg))
			n = sizeof(x->msg) - 1;
		memcpy(x->msg, nla_data(tb[NLMSGERR_ATTR_MSG]), n);
		x->msg[n] = 0;
	}
	if (tb[NLMSGERR_ATTR_OFFS] && nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4) {
		x->has_offs = 1;
		x->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE] &&
	    nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4) {
		x->has_miss = 1;
		x->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		if (tb[NLMSGERR_ATTR_MISS_NEST] &&
		    nla_len(tb[NLMSGERR_ATTR_MISS_NEST]) >= 4)
			x->miss_nest = nla_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]);
	}
}

static int on_valid(struct nl_msg *m, void *arg)
{
	struct call *c = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct mc_reply r;
	int err;

	/*
	 * After an error, keep reading to the end of the reply or dump (not
	 * calling fn) so that the socket is clean for the next request.
	 */
	if (!c->fn || c->err)
		return NL_OK;
	memset(&r, 0, sizeof(r));
	if (genlmsg_parse(nlh, 0, r.tb, METACACHE_A_MAX, NULL) < 0) {
		c->err = -EBADMSG;
		return NL_OK;
	}
	r.head = genlmsg_attrdata(nlmsg_data(nlh), 0);
	r.len = genlmsg_attrlen(nlmsg_data(nlh), 0);
	err = c->fn(&r, c->arg);
	if (err < 0)
		c->err = err;
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct call *c = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	int len = (int)nlh->nlmsg_len - NLMSG_HDRLEN;
	int off = (int)sizeof(*e);

	(void)nla;
	if (!c->err || e->error) {
		c->err = e->error;
		c->from_kernel = 1;
	}
	c->done = 1;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
		parse_tlvs(&c->ext, (char *)e + off, len - off);
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *m, void *arg)
{
	struct call *c = arg;

	(void)m;
	c->done = 1;
	return NL_STOP;
}

/* End of a dump: NLMSG_DONE carries the dump's error, and TLVs after it. */
static int on_finish(struct nl_msg *m, void *arg)
{
	struct call *c = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	int len = nlmsg_datalen(nlh);

	c->done = 1;
	if (len >= (int)sizeof(int)) {
		int e;

		memcpy(&e, nlmsg_data(nlh), sizeof(e));
		if (e < 0) {
			c->err = e;
			c->from_kernel = 1;
			if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
				parse_tlvs(&c->ext, (char *)nlmsg_data(nlh) +
					   NLMSG_ALIGN(sizeof(int)),
					   len - NLMSG_ALIGN(sizeof(int)));
		}
	}
	return NL_STOP;
}

/* User words for the attributes of our requests, for NLMSGERR_ATTR_OFFS. */
static const char *top_name(int type)
{
	switch (type) {
	case METACACHE_A_MOUNT_ID:	return "mount id";
	case METACACHE_A_MOUNT_PATH:	return "mount path";
	case METACACHE_A_TUNABLES:	return "tunables";
	case METACACHE_A_DEFAULTS:	return "defaults";
	case METACACHE_A_POLICY:	return "policy";
	case METACACHE_A_PATH:		return "path";
	case METACACHE_A_FLUSH_FLAGS:	return "flush flags";
	case METACACHE_A_BENCH:		return "bench parameters";
	}
	return NULL;
}

/* The options of "bench start" for the attributes they give. */
static const char *bench_name(int type)
{
	switch (type) {
	case METACACHE_A_BENCH_JOB_ID:		return "job id";
	case METACACHE_A_BENCH_TARGET:		return "target";
	case METACACHE_A_BENCH_WORKLOAD:	return "workload";
	case METACACHE_A_BENCH_THREADS:		return "--threads";
	case METACACHE_A_BENCH_FILES:		return "--files";
	case METACACHE_A_BENCH_DIRS:		return "--dirs";
	case METACACHE_A_BENCH_FILE_SIZE:	return "--file-size";
	case METACACHE_A_BENCH_IO_SIZE:		return "--io-size";
	case METACACHE_A_BENCH_OPS:		return "--ops";
	case METACACHE_A_BENCH_DURATION_MS:	return "--duration";
	case METACACHE_A_BENCH_FLAGS:		return "--keep/--stonewall/--warmup";
	case METACACHE_A_BENCH_READ_PCT:	return "--read-pct";
	case METACACHE_A_BENCH_MIX_STAT:	return "--mix stat";
	case METACACHE_A_BENCH_MIX_OPEN:	return "--mix open";
	case METACACHE_A_BENCH_MIX_CREATE:	return "--mix create";
	case METACACHE_A_BENCH_MIX_UNLINK:	return "--mix unlink";
	}
	return NULL;
}

static const char *tun_name(int type)
{
	size_t i;

	if (type == METACACHE_A_TUN_DISABLED)
		return "cache on/off switches";
	for (i = 0; i < mc_nkeys; i++)
		if (mc_keys[i].attr == type)
			return mc_keys[i].name;
	return NULL;
}

static const char *policy_name(int type)
{
	switch (type) {
	case METACACHE_A_POLICY_PATH:	return "policy path";
	case METACACHE_A_POLICY_FLAGS:	return "policy flags (bypass)";
	case METACACHE_A_POLICY_TUNABLES: return "tunables";
	}
	return NULL;
}

enum set { SET_TOP, SET_TUN, SET_POLICY, SET_BENCH };

static const char *set_name(enum set set, int type)
{
	switch (set) {
	case SET_TOP:
		return top_name(type);
	case SET_TUN:
		return tun_name(type);
	case SET_POLICY:
		return policy_name(type);
	case SET_BENCH:
		return bench_name(type);
	}
	return NULL;
}

static int is_nest(enum set set, int type, enum set *inner)
{
	if ((set == SET_TOP && (type == METACACHE_A_TUNABLES ||
				type == METACACHE_A_DEFAULTS)) ||
	    (set == SET_POLICY && type == METACACHE_A_POLICY_TUNABLES)) {
		*inner = SET_TUN;
		return 1;
	}
	if (set == SET_TOP && type == METACACHE_A_POLICY) {
		*inner = SET_POLICY;
		return 1;
	}
	if (set == SET_TOP && type == METACACHE_A_BENCH) {
		*inner = SET_BENCH;
		return 1;
	}
	return 0;
}

/*
 * Name the attribute of our request at byte offset offs, if we can; when it
 * is a nest, *inner tells its attribute set.
 */
static const char *attr_at(struct nl_msg *req, uint32_t offs, enum set *inner,
			   int *nest);

const char *mc_nl_attr_at(struct nl_msg *req, uint32_t offs)
{
	enum set inner;
	int nest;

	return attr_at(req, offs, &inner, &nest);
}

static const char *attr_at(struct nl_msg *req, uint32_t offs, enum set *inner,
			   int *nest)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	struct nlattr *head = genlmsg_attrdata(nlmsg_data(nlh), 0);
	int len = genlmsg_attrlen(nlmsg_data(nlh), 0);
	enum set set = SET_TOP;
	const char *name = NULL;

	*nest = 0;
	for (;;) {
		struct nlattr *a;
		int rem, deeper = 0;

		nla_for_each_attr(a, head, len, rem) {
			uint32_t start = (uint32_t)((char *)a - (char *)nlh);

			if (offs < start || offs >= start + (uint32_t)a->nla_len)
				continue;
			name = set_name(set, nla_type(a));
			*nest = is_nest(set, nla_type(a), inner);
			if (offs != start && *nest) {
				set = *inner;
				head = nla_data(a);
				len = nla_len(a);
				deeper = 1;
			}
			break;
		}
		if (!deeper)
			return name;
	}
}

static void report(struct call *c, struct nl_msg *req, const char *what)
{
	const char *attr = NULL;
	char where[160] = "";
	enum set inner = SET_TOP;
	int nest;

	if (c->ext.has_offs)
		attr = attr_at(req, c->ext.offs, &inner, &nest);
	if (attr)
		snprintf(where, sizeof(where), " (at %s)", attr);
	if (c->ext.has_miss) {
		const char *miss;

		inner = SET_TOP;
		if (c->ext.miss_nest &&
		    (!attr_at(req, c->ext.miss_nest, &inner, &nest) || !nest))
			inner = SET_TOP;
		miss = set_name(inner, (int)c->ext.miss_type);
		if (miss)
			snprintf(where, sizeof(where), " (missing %s)", miss);
		else
			snprintf(where, sizeof(where), " (missing attribute %u)",
				 c->ext.miss_type);
	}
	if (c->ext.msg[0])
		mc_err("kernel reports: %s%s", c->ext.msg, where);
	else if (c->err == -EPERM && c->from_kernel)
		mc_err("%s: %s (needs CAP_SYS_ADMIN: run as root)", what,
		       strerror(EPERM));
	else if (c->err == -ENOENT && c->from_kernel)
		mc_err("%s: no such metacache mount, path or rule%s", what, where);
	else if (c->err == -ENOSPC && c->from_kernel)
		mc_err("%s: %s (at most %d rules per mount)", what,
		       strerror(ENOSPC), METACACHE_POLICY_MAX);
	else
		mc_err("%s: %s%s", what, strerror(-c->err), where);
}

struct nl_msg *mc_nl_msg(struct mc_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc_size(METACACHE_PATH_MAX * 3);

	if (!msg) {
		mc_err("out of memory");
		return NULL;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, METACACHE_GENL_VERSION)) {
		nlmsg_free(msg);
		mc_err("cannot build a netlink message");
		return NULL;
	}
	return msg;
}

int mc_nl_call(struct mc_nl *nl, struct nl_msg *msg, mc_reply_fn fn, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	const char *what = g->cmd < MC_ARRAY_SIZE(cmd_names) && cmd_names[g->cmd]
			   ? cmd_names[g->cmd] : "request";
	struct call c = { .fn = fn, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	if (!cb) {
		nlmsg_free(msg);
		mc_err("out of memory");
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &c);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &c);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &c);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &c);

	err = nl_send_auto(nl->sk, msg);
	if (err < 0) {
		mc_err("%s: cannot send: %s", what, nl_geterror(err));
		c.err = -EIO;
		goto out;
	}
	while (!c.done) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0 && !c.done) {
			mc_err("%s: cannot receive: %s", what, nl_geterror(err));
			c.err = -EIO;
			goto out;
		}
	}
	if (c.err)
		report(&c, msg, what);
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return c.err;
}

static int on_info(const struct mc_reply *r, void *arg)
{
	return mc_info_get(r, arg);
}

static int open_family(struct mc_nl *nl, int quiet_absent, int *absent)
{
	int one = 1, fd, err;
	struct nl_msg *msg;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		mc_err("out of memory");
		return MC_EXIT_FAIL;
	}
	err = genl_connect(nl->sk);
	if (err) {
		mc_err("cannot open a generic netlink socket: %s",
		       nl_geterror(err));
		goto fail;
	}
	fd = nl_socket_get_fd(nl->sk);
	/* best effort: older kernels lack them and still work */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);	/* dumps of large messages */

	nl->family = genl_ctrl_resolve(nl->sk, METACACHE_GENL_NAME);
	if (nl->family < 0) {
		if (nl->family != -NLE_OBJ_NOTFOUND) {
			mc_err("cannot look up the generic netlink family \"%s\": %s",
			       METACACHE_GENL_NAME, nl_geterror(nl->family));
			goto fail;
		}
		if (quiet_absent) {
			*absent = 1;
			nl_socket_free(nl->sk);
			nl->sk = NULL;
			return 0;
		}
		if (!access("/sys/module/metacache", F_OK))
			mc_err("metacache module is loaded but offers no control "
			       "interface (a module older than this metacachectl?)");
		else
			mc_err("metacache module is not loaded (try: modprobe metacache)");
		goto fail;
	}
	msg = mc_nl_msg(nl, METACACHE_CMD_GET_INFO, 0);
	if (!msg || mc_nl_call(nl, msg, on_info, &nl->info))
		goto fail;
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return MC_EXIT_FAIL;
}

int mc_nl_open(struct mc_nl *nl)
{
	int err = open_family(nl, 0, NULL);

	if (err)
		return err;
	if (nl->info.proto != METACACHE_GENL_VERSION ||
	    nl->info.nbuckets != METACACHE_HIST_NBUCKETS) {
		mc_err("the metacache module (%s) speaks control protocol %u, "
		       "this metacachectl (%s) speaks %u: use the metacachectl "
		       "that comes with the module",
		       nl->info.version[0] ? nl->info.version : "unknown version",
		       nl->info.proto, METACACHECTL_VERSION,
		       METACACHE_GENL_VERSION);
		mc_nl_close(nl);
		return MC_EXIT_FAIL;
	}
	return 0;
}

int mc_nl_probe(struct mc_nl *nl, int *absent)
{
	*absent = 0;
	return open_family(nl, 1, absent);
}

void mc_nl_close(struct mc_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}
