/* outlier_rebuild.c: one cluster's or one combination's figures computed
 * from its runs in one pass over an index, as the start-up fill needs them:
 * each key's median and count, the sums over key values, and (a
 * combination) its typical figures with their buckets and pointers. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/quantile.h"

static const char sql_c_clear[] = "DELETE FROM cluster_keys WHERE " WHERE_KEY;
static const char sql_c_runs[] =
	"SELECT key_thumbprint, decode_tok_s, id FROM runs INDEXED BY runs_cluster_key WHERE " WHERE_KEY
	" AND status = 'ok' AND flag_bits < 4 ORDER BY key_thumbprint, decode_tok_s, id";
static const char sql_c_key[] =
	"INSERT INTO cluster_keys(suite_version, model_digest, hw_class, backend_name, key_thumbprint, "
	"runs, mid_x, mid_id, val) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
static const char sql_c_new[] =
	"SELECT coalesce(sum(s.runs = 1), 0) FROM cluster_keys ck "
	"JOIN signing_keys s ON s.thumbprint = ck.key_thumbprint WHERE ck." WHERE_KEY;
static const char sql_w_cid[] = "SELECT cid FROM combos WHERE " WHERE_COMBO;
static const char sql_w_clear[] = "DELETE FROM combo_keys WHERE cid = ?1";
static const char sql_w_runs[] =
	"SELECT key_thumbprint, decode_tok_s, id FROM runs INDEXED BY runs_combo_key WHERE " WHERE_COMBO
	" AND status = 'ok' AND flag_bits < 4 ORDER BY key_thumbprint";
static const char sql_w_key[] =
	"INSERT INTO combo_keys(cid, key_thumbprint, runs, mid_x, mid_id, val, net) "
	"VALUES (?1, ?6, ?7, ?8, ?9, ?10, (SELECT net FROM net_keys WHERE suite_version = ?2 "
	"AND model_digest = ?3 AND hw_slug = ?4 AND backend_name = ?5 AND key_thumbprint = ?6))";
/* (?2..?5: the combination's suite, digest, hardware and backend.) */
static const char sql_w_row[] =
	"UPDATE combos SET runs = ?2, keys = ?3, sum_q = ?4, sum_qq = ?5, mean = ?6, stddev = ?7, "
	"filled = 1, t_runs = 0, t_keys = 0, med = NULL, p25 = NULL, p75 = NULL, pre_keys = 0, "
	"med_prefill = NULL, ttft_keys = 0, med_ttft = NULL, best_decode = NULL, best_id = NULL, "
	"sort_prefill = 0, sort_ttft = 1e300, rank_med = NULL, rank_best = NULL, confirmed = 0, "
	"disputed = 0 WHERE cid = ?1";
static const char sql_w_drop[] = "DELETE FROM combos WHERE cid = ?1";
static const char sql_w_done[] = "UPDATE combos SET filled = 2 WHERE cid = ?1";
static const char sql_t_clear[] = "DELETE FROM key_hist WHERE cid = ?1";
static const char sql_t_clear_c[] = "DELETE FROM combo_hist WHERE hid BETWEEN ?1 AND ?2";
static const char sql_t_keys[] = "SELECT key_thumbprint FROM combo_keys WHERE cid = ?1";
static const char sql_t_runs[] =
	"SELECT decode_tok_s, id, prefill_tok_s, ttft_ms FROM runs INDEXED BY runs_combo_key WHERE "
	WHERE_COMBO " AND key_thumbprint = ?6 AND outlier = 0 AND status = 'ok' AND flag_bits < 4 "
	"ORDER BY decode_tok_s, id";
static const char sql_t_hist[] = "INSERT INTO key_hist VALUES (?1, ?6, ?7, ?8, ?9, ?10)";
static const char sql_t_hist_c[] = "INSERT INTO combo_hist VALUES (?1, ?9, ?10)";
static const char sql_t_best[] =
	"SELECT decode_tok_s, id FROM runs WHERE " WHERE_COMBO " AND status = 'ok' AND outlier = 0 "
	"AND marks = 0 ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
/* The runs of its typical figures under an open dispute (typical.h). */
static const char sql_t_disputed[] =
	"SELECT count(*) FROM runs WHERE " WHERE_COMBO " AND status = 'ok' AND outlier = 0 "
	"AND (marks & 2) <> 0";

/* A growing list of (x, id). */
struct pts {
	struct pt { double x; char id[16]; } *v;
	size_t n, cap;
};

static int pts_add(struct pts *p, double x, const char *id)
{
	struct pt *grown;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		if (!(grown = realloc(p->v, p->cap * sizeof *p->v)))
			return -1;
		p->v = grown;
	}
	p->v[p->n].x = x;
	snprintf(p->v[p->n].id, sizeof p->v[0].id, "%s", id ? id : "");
	p->n++;
	return 0;
}

static int pt_cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The pointer and median of p's points (sorted here). */
static struct mptr median_of(struct pts *p)
{
	struct mptr m = { (long long)p->n, 0, "", NAN };
	size_t lo;

	if (!p->n)
		return m;
	qsort(p->v, p->n, sizeof *p->v, pt_cmp);
	lo = (p->n - 1) / 2;
	m.x = p->v[lo].x;
	memcpy(m.id, p->v[lo].id, sizeof m.id);
	m.val = p->n % 2 ? m.x : (m.x + p->v[lo + 1].x) / 2;
	return m;
}

/* Calls emit(w, k, key, &median, arg) for each key of st's rows (key, x,
 * id), grouped by key; resets st. */
static int per_key(struct dbconn *w, sqlite3_stmt *st, const void *k,
		   int (*emit)(struct dbconn *, const void *, const char *, struct mptr *, void *),
		   void *arg)
{
	struct pts p = { 0 };
	char key[100] = "";
	int rc, any = 0, erc = DB_OK;
	struct mptr m;

	while (erc == DB_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kk = (const char *)sqlite3_column_text(st, 0);

		if (any && strcmp(kk ? kk : "", key)) {
			m = median_of(&p);
			erc = emit(w, k, key, &m, arg);
			p.n = 0;
		}
		snprintf(key, sizeof key, "%s", kk ? kk : "");
		any = 1;
		if (pts_add(&p, sqlite3_column_double(st, 1), (const char *)sqlite3_column_text(st, 2)) < 0)
			erc = DB_ERR;
	}
	if (erc == DB_OK && rc != SQLITE_DONE)
		erc = db_status_of(rc);
	sqlite3_reset(st);
	if (erc == DB_OK && any) {
		m = median_of(&p);
		erc = emit(w, k, key, &m, arg);
	}
	free(p.v);
	return erc;
}

/* ---- a cluster ---- */

static int emit_cluster_key(struct dbconn *w, const void *k, const char *key, struct mptr *m,
			    void *arg)
{
	struct cluster_row *row = arg;
	sqlite3_stmt *st = outlier_keyed(w, sql_c_key, k);

	if (!st)
		return DB_ERR;
	db_bind_text(st, 5, key);
	sqlite3_bind_int64(st, 6, m->n);
	outlier_mptr_bind(m, st, 7);
	row->runs += m->n;
	outlier_fig_move(&row->f, m->val, 1);
	return outlier_step_all(st, NULL, NULL);
}

int outlier_cluster_rebuild(struct dbconn *w, const struct cluster_key *k)
{
	struct cluster_row row;
	sqlite3_stmt *st;
	int rc;

	memset(&row, 0, sizeof row);
	if (!(st = outlier_keyed(w, sql_c_clear, k)) || (rc = outlier_step_all(st, NULL, NULL)) != DB_OK)
		return st ? rc : DB_ERR;
	if (!(st = outlier_keyed(w, sql_c_runs, k)) || (rc = per_key(w, st, k, emit_cluster_key, &row)) != DB_OK)
		return st ? rc : DB_ERR;
	if (!(st = outlier_keyed(w, sql_c_new, k)) || (rc = outlier_step_all(st, NULL, &row.new_keys)) != DB_OK)
		return st ? rc : DB_ERR;
	if ((rc = outlier_clip(w, &(struct clip_pop){ .c = k }, &row.f, &row.mean, &row.sd)) != DB_OK)
		return rc;
	return outlier_cluster_row_store(w, k, &row);
}

/* ---- a combination's flag population ---- */

static int emit_combo_key(struct dbconn *w, const void *k, const char *key, struct mptr *m,
			  void *arg)
{
	struct combo_row *row = arg;
	const struct combo_key *ck = k;
	sqlite3_stmt *st = db_stmt(w, sql_w_key);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, row->cid);
	db_bind_text(st, 2, ck->suite);
	db_bind_text(st, 3, ck->digest);
	db_bind_text(st, 4, ck->hw);
	db_bind_text(st, 5, ck->backend);
	db_bind_text(st, 6, key);
	sqlite3_bind_int64(st, 7, m->n);
	outlier_mptr_bind(m, st, 8);
	row->runs += m->n;
	outlier_fig_move(&row->f, m->val, 1);
	return outlier_step_all(st, NULL, NULL);
}

/* The cid of combination k's row (0 when it has none). */
static int cid_of(struct dbconn *w, const struct combo_key *k, long long *cid)
{
	sqlite3_stmt *st = outlier_combo_keyed(w, sql_w_cid, k);

	*cid = 0;
	return st ? outlier_step_all(st, NULL, cid) : DB_ERR;
}

/* Runs sql (cid bound to ?1) to its end. */
static int by_cid(struct dbconn *w, const char *sql, long long cid)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, cid);
	return outlier_step_all(st, NULL, NULL);
}

int outlier_combo_rebuild(struct dbconn *w, const struct combo_key *k)
{
	unsigned char sb[16], qb[32];
	double mean, sd;
	struct combo_row row;
	sqlite3_stmt *st;
	int rc;

	memset(&row, 0, sizeof row);
	if ((rc = cid_of(w, k, &row.cid)) != DB_OK || !row.cid)
		return rc;
	if ((rc = by_cid(w, sql_w_clear, row.cid)) != DB_OK)
		return rc;
	if (!(st = outlier_combo_keyed(w, sql_w_runs, k)) ||
	    (rc = per_key(w, st, k, emit_combo_key, &row)) != DB_OK)
		return st ? rc : DB_ERR;
	if (!row.runs)
		return by_cid(w, sql_w_drop, row.cid);
	if ((rc = outlier_clip(w, &(struct clip_pop){ .k = k, .cid = row.cid }, &row.f, &mean, &sd)) != DB_OK)
		return rc;
	outlier_fig_blobs(&row.f, sb, qb);
	if (!(st = db_stmt(w, sql_w_row)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, row.cid);
	sqlite3_bind_int64(st, 2, row.runs);
	sqlite3_bind_int64(st, 3, row.f.n);
	sqlite3_bind_blob(st, 4, sb, sizeof sb, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 5, qb, sizeof qb, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 6, mean);
	sqlite3_bind_double(st, 7, sd);
	return outlier_step_all(st, NULL, NULL);
}

/* ---- a combination's typical figures ---- */

/* A growing list of buckets. */
struct qbs {
	struct qbucket *v;
	size_t n, cap;
};

static int qbs_add(struct qbs *q, double x)
{
	struct qbucket *grown;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 64;
		if (!(grown = realloc(q->v, q->cap * sizeof *q->v)))
			return -1;
		q->v = grown;
	}
	q->v[q->n++] = (struct qbucket){ quantile_bucket(x), 1, x };
	return 0;
}

/* Writes the merged buckets of q as histogram (cid, key, metric). */
static int write_hist(struct dbconn *w, long long cid, const char *key, int metric,
		      const struct qbs *q)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < q->n; i++) {
		if (!(st = db_stmt(w, *key ? sql_t_hist : sql_t_hist_c)))
			return DB_ERR;
		sqlite3_bind_int64(st, 1, *key ? cid : typical_hist_id(cid, metric, q->v[i].b));
		db_bind_text(st, 6, key);
		sqlite3_bind_int(st, 7, metric);
		sqlite3_bind_int(st, 8, q->v[i].b);
		sqlite3_bind_int64(st, 9, q->v[i].n);
		sqlite3_bind_double(st, 10, q->v[i].sum);
		rc = outlier_step_all(st, NULL, NULL);
	}
	return rc;
}

/* Merges q, writes it, and reads quantiles qs[0..np-1] into p and v.  A
 * key's one value (key not "") is kept alone, without buckets, as the
 * writer keeps it (typical.c). */
static int settle(struct dbconn *w, long long cid, const char *key, int metric,
		  struct qbs *q, const double *qs, int np, struct hptr *p, double *v)
{
	long long total = (long long)q->n;
	int i;

	if (*key && total == 1) {
		v[0] = q->v[0].sum;
		return DB_OK;
	}
	q->n = quantile_merge(q->v, q->n);
	for (i = 0; total > 0 && i < np; i++)
		quantile_of(q->v, q->n, total, qs[i], &p[i].b, &p[i].below, &p[i].n, &p[i].sum, &v[i]);
	return write_hist(w, cid, key, metric, q);
}

int outlier_typical_rebuild(struct dbconn *w, const struct combo_key *k)
{
	static const double quarts[3] = { 0.25, 0.5, 0.75 }, mid[1] = { 0.5 };
	struct qbs kd = { 0 }, kp = { 0 }, kt = { 0 }, rp = { 0 }, rt = { 0 };
	char (*keys)[100] = NULL, (*grown)[100];
	size_t nk = 0, cap = 0, i;
	struct combo_row cr, old;
	struct ckey_row kr;
	struct pts p = { 0 };
	sqlite3_stmt *st;
	double v3[3];
	int rc;

	if ((rc = outlier_combo_row_load(w, k, &cr)) != DB_OK || !cr.exists)
		return rc;
	if ((rc = by_cid(w, sql_t_clear, cr.cid)) != DB_OK)
		return rc;
	if (!(st = db_stmt(w, sql_t_clear_c)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, typical_hist_id(cr.cid, 0, QUANTILE_ZERO_BUCKET));
	sqlite3_bind_int64(st, 2, typical_hist_id(cr.cid, 3, HIST_SPAN - 1 - HIST_OFFSET));
	if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK)
		return rc;
	if (!(st = db_stmt(w, sql_t_keys)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, cr.cid);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nk == cap) {
			cap = cap ? 2 * cap : 32;
			if (!(grown = realloc(keys, cap * sizeof *keys))) {
				rc = SQLITE_NOMEM;
				break;
			}
			keys = grown;
		}
		snprintf(keys[nk++], sizeof keys[0], "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	old = cr;
	cr.t_runs = cr.t_keys = cr.pre_keys = cr.ttft_keys = 0;
	cr.med = cr.p25 = cr.p75 = cr.med_prefill = cr.med_ttft = cr.best_decode = NAN;
	cr.best_id[0] = '\0';
	for (i = 0; rc == DB_OK && i < nk; i++) {
		if ((rc = outlier_ckey_row_load(w, cr.cid, keys[i], &kr)) != DB_OK)
			break;
		p.n = rp.n = rt.n = 0;
		if (!(st = outlier_combo_keyed(w, sql_t_runs, k))) {
			rc = DB_ERR;
			break;
		}
		db_bind_text(st, 6, keys[i]);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (pts_add(&p, sqlite3_column_double(st, 0), (const char *)sqlite3_column_text(st, 1)) < 0 ||
			    (sqlite3_column_type(st, 2) != SQLITE_NULL && qbs_add(&rp, sqlite3_column_double(st, 2)) < 0) ||
			    (sqlite3_column_type(st, 3) != SQLITE_NULL && qbs_add(&rt, sqlite3_column_double(st, 3)) < 0)) {
				rc = SQLITE_NOMEM;
				break;
			}
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE) {
			rc = db_status_of(rc);
			break;
		}
		kr.clean = median_of(&p);
		kr.pre_runs = (long long)rp.n;
		kr.ttft_runs = (long long)rt.n;
		kr.pre_val = kr.ttft_val = NAN;
		if ((rc = settle(w, cr.cid, keys[i], 1, &rp, mid, 1, &kr.pre, &kr.pre_val)) != DB_OK ||
		    (rc = settle(w, cr.cid, keys[i], 2, &rt, mid, 1, &kr.ttft, &kr.ttft_val)) != DB_OK ||
		    (rc = outlier_ckey_row_store(w, cr.cid, keys[i], &kr)) != DB_OK)
			break;
		cr.t_runs += kr.clean.n;
		if ((kr.clean.n > 0 && qbs_add(&kd, kr.clean.val) < 0) ||
		    (kr.pre_runs > 0 && qbs_add(&kp, kr.pre_val) < 0) ||
		    (kr.ttft_runs > 0 && qbs_add(&kt, kr.ttft_val) < 0))
			rc = DB_ERR;
	}
	cr.t_keys = (long long)kd.n;
	cr.pre_keys = (long long)kp.n;
	cr.ttft_keys = (long long)kt.n;
	if (rc == DB_OK && (rc = settle(w, cr.cid, "", 0, &kd, quarts, 3, cr.q, v3)) == DB_OK && cr.t_keys) {
		cr.p25 = v3[0];
		cr.med = v3[1];
		cr.p75 = v3[2];
	}
	if (rc == DB_OK)
		rc = settle(w, cr.cid, "", 1, &kp, mid, 1, &cr.pre, &cr.med_prefill);
	if (rc == DB_OK)
		rc = settle(w, cr.cid, "", 2, &kt, mid, 1, &cr.ttft, &cr.med_ttft);
	if (!cr.pre_keys)
		cr.med_prefill = NAN;
	if (!cr.ttft_keys)
		cr.med_ttft = NAN;
	if (rc == DB_OK && (st = outlier_combo_keyed(w, sql_t_best, k))) {
		if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			cr.best_decode = sqlite3_column_double(st, 0);
			snprintf(cr.best_id, sizeof cr.best_id, "%s", (const char *)sqlite3_column_text(st, 1));
		}
		sqlite3_reset(st);
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	} else if (rc == DB_OK) {
		rc = DB_ERR;
	}
	if (rc == DB_OK && (st = outlier_combo_keyed(w, sql_t_disputed, k)))
		rc = outlier_step_all(st, NULL, &cr.disputed);
	else if (rc == DB_OK)
		rc = DB_ERR;
	if (rc == DB_OK)
		rc = outlier_combo_row_store(w, k, &cr);
	if (rc == DB_OK && cr.runs > 0)
		rc = by_cid(w, sql_w_done, cr.cid);
	(void)old;
	free(keys);
	free(p.v);
	free(kd.v);
	free(kp.v);
	free(kt.v);
	free(rp.v);
	free(rt.v);
	return rc;
}
