// SPDX-License-Identifier: GPL-2.0
/*
 * tests/cache/peruser - whose cached answers serve whom.
 *
 *  - shared_between_users: on an ordinary mount (any lower) what one user's
 *    lookup and stat cached also answers another user (MC_TEST_UID) without
 *    a lower lookup, revalidation or getattr: the lower client itself keeps
 *    one view for all users, and so does the stack;
 *  - cifs_multiuser_per_user: on a cifs "multiuser" mount each user reaches
 *    the server with his own credentials, and the server may answer him
 *    otherwise (here: a guest mount, where any user but root has no
 *    credentials at all).  What root's calls cached (an existing file, its
 *    directory, a missing name, attributes) must not answer the other
 *    user: he gets what the lower client gives him, asked with his own
 *    credentials, and root is still served from the cache afterwards;
 *  - caps_not_shared: a search permission root answered with
 *    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH is not the answer for root
 *    without them (and the reverse), in a directory only another user may
 *    search: the stack gives each what the lower gives him (on tmpfs: a
 *    refusal without the capabilities; nfs's server and cifs's client may
 *    not tell the two apart).
 *  - keys_not_pinned: the permission answers a user's processes cached do
 *    not keep their credentials alive: twenty processes of MC_TEST_UID, each
 *    in a session keyring of its own, each walk into a directory of their
 *    own and exit; once they are gone the user holds no more keys than
 *    before (/proc/key-users), while a later process of the same user is
 *    still answered from the cache.  A cached cred would pin its session
 *    keyring, which counts against the user's key quota, for as long as
 *    the inode stays cached.
 *  - keys_not_pinned_by_kept_files: a kept lower file (close_ttl) holds
 *    its opener's cred; handed to a process of another session, it is
 *    closed at that process's close, not kept again, so the first
 *    session's keyring goes once both have closed it and exited (not
 *    counted on nfs, whose client keeps a closed file's cred itself).
 * Runs per lower (tmpfs, nfs, cifs) on a metacache mount.
 */
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "cachelib.h"

#define TTL		60
/* Past cifs's own attribute timeout (actimeo, 1 s by default). */
#define LOWER_WAIT_MS	1600

static const char *err_str(int e)
{
	return e ? strerror(e) : "found";
}

struct probe {
	const char *path;
	int err;
};

/* As the test user: lstat(path)'s errno, 0 if found. */
static int probe_as_user(void *arg)
{
	struct probe *p = arg;

	return cl_lstat_err(p->path, NULL);
}

static int user_lstat(const char *path)
{
	struct probe p = { path, 0 };

	return cl_as_user(probe_as_user, &p);
}

/* Calls that ask the lower about a name or a file's attributes. */
static long long asked(const struct mcs *d)
{
	return d->op[MCS_LOOKUP].calls + d->op[MCS_REVALIDATE].calls +
	       d->op[MCS_GETATTR].calls;
}

CL_TEST(shared_between_users)
{
	struct mcs s0, d;
	int e;

	CL_TTLS(TTL);
	MCT_ASSERT(!cl_writefile(UP("f"), 10, 'a', 0644), "create %s: %s", UP("f"),
		   strerror(errno));
	cl_settle();
	MCT_ASSERT(!cl_lstat_err(UP("f"), NULL), "stat %s as root", UP("f"));
	CL_SNAP(&s0);
	e = user_lstat(UP("f"));
	CL_SINCE(&d, &s0);
	mct_diag("the other user's stat: %s; lower calls: %s; %s", err_str(e), cl_calls(&d),
		 cl_caches(&d));
	MCT_ASSERT(e == 0, "stat %s as uid %u: %s", UP("f"), (unsigned)cl.uid, err_str(e));
	MCT_EXPECT(asked(&d) == 0 && d.cache[MCS_ENTRY].hits >= 1 &&
		   d.cache[MCS_ATTR].hits >= 1,
		   "root's cached entry and attributes did not answer uid %u: %s; %s",
		   (unsigned)cl.uid, cl_calls(&d), cl_caches(&d));
}

/* Clear CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from our effective set. */
static int drop_dac_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/* As root without the DAC capabilities: lstat(path)'s errno, 0 if found. */
static int capless_lstat(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (drop_dac_caps())
			_exit(125);
		_exit(cl_lstat_err(path, NULL) & 0xff);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A directory only cl.uid may search, with a file in it. */
static int private_dir(struct cl_ctx *c, const char *dir, const char *file)
{
	if (mkdir(UP(dir), 0700) || cl_writefile(UP(file), 4, 'c', 0644))
		return -1;
	if (chown(UP(dir), cl.uid, cl.gid))
		mct_diag("chown %s: %s (the lower keeps root as its owner)", UP(dir),
			 strerror(errno));
	cl_settle();
	return 0;
}

CL_TEST(caps_not_shared)
{
	int root_lo, root_up, less_lo, less_up;

	CL_TTLS(TTL);
	/* root first: his grant must not answer root without capabilities */
	MCT_ASSERT(!private_dir(c, "d1", "d1/f"), "make d1/f: %s", strerror(errno));
	root_up = cl_lstat_err(UP("d1/f"), NULL);
	root_lo = cl_lstat_err(LO("d1/f"), NULL);
	less_up = capless_lstat(UP("d1/f"));
	less_lo = capless_lstat(LO("d1/f"));
	mct_diag("d1/f: root: stack %s, lower %s; without DAC capabilities: stack %s, lower %s",
		 err_str(root_up), err_str(root_lo), err_str(less_up), err_str(less_lo));
	MCT_ASSERT(less_lo != 125 && less_up != 125, "capset failed");
	MCT_EXPECT(root_up == root_lo, "root: the stack says %s, the lower %s",
		   err_str(root_up), err_str(root_lo));
	MCT_EXPECT(less_up == less_lo,
		   "root without DAC capabilities after root with them: the stack says %s, the lower %s",
		   err_str(less_up), err_str(less_lo));

	/* the reverse: a refusal without them must not answer root */
	MCT_ASSERT(!private_dir(c, "d2", "d2/f"), "make d2/f: %s", strerror(errno));
	less_up = capless_lstat(UP("d2/f"));
	less_lo = capless_lstat(LO("d2/f"));
	root_up = cl_lstat_err(UP("d2/f"), NULL);
	root_lo = cl_lstat_err(LO("d2/f"), NULL);
	mct_diag("d2/f: without DAC capabilities: stack %s, lower %s; root: stack %s, lower %s",
		 err_str(less_up), err_str(less_lo), err_str(root_up), err_str(root_lo));
	MCT_EXPECT(less_up == less_lo, "without DAC capabilities: the stack says %s, the lower %s",
		   err_str(less_up), err_str(less_lo));
	MCT_EXPECT(root_up == root_lo,
		   "root after root without DAC capabilities: the stack says %s, the lower %s",
		   err_str(root_up), err_str(root_lo));
	if (less_lo == root_lo)
		mct_diag("this lower answers root the same with or without the capabilities");
}

/* The keys uid holds (/proc/key-users: "uid: usage nkeys/nikeys ..."). */
static int user_keys(unsigned int uid)
{
	FILE *f = fopen("/proc/key-users", "r");
	char line[256];
	unsigned int u;
	int usage, nkeys, n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %u: %d %d/", &u, &usage, &nkeys) == 3 && u == uid) {
			n = nkeys;
			break;
		}
	fclose(f);
	return n;
}

/* As the test user, in a new session keyring of its own: lstat(path). */
static int lstat_in_new_session(void *arg)
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return 124;
	return cl_lstat_err(arg, NULL);
}

struct sessions {
	const char *dir;
	int n;
};

/* As the test user, in a new session: lstat() every dir/dN/f, N < n. */
static int lstat_all_in_new_session(void *arg)
{
	const struct sessions *a = arg;
	char p[PATH_MAX + 32];
	int i, e;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return 124;
	for (i = 0; i < a->n; i++) {
		snprintf(p, sizeof(p), "%s/d%d/f", a->dir, i);
		e = cl_lstat_err(p, NULL);
		if (e)
			return e;
	}
	return 0;
}

/*
 * Keys are freed by a work item after their last reference goes.  Wait (up
 * to 10 s) for uid's keys to fall to at most want, or, with want < 0, to
 * stay the same for half a second; the last count.
 */
static int wait_user_keys(unsigned int uid, int want)
{
	int n = user_keys(uid), last = n, same = 0, i;

	for (i = 0; i < 100; i++) {
		if (want >= 0 ? n <= want : same == 5)
			break;
		usleep(100 * 1000);
		n = user_keys(uid);
		same = n == last ? same + 1 : 0;
		last = n;
	}
	return n;
}

#define SESSIONS	20

CL_TEST(keys_not_pinned)
{
	struct sessions all = { c->up, SESSIONS };
	char dir[32], file[32];
	struct mcs s0, d;
	int base, after, i, e;

	CL_TTLS(TTL);
	if (user_keys(cl.uid) < 0)
		MCT_SKIP("no /proc/key-users: a kernel without keys");
	for (i = 0; i < SESSIONS; i++) {
		snprintf(dir, sizeof(dir), "d%d", i);
		snprintf(file, sizeof(file), "d%d/f", i);
		MCT_ASSERT(!mkdir(UP(dir), 0755) && !cl_writefile(UP(file), 4, 'k', 0644),
			   "make %s: %s", UP(file), strerror(errno));
	}
	cl_settle();
	/* One session first: the keys a user keeps once he has had one stay. */
	e = cl_as_user(lstat_in_new_session, (void *)UP("d0/f"));
	MCT_ASSERT(e == 0, "stat %s as uid %u in a new session: %s", UP("d0/f"),
		   (unsigned int)cl.uid, e == 124 ? "keyctl failed" : err_str(e));
	base = wait_user_keys(cl.uid, -1);
	for (i = 0; i < SESSIONS; i++) {
		snprintf(file, sizeof(file), "d%d/f", i);
		e = cl_as_user(lstat_in_new_session, (void *)UP(file));
		MCT_ASSERT(e == 0, "stat %s as uid %u in a new session: %s", UP(file),
			   (unsigned int)cl.uid, e == 124 ? "keyctl failed" : err_str(e));
	}
	after = wait_user_keys(cl.uid, base);
	mct_diag("uid %u holds %d keys after one session, %d after %d more", (unsigned int)cl.uid,
		 base, after, SESSIONS);
	MCT_EXPECT(after <= base,
		   "%d session keyrings of uid %u outlived their processes (the permission cache pins creds)",
		   after - base, (unsigned int)cl.uid);

	/* What they cached still answers the same user, in yet another session. */
	CL_SNAP(&s0);
	e = cl_as_user(lstat_all_in_new_session, &all);
	CL_SINCE(&d, &s0);
	mct_diag("uid %u stats every dN/f again: %s; lower calls: %s", (unsigned int)cl.uid,
		 err_str(e), cl_calls(&d));
	MCT_ASSERT(e == 0, "stat as uid %u: %s", (unsigned int)cl.uid,
		   e == 124 ? "keyctl failed" : err_str(e));
	MCT_EXPECT(d.op[MCS_PERMISSION].calls == 0,
		   "the permission answers of uid %u's earlier sessions did not answer a new one: %s",
		   (unsigned int)cl.uid, cl_calls(&d));
}

/* As the test user, in a new session: open, read and close a file. */
static int read_in_new_session(void *arg)
{
	char b[4];
	int fd;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return 124;
	fd = open(arg, O_RDONLY);
	if (fd < 0)
		return errno;
	if (read(fd, b, sizeof(b)) < 0)
		return errno;
	return close(fd) ? errno : 0;
}

CL_TEST(keys_not_pinned_by_kept_files)
{
	struct mcs s0, d;
	int base, after, e;

	CL_TTLS(TTL);
	CL_REMOUNT("close_ttl=60");
	if (user_keys(cl.uid) < 0)
		MCT_SKIP("no /proc/key-users: a kernel without keys");
	MCT_ASSERT(!cl_writefile(UP("f"), 4, 'h', 0644), "create %s: %s", UP("f"),
		   strerror(errno));
	cl_settle();
	e = cl_as_user(lstat_in_new_session, (void *)UP("f"));
	MCT_ASSERT(e == 0, "stat %s as uid %u in a new session: %s", UP("f"),
		   (unsigned int)cl.uid, e == 124 ? "keyctl failed" : err_str(e));
	base = wait_user_keys(cl.uid, -1);
	/* session 1 opens and closes f: its lower file is kept */
	e = cl_as_user(read_in_new_session, (void *)UP("f"));
	MCT_ASSERT(e == 0, "read %s as uid %u in a new session: %s", UP("f"),
		   (unsigned int)cl.uid, e == 124 ? "keyctl failed" : err_str(e));
	/* session 2 gets that kept file, and closes it */
	CL_SNAP(&s0);
	e = cl_as_user(read_in_new_session, (void *)UP("f"));
	CL_SINCE(&d, &s0);
	MCT_ASSERT(e == 0, "read %s as uid %u in a new session: %s", UP("f"),
		   (unsigned int)cl.uid, e == 124 ? "keyctl failed" : err_str(e));
	mct_diag("the second session's open: %s", cl_caches(&d));
	MCT_ASSERT(d.cache[MCS_HANDLE].hits == 1,
		   "the second session did not get the first one's kept file (%s)",
		   cl_caches(&d));
	MCT_EXPECT(d.cache[MCS_HANDLE].entries == 0,
		   "the first session's file was kept again after the second session closed it (%s)",
		   cl_caches(&d));
	/*
	 * The NFSv4 client keeps the state owner of a closed file, and the
	 * cred it was made with, for its lease time (nfs4_get_state_owner()),
	 * with or without metacache: one keyring more here.
	 */
	if (cl_fs("nfs")) {
		mct_diag("nfs: keys not counted, the client itself holds a closed file's cred for its lease time");
		return;
	}
	after = wait_user_keys(cl.uid, base);
	mct_diag("uid %u holds %d keys after one session, %d after two more", (unsigned int)cl.uid,
		 base, after);
	MCT_EXPECT(after <= base,
		   "%d session keyrings of uid %u outlived their processes (a kept file pins them)",
		   after - base, (unsigned int)cl.uid);
}

static int mu_snap(struct cl_stack *m, struct mcs *s)
{
	if (mcs_read(&m->mm, s)) {
		mct_fail_at(__FILE__, __LINE__, "read %s/stats", m->mm.dir);
		return -1;
	}
	return 0;
}

CL_TEST(cifs_multiuser_per_user)
{
	static const char *const names[] = { "f", "missing" };
	char up[2][PATH_MAX], low[2][PATH_MAX], opts[128];
	int root_up[2], user_lo[2], user_up[2], i;
	struct mcs s0, s1, d;
	struct cl_stack m = { .mounted = 0 };

	if (!cl_fs("cifs"))
		MCT_SKIP("a cifs multiuser mount: cifs only");
	MCT_ASSERT(!cl_writefile(UP("f"), 10, 'a', 0644), "create %s: %s", UP("f"),
		   strerror(errno));
	cl_settle();
	cl_snp(opts, sizeof(opts), "entry_ttl=%d,neg_ttl=%d,attr_ttl=%d", TTL, TTL, TTL);
	if (cl_stack_mount(&m, "peruser", "guest,vers=3.1.1,multiuser,nosharesock", opts))
		goto out;
	for (i = 0; i < 2; i++) {
		cl_snp(up[i], PATH_MAX, "%s/%s/%s", m.up, c->rel, names[i]);
		cl_snp(low[i], PATH_MAX, "%s/%s/%s", m.low, c->rel, names[i]);
	}

	/* Root caches the directory, the file, its attributes, the miss. */
	for (i = 0; i < 2; i++)
		root_up[i] = cl_lstat_err(up[i], NULL);
	if (root_up[0] || root_up[1] != ENOENT) {
		mct_fail_at(__FILE__, __LINE__, "as root through the stack: %s %s, %s %s",
			    names[0], err_str(root_up[0]), names[1], err_str(root_up[1]));
		goto out;
	}
	cl_msleep(LOWER_WAIT_MS);

	/* The other user, on the lower client, then through the stack. */
	for (i = 0; i < 2; i++)
		user_lo[i] = user_lstat(low[i]);
	if (mu_snap(&m, &s0))
		goto out;
	for (i = 0; i < 2; i++)
		user_up[i] = user_lstat(up[i]);
	if (mu_snap(&m, &s1))
		goto out;
	mcs_sub(&d, &s1, &s0);
	mct_diag("uid %u: lower %s %s, %s %s; stack %s, %s; lower calls %s; %s",
		 (unsigned)cl.uid, names[0], err_str(user_lo[0]), names[1], err_str(user_lo[1]),
		 err_str(user_up[0]), err_str(user_up[1]), cl_calls(&d), cl_caches(&d));
	for (i = 0; i < 2; i++)
		MCT_EXPECT(user_up[i] == user_lo[i],
			   "uid %u, %s: the stack says %s, the lower client %s", (unsigned)cl.uid,
			   names[i], err_str(user_up[i]), err_str(user_lo[i]));
	MCT_EXPECT(asked(&d) >= 1 && d.cache[MCS_ENTRY].hits + d.cache[MCS_NEG].hits == 0,
		   "root's cached entries answered uid %u: %s; %s", (unsigned)cl.uid,
		   cl_calls(&d), cl_caches(&d));

	/* Root is still served from what he cached. */
	for (i = 0; i < 2; i++)
		root_up[i] = cl_lstat_err(up[i], NULL);
	if (mu_snap(&m, &s0))
		goto out;
	mcs_sub(&d, &s0, &s1);
	mct_diag("root again: %s, %s; lower calls %s; %s", err_str(root_up[0]),
		 err_str(root_up[1]), cl_calls(&d), cl_caches(&d));
	MCT_EXPECT(!root_up[0] && root_up[1] == ENOENT, "root again: %s, %s",
		   err_str(root_up[0]), err_str(root_up[1]));
	MCT_EXPECT(asked(&d) == 0, "root's own cached answers asked the lower: %s; %s",
		   cl_calls(&d), cl_caches(&d));
out:
	cl_stack_umount(&m);
}

CL_MAIN()
