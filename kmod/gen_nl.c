// SPDX-License-Identifier: GPL-2.0
/*
 * gen_nl.c - the BENCH_* commands of the generic netlink family (the I/O
 * generator's part of the control plane; the op table is netlink.c's).
 *
 * Validation follows netlink.c: the attribute policy (strict, ranges:
 * -ERANGE from the netlink core) checks every attribute of the BENCH
 * nest; what the policy cannot say (attributes a workload does not take,
 * combinations) is refused here with -EINVAL and an extended ack naming
 * the attribute.  Reply-only attributes have no policy entry, so a
 * request carrying them is refused by the core.
 *
 * Jobs are read under mc_gen_lock (which keeps them from being freed)
 * and their lock; dumps keep a job id and look it up again each call.
 */
#define pr_fmt(fmt) "metacache: " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "gen.h"

static struct netlink_range_validation mc_bench_files_range __ro_after_init = {
	.min = 1, .max = METACACHE_BENCH_FILES_MAX,
};

static struct netlink_range_validation mc_bench_dirs_range __ro_after_init = {
	.min = 1, .max = METACACHE_BENCH_DIRS_MAX,
};

static struct netlink_range_validation mc_bench_fsize_range __ro_after_init = {
	.min = 1, .max = METACACHE_BENCH_FILE_SIZE_MAX,
};

static struct netlink_range_validation mc_bench_io_range __ro_after_init = {
	.min = METACACHE_BENCH_IO_SIZE_MIN, .max = METACACHE_BENCH_IO_SIZE_MAX,
};

static struct netlink_range_validation mc_bench_ops_range __ro_after_init = {
	.min = 1, .max = METACACHE_BENCH_OPS_MAX,
};

static struct netlink_range_validation mc_bench_dur_range __ro_after_init = {
	.min = 1, .max = METACACHE_BENCH_DURATION_MAX,
};

static const struct nla_policy mc_bench_attr_policy[METACACHE_A_BENCH_MAX + 1] = {
	[METACACHE_A_BENCH_JOB_ID]	= NLA_POLICY_MIN(NLA_U32, 1),
	[METACACHE_A_BENCH_TARGET]	= { .type = NLA_NUL_STRING,
					    .len = METACACHE_PATH_MAX - 1 },
	[METACACHE_A_BENCH_WORKLOAD]	=
		NLA_POLICY_MAX(NLA_U32, METACACHE_BENCH_WL_MAX),
	[METACACHE_A_BENCH_THREADS]	=
		NLA_POLICY_RANGE(NLA_U32, 1, METACACHE_BENCH_THREADS_MAX),
	[METACACHE_A_BENCH_FILES]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mc_bench_files_range),
	[METACACHE_A_BENCH_DIRS]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mc_bench_dirs_range),
	[METACACHE_A_BENCH_FILE_SIZE]	=
		NLA_POLICY_FULL_RANGE(NLA_U64, &mc_bench_fsize_range),
	[METACACHE_A_BENCH_IO_SIZE]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mc_bench_io_range),
	[METACACHE_A_BENCH_OPS]		=
		NLA_POLICY_FULL_RANGE(NLA_U64, &mc_bench_ops_range),
	[METACACHE_A_BENCH_DURATION_MS]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mc_bench_dur_range),
	[METACACHE_A_BENCH_FLAGS]	=
		NLA_POLICY_MASK(NLA_U32, METACACHE_BENCH_F_ALL),
	[METACACHE_A_BENCH_READ_PCT]	= NLA_POLICY_MAX(NLA_U32, 100),
	[METACACHE_A_BENCH_MIX_STAT]	= NLA_POLICY_MAX(NLA_U32, 100),
	[METACACHE_A_BENCH_MIX_OPEN]	= NLA_POLICY_MAX(NLA_U32, 100),
	[METACACHE_A_BENCH_MIX_CREATE]	= NLA_POLICY_MAX(NLA_U32, 100),
	[METACACHE_A_BENCH_MIX_UNLINK]	= NLA_POLICY_MAX(NLA_U32, 100),
};

/* The top level of every BENCH_* command: only the BENCH nest. */
const struct nla_policy mc_nl_bench_policy[METACACHE_A_MAX + 1] = {
	[METACACHE_A_BENCH]	= NLA_POLICY_NESTED(mc_bench_attr_policy),
};

#define MC_BENCH_MSG_SIZE	(nla_total_size(METACACHE_PATH_MAX) + 1024)
#define MC_BENCH_RES_SIZE	(MC_GEN_NB * sizeof(u64) + 1024)

/* Dump refusals found by .start (6.1 gives .start no extack). */
#define MC_BENCH_DUMP_ERR	4
#define MC_BENCH_DUMP_MSG	5

static void mc_bench_refuse(struct netlink_callback *cb, int err,
			    const char *msg)
{
	cb->args[MC_BENCH_DUMP_ERR] = err;
	cb->args[MC_BENCH_DUMP_MSG] = (unsigned long)msg;
}

static int mc_bench_refused(struct netlink_callback *cb)
{
	long err = cb->args[MC_BENCH_DUMP_ERR];

	if (err && cb->extack)
		cb->extack->_msg = (const char *)cb->args[MC_BENCH_DUMP_MSG];
	return err;
}

/*
 * The BENCH nest of a request, parsed into @tb.  Required unless
 * @optional; a missing one: -EINVAL with the missing attribute reported.
 */
static int mc_bench_parse(struct nlattr **attrs, struct nlattr **tb,
			  bool optional, struct netlink_ext_ack *extack)
{
	struct nlattr *nest = attrs[METACACHE_A_BENCH];

	memset(tb, 0, sizeof(*tb) * (METACACHE_A_BENCH_MAX + 1));
	if (!nest) {
		if (optional)
			return 0;
		NL_SET_ERR_MSG(extack, "the bench attributes are missing");
		NL_SET_ERR_ATTR_MISS(extack, NULL, METACACHE_A_BENCH);
		return -EINVAL;
	}
	return nla_parse_nested(tb, METACACHE_A_BENCH_MAX, nest,
				mc_bench_attr_policy, extack);
}

/* Refuse every attribute of @tb but JOB_ID, and require JOB_ID. */
static int mc_bench_only_id(struct nlattr **attrs, struct nlattr **tb,
			    struct netlink_ext_ack *extack, u32 *id)
{
	int i;

	for (i = 0; i <= METACACHE_A_BENCH_MAX; i++) {
		if (tb[i] && i != METACACHE_A_BENCH_JOB_ID) {
			NL_SET_ERR_MSG_ATTR(extack, tb[i],
					    "this command takes only a job id");
			return -EINVAL;
		}
	}
	if (NL_REQ_ATTR_CHECK(extack, attrs[METACACHE_A_BENCH], tb,
			      METACACHE_A_BENCH_JOB_ID)) {
		NL_SET_ERR_MSG(extack, "a job id is required");
		return -EINVAL;
	}
	*id = nla_get_u32(tb[METACACHE_A_BENCH_JOB_ID]);
	return 0;
}

static u32 mc_bench_u32(struct nlattr **tb, int type, u32 dflt)
{
	return tb[type] ? nla_get_u32(tb[type]) : dflt;
}

static u64 mc_bench_u64(struct nlattr **tb, int type, u64 dflt)
{
	return tb[type] ? nla_get_u64(tb[type]) : dflt;
}

/* Refuse @type if given: it does not belong to this workload. */
static int mc_bench_refuse_attr(struct nlattr **tb, int type,
				struct netlink_ext_ack *extack,
				const char *msg)
{
	if (!tb[type])
		return 0;
	if (extack) {
		extack->_msg = msg;	/* static text */
		NL_SET_BAD_ATTR(extack, tb[type]);
	}
	return -EINVAL;
}

/* Check a START request and fill in the defaults. */
static int mc_bench_params(struct nlattr *nest, struct nlattr **tb,
			   struct mc_gen_params *p,
			   struct netlink_ext_ack *extack)
{
	static const int mix_attr[4] = {
		METACACHE_A_BENCH_MIX_STAT, METACACHE_A_BENCH_MIX_OPEN,
		METACACHE_A_BENCH_MIX_CREATE, METACACHE_A_BENCH_MIX_UNLINK,
	};
	static const u32 mix_dflt[4] = { 70, 20, 5, 5 };
	bool data, mix_given = false;
	u32 sum = 0;
	int i, err = 0;

	if (tb[METACACHE_A_BENCH_JOB_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_JOB_ID],
				    "a new job has no id yet");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, METACACHE_A_BENCH_TARGET)) {
		NL_SET_ERR_MSG(extack, "a target directory is required");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, METACACHE_A_BENCH_WORKLOAD)) {
		NL_SET_ERR_MSG(extack, "a workload is required");
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->workload = nla_get_u32(tb[METACACHE_A_BENCH_WORKLOAD]);
	data = p->workload >= METACACHE_BENCH_WL_RANDRW;
	p->threads = mc_bench_u32(tb, METACACHE_A_BENCH_THREADS, 1);
	p->files = mc_bench_u32(tb, METACACHE_A_BENCH_FILES, data ? 4 : 100);
	p->dirs = mc_bench_u32(tb, METACACHE_A_BENCH_DIRS, 1);
	p->ops = mc_bench_u64(tb, METACACHE_A_BENCH_OPS, 0);
	p->duration_ms = mc_bench_u32(tb, METACACHE_A_BENCH_DURATION_MS, 0);
	p->flags = mc_bench_u32(tb, METACACHE_A_BENCH_FLAGS, 0);

	if (p->workload != METACACHE_BENCH_WL_MDTEST) {
		err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_DIRS, extack,
					   "only the mdtest workload takes directories");
		if (!err && (p->flags & METACACHE_BENCH_F_STONEWALL)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_FLAGS],
					    "stonewalling is for the mdtest workload");
			err = -EINVAL;
		}
		if (!err && !p->ops && !p->duration_ms) {
			NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_WORKLOAD],
					    "this workload needs an operation count or a duration");
			NL_SET_ERR_ATTR_MISS(extack, nest, METACACHE_A_BENCH_OPS);
			err = -EINVAL;
		}
	} else {
		err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_OPS, extack,
					   "mdtest does every file once: no operation count");
	}
	if (err)
		return err;

	for (i = 0; i < 4; i++)
		mix_given |= !!tb[mix_attr[i]];
	if (p->workload == METACACHE_BENCH_WL_MIXED) {
		for (i = 0; i < 4; i++) {
			p->mix[i] = mix_given ? mc_bench_u32(tb, mix_attr[i], 0) :
						mix_dflt[i];
			sum += p->mix[i];
		}
		if (sum != 100) {
			NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_MIX_STAT] ?:
					    tb[METACACHE_A_BENCH_MIX_OPEN] ?:
					    tb[METACACHE_A_BENCH_MIX_CREATE] ?:
					    tb[METACACHE_A_BENCH_MIX_UNLINK],
					    "the mix percentages must add up to 100");
			return -EINVAL;
		}
		if (p->files < p->threads) {
			NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_FILES] ?:
					    tb[METACACHE_A_BENCH_THREADS],
					    "the mixed workload needs a file per thread at least");
			return -EINVAL;
		}
	} else {
		for (i = 0; i < 4 && !err; i++)
			err = mc_bench_refuse_attr(tb, mix_attr[i], extack,
						   "mix percentages are for the mixed workload");
		if (err)
			return err;
	}

	if (!data) {
		err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_FILE_SIZE,
					   extack, "a file size is for data workloads");
		if (!err)
			err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_IO_SIZE,
						   extack, "an I/O size is for data workloads");
		if (!err)
			err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_READ_PCT,
						   extack, "a read percentage is for the randrw workload");
		return err;
	}
	p->io_size = mc_bench_u32(tb, METACACHE_A_BENCH_IO_SIZE,
				  p->workload == METACACHE_BENCH_WL_RANDRW ?
				  4096 : 65536);
	p->file_size = mc_bench_u64(tb, METACACHE_A_BENCH_FILE_SIZE,
				    max_t(u64, 1 << 20, p->io_size));
	p->read_pct = mc_bench_u32(tb, METACACHE_A_BENCH_READ_PCT, 50);
	if (p->workload != METACACHE_BENCH_WL_RANDRW) {
		err = mc_bench_refuse_attr(tb, METACACHE_A_BENCH_READ_PCT,
					   extack, "a read percentage is for the randrw workload");
		if (err)
			return err;
	}
	if (p->io_size % 512) {
		NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_IO_SIZE],
				    "the I/O size must be a multiple of 512");
		return -EINVAL;
	}
	if (p->file_size < p->io_size) {
		NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_FILE_SIZE] ?:
				    tb[METACACHE_A_BENCH_IO_SIZE],
				    "the file size is smaller than the I/O size");
		return -EINVAL;
	}
	if (p->files > METACACHE_BENCH_DATA_FILES_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[METACACHE_A_BENCH_FILES],
				    "too many files for a data workload");
		return -ERANGE;
	}
	return 0;
}

static int mc_bench_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, METACACHE_A_BENCH_PAD);
}

/*
 * Parameters and status of a job.  mc_gen_lock held.  @paths: with the
 * target's path (mc_nl_may_see_paths()).
 */
static int mc_bench_put_job(struct sk_buff *skb, struct mc_gen_job *job,
			    bool paths)
{
	const struct mc_gen_params *p = &job->p;
	struct nlattr *nest;
	u64 now = ktime_get_ns();
	int err = -EMSGSIZE;

	nest = nla_nest_start(skb, METACACHE_A_BENCH);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&job->lock);
	if (nla_put_u32(skb, METACACHE_A_BENCH_JOB_ID, job->id) ||
	    (paths &&
	     nla_put_string(skb, METACACHE_A_BENCH_TARGET, job->target)) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_WORKLOAD, p->workload) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_THREADS, p->threads) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_FILES, p->files) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_FLAGS, p->flags) ||
	    nla_put_string(skb, METACACHE_A_BENCH_WORKDIR, job->workdir) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_STATE, job->state) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_PHASE, job->phase) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_ELAPSED_NS,
			     (job->end_ns ?: now) - job->start_ns) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_PHASE_OPS,
			     mc_gen_phase_ops(job) - job->phase_base) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RATE, job->rate))
		goto out;
	if (p->workload == METACACHE_BENCH_WL_MDTEST &&
	    nla_put_u32(skb, METACACHE_A_BENCH_DIRS, p->dirs))
		goto out;
	if (p->ops && mc_bench_put_u64(skb, METACACHE_A_BENCH_OPS, p->ops))
		goto out;
	if (p->duration_ms &&
	    nla_put_u32(skb, METACACHE_A_BENCH_DURATION_MS, p->duration_ms))
		goto out;
	if (p->workload >= METACACHE_BENCH_WL_RANDRW &&
	    (mc_bench_put_u64(skb, METACACHE_A_BENCH_FILE_SIZE, p->file_size) ||
	     nla_put_u32(skb, METACACHE_A_BENCH_IO_SIZE, p->io_size)))
		goto out;
	if (p->workload == METACACHE_BENCH_WL_RANDRW &&
	    nla_put_u32(skb, METACACHE_A_BENCH_READ_PCT, p->read_pct))
		goto out;
	if (p->workload == METACACHE_BENCH_WL_MIXED &&
	    (nla_put_u32(skb, METACACHE_A_BENCH_MIX_STAT, p->mix[0]) ||
	     nla_put_u32(skb, METACACHE_A_BENCH_MIX_OPEN, p->mix[1]) ||
	     nla_put_u32(skb, METACACHE_A_BENCH_MIX_CREATE, p->mix[2]) ||
	     nla_put_u32(skb, METACACHE_A_BENCH_MIX_UNLINK, p->mix[3])))
		goto out;
	if (job->err &&
	    (nla_put_u32(skb, METACACHE_A_BENCH_ERRNO, -job->err) ||
	     nla_put_u32(skb, METACACHE_A_BENCH_ERR_OP, job->err_op)))
		goto out;
	err = 0;
out:
	mutex_unlock(&job->lock);
	if (err)
		nla_nest_cancel(skb, nest);
	else
		nla_nest_end(skb, nest);
	return err;
}

int metacache_nl_bench_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	struct mc_gen_params p;
	const char *why = NULL;
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int err;

	err = mc_bench_parse(info->attrs, tb, false, extack);
	if (err)
		return err;
	err = mc_bench_params(info->attrs[METACACHE_A_BENCH], tb, &p, extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mc_gen_start(&p, nla_data(tb[METACACHE_A_BENCH_TARGET]), &id,
			   &why);
	if (err) {
		if (extack) {
			extack->_msg = why;
			NL_SET_BAD_ATTR(extack, tb[METACACHE_A_BENCH_TARGET]);
		}
		nlmsg_free(msg);
		return err;
	}
	hdr = genlmsg_put_reply(msg, info, &mc_genl_family, 0,
				METACACHE_CMD_BENCH_START);
	if (!hdr)
		goto too_big;
	nest = nla_nest_start(msg, METACACHE_A_BENCH);
	if (!nest || nla_put_u32(msg, METACACHE_A_BENCH_JOB_ID, id))
		goto too_big;
	mutex_lock(&mc_gen_lock);
	if (mc_gen_find(id) &&
	    nla_put_string(msg, METACACHE_A_BENCH_WORKDIR,
			   mc_gen_find(id)->workdir)) {
		mutex_unlock(&mc_gen_lock);
		goto too_big;
	}
	mutex_unlock(&mc_gen_lock);
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
too_big:
	/* the job runs: stop it rather than leave it unknown to the caller */
	mc_gen_stop(id);
	nlmsg_free(msg);
	return -EMSGSIZE;
}

int metacache_nl_bench_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	u32 id;
	int err;

	err = mc_bench_parse(info->attrs, tb, false, info->extack);
	if (!err)
		err = mc_bench_only_id(info->attrs, tb, info->extack, &id);
	if (err)
		return err;
	err = mc_gen_stop(id);
	if (err)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[METACACHE_A_BENCH_JOB_ID],
				    "no job with this id");
	return err;
}

int metacache_nl_bench_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	struct mc_gen_job *job;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int err;

	err = mc_bench_parse(info->attrs, tb, false, info->extack);
	if (!err)
		err = mc_bench_only_id(info->attrs, tb, info->extack, &id);
	if (err)
		return err;
	msg = genlmsg_new(MC_BENCH_MSG_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&mc_gen_lock);
	job = mc_gen_find(id);
	if (!job) {
		mutex_unlock(&mc_gen_lock);
		nlmsg_free(msg);
		NL_SET_ERR_MSG_ATTR(info->extack, tb[METACACHE_A_BENCH_JOB_ID],
				    "no job with this id");
		return -ENOENT;
	}
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &mc_genl_family, 0,
				METACACHE_CMD_BENCH_GET);
	if (hdr)
		err = mc_bench_put_job(msg, job, mc_nl_may_see_paths(skb));
	mutex_unlock(&mc_gen_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* GET dump: args[0] the last job id dumped. */
int metacache_nl_bench_get_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);

	cb->min_dump_alloc = MC_BENCH_MSG_SIZE;
	cb->args[0] = 0;
	if (info->attrs[METACACHE_A_BENCH])
		mc_bench_refuse(cb, -EINVAL,
				"listing jobs takes no attribute");
	return 0;
}

int metacache_nl_bench_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct mc_gen_job *job;
	bool paths;
	void *hdr;
	int err;

	err = mc_bench_refused(cb);
	if (err)
		return err;
	paths = mc_nl_may_see_paths(cb->skb);
	mutex_lock(&mc_gen_lock);
	while ((job = mc_gen_next(cb->args[0]))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mc_genl_family,
				  NLM_F_MULTI, METACACHE_CMD_BENCH_GET);
		if (!hdr)
			break;
		if (mc_bench_put_job(skb, job, paths)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = job->id;
	}
	mutex_unlock(&mc_gen_lock);
	return skb->len;
}

/* RESULTS dump: args[0] the job, args[1] the next result. */
int metacache_nl_bench_results_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *tb[METACACHE_A_BENCH_MAX + 1];
	struct netlink_ext_ack ext = {};
	u32 id;
	int err;

	cb->min_dump_alloc = MC_BENCH_RES_SIZE;
	err = mc_bench_parse(info->attrs, tb, false, &ext);
	if (!err)
		err = mc_bench_only_id(info->attrs, tb, &ext, &id);
	if (!err) {
		mutex_lock(&mc_gen_lock);
		if (!mc_gen_find(id)) {
			err = -ENOENT;
			ext._msg = "no job with this id";
		}
		mutex_unlock(&mc_gen_lock);
	}
	if (err) {
		mc_bench_refuse(cb, err, ext._msg);
		return 0;
	}
	cb->args[0] = id;
	cb->args[1] = 0;
	return 0;
}

static int mc_bench_put_result(struct sk_buff *skb,
			       const struct mc_gen_result *r)
{
	const struct mc_gen_hist *h = &r->h;
	unsigned int first = 0, last = MC_GEN_NB;
	struct nlattr *nest;

	while (first < last && !h->bucket[first])
		first++;
	while (last > first && !h->bucket[last - 1])
		last--;
	nest = nla_nest_start(skb, METACACHE_A_BENCH_RESULT);
	if (!nest ||
	    nla_put_u32(skb, METACACHE_A_BENCH_RES_OP, r->op) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_OPS, h->count) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_BYTES, r->bytes) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_ENTRIES, r->entries) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_ELAPSED_NS,
			     r->elapsed_ns) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_SUM_NS, h->sum_ns) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_MIN_NS,
			     h->count ? h->min_ns : 0) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_MAX_NS, h->max_ns) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_P50_NS,
			     mc_gen_hist_pct(h, 50000)) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_P90_NS,
			     mc_gen_hist_pct(h, 90000)) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_P99_NS,
			     mc_gen_hist_pct(h, 99000)) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_P999_NS,
			     mc_gen_hist_pct(h, 99900)) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_SEC_N, r->sec_n) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_SEC_SUM, r->sec_sum) ||
	    mc_bench_put_u64(skb, METACACHE_A_BENCH_RES_SEC_SUMSQ,
			     r->sec_sumsq) ||
	    nla_put_u32(skb, METACACHE_A_BENCH_RES_FIRST_BUCKET, first) ||
	    nla_put(skb, METACACHE_A_BENCH_RES_BUCKETS,
		    (last - first) * sizeof(u64), &h->bucket[first]))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int metacache_nl_bench_results_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct mc_gen_job *job;
	struct nlattr *nest;
	void *hdr;
	int err;

	err = mc_bench_refused(cb);
	if (err)
		return err;
	mutex_lock(&mc_gen_lock);
	job = mc_gen_find(cb->args[0]);
	if (!job) {
		mutex_unlock(&mc_gen_lock);
		NL_SET_ERR_MSG(cb->extack, "the job is gone");
		return -ENOENT;
	}
	mutex_lock(&job->lock);
	while (cb->args[1] < job->nres) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mc_genl_family,
				  NLM_F_MULTI, METACACHE_CMD_BENCH_RESULTS);
		if (!hdr)
			break;
		nest = nla_nest_start(skb, METACACHE_A_BENCH);
		if (!nest ||
		    nla_put_u32(skb, METACACHE_A_BENCH_JOB_ID, job->id) ||
		    nla_put_u32(skb, METACACHE_A_BENCH_STATE, job->state) ||
		    mc_bench_put_result(skb, &job->res[cb->args[1]])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		nla_nest_end(skb, nest);
		genlmsg_end(skb, hdr);
		cb->args[1]++;
	}
	mutex_unlock(&job->lock);
	mutex_unlock(&mc_gen_lock);
	return skb->len;
}
