/* page_judges.c: /r/<id>/judges and its JSON twin, the runs of a run's
 * fingerprint cluster that judge it (contract section 4): the counted
 * runs of its digest on this machine with its backend, under any model
 * name, a page at a time, by submitter (each submitter's runs together,
 * slowest first: its median is the middle one).  The combination's runs
 * are on the model page the run page links beside this one. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "store/db.h"
#include "store/run_store.h"

/* The run's cluster and its shown names. */
static const char sql_run[] =
	"SELECT suite_version, model_digest, hw_class, backend_name, " NAMES_MODEL("model_slug", "model_name")
	", " NAMES_HW("hw_slug", "accelerator") ", hw_slug FROM runs WHERE id = ?1";
/* The cluster's judging runs (counted, never above the ceiling), from
 * the first or after the run ?5, in the order of runs_cluster_key (0026,
 * 0031), which holds exactly them: key, decode, id. */
#define JUDGES(after) "SELECT " BROWSE_RUN_COLS ", key_thumbprint FROM runs INDEXED BY " \
	"runs_cluster_key WHERE suite_version = ?1 AND model_digest = ?2 AND hw_class = ?3 " \
	"AND backend_name = ?4 AND status = 'ok' AND flag_bits < 4" after \
	" ORDER BY key_thumbprint, decode_tok_s, id LIMIT ?6"
static const char sql_first[] = JUDGES(" AND ?5 IS NULL");
static const char sql_after[] = JUDGES(" AND (key_thumbprint, decode_tok_s, id) > "
				       "(SELECT key_thumbprint, decode_tok_s, id FROM runs WHERE id = ?5)");

const char *const page_judges_sql[] = { sql_run, sql_first, sql_after, NULL };

/* Column i of st as text, "" when NULL. */
static const char *text_at(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/* The link to the page after run last ("" : the first page). */
static json_t *page_link(const struct browse *b, const char *id, const char *last)
{
	char href[300];

	snprintf(href, sizeof href, "/r/%s/judges%s%s%s", id, b->html ? "" : ".json",
		 *last ? "?from=" : "", last);
	return json_string(href);
}

/* One page of the cluster of the run st is on, after the run ?from=
 * names (not in the cluster: none), into m's "list": {runs, count, next, first, paged} as the other
 * run lists have it, each run with its submitter's short key. */
static int add_list(struct browse *b, sqlite3_stmt *run, const char *id, const char *from,
		    json_t *m)
{
	sqlite3_stmt *st = db_stmt(b->c, from && *from ? sql_after : sql_first);
	json_t *runs = json_array(), *item, *next = json_null();
	int n = 0, rc, key_col = 0;
	char last[80] = "";

	if (!st || !runs) {
		json_decref(runs);
		return -1;
	}
	db_bind_text(st, 1, text_at(run, 0));
	db_bind_text(st, 2, text_at(run, 1));
	db_bind_text(st, 3, text_at(run, 2));
	db_bind_text(st, 4, text_at(run, 3));
	db_bind_text(st, 5, from && *from ? from : NULL);
	sqlite3_bind_int(st, 6, BROWSE_PAGE + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		key_col = sqlite3_column_count(st) - 1;
		if (n == BROWSE_PAGE) {
			json_decref(next);
			next = page_link(b, id, last);
			break;
		}
		if (!(item = browse_run(b, st)))
			break;
		json_object_set_new(item, "submitter", json_stringn(text_at(st, key_col), 8));
		json_array_append_new(runs, item);
		snprintf(last, sizeof last, "%s", text_at(st, 0));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_decref(runs);
		json_decref(next);
		return -1;
	}
	return json_object_set_new(m, "list", json_pack("{s:o, s:i, s:o, s:o, s:b}", "runs", runs,
		"count", n, "next", next, "first", from ? page_link(b, id, "") : json_null(),
		"paged", !json_is_null(next) || from));
}

/* The view model of /r/<id>/judges, or NULL with b's failure set. */
static json_t *judges_model(struct browse *b, struct req *r)
{
	const char *id = r->arg;
	sqlite3_stmt *st;
	json_t *m = NULL;
	char title[600], back[200];
	int rc;

	if (browse_begin(b, r) < 0)
		return NULL;
	if (!run_id_valid(id)) {
		browse_error(b, 404, "%s", MSG_NO_RUN);
		return NULL;
	}
	if (!(st = db_stmt(b->c, sql_run))) {
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	db_bind_text(st, 1, id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		browse_error(b, rc == SQLITE_DONE ? 404 : 503, "%s", rc == SQLITE_DONE ? MSG_NO_RUN : MSG_DB_DOWN);
		return NULL;
	}
	snprintf(title, sizeof title, "Runs that judge run %s", id);
	snprintf(back, sizeof back, "/r/%s", id);
	m = json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:b, s:b}}",
		      "title", browse_title(title), "run_id", id, "run_href", back,
		      "suite_version", text_at(st, 0), "model_digest", text_at(st, 1),
		      "hw_class", text_at(st, 2), "backend", text_at(st, 3),
		      "model_name", text_at(st, 4), "hw_name", text_at(st, 5),
		      "cols", "model", 1, "hw", 0);
	if (!m || add_list(b, st, id, http_query(r, "from"), m) < 0) {
		json_decref(m);
		m = NULL;
		browse_error(b, 503, MSG_DB_DOWN);
	}
	sqlite3_reset(st);
	return m;
}

/* GET /r/<id>/judges and /r/<id>/judges.json: the run's fingerprint
 * cluster's judging runs; ?from=<run id> continues after that run (one
 * that is not in the cluster ends the list).  NULL with a 404 for
 * an unknown run, a 400 for a malformed argument.  Built each time: two
 * index seeks and a page. */
json_t *page_judges_view(struct page_view *v)
{
	struct browse b;
	json_t *m = judges_model(&b, v->r);

	return page_view_browsed(v, &b, m);
}
