/* page_model_digests.c: the model page's list of digests (weights files),
 * a page at a time by keyset from the digest_counts summary, and the digest
 * the page shows. */
#include "pages/page_model.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/validate.h"
#include "store/db.h"
#include "util/err.h"
#include "domain/quantile.h"

/* Digests listed per page. */
#define DIGESTS_PAGE 50

/* The model's digests with their counted runs, signing keys and best
 * run, from the summary that migrations 0004 and 0032 keep in step with
 * runs, a page at a time in list order (most keys, so that one key's many
 * runs never pick the file a model page shows; then most runs, the faster
 * best, the digest, each descending) after the cursor ?3..?6, by index
 * digest_counts_order of migration 0032: one seek plus the page's rows
 * however many weights files the model has. */
#define DIGEST_COLS "SELECT model_digest, runs, best_decode, model_quant, model_format, keys FROM digest_counts "
static const char sql_digests[] =
	DIGEST_COLS "WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND (keys, runs, best_decode, model_digest) < (?3, ?4, ?5, ?6) "
	"ORDER BY keys DESC, runs DESC, best_decode DESC, model_digest DESC LIMIT ?7";
/* The digest ?digest= names, wherever it is in the list. */
static const char sql_digest_one[] =
	DIGEST_COLS "WHERE suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3";

/* The digest's highest median and best unflagged run (migration 0020):
 * the first row of combos_digest_med and of combos_digest_best. */
static const char sql_top[] =
	"SELECT med FROM combos WHERE suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 "
	"AND t_runs > 0 ORDER BY rank_med DESC, key_id DESC LIMIT 1";
static const char sql_best[] =
	"SELECT best_decode, best_id FROM combos WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND model_digest = ?3 AND t_runs > 0 ORDER BY rank_best DESC, key_id DESC LIMIT 1";

const char *const page_model_digests_sql[] = { sql_digests, sql_digest_one, sql_top, sql_best, NULL };

/* Column i as a JSON string, or null. */
static json_t *col_text(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	return v ? json_string(v) : json_null();
}

/* The page's ?sort= for links that keep it: NULL for the default. */
static const char *sort_param(const struct mpage *p)
{
	return p->sort == SORT_DECODE ? NULL : browse_sort_key(p->sort);
}

/* The first row's first column (and second, into id) of sql for this
 * digest, or NAN when it has no combination with a typical figure. */
static double digest_figure(struct mpage *p, const char *sql, const char *digest, char id[16])
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql);
	double v = NAN;

	if (!st)
		return NAN;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	db_bind_text(st, 3, digest);
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_double(st, 0);
		if (id)
			snprintf(id, 16, "%s", sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
	}
	sqlite3_reset(st);
	return v;
}

static json_t *fig_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The digest item of st's row of sql_digests: digest, digest_short
 * (browse_digest_short: in full when another digest reads the same short),
 * runs, keys (its distinct signing keys; keys_text for pages: "3
 * submitters"), the highest median of its combinations and its best
 * unflagged run
 * (median_decode_tok_s, best_decode_tok_s, best_run; null when every run
 * is flagged), quantization and format (of the fastest run), href, and
 * order_decode: the list's order figure (digest_counts.best_decode, which
 * counts flagged runs), for the cursor only. */
static json_t *digest_item(struct mpage *p, sqlite3_stmt *st)
{
	const char *digest = (const char *)sqlite3_column_text(st, 0);
	long long keys = sqlite3_column_int64(st, 5);
	double med, best;
	char best_id[16] = "", shrt[BROWSE_DIGEST_SHORT], keys_text[40];

	if (!digest)
		return NULL;
	browse_digest_short(p->b.c, p->b.suite, digest, shrt);
	snprintf(keys_text, sizeof keys_text, "%lld submitter%s", keys, keys == 1 ? "" : "s");
	med = digest_figure(p, sql_top, digest, NULL);
	best = digest_figure(p, sql_best, digest, best_id);
	return json_pack("{s:s, s:s, s:I, s:I, s:s*, s:o, s:o, s:s?, s:o*, s:o*, s:f, s:o, s:o, s:o*}", "digest", digest,
		"digest_short", shrt,
		"runs", (json_int_t)sqlite3_column_int64(st, 1),
		"keys", (json_int_t)keys, "keys_text", p->b.html ? keys_text : NULL,
		"median_decode_tok_s", fig_or_null(isnan(med) ? NAN : quantile_round(med, 0.01)),
		"best_decode_tok_s", fig_or_null(best), "best_run", *best_id ? best_id : NULL,
		"median_decode_text", p->b.html && !isnan(med) ? browse_fig(med) : NULL,
		"best_decode_text", p->b.html && !isnan(best) ? browse_fig(best) : NULL,
		"order_decode", sqlite3_column_double(st, 2),
		"quantization", col_text(st, 3), "format", col_text(st, 4),
		"href", browse_link(&p->b, "/m/", p->slug, "digest", digest, "digests_after",
				    p->has_dafter ? http_query(p->b.r, "digests_after") : NULL,
				    "sort", sort_param(p), NULL));
}

/* Parses ?digests_after=<keys>:<runs>:<best decode>:<digest>, the cursor
 * of the digest list; 0, or -1 with a 400 when malformed. */
static int parse_digests_after(struct mpage *p)
{
	const char *s = http_query(p->b.r, "digests_after"), *d;
	char *end;

	p->dafter_keys = LLONG_MAX;
	p->dafter_runs = LLONG_MAX;
	p->dafter_decode = HUGE_VAL;
	snprintf(p->dafter_digest, sizeof p->dafter_digest, "~");
	if (!s || !*s)
		return 0;
	if (*s < '0' || *s > '9')
		goto bad;
	p->dafter_keys = strtoll(s, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		goto bad;
	p->dafter_runs = strtoll(end + 1, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		goto bad;
	p->dafter_decode = strtod(end + 1, &end);
	d = end + 1;
	if (*end != ':' || !isfinite(p->dafter_decode) || !validate_digest_ok(d))
		goto bad;
	snprintf(p->dafter_digest, sizeof p->dafter_digest, "%s", d);
	p->has_dafter = 1;
	return 0;
bad:
	return browse_error(&p->b, 400, "The digests_after= argument must be <keys>:<runs>:<decode tok/s>:<digest>; follow the More weights files link instead of editing it.");
}

/* The digest shown: ?digest= (NULL with a 404 when the model has no such
 * digest), else the first of the list; a new reference, or NULL with
 * json null when the model has none (0), -1 on failure. */
static int load_selected(struct mpage *p, json_t **out)
{
	sqlite3_stmt *st = db_stmt(p->b.c, p->b.digest ? sql_digest_one : sql_digests);
	int rc;

	*out = NULL;
	if (!st)
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	if (p->b.digest) {
		db_bind_text(st, 3, p->b.digest);
	} else {
		sqlite3_bind_int64(st, 3, LLONG_MAX);
		sqlite3_bind_int64(st, 4, LLONG_MAX);
		sqlite3_bind_double(st, 5, HUGE_VAL);
		db_bind_text(st, 6, "~");
		sqlite3_bind_int(st, 7, 1);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = digest_item(p, st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	if (p->b.digest && !*out)
		return browse_error(&p->b, 404, "Model %s has no runs with digest %s in %s; pick one of the digests listed on its page.",
				    p->slug, p->b.digest, p->b.suite);
	return 0;
}

/* The link to the digest list's page after the digest item d. */
static json_t *digests_next(struct mpage *p, json_t *d)
{
	char cur[160], num[40];

	browse_cursor(num, sizeof num, json_real_value(json_object_get(d, "order_decode")), "");
	num[strlen(num) - 1] = '\0';   /* browse_cursor's ":" before the (empty) id */
	snprintf(cur, sizeof cur, "%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT ":%s:%s",
		 json_integer_value(json_object_get(d, "keys")),
		 json_integer_value(json_object_get(d, "runs")), num,
		 json_string_value(json_object_get(d, "digest")));
	return browse_link(&p->b, "/m/", p->slug, "digest", p->b.digest, "digests_after", cur,
			   "sort", sort_param(p), NULL);
}

/* One page of the model's digests, most keys first, and the one shown:
 * ?digest= (404 when the model has no such digest) or the first. */
int model_load_digests(struct mpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_digests);
	json_t *a = json_array(), *d, *sel = NULL, *next = json_null();
	size_t i;
	int rc;

	if (parse_digests_after(p) < 0 || load_selected(p, &sel) < 0)
		goto out;
	if (!st || !a)
		goto fail;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	sqlite3_bind_int64(st, 3, p->dafter_keys);
	sqlite3_bind_int64(st, 4, p->dafter_runs);
	sqlite3_bind_double(st, 5, p->dafter_decode);
	db_bind_text(st, 6, p->dafter_digest);
	sqlite3_bind_int(st, 7, DIGESTS_PAGE + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(a, digest_item(p, st));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	if (json_array_size(a) > DIGESTS_PAGE) {
		json_array_remove(a, DIGESTS_PAGE);
		json_decref(next);
		next = digests_next(p, json_array_get(a, DIGESTS_PAGE - 1));
	}
	json_array_foreach(a, i, d)
		json_object_set_new(d, "selected", json_boolean(sel && !strcmp(
			json_string_value(json_object_get(sel, "digest")),
			json_string_value(json_object_get(d, "digest")))));
	if (sel)
		json_object_set_new(sel, "selected", json_true());
	json_object_set_new(p->m, "digests", a);
	json_object_set_new(p->m, "digests_next", next);
	json_object_set_new(p->m, "digests_first", p->has_dafter
		? browse_link(&p->b, "/m/", p->slug, "digest", p->b.digest, "sort", sort_param(p), NULL)
		: json_null());
	json_object_set_new(p->m, "digest", sel ? sel : json_null());
	p->digest = sel ? json_string_value(json_object_get(sel, "digest")) : NULL;
	return 0;
fail:
	browse_error(&p->b, 503, MSG_DB_DOWN);
out:
	json_decref(a);
	json_decref(sel);
	json_decref(next);
	return -1;
}
