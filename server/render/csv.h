/* csv.h: the CSV output context (RFC 4180), the CSV twin of html.h.  Every
 * byte of user data that reaches a CSV file goes through csv_text(). */
#ifndef LLMS_CSV_H
#define LLMS_CSV_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"

/* One text field: always enclosed in double quotes, each " doubled, line
 * breaks kept (RFC 4180 section 2.6-2.7).  Safe from formula injection: a
 * field that starts with =, +, -, @, tab or CR (which spreadsheets read as
 * a formula) is prefixed with a single quote, so it stays text.  NULL is
 * an empty field. */
void csv_text(struct buf *b, const char *s);

/* One number field, unquoted: the shortest form that reads back as the
 * same double ("112.2", "-0.5", "3e-7": numfmt_shortest); empty when not finite.  A number
 * is never a formula, so a leading "-" is left as it is. */
void csv_number(struct buf *b, double x);

/* A JSON value as one field: a string by csv_text(), a number by
 * csv_number(), true/false as text, null (or NULL) empty; an array or
 * object as its compact JSON, by csv_text(). */
void csv_json(struct buf *b, const json_t *v);

/* A column of a table: its header and the dotted path of its value in
 * each row object ("model.name"). */
struct csv_col {
	const char *header;
	const char *path;
};

/* A whole table: the header record, then one record per object of rows,
 * each record ended by CRLF.  Returns buf_error(b). */
int csv_table(struct buf *b, const json_t *rows, const struct csv_col *cols, size_t ncols);

/* The member at dotted path in o ("a.b.c"), borrowed from o, or NULL. */
const json_t *csv_path(const json_t *o, const char *path);

#endif
