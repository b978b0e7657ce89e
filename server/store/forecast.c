/* forecast.c: the snapshot of predict.c's evidence, read from the
 * combinations' typical figures by the refresh thread, indexed and
 * calibrated by its backtest, and the predictions pages ask for
 * (forecast.h). */
#include "store/forecast.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "domain/ceiling.h"
#include "util/textcut.h"
#include "util/timefmt.h"

/* Every confirmed combination (3 keys from 2 networks at least, so no
 * swarm from one network is evidence; issue 37, H7) with
 * PREDICT_TEST_MIN_KEYS keys, with the quantization its best run (or the
 * run that opened it, when none can stand) names: one pass over combos. */
static const char sql_evidence[] =
	"SELECT c.model_slug, c.hw_slug, c.backend_name, c.med, c.t_keys, c.t_runs, r.model_quant "
	"FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) "
	"WHERE c.suite_version = ?1 AND c.t_keys >= ?2 AND c.med > 0 AND c.confirmed = 1";
/* The quantization the model's best unflagged run names. */
static const char sql_quant[] =
	"SELECT r.model_quant FROM model_index i JOIN runs r ON r.id = i.best_id "
	"WHERE i.suite_version = ?1 AND i.model_slug = ?2";

const char *const forecast_sql[] = { sql_evidence, sql_quant, NULL };

/* A snapshot: its rows (their model, hardware and kin strings borrowed
 * from the reference data, their backends from backend[]), their index,
 * the backtest that calibrated it, and its readers. */
struct snap {
	char suite[64];
	size_t n;
	struct predict_combo *rows;
	char backend[PREDICT_READ_BACKENDS][64];
	size_t nbackend;
	struct predict_index ix;
	int refs;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct snap *current;
static const struct ceiling_ref *pref;    /* the reference data of the last refresh */
static struct predict_backtest backtest;
static long long backtest_at, backtest_rows;
static int have_backtest;
static double next_snap;                  /* monotonic seconds */
static int owed = 1;                      /* a write since the last build */

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void snap_free(struct snap *s)
{
	predict_index_free(&s->ix);
	free(s->rows);
	free(s);
}

static void snap_release(struct snap *s)
{
	int last;

	if (!s)
		return;
	pthread_mutex_lock(&lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&lock);
	if (last)
		snap_free(s);
}

static struct snap *snap_get(void)
{
	struct snap *s;

	pthread_mutex_lock(&lock);
	if ((s = current))
		s->refs++;
	pthread_mutex_unlock(&lock);
	return s;
}

static const struct ceiling_ref *snap_ref(void)
{
	const struct ceiling_ref *r;

	pthread_mutex_lock(&lock);
	r = pref;
	pthread_mutex_unlock(&lock);
	return r;
}

/* The snapshot's own copy of backend name be, added when new; NULL when
 * PREDICT_READ_BACKENDS are taken. */
static const char *snap_backend(struct snap *s, const char *be)
{
	size_t i;

	for (i = 0; i < s->nbackend; i++)
		if (!strcmp(s->backend[i], be))
			return s->backend[i];
	if (s->nbackend == PREDICT_READ_BACKENDS || strlen(be) >= sizeof s->backend[0])
		return NULL;
	strcpy(s->backend[s->nbackend], be);
	return s->backend[s->nbackend++];
}

/* Appends the evidence row of the statement's current row to s, if it is
 * evidence; 0, or -1 without memory. */
static int add_row(struct snap *s, size_t *cap, const struct ceiling_ref *ref, sqlite3_stmt *st)
{
	const char *be = (const char *)sqlite3_column_text(st, 2);
	struct predict_combo row;

	be = be ? snap_backend(s, be) : NULL;
	if (!be || predict_row(ref, (const char *)sqlite3_column_text(st, 0),
			       (const char *)sqlite3_column_text(st, 6),
			       (const char *)sqlite3_column_text(st, 1), be,
			       sqlite3_column_double(st, 3), sqlite3_column_int(st, 4),
			       sqlite3_column_int64(st, 5), &row) < 0)
		return 0;
	if (s->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		struct predict_combo *nr = realloc(s->rows, nc * sizeof *nr);

		if (!nr)
			return -1;
		s->rows = nr;
		*cap = nc;
	}
	s->rows[s->n++] = row;
	return 0;
}

/* Reads suite's evidence into a new snapshot (*out), indexed, and its
 * backtest into *b. */
static int build(struct dbconn *c, const struct ceiling_ref *ref, const char *suite,
		 struct snap **out, struct predict_backtest *b)
{
	sqlite3_stmt *st = db_stmt(c, sql_evidence);
	struct snap *s = calloc(1, sizeof *s);
	size_t cap = 0;
	int rc = SQLITE_NOMEM;

	*out = NULL;
	if (!st || !s)
		goto fail;
	snprintf(s->suite, sizeof s->suite, "%s", suite);
	db_bind_text(st, 1, suite);
	sqlite3_bind_int(st, 2, PREDICT_TEST_MIN_KEYS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (add_row(s, &cap, ref, st) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	if (predict_index_build(s->rows, s->n, &s->ix, b) < 0) {
		rc = SQLITE_NOMEM;
		goto fail;
	}
	s->refs = 1;
	*out = s;
	return DB_OK;
fail:
	if (s)
		snap_free(s);
	return rc == SQLITE_NOMEM || !st ? DB_ERR : db_status_of(rc);
}

int forecast_refresh(struct dbconn *c, const struct ceiling_ref *ref, const char *suite)
{
	struct snap *s, *old;
	struct predict_backtest b;
	double t0 = mono(), t1;
	int rc;

	pthread_mutex_lock(&lock);
	if (!ref || !owed || t0 < next_snap) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	owed = 0;
	pref = ref;
	pthread_mutex_unlock(&lock);
	if ((rc = build(c, ref, suite, &s, &b)) != DB_OK) {
		forecast_owe();
		return rc;
	}
	t1 = mono();
	pthread_mutex_lock(&lock);
	next_snap = t1 + fmax(1.0, 20 * (t1 - t0));
	old = current;
	current = s;
	backtest = b;
	backtest_at = time_now();
	backtest_rows = (long long)s->n;
	have_backtest = 1;
	pthread_mutex_unlock(&lock);
	snap_release(old);
	return 1;
}

void forecast_owe(void)
{
	pthread_mutex_lock(&lock);
	owed = 1;
	pthread_mutex_unlock(&lock);
}

int forecast_owed(void)
{
	int o;

	pthread_mutex_lock(&lock);
	o = owed;
	pthread_mutex_unlock(&lock);
	return o;
}

int forecast_backtest(struct predict_backtest *out, long long *at, long long *rows)
{
	int have;

	pthread_mutex_lock(&lock);
	have = have_backtest;
	*out = backtest;
	*at = backtest_at;
	*rows = backtest_rows;
	pthread_mutex_unlock(&lock);
	return have ? 0 : -1;
}

void forecast_free(void)
{
	struct snap *old;

	pthread_mutex_lock(&lock);
	old = current;
	current = NULL;
	pref = NULL;
	have_backtest = 0;
	owed = 1;
	next_snap = 0;
	pthread_mutex_unlock(&lock);
	snap_release(old);
}

/* ---- the predictions pages ask for ---- */

/* 1 when r is better than best: a narrower step, then a higher figure. */
static int better(const struct predict_result *r, const struct predict_result *best)
{
	if (r->step == PREDICT_NONE)
		return 0;
	if (best->step == PREDICT_NONE)
		return 1;
	if (r->step != best->step)
		return r->step < best->step;
	return r->tok_s > best->tok_s;
}

/* "mlx does not run on RTX 4090" into r->from. */
static void refuse_backend(struct predict_result *r, const struct predict_query *q)
{
	r->refusal = PREDICT_CANNOT_RUN;
	snprintf(r->from, sizeof r->from, "%s does not run on %s", q->backend, q->hw_name);
}

/* Predicts q from snapshot s; q->backend NULL tries each of the
 * snapshot's backends that runs on hw (NULL: unknown hardware). */
static void predict_in(const struct snap *s, const struct ceiling_ref *ref,
		       const struct ceiling_hw *hw, const struct predict_query *q0,
		       struct predict_result *out)
{
	struct predict_query q = *q0;
	struct predict_result r;
	size_t i;

	if (q.backend) {
		int runs = !hw || ceiling_backend_runs(ref, q.backend, hw) != 0;

		predict(s && runs ? &s->ix : NULL, &q, out);
		snprintf(out->backend, sizeof out->backend, "%s", q.backend);
		if (!runs)
			refuse_backend(out, &q);
		return;
	}
	q.backend = "any backend";
	predict(NULL, &q, out);                    /* PREDICT_NONE and its words */
	/* Without a ceiling or a class no backend has a figure (predict()
	 * gives PREDICT_NONE for each, never better than this one): the
	 * loop, a basis text per backend, would change nothing. */
	if (!(q.ceiling > 0 && isfinite(q.ceiling)) || q.cls < 0 || q.cls >= PREDICT_CLASSES)
		return;
	for (i = 0; s && i < s->nbackend; i++) {
		q.backend = s->backend[i];
		if (hw && ceiling_backend_runs(ref, q.backend, hw) == 0)
			continue;
		predict(&s->ix, &q, &r);
		snprintf(r.backend, sizeof r.backend, "%s", q.backend);
		if (better(&r, out))
			*out = r;
	}
}

/* The query of where w says, its hardware named shortly ("RTX 4090")
 * into name (NULL hw_name: the reference's name, else the slug). */
static struct predict_query query_of(const struct predict_where *w, const char *model_slug,
				     const char *hw_slug, const char *backend, double ceiling,
				     const char *hw_name, char *name, size_t size)
{
	const char *full = hw_name ? hw_name : w->hw ? w->hw->name : hw_slug;
	size_t off, len;

	off = textcut_hw(full, strlen(full), &len);
	snprintf(name, size, "%.*s", (int)len, full + off);
	return (struct predict_query){ w->m ? w->m->id : model_slug, hw_slug, w->kin, backend,
				       w->cls, ceiling, name };
}

/* forecast_for_ceiling() with predict_where()'s answer for the model,
 * quant and hardware already in *w (its return in where_rc). */
static void for_where(const char *suite, const struct ceiling_ref *ref, const struct predict_where *w,
		      int where_rc, const char *model_slug, const char *hw_slug, const char *backend,
		      double ceiling, const char *hw_name, struct predict_result *out)
{
	struct snap *s = snap_get();
	char name[256];
	struct predict_query q;

	if (where_rc < 0)
		ceiling = 0;                     /* unknown: no class, no figure */
	q = query_of(w, model_slug, hw_slug, backend, ceiling, hw_name, name, sizeof name);
	if (s && strcmp(s->suite, suite)) {
		snap_release(s);                 /* another suite: no evidence */
		s = NULL;
	}
	predict_in(s, ref, w->hw, &q, out);
	snap_release(s);
}

int forecast_for_ceiling(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug, const char *backend, double ceiling,
			const char *quant, const char *hw_name, struct predict_result *out)
{
	const struct ceiling_ref *ref = snap_ref();
	struct predict_where w;
	int rc = predict_where(ref, model_slug, quant, hw_slug, NULL, &w);

	(void)c;
	for_where(suite, ref, &w, rc, model_slug, hw_slug, backend, ceiling, hw_name, out);
	return 0;
}

/* The quantization model_slug's best run names, into quant (left as it
 * is when none the data knows); 0, or -1 when the database failed. */
static int best_quant(struct dbconn *c, const struct ceiling_ref *ref, const char *suite,
		      const char *model_slug, char *quant, size_t size)
{
	sqlite3_stmt *st = db_stmt(c, sql_quant);
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, model_slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    ceiling_format(ref, (const char *)sqlite3_column_text(st, 0)))
		snprintf(quant, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int forecast_quant(struct dbconn *c, const char *suite, const char *model_slug, char *quant,
		   size_t size)
{
	const struct ceiling_ref *ref = snap_ref();

	snprintf(quant, size, "%s", PREDICT_READ_QUANT);
	return ref ? best_quant(c, ref, suite, model_slug, quant, size) : 0;
}

int forecast_model_known(const char *model_slug)
{
	const struct ceiling_ref *ref = snap_ref();

	return ref && model_slug && ceiling_model_by_slug(ref, model_slug) != NULL;
}

int forecast_for_combo_quant(const char *suite, const char *model_slug, const char *hw_slug,
			     const char *backend, const char *quant, struct predict_result *out)
{
	const struct ceiling_ref *ref = snap_ref();
	struct predict_where w;
	int rc = predict_where(ref, model_slug, quant, hw_slug, backend, &w);

	if (rc < 0 || w.refusal != PREDICT_NO_FIT) {
		/* w read with the backend differs from its reading without
		 * only in the refusal, which for_where() does not use
		 * (predict_in judges the backend itself). */
		for_where(suite, ref, &w, rc, model_slug, hw_slug, backend, w.ceiling, NULL, out);
		return 0;
	}
	/* Nothing is predicted as a speed it runs at where it does not fit. */
	memset(out, 0, sizeof *out);
	out->cls = w.cls;
	out->refusal = PREDICT_NO_FIT;
	snprintf(out->backend, sizeof out->backend, "%s", backend ? backend : "");
	snprintf(out->from, sizeof out->from, "does not fit: %s needs %.1f GB with %s weights and "
		 "a %d-token context; %s has %.0f GB", w.m->name, w.need_gb, w.format,
		 CEILING_CHAT_SHORT_CONTEXT, w.hw->name, w.have_gb);
	return 0;
}

int forecast_for_combo(struct dbconn *c, const char *suite, const char *model_slug,
		      const char *hw_slug, const char *backend, struct predict_result *out)
{
	char quant[128];

	if (forecast_quant(c, suite, model_slug, quant, sizeof quant) < 0)
		return -1;
	return forecast_for_combo_quant(suite, model_slug, hw_slug, backend, quant, out);
}

/* ---- as JSON ---- */

static json_t *num_or_null(int has, double v)
{
	return has ? json_real(v) : json_null();
}

int forecast_json_fields(json_t *row, const struct predict_result *r)
{
	int has = r->step != PREDICT_NONE, band = has && r->has_interval, rc = 0;
	const char *refusal = predict_refusal_name(r->refusal);

	rc |= json_object_set_new(row, "predicted_decode_tok_s", num_or_null(has, r->tok_s));
	rc |= json_object_set_new(row, "predicted_low", num_or_null(band, r->low));
	rc |= json_object_set_new(row, "predicted_high", num_or_null(band, r->high));
	rc |= json_object_set_new(row, "predicted_width",
				  num_or_null(band && isfinite(r->width), round(r->width * 100) / 100));
	rc |= json_object_set_new(row, "too_uncertain", has ? json_boolean(r->too_uncertain) : json_null());
	rc |= json_object_set_new(row, "predicted_from", json_string(r->from));
	rc |= json_object_set_new(row, "predicted_step", json_string(predict_step_name(r->step)));
	rc |= json_object_set_new(row, "predicted_method",
				  has ? json_string(predict_method_name(r->method)) : json_null());
	rc |= json_object_set_new(row, "predicted_class", r->cls >= 0 && r->cls < PREDICT_CLASSES ?
				  json_string(predict_class_name(r->cls)) : json_null());
	rc |= json_object_set_new(row, "predicted_models", json_integer(r->models));
	rc |= json_object_set_new(row, "predicted_refusal", refusal ? json_string(refusal) : json_null());
	rc |= json_object_set_new(row, "predicted_backend",
				  has && r->backend[0] ? json_string(r->backend) : json_null());
	return rc ? -1 : 0;
}

json_t *forecast_text_json(const struct predict_result *r)
{
	int has = r->step != PREDICT_NONE, band = has && r->has_interval;

	return json_pack("{s:o, s:o, s:o, s:o}",
		"tok_s", has ? ceiling_fmt3_json(r->tok_s) : json_string(""),
		"low", band ? ceiling_fmt3_json(r->low) : json_string(""),
		"high", band ? ceiling_fmt3_json(r->high) : json_string(""),
		"width", band && isfinite(r->width) ? ceiling_fmt3_json(r->width) : json_string(""));
}
