// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the control plane: generic netlink family "metacache".
 *
 * The protocol (commands, attributes, permissions, errors) is specified in
 * Documentation/netlink/metacache.yaml and include/uapi/linux/metacache.h;
 * tools/metacachectl is its client.  Handlers are named
 * metacache_nl_<command>_{doit,start,dumpit}.
 *
 * Validation.  Every command has its own attribute policy (maxattr
 * METACACHE_A_MAX, strict: unknown, unsupported or malformed attributes are
 * refused by the netlink core with an extended ack naming them: -EINVAL, and
 * -ERANGE for an integer out of its range).  Refusals of a dump request by the
 * module go through mc_nl_dump_refuse().  Commands from
 * METACACHE_CMD_POLICY_ADD + 1 on have genetlink's own header checks
 * (resv_start_op); the older ones get the same checks from mc_nl_hdr_check(),
 * the difference being that POLICY_ADD accepts NLM_F_EXCL (and NLM_F_CREATE),
 * which genetlink refuses for "strict" commands.  Commands that change state
 * have GENL_ADMIN_PERM (CAP_NET_ADMIN, checked by genetlink) and need
 * CAP_SYS_ADMIN too (mc_nl_pre_doit()).  Reading commands are open to every
 * user.
 *
 * Locking.  The family is parallel_ops: handlers run concurrently and
 * under no genetlink lock (a flush of a big nfs tree must not hold up
 * every other generic netlink family).  A handler works on a mount only
 * while it pins it with an active reference on its super block
 * (mc_nl_pin_*(): found on mc_mounts under mc_mounts_lock, then
 * atomic_inc_not_zero(&sb->s_active); mc_nl_unpin() is deactivate_super()).
 * A mount being unmounted (s_active already 0) cannot be pinned, so it is
 * simply not there ("no such mount", ENOENT); a pinned mount that is
 * unmounted meanwhile lives until the handler unpins it (then its
 * teardown runs in the handler's context).  Unpinning is done with no
 * lock held.  Changes of a mount are serialised by its mc_ctl::lock, of
 * the defaults by mc_defaults_lock.  Dumps keep no reference between
 * their calls: they remember a mount id and look it up again.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/capability.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/limits.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/nsproxy.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "metacache.h"
#include "ctl.h"
#include "gen.h"

/* Attribute policies */

/* Not const: 6.1's struct nla_policy points to them without const. */
static struct netlink_range_validation mc_ttl_range __ro_after_init = {
	.min = 0,
	.max = METACACHE_TTL_MAX,
};

static struct netlink_range_validation mc_limit_range __ro_after_init = {
	.min = 0,
	.max = METACACHE_LIMIT_MAX,
};

#define MC_NL_TTL	NLA_POLICY_FULL_RANGE(NLA_U32, &mc_ttl_range)
#define MC_NL_LIMIT	NLA_POLICY_FULL_RANGE(NLA_U32, &mc_limit_range)
#define MC_NL_PATH	{ .type = NLA_NUL_STRING, .len = METACACHE_PATH_MAX - 1 }

static const struct nla_policy mc_tun_policy[METACACHE_A_TUN_MAX + 1] = {
	[METACACHE_A_TUN_ENTRY_TTL]	= MC_NL_TTL,
	[METACACHE_A_TUN_NEG_TTL]	= MC_NL_TTL,
	[METACACHE_A_TUN_ATTR_TTL]	= MC_NL_TTL,
	[METACACHE_A_TUN_DIR_TTL]	= MC_NL_TTL,
	[METACACHE_A_TUN_CLOSE_TTL]	= MC_NL_TTL,
	[METACACHE_A_TUN_MAX_ENTRIES]	= MC_NL_LIMIT,
	[METACACHE_A_TUN_MAX_NEG]	= MC_NL_LIMIT,
	[METACACHE_A_TUN_MAX_HANDLES]	= MC_NL_LIMIT,
	[METACACHE_A_TUN_DISABLED]	=
		NLA_POLICY_BITFIELD32(METACACHE_CACHE_F_ALL),
};

static const struct nla_policy mc_rule_policy[METACACHE_A_POLICY_MAX + 1] = {
	[METACACHE_A_POLICY_PATH]	= MC_NL_PATH,
	[METACACHE_A_POLICY_FLAGS]	=
		NLA_POLICY_MASK(NLA_U32, METACACHE_POLICY_F_ALL),
	[METACACHE_A_POLICY_TUNABLES]	= NLA_POLICY_NESTED(mc_tun_policy),
};

/* A mount selector: METACACHE_A_MOUNT_ID or METACACHE_A_MOUNT_PATH. */
#define MC_NL_MOUNT_SELECTOR						\
	[METACACHE_A_MOUNT_ID]		= NLA_POLICY_MIN(NLA_U32, 1),	\
	[METACACHE_A_MOUNT_PATH]	= MC_NL_PATH

/* GET_INFO, DEFAULTS_GET: no attribute at all. */
static const struct nla_policy mc_nl_none_policy[METACACHE_A_MAX + 1] = {
};

/* MOUNT_GET, POLICY_GET, STATS_GET, STATS_RESET */
static const struct nla_policy mc_nl_mount_policy[METACACHE_A_MAX + 1] = {
	MC_NL_MOUNT_SELECTOR,
};

static const struct nla_policy mc_nl_mount_set_policy[METACACHE_A_MAX + 1] = {
	MC_NL_MOUNT_SELECTOR,
	[METACACHE_A_TUNABLES]		= NLA_POLICY_NESTED(mc_tun_policy),
};

static const struct nla_policy mc_nl_defaults_set_policy[METACACHE_A_MAX + 1] = {
	[METACACHE_A_TUNABLES]		= NLA_POLICY_NESTED(mc_tun_policy),
};

/* POLICY_ADD, POLICY_DEL */
static const struct nla_policy mc_nl_rule_policy[METACACHE_A_MAX + 1] = {
	MC_NL_MOUNT_SELECTOR,
	[METACACHE_A_POLICY]		= NLA_POLICY_NESTED(mc_rule_policy),
};

static const struct nla_policy mc_nl_flush_policy[METACACHE_A_MAX + 1] = {
	MC_NL_MOUNT_SELECTOR,
	[METACACHE_A_PATH]		= MC_NL_PATH,
	[METACACHE_A_FLUSH_FLAGS]	=
		NLA_POLICY_MASK(NLA_U32, METACACHE_FLUSH_F_ALL),
};

/* Reply sizes: a mount message has up to three paths. */
#define MC_NL_MOUNT_SIZE	(3 * nla_total_size(METACACHE_PATH_MAX) + 512)
#define MC_NL_RULE_SIZE		(nla_total_size(METACACHE_PATH_MAX) + 512)

/* Request checks */

/* NL_SET_ERR_MSG_ATTR() for a message that is not a literal (@msg static). */
static void mc_nl_err_attr(struct netlink_ext_ack *extack,
			   const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	NL_SET_BAD_ATTR(extack, attr);
}

/*
 * What genetlink checks for commands from resv_start_op on, for every
 * command: the reserved header field is 0 and the only netlink flags are
 * REQUEST, ACK, ECHO and DUMP, plus EXCL and CREATE for POLICY_ADD.
 */
static int mc_nl_hdr_check(const struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	const struct genlmsghdr *hdr = nlmsg_data(nlh);
	u16 flags = nlh->nlmsg_flags;
	u16 allowed = NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO;

	if (hdr->reserved) {
		NL_SET_ERR_MSG(extack, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	else if (hdr->cmd == METACACHE_CMD_POLICY_ADD)
		allowed |= NLM_F_EXCL | NLM_F_CREATE;
	if (flags & ~allowed) {
		NL_SET_ERR_MSG(extack,
			       "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
	return 0;
}

static int mc_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
			  struct genl_info *info)
{
	int err;

	err = mc_nl_hdr_check(info->nlhdr, info->extack);
	if (err)
		return err;
	/* genetlink checked CAP_NET_ADMIN for GENL_ADMIN_PERM */
	if ((ops->flags & GENL_ADMIN_PERM) &&
	    !netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack,
			       "changing metacache needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	return 0;
}

/**
 * mc_nl_may_see_paths() - may the sender learn where lowers are?
 * @skb: the request
 *
 * The read commands are open to every user, as /proc/self/mountinfo is;
 * but that file shows a process only the mounts of its own mount
 * namespace, and a module cannot tell in which namespaces its super block
 * is mounted.  A sender outside the initial mount namespace (a container,
 * a sandbox) without CAP_SYS_ADMIN gets the counters, but not the host's
 * paths and server names: the lower's path and source, a job's target.
 *
 * Context: the sender's (a doit, or a dump's recvmsg()).
 */
bool mc_nl_may_see_paths(const struct sk_buff *skb)
{
	const struct nsproxy *ns = current->nsproxy;

	return (ns && ns->mnt_ns == init_task.nsproxy->mnt_ns) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

/*
 * Refusals of a dump request.  6.1 gives a dump's .start callback no
 * extended ack (cb->extack is NULL there), so .start checks the request
 * (in the requester's context: paths resolve as for the caller) against a
 * local one, keeps the error and its message in the callback, and the
 * first dumpit call returns them: they reach the caller in NLMSG_DONE
 * (error and message; the attribute offset is lost on the way).
 */
#define MC_NL_DUMP_ERR	4	/* cb->args[]: the refusal, -errno */
#define MC_NL_DUMP_MSG	5	/* cb->args[]: its message (static) */

static void mc_nl_dump_refuse(struct netlink_callback *cb, int err,
			      const struct netlink_ext_ack *ext)
{
	cb->args[MC_NL_DUMP_ERR] = err;
	cb->args[MC_NL_DUMP_MSG] = (unsigned long)ext->_msg;
}

/* In a dumpit callback: the refusal found by .start, or 0. */
static int mc_nl_dump_refused(struct netlink_callback *cb)
{
	long err = cb->args[MC_NL_DUMP_ERR];

	if (!err)
		return 0;
	if (cb->extack)
		cb->extack->_msg = (const char *)cb->args[MC_NL_DUMP_MSG];
	return err;
}

/* Mounts */

/* Pin a mount found on mc_mounts; false if it is being torn down. */
static bool mc_nl_pin(struct mc_sb_info *sbi)
{
	lockdep_assert_held(&mc_mounts_lock);
	return atomic_inc_not_zero(&sbi->sb->s_active);
}

/* Release a pinned mount.  No lock may be held (it may be torn down). */
static void mc_nl_unpin(struct mc_sb_info *sbi)
{
	deactivate_super(sbi->sb);
}

/* The live mount with id @id, pinned, or NULL. */
static struct mc_sb_info *mc_nl_pin_id(u32 id)
{
	struct mc_sb_info *sbi, *found = NULL;

	mutex_lock(&mc_mounts_lock);
	list_for_each_entry(sbi, &mc_mounts, list) {
		if (sbi->id == id) {
			if (mc_nl_pin(sbi))
				found = sbi;
			break;
		}
	}
	mutex_unlock(&mc_mounts_lock);
	return found;
}

/* The live mount with the smallest id above @after, pinned, or NULL. */
static struct mc_sb_info *mc_nl_pin_next(u32 after)
{
	struct mc_sb_info *sbi, *found;

	mutex_lock(&mc_mounts_lock);
	for (;;) {
		found = NULL;
		list_for_each_entry(sbi, &mc_mounts, list)
			if (sbi->id > after && (!found || sbi->id < found->id))
				found = sbi;
		if (!found || mc_nl_pin(found))
			break;
		after = found->id;	/* being unmounted: skip it */
	}
	mutex_unlock(&mc_mounts_lock);
	return found;
}

static u32 mc_nl_mount_count(void)
{
	struct mc_sb_info *sbi;
	u32 n = 0;

	mutex_lock(&mc_mounts_lock);
	list_for_each_entry(sbi, &mc_mounts, list)
		n++;
	mutex_unlock(&mc_mounts_lock);
	return n;
}

/*
 * The mount a path is on, pinned.  The path is resolved like the caller's
 * own system calls would (its root, working directory, mount namespace
 * and credentials), following symlinks; any path on a metacache file
 * system names its mount.
 */
static int mc_nl_pin_path(const char *name, struct mc_sb_info **sbip)
{
	struct super_block *sb;
	struct path path;
	int err;

	err = kern_path(name, LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	sb = path.dentry->d_sb;
	err = -ENODEV;
	/* the path holds a mount, so s_active is not 0 */
	if (sb->s_type == &mc_fs_type && atomic_inc_not_zero(&sb->s_active)) {
		*sbip = MC_SB(sb);
		err = 0;
	}
	path_put(&path);
	return err;
}

/*
 * Resolve and pin the mount named by the selector of a request.  Without
 * a selector: -EINVAL if @required, else 0 with *@sbip NULL.
 */
static int mc_nl_select(struct nlattr **attrs, struct netlink_ext_ack *extack,
			bool required, struct mc_sb_info **sbip)
{
	struct nlattr *id = attrs[METACACHE_A_MOUNT_ID];
	struct nlattr *path = attrs[METACACHE_A_MOUNT_PATH];
	int err;

	*sbip = NULL;
	if (id && path) {
		NL_SET_ERR_MSG_ATTR(extack, path,
				    "give the mount by id or by path, not both");
		return -EINVAL;
	}
	if (!id && !path) {
		if (!required)
			return 0;
		NL_SET_ERR_MSG(extack, "a mount id or mount path is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, METACACHE_A_MOUNT_ID);
		return -EINVAL;
	}
	if (id) {
		*sbip = mc_nl_pin_id(nla_get_u32(id));
		if (!*sbip) {
			NL_SET_ERR_MSG_ATTR(extack, id,
					    "no metacache mount with this id");
			return -ENOENT;
		}
		return 0;
	}
	err = mc_nl_pin_path(nla_data(path), sbip);
	if (err == -ENODEV) {
		NL_SET_ERR_MSG_ATTR(extack, path,
				    "path is not on a metacache mount");
		return -ENOENT;
	}
	if (err)
		NL_SET_ERR_MSG_ATTR(extack, path, "cannot resolve the mount path");
	return err;
}

/*
 * The cached dentry of a normalized mount-relative path, referenced, or
 * NULL when some component is not in the dcache (nothing is looked up on
 * the lower file system).  May be negative.
 */
static struct dentry *mc_nl_dcache_find(struct super_block *sb,
					const char *path)
{
	struct dentry *d = dget(sb->s_root);
	const char *p = path;

	while (*p == '/' && p[1]) {
		const char *end = strchrnul(++p, '/');
		struct qstr name = QSTR_INIT(p, end - p);
		struct dentry *next;

		next = d_hash_and_lookup(d, &name);
		dput(d);
		if (IS_ERR_OR_NULL(next))
			return NULL;
		d = next;
		p = end;
	}
	return d;
}

/* Replies */

static int mc_nl_put_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

/*
 * A nest of tunables: those in @set (BIT(METACACHE_A_TUN_*)); DISABLED
 * with selector @dis_mask.
 */
static int mc_nl_put_tun(struct sk_buff *skb, int type,
			 const struct mc_tunables *tun, u32 set, u32 dis_mask)
{
	struct nlattr *nest;
	int attr;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (attr = METACACHE_A_TUN_ENTRY_TTL;
	     attr <= METACACHE_A_TUN_MAX_HANDLES; attr++)
		if ((set & BIT(attr)) &&
		    nla_put_u32(skb, attr, mc_tun_value(tun, attr)))
			goto cancel;
	if ((set & BIT(METACACHE_A_TUN_DISABLED)) &&
	    nla_put_bitfield32(skb, METACACHE_A_TUN_DISABLED,
			       tun->disabled & dis_mask, dis_mask))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

#define MC_TUN_ALL	GENMASK(METACACHE_A_TUN_MAX, METACACHE_A_TUN_ENTRY_TTL)

static int mc_nl_put_all_tun(struct sk_buff *skb, int type,
			     const struct mc_tunables *tun)
{
	return mc_nl_put_tun(skb, type, tun, MC_TUN_ALL, METACACHE_CACHE_F_ALL);
}

/*
 * Apply a (validated) nest of tunables to @tun: values are set, DISABLED
 * sets the bits of its selector.  @set and @dis_mask collect what was
 * given.  -EINVAL if the nest gives nothing.
 */
static int mc_nl_parse_tun(const struct nlattr *nest, struct mc_tunables *tun,
			   u32 *set, u32 *dis_mask,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[METACACHE_A_TUN_MAX + 1];
	int attr, err;

	err = nla_parse_nested(tb, METACACHE_A_TUN_MAX, nest, mc_tun_policy,
			       extack);
	if (err)
		return err;
	for (attr = METACACHE_A_TUN_ENTRY_TTL;
	     attr <= METACACHE_A_TUN_MAX_HANDLES; attr++) {
		if (!tb[attr])
			continue;
		mc_tun_set_value(tun, attr, nla_get_u32(tb[attr]));
		*set |= BIT(attr);
	}
	if (tb[METACACHE_A_TUN_DISABLED]) {
		struct nla_bitfield32 bf;

		bf = nla_get_bitfield32(tb[METACACHE_A_TUN_DISABLED]);
		tun->disabled = (tun->disabled & ~bf.selector) |
				(bf.value & bf.selector);
		*dis_mask |= bf.selector;
		if (bf.selector)
			*set |= BIT(METACACHE_A_TUN_DISABLED);
	}
	if (!*set) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no tunable given");
		return -EINVAL;
	}
	return 0;
}

/*
 * Where the lower directory's file system comes from, as /proc/mounts
 * shows it ("server:/export", "//server/share"): the file system's
 * show_devname on a seq_file over @buf (nfs, cifs, ... only write to its
 * buffer), else the super block's s_id.
 */
static void mc_nl_lower_source(struct mc_sb_info *sbi, char *buf, size_t size)
{
	struct vfsmount *mnt = sbi->lower_path.mnt;
	struct super_block *lsb = mnt->mnt_sb;
	struct seq_file m = { .buf = buf, .size = size - 1 };

	if (lsb->s_op->show_devname &&
	    !lsb->s_op->show_devname(&m, mnt->mnt_root) &&
	    m.count && !seq_has_overflowed(&m)) {
		buf[m.count] = '\0';
		return;
	}
	strscpy(buf, lsb->s_id, size);
}

/*
 * One MOUNT_GET message.  @buf: METACACHE_PATH_MAX bytes of scratch.
 * @paths: with the lower's path and source (mc_nl_may_see_paths()).
 */
static int mc_nl_fill_mount(struct sk_buff *skb, struct mc_sb_info *sbi,
			    u32 portid, u32 seq, int flags, char *buf,
			    bool paths)
{
	struct mc_cache_counters c;
	struct mc_tunables tun;
	u64 mem = 0;
	void *hdr;
	char *p;
	int i;

	hdr = genlmsg_put(skb, portid, seq, &mc_genl_family, flags,
			  METACACHE_CMD_MOUNT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, METACACHE_A_MOUNT_ID, sbi->id) ||
	    nla_put_u32(skb, METACACHE_A_DEV_MAJOR, MAJOR(sbi->sb->s_dev)) ||
	    nla_put_u32(skb, METACACHE_A_DEV_MINOR, MINOR(sbi->sb->s_dev)))
		goto cancel;
	p = paths ? d_path(&sbi->lower_path, buf, METACACHE_PATH_MAX) : NULL;
	if (!IS_ERR_OR_NULL(p) &&
	    nla_put_string(skb, METACACHE_A_LOWER_PATH, p))
		goto cancel;
	if (paths) {
		mc_nl_lower_source(sbi, buf, METACACHE_PATH_MAX);
		if (nla_put_string(skb, METACACHE_A_LOWER_SOURCE, buf))
			goto cancel;
	}
	if (nla_put_string(skb, METACACHE_A_LOWER_FSTYPE,
			   sbi->lower_path.mnt->mnt_sb->s_type->name))
		goto cancel;
	mc_tunables_load(sbi, &tun);
	if (mc_nl_put_all_tun(skb, METACACHE_A_TUNABLES, &tun))
		goto cancel;
	for (i = 0; i < __METACACHE_CACHE_MAX; i++) {
		mc_cache_stats_get(sbi, i, &c);
		mem += c.mem_bytes;
		if (i == METACACHE_CACHE_ENTRY &&
		    mc_nl_put_u64(skb, METACACHE_A_N_ENTRIES, c.entries,
				  METACACHE_A_PAD))
			goto cancel;
		if (i == METACACHE_CACHE_NEG &&
		    mc_nl_put_u64(skb, METACACHE_A_N_NEG, c.entries,
				  METACACHE_A_PAD))
			goto cancel;
		if (i == METACACHE_CACHE_HANDLE &&
		    mc_nl_put_u64(skb, METACACHE_A_N_HANDLES, c.entries,
				  METACACHE_A_PAD))
			goto cancel;
	}
	if (mc_nl_put_u64(skb, METACACHE_A_MEM_BYTES, mem, METACACHE_A_PAD) ||
	    nla_put_u32(skb, METACACHE_A_N_POLICIES,
			READ_ONCE(sbi->ctl->nr_rules)))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* GET_INFO */

static int metacache_nl_get_info_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct mc_tunables tun;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mc_genl_family, 0,
				METACACHE_CMD_GET_INFO);
	if (!hdr)
		goto nospace;
	mc_defaults_load(&tun);
	if (nla_put_string(msg, METACACHE_A_VERSION, METACACHE_VERSION) ||
	    nla_put_u32(msg, METACACHE_A_PROTO_VERSION,
			METACACHE_GENL_VERSION) ||
	    nla_put_u32(msg, METACACHE_A_HIST_NBUCKETS,
			METACACHE_HIST_NBUCKETS) ||
	    nla_put_u32(msg, METACACHE_A_MOUNT_COUNT, mc_nl_mount_count()) ||
	    mc_nl_put_all_tun(msg, METACACHE_A_DEFAULTS, &tun))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* MOUNT_GET */

static int metacache_nl_mount_get_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	struct mc_sb_info *sbi;
	struct sk_buff *msg;
	char *buf;
	int err;

	err = mc_nl_select(info->attrs, info->extack, true, &sbi);
	if (err)
		return err;
	err = -ENOMEM;
	buf = kmalloc(METACACHE_PATH_MAX, GFP_KERNEL);
	msg = genlmsg_new(MC_NL_MOUNT_SIZE, GFP_KERNEL);
	if (buf && msg)
		err = mc_nl_fill_mount(msg, sbi, info->snd_portid,
				       info->snd_seq, 0, buf,
				       mc_nl_may_see_paths(skb));
	mc_nl_unpin(sbi);
	kfree(buf);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int metacache_nl_mount_get_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *sel = info->attrs[METACACHE_A_MOUNT_ID] ?:
			     info->attrs[METACACHE_A_MOUNT_PATH];
	struct netlink_ext_ack ext = {};
	int err;

	cb->min_dump_alloc = MC_NL_MOUNT_SIZE;
	cb->args[0] = 0;	/* the last mount id dumped */
	err = mc_nl_hdr_check(cb->nlh, &ext);
	if (!err && sel) {
		NL_SET_ERR_MSG_ATTR(&ext, sel,
				    "a dump lists every mount: give no mount");
		err = -EINVAL;
	}
	if (err)
		mc_nl_dump_refuse(cb, err, &ext);
	return 0;
}

static int metacache_nl_mount_get_dumpit(struct sk_buff *skb,
					 struct netlink_callback *cb)
{
	struct mc_sb_info *sbi;
	u32 last = cb->args[0];
	bool paths;
	int err;
	char *buf;

	err = mc_nl_dump_refused(cb);
	if (err)
		return err;
	buf = kmalloc(METACACHE_PATH_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	paths = mc_nl_may_see_paths(cb->skb);
	while ((sbi = mc_nl_pin_next(last))) {
		u32 id = sbi->id;

		err = mc_nl_fill_mount(skb, sbi, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI, buf,
				       paths);
		mc_nl_unpin(sbi);
		if (err)
			break;
		last = id;
	}
	kfree(buf);
	cb->args[0] = last;
	/* a message that does not fit in an empty skb never will */
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* MOUNT_SET */

static int metacache_nl_mount_set_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	struct mc_sb_info *sbi;
	struct mc_tunables tun;
	u32 set = 0, dis_mask = 0;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, METACACHE_A_TUNABLES)) {
		NL_SET_ERR_MSG(info->extack, "tunables are required");
		return -EINVAL;
	}
	err = mc_nl_select(info->attrs, info->extack, true, &sbi);
	if (err)
		return err;
	/* load-modify-store of the whole block, all or nothing */
	mutex_lock(&sbi->ctl->lock);
	mc_tunables_load(sbi, &tun);
	err = mc_nl_parse_tun(info->attrs[METACACHE_A_TUNABLES], &tun, &set,
			      &dis_mask, info->extack);
	if (!err)
		mc_tunables_store(sbi, &tun);
	mutex_unlock(&sbi->ctl->lock);
	/*
	 * A cache switched off here is not used from the next operation on
	 * (its entries are judged against the ttl in force when used);
	 * lowered limits and ttls are applied at once, as by a remount, and
	 * the kept handles are closed (mc_handles_retune()).
	 */
	if (!err)
		mc_cache_apply_limits(sbi);
	mc_nl_unpin(sbi);
	return err;
}

/* DEFAULTS_GET, DEFAULTS_SET */

static int metacache_nl_defaults_get_doit(struct sk_buff *skb,
					  struct genl_info *info)
{
	struct mc_tunables tun;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mc_genl_family, 0,
				METACACHE_CMD_DEFAULTS_GET);
	if (!hdr)
		goto nospace;
	mc_defaults_load(&tun);
	if (mc_nl_put_all_tun(msg, METACACHE_A_TUNABLES, &tun))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int metacache_nl_defaults_set_doit(struct sk_buff *skb,
					  struct genl_info *info)
{
	struct mc_tunables tun;
	u32 set = 0, dis_mask = 0;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, METACACHE_A_TUNABLES)) {
		NL_SET_ERR_MSG(info->extack, "tunables are required");
		return -EINVAL;
	}
	mutex_lock(&mc_defaults_lock);
	mc_defaults_load_locked(&tun);
	err = mc_nl_parse_tun(info->attrs[METACACHE_A_TUNABLES], &tun, &set,
			      &dis_mask, info->extack);
	if (!err)
		mc_defaults_store(&tun);
	mutex_unlock(&mc_defaults_lock);
	return err;
}

/* POLICY_ADD, POLICY_DEL, POLICY_GET */

/*
 * Parse the POLICY nest of a request and normalize its path into @path
 * (METACACHE_PATH_MAX bytes).  @tb gets the nest's attributes.
 */
static int mc_nl_parse_rule(struct genl_info *info,
			    struct nlattr *tb[METACACHE_A_POLICY_MAX + 1],
			    char *path, u16 *depth)
{
	struct nlattr *nest = info->attrs[METACACHE_A_POLICY];
	const char *why = "bad path";
	int err;

	if (GENL_REQ_ATTR_CHECK(info, METACACHE_A_POLICY)) {
		NL_SET_ERR_MSG(info->extack, "a policy rule is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, METACACHE_A_POLICY_MAX, nest,
			       mc_rule_policy, info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb,
			      METACACHE_A_POLICY_PATH)) {
		NL_SET_ERR_MSG(info->extack, "the policy path is required");
		return -EINVAL;
	}
	err = mc_path_normalize(nla_data(tb[METACACHE_A_POLICY_PATH]), path,
				METACACHE_PATH_MAX, depth, &why);
	if (err)
		mc_nl_err_attr(info->extack, tb[METACACHE_A_POLICY_PATH], why);
	return err;
}

static int metacache_nl_policy_add_doit(struct sk_buff *skb,
					struct genl_info *info)
{
	struct nlattr *tb[METACACHE_A_POLICY_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	struct mc_rule *rule = NULL;
	struct mc_sb_info *sbi;
	struct dentry *dir;
	char *path;
	u16 depth;
	int err;

	path = kmalloc(METACACHE_PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	err = mc_nl_parse_rule(info, tb, path, &depth);
	if (err)
		goto out_free;
	err = -ENOMEM;
	rule = mc_rule_alloc(path, depth);
	if (!rule)
		goto out_free;
	if (tb[METACACHE_A_POLICY_FLAGS])
		rule->flags = nla_get_u32(tb[METACACHE_A_POLICY_FLAGS]);
	if (tb[METACACHE_A_POLICY_TUNABLES]) {
		err = -EINVAL;
		if (rule->flags & METACACHE_POLICY_F_BYPASS) {
			NL_SET_ERR_MSG_ATTR(extack,
					    tb[METACACHE_A_POLICY_TUNABLES],
					    "a bypass rule caches nothing: it takes no tunables");
			goto out_free;
		}
		err = mc_nl_parse_tun(tb[METACACHE_A_POLICY_TUNABLES],
				      &rule->tun, &rule->set, &rule->dis_mask,
				      extack);
		if (err)
			goto out_free;
	}
	if (!rule->flags && !rule->set) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[METACACHE_A_POLICY],
				    "a rule needs bypass or tunables");
		err = -EINVAL;
		goto out_free;
	}
	err = mc_nl_select(info->attrs, extack, true, &sbi);
	if (err)
		goto out_free;
	err = mc_policy_add(sbi, rule,
			    info->nlhdr->nlmsg_flags & NLM_F_EXCL);
	if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_POLICY_PATH],
				    "a rule exists on this path");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[METACACHE_A_POLICY],
				    "too many policy rules on this mount");
	if (!err) {
		rule = NULL;	/* the mount's now */
		/* drop what was cached under the directory */
		dir = mc_nl_dcache_find(sbi->sb, path);
		if (dir) {
			mc_cache_flush(sbi, dir);
			dput(dir);
		}
	}
	mc_nl_unpin(sbi);
out_free:
	kfree(rule);
	kfree(path);
	return err;
}

static int metacache_nl_policy_del_doit(struct sk_buff *skb,
					struct genl_info *info)
{
	struct nlattr *tb[METACACHE_A_POLICY_MAX + 1];
	struct mc_sb_info *sbi;
	struct nlattr *extra;
	char *path;
	u16 depth;
	int err;

	path = kmalloc(METACACHE_PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	err = mc_nl_parse_rule(info, tb, path, &depth);
	if (err)
		goto out;
	extra = tb[METACACHE_A_POLICY_FLAGS] ?: tb[METACACHE_A_POLICY_TUNABLES];
	if (extra) {
		NL_SET_ERR_MSG_ATTR(info->extack, extra,
				    "deleting a rule takes only its path");
		err = -EINVAL;
		goto out;
	}
	err = mc_nl_select(info->attrs, info->extack, true, &sbi);
	if (err)
		goto out;
	err = mc_policy_del(sbi, path);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[METACACHE_A_POLICY_PATH],
				    "no rule on this path");
	mc_nl_unpin(sbi);
out:
	kfree(path);
	return err;
}

static int metacache_nl_policy_get_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct netlink_ext_ack ext = {};
	struct mc_sb_info *sbi;
	int err;

	cb->min_dump_alloc = MC_NL_RULE_SIZE;
	err = mc_nl_hdr_check(cb->nlh, &ext);
	if (!err)
		err = mc_nl_select(info->attrs, &ext, true, &sbi);
	if (err) {
		mc_nl_dump_refuse(cb, err, &ext);
		return 0;
	}
	cb->args[0] = sbi->id;
	cb->args[1] = 0;	/* rules dumped */
	mc_nl_unpin(sbi);
	return 0;
}

static int mc_nl_fill_rule(struct sk_buff *skb, struct netlink_callback *cb,
			   struct mc_sb_info *sbi, const struct mc_rule *rule)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &mc_genl_family, NLM_F_MULTI,
			  METACACHE_CMD_POLICY_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, METACACHE_A_MOUNT_ID, sbi->id))
		goto cancel;
	nest = nla_nest_start(skb, METACACHE_A_POLICY);
	if (!nest ||
	    nla_put_string(skb, METACACHE_A_POLICY_PATH, rule->path) ||
	    nla_put_u32(skb, METACACHE_A_POLICY_FLAGS, rule->flags) ||
	    (rule->set && mc_nl_put_tun(skb, METACACHE_A_POLICY_TUNABLES,
					&rule->tun, rule->set,
					rule->dis_mask)))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int metacache_nl_policy_get_dumpit(struct sk_buff *skb,
					  struct netlink_callback *cb)
{
	const struct mc_rule *rule;
	struct mc_sb_info *sbi;
	unsigned long i = 0;
	int err;

	err = mc_nl_dump_refused(cb);
	if (err)
		return err;
	sbi = mc_nl_pin_id(cb->args[0]);
	if (!sbi) {
		NL_SET_ERR_MSG(cb->extack, "the mount is gone");
		return -ENOENT;
	}
	mutex_lock(&sbi->ctl->lock);
	cb->seq = sbi->ctl->rules_gen + 1;
	list_for_each_entry(rule, &sbi->ctl->rules, node) {
		if (i++ < cb->args[1])
			continue;
		err = mc_nl_fill_rule(skb, cb, sbi, rule);
		if (err)
			break;
		cb->args[1]++;
	}
	mutex_unlock(&sbi->ctl->lock);
	mc_nl_unpin(sbi);
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* STATS_GET, STATS_RESET */

/* Scratch of a STATS_GET dump call. */
struct mc_nl_stats {
	struct mc_op_stats calls;
	struct mc_hist_sum hist[MC_HIST_NR];
};

static int mc_nl_put_hist(struct sk_buff *skb, int type,
			  const struct mc_hist_sum *h)
{
	struct nlattr *nest;
	int n = METACACHE_HIST_NBUCKETS;

	if (!h->count)
		return 0;	/* may be left out */
	while (n > 0 && !h->bucket[n - 1])
		n--;
	nest = nla_nest_start(skb, type);
	if (!nest ||
	    mc_nl_put_u64(skb, METACACHE_A_HIST_COUNT, h->count,
			  METACACHE_A_HIST_PAD) ||
	    mc_nl_put_u64(skb, METACACHE_A_HIST_SUM_NS, h->sum_ns,
			  METACACHE_A_HIST_PAD) ||
	    mc_nl_put_u64(skb, METACACHE_A_HIST_MAX_NS, h->max_ns,
			  METACACHE_A_HIST_PAD) ||
	    nla_put(skb, METACACHE_A_HIST_BUCKETS, n * sizeof(u64), h->bucket))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* The first STATS_GET message of a mount: age and cache counters. */
static int mc_nl_fill_stats_head(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct mc_sb_info *sbi)
{
	struct mc_cache_counters c;
	struct nlattr *nest;
	void *hdr;
	int i;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &mc_genl_family, NLM_F_MULTI,
			  METACACHE_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, METACACHE_A_MOUNT_ID, sbi->id) ||
	    nla_put_u32(skb, METACACHE_A_DEV_MAJOR, MAJOR(sbi->sb->s_dev)) ||
	    nla_put_u32(skb, METACACHE_A_DEV_MINOR, MINOR(sbi->sb->s_dev)) ||
	    mc_nl_put_u64(skb, METACACHE_A_STATS_AGE_NS, mc_stats_age_ns(sbi),
			  METACACHE_A_PAD))
		goto cancel;
	for (i = 0; i < __METACACHE_CACHE_MAX; i++) {
		mc_stats_cache_read(sbi, i, &c);
		nest = nla_nest_start(skb, METACACHE_A_CACHE);
		if (!nest ||
		    nla_put_u32(skb, METACACHE_A_CACHE_ID, i) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_HITS, c.hits,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_MISSES, c.misses,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_EXPIRED, c.expired,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_RENEWED, c.renewed,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_EVICTED, c.evicted,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_ENTRIES, c.entries,
				  METACACHE_A_CACHE_PAD) ||
		    mc_nl_put_u64(skb, METACACHE_A_CACHE_MEM_BYTES, c.mem_bytes,
				  METACACHE_A_CACHE_PAD))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* One STATS_GET message per operation type. */
static int mc_nl_fill_stats_op(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       struct mc_sb_info *sbi, enum mc_op op,
			       struct mc_nl_stats *st)
{
	struct nlattr *nest;
	void *hdr;

	mc_stats_op_read(sbi, op, &st->calls, &st->hist[MC_HIST_CACHE],
			 &st->hist[MC_HIST_LOWER]);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &mc_genl_family, NLM_F_MULTI,
			  METACACHE_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, METACACHE_A_MOUNT_ID, sbi->id))
		goto cancel;
	nest = nla_nest_start(skb, METACACHE_A_OP);
	if (!nest ||
	    nla_put_u32(skb, METACACHE_A_OP_ID, op) ||
	    mc_nl_put_u64(skb, METACACHE_A_OP_CALLS, st->calls.calls,
			  METACACHE_A_OP_PAD) ||
	    mc_nl_put_u64(skb, METACACHE_A_OP_AVOIDED, st->calls.avoided,
			  METACACHE_A_OP_PAD) ||
	    mc_nl_put_hist(skb, METACACHE_A_OP_HIST_CACHE,
			   &st->hist[MC_HIST_CACHE]) ||
	    mc_nl_put_hist(skb, METACACHE_A_OP_HIST_LOWER,
			   &st->hist[MC_HIST_LOWER]))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * STATS_GET dump state: args[0] the mount being dumped (0: none yet),
 * args[1] its next message (0 the head, 1 + op an operation, above
 * MC_OP_NR done), args[2] non-zero when only that mount was asked for.
 */
static int metacache_nl_stats_get_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct netlink_ext_ack ext = {};
	struct mc_sb_info *sbi;
	int err;

	err = mc_nl_hdr_check(cb->nlh, &ext);
	if (!err)
		err = mc_nl_select(info->attrs, &ext, false, &sbi);
	if (err) {
		mc_nl_dump_refuse(cb, err, &ext);
		return 0;
	}
	cb->args[0] = 0;
	cb->args[1] = 0;
	cb->args[2] = 0;
	if (sbi) {
		cb->args[0] = sbi->id;
		cb->args[2] = 1;
		mc_nl_unpin(sbi);
	}
	return 0;
}

static int metacache_nl_stats_get_dumpit(struct sk_buff *skb,
					 struct netlink_callback *cb)
{
	struct mc_nl_stats *st;
	struct mc_sb_info *sbi;
	int err;

	err = mc_nl_dump_refused(cb);
	if (err)
		return err;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	for (;;) {
		if (!cb->args[0] || cb->args[1] > MC_OP_NR) {
			if (cb->args[2] && cb->args[0])
				break;		/* the one mount is done */
			sbi = mc_nl_pin_next(cb->args[0]);
			if (!sbi)
				break;		/* every mount is done */
			cb->args[0] = sbi->id;
			cb->args[1] = 0;
		} else {
			sbi = mc_nl_pin_id(cb->args[0]);
			if (!sbi) {
				/* unmounted meanwhile: on to the next one */
				cb->args[1] = MC_OP_NR + 1;
				continue;
			}
		}
		mutex_lock(&sbi->ctl->lock);
		while (cb->args[1] <= MC_OP_NR) {
			if (!cb->args[1])
				err = mc_nl_fill_stats_head(skb, cb, sbi);
			else
				err = mc_nl_fill_stats_op(skb, cb, sbi,
							  cb->args[1] - 1, st);
			if (err)
				break;
			cb->args[1]++;
		}
		mutex_unlock(&sbi->ctl->lock);
		mc_nl_unpin(sbi);
		if (err)
			break;
	}
	kfree(st);
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int metacache_nl_stats_reset_doit(struct sk_buff *skb,
					 struct genl_info *info)
{
	struct mc_sb_info *sbi;
	int err;

	err = mc_nl_select(info->attrs, info->extack, true, &sbi);
	if (err)
		return err;
	mutex_lock(&sbi->ctl->lock);
	err = mc_stats_reset(sbi);
	mutex_unlock(&sbi->ctl->lock);
	mc_nl_unpin(sbi);
	return err;
}

/* FLUSH */

static int metacache_nl_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *pattr = info->attrs[METACACHE_A_PATH];
	struct dentry *dentry = NULL;
	struct mc_sb_info *sbi;
	struct sk_buff *msg;
	char *path = NULL;
	int flushed = 0, handles = 0;
	u32 flags = 0;
	void *hdr;
	u16 depth;
	int err;

	if (info->attrs[METACACHE_A_FLUSH_FLAGS])
		flags = nla_get_u32(info->attrs[METACACHE_A_FLUSH_FLAGS]);
	if (pattr) {
		const char *why = "bad path";

		path = kmalloc(METACACHE_PATH_MAX, GFP_KERNEL);
		if (!path)
			return -ENOMEM;
		err = mc_path_normalize(nla_data(pattr), path,
					METACACHE_PATH_MAX, &depth, &why);
		if (err) {
			mc_nl_err_attr(info->extack, pattr, why);
			goto out_free;
		}
	}
	err = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out_free;
	err = mc_nl_select(info->attrs, info->extack, true, &sbi);
	if (err)
		goto out_msg;
	/*
	 * METACACHE_FLUSH_F_HANDLES closes the mount's cached handles, all of
	 * them also when a path is given: more than asked, always safe (a
	 * closed handle only costs the next open a round trip).
	 * Without METACACHE_FLUSH_F_SUBTREE only the name's own state is
	 * asked for, but mc_cache_flush() has no name-only mode: it drops the
	 * subtree, which is more than asked and always safe.
	 */
	if (path)
		dentry = mc_nl_dcache_find(sbi->sb, path);
	if (!path || dentry)
		flushed = mc_cache_flush(sbi, dentry);
	dput(dentry);
	if (flushed >= 0 && (flags & METACACHE_FLUSH_F_HANDLES))
		handles = mc_handles_flush(sbi);
	mc_nl_unpin(sbi);
	if (flushed < 0) {
		err = flushed;
		goto out_msg;
	}
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &mc_genl_family, 0,
				METACACHE_CMD_FLUSH);
	if (!hdr ||
	    mc_nl_put_u64(msg, METACACHE_A_FLUSHED_ENTRIES, flushed,
			  METACACHE_A_PAD) ||
	    mc_nl_put_u64(msg, METACACHE_A_FLUSHED_HANDLES, handles,
			  METACACHE_A_PAD))
		goto out_msg;
	genlmsg_end(msg, hdr);
	kfree(path);
	return genlmsg_reply(msg, info);
out_msg:
	nlmsg_free(msg);
out_free:
	kfree(path);
	return err;
}

/* The family */

static const struct genl_ops mc_genl_ops[] = {
	{
		.cmd		= METACACHE_CMD_GET_INFO,
		.doit		= metacache_nl_get_info_doit,
		.policy		= mc_nl_none_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_MOUNT_GET,
		.doit		= metacache_nl_mount_get_doit,
		.start		= metacache_nl_mount_get_start,
		.dumpit		= metacache_nl_mount_get_dumpit,
		.policy		= mc_nl_mount_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_MOUNT_SET,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_mount_set_doit,
		.policy		= mc_nl_mount_set_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_DEFAULTS_GET,
		.doit		= metacache_nl_defaults_get_doit,
		.policy		= mc_nl_none_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_DEFAULTS_SET,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_defaults_set_doit,
		.policy		= mc_nl_defaults_set_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_POLICY_ADD,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_policy_add_doit,
		.policy		= mc_nl_rule_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_POLICY_DEL,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_policy_del_doit,
		.policy		= mc_nl_rule_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_POLICY_GET,
		.start		= metacache_nl_policy_get_start,
		.dumpit		= metacache_nl_policy_get_dumpit,
		.policy		= mc_nl_mount_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_STATS_GET,
		.start		= metacache_nl_stats_get_start,
		.dumpit		= metacache_nl_stats_get_dumpit,
		.policy		= mc_nl_mount_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_STATS_RESET,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_stats_reset_doit,
		.policy		= mc_nl_mount_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_FLUSH,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_flush_doit,
		.policy		= mc_nl_flush_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	/* the I/O generator: gen_nl.c */
	{
		.cmd		= METACACHE_CMD_BENCH_START,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_bench_start_doit,
		.policy		= mc_nl_bench_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_BENCH_STOP,
		.flags		= GENL_ADMIN_PERM,
		.doit		= metacache_nl_bench_stop_doit,
		.policy		= mc_nl_bench_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_BENCH_GET,
		.doit		= metacache_nl_bench_get_doit,
		.start		= metacache_nl_bench_get_start,
		.dumpit		= metacache_nl_bench_get_dumpit,
		.policy		= mc_nl_bench_policy,
		.maxattr	= METACACHE_A_MAX,
	},
	{
		.cmd		= METACACHE_CMD_BENCH_RESULTS,
		.start		= metacache_nl_bench_results_start,
		.dumpit		= metacache_nl_bench_results_dumpit,
		.policy		= mc_nl_bench_policy,
		.maxattr	= METACACHE_A_MAX,
	},
};

/*
 * resv_start_op: genetlink's header checks for the commands after
 * POLICY_ADD; mc_nl_hdr_check() makes them for the others, allowing
 * NLM_F_EXCL for POLICY_ADD (see the top of the file).  Init network
 * namespace only (netnsok false): mounts are not per network namespace.
 */
struct genl_family mc_genl_family __ro_after_init = {
	.name		= METACACHE_GENL_NAME,
	.version	= METACACHE_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= mc_genl_ops,
	.n_ops		= ARRAY_SIZE(mc_genl_ops),
	.resv_start_op	= METACACHE_CMD_POLICY_ADD + 1,
	.parallel_ops	= true,
	.pre_doit	= mc_nl_pre_doit,
};

/**
 * mc_netlink_init() - register the generic netlink family at module load
 *
 * Return: 0 or a negative errno.
 */
int mc_netlink_init(void)
{
	return genl_register_family(&mc_genl_family);
}

/**
 * mc_netlink_exit() - unregister the family at module unload
 *
 * Waits for handlers in flight; a dump in progress holds a module
 * reference, so none is left.
 */
void mc_netlink_exit(void)
{
	genl_unregister_family(&mc_genl_family);
}
