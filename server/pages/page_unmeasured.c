/* page_unmeasured.c: the empty state of /m/<model> and /hw/<hw> (issue
 * 38) for a model or a hardware the reference data knows and nobody
 * measured in the suite: 200, as the model-on-hardware page answers for
 * it, with the command that would measure it (quoted as /wanted quotes
 * it) and how many asks /wanted counts for it. */
#include "pages/page.h"

#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"
#include "store/wanted.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "util/slug.h"

/* The suite's most-run model (model_index_runs), for the command a
 * hardware page offers: the model others measured most, so the new
 * figures sit beside theirs. */
static const char sql_top_model[] =
	"SELECT m.model_slug, " NAMES_MODEL("m.model_slug", "NULL") " FROM model_index m "
	"WHERE m.suite_version = ?1 ORDER BY m.runs DESC, m.model_slug DESC LIMIT 1";

const char *const page_unmeasured_sql[] = { sql_top_model, NULL };

/* The asks /wanted lists for model (or, model NULL, for hw), summed over
 * its rows; -1 on a database error. */
static long long asks_of(struct browse *b, const char *model, const char *hw)
{
	json_t *rows = NULL, *row;
	long long n = 0;
	size_t i;

	if (wanted_list(b->c, b->r->app->ref, b->suite, WANTED_LIST_MAX, &rows) != DB_OK)
		return -1;
	json_array_foreach(rows, i, row) {
		const char *k = json_string_value(json_object_get(row, model ? "model_slug" : "hw_slug"));

		if (k && !strcmp(k, model ? model : hw))
			n += json_integer_value(json_object_get(row, "asks"));
	}
	json_decref(rows);
	return n;
}

/* For a hardware page: the suite's most-run model into slug and name
 * (empty when the suite has none); 0, or -1 on a database error. */
static int top_model(struct browse *b, char *slug, size_t sn, char *name, size_t nn)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_top_model);
	int rc;

	*slug = *name = '\0';
	if (!st)
		return -1;
	db_bind_text(st, 1, b->suite);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(slug, sn, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(name, nn, "%s", sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : slug);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int page_unmeasured(struct browse *b, json_t *m, const char *model, const char *model_name, const char *hw)
{
	char mslug[SLUG_MAX + 1], mname[256];
	struct buf cmd = BUF_INIT, asks = BUF_INIT;
	long long n;
	json_t *o;
	int rc = -1;

	/* The asks for the page's own model, or hardware. */
	if ((n = asks_of(b, model, hw)) < 0)
		goto out;
	if (!model && top_model(b, mslug, sizeof mslug, mname, sizeof mname) < 0)
		goto out;
	if (!model && *mslug) {
		model = mslug;
		model_name = mname;
	}
	if (model && page_wanted_command(b->c, b->r->app->ref, model, model_name, hw ? hw : "", &cmd) < 0)
		goto out;
	numfmt_count(&asks, n, "ask", "asks");
	o = json_pack("{s:s?, s:I, s:s, s:s, s:o}", "command", model && cmd.buf ? cmd.buf : NULL,
		"asks", (json_int_t)n, "asks_text", buf_error(&asks) || !asks.buf ? "" : asks.buf,
		"wanted_href", "/wanted",
		"href", model && hw ? browse_mhw_link(b, model, hw) : json_null());
	if (o && json_object_set_new(m, "unmeasured", o) == 0)
		rc = 0;
out:
	buf_release(&cmd);
	buf_release(&asks);
	return rc < 0 ? browse_error(b, 503, MSG_DB_DOWN) : 0;
}
