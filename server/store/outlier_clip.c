/* outlier_clip.c: a population's bounds after sigma clipping (contract
 * section 4).  The mean and spread over all its key values are only a
 * start: a key whose every counted run lies outside the bounds they give
 * leaves the population, and the bounds are computed again, until no key
 * leaves (at most OUTLIER_CLIP_ROUNDS rounds).  One extreme key can then no
 * longer widen the bounds so far that nothing else is ever flagged.
 *
 * A round costs two range seeks on the key values (cluster_keys_val,
 * combo_keys_val: the keys beyond each bound, the most extreme first) and
 * one seek per such key for a run inside the bounds; a population whose
 * keys all lie inside its bounds costs the two seeks and nothing more. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* At most this many keys beyond each bound are looked at in a round, the
 * most extreme first, and at most CLIP_MAX leave in all. */
#define CLIP_SIDE 32
#define CLIP_MAX  256
#define STR_(x) #x
#define STR(x) STR_(x)

static const char sql_c_low[] =
	"SELECT key_thumbprint, val FROM cluster_keys WHERE " WHERE_KEY
	" AND val < ?5 ORDER BY val LIMIT " STR(CLIP_SIDE);
static const char sql_c_high[] =
	"SELECT key_thumbprint, val FROM cluster_keys WHERE " WHERE_KEY
	" AND val > ?5 ORDER BY val DESC LIMIT " STR(CLIP_SIDE);
static const char sql_w_low[] =
	"SELECT key_thumbprint, val FROM combo_keys WHERE cid = ?1 AND val < ?2 "
	"ORDER BY val LIMIT " STR(CLIP_SIDE);
static const char sql_w_high[] =
	"SELECT key_thumbprint, val FROM combo_keys WHERE cid = ?1 AND val > ?2 "
	"ORDER BY val DESC LIMIT " STR(CLIP_SIDE);
/* One counted run of the key inside [lo, hi], in the population's index. */
static const char sql_c_inside[] =
	"SELECT 1 FROM runs WHERE " WHERE_KEY " AND key_thumbprint = ?5 AND status = 'ok' "
	"AND flag_bits < 4 AND decode_tok_s >= ?6 AND decode_tok_s <= ?7 LIMIT 1";
static const char sql_w_inside[] =
	"SELECT 1 FROM runs WHERE " WHERE_COMBO " AND key_thumbprint = ?6 AND outlier IN (0, 1) "
	"AND status = 'ok' AND flag_bits < 4 AND decode_tok_s >= ?7 AND decode_tok_s <= ?8 LIMIT 1";

const char *const outlier_clip_sql[] = {
	sql_c_low, sql_c_high, sql_w_low, sql_w_high, sql_c_inside, sql_w_inside, NULL
};

void outlier_bounds(double mean, double sd, double *lo, double *hi)
{
	*lo = sd > 0 ? mean - 3.0 * sd : -INFINITY;
	*hi = sd > 0 ? mean + 3.0 * sd : INFINITY;
}

/* The keys that left, by thumbprint. */
struct gone {
	size_t n;
	char key[CLIP_MAX][100];
};

static int has_gone(const struct gone *g, const char *key)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->key[i], key))
			return 1;
	return 0;
}

/* 1 when key has a counted run of the population inside [lo, hi]. */
static int inside(struct dbconn *w, const struct clip_pop *p, const char *key, double lo,
		  double hi, int *in)
{
	sqlite3_stmt *st = p->c ? outlier_keyed(w, sql_c_inside, p->c)
				: outlier_combo_keyed(w, sql_w_inside, p->k);
	int at = p->c ? 5 : 6, rc;

	*in = 0;
	if (!st)
		return DB_ERR;
	db_bind_text(st, at, key);
	sqlite3_bind_double(st, at + 1, lo);
	sqlite3_bind_double(st, at + 2, hi);
	rc = sqlite3_step(st);
	*in = rc == SQLITE_ROW;
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* A key beyond a bound: it leaves (its value out of f) when none of its
 * runs is inside. */
static int judge(struct dbconn *w, const struct clip_pop *p, const char *key, double val,
		 double lo, double hi, struct fig *f, struct gone *g, int *left)
{
	int in, rc;

	if (g->n == CLIP_MAX || has_gone(g, key))
		return DB_OK;
	if ((rc = inside(w, p, key, lo, hi, &in)) != DB_OK || in)
		return rc;
	outlier_fig_move(f, val, -1);
	snprintf(g->key[g->n++], sizeof g->key[0], "%s", key);
	(*left)++;
	return DB_OK;
}

/* The keys stored beyond one bound (high: above hi, else below lo). */
static int side(struct dbconn *w, const struct clip_pop *p, int high, double lo, double hi,
		struct fig *f, struct gone *g, int *left)
{
	sqlite3_stmt *st = p->c ? outlier_keyed(w, high ? sql_c_high : sql_c_low, p->c)
				: db_stmt(w, high ? sql_w_high : sql_w_low);
	char keys[CLIP_SIDE][100];
	double vals[CLIP_SIDE];
	size_t n = 0, i;
	int rc;

	if (!st)
		return DB_ERR;
	if (!p->c)
		sqlite3_bind_int64(st, 1, p->cid);
	sqlite3_bind_double(st, p->c ? 5 : 2, high ? hi : lo);
	while (n < CLIP_SIDE && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);

		/* The key whose row the caller has not written yet is judged by
		 * its value as it is now, below. */
		if (!key || (p->key && !strcmp(key, p->key)))
			continue;
		snprintf(keys[n], sizeof keys[0], "%s", key);
		vals[n++] = sqlite3_column_double(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_status_of(rc);
	for (i = 0, rc = DB_OK; rc == DB_OK && i < n; i++)
		rc = judge(w, p, keys[i], vals[i], lo, hi, f, g, left);
	return rc;
}

int outlier_clip(struct dbconn *w, const struct clip_pop *p, const struct fig *all, double *mean,
		 double *sd)
{
	struct fig f = *all;
	static _Thread_local struct gone g;   /* the writer's; too big for its stack frame */
	double lo, hi, m2, s2, lo2, hi2;
	int round, left, rc;

	g.n = 0;
	outlier_moments(&f, mean, sd, &lo, &hi);
	for (round = 0; round < OUTLIER_CLIP_ROUNDS && *sd > 0; round++) {
		left = 0;
		if ((rc = side(w, p, 0, lo, hi, &f, &g, &left)) != DB_OK ||
		    (rc = side(w, p, 1, lo, hi, &f, &g, &left)) != DB_OK)
			return rc;
		if (p->key && p->has && (p->val < lo || p->val > hi) &&
		    (rc = judge(w, p, p->key, p->val, lo, hi, &f, &g, &left)) != DB_OK)
			return rc;
		if (!left)
			break;
		/* A round that would leave no spread is not taken: the keys
		 * that stay agree exactly, and bounds of zero width would flag
		 * every other value, honest noise included. */
		outlier_moments(&f, &m2, &s2, &lo2, &hi2);
		if (!(s2 > 0))
			break;
		*mean = m2;
		*sd = s2;
		lo = lo2;
		hi = hi2;
	}
	return DB_OK;
}
