/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.h - the netlink side of metacachectl: transport (nl.c) and the
 * attribute codecs (attrs.c).
 */
#ifndef MCCTL_NL_H
#define MCCTL_NL_H

#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include "mcctl.h"

struct mc_info {
	char version[64];
	uint32_t proto;
	uint32_t nbuckets;
	uint32_t mount_count;
	struct mc_tun defaults;
};

struct mc_nl {
	struct nl_sock *sk;
	int family;
	struct mc_info info;	/* GET_INFO, read when the family opened */
};

/*
 * Open the family, read GET_INFO and check the module's protocol version.
 * Prints what went wrong ("metacache module is not loaded (try: modprobe
 * metacache)") and returns MC_EXIT_FAIL, or 0.
 */
int mc_nl_open(struct mc_nl *nl);
/*
 * For "version": like mc_nl_open but no version check, and quiet when the
 * module is not loaded (*absent = 1, returns 0).
 */
int mc_nl_probe(struct mc_nl *nl, int *absent);
void mc_nl_close(struct mc_nl *nl);

/* A request: genl header for cmd; flags NLM_F_DUMP for a dump. */
struct nl_msg *mc_nl_msg(struct mc_nl *nl, uint8_t cmd, int flags);

/* A reply message: its top level attributes, parsed and raw. */
struct mc_reply {
	struct nlattr *tb[METACACHE_A_MAX + 1];	/* the last of each type */
	struct nlattr *head;			/* all, for multi-attr */
	int len;
};

/* Called for each reply message. */
typedef int (*mc_reply_fn)(const struct mc_reply *r, void *arg);

/*
 * Send msg (freed), receive until the ack or the end of the dump, call fn
 * (may be NULL) for each reply.  fn returns 0 or a negative errno to stop.
 * Returns 0, or a negative errno after printing the kernel's message
 * ("metacachectl: kernel reports: ...") or strerror.
 */
int mc_nl_call(struct mc_nl *nl, struct nl_msg *msg, mc_reply_fn fn, void *arg);

/* The user's word for the attribute at byte offs of req (extack OFFS). */
const char *mc_nl_attr_at(struct nl_msg *req, uint32_t offs);

struct mc_mount;

/* mount.c */
/*
 * Put the mount selector: METACACHE_A_MOUNT_ID for a number, else
 * METACACHE_A_MOUNT_PATH (made absolute against the working directory).
 * Returns 0 or an exit status after a message.
 */
int mc_put_mount(struct nl_msg *msg, const char *mount);
/*
 * The first mount point of the metacache device major:minor in a
 * mountinfo file (/proc/self/mountinfo: the caller's mount namespace).
 * Returns 0, or -1 when there is none.
 */
int mc_mountpoint_of_dev(const char *mountinfo, uint32_t major, uint32_t minor,
			 char *out, size_t len);
/* MOUNT_GET of one mount.  Returns 0 or an exit status after a message. */
int mc_mount_fetch(struct mc_nl *nl, const char *mount, struct mc_mount *m);
/* Exit status for a failed mc_nl_call(): 1. */
#define mc_nl_status(err) ((err) ? MC_EXIT_FAIL : MC_EXIT_OK)

/* attrs.c */
struct mc_mount {
	uint32_t id;
	uint32_t dev_major, dev_minor;
	char path[METACACHE_PATH_MAX];	/* the module's, else mountinfo's */
	char lower_path[METACACHE_PATH_MAX];
	char lower_source[256];
	char lower_fstype[32];
	struct mc_tun tun;
	uint64_t n_entries, n_neg, n_handles, mem_bytes;
	uint32_t n_policies;
	uint64_t have;		/* bit (1ULL << METACACHE_A_x) per attribute */
};

struct mc_cache_stats {
	int present;
	uint64_t hits, misses, expired, renewed, evicted, entries, mem_bytes;
};

#define MC_MAX_OPS 64	/* op ids a newer module may send; more are dropped */
struct mc_op_stats {
	int present;
	uint64_t calls, avoided;
	struct mc_hist cache, lower;
};

struct mc_stats {
	uint32_t id;
	uint32_t dev_major, dev_minor;
	char path[METACACHE_PATH_MAX];
	uint64_t age_ns;
	/* one cache hit in this many is timed (module parameter), 0: unknown */
	uint32_t served_sample;
	struct mc_cache_stats cache[METACACHE_CACHE_MAX + 1];
	struct mc_op_stats op[MC_MAX_OPS];
};

struct mc_policy {
	char path[METACACHE_PATH_MAX];
	uint32_t flags;
	struct mc_tun tun;
};

int mc_tun_put(struct nl_msg *msg, int attr, const struct mc_tun *t);
int mc_tun_get(struct nlattr *nest, struct mc_tun *t);
int mc_mount_get(const struct mc_reply *r, struct mc_mount *m);
int mc_info_get(const struct mc_reply *r, struct mc_info *info);
int mc_policy_get(struct nlattr *nest, struct mc_policy *p);
/* Merge one STATS_GET message into s (same mount). */
int mc_stats_merge(const struct mc_reply *r, struct mc_stats *s);
int mc_hist_get(struct nlattr *nest, struct mc_hist *h);

/* Output of a mount (show.c) and of statistics (stats.c) */
void mc_mount_json(struct mc_json *j, const char *key, const struct mc_mount *m);
void mc_mount_print(FILE *f, const struct mc_mount *m);
void mc_stats_print(FILE *f, const struct mc_stats *s,
		    const struct mc_stats *prev, int all);
int mc_stats_json(FILE *f, const struct mc_stats *s);

/*
 * Make PATH relative to the mount root for POLICY_PATH and PATH: a
 * relative path is kept; an absolute one must lie under the mount point
 * (the one the kernel reports, or MOUNT as given).  Writes "/rel" to out.
 * Returns 0, or MC_EXIT_USAGE / MC_EXIT_FAIL after a message.
 */
int mc_mount_relpath(struct mc_nl *nl, const char *mount, const char *path,
		     char *out, size_t outlen);

#endif /* MCCTL_NL_H */
