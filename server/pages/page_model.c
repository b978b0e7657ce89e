/* page_model.c: one model's runs at /m/<slug> and /m/<slug>.json, kept
 * apart by model digest so different quantization pipelines never blend. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "render/barchart.h"
#include "pages/browse.h"
#include "pages/page_model.h"
#include "ingest/validate.h"
#include "util/buf.h"
#include "domain/ceiling.h"
#include "domain/quantile.h"
#include "store/db.h"
#include "store/names.h"
#include "store/scope.h"
#include "store/forecast.h"
#include "util/slug.h"
#include "util/textcut.h"
#include "util/utf8.h"

/* Bound everywhere: ?1 suite, ?2 model slug, ?3 digest. */
#define WHERE_MD "suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 AND status = 'ok'"
/* A page of a list: ?4/?5 the cursor, ?6 the limit. */
#define LIST_TAIL " AND (decode_tok_s, id) < (?4, ?5) ORDER BY decode_tok_s DESC, id DESC LIMIT ?6"
#define BEST_TAIL " ORDER BY decode_tok_s DESC, id DESC LIMIT 1"
/* Paging back: from the cursor ?4/?5 (inclusive) up, the row ?6 places
 * above it, where the previous page starts after; the same index read the
 * other way. */
#define UP_TAIL " AND (decode_tok_s, id) >= (?4, ?5) ORDER BY decode_tok_s, id LIMIT 1 OFFSET ?6"

/* The model's shown name (store/names.h: the one most keys used), when the
 * suite has a run of it: the best run of the digest most keys ran (the
 * first digest the page lists; one seek in digest_counts_order), else a run
 * taken out of the rankings (runs_gone_model, migration 0009). */
static const char sql_name[] =
	"SELECT " NAMES_MODEL("model_slug", "model_name") " FROM runs WHERE id = coalesce("
	"(SELECT best_id FROM digest_counts WHERE suite_version = ?1 AND model_slug = ?2 "
	"ORDER BY keys DESC, runs DESC, best_decode DESC, model_digest DESC LIMIT 1), "
	"(SELECT id FROM runs WHERE suite_version = ?1 AND model_slug = ?2 AND status <> 'ok' LIMIT 1))";
static const char sql_hw_next[] =
	"SELECT min(hw_slug) FROM runs WHERE " WHERE_MD " AND hw_slug > ?4";
static const char sql_hw_name[] =
	"SELECT " NAMES_HW("hw_slug", "accelerator") " FROM runs WHERE " WHERE_MD " AND hw_slug = ?4 "
	"ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
/* The digest's combinations by median (combos_digest_med, migration
 * 0020): the chart takes the first of each hardware, within the backend
 * filter ?4.  A few rows: the digest's hardware times its backends. */
static const char sql_bars[] =
	"SELECT c.hw_slug, c.backend_name, c.med, c.best_decode, c.best_id, " NAMES_HW("c.hw_slug", "r.accelerator") " FROM combos c "
	"JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) WHERE c.suite_version = ?1 AND c.model_slug = ?2 "
	"AND c.model_digest = ?3 AND c.t_runs > 0 AND (?4 IS NULL OR c.backend_name = ?4) "
	"ORDER BY c.rank_med DESC, c.key_id DESC";
static const char sql_be_next[] =
	"SELECT min(backend_name) FROM runs WHERE " WHERE_MD " AND backend_name > ?4";
static const char sql_list[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE " WHERE_MD LIST_TAIL;
static const char sql_list_hw[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE " WHERE_MD " AND hw_slug = ?7" LIST_TAIL;
static const char sql_list_be[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE " WHERE_MD " AND backend_name = ?8" LIST_TAIL;
static const char sql_list_hw_be[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE " WHERE_MD
	" AND hw_slug = ?7 AND backend_name = ?8" LIST_TAIL;
#define UP_COLS "SELECT decode_tok_s, id FROM runs WHERE " WHERE_MD
static const char sql_up[] = UP_COLS UP_TAIL;
static const char sql_up_hw[] = UP_COLS " AND hw_slug = ?7" UP_TAIL;
static const char sql_up_be[] = UP_COLS " AND backend_name = ?8" UP_TAIL;
static const char sql_up_hw_be[] = UP_COLS " AND hw_slug = ?7 AND backend_name = ?8" UP_TAIL;

const char *const page_model_sql[] = {
	sql_name, sql_hw_next, sql_hw_name, sql_bars, sql_be_next, sql_list, sql_list_hw, sql_list_be,
	sql_list_hw_be, sql_up, sql_up_hw, sql_up_be, sql_up_hw_be, NULL
};

static void bind_md(struct mpage *p, sqlite3_stmt *st)
{
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	db_bind_text(st, 3, p->digest);
}

/* The model's shown name; 0, or -1 with a 404 when the suite has no run
 * of it and the reference data does not know it.  A model only the
 * reference data knows is named as it names it, with "measured" false
 * (the page's empty state, page_unmeasured). */
static int load_name(struct mpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_name);
	const struct ceiling_model *rm;
	int rc;

	if (!st)
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		json_object_set_new(p->m, "model", json_pack("{s:s, s:s}", "slug", p->slug,
			"name", (const char *)sqlite3_column_text(st, 0)));
	sqlite3_reset(st);
	json_object_set_new(p->m, "measured", json_boolean(rc == SQLITE_ROW));
	if (rc == SQLITE_DONE && (rm = ceiling_model_by_slug(p->b.r->app->ref, p->slug))) {
		json_object_set_new(p->m, "model", json_pack("{s:s, s:s}", "slug", p->slug, "name", rm->name));
		return page_unmeasured(&p->b, p->m, p->slug, rm->name, NULL);
	}
	if (rc == SQLITE_DONE)
		return browse_error(&p->b, 404, "There is no model %s in %s. Model pages are named by slug; the list of models links to every one.",
				    p->slug, p->b.suite);
	json_object_set_new(p->m, "unmeasured", json_null());
	return rc == SQLITE_ROW ? 0 : browse_error(&p->b, 503, MSG_DB_DOWN);
}

/* The next distinct value after prev of the column stepped by sql (one
 * seek); 1 with it in out, 0 at the end, -1 on error. */
static int next_value(struct mpage *p, const char *sql, const char *prev, char *out, size_t n)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql);

	if (!st)
		return -1;
	bind_md(p, st);
	db_bind_text(st, 4, prev);
	return browse_step_text(st, out, n);
}

/* The name of hardware hw as the digest's fastest counted run on it says
 * (one seek): the filter's option. */
static json_t *hw_name(struct mpage *p, const char *hw)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_hw_name);
	json_t *name = NULL;

	if (!st)
		return NULL;
	bind_md(p, st);
	db_bind_text(st, 4, hw);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		name = json_string((const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return name;
}

/* The digest's hardware, for the hardware filter (one seek each), and the
 * chart's bars: each hardware's combination with the highest median
 * within the backend filter, the median as the bar, the best run beside
 * it. */
static int load_hardware(struct mpage *p)
{
	json_t *opts = json_array(), *bars = json_array(), *seen = json_object(), *name;
	char hw[SLUG_MAX + 1] = "";
	sqlite3_stmt *st;
	int rc;

	while ((rc = next_value(p, sql_hw_next, hw, hw, sizeof hw)) == 1) {
		if (!(name = hw_name(p, hw)))
			goto fail;
		json_array_append_new(opts, json_pack("{s:s, s:o, s:b}", "slug", hw, "name", name,
			"selected", p->b.hw && !strcmp(p->b.hw, hw)));
	}
	if (rc < 0 || !(st = db_stmt(p->b.c, sql_bars)))
		goto fail;
	bind_md(p, st);
	db_bind_text(st, 4, p->b.backend);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		const char *id = (const char *)sqlite3_column_text(st, 4);
		double med = quantile_round(sqlite3_column_double(st, 2), 0.01);

		if (!h || json_object_get(seen, h))
			continue;
		json_object_set_new(seen, h, json_true());
		json_array_append_new(bars, json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:s, s:o}", "hw", h,
			"name", (const char *)sqlite3_column_text(st, 5),
			"backend", (const char *)sqlite3_column_text(st, 1),
			"decode_tok_s", med, "median_decode_tok_s", med,
			"best_decode_tok_s", quantile_round(sqlite3_column_double(st, 3), 0.01),
			"run_id", id ? id : "",
			"href", browse_link(&p->b, "/m/", p->slug, "digest", p->digest,
					    "hw", h, "backend", p->b.backend, NULL)));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	browse_sort_by_name(opts);
	json_decref(seen);
	json_object_set_new(p->m, "hardware_options", opts);
	json_object_set_new(p->m, "chart", json_pack("{s:s?, s:o}", "backend", p->b.backend,
		"bars", bars));
	return 0;
fail:
	json_decref(opts);
	json_decref(bars);
	json_decref(seen);
	return browse_error(&p->b, 503, MSG_DB_DOWN);
}

/* The digest's backends, for the backend filter. */
static int load_backends(struct mpage *p)
{
	json_t *opts = json_array();
	char be[64] = "";
	int rc;

	while ((rc = next_value(p, sql_be_next, be, be, sizeof be)) == 1)
		json_array_append_new(opts, json_pack("{s:s, s:b}", "name", be,
			"selected", p->b.backend && !strcmp(p->b.backend, be)));
	browse_sort_by_name(opts);
	json_object_set_new(p->m, "backend_options", opts);
	return rc < 0 ? browse_error(&p->b, 503, MSG_DB_DOWN) : 0;
}

/* Binds the digest, the filters and the cursor of a list or up query. */
static void bind_list(struct mpage *p, sqlite3_stmt *st)
{
	bind_md(p, st);
	browse_bind_after(&p->b, st, 4);
	if (p->b.hw)
		db_bind_text(st, 7, p->b.hw);
	if (p->b.backend)
		db_bind_text(st, 8, p->b.backend);
}

/* The page's Previous link (for people; the JSON keeps next and first):
 * after the row BROWSE_PAGE places above the cursor, or page one when
 * there is none.  0, or -1 on a database error. */
static int add_prev(struct mpage *p, json_t *list)
{
	static const char *const sqls[2][2] = {
		{ sql_up, sql_up_be }, { sql_up_hw, sql_up_hw_be }
	};
	sqlite3_stmt *st = db_stmt(p->b.c, sqls[p->b.hw != NULL][p->b.backend != NULL]);
	char cur[80];
	int rc;

	if (!st)
		return -1;
	bind_list(p, st);
	if ((rc = browse_up_cursor(&p->b, st, BROWSE_PAGE, cur, sizeof cur)) < 0)
		return -1;
	json_object_set_new(list, "prev", browse_link(&p->b, "/m/", p->slug, "digest", p->digest,
		"hw", p->b.hw, "backend", p->b.backend, "after", rc ? cur : NULL, NULL));
	return 0;
}

/* One "Sort by" link of the model page, keeping its digest and filters. */
static json_t *model_sort_href(void *ctx, const char *sort)
{
	struct mpage *p = ctx;

	return browse_link(&p->b, "/m/", p->slug, "digest", p->digest, "hw", p->b.hw,
			   "backend", p->b.backend, "sort", sort, NULL);
}

/* A link to the sorted list after cursor cur (NULL: its first page). */
static json_t *sorted_link(void *ctx, const char *cur)
{
	struct mpage *p = ctx;

	return browse_link(&p->b, "/m/", p->slug, "digest", p->digest, "hw", p->b.hw,
			   "backend", p->b.backend, "sort", browse_sort_key(p->sort), "after", cur, NULL);
}

/* The shown digest's combinations within the filters with their typical
 * figures, in the order p->sort (combos_page): with ?sort= given, one page
 * of them by keyset (paged); without, the first BROWSE_SORTED_MAX by
 * median, above the list of runs.  0, or -1 with p->b's failure set. */
static int load_combos(struct mpage *p)
{
	struct combos_q q = { p->b.hw, p->b.backend, p->slug, p->digest };
	struct browse b = p->b;
	json_t *list;

	if (!p->sort_given) {      /* the runs list owns the cursor */
		b.has_after = 0;
		b.after_decode = HUGE_VAL;
		strcpy(b.after_id, "~");
	}
	if (!(list = combos_page(&b, &q, p->sort, p->sort_given ? BROWSE_PAGE : BROWSE_SORTED_MAX,
				 sorted_link, p))) {
		p->b.err = b.err;
		return -1;
	}
	if (!p->sort_given) {
		json_object_set_new(list, "next", json_null());
		json_object_set_new(list, "paged", json_false());
	}
	json_object_set_new(list, "ceiling_note", combos_ceiling_note(&p->b, json_object_get(list, "rows")));
	json_object_set_new(p->m, "combos", list);
	return 0;
}

/* One page of the digest's runs within the filters, by the index that
 * matches them, below the combinations; with ?sort= given the page lists
 * only the combinations. */
static int load_list(struct mpage *p)
{
	static const char *const sqls[2][2] = {
		{ sql_list, sql_list_be }, { sql_list_hw, sql_list_hw_be }
	};
	sqlite3_stmt *st;
	json_t *list;

	if (load_combos(p) < 0)
		return -1;
	if (p->sort_given) {
		json_object_set_new(p->m, "list", json_null());
		return 0;
	}
	if (!(st = db_stmt(p->b.c, sqls[p->b.hw != NULL][p->b.backend != NULL])))
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	bind_list(p, st);
	sqlite3_bind_int(st, 6, BROWSE_PAGE + 1);
	list = browse_list(&p->b, st, BROWSE_PAGE, "/m/", p->slug, "digest", p->digest,
			   "hw", p->b.hw, "backend", p->b.backend, NULL);
	if (list && p->b.html && p->b.has_after && add_prev(p, list) < 0) {
		json_decref(list);
		list = NULL;
	}
	if (!list)
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	json_object_set_new(p->m, "list", list);
	return 0;
}

/* The parts shown only when some digest has runs that count. */
static int load_digest_parts(struct mpage *p)
{
	if (!p->digest) {
		json_object_set_new(p->m, "hardware_options", json_array());
		json_object_set_new(p->m, "backend_options", json_array());
		json_object_set_new(p->m, "chart", json_pack("{s:n, s:[]}", "backend", "bars"));
		json_object_set_new(p->m, "list", json_pack("{s:[], s:i, s:n, s:n, s:b}", "runs",
			"count", 0, "next", "first", "paged", 0));
		json_object_set_new(p->m, "combos", json_pack("{s:[], s:i, s:n, s:n, s:b}", "rows",
			"count", 0, "next", "first", "paged", 0));
		return 0;
	}
	if (load_hardware(p) < 0 || load_backends(p) < 0)
		return -1;
	return load_list(p);
}

/* Efficiency per hardware: each bar's median beside the bandwidth ceiling
 * of this model at the shown digest's quantization on that hardware
 * (chat-short context; the range of its weights format when the
 * quantization is unknown); null where the reference data does not know
 * the model or the hardware, whose names *note gets once. */
static json_t *efficiency(struct req *r, const struct mpage *p, json_t **note)
{
	json_t *bars = json_object_get(json_object_get(p->m, "chart"), "bars"), *bar, *out = json_array();
	const json_t *d = json_object_get(p->m, "digest");
	const char *quant = json_string_value(json_object_get(d, "quantization"));
	const char *format = json_string_value(json_object_get(d, "format"));
	struct buf missing = BUF_INIT;
	struct ceiling_range c;
	size_t i;

	json_array_foreach(bars, i, bar) {
		double median = json_real_value(json_object_get(bar, "median_decode_tok_s"));
		const char *hw = json_string_value(json_object_get(bar, "hw"));
		int known = ceiling_range_of_run(r->app->ref, p->slug, quant, format, hw,
						 CEILING_CHAT_SHORT_CONTEXT, &c) == 0;

		if (!ceiling_hw(r->app->ref, hw))
			buf_printf(&missing, "%s%s", missing.len ? ", " : "",
				   json_string_value(json_object_get(bar, "name")));
		json_array_append_new(out, json_pack("{s:O, s:O, s:O, s:O, s:o}", "hw", json_object_get(bar, "hw"),
			"name", json_object_get(bar, "name"), "run_id", json_object_get(bar, "run_id"),
			"median_decode_tok_s", json_object_get(bar, "median_decode_tok_s"),
			"ceiling", known ? ceiling_range_json(&c, median) : json_null()));
	}
	*note = missing.len && !buf_error(&missing) ? json_string(missing.buf) : json_null();
	buf_release(&missing);
	return out;
}

/* The view model of /m/<slug>, or NULL with p->b's failure set. */
/* Predicted decode on each reference hardware the model has no run on
 * (store/forecast.h), labelled and apart from every measured row and
 * the chart: {rows: [{hw, name, href, predicted_*}], has_rows}, only
 * those with a figure.  NULL on a database failure. */
static json_t *predictions(struct req *r, const struct mpage *p)
{
	const struct ceiling_hw *h;
	/* Measured is on any weights file: the hardware of best_per_hw. */
	json_t *rows = json_array(), *bars = json_object_get(p->m, "best_per_hw");
	json_t *bar;
	size_t i, j;
	char quant[128];

	/* A model the reference data does not know has no ceiling anywhere,
	 * so no row; else its quantization is read once, not per hardware. */
	if (!r->app->ref || !forecast_model_known(p->slug))
		return json_pack("{s:o, s:b}", "rows", rows, "has_rows", 0);
	if (forecast_quant(p->b.c, p->b.suite, p->slug, quant, sizeof quant) < 0) {
		json_decref(rows);
		return NULL;
	}
	for (i = 0; (h = ceiling_hw_at(r->app->ref, i)); i++) {
		struct predict_result pr;
		char href[2 * SLUG_MAX + 16];
		json_t *row;
		int measured = 0;

		json_array_foreach(bars, j, bar)
			measured |= !strcmp(json_string_value(json_object_get(bar, "hw_slug")), h->slug);
		if (measured)
			continue;
		forecast_for_combo_quant(p->b.suite, p->slug, h->slug, NULL, quant, &pr);
		if (pr.step == PREDICT_NONE)
			continue;
		snprintf(href, sizeof href, "/m/%s/hw/%s", p->slug, h->slug);
		row = json_pack("{s:s, s:s, s:s, s:s}", "hw", h->slug, "name", h->name, "href", href,
				"label", "predicted");
		forecast_json_fields(row, &pr);
		json_object_set_new(row, "text", forecast_text_json(&pr));
		json_array_append_new(rows, row);
	}
	return json_pack("{s:o, s:b, s:I}", "rows", rows, "has_rows", json_array_size(rows) > 0,
			 "count", (json_int_t)json_array_size(rows));
}

static json_t *model_model(struct mpage *p, struct req *r)
{
	json_t *pred;
	json_t *note;
	int sort;

	if (browse_begin(&p->b, r) < 0)
		return NULL;
	p->slug = r->arg;
	if (!slug_valid(p->slug)) {
		browse_error(&p->b, 404, "Model pages are named by slug: lowercase letters and digits joined by single hyphens.");
		return NULL;
	}
	if ((sort = browse_take_order(&p->b, &browse_board_orders)) < 0)
		return NULL;
	p->sort = (enum browse_sort)sort;
	p->sort_given = p->b.sort_given;
	p->m = json_pack("{s:s, s:s, s:s, s:b}", "suite_version", p->b.suite, "slug", p->slug,
			 "sort", browse_sort_key(p->sort), "sorted_groups", p->sort_given);
	if (!p->m || load_name(p) < 0 || model_load_digests(p) < 0 || model_load_best(p) < 0 ||
	    load_digest_parts(p) < 0)
		goto fail;
	json_object_set_new(p->m, "title", browse_title(json_string_value(
		json_object_get(json_object_get(p->m, "model"), "name"))));
	json_object_set_new(p->m, "suites", browse_suites(&p->b, "/m/", p->slug));
	json_object_set_new(p->m, "filters", json_pack("{s:s?, s:s?, s:s?, s:s?, s:b}",
		"suite", p->b.suite_given ? p->b.suite : NULL, "digest", p->digest,
		"hw", p->b.hw, "backend", p->b.backend, "active", p->b.hw || p->b.backend));
	json_object_set_new(p->m, "clear_href", browse_link(&p->b, "/m/", p->slug,
		"digest", p->digest, NULL));
	json_object_set_new(p->m, "efficiency", efficiency(r, p, &note));
	if (!(pred = predictions(r, p))) {
		browse_error(&p->b, 503, MSG_DB_DOWN);
		goto fail;
	}
	json_object_set_new(p->m, "predicted", pred);
	json_object_set_new(p->m, "ceiling_note", note);
	if (!json_is_null(note))   /* said once a page: the efficiency table's note covers the list */
		json_object_set_new(json_object_get(p->m, "combos"), "ceiling_note", json_null());
	json_object_set_new(p->m, "sorts", browse_sort_links(p->sort, model_sort_href, p));
	json_object_set_new(p->m, "sort_by", browse_sort_by(json_object_get(p->m, "sorts")));
	json_object_set_new(p->m, "sort_param", p->sort_given ? json_string(browse_sort_key(p->sort)) : json_null());
	return p->m;
fail:
	json_decref(p->m);
	return NULL;
}

/* Adds the chart as inline SVG (for the HTML page only). */
static void add_chart_svg(json_t *m)
{
	json_t *chart = json_object_get(m, "chart"), *bars = json_object_get(chart, "bars"), *bar;
	struct barchart_bar v[BARCHART_MAX_BARS];
	char names[BARCHART_MAX_BARS][BARCHART_LABEL_MAX * 4 + 1];
	struct buf svg = BUF_INIT, title = BUF_INIT;
	const char *be = json_string_value(json_object_get(chart, "backend"));
	size_t i, n = 0;

	json_array_foreach(bars, i, bar) {
		if (n == BARCHART_MAX_BARS)
			break;
		/* The hardware's short name: "RTX 4090" fits where the whole
		 * name would be cut before its model number. */
		const char *name = json_string_value(json_object_get(bar, "name"));
		size_t len = 0, at = name ? textcut_hw(name, strlen(name), &len) : 0;

		/* At most the buffer (the chart cuts it anyway), between code points. */
		len = name ? utf8_cut(name + at, len, sizeof names[n] - 1) : 0;
		memcpy(names[n], name ? name + at : "", len);
		names[n][len] = '\0';
		v[n].label = names[n];
		v[n].sub = NULL;
		v[n++].value = json_real_value(json_object_get(bar, "decode_tok_s"));
	}
	buf_printf(&title, "Median chat-short decode tok/s per hardware, %s%s",
		   be ? "backend " : "any backend", be ? be : "");
	if (barchart_svg(&svg, title.buf, "tok/s", v, n) == 0)
		json_object_set_new(m, "chart_svg", json_stringn(svg.buf, svg.len));
	json_object_set_new(m, "chart_title", json_string(title.buf));
	buf_release(&title);
	buf_release(&svg);
}

/* GET /m/<slug> and its .json and .csv (the run list, or the
 * combinations): the model's view model; a 301 when the slug is a name
 * typed another way; 200 with the empty state (page_unmeasured) for a
 * model only the reference data knows; NULL with a 404 for an invalid or
 * unknown slug, an unknown ?digest= or ?suite=, a 400 for a malformed
 * argument. */
json_t *page_model_view(struct page_view *v)
{
	struct mpage p = { 0 };
	json_t *m;
	int unmeasured;

	if (page_search_canonical(v, PAGE_ARG_MODEL))
		return NULL;
	if (!model_model(&p, v->r))
		return page_view_browsed(v, &p.b, NULL);
	if (v->format == HTTP_FMT_HTML) {
		add_chart_svg(p.m);
		/* The table's model column would repeat the heading. */
		json_object_set_new(p.m, "cols", combos_cols(0, 1));
	}
	unmeasured = json_is_object(json_object_get(p.m, "unmeasured"));
	m = page_view_browsed(v, &p.b, p.m);
	/* The empty state says /wanted's count, which changes without a
	 * write of runs: built each time (a few reads). */
	if (unmeasured)
		v->keep = 0;
	/* Kept in the model's scope and in that of the digest it lists runs
	 * of (store/scope.h): a write of another model leaves it fresh. */
	v->tags = (struct cache_tags){ { scope_tag('m', p.slug), p.digest ? scope_tag('d', p.digest) : 0 } };
	return m;
}
