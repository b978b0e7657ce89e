/* page_hw.c: one hardware class's runs at /hw/<slug> and /hw/<slug>.json,
 * sorted by decode tok/s and grouped by model. */
#include "pages/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"
#include "util/slug.h"

/* Model sections per page, and runs shown in each. */
#define SECTIONS 10
#define SECTION_RUNS 5
/* The count of models stops here ("More than 1000"). */
#define COUNT_CAP 1000

/* The hardware's shown name (store/names.h: the one most keys used), when
 * the suite has a run on it: its fastest counted run (one seek in
 * hw_best_order), else a run taken out of the rankings (runs_gone_hw,
 * migration 0009). */
static const char sql_name[] =
	"SELECT " NAMES_HW("hw_slug", "accelerator") " FROM runs WHERE id = coalesce("
	"(SELECT best_id FROM hw_best WHERE suite_version = ?1 AND hw_slug = ?2 "
	"ORDER BY best_decode DESC, best_id DESC LIMIT 1), "
	"(SELECT id FROM runs WHERE suite_version = ?1 AND hw_slug = ?2 AND status <> 'ok' LIMIT 1))";
/* One page of model sections after the cursor ?3/?4, from hw_best
 * (migration 0007), which holds each model's best run on each hardware:
 * one seek plus the page's rows however many models and runs there are. */
static const char sql_sections[] =
	"SELECT model_slug, best_decode, best_id FROM hw_best "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND (best_decode, best_id) < (?3, ?4) "
	"ORDER BY best_decode DESC, best_id DESC LIMIT ?5";
/* How many models have runs here, up to COUNT_CAP + 1. */
static const char sql_count[] =
	"SELECT count(*) FROM (SELECT 1 FROM hw_best WHERE suite_version = ?1 AND hw_slug = ?2 LIMIT ?3)";
static const char sql_model_name[] =
	"SELECT " NAMES_MODEL("model_slug", "model_name") " FROM runs "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND model_slug = ?3 AND status = 'ok' "
	"ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_list[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND model_slug = ?3 AND status = 'ok' "
	"AND (decode_tok_s, id) < (?4, ?5) ORDER BY decode_tok_s DESC, id DESC LIMIT ?6";
/* Paging back: from the cursor ?4/?5 (inclusive) up, the row ?6 places
 * above it, where the previous page starts after. */
static const char sql_up[] =
	"SELECT decode_tok_s, id FROM runs "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND model_slug = ?3 AND status = 'ok' "
	"AND (decode_tok_s, id) >= (?4, ?5) ORDER BY decode_tok_s, id LIMIT 1 OFFSET ?6";

/* ?sort= other than decode: the best run per model and backend on this
 * hardware (board_sort, migration 0012) in that order, after the cursor
 * ?4/?5; by board_sort_<sort>_hw (0012), or with ?model= (?3) by 0014's
 * board_sort_model_<sort>, which reads only that model's summary rows.
 * Each selects the sort key and the run id; TTFT ascends, the rest
 * descend. */
#define SORTED(col, where, cmp, dir, lim) \
	"SELECT " col ", best_id FROM board_sort WHERE suite_version = ?1 AND hw_slug = ?2" where \
	" AND (" col ", best_id) " cmp " (?4, ?5) ORDER BY " col dir ", best_id" dir lim
#define SORT_SET(col, cmp, dir, lim) { SORTED(col, "", cmp, dir, lim), \
	SORTED(col, " AND model_slug = ?3", cmp, dir, lim) }
static const char sql_sorted[3][2][300] = {
	SORT_SET("sort_prefill", "<", " DESC", " LIMIT ?6"),
	SORT_SET("sort_ttft", ">", "", " LIMIT ?6"),
	SORT_SET("sort_date", "<", " DESC", " LIMIT ?6"),
};
/* Each read the other way from the cursor (inclusive) for the Previous
 * link: the row ?6 places above it (browse_up_cursor). */
static const char sql_sorted_up[3][2][300] = {
	SORT_SET("sort_prefill", ">=", "", " LIMIT 1 OFFSET ?6"),
	SORT_SET("sort_ttft", "<=", " DESC", " LIMIT 1 OFFSET ?6"),
	SORT_SET("sort_date", ">=", "", " LIMIT 1 OFFSET ?6"),
};
const char *const page_hw_sql[] = {
	sql_name, sql_sections, sql_count, sql_model_name, sql_list, sql_up,
	sql_sorted[0][0], sql_sorted[0][1], sql_sorted[1][0], sql_sorted[1][1],
	sql_sorted[2][0], sql_sorted[2][1],
	sql_sorted_up[0][0], sql_sorted_up[0][1], sql_sorted_up[1][0], sql_sorted_up[1][1],
	sql_sorted_up[2][0], sql_sorted_up[2][1], NULL
};

/* ?sort=: the page's order. */

/* A model's best run on this hardware. */
struct section {
	char model[SLUG_MAX + 1];
	double decode;
	char id[16];
};

/* One hardware page being built. */
struct hpage {
	struct browse b;
	const char *slug;
	json_t *m;
	struct section *s;         /* the page's sections, and one more */
	size_t n;
	enum browse_sort sort;
};

static int db_fail(struct hpage *p)
{
	return browse_error(&p->b, 503, MSG_DB_DOWN);
}

/* The hardware's shown name; 0,
 * or -1 with a 404 when the suite has no run on it. */
static int load_name(struct hpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_name);
	int rc;

	if (!st)
		return db_fail(p);
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		json_object_set_new(p->m, "hardware", json_pack("{s:s, s:s}", "slug", p->slug,
			"name", (const char *)sqlite3_column_text(st, 0)));
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return browse_error(&p->b, 404, "There is no hardware %s in %s. Hardware pages are named by slug, like /hw/m3-ultra or /hw/rtx-4090; the leaderboard links to every one.",
				    p->slug, p->b.suite);
	return rc == SQLITE_ROW ? 0 : db_fail(p);
}

/* Loads the page of sections after the cursor (one more than shown, to
 * know whether a next page exists) into p->s. */
static int load_models(struct hpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_sections);
	struct section *s;
	int rc;

	if (!st || !(p->s = calloc(SECTIONS + 1, sizeof *p->s)))
		return db_fail(p);
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	browse_bind_after(&p->b, st, 3);
	sqlite3_bind_int(st, 5, SECTIONS + 1);
	/* The LIMIT keeps the rows within the SECTIONS + 1 allocated. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && p->n < SECTIONS + 1) {
		s = &p->s[p->n++];
		snprintf(s->model, sizeof s->model, "%s", (const char *)sqlite3_column_text(st, 0));
		s->decode = sqlite3_column_double(st, 1);
		snprintf(s->id, sizeof s->id, "%s", (const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_fail(p);
	return 0;
}

/* How many models have runs on this hardware, at most COUNT_CAP + 1; -1
 * on a database error. */
static long count_models(struct hpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_count);
	long n = -1;

	if (!st)
		return -1;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	sqlite3_bind_int(st, 3, COUNT_CAP + 1);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return n;
}

/* Up to limit runs of model on this hardware after the cursor, as a list
 * whose links stay on this page with ?model=. */
static json_t *model_runs(struct hpage *p, const char *model, int limit, int cursor)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_list);

	if (!st)
		return NULL;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	db_bind_text(st, 3, model);
	if (cursor) {
		browse_bind_after(&p->b, st, 4);
	} else {
		sqlite3_bind_double(st, 4, HUGE_VAL);
		db_bind_text(st, 5, "~");
	}
	sqlite3_bind_int(st, 6, limit + 1);
	return browse_list(&p->b, st, limit, "/hw/", p->slug, "model", model, NULL);
}

/* The model block {slug, name, href} of model on this hardware; NULL when
 * it has no run here that counts. */
static json_t *model_block(struct hpage *p, const char *model)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_model_name);
	json_t *o = NULL;

	if (!st)
		return NULL;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	db_bind_text(st, 3, model);
	if (sqlite3_step(st) == SQLITE_ROW)
		o = json_pack("{s:s, s:s, s:o}", "slug", model,
			"name", (const char *)sqlite3_column_text(st, 0),
			"href", browse_link(&p->b, "/m/", model, "hw", p->slug, NULL));
	sqlite3_reset(st);
	return o;
}

/* One section: the model, its best decode and its first runs, with a link
 * to all of them when there are more. */
static json_t *section_json(struct hpage *p, const struct section *s)
{
	json_t *model = model_block(p, s->model), *list = model_runs(p, s->model, SECTION_RUNS, 0);

	if (!model || !list) {
		json_decref(model);
		json_decref(list);
		return NULL;
	}
	json_object_set_new(list, "more", json_is_null(json_object_get(list, "next")) ? json_null()
		: browse_link(&p->b, "/hw/", p->slug, "model", s->model, NULL));
	json_object_set_new(list, "next", json_null());
	json_object_set_new(list, "first", json_null());
	json_object_set_new(list, "paged", json_false());
	return json_pack("{s:o, s:f, s:o*, s:o}", "model", model, "best_decode_tok_s", s->decode,
			 "best_decode_text", p->b.html ? browse_fig(s->decode) : NULL, "list", list);
}

/* A page of model sections after the cursor. */
static int load_sections(struct hpage *p)
{
	json_t *a = json_array(), *sec, *pager;
	size_t i, shown;
	char cur[80], total_text[32];
	long total;

	if (load_models(p) < 0 || (total = count_models(p)) < 0) {
		json_decref(a);
		return db_fail(p);
	}
	shown = p->n > SECTIONS ? SECTIONS : p->n;
	for (i = 0; i < shown; i++) {
		if (!(sec = section_json(p, &p->s[i]))) {
			json_decref(a);
			return db_fail(p);
		}
		json_array_append_new(a, sec);
	}
	if (total > COUNT_CAP)
		snprintf(total_text, sizeof total_text, "More than %d", COUNT_CAP);
	else
		snprintf(total_text, sizeof total_text, "%ld", total);
	pager = json_pack("{s:I, s:s, s:n, s:n, s:b}", "total", (json_int_t)total,
			  "total_text", total_text, "next", "first",
			  "paged", p->n > SECTIONS || p->b.has_after);
	if (p->n > SECTIONS) {
		browse_cursor(cur, sizeof cur, p->s[shown - 1].decode, p->s[shown - 1].id);
		json_object_set_new(pager, "next", browse_link(&p->b, "/hw/", p->slug, "after", cur, NULL));
	}
	if (p->b.has_after)
		json_object_set_new(pager, "first", browse_link(&p->b, "/hw/", p->slug, NULL));
	json_object_set_new(p->m, "models", a);
	json_object_set_new(p->m, "sections", pager);
	return 0;
}

/* Adds the Previous link (for people) to a page of model's runs reached by
 * a cursor: after the row BROWSE_PAGE places above it, or page one.  0, or
 * -1 on a database error. */
static int add_prev(struct hpage *p, const char *model, json_t *list)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_up);
	char cur[80];
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	db_bind_text(st, 3, model);
	if ((rc = browse_up_cursor(&p->b, st, BROWSE_PAGE, cur, sizeof cur)) < 0)
		return -1;
	json_object_set_new(list, "prev", browse_link(&p->b, "/hw/", p->slug, "model", model,
		"after", rc ? cur : NULL, NULL));
	return 0;
}

/* With ?model=: that model's runs on this hardware, a page at a time. */
static int load_model_list(struct hpage *p)
{
	json_t *model = model_block(p, p->b.model), *list;

	if (!model)
		return browse_error(&p->b, 404, "There are no runs of model %s on %s in %s; leave out ?model= to see every model on this hardware.",
				    p->b.model, p->slug, p->b.suite);
	if (!(list = model_runs(p, p->b.model, BROWSE_PAGE, 1)) ||
	    (p->b.html && p->b.has_after && add_prev(p, p->b.model, list) < 0)) {
		json_decref(list);
		json_decref(model);
		return db_fail(p);
	}
	json_object_set_new(p->m, "model", model);
	json_object_set_new(p->m, "list", list);
	json_object_set_new(p->m, "models", json_array());
	return 0;
}

/* One "Sort by" link of the hardware page, keeping its model. */
static json_t *hw_sort_href(void *ctx, const char *sort)
{
	struct hpage *p = ctx;

	return browse_link(&p->b, "/hw/", p->slug, "model", p->b.model, "sort", sort, NULL);
}

/* A link to the sorted list after cursor cur (NULL: its first page). */
static json_t *sorted_link(void *ctx, const char *cur)
{
	struct hpage *p = ctx;

	return browse_link(&p->b, "/hw/", p->slug, "model", p->b.model,
			   "sort", browse_sort_key(p->sort), "after", cur, NULL);
}

/* With a sort other than decode: one page of the best run per model and
 * backend here (of ?model= only, when given) in that order
 * (browse_sorted_page). */
static int load_sorted(struct hpage *p)
{
	sqlite3_stmt *st[2] = { db_stmt(p->b.c, sql_sorted[p->sort - 1][p->b.model != NULL]),
				db_stmt(p->b.c, sql_sorted_up[p->sort - 1][p->b.model != NULL]) };
	json_t *list, *model = NULL;
	int i;

	if (p->b.model && !(model = model_block(p, p->b.model)))
		return browse_error(&p->b, 404, "There are no runs of model %s on %s in %s; leave out ?model= to see every model on this hardware.",
				    p->b.model, p->slug, p->b.suite);
	for (i = 0; i < 2; i++) {
		if (!st[i])
			continue;
		db_bind_text(st[i], 1, p->b.suite);
		db_bind_text(st[i], 2, p->slug);
		if (p->b.model)
			db_bind_text(st[i], 3, p->b.model);
	}
	if (!(list = browse_sorted_page(&p->b, st[0], st[1], p->sort, BROWSE_PAGE, sorted_link, p))) {
		json_decref(model);
		return -1;
	}
	json_object_set_new(p->m, "model", model ? model : json_null());
	json_object_set_new(p->m, "list", list);
	json_object_set_new(p->m, "models", json_array());
	return 0;
}

/* The view model of /hw/<slug>, or NULL with p->b's failure set. */
static json_t *hw_model(struct hpage *p, struct req *r)
{
	int sort;

	if (browse_begin(&p->b, r) < 0)
		return NULL;
	p->slug = r->arg;
	if (!slug_valid(p->slug)) {
		browse_error(&p->b, 404, "Hardware pages are named by slug: lowercase letters and digits joined by single hyphens, like /hw/m3-ultra.");
		return NULL;
	}
	if ((sort = browse_take_order(&p->b, &browse_board_orders)) < 0)
		return NULL;
	p->sort = (enum browse_sort)sort;
	p->m = json_pack("{s:s, s:s, s:n, s:n, s:s, s:b, s:o}", "suite_version", p->b.suite,
			 "slug", p->slug, "model", "list", "sort", browse_sort_key(p->sort),
			 "sorted_groups", p->sort != SORT_DECODE,
			 "sort_param", p->sort ? json_string(browse_sort_key(p->sort)) : json_null());
	if (!p->m || load_name(p) < 0 ||
	    (p->sort != SORT_DECODE ? load_sorted(p) :
	     p->b.model ? load_model_list(p) : load_sections(p)) < 0)
		goto fail;
	json_object_set_new(p->m, "sorts", browse_sort_links(p->sort, hw_sort_href, p));
	json_object_set_new(p->m, "sort_by", browse_sort_by(json_object_get(p->m, "sorts")));
	json_object_set_new(p->m, "title", browse_title(json_string_value(
		json_object_get(json_object_get(p->m, "hardware"), "name"))));
	json_object_set_new(p->m, "suites", browse_suites(&p->b, "/hw/", p->slug));
	json_object_set_new(p->m, "all_href", browse_link(&p->b, "/hw/", p->slug, NULL));
	free(p->s);
	return p->m;
fail:
	free(p->s);
	json_decref(p->m);
	return NULL;
}

/* GET /hw/<slug>: 200 with the page; 404 for an invalid or unknown slug,
 * ?suite= or ?model=; 400 for a malformed argument (sort= included). */
enum MHD_Result page_hw(struct req *r)
{
	enum MHD_Result ret;
	struct hpage p = { 0 };

	if (browse_cached(r, &ret) || page_search_canonical(r, "hw", &ret))
		return ret;
	if (!hw_model(&p, r))
		return browse_fail(&p.b);
	browse_keep(&p.b);
	/* The hardware and model columns would repeat the headings: the runs
	 * are grouped under their model. */
	json_object_set_new(p.m, "cols", json_pack("{s:b, s:b}", "model",
		p.sort != SORT_DECODE && !p.b.model, "hw", 0));
	return browse_send(&p.b, "hw", p.m);
}

/* GET /hw/<slug>.json and .csv: the same view model as JSON, or its runs
 * as CSV (browse_send); errors as the
 * contract's error body with the statuses of page_hw(). */
enum MHD_Result page_hw_json(struct req *r)
{
	enum MHD_Result ret;
	struct hpage p = { 0 };

	if (page_search_canonical(r, "hw", &ret))
		return ret;
	if (!hw_model(&p, r))
		return browse_fail(&p.b);
	return browse_send(&p.b, "hw", p.m);
}
