/* csv.c: RFC 4180 fields and tables, safe from formula injection. */
#include "render/csv.h"
#include "util/jsonw.h"
#include "util/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void csv_text(struct buf *b, const char *s)
{
	const char *q;

	buf_putc(b, '"');
	if (s && (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r'))
		buf_putc(b, '\'');
	while (s && *s) {
		q = strchr(s, '"');
		if (!q) {
			buf_puts(b, s);
			break;
		}
		buf_add(b, s, (size_t)(q - s) + 1);
		buf_putc(b, '"');
		s = q + 1;
	}
	buf_putc(b, '"');
}

void csv_number(struct buf *b, double x)
{
	char num[NUMFMT_SHORTEST_LEN];

	if (numfmt_shortest(num, x) >= 0)
		buf_puts(b, num);
}

void csv_json(struct buf *b, const json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		csv_text(b, json_string_value(v));
	} else if (json_is_integer(v)) {
		buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		csv_number(b, json_real_value(v));
	} else if (json_is_boolean(v)) {
		buf_puts(b, json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v) || json_is_object(v)) {
		s = jsonw_dumps(v, 0);
		if (!s) {
			buf_grow(b, BUF_MAX);        /* out of memory: the sticky error */
			return;
		}
		csv_text(b, s);
		free(s);
	}
}

const json_t *csv_path(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;
	size_t n;

	while (o && (dot = strchr(path, '.'))) {
		n = (size_t)(dot - path);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return o ? json_object_get(o, path) : NULL;
}

int csv_table(struct buf *b, const json_t *rows, const struct csv_col *cols, size_t ncols)
{
	const json_t *row;
	size_t i, c;

	for (c = 0; c < ncols; c++) {
		if (c)
			buf_putc(b, ',');
		csv_text(b, cols[c].header);
	}
	buf_puts(b, "\r\n");
	json_array_foreach(rows, i, row) {
		for (c = 0; c < ncols; c++) {
			if (c)
				buf_putc(b, ',');
			csv_json(b, csv_path(row, cols[c].path));
		}
		buf_puts(b, "\r\n");
	}
	return buf_error(b);
}
