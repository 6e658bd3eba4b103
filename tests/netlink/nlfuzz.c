// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: a netlink fuzzer for the metacache generic netlink family
 * (issue 9, reliability lane).  It sends MC_FUZZ_MSGS (default 100000)
 * randomized and mutated messages, as root (4/5 of them, from
 * MC_FUZZ_PROCS processes at once, default 2, each on its own socket:
 * the family is parallel_ops) and as an unprivileged user (1/5), while a
 * workload process works in a fresh directory of the mount, and checks
 * that
 *
 *   - every message gets its answer (an ack, an error, a dump's DONE, or,
 *     for a message that asks for none, nothing before the ack of a
 *     NLMSG_NOOP sent after it): a reply that never comes is a hang,
 *     reported after MC_FUZZ_TIMEOUT seconds (default 20);
 *   - the unprivileged user never gets a changing command through, and
 *     the defaults, the mount's tunables, its rules and its statistics
 *     are the same after its phase;
 *   - the workload (create, stat, open, read, readdir, unlink, stat of a
 *     missing name, in a loop) sees exactly the answers it must;
 *   - after the fuzz, with the tunables and defaults restored, the family
 *     still answers correctly.
 *
 * Leaks, oopses and warnings are the test bed's to catch (slub_debug,
 * panic_on_warn; kmemleak in `make check-debug`).
 *
 * Messages: (a) fully random (any command number, flags, attribute tree);
 * (b) a valid request of every real command, generator (BENCH_*) and
 * policy commands included, then mutated: bit flips, interesting bytes,
 * truncation, nla_len too big, too small or odd, duplicated attributes,
 * retyped attributes, garbage nests, deep nests, huge strings with and
 * without NUL, integers at their bounds, resized payloads, netlink and
 * genetlink header fields.  The seed is printed; MC_FUZZ_SEED replays it.
 *
 * Safety: nlmsg_type is always the family's or a control type (never
 * another generic netlink family); a message's length is never mutated
 * so that a second message follows it.  A generator job started by a
 * fuzzed BENCH_START is stopped at once, and every BENCH_TARGET of a
 * message is checked just before it is sent: a target that resolves to a
 * directory outside the test directory is made a nonexistent name.
 *
 * Environment: the test bed's mount mode (MC_UPPER on MC_LOWER);
 * MC_TEST_UID/MC_TEST_GID; MC_FUZZ_MSGS, MC_FUZZ_SEED, MC_FUZZ_TIMEOUT,
 * MC_FUZZ_PROCS.
 */
#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"
#include "nllib.h"

#define NERR		4096
#define MAX_ATTRS	512
#define MSG_MAX		(96 * 1024)	/* below the socket's send buffer */

/* Counters, in shared memory: the unprivileged phase runs in a child. */
struct fz_stats {
	unsigned long sent;
	unsigned long gen_random, gen_valid, gen_mutated, hdr_mutated;
	unsigned long err[NERR];	/* replies by -error (0: success) */
	unsigned long err_other;	/* errors outside 0..NERR-1 */
	unsigned long no_reply;		/* none asked for, none came */
	unsigned long data;		/* data messages */
	unsigned long dumps;		/* ended by NLMSG_DONE */
	unsigned long stray;		/* answers to nothing we sent */
	unsigned long send_err[NERR];	/* sendto() errors */
	unsigned long recv_enobufs;
	unsigned long jobs_started, control;
	unsigned long priv_accepted;	/* unprivileged: changes let through */
	unsigned long priv_wrong;	/* unprivileged: another error */
	int hang;			/* no answer in time */
	char hang_what[256];
};

/* The workload's findings, in shared memory. */
struct wl_stats {
	volatile int stop;
	unsigned long loops, ops, enoent_expected;
	unsigned long unexpected;
	char first[8][160];
};

#define NPROC_MAX	4
static struct fz_stats *st;	/* this process's slot of shm */
static struct fz_stats *shm;	/* NPROC_MAX root slots, one unprivileged */
static struct fz_stats total;
static struct wl_stats *wl;
static struct nl_sock S;
static uint32_t ID;		/* the mount's id */
static uint16_t FAMILY;
static const char *upper;
static char testdir[PATH_MAX], gendir[PATH_MAX], wldir[PATH_MAX];
static int timeout_s = 20;
static int unpriv;		/* in the unprivileged phase */
static uint32_t jobs[16];	/* recent generator job ids */

/* ------------------------------------------------------------ random */

static uint64_t rs;

static uint64_t rnd64(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint32_t rn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

#define PICK(a) ((a)[rn(sizeof(a) / sizeof((a)[0]))])

static uint32_t u32_edge(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 63, 64, 100, 101, 255, 256,
		511, 512, 513, 4095, 4096, 65535, 65536, 1048576, 1048577,
		METACACHE_TTL_MAX, METACACHE_TTL_MAX + 1,
		METACACHE_LIMIT_MAX, METACACHE_LIMIT_MAX + 1,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};

	return rn(4) ? PICK(v) : rnd();
}

static uint64_t u64_edge(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 511, 512, 4096, 1ULL << 20, 1ULL << 32,
		(1ULL << 40) - 1, 1ULL << 40, (1ULL << 40) + 1,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
	};

	return rn(4) ? PICK(v) : rnd64();
}

static uint32_t pick_id(void)
{
	static const uint32_t v[] = { 0, 1, 2, 0x7fffffff, 0xfffffffe,
				      0xffffffff };

	switch (rn(10)) {
	case 0: return PICK(v);
	case 1: return ID + 1;
	case 2: return ID - 1;
	case 3: return rnd();
	default: return ID;
	}
}

/* ------------------------------------------------------------- paths */

static char longpath[8192], longcomp[300];

static const char *pick_mount_path(void)
{
	static char buf[PATH_MAX + 64];

	switch (rn(16)) {
	case 0: return "/";
	case 1: return "";
	case 2: return ".";
	case 3: return "..";
	case 4: return "/nonexistent/metacache/fuzz";
	case 5: return mc_env("MC_LOWER") ?: "/tmp";
	case 6: return "loop";			/* a symlink loop */
	case 7: return "wl";
	case 8: return longcomp;
	case 9:
		snprintf(buf, sizeof(buf), "%s/%s", upper, longcomp);
		return buf;
	case 10:
		return longpath + sizeof(longpath) - METACACHE_PATH_MAX;
	case 11: return "/proc/self/cwd";
	case 12:
		snprintf(buf, sizeof(buf), "%s/../..", upper);
		return buf;
	case 13: return testdir;
	default: return upper;
	}
}

/* A mount-relative path (rules, flush). */
static const char *pick_rel_path(void)
{
	static const char *v[] = {
		"/", "", "/fz", "fz/a/", "//fz//b", "/fz/./x", "/fz/../x",
		"..", ".", "/wl", "wl/f1", "/nonexistent/x", "a\xff\xfe",
		"/fz/c/d/e/f/g/h/i/j/k/l/m/n/o/p", "gen",
	};

	switch (rn(12)) {
	case 0: return longcomp;
	case 1: return longpath + sizeof(longpath) - METACACHE_PATH_MAX;
	case 2: return longpath + sizeof(longpath) - METACACHE_PATH_MAX - 1;
	default: return PICK(v);
	}
}

static const char *pick_target(void)
{
	switch (rn(8)) {
	case 0: return "nope/x";
	case 1: return "wl/notadir";
	case 2: return "gen/";
	case 3: return "";
	case 4: return "loop";
	case 5: return "gen";
	default: return gendir;
	}
}

/* -------------------------------------------------------- valid ones */

static struct nl_req M;

static void put_tun(struct nl_req *m, uint16_t type)
{
	int a, n = 0;

	nl_nest(m, type);
	for (a = METACACHE_A_TUN_ENTRY_TTL; a < METACACHE_A_TUN_DISABLED; a++) {
		uint32_t v;

		if (rn(3))
			continue;
		n++;
		if (rn(3))
			v = a <= METACACHE_A_TUN_CLOSE_TTL ? rn(10) : 16 + rn(5000);
		else
			v = u32_edge();
		nl_put_u32(m, (uint16_t)a, v);
	}
	if (!n || !rn(4))
		nl_put_bf32(m, METACACHE_A_TUN_DISABLED,
			    rn(4) ? rn(32) : rnd(), rn(4) ? rn(32) : rnd());
	nl_nest_end(m);
}

static void put_selector(struct nl_req *m)
{
	switch (rn(10)) {
	case 0:
		nl_put_str(m, METACACHE_A_MOUNT_PATH, pick_mount_path());
		break;
	case 1:
		break;				/* none */
	case 2:
		nl_put_u32(m, METACACHE_A_MOUNT_ID, pick_id());
		nl_put_str(m, METACACHE_A_MOUNT_PATH, upper);
		break;
	default:
		nl_put_u32(m, METACACHE_A_MOUNT_ID, pick_id());
	}
}

static void put_bench(struct nl_req *m, uint8_t cmd)
{
	uint32_t wlk = rn(12) ? rn(METACACHE_BENCH_WL_MAX + 1) : u32_edge();

	nl_nest(m, METACACHE_A_BENCH);
	if (cmd != METACACHE_CMD_BENCH_START) {
		if (rn(8))
			nl_put_u32(m, METACACHE_A_BENCH_JOB_ID,
				   rn(2) ? PICK(jobs) : u32_edge());
		nl_nest_end(m);
		return;
	}
	nl_put_str(m, METACACHE_A_BENCH_TARGET, pick_target());
	nl_put_u32(m, METACACHE_A_BENCH_WORKLOAD, wlk);
	if (rn(2))
		nl_put_u32(m, METACACHE_A_BENCH_THREADS, 1 + rn(2));
	if (rn(2))
		nl_put_u32(m, METACACHE_A_BENCH_FILES, 1 + rn(4));
	if (wlk == METACACHE_BENCH_WL_MDTEST) {
		if (rn(2))
			nl_put_u32(m, METACACHE_A_BENCH_DIRS, 1 + rn(2));
		nl_put_u32(m, METACACHE_A_BENCH_DURATION_MS, 20 + rn(50));
	} else {
		uint64_t ops = 1 + rn(20);

		nl_put(m, METACACHE_A_BENCH_OPS, &ops, 8);
		if (rn(2))
			nl_put_u32(m, METACACHE_A_BENCH_DURATION_MS, 50);
	}
	if (wlk >= METACACHE_BENCH_WL_RANDRW) {
		uint64_t fs = 4096ULL << rn(4);

		nl_put(m, METACACHE_A_BENCH_FILE_SIZE, &fs, 8);
		nl_put_u32(m, METACACHE_A_BENCH_IO_SIZE, 512U << rn(4));
		if (wlk == METACACHE_BENCH_WL_RANDRW && rn(2))
			nl_put_u32(m, METACACHE_A_BENCH_READ_PCT, rn(101));
	}
	if (wlk == METACACHE_BENCH_WL_MIXED && rn(2)) {
		nl_put_u32(m, METACACHE_A_BENCH_MIX_STAT, 40);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_OPEN, 30);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_CREATE, 20);
		nl_put_u32(m, METACACHE_A_BENCH_MIX_UNLINK, 10);
	}
	if (rn(3))
		nl_put_u32(m, METACACHE_A_BENCH_FLAGS,
			   rn(4) ? rn(METACACHE_BENCH_F_ALL + 1) : u32_edge());
	nl_nest_end(m);
}

static const uint8_t cmds[] = {
	METACACHE_CMD_GET_INFO, METACACHE_CMD_MOUNT_GET,
	METACACHE_CMD_MOUNT_SET, METACACHE_CMD_DEFAULTS_GET,
	METACACHE_CMD_DEFAULTS_SET, METACACHE_CMD_POLICY_ADD,
	METACACHE_CMD_POLICY_DEL, METACACHE_CMD_POLICY_GET,
	METACACHE_CMD_STATS_GET, METACACHE_CMD_STATS_RESET,
	METACACHE_CMD_FLUSH, METACACHE_CMD_BENCH_START,
	METACACHE_CMD_BENCH_STOP, METACACHE_CMD_BENCH_GET,
	METACACHE_CMD_BENCH_RESULTS,
};

static int is_dump_cmd(uint8_t cmd)
{
	return cmd == METACACHE_CMD_POLICY_GET ||
	       cmd == METACACHE_CMD_STATS_GET ||
	       cmd == METACACHE_CMD_BENCH_RESULTS;
}

static int is_changing(uint8_t cmd)
{
	return cmd == METACACHE_CMD_MOUNT_SET ||
	       cmd == METACACHE_CMD_DEFAULTS_SET ||
	       cmd == METACACHE_CMD_POLICY_ADD ||
	       cmd == METACACHE_CMD_POLICY_DEL ||
	       cmd == METACACHE_CMD_STATS_RESET ||
	       cmd == METACACHE_CMD_FLUSH ||
	       cmd == METACACHE_CMD_BENCH_START ||
	       cmd == METACACHE_CMD_BENCH_STOP;
}

/* A well-formed request of a real command (mostly valid values). */
static void build_valid(struct nl_req *m)
{
	uint8_t cmd = PICK(cmds);
	uint16_t flags = is_dump_cmd(cmd) ? NLM_F_DUMP : 0;

	if ((cmd == METACACHE_CMD_MOUNT_GET || cmd == METACACHE_CMD_BENCH_GET)
	    && !rn(3))
		flags = NLM_F_DUMP;
	if (cmd == METACACHE_CMD_POLICY_ADD && !rn(4))
		flags |= NLM_F_EXCL | NLM_F_CREATE;
	nl_req_in(m, FAMILY, flags, cmd, METACACHE_GENL_VERSION, 0);
	switch (cmd) {
	case METACACHE_CMD_MOUNT_GET:
		if (!(flags & NLM_F_DUMP))
			put_selector(m);
		break;
	case METACACHE_CMD_MOUNT_SET:
		put_selector(m);
		put_tun(m, METACACHE_A_TUNABLES);
		break;
	case METACACHE_CMD_DEFAULTS_SET:
		put_tun(m, METACACHE_A_TUNABLES);
		break;
	case METACACHE_CMD_POLICY_ADD:
	case METACACHE_CMD_POLICY_DEL:
		put_selector(m);
		nl_nest(m, METACACHE_A_POLICY);
		nl_put_str(m, METACACHE_A_POLICY_PATH, pick_rel_path());
		if (cmd == METACACHE_CMD_POLICY_ADD) {
			if (rn(2))
				nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
					   rn(4) ? rn(2) : u32_edge());
			if (rn(2))
				put_tun(m, METACACHE_A_POLICY_TUNABLES);
		}
		nl_nest_end(m);
		break;
	case METACACHE_CMD_POLICY_GET:
	case METACACHE_CMD_STATS_RESET:
		put_selector(m);
		break;
	case METACACHE_CMD_STATS_GET:
		if (rn(2))
			put_selector(m);
		break;
	case METACACHE_CMD_FLUSH:
		put_selector(m);
		if (rn(2))
			nl_put_str(m, METACACHE_A_PATH, pick_rel_path());
		if (rn(2))
			nl_put_u32(m, METACACHE_A_FLUSH_FLAGS,
				   rn(4) ? rn(4) : u32_edge());
		break;
	case METACACHE_CMD_BENCH_START:
	case METACACHE_CMD_BENCH_STOP:
	case METACACHE_CMD_BENCH_RESULTS:
		put_bench(m, cmd);
		break;
	case METACACHE_CMD_BENCH_GET:
		if (!(flags & NLM_F_DUMP))
			put_bench(m, cmd);
		break;
	}
}

/* ------------------------------------------------------ fully random */

static void rand_payload(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

static void rand_attrs(struct nl_req *m, int depth)
{
	static unsigned char payload[700];
	int n = (int)rn(6), i;

	for (i = 0; i < n && m->len < 16000; i++) {
		uint16_t type = (uint16_t)(rn(8) ? rn(40) : rnd());
		size_t len;

		if (depth < 8 && !rn(3)) {
			nl_nest(m, type & NLA_TYPE_MASK);
			if (!rn(6))	/* the nest flag lost */
				((struct nlattr *)(m->buf + m->nest[m->depth - 1]))
					->nla_type &= ~NLA_F_NESTED;
			rand_attrs(m, depth + 1);
			nl_nest_end(m);
			continue;
		}
		switch (rn(6)) {
		case 0:
			nl_put_u32(m, type, u32_edge());
			break;
		case 1: {
			uint64_t v = u64_edge();

			nl_put(m, type, &v, 8);
			break;
		}
		case 2:
			nl_put_str(m, type, rn(2) ? pick_mount_path() :
				   pick_rel_path());
			break;
		default:
			len = rn(8) ? rn(16) : rn(sizeof(payload));
			rand_payload(payload, len);
			nl_put(m, type, payload, len);
		}
	}
}

static uint16_t rand_flags(void)
{
	static const uint16_t f[] = {
		NLM_F_ACK, NLM_F_ECHO, NLM_F_DUMP, NLM_F_ROOT, NLM_F_MATCH,
		NLM_F_ATOMIC, NLM_F_EXCL, NLM_F_CREATE, NLM_F_APPEND,
		NLM_F_DUMP_INTR, NLM_F_DUMP_FILTERED, NLM_F_NONREC, 0x1000,
		0x8000,
	};
	uint16_t v = NLM_F_REQUEST;
	int i, n = (int)rn(4);

	if (!rn(3))
		v |= NLM_F_ACK;
	for (i = 0; i < n; i++)
		v |= PICK(f);
	if (!rn(20))
		v &= (uint16_t)~NLM_F_REQUEST;
	if (!rn(50))
		v = (uint16_t)rnd();
	return v;
}

static void build_random(struct nl_req *m)
{
	uint8_t cmd = rn(3) ? PICK(cmds) : (uint8_t)rnd();

	nl_req_in(m, FAMILY, 0, cmd, rn(8) ? METACACHE_GENL_VERSION :
		  (uint8_t)rnd(), rn(10) ? 0 : (uint16_t)rnd());
	((struct nlmsghdr *)m->buf)->nlmsg_flags = rand_flags();
	rand_attrs(m, 0);
}

/* ---------------------------------------------------------- mutation */

struct attr_ref {
	uint32_t off;
	int parent;		/* index in the table, -1 at the top */
};

static struct attr_ref at[MAX_ATTRS];
static int nat;

/* Every attribute that parses, nests looked into (also without flag). */
static void scan(struct nl_req *m, uint32_t start, uint32_t end, int parent,
		 int depth)
{
	uint32_t off = start;

	while (off + NLA_HDRLEN <= end && nat < MAX_ATTRS) {
		struct nlattr *a = (struct nlattr *)(m->buf + off);
		int me;

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > end)
			return;
		me = nat++;
		at[me].off = off;
		at[me].parent = parent;
		if (a->nla_len >= 2 * NLA_HDRLEN && depth < 12)
			scan(m, off + NLA_HDRLEN, off + a->nla_len, me,
			     depth + 1);
		off += NLA_ALIGN(a->nla_len);
	}
}

static void rescan(struct nl_req *m)
{
	nat = 0;
	scan(m, NLMSG_HDRLEN + GENL_HDRLEN, (uint32_t)m->len, -1, 0);
}

static struct nlattr *attr_at(struct nl_req *m, int i)
{
	return (struct nlattr *)(m->buf + at[i].off);
}

/* Make room for @n bytes at @pos, growing the nests around it. */
static int insert_at(struct nl_req *m, int parent, uint32_t pos, size_t n)
{
	int p;

	if (m->len + n > MSG_MAX || pos > m->len)
		return -1;
	for (p = parent; p >= 0; p = at[p].parent)
		if (attr_at(m, p)->nla_len + n > 0xffff)
			return -1;
	memmove(m->buf + pos + n, m->buf + pos, m->len - pos);
	m->len += n;
	for (p = parent; p >= 0; p = at[p].parent)
		attr_at(m, p)->nla_len += (uint16_t)n;
	return 0;
}

/* Insert a whole attribute (header included) before attribute @i. */
static void insert_attr(struct nl_req *m, int i, const void *attr, size_t n)
{
	uint32_t pos = i >= 0 ? at[i].off : (uint32_t)m->len;
	int parent = i >= 0 ? at[i].parent : -1;

	if (insert_at(m, parent, pos, NLA_ALIGN(n)))
		return;
	memset(m->buf + pos, 0, NLA_ALIGN(n));
	memcpy(m->buf + pos, attr, n);
}

static unsigned char tmp[70000];

/* A nest of garbage, @depth nests deep. */
static size_t make_garbage_nest(unsigned char *b, size_t room, int depth)
{
	struct nlattr *a = (struct nlattr *)b;
	size_t len = NLA_HDRLEN;

	a->nla_type = (uint16_t)(rn(40) | (rn(5) ? NLA_F_NESTED : 0));
	if (depth > 0 && room > 64) {
		len += make_garbage_nest(b + len, room - 64, depth - 1);
		len = NLA_ALIGN(len);
	}
	while (rn(3) && len + 40 < room) {
		struct nlattr *x = (struct nlattr *)(b + len);
		size_t pl = rn(20);

		x->nla_type = (uint16_t)(rn(8) ? rn(40) : rnd());
		x->nla_len = (uint16_t)(NLA_HDRLEN + pl);
		rand_payload(b + len + NLA_HDRLEN, pl);
		len += NLA_ALIGN(NLA_HDRLEN + pl);
	}
	a->nla_len = (uint16_t)len;
	return len;
}

/* A string attribute: huge, without NUL, exactly at the limit... */
static size_t make_string_attr(unsigned char *b, uint16_t type)
{
	static const size_t sizes[] = {
		0, 1, 255, 256, METACACHE_PATH_MAX - 1, METACACHE_PATH_MAX,
		METACACHE_PATH_MAX + 1, 8192, 65000,
	};
	struct nlattr *a = (struct nlattr *)b;
	size_t n = PICK(sizes), i;

	for (i = 0; i < n; i++)
		b[NLA_HDRLEN + i] = rn(16) ? 'a' + (char)rn(26) : '/';
	if (n && rn(2))
		b[NLA_HDRLEN + n - 1] = 0;	/* with its NUL */
	else if (n && !rn(4))
		b[NLA_HDRLEN + rn((uint32_t)n)] = 0;	/* one in the middle */
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + n);
	return NLA_HDRLEN + n;
}

static void mutate_once(struct nl_req *m)
{
	uint32_t alen = m->len > NLMSG_HDRLEN + GENL_HDRLEN ?
			(uint32_t)m->len - NLMSG_HDRLEN - GENL_HDRLEN : 0;
	struct nlattr *a;
	int i;

	rescan(m);
	i = nat ? (int)rn((uint32_t)nat) : -1;
	a = i >= 0 ? attr_at(m, i) : NULL;
	switch (rn(13)) {
	case 0:		/* bit flips */
		if (alen) {
			int k, n = 1 + (int)rn(4);

			for (k = 0; k < n; k++)
				m->buf[NLMSG_HDRLEN + GENL_HDRLEN + rn(alen)] ^=
					(unsigned char)(1U << rn(8));
		}
		break;
	case 1: {	/* an interesting byte */
		static const unsigned char v[] = { 0, 0xff, 0x7f, 0x80, '/',
						   '.', 1, 4 };

		if (alen)
			m->buf[NLMSG_HDRLEN + GENL_HDRLEN + rn(alen)] = PICK(v);
		break;
	}
	case 2:		/* truncated */
		if (alen)
			m->len = NLMSG_HDRLEN + GENL_HDRLEN + rn(alen);
		else if (!rn(4))
			m->len = NLMSG_HDRLEN + rn(GENL_HDRLEN);
		break;
	case 3:		/* nla_len: too small, too big, odd */
		if (a) {
			static const int d[] = { -1, -2, -3, 1, 2, 3, 4, -4,
						 100, 4096 };

			switch (rn(4)) {
			case 0: a->nla_len = (uint16_t)rn(NLA_HDRLEN); break;
			case 1: a->nla_len = 0xffff; break;
			default:
				a->nla_len = (uint16_t)(a->nla_len + PICK(d));
			}
		}
		break;
	case 4:		/* duplicated */
		if (a) {
			memcpy(tmp, a, a->nla_len);
			insert_attr(m, rn(2) ? i : -1, tmp, a->nla_len);
		}
		break;
	case 5:		/* retyped */
		if (a) {
			switch (rn(4)) {
			case 0: a->nla_type ^= NLA_F_NESTED; break;
			case 1: a->nla_type ^= NLA_F_NET_BYTEORDER; break;
			case 2: a->nla_type = (uint16_t)rnd(); break;
			default:
				a->nla_type = (uint16_t)((a->nla_type &
					~NLA_TYPE_MASK) | rn(40));
			}
		}
		break;
	case 6: {	/* a nest of garbage, maybe deep */
		size_t n = make_garbage_nest(tmp, 4000, (int)rn(rn(3) ? 3 : 40));

		insert_attr(m, rn(3) ? i : -1, tmp, n);
		break;
	}
	case 7: {	/* a huge or odd string */
		static const uint16_t types[] = {
			METACACHE_A_MOUNT_PATH, METACACHE_A_PATH,
			METACACHE_A_POLICY_PATH, METACACHE_A_BENCH_TARGET,
		};
		uint16_t type = a && rn(2) ? a->nla_type : PICK(types);
		size_t n = make_string_attr(tmp, type);

		insert_attr(m, rn(2) ? i : -1, tmp, n);
		break;
	}
	case 8:		/* an integer at its edges */
		if (a && a->nla_len == NLA_HDRLEN + 4) {
			uint32_t v = u32_edge();

			memcpy(nl_data(a), &v, 4);
		} else if (a && a->nla_len == NLA_HDRLEN + 8) {
			uint64_t v = u64_edge();

			memcpy(nl_data(a), &v, 8);
		}
		break;
	case 9:		/* payload resized (the nests around it follow) */
		if (a && a->nla_len <= 4096) {
			size_t n = 1 + rn(8);
			uint32_t end = at[i].off + NLA_ALIGN(a->nla_len);

			if (rn(2) && a->nla_len > NLA_HDRLEN) {
				a->nla_len = (uint16_t)(a->nla_len - 1 - rn(
					a->nla_len - NLA_HDRLEN));
			} else if (!insert_at(m, i, end, NLA_ALIGN(n))) {
				rand_payload(m->buf + end, NLA_ALIGN(n));
				/* insert_at() grew it by the aligned size */
				a = attr_at(m, i);
				a->nla_len = (uint16_t)(a->nla_len -
					NLA_ALIGN(n) + n);
			}
		}
		break;
	case 10:	/* a random attribute anywhere */
		if (1) {
			struct nlattr *x = (struct nlattr *)tmp;
			size_t pl = rn(3) ? 4 * rn(3) : rn(64);

			x->nla_type = (uint16_t)rn(40);
			x->nla_len = (uint16_t)(NLA_HDRLEN + pl);
			rand_payload(tmp + NLA_HDRLEN, pl);
			insert_attr(m, rn(2) ? i : -1, tmp, NLA_HDRLEN + pl);
		}
		break;
	case 11:	/* an attribute removed (the nests shrink) */
		if (a) {
			uint32_t n = NLA_ALIGN(a->nla_len), pos = at[i].off;
			int p;

			if (pos + n > m->len)
				break;
			for (p = at[i].parent; p >= 0; p = at[p].parent)
				attr_at(m, p)->nla_len -= (uint16_t)n;
			memmove(m->buf + pos, m->buf + pos + n,
				m->len - pos - n);
			m->len -= n;
		}
		break;
	default:	/* swapped with another command's attributes */
		((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->cmd =
			rn(4) ? PICK(cmds) : (uint8_t)rnd();
	}
}

/* Netlink and genetlink header fields. */
static void mutate_header(struct nl_req *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);

	switch (rn(6)) {
	case 0: h->nlmsg_flags = rand_flags(); break;
	case 1: g->reserved = (uint16_t)(rn(2) ? 1 : rnd()); break;
	case 2: g->version = (uint8_t)rnd(); break;
	case 3: g->cmd = (uint8_t)rnd(); break;
	case 4: h->nlmsg_pid = rnd(); break;
	default:
		/* a control message type: skipped by the kernel */
		h->nlmsg_type = (uint16_t)rn(NLMSG_MIN_TYPE);
	}
}

/* ---------------------------------------------- generator job safety */

static int target_safe(const char *s)
{
	char real[PATH_MAX];
	size_t n = strlen(testdir);
	struct stat sb;

	if (stat(s, &sb))
		return 1;		/* does not resolve */
	if (!S_ISDIR(sb.st_mode))
		return 1;
	if (!realpath(s, real))
		return 0;
	return !strncmp(real, testdir, n) && (!real[n] || real[n] == '/');
}

/* Make every BENCH_TARGET of the message that is not safe nonexistent. */
static void sanitize(struct nl_req *m, uint32_t len)
{
	uint32_t off = NLMSG_HDRLEN + GENL_HDRLEN, o2;

	while (off + NLA_HDRLEN <= len) {
		struct nlattr *a = (struct nlattr *)(m->buf + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == METACACHE_A_BENCH) {
			uint32_t end = off + a->nla_len;

			for (o2 = off + NLA_HDRLEN; o2 + NLA_HDRLEN <= end;) {
				struct nlattr *b = (struct nlattr *)(m->buf + o2);
				char *s = nl_data(b);
				size_t sl;

				if (b->nla_len < NLA_HDRLEN ||
				    o2 + b->nla_len > end)
					break;
				sl = strnlen(s, b->nla_len - NLA_HDRLEN);
				if ((b->nla_type & NLA_TYPE_MASK) ==
				    METACACHE_A_BENCH_TARGET &&
				    sl < (size_t)(b->nla_len - NLA_HDRLEN) &&
				    !target_safe(s))
					memset(s, 'q', sl);
				o2 += NLA_ALIGN(b->nla_len);
			}
		}
		off += NLA_ALIGN(a->nla_len);
	}
}

/* ------------------------------------------------------ send, answer */

static unsigned char rbuf[NL_BUFSZ];

static void count_err(int e)
{
	if (e <= 0 && -e < NERR)
		st->err[-e]++;
	else
		st->err_other++;
}

static void stop_job(uint32_t job);

/*
 * Wait for the answer to message @seq; @sentinel: the seq of a NOOP sent
 * after it (0: none).  Returns 0, or -1 on a hang (recorded).  *@err gets
 * the error of the answer, 1 for "no answer asked for nor given".
 */
static int await(uint32_t seq, uint32_t sentinel, int *err, uint32_t *job)
{
	int final = 0, got_sentinel = !sentinel, in_dump = 0;

	*err = 1;
	*job = 0;
	/* with a NOOP after it: until its ack, and the end of a dump */
	while (sentinel ? !(got_sentinel && (final || !in_dump)) : !final) {
		struct pollfd p = { .fd = S.fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;
		int rem, r;

		r = poll(&p, 1, timeout_s * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		n = recv(S.fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ENOBUFS) {	/* answers lost: resync */
				st->recv_enobufs++;
				*err = -ENOBUFS;
				return 0;
			}
			return -1;
		}
		rem = (int)n;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem);
		     h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_seq == sentinel && sentinel) {
				got_sentinel = 1;
				continue;
			}
			if (h->nlmsg_seq != seq) {
				st->stray++;
				continue;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				*err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				final = 1;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				memcpy(err, NLMSG_DATA(h), sizeof(*err));
				st->dumps++;
				final = 1;
			} else {
				struct genlmsghdr *g = NLMSG_DATA(h);

				st->data++;
				if (h->nlmsg_flags & NLM_F_MULTI)
					in_dump = 1;
				if (g->cmd == METACACHE_CMD_BENCH_START &&
				    !(h->nlmsg_flags & NLM_F_MULTI)) {
					struct nlattr *b = nl_attr(h,
						METACACHE_A_BENCH);

					*job = nl_u32(nl_nested(b,
						METACACHE_A_BENCH_JOB_ID));
				}
			}
		}
	}
	return 0;
}

static uint32_t noop_seq(void)
{
	struct {
		struct nlmsghdr h;
	} noop = { { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_NOOP,
		     .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK } };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	noop.h.nlmsg_seq = ++S.seq;
	if (sendto(S.fd, &noop, sizeof(noop), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return 0;
	return S.seq;
}

/*
 * Send the message as it is (its nlmsg_len may lie: never so that a
 * second message would follow) and wait for its answer.  Returns the
 * error of the answer (1: none), or -ETIME for a hang (recorded).
 */
static int send_wait(struct nl_req *m, const char *what)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint32_t sentinel = 0, job, seq;
	size_t len = m->len;
	int err;

	if (len < NLMSG_HDRLEN)
		len = NLMSG_HDRLEN;
	h->nlmsg_seq = seq = ++S.seq;
	sanitize(m, (uint32_t)(h->nlmsg_len < len ? h->nlmsg_len : len));
	if (sendto(S.fd, m->buf, len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		st->send_err[errno < NERR ? errno : 0]++;
		return -errno;
	}
	/* no answer unless asked for or an error: a NOOP marks the end */
	if (!(h->nlmsg_flags & NLM_F_ACK) || !(h->nlmsg_flags & NLM_F_REQUEST) ||
	    h->nlmsg_type < NLMSG_MIN_TYPE || h->nlmsg_len != len) {
		sentinel = noop_seq();
		if (!sentinel)
			return -errno;
	}
	if (await(seq, sentinel, &err, &job)) {
		struct genlmsghdr *g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);

		st->hang = 1;
		snprintf(st->hang_what, sizeof(st->hang_what),
			 "%s: command %u flags %#x len %zu: no answer in %d s",
			 what, g->cmd, h->nlmsg_flags, len, timeout_s);
		return -ETIME;
	}
	if (job) {
		st->jobs_started++;
		memmove(jobs + 1, jobs, sizeof(jobs) - sizeof(jobs[0]));
		jobs[0] = job;
		stop_job(job);
	}
	return err;
}

static void stop_job(uint32_t job)
{
	struct nl_req *m = nl_hreq(&S, METACACHE_CMD_BENCH_STOP, 0);
	uint32_t j;
	int err;

	nl_nest(m, METACACHE_A_BENCH);
	nl_put_u32(m, METACACHE_A_BENCH_JOB_ID, job);
	nl_nest_end(m);
	st->control++;
	if (nl_send(&S, m) == 0)
		await(S.seq, 0, &err, &j);
}

/* Stop every job still running; wait up to @secs for them to end. */
static int reap_jobs(int secs)
{
	int i, running = 0;

	for (i = 0; i <= secs * 10; i++) {
		struct nl_reply *r;
		struct nlmsghdr *h;
		static uint32_t ids[64];
		int n = 0, k;

		st->control++;
		r = nl_call(&S, nl_hreq(&S, METACACHE_CMD_BENCH_GET,
					NLM_F_DUMP));
		if (r->timeout)
			return -1;
		for (h = nl_first(r); h; h = nl_next(r, h)) {
			struct nlattr *b = nl_attr(h, METACACHE_A_BENCH);
			uint32_t s = nl_u32(nl_nested(b, METACACHE_A_BENCH_STATE));

			if (s < METACACHE_BENCH_ST_DONE && n < 64)
				ids[n++] = nl_u32(nl_nested(b,
						METACACHE_A_BENCH_JOB_ID));
		}
		running = n;
		if (!n || !secs)
			break;
		if (i == secs * 10) {	/* giving up: say what they do */
			for (h = nl_first(r); h; h = nl_next(r, h)) {
				struct nlattr *b = nl_attr(h, METACACHE_A_BENCH);
				uint32_t s = nl_u32(nl_nested(b,
						METACACHE_A_BENCH_STATE));

				if (s >= METACACHE_BENCH_ST_DONE)
					continue;
				mct_diag("job %u not stopped: target '%.80s' workload %u threads %u files %u dirs %u flags %#x state %u phase %u phase_ops %llu elapsed %llu ms",
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_JOB_ID)),
					 nl_str(nl_nested(b, METACACHE_A_BENCH_TARGET)),
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_WORKLOAD)),
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_THREADS)),
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_FILES)),
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_DIRS)),
					 nl_u32(nl_nested(b, METACACHE_A_BENCH_FLAGS)),
					 s, nl_u32(nl_nested(b, METACACHE_A_BENCH_PHASE)),
					 (unsigned long long)nl_u64(nl_nested(b,
						METACACHE_A_BENCH_PHASE_OPS)),
					 (unsigned long long)nl_u64(nl_nested(b,
						METACACHE_A_BENCH_ELAPSED_NS)) / 1000000);
			}
			break;
		}
		for (k = 0; k < n; k++)
			stop_job(ids[k]);
		usleep(100000);
	}
	return running;
}

/* -------------------------------------------------------------- fuzz */

static void fuzz(unsigned long n, const char *who)
{
	unsigned long i;
	struct timespec t0, t1;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n && !st->hang; i++) {
		struct nl_req *m = &M;
		uint32_t kind = rn(20);
		int err, k;
		uint8_t cmd;

		if (kind < 4) {
			build_random(m);
			st->gen_random++;
		} else if (kind < 8) {
			build_valid(m);
			st->gen_valid++;
		} else {
			build_valid(m);
			st->gen_mutated++;
			for (k = (int)(1 + rn(rn(4) ? 3 : 10)); k > 0; k--)
				mutate_once(m);
		}
		((struct nlmsghdr *)m->buf)->nlmsg_len = (uint32_t)m->len;
		if (!rn(12)) {
			mutate_header(m);
			st->hdr_mutated++;
		}
		if (!rn(200)) {	/* nlmsg_len lies: too big, or too small */
			struct nlmsghdr *h = (struct nlmsghdr *)m->buf;

			if (rn(2))
				h->nlmsg_len += 1 + rn(100);
			else
				h->nlmsg_len = rn(NLMSG_HDRLEN + 4);
		}
		cmd = ((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->cmd;
		err = send_wait(m, who);
		st->sent++;
		if (err == -ETIME && st->hang)
			break;
		if (err <= 0)
			count_err(err);
		else
			st->no_reply++;
		/*
		 * Unprivileged, a changing command that reached genetlink:
		 * refused before anything else is looked at, so only with
		 * genetlink's own errors (short header or reserved field:
		 * EINVAL, no such operation: EOPNOTSUPP) or EPERM.
		 */
		if (unpriv && is_changing(cmd) &&
		    m->len >= NLMSG_HDRLEN + GENL_HDRLEN &&
		    ((struct nlmsghdr *)m->buf)->nlmsg_type == FAMILY &&
		    (((struct nlmsghdr *)m->buf)->nlmsg_flags & NLM_F_REQUEST) &&
		    ((struct nlmsghdr *)m->buf)->nlmsg_len == m->len &&
		    (((struct nlmsghdr *)m->buf)->nlmsg_flags & NLM_F_DUMP) !=
		    NLM_F_DUMP) {
			if (err == 0 || err == 1) {
				st->priv_accepted++;
				mct_diag("%s: command %u accepted (%d)", who,
					 cmd, err);
			} else if (err != -EPERM && err != -EINVAL &&
				   err != -EOPNOTSUPP) {
				if (!st->priv_wrong++)
					mct_diag("%s: command %u: %s, not EPERM",
						 who, cmd, strerror(-err));
			}
		}
		if (!unpriv && i % 2000 == 1999 && reap_jobs(0) > 0)
			reap_jobs(10);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	mct_diag("%s: %lu messages in %.1f s (%.0f/s)", who, i, secs,
		 secs > 0 ? (double)i / secs : 0.0);
}

/* ---------------------------------------------------------- workload */

static void wl_bad(const char *op, const char *name, int got, int want)
{
	unsigned long k = wl->unexpected++;

	if (k < 8)
		snprintf(wl->first[k], sizeof(wl->first[k]),
			 "%s %s: %s (want %s)", op, name,
			 got ? strerror(got) : "success",
			 want ? strerror(want) : "success");
}

/* Is @name listed in directory @path?  1, 0, or -errno. */
static int listed(const char *path, const char *name)
{
	struct dirent *d;
	DIR *dir = opendir(path);
	int found = 0;

	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		found += !strcmp(d->d_name, name);
	closedir(dir);
	return found;
}

static void workload(void)
{
	const char *lower = mc_env("MC_LOWER");
	char lowerdir[PATH_MAX + 64] = "";

	char name[64], rd[16];
	unsigned long i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* not past the test */
	/* the lower directory under it, to tell who is wrong */
	if (lower && !strncmp(wldir, upper, strlen(upper)))
		snprintf(lowerdir, sizeof(lowerdir), "%s%s", lower,
			 wldir + strlen(upper));
	if (chdir(wldir))
		_exit(1);
	for (i = 0; !wl->stop; i++) {
		struct stat sb;
		struct dirent *d;
		DIR *dir;
		int fd, found = 0, e;

		snprintf(name, sizeof(name), "f%lu", i % 64);
		e = stat(name, &sb) ? errno : 0;
		if (e == ENOENT)
			wl->enoent_expected++;
		else
			wl_bad("stat (missing)", name, e, ENOENT);
		fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			wl_bad("create", name, errno, 0);
			unlink(name);
			continue;
		}
		if (write(fd, "metacach", 8) != 8)
			wl_bad("write", name, errno, 0);
		if (close(fd))
			wl_bad("close", name, errno, 0);
		if (stat(name, &sb))
			wl_bad("stat", name, errno, 0);
		else if (sb.st_size != 8)
			wl_bad("stat size", name, EINVAL, 0);
		fd = open(name, O_RDONLY);
		if (fd < 0) {
			wl_bad("open", name, errno, 0);
		} else {
			if (read(fd, rd, sizeof(rd)) != 8 ||
			    memcmp(rd, "metacach", 8))
				wl_bad("read", name, errno ?: EIO, 0);
			close(fd);
		}
		dir = opendir(".");
		if (!dir) {
			wl_bad("opendir", ".", errno, 0);
		} else {
			while ((d = readdir(dir)))
				found += !strcmp(d->d_name, name);
			closedir(dir);
			if (found != 1) {
				char what[96];

				/* again, and in the lower directory */
				snprintf(what, sizeof(what),
					 "readdir (again: %d, lower: %d)",
					 listed(".", name),
					 lowerdir[0] ? listed(lowerdir, name) : -1);
				wl_bad(what, name, found ? EEXIST : ENOENT, 0);
			}
		}
		if (unlink(name))
			wl_bad("unlink", name, errno, 0);
		e = stat(name, &sb) ? errno : 0;
		if (e == ENOENT)
			wl->enoent_expected++;
		else
			wl_bad("stat (unlinked)", name, e, ENOENT);
		wl->loops++;
		wl->ops += 9;
	}
	_exit(0);
}

/* ------------------------------------------------------------- state */

struct snap {
	nl_tun_t defaults, tun;
	char rules[16384];
	size_t rules_len;
	int nrules;
	uint64_t age;
};

static int snapshot(struct snap *s)
{
	struct nl_req *m;
	struct nl_reply *r;
	struct nlmsghdr *h;

	memset(s, 0, sizeof(*s));
	if (nl_defaults_get(&S, s->defaults) || nl_mount_tun_get(&S, ID, s->tun))
		return -1;
	m = nl_hreq(&S, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, ID);
	r = nl_call(&S, m);
	if (r->error)
		return -1;
	for (h = nl_first(r); h; h = nl_next(r, h)) {
		struct nlattr *p = nl_attr(h, METACACHE_A_POLICY);
		size_t n = p ? p->nla_len : 0;

		s->nrules++;
		if (s->rules_len + n <= sizeof(s->rules)) {
			memcpy(s->rules + s->rules_len, p, n);
			s->rules_len += n;
		}
	}
	m = nl_hreq(&S, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, ID);
	r = nl_call(&S, m);
	if (r->error || !r->nmsgs)
		return -1;
	s->age = nl_u64(nl_attr(nl_first(r), METACACHE_A_STATS_AGE_NS));
	return 0;
}

static int tun_same(const nl_tun_t a, const nl_tun_t b, const char *what)
{
	int i, same = 1;

	for (i = METACACHE_A_TUN_ENTRY_TTL; i <= METACACHE_A_TUN_MAX; i++)
		if (a[i] != b[i]) {
			mct_diag("%s: tunable %d is %u, was %u", what, i, b[i],
				 a[i]);
			same = 0;
		}
	return same;
}

/* Delete every rule of the mount (paths of any length); -1 on error. */
static int rules_clear(void)
{
	static char paths[2 * METACACHE_POLICY_MAX][METACACHE_PATH_MAX];
	struct nl_req *m = nl_hreq(&S, METACACHE_CMD_POLICY_GET, NLM_F_DUMP);
	struct nl_reply *r;
	struct nlmsghdr *h;
	int n = 0, i, err;

	nl_put_u32(m, METACACHE_A_MOUNT_ID, ID);
	r = nl_call(&S, m);
	if (r->error)
		return -1;
	for (h = nl_first(r); h && n < 2 * METACACHE_POLICY_MAX;
	     h = nl_next(r, h))
		snprintf(paths[n++], sizeof(paths[0]), "%s",
			 nl_str(nl_nested(nl_attr(h, METACACHE_A_POLICY),
					  METACACHE_A_POLICY_PATH)));
	for (i = 0; i < n; i++) {
		m = nl_hreq(&S, METACACHE_CMD_POLICY_DEL, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, ID);
		nl_nest(m, METACACHE_A_POLICY);
		nl_put_str(m, METACACHE_A_POLICY_PATH, paths[i]);
		nl_nest_end(m);
		err = nl_call(&S, m)->error;
		if (err) {
			mct_diag("POLICY_DEL '%.60s' (%zu bytes): %s", paths[i],
				 strlen(paths[i]), strerror(-err));
			return -1;
		}
	}
	return n;
}

/* Sum every slot into total; st points at it afterwards. */
static void sum_stats(void)
{
	unsigned long *t = (unsigned long *)&total;
	size_t n = offsetof(struct fz_stats, hang) / sizeof(unsigned long);
	size_t i;
	int k;

	memset(&total, 0, sizeof(total));
	for (k = 0; k <= NPROC_MAX; k++) {
		const unsigned long *f = (const unsigned long *)&shm[k];

		for (i = 0; i < n; i++)
			t[i] += f[i];
		if (shm[k].hang && !total.hang) {
			total.hang = 1;
			memcpy(total.hang_what, shm[k].hang_what,
			       sizeof(total.hang_what));
		}
	}
	st = &total;
}

static void print_stats(void)
{
	int e;

	mct_diag("messages sent: %lu (random %lu, valid %lu, mutated %lu; "
		 "headers mutated %lu); control messages %lu",
		 st->sent, st->gen_random, st->gen_valid, st->gen_mutated,
		 st->hdr_mutated, st->control);
	mct_diag("answers: %lu data messages, %lu dumps ended, %lu without "
		 "answer (none asked), %lu stray, %lu ENOBUFS on receive",
		 st->data, st->dumps, st->no_reply, st->stray,
		 st->recv_enobufs);
	for (e = 0; e < NERR; e++)
		if (st->err[e])
			mct_diag("  error %-4d %-16s %lu", -e,
				 e ? strerrorname_np(e) ?: "?" : "0 (ok)",
				 st->err[e]);
	if (st->err_other)
		mct_diag("  other errors: %lu", st->err_other);
	for (e = 0; e < NERR; e++)
		if (st->send_err[e])
			mct_diag("  sendto %s: %lu", strerrorname_np(e) ?: "?",
				 st->send_err[e]);
	mct_diag("generator jobs started (and stopped at once): %lu",
		 st->jobs_started);
}

static void as_nobody(unsigned long n)
{
	const char *u = mc_env("MC_TEST_UID"), *g = mc_env("MC_TEST_GID");
	uid_t uid = u ? (uid_t)atoi(u) : 65534;
	gid_t gid = g ? (gid_t)atoi(g) : 65534;

	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		mct_diag("cannot become %u: %s", uid, strerror(errno));
		_exit(1);
	}
	nl_close(&S);
	if (nl_open(&S))
		_exit(1);
	unpriv = 1;
	st = &shm[NPROC_MAX];
	rs ^= 0x5555555555555555ULL;
	fuzz(n, "unprivileged");
	_exit(0);
}

/* Root fuzzer @k of @nproc, on its own socket. */
static void as_root(int k, unsigned long n)
{
	char who[32];

	nl_close(&S);
	if (nl_open(&S))
		_exit(1);
	st = &shm[k];
	rs += (uint64_t)k * 0x2545f4914f6cdd1dULL;
	snprintf(who, sizeof(who), "root %d", k);
	fuzz(n, who);
	_exit(0);
}

static int any_hang(void)
{
	int k;

	for (k = 0; k <= NPROC_MAX; k++)
		if (shm[k].hang)
			return 1;
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag,
		  struct FTW *f)
{
	(void)sb;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(p) && errno != ENOENT ? -1 : 0;
	return unlink(p) && errno != ENOENT ? -1 : 0;
}

MCT_TEST(fuzz_with_workload)
{
	const char *env;
	unsigned long total = 100000, nroot, nuser;
	struct snap s0, s1, s2;
	uint64_t seed;
	pid_t wpid, upid, rpid[NPROC_MAX];
	int status, err, a, nproc;

	upper = mc_env("MC_UPPER");
	if (!upper)
		MCT_SKIP("needs MC_UPPER (mount mode)");
	env = mc_env("MC_FUZZ_MSGS");
	if (env)
		total = strtoul(env, NULL, 0);
	env = mc_env("MC_FUZZ_TIMEOUT");
	if (env && atoi(env) > 0)
		timeout_s = atoi(env);
	env = mc_env("MC_FUZZ_SEED");
	seed = env ? strtoull(env, NULL, 0) :
		     (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rs = seed;
	mct_diag("seed %#llx (replay: MC_FUZZ_SEED=%#llx), %lu messages",
		 (unsigned long long)seed, (unsigned long long)seed, total);
	/* the harness's timeout is for ordinary tests; hangs are ours */
	env = mc_env("MCT_TIMEOUT");
	alarm((env && atoi(env) > 0 ? (unsigned int)atoi(env) : 300) +
	      (unsigned int)(total / 200));
	nuser = total / 5;
	nroot = total - nuser;

	env = mc_env("MC_FUZZ_PROCS");
	nproc = env ? atoi(env) : 2;
	if (nproc < 1 || nproc > NPROC_MAX)
		nproc = 2;
	shm = mmap(NULL, sizeof(*shm) * (NPROC_MAX + 1),
		   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	st = shm;
	wl = mmap(NULL, sizeof(*wl), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	MCT_ASSERT(shm != MAP_FAILED && wl != MAP_FAILED, "mmap");
	memset(shm, 0, sizeof(*shm) * (NPROC_MAX + 1));
	memset(wl, 0, sizeof(*wl));

	/* the test directory: the workload's and the generator's */
	snprintf(testdir, sizeof(testdir), "%s/nlfuzz.%d", upper, getpid());
	MCT_ASSERT(!mkdir(testdir, 0755), "mkdir %s: %s", testdir,
		   strerror(errno));
	MCT_ASSERT(realpath(testdir, gendir), "realpath");
	snprintf(testdir, sizeof(testdir), "%s", gendir);
	snprintf(gendir, sizeof(gendir), "%s/gen", testdir);
	snprintf(wldir, sizeof(wldir), "%s/wl", testdir);
	MCT_ASSERT(!mkdir(gendir, 0755) && !mkdir(wldir, 0755), "mkdir");
	MCT_ASSERT(!chdir(testdir), "chdir");
	if (symlink("loop", "loop"))	/* cifs without mfsymlinks */
		mct_diag("no symlink loop: %s", strerror(errno));
	MCT_ASSERT(!close(open("wl/notadir", O_CREAT | O_WRONLY, 0644)),
		   "create");
	memset(longpath, 'p', sizeof(longpath) - 1);
	for (a = 0; a < (int)sizeof(longpath) - 1; a += 200)
		longpath[a] = '/';
	memset(longcomp, 'c', sizeof(longcomp) - 1);

	err = nl_open(&S);
	MCT_ASSERT(!err, "cannot open the metacache family: %s",
		   strerror(-err));
	FAMILY = S.family;
	ID = nl_mount_id(&S, upper);
	MCT_ASSERT(ID, "no id for %s", upper);
	MCT_ASSERT(!snapshot(&s0), "snapshot before");
	jobs[0] = 1;

	wpid = fork();
	MCT_ASSERT(wpid >= 0, "fork");
	if (!wpid)
		workload();

	/* as root: nproc fuzzers at once, on their own sockets */
	for (a = 0; a < nproc; a++) {
		rpid[a] = fork();
		MCT_ASSERT(rpid[a] >= 0, "fork");
		if (!rpid[a])
			as_root(a, nroot / nproc + (a < (int)(nroot % nproc)));
	}
	for (a = 0; a < nproc; a++) {
		waitpid(rpid[a], &status, 0);
		MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			   "root fuzzer %d failed (%#x)", a, status);
	}
	if (!any_hang()) {
		MCT_EXPECT(reap_jobs(60) == 0, "generator jobs still running");
		/* restore, and the state must be the one before */
		MCT_EXPECT(!nl_defaults_set(&S, s0.defaults), "restore defaults");
		MCT_EXPECT(!nl_mount_tun_set(&S, ID, s0.tun), "restore tunables");
		a = rules_clear();
		MCT_EXPECT(a >= 0, "clearing the rules");
		mct_diag("%d rules left by the fuzz, deleted", a);
		MCT_EXPECT(!snapshot(&s1), "snapshot after the root phase");
		MCT_EXPECT(tun_same(s0.defaults, s1.defaults, "defaults") &&
			   tun_same(s0.tun, s1.tun, "mount"),
			   "tunables not restored");
		MCT_EXPECT(s1.nrules == 0, "%d rules left", s1.nrules);
	}

	/* as the unprivileged user: nothing may change */
	if (!any_hang()) {
		upid = fork();
		MCT_ASSERT(upid >= 0, "fork");
		if (!upid)
			as_nobody(nuser);
		waitpid(upid, &status, 0);
		MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			   "unprivileged phase failed (%#x)", status);
		MCT_EXPECT(!shm[NPROC_MAX].priv_accepted,
			   "%lu changing commands accepted from the unprivileged user",
			   shm[NPROC_MAX].priv_accepted);
		MCT_EXPECT(!shm[NPROC_MAX].priv_wrong,
			   "%lu changing commands of the unprivileged user refused with another error than EPERM",
			   shm[NPROC_MAX].priv_wrong);
		mct_diag("unprivileged: %lu EPERM", shm[NPROC_MAX].err[EPERM]);
		MCT_EXPECT(!snapshot(&s2), "snapshot after the unprivileged phase");
		MCT_EXPECT(tun_same(s1.defaults, s2.defaults, "unprivileged defaults") &&
			   tun_same(s1.tun, s2.tun, "unprivileged mount"),
			   "the unprivileged phase changed tunables");
		MCT_EXPECT(s1.nrules == s2.nrules && s1.rules_len == s2.rules_len &&
			   !memcmp(s1.rules, s2.rules, s1.rules_len),
			   "the unprivileged phase changed rules (%d -> %d)",
			   s1.nrules, s2.nrules);
		MCT_EXPECT(s2.age > s1.age,
			   "the unprivileged phase reset the statistics");
	}

	wl->stop = 1;
	waitpid(wpid, &status, 0);
	MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
		   "workload ended badly (%#x)", status);
	mct_diag("workload: %lu loops, %lu operations, %lu expected ENOENT, "
		 "%lu unexpected answers", wl->loops, wl->ops,
		 wl->enoent_expected, wl->unexpected);
	for (a = 0; a < 8 && a < (int)wl->unexpected; a++)
		mct_diag("  workload: %s", wl->first[a]);
	MCT_EXPECT(!wl->unexpected, "the workload saw unexpected answers");
	MCT_EXPECT(wl->loops > 0, "the workload did nothing");

	sum_stats();
	mct_diag("%d root fuzzers at once, then one unprivileged", nproc);
	print_stats();
	MCT_EXPECT(!st->hang, "hang: %s", st->hang_what);
	MCT_EXPECT(st->sent >= total, "only %lu of %lu messages sent",
		   st->sent, total);

	if (st->hang) {
		/* the family may be stuck: do not touch the directory */
		return;
	}
	MCT_EXPECT(!chdir("/"), "chdir");
	MCT_EXPECT(!nftw(testdir, rm_one, 16, FTW_DEPTH | FTW_PHYS),
		   "removing %s: %s", testdir, strerror(errno));
	nl_close(&S);
}

/* Afterwards: the family answers, and answers right. */
MCT_TEST(family_still_answers)
{
	uint32_t maj = 0, min = 0, id;
	struct nl_reply *r;
	struct nl_req *m;
	struct nlmsghdr *h;
	nl_tun_t t0, t1, t;
	int found = 0, err;

	upper = mc_env("MC_UPPER");
	if (!upper)
		MCT_SKIP("needs MC_UPPER (mount mode)");
	err = nl_open(&S);
	MCT_ASSERT(!err, "cannot open the family: %s", strerror(-err));
	r = nl_call(&S, nl_req(&S, METACACHE_CMD_GET_INFO, 0));
	MCT_EXPECT(!r->error && r->nmsgs == 1 &&
		   nl_u32(nl_attr(nl_first(r), METACACHE_A_PROTO_VERSION)) ==
		   METACACHE_GENL_VERSION, "GET_INFO: %s", strerror(-r->error));
	MCT_ASSERT(!nl_dev_of(upper, &maj, &min), "stat %s", upper);
	id = nl_mount_id(&S, upper);
	MCT_ASSERT(id, "MOUNT_GET by path");
	r = nl_call(&S, nl_req(&S, METACACHE_CMD_MOUNT_GET, NLM_F_DUMP));
	MCT_EXPECT(!r->error, "MOUNT_GET dump: %s", strerror(-r->error));
	for (h = nl_first(r); h; h = nl_next(r, h)) {
		const char *lower = mc_env("MC_LOWER");

		if (nl_u32(nl_attr(h, METACACHE_A_MOUNT_ID)) != id)
			continue;
		found++;
		MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_DEV_MAJOR)) == maj &&
			   nl_u32(nl_attr(h, METACACHE_A_DEV_MINOR)) == min,
			   "device");
		MCT_EXPECT(!lower || !strcmp(nl_str(nl_attr(h,
				METACACHE_A_LOWER_PATH)), lower),
			   "lower path '%s'",
			   nl_str(nl_attr(h, METACACHE_A_LOWER_PATH)));
		MCT_EXPECT(nl_u32(nl_attr(h, METACACHE_A_N_POLICIES)) == 0,
			   "rules left: %u",
			   nl_u32(nl_attr(h, METACACHE_A_N_POLICIES)));
		MCT_EXPECT(nl_get_tun(nl_attr(h, METACACHE_A_TUNABLES), t) ==
			   0x3fe, "not every tunable");
	}
	MCT_EXPECT(found == 1, "mount %u listed %d times", id, found);
	/* a SET round-trips */
	MCT_ASSERT(!nl_mount_tun_get(&S, id, t0), "MOUNT_GET");
	memcpy(t, t0, sizeof(t));
	t[METACACHE_A_TUN_DIR_TTL] = t0[METACACHE_A_TUN_DIR_TTL] + 7;
	t[METACACHE_A_TUN_MAX_NEG] = 1234;
	MCT_EXPECT(!nl_mount_tun_set(&S, id, t), "MOUNT_SET");
	MCT_EXPECT(!nl_mount_tun_get(&S, id, t1), "MOUNT_GET");
	MCT_EXPECT(!memcmp(t, t1, sizeof(t)), "SET did not round-trip");
	MCT_EXPECT(!nl_mount_tun_set(&S, id, t0), "MOUNT_SET back");
	MCT_EXPECT(!nl_mount_tun_get(&S, id, t1) && !memcmp(t0, t1, sizeof(t)),
		   "tunables not back");
	/* statistics */
	m = nl_req(&S, METACACHE_CMD_STATS_GET, NLM_F_DUMP);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	r = nl_call(&S, m);
	MCT_EXPECT(!r->error && r->nmsgs >= 1 &&
		   nl_u32(nl_attr(nl_first(r), METACACHE_A_MOUNT_ID)) == id,
		   "STATS_GET: %s, %d messages", strerror(-r->error), r->nmsgs);
	/* a flush */
	m = nl_req(&S, METACACHE_CMD_FLUSH, 0);
	nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
	nl_put_u32(m, METACACHE_A_FLUSH_FLAGS, METACACHE_FLUSH_F_HANDLES);
	r = nl_call(&S, m);
	MCT_EXPECT(!r->error && r->nmsgs == 1 &&
		   nl_attr(nl_first(r), METACACHE_A_FLUSHED_ENTRIES),
		   "FLUSH: %s (%s)", strerror(-r->error), r->ext_msg);
	/* no generator job runs */
	r = nl_call(&S, nl_req(&S, METACACHE_CMD_BENCH_GET, NLM_F_DUMP));
	MCT_EXPECT(!r->error, "BENCH_GET dump: %s", strerror(-r->error));
	for (h = nl_first(r); h; h = nl_next(r, h)) {
		struct nlattr *b = nl_attr(h, METACACHE_A_BENCH);

		MCT_EXPECT(nl_u32(nl_nested(b, METACACHE_A_BENCH_STATE)) >=
			   METACACHE_BENCH_ST_DONE, "job %u still runs",
			   nl_u32(nl_nested(b, METACACHE_A_BENCH_JOB_ID)));
	}
	nl_close(&S);
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
