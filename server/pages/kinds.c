/* kinds.c: the table of page kinds (kinds.h): each kind's address,
 * template, nav key, twins with their CSV columns, feed, sitemap entry and
 * view-model builder.  The one place a page kind is declared. */
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "render/tmpl.h"

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

#define COLS(c) c, sizeof c / sizeof c[0]
/* A table at a path of the view model, and one made by a function. */
#define TABLE(rows, url, cols) { rows, NULL, url, COLS(cols) }
#define MADE(fn, url, cols) { NULL, fn, url, COLS(cols) }

/* A page with a JSON and a CSV twin at its path + ".json", ".csv". */
#define TWINS(p) .path = p, .json = p ".json", .csv = p ".csv"

const struct page_kind_def page_kinds[PAGE_KIND__MAX] = {
	[PAGE_HOME] = { "home", .path = "/", .json = "/index.json", .csv = "/index.csv",
		.tmpl = "home", .nav = "home", .feed = "/feed.atom", .sitemap = SITEMAP_ONE,
		.csv_tables = { TABLE("board.rows", CSV_URL_BEST_RUN, combo_cols) },
		.flags = PAGE_LISTED, .build = page_home_view },
	[PAGE_RUN] = { "run", .path = "/r/*", .json = "/r/*.json", .tmpl = "run",
		.arg = PAGE_ARG_RUN, .sitemap = SITEMAP_EACH, .flags = PAGE_KEPT_RUN,
		.build = page_run_view },
	[PAGE_MODEL_HW] = { "model-hw", .path = "/m/*/hw/*", .json = "/m/*/hw/*.json",
		.tmpl = "model_hw", .arg = PAGE_ARG_MODEL_HW, .sitemap = SITEMAP_EACH,
		.flags = PAGE_LISTED, .build = page_model_hw_view },
	[PAGE_MODEL] = { "model", TWINS("/m/*"), .tmpl = "model", .feed = "/m/*.atom",
		.arg = PAGE_ARG_MODEL, .sitemap = SITEMAP_EACH,
		.csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols),
				TABLE("combos.rows", CSV_URL_BEST_RUN, combo_cols) },
		.flags = PAGE_LISTED, .build = page_model_view },
	[PAGE_HW] = { "hw", TWINS("/hw/*"), .tmpl = "hw", .feed = "/hw/*.atom",
		.arg = PAGE_ARG_HW, .sitemap = SITEMAP_EACH,
		.csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols),
				TABLE("combos.rows", CSV_URL_BEST_RUN, combo_cols) },
		.flags = PAGE_LISTED, .build = page_hw_view },
	[PAGE_MODELS] = { "models", TWINS("/models"), .tmpl = "catalog", .nav = "models",
		.sitemap = SITEMAP_ONE, .csv_tables = { TABLE("rows", CSV_URL_BEST, catalog_cols) },
		.flags = PAGE_LISTED, .build = page_models_view },
	[PAGE_HARDWARE] = { "hardware", TWINS("/hardware"), .tmpl = "catalog", .nav = "hardware",
		.sitemap = SITEMAP_ONE, .csv_tables = { TABLE("rows", CSV_URL_BEST, catalog_cols) },
		.flags = PAGE_LISTED, .build = page_hardware_view },
	[PAGE_SEARCH] = { "search", TWINS("/search"), .tmpl = "search",
		.csv_tables = { TABLE("results", CSV_URL_NAME, search_cols) },
		.build = page_search_view },
	[PAGE_COMPARE] = { "compare", TWINS("/compare"), .tmpl = "compare",
		.csv_tables = { MADE(twins_compare_rows, CSV_URL_RUN, compare_cols) },
		.build = page_compare_view },
	[PAGE_CHEATSHEET] = { "cheatsheet", TWINS("/cheatsheet"), .tmpl = "cheatsheet",
		.nav = "cheatsheet", .sitemap = SITEMAP_ONE,
		.csv_tables = { MADE(twins_cheatsheet_rows, CSV_URL_NONE, cheatsheet_cols) },
		.flags = PAGE_LISTED, .build = page_cheatsheet_view },
	[PAGE_OUTLIERS] = { "outliers", TWINS("/outliers"), .tmpl = "outliers", .nav = "outliers",
		.sitemap = SITEMAP_ONE, .csv_tables = { TABLE("rows", CSV_URL_RUN, outlier_cols) },
		.flags = PAGE_LISTED, .build = page_outliers_view },
	[PAGE_DISPUTES] = { "disputes", TWINS("/disputes"), .tmpl = "disputes", .nav = "disputes",
		.feed = "/disputes.atom", .sitemap = SITEMAP_ONE,
		.csv_tables = { TABLE("rows", CSV_URL_RUN, dispute_cols) },
		.flags = PAGE_LISTED, .build = page_disputes_view },
	/* /fit answers one question (does this fit, how fast): no table, so no CSV. */
	[PAGE_FIT] = { "fit", .path = "/fit", .json = "/fit.json", .tmpl = "fit", .nav = "fit",
		.sitemap = SITEMAP_ONE, .build = page_fit_view },
	[PAGE_GLOSSARY] = { "glossary", .path = "/glossary", .tmpl = "glossary", .nav = "glossary",
		.sitemap = SITEMAP_ONE, .build = page_reference_view },
	[PAGE_METHODOLOGY] = { "methodology", .path = "/methodology", .tmpl = "methodology",
		.nav = "methodology", .sitemap = SITEMAP_ONE, .build = page_reference_view },
	[PAGE_PRIVACY] = { "privacy", .path = "/privacy", .tmpl = "privacy", .nav = "privacy",
		.sitemap = SITEMAP_ONE, .build = page_reference_view },
	[PAGE_EXPLAIN] = { "explain_quantization", .path = "/explain/quantization",
		.tmpl = "explain_quantization", .nav = "explain_quantization",
		.sitemap = SITEMAP_ONE, .build = page_explain_view },
	[PAGE_API] = { "api", .path = "/api", .tmpl = "api", .nav = "api",
		.sitemap = SITEMAP_ONE, .build = page_api_view },
	[PAGE_LOG] = { "log", .path = "/log", .tmpl = "log", .sitemap = SITEMAP_ONE,
		.build = page_log_view },
	[PAGE_ACCOUNT] = { "account", TWINS("/u/*"), .tmpl = "account", .feed = "/u/*.atom",
		.arg = PAGE_ARG_ACCOUNT, .csv_tables = { TABLE("list.runs", CSV_URL_RUN, run_cols) },
		.build = page_account_view },
	[PAGE_CHANGES] = { "changes", .path = "/changes", .json = "/changes.json", .tmpl = "changes",
		.nav = "changes", .feed = "/changes.atom", .sitemap = SITEMAP_ONE,
		.build = page_changes_view },
	[PAGE_WANTED] = { "wanted", .path = "/wanted", .json = "/wanted.json", .tmpl = "wanted",
		.nav = "wanted", .sitemap = SITEMAP_ONE, .build = page_wanted_view },
};

/* 1 when twin is path followed by suffix (or, for the home page "/",
 * "/index" and suffix). */
static int twin_of(const char *path, const char *twin, const char *suffix)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/"))
		return !strncmp(twin, "/index", 6) && !strcmp(twin + 6, suffix);
	return !strncmp(twin, path, n) && !strcmp(twin + n, suffix);
}

/* The problem with kind k, or NULL when it is whole. */
static const char *kind_problem(const struct page_kind_def *k, const struct tmpl_set *tmpl)
{
	if (!k->name || !k->path || !k->tmpl || !k->build)
		return "has no row in page_kinds[] (or no name, path, template or builder)";
	if (k->path[0] != '/' || (strchr(k->path, '*') && k->arg == PAGE_ARG_NONE))
		return "has a path that is not absolute, or a '*' that names nothing (arg)";
	if (tmpl && !tmpl_set_get(tmpl, k->tmpl))
		return "names a template that templates/ does not hold";
	if ((k->json && !twin_of(k->path, k->json, ".json")) ||
	    (k->csv && !twin_of(k->path, k->csv, ".csv")))
		return "has a twin whose path is not the page's with .json or .csv";
	if (!k->csv != !k->csv_tables[0].cols)
		return "has a CSV twin without a table, or a table without a CSV twin";
	if (k->sitemap == SITEMAP_EACH && k->arg == PAGE_ARG_NONE)
		return "is listed once per thing in the sitemap but its path names none";
	return NULL;
}

int page_kinds_check(const struct tmpl_set *tmpl, struct err *e)
{
	const char *why;
	size_t i, j;

	for (i = 0; i < PAGE_KIND__MAX; i++) {
		if ((why = kind_problem(&page_kinds[i], tmpl)))
			return err_set(e, 500, NULL, NULL, "page kind %zu (%s) %s", i,
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
	size_t i;

	for (i = 0; a && i < PAGE_KIND__MAX; i++) {
		const struct page_kind_def *k = &page_kinds[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:o, s:s?, s:s?, s:s}",
			"name", k->name, "path", k->path, "template", k->tmpl, "nav", k->nav,
			"json", k->json, "csv", k->csv, "csv_columns", columns_json(k),
			"feed", k->feed, "arg", args[k->arg], "sitemap", sitemaps[k->sitemap]));
	}
	return a;
}
