/* ceiling_run.c: a measured run beside its bandwidth ceiling: exact when
 * the run names its quantization, a range over its weights format's usual
 * quantizations when it does not, and the margin past which a run is
 * flagged "above the bandwidth ceiling". */
#include "domain/ceiling.h"
#include "domain/resolve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The format a stored quantization names: a format of the data, or for a
 * label with its own bits ("EXL2-4.0bpw") its family's first format as a
 * template, with *bits from the label.  NULL when unknown. */
static const struct ceiling_bits *format_of(const struct ceiling_ref *ref, const char *quant,
					    double *bits, char *name, size_t n)
{
	const struct ceiling_bits *f = ceiling_format(ref, quant);
	struct resolve_quant q;

	if (f) {
		*bits = f->bits;
		snprintf(name, n, "%s", f->name);
		return f;
	}
	if (!quant || resolve_quant(ref, quant, NULL, NULL, NULL, &q) < 0)
		return NULL;
	*bits = q.bits;
	snprintf(name, n, "%s", q.name);
	return q.f ? q.f : ceiling_lightest(ref);
}

/* Fills out for model m, format f (bits a weight), hardware hw at the
 * peak bandwidth peak_gb_s (a bin's or the part's). */
static void run_at(const struct ceiling_model *m, const struct ceiling_bits *f,
		   const struct ceiling_bits *kv, const struct ceiling_hw *hw,
		   const struct ceiling_bin *bin, double context, struct ceiling_run *out)
{
	struct ceiling_step peak;
	double peak_gb_s = bin ? bin->peak_gb_s : hw->peak_gb_s;

	out->m = m;
	out->kv = kv;
	out->hw = hw;
	out->bin = bin;
	out->context = context;
	out->peak = peak_gb_s * CEILING_GB;
	out->bandwidth = out->peak * hw->sustained;
	if (f && out->bits != out->bits)
		out->bits = f->bits;
	ceiling_step(m, out->bits, kv->bits, context, 1, out->bandwidth, &out->step);
	ceiling_step(m, out->bits, kv->bits, context, 1, out->peak, &peak);
	out->peak_tok_s = peak.tok_s;
}

/* Fills out for the model, quantization and hardware by their names,
 * at bin (1 + index, 0: the part's own figures). */
static int run_named(const struct ceiling_ref *ref, const char *model_slug, const char *quant,
		     const char *hw_slug, int bin, double context, struct ceiling_run *out)
{
	double label_bits = NAN;

	memset(out, 0, sizeof *out);
	out->m = ceiling_model_by_slug(ref, model_slug);
	out->f = format_of(ref, quant, &label_bits, out->format_name, sizeof out->format_name);
	out->kv = ceiling_kv(ref, "f16");
	out->hw = ceiling_hw(ref, hw_slug);
	if (!out->m || !out->f || !out->kv || !out->hw || !(context > 0))
		return -1;
	/* A label's own bits stand for the whole file (ceiling_model_bits
	 * applies a native share to formats of the data only). */
	out->bits = ceiling_format(ref, quant) ? ceiling_model_bits(out->m, out->f, 0) : label_bits;
	run_at(out->m, out->f, out->kv, out->hw,
	       bin > 0 && (size_t)bin <= out->hw->nbins ? &out->hw->bins[bin - 1] : NULL,
	       context, out);
	return 0;
}

int ceiling_of_run(const struct ceiling_ref *ref, const char *model_slug,
		   const char *quant, const char *hw_slug, double context,
		   struct ceiling_run *out)
{
	return run_named(ref, model_slug, quant, hw_slug, 0, context, out);
}

json_t *ceiling_run_json(const struct ceiling_run *c, double measured)
{
	const struct ceiling_step *s = &c->step;
	json_t *o, *t;

	o = json_pack("{s:s, s:s, s:s, s:f, s:s, s:s, s:f, s:f, s:f, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:o}",
		"model", c->m->id, "model_name", c->m->name, "format", c->format_name,
		"bits_per_weight", c->bits, "hardware", c->hw->slug, "hardware_name", c->hw->name,
		"peak_gb_s", c->peak / CEILING_GB, "sustained_fraction", c->hw->sustained,
		"bandwidth_gb_s", c->bandwidth / CEILING_GB, "context_tokens", (json_int_t)c->context,
		"weights_read_gb", s->read_weights / CEILING_GB, "kv_cache_gb", s->kv / CEILING_GB,
		"state_gb", s->state / CEILING_GB, "read_gb", s->read / CEILING_GB,
		"ceiling_tok_s", s->tok_s, "peak_tok_s", c->peak_tok_s,
		"bin", c->bin ? json_string(c->bin->name) : json_null());
	t = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"bandwidth_gb_s", ceiling_fmt3_json(c->bandwidth / CEILING_GB),
		"peak_gb_s", ceiling_fmt3_json(c->peak / CEILING_GB),
		"weights_read_gb", ceiling_fmt3_json(s->read_weights / CEILING_GB),
		"kv_cache_gb", ceiling_fmt3_json(s->kv / CEILING_GB),
		"state_gb", ceiling_fmt3_json(s->state / CEILING_GB),
		"read_gb", ceiling_fmt3_json(s->read / CEILING_GB),
		"ceiling_tok_s", ceiling_fmt3_json(s->tok_s),
		"peak_tok_s", ceiling_fmt3_json(c->peak_tok_s));
	if (!o || !t) {
		json_decref(o);
		json_decref(t);
		return NULL;
	}
	if (measured > 0) {
		json_object_set_new(o, "measured_tok_s", json_real(measured));
		json_object_set_new(o, "percent_of_ceiling", json_real(100 * measured / s->tok_s));
		json_object_set_new(o, "percent_of_peak", json_real(100 * measured / c->peak_tok_s));
		json_object_set_new(t, "percent_of_ceiling",
				    ceiling_fmt3_json(100 * measured / s->tok_s));
		json_object_set_new(t, "percent_of_peak",
				    ceiling_fmt3_json(100 * measured / c->peak_tok_s));
	} else {
		json_object_set_new(o, "measured_tok_s", json_null());
		json_object_set_new(o, "percent_of_ceiling", json_null());
		json_object_set_new(o, "percent_of_peak", json_null());
	}
	json_object_set_new(o, "text", t);
	return o;
}

/* The slowest and fastest bins of hw (the part's own figures when it
 * has no bins, or bin when it is known). */
static void bin_ends(const struct ceiling_hw *hw, int bin, int *lo, int *hi)
{
	size_t i;

	*lo = *hi = bin > 0 && (size_t)bin <= hw->nbins ? bin : 0;
	if (*lo)
		return;
	for (i = 0; i < hw->nbins; i++) {
		if (!*lo || hw->bins[i].peak_gb_s < hw->bins[*lo - 1].peak_gb_s)
			*lo = (int)i + 1;
		if (!*hi || hw->bins[i].peak_gb_s > hw->bins[*hi - 1].peak_gb_s)
			*hi = (int)i + 1;
	}
	/* The part's own figures are its fastest bin's when it lists none
	 * faster. */
	if (*hi && hw->bins[*hi - 1].peak_gb_s < hw->peak_gb_s)
		*hi = 0;
}

int ceiling_range_of_run_bin(const struct ceiling_ref *ref, const char *model_slug,
			     const char *quant, const char *format, const char *hw_slug,
			     int bin, double context, struct ceiling_range *out)
{
	const struct ceiling_family *fam = NULL;
	const struct ceiling_hw *hw = ceiling_hw(ref, hw_slug);
	const char *heavy = quant, *light = quant;
	int lo, hi;

	memset(out, 0, sizeof *out);
	if (!hw)
		return -1;
	if (!quant || !format_of(ref, quant, &(double){ 0 }, (char[32]){ 0 }, 32)) {
		/* No label the data knows: the range of the format's family,
		 * when the format is one the data knows. */
		if (!(fam = ceiling_family(ref, format)))
			return -1;
		heavy = fam->heaviest->id;
		light = fam->lightest->id;
	}
	bin_ends(hw, bin, &lo, &hi);
	if (run_named(ref, model_slug, heavy, hw_slug, lo, context, &out->low) < 0 ||
	    run_named(ref, model_slug, light, hw_slug, hi, context, &out->high) < 0)
		return -1;
	out->family = fam;
	out->over_bins = lo != hi;
	return 0;
}

int ceiling_range_of_run(const struct ceiling_ref *ref, const char *model_slug,
			 const char *quant, const char *format, const char *hw_slug,
			 double context, struct ceiling_range *out)
{
	return ceiling_range_of_run_bin(ref, model_slug, quant, format, hw_slug, 0, context, out);
}

int ceiling_above(const struct ceiling_range *c, double measured)
{
	return !c->family && measured > c->high.peak_tok_s;
}

double ceiling_flag_bound(const struct ceiling_ref *ref, const char *model_slug,
			  const char *quant, const char *hw_slug, int bin, double context)
{
	const struct ceiling_hw *hw = ceiling_hw(ref, hw_slug);
	const struct ceiling_bits *light = ceiling_lightest(ref);
	struct ceiling_run c;
	int lo, hi;

	if (!hw || !light)
		return INFINITY;
	bin_ends(hw, bin, &lo, &hi);
	if (run_named(ref, model_slug, quant, hw_slug, hi, context, &c) < 0 &&
	    run_named(ref, model_slug, light->id, hw_slug, hi, context, &c) < 0)
		return INFINITY;
	return CEILING_FLAG_FACTOR * c.peak_tok_s;
}

/* "150–290", or "165" when the two ends print alike. */
static json_t *range_text(const struct ceiling_range *c)
{
	struct buf b = BUF_INIT, hi = BUF_INIT;
	json_t *s;

	ceiling_fmt3(&b, c->low.step.tok_s);
	ceiling_fmt3(&hi, c->high.step.tok_s);
	if (strcmp(b.buf, hi.buf)) {
		buf_puts(&b, "\xe2\x80\x93");
		buf_puts(&b, hi.buf);
	}
	s = buf_error(&b) || buf_error(&hi) ? NULL : json_string(b.buf);
	buf_release(&b);
	buf_release(&hi);
	return s;
}

json_t *ceiling_range_json(const struct ceiling_range *c, double measured)
{
	json_t *o = ceiling_run_json(&c->high, measured), *range = json_null();

	if (!o)
		return NULL;
	if (c->family)
		range = json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:b, s:{s:o, s:o}}",
			"family", c->family->name, "source", c->family->source,
			"low_tok_s", c->low.step.tok_s, "high_tok_s", c->high.step.tok_s,
			"low_format", c->low.format_name, "high_format", c->high.format_name,
			"over_bins", c->over_bins,
			"text", "low_tok_s", ceiling_fmt3_json(c->low.step.tok_s),
			"high_tok_s", ceiling_fmt3_json(c->high.step.tok_s));
	else if (c->over_bins)
		range = json_pack("{s:n, s:n, s:f, s:f, s:s, s:s, s:b, s:{s:o, s:o}}",
			"family", "source",
			"low_tok_s", c->low.step.tok_s, "high_tok_s", c->high.step.tok_s,
			"low_format", c->low.format_name, "high_format", c->high.format_name,
			"over_bins", 1,
			"text", "low_tok_s", ceiling_fmt3_json(c->low.step.tok_s),
			"high_tok_s", ceiling_fmt3_json(c->high.step.tok_s));
	json_object_set_new(o, "range", range ? range : json_null());
	json_object_set_new(o, "above", json_boolean(measured > 0 && ceiling_above(c, measured)));
	json_object_set_new(o, "peak_tok_s", json_real(c->high.peak_tok_s));
	json_object_set_new(o, "flag_factor", json_real(CEILING_FLAG_FACTOR));
	json_object_set_new(json_object_get(o, "text"), "ceiling", range_text(c));
	json_object_set_new(json_object_get(o, "text"), "low_tok_s", ceiling_fmt3_json(c->low.step.tok_s));
	json_object_set_new(json_object_get(o, "text"), "high_tok_s", ceiling_fmt3_json(c->high.step.tok_s));
	return o;
}

int ceiling_fit(const struct ceiling_ref *ref, const struct ceiling_model *m,
		const struct ceiling_bits *f, const struct ceiling_hw *hw, int bin, double context,
		double overhead_gb, struct ceiling_fit *out)
{
	const struct ceiling_bits *kv = ceiling_kv(ref, "f16");
	const struct ceiling_bin *b = bin > 0 && hw && (size_t)bin <= hw->nbins ? &hw->bins[bin - 1] : NULL;
	double need;

	memset(out, 0, sizeof *out);
	if (!m || !f || !hw || !kv)
		return -1;
	need = ceiling_weight_bytes(m, ceiling_model_bits(m, f, 1)) + ceiling_kv_bytes(m, kv->bits, context) +
	       ceiling_state_bytes(m) + overhead_gb * CEILING_GB;
	out->need_gb = need / CEILING_GB;
	out->have_gb = b && b->memory_gb > 0 ? b->memory_gb : hw->memory_gb;
	out->fits = out->need_gb <= out->have_gb;
	return 0;
}

json_t *ceiling_fit_json(const struct ceiling_fit *fit, const struct ceiling_bits *f, double context)
{
	struct buf b = BUF_INIT;
	json_t *o;

	buf_puts(&b, "needs ");
	ceiling_fmt3(&b, fit->need_gb);
	buf_printf(&b, " GB with %s weights and a %.0f-token context; this machine has ", f->name, context);
	ceiling_fmt3(&b, fit->have_gb);
	buf_puts(&b, " GB");
	o = json_pack("{s:b, s:f, s:f, s:s, s:I, s:{s:o, s:o, s:s}}", "fits", fit->fits,
		"need_gb", fit->need_gb, "have_gb", fit->have_gb, "format", f->name,
		"context_tokens", (json_int_t)context, "text", "need_gb", ceiling_fmt3_json(fit->need_gb),
		"have_gb", ceiling_fmt3_json(fit->have_gb), "sentence", buf_error(&b) ? "" : b.buf);
	buf_release(&b);
	return o;
}
