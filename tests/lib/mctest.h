/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mctest.h - a small TAP 13 test harness for metacache's C tests.
 *
 * Conventions follow kselftest: every test program prints
 *
 *	TAP version 13
 *	1..N
 *	ok 1 name
 *	not ok 2 name
 *	ok 3 name # SKIP why
 *
 * and exits 0 when nothing failed, 1 when something failed and 4 (KSFT_SKIP)
 * when every test was skipped.  Each test runs in its own forked child, so a
 * crash, a hang (alarm) or a setuid() in one test cannot disturb the others.
 *
 * Writing a test:
 *
 *	MCT_TEST(create_then_stat)
 *	{
 *		int fd = open(path, O_CREAT | O_WRONLY, 0644);
 *
 *		MCT_ASSERT(fd >= 0, "open %s: %s", path, strerror(errno));
 *		MCT_EXPECT(fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
 *		if (!have_feature)
 *			MCT_SKIP("the lower file system has no hard links");
 *	}
 *
 *	int main(int argc, char **argv) { return mct_main(argc, argv); }
 *
 * MCT_EXPECT records a failure and goes on; MCT_ASSERT and MCT_SKIP end the
 * test.  mct_diag() prints a "# " diagnostic line.  Before each result line
 * the harness prints "# NAME: S.S s", the test's wall time, so the slow
 * tests of a run can be found in its log.  Options: -l lists the
 * tests, -t NAME runs only NAME (repeatable), -T SECONDS sets the per-test
 * timeout (default 300, or $MCT_TIMEOUT).
 */
#ifndef MCTEST_H
#define MCTEST_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MCT_EXIT_PASS	0
#define MCT_EXIT_FAIL	1
#define MCT_EXIT_SKIP	4	/* kselftest's KSFT_SKIP */
#define MCT_MAX_TESTS	256

struct mct_case {
	const char *name;
	void (*fn)(void);
};

/* Shared with the forked child: the reason a test was skipped. */
struct mct_shared {
	int failed;
	int skipped;
	char reason[256];
};

static struct mct_case mct_cases[MCT_MAX_TESTS];
static int mct_ncases;
static struct mct_shared *mct_sh;

#define MCT_TEST(fname)							\
	static void fname(void);					\
	static void __attribute__((constructor)) mct_reg_##fname(void)	\
	{								\
		if (mct_ncases < MCT_MAX_TESTS)				\
			mct_cases[mct_ncases++] =			\
				(struct mct_case){ #fname, fname };	\
	}								\
	static void fname(void)

static inline void mct_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void mct_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static inline void mct_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void mct_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	if (mct_sh)
		mct_sh->failed = 1;
}

static inline void mct_skip_set(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void mct_skip_set(const char *fmt, ...)
{
	va_list ap;

	if (!mct_sh)
		return;
	va_start(ap, fmt);
	vsnprintf(mct_sh->reason, sizeof(mct_sh->reason), fmt, ap);
	va_end(ap);
	mct_sh->skipped = 1;
}

/* Run the shell command made from fmt; its wait status, noted if not 0. */
static inline int mct_system(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int mct_system(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	if (ret)
		mct_diag("'%s' exited 0x%x", cmd, ret);
	return ret;
}

/* Record a failure and continue. */
#define MCT_EXPECT(cond, ...)						\
	do {								\
		if (!(cond))						\
			mct_fail_at(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

/* Record a failure and end the test. */
#define MCT_ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			mct_fail_at(__FILE__, __LINE__, __VA_ARGS__);	\
			return;						\
		}							\
	} while (0)

/* End the test as skipped, with the reason. */
#define MCT_SKIP(...)							\
	do {								\
		mct_skip_set(__VA_ARGS__);				\
		return;							\
	} while (0)

/* True when the current test has recorded a failure. */
#define MCT_FAILED() (mct_sh && mct_sh->failed)

static inline int mct_selected(const char *name, int argc, char **argv)
{
	int i, any = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			any = 1;
			if (!strcmp(argv[i + 1], name))
				return 1;
			i++;
		}
	}
	return !any;
}

static inline int mct_main(int argc, char **argv)
{
	int i, n = 0, nr = 0, pass = 0, fail = 0, skip = 0;
	unsigned int timeout = 300;
	const char *env = getenv("MCT_TIMEOUT");

	if (env && atoi(env) > 0)
		timeout = (unsigned int)atoi(env);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			for (n = 0; n < mct_ncases; n++)
				printf("%s\n", mct_cases[n].name);
			return 0;
		} else if (!strcmp(argv[i], "-T") && i + 1 < argc) {
			timeout = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			i++;
		} else {
			fprintf(stderr, "usage: %s [-l] [-t NAME]... [-T SECONDS]\n",
				argv[0]);
			return 2;
		}
	}

	mct_sh = mmap(NULL, sizeof(*mct_sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mct_sh == MAP_FAILED) {
		perror("mmap");
		return MCT_EXIT_FAIL;
	}
	for (i = 0; i < mct_ncases; i++)
		nr += mct_selected(mct_cases[i].name, argc, argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", nr);
	for (i = 0; i < mct_ncases; i++) {
		const struct mct_case *c = &mct_cases[i];
		struct timespec t0, t1;
		int status = 0;
		pid_t pid;

		if (!mct_selected(c->name, argc, argv))
			continue;
		n++;
		memset(mct_sh, 0, sizeof(*mct_sh));
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid < 0) {
			printf("not ok %d %s # fork: %s\n", n, c->name,
			       strerror(errno));
			fail++;
			continue;
		}
		if (pid == 0) {
			alarm(timeout);
			c->fn();
			fflush(stdout);
			_exit(0);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# %s: %.1f s\n", c->name,
		       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (WIFSIGNALED(status)) {
			printf("# %s: killed by signal %d%s\n", c->name,
			       WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
			mct_sh->failed = 1;
		} else if (WEXITSTATUS(status) != 0) {
			printf("# %s: exited with %d\n", c->name,
			       WEXITSTATUS(status));
			mct_sh->failed = 1;
		}
		if (mct_sh->failed) {
			printf("not ok %d %s\n", n, c->name);
			fail++;
		} else if (mct_sh->skipped) {
			printf("ok %d %s # SKIP %s\n", n, c->name,
			       mct_sh->reason);
			skip++;
		} else {
			printf("ok %d %s\n", n, c->name);
			pass++;
		}
	}
	printf("# Totals: pass:%d fail:%d skip:%d\n", pass, fail, skip);
	if (fail)
		return MCT_EXIT_FAIL;
	if (nr && skip == nr)
		return MCT_EXIT_SKIP;
	return MCT_EXIT_PASS;
}

#endif /* MCTEST_H */
