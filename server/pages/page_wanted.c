/* page_wanted.c: /wanted and /wanted.json, the measurements visitors asked
 * for that nobody has made (issue 26): the combinations most asked for
 * first (store/wanted.h counts them), each with its prediction when there
 * is one and the command that would measure it. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "domain/ceiling.h"
#include "ingest/validate.h"
#include "render/shell.h"
#include "store/forecast.h"
#include "store/wanted.h"
#include "util/buf.h"

/* Backends the command names for a hardware nobody measured anything on:
 * the two that run on every platform the reference data lists. */
#define WANTED_DEFAULT_BACKENDS "llama.cpp"

/* The backends measured on hw_slug, most runs first, comma-separated. */
/* The hardware's backends, most counted runs first: at most one row each
 * in hw_backends (migration 0035), kept as combinations change. */
static const char sql_hw_backends[] =
	"SELECT backend_name FROM hw_backends WHERE suite_version = ?1 AND hw_slug = ?2 "
	"ORDER BY runs DESC, backend_name LIMIT 5";

const char *const page_wanted_sql[] = { sql_hw_backends, NULL };

/* The name a reference model is published under, as the CLI takes it: its
 * first alias written as a repository names it (a capital letter, no
 * space: "Qwen3-Coder-30B-A3B-Instruct"), else shown. */
static const char *published_name(const struct ceiling_model *m, const char *shown)
{
	const char *a;
	size_t i;
	json_t *v;

	json_array_foreach((json_t *)m->aliases, i, v) {
		a = json_string_value(v);
		if (a && !strchr(a, ' ') && !strchr(a, ':') && strpbrk(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
			return a;
	}
	return shown;
}

int page_wanted_command(struct dbconn *c, const struct ceiling_ref *ref, const char *model_slug,
			const char *model_name, const char *hw_slug, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(c, sql_hw_backends);
	const struct ceiling_model *m = ceiling_model(ref, model_slug);
	struct buf be = BUF_INIT;
	int rc, n = 0;

	if (!st)
		return -1;
	if (m)
		model_name = published_name(m, model_name);

	/* Each argument one quoted word (render/shell.h); a name that would
	 * read as an option gives way to the page's slug, which names the
	 * same model. */
	buf_puts(out, "llm-speed bench --models ");
	if (shell_arg(out, model_name) < 0)
		shell_arg(out, model_slug);
	buf_puts(out, " --backends ");
	db_bind_text(st, 1, VALIDATE_SUITE);
	db_bind_text(st, 2, hw_slug);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		buf_printf(&be, "%s%s", n++ ? "," : "", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	if (shell_arg(out, n ? be.buf : WANTED_DEFAULT_BACKENDS) < 0 || buf_error(&be))
		rc = SQLITE_ERROR;      /* backend names are validated: never an option */
	buf_release(&be);
	return rc == SQLITE_DONE && !buf_error(out) ? 0 : -1;
}

/* The view model, or NULL with e set. */
static json_t *wanted_model(struct req *r, struct err *e)
{
	struct dbconn *c = db_reader(r->app->db);
	json_t *rows, *row;
	size_t i;

	if (!c || wanted_list(c, r->app->ref, VALIDATE_SUITE, WANTED_LIST_MAX, &rows) != DB_OK) {
		err_unavailable(e, MSG_DB_DOWN);
		return NULL;
	}
	json_array_foreach(rows, i, row) {
		const char *model = json_string_value(json_object_get(row, "model_slug"));
		const char *hw = json_string_value(json_object_get(row, "hw_slug"));
		struct predict_result p;
		struct buf cmd = BUF_INIT, href = BUF_INIT;

		if (page_wanted_command(c, r->app->ref, model, json_string_value(json_object_get(row, "model_name")),
					hw, &cmd) < 0 ||
		    forecast_for_combo(c, VALIDATE_SUITE, model, hw, NULL, &p) < 0 ||
		    forecast_json_fields(row, &p) < 0) {
			buf_release(&cmd);
			json_decref(rows);
			err_unavailable(e, MSG_DB_DOWN);
			return NULL;
		}
		buf_printf(&href, "/m/%s/hw/%s", model, hw);
		json_object_set_new(row, "command", json_string(cmd.buf));
		json_object_set_new(row, "href", json_string(href.buf ? href.buf : ""));
		json_object_set_new(row, "predicted", json_boolean(p.step != PREDICT_NONE));
		json_object_set_new(row, "has_some_runs", json_boolean(json_integer_value(json_object_get(row, "keys")) > 0));
		buf_release(&cmd);
		buf_release(&href);
	}
	return json_pack("{s:s, s:o, s:b, s:I, s:I}", "title", "Wanted measurements", "rows", rows,
			 "has_rows", json_array_size(rows) > 0, "done_keys", (json_int_t)WANTED_DONE_KEYS,
			 "max_rows", (json_int_t)WANTED_LIST_MAX);
}

/* GET /wanted and /wanted.json: the list; NULL with a 503 without the
 * database.  Kept by its path alone (it reads no query) until the asks
 * or the runs change: the refresh thread's flush of the asks and every
 * upload make it stale, and it is rebuilt once, off the other requests'
 * way (page.c). */
json_t *page_wanted_view(struct page_view *v)
{
	json_t *m = wanted_model(v->r, &v->err);

	v->keep = m && v->key[0];   /* kept like the other lists (page.c) */
	return m;
}
