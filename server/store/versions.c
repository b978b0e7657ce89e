/* versions.c: the writer's half of the per-version figures and the speed
 * changes (versions.h): a pass over the dirty versions, each recomputed
 * from its own range of runs_version_key, then its combination's
 * consecutive versions tested. */
#include "store/versions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain/changes.h"
#include "domain/quantile.h"
#include "domain/version.h"
#include "store/netcap.h"
#include "store/scope.h"
#include "util/buf.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

#define COMBO_COLS "suite_version, model_slug, model_digest, hw_slug, backend_name"
#define WHERE_C "suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 " \
	"AND hw_slug = ?4 AND backend_name = ?5"

static const char sql_dirty[] =
	"SELECT seq, " COMBO_COLS ", backend_version FROM version_dirty ORDER BY seq LIMIT ?1";
static const char sql_any_dirty[] = "SELECT 1 FROM version_dirty LIMIT 1";
static const char sql_undirty[] = "DELETE FROM version_dirty WHERE seq = ?1";
static const char sql_raw_put[] =
	"INSERT OR IGNORE INTO version_raw(" COMBO_COLS ", backend_version, version_key) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char sql_raws[] =
	"SELECT backend_version FROM version_raw WHERE " WHERE_C " AND version_key = ?6";
static const char sql_runs[] =
	"SELECT key_thumbprint, decode_tok_s, coalesce(net, 'key:' || key_thumbprint), "
	"unixepoch(received_at) FROM runs INDEXED BY runs_version_key WHERE " WHERE_C
	" AND backend_version = ?6 AND status = 'ok' AND outlier = 0";
static const char sql_put[] =
	"INSERT INTO combo_versions(" COMBO_COLS ", version_key, version, runs, keys, med, p25, p75, "
	"key_values, updated_at, nets, first_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	"?11, ?12, ?13, ?14, ?15, ?16) "
	"ON CONFLICT DO UPDATE SET version = excluded.version, runs = excluded.runs, "
	"keys = excluded.keys, med = excluded.med, p25 = excluded.p25, p75 = excluded.p75, "
	"key_values = excluded.key_values, updated_at = excluded.updated_at, nets = excluded.nets, "
	"first_seen = excluded.first_seen";
static const char sql_drop[] = "DELETE FROM combo_versions WHERE " WHERE_C " AND version_key = ?6";
static const char sql_versions[] =
	"SELECT version_key, version, key_values, nets, first_seen FROM combo_versions WHERE " WHERE_C
	" ORDER BY version_key";
static const char sql_quant[] =
	"SELECT r.model_quant FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) WHERE c.suite_version = ?1 "
	"AND c.model_slug = ?2 AND c.model_digest = ?3 AND c.hw_slug = ?4 AND c.backend_name = ?5";
static const char sql_unlive[] = "UPDATE changes SET live = 0 WHERE " WHERE_C;
static const char sql_change_put[] =
	"INSERT INTO changes(" COMBO_COLS ", quant, from_key, to_key, from_version, to_version, "
	"from_median, to_median, from_keys, to_keys, change_pct, u, p, exact, live, found_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, 1, ?19) "
	"ON CONFLICT DO UPDATE SET quant = excluded.quant, from_version = excluded.from_version, "
	"to_version = excluded.to_version, from_median = excluded.from_median, "
	"to_median = excluded.to_median, from_keys = excluded.from_keys, to_keys = excluded.to_keys, "
	"change_pct = excluded.change_pct, u = excluded.u, p = excluded.p, exact = excluded.exact, "
	"live = 1";
static const char sql_dead[] = "DELETE FROM changes WHERE " WHERE_C " AND live = 0";

/* One combination, copied out of a statement's row. */
struct combo {
	char suite[64], model[129], digest[80], hw[129], backend[40];
};

/* One run of a version: its key and network (owned), decode and time. */
struct krun {
	char *key, *net;
	double x;
	long long t;
};

static void copy_col(char *dst, size_t n, sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	snprintf(dst, n, "%s", s ? s : "");
}

static void bind_combo(sqlite3_stmt *st, const struct combo *k)
{
	db_bind_text(st, 1, k->suite);
	db_bind_text(st, 2, k->model);
	db_bind_text(st, 3, k->digest);
	db_bind_text(st, 4, k->hw);
	db_bind_text(st, 5, k->backend);
}

static int same(const struct combo *a, const struct combo *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->model, b->model) &&
	       !strcmp(a->digest, b->digest) && !strcmp(a->hw, b->hw) &&
	       !strcmp(a->backend, b->backend);
}

static int krun_cmp(const void *a, const void *b)
{
	const struct krun *p = a, *q = b;
	int c = strcmp(p->key, q->key);

	return c ? c : (p->x > q->x) - (p->x < q->x);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A db_status for a statement that stopped at rc. */
static int done_rc(int rc)
{
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

/* Steps a statement that returns no rows. */
static int exec_st(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return done_rc(rc);
}

/* Appends the counted unflagged runs of raw version raw of k to *v (room
 * *cap, *n used; keys strdup'd). */
static int gather_raw(struct dbconn *w, const struct combo *k, const char *raw,
		      struct krun **v, size_t *n, size_t *cap)
{
	sqlite3_stmt *st = db_stmt(w, sql_runs);
	int rc;

	if (!st)
		return DB_ERR;
	bind_combo(st, k);
	db_bind_text(st, 6, raw);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);

		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 64;
			struct krun *nv = realloc(*v, nc * sizeof *nv);

			if (!nv) {
				rc = SQLITE_NOMEM;
				break;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[*n].net = strdup(sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
		if (!((*v)[*n].key = strdup(key ? key : "")) || !(*v)[*n].net) {
			free((*v)[*n].key);
			free((*v)[*n].net);
			rc = SQLITE_NOMEM;
			break;
		}
		(*v)[*n].t = sqlite3_column_int64(st, 3);
		(*v)[(*n)++].x = sqlite3_column_double(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_NOMEM ? DB_ERR : done_rc(rc);
}

/* The key values as the row keeps them: a JSON array, ascending. */
static int key_values_text(const double *kv, size_t n, struct buf *b)
{
	size_t i;

	buf_putc(b, '[');
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		jsonw_real(b, kv[i]);
	}
	buf_putc(b, ']');
	return buf_error(b) ? DB_ERR : DB_OK;
}

/* Quantile q of n >= 1 sorted values, as typical figures place it. */
static double quant(const double *v, size_t n, double q)
{
	long long rank;
	double frac;

	quantile_position(q, (long long)n, &rank, &frac);
	return rank + 1 < (long long)n ? quantile_mix(v[rank], v[rank + 1], frac) : v[rank];
}

/* Recomputes version vkey of k (shown as canon) from the runs of every raw
 * string that is that version. */
static int recompute(struct dbconn *w, const struct combo *k, const char *vkey, const char *canon)
{
	sqlite3_stmt *st = db_stmt(w, sql_raws);
	struct krun *v = NULL;
	size_t n = 0, cap = 0, i, j, nk = 0, nets = 0;
	double *kv = NULL;
	const char **knet = NULL;
	long long first = 0;
	struct buf b = BUF_INIT;
	char **raws = NULL;
	size_t nraw = 0;
	int rc = DB_ERR;

	if (!st)
		return DB_ERR;
	bind_combo(st, k);
	db_bind_text(st, 6, vkey);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char **nr = realloc(raws, (nraw + 1) * sizeof *nr);
		const char *s = (const char *)sqlite3_column_text(st, 0);

		if (!nr || !(nr[nraw] = strdup(s ? s : ""))) {
			raws = nr ? nr : raws;
			rc = SQLITE_NOMEM;
			break;
		}
		raws = nr;
		nraw++;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_NOMEM ? DB_ERR : done_rc(rc);
	for (i = 0; rc == DB_OK && i < nraw; i++)
		rc = gather_raw(w, k, raws[i], &v, &n, &cap);
	if (rc != DB_OK)
		goto out;
	if (n == 0) {
		if (!(st = db_stmt(w, sql_drop)))
			goto fail;
		bind_combo(st, k);
		db_bind_text(st, 6, vkey);
		rc = exec_st(st);
		goto out;
	}
	qsort(v, n, sizeof *v, krun_cmp);
	if (!(kv = malloc(n * sizeof *kv)) || !(knet = malloc(n * sizeof *knet)))
		goto fail;
	for (i = 0; i < n; i = j) {        /* each key's exact median, and network */
		for (j = i; j < n && !strcmp(v[j].key, v[i].key); j++)
			if (!first || v[j].t < first)
				first = v[j].t;
		knet[nk] = v[i].net;
		kv[nk++] = (j - i) % 2 ? v[i + (j - i) / 2].x
				       : (v[i + (j - i) / 2 - 1].x + v[i + (j - i) / 2].x) / 2;
	}
	qsort(knet, nk, sizeof *knet, str_cmp);
	for (i = 0; i < nk; i++)
		nets += !i || strcmp(knet[i], knet[i - 1]);
	qsort(kv, nk, sizeof *kv, dbl_cmp);
	if ((rc = key_values_text(kv, nk, &b)) != DB_OK || !(st = db_stmt(w, sql_put)))
		goto fail;
	bind_combo(st, k);
	db_bind_text(st, 6, vkey);
	db_bind_text(st, 7, canon);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)n);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)nk);
	sqlite3_bind_double(st, 10, quant(kv, nk, 0.5));
	sqlite3_bind_double(st, 11, quant(kv, nk, 0.25));
	sqlite3_bind_double(st, 12, quant(kv, nk, 0.75));
	db_bind_text(st, 13, b.buf);
	sqlite3_bind_int64(st, 14, time_now());
	sqlite3_bind_int64(st, 15, (sqlite3_int64)nets);
	sqlite3_bind_int64(st, 16, first);
	rc = exec_st(st);
	goto out;
fail:
	rc = DB_ERR;
out:
	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].net);
	}
	free(knet);
	for (i = 0; i < nraw; i++)
		free(raws[i]);
	free(raws);
	free(v);
	free(kv);
	buf_release(&b);
	return rc;
}

/* The versions of k as changes_find wants them; *keys and *vals own the
 * strings and arrays (freed by free_versions). */
struct vset {
	size_t n;
	struct changes_version *v;
	char **vkey;
};

static void free_versions(struct vset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free((char *)s->v[i].version);
		free((double *)s->v[i].values);
		free(s->vkey[i]);
	}
	free(s->v);
	free(s->vkey);
	memset(s, 0, sizeof *s);
}

/* The values of a key_values array (NULL when it does not parse). */
static double *parse_values(const char *text, int *n)
{
	json_t *a = json_loads(text ? text : "", 0, NULL), *x;
	double *v = NULL;
	size_t i;

	*n = 0;
	if (json_is_array(a) && json_array_size(a) > 0 &&
	    (v = malloc(json_array_size(a) * sizeof *v)))
		json_array_foreach(a, i, x)
			v[(*n)++] = json_number_value(x);
	json_decref(a);
	return v;
}

static int load_versions(struct dbconn *w, const struct combo *k, struct vset *s)
{
	sqlite3_stmt *st = db_stmt(w, sql_versions);
	int rc;

	if (!st)
		return DB_ERR;
	bind_combo(st, k);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct changes_version *nv = realloc(s->v, (s->n + 1) * sizeof *nv);
		char **nk = nv ? realloc(s->vkey, (s->n + 1) * sizeof *nk) : NULL;
		int cnt;

		if (nv)
			s->v = nv;
		if (nk)
			s->vkey = nk;
		if (!nv || !nk) {
			rc = SQLITE_NOMEM;
			break;
		}
		s->vkey[s->n] = strdup((const char *)sqlite3_column_text(st, 0));
		s->v[s->n].version = strdup((const char *)sqlite3_column_text(st, 1));
		s->v[s->n].values = parse_values((const char *)sqlite3_column_text(st, 2), &cnt);
		s->v[s->n].n = cnt;
		s->v[s->n].nets = sqlite3_column_int(st, 3);
		s->v[s->n].first_seen = sqlite3_column_int64(st, 4);
		s->n++;
		if (!s->vkey[s->n - 1] || !s->v[s->n - 1].version || !s->v[s->n - 1].values) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_NOMEM ? DB_ERR : done_rc(rc);
}

/* The key of the version named canon in s (changes_find reorders s->v, so
 * the key is found by the version's own key). */
static void key_of(const struct combo *k, const char *canon, char *out, size_t n)
{
	if (version_key(k->backend, canon, out, n) < 0)
		out[0] = '\0';
}

/* Retests the consecutive versions of k: the pairs that differ are kept
 * (their found_at as it was), the others leave changes. */
static int retest(struct dbconn *w, const struct combo *k)
{
	struct vset s = { 0 };
	struct changes_pair *pairs = NULL;
	sqlite3_stmt *st;
	char quant[128] = "", fk[VERSION_KEY_MAX], tk[VERSION_KEY_MAX];
	long np = 0, i;
	int rc;

	if ((rc = load_versions(w, k, &s)) != DB_OK)
		goto out;
	if (s.n > 1 && (!(pairs = malloc(s.n * sizeof *pairs)) ||
			(np = changes_find(k->backend, s.v, s.n, pairs, s.n,
					     netcap_keys() ? CHANGES_MIN_NETS : 0)) < 0)) {
		rc = DB_ERR;
		goto out;
	}
	if (!(st = db_stmt(w, sql_quant))) {
		rc = DB_ERR;
		goto out;
	}
	bind_combo(st, k);
	if (sqlite3_step(st) == SQLITE_ROW)
		copy_col(quant, sizeof quant, st, 0);
	sqlite3_reset(st);
	if (!(st = db_stmt(w, sql_unlive))) {
		rc = DB_ERR;
		goto out;
	}
	bind_combo(st, k);
	if ((rc = exec_st(st)) != DB_OK)
		goto out;
	for (i = 0; i < np && rc == DB_OK; i++) {
		const struct changes_pair *p = &pairs[i];

		if (!p->t.changed)
			continue;
		if (!(st = db_stmt(w, sql_change_put))) {
			rc = DB_ERR;
			break;
		}
		key_of(k, s.v[p->from].version, fk, sizeof fk);
		key_of(k, s.v[p->to].version, tk, sizeof tk);
		bind_combo(st, k);
		db_bind_text(st, 6, quant[0] ? quant : NULL);
		db_bind_text(st, 7, fk);
		db_bind_text(st, 8, tk);
		db_bind_text(st, 9, s.v[p->from].version);
		db_bind_text(st, 10, s.v[p->to].version);
		sqlite3_bind_double(st, 11, p->t.median_from);
		sqlite3_bind_double(st, 12, p->t.median_to);
		sqlite3_bind_int(st, 13, p->t.n_from);
		sqlite3_bind_int(st, 14, p->t.n_to);
		sqlite3_bind_double(st, 15, p->t.change_pct);
		sqlite3_bind_double(st, 16, p->t.u);
		sqlite3_bind_double(st, 17, p->t.p);
		sqlite3_bind_int(st, 18, p->t.exact);
		sqlite3_bind_int64(st, 19, time_now());
		rc = exec_st(st);
	}
	if (rc == DB_OK && (st = db_stmt(w, sql_dead))) {
		bind_combo(st, k);
		rc = exec_st(st);
	} else if (rc == DB_OK) {
		rc = DB_ERR;
	}
out:
	free(pairs);
	free_versions(&s);
	return rc;
}

int versions_dirty(struct dbconn *c)
{
	sqlite3_stmt *st = db_stmt(c, sql_any_dirty);
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_status_of(rc);
}

/* One dirty row, read out of the statement. */
struct dirty {
	long long seq;
	struct combo k;
	char raw[420];
};

int versions_pass(struct dbconn *w, int max, int *left, struct scope_set *touched)
{
	sqlite3_stmt *st = db_stmt(w, sql_dirty);
	struct dirty *d = NULL;
	struct combo *done = NULL;
	int n = 0, nd = 0, i, j, rc;

	*left = 0;
	if (!st || max < 1 || !(d = calloc((size_t)max + 1, sizeof *d)) ||
	    !(done = calloc((size_t)max, sizeof *done))) {
		free(d);
		return DB_ERR;
	}
	sqlite3_bind_int(st, 1, max + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n <= max) {
		d[n].seq = sqlite3_column_int64(st, 0);
		copy_col(d[n].k.suite, sizeof d[n].k.suite, st, 1);
		copy_col(d[n].k.model, sizeof d[n].k.model, st, 2);
		copy_col(d[n].k.digest, sizeof d[n].k.digest, st, 3);
		copy_col(d[n].k.hw, sizeof d[n].k.hw, st, 4);
		copy_col(d[n].k.backend, sizeof d[n].k.backend, st, 5);
		copy_col(d[n].raw, sizeof d[n].raw, st, 6);
		n++;
	}
	sqlite3_reset(st);
	if ((rc = done_rc(rc)) != DB_OK)
		goto out;
	if (n > max) {
		*left = 1;
		n = max;
	}
	for (i = 0; i < n && rc == DB_OK; i++) {
		char vkey[VERSION_KEY_MAX], canon[VERSION_KEY_MAX];

		if (version_key(d[i].k.backend, d[i].raw, vkey, sizeof vkey) < 0 ||
		    version_canon(d[i].k.backend, d[i].raw, canon, sizeof canon) < 0 ||
		    !(st = db_stmt(w, sql_raw_put))) {
			rc = DB_ERR;
			break;
		}
		bind_combo(st, &d[i].k);
		db_bind_text(st, 6, d[i].raw);
		db_bind_text(st, 7, vkey);
		if ((rc = exec_st(st)) == DB_OK)
			rc = recompute(w, &d[i].k, vkey, canon);
		if (rc == DB_OK && !(st = db_stmt(w, sql_undirty)))
			rc = DB_ERR;
		if (rc == DB_OK) {
			sqlite3_bind_int64(st, 1, d[i].seq);
			rc = exec_st(st);
		}
		if (touched) {
			scope_add(touched, scope_tag('m', d[i].k.model));
			scope_add(touched, scope_tag('h', d[i].k.hw));
		}
		for (j = 0; j < nd && !same(&done[j], &d[i].k); j++)
			;
		if (j == nd)
			done[nd++] = d[i].k;
	}
	for (j = 0; j < nd && rc == DB_OK; j++)
		rc = retest(w, &done[j]);
out:
	free(d);
	free(done);
	return rc;
}

const char *const versions_sql[] = {
	sql_dirty, sql_any_dirty, sql_undirty, sql_raw_put, sql_raws, sql_runs, sql_put, sql_drop,
	sql_versions, sql_quant, sql_unlive, sql_change_put, sql_dead, NULL,
};
