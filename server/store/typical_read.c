/* typical_read.c: combinations' typical figures as the pages and their
 * JSON show them (typical.h), and one model on one hardware. */
#include "store/typical.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain/quantile.h"
#include "store/outlier_int.h"

/* A model's combinations on one hardware: its weights files (digest_counts,
 * a few rows), then each file's rows on that hardware, a primary-key seek. */
static const char sql_model_hw[] =
	"SELECT " TYPICAL_COLS("c") ", r.model_quant, r.model_format FROM digest_counts d JOIN combos c "
	"ON c.suite_version = d.suite_version AND c.model_slug = d.model_slug "
	"AND c.model_digest = d.model_digest AND c.hw_slug = ?3 JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) "
	"WHERE d.suite_version = ?1 AND d.model_slug = ?2 AND c.t_runs > 0";

/* The newest live change of one combination, by version order (SQLite
 * takes a bare column from the row max() picks); no row when none. */
static const char sql_since[] =
	"SELECT max(to_key), to_version FROM changes WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND model_digest = ?3 AND hw_slug = ?4 AND backend_name = ?5 AND live = 1 "
	"HAVING count(*) > 0";
/* The key values of that version and every later one. */
static const char sql_since_values[] =
	"SELECT key_values FROM combo_versions WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND model_digest = ?3 AND hw_slug = ?4 AND backend_name = ?5 AND version_key >= ?6";

/* One combination's row and its number (its histograms' ids). */
static const char sql_place[] =
	"SELECT " TYPICAL_COLS("c") ", c.cid FROM combos c WHERE c.suite_version = ?1 "
	"AND c.model_slug = ?2 AND c.model_digest = ?3 AND c.hw_slug = ?4 AND c.backend_name = ?5";
/* Key values in a range of buckets of its decode histogram. */
static const char sql_place_below[] =
	"SELECT coalesce(sum(n), 0) FROM combo_hist WHERE hid >= ?1 AND hid < ?2";

const char *const typical_read_sql[] = { sql_model_hw, sql_since, sql_since_values, sql_place,
	sql_place_below, NULL };

/* Column i rounded to step, or null. */
static json_t *fig(sqlite3_stmt *st, int i, double step)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return json_null();
	return json_real(quantile_round(sqlite3_column_double(st, i), step));
}

static json_t *text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? json_string(s) : json_null();
}

json_t *typical_row(sqlite3_stmt *st, int i)
{
	long long keys = sqlite3_column_int64(st, i + 11);
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "model_slug", text(st, i));
	json_object_set_new(o, "digest", text(st, i + 1));
	json_object_set_new(o, "hw_slug", text(st, i + 2));
	json_object_set_new(o, "backend", text(st, i + 3));
	json_object_set_new(o, "key_id", text(st, i + 4));
	json_object_set_new(o, "median_decode_tok_s", fig(st, i + 5, 0.01));
	json_object_set_new(o, "p25_decode_tok_s", fig(st, i + 6, 0.01));
	json_object_set_new(o, "p75_decode_tok_s", fig(st, i + 7, 0.01));
	json_object_set_new(o, "best_decode_tok_s", fig(st, i + 8, 0.01));
	json_object_set_new(o, "best_run", text(st, i + 9));
	json_object_set_new(o, "runs", json_integer(sqlite3_column_int64(st, i + 10)));
	json_object_set_new(o, "keys", json_integer(keys));
	json_object_set_new(o, "median_prefill_tok_s", fig(st, i + 12, 0.01));
	json_object_set_new(o, "median_ttft_ms", fig(st, i + 13, 0.1));
	json_object_set_new(o, "flagged_runs", json_integer(sqlite3_column_int64(st, i + 14) -
							     sqlite3_column_int64(st, i + 10)));
	json_object_set_new(o, "one_submitter", json_boolean(keys == 1));
	json_object_set_new(o, "first_at", json_integer(sqlite3_column_int64(st, i + 15)));
	json_object_set_new(o, "confirmed", json_boolean(sqlite3_column_int(st, i + 16)));
	json_object_set_new(o, "disputed_runs", json_integer(sqlite3_column_int64(st, i + 17)));
	return o;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Appends the numbers of the JSON array text s to *v (n of cap). */
static int add_values(const char *s, double **v, size_t *n, size_t *cap)
{
	json_t *a = s ? json_loads(s, 0, NULL) : NULL, *x;
	size_t i;

	json_array_foreach(a, i, x) {
		if (!json_is_number(x))
			continue;
		if (*n == *cap) {
			double *nv = realloc(*v, (*cap ? *cap * 2 : 64) * sizeof **v);

			if (!nv) {
				json_decref(a);
				return -1;
			}
			*v = nv;
			*cap = *cap ? *cap * 2 : 64;
		}
		(*v)[(*n)++] = json_number_value(x);
	}
	json_decref(a);
	return 0;
}

/* Quantile q of the n sorted values v, as domain/quantile.h places it. */
static double at(const double *v, size_t n, double q)
{
	long long rank;
	double frac;

	quantile_position(q, (long long)n, &rank, &frac);
	return quantile_mix(v[rank], v[rank + 1 < (long long)n ? rank + 1 : rank], frac);
}

/* Binds the five parts of o's combination to 1..5 of st. */
static void bind_combo(sqlite3_stmt *st, const char *suite, const json_t *o)
{
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, json_string_value(json_object_get(o, "model_slug")));
	db_bind_text(st, 3, json_string_value(json_object_get(o, "digest")));
	db_bind_text(st, 4, json_string_value(json_object_get(o, "hw_slug")));
	db_bind_text(st, 5, json_string_value(json_object_get(o, "backend")));
}

int typical_since(struct dbconn *c, const char *suite, json_t *o)
{
	sqlite3_stmt *st = db_stmt(c, sql_since), *vs = db_stmt(c, sql_since_values);
	char key[200], version[200];
	double *v = NULL;
	size_t n = 0, cap = 0;
	int rc, found = 0;

	json_object_set_new(o, "since_version", json_null());
	if (!st || !vs)
		return DB_ERR;
	bind_combo(st, suite, o);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(key, sizeof key, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(version, sizeof version, "%s", (const char *)sqlite3_column_text(st, 1));
		found = 1;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_status_of(rc);
	if (!found)
		return DB_OK;
	bind_combo(vs, suite, o);
	db_bind_text(vs, 6, key);
	while ((rc = sqlite3_step(vs)) == SQLITE_ROW)
		if (add_values((const char *)sqlite3_column_text(vs, 0), &v, &n, &cap) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	sqlite3_reset(vs);
	if (rc != SQLITE_DONE) {
		free(v);
		return rc == SQLITE_NOMEM ? DB_ERR : db_status_of(rc);
	}
	if (n) {
		qsort(v, n, sizeof *v, cmp_double);
		json_object_set(o, "blended_decode_tok_s", json_object_get(o, "median_decode_tok_s"));
		json_object_set_new(o, "median_decode_tok_s", json_real(quantile_round(at(v, n, 0.5), 0.01)));
		json_object_set_new(o, "p25_decode_tok_s", json_real(quantile_round(at(v, n, 0.25), 0.01)));
		json_object_set_new(o, "p75_decode_tok_s", json_real(quantile_round(at(v, n, 0.75), 0.01)));
		json_object_set_new(o, "since_version", json_string(version));
		json_object_set_new(o, "since_keys", json_integer((json_int_t)n));
	}
	free(v);
	return DB_OK;
}

/* Confirmed rows first, then the highest median; ties by key_id, the
 * later first (list order, store/typical.h). */
static int by_median(const void *x, const void *y)
{
	const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	double ma = typical_rank(json_number_value(json_object_get(a, "median_decode_tok_s")),
				 json_is_true(json_object_get(a, "confirmed")));
	double mb = typical_rank(json_number_value(json_object_get(b, "median_decode_tok_s")),
				 json_is_true(json_object_get(b, "confirmed")));

	if (ma != mb)
		return ma > mb ? -1 : 1;
	return -strcmp(json_string_value(json_object_get(a, "key_id")),
		       json_string_value(json_object_get(b, "key_id")));
}

int typical_model_hw(struct dbconn *c, const char *suite, const char *model, const char *hw,
		     json_t **out)
{
	sqlite3_stmt *st = db_stmt(c, sql_model_hw);
	json_t *a = json_array(), **v = NULL, *o2;
	size_t n, i;
	int rc;

	*out = NULL;
	if (!st || !a) {
		json_decref(a);
		return DB_ERR;
	}
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, model);
	db_bind_text(st, 3, hw);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = typical_row(st, 0);

		if (!o)
			continue;
		/* The weights as the best run names them. */
		json_object_set_new(o, "quantization", text(st, TYPICAL_NCOLS));
		json_object_set_new(o, "format", text(st, TYPICAL_NCOLS + 1));
		json_array_append_new(a, o);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return db_status_of(rc);
	}
	/* Each row's current version (after the statement above is reset:
	 * typical_since steps its own). */
	json_array_foreach(a, i, o2)
		if ((rc = typical_since(c, suite, o2)) != DB_OK) {
			json_decref(a);
			return rc;
		}
	/* A few rows (weights files x backends): sorted here. */
	n = json_array_size(a);
	if (n > 1 && (v = malloc(n * sizeof *v))) {
		for (i = 0; i < n; i++)
			v[i] = json_incref(json_array_get(a, i));
		qsort(v, n, sizeof *v, by_median);
		json_array_clear(a);
		for (i = 0; i < n; i++)
			json_array_append_new(a, v[i]);
		free(v);
	}
	*out = a;
	return DB_OK;
}

/* Key values of histogram cid's decode buckets [from, to). */
static int keys_in(struct dbconn *c, long long cid, int from, int to, long long *n)
{
	sqlite3_stmt *st = db_stmt(c, sql_place_below);
	int rc;

	*n = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, typical_hist_id(cid, 0, from));
	sqlite3_bind_int64(st, 2, typical_hist_id(cid, 0, to));
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

int typical_place(struct dbconn *c, const char *suite, const char *model, const char *digest,
		  const char *hw, const char *backend, double x, int own_key_counts, json_t **out)
{
	sqlite3_stmt *st = db_stmt(c, sql_place);
	const int lo = -HIST_OFFSET, hi = HIST_SPAN - HIST_OFFSET;
	long long cid = 0, below = 0, same = 0, all = 0, others;
	json_t *o = NULL;
	double med;
	int rc, b = quantile_bucket(x);

	*out = json_null();
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, model);
	db_bind_text(st, 3, digest);
	db_bind_text(st, 4, hw);
	db_bind_text(st, 5, backend);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		o = typical_row(st, 0);
		cid = sqlite3_column_int64(st, TYPICAL_NCOLS);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	if (!o)
		return DB_ERR;
	if (json_integer_value(json_object_get(o, "keys")) < 1 ||
	    !json_is_number(json_object_get(o, "median_decode_tok_s"))) {
		json_decref(o);
		return DB_OK;
	}
	if ((rc = typical_since(c, suite, o)) != DB_OK || (rc = keys_in(c, cid, lo, b, &below)) != DB_OK ||
	    (rc = keys_in(c, cid, b, b + 1, &same)) != DB_OK || (rc = keys_in(c, cid, lo, hi, &all)) != DB_OK) {
		json_decref(o);
		return rc;
	}
	if (own_key_counts && same > 0) {
		same--;
		all--;
	}
	others = all;
	med = json_number_value(json_object_get(o, "median_decode_tok_s"));
	*out = json_pack("{s:O, s:O, s:O, s:O, s:o, s:I, s:o}",
		"median_decode_tok_s", json_object_get(o, "median_decode_tok_s"),
		"since_version", json_object_get(o, "since_version"),
		"keys", json_object_get(o, "keys"), "confirmed", json_object_get(o, "confirmed"),
		"diff_pct", med > 0 ? json_real(round((x / med - 1) * 1000) / 10) : json_null(),
		"others", (json_int_t)(others > 0 ? others : 0),
		"faster_pct", others > 0 ? json_real(round(1000.0 * ((double)below + (double)same / 2) /
							  (double)others) / 10) : json_null());
	json_decref(o);
	if (!*out) {
		*out = json_null();
		return DB_ERR;
	}
	return DB_OK;
}
