/* names.c: names that read as another model's or hardware's (names.h). */
#include "store/names.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/textcut.h"

static const char sql_shown[] = "SELECT name FROM search_names WHERE kind = ?1 AND slug = ?2";

/* Fills out from the shown name of (kind, slug) when there is one: 1, 0
 * when the slug has none, or a negative DB_ status. */
static int shown(struct dbconn *c, const char *kind, const char *slug, struct names_clash *out)
{
	sqlite3_stmt *st = db_stmt(c, sql_shown);
	struct buf b = BUF_INIT;
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, kind);
	db_bind_text(st, 2, slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		textcut(&b, (const char *)sqlite3_column_text(st, 0), 60);
		snprintf(out->name, sizeof out->name, "%s", b.buf ? b.buf : slug);
		snprintf(out->slug, sizeof out->slug, "%s", slug);
		buf_release(&b);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_status_of(rc);
}

int names_lookalike(struct dbconn *c, const struct run_fields *f, struct names_clash *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	if (f->model_lookalike[0]) {
		if ((rc = shown(c, "model", f->model_lookalike, out)) < 0)
			return rc;
		if (rc) {
			out->field = "model.name";
			out->what = "model";
			out->prefix = "/m/";
			return DB_OK;
		}
	}
	if (f->hw_lookalike[0]) {
		if ((rc = shown(c, "hw", f->hw_lookalike, out)) < 0)
			return rc;
		if (rc) {
			out->field = "hardware.accelerator_summary";
			out->what = "hardware";
			out->prefix = "/hw/";
		}
	}
	return DB_OK;
}
