/* twins.c: a table page's CSV twin and its <link rel="alternate"> list (JSON, CSV, Atom feed). */
#include "pages/browse.h"

#include <stdio.h>
#include <string.h>

#include "pages/page.h"
#include "render/csv.h"
#include "render/html.h"
#include "util/buf.h"

/* The columns of a run row (browse_run()) in CSV. */
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
static const struct csv_col index_cols[] = {
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
/* /compare: one row per figure and run (compare_rows()). */
static const struct csv_col compare_cols[] = {
	{ "run", "n" }, { "id", "id" }, { "url", "url" }, { "model", "model.name" },
	{ "model_slug", "model.slug" }, { "model_digest", "model.digest" },
	{ "quantization", "model.quantization" }, { "hardware", "hardware.name" },
	{ "hw_slug", "hardware.slug" }, { "backend", "backend.name" },
	{ "backend_version", "backend.version" }, { "suite_version", "suite_version" },
	{ "figure", "figure" }, { "unit", "unit" }, { "lower_better", "lower_better" },
	{ "value", "value" }, { "pct_from_run_1", "pct" },
};

/* The site path of a row's "url" column: its run's page ("id", or the
 * best run's, "best_id"), or a search result's page.  Nothing when the
 * row lacks what it needs. */
static void run_path_of(struct buf *p, const json_t *row, const char *key)
{
	const char *id = json_string_value(json_object_get(row, key));

	if (id && *id) {
		buf_puts(p, "/r/");
		html_url_arg(p, id);
	}
}

static void url_run(struct buf *p, const json_t *row)
{
	run_path_of(p, row, "id");
}

static void url_best(struct buf *p, const json_t *row)
{
	run_path_of(p, row, "best_id");
}

static void url_best_run(struct buf *p, const json_t *row)
{
	run_path_of(p, row, "best_run");
}

static void url_name(struct buf *p, const json_t *row)
{
	const char *kind = json_string_value(json_object_get(row, "kind"));
	const char *slug = json_string_value(json_object_get(row, "slug"));

	if (!kind || !slug || !*slug)
		return;
	buf_puts(p, !strcmp(kind, "model") ? "/m/" : !strcmp(kind, "hw") ? "/hw/" : "/?backend=");
	html_url_arg(p, slug);
}

/* /compare's figures as rows (new reference): for each figure and each
 * run compared, the run's members with figure, unit, lower_better, value
 * and pct (the % from run 1; null when not comparable). */
static json_t *compare_rows(const json_t *m)
{
	const json_t *runs = json_object_get(m, "runs"), *f, *cell;
	json_t *all = json_array(), *o;
	size_t i, k;

	json_array_foreach(csv_path(m, "figures.rows"), i, f)
		json_array_foreach(json_object_get(f, "cells"), k, cell) {
			if (!all || !(o = json_object()))
				break;
			json_object_update(o, json_array_get(runs, k));
			json_object_set(o, "figure", json_object_get(f, "label"));
			json_object_set(o, "unit", json_object_get(f, "unit"));
			json_object_set(o, "lower_better", json_object_get(f, "lower_better"));
			json_object_set(o, "value", json_object_get(cell, "value"));
			json_object_set(o, "pct", json_object_get(cell, "pct"));
			json_array_append_new(all, o);
		}
	return all;
}

#define COLS(c) c, sizeof c / sizeof c[0]
/* Each table page's CSV twin: where its rows are in the view model (the
 * first entry of the page whose path holds an array; "*" flattens an array
 * of objects' own lists; or made by rows_of), what the "url" column of a
 * row links to, and the columns. */
static const struct {
	const char *page, *rows, *alt;
	json_t *(*rows_of)(const json_t *m);
	void (*url)(struct buf *path, const json_t *row);
	const struct csv_col *cols;
	size_t ncols;
} browse_csv_tables[] = {
	{ "home", "board.rows", NULL, NULL, url_best_run, COLS(combo_cols) },
	{ "model", "list.runs", NULL, NULL, url_run, COLS(run_cols) },
	{ "model", "combos.rows", NULL, NULL, url_best_run, COLS(combo_cols) },
	{ "hw", "list.runs", NULL, NULL, url_run, COLS(run_cols) },
	{ "hw", "combos.rows", NULL, NULL, url_best_run, COLS(combo_cols) },
	{ "outliers", "rows", NULL, NULL, url_run, COLS(outlier_cols) },
	{ "disputes", "rows", NULL, NULL, url_run, COLS(dispute_cols) },
	{ "account", "list.runs", NULL, NULL, url_run, COLS(run_cols) },
	{ "index", "rows", NULL, NULL, url_best, COLS(index_cols) },
	{ "search", "results", NULL, NULL, url_name, COLS(search_cols) },
	{ "compare", NULL, NULL, compare_rows, url_run, COLS(compare_cols) },
};

/* The rows of m at path (new reference): "a.b", or "a*b.c" for the
 * concatenation of b.c of every object of array a. */
static json_t *csv_rows(const json_t *m, const char *path)
{
	const char *star = strchr(path, '*');
	char head[32];
	const json_t *outer, *o;
	json_t *all;
	size_t i;

	if (!star) {
		o = csv_path(m, path);
		return json_is_array(o) ? json_incref((json_t *)o) : NULL;
	}
	snprintf(head, sizeof head, "%.*s", (int)(star - path), path);
	if (!json_is_array(outer = csv_path(m, head)) || !(all = json_array()))
		return NULL;
	json_array_foreach(outer, i, o)
		json_array_extend(all, (json_t *)csv_path(o, star + 1));
	return all;
}

/* Answers with page name's table in m as CSV; each row that names a run
 * or a page gains "url", its absolute address. */
enum MHD_Result browse_send_csv(struct browse *b, const char *name, json_t *m)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	struct buf out = BUF_INIT, url = BUF_INIT;
	char origin[300];
	json_t *rows = NULL, *row;
	enum MHD_Result ret;
	size_t i, t;

	size_t found = (size_t)-1;

	for (t = 0; t < sizeof browse_csv_tables / sizeof browse_csv_tables[0]; t++) {
		if (!name || strcmp(browse_csv_tables[t].page, name))
			continue;
		if (found == (size_t)-1)
			found = t;
		if (browse_csv_tables[t].rows_of)
			rows = browse_csv_tables[t].rows_of(m);
		else if (!(rows = csv_rows(m, browse_csv_tables[t].rows)) && browse_csv_tables[t].alt)
			rows = csv_rows(m, browse_csv_tables[t].alt);
		if (rows) {
			found = t;
			break;
		}
	}
	if (found == (size_t)-1)
		return http_fail(b->r, 404, "not_found", "This page has no CSV form.", NULL);
	t = found;
	if (!rows)
		rows = json_array();
	http_origin(b->r, origin, sizeof origin);
	json_array_foreach(rows, i, row) {
		buf_reset(&url);
		buf_puts(&url, origin);
		browse_csv_tables[t].url(&url, row);
		if (url.len > strlen(origin) && !buf_error(&url))
			json_object_set_new(row, "url", json_stringn(url.buf, url.len));
	}
	if (csv_table(&out, rows, browse_csv_tables[t].cols, browse_csv_tables[t].ncols) ||
	    buf_error(&url))
		ret = http_fail(b->r, 503, "unavailable", MSG_NOMEM, NULL);
	else
		ret = http_send(b->r, 200, CT_CSV, out.buf, out.len, &o);
	buf_release(&out);
	buf_release(&url);
	json_decref(rows);
	return ret;
}

/* Each table page's other forms, for <link rel="alternate"> in its head:
 * the path of its twins (".json", ".csv" added; "*" is r->arg; NULL: the
 * page's own path, for a template shared by several pages) and its Atom
 * feed, if it has one, with the query arguments the feed reads (a space-
 * separated list; none of the feeds reads one yet). */
static const struct {
	const char *page, *twin, *feed, *feed_args;
} browse_alternates[] = {
	{ "home", "/index", "/feed.atom", "" },
	{ "model", "/m/*", "/m/*.atom", "" },
	{ "hw", "/hw/*", "/hw/*.atom", "" },
	{ "outliers", "/outliers", NULL, NULL },
	{ "disputes", "/disputes", "/disputes.atom", "" },
	{ "account", "/u/*", "/u/*.atom", "" },
	{ "index", NULL, NULL, NULL },
	{ "cheatsheet", "/cheatsheet", NULL, NULL },
	{ "search", "/search", NULL, NULL },
	{ "compare", "/compare", NULL, NULL },
};

/* Where query arguments are carried: out from start on is "?k=v&k=v". */
struct carry {
	struct req *r;
	const char *keys;          /* the names carried, space-separated; NULL: all */
	struct buf *out;
	size_t start;
};

/* 1 when the space-separated list names k. */
static int listed(const char *list, const char *k)
{
	size_t n = strlen(k), len;

	for (; *list; list += len + (list[len] == ' ')) {
		len = strcspn(list, " ");
		if (len == n && !strncmp(list, k, n))
			return 1;
	}
	return 0;
}

/* 1 when the escaped key and its "=" (esc) already start an argument of
 * c's query (escaped, a key or value holds no '?', '&' or '='). */
static int carried(const struct carry *c, const char *esc)
{
	const char *q = c->out->buf + c->start;

	for (; (q = strstr(q, esc)); q++)
		if (q[-1] == '?' || q[-1] == '&')
			return 1;
	return 0;
}

/* Carries one argument as the page read it: a key's first value
 * (http_query()'s), when not empty, once; both URL-escaped. */
static void carry_one(void *ctx, const char *k, const char *v)
{
	struct carry *c = ctx;
	const char *first = http_query(c->r, k);
	struct buf esc = BUF_INIT;

	if (!v || !*v || !first || strcmp(first, v) || (c->keys && !listed(c->keys, k)))
		return;
	html_url_arg(&esc, k);
	buf_putc(&esc, '=');
	if (!buf_error(&esc) && !buf_error(c->out) && !carried(c, esc.buf)) {
		buf_putc(c->out, c->out->len > c->start ? '&' : '?');
		buf_add(c->out, esc.buf, esc.len);
		html_url_arg(c->out, v);
	}
	buf_release(&esc);
}

/* Appends to href b's request's query as a twin or feed reads it: every
 * argument (keys NULL) or those keys names, each with its first value,
 * empty ones left out (the pages read them as absent), URL-escaped. */
static void carry_query(const struct browse *b, struct buf *href, const char *keys)
{
	struct carry c = { b->r, keys, href, href->len };

	if ((!keys || *keys) && !buf_error(href))
		http_query_each(b->r, carry_one, &c);
}

json_t *browse_twin_href(const struct browse *b, const char *path)
{
	struct buf href = BUF_INIT;
	json_t *s;

	buf_puts(&href, path);
	carry_query(b, &href, NULL);
	s = buf_error(&href) ? NULL : json_stringn(href.buf, href.len);
	buf_release(&href);
	return s;
}

/* One alternate {type, href, title}: pattern with "*" replaced by arg
 * (URL-escaped), then suffix, then the request's query (carry_query()). */
static json_t *alternate(const struct browse *b, const char *type, const char *title,
			 const char *pattern, const char *suffix, const char *keys)
{
	const char *star = strchr(pattern, '*');
	struct buf href = BUF_INIT;
	json_t *o = NULL;

	if (star) {
		buf_add(&href, pattern, (size_t)(star - pattern));
		html_url_arg(&href, b->r->arg);
		buf_puts(&href, star + 1);
	} else {
		buf_puts(&href, pattern);
	}
	buf_puts(&href, suffix);
	carry_query(b, &href, keys);
	if (!buf_error(&href))
		o = json_pack("{s:s, s:s, s:s}", "type", type, "href", href.buf, "title", title);
	buf_release(&href);
	return o;
}

/* Adds "alternates" to page name's model m: its JSON, CSV and feed. */
void browse_add_alternates(struct browse *b, const char *name, json_t *m)
{
	json_t *a = json_array();
	const char *twin;
	size_t t;

	for (t = 0; t < sizeof browse_alternates / sizeof browse_alternates[0]; t++)
		if (name && !strcmp(browse_alternates[t].page, name))
			break;
	if (!a || t == sizeof browse_alternates / sizeof browse_alternates[0]) {
		json_decref(a);
		return;
	}
	twin = browse_alternates[t].twin ? browse_alternates[t].twin : b->r->path;
	json_array_append_new(a, alternate(b, "application/json", "JSON", twin, ".json", NULL));
	json_array_append_new(a, alternate(b, "text/csv", "CSV", twin, ".csv", NULL));
	if (browse_alternates[t].feed)
		json_array_append_new(a, alternate(b, "application/atom+xml", "Atom feed",
						   browse_alternates[t].feed, "",
						   browse_alternates[t].feed_args));
	json_object_set_new(m, "alternates", a);
}
