// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - parse and print durations, sizes and counts.
 *
 *   durations  30s 500ms 5m 1h 2d 1h30m; a plain number is seconds
 *              (units ns us ms s m h d, in any sequence: 1m30s)
 *   sizes      4096 64K 64M 1G 2T (binary: K = 1024; "B"/"iB" allowed)
 *   counts     1000 64k 2M 1G (decimal) or 64Ki 1Mi (binary)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "mcctl.h"

#define NS_PER_S 1000000000ULL

/* Digits at *p into *v; returns the number of digits, -1 on overflow. */
static int take_digits(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (isdigit((unsigned char)*s)) {
		unsigned int d = (unsigned int)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		s++;
		n++;
	}
	*p = s;
	*v = x;
	return n;
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	if (b && a > UINT64_MAX / b)
		return 0;
	*r = a * b;
	return 1;
}

int mc_parse_duration_ns(const char *s, uint64_t *ns, const char **why)
{
	static const struct { const char *u; uint64_t mult; } units[] = {
		/* longest first: "ms" before "m", "ns" before "s" */
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", NS_PER_S }, { "m", 60 * NS_PER_S },
		{ "h", 3600 * NS_PER_S }, { "d", 86400 * NS_PER_S },
	};
	const char *p = s;
	uint64_t total = 0;
	int parts = 0;

	if (!s || !*s) {
		*why = "empty duration";
		return -1;
	}
	if (*s == '-') {
		*why = "negative values are refused";
		return -1;
	}
	while (*p) {
		uint64_t v, part;
		size_t i, ulen = 0;
		int nd = take_digits(&p, &v);

		if (nd < 0) {
			*why = "number too large";
			return -1;
		}
		if (nd == 0) {
			*why = "not a duration (examples: 30, 30s, 500ms, 5m, 1h, 1h30m)";
			return -1;
		}
		if (!*p) {
			if (parts) {
				*why = "a number without a unit after the first part";
				return -1;
			}
			/* plain number: seconds */
			if (!mul_ok(v, NS_PER_S, &total)) {
				*why = "duration too large";
				return -1;
			}
			*ns = total;
			return 0;
		}
		for (i = 0; i < MC_ARRAY_SIZE(units); i++) {
			ulen = strlen(units[i].u);
			if (!strncmp(p, units[i].u, ulen) &&
			    !isalpha((unsigned char)p[ulen]))
				break;
		}
		if (i == MC_ARRAY_SIZE(units)) {
			*why = "unknown unit (use ns, us, ms, s, m, h or d)";
			return -1;
		}
		p += ulen;
		if (!mul_ok(v, units[i].mult, &part) || total > UINT64_MAX - part) {
			*why = "duration too large";
			return -1;
		}
		total += part;
		parts++;
	}
	*ns = total;
	return 0;
}

int mc_parse_ttl(const char *s, uint32_t *sec, const char **why)
{
	uint64_t ns;

	if (s && !strcmp(s, "off")) {
		*sec = 0;
		return 0;
	}
	if (mc_parse_duration_ns(s, &ns, why))
		return -1;
	if (ns % NS_PER_S) {
		*why = "not a whole number of seconds";
		return -1;
	}
	if (ns / NS_PER_S > METACACHE_TTL_MAX) {
		*why = "above the maximum, 365d (31536000 seconds)";
		return -1;
	}
	*sec = (uint32_t)(ns / NS_PER_S);
	return 0;
}

int mc_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	static const char sfx[] = "KMGTP";
	const char *p = s, *u;
	uint64_t v, mult = 1;
	int nd;

	if (!s || !*s) {
		*why = "empty size";
		return -1;
	}
	if (*s == '-') {
		*why = "negative values are refused";
		return -1;
	}
	nd = take_digits(&p, &v);
	if (nd < 0) {
		*why = "number too large";
		return -1;
	}
	if (nd == 0) {
		*why = "not a size (examples: 4096, 64K, 64M, 1G)";
		return -1;
	}
	if (*p) {
		u = strchr(sfx, toupper((unsigned char)*p));
		if (!u) {
			if (strcmp(p, "B") && strcmp(p, "b")) {
				*why = "unknown unit (use K, M, G, T or P)";
				return -1;
			}
			p++;
		} else {
			int k = (int)(u - sfx) + 1;

			while (k--)
				mult *= 1024;
			p++;
			if (!strcmp(p, "iB") || !strcmp(p, "B"))
				p += strlen(p);
		}
		if (*p) {
			*why = "trailing characters after the unit";
			return -1;
		}
	}
	if (!mul_ok(v, mult, bytes)) {
		*why = "size too large";
		return -1;
	}
	return 0;
}

int mc_parse_count(const char *s, uint64_t *n, const char **why)
{
	const char *p = s;
	uint64_t v, mult = 1;
	int nd;

	if (!s || !*s) {
		*why = "empty number";
		return -1;
	}
	if (*s == '-') {
		*why = "negative values are refused";
		return -1;
	}
	nd = take_digits(&p, &v);
	if (nd < 0) {
		*why = "number too large";
		return -1;
	}
	if (nd == 0) {
		*why = "not a number (examples: 1000, 64k, 2M, 64Ki)";
		return -1;
	}
	if (*p) {
		int bin = p[1] == 'i' && !p[2];

		if (p[1] && !bin) {
			*why = "trailing characters after the unit";
			return -1;
		}
		switch (*p) {
		case 'k': case 'K':
			mult = bin ? 1024ULL : 1000ULL;
			break;
		case 'M':
			mult = bin ? 1024ULL * 1024 : 1000000ULL;
			break;
		case 'G':
			mult = bin ? 1024ULL * 1024 * 1024 : 1000000000ULL;
			break;
		default:
			*why = "unknown unit (use k, M, G, or Ki, Mi, Gi)";
			return -1;
		}
	}
	if (!mul_ok(v, mult, n)) {
		*why = "number too large";
		return -1;
	}
	return 0;
}

int mc_parse_switch(const char *s, int *on, const char **why)
{
	static const char *const yes[] = { "on", "yes", "true", "1", "enable" };
	static const char *const no[] = { "off", "no", "false", "0", "disable" };
	size_t i;

	for (i = 0; s && i < MC_ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i])) {
			*on = 1;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*on = 0;
			return 0;
		}
	}
	*why = "not on or off";
	return -1;
}

int mc_parse_u32_id(const char *s, uint32_t *id)
{
	const char *p = s;
	uint64_t v;

	if (take_digits(&p, &v) <= 0 || *p || v > UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

const char *mc_fmt_ttl(char *buf, size_t len, uint64_t sec)
{
	static const struct { char u; uint64_t s; } parts[] = {
		{ 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 },
	};
	size_t i, off = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (!sec) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (i = 0; i < MC_ARRAY_SIZE(parts) && off < len; i++) {
		uint64_t q = sec / parts[i].s;

		if (!q)
			continue;
		sec -= q * parts[i].s;
		off += (size_t)snprintf(buf + off, len - off, "%llu%c",
					(unsigned long long)q, parts[i].u);
	}
	return buf;
}

/*
 * Print v / base^k with 3 significant digits and units[k], moving to the
 * next unit when rounding reaches 1000 (or base).
 */
static const char *fmt_scaled(char *buf, size_t len, uint64_t v, double base,
			      const char *const *units, int nunits,
			      const char *sep)
{
	double x = (double)v;
	int k = 0;

	while (k + 1 < nunits && x >= base) {
		x /= base;
		k++;
	}
	if (k == 0) {
		snprintf(buf, len, "%llu%s%s", (unsigned long long)v, sep, units[0]);
		return buf;
	}
	/* 999.6 would print as "1000": go one unit up instead */
	if (x >= 999.5 && k + 1 < nunits) {
		x /= base;
		k++;
	}
	if (x < 9.995)
		snprintf(buf, len, "%.2f%s%s", x, sep, units[k]);
	else if (x < 99.95)
		snprintf(buf, len, "%.1f%s%s", x, sep, units[k]);
	else
		snprintf(buf, len, "%.0f%s%s", x, sep, units[k]);
	return buf;
}

const char *mc_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const char *const u[] = { "ns", "us", "ms", "s" };

	return fmt_scaled(buf, len, ns, 1000.0, u, 4, "");
}

const char *mc_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const u[] = { "B", "K", "M", "G", "T", "P", "E" };

	return fmt_scaled(buf, len, bytes, 1024.0, u, 7, "");
}

const char *mc_fmt_count(char *buf, size_t len, uint64_t n)
{
	static const char *const u[] = { "", "k", "M", "G", "T", "P", "E" };

	return fmt_scaled(buf, len, n, 1000.0, u, 7, "");
}

const char *mc_fmt_age(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S;

	if (s < 60)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lluh%llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%llud%lluh", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600));
	return buf;
}

int mc_path_normalize(const char *in, char *out, size_t len, const char **why)
{
	size_t off = 0;
	const char *p = in;

	if (len < 2) {
		*why = "path too long";
		return -1;
	}
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			*why = "'..' is not allowed: give the directory under the mount root";
			return -1;
		}
		if (off + 1 + n + 1 > len) {
			*why = "path too long";
			return -1;
		}
		out[off++] = '/';
		memmove(out + off, p, n);
		off += n;
		p += n;
	}
	if (!off)
		out[off++] = '/';
	out[off] = 0;
	return 0;
}
