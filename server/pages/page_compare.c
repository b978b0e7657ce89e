/* page_compare.c: /compare?r=<id>,<id>[,...] (.json, .csv twins): two to
 * four runs side by side, every workload's figures with the % difference
 * from the first run (only between runs of one suite: suites are never
 * blended), the W3 and W4 charts overlaid, and a plain warning when the
 * suites, weights files or backends differ.  Each run is one primary-key
 * read; nothing else is looked at. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/ratelimit.h"
#include "pages/browse.h"
#include "render/chart.h"
#include "store/db.h"
#include "store/run_store.h"
#include "util/buf.h"
#include "util/textcut.h"
#include "util/nelem.h"

#define MAX_RUNS 4
#define R_MAX (MAX_RUNS * (RUN_ID_LEN + 1))

static const char sql_run[] =
	"SELECT id, suite_version, model_name, model_slug, model_digest, model_quant, "
	"accelerator, hw_slug, backend_name, backend_version, "
	"CASE WHEN payload <> '' THEN payload ELSE jws_payload(jws) END FROM runs WHERE id = ?1";

/* The picker's candidates: the best unflagged run of each weights file,
 * hardware and backend of the model in the suite (combos, migration 0020). */
static const char sql_pick[] =
	"SELECT b.hw_slug, b.backend_name, b.best_decode, b.best_id, n.name FROM combos b "
	"JOIN search_names n ON n.kind = 'hw' AND n.slug = b.hw_slug "
	"WHERE b.suite_version = ?1 AND b.model_slug = ?2 AND b.t_runs > 0 LIMIT ?3";
#define PICK_MAX 200

const char *const page_compare_sql[] = { sql_run, sql_pick, NULL };

/* One run compared. */
struct crun {
	char id[RUN_ID_LEN];
	json_t *row;               /* {id, suite_version, model {...}, hardware, backend} */
	json_t *w;                 /* its payload's workloads (borrowed from payload) */
	json_t *payload;
};

struct compare {
	struct browse b;
	struct crun run[MAX_RUNS];
	size_t n;
};

/* One figure of a workload: where it is and how it reads. */
struct figure {
	const char *workload, *key, *label, *unit;
	int lower_better;
};

/* The single figures, in workload order: W1 and W2 here, W3 and W4 (their
 * points) after them, then W5 (from W5_FIRST). */
static const struct figure figures[] = {
	{ "chat-short", "decode_tok_s", "W1 decode", "tok/s", 0 },
	{ "chat-short", "prefill_tok_s", "W1 prefill", "tok/s", 0 },
	{ "chat-short", "ttft_ms", "W1 time to first token", "ms", 1 },
	{ "chat-short", "p50_ms", "W1 p50 between tokens", "ms", 1 },
	{ "chat-short", "p95_ms", "W1 p95 between tokens", "ms", 1 },
	{ "chat-long", "decode_tok_s", "W2 decode", "tok/s", 0 },
	{ "chat-long", "prefill_tok_s", "W2 prefill", "tok/s", 0 },
	{ "chat-long", "ttft_ms", "W2 time to first token", "ms", 1 },
	{ "agent-trace", "wall_ms", "W5 wall time", "ms", 1 },
	{ "agent-trace", "prefix_cache_hit_rate", "W5 prefix-cache hit rate", "", 0 },
};
#define W5_FIRST 8

/* Every r= of the query joined by commas (the chooser's checkboxes send
 * one each: ?r=<id>&r=<id>); "too long" once past R_MAX. */
struct ids_in {
	char v[R_MAX + 2];
	size_t len;
	int over;
};

static void ids_one(void *ctx, const char *key, const char *value)
{
	struct ids_in *in = ctx;
	size_t n = value ? strlen(value) : 0;

	if (strcmp(key, "r") || !n || in->over)
		return;
	if (in->len + (in->len > 0) + n > R_MAX) {
		in->over = 1;
		return;
	}
	if (in->len)
		in->v[in->len++] = ',';
	memcpy(in->v + in->len, value, n + 1);
	in->len += n;
}

/* Splits ?r= into the run ids; -1 with a 400 naming what to fix. */
static int take_ids(struct compare *c)
{
	struct ids_in in = { .len = 0 };
	const char *v = in.v, *p;
	size_t len;

	http_query_each(c->b.r, ids_one, &in);
	if (!in.len && !in.over)
		return browse_error(&c->b, 400, "Name the runs to compare as ?r=<id>,<id>, two to four run ids separated by commas.");
	if (in.over)
		return browse_error(&c->b, 400, "The r= argument holds at most %d run ids separated by commas.", MAX_RUNS);
	for (p = v; *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (c->n == MAX_RUNS)
			return browse_error(&c->b, 400, "Compare at most %d runs at once.", MAX_RUNS);
		if (!len || len >= RUN_ID_LEN)
			goto bad;
		memcpy(c->run[c->n].id, p, len);
		c->run[c->n].id[len] = '\0';
		if (!run_id_valid(c->run[c->n].id))
			goto bad;
		c->n++;
	}
	return 0;
bad:
	return browse_error(&c->b, 400, "The r= argument must be run ids (r_ and 11 letters, digits, _ or -) separated by commas.");
}

/* Column i as text, "" when NULL. */
static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/* Reads run k; -1 with a 404 naming it, or a 503. */
static int load_run(struct compare *c, size_t k)
{
	sqlite3_stmt *st = db_stmt(c->b.c, sql_run);
	struct crun *cr = &c->run[k];
	char shrt[BROWSE_DIGEST_SHORT];
	int rc;

	if (!st)
		return browse_error(&c->b, 503, MSG_DB_DOWN);
	db_bind_text(st, 1, cr->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		browse_digest_short(c->b.c, col(st, 1), col(st, 4), shrt);
		cr->row = json_pack("{s:s, s:i, s:o, s:s, s:{s:s, s:s, s:s, s:s, s:s?, s:o}, "
				    "s:{s:s, s:s, s:o}, s:{s:s, s:s}}",
			"id", cr->id, "n", (int)k + 1, "href", browse_link(&c->b, "/r/", cr->id, NULL),
			"suite_version", col(st, 1),
			"model", "name", col(st, 2), "slug", col(st, 3), "digest", col(st, 4),
			"digest_short", shrt, "quantization", sqlite3_column_text(st, 5) ? col(st, 5) : NULL,
			"href", browse_link(&c->b, "/m/", col(st, 3), "digest", col(st, 4), NULL),
			"hardware", "name", col(st, 6), "slug", col(st, 7),
			"href", browse_link(&c->b, "/hw/", col(st, 7), NULL),
			"backend", "name", col(st, 8), "version", col(st, 9));
		cr->payload = json_loadb(sqlite3_column_blob(st, 10),
					 (size_t)sqlite3_column_bytes(st, 10), 0, NULL);
		cr->w = json_object_get(cr->payload, "workloads");
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return browse_error(&c->b, 404, "There is no run %s; check the ids in r=.", cr->id);
	if (rc != SQLITE_ROW || !cr->row)
		return browse_error(&c->b, 503, MSG_DB_DOWN);
	return 0;
}

static const char *member(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	return json_string_value(b ? json_object_get(v, b) : v);
}

/* 1 when every run has the same value at a.b as the first. */
static int all_same(const struct compare *c, const char *a, const char *b)
{
	const char *first = member(c->run[0].row, a, b), *v;
	size_t k;

	for (k = 1; k < c->n; k++)
		if (!first || !(v = member(c->run[k].row, a, b)) || strcmp(first, v))
			return 0;
	return 1;
}

/* Appends ", " before a part of a label after the first. */
static void part(struct buf *b)
{
	if (b->len)
		buf_puts(b, ", ");
}

/* Which of the runs' traits differ, for their labels. */
struct differ {
	int models, digests, quants, hws, bes, vers, suites;
};

/* Run k's label from what differs, into b (empty when nothing does). */
static void base_label(const struct compare *c, size_t k, const struct differ *d, struct buf *b)
{
	const json_t *row = c->run[k].row;
	const char *s;
	size_t at, len;

	if (d->models)
		buf_puts(b, member(row, "model", "name"));   /* whole: the legend wraps */
	else if (d->digests && d->quants && member(row, "model", "quantization"))
		buf_puts(b, member(row, "model", "quantization"));
	else if (d->digests)
		buf_printf(b, "weights %s", member(row, "model", "digest_short"));
	if (d->hws) {
		s = member(row, "hardware", "name");
		at = textcut_hw(s, strlen(s), &len);
		part(b);
		buf_add(b, s + at, len);
	}
	if (d->bes || d->vers) {
		part(b);
		buf_puts(b, member(row, "backend", "name"));
		if (!d->bes)
			buf_printf(b, " %s", member(row, "backend", "version"));
	}
	if (d->suites) {
		part(b);
		buf_puts(b, member(row, "suite_version", NULL));
	}
}

/* Names each run by what tells it apart from the others, as "label" in
 * its row ("RTX 4090, llama.cpp"): the model when the models differ (else
 * its quantization, or the start of its digest, when only the weights
 * files do), the hardware's short name, the backend (with its version
 * when only the versions differ) and the suite, each when it differs;
 * "run N" when nothing does, and " (run N)" after a label two runs share.
 * The legend, the table's columns and a phone's cards say it.  -1 when
 * memory ran out. */
static int add_labels(struct compare *c)
{
	const struct differ d = { !all_same(c, "model", "name"), !all_same(c, "model", "digest"),
		!all_same(c, "model", "quantization"), !all_same(c, "hardware", "name"),
		!all_same(c, "backend", "name"), !all_same(c, "backend", "version"),
		!all_same(c, "suite_version", NULL) };
	struct buf b[MAX_RUNS] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	int rc = 0, shared[MAX_RUNS] = { 0 };
	size_t k, j;

	for (k = 0; k < c->n; k++)
		base_label(c, k, &d, &b[k]);
	for (k = 0; k < c->n; k++)
		for (j = 0; j < c->n; j++)
			shared[k] |= j != k && !strcmp(b[j].buf, b[k].buf);
	for (k = 0; k < c->n && !rc; k++) {
		if (!b[k].len || shared[k])
			buf_printf(&b[k], b[k].len ? " (run %d)" : "run %d", (int)k + 1);
		rc = buf_error(&b[k]) ? -1 : json_object_set_new(c->run[k].row, "label", json_string(b[k].buf));
	}
	for (k = 0; k < MAX_RUNS; k++)
		buf_release(&b[k]);
	return rc;
}

/* A figure cell: the value, and the % from the first run when both are
 * in one suite. */
static json_t *cell(const struct compare *c, size_t k, double v, double first)
{
	char pct[32];
	int comparable = !strcmp(member(c->run[k].row, "suite_version", NULL),
				 member(c->run[0].row, "suite_version", NULL));
	json_t *o;

	if (!isfinite(v))
		return json_pack("{s:n, s:s, s:n, s:n}", "value", "text", "–", "pct", "pct_text");
	o = json_pack("{s:f, s:o, s:n, s:n}", "value", v, "text", browse_fig(v), "pct", "pct_text");
	if (k > 0 && comparable && isfinite(first) && first != 0) {
		double d = (v - first) / first * 100.0;

		snprintf(pct, sizeof pct, "%s%.1f%%", d >= 0 ? "+" : "−", fabs(d));
		json_object_set_new(o, "pct", json_real(d));
		json_object_set_new(o, "pct_text", json_string(pct));
	}
	return o;
}

/* The number at workloads.<w>.<key> of run k, NaN when absent. */
static double value_of(const struct compare *c, size_t k, const char *w, const char *key)
{
	json_t *v = json_object_get(json_object_get(c->run[k].w, w), key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The y of the point of run k's workloads.<w>.points whose xk is x. */
static double point_of(const struct compare *c, size_t k, const char *w, const char *xk,
		       double x, const char *yk)
{
	json_t *pts = json_object_get(json_object_get(c->run[k].w, w), "points"), *p, *v;
	size_t i;

	json_array_foreach(pts, i, p)
		if (json_is_number(json_object_get(p, xk)) &&
		    json_number_value(json_object_get(p, xk)) == x) {
			v = json_object_get(p, yk);
			return json_is_number(v) ? json_number_value(v) : NAN;
		}
	return NAN;
}

/* The best of the n values v (the highest, or the lowest when
 * lower_better) into *best; 1 when it is worth marking: at least two
 * figures, and not all equal. */
static int best_of(const double *v, size_t n, int lower_better, double *best)
{
	size_t k, finite = 0;
	int differ = 0;

	*best = NAN;
	for (k = 0; k < n; k++) {
		if (!isfinite(v[k]))
			continue;
		if (finite++ && v[k] != *best)
			differ = 1;
		if (finite == 1 || (lower_better ? v[k] < *best : v[k] > *best))
			*best = v[k];
	}
	return finite >= 2 && differ;
}

/* A row of figures over the runs, or NULL when no run has it.  Each cell
 * carries its run's label (a phone's card names the run by it) and
 * "best" when it is the row's best figure, so the page marks it in words,
 * not only by colour. */
static json_t *row(const struct compare *c, const char *label, const char *unit,
		   int lower_better, const double *v)
{
	json_t *cells = json_array(), *o;
	size_t k;
	int any = 0, mark;
	double best;

	mark = best_of(v, c->n, lower_better, &best);
	for (k = 0; k < c->n; k++) {
		any |= isfinite(v[k]);
		o = cell(c, k, v[k], v[0]);
		json_object_set(o, "label", json_object_get(c->run[k].row, "label"));
		json_object_set_new(o, "best", json_boolean(mark && v[k] == best));
		json_array_append_new(cells, o);
	}
	if (!any) {
		json_decref(cells);
		return NULL;
	}
	return json_pack("{s:s, s:s, s:b, s:o}", "label", label, "unit", unit,
			 "lower_better", lower_better, "cells", cells);
}

/* The sorted distinct x of every run's workloads.<w>.points into x (at
 * most CHART_MAX_POINTS); returns how many. */
static size_t xs_of(const struct compare *c, const char *w, const char *xk, double *x)
{
	size_t k, i, j, n = 0;
	json_t *p, *v;

	for (k = 0; k < c->n; k++)
		json_array_foreach(json_object_get(json_object_get(c->run[k].w, w), "points"), i, p) {
			v = json_object_get(p, xk);
			if (!json_is_number(v) || n == CHART_MAX_POINTS)
				continue;
			for (j = 0; j < n && x[j] != json_number_value(v); j++)
				;
			if (j == n)
				x[n++] = json_number_value(v);
		}
	for (i = 1; i < n; i++)        /* insertion sort: a handful of points */
		for (j = i; j > 0 && x[j - 1] > x[j]; j--) {
			double t = x[j];
			x[j] = x[j - 1];
			x[j - 1] = t;
		}
	return n;
}

/* Rows of a points workload (one per x, at the x of any run) appended to
 * rows, and its chart with one series per run as an SVG string; NULL when
 * no run has the workload. */
static json_t *points_view(const struct compare *c, json_t *rows, const char *w,
			   const char *xk, const char *yk, const char *pre, const char *post,
			   const char *title, const char *x_label, int tokens)
{
	double x[CHART_MAX_POINTS], y[MAX_RUNS][CHART_MAX_POINTS], v[MAX_RUNS];
	struct chart_series s[MAX_RUNS];
	char label[80];
	struct chart ch = { .kind = CHART_LINE, .x_scale = CHART_LOG2, .title = title,
		.x_label = x_label, .y_label = "tokens per second",
		.x_ticks = tokens ? CHART_TICK_TOKENS : CHART_TICK_NUM };
	struct buf b = BUF_INIT;
	size_t n = xs_of(c, w, xk, x), i, k;
	json_t *r, *svg = NULL;

	if (!n)
		return NULL;
	for (i = 0; i < n; i++) {
		for (k = 0; k < c->n; k++)
			y[k][i] = v[k] = point_of(c, k, w, xk, x[i], yk);
		snprintf(label, sizeof label, "%s%g%s", pre, x[i] / (tokens ? 1024 : 1), post);
		if ((r = row(c, label, "tok/s", 0, v)))
			json_array_append_new(rows, r);
	}
	for (k = 0; k < c->n; k++) {
		s[k].name = member(c->run[k].row, "label", NULL);
		s[k].y = y[k];
	}
	ch.x = x;
	ch.n = n;
	ch.series = s;
	ch.nseries = c->n;
	if (chart_render_svg(&ch, &b) == 0)
		svg = json_stringn(b.buf, b.len);
	buf_release(&b);
	return svg;
}

/* The rows of figures[from..to) appended to rows. */
static void figure_rows(const struct compare *c, json_t *rows, size_t from, size_t to)
{
	double v[MAX_RUNS];
	size_t i, k;
	json_t *r;

	for (i = from; i < to; i++) {
		for (k = 0; k < c->n; k++)
			v[k] = value_of(c, k, figures[i].workload, figures[i].key);
		if ((r = row(c, figures[i].label, figures[i].unit, figures[i].lower_better, v)))
			json_array_append_new(rows, r);
	}
}

/* Every figure side by side, W1 to W5 in order: {rows, w3_svg, w4_svg}. */
static json_t *figures_view(const struct compare *c)
{
	json_t *rows = json_array(), *w3, *w4;

	figure_rows(c, rows, 0, W5_FIRST);
	w3 = points_view(c, rows, "long-context-decay", "context_tokens", "decode_tok_s",
			 "W3 decode at ", "K context", "Decode speed by context length",
			 "context length (tokens, log scale)", 1);
	w4 = points_view(c, rows, "concurrent-decode", "batch_size", "aggregate_tok_s",
			 "W4 aggregate decode, batch ", "", "Aggregate throughput by batch size",
			 "batch size (streams, log scale)", 0);
	figure_rows(c, rows, W5_FIRST, NELEM(figures));
	return json_pack("{s:o, s:o*, s:o*}", "rows", rows, "w3_svg", w3, "w4_svg", w4);
}

/* The warnings when the runs differ in what makes figures comparable. */
static json_t *warnings(const struct compare *c)
{
	json_t *a = json_array();

	if (!all_same(c, "suite_version", NULL))
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "what", "suites",
			"text", "These runs were measured with different suite versions, whose workloads differ: a run of another suite than the first stands beside it without a % difference.",
			"href", "/glossary#suite-v1"));
	if (!all_same(c, "model", "digest"))
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "what", "digests",
			"text", "These runs used different weights files (model digests): a different quantization or build of a model changes its speed as much as the hardware does.",
			"href", "/glossary#model-digest"));
	if (!all_same(c, "backend", "name"))
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "what", "backends",
			"text", "These runs used different backends: the difference is partly the software, not only the hardware.",
			"href", "/glossary#backends-hosts-and-cli-flags"));
	return a;
}

/* Refuses a client over its rate (shared with search); 1 when refused. */
static int over_rate(struct compare *c)
{
	char key[80];

	http_client_key(c->b.r, key, sizeof key);
	c->b.r->retry_after = ratelimit_take(c->b.r->app->search_rl, key);
	if (!c->b.r->retry_after)
		return 0;
	browse_error(&c->b, 429, "Too many comparisons from this address; wait %u seconds and try again.",
		     c->b.r->retry_after);
	c->b.err.code = "rate_limited";
	return 1;
}

/* The % from this run's figure to v, as "+61.4%" (empty when this run has
 * no figure). */
static void pct_text(char *out, size_t n, double v, double first)
{
	double d = (v - first) / first * 100.0;

	if (!isfinite(first) || first == 0 || !isfinite(d))
		out[0] = '\0';
	else
		snprintf(out, n, "%s%.1f%%", d >= 0 ? "+" : "\xe2\x88\x92", fabs(d));
}

/* With one run (the run page's "compare with..." form): the runs to pick
 * from, {this, same_model: [...], same_hw: [...]}: this run's own entry
 * (its hardware, backend and figure, the one the others' % is from), the
 * best run of the same model on each other hardware, and on the same
 * hardware the best run of each backend (this run's own backend too, when
 * a faster run of it is there: same_backend), each with its % from this
 * run and the link comparing it with this run; ?with=model or ?with=hw
 * (the form's choice) says which of the two the page shows. */
static json_t *picker(struct compare *c)
{
	const json_t *row = c->run[0].row;
	const char *hw = member(row, "hardware", "slug"), *be = member(row, "backend", "name");
	double mine = value_of(c, 0, "chat-short", "decode_tok_s");
	sqlite3_stmt *st = db_stmt(c->b.c, sql_pick);
	json_t *other_hw = json_array(), *other_be = json_array(), *o, *me;
	char pair[2 * RUN_ID_LEN + 2], pct[32];
	const char *with;
	int rc;

	if (!st) {
		json_decref(other_hw);
		json_decref(other_be);
		return NULL;
	}
	db_bind_text(st, 1, member(row, "suite_version", NULL));
	db_bind_text(st, 2, member(row, "model", "slug"));
	sqlite3_bind_int(st, 3, PICK_MAX);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *h = col(st, 0), *b = col(st, 1), *id = col(st, 3);
		int same_hw = !strcmp(h, hw);
		double v = sqlite3_column_double(st, 2);

		if (!strcmp(id, c->run[0].id))
			continue;
		snprintf(pair, sizeof pair, "%s,%s", c->run[0].id, id);
		pct_text(pct, sizeof pct, v, mine);
		o = json_pack("{s:s, s:s, s:s, s:f, s:o, s:s, s:b, s:o}", "id", id, "hardware", col(st, 4),
			"backend", b, "decode_tok_s", v, "decode_text", browse_fig(v), "pct_text", pct,
			"same_backend", same_hw && !strcmp(b, be),
			"href", browse_link(&c->b, c->b.html ? "/compare" : "/compare.json", NULL,
					    "r", pair, NULL));
		json_array_append_new(same_hw ? other_be : other_hw, o);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		json_decref(other_hw);
		json_decref(other_be);
		return NULL;
	}
	me = json_pack("{s:s, s:s, s:s, s:o}", "hardware", member(row, "hardware", "name"),
		       "backend", be, "version", member(row, "backend", "version"),
		       "decode_text", isfinite(mine) ? browse_fig(mine) : json_string("\xe2\x80\x93"));
	with = http_query(c->b.r, "with");
	return json_pack("{s:o, s:b, s:b, s:b, s:b, s:o, s:o}", "this", me,
			 "show_model", !with || strcmp(with, "hw"), "show_hw", !with || strcmp(with, "model"),
			 "has_same_model", json_array_size(other_hw) > 0,
			 "has_same_hw", json_array_size(other_be) > 0,
			 "same_model", other_hw, "same_hw", other_be);
}

/* Marks "best" on the run (or the runs, when tied) with the highest W1
 * decode, the site's headline figure, when the runs differ in it: the
 * one word the runs table carries (each figure row's best cell is only
 * set in bold). */
static void mark_best_runs(struct compare *c)
{
	double v[MAX_RUNS], best;
	size_t k;
	int mark;

	for (k = 0; k < c->n; k++)
		v[k] = value_of(c, k, "chat-short", "decode_tok_s");
	mark = best_of(v, c->n, 0, &best);
	for (k = 0; k < c->n; k++)
		json_object_set_new(c->run[k].row, "best", json_boolean(mark && v[k] == best));
}

/* The view model of /compare, or NULL with c->b's failure set. */
static json_t *compare_model(struct compare *c, struct req *r)
{
	json_t *m, *runs;
	size_t k;

	if (browse_begin(&c->b, r) < 0 || over_rate(c))
		return NULL;
	if (!http_query(r, "r") && !c->b.csv)
		return page_compare_choose(&c->b);
	if (take_ids(c) < 0)
		return NULL;
	for (k = 0; k < c->n; k++)
		if (load_run(c, k) < 0)
			return NULL;
	if (add_labels(c) < 0) {
		browse_error(&c->b, 503, MSG_NOMEM);
		return NULL;
	}
	runs = json_array();
	for (k = 0; k < c->n; k++)
		json_array_append(runs, c->run[k].row);
	if (c->n == 1 && !c->b.csv) {
		json_t *pick = picker(c);

		if (!pick) {
			json_decref(runs);
			browse_error(&c->b, 503, MSG_DB_DOWN);
			return NULL;
		}
		return json_pack("{s:s, s:o, s:o, s:o, s:b, s:b}", "title", "Compare with…", "runs", runs,
				 "pick", pick, "warnings", json_array(), "has_warnings", 0, "single", 1);
	}
	mark_best_runs(c);
	m = json_pack("{s:s, s:o, s:o, s:o, s:b}", "title", "Compare runs", "runs", runs,
		      "warnings", warnings(c), "figures", figures_view(c), "single", 0);
	if (m)
		json_object_set_new(m, "has_warnings",
			json_boolean(json_array_size(json_object_get(m, "warnings")) > 0));
	return m;
}

/* GET /compare, /compare.json and /compare.csv: two to four runs side by
 * side, or with one, the runs to compare it with (the CSV: its figures,
 * one record per figure and run); NULL with a 400 for a malformed r=, a
 * 404 naming an unknown run, a 429 over the rate. */
json_t *page_compare_view(struct page_view *v)
{
	struct compare c = { 0 };
	json_t *m = compare_model(&c, v->r);
	size_t k;

	for (k = 0; k < MAX_RUNS; k++) {
		json_decref(c.run[k].row);
		json_decref(c.run[k].payload);
	}
	return page_view_browsed(v, &c.b, m);
}
