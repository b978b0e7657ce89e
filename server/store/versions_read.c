/* versions_read.c: the per-version figures and the changes as pages read
 * them (versions.h): one model's version chart on one hardware, and the
 * newest changes, filtered by backend or hardware. */
#include "store/versions.h"

#include <string.h>

#include "domain/quantile.h"
#include "store/names.h"

static const char sql_series[] =
	"SELECT backend_name, model_digest, version, med, p25, p75, keys, runs FROM combo_versions "
	"WHERE suite_version = ?1 AND model_slug = ?2 AND hw_slug = ?3 "
	"ORDER BY backend_name, model_digest, version_key";

#define CHANGE_COLS \
	"c.id, c.model_slug, c.model_digest, c.hw_slug, c.backend_name, c.quant, " \
	NAMES_MODEL("c.model_slug", "c.model_slug") ", " NAMES_HW("c.hw_slug", "c.hw_slug") ", " \
	"c.from_version, c.to_version, c.from_median, c.to_median, c.from_keys, c.to_keys, " \
	"c.change_pct, c.u, c.p, c.exact, c.found_at"
static const char sql_new[] =
	"SELECT " CHANGE_COLS " FROM changes c INDEXED BY changes_new WHERE c.suite_version = ?1 "
	"ORDER BY c.found_at DESC, c.id DESC LIMIT ?4";
static const char sql_by_backend[] =
	"SELECT " CHANGE_COLS " FROM changes c INDEXED BY changes_backend WHERE c.suite_version = ?1 "
	"AND c.backend_name = ?2 ORDER BY c.found_at DESC, c.id DESC LIMIT ?4";
/* By hardware; a backend filter too reads that hardware's changes only. */
static const char sql_by_hw[] =
	"SELECT " CHANGE_COLS " FROM changes c INDEXED BY changes_hw WHERE c.suite_version = ?1 "
	"AND c.hw_slug = ?3 AND (?2 IS NULL OR c.backend_name = ?2) "
	"ORDER BY c.found_at DESC, c.id DESC LIMIT ?4";

const char *const versions_read_sql[] = { sql_series, sql_new, sql_by_backend, sql_by_hw, NULL };

static json_t *text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? json_string(s) : json_null();
}

static json_t *fig(sqlite3_stmt *st, int i)
{
	return json_real(quantile_round(sqlite3_column_double(st, i), 0.01));
}

static int col_is(sqlite3_stmt *st, int i, const char *s)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return v && s && !strcmp(v, s);
}

json_t *versions_series(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug)
{
	sqlite3_stmt *st = db_stmt(c, sql_series);
	json_t *a = json_array(), *cur = NULL, *points = NULL;
	int rc;

	if (!st || !a) {
		json_decref(a);
		return NULL;
	}
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, model_slug);
	db_bind_text(st, 3, hw_slug);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!cur || !col_is(st, 0, json_string_value(json_object_get(cur, "backend"))) ||
		    !col_is(st, 1, json_string_value(json_object_get(cur, "digest")))) {
			points = json_array();
			cur = json_pack("{s:o, s:o, s:o}", "backend", text(st, 0), "digest", text(st, 1),
					"points", points);
			if (!cur || json_array_append_new(a, cur) < 0)
				break;
		}
		json_array_append_new(points, json_pack("{s:o, s:o, s:o, s:o, s:I, s:I}",
			"version", text(st, 2), "median_decode_tok_s", fig(st, 3),
			"p25_decode_tok_s", fig(st, 4), "p75_decode_tok_s", fig(st, 5),
			"keys", (json_int_t)sqlite3_column_int64(st, 6),
			"runs", (json_int_t)sqlite3_column_int64(st, 7)));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int versions_changes(struct dbconn *c, const char *suite, const char *backend, const char *hw,
		     int limit, json_t **out)
{
	sqlite3_stmt *st = db_stmt(c, hw ? sql_by_hw : backend ? sql_by_backend : sql_new);
	json_t *a = json_array();
	int rc;

	*out = NULL;
	if (!st || !a) {
		json_decref(a);
		return DB_ERR;
	}
	if (limit < 1 || limit > VERSIONS_LIST_MAX)
		limit = VERSIONS_LIST_MAX;
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, backend);
	db_bind_text(st, 3, hw);
	sqlite3_bind_int(st, 4, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"id", (json_int_t)sqlite3_column_int64(st, 0),
			"model_slug", text(st, 1), "digest", text(st, 2), "hw_slug", text(st, 3),
			"backend", text(st, 4), "quant", text(st, 5), "model_name", text(st, 6),
			"hw_name", text(st, 7), "from_version", text(st, 8), "to_version", text(st, 9));

		if (!o)
			break;
		json_object_set_new(o, "from_median_tok_s", fig(st, 10));
		json_object_set_new(o, "to_median_tok_s", fig(st, 11));
		json_object_set_new(o, "from_keys", json_integer(sqlite3_column_int64(st, 12)));
		json_object_set_new(o, "to_keys", json_integer(sqlite3_column_int64(st, 13)));
		json_object_set_new(o, "change_pct", json_real(sqlite3_column_double(st, 14)));
		json_object_set_new(o, "u", json_real(sqlite3_column_double(st, 15)));
		json_object_set_new(o, "p", json_real(sqlite3_column_double(st, 16)));
		json_object_set_new(o, "exact", json_boolean(sqlite3_column_int(st, 17)));
		json_object_set_new(o, "found_at", json_integer(sqlite3_column_int64(st, 18)));
		json_array_append_new(a, o);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return db_status_of(rc);
	}
	*out = a;
	return DB_OK;
}
