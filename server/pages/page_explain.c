/* page_explain.c: /explain/quantization, why smaller weights speed decode
 * up and a smaller KV cache mostly does not; every table on it computed by
 * ceiling.c for the model, context and bandwidth the form asks for. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "domain/ceiling.h"
#include "util/nelem.h"

#define EXPLAIN_MODEL   "llama-3-1-8b"
#define EXPLAIN_CONTEXT 8192     /* 8K, the context of the explainer's table */
#define EXPLAIN_HW      "m2"     /* the 100 GB/s laptop the table assumes */
#define EXPLAIN_CROSS_FORMAT "q4_k_m"

/* The weight-format ladder: each format's bits, file size, bytes read per
 * step and ceiling, with an FP16 cache. */
static json_t *format_rows(const struct ceiling_ref *ref, const struct ceiling_model *m,
			   double kv_bits, double context, double bw)
{
	const struct ceiling_bits *f;
	struct ceiling_step s;
	json_t *rows = json_array();
	size_t i;

	for (i = 0; (f = ceiling_explainer_format(ref, i)); i++) {
		ceiling_step(m, f->bits, kv_bits, context, 1, bw, &s);
		json_array_append_new(rows, json_pack("{s:s, s:f, s:o, s:f, s:o, s:f, s:o, s:f, s:o}",
			"format", f->name, "bits", f->bits, "bits_text", ceiling_fmt3_json(f->bits),
			"download_gb", s.weights / CEILING_GB, "download_text", ceiling_fmt3_json(s.weights / CEILING_GB),
			"read_gb", s.read / CEILING_GB, "read_text", ceiling_fmt3_json(s.read / CEILING_GB),
			"ceiling_tok_s", s.tok_s, "ceiling_text", ceiling_fmt3_json(s.tok_s)));
	}
	return rows;
}

/* x with two decimals and "x", as a new JSON string ("2.88x"). */
static json_t *times(double x)
{
	char s[32];

	snprintf(s, sizeof s, "%.2fx", x);
	return json_string(s);
}

/* The two levers from FP16 weights and an FP16 cache: weights alone to
 * Q4_K_M, or the cache alone to q4_0; and the cache's share of the step. */
static json_t *levers(const struct ceiling_ref *ref, const struct ceiling_model *m,
		      double context, double bw)
{
	double fp16 = ceiling_format(ref, "fp16")->bits, q4 = ceiling_format(ref, "q4_k_m")->bits;
	double f16kv = ceiling_kv(ref, "f16")->bits, q4kv = ceiling_kv(ref, "q4_0")->bits;
	struct ceiling_step base, w, c;
	char share[16], share_fp16[16];

	ceiling_step(m, fp16, f16kv, context, 1, bw, &base);
	ceiling_step(m, q4, f16kv, context, 1, bw, &w);
	ceiling_step(m, fp16, q4kv, context, 1, bw, &c);
	snprintf(share, sizeof share, "%.0f%%", 100 * (w.kv + w.state) / w.read);
	snprintf(share_fp16, sizeof share_fp16, "%.0f%%", 100 * (base.kv + base.state) / base.read);
	return json_pack("{s:f, s:f, s:o, s:o, s:s, s:s}",
		"weights_speedup", w.tok_s / base.tok_s, "cache_speedup", c.tok_s / base.tok_s,
		"weights_text", times(w.tok_s / base.tok_s), "cache_text", times(c.tok_s / base.tok_s),
		"cache_share_q4", share, "cache_share_fp16", share_fp16);
}

/* Every model's crossover context at Q4_K_M weights and an FP16 cache, in
 * K of 1,024 tokens: against the whole file and against what a step reads. */
static json_t *crossover_rows(const struct ceiling_ref *ref, const char *sel)
{
	double wb = ceiling_format(ref, EXPLAIN_CROSS_FORMAT)->bits, kb = ceiling_kv(ref, "f16")->bits;
	const struct ceiling_model *m;
	json_t *rows = json_array();
	size_t i;

	for (i = 0; (m = ceiling_explainer_model(ref, i)); i++) {
		double file = ceiling_crossover(m, wb, kb, 0) / CEILING_K;
		double read = ceiling_crossover(m, wb, kb, 1) / CEILING_K;

		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:o, s:f, s:o, s:f, s:o, s:b, s:b}",
			"id", m->id, "model", m->name, "attention", m->pattern,
			"full_layers", m->full_layers, "layers", m->layers,
			"kv_per_token_kib", ceiling_kv_token_bytes(m, kb) / 1024,
			"kv_per_token_text", ceiling_fmt3_json(ceiling_kv_token_bytes(m, kb) / 1024),
			"crossover_k", file, "crossover_text", ceiling_fmt3_json(file),
			"crossover_read_k", read, "crossover_read_text", ceiling_fmt3_json(read),
			"moe", m->active_params < m->total_params, "selected", !strcmp(m->id, sel)));
	}
	return rows;
}

/* The view model, or NULL with *field naming the bad argument (NULL: no
 * reference data, a 503). */
static json_t *explain_model(struct req *r, const char **field)
{
	const struct ceiling_ref *ref = r->app->ref;
	const struct ceiling_hw *hw = ceiling_hw(ref, EXPLAIN_HW);
	const struct ceiling_model *m;
	const char *id = http_query(r, "model");
	double context = EXPLAIN_CONTEXT, bw_gb;
	json_t *o, *models;
	size_t i;

	*field = NULL;
	if (!ref || !hw || !ceiling_format(ref, "fp16") || !ceiling_format(ref, "q4_k_m") ||
	    !ceiling_kv(ref, "f16") || !ceiling_kv(ref, "q4_0"))
		return NULL;
	bw_gb = ceiling_sustained(hw) / CEILING_GB;
	m = ceiling_model(ref, id && *id ? id : EXPLAIN_MODEL);
	if (!m)
		*field = "model";
	else if (page_fit_number(r, "context", 1, 10000000, 1, &context) < 0)
		*field = "context";
	else if (page_fit_number(r, "bandwidth_gb_s", 0.001, 1e5, 0, &bw_gb) < 0)
		*field = "bandwidth_gb_s";
	if (*field)
		return NULL;
	models = json_array();
	for (i = 0; ceiling_model_at(ref, i); i++)
		json_array_append_new(models, json_pack("{s:s, s:s, s:b}", "id", ceiling_model_at(ref, i)->id,
			"name", ceiling_model_at(ref, i)->name, "selected", ceiling_model_at(ref, i) == m));
	o = json_pack("{s:s, s:{s:s, s:s, s:I, s:o, s:f, s:o}, s:o, s:o, s:o, s:o}",
		"title", "Quantization: weights, cache and speed",
		"inputs", "model", m->id, "model_name", m->name, "context", (json_int_t)context,
		"context_k", ceiling_fmt3_json(context / CEILING_K), "bandwidth_gb_s", bw_gb,
		"bandwidth_text", ceiling_fmt3_json(bw_gb),
		"formats", format_rows(ref, m, ceiling_kv(ref, "f16")->bits, context, bw_gb * CEILING_GB),
		"levers", levers(ref, m, context, bw_gb * CEILING_GB),
		"crossovers", crossover_rows(ref, m->id), "models", models);
	json_object_set_new(o, "reference_hw", json_pack("{s:s, s:o, s:o, s:o}", "name", hw->name,
		"peak_text", ceiling_fmt3_json(hw->peak_gb_s),
		"percent_text", ceiling_fmt3_json(100 * hw->sustained),
		"sustained_text", ceiling_fmt3_json(ceiling_sustained(hw) / CEILING_GB)));
	return o;
}

/* GET /explain/quantization: the explainer for ?model=, ?context=
 * (tokens) and ?bandwidth_gb_s= (sustained); NULL with a 400 naming the
 * argument that is unknown or out of range, a 503 without reference data. */
json_t *page_explain_quantization_view(struct page_view *v)
{
	static const struct { const char *field, *message; } why[] = {
		{ "model", "The model= argument must be one of the models in the form's list, such as llama-3-1-8b." },
		{ "context", "The context= argument must be a whole number of tokens from 1 to 10000000 (8K is 8192)." },
		{ "bandwidth_gb_s", "The bandwidth_gb_s= argument must be the sustained bandwidth in GB/s, a number above 0 and at most 100000." },
	};
	const char *field;
	json_t *m = explain_model(v->r, &field);
	size_t i;

	if (m)
		return m;
	for (i = 0; field && i < NELEM(why); i++)
		if (!strcmp(why[i].field, field)) {
			err_set(&v->err, 400, NULL, NULL, "%s", why[i].message);
			return NULL;
		}
	err_unavailable(&v->err, "The explainer's reference data is not loaded on this server; try again later.");
	return NULL;
}
