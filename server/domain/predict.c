/* predict.c: the evidence indexed by step, class, backend and hardware,
 * and predictions looked up in it with their basis in words (predict.h);
 * the backtest that calibrates the index is predict_backtest.c. */
#include "domain/predict.h"
#include "domain/predict_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/utf8.h"

static const char *const class_names[PREDICT_CLASSES] = {
	"dense-4bit", "dense-8bit", "dense-16bit", "moe-4bit", "moe-8bit", "moe-16bit",
};
static const char *const class_words[PREDICT_CLASSES] = {
	"dense 4-bit", "dense 5- to 8-bit", "dense 16-bit",
	"MoE 4-bit", "MoE 5- to 8-bit", "MoE 16-bit",
};

/* Kin: a vendor's GPUs or its processors, and their names in words. */
static const struct kin {
	const char *vendor;
	int cpu;
	const char *id, *words;
} kins[] = {
	{ "nvidia", 0, "nvidia", "NVIDIA GPUs" },
	{ "amd", 0, "amd", "AMD GPUs" },
	{ "amd", 1, "amd-cpu", "AMD processors" },
	{ "intel", 0, "intel", "Intel GPUs" },
	{ "intel", 1, "intel-cpu", "Intel processors" },
	{ "apple", 0, "apple", "Apple silicon" },
	{ "apple", 1, "apple", "Apple silicon" },
};

int predict_class(int moe, double bits)
{
	if (!(bits > 0) || !isfinite(bits))
		return -1;
	return (moe ? 3 : 0) + (bits <= PREDICT_W4_MAX_BITS ? 0 : bits <= PREDICT_W8_MAX_BITS ? 1 : 2);
}

const char *predict_class_name(int cls)
{
	return cls >= 0 && cls < PREDICT_CLASSES ? class_names[cls] : "unknown";
}

const char *predict_class_words(int cls)
{
	return cls >= 0 && cls < PREDICT_CLASSES ? class_words[cls] : "unknown";
}

const char *predict_kin(const char *vendor, int cpu)
{
	size_t i;

	for (i = 0; vendor && i < sizeof kins / sizeof *kins; i++)
		if (!strcmp(kins[i].vendor, vendor) && kins[i].cpu == !!cpu)
			return kins[i].id;
	return NULL;
}

const char *predict_kin_words(const char *kin)
{
	size_t i;

	for (i = 0; kin && i < sizeof kins / sizeof *kins; i++)
		if (!strcmp(kins[i].id, kin))
			return kins[i].words;
	return kin ? kin : "";
}

/* ---- sums ---- */

/* 1 when r is evidence: named, of a class, from PREDICT_MIN_KEYS keys,
 * with a median and a ceiling. */
static int usable(const struct predict_combo *r)
{
	return r->model && r->hw && r->backend && r->cls >= 0 && r->cls < PREDICT_CLASSES &&
	       r->keys >= PREDICT_MIN_KEYS && r->median > 0 && isfinite(r->median) &&
	       r->ceiling > 0 && isfinite(r->ceiling);
}

/* Adds (sign 1) or takes away (-1) b into a. */
static void sums_add(struct predict_sums *a, const struct predict_sums *b, int sign)
{
	a->n += sign * b->n;
	a->uu += sign * b->uu;
	a->uv += sign * b->uv;
	a->vv += sign * b->vv;
	a->u += sign * b->u;
	a->v += sign * b->v;
	a->l += sign * b->l;
	a->ll += sign * b->ll;
	a->e += sign * b->e;
	a->keys += sign * b->keys;
	a->runs += sign * b->runs;
}

/* The sums of one combination. */
static struct predict_sums sums_of(const struct predict_combo *r)
{
	double u = r->median / r->ceiling, l = log(r->ceiling);

	return (struct predict_sums){ 1, u * u, u * r->median, r->median * r->median, u, r->median,
				      l, l * l, log(u), r->keys, r->runs };
}

/* ---- cells ---- */

static int str_cmp(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/* Orders combinations by step's cell key: class, backend, then the
 * hardware (step 1) or its kin (step 2). */
static int cell_cmp(enum predict_step step, const struct predict_combo *a,
		     const struct predict_combo *b)
{
	int c = (a->cls > b->cls) - (a->cls < b->cls);

	if (!c)
		c = str_cmp(a->backend, b->backend);
	if (!c && step == PREDICT_SAME_HW)
		c = str_cmp(a->hw, b->hw);
	if (!c && step == PREDICT_SAME_KIN)
		c = str_cmp(a->kin, b->kin);
	return c;
}

/* qsort wants one comparator per step: the cell key, then the model. */
static int order_cmp(enum predict_step step, const void *x, const void *y)
{
	const struct predict_combo *a = *(const struct predict_combo *const *)x;
	const struct predict_combo *b = *(const struct predict_combo *const *)y;
	int c = cell_cmp(step, a, b);

	return c ? c : strcmp(a->model, b->model);
}

static int cmp1(const void *x, const void *y) { return order_cmp(PREDICT_SAME_HW, x, y); }
static int cmp2(const void *x, const void *y) { return order_cmp(PREDICT_SAME_KIN, x, y); }
static int cmp3(const void *x, const void *y) { return order_cmp(PREDICT_ALL_HW, x, y); }

/* One model's efficiency in a cell: the geometric mean of its
 * combinations' shares of the ceiling. */
static double group_eff(const struct predict_group *g)
{
	return exp(g->s.e / g->s.n);
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Fills lv from the evidence pointers p[0..m), sorted here.  lv's arrays
 * have room for m. */
static void level_fill(enum predict_step step, const struct predict_combo **p, size_t m,
		       struct predict_level *lv)
{
	static int (*const cmp[PREDICT_STEPS])(const void *, const void *) = { NULL, cmp1, cmp2, cmp3 };
	size_t i, ng = 0;

	qsort(p, m, sizeof *p, cmp[step]);
	lv->ncells = 0;
	for (i = 0; i < m; i++) {
		struct predict_sums s = sums_of(p[i]);
		struct predict_cell *c = lv->ncells ? &lv->cell[lv->ncells - 1] : NULL;

		if (!c || cell_cmp(step, c->key, p[i])) {
			c = &lv->cell[lv->ncells++];
			*c = (struct predict_cell){ .key = p[i], .first = ng };
		}
		if (c->ngroups == 0 || strcmp(lv->group[ng - 1].model, p[i]->model)) {
			lv->group[ng++] = (struct predict_group){ .model = p[i]->model };
			c->ngroups++;
		}
		sums_add(&lv->group[ng - 1].s, &s, 1);
		sums_add(&c->s, &s, 1);
	}
	for (i = 0; i < ng; i++)
		lv->eff[i] = group_eff(&lv->group[i]);
	for (i = 0; i < lv->ncells; i++)
		qsort(lv->eff + lv->cell[i].first, lv->cell[i].ngroups, sizeof *lv->eff, dbl_cmp);
}

void predict_index_free(struct predict_index *ix)
{
	int step;

	for (step = PREDICT_SAME_HW; step < PREDICT_STEPS; step++) {
		free(ix->level[step].cell);
		free(ix->level[step].group);
		free(ix->level[step].eff);
	}
	memset(ix, 0, sizeof *ix);
}

int predict_index_cells(const struct predict_combo *rows, size_t n, struct predict_index *ix)
{
	const struct predict_combo **p = malloc((n ? n : 1) * sizeof *p);
	size_t i, m = 0;
	int step;

	memset(ix, 0, sizeof *ix);
	for (step = 0; step < PREDICT_STEPS; step++)
		ix->calib.method[step] = PREDICT_TIME;
	for (i = 0; p && i < n; i++)
		if (usable(&rows[i]))
			p[m++] = &rows[i];
	for (step = PREDICT_SAME_HW; p && step < PREDICT_STEPS; step++) {
		struct predict_level *lv = &ix->level[step];

		lv->cell = calloc(m ? m : 1, sizeof *lv->cell);
		lv->group = calloc(m ? m : 1, sizeof *lv->group);
		lv->eff = calloc(m ? m : 1, sizeof *lv->eff);
		if (!lv->cell || !lv->group || !lv->eff)
			break;
		level_fill((enum predict_step)step, p, m, lv);
	}
	free(p);
	if (step < PREDICT_STEPS) {
		predict_index_free(ix);
		return -1;
	}
	return 0;
}

/* ---- lookups ---- */

/* A cell's key as bsearch looks for it. */
struct cell_key {
	enum predict_step step;
	const struct predict_combo *c;
};

static int cell_key_cmp(const void *k, const void *e)
{
	const struct cell_key *key = k;

	return cell_cmp(key->step, key->c, ((const struct predict_cell *)e)->key);
}

static int group_cmp(const void *model, const void *e)
{
	return strcmp(model, ((const struct predict_group *)e)->model);
}

/* The cell of step holding key's combinations, or NULL. */
static const struct predict_cell *find_cell(const struct predict_level *lv, enum predict_step step,
					    const struct predict_combo *key)
{
	const struct cell_key k = { step, key };

	return lv->ncells ? bsearch(&k, lv->cell, lv->ncells, sizeof *lv->cell, cell_key_cmp) : NULL;
}

/* The group of model in c, or NULL. */
static const struct predict_group *find_group(const struct predict_level *lv,
					      const struct predict_cell *c, const char *model)
{
	return model ? bsearch(model, lv->group + c->first, c->ngroups, sizeof *lv->group, group_cmp)
		     : NULL;
}

/* The other models' efficiencies in a cell: their median. */
struct predict_eff {
	double median;
};

/* The median of cell c's models' efficiencies, the one at skip (or none
 * when skip is c->ngroups) left out, into *e.  There is at least one. */
static void others_eff(const struct predict_level *lv, const struct predict_cell *c, size_t skip,
		       struct predict_eff *e)
{
	const double *v = lv->eff + c->first;
	size_t n = c->ngroups - (skip < c->ngroups), mid = n / 2;
	/* The k-th of the others: v without index skip. */
#define OTHER(k) v[(k) < skip ? (k) : (k) + 1]

	e->median = n % 2 ? OTHER(mid) : (OTHER(mid - 1) + OTHER(mid)) / 2;
#undef OTHER
}

/* Where the model's own efficiency sits in c's sorted eff slice, or
 * c->ngroups when g is NULL. */
static size_t eff_slot(const struct predict_level *lv, const struct predict_cell *c,
		       const struct predict_group *g)
{
	const double *v = lv->eff + c->first;
	double x;
	size_t i;

	if (!g)
		return c->ngroups;
	x = group_eff(g);
	for (i = 0; i < c->ngroups && v[i] != x; i++)
		;
	return i;
}

/* The sums of step's cell for q with q->model's combinations taken out,
 * into *out, the other models' efficiencies into *eff, and the number of
 * other models into *models; 1 when they are at least PREDICT_MIN_MODELS,
 * else 0. */
static int step_sums(const struct predict_index *ix, enum predict_step step,
		      const struct predict_query *q, struct predict_sums *out,
		      struct predict_eff *eff, int *models)
{
	const struct predict_combo key = { .model = q->model, .hw = q->hw, .kin = q->kin,
					   .backend = q->backend, .cls = q->cls };
	const struct predict_level *lv = &ix->level[step];
	const struct predict_cell *c;
	const struct predict_group *g;

	memset(out, 0, sizeof *out);
	*models = 0;
	if ((step == PREDICT_SAME_KIN && !q->kin) || !(c = find_cell(lv, step, &key)))
		return 0;
	*out = c->s;
	*models = (int)c->ngroups;
	if ((g = find_group(lv, c, q->model))) {
		sums_add(out, &g->s, -1);
		--*models;
	}
	if (*models < PREDICT_MIN_MODELS)
		return 0;
	others_eff(lv, c, eff_slot(lv, c, g), eff);
	return 1;
}

/* ---- the two ways to a figure ---- */

/* The time model's fit of s into *a, *b; 1 when it holds. */
static int time_fit(const struct predict_sums *s, double *a, double *b)
{
	double det = s->uu * s->vv - s->uv * s->uv;
	double mean = s->l / s->n, var = s->ll / s->n - mean * mean;

	if (s->n < 2 || !(det > 1e-12 * s->uu * s->vv) ||
	    !(var >= PREDICT_MIN_LOG_SPREAD * PREDICT_MIN_LOG_SPREAD))
		return 0;
	*a = (s->u * s->vv - s->v * s->uv) / det;
	*b = (s->v * s->uu - s->u * s->uv) / det;
	return *a > 0 && *b >= 0;
}

/* The unrounded figure of s at ceiling by method, into r's method,
 * efficiency and time fields; returns the figure.  The ratio method takes
 * the other models' median efficiency, so no one model sets it; the time
 * model's fit stands only while it stays at or under the ceiling. */
static double figure(const struct predict_sums *s, const struct predict_eff *eff,
		     enum predict_method method, double ceiling, struct predict_result *r)
{
	double a, b, e;

	if (method == PREDICT_TIME && time_fit(s, &a, &b) && (e = 1 / (a + b * ceiling)) <= 1) {
		r->method = PREDICT_TIME;
		r->time_a = a;
		r->time_b = b;
		r->efficiency = e;
	} else {
		r->method = PREDICT_RATIO;
		r->efficiency = eff->median;
	}
	return ceiling * r->efficiency;
}

static double round2(double x)
{
	return round(x * 100) / 100;
}

/* The interval of step from ix's calibration around the figure x. */
static void interval(const struct predict_calib *cal, enum predict_step step, double x,
		     struct predict_result *r)
{
	r->has_interval = cal->have[step];
	if (r->has_interval) {
		r->low = round2(x * exp(cal->lo[step]));
		r->high = round2(x * exp(cal->hi[step]));
		r->width = r->low > 0 ? r->high / r->low : INFINITY;
	}
	r->too_uncertain = !r->has_interval || !(r->width <= PREDICT_TOO_WIDE);
}

/* Writes predict_basis() of r for q into r->from, cut between code points
 * to fit. */
static void set_from(struct predict_result *r, const struct predict_query *q)
{
	struct buf b = BUF_INIT;
	size_t len;
	const char *hw = q->hw_name ? q->hw_name : q->hw ? q->hw : "";

	predict_basis(r, hw, q->kin, q->backend ? q->backend : "", &b);
	len = buf_error(&b) ? 0 : utf8_cut(b.buf, b.len, sizeof r->from - 1);
	memcpy(r->from, b.buf, len);
	r->from[len] = '\0';
	buf_release(&b);
}

void predict_with(const struct predict_index *ix, const struct predict_query *q,
		  const enum predict_method method[PREDICT_STEPS], struct predict_result *out)
{
	int step;

	memset(out, 0, sizeof *out);
	out->cls = q->cls;
	for (step = PREDICT_SAME_HW; ix && q->ceiling > 0 && isfinite(q->ceiling) &&
	     q->cls >= 0 && q->cls < PREDICT_CLASSES && step < PREDICT_STEPS; step++) {
		struct predict_sums s;
		struct predict_eff eff;
		double x;

		if (!step_sums(ix, (enum predict_step)step, q, &s, &eff, &out->models))
			continue;
		out->step = (enum predict_step)step;
		out->combos = s.n;
		out->keys = s.keys;
		out->runs = s.runs;
		x = figure(&s, &eff, method[step], q->ceiling, out);
		out->tok_s = round2(x);
		interval(&ix->calib, out->step, x, out);
		break;
	}
	if (out->step == PREDICT_NONE)
		out->models = 0;
	set_from(out, q);
}

void predict(const struct predict_index *ix, const struct predict_query *q,
	     struct predict_result *out)
{
	static const enum predict_method none[PREDICT_STEPS];

	predict_with(ix, q, ix ? ix->calib.method : none, out);
}

/* ---- names and words ---- */

const char *predict_step_name(enum predict_step step)
{
	static const char *const names[PREDICT_STEPS] = {
		"none", "same_hardware", "same_vendor", "all_hardware",
	};

	return step > PREDICT_NONE && step < PREDICT_STEPS ? names[step] : names[0];
}

const char *predict_method_name(enum predict_method method)
{
	return method == PREDICT_TIME ? "time" : "ratio";
}

const char *predict_refusal_name(enum predict_refusal refusal)
{
	return refusal == PREDICT_CANNOT_RUN ? "backend_cannot_run_there" :
	       refusal == PREDICT_NO_FIT ? "does_not_fit" : NULL;
}

void predict_basis(const struct predict_result *r, const char *hw_name, const char *kin,
		   const char *backend, struct buf *out)
{
	const char *cls = predict_class_words(r->cls);

	if (r->step == PREDICT_NONE) {
		buf_printf(out, "too few runs to predict: a prediction needs %d other %s models "
			   "measured with %s by %d submitters each", PREDICT_MIN_MODELS, cls,
			   backend, PREDICT_MIN_KEYS);
		return;
	}
	buf_puts(out, "from ");
	numfmt_count(out, r->runs, "run", "runs");
	buf_printf(out, " of %d other %s model%s ", r->models, cls, r->models == 1 ? "" : "s");
	if (r->step == PREDICT_SAME_HW)
		buf_printf(out, "on %s with %s", hw_name, backend);
	else if (r->step == PREDICT_SAME_KIN)
		buf_printf(out, "on %s with %s, as fewer than %d were measured on %s",
			   predict_kin_words(kin), backend, PREDICT_MIN_MODELS, hw_name);
	else
		buf_printf(out, "with %s on all hardware, as fewer than %d were measured on %s",
			   backend, PREDICT_MIN_MODELS, kin ? predict_kin_words(kin) : hw_name);
	buf_puts(out, r->method == PREDICT_TIME ? "; time per token fitted to the ceiling"
						: "; their typical share of the ceiling");
}
