/* page_model_hw.c: one model on one hardware at /m/<model>/hw/<hw> and
 * its .json twin (issue 22): which backend is fastest for this model on
 * this machine.  One row per backend with its typical figures (median
 * over signing keys, spread, best run, submitters, prefill, TTFT), best
 * median first, each weights file (digest) on its own, and the bandwidth
 * ceiling of those weights on that hardware drawn against the median.  A
 * combination nobody measured answers 200 with what is known instead,
 * predictions and the command that would measure it
 * (page_model_hw_beyond.c).
 *
 * Reads the combos rows of migration 0020 (store/typical.h) by their
 * indexes, never the runs: one seek per weights file for the rows, and
 * for an empty page two walks of at most WALK rows.  The HTML is kept by
 * page_serve until the next write, as /m/ and /hw/ are (an empty
 * page is not: each visit to it counts for /wanted). */
#include "pages/page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "domain/ceiling.h"
#include "domain/quantile.h"
#include "pages/browse.h"
#include "pages/page_model_hw.h"
#include "render/gauge.h"
#include "render/html.h"
#include "store/db.h"
#include "store/names.h"
#include "store/typical.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "util/slug.h"
#include "store/wanted.h"

/* The model's and the hardware's shown names, when the suite counts a run
 * of them (model_index, hw_index: one primary-key seek each). */
static const char sql_model[] =
	"SELECT " NAMES_MODEL("m.model_slug", "NULL") " FROM model_index m "
	"WHERE m.suite_version = ?1 AND m.model_slug = ?2";
static const char sql_hw[] =
	"SELECT " NAMES_HW("h.hw_slug", "NULL") " FROM hw_index h "
	"WHERE h.suite_version = ?1 AND h.hw_slug = ?2";
/* The model's weights files (digest_counts' primary key, a few rows). */
static const char sql_digests[] =
	"SELECT model_digest, model_quant, model_format FROM digest_counts "
	"WHERE suite_version = ?1 AND model_slug = ?2 LIMIT " MHW_DIGESTS_MAX_S;
/* The backends that ran a weights file of the model, on any hardware (a
 * backend once per hardware it ran on)
 * (combos' unique key, a few rows). */
static const char sql_digest_backends[] =
	"SELECT backend_name FROM combos WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND model_digest = ?3";
/* What is known instead: the fastest combinations of one weights file of
 * the model (combos_digest_med), and those on the hardware
 * (combos_med_hw), at most WALK rows each, in index order. */
#define WALK "60"
static const char sql_model_elsewhere[] =
	"SELECT c.hw_slug, " NAMES_HW("c.hw_slug", "r.accelerator") ", c.med, c.backend_name "
	"FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) WHERE c.suite_version = ?1 "
	"AND c.model_slug = ?2 AND c.model_digest = ?3 AND c.t_runs > 0 "
	"ORDER BY c.rank_med DESC, c.key_id DESC LIMIT " WALK;
static const char sql_hw_models[] =
	"SELECT c.model_slug, " NAMES_MODEL("c.model_slug", "r.model_name") ", c.med, c.backend_name "
	"FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) WHERE c.suite_version = ?1 "
	"AND c.hw_slug = ?2 AND c.t_runs > 0 ORDER BY c.rank_med DESC, c.key_id DESC LIMIT " WALK;

const char *const page_model_hw_sql[] = {
	sql_model, sql_hw, sql_digests, sql_digest_backends, sql_model_elsewhere, sql_hw_models, NULL
};

/* Entries listed under "known instead", each kind. */
#define INSTEAD_MAX 12

static int db_fail(struct mhw *p)
{
	return browse_error(&p->b, 503, MSG_DB_DOWN);
}

/* The shown name of slug by sql into *name (a new reference): 1 found, 0
 * not, -1 on error. */
static int shown_name(struct mhw *p, const char *sql, const char *slug, json_t **name)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql);
	int rc;

	*name = NULL;
	if (!st)
		return -1;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*name = json_string(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : slug);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Takes the two slugs of the path ("/m/<model>/hw/<hw>", ".json" after
 * it for the twin; the router matched that shape and captures nothing)
 * into p; 0, or -1 with a 404 naming the part that is not a slug. */
int page_model_hw_slugs(const char *path, char *model, char *hw)
{
	const char *m = path + 3, *slash = strchr(m, '/'), *h;
	size_t mn, hn;

	if (strncmp(path, "/m/", 3) || !slash || strncmp(slash, "/hw/", 4))
		return -1;
	mn = (size_t)(slash - m);
	h = slash + 4;
	hn = strlen(h);
	if (hn > 5 && !strcmp(h + hn - 5, ".json"))
		hn -= 5;
	if (mn > SLUG_MAX || hn > SLUG_MAX)
		return -1;
	memcpy(model, m, mn);
	model[mn] = '\0';
	memcpy(hw, h, hn);
	hw[hn] = '\0';
	return 0;
}

static int take_slugs(struct mhw *p, const char *path)
{
	if (strncmp(path, "/m/", 3) || !strchr(path + 3, '/') || !strstr(path + 3, "/hw/"))
		return browse_error(&p->b, 404, "Model-on-hardware pages are named /m/<model slug>/hw/<hardware slug>.");
	if (page_model_hw_slugs(path, p->model, p->hw) < 0)
		return browse_error(&p->b, 404, "A model or hardware slug is at most %d characters; this address holds a longer one.", SLUG_MAX);
	if (!slug_valid(p->model))
		return browse_error(&p->b, 404, "The model part of the address must be a model slug: lowercase letters and digits joined by single hyphens.");
	if (!slug_valid(p->hw))
		return browse_error(&p->b, 404, "The hardware part of the address must be a hardware slug: lowercase letters and digits joined by single hyphens.");
	return 0;
}

/* The model and the hardware blocks {slug, name, href, measured,
 * in_reference}: known when the suite counts a run of them or the
 * reference data knows them; 0, or -1 with a 404 naming which is
 * unknown. */
static int load_names(struct mhw *p)
{
	const struct ceiling_model *rm = ceiling_model_by_slug(p->b.r->app->ref, p->model);
	const struct ceiling_hw *rh = ceiling_hw(p->b.r->app->ref, p->hw);
	json_t *mname, *hname;
	int km, kh;

	if ((km = shown_name(p, sql_model, p->model, &mname)) < 0 ||
	    (kh = shown_name(p, sql_hw, p->hw, &hname)) < 0) {
		json_decref(mname);
		return db_fail(p);
	}
	if (!km && rm)
		mname = json_string(rm->name);
	if (!kh && rh)
		hname = json_string(rh->name);
	if (!mname || !hname) {
		json_decref(mname);
		json_decref(hname);
		if (!km && !rm)
			return browse_error(&p->b, 404, "There is no model %s in %s: no run of it was uploaded and the reference data does not know it. /models lists every model; the home page's picker takes a name.",
					    p->model, p->b.suite);
		return browse_error(&p->b, 404, "There is no hardware %s in %s: no run on it was uploaded and the reference data does not know it. /hardware lists every hardware; the home page's picker takes a name.",
				    p->hw, p->b.suite);
	}
	p->measured_model = km;
	json_object_set_new(p->m, "model", json_pack("{s:s, s:o, s:o, s:b, s:b}", "slug", p->model,
		"name", mname, "href", km ? browse_link(&p->b, "/m/", p->model, NULL) : json_null(), "measured", km,
		"in_reference", rm != NULL));
	json_object_set_new(p->m, "hardware", json_pack("{s:s, s:o, s:o, s:b, s:b}", "slug", p->hw,
		"name", hname, "href", kh ? browse_link(&p->b, "/hw/", p->hw, NULL) : json_null(), "measured", kh,
		"in_reference", rh != NULL));
	return 0;
}

/* The ceiling of weights (quant, format) of the model on the hardware,
 * against measured tok/s (<= 0: none), rounded as printed: {ceiling_tok_s
 * (the top), low_tok_s, high_tok_s, percent_of_ceiling (of the top),
 * above, range (null when exact, else {family, low_format, high_format}),
 * text}, or null when the reference data cannot tell.  *c gets the range
 * (c->low.m NULL when unknown). */
static json_t *ceiling_of(struct mhw *p, const char *quant, const char *format, double measured,
			  struct ceiling_range *c)
{
	json_t *full, *o;

	if (ceiling_range_of_run(p->b.r->app->ref, p->model, quant, format, p->hw,
				 CEILING_CHAT_SHORT_CONTEXT, c) < 0) {
		memset(c, 0, sizeof *c);
		return json_null();
	}
	if (!(full = ceiling_range_json(c, measured)))
		return json_null();
	o = json_pack("{s:f, s:f, s:f, s:o, s:O, s:o, s:O}",
		"ceiling_tok_s", quantile_round(c->high.step.tok_s, 0.01),
		"low_tok_s", quantile_round(c->low.step.tok_s, 0.01),
		"high_tok_s", quantile_round(c->high.step.tok_s, 0.01),
		"percent_of_ceiling", measured > 0 ? json_real(quantile_round(100 * measured / c->high.step.tok_s, 0.1))
						   : json_null(),
		"above", json_object_get(full, "above"),
		"range", c->family && c->low.f != c->high.f ? json_pack("{s:s, s:s, s:s}", "family", c->family->name,
					       "low_format", c->low.f->name, "high_format", c->high.f->name)
				   : json_null(),
		"text", json_object_get(json_object_get(full, "text"), "ceiling"));
	json_decref(full);
	return o ? o : json_null();
}

/* "1 run", "1,234 runs", as a new JSON string. */
static json_t *count_text(long long n, const char *one, const char *many)
{
	struct buf b = BUF_INIT;
	json_t *s;

	numfmt_count(&b, n, one, many);
	s = json_string(buf_error(&b) || !b.buf ? "" : b.buf);
	buf_release(&b);
	return s;
}

/* The median's share of the ceiling c, "38%" or, for a range, "22–42%"
 * (against its top and its bottom). */
static void pct_text(struct buf *b, double v, const struct ceiling_range *c)
{
	double lo = 100 * v / c->high.step.tok_s, hi = 100 * v / c->low.step.tok_s;

	numfmt_int(b, round(lo));
	if (round(hi) != round(lo)) {
		buf_puts(b, "\xe2\x80\x93");
		numfmt_int(b, round(hi));
	}
	buf_puts(b, "%");
}

/* Completes one combination row of typical_model_hw(): links, its
 * ceiling and share of it, "above the bandwidth ceiling", and for pages
 * the figures as printed and the gauge. */
static void finish_row(struct mhw *p, json_t *o)
{
	const char *best = json_string_value(json_object_get(o, "best_run"));
	const char *digest = json_string_value(json_object_get(o, "digest"));
	const char *be = json_string_value(json_object_get(o, "backend"));
	double med = json_number_value(json_object_get(o, "median_decode_tok_s"));
	struct ceiling_range c;
	struct buf label = BUF_INIT, svg = BUF_INIT;
	char href[40];
	json_t *ceil;

	snprintf(href, sizeof href, "/r/%s%s", best ? best : "", p->b.html ? "" : ".json");
	json_object_set_new(o, "best_href", json_string(href));
	json_object_set_new(o, "href", browse_link(&p->b, "/m/", p->model, "digest", digest,
						   "hw", p->hw, "backend", be, NULL));
	ceil = ceiling_of(p, json_string_value(json_object_get(o, "quantization")),
			  json_string_value(json_object_get(o, "format")), med, &c);
	json_object_set_new(o, "above_ceiling", json_boolean(json_is_true(json_object_get(ceil, "above"))));
	json_object_set_new(o, "ceiling", ceil);
	json_object_del(o, "first_at");
	json_object_del(o, "key_id");
	if (!p->b.html)
		return;
	json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o*}",
		"median", browse_fig_of(o, "median_decode_tok_s"), "p25", browse_fig_of(o, "p25_decode_tok_s"),
		"p75", browse_fig_of(o, "p75_decode_tok_s"), "best", browse_fig_of(o, "best_decode_tok_s"),
		"prefill", browse_fig_of(o, "median_prefill_tok_s"), "ttft", browse_fig_of(o, "median_ttft_ms"),
		"keys", count_text(json_integer_value(json_object_get(o, "keys")), "submitter", "submitters"),
		"runs", count_text(json_integer_value(json_object_get(o, "runs")), "run", "runs"),
		"flagged", json_integer_value(json_object_get(o, "flagged_runs")) > 0
			? count_text(json_integer_value(json_object_get(o, "flagged_runs")),
				     "outlier left out", "outliers left out") : NULL));
	combos_marks_text(o);
	json_object_set_new(json_object_get(o, "text"), "middle", combos_spread_text(o));
	if (json_is_object(ceil) && c.low.m && med > 0) {
		pct_text(&label, med, &c);
		json_object_set_new(o, "pct_text", json_string(buf_error(&label) ? "" : label.buf));
		buf_reset(&label);
		buf_puts(&label, "Median ");
		numfmt_fig(&label, med);
		buf_puts(&label, " tok/s, ");
		pct_text(&label, med, &c);
		buf_printf(&label, " of the %s tok/s bandwidth ceiling",
			   json_string_value(json_object_get(json_object_get(ceil, "text"), "ceiling")));
		if (!buf_error(&label) &&
		    gauge_svg(&svg, med, c.low.step.tok_s, c.high.step.tok_s, label.buf) == 0)
			json_object_set_new(o, "gauge_svg", json_stringn(svg.buf, svg.len));
	}
	buf_release(&label);
	buf_release(&svg);
}

/* Whether weights (quant, format) of the model fit the machine with the
 * chat-short context: ceiling_fit_json(), or null when the reference data
 * cannot tell.  A quantization the data does not know is read as the
 * lightest of its family's usual files (GGUF: Q4_K_M), so "does not fit"
 * holds for every usual file of it. */
static json_t *fit_of(struct mhw *p, const char *quant, const char *format)
{
	const struct ceiling_ref *ref = p->b.r->app->ref;
	const struct ceiling_bits *f = ceiling_format(ref, quant);
	const struct ceiling_family *fam = ceiling_family(ref, format ? format : "gguf");
	struct ceiling_fit fit;

	if (!f && fam)
		f = fam->lightest;
	if (!f || ceiling_fit(ref, ceiling_model_by_slug(ref, p->model), f, ceiling_hw(ref, p->hw), 0,
			      CEILING_CHAT_SHORT_CONTEXT, CEILING_FIT_OVERHEAD_GB, &fit) < 0)
		return json_null();
	return ceiling_fit_json(&fit, f, CEILING_CHAT_SHORT_CONTEXT);
}

/* A new weights block for digest with its ceiling on the hardware, and
 * whether it fits there. */
static json_t *weights_block(struct mhw *p, const char *digest, const char *quant, const char *format)
{
	struct ceiling_range c;
	char shrt[BROWSE_DIGEST_SHORT];

	browse_digest_short(p->b.c, p->b.suite, digest, shrt);
	return json_pack("{s:s?, s:s, s:s?, s:s?, s:o, s:o, s:o, s:[]}", "digest", digest,
		"digest_short", shrt, "quantization", quant, "format", format,
		"href", digest ? browse_link(&p->b, "/m/", p->model, "digest", digest, "hw", p->hw, NULL)
			       : json_null(),
		"ceiling", ceiling_of(p, quant, format, 0, &c), "fit", fit_of(p, quant, format), "rows");
}

/* The weights block of digest in ws, appended when new. */
static json_t *weights_of(struct mhw *p, json_t *ws, const json_t *row)
{
	const char *d = json_string_value(json_object_get(row, "digest"));
	json_t *w;
	size_t i;

	json_array_foreach(ws, i, w)
		if (d && !strcmp(json_string_value(json_object_get(w, "digest")), d))
			return w;
	w = weights_block(p, d, json_string_value(json_object_get(row, "quantization")),
			  json_string_value(json_object_get(row, "format")));
	json_array_append_new(ws, w);
	return w;
}

/* What a weights file is, in words: "Q4_K_M (gguf)", "gguf, quantization
 * not named", "weights not named"; a new JSON string. */
static json_t *weights_label(const char *quant, const char *format)
{
	if (quant && format)
		return json_sprintf("%s (%s)", quant, format);
	if (quant)
		return json_string(quant);
	if (format)
		return json_sprintf("%s, quantization not named", format);
	return json_string("weights not named");
}

/* One weights file of a backend row: the combination row's file and its
 * own figures, {digest, digest_short, label, median_decode_tok_s, keys,
 * runs, confirmed, href, text (pages)}. */
static json_t *file_of(struct mhw *p, const json_t *row)
{
	const char *d = json_string_value(json_object_get(row, "digest"));
	char shrt[BROWSE_DIGEST_SHORT];

	browse_digest_short(p->b.c, p->b.suite, d, shrt);
	return json_pack("{s:s?, s:s, s:o, s:O, s:O, s:O, s:O, s:O, s:o*}", "digest", d, "digest_short", shrt,
		"label", weights_label(json_string_value(json_object_get(row, "quantization")),
				       json_string_value(json_object_get(row, "format"))),
		"median_decode_tok_s", json_object_get(row, "median_decode_tok_s"),
		"keys", json_object_get(row, "keys"), "runs", json_object_get(row, "runs"),
		"confirmed", json_object_get(row, "confirmed"), "href", json_object_get(row, "href"),
		"text", p->b.html ? json_pack("{s:o, s:o}", "median", browse_fig_of(row, "median_decode_tok_s"),
			"keys", count_text(json_integer_value(json_object_get(row, "keys")), "submitter", "submitters"))
				  : NULL);
}

/* The row of backends for combination row (same backend and
 * quantization), or NULL when it is the first of its kind. */
static json_t *backend_row_of(json_t *bes, const json_t *row)
{
	const char *be = json_string_value(json_object_get(row, "backend"));
	const char *q = json_string_value(json_object_get(row, "quantization"));
	json_t *o;
	size_t i;

	json_array_foreach(bes, i, o) {
		const char *oq = json_string_value(json_object_get(o, "quantization"));

		if (!strcmp(json_string_value(json_object_get(o, "backend")), be) &&
		    (q && oq ? !strcmp(q, oq) : !q && !oq))
			return o;
	}
	return NULL;
}

/* Adds combination row (typical_model_hw's order: the first of each
 * backend and quantization is its fastest) to the backends table: a new
 * row, a copy of it with "weights" (its file, labelled) and "files" (every
 * weights file of that backend and quantization here, fastest first), or
 * one more file of the row it joins. */
static int add_backend_row(struct mhw *p, json_t *bes, const json_t *row)
{
	json_t *o = backend_row_of(bes, row), *f = file_of(p, row);

	if (!f)
		return -1;
	if (o)
		return json_array_append_new(json_object_get(o, "files"), f);
	if (!(o = json_deep_copy(row))) {
		json_decref(f);
		return -1;
	}
	json_object_set(o, "weights", f);
	json_object_set_new(o, "files", json_pack("[o]", f));
	return json_array_append_new(bes, o);
}

/* Says on each row of the backends table how many weights files are
 * behind it ("files_count"; pages: "files_text", "2 weights files") and,
 * where its backend has several rows, why ("twice": "llama.cpp is
 * measured here with 2 quantizations: a row each"). */
static void explain_backend_rows(json_t *bes)
{
	json_t *o, *k;
	size_t i, j, n;

	json_array_foreach(bes, i, o) {
		const char *be = json_string_value(json_object_get(o, "backend"));

		n = 0;
		json_array_foreach(bes, j, k)
			n += !strcmp(be, json_string_value(json_object_get(k, "backend")));
		json_object_set_new(o, "files_count", json_integer((json_int_t)json_array_size(json_object_get(o, "files"))));
		json_object_set_new(o, "twice", n > 1 ? json_sprintf("%s is measured here with %zu quantizations: a row each", be, n)
						    : json_null());
		if (json_array_size(json_object_get(o, "files")) > 1)
			json_object_set_new(o, "files_text", json_sprintf("%zu weights files",
						json_array_size(json_object_get(o, "files"))));
	}
}

/* 1 when a weights file of the model can run on the hardware: some
 * backend that ran it (anywhere) runs there by the reference data, or the
 * data cannot tell; 0 when every backend that ran it cannot (an MLX file
 * on an NVIDIA card); -1 on a database error. */
static int digest_runs_here(struct mhw *p, const char *digest)
{
	const struct ceiling_hw *hw = ceiling_hw(p->b.r->app->ref, p->hw);
	sqlite3_stmt *st = db_stmt(p->b.c, sql_digest_backends);
	int rc, any = 0, ok = 0;

	if (!st)
		return -1;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->model);
	db_bind_text(st, 3, digest);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		any = 1;
		ok |= ceiling_backend_runs(p->b.r->app->ref, (const char *)sqlite3_column_text(st, 0), hw) != 0;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	return !any || ok;
}

/* The model's weights files (at most MHW_DIGESTS_MAX), as new arrays
 * [digest, quantization, format] in *out; 0, or -1 on a database error. */
static int model_files(struct mhw *p, json_t **out)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_digests);
	int rc;

	if (!st || !(*out = json_array()))
		return -1;
	db_bind_text(st, 1, p->b.suite);
	db_bind_text(st, 2, p->model);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, json_pack("[s?, s?, s?]", (const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2)));
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	json_decref(*out);
	*out = NULL;
	return -1;
}

/* With nothing measured here: the model's weights files measured
 * elsewhere that can run on this hardware (digest_runs_here), each with
 * its ceiling here and no rows, into ws.  0, or -1 on a database error. */
static int load_other_files(struct mhw *p, json_t *ws)
{
	json_t *files, *d;
	size_t i;
	int rc = 0;

	if (model_files(p, &files) < 0)
		return -1;
	json_array_foreach(files, i, d) {
		const char *dg = json_string_value(json_array_get(d, 0));
		int here = dg ? digest_runs_here(p, dg) : 0;

		if (here < 0)
			rc = -1;
		if (here > 0)
			json_array_append_new(ws, weights_block(p, dg, json_string_value(json_array_get(d, 1)),
								json_string_value(json_array_get(d, 2))));
	}
	json_decref(files);
	return rc;
}

/* The combinations: "backends", the table the page leads with (a row
 * per backend and quantization, fastest first, its weights files as
 * details: add_backend_row), and "weights", the same rows grouped by
 * weights file in the order of their best median (typical_model_hw()
 * gives them highest median first); with none, the model's weights files
 * that can run here (load_other_files), each with its ceiling here and no
 * rows.  0, or -1 with p->b's failure set. */
static int load_rows(struct mhw *p)
{
	json_t *rows = NULL, *ws = json_array(), *bes = json_array(), *row;
	size_t i;

	if (!ws || !bes || typical_model_hw(p->b.c, p->b.suite, p->model, p->hw, &rows) != DB_OK)
		goto fail;
	json_array_foreach(rows, i, row) {
		json_t *w;

		finish_row(p, row);
		w = weights_of(p, ws, row);
		/* Measured where its weights could not fit: the runtime kept
		 * part of them elsewhere.  Shown as measured, with the note. */
		json_object_set_new(row, "offloaded",
				    json_boolean(json_is_false(json_object_get(json_object_get(w, "fit"), "fits"))));
		json_array_append(json_object_get(w, "rows"), row);
		if (add_backend_row(p, bes, row) < 0)
			goto fail;
	}
	p->nrows = json_array_size(rows);
	json_decref(rows);
	rows = NULL;
	explain_backend_rows(bes);
	if (p->b.html) {
		combos_await_head(bes, 1);
		json_array_foreach(ws, i, row)
			combos_await_head(json_object_get(row, "rows"), 1);
	}
	if (!p->nrows && p->measured_model && load_other_files(p, ws) < 0)
		goto fail;
	/* A model only the reference data knows, or none of whose files
	 * can run here: its ceiling here as a GGUF file would have it (the
	 * range of that format). */
	if (!p->nrows && !json_array_size(ws))
		json_array_append_new(ws, weights_block(p, NULL, NULL, "gguf"));
	json_object_set_new(p->m, "backends", bes);
	json_object_set_new(p->m, "weights", ws);
	json_object_set_new(p->m, "rows_count", json_integer((json_int_t)p->nrows));
	json_object_set_new(p->m, "empty", json_boolean(!p->nrows));
	return 0;
fail:
	json_decref(rows);
	json_decref(ws);
	json_decref(bes);
	return db_fail(p);
}

/* Adds to list (at most INSTEAD_MAX, one per slug in seen) the rows st
 * gives (slug, name, median, backend), each linked to its own
 * model-on-hardware page.  0, or -1. */
static int walk_instead(struct mhw *p, sqlite3_stmt *st, int by_model, json_t *list, json_t *seen)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *slug = (const char *)sqlite3_column_text(st, 0);
		const char *be = (const char *)sqlite3_column_text(st, 3);
		double med = sqlite3_column_double(st, 2);

		if (!slug || json_object_get(seen, slug) || json_array_size(list) >= INSTEAD_MAX)
			continue;
		json_object_set_new(seen, slug, json_true());
		json_array_append_new(list, json_pack("{s:s, s:s?, s:f, s:s?, s:o, s:o*}", "slug", slug,
			"name", (const char *)sqlite3_column_text(st, 1), "median_decode_tok_s",
			quantile_round(med, 0.01), "backend", be,
			"href", browse_mhw_link(&p->b, by_model ? slug : p->model, by_model ? p->hw : slug),
			"text", p->b.html ? browse_fig(quantile_round(med, 0.01)) : NULL));
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* For a combination nobody measured: the model's fastest other hardware
 * and the hardware's fastest other models, each linked to its own page.
 * 0, or -1 with p->b's failure set. */
static int load_instead(struct mhw *p)
{
	json_t *hws = json_array(), *models = json_array(), *seen = json_object(), *mseen = json_object();
	json_t *files = NULL, *w;
	sqlite3_stmt *st;
	size_t i;
	int rc = p->measured_model ? model_files(p, &files) : 0;

	json_array_foreach(files, i, w) {
		if (rc < 0 || !json_is_string(json_array_get(w, 0)))
			continue;
		if (!(st = db_stmt(p->b.c, sql_model_elsewhere))) {
			rc = -1;
			break;
		}
		db_bind_text(st, 1, p->b.suite);
		db_bind_text(st, 2, p->model);
		db_bind_text(st, 3, json_string_value(json_array_get(w, 0)));
		rc = walk_instead(p, st, 0, hws, seen);
	}
	if (rc == 0 && (st = db_stmt(p->b.c, sql_hw_models))) {
		db_bind_text(st, 1, p->b.suite);
		db_bind_text(st, 2, p->hw);
		rc = walk_instead(p, st, 1, models, mseen);
	} else {
		rc = -1;
	}
	json_object_set_new(p->m, "instead", json_pack("{s:b, s:b, s:o, s:o}",
		"has_hardware", json_array_size(hws) > 0, "has_models", json_array_size(models) > 0,
		"other_hardware", hws, "other_models", models));
	json_decref(files);
	json_decref(seen);
	json_decref(mseen);
	return rc < 0 ? db_fail(p) : 0;
}

/* A row's place in the ranking: its median, confirmed rows first. */
static double rank_of(const json_t *row)
{
	return typical_rank(json_number_value(json_object_get(row, "median_decode_tok_s")),
			    json_is_true(json_object_get(row, "confirmed")));
}

const json_t *mhw_fastest(const json_t *m)
{
	const json_t *best = NULL, *w, *row;
	size_t i;

	json_array_foreach(json_object_get(m, "weights"), i, w) {
		row = json_array_get(json_object_get(w, "rows"), 0);
		if (row && (!best || rank_of(row) > rank_of(best)))
			best = row;
	}
	return best;
}

/* The answer at the top: the fastest confirmed backend, its median, its
 * submitters, its share of the ceiling; with no confirmed row, the
 * fastest one with "awaiting" (what it lacks), never as "fastest". */
static void add_answer(struct mhw *p)
{
	const json_t *best = mhw_fastest(p->m);
	json_t *a;

	if (!best) {
		json_object_set_new(p->m, "answer", json_null());
		return;
	}
	a = json_deep_copy(best);
	if (a && !json_is_true(json_object_get(a, "confirmed")))
		json_object_set_new(a, "awaiting", json_string(combos_confirm_text()));
	json_object_set_new(p->m, "answer", a ? a : json_null());
}

/* "fits" and "fit" (contract section 9): whether the model fits the
 * machine with the usual lightest weights and the chat-short context,
 * said before any figure; null when the reference data cannot tell. */
static int add_fit(struct mhw *p)
{
	json_t *fit = fit_of(p, NULL, "gguf");

	p->fits = json_is_object(fit) ? json_is_true(json_object_get(fit, "fits")) : -1;
	json_object_set_new(p->m, "fits", p->fits < 0 ? json_null() : json_boolean(p->fits));
	json_object_set_new(p->m, "fit", fit);
	json_object_set_new(p->m, "does_not_fit", json_boolean(p->fits == 0));
	return 0;
}

/* The view model, or NULL with p->b's failure set. */
static json_t *mhw_model(struct mhw *p, struct req *r)
{
	struct buf title = BUF_INIT;
	const char *mn, *hn;

	if (browse_begin(&p->b, r) < 0 || take_slugs(p, r->path) < 0)
		return NULL;
	p->m = json_pack("{s:s}", "suite_version", p->b.suite);
	if (!p->m || load_names(p) < 0 || add_fit(p) < 0 || load_rows(p) < 0 ||
	    (!p->nrows && load_instead(p) < 0) || mhw_add_beyond(p) < 0)
		goto fail;
	mn = json_string_value(json_object_get(json_object_get(p->m, "model"), "name"));
	hn = json_string_value(json_object_get(json_object_get(p->m, "hardware"), "name"));
	buf_printf(&title, "%s on %s", mn, hn);
	json_object_set_new(p->m, "title", browse_title(buf_error(&title) ? mn : title.buf));
	buf_reset(&title);
	/* The page's JSON twin, its query kept (the footer's last link). */
	buf_printf(&title, "/m/%s/hw/%s.json", p->model, p->hw);
	if (p->b.html && !buf_error(&title)) {
		json_t *twin = browse_twin_href(&p->b, title.buf);

		json_object_set_new(p->m, "json_href", twin ? twin : json_string(title.buf));
	}
	buf_release(&title);
	/* Said once: the hardware is missing from the reference data. */
	json_object_set_new(p->m, "ceiling_note", ceiling_hw(r->app->ref, p->hw) ? json_null() :
			    json_sprintf("The reference data does not know %s, so no bandwidth ceiling is shown.", hn));
	if (p->b.html)
		add_answer(p);
	return p->m;
fail:
	json_decref(p->m);
	return NULL;
}

/* GET /m/<model>/hw/<hw> and its .json twin: 200 with the page (an empty
 * table and what is known instead when nothing was measured); 404 for a
 * model or hardware neither measured in the suite nor in the reference
 * data, or an unknown ?suite=; 400 for a malformed argument.  Kept in the
 * list cache like other lists; an empty page is kept with its ask as its
 * note, so that each visit to it, kept or built, is counted for /wanted
 * (page_model_hw_visit).  A new reference. */
json_t *page_model_hw_view(struct page_view *v)
{
	struct mhw p = { 0 };
	json_t *m;

	if (page_search_canonical(v, PAGE_ARG_MODEL_HW))
		return NULL;     /* another spelling of the pair: moved there */
	m = mhw_model(&p, v->r);
	m = page_view_browsed(v, &p.b, m);
	if (m && !p.nrows &&
	    (size_t)snprintf(v->note, sizeof v->note, "%s\n%s\n%s", p.b.suite, p.model, p.hw) >= sizeof v->note)
		v->keep = 0;     /* an ask that does not fit the note: built each time */
	return m;
}

void page_model_hw_visit(struct req *r, const char *note)
{
	char suite[CACHE_NOTE_MAX], model[CACHE_NOTE_MAX], hw[CACHE_NOTE_MAX];

	if (sscanf(note, "%159[^\n]\n%159[^\n]\n%159[^\n]", suite, model, hw) == 3)
		wanted_note(r->client, suite, model, hw);
}
