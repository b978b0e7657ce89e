/* ceiling.c: decode's memory-bandwidth ceiling, memory fit and the cache
 * crossover, over the reference data of static/reference/.
 *
 * The bandwidth the explainer's table divides by: its FP16 row reads 17.07
 * GB per token (16.0 GB of weights and 1.07 GB of cache at 8K) and tops out
 * at 4.69 tok/s, so it assumes 80 GB/s of sustained reads on a 100 GB/s
 * M2.  Its text also says decode reaches 90% of the chip's sustained read
 * rate; that 90% is of a sustained rate which is itself below the 100 GB/s
 * peak (about 89 GB/s), and 0.9 x 89 lands on the same 80.  One number
 * carries both here: hardware.json's sustained_fraction, 0.80 of peak. */
#include "domain/ceiling.h"
#include "util/numfmt.h"
#include "util/sha256.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ENTRIES 64

struct ceiling_ref {
	json_t *hw_root, *model_root, *format_root;
	struct ceiling_family family[MAX_ENTRIES];
	struct ceiling_hw hw[MAX_ENTRIES];
	struct ceiling_model model[MAX_ENTRIES];
	json_t *slugs[MAX_ENTRIES];
	struct ceiling_bits format[MAX_ENTRIES];
	json_t *aliases[MAX_ENTRIES];
	struct ceiling_bits kv[MAX_ENTRIES];
	size_t nhw, nmodel, nformat, nkv, nfamily;
};

/* Member k of o as a number, or NaN. */
static double num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int int_of(const json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Reads dir/name into *root and returns its member key (an object), or
 * NULL with err set. */
static json_t *load_file(const char *dir, const char *name, const char *key,
			 json_t **root, struct err *err)
{
	char path[4096];
	json_error_t je;
	json_t *o;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	*root = json_load_file(path, 0, &je);
	if (!*root) {
		err_internal(err, "%s: %s (line %d)", path, je.text, je.line);
		return NULL;
	}
	o = json_object_get(*root, key);
	if (!json_is_object(o) || json_object_size(o) > MAX_ENTRIES) {
		err_internal(err, "%s: \"%s\" must be an object of at most %d entries",
			 path, key, MAX_ENTRIES);
		return NULL;
	}
	return o;
}

static int load_hw(struct ceiling_ref *ref, json_t *o, struct err *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		struct ceiling_hw *h = &ref->hw[ref->nhw];

		*h = (struct ceiling_hw){ k, str(v, "name"), str(v, "source"),
			num(v, "memory_gb"), num(v, "peak_gb_s"), num(v, "sustained_fraction") };
		if (!h->name || !(h->memory_gb > 0) || !(h->peak_gb_s > 0) ||
		    !(h->sustained > 0 && h->sustained <= 1)) {
			err_internal(err, "hardware.json: entry %s lacks name, memory_gb, peak_gb_s or sustained_fraction", k);
			return -1;
		}
		ref->nhw++;
	}
	return 0;
}

static int load_models(struct ceiling_ref *ref, json_t *o, struct err *err)
{
	const char *k;
	json_t *v, *a;

	json_object_foreach(o, k, v) {
		struct ceiling_model *m = &ref->model[ref->nmodel];

		a = json_object_get(v, "attention");
		*m = (struct ceiling_model){ k, str(v, "name"), str(a, "pattern"), str(v, "source"),
			num(v, "total_params"), num(v, "active_params"),
			int_of(v, "layers"), int_of(v, "kv_heads"), int_of(v, "head_dim"),
			int_of(a, "full_layers"), int_of(a, "sliding_layers"), int_of(a, "window"),
			int_of(a, "fixed_state_layers"), 0 };
		m->fixed_bytes = m->fixed_layers ? num(a, "fixed_state_bytes") : 0;
		ref->slugs[ref->nmodel] = json_object_get(v, "slugs");
		if (!m->name || !m->pattern || !(m->total_params > 0) || !(m->active_params > 0) ||
		    m->kv_heads <= 0 || m->head_dim <= 0 || !(m->fixed_bytes >= 0) ||
		    !json_is_array(ref->slugs[ref->nmodel])) {
			err_internal(err, "models.json: entry %s is incomplete", k);
			return -1;
		}
		ref->nmodel++;
	}
	return 0;
}

static int load_bits(struct ceiling_bits *out, json_t **aliases, size_t *n, json_t *o,
		     const char *what, struct err *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		out[*n] = (struct ceiling_bits){ k, str(v, "name"), str(v, "source"), num(v, "bits") };
		if (aliases)
			aliases[*n] = json_object_get(v, "aliases");
		if (!out[*n].name || !(out[*n].bits > 0)) {
			err_internal(err, "formats.json: %s entry %s lacks name or bits", what, k);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

/* formats.json's families: each a weights format and the formats (known
 * ids) a file of it without a quantization label is taken to span. */
static int load_families(struct ceiling_ref *ref, json_t *o, struct err *err)
{
	const char *k;
	json_t *v, *id;
	size_t i;

	json_object_foreach(o, k, v) {
		struct ceiling_family *f = &ref->family[ref->nfamily];
		json_t *ids = json_object_get(v, "formats");

		*f = (struct ceiling_family){ k, str(v, "name"), str(v, "source"), NULL, NULL };
		json_array_foreach(ids, i, id) {
			const struct ceiling_bits *b = ceiling_format(ref, json_string_value(id));

			if (!b) {
				err_internal(err, "formats.json: family %s names the unknown format %s",
					 k, json_is_string(id) ? json_string_value(id) : "(not a string)");
				return -1;
			}
			if (!f->lightest || b->bits < f->lightest->bits)
				f->lightest = b;
			if (!f->heaviest || b->bits > f->heaviest->bits)
				f->heaviest = b;
		}
		if (!f->name || !f->lightest) {
			err_internal(err, "formats.json: family %s lacks a name or formats", k);
			return -1;
		}
		ref->nfamily++;
	}
	return 0;
}

struct ceiling_ref *ceiling_load(const char *dir, struct err *err)
{
	struct ceiling_ref *ref = calloc(1, sizeof *ref);
	json_t *hw, *models, *formats, *kv, *fam;

	if (!ref) {
		err_internal(err, "out of memory");
		return NULL;
	}
	if (!(hw = load_file(dir, "hardware.json", "hardware", &ref->hw_root, err)) ||
	    !(models = load_file(dir, "models.json", "models", &ref->model_root, err)) ||
	    !(formats = load_file(dir, "formats.json", "formats", &ref->format_root, err)))
		goto fail;
	kv = json_object_get(ref->format_root, "kv_types");
	if (!json_is_object(kv) || json_object_size(kv) > MAX_ENTRIES) {
		err_internal(err, "formats.json: \"kv_types\" must be an object");
		goto fail;
	}
	if (load_hw(ref, hw, err) < 0 || load_models(ref, models, err) < 0 ||
	    load_bits(ref->format, ref->aliases, &ref->nformat, formats, "format", err) < 0 ||
	    load_bits(ref->kv, NULL, &ref->nkv, kv, "kv_types", err) < 0)
		goto fail;
	fam = json_object_get(ref->format_root, "families");
	if (fam && (!json_is_object(fam) || json_object_size(fam) > MAX_ENTRIES)) {
		err_internal(err, "formats.json: \"families\" must be an object");
		goto fail;
	}
	if (fam && load_families(ref, fam, err) < 0)
		goto fail;
	return ref;
fail:
	ceiling_free(ref);
	return NULL;
}

void ceiling_fingerprint(const struct ceiling_ref *ref, unsigned char out[32])
{
	json_t *roots[3] = { ref->hw_root, ref->model_root, ref->format_root };
	struct buf b = BUF_INIT;
	char *s;
	int i;

	for (i = 0; i < 3; i++) {
		s = json_dumps(roots[i], JSON_COMPACT | JSON_SORT_KEYS);
		buf_puts(&b, s ? s : "?");
		buf_putc(&b, '\n');
		free(s);
	}
	sha256_digest(out, b.buf, b.len);
	buf_release(&b);
}

void ceiling_free(struct ceiling_ref *ref)
{
	if (!ref)
		return;
	json_decref(ref->hw_root);
	json_decref(ref->model_root);
	json_decref(ref->format_root);
	free(ref);
}

const struct ceiling_hw *ceiling_hw(const struct ceiling_ref *ref, const char *slug)
{
	size_t i;

	for (i = 0; ref && slug && i < ref->nhw; i++)
		if (!strcmp(ref->hw[i].slug, slug))
			return &ref->hw[i];
	return NULL;
}

const struct ceiling_model *ceiling_model(const struct ceiling_ref *ref, const char *id)
{
	size_t i;

	for (i = 0; ref && id && i < ref->nmodel; i++)
		if (!strcmp(ref->model[i].id, id))
			return &ref->model[i];
	return NULL;
}

const struct ceiling_model *ceiling_model_by_slug(const struct ceiling_ref *ref, const char *slug)
{
	size_t i, j;
	json_t *s;

	for (i = 0; ref && slug && i < ref->nmodel; i++)
		json_array_foreach(ref->slugs[i], j, s)
			if (json_is_string(s) && !strcmp(json_string_value(s), slug))
				return &ref->model[i];
	return NULL;
}

const struct ceiling_bits *ceiling_format(const struct ceiling_ref *ref, const char *name)
{
	size_t i, j;
	json_t *s;

	for (i = 0; ref && name && i < ref->nformat; i++) {
		if (!strcasecmp(ref->format[i].id, name) || !strcasecmp(ref->format[i].name, name))
			return &ref->format[i];
		json_array_foreach(ref->aliases[i], j, s)
			if (json_is_string(s) && !strcasecmp(json_string_value(s), name))
				return &ref->format[i];
	}
	return NULL;
}

const struct ceiling_family *ceiling_family(const struct ceiling_ref *ref, const char *name)
{
	size_t i;

	for (i = 0; ref && name && i < ref->nfamily; i++)
		if (!strcasecmp(ref->family[i].id, name))
			return &ref->family[i];
	return NULL;
}

const struct ceiling_bits *ceiling_kv(const struct ceiling_ref *ref, const char *id)
{
	size_t i;

	for (i = 0; ref && id && i < ref->nkv; i++)
		if (!strcmp(ref->kv[i].id, id))
			return &ref->kv[i];
	return NULL;
}

const struct ceiling_hw *ceiling_hw_at(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nhw ? &ref->hw[i] : NULL;
}

const struct ceiling_model *ceiling_model_at(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nmodel ? &ref->model[i] : NULL;
}

const struct ceiling_bits *ceiling_format_at(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nformat ? &ref->format[i] : NULL;
}

const struct ceiling_bits *ceiling_kv_at(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nkv ? &ref->kv[i] : NULL;
}

json_t *ceiling_model_slugs(const struct ceiling_ref *ref, const struct ceiling_model *m)
{
	return ref->slugs[m - ref->model];
}

/* ---- arithmetic ---- */

double ceiling_sustained(const struct ceiling_hw *hw)
{
	return hw->peak_gb_s * hw->sustained * CEILING_GB;
}

double ceiling_weight_bytes(const struct ceiling_model *m, double weight_bits)
{
	return m->total_params * weight_bits / 8;
}

double ceiling_read_weight_bytes(const struct ceiling_model *m, double weight_bits)
{
	return m->active_params * weight_bits / 8;
}

double ceiling_kv_token_bytes(const struct ceiling_model *m, double kv_bits)
{
	return 2.0 * m->full_layers * m->kv_heads * m->head_dim * kv_bits / 8;
}

double ceiling_kv_bytes(const struct ceiling_model *m, double kv_bits, double context)
{
	double held = context < m->window ? context : m->window;
	double per_layer_token = 2.0 * m->kv_heads * m->head_dim * kv_bits / 8;

	return ceiling_kv_token_bytes(m, kv_bits) * context +
	       per_layer_token * m->sliding_layers * held;
}

double ceiling_state_bytes(const struct ceiling_model *m)
{
	return m->fixed_layers * m->fixed_bytes;
}

void ceiling_step(const struct ceiling_model *m, double weight_bits, double kv_bits,
		  double context, double batch, double bandwidth, struct ceiling_step *out)
{
	out->weights = ceiling_weight_bytes(m, weight_bits);
	out->read_weights = ceiling_read_weight_bytes(m, weight_bits);
	out->kv = batch * ceiling_kv_bytes(m, kv_bits, context);
	out->state = batch * ceiling_state_bytes(m);
	out->read = out->read_weights + out->kv + out->state;
	/* One step reads the weights once and every stream's cache, and
	 * gives each stream one token. */
	out->tok_s = bandwidth > 0 ? bandwidth / out->read : 0;
	out->aggregate = batch * out->tok_s;
}

double ceiling_crossover(const struct ceiling_model *m, double weight_bits,
			 double kv_bits, int active)
{
	double per_token = ceiling_kv_token_bytes(m, kv_bits);
	double w = active ? ceiling_read_weight_bytes(m, weight_bits)
			  : ceiling_weight_bytes(m, weight_bits);

	return per_token > 0 ? w / per_token : 0;
}

void ceiling_fmt3(struct buf *b, double v)
{
	if (!isfinite(v))
		buf_puts(b, "\xe2\x80\x93");   /* no figure: a dash, as tables show it */
	else
		numfmt_sig3(b, v);
}

json_t *ceiling_fmt3_json(double v)
{
	struct buf b = BUF_INIT;
	json_t *s;

	ceiling_fmt3(&b, v);
	s = buf_error(&b) ? NULL : json_string(b.buf);
	buf_release(&b);
	return s;
}
