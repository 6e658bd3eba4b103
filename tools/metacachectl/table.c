// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - collect rows of strings, print them in aligned columns.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "mcctl.h"

static char *dup_or_die(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		perror(mc_prog);
		exit(MC_EXIT_FAIL);
	}
	return d;
}

static void add_row(struct mc_table *t, const char *const *cells)
{
	int c;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = realloc(t->cells, sizeof(char *) * (size_t)t->cap *
					     (size_t)t->ncols);
		if (!t->cells) {
			perror(mc_prog);
			exit(MC_EXIT_FAIL);
		}
	}
	for (c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = dup_or_die(cells[c]);
	t->nrows++;
}

void mc_table_init(struct mc_table *t, int ncols, const char *const *header,
		   const char *align)
{
	int c;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols > MC_TABLE_COLS ? MC_TABLE_COLS : ncols;
	for (c = 0; c < t->ncols && align && align[c]; c++)
		t->right[c] = align[c] == 'r';
	add_row(t, header);
}

void mc_table_row(struct mc_table *t, ...)
{
	const char *cells[MC_TABLE_COLS];
	va_list ap;
	int c;

	va_start(ap, t);
	for (c = 0; c < t->ncols; c++)
		cells[c] = va_arg(ap, const char *);
	va_end(ap);
	add_row(t, cells);
}

/* Display width: count UTF-8 lead bytes, not continuation bytes. */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void mc_table_print(struct mc_table *t, FILE *f, const char *indent)
{
	int w[MC_TABLE_COLS] = { 0 };
	int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			int n = width(t->cells[r * t->ncols + c]);

			if (n > w[c])
				w[c] = n;
		}
	for (r = 0; r < t->nrows; r++) {
		fputs(indent ? indent : "", f);
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			int pad = w[c] - width(s);
			int last = c == t->ncols - 1;

			if (c)
				fputs("  ", f);
			if (t->right[c])
				fprintf(f, "%*s%s", pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : pad, "");
		}
		fputc('\n', f);
	}
}

void mc_table_free(struct mc_table *t)
{
	int i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
