/* kinds.c: the table of page kinds (kinds.h): each kind's address, twins
 * with their CSV columns, feed, sitemap entry and flags, its template and
 * view-model builder named after it.  The one place a page kind is
 * declared: one row, its name spelled once. */
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "pages/page.h"
#include "render/tmpl.h"
#include "util/nelem.h"

/* ---- the CSV twins' columns: {header, dotted path in a row} ---- */

/* A run row (browse_run()). */
static const struct csv_col run_cols[] = {
	{ "id", "id" }, { "url", "url" }, { "model", "model.name" }, { "model_slug", "model.slug" },
	{ "model_digest", "model.digest" }, { "quantization", "model.quantization" },
	{ "format", "model.format" }, { "hardware", "hardware.name" }, { "hw_slug", "hardware.slug" },
	{ "backend", "backend.name" }, { "backend_version", "backend.version" },
	{ "decode_tok_s", "decode_tok_s" }, { "prefill_tok_s", "prefill_tok_s" },
	{ "ttft_ms", "ttft_ms" }, { "created_at", "created_at" }, { "outlier", "outlier" },
	{ "sigma", "sigma" }, { "demo", "demo" },
};
static const struct csv_col outlier_cols[] = {
	{ "id", "id" }, { "url", "url" }, { "model", "model_name" }, { "model_slug", "model_slug" },
	{ "hardware", "accelerator" }, { "hw_slug", "hw_slug" }, { "hw_class", "hw_class" },
	{ "backend", "backend_name" }, { "backend_version", "backend_version" },
	{ "decode_tok_s", "decode_tok_s" }, { "received_at", "received_at" },
	{ "cluster_n", "cluster_n" }, { "cluster_mean", "cluster_mean" },
	{ "cluster_stddev", "cluster_stddev" }, { "sigma", "sigma" },
	{ "dispute_state", "dispute_state" }, { "dispute_posts", "dispute_posts" }, { "demo", "demo" },
};
/* /models and /hardware: one row per model or hardware with its leading
 * combination's typical figures; "url" is the address of its best run. */
static const struct csv_col catalog_cols[] = {
	{ "slug", "slug" }, { "name", "name" }, { "runs", "runs" },
	{ "best_decode_tok_s", "best_decode_tok_s" }, { "best_id", "best_id" }, { "url", "url" },
	{ "median_decode_tok_s", "median_decode_tok_s" }, { "p25_decode_tok_s", "p25_decode_tok_s" },
	{ "p75_decode_tok_s", "p75_decode_tok_s" }, { "keys", "keys" },
	{ "median_prefill_tok_s", "median_prefill_tok_s" }, { "median_ttft_ms", "median_ttft_ms" },
	{ "backend", "backend" },
};
/* A combination row (combos_item()): the board, /hw/<slug>, /m/<slug>'s
 * combinations; "url" is its best run's address. */
static const struct csv_col combo_cols[] = {
	{ "model", "model.name" }, { "model_slug", "model.slug" }, { "model_digest", "model.digest" },
	{ "quantization", "model.quantization" }, { "hardware", "hardware.name" },
	{ "hw_slug", "hardware.slug" }, { "backend", "backend" },
	{ "median_decode_tok_s", "median_decode_tok_s" }, { "p25_decode_tok_s", "p25_decode_tok_s" },
	{ "p75_decode_tok_s", "p75_decode_tok_s" }, { "best_decode_tok_s", "best_decode_tok_s" },
	{ "best_run", "best_run" }, { "runs", "runs" }, { "keys", "keys" },
	{ "median_prefill_tok_s", "median_prefill_tok_s" }, { "median_ttft_ms", "median_ttft_ms" },
	{ "flagged_runs", "flagged_runs" }, { "above_ceiling", "above_ceiling" }, { "url", "url" },
};
static const struct csv_col dispute_cols[] = {
	{ "id", "id" }, { "url", "url" }, { "opened_at", "opened_at" },
	{ "last_post_at", "last_post_at" }, { "posts", "posts" }, { "model", "model_name" },
	{ "model_slug", "model_slug" }, { "hardware", "accelerator" }, { "hw_slug", "hw_slug" },
	{ "backend", "backend_name" }, { "decode_tok_s", "decode_tok_s" },
	{ "outlier", "outlier" }, { "demo", "demo" },
};
/* /search: one row per name found (the results table). */
static const struct csv_col search_cols[] = {
	{ "kind", "kind" }, { "name", "name" }, { "slug", "slug" }, { "runs", "runs" },
	{ "median_decode_tok_s", "median_decode_tok_s" }, { "keys", "keys" },
	{ "best_decode_tok_s", "best_decode_tok_s" }, { "url", "url" },
};
/* /compare: one row per figure and run (twins_compare_rows()). */
static const struct csv_col compare_cols[] = {
	{ "run", "n" }, { "id", "id" }, { "url", "url" }, { "model", "model.name" },
	{ "model_slug", "model.slug" }, { "model_digest", "model.digest" },
	{ "quantization", "model.quantization" }, { "hardware", "hardware.name" },
	{ "hw_slug", "hardware.slug" }, { "backend", "backend.name" },
	{ "backend_version", "backend.version" }, { "suite_version", "suite_version" },
	{ "figure", "figure" }, { "unit", "unit" }, { "lower_better", "lower_better" },
	{ "value", "value" }, { "pct_from_run_1", "pct" },
};
/* /cheatsheet: one row per entry of a cell (twins_cheatsheet_rows()). */
static const struct csv_col cheatsheet_cols[] = {
	{ "model", "model" }, { "model_slug", "model_slug" }, { "hardware", "hardware" },
	{ "hw_slug", "hw_slug" }, { "backend", "backend" },
	{ "median_decode_tok_s", "median_decode_tok_s" }, { "p25_decode_tok_s", "p25_decode_tok_s" },
	{ "p75_decode_tok_s", "p75_decode_tok_s" }, { "best_decode_tok_s", "best_decode_tok_s" },
	{ "runs", "runs" }, { "keys", "keys" }, { "median_prefill_tok_s", "median_prefill_tok_s" },
	{ "median_ttft_ms", "median_ttft_ms" }, { "quantization", "quantization" },
	{ "run_id", "id" },
};

#define COLS(c) c, NELEM(c)
/* A table at a path of the view model, and one made by a function. */
#define TABLE(rows, url, cols) { rows, NULL, url, COLS(cols) }
#define MADE(fn, url, cols) { NULL, fn, url, COLS(cols) }

/* Where a kind lives, from its name (id) or given in its row: */
#define NAMED(id)       .path = "/" #id,                        /* /x */
#define NAMED_JSON(id)  NAMED(id) .json = "/" #id ".json",      /* /x, /x.json */
#define NAMED_TWINS(id) NAMED_JSON(id) .csv = "/" #id ".csv",   /* and /x.csv */
#define GIVEN(id)       /* .path (and twins) in the row */
/* A page with a JSON and a CSV twin at its path + ".json", ".csv". */
#define TWINS(p) .path = p, .json = p ".json", .csv = p ".csv"

/* Every page kind, one row each: KIND(id, where, fields...).  The kind is
 * named id (its name in kinds.json and its nav key), its builder is
 * page_<id>_view and its template templates/<id>.html; where says its
 * address (NAMED...: from its name; GIVEN: the row's .path); the fields
 * are the rest of struct page_kind_def.  The routes are made in this
 * order. */
#define PAGE_KINDS(KIND) \
	KIND(home, GIVEN, .path = "/", .json = "/index.json", .csv = "/index.csv", \
	     .feed = "/feed.atom", .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NAV, \
	     .csv_tables = { TABLE("board.rows", CSV_URL_BEST_RUN, combo_cols) }) \
	KIND(run, GIVEN, .path = "/r/*", .json = "/r/*.json", .arg = PAGE_ARG_RUN, \
	     .sitemap = SITEMAP_EACH, .flags = PAGE_KEPT_RUN) \
	KIND(judges, GIVEN, .path = "/r/*/judges", .json = "/r/*/judges.json", .arg = PAGE_ARG_RUN) \
	KIND(model_hw, GIVEN, .path = "/m/*/hw/*", .json = "/m/*/hw/*.json", \
	     .arg = PAGE_ARG_MODEL_HW, .sitemap = SITEMAP_EACH, .flags = PAGE_LISTED, \
	     .visit = page_model_hw_visit) \
	KIND(model, GIVEN, TWINS("/m/*"), .feed = "/m/*.atom", .arg = PAGE_ARG_MODEL, \
	     .sitemap = SITEMAP_EACH, .flags = PAGE_LISTED, \
	     .csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols), \
			     TABLE("combos.rows", CSV_URL_BEST_RUN, combo_cols) }) \
	KIND(hw, GIVEN, TWINS("/hw/*"), .feed = "/hw/*.atom", .arg = PAGE_ARG_HW, \
	     .sitemap = SITEMAP_EACH, .flags = PAGE_LISTED, \
	     .csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols), \
			     TABLE("combos.rows", CSV_URL_BEST_RUN, combo_cols) }) \
	KIND(models, NAMED_TWINS, .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NAV, \
	     .csv_tables = { TABLE("rows", CSV_URL_BEST, catalog_cols) }) \
	KIND(hardware, NAMED_TWINS, .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NAV, \
	     .csv_tables = { TABLE("rows", CSV_URL_BEST, catalog_cols) }) \
	KIND(search, NAMED_TWINS, .csv_tables = { TABLE("results", CSV_URL_NAME, search_cols) }) \
	KIND(compare, NAMED_TWINS, \
	     .csv_tables = { MADE(twins_compare_rows, CSV_URL_RUN, compare_cols) }) \
	KIND(cheatsheet, NAMED_TWINS, .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NAV, \
	     .csv_tables = { MADE(twins_cheatsheet_rows, CSV_URL_NONE, cheatsheet_cols) }) \
	KIND(outliers, NAMED_TWINS, .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NAV, \
	     .csv_tables = { TABLE("rows", CSV_URL_RUN, outlier_cols) }) \
	KIND(disputes, NAMED_TWINS, .feed = "/disputes.atom", .sitemap = SITEMAP_ONE, \
	     .flags = PAGE_LISTED | PAGE_NAV, .csv_tables = { TABLE("rows", CSV_URL_RUN, dispute_cols) }) \
	/* /fit answers one question (does this fit, how fast): no table, so no CSV. */ \
	KIND(fit, NAMED_JSON, .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(glossary, NAMED, .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(methodology, NAMED, .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(privacy, NAMED, .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(explain_quantization, GIVEN, .path = "/explain/quantization", \
	     .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(api, NAMED, .sitemap = SITEMAP_ONE, .flags = PAGE_NAV) \
	KIND(log, NAMED, .sitemap = SITEMAP_ONE) \
	KIND(account, GIVEN, TWINS("/u/*"), .feed = "/u/*.atom", .arg = PAGE_ARG_ACCOUNT, \
	     .csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols) }) \
	KIND(changes, NAMED_JSON, .feed = "/changes.atom", .sitemap = SITEMAP_ONE, \
	     .flags = PAGE_LISTED | PAGE_NAV) \
	KIND(wanted, NAMED_JSON, .sitemap = SITEMAP_ONE, .flags = PAGE_LISTED | PAGE_NO_QUERY | PAGE_NAV)

/* Each kind's builder, its enum and its row, from its name. */
#define KIND_BUILDER(id, where, ...) json_t *page_##id##_view(struct page_view *v);
#define KIND_ENUM(id, where, ...) PAGE_##id,
#define KIND_ROW(id, where, ...) \
	[PAGE_##id] = { .name = #id, .tmpl = #id, .build = page_##id##_view, where(id) __VA_ARGS__ },

PAGE_KINDS(KIND_BUILDER)
enum page_kind { PAGE_KINDS(KIND_ENUM) PAGE_KIND__MAX };
_Static_assert(PAGE_KIND__MAX <= PAGE_KINDS_MAX, "PAGE_KINDS_MAX holds every kind");

const struct page_kind_def page_kinds[] = { PAGE_KINDS(KIND_ROW) };
const int page_kinds_n = PAGE_KIND__MAX;

const struct page_kind_def *page_kind_named(const char *name)
{
	int i;

	for (i = 0; i < page_kinds_n; i++)
		if (!strcmp(page_kinds[i].name, name))
			return &page_kinds[i];
	return NULL;
}

/* 1 when twin is path followed by suffix (or, for the home page "/",
 * "/index" and suffix). */
static int twin_of(const char *path, const char *twin, const char *suffix)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/"))
		return !strncmp(twin, "/index", 6) && !strcmp(twin + 6, suffix);
	return !strncmp(twin, path, n) && !strcmp(twin + n, suffix);
}

/* 1 when the header links kind k: templates/_header.html marks its nav
 * entry ({{#nav.<name>}}). */
static int nav_linked(const struct page_kind_def *k, const struct tmpl_set *tmpl)
{
	const struct tmpl *header = tmpl_set_get(tmpl, "_header");
	char key[80];

	snprintf(key, sizeof key, "nav.%s", k->name);
	return header && tmpl_has_section(header, key);
}

const char *page_kind_problem(const struct page_kind_def *k, const struct tmpl_set *tmpl)
{
	if (!k->name || !k->path || !k->tmpl || !k->build)
		return "has no name, path, template or builder";
	if (k->path[0] != '/' || (strchr(k->path, '*') && k->arg == PAGE_ARG_NONE))
		return "has a path that is not absolute, or a '*' that names nothing (arg)";
	if (tmpl && !tmpl_set_get(tmpl, k->tmpl))
		return "names a template that templates/ does not hold";
	if ((k->json && !twin_of(k->path, k->json, ".json")) ||
	    (k->csv && !twin_of(k->path, k->csv, ".csv")))
		return "has a twin whose path is not the page's with .json or .csv";
	if (k->feed && strchr(k->feed, '*') && !twin_of(k->path, k->feed, ".atom"))
		return "has a feed with a '*' whose path is not the page's with .atom";
	if (!k->csv != !k->csv_tables[0].cols)
		return "has a CSV twin without a table, or a table without a CSV twin";
	if (k->sitemap == SITEMAP_EACH && k->arg == PAGE_ARG_NONE)
		return "is listed once per thing in the sitemap but its path names none";
	if (k->sitemap == SITEMAP_ONE && strchr(k->path, '*'))
		return "is listed once in the sitemap but its path has a '*' (it would list a broken address)";
	if ((k->flags & PAGE_NAV) && tmpl && !nav_linked(k, tmpl))
		return "is in the nav but templates/_header.html has no link marked {{#nav.<name>}} for it";
	return NULL;
}

int page_kinds_check(const struct tmpl_set *tmpl, struct err *e)
{
	const char *why;
	int i, j;

	for (i = 0; i < page_kinds_n; i++) {
		if ((why = page_kind_problem(&page_kinds[i], tmpl)))
			return err_set(e, 500, NULL, NULL, "page kind %d (%s) %s", i,
				       page_kinds[i].name ? page_kinds[i].name : "unnamed", why);
		for (j = 0; j < i; j++)
			if (!strcmp(page_kinds[i].name, page_kinds[j].name) ||
			    !strcmp(page_kinds[i].path, page_kinds[j].path))
				return err_set(e, 500, NULL, NULL, "page kinds %s and %s share a name or a path",
					       page_kinds[j].name, page_kinds[i].name);
	}
	return 0;
}

/* A kind's CSV columns' headers (of its first table), or null. */
static json_t *columns_json(const struct page_kind_def *k)
{
	json_t *a;
	size_t i;

	if (!k->csv || !(a = json_array()))
		return json_null();
	for (i = 0; i < k->csv_tables[0].ncols; i++)
		json_array_append_new(a, json_string(k->csv_tables[0].cols[i].header));
	return a;
}

json_t *page_kinds_json(void)
{
	static const char *const args[] = { NULL, "run", "model", "hw", "account", "model-hw" };
	static const char *const sitemaps[] = { "none", "one", "each" };
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < page_kinds_n; i++) {
		const struct page_kind_def *k = &page_kinds[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:o, s:s?, s:s?, s:s}",
			"name", k->name, "path", k->path, "template", k->tmpl,
			"nav", k->flags & PAGE_NAV ? k->name : NULL,
			"json", k->json, "csv", k->csv, "csv_columns", columns_json(k),
			"feed", k->feed, "arg", args[k->arg], "sitemap", sitemaps[k->sitemap]));
	}
	return a;
}
