/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * metacache.h - the metacache control plane: generic netlink family
 * "metacache".
 *
 * Specified in Documentation/netlink/metacache.yaml (the source of truth);
 * this header is its C rendering, shared by the kernel module (kmod/) and
 * metacachectl (tools/).  tools/metacachectl/check_uapi.py checks that the
 * two agree.
 *
 * Overview
 * ========
 *
 * metacache mounts are stacked on nfs or cifs directories and cache their
 * metadata: positive lookups (entry cache), negative lookups (neg cache),
 * attributes (attr cache), directory listings (dir cache) and lower file
 * handles kept open after the last close (handle cache, "deferred close").
 * Each mount has a stable u32 id and its own tunables (struct of
 * METACACHE_A_TUN_* attributes); module-wide defaults are given to new
 * mounts.  Policy rules override the tunables of a mount under one of its
 * directories.
 *
 * Conventions
 * -----------
 *
 * - Family name METACACHE_GENL_NAME, family version (genlmsghdr.version
 *   and METACACHE_A_PROTO_VERSION) METACACHE_GENL_VERSION.  The version is
 *   bumped only by an incompatible change; attributes and commands are
 *   only ever added.  A tool must refuse a module whose protocol version
 *   differs from its own, and must ignore attributes it does not know.
 * - The kernel validates requests strictly: an unknown attribute, an
 *   attribute the command does not take, or a malformed attribute (wrong
 *   length, a string without its NUL or longer than METACACHE_PATH_MAX
 *   with it, a nest without NLA_F_NESTED, a flag bit that does not exist)
 *   is EINVAL; an integer outside its range (the attribute's policy:
 *   ttls, limits, a mount id of 0) is ERANGE, as the netlink core reports
 *   it.  Either way with an extended ack naming the attribute
 *   (NLMSGERR_ATTR_MSG and NLMSGERR_ATTR_OFFS; NLMSGERR_ATTR_MISS_TYPE
 *   and _MISS_NEST for a required attribute that is missing).  The
 *   refusal of a dump request by the module (e.g. an unknown mount for
 *   POLICY_GET or STATS_GET) comes as the error of NLMSG_DONE, with the
 *   message but without the attribute offset.
 * - Netlink flags: NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO, NLM_F_DUMP (for
 *   dumps), and for POLICY_ADD also NLM_F_EXCL and NLM_F_CREATE; any
 *   other flag, or a non-zero genlmsghdr.reserved: EINVAL.  The version
 *   in genlmsghdr is not checked.
 * - The family exists in the initial network namespace only.
 * - All integers are in host byte order.  u64 attributes are padded with
 *   the set's PAD attribute (nla_put_u64_64bit).
 * - A mount's id (>= 1) is stable for the mount's life; once the mount
 *   is gone its id may be given to a later mount.
 * - A mount is selected by METACACHE_A_MOUNT_ID (u32) or by
 *   METACACHE_A_MOUNT_PATH (string: a path on the mount, normally its
 *   mount point, resolved in the caller's mount namespace and following
 *   symlinks), not both.  "Mount selector" below means exactly one of the
 *   two.  Unknown id, nonexistent path, or a path not on a metacache file
 *   system: ENOENT (other errors of the path walk, such as EACCES, ENOTDIR
 *   or ENAMETOOLONG, as they come).  Neither or both given: EINVAL.  A
 *   mount that is being unmounted is unknown; one unmounted while a
 *   command works on it stays until that command is done.
 * - Permission: GET_INFO, MOUNT_GET, DEFAULTS_GET, POLICY_GET and
 *   STATS_GET are open to every user.  Every other command needs
 *   CAP_SYS_ADMIN (flag GENL_ADMIN_PERM, plus a CAP_SYS_ADMIN check by the
 *   module since GENL_ADMIN_PERM itself tests CAP_NET_ADMIN): EPERM
 *   without it (without CAP_NET_ADMIN refused by genetlink itself, before
 *   any validation and without a message).
 * - Tunables in a request (TUNABLES, POLICY_TUNABLES) must set something:
 *   an empty nest, or one with only a DISABLED whose selector is 0, is
 *   EINVAL.
 * - Changes of tunables take effect for the next file system operation;
 *   nothing already cached outlives the new settings (an entry is judged
 *   against the ttl in force when it is used, not when it was made).
 *
 * Tunables and the staleness they allow
 * -------------------------------------
 *
 *   entry_ttl   s  5      a name may resolve to what it named up to
 *                         entry_ttl ago (renames/deletes by other clients)
 *   neg_ttl     s  5      a name created by another client may still be
 *                         reported missing (ENOENT) for up to neg_ttl
 *   attr_ttl    s  5      size, times, mode, owner may be up to attr_ttl old
 *   dir_ttl     s  5      a listing may miss or show entries up to dir_ttl
 *   close_ttl   s  5      a lower handle stays open up to close_ttl after
 *                         the last close: the server sees the close that
 *                         late (share modes, delegations, leases tied to
 *                         the open); ->flush still reaches the lower at
 *                         every close, so written data is not delayed
 *   max_entries    65536  positive entries (entry, attr, dir caches)
 *   max_neg        16384  negative entries
 *   max_handles    1024   lower handles kept open
 *
 * TTLs are seconds, 0 ... METACACHE_TTL_MAX, 0 switching that cache off.
 * Limits are 0 ... METACACHE_LIMIT_MAX, 0 letting that cache hold nothing
 * (the same ranges as the mount options).  METACACHE_A_TUN_DISABLED
 * switches caches off (and on again) without touching their ttl.
 */
#ifndef _UAPI_LINUX_METACACHE_H
#define _UAPI_LINUX_METACACHE_H

#include <linux/types.h>

#define METACACHE_GENL_NAME	"metacache"
#define METACACHE_GENL_VERSION	1

#define METACACHE_TTL_MAX	31536000	/* seconds: 365 days */
#define METACACHE_LIMIT_MAX	16777216	/* 1 << 24 */
#define METACACHE_PATH_MAX	4096		/* path attributes, with NUL */
#define METACACHE_POLICY_MAX	256		/* policy rules per mount */

/* Defaults of a freshly loaded module (DEFAULTS_SET changes them). */
#define METACACHE_DEFAULT_ENTRY_TTL	5
#define METACACHE_DEFAULT_NEG_TTL	5
#define METACACHE_DEFAULT_ATTR_TTL	5
#define METACACHE_DEFAULT_DIR_TTL	5
#define METACACHE_DEFAULT_CLOSE_TTL	5
#define METACACHE_DEFAULT_MAX_ENTRIES	65536
#define METACACHE_DEFAULT_MAX_NEG	16384
#define METACACHE_DEFAULT_MAX_HANDLES	1024

/*
 * Latency histograms
 * ==================
 *
 * Samples are nanoseconds (ktime_get_ns() deltas).  The buckets are
 * log-linear: every power of two from 2^6 = 64 ns to 2^37 ns (~137 s) is
 * split into 4 equal sub-buckets (relative width 25% at most), plus an
 * underflow and an overflow bucket; METACACHE_HIST_NBUCKETS in all:
 *
 *   bucket 0                 [0, 64 ns)
 *   bucket 1 + 4 * (e - 6) + s, for 6 <= e <= 36 and 0 <= s <= 3:
 *                            [2^e + s * 2^(e-2), 2^e + (s+1) * 2^(e-2))
 *   bucket 125               [2^37 ns, infinity)
 *
 * Index of a sample v (ilog2 = floor(log2)):
 *
 *   v < 64:        0
 *   v >= 2^37:     METACACHE_HIST_NBUCKETS - 1
 *   otherwise:     e = ilog2(v);
 *                  1 + ((e - 6) << 2) + ((v >> (e - 2)) & 3)
 *
 * Lower bound of bucket i, 1 <= i <= 125: e = 6 + (i - 1) / 4,
 * s = (i - 1) % 4, lower = 2^e + s * 2^(e - 2); the upper bound of bucket i
 * is the lower bound of bucket i + 1.  A tool computes percentiles by
 * walking the cumulative counts and interpolating inside the bucket.
 *
 * On the wire (nest of METACACHE_A_HIST_*): COUNT, SUM_NS, MAX_NS and
 * BUCKETS, an array of __u64 in host byte order, element i = samples in
 * bucket i.  Trailing zero buckets may be left out (nla_len < 8 * NBUCKETS);
 * the length is always a multiple of 8.  The layout is fixed for a protocol
 * version; METACACHE_A_HIST_NBUCKETS of GET_INFO repeats the count.
 */
#define METACACHE_HIST_MIN_SHIFT	6
#define METACACHE_HIST_MAX_SHIFT	37
#define METACACHE_HIST_SUB_BITS		2
#define METACACHE_HIST_SUBS		(1 << METACACHE_HIST_SUB_BITS)
#define METACACHE_HIST_NBUCKETS						\
	(2 + (METACACHE_HIST_MAX_SHIFT - METACACHE_HIST_MIN_SHIFT) *	\
		METACACHE_HIST_SUBS)				/* 126 */

/* The caches of a mount.  Also bit numbers of enum metacache_cache_flags. */
enum metacache_cache {
	METACACHE_CACHE_ENTRY,		/* positive lookups, entry_ttl */
	METACACHE_CACHE_NEG,		/* negative lookups, neg_ttl, max_neg */
	METACACHE_CACHE_ATTR,		/* attributes, attr_ttl */
	METACACHE_CACHE_DIR,		/* directory listings, dir_ttl */
	METACACHE_CACHE_HANDLE,		/* deferred close, close_ttl */

	/* private: */
	__METACACHE_CACHE_MAX,
	METACACHE_CACHE_MAX = (__METACACHE_CACHE_MAX - 1)
};

enum metacache_cache_flags {
	METACACHE_CACHE_F_ENTRY = 1 << METACACHE_CACHE_ENTRY,
	METACACHE_CACHE_F_NEG = 1 << METACACHE_CACHE_NEG,
	METACACHE_CACHE_F_ATTR = 1 << METACACHE_CACHE_ATTR,
	METACACHE_CACHE_F_DIR = 1 << METACACHE_CACHE_DIR,
	METACACHE_CACHE_F_HANDLE = 1 << METACACHE_CACHE_HANDLE,
};
#define METACACHE_CACHE_F_ALL	((1 << __METACACHE_CACHE_MAX) - 1)

/*
 * Types of lower operations counted per mount.  revalidate is d_revalidate
 * of a cached name, permission the ->permission check, xattr any of
 * get/set/list/removexattr, lock both POSIX and flock locks, other
 * anything not listed (fallocate, copy_file_range, mmap faults, ...).
 */
enum metacache_op {
	METACACHE_OP_LOOKUP,
	METACACHE_OP_REVALIDATE,
	METACACHE_OP_GETATTR,
	METACACHE_OP_SETATTR,
	METACACHE_OP_PERMISSION,
	METACACHE_OP_CREATE,
	METACACHE_OP_MKDIR,
	METACACHE_OP_MKNOD,
	METACACHE_OP_SYMLINK,
	METACACHE_OP_LINK,
	METACACHE_OP_UNLINK,
	METACACHE_OP_RMDIR,
	METACACHE_OP_RENAME,
	METACACHE_OP_OPEN,
	METACACHE_OP_RELEASE,
	METACACHE_OP_READ,
	METACACHE_OP_WRITE,
	METACACHE_OP_READDIR,
	METACACHE_OP_FSYNC,
	METACACHE_OP_XATTR,
	METACACHE_OP_LOCK,
	METACACHE_OP_IOCTL,
	METACACHE_OP_STATFS,
	METACACHE_OP_OTHER,

	/* private: */
	__METACACHE_OP_MAX,
	METACACHE_OP_MAX = (__METACACHE_OP_MAX - 1)
};

enum metacache_policy_flags {
	/* nothing under the directory is cached; every call goes through */
	METACACHE_POLICY_F_BYPASS = 1 << 0,
};
#define METACACHE_POLICY_F_ALL	METACACHE_POLICY_F_BYPASS

enum metacache_flush_flags {
	/* the path and everything under it, not only the path itself */
	METACACHE_FLUSH_F_SUBTREE = 1 << 0,
	/* also close idle lower handles kept open for deferred close */
	METACACHE_FLUSH_F_HANDLES = 1 << 1,
};
#define METACACHE_FLUSH_F_ALL						\
	(METACACHE_FLUSH_F_SUBTREE | METACACHE_FLUSH_F_HANDLES)

/*
 * Top level attributes.
 */
enum metacache_attr {
	METACACHE_A_UNSPEC,
	METACACHE_A_PAD,
	METACACHE_A_VERSION,		/* string: module version, "0.1.0" */
	METACACHE_A_PROTO_VERSION,	/* u32: METACACHE_GENL_VERSION */
	METACACHE_A_HIST_NBUCKETS,	/* u32: METACACHE_HIST_NBUCKETS */
	METACACHE_A_MOUNT_COUNT,	/* u32: metacache mounts now */
	METACACHE_A_DEFAULTS,		/* nest: METACACHE_A_TUN_* */
	METACACHE_A_MOUNT_ID,		/* u32: id of a mount, >= 1 */
	METACACHE_A_MOUNT_PATH,		/* string: path on the mount */
	METACACHE_A_DEV_MAJOR,		/* u32: MAJOR(sb->s_dev) */
	METACACHE_A_DEV_MINOR,		/* u32: MINOR(sb->s_dev) */
	METACACHE_A_LOWER_PATH,		/* string: directory stacked on */
	METACACHE_A_LOWER_SOURCE,	/* string: "server:/export", "//srv/share" */
	METACACHE_A_LOWER_FSTYPE,	/* string: nfs, nfs4, cifs, smb3 ... */
	METACACHE_A_TUNABLES,		/* nest: METACACHE_A_TUN_* */
	METACACHE_A_N_ENTRIES,		/* u64: positive entries cached */
	METACACHE_A_N_NEG,		/* u64: negative entries cached */
	METACACHE_A_N_HANDLES,		/* u64: lower handles kept open */
	METACACHE_A_MEM_BYTES,		/* u64: memory of all caches, bytes */
	METACACHE_A_N_POLICIES,		/* u32: policy rules of the mount */
	METACACHE_A_POLICY,		/* nest: METACACHE_A_POLICY_* */
	METACACHE_A_PATH,		/* string: FLUSH path, mount relative */
	METACACHE_A_FLUSH_FLAGS,	/* u32: enum metacache_flush_flags */
	METACACHE_A_FLUSHED_ENTRIES,	/* u64: entries dropped by FLUSH */
	METACACHE_A_FLUSHED_HANDLES,	/* u64: handles closed by FLUSH */
	METACACHE_A_STATS_AGE_NS,	/* u64: ns since last reset/mount */
	METACACHE_A_CACHE,		/* nest, multi: METACACHE_A_CACHE_* */
	METACACHE_A_OP,			/* nest, multi: METACACHE_A_OP_* */
	METACACHE_A_BENCH,		/* nest: METACACHE_A_BENCH_* */

	__METACACHE_A_LAST
};
#define METACACHE_A_MAX (__METACACHE_A_LAST - 1)

/*
 * Tunables (METACACHE_A_TUNABLES, METACACHE_A_DEFAULTS,
 * METACACHE_A_POLICY_TUNABLES).  Requests carry any subset; what is not
 * given is left as it is.  Replies carry all of them.
 */
enum metacache_tun_attr {
	METACACHE_A_TUN_UNSPEC,
	METACACHE_A_TUN_ENTRY_TTL,	/* u32 s, 0..METACACHE_TTL_MAX */
	METACACHE_A_TUN_NEG_TTL,	/* u32 s, 0..METACACHE_TTL_MAX */
	METACACHE_A_TUN_ATTR_TTL,	/* u32 s, 0..METACACHE_TTL_MAX */
	METACACHE_A_TUN_DIR_TTL,	/* u32 s, 0..METACACHE_TTL_MAX */
	METACACHE_A_TUN_CLOSE_TTL,	/* u32 s, 0..METACACHE_TTL_MAX */
	METACACHE_A_TUN_MAX_ENTRIES,	/* u32, 0..METACACHE_LIMIT_MAX */
	METACACHE_A_TUN_MAX_NEG,	/* u32, 0..METACACHE_LIMIT_MAX */
	METACACHE_A_TUN_MAX_HANDLES,	/* u32, 0..METACACHE_LIMIT_MAX */
	/*
	 * struct nla_bitfield32 of enum metacache_cache_flags: caches switched
	 * off without changing their ttl.  Request: the bits in selector are
	 * set to those of value, the others kept (bits outside
	 * METACACHE_CACHE_F_ALL: EINVAL).  Reply: selector =
	 * METACACHE_CACHE_F_ALL, value = the caches switched off.  A cache
	 * works when its ttl is non-zero and its bit is clear.
	 */
	METACACHE_A_TUN_DISABLED,

	__METACACHE_A_TUN_LAST
};
#define METACACHE_A_TUN_MAX (__METACACHE_A_TUN_LAST - 1)

/* A policy rule (METACACHE_A_POLICY). */
enum metacache_policy_attr {
	METACACHE_A_POLICY_UNSPEC,
	/*
	 * string: the directory, relative to the mount root; a leading "/" is
	 * ignored, "" and "/" are the root.  No "." or ".." components.
	 * Replies give it normalized: "/" or "/a/b".
	 */
	METACACHE_A_POLICY_PATH,
	METACACHE_A_POLICY_FLAGS,	/* u32: enum metacache_policy_flags */
	METACACHE_A_POLICY_TUNABLES,	/* nest: METACACHE_A_TUN_* */

	__METACACHE_A_POLICY_LAST
};
#define METACACHE_A_POLICY_MAX (__METACACHE_A_POLICY_LAST - 1)

/* Counters of one cache (METACACHE_A_CACHE); all u64 but the id. */
enum metacache_cache_attr {
	METACACHE_A_CACHE_UNSPEC,
	METACACHE_A_CACHE_PAD,
	METACACHE_A_CACHE_ID,		/* u32: enum metacache_cache */
	METACACHE_A_CACHE_HITS,		/* answered from a valid entry */
	METACACHE_A_CACHE_MISSES,	/* no valid entry: went to the lower */
	METACACHE_A_CACHE_EXPIRED,	/* entries found past their ttl */
	METACACHE_A_CACHE_RENEWED,	/* expired, revalidated and kept */
	METACACHE_A_CACHE_EVICTED,	/* dropped for a limit or memory */
	METACACHE_A_CACHE_ENTRIES,	/* held now (gauge) */
	METACACHE_A_CACHE_MEM_BYTES,	/* memory held now, bytes (gauge) */

	__METACACHE_A_CACHE_LAST
};
#define METACACHE_A_CACHE_MAX (__METACACHE_A_CACHE_LAST - 1)

/*
 * Statistics of one operation type (METACACHE_A_OP).  CALLS counts calls
 * made to the lower file system; AVOIDED counts calls the VFS made that
 * would have gone to the lower but were answered from a cache.
 * HIST_LOWER holds the latency of each call made (timed around the lower
 * call), so its COUNT matches CALLS.  HIST_CACHE holds that of a random
 * sample of the avoided calls (timed from entry to return of the metacache
 * operation): one in the module parameter served_sample (16 by default,
 * 1 for every call, when its COUNT matches AVOIDED).
 */
enum metacache_op_attr {
	METACACHE_A_OP_UNSPEC,
	METACACHE_A_OP_PAD,
	METACACHE_A_OP_ID,		/* u32: enum metacache_op */
	METACACHE_A_OP_CALLS,		/* u64 */
	METACACHE_A_OP_AVOIDED,		/* u64 */
	METACACHE_A_OP_HIST_CACHE,	/* nest: METACACHE_A_HIST_* */
	METACACHE_A_OP_HIST_LOWER,	/* nest: METACACHE_A_HIST_* */

	__METACACHE_A_OP_LAST
};
#define METACACHE_A_OP_MAX (__METACACHE_A_OP_LAST - 1)

/* A latency histogram (see "Latency histograms" above). */
enum metacache_hist_attr {
	METACACHE_A_HIST_UNSPEC,
	METACACHE_A_HIST_PAD,
	METACACHE_A_HIST_COUNT,		/* u64: samples, sum of the buckets */
	METACACHE_A_HIST_SUM_NS,	/* u64: sum of the samples, ns */
	METACACHE_A_HIST_MAX_NS,	/* u64: largest sample, ns */
	METACACHE_A_HIST_BUCKETS,	/* binary: __u64[<= NBUCKETS] */

	__METACACHE_A_HIST_LAST
};
#define METACACHE_A_HIST_MAX (__METACACHE_A_HIST_LAST - 1)

/*
 * Commands
 * ========
 *
 * METACACHE_CMD_GET_INFO - what the module is.
 *	Request: nothing.
 *	Reply: VERSION, PROTO_VERSION, HIST_NBUCKETS, MOUNT_COUNT, DEFAULTS
 *	(all tunables).
 *	Permission: any user.  Errors: none beyond -ENOMEM/-EMSGSIZE.
 *
 * METACACHE_CMD_MOUNT_GET - describe mounts.
 *	do: request a mount selector; reply one message.
 *	dump: no attributes (a mount selector: EINVAL); one message per
 *	mount, in id order.
 *	Reply: MOUNT_ID, DEV_MAJOR and DEV_MINOR (the device of the mount's
 *	super block, as stat(2) shows it: tools find the mount points in
 *	the caller's /proc/self/mountinfo by "major:minor", which is right
 *	in every mount namespace), MOUNT_PATH (optional: a mount point, when
 *	the module knows one; this module never does), LOWER_PATH (d_path()
 *	in the caller's context), LOWER_SOURCE, LOWER_FSTYPE, TUNABLES (all),
 *	N_ENTRIES, N_NEG, N_HANDLES (the ENTRIES gauge of the entry, neg and
 *	handle caches), MEM_BYTES (of all caches), N_POLICIES.
 *	Permission: any user.  Errors: ENOENT unknown mount; EINVAL no or
 *	two selectors.
 *
 * METACACHE_CMD_MOUNT_SET - change tunables of one mount.
 *	Request: a mount selector, TUNABLES (any non-empty subset).
 *	Reply: ack.  All values are checked before any is applied: either
 *	all change or none.  Takes effect for the next operation on the
 *	mount.  A ttl set to 0, or a DISABLED bit set, switches the cache
 *	off and drops its entries (the handle cache closes its idle lower
 *	handles); a lower limit evicts down to it.
 *	Permission: CAP_SYS_ADMIN.  Errors: ENOENT unknown mount; EINVAL
 *	TUNABLES missing or empty, value out of range; EPERM.
 *
 * METACACHE_CMD_DEFAULTS_GET - the module-wide defaults.
 *	Request: nothing.  Reply: TUNABLES (all).  Permission: any user.
 *
 * METACACHE_CMD_DEFAULTS_SET - change the module-wide defaults.
 *	Request: TUNABLES (any non-empty subset), all or nothing.
 *	Reply: ack.  Applies to mounts made afterwards (mount options still
 *	override them); existing mounts keep their tunables.
 *	Permission: CAP_SYS_ADMIN.  Errors: EINVAL missing, empty or out of
 *	range; EPERM.
 *
 * METACACHE_CMD_POLICY_ADD - a rule on a directory of a mount.
 *	Request: a mount selector, POLICY with POLICY_PATH (required),
 *	POLICY_FLAGS and/or POLICY_TUNABLES (a subset).  BYPASS with
 *	tunables is EINVAL; a rule with neither is EINVAL.
 *	Reply: ack.  Creates the rule, or replaces the rule on the same
 *	path entirely (with NLM_F_EXCL: EEXIST instead).  The directory need
 *	not exist.  For an operation on a name, the rule with the longest
 *	POLICY_PATH that is the name's directory or one of its ancestors
 *	wins; its tunables override the mount's, the ones it does not give
 *	come from the mount (not from a less specific rule).  BYPASS: no
 *	cache is used or filled under the directory.  Adding a rule drops
 *	what is cached under its directory.  Paths are compared component
 *	by component, byte for byte (also on a case-insensitive lower); a
 *	rule stays on its path when the directory is renamed.
 *	Permission: CAP_SYS_ADMIN.  Errors: ENOENT unknown mount; EINVAL bad
 *	path ("." or ".." component, too long), value out of range; ENOSPC
 *	METACACHE_POLICY_MAX rules already; EPERM.
 *
 * METACACHE_CMD_POLICY_DEL - delete the rule on a directory.
 *	Request: a mount selector, POLICY with POLICY_PATH only (anything
 *	else in POLICY: EINVAL).
 *	Reply: ack.  Permission: CAP_SYS_ADMIN.  Errors: ENOENT unknown mount
 *	or no rule on that path; EINVAL; EPERM.
 *
 * METACACHE_CMD_POLICY_GET - the rules of one mount (dump only).
 *	Request: a mount selector (required).
 *	Reply: one message per rule, in path order: MOUNT_ID, POLICY with
 *	POLICY_PATH (normalized), POLICY_FLAGS, POLICY_TUNABLES (only the
 *	tunables the rule sets; DISABLED only if the rule sets some bit).
 *	Permission: any user.  Errors: ENOENT unknown mount; EINVAL.
 *
 * METACACHE_CMD_STATS_GET - statistics (dump only).
 *	Request: a mount selector, or nothing for every mount.
 *	Reply, per mount: first one message with MOUNT_ID, DEV_MAJOR,
 *	DEV_MINOR, MOUNT_PATH (optional), STATS_AGE_NS and one CACHE nest per
 *	cache (every cache, also those
 *	switched off); then one message per operation type, each with
 *	MOUNT_ID and one OP nest (types with nothing counted may be left
 *	out; a histogram with COUNT 0 may be left out).  One OP message is
 *	at most ~2.2 KiB, so it fits any dump skb.  Counters are read
 *	without a global lock: they are not one atomic snapshot.
 *	Permission: any user.  Errors: ENOENT unknown mount; EINVAL.
 *
 * METACACHE_CMD_STATS_RESET - zero the statistics of one mount.
 *	Request: a mount selector.  Reply: ack.  Zeroes hits, misses,
 *	expired, renewed, evicted, calls, avoided and the histograms, and
 *	restarts STATS_AGE_NS; the gauges (entries, memory) are kept.
 *	Permission: CAP_SYS_ADMIN.  Errors: ENOENT; EINVAL; EPERM.
 *
 * METACACHE_CMD_FLUSH - drop cached state.
 *	Request: a mount selector, optional PATH (relative to the mount root
 *	like POLICY_PATH), optional FLUSH_FLAGS.
 *	Without PATH: every entry of every cache of the mount is dropped
 *	(SUBTREE is implied); with PATH: the cached state of that name
 *	(positive or negative entry, attributes, and its listing when it is
 *	a directory), with SUBTREE also of everything cached under it.
 *	With HANDLES the idle lower handles in that scope are closed too;
 *	handles in use are never closed.  A path with nothing cached is not
 *	an error (it is not looked up: a negative entry can be flushed).
 *	The module may drop more than asked (never less).
 *	Reply: FLUSHED_ENTRIES, FLUSHED_HANDLES.
 *	Permission: CAP_SYS_ADMIN.  Errors: ENOENT unknown mount; EINVAL bad
 *	path or flags; EPERM.
 *
 * Command numbers METACACHE_CMD_BENCH_FIRST ... METACACHE_CMD_BENCH_LAST
 * are reserved for the BENCH_* commands of the in-kernel I/O generator
 * (below, "The I/O generator"); METACACHE_A_BENCH is the nest of their
 * attributes.  Other new commands are appended before
 * METACACHE_CMD_BENCH_FIRST.
 */
enum metacache_cmd {
	METACACHE_CMD_UNSPEC,
	METACACHE_CMD_GET_INFO,
	METACACHE_CMD_MOUNT_GET,
	METACACHE_CMD_MOUNT_SET,
	METACACHE_CMD_DEFAULTS_GET,
	METACACHE_CMD_DEFAULTS_SET,
	METACACHE_CMD_POLICY_ADD,
	METACACHE_CMD_POLICY_DEL,
	METACACHE_CMD_POLICY_GET,
	METACACHE_CMD_STATS_GET,
	METACACHE_CMD_STATS_RESET,
	METACACHE_CMD_FLUSH,

	__METACACHE_CMD_LAST
};
#define METACACHE_CMD_MAX (__METACACHE_CMD_LAST - 1)

#define METACACHE_CMD_BENCH_FIRST	32
#define METACACHE_CMD_BENCH_LAST	47

/*
 * The I/O generator
 * =================
 *
 * A job runs a workload in kernel threads on a target directory (any
 * mounted directory, metacache or not), in a fresh working directory
 * ".mcbench-<id>" that it creates there and removes at the end (unless
 * METACACHE_BENCH_F_KEEP).  It never touches anything outside it.  Every
 * file system call is made with the credentials of the process that
 * started the job.  Documentation/generator.md tells how to use it.
 *
 * Every request and reply carries its attributes in one METACACHE_A_BENCH
 * nest (METACACHE_A_BENCH_*); results in METACACHE_A_BENCH_RESULT nests
 * (METACACHE_A_BENCH_RES_*) inside it.
 *
 * Latencies are recorded per worker thread, then merged, in a log-linear
 * histogram finer than the one of the statistics: the same formula with
 * METACACHE_BENCH_HIST_SUB_BITS sub-bucket bits (16 sub-buckets per power
 * of two, bucket width at most 6.25%), METACACHE_BENCH_HIST_NBUCKETS
 * buckets from 64 ns to 2^37 ns plus underflow and overflow.  The module
 * computes the percentiles itself (interpolating inside the bucket, as
 * tools do for the statistics) and also sends the buckets.
 */
#define METACACHE_BENCH_HIST_SUB_BITS	4
#define METACACHE_BENCH_HIST_NBUCKETS					\
	(2 + (METACACHE_HIST_MAX_SHIFT - METACACHE_HIST_MIN_SHIFT) *	\
		(1 << METACACHE_BENCH_HIST_SUB_BITS))		/* 498 */

/* Bounds of the parameters of a job (all inclusive). */
#define METACACHE_BENCH_THREADS_MAX	64
#define METACACHE_BENCH_FILES_MAX	1048576		/* 1 << 20 */
#define METACACHE_BENCH_DIRS_MAX	65536
#define METACACHE_BENCH_FILE_SIZE_MAX	(1ULL << 40)	/* 1 TiB */
#define METACACHE_BENCH_IO_SIZE_MIN	512
#define METACACHE_BENCH_IO_SIZE_MAX	1048576		/* 1 MiB */
#define METACACHE_BENCH_OPS_MAX		(1ULL << 40)
#define METACACHE_BENCH_DURATION_MAX	86400000	/* ms: 24 h */
#define METACACHE_BENCH_JOBS_MAX	8	/* jobs running at once */
#define METACACHE_BENCH_KEEP_DONE	16	/* finished jobs remembered */
#define METACACHE_BENCH_DATA_FILES_MAX	1024	/* files of a data workload */

/* Workloads (METACACHE_A_BENCH_WORKLOAD). */
enum metacache_bench_workload {
	/*
	 * mdtest-like phases, one after the other, each reported: tree
	 * create (mkdir of DIRS directories), file create (open O_CREAT|O_EXCL
	 * + close of FILES files spread over the directories), stat, open +
	 * close, stat of missing names, readdir (+ stat of every entry, one
	 * op per directory), rename (within the directory), unlink, tree
	 * remove.  Stop: every file once; DURATION_MS, if given, caps each
	 * phase; with METACACHE_BENCH_F_STONEWALL a phase ends for every
	 * worker when the first one is done.  OPS is refused.
	 */
	METACACHE_BENCH_WL_MDTEST,
	/*
	 * Mixed metadata over FILES pre-created files (each worker owns
	 * FILES / THREADS of them): MIX_STAT % stat, MIX_OPEN % open + close,
	 * MIX_CREATE % create, MIX_UNLINK % unlink (of the oldest file the
	 * worker owns; a worker never goes below one file: such an unlink is
	 * made a create).  Stop: OPS and/or DURATION_MS.
	 */
	METACACHE_BENCH_WL_MIXED,
	/*
	 * Random IO_SIZE (default 4 KiB) reads and writes, aligned to IO_SIZE,
	 * READ_PCT % reads, over FILES files of FILE_SIZE bytes (page cache,
	 * no O_DIRECT).  Stop: OPS and/or DURATION_MS.
	 */
	METACACHE_BENCH_WL_RANDRW,
	/* Sequential reads of IO_SIZE (default 64 KiB), wrapping at the end. */
	METACACHE_BENCH_WL_SEQREAD,
	/* Sequential writes of IO_SIZE (default 64 KiB), wrapping at the end. */
	METACACHE_BENCH_WL_SEQWRITE,

	/* private: */
	__METACACHE_BENCH_WL_MAX,
	METACACHE_BENCH_WL_MAX = (__METACACHE_BENCH_WL_MAX - 1)
};

/* The operations measured: one result (METACACHE_A_BENCH_RESULT) each. */
enum metacache_bench_op {
	METACACHE_BENCH_OP_TREE_CREATE,	/* mkdir */
	METACACHE_BENCH_OP_CREATE,	/* open(O_CREAT | O_EXCL) + close */
	METACACHE_BENCH_OP_STAT,	/* path lookup + getattr */
	METACACHE_BENCH_OP_OPEN,	/* open(O_RDONLY) + close */
	METACACHE_BENCH_OP_STAT_MISSING,	/* lookup of a missing name */
	METACACHE_BENCH_OP_READDIR,	/* list a directory + stat each entry */
	METACACHE_BENCH_OP_RENAME,	/* rename within a directory */
	METACACHE_BENCH_OP_UNLINK,
	METACACHE_BENCH_OP_TREE_REMOVE,	/* rmdir */
	METACACHE_BENCH_OP_READ,	/* one read of IO_SIZE */
	METACACHE_BENCH_OP_WRITE,	/* one write of IO_SIZE */
	METACACHE_BENCH_OP_ALL,		/* all of a mixed phase together */

	/* private: */
	__METACACHE_BENCH_OP_MAX,
	METACACHE_BENCH_OP_MAX = (__METACACHE_BENCH_OP_MAX - 1)
};

/* What a job is doing, or how it ended (METACACHE_A_BENCH_STATE). */
enum metacache_bench_state {
	METACACHE_BENCH_ST_SETUP,	/* working tree, file set */
	METACACHE_BENCH_ST_WARMUP,	/* the discarded first run */
	METACACHE_BENCH_ST_RUNNING,
	METACACHE_BENCH_ST_CLEANUP,	/* removing the working tree */
	METACACHE_BENCH_ST_DONE,	/* finished: results complete */
	METACACHE_BENCH_ST_STOPPED,	/* BENCH_STOP: results so far */
	METACACHE_BENCH_ST_UNMOUNTED,	/* the target's fs was unmounted */
	METACACHE_BENCH_ST_FAILED,	/* an error: ERRNO, ERR_OP */

	/* private: */
	__METACACHE_BENCH_ST_MAX,
	METACACHE_BENCH_ST_MAX = (__METACACHE_BENCH_ST_MAX - 1)
};

enum metacache_bench_flags {
	METACACHE_BENCH_F_KEEP = 1 << 0,	/* keep the working tree */
	METACACHE_BENCH_F_STONEWALL = 1 << 1,	/* mdtest: first done ends */
	METACACHE_BENCH_F_WARMUP = 1 << 2,	/* a discarded first run */
};
#define METACACHE_BENCH_F_ALL						\
	(METACACHE_BENCH_F_KEEP | METACACHE_BENCH_F_STONEWALL |		\
	 METACACHE_BENCH_F_WARMUP)

/*
 * Attributes of the METACACHE_A_BENCH nest.  Parameters (START request;
 * GET replies repeat them with the defaults filled in):
 *
 *   TARGET       string   an existing writable directory (required)
 *   WORKLOAD     u32      enum metacache_bench_workload (required)
 *   THREADS      u32      1..THREADS_MAX, default 1
 *   FILES        u32      1..FILES_MAX (data: ..DATA_FILES_MAX), default
 *                         100 (data workloads: 4)
 *   DIRS         u32      1..DIRS_MAX, default 1 (mdtest only)
 *   FILE_SIZE    u64      data: IO_SIZE..FILE_SIZE_MAX, default 1 MiB
 *   IO_SIZE      u32      data: IO_SIZE_MIN..IO_SIZE_MAX, a multiple of
 *                         512; default 4 KiB (randrw), 64 KiB (seq*)
 *   OPS          u64      1..OPS_MAX operations per run (all threads)
 *   DURATION_MS  u32      1..DURATION_MAX
 *   FLAGS        u32      enum metacache_bench_flags
 *   READ_PCT     u32      0..100, randrw only, default 50
 *   MIX_STAT, MIX_OPEN, MIX_CREATE, MIX_UNLINK  u32 0..100, mixed only,
 *                         summing to 100; default 70/20/5/5
 */
enum metacache_bench_attr {
	METACACHE_A_BENCH_UNSPEC,
	METACACHE_A_BENCH_PAD,
	METACACHE_A_BENCH_JOB_ID,	/* u32: >= 1 */
	METACACHE_A_BENCH_TARGET,	/* string */
	METACACHE_A_BENCH_WORKLOAD,	/* u32 */
	METACACHE_A_BENCH_THREADS,	/* u32 */
	METACACHE_A_BENCH_FILES,	/* u32 */
	METACACHE_A_BENCH_DIRS,		/* u32 */
	METACACHE_A_BENCH_FILE_SIZE,	/* u64 */
	METACACHE_A_BENCH_IO_SIZE,	/* u32 */
	METACACHE_A_BENCH_OPS,		/* u64 */
	METACACHE_A_BENCH_DURATION_MS,	/* u32 */
	METACACHE_A_BENCH_FLAGS,	/* u32 */
	METACACHE_A_BENCH_READ_PCT,	/* u32 */
	METACACHE_A_BENCH_MIX_STAT,	/* u32 */
	METACACHE_A_BENCH_MIX_OPEN,	/* u32 */
	METACACHE_A_BENCH_MIX_CREATE,	/* u32 */
	METACACHE_A_BENCH_MIX_UNLINK,	/* u32 */
	METACACHE_A_BENCH_WORKDIR,	/* string: working dir, in TARGET */
	METACACHE_A_BENCH_STATE,	/* u32: enum metacache_bench_state */
	METACACHE_A_BENCH_PHASE,	/* u32: enum metacache_bench_op now */
	METACACHE_A_BENCH_ELAPSED_NS,	/* u64: since the start */
	METACACHE_A_BENCH_PHASE_OPS,	/* u64: done in this phase */
	METACACHE_A_BENCH_RATE,		/* u64: ops in the last second */
	METACACHE_A_BENCH_ERRNO,	/* u32: positive errno of a failure */
	METACACHE_A_BENCH_ERR_OP,	/* u32: enum metacache_bench_op */
	METACACHE_A_BENCH_RESULT,	/* nest: METACACHE_A_BENCH_RES_* */

	__METACACHE_A_BENCH_LAST
};
#define METACACHE_A_BENCH_MAX (__METACACHE_A_BENCH_LAST - 1)

/*
 * One measured operation of a job (METACACHE_A_BENCH_RESULT).  ELAPSED_NS
 * is the wall time of the phase it ran in; ops/s = OPS * 1e9 / ELAPSED_NS,
 * MiB/s = BYTES / ELAPSED_NS scaled.  SEC_N, SEC_SUM and SEC_SUMSQ are the
 * count, sum and sum of squares of the operations done in each whole
 * second of the phase (a tool computes the standard deviation of ops/s
 * from them; SEC_N 0: the phase lasted less than a second).  Latencies in
 * ns; percentiles within one bucket (6.25%).  BUCKETS: __u64 array,
 * element i = samples in bucket FIRST_BUCKET + i (leading and trailing
 * zero buckets left out).
 */
enum metacache_bench_res_attr {
	METACACHE_A_BENCH_RES_UNSPEC,
	METACACHE_A_BENCH_RES_PAD,
	METACACHE_A_BENCH_RES_OP,		/* u32: enum metacache_bench_op */
	METACACHE_A_BENCH_RES_OPS,		/* u64 */
	METACACHE_A_BENCH_RES_BYTES,		/* u64 */
	METACACHE_A_BENCH_RES_ENTRIES,		/* u64: readdir: entries seen */
	METACACHE_A_BENCH_RES_ELAPSED_NS,	/* u64 */
	METACACHE_A_BENCH_RES_SUM_NS,		/* u64 */
	METACACHE_A_BENCH_RES_MIN_NS,		/* u64 */
	METACACHE_A_BENCH_RES_MAX_NS,		/* u64 */
	METACACHE_A_BENCH_RES_P50_NS,		/* u64 */
	METACACHE_A_BENCH_RES_P90_NS,		/* u64 */
	METACACHE_A_BENCH_RES_P99_NS,		/* u64 */
	METACACHE_A_BENCH_RES_P999_NS,		/* u64 */
	METACACHE_A_BENCH_RES_SEC_N,		/* u64 */
	METACACHE_A_BENCH_RES_SEC_SUM,		/* u64 */
	METACACHE_A_BENCH_RES_SEC_SUMSQ,	/* u64 */
	METACACHE_A_BENCH_RES_FIRST_BUCKET,	/* u32 */
	METACACHE_A_BENCH_RES_BUCKETS,		/* binary: __u64[] */

	__METACACHE_A_BENCH_RES_LAST
};
#define METACACHE_A_BENCH_RES_MAX (__METACACHE_A_BENCH_RES_LAST - 1)

/*
 * Commands (numbers from METACACHE_CMD_BENCH_FIRST on):
 *
 * METACACHE_CMD_BENCH_START - start a job.
 *	Request: BENCH with the parameters.  Reply: BENCH with JOB_ID and
 *	WORKDIR.  The target is resolved in the caller's context; its
 *	working directory is made before the reply.  Permission:
 *	CAP_SYS_ADMIN.  Errors: EINVAL a parameter that does not fit the
 *	workload or contradicts another (extack names it), ERANGE out of
 *	range (policy), ENOTDIR target not a directory, EROFS read-only,
 *	EBUSY a job already runs on this target, EAGAIN JOBS_MAX jobs run,
 *	EPERM, and the errors of resolving the target and of the mkdir.
 *
 * METACACHE_CMD_BENCH_STOP - ask a job to stop.
 *	Request: BENCH with JOB_ID only.  Reply: ack, at once; the job ends
 *	(STATE STOPPED, its working tree removed unless KEEP) soon after:
 *	poll BENCH_GET.  Stopping a finished job is not an error.
 *	Permission: CAP_SYS_ADMIN.  Errors: ENOENT unknown job; EPERM.
 *
 * METACACHE_CMD_BENCH_GET - status of a job (do: BENCH with JOB_ID) or of
 *	every job remembered (dump, no attributes).  Reply: BENCH with
 *	JOB_ID, the parameters, WORKDIR, STATE, PHASE, ELAPSED_NS,
 *	PHASE_OPS, RATE, and ERRNO and ERR_OP for a failed job.
 *	Permission: any user.  Errors: ENOENT unknown job.
 *
 * METACACHE_CMD_BENCH_RESULTS - results of a job (dump only).
 *	Request: BENCH with JOB_ID.  Reply: one message per measured
 *	operation, in the order they ran: BENCH with JOB_ID, STATE and one
 *	RESULT.  A running job gives the phases finished so far.
 *	Permission: any user.  Errors: ENOENT unknown job.
 *
 * At most METACACHE_BENCH_JOBS_MAX jobs run at once, one per target
 * directory; the last METACACHE_BENCH_KEEP_DONE finished jobs are
 * remembered.  A job ends by itself, on BENCH_STOP, when the file system
 * of its target is no longer mounted anywhere (the unmount is not held
 * up), and on module unload.
 */
enum metacache_bench_cmd {
	METACACHE_CMD_BENCH_START = METACACHE_CMD_BENCH_FIRST,
	METACACHE_CMD_BENCH_STOP,
	METACACHE_CMD_BENCH_GET,
	METACACHE_CMD_BENCH_RESULTS,
};

#endif /* _UAPI_LINUX_METACACHE_H */
