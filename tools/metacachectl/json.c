// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - a tiny streaming JSON emitter (RFC 8259), compact output.
 *
 * Strings are escaped as the RFC requires (quote, backslash, control
 * characters) and must be UTF-8 on output: bytes that are not valid UTF-8
 * (file names may hold anything) are written as U+FFFD.  Numbers are
 * integers, or doubles printed with enough digits; NaN and infinities,
 * which JSON lacks, become null.
 */
#include <math.h>
#include <string.h>
#include "mcctl.h"

void mcj_init(struct mc_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* continuation byte, overlong C0/C1, F5..FF */
	/* the second byte's range excludes overlongs, surrogates, > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void mcj_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n;

		switch (c) {
		case '"':  fputs("\\\"", f); s++; continue;
		case '\\': fputs("\\\\", f); s++; continue;
		case '\b': fputs("\\b", f); s++; continue;
		case '\f': fputs("\\f", f); s++; continue;
		case '\n': fputs("\\n", f); s++; continue;
		case '\r': fputs("\\r", f); s++; continue;
		case '\t': fputs("\\t", f); s++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
	fputc('"', f);
}

/* Separator and key before a value at the current level. */
static void member(struct mc_json *j, const char *key)
{
	if (j->count[j->depth]++)
		fputc(',', j->f);
	else if (j->depth == 0 && j->count[0] > 1)
		j->error = 1;	/* two documents */
	if (key) {
		mcj_write_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_level(struct mc_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 >= MC_JSON_DEPTH) {
		j->error = 1;
		return;
	}
	j->count[++j->depth] = 0;
}

static void close_level(struct mc_json *j, char c)
{
	if (j->depth == 0) {
		j->error = 1;
		return;
	}
	j->depth--;
	fputc(c, j->f);
}

void mcj_obj(struct mc_json *j, const char *key)
{
	open_level(j, key, '{');
}

void mcj_obj_end(struct mc_json *j)
{
	close_level(j, '}');
}

void mcj_arr(struct mc_json *j, const char *key)
{
	open_level(j, key, '[');
}

void mcj_arr_end(struct mc_json *j)
{
	close_level(j, ']');
}

void mcj_str(struct mc_json *j, const char *key, const char *s)
{
	member(j, key);
	if (s)
		mcj_write_string(j->f, s);
	else
		fputs("null", j->f);
}

void mcj_u64(struct mc_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void mcj_i64(struct mc_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void mcj_dbl(struct mc_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void mcj_bool(struct mc_json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void mcj_null(struct mc_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

int mcj_end(struct mc_json *j)
{
	if (j->depth)
		j->error = 1;
	fputc('\n', j->f);
	fflush(j->f);
	return j->error || ferror(j->f) ? -1 : 0;
}
