/* page_fit.c: /fit and /fit.json, "will it fit": a model's weights, KV
 * cache and runtime overhead against a machine's memory, the decode
 * ceiling its bandwidth allows, and the typical figures measured for that
 * model on that hardware beside it.  The arithmetic is ceiling.c's; this file parses the
 * query at the edge and builds the one view model both answers share. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "util/buf.h"
#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "store/db.h"
#include "util/slug.h"
#include "ingest/validate.h"
#include "store/forecast.h"
#include "store/typical.h"
#include "store/wanted.h"

/* What /fit assumes when the query does not say. */
#define FIT_MODEL     "llama-3-1-8b"
#define FIT_FORMAT    "q4_k_m"
#define FIT_KV        "f16"
#define FIT_CONTEXT   8192
#define FIT_BATCH     1
#define FIT_SUSTAINED 0.8   /* of peak, when the hardware is not in hardware.json */
/* Runtime overhead: compute buffers, the runtime itself and what the OS
 * keeps back, beyond weights and cache.  An assumption, shown on the page
 * and editable through overhead_gb=. */
#define FIT_OVERHEAD_GB 1.0
#define FIT_RUNS      10    /* measured runs listed beside the ceiling */
#define FIT_ARGS      10    /* the query arguments /fit reads */

/* The hardware's display name, as search shows it. */
static const char sql_hw_name[] = "SELECT name FROM search_names WHERE kind = 'hw' AND slug = ?1";

const char *const page_fit_sql[] = { sql_hw_name, NULL };

/* The checked inputs of one /fit request. */
struct fit_in {
	const char *hw_slug;              /* ?hw=, a valid slug, or NULL */
	const struct ceiling_hw *hw;      /* its reference entry, or NULL */
	const struct ceiling_model *m;
	const struct ceiling_bits *f, *kv;
	double memory_gb, peak_gb_s;      /* 0: unknown */
	double sustained, context, batch, overhead_gb;
	/* The arguments refused so far, read as absent (a page for people
	 * shows the form with each one's sentence under its field). */
	const char *skip[FIT_ARGS];
	int nskip;
};

/* Why a query was refused: the argument, and a sentence naming the fix. */
/* Refuses argument field with message, followed by list (the valid
 * values) and a full stop when list is not NULL.  Returns -1. */
static int refuse(struct err *e, const char *field, const char *message, const char *list)
{
	return err_set(e, 400, "invalid_query", field, "%s%s%s", message,
		       list ? list : "", list ? "." : "");
}

int page_fit_number(struct req *r, const char *name, double lo, double hi,
		    int whole, double *out)
{
	const char *v = http_query(r, name);
	char *end;
	double d;

	if (!v || !*v)
		return 0;
	d = strtod(v, &end);
	if (end == v || *end || !isfinite(d) || d < lo || d > hi || (whole && d != floor(d)) ||
	    *v == ' ' || *v == '+')
		return -1;
	*out = d;
	return 1;
}

/* The lists of the reference data the form offers. */
enum fit_list { L_HW, L_MODEL, L_FORMAT, L_KV };

/* The id and name of entry i of list; 0, or -1 past the end. */
static int entry_at(const struct ceiling_ref *ref, enum fit_list list, size_t i,
		    const char **id, const char **name)
{
	const struct ceiling_hw *h = list == L_HW ? ceiling_hw_at(ref, i) : NULL;
	const struct ceiling_model *m = list == L_MODEL ? ceiling_model_at(ref, i) : NULL;
	const struct ceiling_bits *b = list == L_FORMAT ? ceiling_format_at(ref, i)
				     : list == L_KV ? ceiling_kv_at(ref, i) : NULL;

	if (h)
		*id = h->slug, *name = h->name;
	else if (m)
		*id = m->id, *name = m->name;
	else if (b)
		*id = b->id, *name = b->name;
	else
		return -1;
	return 0;
}

/* The ids of list, comma-separated, into out. */
static void id_list(const struct ceiling_ref *ref, enum fit_list list, char *out, size_t n)
{
	struct buf b = BUF_INIT;
	const char *id, *name;
	size_t i;

	for (i = 0; entry_at(ref, list, i, &id, &name) == 0; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", id);
	snprintf(out, n, "%s", buf_error(&b) ? "" : b.buf);
	buf_release(&b);
}

/* 1 when argument k was refused and is read as absent. */
static int skipped(const struct fit_in *in, const char *k)
{
	int i;

	for (i = 0; i < in->nskip; i++)
		if (!strcmp(in->skip[i], k))
			return 1;
	return 0;
}

/* The query argument k, or def when absent, empty or refused. */
static const char *arg_or(struct req *r, const struct fit_in *in, const char *k, const char *def)
{
	const char *v = skipped(in, k) ? NULL : http_query(r, k);

	return v && *v ? v : def;
}

/* page_fit_number, with a refused argument read as absent. */
static int number(struct req *r, const struct fit_in *in, const char *name, double lo,
		  double hi, int whole, double *out)
{
	return skipped(in, name) ? 0 : page_fit_number(r, name, lo, hi, whole, out);
}

/* The choices: hardware, model, weight format, KV type.  0, or -1 with e
 * listing the valid values of the argument refused. */
static int parse_choices(struct req *r, struct fit_in *in, struct err *e)
{
	const struct ceiling_ref *ref = r->app->ref;
	char list[400];

	/* Any spelling the resolver knows names a reference entry:
	 * hw=NVIDIA GeForce RTX 4090, model=llama3.1:8b. */
	in->hw_slug = arg_or(r, in, "hw", NULL);
	if (in->hw_slug && !(in->hw = ceiling_hw(ref, in->hw_slug)) &&
	    (in->hw = resolve_hw_name(ref, in->hw_slug)))
		in->hw_slug = in->hw->slug;
	if (in->hw_slug && !in->hw && !slug_valid(in->hw_slug))
		return refuse(e, "hw", "The hw= argument must be a hardware slug such as m3-ultra or a hardware name the reference data knows, or empty to type memory and bandwidth.", NULL);
	if (!(in->m = ceiling_model_by_slug(ref, arg_or(r, in, "model", FIT_MODEL)))) {
		id_list(ref, L_MODEL, list, sizeof list);
		return refuse(e, "model", "The model= argument must be one of: ", list);
	}
	if (!(in->f = ceiling_format(ref, arg_or(r, in, "format", FIT_FORMAT)))) {
		id_list(ref, L_FORMAT, list, sizeof list);
		return refuse(e, "format", "The format= argument must be one of: ", list);
	}
	if (!(in->kv = ceiling_kv(ref, arg_or(r, in, "kv", FIT_KV)))) {
		id_list(ref, L_KV, list, sizeof list);
		return refuse(e, "kv", "The kv= argument must be one of: ", list);
	}
	return 0;
}

/* The figures: context, batch, memory, bandwidth, sustained fraction and
 * overhead, each in range.  0, or -1 with e naming the argument. */
static int parse_figures(struct req *r, struct fit_in *in, struct err *e)
{
	in->context = FIT_CONTEXT;
	in->batch = FIT_BATCH;
	in->overhead_gb = FIT_OVERHEAD_GB;
	in->memory_gb = in->hw ? in->hw->memory_gb : 0;
	in->peak_gb_s = in->hw ? in->hw->peak_gb_s : 0;
	in->sustained = in->hw ? in->hw->sustained : FIT_SUSTAINED;
	if (number(r, in, "context", 1, 10000000, 1, &in->context) < 0)
		return refuse(e, "context", "The context= argument must be a whole number of tokens from 1 to 10000000 (8K is 8192).", NULL);
	if (number(r, in, "batch", 1, 1024, 1, &in->batch) < 0)
		return refuse(e, "batch", "The batch= argument must be a whole number of streams from 1 to 1024.", NULL);
	if (number(r, in, "memory_gb", 0.001, 1e5, 0, &in->memory_gb) < 0)
		return refuse(e, "memory_gb", "The memory_gb= argument must be the machine's memory in GB, a number above 0 and at most 100000, or empty.", NULL);
	if (number(r, in, "bandwidth_gb_s", 0.001, 1e5, 0, &in->peak_gb_s) < 0)
		return refuse(e, "bandwidth_gb_s", "The bandwidth_gb_s= argument must be the peak memory bandwidth in GB/s, a number above 0 and at most 100000, or empty.", NULL);
	if (number(r, in, "sustained", 0.01, 1, 0, &in->sustained) < 0)
		return refuse(e, "sustained", "The sustained= argument must be the share of peak bandwidth decode reads at, a number above 0 and at most 1, such as 0.8.", NULL);
	if (number(r, in, "overhead_gb", 0, 1000, 0, &in->overhead_gb) < 0)
		return refuse(e, "overhead_gb", "The overhead_gb= argument must be the runtime overhead in GB, a number from 0 to 1000.", NULL);
	return 0;
}

/* One <option> list: the entries of list with id, name and selected. */
static json_t *options(const struct ceiling_ref *ref, enum fit_list list, const char *sel)
{
	json_t *a = json_array();
	const char *id, *name;
	size_t i;

	for (i = 0; entry_at(ref, list, i, &id, &name) == 0; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:b}", "id", id, "name", name,
			"selected", sel && !strcmp(sel, id)));
	return a;
}

/* GB with three significant digits, as a JSON string. */
static json_t *gb(double bytes)
{
	return ceiling_fmt3_json(bytes / CEILING_GB);
}

/* The result: bytes in memory, whether they fit, and the ceiling. */
static json_t *result_json(const struct fit_in *in)
{
	struct ceiling_step s;
	double bw = in->peak_gb_s * in->sustained * CEILING_GB, total;
	json_t *o, *t;

	/* What one step reads, at the bits a weight it reads; the file, at the
	 * bits of all its weights (gpt-oss keeps MXFP4 experts whatever the
	 * label says). */
	ceiling_step(in->m, ceiling_model_bits(in->m, in->f, 0), in->kv->bits, in->context, in->batch, bw, &s);
	s.weights = ceiling_weight_bytes(in->m, ceiling_model_bits(in->m, in->f, 1));
	total = s.weights + s.kv + s.state + in->overhead_gb * CEILING_GB;
	o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
		"weights_gb", s.weights / CEILING_GB, "kv_cache_gb", s.kv / CEILING_GB,
		"state_gb", s.state / CEILING_GB, "overhead_gb", in->overhead_gb,
		"total_gb", total / CEILING_GB, "read_per_step_gb", s.read / CEILING_GB,
		"kv_per_token_bytes", ceiling_kv_token_bytes(in->m, in->kv->bits));
	t = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"weights_gb", gb(s.weights), "kv_cache_gb", gb(s.kv), "state_gb", gb(s.state),
		"overhead_gb", ceiling_fmt3_json(in->overhead_gb), "total_gb", gb(total),
		"read_per_step_gb", gb(s.read), "read_weights_gb", gb(s.read_weights));
	json_object_set_new(o, "fits", in->memory_gb > 0 ? json_boolean(total <= in->memory_gb * CEILING_GB) : json_null());
	/* The ceiling is a speed it runs at only where it fits (or nothing
	 * says it does not). */
	json_object_set_new(o, "runs_here", json_boolean(!(in->memory_gb > 0) || total <= in->memory_gb * CEILING_GB));
	json_object_set_new(o, "memory_known", json_boolean(in->memory_gb > 0));
	json_object_set_new(o, "headroom_gb", in->memory_gb > 0 ? json_real(in->memory_gb - total / CEILING_GB) : json_null());
	json_object_set_new(o, "bandwidth_known", json_boolean(bw > 0));
	json_object_set_new(o, "sustained_gb_s", bw > 0 ? json_real(bw / CEILING_GB) : json_null());
	json_object_set_new(o, "ceiling_tok_s", bw > 0 ? json_real(s.tok_s) : json_null());
	json_object_set_new(o, "aggregate_tok_s", bw > 0 ? json_real(s.aggregate) : json_null());
	if (in->memory_gb > 0)
		json_object_set_new(t, "headroom_gb", ceiling_fmt3_json(fabs(in->memory_gb - total / CEILING_GB)));
	if (bw > 0) {
		json_object_set_new(t, "sustained_gb_s", ceiling_fmt3_json(bw / CEILING_GB));
		json_object_set_new(t, "ceiling_tok_s", ceiling_fmt3_json(s.tok_s));
		json_object_set_new(t, "aggregate_tok_s", ceiling_fmt3_json(s.aggregate));
	}
	json_object_set_new(o, "text", t);
	return o;
}

/* Appends the combinations of model slug on hardware hw (one row per
 * weights file and backend, store/typical.h) to rows, each with its
 * typical figures and beside the ceiling of its own weights (a range when
 * they name no quantization the reference data knows), or null. */
static int add_rows(struct req *r, struct dbconn *c, const char *hw, const char *slug, json_t *rows)
{
	struct ceiling_range cr;
	json_t *found, *row;
	size_t i;
	int rc = typical_model_hw(c, VALIDATE_SUITE, slug, hw, &found);

	if (rc != DB_OK)
		return -1;
	json_array_foreach(found, i, row) {
		double med = json_number_value(json_object_get(row, "median_decode_tok_s"));
		const char *best = json_string_value(json_object_get(row, "best_run"));
		char href[64];

		snprintf(href, sizeof href, "/r/%s", best ? best : "");
		json_object_set_new(row, "href", json_string(href));
		json_object_set_new(row, "median_text", ceiling_fmt3_json(med));
		json_object_set_new(row, "best_text",
			ceiling_fmt3_json(json_number_value(json_object_get(row, "best_decode_tok_s"))));
		json_object_set_new(row, "ceiling", ceiling_range_of_run(r->app->ref, slug,
			json_string_value(json_object_get(row, "quantization")),
			json_string_value(json_object_get(row, "format")), hw,
			CEILING_CHAT_SHORT_CONTEXT, &cr) == 0 ? ceiling_range_json(&cr, med) : json_null());
		json_array_append(rows, row);
	}
	json_decref(found);
	return 0;
}

/* The measured combinations of the model (every spelling uploads used
 * is one page slug, its reference id: domain/resolve.h) on hardware hw,
 * highest median first; sets *failed when the database did not answer. */
static json_t *measured_runs(struct req *r, const struct fit_in *in, int *failed)
{
	json_t *rows = json_array();
	struct dbconn *c;

	*failed = 0;
	if (!in->hw_slug)
		return rows;
	c = db_reader(r->app->db);
	if (!c || add_rows(r, c, in->hw_slug, in->m->id, rows) < 0)
		*failed = 1;
	return rows;
}

/* The name people know hardware slug hw by: the reference data's, else
 * the name search shows, else the slug. */
static json_t *hw_display_name(struct req *r, const struct fit_in *in)
{
	struct dbconn *c;
	sqlite3_stmt *st;
	json_t *name = NULL;

	if (in->hw)
		return json_string(in->hw->name);
	if (!in->hw_slug)
		return json_null();
	if ((c = db_reader(r->app->db)) && (st = db_stmt(c, sql_hw_name))) {
		db_bind_text(st, 1, in->hw_slug);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			name = json_string((const char *)sqlite3_column_text(st, 0));
		sqlite3_reset(st);
	}
	return name ? name : json_string(in->hw_slug);
}

/* 1 when hardware in->hw_slug has a page: the reference data knows it or
 * runs of it are stored. */
static int hw_has_page(struct req *r, const struct fit_in *in)
{
	struct dbconn *c;
	sqlite3_stmt *st;
	int found = 0;

	if (in->hw)
		return 1;
	if ((c = db_reader(r->app->db)) && (st = db_stmt(c, sql_hw_name))) {
		db_bind_text(st, 1, in->hw_slug);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
	}
	return found;
}

/* Under the ceiling, when nothing was measured for the model on the
 * hardware: the predicted decode (store/forecast.h) against this
 * page's own ceiling, labelled, never in the measured rows; and the visit
 * counted for /wanted when the hardware has a page (a typed slug that
 * names nothing is not a wanted measurement).  NULL when there is nothing
 * to predict for. */
static json_t *prediction(struct req *r, const struct fit_in *in, json_t *m, int *failed)
{
	json_t *res = json_object_get(m, "result"), *o;
	double ceiling = json_number_value(json_object_get(res, "ceiling_tok_s"));
	struct predict_result p;
	struct dbconn *c;

	if (!in->hw_slug || json_array_size(json_object_get(m, "runs")) > 0)
		return json_null();
	if (hw_has_page(r, in))
		wanted_note(r->client, VALIDATE_SUITE, in->m->id, in->hw_slug);
	/* Where it does not fit, no speed is predicted as if it ran. */
	if (json_is_false(json_object_get(res, "runs_here")))
		return json_null();
	if (!(c = db_reader(r->app->db)) ||
	    forecast_for_ceiling(c, VALIDATE_SUITE, in->m->id, in->hw_slug, NULL, ceiling, in->f->id,
				json_string_value(json_object_get(m, "hardware_name")), &p) < 0 ||
	    !(o = json_object()) || forecast_json_fields(o, &p) < 0) {
		*failed = 1;
		return json_null();
	}
	json_object_set_new(o, "label", json_string("predicted"));
	json_object_set_new(o, "has_figure", json_boolean(p.step != PREDICT_NONE));
	json_object_set_new(o, "text", forecast_text_json(&p));
	json_object_set_new(o, "efficiency_pct", p.step != PREDICT_NONE ?
		json_real(round(p.efficiency * 1000) / 10) : json_null());
	return o;
}

/* The inputs as the answer echoes them (and the form is filled from). */
static json_t *inputs_json(const struct fit_in *in)
{
	json_t *o = json_pack("{s:s?, s:s, s:s, s:s, s:I, s:I, s:f, s:f}",
		"hw", in->hw_slug, "model", in->m->id, "format", in->f->id, "kv", in->kv->id,
		"context", (json_int_t)in->context, "batch", (json_int_t)in->batch,
		"sustained", in->sustained, "overhead_gb", in->overhead_gb);

	json_object_set_new(o, "memory_gb", in->memory_gb > 0 ? json_real(in->memory_gb) : json_null());
	json_object_set_new(o, "bandwidth_gb_s", in->peak_gb_s > 0 ? json_real(in->peak_gb_s) : json_null());
	/* As the form's text fields show them: empty when unknown. */
	json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o, s:o}",
		"memory_gb", in->memory_gb > 0 ? ceiling_fmt3_json(in->memory_gb) : json_string(""),
		"bandwidth_gb_s", in->peak_gb_s > 0 ? ceiling_fmt3_json(in->peak_gb_s) : json_string(""),
		"sustained", ceiling_fmt3_json(in->sustained),
		"overhead_gb", ceiling_fmt3_json(in->overhead_gb)));
	return o;
}

/* What the answer rests on, stated. */
static json_t *assumptions_json(const struct fit_in *in)
{
	return json_pack("{s:f, s:f, s:f, s:s?, s:s, s:s, s:s, s:s}",
		"overhead_gb", in->overhead_gb, "sustained_fraction", in->sustained,
		"bits_per_weight", in->f->bits,
		"hardware_source", in->hw ? in->hw->source : NULL,
		"model_source", in->m->source, "format_source", in->f->source,
		"kv_source", in->kv->source,
		"units", "GB is 10^9 bytes, GB/s 10^9 bytes a second; K is 1,024 tokens.");
}

/* The inputs of r into in.  A page for people reads a refused argument
 * as absent and goes on, with its sentence in *errors ({argument:
 * sentence}, a new object: the form shows each under its field); JSON
 * is refused at the first.  0, or -1 with e set. */
static int parse(struct req *r, struct fit_in *in, json_t **errors, struct err *e)
{
	*errors = NULL;
	for (;;) {
		const char *skip[FIT_ARGS];
		int nskip = in->nskip;

		memcpy(skip, in->skip, sizeof skip);
		memset(in, 0, sizeof *in);
		memcpy(in->skip, skip, sizeof skip);
		in->nskip = nskip;
		if (parse_choices(r, in, e) == 0 && parse_figures(r, in, e) == 0)
			return 0;
		if (!r->html || e->status != 400 || !e->field[0] || in->nskip == FIT_ARGS ||
		    skipped(in, e->field))
			goto refused;
		if (!*errors && !(*errors = json_object()))
			goto refused;
		if (!strcmp(e->field, "model") || !strcmp(e->field, "format") || !strcmp(e->field, "kv"))
			/* A list's field: its entries are the choices, on the form. */
			snprintf(e->message, sizeof e->message, "The %s= value \"%.200s\" is not one the calculator knows; choose one from the list.",
				 e->field, http_query(r, e->field) ? http_query(r, e->field) : "");
		json_object_set_new(*errors, e->field, json_string(e->message));
		/* The field's name: a static string of the query's arguments. */
		in->skip[in->nskip++] = json_object_iter_key(json_object_iter_at(*errors, e->field));
		*e = (struct err)ERR_INIT;
	}
refused:
	json_decref(*errors);
	*errors = NULL;
	return -1;
}

/* The text fields as the form shows them: what was typed where it was
 * refused, else the inputs. */
static json_t *values_json(struct req *r, const json_t *inputs, const json_t *errors)
{
	static const char *const k[] = { "memory_gb", "bandwidth_gb_s", "sustained", "overhead_gb",
					 "context", "batch" };
	const json_t *text = json_object_get(inputs, "text");
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < sizeof k / sizeof k[0]; i++) {
		const char *typed = http_query(r, k[i]);

		if (json_object_get(errors, k[i]) && typed)
			json_object_set_new(o, k[i], json_string(typed));
		else if (json_object_get(text, k[i]))
			json_object_set(o, k[i], json_object_get(text, k[i]));
		else
			json_object_set(o, k[i], json_object_get(inputs, k[i]));
	}
	return o;
}

/* The view model of /fit, or NULL with e set (field NULL: no memory or
 * no database, a 503).  *status: 400 when a page for people shows the
 * form with its refused arguments, else 200. */
static json_t *fit_model(struct req *r, struct err *e, unsigned *status)
{
	const struct ceiling_ref *ref = r->app->ref;
	struct fit_in in = { 0 };
	json_t *m, *errors;
	int failed;

	*status = 200;
	if (!ref) {
		err_unavailable(e, "The calculator's reference data is not loaded on this server; try again later.");
		return NULL;
	}
	if (parse(r, &in, &errors, e) < 0)
		return NULL;
	m = json_pack("{s:s, s:o, s:o, s:o}", "title", "Will it fit?",
		"inputs", inputs_json(&in), "result", result_json(&in),
		"assumptions", assumptions_json(&in));
	json_object_set_new(m, "hardware", in.hw ? json_pack("{s:s, s:s, s:f, s:f, s:f}",
		"slug", in.hw->slug, "name", in.hw->name, "memory_gb", in.hw->memory_gb,
		"peak_gb_s", in.hw->peak_gb_s, "sustained_fraction", in.hw->sustained) : json_null());
	json_object_set_new(m, "hardware_unknown", json_boolean(in.hw_slug && !in.hw));
	json_object_set_new(m, "hardware_name", hw_display_name(r, &in));
	json_object_set_new(m, "model", json_pack("{s:s, s:s, s:f, s:f, s:s}", "id", in.m->id,
		"name", in.m->name, "total_params", in.m->total_params,
		"active_params", in.m->active_params, "attention", in.m->pattern));
	json_object_set_new(m, "runs", measured_runs(r, &in, &failed));
	json_object_set_new(m, "has_runs", json_boolean(json_array_size(json_object_get(m, "runs")) > 0));
	if (errors) {
		/* No answer to a question asked wrong: the form, to fix it. */
		json_object_del(m, "result");
		*status = 400;
	} else if (!failed) {
		json_object_set_new(m, "prediction", prediction(r, &in, m, &failed));
	}
	json_object_set_new(m, "values", values_json(r, json_object_get(m, "inputs"), errors));
	json_object_set_new(m, "errors", errors ? errors : json_object());
	json_object_set_new(m, "has_errors", json_boolean(errors != NULL));
	json_object_set_new(m, "options", json_pack("{s:o, s:o, s:o, s:o}",
		"hardware", options(ref, L_HW, in.hw_slug), "models", options(ref, L_MODEL, in.m->id),
		"formats", options(ref, L_FORMAT, in.f->id), "kv_types", options(ref, L_KV, in.kv->id)));
	if (failed) {
		json_decref(m);
		err_unavailable(e, MSG_DB_DOWN);
		return NULL;
	}
	return m;
}

/* GET /fit and /fit.json: the form and the answer; for /fit.json NULL with
 * a 400 naming the argument that is malformed or unknown; /fit answers
 * that 400 with the form, each refused argument's sentence under its
 * field and no answer; NULL with a 503 without reference data or
 * database. */
json_t *page_fit_view(struct page_view *v)
{
	unsigned status;
	json_t *m = fit_model(v->r, &v->err, &status);

	if (m && status != 200) {
		v->tmpl = "fit";
		v->status = status;
	}
	return m;
}
