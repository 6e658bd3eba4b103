/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctlrun.h - run tools/metacachectl/metacachectl from a test and read its
 * JSON output: shared by tests/netlink/ctl.c and tests/gen/genctl.c.
 *
 *	MCT_ASSERT(!find_tool(), "metacachectl not built (%s)", tool);
 *	EXPECT_RUN(0, "show", "-j");		(R.out, R.err, R.status)
 *	EXPECT_JSON("show", "-j");
 *	js_num(R.out, "mounts.0.id") ...
 *
 * The tool: mc_find_ctl() (mcutil.h): $MC_CTL, $MC_REPO/tools/metacachectl/metacachectl, else
 * ../../tools/metacachectl/metacachectl from the test program.  Include
 * after mctest.h and mcutil.h.
 */
#ifndef CTLRUN_H
#define CTLRUN_H

#include <ctype.h>
#include <grp.h>
#include <limits.h>
#include <sys/wait.h>

static char tool[PATH_MAX];

/* --------------------------------------------------------- the tool */

struct run {
	int status;		/* exit status, 128 + signal */
	char out[65536];
	char err[8192];
};

static struct run R;

static inline int find_tool(void)
{
	return mc_find_ctl(tool, sizeof(tool));
}

static inline void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while ((n = read(fd, buf + len, size - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	buf[len] = 0;
}

/*
 * Run the tool with the arguments (NULL-terminated) as uid (-1: as is),
 * capturing its output in R.  Returns its exit status.
 */
static inline int ctl_as(int uid, ...)
{
	char *argv[32];
	int out[2], err[2], i = 0, status;
	va_list ap;
	pid_t pid;

	argv[i++] = tool;
	va_start(ap, uid);
	while (i < 31 && (argv[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	argv[i] = NULL;
	memset(&R, 0, sizeof(R));
	if (pipe(out) || pipe(err))
		return R.status = 127;
	pid = fork();
	if (pid < 0)
		return R.status = 127;
	if (!pid) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		if (uid >= 0 && (setgroups(0, NULL) || setgid((gid_t)uid) ||
				 setuid((uid_t)uid)))
			_exit(126);
		execv(tool, argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* outputs are small: stdout first, then stderr, cannot deadlock */
	slurp(out[0], R.out, sizeof(R.out));
	slurp(err[0], R.err, sizeof(R.err));
	close(out[0]);
	close(err[0]);
	waitpid(pid, &status, 0);
	R.status = WIFEXITED(status) ? WEXITSTATUS(status)
				     : 128 + WTERMSIG(status);
	return R.status;
}

#define ctl(...) ctl_as(-1, __VA_ARGS__, (char *)NULL)
#define ctl_user(...) ctl_as(test_uid(), __VA_ARGS__, (char *)NULL)

static inline int test_uid(void)
{
	const char *u = mc_env("MC_TEST_UID");

	return u ? atoi(u) : 65534;
}

#define EXPECT_RUN(want, ...)						\
	do {								\
		int __rc = ctl(__VA_ARGS__);				\
		MCT_EXPECT(__rc == (want),				\
			   "metacachectl %s: exit %d, want %d; stderr: %s", \
			   #__VA_ARGS__, __rc, want, R.err);		\
	} while (0)

/* ---------------------------------------------------- a JSON reader */

/*
 * Checks that a document is one JSON value (RFC 8259) and finds the value
 * at a path: "a.b" for members, "a.2" for array elements.  Enough for
 * metacachectl's output; \u escapes are checked, not decoded.
 */
struct js {
	const char *p;
	int depth;
};

static inline void js_ws(struct js *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static inline int js_string(struct js *j, char *out, size_t size)
{
	size_t n = 0;

	if (*j->p != '"')
		return -1;
	j->p++;
	while (*j->p != '"') {
		char c = *j->p++;

		if ((unsigned char)c < 0x20)
			return -1;
		if (c == '\\') {
			c = *j->p++;
			if (c == 'u') {
				int k;

				for (k = 0; k < 4; k++)
					if (!isxdigit((unsigned char)*j->p++))
						return -1;
				c = '?';
			} else if (!strchr("\"\\/bfnrt", c)) {
				return -1;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			}
		}
		if (out && n + 1 < size)
			out[n++] = c;
	}
	j->p++;
	if (out && size)
		out[n] = 0;
	return 0;
}

/* Parse a value; if path is non-NULL find what it names inside it. */
static inline int js_value(struct js *j, const char *path, const char **found)
{
	char key[256];
	size_t seglen = 0;
	int idx = 0, err;

	js_ws(j);
	if (path) {
		seglen = strcspn(path, ".");
		if (!seglen) {
			*found = j->p;
			path = NULL;
		}
	}
	if (++j->depth > 64)
		return -1;
	if (*j->p == '{') {
		j->p++;
		js_ws(j);
		if (*j->p == '}') {
			j->p++;
			goto done;
		}
		for (;;) {
			const char *rest = NULL;

			js_ws(j);
			if (js_string(j, key, sizeof(key)))
				return -1;
			js_ws(j);
			if (*j->p++ != ':')
				return -1;
			if (path && strlen(key) == seglen &&
			    !strncmp(key, path, seglen))
				rest = path[seglen] ? path + seglen + 1 : "";
			err = js_value(j, rest, found);
			if (err)
				return err;
			js_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != '}')
				return -1;
			break;
		}
	} else if (*j->p == '[') {
		j->p++;
		js_ws(j);
		if (*j->p == ']') {
			j->p++;
			goto done;
		}
		for (;;) {
			const char *rest = NULL;
			char num[16];

			snprintf(num, sizeof(num), "%d", idx++);
			if (path && strlen(num) == seglen &&
			    !strncmp(num, path, seglen))
				rest = path[seglen] ? path + seglen + 1 : "";
			err = js_value(j, rest, found);
			if (err)
				return err;
			js_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != ']')
				return -1;
			break;
		}
	} else if (*j->p == '"') {
		if (js_string(j, NULL, 0))
			return -1;
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else {
		const char *s = j->p;

		if (*j->p == '-')
			j->p++;
		if (!isdigit((unsigned char)*j->p))
			return -1;
		if (*j->p == '0' && isdigit((unsigned char)j->p[1]))
			return -1;
		while (isdigit((unsigned char)*j->p))
			j->p++;
		if (*j->p == '.') {
			j->p++;
			if (!isdigit((unsigned char)*j->p))
				return -1;
			while (isdigit((unsigned char)*j->p))
				j->p++;
		}
		if (*j->p == 'e' || *j->p == 'E') {
			j->p++;
			if (*j->p == '+' || *j->p == '-')
				j->p++;
			if (!isdigit((unsigned char)*j->p))
				return -1;
			while (isdigit((unsigned char)*j->p))
				j->p++;
		}
		(void)s;
	}
done:
	j->depth--;
	return 0;
}

/* Is doc one valid JSON document?  If path, *at gets its value or NULL. */
static inline int js_find(const char *doc, const char *path, const char **at)
{
	struct js j = { .p = doc };
	const char *found = NULL;

	if (js_value(&j, path, &found))
		return -1;
	js_ws(&j);
	if (*j.p)
		return -1;
	if (at)
		*at = found;
	return 0;
}

static inline int js_valid(const char *doc)
{
	return !js_find(doc, NULL, NULL);
}

/* The number at path, or -1 (absent, null, not a number). */
static inline long long js_num(const char *doc, const char *path)
{
	const char *at;

	if (js_find(doc, path, &at) || !at || !(isdigit((unsigned char)*at) ||
						*at == '-'))
		return -1;
	return strtoll(at, NULL, 10);
}

/* 1 true, 0 false, -1 anything else. */
static inline int js_bool(const char *doc, const char *path)
{
	const char *at;

	if (js_find(doc, path, &at) || !at)
		return -1;
	if (!strncmp(at, "true", 4))
		return 1;
	if (!strncmp(at, "false", 5))
		return 0;
	return -1;
}

/* The string at path into buf; "" when absent or not a string. */
static inline const char *js_str(const char *doc, const char *path, char *buf,
			  size_t size)
{
	struct js j;
	const char *at;

	buf[0] = 0;
	if (js_find(doc, path, &at) || !at || *at != '"')
		return buf;
	j.p = at;
	j.depth = 0;
	js_string(&j, buf, size);
	return buf;
}

/* Run the tool expecting exit 0 and a valid JSON document on stdout. */
#define EXPECT_JSON(...)						\
	do {								\
		int __rc = ctl(__VA_ARGS__);				\
		MCT_EXPECT(__rc == 0, "metacachectl %s: exit %d: %s",	\
			   #__VA_ARGS__, __rc, R.err);			\
		MCT_EXPECT(js_valid(R.out), "metacachectl %s: not JSON: %s", \
			   #__VA_ARGS__, R.out);			\
	} while (0)

#endif /* CTLRUN_H */
