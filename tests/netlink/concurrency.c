// SPDX-License-Identifier: GPL-2.0
/*
 * concurrency: the control plane changing a mount while it is used.
 *
 * control_plane_under_load: for $MC_CONC_SECONDS (default 10) at once:
 *   tuner    MOUNT_SET, DEFAULTS_SET, POLICY_ADD/DEL, STATS_RESET and FLUSH
 *            with random valid values, in a loop
 *   reader   GET_INFO, MOUNT_GET, STATS_GET and POLICY_GET dumps
 *   worker   create, stat, write, rename, readdir, unlink, mkdir, rmdir
 *            through the mount (its own names: no error is expected)
 *   renamer  moves a directory back and forth between two directories
 *            that carry different rules
 *   prober   asks the module which rule applies to a file in the moving
 *            directory (debugfs <id>/policy): always one of the two rules
 *   mounter  mounts and unmounts a second metacache mount and uses its id
 *            before and after the unmount
 * Only the errors a request can legitimately meet are accepted (ENOENT
 * deleting a rule that is not there, ENOENT for a mount just unmounted);
 * the kernel must not warn (the test bed checks).  Restores the mount,
 * the defaults and the rules.
 *
 * flush_cursor_beside_eviction: flushes that walk full lists while the
 * limits are lowered and raised, see there.
 */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "mctest.h"
#include "mcutil.h"
#include "nllib.h"

enum { TUNER, READER, WORKER, RENAMER, PROBER, MOUNTER, NWORKERS };

static const char *const names[NWORKERS] = {
	"tuner", "reader", "worker", "renamer", "prober", "mounter",
};

struct shared {
	volatile int stop;
	long ops[NWORKERS];
	long errors[NWORKERS];
	char first[NWORKERS][256];
};

static struct shared *sh;
static const char *upper, *lower;
static char work[PATH_MAX];	/* $MC_UPPER/conc.<pid> */
static char wrel[64];		/* /conc.<pid> */
static uint32_t id;

static void bad(int who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad(int who, const char *fmt, ...)
{
	va_list ap;

	if (!sh->errors[who]++) {
		va_start(ap, fmt);
		vsnprintf(sh->first[who], sizeof(sh->first[who]), fmt, ap);
		va_end(ap);
	}
}

static uint64_t rs;

static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)rs;
}

/* --------------------------------------------------------------- tuner */

static void random_tun(struct nl_req *m, uint16_t type)
{
	int a, any = 0;

	nl_nest(m, type);
	for (a = METACACHE_A_TUN_ENTRY_TTL; a < METACACHE_A_TUN_DISABLED; a++) {
		if (rnd() % 3)
			continue;
		nl_put_u32(m, (uint16_t)a, a <= METACACHE_A_TUN_CLOSE_TTL ?
			   rnd() % 20 : rnd() % 100000);
		any = 1;
	}
	if (!any || !(rnd() % 3)) {
		/* never the entry cache: the prober's rules rely on it */
		uint32_t sel = (rnd() % 31 + 1) & ~1U;

		if (!sel)
			sel = 2;
		nl_put_bf32(m, METACACHE_A_TUN_DISABLED, rnd() & sel, sel);
	}
	nl_nest_end(m);
}

static void tuner(struct nl_sock *s)
{
	while (!sh->stop) {
		uint32_t k = rnd() % 8;
		char path[96];
		struct nl_req *m;
		struct nl_reply *r;
		int ok_errno = 0;
		uint8_t cmd;

		snprintf(path, sizeof(path), "%s/d%u", wrel, k);
		switch (rnd() % 7) {
		case 0:
			cmd = METACACHE_CMD_MOUNT_SET;
			m = nl_req(s, cmd, 0);
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
			random_tun(m, METACACHE_A_TUNABLES);
			break;
		case 1:
			cmd = METACACHE_CMD_DEFAULTS_SET;
			m = nl_req(s, cmd, 0);
			random_tun(m, METACACHE_A_TUNABLES);
			break;
		case 2:
		case 3:
			cmd = METACACHE_CMD_POLICY_ADD;
			m = nl_req(s, cmd, rnd() % 4 ? 0 : NLM_F_EXCL);
			ok_errno = EEXIST;
			nl_put_str(m, METACACHE_A_MOUNT_PATH, upper);
			nl_nest(m, METACACHE_A_POLICY);
			nl_put_str(m, METACACHE_A_POLICY_PATH, path);
			if (rnd() % 4)
				random_tun(m, METACACHE_A_POLICY_TUNABLES);
			else
				nl_put_u32(m, METACACHE_A_POLICY_FLAGS,
					   METACACHE_POLICY_F_BYPASS);
			nl_nest_end(m);
			break;
		case 4:
			cmd = METACACHE_CMD_POLICY_DEL;
			m = nl_req(s, cmd, 0);
			ok_errno = ENOENT;
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
			nl_nest(m, METACACHE_A_POLICY);
			nl_put_str(m, METACACHE_A_POLICY_PATH, path);
			nl_nest_end(m);
			break;
		case 5:
			cmd = METACACHE_CMD_STATS_RESET;
			m = nl_req(s, cmd, 0);
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
			break;
		default:
			cmd = METACACHE_CMD_FLUSH;
			m = nl_req(s, cmd, 0);
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
			if (rnd() % 2) {
				nl_put_str(m, METACACHE_A_PATH, path);
				nl_put_u32(m, METACACHE_A_FLUSH_FLAGS,
					   rnd() % METACACHE_FLUSH_F_ALL);
			}
			break;
		}
		r = nl_call(s, m);
		if (r->error && r->error != -ok_errno)
			bad(TUNER, "command %u: %s (%s)", cmd,
			    strerror(-r->error), r->ext_msg);
		sh->ops[TUNER]++;
	}
}

/* -------------------------------------------------------------- reader */

static void reader(struct nl_sock *s)
{
	static const struct { uint8_t cmd; int dump, sel; } q[] = {
		{ METACACHE_CMD_GET_INFO, 0, 0 },
		{ METACACHE_CMD_MOUNT_GET, 1, 0 },
		{ METACACHE_CMD_MOUNT_GET, 0, 1 },
		{ METACACHE_CMD_STATS_GET, 1, 0 },
		{ METACACHE_CMD_STATS_GET, 1, 1 },
		{ METACACHE_CMD_POLICY_GET, 1, 1 },
		{ METACACHE_CMD_DEFAULTS_GET, 0, 0 },
	};
	unsigned int i = 0;

	while (!sh->stop) {
		unsigned int k = i++ % (sizeof(q) / sizeof(q[0]));
		struct nl_req *m = nl_req(s, q[k].cmd, q[k].dump ? NLM_F_DUMP : 0);
		struct nl_reply *r;

		if (q[k].sel)
			nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		r = nl_call(s, m);
		if (r->error || (!q[k].dump && !r->nmsgs))
			bad(READER, "command %u: %s (%s)", q[k].cmd,
			    r->error ? strerror(-r->error) : "no reply",
			    r->ext_msg);
		sh->ops[READER]++;
	}
}

/* -------------------------------------------------------------- worker */

#define WCHECK(cond, what)						\
	do {								\
		if (!(cond))						\
			bad(WORKER, "%s %s: %s", what, a, strerror(errno)); \
	} while (0)

static void worker(void)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];
	unsigned long n = 0;
	struct stat st;

	while (!sh->stop) {
		unsigned int d1 = rnd() % 8, d2 = rnd() % 8;
		struct dirent *de;
		DIR *dir;
		int fd;

		snprintf(a, sizeof(a), "%s/d%u/w%lu", work, d1, n);
		snprintf(b, sizeof(b), "%s/d%u/w%lu.moved", work, d2, n);
		n++;
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		WCHECK(fd >= 0, "create");
		if (fd >= 0) {
			WCHECK(write(fd, "data", 4) == 4, "write");
			close(fd);
		}
		WCHECK(!stat(a, &st) && st.st_size == 4, "stat");
		WCHECK(!rename(a, b), "rename");
		WCHECK(stat(a, &st) && errno == ENOENT, "stat of the old name");
		snprintf(a, sizeof(a), "%s/d%u", work, d2);
		dir = opendir(a);
		WCHECK(dir, "opendir");
		if (dir) {
			while ((de = readdir(dir)))
				;
			closedir(dir);
		}
		snprintf(a, sizeof(a), "%s", b);
		WCHECK(!unlink(a), "unlink");
		snprintf(a, sizeof(a), "%s/d%u/wd%lu", work, d1, n);
		WCHECK(!mkdir(a, 0755), "mkdir");
		WCHECK(!rmdir(a), "rmdir");
		sh->ops[WORKER]++;
	}
}

/* ---------------------------------------------- renamer and prober */

static void renamer(void)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];

	snprintf(a, sizeof(a), "%s/r0/sub", work);
	snprintf(b, sizeof(b), "%s/r1/sub", work);
	while (!sh->stop) {
		if (rename(a, b))
			bad(RENAMER, "rename r0 -> r1: %s", strerror(errno));
		if (rename(b, a))
			bad(RENAMER, "rename r1 -> r0: %s", strerror(errno));
		sh->ops[RENAMER]++;
	}
}

static void prober(void)
{
	char p[2][PATH_MAX + 64], out[512], rule[128], r[2][96];
	int i = 0;

	snprintf(r[0], sizeof(r[0]), "%s/r0", wrel);
	snprintf(r[1], sizeof(r[1]), "%s/r1", wrel);

	snprintf(p[0], sizeof(p[0]), "%s/r0/sub/f", work);
	snprintf(p[1], sizeof(p[1]), "%s/r1/sub/f", work);
	while (!sh->stop) {
		int err = nl_probe(id, p[i++ & 1], out, sizeof(out));
		long bypass, entry;

		if (err == -ENOENT)
			continue;	/* moved meanwhile */
		if (err) {
			bad(PROBER, "probe: %s", strerror(-err));
			continue;
		}
		/*
		 * r0 has a bypass rule, r1 one with entry_ttl 42 (and the
		 * entry cache on): whichever directory sub is in, one of them
		 * covers f.  (Each value is a lookup of its own: a rename in
		 * between may make them come from different rules.)
		 */
		nl_probe_rule(out, rule, sizeof(rule));
		if (strcmp(rule, r[0]) && strcmp(rule, r[1]))
			bad(PROBER, "rule %s covers %s", rule, out);
		bypass = nl_probe_val(out, "bypass");
		entry = nl_probe_val(out, "ttl.entry");
		if ((bypass != 0 && bypass != 1) || (entry != 0 && entry != 42))
			bad(PROBER, "neither rule applies: %s", out);
		sh->ops[PROBER]++;
	}
}

/* ------------------------------------------------------------- mounter */

static void mounter(struct nl_sock *s)
{
	char low[PATH_MAX], dir[PATH_MAX];

	snprintf(low, sizeof(low), "%s/conc-m.%d", lower, getpid());
	snprintf(dir, sizeof(dir), "/tmp/conc-m.%d", getpid());
	if ((mkdir(low, 0755) && errno != EEXIST) ||
	    (mkdir(dir, 0755) && errno != EEXIST)) {
		bad(MOUNTER, "mkdir: %s", strerror(errno));
		return;
	}
	while (!sh->stop) {
		struct nl_req *m;
		struct nl_reply *r;
		uint32_t mid;

		if (mount(low, dir, "metacache", 0, NULL)) {
			bad(MOUNTER, "mount: %s", strerror(errno));
			break;
		}
		mid = nl_mount_id(s, dir);
		if (!mid)
			bad(MOUNTER, "no id for the new mount");
		m = nl_req(s, METACACHE_CMD_POLICY_ADD, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, mid);
		nl_nest(m, METACACHE_A_POLICY);
		nl_put_str(m, METACACHE_A_POLICY_PATH, "/x");
		nl_put_u32(m, METACACHE_A_POLICY_FLAGS, METACACHE_POLICY_F_BYPASS);
		nl_nest_end(m);
		r = nl_call(s, m);
		if (r->error)
			bad(MOUNTER, "POLICY_ADD: %s", strerror(-r->error));
		if (umount2(dir, rnd() % 2 ? MNT_DETACH : 0))
			bad(MOUNTER, "umount: %s", strerror(errno));
		m = nl_req(s, METACACHE_CMD_MOUNT_GET, 0);
		nl_put_u32(m, METACACHE_A_MOUNT_ID, mid);
		r = nl_call(s, m);
		/*
		 * Gone, unless the reader's dump held it at the unmount
		 * (then it goes when the dump lets it go).
		 */
		if (r->error && r->error != -ENOENT)
			bad(MOUNTER, "MOUNT_GET after umount: %s",
			    strerror(-r->error));
		sh->ops[MOUNTER]++;
	}
	rmdir(dir);
	rmdir(low);
}

/* ----------------------------------------------------------- the test */

/*
 * What both tests start with: a netlink socket, the mount's @id, the
 * shared page and the names of the work directory ($MC_UPPER/<prefix>.<pid>).
 * Return: NULL, or what failed.
 */
static const char *conc_begin(struct nl_sock *s, const char *prefix)
{
	if (nl_open(s))
		return "no metacache family";
	id = nl_mount_id(s, upper);
	if (!id)
		return "no id for the mount";
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return "mmap";
	memset(sh, 0, sizeof(*sh));
	snprintf(wrel, sizeof(wrel), "/%s.%d", prefix, getpid());
	snprintf(work, sizeof(work), "%s%s", upper, wrel);
	return NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT;
}

static int make_dirs(void)
{
	char p[PATH_MAX + 64];
	int i, fd;

	if (mkdir(work, 0755))
		return -1;
	for (i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "%s/d%d", work, i);
		if (mkdir(p, 0755))
			return -1;
	}
	snprintf(p, sizeof(p), "%s/r0", work);
	if (mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/r1", work);
	if (mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/r0/sub", work);
	if (mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/r0/sub/f", work);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

MCT_TEST(control_plane_under_load)
{
	const char *env = mc_env("MC_CONC_SECONDS");
	int seconds = env ? atoi(env) : 10;
	nl_tun_t defaults, tun, t;
	char probe_file[64], rp[96];
	pid_t pids[NWORKERS];
	struct nl_sock s;
	int k, have_probe;
	const char *why;

	upper = mc_env("MC_UPPER");
	lower = mc_env("MC_LOWER");
	if (!upper || !lower)
		MCT_SKIP("needs MC_UPPER and MC_LOWER (mount mode)");
	why = conc_begin(&s, "conc");
	MCT_ASSERT(!why, "%s (%s)", why, upper);
	MCT_ASSERT(!make_dirs(), "set-up in %s: %s", work, strerror(errno));
	MCT_ASSERT(!nl_defaults_get(&s, defaults), "DEFAULTS_GET");
	MCT_ASSERT(!nl_mount_tun_get(&s, id, tun), "MOUNT_GET");
	/* the prober's two rules */
	memset(t, 0, sizeof(t));
	snprintf(rp, sizeof(rp), "%s/r0", wrel);
	MCT_ASSERT(!nl_rule_add(&s, id, rp, METACACHE_POLICY_F_BYPASS, t, 0, 0),
		   "rule r0");
	t[METACACHE_A_TUN_ENTRY_TTL] = 42;
	snprintf(rp, sizeof(rp), "%s/r1", wrel);
	MCT_ASSERT(!nl_rule_add(&s, id, rp, 0, t,
				1U << METACACHE_A_TUN_ENTRY_TTL,
				1U << METACACHE_CACHE_ENTRY), "rule r1");
	snprintf(probe_file, sizeof(probe_file),
		 "/sys/kernel/debug/metacache/%u/policy", id);
	have_probe = !access(probe_file, W_OK);
	if (!have_probe)
		mct_diag("no %s: no prober", probe_file);
	nl_close(&s);

	for (k = 0; k < NWORKERS; k++) {
		pids[k] = -1;
		if (k == PROBER && !have_probe)
			continue;
		pids[k] = fork();
		MCT_ASSERT(pids[k] >= 0, "fork");
		if (!pids[k]) {
			struct nl_sock c;

			rs = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)getpid() << 17);
			alarm((unsigned int)seconds + 120);
			if (nl_open(&c)) {
				bad(k, "no netlink socket");
				_exit(1);
			}
			switch (k) {
			case TUNER: tuner(&c); break;
			case READER: reader(&c); break;
			case WORKER: worker(); break;
			case RENAMER: renamer(); break;
			case PROBER: prober(); break;
			case MOUNTER: mounter(&c); break;
			}
			_exit(0);
		}
	}
	sleep((unsigned int)seconds);
	sh->stop = 1;
	for (k = 0; k < NWORKERS; k++) {
		int status;

		if (pids[k] < 0)
			continue;
		waitpid(pids[k], &status, 0);
		MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			   "%s: ended with status 0x%x", names[k], status);
		mct_diag("%-8s %6ld operations, %ld unexpected errors%s%s",
			 names[k], sh->ops[k], sh->errors[k],
			 sh->errors[k] ? ", first: " : "", sh->first[k]);
		MCT_EXPECT(!sh->errors[k], "%s: %ld errors, first: %s",
			   names[k], sh->errors[k], sh->first[k]);
		MCT_EXPECT(sh->ops[k] > 0 || (k == MOUNTER && sh->errors[k]),
			   "%s did nothing", names[k]);
	}
	/* restore, and the family still answers */
	MCT_ASSERT(!nl_open(&s), "no metacache family afterwards");
	MCT_EXPECT(!nl_defaults_set(&s, defaults), "restore defaults");
	MCT_EXPECT(!nl_mount_tun_set(&s, id, tun), "restore tunables");
	MCT_EXPECT(nl_policy_clear(&s, id) >= 2, "clear rules");
	MCT_EXPECT(!nl_call(&s, nl_req(&s, METACACHE_CMD_GET_INFO, 0))->error,
		   "GET_INFO afterwards");
	nl_close(&s);
	MCT_EXPECT(!nftw(work, rm_one, 16, FTW_DEPTH | FTW_PHYS),
		   "cannot remove %s: %s", work, strerror(errno));
}

/*
 * Flushes beside eviction.  A flush lets go of cache_lock every 256
 * entries and keeps its place in the list with a cursor; whatever evicts
 * from the list's old end meanwhile must step over the cursor
 * (kmod/cache.c mc_lru_first()).  For $MC_CONC_SECONDS, at once:
 *   flusher  FLUSHes a directory with nothing cached, in a loop: each
 *            walks every entry and evicts none, so the lists stay full
 *            and its cursor sits among them; now and then the whole mount
 *   tuner    lowers max_entries and max_neg to 1 and raises them again,
 *            in a loop: lowering them evicts all but one entry of each
 *            list from the old end at once, past a waiting flush's cursor
 *   filler   stats CURS_NEG missing names (more than a batch) in turn
 *   limiter  stats CURS_POS files in turn
 * Every stat() must give the right answer, every request succeed, and the
 * kernel must not warn (the test bed checks).
 */
#define CURS_NEG	600
#define CURS_POS	400

enum { FLUSHER, TUNER2, FILLER, LIMITER, NCURS };

static const char *const curs_names[NCURS] = {
	"flusher", "tuner", "filler", "limiter",
};

static void curs_stat(int who, const char *dir, char kind, int n, int exists)
{
	char name[PATH_MAX + 64];
	struct stat st;
	int i;

	for (i = 0; i < n && !sh->stop; i++) {
		snprintf(name, sizeof(name), "%s/%s/%c%d", work, dir, kind, i);
		if ((stat(name, &st) == 0) != exists ||
		    (!exists && errno != ENOENT))
			bad(who, "stat %s: %s", name,
			    exists ? strerror(errno) : "found");
		sh->ops[who]++;
	}
}

static void curs_flusher(struct nl_sock *s, const char *empty)
{
	while (!sh->stop) {
		struct nl_req *m = nl_req(s, METACACHE_CMD_FLUSH, 0);
		struct nl_reply *r;

		nl_put_u32(m, METACACHE_A_MOUNT_ID, id);
		if (sh->ops[FLUSHER] % 64) {
			nl_put_str(m, METACACHE_A_PATH, empty);
			nl_put_u32(m, METACACHE_A_FLUSH_FLAGS,
				   METACACHE_FLUSH_F_SUBTREE);
		}
		r = nl_call(s, m);
		if (r->error)
			bad(FLUSHER, "FLUSH: %s (%s)", strerror(-r->error),
			    r->ext_msg);
		sh->ops[FLUSHER]++;
	}
}

static void curs_tuner(struct nl_sock *s, const nl_tun_t base)
{
	nl_tun_t t;
	int low = 0;

	memcpy(t, base, sizeof(t));
	while (!sh->stop) {
		low = !low;
		t[METACACHE_A_TUN_MAX_ENTRIES] = low ? 1 : 4 * CURS_POS;
		t[METACACHE_A_TUN_MAX_NEG] = low ? 1 : 4 * CURS_NEG;
		if (nl_mount_tun_set(s, id, t))
			bad(TUNER2, "MOUNT_SET max_entries and max_neg %u",
			    t[METACACHE_A_TUN_MAX_NEG]);
		sh->ops[TUNER2]++;
		/* high long enough to fill the lists again */
		if (!low)
			usleep(50 * 1000);
	}
}

MCT_TEST(flush_cursor_beside_eviction)
{
	const char *env = mc_env("MC_CONC_SECONDS");
	int seconds = env ? atoi(env) : 10, k, fd;
	char lbase[PATH_MAX], sbase[PATH_MAX], path[PATH_MAX + 64], empty[96];
	pid_t pids[NCURS];
	nl_tun_t tun, t;
	struct nl_sock s;
	const char *why;

	upper = mc_env("MC_UPPER");
	lower = mc_env("MC_LOWER");
	if (!upper || !lower)
		MCT_SKIP("needs MC_UPPER and MC_LOWER (mount mode)");
	why = conc_begin(&s, "curs");
	MCT_ASSERT(!why, "%s (%s)", why, upper);
	snprintf(lbase, sizeof(lbase), "%s%s", lower, wrel);
	snprintf(sbase, sizeof(sbase), "%s%s", mc_server_or(lower), wrel);
	snprintf(empty, sizeof(empty), "%s/e", wrel);
	/*
	 * Made beside the stack (the files on the server where there is
	 * one): only the stat()s fill the caches.
	 */
	MCT_ASSERT(!mkdir(lbase, 0755), "mkdir %s: %s", lbase, strerror(errno));
	for (k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "%s/%c", lbase, "pne"[k]);
		MCT_ASSERT(!mkdir(path, 0755), "mkdir %s: %s", path,
			   strerror(errno));
	}
	for (k = 0; k < CURS_POS; k++) {
		snprintf(path, sizeof(path), "%s/p/f%d", sbase, k);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		MCT_ASSERT(fd >= 0, "create %s: %s", path, strerror(errno));
		close(fd);
	}
	MCT_ASSERT(!nl_mount_tun_get(&s, id, tun), "MOUNT_GET");
	memcpy(t, tun, sizeof(t));
	t[METACACHE_A_TUN_ENTRY_TTL] = 3600;
	t[METACACHE_A_TUN_NEG_TTL] = 3600;
	t[METACACHE_A_TUN_DISABLED] = 0;
	MCT_ASSERT(!nl_mount_tun_set(&s, id, t), "MOUNT_SET");
	nl_close(&s);

	for (k = 0; k < NCURS; k++) {
		pids[k] = fork();
		MCT_ASSERT(pids[k] >= 0, "fork");
		if (pids[k])
			continue;
		alarm((unsigned int)seconds + 120);
		if (k <= TUNER2 && nl_open(&s)) {
			bad(k, "no netlink socket");
			_exit(1);
		}
		switch (k) {
		case FLUSHER:
			curs_flusher(&s, empty);
			break;
		case TUNER2:
			curs_tuner(&s, t);
			break;
		case FILLER:
			while (!sh->stop)
				curs_stat(k, "n", 'm', CURS_NEG, 0);
			break;
		case LIMITER:
			while (!sh->stop)
				curs_stat(k, "p", 'f', CURS_POS, 1);
			break;
		}
		_exit(0);
	}
	sleep((unsigned int)seconds);
	sh->stop = 1;
	for (k = 0; k < NCURS; k++) {
		int status;

		waitpid(pids[k], &status, 0);
		MCT_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			   "%s: ended with status 0x%x", curs_names[k], status);
		mct_diag("%-8s %6ld operations, %ld wrong%s%s", curs_names[k],
			 sh->ops[k], sh->errors[k],
			 sh->errors[k] ? ", first: " : "", sh->first[k]);
		MCT_EXPECT(!sh->errors[k] && sh->ops[k] > 0,
			   "%s: %ld operations, %ld wrong, first: %s",
			   curs_names[k], sh->ops[k], sh->errors[k],
			   sh->first[k]);
	}
	MCT_ASSERT(!nl_open(&s), "no metacache family afterwards");
	MCT_EXPECT(!nl_mount_tun_set(&s, id, tun), "restore tunables");
	nl_close(&s);
	for (k = 0; k < CURS_POS; k++) {
		snprintf(path, sizeof(path), "%s/p/f%d", sbase, k);
		MCT_EXPECT(!unlink(path), "unlink %s: %s", path,
			   strerror(errno));
	}
	MCT_EXPECT(!nftw(work, rm_one, 16, FTW_DEPTH | FTW_PHYS),
		   "cannot remove %s: %s", work, strerror(errno));
	munmap(sh, sizeof(*sh));
}

int main(int argc, char **argv)
{
	return mct_main(argc, argv);
}
