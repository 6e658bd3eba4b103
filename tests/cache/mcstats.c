// SPDX-License-Identifier: GPL-2.0
/*
 * mcstats.c - read a metacache mount's counters from debugfs (mcstats.h).
 */
#include "mcstats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *const mcs_op_names[MCS_OP_NR] = {
	"lookup", "revalidate", "getattr", "setattr", "permission",
	"create", "mkdir", "mknod", "symlink", "link", "unlink",
	"rmdir", "rename", "open", "release", "read", "write",
	"readdir", "fsync", "xattr", "lock", "ioctl", "statfs",
	"other",
};

const char *const mcs_cache_names[MCS_CACHE_NR] = {
	"entry", "neg", "attr", "dir", "handle",
};

static void why_set(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Read a small file into buf (NUL-terminated): length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

/* The value of "key VALUE" at the start of a line of text, or NULL. */
static const char *info_value(const char *text, const char *key, char *out,
			      size_t len)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, "\n");

			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return out;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Mount sources (field after " - fstype ") of mounts with st_dev DEV. */
static int mountinfo_source(dev_t dev, char *src, size_t len)
{
	char line[4096], want[32];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0;

	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *sep;
		int i;

		tok = strtok_r(line, " ", &save);
		for (i = 1; tok && i < 3; i++)
			tok = strtok_r(NULL, " ", &save);
		if (!tok || strcmp(tok, want))
			continue;
		sep = strstr(save, " - ");
		if (!sep)
			continue;
		tok = strtok_r(sep + 3, " ", &save);	/* fstype */
		tok = strtok_r(NULL, " ", &save);	/* source */
		if (!tok)
			continue;
		snprintf(src, len, "%s", tok);
		found = 1;
		break;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int mcs_open(struct mcs_mount *m, const char *path, char *why, size_t whylen)
{
	char info[4096], val[PATH_MAX], src[PATH_MAX], want[32], p[PATH_MAX + 64];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int nodev = 1, ndev = 0, nlower = 0, have_src;
	unsigned int lower_id = 0;

	memset(m, 0, sizeof(*m));
	if (stat(path, &st) < 0) {
		int e = errno;

		why_set(why, whylen, "stat %s: %s", path, strerror(e));
		return -e;
	}
	snprintf(want, sizeof(want), "%u:%u", major(st.st_dev), minor(st.st_dev));
	have_src = mountinfo_source(st.st_dev, src, sizeof(src)) == 0;
	d = opendir(MCS_DEBUGFS);
	if (!d) {
		int e = errno;

		why_set(why, whylen, "%s: %s (debugfs not mounted or module not loaded)",
			MCS_DEBUGFS, strerror(e));
		return -ENODEV;
	}
	while ((de = readdir(d))) {
		char *end;
		unsigned long id = strtoul(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end)
			continue;
		snprintf(p, sizeof(p), "%s/%s/info", MCS_DEBUGFS, de->d_name);
		if (read_small(p, info, sizeof(info)) < 0)
			continue;
		if (info_value(info, "dev", val, sizeof(val))) {
			nodev = 0;
			if (!strcmp(val, want)) {
				m->id = (unsigned int)id;
				ndev++;
			}
		}
		if (have_src && info_value(info, "lower", val, sizeof(val)) &&
		    !strcmp(val, src)) {
			lower_id = (unsigned int)id;
			nlower++;
		}
	}
	closedir(d);
	if (ndev == 1) {
		m->by = 0;
	} else if (ndev > 1) {
		why_set(why, whylen, "%d debugfs mounts claim dev %s", ndev, want);
		return -ENOTUNIQ;
	} else if (nodev && nlower == 1) {
		/* a module without the "dev" line: match the lower path */
		m->id = lower_id;
		m->by = 1;
	} else if (nodev && nlower > 1) {
		why_set(why, whylen, "no \"dev\" line in %s/*/info, and %d mounts have lower %s",
			MCS_DEBUGFS, nlower, src);
		return -ENOTUNIQ;
	} else {
		why_set(why, whylen, "no %s/<id>/info has \"dev %s\" (the mount of %s)",
			MCS_DEBUGFS, want, path);
		return -ENOENT;
	}
	snprintf(m->dir, sizeof(m->dir), "%s/%u", MCS_DEBUGFS, m->id);
	return 0;
}

static int op_index(const char *name)
{
	int i;

	for (i = 0; i < MCS_OP_NR; i++)
		if (!strcmp(name, mcs_op_names[i]))
			return i;
	return -1;
}

static int cache_index(const char *name)
{
	int i;

	for (i = 0; i < MCS_CACHE_NR; i++)
		if (!strcmp(name, mcs_cache_names[i]))
			return i;
	return -1;
}

static uint64_t *cache_field(struct mcs_cachec *c, const char *key)
{
	if (!strcmp(key, "hits")) return &c->hits;
	if (!strcmp(key, "misses")) return &c->misses;
	if (!strcmp(key, "expired")) return &c->expired;
	if (!strcmp(key, "renewed")) return &c->renewed;
	if (!strcmp(key, "evicted")) return &c->evicted;
	if (!strcmp(key, "entries")) return &c->entries;
	if (!strcmp(key, "bytes")) return &c->bytes;
	return NULL;
}

static uint64_t *op_field(struct mcs_opc *o, const char *key)
{
	if (!strcmp(key, "calls")) return &o->calls;
	if (!strcmp(key, "avoided")) return &o->avoided;
	if (!strcmp(key, "total_ns")) return &o->total_ns;
	return NULL;
}

int mcs_read(const struct mcs_mount *m, struct mcs *s)
{
	static char buf[16384];
	char path[PATH_MAX + 16], *line, *save = NULL;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/stats", m->dir);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tok[32], *ts = NULL;
		int nt = 0, i, idx;

		for (char *t = strtok_r(line, " \t", &ts); t && nt < 32;
		     t = strtok_r(NULL, " \t", &ts))
			tok[nt++] = t;
		if (nt >= 2 && !strcmp(tok[0], "op") &&
		    (idx = op_index(tok[1])) >= 0) {
			s->ops_seen |= MCS_BIT(idx);
			for (i = 2; i + 1 < nt; i += 2) {
				uint64_t *f = op_field(&s->op[idx], tok[i]);

				if (f)
					*f = strtoull(tok[i + 1], NULL, 10);
			}
		} else if (nt >= 2 && !strcmp(tok[0], "cache") &&
			   (idx = cache_index(tok[1])) >= 0) {
			s->caches_seen |= 1U << idx;
			for (i = 2; i + 1 < nt; i += 2) {
				uint64_t *f = cache_field(&s->cache[idx], tok[i]);

				if (f)
					*f = strtoull(tok[i + 1], NULL, 10);
			}
		} else if (nt == 3 && (idx = op_index(tok[0])) >= 0) {
			/* the pass-through module: "name calls total_ns" */
			s->old_format = 1;
			s->ops_seen |= MCS_BIT(idx);
			s->op[idx].calls = strtoull(tok[1], NULL, 10);
			s->op[idx].total_ns = strtoull(tok[2], NULL, 10);
		}
	}
	return 0;
}

int mcs_flush(const struct mcs_mount *m)
{
	char path[PATH_MAX + 16];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/flush", m->dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1\n", 2) != 2)
		ret = -errno;
	close(fd);
	return ret;
}

void mcs_sub(struct mcs *d, const struct mcs *b, const struct mcs *a)
{
	int i;

	*d = *b;
	for (i = 0; i < MCS_OP_NR; i++) {
		d->op[i].calls = b->op[i].calls - a->op[i].calls;
		d->op[i].avoided = b->op[i].avoided - a->op[i].avoided;
		d->op[i].total_ns = b->op[i].total_ns - a->op[i].total_ns;
	}
	for (i = 0; i < MCS_CACHE_NR; i++) {
		d->cache[i].hits = b->cache[i].hits - a->cache[i].hits;
		d->cache[i].misses = b->cache[i].misses - a->cache[i].misses;
		d->cache[i].expired = b->cache[i].expired - a->cache[i].expired;
		d->cache[i].renewed = b->cache[i].renewed - a->cache[i].renewed;
		d->cache[i].evicted = b->cache[i].evicted - a->cache[i].evicted;
	}
}

uint64_t mcs_calls(const struct mcs *s, uint64_t mask)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < MCS_OP_NR; i++)
		if (mask & MCS_BIT(i))
			n += s->op[i].calls;
	return n;
}

uint64_t mcs_avoided(const struct mcs *s, uint64_t mask)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < MCS_OP_NR; i++)
		if (mask & MCS_BIT(i))
			n += s->op[i].avoided;
	return n;
}

const char *mcs_fmt_calls(const struct mcs *d, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < MCS_OP_NR && off < len; i++) {
		if (!d->op[i].calls)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%" PRIu64,
					off ? " " : "", mcs_op_names[i],
					d->op[i].calls);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

const char *mcs_fmt_caches(const struct mcs *d, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < MCS_CACHE_NR && off < len; i++) {
		const struct mcs_cachec *c = &d->cache[i];

		off += (size_t)snprintf(buf + off, len - off,
			"%s%s hit=%" PRIu64 " miss=%" PRIu64 " exp=%" PRIu64
			" ren=%" PRIu64 " evict=%" PRIu64 " n=%" PRIu64,
			off ? "; " : "", mcs_cache_names[i], c->hits, c->misses,
			c->expired, c->renewed, c->evicted, c->entries);
	}
	return buf;
}

int mcs_is_metacache(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return -errno;
	return (unsigned long)sf.f_type == MCS_SUPER_MAGIC;
}

int mcs_snp(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(dst, n, fmt, ap);
	va_end(ap);
	return r;
}
