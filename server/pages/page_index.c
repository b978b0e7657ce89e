/* page_index.c: /models and /hardware (and their .json): every model or
 * hardware of the suite with its count of runs and best decode, sortable
 * and keyset-paged, read from the summary rows model_index and hw_index
 * (migration 0012), so a page is one seek plus its rows. */
#include "pages/page.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages/browse.h"
#include "store/db.h"
#include "util/slug.h"

#define PER_PAGE 50

/* The statements of one kind, per sort; ?2 and ?3 are the cursor. */
#define ORDERED(table, col, key, by, cmp) \
	"SELECT i." col ", i.runs, i.best_decode, i.best_id, n.name FROM " table " i " \
	"JOIN search_names n ON n.kind = '" key "' AND n.slug = i." col " " \
	"WHERE i.suite_version = ?1 AND " cmp " ORDER BY " by " LIMIT ?4"
#define BY_DECODE(t, c, k) ORDERED(t, c, k, "i.best_decode DESC, i." c " DESC", \
	"(i.best_decode, i." c ") < (?2, ?3)")
#define BY_RUNS(t, c, k) ORDERED(t, c, k, "i.runs DESC, i." c " DESC", \
	"(i.runs, i." c ") < (?2, ?3)")
#define BY_NAME(t, c, k) ORDERED(t, c, k, "i." c, "i." c " > ?3")

static const char sql_m_decode[] = BY_DECODE("model_index", "model_slug", "model");
static const char sql_m_runs[] = BY_RUNS("model_index", "model_slug", "model");
static const char sql_m_name[] = BY_NAME("model_index", "model_slug", "model");
static const char sql_h_decode[] = BY_DECODE("hw_index", "hw_slug", "hw");
static const char sql_h_runs[] = BY_RUNS("hw_index", "hw_slug", "hw");
static const char sql_h_name[] = BY_NAME("hw_index", "hw_slug", "hw");

const char *const page_index_sql[] = {
	sql_m_decode, sql_m_runs, sql_m_name, sql_h_decode, sql_h_runs, sql_h_name, NULL
};

enum sort { S_DECODE, S_RUNS, S_NAME };
static const char *const sort_keys[] = { "decode", "runs", "name" };
static const char *const sort_labels[] = { "Best decode", "Runs", "Name" };

/* What differs between the two pages. */
struct kind {
	const char *path;          /* "/models" */
	const char *json_path;     /* "/models.json" */
	const char *prefix;        /* "/m/" */
	const char *title;
	const char *noun;          /* "model" */
	const char *sql[3];        /* by enum sort */
};

static const struct kind models = {
	"/models", "/models.json", "/m/", "Models", "model", { sql_m_decode, sql_m_runs, sql_m_name }
};
static const struct kind hardware = {
	"/hardware", "/hardware.json", "/hw/", "Hardware", "hardware", { sql_h_decode, sql_h_runs, sql_h_name }
};

/* One index request. */
struct ipage {
	struct browse b;
	const struct kind *k;
	enum sort sort;
	double cur_num;            /* the cursor: the last row's figure... */
	char cur_slug[SLUG_MAX + 1];   /* ...and slug; +inf and "~" without one */
	int has_cursor;
};

/* ?sort= into p->sort; -1 with a 400 when unknown. */
static int take_sort(struct ipage *p)
{
	const char *v = http_query(p->b.r, "sort");
	int i;

	p->sort = S_DECODE;
	if (!v || !*v)
		return 0;
	for (i = 0; i < 3; i++)
		if (!strcmp(v, sort_keys[i])) {
			p->sort = (enum sort)i;
			return 0;
		}
	return browse_error(&p->b, 400, "The sort= argument must be decode, runs or name.");
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
		if (*end || !isfinite(p->cur_num) || p->cur_num < 0 || end == num)
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
static json_t *index_link(const struct ipage *p, enum sort sort, const char *cursor)
{
	return browse_link(&p->b, p->b.html ? p->k->path : p->k->json_path, NULL, "sort", sort == S_DECODE ? NULL : sort_keys[sort],
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
		browse_cursor(out, n, sqlite3_column_double(st, 2), slug);
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
		const char *slug = (const char *)sqlite3_column_text(st, 0);
		const char *best = (const char *)sqlite3_column_text(st, 3);

		if (++n > PER_PAGE)
			break;
		json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:I, s:f, s:o, s:s, s:o}",
			"slug", slug, "name", (const char *)sqlite3_column_text(st, 4),
			"href", browse_link(&p->b, p->k->prefix, slug, NULL),
			"runs", (json_int_t)sqlite3_column_int64(st, 1),
			"best_decode_tok_s", sqlite3_column_double(st, 2),
			"best_decode_text", browse_fig(sqlite3_column_double(st, 2)),
			"best_id", best ? best : "",
			"best_href", browse_link(&p->b, "/r/", best ? best : "", NULL)));
		cursor_of(p, st, cur, sizeof cur);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_decref(rows);
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	}
	json_object_set_new(m, "rows", rows);
	json_object_set_new(m, "count", json_integer(n > PER_PAGE ? PER_PAGE : n));
	json_object_set_new(m, "next", n > PER_PAGE ? index_link(p, p->sort, cur) : json_null());
	json_object_set_new(m, "first", p->has_cursor ? index_link(p, p->sort, NULL) : json_null());
	json_object_set_new(m, "paged", json_boolean(n > PER_PAGE || p->has_cursor));
	return 0;
}

/* The sort links: [{key, label, href, selected}]. */
static json_t *sorts(const struct ipage *p)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < 3; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:b}", "key", sort_keys[i],
			"label", sort_labels[i], "href", index_link(p, (enum sort)i, NULL),
			"selected", (int)p->sort == i));
	return a;
}

/* GET /models, /hardware and their .json and .csv (the rows: slug, name,
 * runs, best decode, best run id and url): 200 with the list; 400 for a
 * malformed sort= or cursor=; 404 for an unknown suite. */
static enum MHD_Result index_answer(struct req *r, const struct kind *k)
{
	struct ipage p = { .k = k };
	json_t *m;

	if (browse_begin(&p.b, r) < 0 || take_sort(&p) < 0 || take_cursor(&p) < 0)
		return browse_fail(&p.b);
	m = json_pack("{s:s, s:s, s:s, s:s}", "title", k->title, "kind", k->noun,
		      "suite_version", p.b.suite, "sort", sort_keys[p.sort]);
	if (!m)
		return browse_send(&p.b, k->noun, NULL);
	if (load_rows(&p, m) < 0) {
		json_decref(m);
		return browse_fail(&p.b);
	}
	json_object_set_new(m, "sorts", sorts(&p));
	json_object_set_new(m, "suites", browse_suites(&p.b, k->path, NULL));
	json_object_set_new(m, "is_models", json_boolean(k == &models));
	return browse_send(&p.b, "index", m);
}

enum MHD_Result page_models(struct req *r)
{
	return index_answer(r, &models);
}

enum MHD_Result page_hardware(struct req *r)
{
	return index_answer(r, &hardware);
}
