/* typical.c: the typical figures of a combination (issue 22), kept by the
 * writer as runs join and leave them: each key's median decode (exact, a
 * pointer into runs_combo_key's unflagged runs), prefill and TTFT (from the
 * key's buckets), and over those key values the decode quartiles and the
 * prefill and TTFT medians (from the combination's buckets), with the
 * counts and the best run.  Only counted runs that are not flagged are in
 * them.  The leading combination and best run of each model and hardware
 * (model_index, hw_index) follow here too. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "domain/quantile.h"

static const double quartiles[3] = { 0.25, 0.5, 0.75 };
static const double middle[1] = { 0.5 };

/* The best unflagged run of a combination below (?6, ?7). */
static const char sql_next_best[] =
	"SELECT decode_tok_s, id FROM runs WHERE " WHERE_COMBO " AND status = 'ok' AND outlier = 0 "
	"AND marks = 0 AND (decode_tok_s, id) < (?6, ?7) ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
/* The best unflagged, unmarked run of a combination. */
static const char sql_top_best[] =
	"SELECT decode_tok_s, id FROM runs WHERE " WHERE_COMBO " AND status = 'ok' AND outlier = 0 "
	"AND marks = 0 ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_marks_of[] = "SELECT marks, status, outlier FROM runs WHERE id = ?1";
static const char sql_marks_put[] = "UPDATE runs SET marks = ?2 WHERE id = ?1";

/* ---- one key's values ---- */

/* Moves one key's value of metric m (prefill 1, TTFT 2) for a run's value
 * v entering or leaving.  A key with one run there keeps that value alone
 * (most keys have one run per combination): its buckets and pointer exist
 * only from the second run on. */
static int key_metric(struct dbconn *w, long long cid, const char *key, int m,
		      double v, int sign, long long *runs, struct hptr *p, double *val)
{
	struct hist h = { cid, key, m };
	double rest;
	int rc;

	if (sign > 0 && *runs == 0) {
		*runs = 1;
		*val = v;
		return DB_OK;
	}
	if (sign < 0 && *runs == 1) {
		*runs = 0;
		*val = NAN;
		return DB_OK;
	}
	if (sign > 0 && *runs == 1 && (rc = typical_hist_move(w, &h, *val, 1, 1, p, middle, 1)) != DB_OK)
		return rc;        /* the first run's value into the buckets */
	*runs += sign;
	if ((rc = typical_hist_move(w, &h, v, sign, *runs, p, middle, 1)) != DB_OK)
		return rc;
	if (*runs > 1)
		return typical_hist_value(w, &h, p, *runs, 0.5, val);
	/* One left: its value is its bucket's sum; the buckets go. */
	rest = p->sum;
	if ((rc = typical_hist_move(w, &h, rest, -1, 0, p, middle, 1)) != DB_OK)
		return rc;
	*val = rest;
	return DB_OK;
}

/* ---- the combination's values over keys ---- */

/* A key's value of metric m went from old (had) to now (has): the
 * combination's buckets, key count and pointers follow; *moved says
 * whether anything changed. */
static int combo_metric(struct dbconn *w, long long cid, int m, int had, double old,
			int has, double now, long long *keys, struct hptr *p, int np, int *moved)
{
	struct hist h = { cid, "", m };
	const double *qs = np == 3 ? quartiles : middle;
	int rc;

	*moved = 0;
	if (had && has && old == now)
		return DB_OK;
	if (had && has && quantile_bucket(old) == quantile_bucket(now)) {
		*moved = 1;     /* the same bucket: its sum moves, nothing else */
		return typical_hist_adjust(w, &h, old, now, p, np);
	}
	if (had) {
		--*keys;
		if ((rc = typical_hist_move(w, &h, old, -1, *keys, p, qs, np)) != DB_OK)
			return rc;
	}
	if (has) {
		++*keys;
		if ((rc = typical_hist_move(w, &h, now, 1, *keys, p, qs, np)) != DB_OK)
			return rc;
	}
	*moved = had || has;
	return DB_OK;
}

/* Quantile q of metric m's key values through p, or NAN without keys. */
static int combo_value(struct dbconn *w, long long cid, int m, const struct hptr *p,
		       long long keys, double q, double *v)
{
	struct hist h = { cid, "", m };

	*v = NAN;
	return keys > 0 ? typical_hist_value(w, &h, p, keys, q, v) : DB_OK;
}

/* Reads the first row of st (decode, id) as cr's best, or none. */
static int best_of(sqlite3_stmt *st, struct combo_row *cr)
{
	int rc;

	cr->best_decode = NAN;
	cr->best_id[0] = '\0';
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		cr->best_decode = sqlite3_column_double(st, 0);
		snprintf(cr->best_id, sizeof cr->best_id, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* The best run after r joined (sign 1) or left: the fastest counted,
 * unflagged run that no mark keeps out (above its peak ceiling, under an
 * open dispute: issue 35). */
static int best_move(struct dbconn *w, const struct combo_key *k, const struct frun *r, int sign,
		     struct combo_row *cr)
{
	sqlite3_stmt *st;

	if (sign > 0) {
		if (r->marks)
			return DB_OK;
		if (!cr->best_id[0] || isnan(cr->best_decode) || r->x > cr->best_decode ||
		    (r->x == cr->best_decode && strcmp(r->id, cr->best_id) > 0)) {
			cr->best_decode = r->x;
			snprintf(cr->best_id, sizeof cr->best_id, "%s", r->id);
		}
		return DB_OK;
	}
	if (strcmp(r->id, cr->best_id))
		return DB_OK;
	/* The best left: the next unflagged run below it takes its place
	 * (every other one is below it). */
	if (!(st = outlier_combo_keyed(w, sql_next_best, k)))
		return DB_ERR;
	sqlite3_bind_double(st, 6, r->x);
	db_bind_text(st, 7, r->id);
	return best_of(st, cr);
}

/* Moves everything one run changes in its key's row kr and its
 * combination's row cr. */
static int move(struct dbconn *w, const struct combo_key *k, const struct frun *r, int sign,
		struct ckey_row *kr, struct combo_row *cr)
{
	struct mset s = { MSET_COMBO_CLEAN, NULL, k, r->key };
	int had_d = kr->clean.n > 0, had_p = kr->pre_runs > 0, had_t = kr->ttft_runs > 0;
	double old_d = kr->clean.val, old_p = kr->pre_val, old_t = kr->ttft_val;
	int rc, moved_d = 0, moved_p = 0, moved_t = 0;

	rc = sign > 0 ? outlier_mset_added(w, &s, &kr->clean, r->x, r->id)
		      : outlier_mset_removed(w, &s, &kr->clean, r->x, r->id);
	if (rc == DB_OK && !isnan(r->prefill))
		rc = key_metric(w, cr->cid, r->key, 1, r->prefill, sign, &kr->pre_runs, &kr->pre, &kr->pre_val);
	if (rc == DB_OK && !isnan(r->ttft))
		rc = key_metric(w, cr->cid, r->key, 2, r->ttft, sign, &kr->ttft_runs, &kr->ttft, &kr->ttft_val);
	if (rc == DB_OK)
		rc = best_move(w, k, r, sign, cr);
	cr->t_runs += sign;
	if (r->marks & MARK_DISPUTED)
		cr->disputed += sign;
	if (rc == DB_OK)
		rc = combo_metric(w, cr->cid, 0, had_d, old_d, kr->clean.n > 0, kr->clean.val,
				  &cr->t_keys, cr->q, 3, &moved_d);
	if (rc == DB_OK)
		rc = combo_metric(w, cr->cid, 1, had_p, old_p, kr->pre_runs > 0, kr->pre_val,
				  &cr->pre_keys, &cr->pre, 1, &moved_p);
	if (rc == DB_OK)
		rc = combo_metric(w, cr->cid, 2, had_t, old_t, kr->ttft_runs > 0, kr->ttft_val,
				  &cr->ttft_keys, &cr->ttft, 1, &moved_t);
	if (rc == DB_OK && moved_d &&
	    ((rc = combo_value(w, cr->cid, 0, &cr->q[0], cr->t_keys, 0.25, &cr->p25)) != DB_OK ||
	     (rc = combo_value(w, cr->cid, 0, &cr->q[1], cr->t_keys, 0.5, &cr->med)) != DB_OK ||
	     (rc = combo_value(w, cr->cid, 0, &cr->q[2], cr->t_keys, 0.75, &cr->p75)) != DB_OK))
		return rc;
	if (rc == DB_OK && moved_p)
		rc = combo_value(w, cr->cid, 1, &cr->pre, cr->pre_keys, 0.5, &cr->med_prefill);
	if (rc == DB_OK && moved_t)
		rc = combo_value(w, cr->cid, 2, &cr->ttft, cr->ttft_keys, 0.5, &cr->med_ttft);
	return rc;
}

int typical_move(struct dbconn *w, const struct frun *r, int sign, struct ckey_row *kr,
		 struct combo_row *cr)
{
	struct combo_key k = outlier_frun_combo(r);
	struct ckey_row kbuf;
	struct combo_row cbuf, old;
	int rc, own_k = !kr, own_c = !cr;

	if (own_c && (rc = outlier_combo_row_load(w, &k, cr = &cbuf)) != DB_OK)
		return rc;
	if (!cr->exists)
		return DB_ERR;        /* a counted run's combination always has a row */
	if (own_k && (rc = outlier_ckey_row_load(w, cr->cid, r->key, kr = &kbuf)) != DB_OK)
		return rc;
	old = *cr;
	if ((rc = move(w, &k, r, sign, kr, cr)) != DB_OK)
		return rc;
	if (own_k && (rc = outlier_ckey_row_store(w, cr->cid, r->key, kr)) != DB_OK)
		return rc;
	if (!own_c)
		return DB_OK;         /* the caller stores it and follows the tops */
	if ((rc = outlier_combo_row_store(w, &k, cr)) != DB_OK)
		return rc;
	return typical_tops(w, &k, &old, cr);
}

/* 1 when a and b are the same combination. */
static int same_combo(const struct combo_key *a, const struct combo_key *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->model, b->model) &&
	       !strcmp(a->digest, b->digest) && !strcmp(a->hw, b->hw) &&
	       !strcmp(a->backend, b->backend);
}

int typical_flush(struct dbconn *w, struct tbatch *b)
{
	int i, rc = DB_OK;

	for (i = 0; rc == DB_OK && i < b->n; i++) {
		struct tbatch_row *e = &b->v[i];

		if ((rc = outlier_combo_row_store(w, &e->k, &e->cr)) == DB_OK)
			rc = typical_tops(w, &e->k, &e->old, &e->cr);
	}
	b->n = 0;
	return rc;
}

int typical_move_batched(struct dbconn *w, const struct frun *r, int sign, struct tbatch *b)
{
	struct combo_key k = outlier_frun_combo(r);
	struct tbatch_row *e = NULL;
	struct ckey_row kr;
	int i, rc;

	for (i = 0; i < b->n && !e; i++)
		if (same_combo(&b->v[i].k, &k))
			e = &b->v[i];
	if (!e) {
		if (b->n == TBATCH_MAX && (rc = typical_flush(w, b)) != DB_OK)
			return rc;
		e = &b->v[b->n];
		e->r = *r;
		e->k = outlier_frun_combo(&e->r);
		if ((rc = outlier_combo_row_load(w, &e->k, &e->cr)) != DB_OK)
			return rc;
		if (!e->cr.exists)
			return DB_ERR;    /* a counted run's combination always has a row */
		e->old = e->cr;
		b->n++;
	}
	if ((rc = outlier_ckey_row_load(w, e->cr.cid, r->key, &kr)) != DB_OK ||
	    (rc = move(w, &e->k, r, sign, &kr, &e->cr)) != DB_OK)
		return rc;
	return outlier_ckey_row_store(w, e->cr.cid, r->key, &kr);
}

int typical_marks_set(struct dbconn *w, const char *id, int set, int clear)
{
	sqlite3_stmt *st = db_stmt(w, sql_marks_of);
	struct combo_row cr, old;
	struct combo_key k;
	struct frun r;
	int rc, was, now, in;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
	}
	was = sqlite3_column_int(st, 0);
	in = sqlite3_column_text(st, 1) && !strcmp((const char *)sqlite3_column_text(st, 1), "ok") &&
	     !sqlite3_column_int(st, 2);
	sqlite3_reset(st);
	now = (was | set) & ~clear;
	if (now == was)
		return DB_OK;
	if (!(st = db_stmt(w, sql_marks_put)))
		return DB_ERR;
	db_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, now);
	if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK || !in)
		return rc;
	if ((rc = outlier_frun_load(w, 0, id, &r)) != DB_OK)
		return rc;
	k = outlier_frun_combo(&r);
	if ((rc = outlier_combo_row_load(w, &k, &cr)) != DB_OK || !cr.exists)
		return rc;
	old = cr;
	if ((was ^ now) & MARK_DISPUTED)
		cr.disputed += now & MARK_DISPUTED ? 1 : -1;
	if (now && !strcmp(cr.best_id, id)) {
		/* The best is marked now: the fastest unmarked one takes it. */
		if (!(st = outlier_combo_keyed(w, sql_top_best, &k)))
			return DB_ERR;
		if ((rc = best_of(st, &cr)) != DB_OK)
			return rc;
	} else if (!now && (!cr.best_id[0] || r.x > cr.best_decode ||
			    (r.x == cr.best_decode && strcmp(id, cr.best_id) > 0))) {
		cr.best_decode = r.x;
		snprintf(cr.best_id, sizeof cr.best_id, "%s", id);
	}
	if ((rc = outlier_combo_row_store(w, &k, &cr)) != DB_OK)
		return rc;
	return typical_tops(w, &k, &old, &cr);
}
