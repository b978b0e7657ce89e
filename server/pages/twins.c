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
	{ "decode_tok_s", "decode_tok_s" }, { "prefill_tok_s", "prefill_tok_s" },
	{ "ttft_ms", "ttft_ms" }, { "received_at", "received_at" },
	{ "cluster_n", "cluster_n" }, { "cluster_mean", "cluster_mean" },
	{ "cluster_stddev", "cluster_stddev" }, { "sigma", "sigma" },
	{ "dispute_state", "dispute_state" }, { "dispute_posts", "dispute_posts" }, { "demo", "demo" },
};
/* /models and /hardware: one row per model or hardware; "url" is the
 * address of its best run. */
static const struct csv_col index_cols[] = {
	{ "slug", "slug" }, { "name", "name" }, { "runs", "runs" },
	{ "best_decode_tok_s", "best_decode_tok_s" }, { "best_id", "best_id" }, { "url", "url" },
};
static const struct csv_col dispute_cols[] = {
	{ "id", "id" }, { "url", "url" }, { "opened_at", "opened_at" },
	{ "last_post_at", "last_post_at" }, { "posts", "posts" }, { "model", "model_name" },
	{ "model_slug", "model_slug" }, { "hardware", "accelerator" }, { "hw_slug", "hw_slug" },
	{ "backend", "backend_name" }, { "decode_tok_s", "decode_tok_s" },
	{ "outlier", "outlier" }, { "demo", "demo" },
};

#define COLS(c) c, sizeof c / sizeof c[0]
/* Each table page's CSV twin: where its rows are in the view model (the
 * first path that holds an array; "*" flattens an array of objects' own
 * lists, as /hw/<slug>'s model sections), the row member naming the run
 * its "url" column links to, and their columns. */
static const struct {
	const char *page, *rows, *alt, *run_id;
	const struct csv_col *cols;
	size_t ncols;
} browse_csv_tables[] = {
	{ "home", "board.runs", NULL, "id", COLS(run_cols) },
	{ "model", "list.runs", NULL, "id", COLS(run_cols) },
	{ "hw", "list.runs", "models*list.runs", "id", COLS(run_cols) },
	{ "outliers", "rows", NULL, "id", COLS(outlier_cols) },
	{ "disputes", "rows", NULL, "id", COLS(dispute_cols) },
	{ "account", "list.runs", NULL, "id", COLS(run_cols) },
	{ "index", "rows", NULL, "best_id", COLS(index_cols) },
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
 * gains "url", the run's absolute address. */
enum MHD_Result browse_send_csv(struct browse *b, const char *name, json_t *m)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	struct buf out = BUF_INIT, url = BUF_INIT;
	char origin[300];
	json_t *rows = NULL, *row;
	enum MHD_Result ret;
	size_t i, t;

	for (t = 0; t < sizeof browse_csv_tables / sizeof browse_csv_tables[0]; t++)
		if (name && !strcmp(browse_csv_tables[t].page, name))
			break;
	if (t == sizeof browse_csv_tables / sizeof browse_csv_tables[0])
		return http_fail(b->r, 404, "not_found", "This page has no CSV form.", NULL);
	if (!(rows = csv_rows(m, browse_csv_tables[t].rows)) && browse_csv_tables[t].alt)
		rows = csv_rows(m, browse_csv_tables[t].alt);
	if (!rows)
		rows = json_array();
	http_origin(b->r, origin, sizeof origin);
	json_array_foreach(rows, i, row) {
		const char *id = json_string_value(json_object_get(row, browse_csv_tables[t].run_id));

		if (!id || !*id)
			continue;
		buf_reset(&url);
		buf_printf(&url, "%s/r/%s", origin, id);
		if (!buf_error(&url))
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
 * feed, if it has one. */
static const struct {
	const char *page, *twin, *feed;
} browse_alternates[] = {
	{ "home", "/index", "/feed.atom" },
	{ "model", "/m/*", "/m/*.atom" },
	{ "hw", "/hw/*", "/hw/*.atom" },
	{ "outliers", "/outliers", NULL },
	{ "disputes", "/disputes", "/disputes.atom" },
	{ "account", "/u/*", "/u/*.atom" },
	{ "index", NULL, NULL },
};

/* The query arguments that choose what a table page lists, which its
 * JSON and CSV twins take alike: a twin is this very page's rows. */
static const char *const twin_args[] = { "suite", "hw", "backend", "model", "digest", "sort",
	"after", "cursor" };

/* Appends r's arguments of twin_args that are given (non-empty) to href
 * as a query, each URL-escaped. */
static void twin_query(struct buf *href, struct req *r)
{
	const char *v;
	size_t i;
	int first = 1;

	for (i = 0; i < sizeof twin_args / sizeof twin_args[0]; i++) {
		if (!(v = http_query(r, twin_args[i])) || !*v)
			continue;
		buf_putc(href, first ? '?' : '&');
		buf_puts(href, twin_args[i]);
		buf_putc(href, '=');
		html_url_arg(href, v);
		first = 0;
	}
}

/* One alternate {type, href, title}: pattern with "*" replaced by arg
 * (URL-escaped), then suffix, then (q not NULL) q's list arguments. */
static json_t *alternate(const char *type, const char *title, const char *pattern,
			 const char *arg, const char *suffix, struct req *q)
{
	const char *star = strchr(pattern, '*');
	struct buf href = BUF_INIT;
	json_t *o = NULL;

	if (star) {
		buf_add(&href, pattern, (size_t)(star - pattern));
		html_url_arg(&href, arg);
		buf_puts(&href, star + 1);
	} else {
		buf_puts(&href, pattern);
	}
	buf_puts(&href, suffix);
	if (q)
		twin_query(&href, q);
	if (!buf_error(&href))
		o = json_pack("{s:s, s:s, s:s}", "type", type, "href", href.buf, "title", title);
	buf_release(&href);
	return o;
}

/* Adds "alternates" to page name's model m: its JSON and CSV twins, with
 * the request's list arguments (the same rows, in the same order), and
 * its feed. */
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
	json_array_append_new(a, alternate("application/json", "JSON", twin, b->r->arg, ".json", b->r));
	json_array_append_new(a, alternate("text/csv", "CSV", twin, b->r->arg, ".csv", b->r));
	if (browse_alternates[t].feed)
		json_array_append_new(a, alternate("application/atom+xml", "Atom feed",
						   browse_alternates[t].feed, b->r->arg, "", NULL));
	json_object_set_new(m, "alternates", a);
}
