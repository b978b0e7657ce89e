/* forecast.c: the snapshot of predict.c's evidence, read from the
 * combinations' typical figures by the refresh thread, its backtest, and
 * the predictions pages ask for (forecast.h). */
#include "store/forecast.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "domain/ceiling.h"
#include "util/textcut.h"
#include "util/timefmt.h"

/* Every combination with PREDICT_TEST_MIN_KEYS keys, with the
 * quantization its best run names: one pass over combos. */
static const char sql_evidence[] =
	"SELECT c.model_slug, c.hw_slug, c.backend_name, c.med, c.t_keys, c.t_runs, r.model_quant "
	"FROM combos c JOIN runs r ON r.id = c.best_id "
	"WHERE c.suite_version = ?1 AND c.t_keys >= ?2 AND c.med > 0";
/* The quantization the model's best unflagged run names. */
static const char sql_quant[] =
	"SELECT r.model_quant FROM model_index i JOIN runs r ON r.id = i.best_id "
	"WHERE i.suite_version = ?1 AND i.model_slug = ?2";

const char *const forecast_sql[] = { sql_evidence, sql_quant, NULL };

/* A snapshot: its rows, the strings they point into, and its readers. */
struct snap {
	char suite[64];
	size_t n;
	struct predict_combo *rows;
	char *strings;
	int refs;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct snap *current;
static const struct ceiling_ref *pref;    /* the reference data of the last refresh */
static struct predict_backtest backtest;
static long long backtest_at, backtest_rows;
static int have_backtest;
static double next_snap, next_backtest;   /* monotonic seconds */
static int owed = 1;                      /* a write since the last build */

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void snap_release(struct snap *s)
{
	int last;

	if (!s)
		return;
	pthread_mutex_lock(&lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&lock);
	if (last) {
		free(s->rows);
		free(s->strings);
		free(s);
	}
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

/* The model's identity for "other models": the reference model's id. */
static const struct ceiling_model *ref_model(const struct ceiling_ref *ref, const char *slug)
{
	const struct ceiling_model *m = ceiling_model_by_slug(ref, slug);

	return m ? m : ceiling_model(ref, slug);
}

/* Appends s and its NUL to the arena (*a, *len, *cap); returns its offset
 * or -1. */
static long arena_put(char **a, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s) + 1;
	long off = (long)*len;

	if (*len + n > *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		char *na;

		while (nc < *len + n)
			nc *= 2;
		if (!(na = realloc(*a, nc)))
			return -1;
		*a = na;
		*cap = nc;
	}
	memcpy(*a + *len, s, n);
	*len += n;
	return off;
}

/* Offsets of a row's strings while the arena may still move. */
struct offs {
	long model, hw, backend;
};

/* Reads suite's evidence into a new snapshot (*out). */
static int build(struct dbconn *c, const struct ceiling_ref *ref, const char *suite,
		 struct snap **out)
{
	sqlite3_stmt *st = db_stmt(c, sql_evidence);
	struct snap *s = calloc(1, sizeof *s);
	struct offs *o = NULL;
	size_t cap = 0, alen = 0, acap = 0, i;
	int rc;

	*out = NULL;
	if (!st || !s) {
		free(s);
		return DB_ERR;
	}
	snprintf(s->suite, sizeof s->suite, "%s", suite);
	db_bind_text(st, 1, suite);
	sqlite3_bind_int(st, 2, PREDICT_TEST_MIN_KEYS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *slug = (const char *)sqlite3_column_text(st, 0);
		const char *hw = (const char *)sqlite3_column_text(st, 1);
		const char *be = (const char *)sqlite3_column_text(st, 2);
		const char *quant = (const char *)sqlite3_column_text(st, 6);
		const struct ceiling_model *m = ref_model(ref, slug);
		struct ceiling_run cr;
		struct predict_combo *p;

		if (!m || !hw || !be || ceiling_of_run(ref, slug, quant, hw, CEILING_CHAT_SHORT_CONTEXT, &cr) < 0)
			continue;
		if (s->n == cap) {
			size_t nc = cap ? 2 * cap : 256;
			struct predict_combo *nr = realloc(s->rows, nc * sizeof *nr);
			struct offs *no = nr ? realloc(o, nc * sizeof *no) : NULL;

			if (nr)
				s->rows = nr;
			if (!no) {
				rc = SQLITE_NOMEM;
				break;
			}
			o = no;
			cap = nc;
		}
		p = &s->rows[s->n];
		memset(p, 0, sizeof *p);
		p->median = sqlite3_column_double(st, 3);
		p->ceiling = cr.step.tok_s;
		p->keys = sqlite3_column_int(st, 4);
		p->runs = sqlite3_column_int64(st, 5);
		o[s->n].model = arena_put(&s->strings, &alen, &acap, m->id);
		o[s->n].hw = arena_put(&s->strings, &alen, &acap, hw);
		o[s->n].backend = arena_put(&s->strings, &alen, &acap, be);
		if (o[s->n].model < 0 || o[s->n].hw < 0 || o[s->n].backend < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		s->n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(o);
		free(s->rows);
		free(s->strings);
		free(s);
		return rc == SQLITE_NOMEM ? DB_ERR : db_status_of(rc);
	}
	for (i = 0; i < s->n; i++) {       /* the arena no longer moves */
		s->rows[i].model = s->strings + o[i].model;
		s->rows[i].hw = s->strings + o[i].hw;
		s->rows[i].backend = s->strings + o[i].backend;
	}
	free(o);
	s->refs = 1;
	*out = s;
	return DB_OK;
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
	if ((rc = build(c, ref, suite, &s)) != DB_OK) {
		forecast_owe();
		return rc;
	}
	t1 = mono();
	next_snap = t1 + fmax(1.0, 20 * (t1 - t0));
	pthread_mutex_lock(&lock);
	old = current;
	current = s;
	pthread_mutex_unlock(&lock);
	snap_release(old);
	if (t1 < next_backtest)
		return 1;
	if (predict_backtest(s->rows, s->n, &b) < 0)
		return DB_ERR;
	next_backtest = mono() + fmax(2.0, 20 * (mono() - t1));
	pthread_mutex_lock(&lock);
	backtest = b;
	backtest_at = time_now();
	backtest_rows = (long long)s->n;
	have_backtest = 1;
	pthread_mutex_unlock(&lock);
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
	next_snap = next_backtest = 0;
	pthread_mutex_unlock(&lock);
	snap_release(old);
}

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

/* Predicts from snapshot s; backend NULL tries each of the snapshot's. */
static int predict_in(const struct snap *s, const struct predict_query *q0, struct predict_result *out)
{
	struct predict_query q = *q0;
	struct predict_result r;
	size_t i, j;

	if (q.backend) {
		if (predict(s ? s->rows : NULL, s ? s->n : 0, &q, out) < 0)
			return -1;
		snprintf(out->backend, sizeof out->backend, "%s", q.backend);
		return 0;
	}
	q.backend = "";
	if (predict(NULL, 0, &q, out) < 0)         /* PREDICT_NONE and its words */
		return -1;
	for (i = 0; s && i < s->n; i++) {
		for (j = 0; j < i && strcmp(s->rows[j].backend, s->rows[i].backend); j++)
			;
		if (j < i || s->rows[i].keys < PREDICT_MIN_KEYS)
			continue;      /* tried already, or no evidence of its own */
		q.backend = s->rows[i].backend;
		if (predict(s->rows, s->n, &q, &r) < 0)
			return -1;
		snprintf(r.backend, sizeof r.backend, "%s", q.backend);
		if (better(&r, out))
			*out = r;
	}
	return 0;
}

int forecast_for_ceiling(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug, const char *backend, double ceiling,
			const char *hw_name, struct predict_result *out)
{
	struct snap *s = snap_get();
	const struct ceiling_ref *ref = snap_ref();
	const struct ceiling_model *m = ref ? ref_model(ref, model_slug) : NULL;
	const struct ceiling_hw *hw = ref ? ceiling_hw(ref, hw_slug) : NULL;
	const char *name = hw_name ? hw_name : hw ? hw->name : hw_slug;
	char shortname[256];
	size_t off, len;
	struct predict_query q = { m ? m->id : model_slug, hw_slug, backend, ceiling, shortname };
	int rc;

	/* The basis names the hardware as narrow spaces do: "RTX 4090". */
	off = textcut_hw(name, strlen(name), &len);
	snprintf(shortname, sizeof shortname, "%.*s", (int)len, name + off);

	(void)c;
	if (s && strcmp(s->suite, suite)) {
		snap_release(s);       /* another suite: no evidence */
		s = NULL;
	}
	rc = predict_in(s, &q, out);
	snap_release(s);
	return rc;
}

int forecast_for_combo(struct dbconn *c, const char *suite, const char *model_slug,
		      const char *hw_slug, const char *backend, struct predict_result *out)
{
	const struct ceiling_ref *ref = snap_ref();
	const struct ceiling_model *m = ref ? ref_model(ref, model_slug) : NULL;
	const struct ceiling_hw *hw = ref ? ceiling_hw(ref, hw_slug) : NULL;
	sqlite3_stmt *st = db_stmt(c, sql_quant);
	char quant[128] = PREDICT_READ_QUANT;
	struct ceiling_run cr;
	double ceiling = 0;
	int rc;

	if (!st)
		return -1;
	if (!ref)
		return forecast_for_ceiling(c, suite, model_slug, hw_slug, backend, 0, NULL, out);
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, model_slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    ceiling_format(ref, (const char *)sqlite3_column_text(st, 0)))
		snprintf(quant, sizeof quant, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (m && hw && ceiling_of_run(ref, model_slug, quant, hw_slug, CEILING_CHAT_SHORT_CONTEXT, &cr) == 0)
		ceiling = cr.step.tok_s;
	return forecast_for_ceiling(c, suite, model_slug, hw_slug, backend, ceiling, NULL, out);
}

int forecast_json_fields(json_t *row, const struct predict_result *r)
{
	int has = r->step != PREDICT_NONE, rc = 0;

	rc |= json_object_set_new(row, "predicted_decode_tok_s", has ? json_real(r->tok_s) : json_null());
	rc |= json_object_set_new(row, "predicted_low", has ? json_real(r->low) : json_null());
	rc |= json_object_set_new(row, "predicted_high", has ? json_real(r->high) : json_null());
	rc |= json_object_set_new(row, "predicted_from", json_string(r->from));
	rc |= json_object_set_new(row, "predicted_step", json_string(predict_step_name(r->step)));
	rc |= json_object_set_new(row, "predicted_backend",
				  has && r->backend[0] ? json_string(r->backend) : json_null());
	return rc ? -1 : 0;
}
