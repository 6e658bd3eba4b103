/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcstats.h - read a metacache mount's counters from debugfs.
 *
 * The module publishes, per mount, /sys/kernel/debug/metacache/<id>/:
 *
 *   info    "dev <major>:<minor>" (the mount's st_dev) and "lower <path>"
 *   stats   "op <name> calls <n> avoided <n> total_ns <n>"   (one per op)
 *           "cache <entry|neg|attr|dir> hits <n> misses <n> expired <n>
 *            renewed <n> evicted <n> entries <n> bytes <n>" (one per cache)
 *   flush   writing "1" drops all cached state of the mount
 *
 * mcs_open() finds the directory of the mount that a path lives on (by
 * st_dev), mcs_read() takes a snapshot, mcs_sub() makes the difference of
 * two snapshots (counters: b - a; the gauges "entries" and "bytes": b's
 * value).  Used by the cache tests (tests/cache/) and by mdbench
 * (tests/bench/).  Plain C, no dependency on the test harness.
 */
#ifndef MCSTATS_H
#define MCSTATS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define MCS_DEBUGFS	"/sys/kernel/debug/metacache"
#define MCS_SUPER_MAGIC	0x4d434348UL	/* statfs f_type of metacache */

enum mcs_op {
	MCS_LOOKUP, MCS_REVALIDATE, MCS_GETATTR, MCS_SETATTR, MCS_PERMISSION,
	MCS_CREATE, MCS_MKDIR, MCS_MKNOD, MCS_SYMLINK, MCS_LINK, MCS_UNLINK,
	MCS_RMDIR, MCS_RENAME, MCS_OPEN, MCS_RELEASE, MCS_READ, MCS_WRITE,
	MCS_READDIR, MCS_FSYNC, MCS_XATTR, MCS_LOCK, MCS_IOCTL, MCS_STATFS,
	MCS_OTHER,
	MCS_OP_NR
};

/* MCS_HANDLE: open lower files kept after close (deferred close). */
enum mcs_cache { MCS_ENTRY, MCS_NEG, MCS_ATTR, MCS_DIR, MCS_HANDLE, MCS_CACHE_NR };

/* Bit masks of ops, for mcs_calls()/mcs_avoided(). */
#define MCS_BIT(op)	(1ULL << (op))
/* What a stat() of a path can cost the lower: the metadata ops. */
#define MCS_META	(MCS_BIT(MCS_LOOKUP) | MCS_BIT(MCS_REVALIDATE) | \
			 MCS_BIT(MCS_GETATTR))
#define MCS_ALL		((1ULL << MCS_OP_NR) - 1)

extern const char *const mcs_op_names[MCS_OP_NR];
extern const char *const mcs_cache_names[MCS_CACHE_NR];

struct mcs_opc {
	uint64_t calls;		/* calls that reached the lower */
	uint64_t avoided;	/* calls answered from the cache */
	uint64_t total_ns;	/* time spent in the lower calls */
};

struct mcs_cachec {
	uint64_t hits, misses, expired, renewed, evicted;
	uint64_t entries, bytes;	/* gauges */
};

struct mcs {
	struct mcs_opc op[MCS_OP_NR];
	struct mcs_cachec cache[MCS_CACHE_NR];
	uint64_t ops_seen;	/* bit per op line found */
	unsigned int caches_seen; /* bit per cache line found */
	int old_format;		/* "name calls total_ns" lines (no caches) */
};

struct mcs_mount {
	char dir[PATH_MAX];	/* /sys/kernel/debug/metacache/<id> */
	unsigned int id;
	int by;			/* 0: matched by "dev", 1: by "lower" path */
};

/*
 * Find the debugfs directory of the metacache mount that PATH is on.
 * Returns 0, or -ENODEV (debugfs or the metacache directory missing),
 * -ENOENT (no mount matches), -ENOTUNIQ (several match the fallback),
 * -errno of stat(PATH).  When no info file has a "dev" line, falls back to
 * matching "lower <path>" against the mount's source in mountinfo.
 * WHY (optional) gets a human-readable reason on failure.
 */
int mcs_open(struct mcs_mount *m, const char *path, char *why, size_t whylen);

/* Snapshot the counters: 0 or -errno. */
int mcs_read(const struct mcs_mount *m, struct mcs *s);

/* Drop all cached state of the mount: 0 or -errno. */
int mcs_flush(const struct mcs_mount *m);

/* d = b - a for the counters, d = b for the gauges (entries, bytes). */
void mcs_sub(struct mcs *d, const struct mcs *b, const struct mcs *a);

/* Sums over a mask of ops. */
uint64_t mcs_calls(const struct mcs *s, uint64_t mask);
uint64_t mcs_avoided(const struct mcs *s, uint64_t mask);

/* "lookup=3 getattr=1" for the ops with calls (or "none"): for messages. */
const char *mcs_fmt_calls(const struct mcs *d, char *buf, size_t len);
/* "entry h2/m0/x0/e0 n=5 ..." for the caches: for messages. */
const char *mcs_fmt_caches(const struct mcs *d, char *buf, size_t len);

/* Is PATH on a metacache mount (statfs magic)? 1, 0, or -errno. */
int mcs_is_metacache(const char *path);

/*
 * snprintf() without -Wformat-truncation's opinion on long paths: the
 * callers check the result themselves where truncation matters.
 */
int mcs_snp(char *dst, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* MCSTATS_H */
