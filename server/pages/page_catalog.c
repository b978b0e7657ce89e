/* page_catalog.c: /models and /hardware (and their .json): every model or
 * hardware of the suite with its count of runs and best decode, sortable
 * and keyset-paged, read from the summary rows model_index and hw_index
 * (migration 0012), so a page is one seek plus its rows. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages/browse.h"
#include "store/db.h"
#include "util/slug.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "store/typical.h"
#include "util/nelem.h"

#define PER_PAGE 50

/* The statements of one kind, per sort; ?2 and ?3 are the cursor.  Each
 * row brings its leading combination (the highest median) through the
 * combos primary key. */
#define ORDERED(table, col, key, by, cmp, join, other) \
	"SELECT i." col ", i.runs, i.best_decode, i.best_id, n.name, i.top_rank, " TYPICAL_COLS("c") \
	", (SELECT o.name FROM search_names o WHERE " other "), i.best_rank" \
	" FROM " table " i JOIN search_names n ON n.kind = '" key "' AND n.slug = i." col " " \
	"LEFT JOIN combos c ON c.suite_version = i.suite_version AND " join \
	" WHERE i.suite_version = ?1 AND " cmp " ORDER BY " by " LIMIT ?4"
#define M_JOIN "c.model_slug = i.model_slug AND c.model_digest = i.top_digest " \
	"AND c.hw_slug = i.top_hw AND c.backend_name = i.top_backend"
#define H_JOIN "c.model_slug = i.top_model AND c.model_digest = i.top_digest " \
	"AND c.hw_slug = i.hw_slug AND c.backend_name = i.top_backend"
/* The name of the leading combination's other half: its hardware, its model. */
#define M_JOIN_OTHER "o.kind = 'hw' AND o.slug = c.hw_slug"
#define H_JOIN_OTHER "o.kind = 'model' AND o.slug = c.model_slug"
/* Confirmed leaders first (store/typical.h: top_rank, best_rank). */
#define BY_MEDIAN(t, c, k, j, o) ORDERED(t, c, k, "i.top_rank DESC, i." c " DESC", \
	"(i.top_rank, i." c ") < (?2, ?3)", j, o)
#define BY_BEST(t, c, k, j, o) ORDERED(t, c, k, "i.best_rank DESC, i." c " DESC", \
	"(i.best_rank, i." c ") < (?2, ?3)", j, o)
#define BY_RUNS(t, c, k, j, o) ORDERED(t, c, k, "i.runs DESC, i." c " DESC", \
	"(i.runs, i." c ") < (?2, ?3)", j, o)
#define BY_NAME(t, c, k, j, o) ORDERED(t, c, k, "i." c, "i." c " > ?3", j, o)

static const char sql_m_median[] = BY_MEDIAN("model_index", "model_slug", "model", M_JOIN, M_JOIN_OTHER);
static const char sql_m_best[] = BY_BEST("model_index", "model_slug", "model", M_JOIN, M_JOIN_OTHER);
static const char sql_m_runs[] = BY_RUNS("model_index", "model_slug", "model", M_JOIN, M_JOIN_OTHER);
static const char sql_m_name[] = BY_NAME("model_index", "model_slug", "model", M_JOIN, M_JOIN_OTHER);
static const char sql_h_median[] = BY_MEDIAN("hw_index", "hw_slug", "hw", H_JOIN, H_JOIN_OTHER);
static const char sql_h_best[] = BY_BEST("hw_index", "hw_slug", "hw", H_JOIN, H_JOIN_OTHER);
static const char sql_h_runs[] = BY_RUNS("hw_index", "hw_slug", "hw", H_JOIN, H_JOIN_OTHER);
static const char sql_h_name[] = BY_NAME("hw_index", "hw_slug", "hw", H_JOIN, H_JOIN_OTHER);

const char *const page_catalog_sql[] = {
	sql_m_median, sql_m_best, sql_m_runs, sql_m_name,
	sql_h_median, sql_h_best, sql_h_runs, sql_h_name, NULL
};

/* The catalog's ?sort= orders (browse_take_order), in this enum's order. */
enum sort { S_DECODE, S_BEST, S_RUNS, S_NAME, S__MAX };
static const struct browse_order sort_order[S__MAX] = {
	{ "decode", "Median decode", "highest median decode first", 0 },
	{ "best", "Best run", "fastest best run first", 0 },
	{ "runs", "Runs", "most runs first", 0 },
	{ "name", "Name", "by name", 1 },
};
static const struct browse_orders sort_orders = { sort_order, S__MAX };

/* What differs between the two pages (their addresses are their kinds'). */
struct catalog {
	const char *prefix;        /* "/m/": a row's page */
	const char *title;
	const char *noun;          /* "model" */
	const char *sql[S__MAX];   /* by enum sort */
};

static const struct catalog models = {
	"/m/", "Models", "model", { sql_m_median, sql_m_best, sql_m_runs, sql_m_name }
};
static const struct catalog hardware = {
	"/hw/", "Hardware", "hardware", { sql_h_median, sql_h_best, sql_h_runs, sql_h_name }
};

/* One catalog request. */
struct ipage {
	struct browse b;
	const struct page_kind_def *kind;   /* the page's: its path and twin */
	const struct catalog *k;
	enum sort sort;
	double cur_num;            /* the cursor: the last row's figure... */
	char cur_slug[SLUG_MAX + 1];   /* ...and slug; +inf and "~" without one */
	int has_cursor;
};

/* ?sort= into p->sort (the one parser, browse_take_order); -1 with a 400
 * when unknown. */
static int take_sort(struct ipage *p)
{
	int sort = browse_take_order(&p->b, &sort_orders);

	p->sort = sort < 0 ? S_DECODE : (enum sort)sort;
	return sort < 0 ? -1 : 0;
}

/* ?cursor= ("<figure>:<slug>", or "<slug>" when sorted by name) into p's
 * cursor; -1 with a 400 when malformed. */
static int take_cursor(struct ipage *p)
{
	const char *v = http_query(p->b.r, "cursor"), *colon, *slug;
	char num[48], *end;

	p->cur_num = HUGE_VAL;
	strcpy(p->cur_slug, p->sort == S_NAME ? "" : "~");
	if (!v || !*v)
		return 0;
	colon = strrchr(v, ':');
	slug = p->sort == S_NAME ? v : colon ? colon + 1 : "";
	if (p->sort != S_NAME) {
		if (!colon || (size_t)(colon - v) >= sizeof num || isspace((unsigned char)*v))
			goto bad;
		memcpy(num, v, (size_t)(colon - v));
		num[colon - v] = '\0';
		p->cur_num = strtod(num, &end);
		if (*end || !isfinite(p->cur_num) || !typical_rank_valid(p->cur_num) || end == num)
			goto bad;
	}
	if (!slug_valid(slug))
		goto bad;
	snprintf(p->cur_slug, sizeof p->cur_slug, "%s", slug);
	p->has_cursor = 1;
	return 0;
bad:
	return browse_error(&p->b, 400, "The cursor= argument must be <figure>:<slug> (or a slug when sorted by name); follow the Next page link instead of editing it.");
}

/* The link to this list sorted by sort, after cursor (NULL: page one). */
static json_t *catalog_link(const struct ipage *p, enum sort sort, const char *cursor)
{
	return browse_link(&p->b, p->b.html ? p->kind->path : p->kind->json, NULL, "sort", sort == S_DECODE ? NULL : sort_order[sort].key,
			   "cursor", cursor, NULL);
}

/* The cursor after the row in st's current row into out. */
static void cursor_of(const struct ipage *p, sqlite3_stmt *st, char *out, size_t n)
{
	const char *slug = (const char *)sqlite3_column_text(st, 0);

	if (p->sort == S_NAME)
		snprintf(out, n, "%s", slug);
	else if (p->sort == S_RUNS)
		snprintf(out, n, "%lld:%s", (long long)sqlite3_column_int64(st, 1), slug);
	else
		browse_cursor(out, n, sqlite3_column_double(st, p->sort == S_BEST ? 7 + TYPICAL_NCOLS : 5),
			      slug);
}

/* One row: the model's (or hardware's) slug, name, runs and best
 * unflagged run, with its leading combination's typical figures at the
 * top level (median, quartiles, keys, prefill, TTFT, backend, and the
 * other half of the combination: hardware or model) and whole in
 * "typical" (null when every run is flagged). */
static json_t *catalog_row(struct ipage *p, sqlite3_stmt *st)
{
	const char *slug = (const char *)sqlite3_column_text(st, 0);
	const char *best = (const char *)sqlite3_column_text(st, 3);
	double bd = sqlite3_column_double(st, 2);
	int has = sqlite3_column_type(st, 6) != SQLITE_NULL;
	json_t *t = has ? typical_row(st, 6) : json_null(), *o;
	static const char *const copied[] = { "median_decode_tok_s", "p25_decode_tok_s",
		"p75_decode_tok_s", "keys", "median_prefill_tok_s", "median_ttft_ms", "backend",
		"one_submitter" };
	const char *other;
	size_t i;

	o = json_pack("{s:s, s:s, s:o, s:I, s:o, s:o, s:s, s:o*, s:o}",
		"slug", slug, "name", (const char *)sqlite3_column_text(st, 4),
		"href", browse_link(&p->b, p->k->prefix, slug, NULL),
		"runs", (json_int_t)sqlite3_column_int64(st, 1),
		"best_decode_tok_s", best && bd >= 0 ? json_real(bd) : json_null(),
		"best_run", best ? json_string(best) : json_null(),
		"best_id", best ? best : "",
		"best_href", best ? browse_link(&p->b, "/r/", best, NULL) : NULL,
		"typical", t);
	for (i = 0; o && i < NELEM(copied); i++)
		json_object_set(o, copied[i], has ? json_object_get(t, copied[i]) : json_null());
	other = (const char *)sqlite3_column_text(st, 6 + TYPICAL_NCOLS);
	if (o && has && p->k == &models)
		json_object_set_new(o, "hardware", json_pack("{s:O, s:s?, s:o}", "slug", json_object_get(t, "hw_slug"),
			"name", other,
			"href", browse_link(&p->b, "/hw/", json_string_value(json_object_get(t, "hw_slug")), NULL)));
	else if (o && has)
		json_object_set_new(o, "model", json_pack("{s:O, s:s?, s:o}", "slug", json_object_get(t, "model_slug"),
			"name", other,
			"href", browse_link(&p->b, "/m/", json_string_value(json_object_get(t, "model_slug")), NULL)));
	if (o && p->b.html)
		json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o}",
			"median", has ? browse_fig(json_number_value(json_object_get(t, "median_decode_tok_s")))
				      : json_string(""),
			"spread", has && json_is_number(json_object_get(t, "p25_decode_tok_s"))
				? combos_spread_text(t) : json_string(""),
			"best", best && bd >= 0 ? browse_fig(bd) : json_string("")));
	/* The old name of the best figure, kept for the CSV twin and scripts. */
	if (o)
		json_object_set_new(o, "best_decode_text", best && bd >= 0 ? browse_fig(bd) : json_string(""));
	return o;
}

/* The page's rows, and the link to the next page when there are more. */
static int load_rows(struct ipage *p, json_t *m)
{
	sqlite3_stmt *st = db_stmt(p->b.c, p->k->sql[p->sort]);
	json_t *rows = json_array();
	char cur[SLUG_MAX + 48] = "";
	int rc, n = 0;

	if (!st || !rows) {
		json_decref(rows);
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	}
	db_bind_text(st, 1, p->b.suite);
	sqlite3_bind_double(st, 2, p->cur_num);
	db_bind_text(st, 3, p->cur_slug);
	sqlite3_bind_int(st, 4, PER_PAGE + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (++n > PER_PAGE)
			break;
		json_array_append_new(rows, catalog_row(p, st));
		cursor_of(p, st, cur, sizeof cur);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_decref(rows);
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	}
	json_object_set_new(m, "rows", rows);
	json_object_set_new(m, "count", json_integer(n > PER_PAGE ? PER_PAGE : n));
	json_object_set_new(m, "next", n > PER_PAGE ? catalog_link(p, p->sort, cur) : json_null());
	json_object_set_new(m, "first", p->has_cursor ? catalog_link(p, p->sort, NULL) : json_null());
	json_object_set_new(m, "paged", json_boolean(n > PER_PAGE || p->has_cursor));
	return 0;
}

/* The sort links: [{key, label, href, selected}]. */
static json_t *sorts(const struct ipage *p)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < S__MAX; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:b}", "key", sort_order[i].key,
			"label", sort_order[i].label, "href", catalog_link(p, (enum sort)i, NULL),
			"selected", (int)p->sort == i));
	return a;
}

/* The view model of /models or /hardware (and their .json and .csv: the
 * rows: slug, name, runs, best decode, best run id and url); NULL with a
 * 400 for a malformed sort= or cursor=, a 404 for an unknown suite. */
static json_t *catalog_view(struct page_view *v, const struct catalog *k)
{
	struct ipage p = { .kind = v->kind, .k = k };
	json_t *m = NULL;

	if (browse_begin(&p.b, v->r) < 0 || take_sort(&p) < 0 || take_cursor(&p) < 0)
		return page_view_browsed(v, &p.b, NULL);
	m = json_pack("{s:s, s:s, s:s, s:s}", "title", k->title, "kind", k->noun,
		      "suite_version", p.b.suite, "sort", sort_order[p.sort].key);
	if (m && load_rows(&p, m) < 0) {
		json_decref(m);
		m = NULL;
	} else if (m) {
		json_object_set_new(m, "sorts", sorts(&p));
		json_object_set_new(m, "suites", browse_suites(&p.b, v->kind->path, NULL));
		json_object_set_new(m, "is_models", json_boolean(k == &models));
	}
	return page_view_browsed(v, &p.b, m);
}

json_t *page_models_view(struct page_view *v)
{
	return catalog_view(v, &models);
}

json_t *page_hardware_view(struct page_view *v)
{
	return catalog_view(v, &hardware);
}
