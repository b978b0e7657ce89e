/* page_hw.c: one hardware class at /hw/<slug> and /hw/<slug>.json: every
 * model's weights files and backends on it with their typical figures,
 * highest median first (or by ?sort=), and with ?model= that model's
 * runs on it. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "domain/ceiling.h"
#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"
#include "store/scope.h"
#include "util/slug.h"


/* The hardware's shown name (store/names.h: the one most keys used), when
 * the suite has a run on it: its fastest counted run (one seek in
 * hw_best_order), else a run taken out of the rankings (runs_gone_hw,
 * migration 0009). */
static const char sql_name[] =
	"SELECT " NAMES_HW("hw_slug", "accelerator") " FROM runs WHERE id = coalesce("
	"(SELECT best_id FROM hw_best WHERE suite_version = ?1 AND hw_slug = ?2 "
	"ORDER BY best_decode DESC, best_id DESC LIMIT 1), "
	"(SELECT id FROM runs WHERE suite_version = ?1 AND hw_slug = ?2 AND status <> 'ok' LIMIT 1))";
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

const char *const page_hw_sql[] = { sql_name, sql_model_name, sql_list, sql_up, NULL };

/* ?sort=: the page's order. */

/* One hardware page being built. */
struct hpage {
	struct browse b;
	const char *slug;
	json_t *m;
	enum browse_sort sort;
};

static int db_fail(struct hpage *p)
{
	return browse_error(&p->b, 503, MSG_DB_DOWN);
}

/* The hardware's shown name, and what the reference data says of it
 * ("memory_gb", "bandwidth_gb_s": null when it does not know it); 0, or
 * -1 with a 404 when the suite has no run on it and the reference data
 * does not know it.  Hardware only the reference data knows is named as
 * it names it, with "measured" false (the empty state, page_unmeasured). */
static int load_name(struct hpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_name);
	const struct ceiling_hw *rh = ceiling_hw(p->b.r->app->ref, p->slug);
	int rc;

	if (!st)
		return db_fail(p);
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW || (rc == SQLITE_DONE && rh))
		json_object_set_new(p->m, "hardware", json_pack("{s:s, s:s, s:o, s:o, s:o*}", "slug", p->slug,
			"name", rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : rh->name,
			"memory_gb", rh ? json_real(rh->memory_gb) : json_null(),
			"bandwidth_gb_s", rh ? json_real(rh->peak_gb_s) : json_null(),
			"text", p->b.html && rh ? json_pack("{s:o, s:o}", "memory_gb", json_sprintf("%g", rh->memory_gb),
				"bandwidth_gb_s", json_sprintf("%g", rh->peak_gb_s)) : NULL));
	sqlite3_reset(st);
	json_object_set_new(p->m, "measured", json_boolean(rc == SQLITE_ROW));
	json_object_set_new(p->m, "unmeasured", json_null());
	if (rc == SQLITE_DONE && rh)
		return page_unmeasured(&p->b, p->m, NULL, NULL, p->slug);
	if (rc == SQLITE_DONE)
		return browse_error(&p->b, 404, "There is no hardware %s in %s. Hardware pages are named by slug; the list of hardware links to every one.",
				    p->slug, p->b.suite);
	return rc == SQLITE_ROW ? 0 : db_fail(p);
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
	json_object_set_new(p->m, "combos", json_null());
	return 0;
}

/* One "Sort by" link of the hardware page, keeping its model. */
static json_t *hw_sort_href(void *ctx, const char *sort)
{
	struct hpage *p = ctx;

	return browse_link(&p->b, "/hw/", p->slug, "model", p->b.model, "backend", p->b.backend,
			   "sort", sort, NULL);
}

/* A link to the sorted list after cursor cur (NULL: its first page). */
static json_t *sorted_link(void *ctx, const char *cur)
{
	struct hpage *p = ctx;

	return browse_link(&p->b, "/hw/", p->slug, "model", p->b.model, "backend", p->b.backend,
			   "sort", p->sort == SORT_DECODE ? NULL : browse_sort_key(p->sort), "after", cur, NULL);
}

/* Without ?model=: one page of the combinations on this hardware (every
 * model's weights files and backends) with their typical figures, in the
 * order p->sort by keyset (combos_page), within the backend filter; with
 * ?model= and a ?sort= other than decode, that model's only. */
static int load_combos(struct hpage *p)
{
	struct combos_q q = { p->slug, p->b.backend, p->b.model, NULL };
	json_t *list, *model = NULL;

	if (p->b.model && !(model = model_block(p, p->b.model)))
		return browse_error(&p->b, 404, "There are no runs of model %s on %s in %s; leave out ?model= to see every model on this hardware.",
				    p->b.model, p->slug, p->b.suite);
	json_object_set_new(p->m, "model", model ? model : json_null());
	if (!(list = combos_page(&p->b, &q, p->sort, BROWSE_SORTED_MAX, sorted_link, p)))
		return -1;
	json_object_set_new(list, "ceiling_note", combos_ceiling_note(&p->b, json_object_get(list, "rows")));
	json_object_set_new(p->m, "combos", list);
	json_object_set_new(p->m, "list", json_null());
	return 0;
}

/* "groups": the page's combinations by model, in the order of each
 * model's first row (the combinations come best first, so each group's
 * rows are its backends best first): [{model: {slug, name, href}, href
 * (the model-on-hardware page), backends (their names, in order),
 * median_decode_tok_s (the first row's), rows (pages only: the rows)}].
 * Only for the default order; other orders and ?model= list rows flat. */
static int add_groups(struct hpage *p)
{
	json_t *rows = json_object_get(json_object_get(p->m, "combos"), "rows"), *groups = json_array();
	json_t *row, *g = NULL;
	size_t i, k;

	if (!groups)
		return -1;
	json_array_foreach(rows, i, row) {
		const char *slug = json_string_value(json_object_get(row, "model_slug"));
		json_t *have;

		g = NULL;
		json_array_foreach(groups, k, have)
			if (!strcmp(json_string_value(json_object_get(json_object_get(have, "model"), "slug")), slug))
				g = have;
		if (!g) {
			const json_t *mo = json_object_get(row, "model");

			g = json_pack("{s:{s:s, s:O, s:o}, s:O, s:[], s:O, s:[]}", "model", "slug", slug,
				"name", json_object_get(mo, "name"), "href", browse_link(&p->b, "/m/", slug, NULL),
				"href", json_object_get(row, "pair_href"), "backends",
				"median_decode_tok_s", json_object_get(row, "median_decode_tok_s"), "rows");
			if (!g || json_array_append_new(groups, g) < 0) {
				json_decref(groups);
				return -1;
			}
		}
		json_array_append(json_object_get(g, "backends"), json_object_get(row, "backend"));
		if (p->b.html)
			json_array_append(json_object_get(g, "rows"), row);
	}
	if (!p->b.html)
		json_array_foreach(groups, i, g)
			json_object_del(g, "rows");
	json_object_set_new(p->m, "groups", groups);
	json_object_set_new(p->m, "grouped", json_boolean(json_array_size(groups) > 0));
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
		browse_error(&p->b, 404, "Hardware pages are named by slug: lowercase letters and digits joined by single hyphens.");
		return NULL;
	}
	if ((sort = browse_take_order(&p->b, &browse_board_orders)) < 0)
		return NULL;
	p->sort = (enum browse_sort)sort;
	p->m = json_pack("{s:s, s:s, s:n, s:n, s:[], s:b, s:s, s:b, s:o}", "suite_version", p->b.suite,
			 "slug", p->slug, "model", "list", "groups", "grouped", 0, "sort", browse_sort_key(p->sort),
			 "sorted_groups", p->sort != SORT_DECODE,
			 "sort_param", p->sort ? json_string(browse_sort_key(p->sort)) : json_null());
	if (!p->m || load_name(p) < 0 ||
	    (p->b.model && p->sort == SORT_DECODE ? load_model_list(p) : load_combos(p)) < 0)
		goto fail;
	if (p->sort == SORT_DECODE && !p->b.model && add_groups(p) < 0) {
		db_fail(p);
		goto fail;
	}
	json_object_set_new(p->m, "sorts", browse_sort_links(p->sort, hw_sort_href, p));
	json_object_set_new(p->m, "sort_by", browse_sort_by(json_object_get(p->m, "sorts")));
	json_object_set_new(p->m, "title", browse_title(json_string_value(
		json_object_get(json_object_get(p->m, "hardware"), "name"))));
	json_object_set_new(p->m, "suites", browse_suites(&p->b, "/hw/", p->slug));
	json_object_set_new(p->m, "all_href", browse_link(&p->b, "/hw/", p->slug, NULL));
	return p->m;
fail:
	json_decref(p->m);
	return NULL;
}

/* GET /hw/<slug> and its .json and .csv: the hardware's view model; a
 * 301 when the slug is a name typed another way; 200 with the empty state
 * (page_unmeasured) for hardware only the reference data knows; NULL with
 * a 404 for an
 * invalid or unknown slug, ?suite= or ?model=, a 400 for a malformed
 * argument (sort= included). */
json_t *page_hw_view(struct page_view *v)
{
	struct hpage p = { 0 };
	json_t *m;
	int unmeasured;

	if (page_search_canonical(v, PAGE_ARG_HW))
		return NULL;
	if (!hw_model(&p, v->r))
		return page_view_browsed(v, &p.b, NULL);
	/* The hardware column would repeat the heading, and with ?model= the
	 * model column too. */
	if (v->format == HTTP_FMT_HTML)
		json_object_set_new(p.m, "cols", combos_cols(!p.b.model, 0));
	unmeasured = json_is_object(json_object_get(p.m, "unmeasured"));
	m = page_view_browsed(v, &p.b, p.m);
	/* The empty state says /wanted's count, which changes without a
	 * write of runs: built each time (a few reads). */
	if (unmeasured)
		v->keep = 0;
	/* Kept in the hardware's scope: a write of other hardware leaves it
	 * fresh. */
	v->tags = (struct cache_tags){ { scope_tag('h', p.slug), 0 } };
	return m;
}
