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

#include "domain/resolve.h"

/* Most entries a list may hold: a bound on what one file can make the
 * daemon allocate, far above the data's own size. */
#define MAX_ENTRIES 4096

/* A backend and where it runs: every family of its vendors, or only the
 * families it lists. */
struct ceiling_backend {
	const char *name;
	const json_t *vendors, *families;
};

struct ceiling_ref {
	json_t *hw_root, *model_root, *format_root, *names_root;
	struct ceiling_family *family;
	struct ceiling_hw *hw;
	struct ceiling_model *model;
	struct ceiling_bits *format;
	const json_t **aliases;            /* of each format */
	struct ceiling_bits *kv;
	struct ceiling_backend *backend;
	const struct ceiling_bits *lightest;
	const json_t *generic, *label_bits;
	size_t nhw, nmodel, nformat, nkv, nfamily, nbackend;
	struct resolve_index *index;
	/* The entries by id, for lookups in log time (sorted at load). */
	const struct ceiling_hw **hw_by_id;
	const struct ceiling_model **model_by_id;
};

static void *alloc_n(size_t n, size_t sz, struct err *err);

static int hw_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct ceiling_hw *const *)a)->slug, (*(const struct ceiling_hw *const *)b)->slug);
}

static int model_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct ceiling_model *const *)a)->id,
		      (*(const struct ceiling_model *const *)b)->id);
}

/* Sorts the hardware and models by id for ceiling_hw() and ceiling_model(). */
static int sort_ids(struct ceiling_ref *ref, struct err *err)
{
	size_t i;

	if (!(ref->hw_by_id = alloc_n(ref->nhw, sizeof *ref->hw_by_id, err)) ||
	    !(ref->model_by_id = alloc_n(ref->nmodel, sizeof *ref->model_by_id, err)))
		return -1;
	for (i = 0; i < ref->nhw; i++)
		ref->hw_by_id[i] = &ref->hw[i];
	for (i = 0; i < ref->nmodel; i++)
		ref->model_by_id[i] = &ref->model[i];
	qsort(ref->hw_by_id, ref->nhw, sizeof *ref->hw_by_id, hw_cmp);
	qsort(ref->model_by_id, ref->nmodel, sizeof *ref->model_by_id, model_cmp);
	return 0;
}

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

/* Member k of o when it is an array, else NULL. */
static const json_t *arr(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_array(v) ? v : NULL;
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
	o = key ? json_object_get(*root, key) : *root;
	if (!json_is_object(o) || json_object_size(o) > MAX_ENTRIES) {
		err_internal(err, "%s: \"%s\" must be an object of at most %d entries",
			 path, key ? key : "(root)", MAX_ENTRIES);
		return NULL;
	}
	return o;
}

/* calloc of n elements of size sz, at least one; NULL with err set. */
static void *alloc_n(size_t n, size_t sz, struct err *err)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		err_nomem(err);
	return p;
}

/* The bins of hardware entry v into h (none when it has none). */
static int load_bins(struct ceiling_hw *h, const json_t *v, struct err *err)
{
	const json_t *bins = arr(v, "bins"), *b;
	size_t i;

	if (!bins || !json_array_size(bins))
		return 0;
	if (!(h->bins = alloc_n(json_array_size(bins), sizeof *h->bins, err)))
		return -1;
	json_array_foreach(bins, i, b) {
		struct ceiling_bin *x = &h->bins[h->nbins];

		*x = (struct ceiling_bin){ str(b, "name"), str(b, "source"), int_of(b, "gpu_cores"),
			int_of(b, "cpu_cores"), 0, arr(b, "memory_options_gb"), num(b, "peak_gb_s") };
		x->memory_gb = num(b, "memory_gb") > 0 ? num(b, "memory_gb") : 0;
		if (!x->name || !(x->peak_gb_s > 0))
			return err_internal(err, "hardware.json: a bin of %s lacks name or peak_gb_s", h->slug);
		h->nbins++;
	}
	return 0;
}

static int load_hw(struct ceiling_ref *ref, json_t *o, struct err *err)
{
	const char *k;
	json_t *v;

	if (!(ref->hw = alloc_n(json_object_size(o), sizeof *ref->hw, err)))
		return -1;
	json_object_foreach(o, k, v) {
		struct ceiling_hw *h = &ref->hw[ref->nhw];
		double match = num(v, "memory_match_gb");

		*h = (struct ceiling_hw){ k, str(v, "name"), str(v, "source"),
			num(v, "memory_gb"), num(v, "peak_gb_s"), num(v, "sustained_fraction"),
			str(v, "vendor"), str(v, "family"), str(v, "form"), match > 0 ? match : 0,
			arr(v, "memory_options_gb"), arr(v, "aliases"), NULL, 0,
			json_is_true(json_object_get(v, "cpu")) };
		ref->nhw++;
		if (!h->name || !(h->memory_gb > 0) || !(h->peak_gb_s > 0) ||
		    !(h->sustained > 0 && h->sustained <= 1))
			return err_internal(err, "hardware.json: entry %s lacks name, memory_gb, peak_gb_s or sustained_fraction", k);
		if (load_bins(h, v, err) < 0)
			return -1;
	}
	return 0;
}

/* hardware.json's "backends": each backend and the vendors or the
 * hardware families it runs on. */
static int load_backends(struct ceiling_ref *ref, struct err *err)
{
	const json_t *o = json_object_get(ref->hw_root, "backends"), *v;
	const char *k;

	if (!json_is_object(o))
		return 0;
	if (!(ref->backend = alloc_n(json_object_size(o), sizeof *ref->backend, err)))
		return -1;
	json_object_foreach((json_t *)o, k, v) {
		if (!arr(v, "vendors") == !arr(v, "families"))
			return err_internal(err, "hardware.json: backend %s needs its vendors or its families", k);
		ref->backend[ref->nbackend++] = (struct ceiling_backend){ k, arr(v, "vendors"),
									  arr(v, "families") };
	}
	return 0;
}

static int load_models(struct ceiling_ref *ref, json_t *o, struct err *err)
{
	const char *k;
	json_t *v, *a;

	if (!(ref->model = alloc_n(json_object_size(o), sizeof *ref->model, err)))
		return -1;
	json_object_foreach(o, k, v) {
		struct ceiling_model *m = &ref->model[ref->nmodel];
		const char *native = str(v, "native_format");

		a = json_object_get(v, "attention");
		*m = (struct ceiling_model){ k, str(v, "name"), str(a, "pattern"), str(v, "source"),
			num(v, "total_params"), num(v, "active_params"),
			int_of(v, "layers"), int_of(v, "kv_heads"), int_of(v, "head_dim"),
			int_of(a, "full_layers"), int_of(a, "sliding_layers"), int_of(a, "window"),
			int_of(a, "fixed_state_layers"), 0,
			str(v, "family"), str(v, "version"), str(v, "size"), str(v, "variant"),
			NULL, 0, 0, arr(v, "aliases"), arr(v, "llama_bench") };
		m->fixed_bytes = m->fixed_layers ? num(a, "fixed_state_bytes") : 0;
		if (native) {
			m->native = ceiling_format(ref, native);
			m->native_share = num(v, "native_share");
			m->native_share_total = num(v, "native_share_total");
			if (!(m->native_share_total >= 0))
				m->native_share_total = m->native_share;
		}
		ref->nmodel++;
		if (!m->name || !m->pattern || !(m->total_params > 0) || !(m->active_params > 0) ||
		    m->kv_heads <= 0 || m->head_dim <= 0 || !(m->fixed_bytes >= 0) || !m->aliases ||
		    (native && (!m->native || !(m->native_share >= 0 && m->native_share <= 1))))
			return err_internal(err, "models.json: entry %s is incomplete", k);
	}
	return 0;
}

static int load_bits(struct ceiling_bits **out, const json_t ***aliases, size_t *n, json_t *o,
		     const char *what, struct err *err)
{
	const char *k;
	json_t *v;

	if (!(*out = alloc_n(json_object_size(o), sizeof **out, err)) ||
	    (aliases && !(*aliases = alloc_n(json_object_size(o), sizeof **aliases, err))))
		return -1;
	json_object_foreach(o, k, v) {
		(*out)[*n] = (struct ceiling_bits){ k, str(v, "name"), str(v, "source"), num(v, "bits"),
			str(v, "family") };
		if (aliases)
			(*aliases)[*n] = arr(v, "aliases");
		if (!(*out)[*n].name || !((*out)[*n].bits > 0))
			return err_internal(err, "formats.json: %s entry %s lacks name or bits", what, k);
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

	if (!(ref->family = alloc_n(json_object_size(o), sizeof *ref->family, err)))
		return -1;
	json_object_foreach(o, k, v) {
		struct ceiling_family *f = &ref->family[ref->nfamily];
		json_t *ids = json_object_get(v, "formats");

		*f = (struct ceiling_family){ k, str(v, "name"), str(v, "source"), NULL, NULL };
		json_array_foreach(ids, i, id) {
			const struct ceiling_bits *b = ceiling_format(ref, json_string_value(id));

			if (!b)
				return err_internal(err, "formats.json: family %s names the unknown format %s",
					 k, json_is_string(id) ? json_string_value(id) : "(not a string)");
			if (!f->lightest || b->bits < f->lightest->bits)
				f->lightest = b;
			if (!f->heaviest || b->bits > f->heaviest->bits)
				f->heaviest = b;
		}
		if (!f->name || !f->lightest)
			return err_internal(err, "formats.json: family %s lacks a name or formats", k);
		ref->nfamily++;
	}
	return 0;
}

/* The formats, KV types, families and width-only labels of formats.json. */
static int load_formats(struct ceiling_ref *ref, json_t *formats, struct err *err)
{
	json_t *kv = json_object_get(ref->format_root, "kv_types");
	json_t *fam = json_object_get(ref->format_root, "families");
	size_t i;

	if (!json_is_object(kv) || json_object_size(kv) > MAX_ENTRIES)
		return err_internal(err, "formats.json: \"kv_types\" must be an object");
	if (fam && (!json_is_object(fam) || json_object_size(fam) > MAX_ENTRIES))
		return err_internal(err, "formats.json: \"families\" must be an object");
	if (load_bits(&ref->format, &ref->aliases, &ref->nformat, formats, "format", err) < 0 ||
	    load_bits(&ref->kv, NULL, &ref->nkv, kv, "kv_types", err) < 0 ||
	    (fam && load_families(ref, fam, err) < 0))
		return -1;
	for (i = 0; i < ref->nformat; i++)
		if (!ref->lightest || ref->format[i].bits < ref->lightest->bits)
			ref->lightest = &ref->format[i];
	ref->generic = json_object_get(ref->format_root, "generic");
	ref->label_bits = json_object_get(ref->format_root, "label_bits");
	return 0;
}

struct ceiling_ref *ceiling_load(const char *dir, struct err *err)
{
	struct ceiling_ref *ref = calloc(1, sizeof *ref);
	json_t *hw, *models, *formats;

	if (!ref) {
		err_nomem(err);
		return NULL;
	}
	/* Formats before models: models name their native format. */
	if (!(hw = load_file(dir, "hardware.json", "hardware", &ref->hw_root, err)) ||
	    !(formats = load_file(dir, "formats.json", "formats", &ref->format_root, err)) ||
	    !(models = load_file(dir, "models.json", "models", &ref->model_root, err)) ||
	    !load_file(dir, "names.json", NULL, &ref->names_root, err))
		goto fail;
	if (load_formats(ref, formats, err) < 0 || load_hw(ref, hw, err) < 0 ||
	    load_backends(ref, err) < 0 || load_models(ref, models, err) < 0)
		goto fail;
	if (sort_ids(ref, err) < 0 || !(ref->index = resolve_index_new(ref, err)))
		goto fail;
	return ref;
fail:
	ceiling_free(ref);
	return NULL;
}

void ceiling_fingerprint(const struct ceiling_ref *ref, unsigned char out[32])
{
	json_t *roots[4] = { ref->hw_root, ref->model_root, ref->format_root, ref->names_root };
	struct buf b = BUF_INIT;
	char *s;
	int i;

	for (i = 0; i < 4; i++) {
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
	size_t i;

	if (!ref)
		return;
	resolve_index_free(ref->index);
	for (i = 0; ref->hw && i < ref->nhw; i++)
		free(ref->hw[i].bins);
	free(ref->hw_by_id);
	free(ref->model_by_id);
	free(ref->hw);
	free(ref->model);
	free(ref->format);
	free(ref->aliases);
	free(ref->kv);
	free(ref->family);
	free(ref->backend);
	json_decref(ref->hw_root);
	json_decref(ref->model_root);
	json_decref(ref->format_root);
	json_decref(ref->names_root);
	free(ref);
}

const struct ceiling_hw *ceiling_hw(const struct ceiling_ref *ref, const char *slug)
{
	struct ceiling_hw probe = { .slug = slug };
	const struct ceiling_hw *p = &probe, **hit;

	if (!ref || !slug || !ref->hw_by_id)
		return NULL;
	hit = bsearch(&p, ref->hw_by_id, ref->nhw, sizeof *ref->hw_by_id, hw_cmp);
	return hit ? *hit : NULL;
}

const struct ceiling_model *ceiling_model(const struct ceiling_ref *ref, const char *id)
{
	struct ceiling_model probe = { .id = id };
	const struct ceiling_model *p = &probe, **hit;

	if (!ref || !id || !ref->model_by_id)
		return NULL;
	hit = bsearch(&p, ref->model_by_id, ref->nmodel, sizeof *ref->model_by_id, model_cmp);
	return hit ? *hit : NULL;
}

const struct ceiling_model *ceiling_model_by_slug(const struct ceiling_ref *ref, const char *slug)
{
	const struct ceiling_model *m = ceiling_model(ref, slug);

	return m ? m : resolve_model_name(ref, slug);
}

const struct ceiling_bits *ceiling_format(const struct ceiling_ref *ref, const char *name)
{
	size_t i, j;
	json_t *s;
	int at;

	/* Once loaded, by the resolver's index of the formats' ids, names
	 * and aliases (the same strings, compared as slugs). */
	if (ref && ref->index && name)
		return (at = resolve_format_at(ref->index, name)) >= 0 ? &ref->format[at] : NULL;
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

const struct ceiling_bits *ceiling_lightest(const struct ceiling_ref *ref)
{
	return ref ? ref->lightest : NULL;
}

const struct ceiling_bits *ceiling_generic(const struct ceiling_ref *ref, const char *label,
					   const char *fam)
{
	const json_t *by_fam = ref && label && fam ? json_object_get(ref->generic, label) : NULL;

	return by_fam ? ceiling_format(ref, str(by_fam, fam)) : NULL;
}

int ceiling_label_bits(const struct ceiling_ref *ref, const char *fam)
{
	return ref && fam && json_object_get(ref->label_bits, fam) != NULL;
}

/* 1 when the array a holds the string s. */
static int holds(const json_t *a, const char *s)
{
	size_t i;
	const json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && s && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

int ceiling_backend_runs(const struct ceiling_ref *ref, const char *backend,
			 const struct ceiling_hw *hw)
{
	size_t i;

	for (i = 0; ref && backend && hw && i < ref->nbackend; i++) {
		const struct ceiling_backend *b = &ref->backend[i];

		if (strcmp(b->name, backend))
			continue;
		return b->families ? holds(b->families, hw->family) : holds(b->vendors, hw->vendor);
	}
	return -1;
}

const char *ceiling_backend_at(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nbackend ? ref->backend[i].name : NULL;
}

const json_t *ceiling_format_aliases(const struct ceiling_ref *ref, size_t i)
{
	return ref && i < ref->nformat ? ref->aliases[i] : NULL;
}

const json_t *ceiling_generic_labels(const struct ceiling_ref *ref)
{
	return ref ? ref->generic : NULL;
}

const json_t *ceiling_names(const struct ceiling_ref *ref)
{
	return ref ? ref->names_root : NULL;
}

const struct resolve_index *ceiling_index(const struct ceiling_ref *ref)
{
	return ref ? ref->index : NULL;
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

/* The i-th string of formats.json's explainer list name. */
static const char *explainer_at(const struct ceiling_ref *ref, const char *name, size_t i)
{
	return ref ? json_string_value(json_array_get(json_object_get(json_object_get(
		ref->format_root, "explainer"), name), i)) : NULL;
}

const struct ceiling_bits *ceiling_explainer_format(const struct ceiling_ref *ref, size_t i)
{
	const char *id = explainer_at(ref, "formats", i);

	return id ? ceiling_format(ref, id) : NULL;
}

const struct ceiling_model *ceiling_explainer_model(const struct ceiling_ref *ref, size_t i)
{
	const char *id = explainer_at(ref, "models", i);

	return id ? ceiling_model(ref, id) : NULL;
}

double ceiling_model_bits(const struct ceiling_model *m, const struct ceiling_bits *f,
			  int whole_file)
{
	double share = whole_file ? m->native_share_total : m->native_share;

	if (!m->native || !f || f == m->native)
		return f ? f->bits : NAN;
	return share * m->native->bits + (1 - share) * f->bits;
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
