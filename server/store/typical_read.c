/* typical_read.c: combinations' typical figures as the pages and their
 * JSON show them (typical.h), and one model on one hardware. */
#include "store/typical.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain/quantile.h"

/* A model's combinations on one hardware: its weights files (digest_counts,
 * a few rows), then each file's rows on that hardware, a primary-key seek. */
static const char sql_model_hw[] =
	"SELECT " TYPICAL_COLS("c") ", r.model_quant, r.model_format FROM digest_counts d JOIN combos c "
	"ON c.suite_version = d.suite_version AND c.model_slug = d.model_slug "
	"AND c.model_digest = d.model_digest AND c.hw_slug = ?3 JOIN runs r ON r.id = c.best_id "
	"WHERE d.suite_version = ?1 AND d.model_slug = ?2 AND c.t_runs > 0";

const char *const typical_read_sql[] = { sql_model_hw, NULL };

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
	json_t *a = json_array(), **v = NULL;
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
