/* typical_tops.c: each model's and hardware's leading combination (the
 * highest median) and best unflagged run, in model_index and hw_index,
 * for /models, /hardware and the cheatsheet's rows.  Kept from combos as
 * its figures change: a rise is written at once; only when the leader
 * falls is it looked for again, one seek per weights file of the model (a
 * few) or one seek for the hardware. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Per model: its digests (few), then each digest's first combination in
 * combos_digest_med / combos_digest_best. */
static const char sql_m_row[] =
	"SELECT top_rank, top_key, best_rank, best_key FROM model_index "
	"WHERE suite_version = ?1 AND model_slug = ?2";
static const char sql_m_digests[] =
	"SELECT model_digest FROM digest_counts WHERE suite_version = ?1 AND model_slug = ?2";
static const char sql_m_top[] =
	"SELECT rank_med, key_id, model_digest, hw_slug, backend_name, med FROM combos "
	"WHERE suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 AND t_runs > 0 "
	"ORDER BY rank_med DESC, key_id DESC LIMIT 1";
static const char sql_m_best[] =
	"SELECT rank_best, key_id, best_id, best_decode FROM combos "
	"WHERE suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 AND t_runs > 0 "
	"AND best_id IS NOT NULL ORDER BY rank_best DESC, key_id DESC LIMIT 1";
static const char sql_m_set_top[] =
	"UPDATE model_index SET top_rank = ?3, top_key = ?4, top_digest = ?5, top_hw = ?6, "
	"top_backend = ?7, top_med = ?8 WHERE suite_version = ?1 AND model_slug = ?2";
static const char sql_m_set_best[] =
	"UPDATE model_index SET best_rank = ?3, best_key = ?4, best_id = ?5, best_decode = ?6 "
	"WHERE suite_version = ?1 AND model_slug = ?2";
/* Per hardware: one seek in combos_med_hw / combos_best_hw. */
static const char sql_h_row[] =
	"SELECT top_rank, top_key, best_rank, best_key FROM hw_index "
	"WHERE suite_version = ?1 AND hw_slug = ?2";
static const char sql_h_top[] =
	"SELECT rank_med, key_id, model_slug, model_digest, backend_name, med FROM combos "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND t_runs > 0 "
	"ORDER BY rank_med DESC, key_id DESC LIMIT 1";
static const char sql_h_best[] =
	"SELECT rank_best, key_id, best_id, best_decode FROM combos "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND t_runs > 0 AND best_id IS NOT NULL "
	"ORDER BY rank_best DESC, key_id DESC LIMIT 1";
static const char sql_h_set_top[] =
	"UPDATE hw_index SET top_rank = ?3, top_key = ?4, top_model = ?5, top_digest = ?6, "
	"top_backend = ?7, top_med = ?8 WHERE suite_version = ?1 AND hw_slug = ?2";
static const char sql_h_set_best[] =
	"UPDATE hw_index SET best_rank = ?3, best_key = ?4, best_id = ?5, best_decode = ?6 "
	"WHERE suite_version = ?1 AND hw_slug = ?2";
static const char sql_all_models[] = "SELECT suite_version, model_slug FROM model_index";
static const char sql_all_hw[] = "SELECT suite_version, hw_slug FROM hw_index";

const char *const typical_tops_sql[] = {
	sql_m_row, sql_m_digests, sql_m_top, sql_m_best, sql_m_set_top, sql_m_set_best,
	sql_h_row, sql_h_top, sql_h_best, sql_h_set_top, sql_h_set_best, NULL
};

/* A leader: its figure and the combination's key_id, with three more
 * strings naming it (the combination, or the best run's id in id[0]). */
struct lead {
	int has;
	double v;                      /* as lists rank it (typical_rank) */
	double shown;                  /* the figure itself */
	char key[16];
	char name[3][130];
};

/* 1 when (v, key) comes after (b's) in list order (higher first). */
static int beats(double v, const char *key, const struct lead *b)
{
	return !b->has || v > b->v || (v == b->v && strcmp(key, b->key) > 0);
}

static int two_text(struct dbconn *w, const char *sql, const char *a, const char *b, sqlite3_stmt **out)
{
	if (!(*out = db_stmt(w, sql)))
		return DB_ERR;
	db_bind_text(*out, 1, a);
	db_bind_text(*out, 2, b);
	return DB_OK;
}

/* Reads the row's current leader and best: columns (v, key) at 0 and 2. */
static int read_row(struct dbconn *w, const char *sql, const char *suite, const char *slug,
		    int *exists, struct lead *top, struct lead *best)
{
	sqlite3_stmt *st;
	int rc;

	memset(top, 0, sizeof *top);
	memset(best, 0, sizeof *best);
	*exists = 0;
	if ((rc = two_text(w, sql, suite, slug, &st)) != DB_OK)
		return rc;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*exists = 1;
		if ((top->has = sqlite3_column_type(st, 1) != SQLITE_NULL)) {
			top->v = sqlite3_column_double(st, 0);
			snprintf(top->key, sizeof top->key, "%s", (const char *)sqlite3_column_text(st, 1));
		}
		if ((best->has = sqlite3_column_type(st, 3) != SQLITE_NULL)) {
			best->v = sqlite3_column_double(st, 2);
			snprintf(best->key, sizeof best->key, "%s", (const char *)sqlite3_column_text(st, 3));
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Steps st (its first row: v, key, then names) into l when it beats l. */
static int take(sqlite3_stmt *st, struct lead *l)
{
	int rc = sqlite3_step(st), i;
	const char *key;

	if (rc == SQLITE_ROW && (key = (const char *)sqlite3_column_text(st, 1)) &&
	    beats(sqlite3_column_double(st, 0), key, l)) {
		int n = sqlite3_column_count(st);

		l->has = 1;
		l->v = sqlite3_column_double(st, 0);
		l->shown = sqlite3_column_double(st, n - 1);   /* the last column */
		snprintf(l->key, sizeof l->key, "%s", key);
		for (i = 0; i < 3 && i + 2 < n - 1; i++)
			snprintf(l->name[i], sizeof l->name[i], "%s",
				 sqlite3_column_text(st, i + 2) ? (const char *)sqlite3_column_text(st, i + 2) : "");
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Writes leader l (NULLs when none) with sql: ?3 v, ?4 key, ?5.. names. */
static int write_lead(struct dbconn *w, const char *sql, const char *suite, const char *slug,
		      const struct lead *l, int names)
{
	sqlite3_stmt *st;
	int rc, i;

	if ((rc = two_text(w, sql, suite, slug, &st)) != DB_OK)
		return rc;
	/* No figure sorts last: below every unconfirmed one; shown as -1. */
	sqlite3_bind_double(st, 3, l->has ? l->v : -2 * TYPICAL_UNCONFIRMED_OFFSET);
	sqlite3_bind_double(st, 5 + names, l->has ? l->shown : -1);
	if (l->has) {
		db_bind_text(st, 4, l->key);
		for (i = 0; i < names; i++)
			db_bind_text(st, 5 + i, l->name[i]);
	}
	return outlier_step_all(st, NULL, NULL);
}

/* The model's leaders looked for again, over its digests. */
static int model_search(struct dbconn *w, const char *suite, const char *model,
			struct lead *top, struct lead *best)
{
	char digests[64][80];
	sqlite3_stmt *st;
	int n = 0, rc, i;

	memset(top, 0, sizeof *top);
	memset(best, 0, sizeof *best);
	if ((rc = two_text(w, sql_m_digests, suite, model, &st)) != DB_OK)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 64)
		snprintf(digests[n++], sizeof digests[0], "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_status_of(rc);
	for (i = 0; i < n; i++) {
		if ((rc = two_text(w, sql_m_top, suite, model, &st)) != DB_OK)
			return rc;
		db_bind_text(st, 3, digests[i]);
		if ((rc = take(st, top)) != DB_OK)
			return rc;
		if ((rc = two_text(w, sql_m_best, suite, model, &st)) != DB_OK)
			return rc;
		db_bind_text(st, 3, digests[i]);
		if ((rc = take(st, best)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

static int hw_search(struct dbconn *w, const char *suite, const char *hw, struct lead *top,
		     struct lead *best)
{
	sqlite3_stmt *st;
	int rc;

	memset(top, 0, sizeof *top);
	memset(best, 0, sizeof *best);
	if ((rc = two_text(w, sql_h_top, suite, hw, &st)) != DB_OK || (rc = take(st, top)) != DB_OK)
		return rc;
	if ((rc = two_text(w, sql_h_best, suite, hw, &st)) != DB_OK)
		return rc;
	return take(st, best);
}

/* One leader after combination cr's figure went from old to now (NAN:
 * none): 1 in *write with *out set when it must be written, *search when
 * it must be looked for again. */
static void follow(const struct lead *cur, const char *key, double old, double now,
		   double shown, struct lead *out, int *write, int *search)
{
	*write = *search = 0;
	if (old == now || (isnan(old) && isnan(now)))
		return;
	if (cur->has && !strcmp(cur->key, key)) {    /* it leads */
		if (isnan(now) || now < cur->v)
			*search = 1;
		else
			*write = 1;
	} else if (!isnan(now) && beats(now, key, cur)) {
		*write = 1;
	}
	out->has = 1;
	out->v = now;
	out->shown = shown;
	snprintf(out->key, sizeof out->key, "%s", key);
}

int typical_tops(struct dbconn *w, const struct combo_key *k, const struct combo_row *old,
		 const struct combo_row *cr)
{
	/* As lists rank them: confirmed rows first (typical.h). */
	double om = old->t_runs > 0 ? typical_rank(old->med, old->confirmed) : NAN;
	double nm = cr->t_runs > 0 ? typical_rank(cr->med, cr->confirmed) : NAN;
	double ob = old->t_runs > 0 && old->best_id[0] ? typical_rank(old->best_decode, old->confirmed) : NAN;
	double nb = cr->t_runs > 0 && cr->best_id[0] ? typical_rank(cr->best_decode, cr->confirmed) : NAN;
	struct lead top, best, t2, b2, st, sb;
	int rc, exists, wt, ft, wb, fb, same_best;

	same_best = (om == nm || (isnan(om) && isnan(nm))) && (ob == nb || (isnan(ob) && isnan(nb))) &&
		    !strcmp(old->best_id, cr->best_id);
	if (same_best)
		return DB_OK;
	/* The model. */
	if ((rc = read_row(w, sql_m_row, k->suite, k->model, &exists, &top, &best)) != DB_OK || !exists)
		return rc;
	memset(&t2, 0, sizeof t2);
	memset(&b2, 0, sizeof b2);
	follow(&top, cr->key_id, om, nm, cr->med, &t2, &wt, &ft);
	snprintf(t2.name[0], sizeof t2.name[0], "%s", k->digest);
	snprintf(t2.name[1], sizeof t2.name[1], "%s", k->hw);
	snprintf(t2.name[2], sizeof t2.name[2], "%s", k->backend);
	follow(&best, cr->key_id, ob, nb, cr->best_decode, &b2, &wb, &fb);
	/* The same best figure from another run of it is a write too. */
	if (!wb && !fb && best.has && !strcmp(best.key, cr->key_id) && cr->t_runs > 0 &&
	    strcmp(old->best_id, cr->best_id))
		wb = 1, b2 = (struct lead){ 1, nb, cr->best_decode, "", { "" } },
		snprintf(b2.key, sizeof b2.key, "%s", cr->key_id);
	snprintf(b2.name[0], sizeof b2.name[0], "%s", cr->best_id);
	if ((ft || fb) && (rc = model_search(w, k->suite, k->model, &st, &sb)) != DB_OK)
		return rc;
	if ((wt || ft) && (rc = write_lead(w, sql_m_set_top, k->suite, k->model, ft ? &st : &t2, 3)) != DB_OK)
		return rc;
	if ((wb || fb) && (rc = write_lead(w, sql_m_set_best, k->suite, k->model, fb ? &sb : &b2, 1)) != DB_OK)
		return rc;
	/* The hardware. */
	if ((rc = read_row(w, sql_h_row, k->suite, k->hw, &exists, &top, &best)) != DB_OK || !exists)
		return rc;
	follow(&top, cr->key_id, om, nm, cr->med, &t2, &wt, &ft);
	snprintf(t2.name[0], sizeof t2.name[0], "%s", k->model);
	snprintf(t2.name[1], sizeof t2.name[1], "%s", k->digest);
	snprintf(t2.name[2], sizeof t2.name[2], "%s", k->backend);
	follow(&best, cr->key_id, ob, nb, cr->best_decode, &b2, &wb, &fb);
	if (!wb && !fb && best.has && !strcmp(best.key, cr->key_id) && cr->t_runs > 0 &&
	    strcmp(old->best_id, cr->best_id))
		wb = 1, b2 = (struct lead){ 1, nb, cr->best_decode, "", { "" } },
		snprintf(b2.key, sizeof b2.key, "%s", cr->key_id);
	snprintf(b2.name[0], sizeof b2.name[0], "%s", cr->best_id);
	if ((ft || fb) && (rc = hw_search(w, k->suite, k->hw, &st, &sb)) != DB_OK)
		return rc;
	if ((wt || ft) && (rc = write_lead(w, sql_h_set_top, k->suite, k->hw, ft ? &st : &t2, 3)) != DB_OK)
		return rc;
	if ((wb || fb) && (rc = write_lead(w, sql_h_set_best, k->suite, k->hw, fb ? &sb : &b2, 1)) != DB_OK)
		return rc;
	return DB_OK;
}

/* Every row of sql (suite, slug) looked for again with search. */
static int all_of(struct dbconn *w, const char *sql, const char *set_top, const char *set_best,
		  int (*search)(struct dbconn *, const char *, const char *, struct lead *, struct lead *))
{
	sqlite3_stmt *st = db_stmt(w, sql);
	char (*rows)[2][130] = NULL, (*grown)[2][130];
	size_t n = 0, cap = 0, i;
	struct lead top, best;
	int rc;

	if (!st)
		return DB_ERR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			if (!(grown = realloc(rows, cap * sizeof *rows))) {
				rc = SQLITE_NOMEM;
				break;
			}
			rows = grown;
		}
		snprintf(rows[n][0], 130, "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(rows[n][1], 130, "%s", (const char *)sqlite3_column_text(st, 1));
		n++;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	for (i = 0; rc == DB_OK && i < n; i++) {
		rc = search(w, rows[i][0], rows[i][1], &top, &best);
		if (rc == DB_OK)
			rc = write_lead(w, set_top, rows[i][0], rows[i][1], &top, 3);
		if (rc == DB_OK) {
			/* the best's run id was read into name[0] by take() */
			rc = write_lead(w, set_best, rows[i][0], rows[i][1], &best, 1);
		}
	}
	free(rows);
	return rc;
}

int typical_tops_all(struct dbconn *w)
{
	int rc = all_of(w, sql_all_models, sql_m_set_top, sql_m_set_best, model_search);

	return rc == DB_OK ? all_of(w, sql_all_hw, sql_h_set_top, sql_h_set_best, hw_search) : rc;
}
