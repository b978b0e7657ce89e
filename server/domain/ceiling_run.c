/* ceiling_run.c: a measured run beside its bandwidth ceiling: exact when
 * the run names its quantization, a range over its weights format's usual
 * quantizations when it does not, and the margin past which a run is
 * flagged "above the bandwidth ceiling". */
#include "domain/ceiling.h"

#include <math.h>
#include <string.h>

int ceiling_of_run(const struct ceiling_ref *ref, const char *model_slug,
		   const char *quant, const char *hw_slug, double context,
		   struct ceiling_run *out)
{
	memset(out, 0, sizeof *out);
	out->m = ceiling_model_by_slug(ref, model_slug);
	out->f = ceiling_format(ref, quant);
	out->kv = ceiling_kv(ref, "f16");
	out->hw = ceiling_hw(ref, hw_slug);
	if (!out->m || !out->f || !out->kv || !out->hw || !(context > 0))
		return -1;
	out->context = context;
	out->bandwidth = ceiling_sustained(out->hw);
	ceiling_step(out->m, out->f->bits, out->kv->bits, context, 1, out->bandwidth, &out->step);
	return 0;
}

json_t *ceiling_run_json(const struct ceiling_run *c, double measured)
{
	const struct ceiling_step *s = &c->step;
	json_t *o, *t;

	o = json_pack("{s:s, s:s, s:s, s:f, s:s, s:s, s:f, s:f, s:f, s:I, s:f, s:f, s:f, s:f, s:f}",
		"model", c->m->id, "model_name", c->m->name, "format", c->f->name,
		"bits_per_weight", c->f->bits, "hardware", c->hw->slug, "hardware_name", c->hw->name,
		"peak_gb_s", c->hw->peak_gb_s, "sustained_fraction", c->hw->sustained,
		"bandwidth_gb_s", c->bandwidth / CEILING_GB, "context_tokens", (json_int_t)c->context,
		"weights_read_gb", s->read_weights / CEILING_GB, "kv_cache_gb", s->kv / CEILING_GB,
		"state_gb", s->state / CEILING_GB, "read_gb", s->read / CEILING_GB,
		"ceiling_tok_s", s->tok_s);
	t = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
		"bandwidth_gb_s", ceiling_fmt3_json(c->bandwidth / CEILING_GB),
		"weights_read_gb", ceiling_fmt3_json(s->read_weights / CEILING_GB),
		"kv_cache_gb", ceiling_fmt3_json(s->kv / CEILING_GB),
		"state_gb", ceiling_fmt3_json(s->state / CEILING_GB),
		"read_gb", ceiling_fmt3_json(s->read / CEILING_GB),
		"ceiling_tok_s", ceiling_fmt3_json(s->tok_s));
	if (!o || !t) {
		json_decref(o);
		json_decref(t);
		return NULL;
	}
	if (measured > 0) {
		json_object_set_new(o, "measured_tok_s", json_real(measured));
		json_object_set_new(o, "percent_of_ceiling", json_real(100 * measured / s->tok_s));
		json_object_set_new(t, "percent_of_ceiling",
				    ceiling_fmt3_json(100 * measured / s->tok_s));
	} else {
		json_object_set_new(o, "measured_tok_s", json_null());
		json_object_set_new(o, "percent_of_ceiling", json_null());
	}
	json_object_set_new(o, "text", t);
	return o;
}

int ceiling_range_of_run(const struct ceiling_ref *ref, const char *model_slug,
			 const char *quant, const char *format, const char *hw_slug,
			 double context, struct ceiling_range *out)
{
	const struct ceiling_family *fam;

	memset(out, 0, sizeof *out);
	if (quant && ceiling_format(ref, quant)) {
		if (ceiling_of_run(ref, model_slug, quant, hw_slug, context, &out->low) < 0)
			return -1;
		out->high = out->low;
		return 0;
	}
	/* No label the data knows: the range of the format's family, when the
	 * format is one the data knows. */
	if (!(fam = ceiling_family(ref, format)) ||
	    ceiling_of_run(ref, model_slug, fam->heaviest->id, hw_slug, context, &out->low) < 0 ||
	    ceiling_of_run(ref, model_slug, fam->lightest->id, hw_slug, context, &out->high) < 0)
		return -1;
	out->family = fam;
	return 0;
}

int ceiling_above(const struct ceiling_range *c, double measured)
{
	return measured > c->high.step.tok_s;
}

int ceiling_flags(const struct ceiling_range *c, double measured)
{
	return measured > CEILING_FLAG_FACTOR * c->high.step.tok_s;
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
		range = json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:{s:o, s:o}}",
			"family", c->family->name, "source", c->family->source,
			"low_tok_s", c->low.step.tok_s, "high_tok_s", c->high.step.tok_s,
			"low_format", c->low.f->name, "high_format", c->high.f->name,
			"text", "low_tok_s", ceiling_fmt3_json(c->low.step.tok_s),
			"high_tok_s", ceiling_fmt3_json(c->high.step.tok_s));
	json_object_set_new(o, "range", range ? range : json_null());
	json_object_set_new(o, "above", json_boolean(measured > 0 && ceiling_above(c, measured)));
	json_object_set_new(o, "flag_factor", json_real(CEILING_FLAG_FACTOR));
	json_object_set_new(json_object_get(o, "text"), "ceiling", range_text(c));
	return o;
}
