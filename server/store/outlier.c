/* outlier.c: the flags (contract section 4, outlier.h): a run entering or
 * leaving its cluster, its combination and the typical figures; the
 * verdicts whose bounds moved (the runs between a population's old and new
 * bound, found by range seeks); the runs that change flag when a cluster
 * reaches or leaves OUTLIER_MIN_KEYS keys (runs_flag_split).  It calls the
 * files below it (outlier_keys.c, outlier_pop.c, typical.c, ...), and none
 * of them calls it: what they share with it is in outlier_stmt.c.  The
 * populations' rows are in outlier_pop.c, the
 * typical figures in typical.c, the start-up fill in outlier_backfill.c. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/ceiling.h"
#include "util/timefmt.h"

static const char sql_keys_of[] = "SELECT keys FROM clusters WHERE " WHERE_KEY;
#define FRUN_COLS "rowid, id, suite_version, model_slug, model_digest, hw_slug, backend_name, " \
	"hw_class, key_thumbprint, decode_tok_s, prefill_tok_s, ttft_ms, received_at, net, marks"
/* Every column before the JWS, so a read stays on the row's first page. */
static const char sql_frun_rowid[] = "SELECT " FRUN_COLS " FROM runs WHERE rowid = ?";
/* With the columns after it (a status change, once). */
static const char sql_frun_id[] =
	"SELECT " FRUN_COLS ", flag_bits, outlier, status, model_quant, model_format FROM runs WHERE id = ?";
static const char sql_set_bits[] = "UPDATE runs SET flag_bits = ?2 WHERE rowid = ?1";
static const char sql_set_flag[] = "UPDATE runs SET flag_bits = ?2, outlier = ?3 WHERE rowid = ?1";
static const char sql_rowid_of[] = "SELECT rowid FROM runs WHERE id = ?";
static const char sql_set_marks[] = "UPDATE runs SET marks = ?2 WHERE rowid = ?1";
/* A population's runs between two bounds: its cluster's, its combination's. */
static const char sql_band_c[] =
	"SELECT rowid, decode_tok_s, flag_bits, outlier, hw_class FROM runs WHERE " WHERE_KEY
	" AND status = 'ok' AND flag_bits < 4 AND decode_tok_s >= ?5 AND decode_tok_s <= ?6";
static const char sql_band_w[] =
	"SELECT rowid, decode_tok_s, flag_bits, outlier, hw_class FROM runs WHERE " WHERE_COMBO
	" AND status = 'ok' AND flag_bits < 4 AND decode_tok_s >= ?6 AND decode_tok_s <= ?7";
/* A cluster's runs whose two verdicts differ. */
static const char sql_split[] =
	"SELECT rowid, decode_tok_s, flag_bits, outlier, hw_class FROM runs WHERE " WHERE_KEY
	" AND status = 'ok' AND (flag_bits & 3) IN (1, 2)";
static const char sql_epoch[] = "SELECT unixepoch(?)";

const char *const outlier_sql[] = {
	sql_keys_of, sql_frun_rowid, sql_frun_id, sql_set_bits, sql_set_flag,
	sql_rowid_of, sql_band_c, sql_band_w, sql_split, sql_epoch, sql_set_marks, NULL
};

int outlier_above_ceiling(const char *model_slug, const char *quant, const char *hw_slug,
			  int bin, double x)
{
	const struct ceiling_ref *ref = db_reference();

	return ref && x > ceiling_flag_bound(ref, model_slug, quant, hw_slug, bin,
					     CEILING_CHAT_SHORT_CONTEXT);
}

int outlier_above_peak(const char *model_slug, const char *quant, const char *hw_slug, int bin,
		       double x)
{
	const struct ceiling_ref *ref = db_reference();

	return ref && x > ceiling_flag_bound(ref, model_slug, quant, hw_slug, bin,
					     CEILING_CHAT_SHORT_CONTEXT) / CEILING_FLAG_FACTOR;
}

/* ---- shared helpers ---- */

int outlier_flag_of_bits(int bits, int cluster_decides)
{
	return (bits & (FLAG_CEILING | FLAG_COMBO)) || (cluster_decides && (bits & FLAG_CLUSTER)) ? 1 : 0;
}

static void copy(char *dst, size_t n, sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	snprintf(dst, n, "%s", s ? s : "");
}

static double real_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* r from st's row (FRUN_COLS). */
static void frun_read(struct frun *r, sqlite3_stmt *st)
{
	memset(r, 0, sizeof *r);
	r->rowid = sqlite3_column_int64(st, 0);
	copy(r->id, sizeof r->id, st, 1);
	copy(r->suite, sizeof r->suite, st, 2);
	copy(r->model, sizeof r->model, st, 3);
	copy(r->digest, sizeof r->digest, st, 4);
	copy(r->hw, sizeof r->hw, st, 5);
	copy(r->backend, sizeof r->backend, st, 6);
	copy(r->hw_class, sizeof r->hw_class, st, 7);
	copy(r->key, sizeof r->key, st, 8);
	r->x = sqlite3_column_double(st, 9);
	r->prefill = real_or_nan(st, 10);
	r->ttft = real_or_nan(st, 11);
	copy(r->received, sizeof r->received, st, 12);
	copy(r->net, sizeof r->net, st, 13);
	r->marks = sqlite3_column_int(st, 14);
}

int outlier_frun_load(struct dbconn *w, long long rowid, const char *id, struct frun *r)
{
	sqlite3_stmt *st = db_stmt(w, rowid ? sql_frun_rowid : sql_frun_id);
	int rc;

	if (!st)
		return DB_ERR;
	if (rowid)
		sqlite3_bind_int64(st, 1, rowid);
	else
		db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		frun_read(r, st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return DB_NOTFOUND;
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

/* 1 when cluster k has OUTLIER_MIN_KEYS keys: it decides its runs' flags. */
static int cluster_decides(struct dbconn *w, const struct cluster_key *k, int *decides)
{
	sqlite3_stmt *st = outlier_keyed(w, sql_keys_of, k);
	long long keys = 0;
	int rc;

	*decides = 0;
	if (!st)
		return DB_ERR;
	rc = outlier_step_all(st, NULL, &keys);
	*decides = keys >= OUTLIER_MIN_KEYS;
	return rc;
}

/* ---- verdicts ---- */

struct bounds {
	double lo, hi;
};

/* The bounds a population's row holds (its mean and spread after sigma
 * clipping). */
static struct bounds bounds_of(double mean, double sd)
{
	struct bounds b;

	outlier_bounds(mean, sd, &b.lo, &b.hi);
	return b;
}

static int outside(double x, struct bounds b)
{
	return x < b.lo || x > b.hi;
}

/* A run's verdicts become bits, its cluster deciding or not: writes them
 * (and the flag, when it changes), moves the run in or out of the typical
 * figures, and appends its id to ids when the flag changed. */
static int verdict(struct dbconn *w, long long rowid, int old_bits, int old_flag, int bits,
		   int decides, json_t *ids, struct tbatch *tb)
{
	int flag = outlier_flag_of_bits(bits, decides), rc;
	sqlite3_stmt *st;
	struct frun r;

	if (bits == old_bits && flag == old_flag)
		return DB_OK;
	if (!(st = db_stmt(w, flag == old_flag ? sql_set_bits : sql_set_flag)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, rowid);
	sqlite3_bind_int(st, 2, bits);
	if (flag != old_flag)
		sqlite3_bind_int(st, 3, flag);
	if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK || flag == old_flag)
		return rc;
	if ((rc = outlier_frun_load(w, rowid, NULL, &r)) != DB_OK)
		return rc;
	if (json_is_array(ids))
		json_array_append_new(ids, json_string(r.id));
	return typical_move_batched(w, &r, flag ? -1 : 1, tb);
}

/* Rows of a band or a split, read whole before any is written. */
struct brow {
	long long rowid;
	double x;
	int bits, flag;
	char hw_class[170];
};
struct brows {
	struct brow *v;
	size_t n, cap;
};

/* Appends st's rows (rowid, decode, bits, flag, hw_class) to b; resets st. */
static int collect(sqlite3_stmt *st, struct brows *b)
{
	struct brow *grown;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 16;
			if (!(grown = realloc(b->v, b->cap * sizeof *b->v))) {
				rc = SQLITE_NOMEM;
				break;
			}
			b->v = grown;
		}
		b->v[b->n] = (struct brow){ sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1),
					    sqlite3_column_int(st, 2), sqlite3_column_int(st, 3), "" };
		copy(b->v[b->n].hw_class, sizeof b->v[0].hw_class, st, 4);
		b->n++;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

static int by_rowid(const void *a, const void *b)
{
	long long x = ((const struct brow *)a)->rowid, y = ((const struct brow *)b)->rowid;

	return x < y ? -1 : x > y;
}

/* Sorts b by rowid and drops repeats (two bands may overlap). */
static void dedupe(struct brows *b)
{
	size_t i, j = 0;

	if (!b->n)
		return;
	qsort(b->v, b->n, sizeof *b->v, by_rowid);
	for (i = 0; i < b->n; i++)
		if (!j || b->v[i].rowid != b->v[j - 1].rowid)
			b->v[j++] = b->v[i];
	b->n = j;
}

/* Collects the rows of sql between each moved bound of old and now: the
 * runs whose verdict against this population may change. */
static int band(struct dbconn *w, sqlite3_stmt *(*bind)(struct dbconn *, const char *, const void *),
		const char *sql, const void *k, int at, struct bounds old, struct bounds now,
		struct brows *b)
{
	double ends[2][2] = { { old.lo, now.lo }, { old.hi, now.hi } };
	sqlite3_stmt *st;
	int i, rc;

	for (i = 0; i < 2; i++) {
		if (ends[i][0] == ends[i][1])
			continue;
		if (!(st = bind(w, sql, k)))
			return DB_ERR;
		sqlite3_bind_double(st, at, fmin(ends[i][0], ends[i][1]));
		sqlite3_bind_double(st, at + 1, fmax(ends[i][0], ends[i][1]));
		if ((rc = collect(st, b)) != DB_OK)
			return rc;
	}
	dedupe(b);
	return DB_OK;
}

static sqlite3_stmt *bind_c(struct dbconn *w, const char *sql, const void *k)
{
	return outlier_keyed(w, sql, k);
}

static sqlite3_stmt *bind_w(struct dbconn *w, const char *sql, const void *k)
{
	return outlier_combo_keyed(w, sql, k);
}

/* Cluster c's bounds moved from old to now (it decides: decides): the
 * cluster verdict of each run between them. */
static int band_cluster(struct dbconn *w, const struct cluster_key *c, struct bounds old,
			struct bounds now, int decides, json_t *ids, struct tbatch *tb)
{
	struct brows b = { 0 };
	size_t i;
	int rc = band(w, bind_c, sql_band_c, c, 5, old, now, &b);

	for (i = 0; rc == DB_OK && i < b.n; i++) {
		int bits = (b.v[i].bits & ~FLAG_CLUSTER) | (outside(b.v[i].x, now) ? FLAG_CLUSTER : 0);

		rc = verdict(w, b.v[i].rowid, b.v[i].bits, b.v[i].flag, bits, decides, ids, tb);
	}
	free(b.v);
	return rc;
}

/* Combination k's bounds moved: the combination verdict of each run
 * between them (it flags a run whatever its cluster says). */
static int band_combo(struct dbconn *w, const struct combo_key *k, struct bounds old,
		      struct bounds now, json_t *ids, struct tbatch *tb)
{
	struct brows b = { 0 };
	char last[170] = "";
	size_t i;
	int rc = band(w, bind_w, sql_band_w, k, 6, old, now, &b), decides = 0;

	for (i = 0; rc == DB_OK && i < b.n; i++) {
		int bits = (b.v[i].bits & ~FLAG_COMBO) | (outside(b.v[i].x, now) ? FLAG_COMBO : 0);
		struct cluster_key c = { k->suite, k->digest, b.v[i].hw_class, k->backend };

		if (bits == b.v[i].bits)
			continue;
		if (strcmp(last, b.v[i].hw_class)) {
			if ((rc = cluster_decides(w, &c, &decides)) != DB_OK)
				break;
			snprintf(last, sizeof last, "%s", b.v[i].hw_class);
		}
		rc = verdict(w, b.v[i].rowid, b.v[i].bits, b.v[i].flag, bits, decides, ids, tb);
	}
	free(b.v);
	return rc;
}

/* Cluster c reached OUTLIER_MIN_KEYS keys or fell below (it decides now:
 * decides): the runs whose two verdicts differ change flag. */
static int split(struct dbconn *w, const struct cluster_key *c, int decides, json_t *ids,
		 struct tbatch *tb)
{
	struct brows b = { 0 };
	sqlite3_stmt *st = outlier_keyed(w, sql_split, c);
	size_t i;
	int rc = st ? collect(st, &b) : DB_ERR;

	for (i = 0; rc == DB_OK && i < b.n; i++)
		rc = verdict(w, b.v[i].rowid, b.v[i].bits, b.v[i].flag, b.v[i].bits, decides, ids, tb);
	free(b.v);
	return rc;
}

/* ---- entering and leaving ---- */

/* The seconds of an RFC 3339 time (0 when it does not parse). */
static long long epoch_of(struct dbconn *w, const char *t)
{
	sqlite3_stmt *st = db_stmt(w, sql_epoch);
	long long v = 0;

	if (st) {
		db_bind_text(st, 1, t);
		outlier_step_all(st, NULL, &v);
	}
	return v;
}

/* Writes run rowid's verdicts and flag where they differ from what its
 * row holds, appending its id to ids when the flag changed. */
static int write_row(struct dbconn *w, const struct frun *r, int stored, int flag, int now,
		     int nflag, json_t *ids)
{
	sqlite3_stmt *st;
	int rc;

	if (now == stored && nflag == flag)
		return DB_OK;
	if (!(st = db_stmt(w, nflag != flag ? sql_set_flag : sql_set_bits)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, r->rowid);
	sqlite3_bind_int(st, 2, now);
	if (nflag != flag)
		sqlite3_bind_int(st, 3, nflag);
	rc = outlier_step_all(st, NULL, NULL);
	if (rc == DB_OK && nflag != flag && json_is_array(ids))
		json_array_append_new(ids, json_string(r->id));
	return rc;
}

/* The new bounds of r's cluster and combination after its key moved:
 * sigma clipping over their rows' sums (the key's combination row is
 * still in kr, unwritten). */
static int clip_both(struct dbconn *w, const struct frun *r, const struct cluster_key *c,
		     const struct combo_key *k, struct cluster_row *cl, const struct ckey_row *kr,
		     struct combo_row *cr)
{
	struct clip_pop pc = { .c = c };
	struct clip_pop pw = { .k = k, .cid = cr->cid, .key = r->key, .has = kr->all.n > 0,
			       .val = kr->all.val };
	int rc = outlier_clip(w, &pc, &cl->f, &cl->mean, &cl->sd);

	return rc == DB_OK ? outlier_clip(w, &pw, &cr->f, &cr->mean, &cr->sd) : rc;
}

/* Run r (counted now: sign 1, inserted or back from a ruling; or not any
 * more: −1) moves in its cluster, its combination and its typical figures;
 * then every verdict the moved bounds change.  stored: r's verdicts as its
 * row holds them, flag its flag; ceiling: its ceiling bit, judged anew.  A
 * run above its ceiling takes no part in any population (its row is
 * outside their indexes, flag_bits >= 4): only its row changes. */
static int move(struct dbconn *w, const struct frun *r, int sign, int stored, int flag,
		int ceiling, json_t *ids)
{
	struct cluster_key c = outlier_frun_cluster(r);
	struct combo_key k = outlier_frun_combo(r);
	struct cluster_row cl;
	struct ckey_row kr;
	struct combo_row cr, old;
	struct bounds cb0, cb1, wb0, wb1;
	struct tbatch tb;
	int rc, dec0, dec1, now = 0, nflag = 0;

	if (ceiling & FLAG_CEILING)
		return write_row(w, r, stored, flag, ceiling, sign > 0, ids);
	if ((rc = outlier_combo_row_load(w, &k, &cr)) != DB_OK ||
	    (!cr.exists && (rc = outlier_combo_row_open(w, &k, r->id, epoch_of(w, r->received), &cr)) != DB_OK) ||
	    (rc = outlier_ckey_row_load(w, cr.cid, r->key, &kr)) != DB_OK || (rc = outlier_cluster_row_load(w, &c, &cl)) != DB_OK)
		return rc;
	old = cr;
	if (!kr.net[0])
		snprintf(kr.net, sizeof kr.net, "%s", r->net);
	/* A leaving run that was not flagged leaves the typical figures. */
	if (sign < 0 && !flag && (rc = typical_move(w, r, -1, &kr, &cr)) != DB_OK)
		return rc;
	cb0 = bounds_of(cl.mean, cl.sd);
	dec0 = cl.f.n >= OUTLIER_MIN_KEYS;
	wb0 = bounds_of(cr.mean, cr.sd);
	if ((rc = outlier_cluster_key_move(w, &c, r->key, r->x, r->id, sign, &cl)) != DB_OK ||
	    (rc = outlier_combo_key_move(w, &k, r->key, r->x, r->id, sign, &kr, &cr)) != DB_OK ||
	    (rc = clip_both(w, r, &c, &k, &cl, &kr, &cr)) != DB_OK)
		return rc;
	cb1 = bounds_of(cl.mean, cl.sd);
	dec1 = cl.f.n >= OUTLIER_MIN_KEYS;
	wb1 = bounds_of(cr.mean, cr.sd);
	/* An entering run's verdicts, against the new bounds; it joins the
	 * typical figures only when they leave it unflagged, so a flagged one
	 * never passes through them. */
	if (sign > 0) {
		now = (outside(r->x, cb1) ? FLAG_CLUSTER : 0) | (outside(r->x, wb1) ? FLAG_COMBO : 0);
		nflag = outlier_flag_of_bits(now, dec1);
		if (!nflag && (rc = typical_move(w, r, 1, &kr, &cr)) != DB_OK)
			return rc;
	}
	if ((rc = outlier_cluster_row_store(w, &c, &cl)) != DB_OK ||
	    (rc = outlier_ckey_row_store(w, cr.cid, r->key, &kr)) != DB_OK ||
	    (rc = outlier_combo_row_store(w, &k, &cr)) != DB_OK || (rc = typical_tops(w, &k, &old, &cr)) != DB_OK)
		return rc;
	/* The run's row: its verdicts (entering), or none (leaving: it is no
	 * longer counted, so not flagged). */
	if ((rc = write_row(w, r, stored, flag, now, nflag, ids)) != DB_OK)
		return rc;
	/* Everyone else whose verdict the moved bounds change, their
	 * combinations' rows written once at the end. */
	tb.n = 0;
	if (cb0.lo != cb1.lo || cb0.hi != cb1.hi)
		rc = band_cluster(w, &c, cb0, cb1, dec1, ids, &tb);
	if (rc == DB_OK && (wb0.lo != wb1.lo || wb0.hi != wb1.hi))
		rc = band_combo(w, &k, wb0, wb1, ids, &tb);
	if (rc == DB_OK && dec0 != dec1)
		rc = split(w, &c, dec1, ids, &tb);
	if (rc == DB_OK)
		rc = typical_flush(w, &tb);
	return rc;
}

/* The rowid of run id. */
static int rowid_of(struct dbconn *w, const char *id, long long *rowid)
{
	sqlite3_stmt *st = db_stmt(w, sql_rowid_of);

	*rowid = 0;
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, id);
	return outlier_step_all(st, NULL, rowid);
}

int outlier_run_added(struct dbconn *w, const struct outlier_run *in, json_t *ids,
		      unsigned *other_tag)
{
	struct frun r;
	int rc, bits;

	memset(&r, 0, sizeof r);
	snprintf(r.id, sizeof r.id, "%s", in->id);
	snprintf(r.suite, sizeof r.suite, "%s", in->k.suite);
	snprintf(r.model, sizeof r.model, "%s", in->k.model);
	snprintf(r.digest, sizeof r.digest, "%s", in->k.digest);
	snprintf(r.hw, sizeof r.hw, "%s", in->k.hw);
	snprintf(r.backend, sizeof r.backend, "%s", in->k.backend);
	snprintf(r.hw_class, sizeof r.hw_class, "%s", in->c.hw_class);
	snprintf(r.key, sizeof r.key, "%s", in->key);
	snprintf(r.received, sizeof r.received, "%s", in->received_at ? in->received_at : "");
	snprintf(r.net, sizeof r.net, "%s", in->net ? in->net : "");
	r.x = in->x;
	r.prefill = in->prefill;
	r.ttft = in->ttft;
	if ((rc = rowid_of(w, in->id, &r.rowid)) != DB_OK)
		return rc;
	if (!r.rowid)
		return DB_NOTFOUND;
	if ((rc = outlier_key_count(w, in->key, 1, other_tag)) != DB_OK)
		return rc;
	bits = outlier_above_ceiling(in->k.model, in->quant, in->k.hw, in->bin, in->x) ? FLAG_CEILING : 0;
	/* Above its peak ceiling, below the flag: marked, never a best run. */
	if (!bits && outlier_above_peak(in->k.model, in->quant, in->k.hw, in->bin, in->x)) {
		sqlite3_stmt *st = db_stmt(w, sql_set_marks);

		if (!st)
			return DB_ERR;
		sqlite3_bind_int64(st, 1, r.rowid);
		sqlite3_bind_int(st, 2, MARK_ABOVE_PEAK);
		if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK)
			return rc;
		r.marks = MARK_ABOVE_PEAK;
	}
	return move(w, &r, 1, 0, 0, bits, ids);
}

int outlier_run_status_changed(struct dbconn *w, const char *id, json_t *ids)
{
	sqlite3_stmt *st = db_stmt(w, sql_frun_id);
	struct frun r;
	int rc, bits = 0, flag = 0, counted = 0;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		frun_read(&r, st);
		bits = sqlite3_column_int(st, 15);
		flag = sqlite3_column_int(st, 16);
		counted = sqlite3_column_text(st, 17) && !strcmp((const char *)sqlite3_column_text(st, 17), "ok");
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return DB_NOTFOUND;
	if (rc != SQLITE_ROW)
		return db_status_of(rc);
	/* Its ceiling bit is kept as stored; a run that left holds only it. */
	return move(w, &r, counted ? 1 : -1, bits, flag, bits & FLAG_CEILING, ids);
}
