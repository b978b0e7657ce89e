/* page_compare_choose.c: /compare without r= (issue 38, item 14): a plain
 * form, no script needed, that picks the runs to compare from a model or
 * a machine.  Its first part chooses the model and the hardware (either
 * or both, by slug, from lists of what the suite has); its second lists
 * the best run of each weights file, hardware and backend that matches,
 * highest median first, each with a checkbox named r, so that ticking two
 * to four and sending asks /compare?r=<id>&r=<id> for them side by side.
 * Read from the summary rows model_index, hw_index and combos. */
#include "pages/page.h"

#include <stdio.h>
#include <string.h>

#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"

#define CHOICES_MAX 500    /* models or hardware a list offers */
#define ROWS_MAX 60        /* runs offered */

static const char sql_models[] =
	"SELECT i.model_slug, n.name FROM model_index i JOIN search_names n ON n.kind = 'model' "
	"AND n.slug = i.model_slug WHERE i.suite_version = ?1 AND i.runs > 0 LIMIT ?2";
static const char sql_hws[] =
	"SELECT i.hw_slug, n.name FROM hw_index i JOIN search_names n ON n.kind = 'hw' "
	"AND n.slug = i.hw_slug WHERE i.suite_version = ?1 AND i.runs > 0 LIMIT ?2";
/* The rows: each combination's best run that can stand, with its median
 * and submitters; by model (and hardware), or by hardware. */
#define ROW_COLS "SELECT c.model_slug, c.hw_slug, c.backend_name, c.best_id, c.best_decode, " \
	"c.med, c.t_keys, " NAMES_MODEL("c.model_slug", "r.model_name") ", " \
	NAMES_HW("c.hw_slug", "r.accelerator") ", r.model_quant, r.backend_version " \
	"FROM combos c JOIN runs r ON r.id = c.best_id WHERE c.suite_version = ?1 AND c.t_runs > 0 "
static const char sql_by_model[] = ROW_COLS "AND c.model_slug = ?2 LIMIT ?3";
static const char sql_by_model_hw[] = ROW_COLS "AND c.model_slug = ?2 AND c.hw_slug = ?4 LIMIT ?3";
static const char sql_by_hw[] = ROW_COLS "AND c.hw_slug = ?4 ORDER BY c.rank_med DESC, c.key_id DESC LIMIT ?3";

const char *const page_compare_choose_sql[] = {
	sql_models, sql_hws, sql_by_model, sql_by_model_hw, sql_by_hw, NULL
};

/* Column i as text, "" when NULL. */
static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/* The choices of one list, [{slug, name, selected}] by name; NULL on a
 * database error. */
static json_t *choices(struct browse *b, const char *sql, const char *sel)
{
	sqlite3_stmt *st = db_stmt(b->c, sql);
	json_t *a = json_array();
	int rc;

	if (!st || !a) {
		json_decref(a);
		return NULL;
	}
	db_bind_text(st, 1, b->suite);
	sqlite3_bind_int(st, 2, CHOICES_MAX);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(a, json_pack("{s:s, s:s, s:b}", "slug", col(st, 0), "name", col(st, 1),
						   "selected", sel && !strcmp(sel, col(st, 0))));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return NULL;
	}
	browse_sort_by_name(a);
	return a;
}

/* Highest median first. */
static int by_median(const void *x, const void *y)
{
	double a = json_real_value(json_object_get(*(json_t *const *)x, "median_decode_tok_s"));
	double b = json_real_value(json_object_get(*(json_t *const *)y, "median_decode_tok_s"));

	return a < b ? 1 : a > b ? -1 : 0;
}

/* The runs offered for the chosen model and hardware; NULL on a database
 * error. */
static json_t *rows(struct browse *b)
{
	sqlite3_stmt *st = db_stmt(b->c, !b->model ? sql_by_hw : b->hw ? sql_by_model_hw : sql_by_model);
	json_t *a = json_array();
	int rc;

	if (!st || !a) {
		json_decref(a);
		return NULL;
	}
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, b->model);
	sqlite3_bind_int(st, 3, ROWS_MAX);
	db_bind_text(st, 4, b->hw);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double med = sqlite3_column_double(st, 5);
		long long keys = sqlite3_column_int64(st, 6);

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:f, s:o, s:f, s:o, s:I, s:b, s:s, s:s, s:s?, s:s}",
			"model_slug", col(st, 0), "hw_slug", col(st, 1), "backend", col(st, 2),
			"best_run", col(st, 3), "href", browse_link(b, "/r/", col(st, 3), NULL),
			"best_decode_tok_s", sqlite3_column_double(st, 4), "best_text", browse_fig(sqlite3_column_double(st, 4)),
			"median_decode_tok_s", med, "median_text", browse_fig(med), "keys", (json_int_t)keys,
			"one_submitter", keys == 1, "model", col(st, 7), "hardware", col(st, 8),
			"quantization", sqlite3_column_text(st, 9) ? col(st, 9) : NULL, "backend_version", col(st, 10)));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return NULL;
	}
	if (b->model)
		browse_sort(a, by_median);
	return a;
}

json_t *page_compare_choose(struct browse *b)
{
	json_t *models = choices(b, sql_models, b->model), *hws = choices(b, sql_hws, b->hw);
	json_t *found = models && hws && (b->model || b->hw) ? rows(b) : json_array();

	if (!models || !hws || !found) {
		json_decref(models);
		json_decref(hws);
		json_decref(found);
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	return json_pack("{s:s, s:b, s:{s:o, s:o, s:s?, s:s?, s:b, s:b, s:o, s:I}, s:o, s:b, s:b}",
		"title", "Compare runs", "choosing", 1,
		"choose", "models", models, "hardware", hws, "model", b->model, "hw", b->hw,
		"chosen", b->model || b->hw, "has_rows", json_array_size(found) > 0, "rows", found,
		"max_rows", (json_int_t)ROWS_MAX,
		"runs", json_array(), "single", 0, "has_warnings", 0);
}
