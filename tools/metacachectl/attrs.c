// SPDX-License-Identifier: GPL-2.0
/*
 * attrs.c - metacache attributes to and from the structs of nl.h.
 *
 * Decoding is lenient the way a newer module needs: unknown attributes
 * are ignored, a missing one leaves its field zero, one too short to hold
 * its type is ignored too (never read past it).
 */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include "nl.h"

#define MC_MOUNTINFO "/proc/self/mountinfo"

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || nla_len(a) < (int)sizeof(uint32_t))
		return -1;
	*v = nla_get_u32((struct nlattr *)a);
	return 0;
}

static int get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || nla_len(a) < (int)sizeof(uint64_t))
		return -1;
	memcpy(v, nla_data(a), sizeof(*v));
	return 0;
}

static int get_str(const struct nlattr *a, char *buf, size_t len)
{
	size_t n;

	if (!a || !len)
		return -1;
	n = (size_t)nla_len(a);
	if (n >= len)
		n = len - 1;
	memcpy(buf, nla_data(a), n);
	buf[n] = 0;		/* also ends an attribute without its NUL */
	return 0;
}

static int parse_nested(struct nlattr **tb, int max, struct nlattr *nest)
{
	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	if (!nest)
		return -1;
	return nla_parse_nested(tb, max, nest, NULL) ? -1 : 0;
}

int mc_tun_put(struct nl_msg *msg, int attr, const struct mc_tun *t)
{
	struct nlattr *nest = nla_nest_start(msg, attr);
	int a;

	if (!nest)
		return -EMSGSIZE;
	for (a = METACACHE_A_TUN_ENTRY_TTL; a <= METACACHE_A_TUN_MAX; a++) {
		if (!(t->present & (1U << a)))
			continue;
		if (a == METACACHE_A_TUN_DISABLED) {
			struct nla_bitfield32 bf = {
				.value = t->dis_value & t->dis_selector,
				.selector = t->dis_selector,
			};

			if (nla_put(msg, a, sizeof(bf), &bf))
				return -EMSGSIZE;
		} else if (nla_put_u32(msg, a, t->val[a])) {
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

int mc_tun_get(struct nlattr *nest, struct mc_tun *t)
{
	struct nlattr *tb[METACACHE_A_TUN_MAX + 1];
	int a;

	memset(t, 0, sizeof(*t));
	if (parse_nested(tb, METACACHE_A_TUN_MAX, nest))
		return -EBADMSG;
	for (a = METACACHE_A_TUN_ENTRY_TTL; a <= METACACHE_A_TUN_MAX; a++) {
		if (!tb[a])
			continue;
		if (a == METACACHE_A_TUN_DISABLED) {
			struct nla_bitfield32 bf;

			if (nla_len(tb[a]) < (int)sizeof(bf))
				continue;
			memcpy(&bf, nla_data(tb[a]), sizeof(bf));
			t->dis_value = bf.value;
			t->dis_selector = bf.selector;
		} else if (get_u32(tb[a], &t->val[a])) {
			continue;
		}
		t->present |= 1U << a;
	}
	return 0;
}

int mc_info_get(const struct mc_reply *r, struct mc_info *info)
{
	memset(info, 0, sizeof(*info));
	get_str(r->tb[METACACHE_A_VERSION], info->version, sizeof(info->version));
	get_u32(r->tb[METACACHE_A_PROTO_VERSION], &info->proto);
	get_u32(r->tb[METACACHE_A_HIST_NBUCKETS], &info->nbuckets);
	get_u32(r->tb[METACACHE_A_MOUNT_COUNT], &info->mount_count);
	if (r->tb[METACACHE_A_DEFAULTS])
		mc_tun_get(r->tb[METACACHE_A_DEFAULTS], &info->defaults);
	return 0;
}

int mc_mount_get(const struct mc_reply *r, struct mc_mount *m)
{
	struct nlattr *const *tb = r->tb;
	int a;

	memset(m, 0, sizeof(*m));
	for (a = 1; a <= METACACHE_A_MAX && a < 64; a++)
		if (tb[a])
			m->have |= 1ULL << a;
	if (get_u32(tb[METACACHE_A_MOUNT_ID], &m->id))
		return -EBADMSG;	/* a mount without its id is useless */
	get_u32(tb[METACACHE_A_DEV_MAJOR], &m->dev_major);
	get_u32(tb[METACACHE_A_DEV_MINOR], &m->dev_minor);
	get_str(tb[METACACHE_A_MOUNT_PATH], m->path, sizeof(m->path));
	if (!m->path[0] && tb[METACACHE_A_DEV_MAJOR] && tb[METACACHE_A_DEV_MINOR] &&
	    !mc_mountpoint_of_dev(MC_MOUNTINFO, m->dev_major, m->dev_minor,
				  m->path, sizeof(m->path)))
		m->have |= 1ULL << METACACHE_A_MOUNT_PATH;
	get_str(tb[METACACHE_A_LOWER_PATH], m->lower_path, sizeof(m->lower_path));
	get_str(tb[METACACHE_A_LOWER_SOURCE], m->lower_source,
		sizeof(m->lower_source));
	get_str(tb[METACACHE_A_LOWER_FSTYPE], m->lower_fstype,
		sizeof(m->lower_fstype));
	if (tb[METACACHE_A_TUNABLES])
		mc_tun_get(tb[METACACHE_A_TUNABLES], &m->tun);
	get_u64(tb[METACACHE_A_N_ENTRIES], &m->n_entries);
	get_u64(tb[METACACHE_A_N_NEG], &m->n_neg);
	get_u64(tb[METACACHE_A_N_HANDLES], &m->n_handles);
	get_u64(tb[METACACHE_A_MEM_BYTES], &m->mem_bytes);
	get_u32(tb[METACACHE_A_N_POLICIES], &m->n_policies);
	return 0;
}

int mc_policy_get(struct nlattr *nest, struct mc_policy *p)
{
	struct nlattr *tb[METACACHE_A_POLICY_MAX + 1];

	memset(p, 0, sizeof(*p));
	if (parse_nested(tb, METACACHE_A_POLICY_MAX, nest) ||
	    get_str(tb[METACACHE_A_POLICY_PATH], p->path, sizeof(p->path)))
		return -EBADMSG;
	get_u32(tb[METACACHE_A_POLICY_FLAGS], &p->flags);
	if (tb[METACACHE_A_POLICY_TUNABLES])
		mc_tun_get(tb[METACACHE_A_POLICY_TUNABLES], &p->tun);
	return 0;
}

int mc_hist_get(struct nlattr *nest, struct mc_hist *h)
{
	struct nlattr *tb[METACACHE_A_HIST_MAX + 1];
	struct nlattr *b;

	memset(h, 0, sizeof(*h));
	if (parse_nested(tb, METACACHE_A_HIST_MAX, nest))
		return -EBADMSG;
	h->present = 1;
	get_u64(tb[METACACHE_A_HIST_COUNT], &h->count);
	get_u64(tb[METACACHE_A_HIST_SUM_NS], &h->sum_ns);
	get_u64(tb[METACACHE_A_HIST_MAX_NS], &h->max_ns);
	b = tb[METACACHE_A_HIST_BUCKETS];
	if (b) {
		size_t n = (size_t)nla_len(b) / sizeof(uint64_t);

		if (n > METACACHE_HIST_NBUCKETS)
			n = METACACHE_HIST_NBUCKETS;
		memcpy(h->b, nla_data(b), n * sizeof(uint64_t));
	}
	return 0;
}

static void cache_get(struct nlattr *nest, struct mc_stats *s)
{
	struct nlattr *tb[METACACHE_A_CACHE_MAX + 1];
	struct mc_cache_stats *c;
	uint32_t id;

	if (parse_nested(tb, METACACHE_A_CACHE_MAX, nest) ||
	    get_u32(tb[METACACHE_A_CACHE_ID], &id) || id > METACACHE_CACHE_MAX)
		return;		/* a cache this tool does not know */
	c = &s->cache[id];
	memset(c, 0, sizeof(*c));
	c->present = 1;
	get_u64(tb[METACACHE_A_CACHE_HITS], &c->hits);
	get_u64(tb[METACACHE_A_CACHE_MISSES], &c->misses);
	get_u64(tb[METACACHE_A_CACHE_EXPIRED], &c->expired);
	get_u64(tb[METACACHE_A_CACHE_RENEWED], &c->renewed);
	get_u64(tb[METACACHE_A_CACHE_EVICTED], &c->evicted);
	get_u64(tb[METACACHE_A_CACHE_ENTRIES], &c->entries);
	get_u64(tb[METACACHE_A_CACHE_MEM_BYTES], &c->mem_bytes);
}

static void op_get(struct nlattr *nest, struct mc_stats *s)
{
	struct nlattr *tb[METACACHE_A_OP_MAX + 1];
	struct mc_op_stats *o;
	uint32_t id;

	if (parse_nested(tb, METACACHE_A_OP_MAX, nest) ||
	    get_u32(tb[METACACHE_A_OP_ID], &id) || id >= MC_MAX_OPS)
		return;
	o = &s->op[id];
	memset(o, 0, sizeof(*o));
	o->present = 1;
	get_u64(tb[METACACHE_A_OP_CALLS], &o->calls);
	get_u64(tb[METACACHE_A_OP_AVOIDED], &o->avoided);
	if (tb[METACACHE_A_OP_HIST_CACHE])
		mc_hist_get(tb[METACACHE_A_OP_HIST_CACHE], &o->cache);
	if (tb[METACACHE_A_OP_HIST_LOWER])
		mc_hist_get(tb[METACACHE_A_OP_HIST_LOWER], &o->lower);
}

int mc_stats_merge(const struct mc_reply *r, struct mc_stats *s)
{
	struct nlattr *a;
	int rem;

	if (get_u32(r->tb[METACACHE_A_MOUNT_ID], &s->id))
		return -EBADMSG;
	if (r->tb[METACACHE_A_MOUNT_PATH])
		get_str(r->tb[METACACHE_A_MOUNT_PATH], s->path, sizeof(s->path));
	if (!get_u32(r->tb[METACACHE_A_DEV_MAJOR], &s->dev_major) &&
	    !get_u32(r->tb[METACACHE_A_DEV_MINOR], &s->dev_minor) && !s->path[0])
		mc_mountpoint_of_dev(MC_MOUNTINFO, s->dev_major, s->dev_minor,
				     s->path, sizeof(s->path));
	get_u64(r->tb[METACACHE_A_STATS_AGE_NS], &s->age_ns);
	nla_for_each_attr(a, r->head, r->len, rem) {
		if (nla_type(a) == METACACHE_A_CACHE)
			cache_get(a, s);
		else if (nla_type(a) == METACACHE_A_OP)
			op_get(a, s);
	}
	return 0;
}
