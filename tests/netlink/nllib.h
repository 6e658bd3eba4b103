/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nllib.h - raw generic netlink for the metacache control plane tests.
 *
 * Plain sockets and hand-built messages (no libnl), so that a test can
 * send exactly what it wants, malformed on purpose included, and see
 * exactly what came back: the error, the extended ack (message, offset of
 * the offending attribute, missing attribute) and the reply messages.
 *
 *	struct nl_sock s;
 *	struct nl_req *m = nl_req(&s, METACACHE_CMD_MOUNT_GET, 0);
 *	nl_put_u32(m, METACACHE_A_MOUNT_ID, 1);
 *	struct nl_reply *r = nl_call(&s, m);
 *	if (r->error) ... r->ext_msg, r->offs ...
 *	for (struct nlmsghdr *h = nl_first(r); h; h = nl_next(r, h))
 *		nl_attr(h, METACACHE_A_MOUNT_ID) ...
 *
 * Also helpers for the metacache mounts of the test bed.
 */
#ifndef NLLIB_H
#define NLLIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/metacache.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define NL_BUFSZ	(256 * 1024)

struct nl_sock {
	int fd;
	uint16_t family;
	uint32_t seq;
	int rcvbuf;		/* recv() size; small values make dumps chunky */
};

/* A request being built. */
struct nl_req {
	unsigned char buf[NL_BUFSZ];
	size_t len;
	size_t nest[16];
	int depth;
};

/* What came back for one request. */
struct nl_reply {
	int error;		/* 0 or -errno from the ack, the error or DONE */
	int acked;		/* an ack, an error or DONE was received */
	int timeout;		/* nothing conclusive came */
	char ext_msg[512];	/* NLMSGERR_ATTR_MSG */
	int has_offs;
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS: offset in the request */
	int has_miss;
	uint32_t miss_type, miss_nest;
	int nmsgs;		/* data messages */
	int intr;		/* a data message had NLM_F_DUMP_INTR */
	unsigned char *data;	/* the data messages, back to back */
	size_t dlen, dcap;
};

/*
 * nl_req() builds in one buffer, the helpers below (nl_mount_id(), ...)
 * in another, so that a helper can be called while a request is built.
 */
static struct nl_req nl_the_req, nl_helper_req;
static struct nl_reply nl_the_reply;

static inline struct nlattr *nl_attr_next(struct nlattr *a)
{
	return (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
}

/* Iterate over the attributes in [start, start + len). */
#define nl_for_each_attr(a, start, len)					\
	for (a = (struct nlattr *)(start);				\
	     (char *)a + NLA_HDRLEN <= (char *)(start) + (len) &&	\
	     a->nla_len >= NLA_HDRLEN &&				\
	     (char *)a + a->nla_len <= (char *)(start) + (len);		\
	     a = nl_attr_next(a))

static inline void *nl_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static inline int nl_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* A string attribute ("" when absent or empty). */
static inline const char *nl_str(const struct nlattr *a)
{
	if (!a || nl_len(a) <= 0)
		return "";
	return (const char *)a + NLA_HDRLEN;
}

static inline uint32_t nl_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a && nl_len(a) >= 4)
		memcpy(&v, nl_data(a), 4);
	return v;
}

static inline uint64_t nl_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (a && nl_len(a) >= 8)
		memcpy(&v, nl_data(a), 8);
	return v;
}

/* An attribute of a nest (or NULL). */
static inline struct nlattr *nl_nested(const struct nlattr *nest, int type)
{
	struct nlattr *a;

	if (!nest)
		return NULL;
	nl_for_each_attr(a, nl_data(nest), nl_len(nest))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

/* Build */

static inline struct nl_req *nl_req_in(struct nl_req *m, uint16_t type,
				       uint16_t flags, uint8_t cmd,
				       uint8_t version, uint16_t reserved)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g->cmd = cmd;
	g->version = version;
	g->reserved = reserved;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->depth = 0;
	return m;
}

static inline struct nl_req *nl_req_raw(uint16_t type, uint16_t flags,
					uint8_t cmd, uint8_t version,
					uint16_t reserved)
{
	return nl_req_in(&nl_the_req, type, flags, cmd, version, reserved);
}

/* A request of our family; flags NLM_F_DUMP for a dump. */
static inline struct nl_req *nl_req(struct nl_sock *s, uint8_t cmd,
				    uint16_t flags)
{
	return nl_req_raw(s->family, flags, cmd, METACACHE_GENL_VERSION, 0);
}

/* The same, in the helpers' buffer. */
static inline struct nl_req *nl_hreq(struct nl_sock *s, uint8_t cmd,
				     uint16_t flags)
{
	return nl_req_in(&nl_helper_req, s->family, flags, cmd,
			 METACACHE_GENL_VERSION, 0);
}

/* An attribute; type may carry NLA_F_NESTED; data may be NULL (zeros). */
static inline void nl_put(struct nl_req *m, uint16_t type, const void *data,
			  size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);

	if (m->len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(m->buf)) {
		fprintf(stderr, "nllib: request too large\n");
		abort();
	}
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (data)
		memcpy(nl_data(a), data, len);
	else
		memset(nl_data(a), 0, len);
	memset((char *)nl_data(a) + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(NLA_HDRLEN + len);
}

static inline void nl_put_u32(struct nl_req *m, uint16_t type, uint32_t v)
{
	nl_put(m, type, &v, 4);
}

static inline void nl_put_str(struct nl_req *m, uint16_t type, const char *s)
{
	nl_put(m, type, s, strlen(s) + 1);
}

static inline void nl_put_bf32(struct nl_req *m, uint16_t type,
			       uint32_t value, uint32_t selector)
{
	uint32_t bf[2] = { value, selector };

	nl_put(m, type, bf, sizeof(bf));
}

/* Offset of the next attribute, for comparing with r->offs. */
static inline uint32_t nl_here(const struct nl_req *m)
{
	return (uint32_t)m->len;
}

static inline void nl_nest(struct nl_req *m, uint16_t type)
{
	m->nest[m->depth++] = m->len;
	nl_put(m, type | NLA_F_NESTED, NULL, 0);
}

static inline void nl_nest_end(struct nl_req *m)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->nest[--m->depth]);

	a->nla_len = (uint16_t)(m->len - m->nest[m->depth]);
}

/* Socket */

static inline int nl_sock_raw(struct nl_sock *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 20 };
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s->seq = (uint32_t)getpid() << 8;
	s->rcvbuf = NL_BUFSZ;
	return 0;
}

static inline void nl_close(struct nl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static inline int nl_send(struct nl_sock *s, struct nl_req *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++s->seq;
	if (sendto(s->fd, m->buf, m->len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return 0;
}

static inline void nl_ext_parse(struct nl_reply *r, const void *start, int len)
{
	struct nlattr *a;

	nl_for_each_attr(a, start, len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			snprintf(r->ext_msg, sizeof(r->ext_msg), "%.*s",
				 nl_len(a), (char *)nl_data(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			r->has_offs = 1;
			r->offs = nl_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			r->has_miss = 1;
			r->miss_type = nl_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			r->miss_nest = nl_u32(a);
			break;
		}
	}
}

/* Receive what answers the last request sent on s. */
static inline struct nl_reply *nl_recv(struct nl_sock *s)
{
	static unsigned char buf[NL_BUFSZ];
	struct nl_reply *r = &nl_the_reply;

	free(r->data);
	memset(r, 0, sizeof(*r));
	while (!r->acked) {
		ssize_t n = recv(s->fd, buf, (size_t)s->rcvbuf, 0);
		struct nlmsghdr *h;
		int rem;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r->timeout = 1;
			r->error = -errno;
			break;
		}
		rem = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, rem);
		     h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_seq != s->seq)
				continue;	/* a late answer to an old one */
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				int off = (int)sizeof(*e);

				r->error = e->error;
				r->acked = 1;
				if (h->nlmsg_flags & NLM_F_ACK_TLVS) {
					if (!(h->nlmsg_flags & NLM_F_CAPPED))
						off += (int)NLMSG_ALIGN(e->msg.nlmsg_len -
									NLMSG_HDRLEN);
					nl_ext_parse(r, (char *)e + off,
						     (int)h->nlmsg_len - NLMSG_HDRLEN - off);
				}
				break;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				memcpy(&e, NLMSG_DATA(h), sizeof(e));
				r->error = e;
				r->acked = 1;
				if (h->nlmsg_flags & NLM_F_ACK_TLVS)
					nl_ext_parse(r, (char *)NLMSG_DATA(h) + 4,
						     (int)h->nlmsg_len - NLMSG_HDRLEN - 4);
				/* no ack follows a dump's DONE */
				break;
			}
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				r->intr = 1;
			if (r->dlen + h->nlmsg_len > r->dcap) {
				r->dcap = (r->dcap + h->nlmsg_len) * 2;
				r->data = realloc(r->data, r->dcap);
				if (!r->data)
					abort();
			}
			memcpy(r->data + r->dlen, h, h->nlmsg_len);
			r->dlen += NLMSG_ALIGN(h->nlmsg_len);
			r->nmsgs++;
			/* a do with a reply: the ack follows */
		}
	}
	return r;
}

static inline struct nl_reply *nl_call(struct nl_sock *s, struct nl_req *m)
{
	int err = nl_send(s, m);

	if (err) {
		struct nl_reply *r = &nl_the_reply;

		free(r->data);
		memset(r, 0, sizeof(*r));
		r->error = err;
		r->timeout = 1;
		return r;
	}
	return nl_recv(s);
}

/* Reply messages */

static inline struct nlmsghdr *nl_first(const struct nl_reply *r)
{
	return r->dlen ? (struct nlmsghdr *)r->data : NULL;
}

static inline struct nlmsghdr *nl_next(const struct nl_reply *r,
				       struct nlmsghdr *h)
{
	unsigned char *n = (unsigned char *)h + NLMSG_ALIGN(h->nlmsg_len);

	return n < r->data + r->dlen ? (struct nlmsghdr *)n : NULL;
}

static inline void *nl_attrs(const struct nlmsghdr *h)
{
	return (char *)NLMSG_DATA(h) + GENL_HDRLEN;
}

static inline int nl_attrs_len(const struct nlmsghdr *h)
{
	return (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
}

static inline struct nlattr *nl_attr(const struct nlmsghdr *h, int type)
{
	struct nlattr *a;

	nl_for_each_attr(a, nl_attrs(h), nl_attrs_len(h))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

/*
 * Open a socket on the metacache family: 0, or -errno (-ENOENT: absent).
 * rcvbuf is the size of every recv() (the kernel sizes dump chunks by it).
 */
static inline int nl_open_sz(struct nl_sock *s, int rcvbuf)
{
	struct nl_req *m;
	struct nl_reply *r;
	struct nlattr *a;
	int err = nl_sock_raw(s);

	if (err)
		return err;
	if (rcvbuf > 0 && rcvbuf < NL_BUFSZ)
		s->rcvbuf = rcvbuf;
	m = nl_req_raw(GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1, 0);
	nl_put_str(m, CTRL_ATTR_FAMILY_NAME, METACACHE_GENL_NAME);
	r = nl_call(s, m);
	if (r->error || !r->nmsgs) {
		nl_close(s);
		return r->error ? r->error : -EIO;
	}
	a = nl_attr(nl_first(r), CTRL_ATTR_FAMILY_ID);
	if (!a) {
		nl_close(s);
		return -EIO;
	}
	memcpy(&s->family, nl_data(a), 2);
	return 0;
}

static inline int nl_open(struct nl_sock *s)
{
	return nl_open_sz(s, 0);
}

/* Mounts */

/* The device of a metacache mount point, as the module reports it. */
static inline int nl_dev_of(const char *path, uint32_t *major_, uint32_t *minor_)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*major_ = major(st.st_dev);
	*minor_ = minor(st.st_dev);
	return 0;
}

/* The id of the metacache mount at path (MOUNT_GET by path), or 0. */
static inline uint32_t nl_mount_id(struct nl_sock *s, const char *path)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_MOUNT_GET, 0);
	struct nl_reply *r;

	nl_put_str(m, METACACHE_A_MOUNT_PATH, path);
	r = nl_call(s, m);
	if (r->error || !r->nmsgs)
		return 0;
	return nl_u32(nl_attr(nl_first(r), METACACHE_A_MOUNT_ID));
}

/*
 * Tunables as an array indexed by METACACHE_A_TUN_*; [DISABLED] holds the
 * mask of caches switched off.
 */
typedef uint32_t nl_tun_t[METACACHE_A_TUN_MAX + 1];

/* A TUNABLES-style nest with every tunable of t. */
static inline void nl_put_tun(struct nl_req *m, uint16_t type, const nl_tun_t t)
{
	int a;

	nl_nest(m, type);
	for (a = METACACHE_A_TUN_ENTRY_TTL; a < METACACHE_A_TUN_DISABLED; a++)
		nl_put_u32(m, a, t[a]);
	nl_put_bf32(m, METACACHE_A_TUN_DISABLED, t[METACACHE_A_TUN_DISABLED],
		    METACACHE_CACHE_F_ALL);
	nl_nest_end(m);
}

/* Decode a TUNABLES-style nest into t; returns the attributes seen. */
static inline uint32_t nl_get_tun(const struct nlattr *nest, nl_tun_t t)
{
	uint32_t seen = 0;
	int a;

	memset(t, 0, sizeof(nl_tun_t));
	for (a = METACACHE_A_TUN_ENTRY_TTL; a <= METACACHE_A_TUN_MAX; a++) {
		struct nlattr *x = nl_nested(nest, a);

		if (!x)
			continue;
		seen |= 1U << a;
		t[a] = nl_u32(x);	/* the bitfield's value comes first */
	}
	return seen;
}

static inline int nl_defaults_get(struct nl_sock *s, nl_tun_t t)
{
	struct nl_reply *r = nl_call(s, nl_hreq(s, METACACHE_CMD_DEFAULTS_GET, 0));

	if (r->error || !r->nmsgs)
		return r->error ? r->error : -EIO;
	nl_get_tun(nl_attr(nl_first(r), METACACHE_A_TUNABLES), t);
	return 0;
}

static inline int nl_defaults_set(struct nl_sock *s, const nl_tun_t t)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_DEFAULTS_SET, 0);

	nl_put_tun(m, METACACHE_A_TUNABLES, t);
	return nl_call(s, m)->error;
}

static inline int nl_mount_tun_get(struct nl_sock *s, uint32_t id, nl_tun_t t)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_MOUNT_GET, 0);
	struct nl_reply *r;

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(s, m);
	if (r->error || !r->nmsgs)
		return r->error ? r->error : -EIO;
	nl_get_tun(nl_attr(nl_first(r), METACACHE_A_TUNABLES), t);
	return 0;
}

static inline int nl_mount_tun_set(struct nl_sock *s, uint32_t id,
				   const nl_tun_t t)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_MOUNT_SET, 0);

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_put_tun(m, METACACHE_A_TUNABLES, t);
	return nl_call(s, m)->error;
}

/* Delete every policy rule of a mount; returns how many, or -errno. */
static inline int nl_policy_clear(struct nl_sock *s, uint32_t id)
{
	static char paths[METACACHE_POLICY_MAX * 2][256];
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	struct nl_reply *r;
	struct nlmsghdr *h;
	int n = 0, i, err;

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(s, m);
	if (r->error)
		return r->error;
	for (h = nl_first(r); h && n < (int)(sizeof(paths) / sizeof(paths[0]));
	     h = nl_next(r, h)) {
		struct nlattr *p = nl_nested(nl_attr(h, METACACHE_A_POLICY),
					     METACACHE_A_POLICY_PATH);

		if (p)
			snprintf(paths[n++], sizeof(paths[0]), "%s",
				 (char *)nl_data(p));
	}
	for (i = 0; i < n; i++) {
		m = nl_hreq(s, METACACHE_CMD_POLICY_DEL, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		nl_nest(m, METACACHE_A_POLICY);
		nl_put_str(m, METACACHE_A_POLICY_PATH, paths[i]);
		nl_nest_end(m);
		err = nl_call(s, m)->error;
		if (err && err != -ENOENT)
			return err;
	}
	return n;
}

/* Add a rule: flags, and the tunables of t selected by mask (1 << attr). */
static inline int nl_rule_add(struct nl_sock *s, uint32_t id, const char *path,
			      uint32_t flags, const nl_tun_t t, uint32_t mask,
			      uint32_t dis_selector)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_POLICY_ADD, 0);
	int a;

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_POLICY);
	nl_put_str(m, METACACHE_A_POLICY_PATH, path);
	if (flags)
		nl_put_u32(m, METACACHE_A_POLICY_FLAGS, flags);
	if (mask || dis_selector) {
		nl_nest(m, METACACHE_A_POLICY_TUNABLES);
		for (a = METACACHE_A_TUN_ENTRY_TTL;
		     a < METACACHE_A_TUN_DISABLED; a++)
			if (mask & (1U << a))
				nl_put_u32(m, (uint16_t)a, t[a]);
		if (dis_selector)
			nl_put_bf32(m, METACACHE_A_TUN_DISABLED,
				    t[METACACHE_A_TUN_DISABLED] & dis_selector,
				    dis_selector);
		nl_nest_end(m);
	}
	nl_nest_end(m);
	return nl_call(s, m)->error;
}

static inline int nl_rule_del(struct nl_sock *s, uint32_t id, const char *path)
{
	struct nl_req *m = nl_hreq(s, METACACHE_CMD_POLICY_DEL, 0);

	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_nest(m, METACACHE_A_POLICY);
	nl_put_str(m, METACACHE_A_POLICY_PATH, path);
	nl_nest_end(m);
	return nl_call(s, m)->error;
}

/*
 * What the module's rule lookup says about a path on mount id
 * (debugfs <id>/policy): "entry_ttl=5 ... bypass=0 ttl.entry=5 ...".
 * Returns 0, or -errno (-ENOENT: no debugfs file or no such path).
 */
static inline int nl_probe(uint32_t id, const char *path, char *out,
			   size_t size)
{
	char file[128];
	ssize_t n;
	int fd, err = 0;

	snprintf(file, sizeof(file), "/sys/kernel/debug/metacache/%u/policy",
		 id);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, path, strlen(path)) != (ssize_t)strlen(path)) {
		err = -errno;
		goto out;
	}
	n = read(fd, out, size - 1);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	out[n] = 0;
out:
	close(fd);
	return err;
}

/* The rule of a probe's answer ("/a/b", "-") into buf. */
static inline const char *nl_probe_rule(const char *probe, char *buf,
					size_t size)
{
	const char *p = strstr(probe, "rule=");

	buf[0] = 0;
	if (p)
		snprintf(buf, size, "%.*s", (int)strcspn(p + 5, " \n"), p + 5);
	return buf;
}

/* A value of a probe's answer ("ttl.entry", "bypass", ...), or -1. */
static inline long nl_probe_val(const char *probe, const char *key)
{
	size_t n = strlen(key);
	const char *p = probe;

	while ((p = strstr(p, key))) {
		if ((p == probe || p[-1] == ' ') && p[n] == '=')
			return strtol(p + n + 1, NULL, 0);
		p += n;
	}
	return -1;
}

#endif /* NLLIB_H */
