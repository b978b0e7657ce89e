/* page_run.c: the run permalink /r/<id>, its JSON and its exact JWS; the
 * model they share is made in page_run_model.c, the page's view here. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "render/badge_svg.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "util/textcut.h"
#include "http/cache.h"
#include "domain/ceiling.h"
#include "store/outlier.h"
#include "render/chart.h"
#include "store/db.h"
#include "disputes/dispute.h"
#include "render/html.h"
#include "store/run_store.h"
#include "util/jsonw.h"
#include "util/nelem.h"
#include "store/jws_pack.h"

static const char sql_jws[] = "SELECT jws FROM runs WHERE id = ?";

/* Shorthand: the string member k of row o, or NULL. */
static const char *s_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Refuses an unknown run id: 404. */
static int not_found(struct answer *a)
{
	return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
}

/* The cache tags of the populations the page m shows: its fingerprint
 * cluster (its size and new keys) and its combination (the figures that
 * judge it when the cluster does not). */
static struct cache_tags tags_of(const json_t *m)
{
	const json_t *o = json_object_get(m, "outlier");
	const char *suite = s_of(m, "suite_version");
	const char *digest = s_of(json_object_get(m, "model"), "digest");
	const char *backend = s_of(json_object_get(m, "backend"), "name");

	return (struct cache_tags){ {
		outlier_cluster_tag(suite, digest, s_of(o, "hw_class"), backend),
		run_store_combo_tag(suite, digest, s_of(json_object_get(m, "hardware"), "slug"), backend),
	} };
}

int page_run_jws(struct req *r, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_IMMUTABLE, .etag = 1 };
	struct buf b = BUF_INIT;
	struct dbconn *c;
	sqlite3_stmt *st;
	int rc;

	if (!run_id_valid(r->arg))
		return not_found(a);
	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_jws)))
		return err_unavailable(&a->err, MSG_DB_DOWN);
	db_bind_text(st, 1, r->arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && jws_pack_unpack(sqlite3_column_blob(st, 0),
					   (size_t)sqlite3_column_bytes(st, 0), &b) == 0)
		rc = answer_buf(a, 200, CT_JOSE, &b, &o);  /* the exact bytes uploaded */
	else if (rc == SQLITE_DONE)
		rc = not_found(a);
	else
		rc = err_unavailable(&a->err, MSG_DB_DOWN);
	sqlite3_reset(st);
	buf_release(&b);
	return rc;
}

/* ---- the HTML view ------------------------------------------------------
 * Presentation only: formatted figures, charts and embed snippets made
 * from the members of the model itself, under "view", "title" and
 * "title_parts".  The
 * JSON route never sees them, and they never carry other data. */

#define EN_DASH "\xe2\x80\x93"

/* How a figure reads: a measurement, a count, or a 0..1 rate as percent. */
enum fmt { F_NUM, F_INT, F_PCT };

/* Number v formatted as kind, as a new JSON string. */
static json_t *fmt_value(double v, enum fmt kind)
{
	struct buf b = BUF_INIT;
	json_t *s;

	if (kind == F_INT)
		numfmt_int(&b, v);
	else
		numfmt_fig(&b, kind == F_PCT ? v * 100 : v);
	if (kind == F_PCT)
		buf_putc(&b, '%');
	s = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return s;
}

/* Member k of o formatted as kind; an en dash when it is not a number. */
static json_t *fmt_member(const json_t *o, const char *k, enum fmt kind)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? fmt_value(json_number_value(v), kind)
				 : json_string(EN_DASH);
}

/* A table column: the payload member and how it reads. */
struct col {
	const char *key;
	enum fmt kind;
};

/* Each object of arr as an object of its cols members, formatted. */
static json_t *fmt_rows(const json_t *arr, const struct col *cols, size_t ncols)
{
	json_t *rows = json_array(), *o, *row;
	size_t i, j;

	json_array_foreach(arr, i, o) {
		row = json_object();
		for (j = 0; j < ncols; j++)
			json_object_set_new(row, cols[j].key, fmt_member(o, cols[j].key, cols[j].kind));
		json_array_append_new(rows, row);
	}
	return rows;
}

/* Member k of each object of arr into v (NaN when absent), at most
 * CHART_MAX_POINTS; returns how many. */
static size_t column(const json_t *arr, const char *k, double *v)
{
	size_t i, n = json_array_size(arr);
	json_t *x;

	if (n > CHART_MAX_POINTS)
		n = CHART_MAX_POINTS;
	for (i = 0; i < n; i++) {
		x = json_object_get(json_array_get(arr, i), k);
		v[i] = json_is_number(x) ? json_number_value(x) : NAN;
	}
	return n;
}

/* Draws chart c with x from member xk and series i from member yk[i] of
 * the objects of arr; returns the SVG as a JSON string, or NULL. */
static json_t *chart_json(const json_t *arr, struct chart c, const char *xk,
			  const char *const yk[], const char *const names[])
{
	double x[CHART_MAX_POINTS], y[CHART_MAX_SERIES][CHART_MAX_POINTS];
	struct chart_series s[CHART_MAX_SERIES];
	struct buf b = BUF_INIT;
	json_t *out = NULL;
	size_t i;

	c.n = column(arr, xk, x);
	c.x = x;
	for (i = 0; i < c.nseries; i++) {
		column(arr, yk[i], y[i]);
		s[i].name = names[i];
		s[i].y = y[i];
	}
	c.series = s;
	if (chart_render_svg(&c, &b) == 0)
		out = json_stringn(b.buf, b.len);
	buf_release(&b);
	return out;
}

/* One measure of the W1/W2 table: the payload member, how the row is
 * labelled, its unit, its glossary anchor and how it reads. */
struct measure {
	const char *key, *label, *unit, *term;
	enum fmt kind;
};

static const struct measure chat_measures[] = {
	{ "ttft_ms", "Time to first token", "ms", "ttft", F_NUM },
	{ "prefill_tok_s", "Prefill", "tok/s", "prefill-tok-s", F_NUM },
	{ "decode_tok_s", "Decode", "tok/s", "decode-tok-s", F_NUM },
	{ "p50_ms", "p50 between tokens", "ms", "p50", F_NUM },
	{ "p95_ms", "p95 between tokens", "ms", "p95", F_NUM },
	{ "wall_ms", "Wall time", "ms", "wall-ms", F_NUM },
	{ "prompt_tokens", "Prompt", "tokens", "prefill", F_INT },
	{ "output_tokens", "Output", "tokens", "decode", F_INT },
	{ "prefix_cache_hit_rate", "Prefix-cache hit rate", "", "prefix-cache", F_PCT },
};

/* The row of measure me over the n workloads wl, or NULL when none of
 * them has it. */
static json_t *chat_row(const struct measure *me, json_t *const *wl, size_t n)
{
	json_t *cells = json_array();
	size_t k;
	int any = 0;

	for (k = 0; k < n; k++) {
		any |= json_is_number(json_object_get(wl[k], me->key));
		json_array_append_new(cells, fmt_member(wl[k], me->key, me->kind));
	}
	if (!any) {
		json_decref(cells);
		return NULL;
	}
	return json_pack("{s:s, s:s, s:s, s:o}", "label", me->label, "unit", me->unit,
			 "term", me->term, "cells", cells);
}

/* The W1/W2 table, one row per measure and one column per workload, for
 * reading the two side by side; null when neither workload is there. */
static json_t *chat_view(const json_t *w)
{
	static const char *const keys[][2] = { { "chat-short", "W1" }, { "chat-long", "W2" } };
	const char *heading;
	json_t *cols, *rows, *wl[2];
	size_t i, n = 0;

	cols = json_array();
	for (i = 0; i < 2; i++) {
		wl[n] = json_object_get(w, keys[i][0]);
		if (!json_is_object(wl[n]))
			continue;
		json_array_append_new(cols, json_pack("{s:s, s:s}", "name", keys[i][0],
						      "code", keys[i][1]));
		n++;
	}
	if (!n) {
		json_decref(cols);
		return json_null();
	}
	rows = json_array();
	for (i = 0; i < NELEM(chat_measures); i++) {
		json_t *row = chat_row(&chat_measures[i], wl, n);
		if (row)
			json_array_append_new(rows, row);
	}
	heading = n == 2 ? "W1 and W2" : json_string_value(json_object_get(json_array_get(cols, 0), "code"));
	return json_pack("{s:o, s:o, s:s, s:b}", "cols", cols, "rows", rows,
			 "heading", heading ? heading : "", "both", n == 2);
}

/* Draws one panel of chart c per series (yk[i], names[i], titles[i]),
 * each on its own y axis so that neither flattens the other, as a JSON
 * array of SVG strings, or NULL. */
static json_t *panels_json(const json_t *arr, struct chart c, const char *xk,
			   const char *const yk[], const char *const names[],
			   const char *const titles[], size_t n)
{
	static const char *const unnamed[] = { NULL };   /* the title names it: no legend */
	json_t *a = json_array();
	size_t i;

	c.nseries = 1;
	for (i = 0; a && i < n; i++) {
		json_t *svg;

		c.title = titles[i];
		c.y_label = names[i];
		if (!(svg = chart_json(arr, c, xk, yk + i, unnamed)) ||
		    json_array_append_new(a, json_pack("{s:o}", "svg", svg)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* W3: decode and prefill tok/s against context length, one panel each,
 * and the table. */
static json_t *decay_view(const json_t *w)
{
	static const struct col cols[] = {
		{ "context_tokens", F_INT }, { "output_tokens", F_INT }, { "ttft_ms", F_NUM },
		{ "prefill_tok_s", F_NUM }, { "decode_tok_s", F_NUM },
	};
	static const char *const yk[] = { "decode_tok_s", "prefill_tok_s" };
	static const char *const names[] = { "decode tok/s", "prefill tok/s" };
	static const char *const titles[] = { "Decode speed by context length",
					      "Prefill speed by context length" };
	struct chart c = { .kind = CHART_LINE, .x_scale = CHART_LOG2,
		.x_ticks = CHART_TICK_TOKENS, .x_label = "context length (tokens, log scale)" };
	json_t *pts = json_object_get(w, "points");

	if (!json_is_array(pts))
		return json_null();
	return json_pack("{s:o*, s:o}", "panels", panels_json(pts, c, "context_tokens", yk, names, titles, 2),
			 "rows", fmt_rows(pts, cols, NELEM(cols)));
}

/* W4: aggregate and per-stream tok/s against batch size, one panel each,
 * the table, and whether the streams ran one after another. */
static json_t *concurrency_view(const json_t *w)
{
	static const struct col cols[] = {
		{ "batch_size", F_INT }, { "aggregate_tok_s", F_NUM }, { "per_stream_tok_s", F_NUM },
		{ "p50_ms", F_NUM }, { "p95_ms", F_NUM },
	};
	static const char *const yk[] = { "aggregate_tok_s", "per_stream_tok_s" };
	static const char *const names[] = { "aggregate tok/s", "per-stream tok/s" };
	static const char *const titles[][2] = {
		{ "Aggregate throughput by batch size", "Per-stream speed by batch size" },
		{ "Aggregate throughput by batch size, streams run serially",
		  "Per-stream speed by batch size, streams run serially" } };
	struct chart c = { .kind = CHART_LINE, .x_scale = CHART_LOG2,
		.x_label = "batch size (streams, log scale)" };
	json_t *pts = json_object_get(w, "points");
	int serial = json_is_true(json_object_get(w, "serial"));

	if (!json_is_array(pts))
		return json_null();
	return json_pack("{s:o*, s:o, s:b}", "panels",
			 panels_json(pts, c, "batch_size", yk, names, titles[serial], 2),
			 "rows", fmt_rows(pts, cols, NELEM(cols)),
			 "serial", serial);
}

/* W5: per-turn TTFT (chart and table) and decode, the wall time and the
 * prefix-cache hit rate. */
static json_t *agent_view(const json_t *w)
{
	static const struct col cols[] = {
		{ "turn", F_INT }, { "context_tokens", F_INT }, { "ttft_ms", F_NUM },
		{ "decode_tok_s", F_NUM },
	};
	static const char *const yk[] = { "ttft_ms" };
	static const char *const names[] = { "time to first token, ms" };
	struct chart c = { .kind = CHART_BAR, .nseries = 1, .title = "Time to first token per turn",
		.x_label = "turn", .y_label = "milliseconds" };
	json_t *turns = json_object_get(w, "turns"), *v;

	if (!json_is_array(turns))
		return json_null();
	v = json_pack("{s:o*, s:o, s:o}", "svg", chart_json(turns, c, "turn", yk, names),
		      "rows", fmt_rows(turns, cols, NELEM(cols)),
		      "wall_ms", fmt_member(w, "wall_ms", F_NUM));
	if (json_is_number(json_object_get(w, "prefix_cache_hit_rate")))
		json_object_set_new(v, "cache_hit", fmt_member(w, "prefix_cache_hit_rate", F_PCT));
	return v;
}

/* The link to the other runs of this run's cluster: the model page
 * narrowed to its digest, hardware and backend. */
static json_t *cluster_url(const json_t *m)
{
	const json_t *model = json_object_get(m, "model");
	struct buf b = BUF_INIT;
	json_t *s;

	buf_puts(&b, "/m/");
	html_url_arg(&b, s_of(model, "slug"));
	buf_puts(&b, "?digest=");
	html_url_arg(&b, s_of(model, "digest"));
	buf_puts(&b, "&hw=");
	html_url_arg(&b, s_of(json_object_get(m, "hardware"), "slug"));
	buf_puts(&b, "&backend=");
	html_url_arg(&b, s_of(json_object_get(m, "backend"), "name"));
	s = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return s;
}

/* Who stands behind a population, in words: "a cluster of 15 runs from 15
 * submitters, 14 of them new" (new < 0: not told). */
static json_t *keys_text(const char *what, long long n, long long k, long long j)
{
	char s[200];

	snprintf(s, sizeof s, "%s of %lld run%s from %lld submitter%s", what, n, n == 1 ? "" : "s",
		 k, k == 1 ? "" : "s");
	if (j >= 0)
		snprintf(s + strlen(s), sizeof s - strlen(s), ", %lld of them new", j);
	return json_string(s);
}

/* The judging population's figures in words: size, mean, standard
 * deviation, and how far this run is from the mean, whether it could be
 * checked at all; null when the run is counted nowhere. */
static json_t *outlier_view(const json_t *m)
{
	const json_t *o = json_object_get(m, "outlier"), *cl = json_object_get(o, "cluster");
	const json_t *wide = json_object_get(o, "combination");
	int by_cluster = s_of(o, "decided_by") && !strcmp(s_of(o, "decided_by"), "cluster");
	const json_t *judge = by_cluster ? cl : wide;
	double n = json_number_value(json_object_get(judge, by_cluster ? "n" : "runs"));
	double sd = json_number_value(json_object_get(judge, "stddev"));
	double sigma = json_number_value(json_object_get(o, "sigma"));
	long long keys = json_integer_value(json_object_get(o, "judging_keys"));
	char needs[120];

	/* A run above its ceiling is in no population: the flag alone. */
	if (!json_is_object(cl) || !json_is_object(judge))
		return s_of(o, "reason") && !strcmp(s_of(o, "reason"), "above_ceiling")
			? json_pack("{s:b, s:b, s:o}", "ceiling", 1, "by_ceiling", 1, "factor",
				    fmt_value(CEILING_FLAG_FACTOR, F_NUM)) : json_null();
	/* What a check still needs, only for a run a check would judge. */
	snprintf(needs, sizeof needs, "needs %d submitters to flag; %lld so far", OUTLIER_MIN_KEYS, keys);
	return json_pack("{s:o, s:o*, s:b, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:s?, s:b, s:o*}",
		"keys_text", keys_text("a cluster", json_integer_value(json_object_get(cl, "n")),
				       json_integer_value(json_object_get(cl, "keys")),
				       json_integer_value(json_object_get(cl, "new_keys"))),
		"wide_text", json_is_object(wide) ? keys_text("the combination",
			json_integer_value(json_object_get(wide, "runs")),
			json_integer_value(json_object_get(wide, "keys")), -1) : NULL,
		"by_cluster", by_cluster,
		"n", fmt_value(n, F_INT),
		"mean", fmt_member(judge, "mean", F_NUM),
		"stddev", fmt_member(judge, "stddev", F_NUM),
		"sigma", fmt_value(fabs(sigma), F_NUM),
		"side", sigma > 0 ? "above" : sigma < 0 ? "below" : "at",
		"alone", json_integer_value(json_object_get(judge, "keys")) <= 1, "spread", n > 1 && sd > 0,
		"needs", keys < OUTLIER_MIN_KEYS && !json_is_false(json_object_get(m, "counted")) ? needs : NULL,
		"ceiling", s_of(o, "reason") && !strcmp(s_of(o, "reason"), "above_ceiling"),
		"url", cluster_url(m));
}

/* The outlier check's verdict for the Status line, one finished clause:
 * for a flagged run its reason alone (the page prints the flag's short
 * tag before it, so the tag never breaks and never outgrows a phone);
 * a run that counts in no figure (upheld, withdrawn, capped) is not
 * judged, whatever its population; else whether it was checked, and
 * what a check still needs. */
static json_t *status_text(const json_t *m)
{
	const json_t *o = json_object_get(m, "outlier");
	long long keys = json_integer_value(json_object_get(o, "judging_keys"));
	char s[160];

	if (json_is_true(json_object_get(o, "flagged")))
		snprintf(s, sizeof s, "%s",
			 s_of(o, "reason") && !strcmp(s_of(o, "reason"), "above_ceiling")
			 ? "above the bandwidth ceiling" : "more than 3 standard deviations from the mean");
	else if (json_is_false(json_object_get(m, "counted")))
		snprintf(s, sizeof s, "not judged: this run counts in no figure, so no figure judges it");
	else if (json_is_true(json_object_get(o, "checked")))
		snprintf(s, sizeof s, "not flagged: within 3 standard deviations of the mean");
	else if (keys < OUTLIER_MIN_KEYS)
		snprintf(s, sizeof s, "not yet checked against other runs: needs %d submitters to flag; %lld so far",
			 OUTLIER_MIN_KEYS, keys);
	else
		snprintf(s, sizeof s, "not yet checked against other runs");
	return json_string(s);
}

/* The flag in one clause for the line under the figure: why the run
 * stands out ("its decode is 4.2 standard deviations above the mean of
 * its cluster's 15 submitters", "above the bandwidth ceiling, its decode
 * more than 1.5 times what ..."); null when it is not flagged. */
static json_t *flag_text(const json_t *m)
{
	const json_t *o = json_object_get(m, "outlier");
	double sigma = json_number_value(json_object_get(o, "sigma"));
	long long keys = json_integer_value(json_object_get(o, "judging_keys"));
	struct buf b = BUF_INIT;
	json_t *t;

	if (!json_is_true(json_object_get(o, "flagged")))
		return json_null();
	if (s_of(o, "reason") && !strcmp(s_of(o, "reason"), "above_ceiling")) {
		buf_puts(&b, "above the bandwidth ceiling, its decode more than ");
		numfmt_fig(&b, CEILING_FLAG_FACTOR);
		buf_puts(&b, " times what this hardware's memory bandwidth allows for these weights");
	} else if (json_is_number(json_object_get(o, "sigma")) && sigma != 0) {
		buf_puts(&b, "its decode is ");
		numfmt_fig(&b, fabs(sigma));
		buf_printf(&b, " standard deviations %s the mean of its %s's ", sigma > 0 ? "above" : "below",
			   s_of(o, "decided_by") && !strcmp(s_of(o, "decided_by"), "cluster")
			   ? "cluster" : "combination");
		numfmt_count(&b, keys, "submitter", "submitters");
	} else {
		buf_puts(&b, "its decode is more than 3 standard deviations from the mean of the submitters around it");
	}
	t = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return t ? t : json_null();
}

/* The badge's embed snippets: the contract's Markdown, and HTML whose alt
 * text is the badge's own message (attribute-escaped inside the snippet;
 * the template escapes the snippet again to show it as text). */
static json_t *embed_view(const json_t *m)
{
	const char *url = s_of(m, "url"), *badge = s_of(m, "badge_url");
	const json_t *o = json_object_get(m, "outlier");
	struct badge_in in = { BADGE_OK, json_number_value(json_object_get(m, "decode_tok_s")),
		s_of(json_object_get(m, "model"), "name"),
		s_of(json_object_get(m, "hardware"), "accelerator_summary"),
		json_is_true(json_object_get(m, "demo")) };
	struct buf msg = BUF_INIT, md = BUF_INIT, html = BUF_INIT;
	json_t *v = NULL;

	in.state = badge_state_of(&(struct badge_facts){
		.withdrawn = s_of(m, "status") && !strcmp(s_of(m, "status"), "withdrawn"),
		.capped = s_of(m, "status") && !strcmp(s_of(m, "status"), "capped"),
		.upheld = s_of(m, "status") && !strcmp(s_of(m, "status"), "upheld"),
		/* A thread is open once someone posts (post.c marks the run). */
		.disputed = s_of(json_object_get(m, "dispute"), "state") &&
			    !strcmp(s_of(json_object_get(m, "dispute"), "state"), "open") &&
			    json_integer_value(json_object_get(json_object_get(m, "dispute"), "count")) > 0,
		.flagged = json_is_true(json_object_get(o, "flagged")),
		.confirmed = json_is_true(json_object_get(json_object_get(m, "place"), "confirmed")) });
	buf_printf(&md, "[![llm-speed](%s)](%s)", badge, url);
	buf_puts(&html, "<a href=\"");
	html_attr(&html, url);
	buf_puts(&html, "\"><img src=\"");
	html_attr(&html, badge);
	buf_puts(&html, "\" alt=\"");
	html_attr(&html, badge_label(&in));
	buf_puts(&html, ": ");
	if (badge_message(&in, &msg) == 0)
		html_attr(&html, msg.buf);
	buf_puts(&html, "\"></a>");
	if (!buf_error(&md) && !buf_error(&html) && !buf_error(&msg))
		v = json_pack("{s:s, s:s, s:s}", "markdown", md.buf, "html", html.buf,
			      "alt", msg.buf);
	buf_release(&msg);
	buf_release(&md);
	buf_release(&html);
	return v;
}

/* The dispute thread in a line, for the top of the page: {"posts_text"
 * ("3 posts"; null for none), "state", "tone" (the box's class: flag while
 * open, upheld, note when dismissed), "open", "resolved_at"}, or null when
 * nobody posted and no moderator ruled. */
static json_t *dispute_view(const json_t *m)
{
	const json_t *d = json_object_get(m, "dispute");
	json_int_t n = json_integer_value(json_object_get(d, "count"));
	const char *state = s_of(d, "state");
	json_t *at = json_object_get(d, "resolved_at"), *v;
	struct buf b = BUF_INIT;

	if (!state || (n <= 0 && !strcmp(state, "open")))
		return json_null();
	if (n > 0)
		numfmt_count(&b, n, "post", "posts");
	v = json_pack("{s:o, s:s, s:s, s:b, s:O}", "posts_text",
		      n > 0 && !buf_error(&b) ? json_stringn(b.buf, b.len) : json_null(),
		      "state", state, "tone", !strcmp(state, "open") ? "flag" :
		      !strcmp(state, "upheld") ? "upheld" : "note", "open", !strcmp(state, "open"),
		      "resolved_at", at ? at : json_null());
	buf_release(&b);
	return v;
}

/* Appends s cut by textcut to at most max, and returns how wide the cut
 * text is as escaped in the page. */
static size_t cut_into(struct buf *b, const char *s, size_t max)
{
	size_t from = b->len;

	textcut(b, s, max);
	return buf_error(b) ? 0 : textcut_width(b->buf + from);
}

/* The page title "<model> on <hardware>" as its parts, each its own
 * string ([{"text", "sep"}], the header joins them), so the template
 * escapes and isolates each user field on its own, as the body does: an
 * override in the model name ends before " on ".  Together they are cut to
 * the site's title width: the hardware keeps at least half of it, the
 * model the rest.  "title" gets the same text joined, for what reads it
 * as one string. */
static int title_of(json_t *m)
{
	const size_t room = TEXTCUT_TITLE_MAX - 4;   /* " on " */
	const char *model = s_of(json_object_get(m, "model"), "name");
	const char *hw = s_of(json_object_get(m, "hardware"), "accelerator_summary");
	struct buf bm = BUF_INIT, bh = BUF_INIT, whole = BUF_INIT;
	size_t mw, hw_w;
	int rc = -1;

	model = model ? model : "?";
	hw = hw ? hw : "?";
	mw = textcut_width(model);
	hw_w = cut_into(&bh, hw, mw < room / 2 ? room - mw : room - room / 2);
	cut_into(&bm, model, room - hw_w);
	buf_printf(&whole, "%s on %s", bm.buf, bh.buf);
	if (!buf_error(&bm) && !buf_error(&bh) && !buf_error(&whole) &&
	    !json_object_set_new(m, "title", json_stringn(whole.buf, whole.len)) &&
	    !json_object_set_new(m, "title_parts", json_pack("[{s:s%, s:s}, {s:s%, s:s}]",
			"text", bm.buf, bm.len, "sep", " on ", "text", bh.buf, bh.len, "sep", "")))
		rc = 0;
	buf_release(&bm);
	buf_release(&bh);
	buf_release(&whole);
	return rc;
}

/* A glossary anchor for s: lowercase, every other byte outside [a-z0-9]
 * as "-" ("llama.cpp" -> "llama-cpp", "EdDSA" -> "eddsa"). */
static json_t *term_of(const char *s)
{
	char t[64];
	size_t i;

	for (i = 0; s && s[i] && i < sizeof t - 1; i++) {
		char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
		t[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
	}
	t[i] = '\0';
	return json_string(t);
}

/* Adds "view", "title" and "title_parts" to the run's model m.  Returns 0, or -1 when
 * memory ran out. */
/* The run's place in words (the page's first line after the lede):
 * "vs the 21 submitters who ran this on NVIDIA GeForce RTX 4090 with
 * llama.cpp: typical 172.7 tok/s; this run +3%" and the share of them it
 * is faster than; null when nobody counts there. */
static json_t *place_view(const json_t *m)
{
	const json_t *p = json_object_get(m, "place");
	const json_t *hw = json_object_get(m, "hardware");
	const char *hwname = s_of(hw, "read_as") ? s_of(hw, "read_as") : s_of(hw, "name");
	long long keys = json_integer_value(json_object_get(p, "keys"));
	long long others = json_integer_value(json_object_get(p, "others"));
	double diff = json_number_value(json_object_get(p, "diff_pct"));
	double faster = json_number_value(json_object_get(p, "faster_pct"));
	struct buf b = BUF_INIT, s = BUF_INIT;
	json_t *v;

	if (!json_is_object(p))
		return json_null();
	if (keys == 1)
		buf_puts(&b, "vs the one submitter");
	else
		buf_printf(&b, "vs the %lld submitters", keys);
	buf_printf(&b, " who ran this on %s with %s", hwname ? hwname : "this hardware",
		   s_of(json_object_get(m, "backend"), "name"));
	if (s_of(p, "since_version"))
		buf_printf(&b, " %s and later", s_of(p, "since_version"));
	buf_puts(&b, ": typical ");
	numfmt_fig(&b, json_number_value(json_object_get(p, "median_decode_tok_s")));
	buf_puts(&b, " tok/s; this run ");
	if (fabs(diff) < 0.5)
		buf_puts(&b, "at the typical figure");
	else
		buf_printf(&b, "%+.0f%%", diff);
	if (others > 0)
		buf_printf(&s, "Faster than %.0f%% of the %lld other %s there, each counted once.",
			   faster, others, others == 1 ? "submitter" : "submitters");
	v = buf_error(&b) || buf_error(&s) ? NULL : json_pack("{s:s, s:s?, s:b}", "text", b.buf,
		"share", others > 0 ? s.buf : NULL,
		"awaiting", !json_is_true(json_object_get(p, "confirmed")));
	buf_release(&b);
	buf_release(&s);
	return v ? v : json_null();
}

static int add_view(json_t *m)
{
	const json_t *w = json_object_get(json_object_get(m, "payload"), "workloads");
	const char *st = s_of(m, "status");
	json_t *v;

	v = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o*, s:b}",
		"decode", fmt_member(m, "decode_tok_s", F_NUM),
		"chat", chat_view(w),
		"w3", decay_view(json_object_get(w, "long-context-decay")),
		"w4", concurrency_view(json_object_get(w, "concurrent-decode")),
		"w5", agent_view(json_object_get(w, "agent-trace")),
		"outlier", outlier_view(m),
		"embed", embed_view(m),
		"upheld", st && !strcmp(st, "upheld"));
	if (!v || !json_object_get(v, "embed")) {
		json_decref(v);
		return -1;
	}
	json_object_set_new(v, "capped", json_boolean(st && !strcmp(st, "capped")));
	json_object_set_new(v, "status_text", status_text(m));
	json_object_set_new(v, "flag", flag_text(m));
	json_object_set_new(v, "place", place_view(m));
	json_object_set_new(v, "dispute", dispute_view(m));
	json_object_set_new(v, "backend_term", term_of(s_of(json_object_get(m, "backend"), "name")));
	json_object_set_new(v, "alg_term", term_of(s_of(json_object_get(m, "signing"), "alg")));
	if (json_object_set_new(m, "view", v) || title_of(m) < 0)
		return -1;
	return 0;
}

/* The parts only the page shows: where the run ranks, and the view. */
static int add_page_parts(struct page_view *v, json_t *m)
{
	if (page_rank_add(v->r, m) < 0)
		return err_unavailable(&v->err, MSG_DB_DOWN);
	if (add_view(m) < 0)
		return err_set(&v->err, 500, NULL, NULL, "The run page could not be put together; try again shortly.");
	return 0;
}

/* GET /r/<id> and /r/<id>.json: the run's view model (the JSON with its
 * log proof, the page with its rank and view), from or into the response
 * cache unless a later page of the dispute thread is asked for; NULL with
 * a 404 for an unknown run, a 503 when the database fails. */
json_t *page_run_view(struct page_view *v)
{
	struct req *r = v->r;
	enum cache_rep rep = v->format == HTTP_FMT_HTML ? REP_RUN_HTML : REP_RUN_JSON;
	int keep = v->key[0] != '\0';    /* page_serve keeps it unless ?after= */
	json_t *m;

	if (!(m = page_run_model(r, r->arg, &v->err)))
		return NULL;
	/* A run not yet in a signed checkpoint is answered without its
	 * proof, and that answer is not kept here (its Cache-Control is every
	 * run JSON's, so proxies see one policy for the route). */
	if (rep == REP_RUN_JSON && !page_log_run_proof(r, m))
		keep = 0;
	if (rep == REP_RUN_HTML && add_page_parts(v, m) < 0) {
		json_decref(m);
		return NULL;
	}
	if (keep) {
		v->keep = 1;
		v->tags = tags_of(m);
	}
	return m;
}
