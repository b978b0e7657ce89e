/* combos.c: lists of combinations (a model's weights file on one hardware
 * with one backend) and their typical figures, for the board, /hw/<slug>
 * and /m/<slug>: one page in any ?sort= order by keyset, both ways, from
 * table combos (migration 0020, store/typical.h), by the index of that
 * order, plus the row as the pages and JSON show it. */
#include "pages/browse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "domain/ceiling.h"
#include "render/html.h"
#include "store/db.h"
#include "store/names.h"
#include "store/netcap.h"
#include "store/outlier.h"
#include "store/typical.h"
#include "util/buf.h"
#include "util/numfmt.h"

/* The figure each order sorts by (enum browse_sort's order), and its
 * direction: decode is the median; unknown prefill and TTFT sort last. */
/* The median and the best rank confirmed rows first (store/typical.h). */
#define C_DECODE "c.rank_med"
#define C_PREFILL "c.sort_prefill"
#define C_TTFT "c.sort_ttft"
#define C_DATE "c.first_at"
#define C_BEST "c.rank_best"

/* Each selects the sort figure, the row's key_id (the cursor), the row
 * (TYPICAL_COLS), its model's and hardware's shown names (store/names.h); ?1 suite, ?2 hardware, ?3
 * backend, ?4/?5 the cursor, ?6 the limit, ?7 model, ?8 digest. */
#define ROW_COLS ", c.key_id, " TYPICAL_COLS("c") ", " NAMES_MODEL("c.model_slug", "r.model_name") ", " \
	NAMES_HW("c.hw_slug", "r.accelerator") ", r.model_quant, " \
	"r.model_format, r.backend_version"
#define LIST(col, where, cmp, dir) "SELECT " col ROW_COLS " FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) " \
	"WHERE c.suite_version = ?1 AND c.t_runs > 0" where " AND (" col ", c.key_id) " cmp " (?4, ?5) " \
	"ORDER BY " col dir ", c.key_id" dir " LIMIT ?6"
/* Read the other way from the cursor (inclusive) for the Previous link:
 * the row ?6 places above it (browse_up_cursor). */
#define UP(col, where, cmp, dir) "SELECT " col ", c.key_id FROM combos c " \
	"WHERE c.suite_version = ?1 AND c.t_runs > 0" where " AND (" col ", c.key_id) " cmp " (?4, ?5) " \
	"ORDER BY " col dir ", c.key_id" dir " LIMIT 1 OFFSET ?6"
/* The scopes: every combination, one hardware's, one backend's (decode
 * and best, combos_med_be and combos_best_be of migrations 0020 and 0026:
 * the other orders skip other backends in the suite's index), one
 * weights file's (filters skipped inside its few rows), one model's on one
 * hardware (/hw/<slug>?model=&sort=: the hardware's index, skipping the
 * other models' rows; a page view, not an upload, pays for them). */
#define W_ALL " AND (?2 IS NULL OR c.hw_slug = ?2) AND (?3 IS NULL OR c.backend_name = ?3)"
#define W_HW " AND c.hw_slug = ?2 AND (?3 IS NULL OR c.backend_name = ?3)"
#define W_BE " AND c.backend_name = ?3"
#define W_DIGEST " AND c.model_slug = ?7 AND c.model_digest = ?8 AND (?2 IS NULL OR c.hw_slug = ?2) " \
	"AND (?3 IS NULL OR c.backend_name = ?3)"
#define W_HW_MODEL " AND c.hw_slug = ?2 AND c.model_slug = ?7 AND (?3 IS NULL OR c.backend_name = ?3)"
#define SET(m, col, down, up) { m(col, W_ALL, down, up), m(col, W_HW, down, up), \
	m(col, W_BE, down, up), m(col, W_DIGEST, down, up), m(col, W_HW_MODEL, down, up) }
#define ORDERS(m) { SET(m, C_DECODE, "<", " DESC"), SET(m, C_PREFILL, "<", " DESC"), \
	SET(m, C_TTFT, ">", ""), SET(m, C_DATE, "<", " DESC"), SET(m, C_BEST, "<", " DESC") }
#define ORDERS_UP(m) { SET(m, C_DECODE, ">=", ""), SET(m, C_PREFILL, ">=", ""), \
	SET(m, C_TTFT, "<=", " DESC"), SET(m, C_DATE, ">=", ""), SET(m, C_BEST, ">=", "") }
static const char sql_list[SORT__MAX][5][1024] = ORDERS(LIST);
static const char sql_up[SORT__MAX][5][400] = ORDERS_UP(UP);

const char *const combos_sql[] = {
#define ROW(s) sql_list[s][0], sql_list[s][1], sql_list[s][3], sql_list[s][4], sql_up[s][0], \
	sql_up[s][1], sql_up[s][3], sql_up[s][4]
	ROW(SORT_DECODE), sql_list[SORT_DECODE][2], sql_up[SORT_DECODE][2],
	ROW(SORT_PREFILL), ROW(SORT_TTFT), ROW(SORT_DATE), ROW(SORT_BEST),
	sql_list[SORT_BEST][2], sql_up[SORT_BEST][2], NULL
#undef ROW
};

/* Which of the five statements of an order answers q. */
static int scope_of(const struct combos_q *q, enum browse_sort sort)
{
	if (q->digest)
		return 3;
	if (q->hw && q->model)
		return 4;
	if (q->hw)
		return 1;
	return q->backend && (sort == SORT_DECODE || sort == SORT_BEST) ? 2 : 0;
}

static void bind_q(const struct browse *b, const struct combos_q *q, sqlite3_stmt *st)
{
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, q->hw);
	db_bind_text(st, 3, q->backend);
	db_bind_text(st, 7, q->model);
	db_bind_text(st, 8, q->digest);
}

/* Column i of st as text (NULL when NULL). */
static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* "1 run", "1,234 runs". */
static json_t *count_text(long long n, const char *one, const char *many)
{
	struct buf b = BUF_INIT;
	json_t *s;

	numfmt_int(&b, (double)n);
	buf_printf(&b, " %s", n == 1 ? one : many);
	s = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return s;
}

/* The ceiling of a combination's weights on its hardware: a range when its
 * best run names no quantization the reference data knows; with its
 * median's share of the top, and whether the median is above it. */
static json_t *row_ceiling(const struct browse *b, const char *model, const char *quant,
			   const char *format, const char *hw, double median)
{
	struct ceiling_range c;
	json_t *o, *r;

	if (ceiling_range_of_run(b->r->app->ref, model, quant, format, hw,
				 CEILING_CHAT_SHORT_CONTEXT, &c) < 0)
		return json_null();
	if (!(r = ceiling_range_json(&c, median)))
		return json_null();
	o = json_pack("{s:O, s:O, s:O, s:O}", "ceiling_tok_s", json_object_get(r, "ceiling_tok_s"),
		      "percent_of_ceiling", json_object_get(r, "percent_of_ceiling"),
		      "above", json_object_get(r, "above"),
		      "text", json_object_get(json_object_get(r, "text"), "ceiling"));
	json_object_set_new(o, "low_tok_s", json_real(c.low.step.tok_s));
	json_decref(r);
	return o ? o : json_null();
}

json_t *combos_item(const struct browse *b, sqlite3_stmt *st, int i)
{
	json_t *o = typical_row(st, i), *c;
	int e = i + TYPICAL_NCOLS;
	const char *slug = col(st, i), *digest = col(st, i + 1), *hw = col(st, i + 2);
	const char *be = col(st, i + 3), *best = col(st, i + 9);
	char shrt[BROWSE_DIGEST_SHORT], href[32];
	double median = sqlite3_column_double(st, i + 5);

	if (!o)
		return NULL;
	/* The current version's figure where /changes reports one; the list
	 * keeps its place by the blend (weak: a row can sit a place off). */
	if (typical_since(b->c, b->suite, o) == DB_OK &&
	    json_is_string(json_object_get(o, "since_version")))
		median = json_number_value(json_object_get(o, "median_decode_tok_s"));
	browse_digest_short(b->c, b->suite, digest, shrt);
	snprintf(href, sizeof href, "/r/%s%s", best ? best : "", b->html ? "" : ".json");
	json_object_set_new(o, "model", json_pack("{s:s?, s:s?, s:s?, s:s, s:s?, s:s?, s:o*}",
		"name", col(st, e), "slug", slug, "digest", digest, "digest_short", shrt,
		"quantization", col(st, e + 2), "format", col(st, e + 3),
		"href", browse_link(b, "/m/", slug, "digest", digest, NULL)));
	json_object_set_new(o, "hardware", json_pack("{s:s?, s:s?, s:o*}", "name", col(st, e + 1),
		"slug", hw, "href", browse_link(b, "/hw/", hw, NULL)));
	json_object_set_new(o, "backend_version", col(st, e + 4) ? json_string(col(st, e + 4)) : json_null());
	json_object_set_new(o, "best_href", json_string(href));
	/* Every run behind the row: the model page at that file, hardware and backend. */
	json_object_set_new(o, "href", browse_link(b, "/m/", slug, "digest", digest, "hw", hw,
						   "backend", be, NULL));
	/* Every backend of this model on this hardware (page_model_hw.c). */
	json_object_set_new(o, "pair_href", browse_mhw_link(b, slug, hw));
	c = row_ceiling(b, slug, col(st, e + 2), col(st, e + 3), hw, median);
	json_object_set_new(o, "ceiling", c);
	json_object_set_new(o, "above_ceiling", json_boolean(json_is_true(json_object_get(c, "above"))));
	json_object_del(o, "first_at");
	if (b->html) {
		json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o*}",
			"median", browse_fig_of(o, "median_decode_tok_s"), "p25", browse_fig_of(o, "p25_decode_tok_s"),
			"p75", browse_fig_of(o, "p75_decode_tok_s"), "best", browse_fig_of(o, "best_decode_tok_s"),
			"prefill", browse_fig_of(o, "median_prefill_tok_s"), "ttft", browse_fig_of(o, "median_ttft_ms"),
			"keys", count_text(json_integer_value(json_object_get(o, "keys")), "submitter", "submitters"),
			"runs", count_text(json_integer_value(json_object_get(o, "runs")), "run", "runs"),
			"flagged", json_integer_value(json_object_get(o, "flagged_runs")) > 0
				? count_text(json_integer_value(json_object_get(o, "flagged_runs")),
					     "outlier left out", "outliers left out") : NULL));
		combos_marks_text(o);
	}
	return o;
}

json_t *combos_spread_text(const json_t *o)
{
	const json_t *k = json_object_get(o, "keys");
	double lo = json_number_value(json_object_get(o, "p25_decode_tok_s"));
	double hi = json_number_value(json_object_get(o, "p75_decode_tok_s"));
	struct buf b = BUF_INIT;
	json_t *s;

	if (!json_is_number(json_object_get(o, "p25_decode_tok_s")) ||
	    !json_is_number(json_object_get(o, "p75_decode_tok_s")) ||
	    (json_is_integer(k) && json_integer_value(k) <= 1) || (!json_is_integer(k) && lo == hi))
		return json_string("\xe2\x80\x93");
	numfmt_fig(&b, lo);
	buf_puts(&b, "\xe2\x80\x93");
	numfmt_fig(&b, hi);
	s = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return s;
}

void combos_marks_text(json_t *o)
{
	json_t *t = json_object_get(o, "text");
	long long keys = json_integer_value(json_object_get(o, "keys"));
	char s[80];

	if (!json_is_object(t))
		return;
	json_object_set_new(t, "spread", combos_spread_text(o));
	if (!json_is_true(json_object_get(o, "confirmed"))) {
		snprintf(s, sizeof s, "awaiting confirmation: %lld %s", keys,
			 keys == 1 ? "submitter" : "submitters");
		json_object_set_new(t, "awaiting", json_string(s));
	}
	if (json_integer_value(json_object_get(o, "disputed_runs")) > 0)
		json_object_set_new(t, "disputed", json_string("disputed"));
}

int combos_may_lead(const json_t *row)
{
	const json_t *c = json_object_get(row, "confirmed");

	return !c || json_is_true(c);
}

/* The thresholds as text, made at compile time: request threads share
 * them, so no buffer is written while another reads it. */
#define STR_(x) #x
#define STR(x) STR_(x)

const char *combos_confirm_text(void)
{
	return netcap_keys() ? "fewer than " STR(OUTLIER_CONFIRM_KEYS) " submitters from "
			       STR(OUTLIER_CONFIRM_NETS) " networks"
			     : "fewer than " STR(OUTLIER_CONFIRM_KEYS) " submitters";
}

json_t *combos_cols(int model, int hw)
{
	return json_pack("{s:b, s:b, s:i}", "model", model, "hw", hw, "span", 6 + !!model + !!hw);
}

void combos_await_head(json_t *rows, int confirmed_first)
{
	const json_t *row;
	size_t i;

	if (!confirmed_first)
		return;
	json_array_foreach(rows, i, row) {
		json_t *t = json_object_get(row, "text");

		if (json_is_true(json_object_get(row, "confirmed")) || !json_is_object(t))
			continue;
		json_object_set_new(t, "await_head", json_string(combos_confirm_text()));
		return;
	}
}

json_t *combos_page(struct browse *b, const struct combos_q *q, enum browse_sort sort, int limit,
		    json_t *(*link)(void *ctx, const char *cursor), void *ctx)
{
	int s = scope_of(q, sort), n = 0, more = 0, rc, back = 0;
	sqlite3_stmt *st = db_stmt(b->c, sql_list[sort][s]);
	sqlite3_stmt *up = b->has_after ? db_stmt(b->c, sql_up[sort][s]) : NULL;
	json_t *rows = json_array();
	char cur[80], pcur[80], last_id[16] = "";
	double last = 0;

	if (!st || !rows || (b->has_after && !up))
		goto fail;
	bind_q(b, q, st);
	browse_bind_after(b, st, 4);
	if (sort == SORT_TTFT && !b->has_after) {   /* ascending: start below all */
		sqlite3_bind_double(st, 4, -HUGE_VAL);
		db_bind_text(st, 5, "");
	}
	sqlite3_bind_int(st, 6, limit + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit) {
			more = 1;
			break;
		}
		last = sqlite3_column_double(st, 0);
		snprintf(last_id, sizeof last_id, "%s", col(st, 1) ? col(st, 1) : "");
		json_array_append_new(rows, combos_item(b, st, 2));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto fail;
	if (up) {
		bind_q(b, q, up);
		if ((back = browse_up_cursor(b, up, limit, pcur, sizeof pcur)) < 0)
			goto fail;
	}
	if (more)
		browse_cursor(cur, sizeof cur, last, last_id);
	combos_await_head(rows, sort == SORT_DECODE || sort == SORT_BEST);
	return browse_pager_list(b, "rows", rows, more, cur, back, pcur, link, ctx);
fail:
	json_decref(rows);
	browse_error(b, 503, MSG_DB_DOWN);
	return NULL;
}

json_t *combos_ceiling_note(const struct browse *b, const json_t *rows)
{
	struct buf names = BUF_INIT;
	const json_t *row;
	json_t *seen = json_object(), *s = NULL;
	size_t i;

	json_array_foreach(rows, i, row) {
		const json_t *hw = json_object_get(row, "hardware");
		const char *slug = json_string_value(json_object_get(hw, "slug"));
		const char *name = json_string_value(json_object_get(hw, "name"));

		if (!slug || ceiling_hw(b->r->app->ref, slug) || json_object_get(seen, slug))
			continue;
		json_object_set_new(seen, slug, json_true());
		buf_printf(&names, "%s%s", names.len ? ", " : "", name ? name : slug);
	}
	if (names.len && !buf_error(&names))
		s = json_string(names.buf);
	buf_release(&names);
	json_decref(seen);
	return s ? s : json_null();
}
