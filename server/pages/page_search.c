/* page_search.c: /search (and its .json and .csv twins) over model, hardware and backend
 * names, digests and run ids; the 303 from an exact search to the page it
 * names, and the 301 from a /m/ or /hw/ name typed another way to its
 * canonical page.
 *
 * Names come from search_names (migration 0012: one row per distinct name,
 * never one per run): a prefix of the squashed query on its index, and
 * substrings of three characters or more through the FTS5 trigram index.
 * Run ids and digests are found by prefix on the runs table's own indexes.
 * At most CANDIDATES names are read, ranked in memory (exact, then prefix,
 * then substring; then more runs in the suite; then name) and shown a page
 * at a time, so a request costs the same whatever the data. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "http/ratelimit.h"
#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"
#include "store/run_store.h"
#include "store/wanted.h"
#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "render/html.h"
#include "util/buf.h"
#include "util/slug.h"

#define Q_MAX 100          /* bytes of ?q= */
#define CANDIDATES 200     /* names read per query */
#define PER_PAGE 20
#define MAX_PAGES (CANDIDATES / PER_PAGE)
#define RUN_HITS 10
#define DIGEST_HITS 5

static const char sql_prefix[] =
	"SELECT id, kind, slug, name, squash FROM search_names "
	"WHERE squash >= ?1 AND squash < ?2 ORDER BY squash LIMIT ?3";
static const char sql_fts[] =
	"SELECT s.id, s.kind, s.slug, s.name, s.squash FROM search_fts f "
	"JOIN search_names s ON s.id = f.rowid WHERE search_fts MATCH ?1 LIMIT ?2";
/* A name's counted runs and best run, and its leading combination's
 * typical figure (the median over submitters) with its submitters and
 * its place in list order (confirmed first: typical_rank), as /models and
 * /hardware show them: a primary-key seek in model_index or hw_index and
 * one in combos. */
static const char sql_model_count[] =
	"SELECT i.runs, i.best_decode, i.top_rank, c.med, c.t_keys FROM model_index i "
	"LEFT JOIN combos c ON c.suite_version = i.suite_version AND c.model_slug = i.model_slug "
	"AND c.model_digest = i.top_digest AND c.hw_slug = i.top_hw AND c.backend_name = i.top_backend "
	"WHERE i.suite_version = ?1 AND i.model_slug = ?2";
static const char sql_hw_count[] =
	"SELECT i.runs, i.best_decode, i.top_rank, c.med, c.t_keys FROM hw_index i "
	"LEFT JOIN combos c ON c.suite_version = i.suite_version AND c.model_slug = i.top_model "
	"AND c.model_digest = i.top_digest AND c.hw_slug = i.hw_slug AND c.backend_name = i.top_backend "
	"WHERE i.suite_version = ?1 AND i.hw_slug = ?2";
/* A backend's counted runs are the sum of its clusters' n (outlier.c keeps
 * n, the runs with status 'ok', current on write), kept in backend_runs
 * (migration 0037): one seek, never a walk of the suite's clusters.  Its
 * best decode is the best run that can stand of its highest-ranked
 * combination (confirmed rows first, issue 35), its typical figure that
 * of its highest-ranked combination by median: seeks in combos_best_be
 * and combos_med_be (migration 0028). */
#define BE_TOP(col) "(SELECT " col " FROM combos WHERE suite_version = ?1 AND backend_name = ?2 " \
	"AND t_runs > 0 ORDER BY rank_med DESC, key_id DESC LIMIT 1)"
static const char sql_be_count[] =
	"SELECT coalesce((SELECT runs FROM backend_runs WHERE suite_version = ?1 AND backend_name = ?2), 0), "
	"(SELECT best_decode FROM combos WHERE suite_version = ?1 "
	"AND backend_name = ?2 AND best_decode IS NOT NULL ORDER BY rank_best DESC LIMIT 1), "
	BE_TOP("rank_med") ", " BE_TOP("med") ", " BE_TOP("t_keys");
static const char sql_runs[] =
	"SELECT id, model_name, accelerator, backend_name, decode_tok_s FROM runs "
	"WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3";
/* Within the suite, on runs_cluster_flag (migration 0006). */
static const char sql_digest[] =
	"SELECT model_digest, model_slug, " NAMES_MODEL("model_slug", "model_name") " FROM runs "
	"WHERE suite_version = ?3 AND model_digest >= ?1 AND model_digest < ?2 AND status = 'ok' "
	"ORDER BY model_digest LIMIT 1";
static const char sql_known[] =
	"SELECT 1 FROM search_names WHERE kind = ?1 AND slug = ?2";
static const char sql_run_known[] = "SELECT 1 FROM runs WHERE id = ?1";
static const char sql_alias[] = "SELECT target FROM slug_aliases WHERE kind = ?1 AND slug = ?2";
/* The counted runs of a model on a hardware (its combinations' rows). */
static const char sql_combo_runs[] =
	"SELECT coalesce(sum(runs), 0) FROM combos WHERE suite_version = ?1 AND model_slug = ?2 "
	"AND hw_slug = ?3";

const char *const page_search_sql[] = {
	sql_prefix, sql_fts, sql_model_count, sql_hw_count, sql_be_count, sql_runs, sql_digest,
	sql_known, sql_run_known, sql_alias, NULL
};

/* One name found, with what ranks it. */
struct hit {
	long long id;
	char kind[8];
	char slug[SLUG_MAX + 1];
	char name[200];
	int match;                 /* 0 exact, 1 prefix, 2 substring */
	long long runs;            /* in the suite; 0 when none there */
	double best;
	int has_med;               /* a typical figure: */
	double med, rank;          /* its leading combination's median, list rank */
	long long keys;            /* and submitters */
};

struct search {
	struct browse b;
	char q[Q_MAX + 1];
	char squash[Q_MAX + 1];    /* q's letters and digits, lowercase */
	struct hit *h;
	size_t n;
};

/* Lowercase ASCII letters and digits of s into out (size n). */
static void squash_of(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++)
		if (isalnum((unsigned char)*s))
			out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
}

/* The least string above every string starting with p: p with its last
 * byte raised (p is ASCII letters, digits, '_', '-' or ':'). */
static void prefix_end(const char *p, char *out, size_t n)
{
	size_t k;

	snprintf(out, n, "%s", p);
	k = strlen(out);
	if (k)
		out[k - 1]++;
}

static int seen(const struct search *s, long long id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->h[i].id == id)
			return 1;
	return 0;
}

/* Adds the name rows st yields (id, kind, slug, name, squash); 0, or -1 on
 * a database error.  Resets st. */
static int take_names(struct search *s, sqlite3_stmt *st)
{
	const char *sq;
	struct hit *h;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW && s->n < CANDIDATES) {
		if (seen(s, sqlite3_column_int64(st, 0)))
			continue;
		h = &s->h[s->n++];
		h->id = sqlite3_column_int64(st, 0);
		snprintf(h->kind, sizeof h->kind, "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(h->slug, sizeof h->slug, "%s", (const char *)sqlite3_column_text(st, 2));
		snprintf(h->name, sizeof h->name, "%s", (const char *)sqlite3_column_text(st, 3));
		sq = (const char *)sqlite3_column_text(st, 4);
		h->match = !strcmp(sq, s->squash) ? 0 :
			   !strncmp(sq, s->squash, strlen(s->squash)) ? 1 : 2;
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Names whose squash starts with the query's. */
static int find_prefix(struct search *s)
{
	sqlite3_stmt *st = db_stmt(s->b.c, sql_prefix);
	char end[Q_MAX + 1];

	if (!st)
		return -1;
	prefix_end(s->squash, end, sizeof end);
	db_bind_text(st, 1, s->squash);
	db_bind_text(st, 2, end);
	sqlite3_bind_int(st, 3, CANDIDATES);
	return take_names(s, st);
}

/* Appends an FTS5 string for the bytes w[0..n) ("..." with '"' doubled). */
static void fts_string(struct buf *out, const char *w, size_t n)
{
	size_t i;

	buf_putc(out, '"');
	for (i = 0; i < n; i++) {
		if (w[i] == '"')
			buf_putc(out, '"');
		buf_putc(out, w[i]);
	}
	buf_putc(out, '"');
}

/* The MATCH expression: each word of three characters or more, squashed
 * or as typed, all of them; empty when no word is long enough. */
static void fts_query(const char *q, struct buf *out)
{
	char sq[Q_MAX + 1], word[Q_MAX + 1];
	size_t n;

	while (*q) {
		q += strspn(q, " \t");
		n = strcspn(q, " \t");
		if (!n)
			break;
		memcpy(word, q, n);
		word[n] = '\0';
		q += n;
		squash_of(word, sq, sizeof sq);
		if (strlen(sq) < 3)
			continue;
		buf_puts(out, out->len ? " AND (" : "(");
		fts_string(out, sq, strlen(sq));
		if (strcmp(sq, word) && n >= 3) {
			buf_puts(out, " OR ");
			fts_string(out, word, n);
		}
		buf_putc(out, ')');
	}
}

/* Names holding every long enough word of the query. */
static int find_substring(struct search *s)
{
	struct buf m = BUF_INIT;
	sqlite3_stmt *st;
	int rc = 0;

	fts_query(s->q, &m);
	if (buf_error(&m))
		rc = -1;
	else if (m.len && (st = db_stmt(s->b.c, sql_fts))) {
		sqlite3_bind_text(st, 1, m.buf, (int)m.len, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, CANDIDATES);
		rc = take_names(s, st);
	} else if (m.len) {
		rc = -1;
	}
	buf_release(&m);
	return rc;
}

/* Each model's, hardware's and backend's runs and best decode in the
 * suite. */
static int add_counts(struct search *s)
{
	sqlite3_stmt *st;
	struct hit *h;
	size_t i;
	int rc;

	for (i = 0; i < s->n; i++) {
		h = &s->h[i];
		st = db_stmt(s->b.c, !strcmp(h->kind, "model") ? sql_model_count :
				     !strcmp(h->kind, "hw") ? sql_hw_count : sql_be_count);
		if (!st)
			return -1;
		db_bind_text(st, 1, s->b.suite);
		db_bind_text(st, 2, h->slug);
		if ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
			h->runs = sqlite3_column_int64(st, 0);
			h->best = sqlite3_column_double(st, 1);
		}
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 3) != SQLITE_NULL) {
			h->has_med = 1;
			h->rank = sqlite3_column_double(st, 2);
			h->med = sqlite3_column_double(st, 3);
			h->keys = sqlite3_column_int64(st, 4);
		}
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return -1;
	}
	return 0;
}

static int kind_order(const char *k)
{
	return !strcmp(k, "model") ? 0 : !strcmp(k, "hw") ? 1 : 2;
}

/* Ranks: better match, then the typical figure as lists rank it
 * (confirmed first, then by median; none last), then more runs, then
 * kind, then name. */
static int hit_cmp(const void *x, const void *y)
{
	const struct hit *a = x, *b = y;

	if (a->match != b->match)
		return a->match - b->match;
	if (a->has_med != b->has_med)
		return b->has_med - a->has_med;
	if (a->has_med && a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	if (a->runs != b->runs)
		return a->runs > b->runs ? -1 : 1;
	if (kind_order(a->kind) != kind_order(b->kind))
		return kind_order(a->kind) - kind_order(b->kind);
	return strcasecmp(a->name, b->name);
}

/* One name as a result item. */
static json_t *hit_json(const struct search *s, const struct hit *h)
{
	static const char *const labels[] = { "Model", "Hardware", "Backend" };
	int k = kind_order(h->kind);
	json_t *href = k == 0 ? browse_link(&s->b, "/m/", h->slug, NULL)
		     : k == 1 ? browse_link(&s->b, "/hw/", h->slug, NULL)
		     : browse_link(&s->b, "/", NULL, "backend", h->slug, NULL);

	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:b}", "kind", h->kind,
		"kind_label", labels[k], "name", h->name, "slug", h->slug, "href", href,
		"runs", (json_int_t)h->runs, "best_decode_tok_s",
		/* best < 0: every run there is flagged (migration 0020) */
		h->runs && h->best >= 0 ? json_real(h->best) : json_null(),
		"best_decode_text", h->runs && h->best >= 0 ? browse_fig(h->best) : json_string(""),
		"median_decode_tok_s", h->has_med ? json_real(h->med) : json_null(),
		"median_text", h->has_med ? browse_fig(h->med) : json_string(""),
		"keys", (json_int_t)(h->has_med ? h->keys : 0), "one_submitter", h->has_med && h->keys == 1);
}

json_t *page_search_names(struct req *r, struct dbconn *c, const char *suite, const char *q,
			  const char *kind, size_t max)
{
	struct search s = { .b = { .r = r, .c = c } };
	json_t *a = json_array();
	size_t i;

	snprintf(s.b.suite, sizeof s.b.suite, "%s", suite);
	snprintf(s.q, sizeof s.q, "%s", q);
	squash_of(s.q, s.squash, sizeof s.squash);
	if (!a || !s.squash[0])
		return a;
	if (!(s.h = calloc(CANDIDATES, sizeof *s.h)) ||
	    find_prefix(&s) < 0 || find_substring(&s) < 0 || add_counts(&s) < 0) {
		free(s.h);
		json_decref(a);
		return NULL;
	}
	qsort(s.h, s.n, sizeof *s.h, hit_cmp);
	for (i = 0; i < s.n && json_array_size(a) < max; i++)
		if (!strcmp(s.h[i].kind, kind))
			json_array_append_new(a, json_pack("{s:s, s:s, s:I}", "slug", s.h[i].slug,
							   "name", s.h[i].name, "runs", (json_int_t)s.h[i].runs));
	free(s.h);
	return a;
}

/* q lowercased when it is a run id prefix ("r_" and id characters), else
 * "" in out. */
static void run_prefix(const char *q, char *out, size_t n)
{
	size_t i, len = strlen(q);

	out[0] = '\0';
	if (len < 3 || len > 13 || tolower((unsigned char)q[0]) != 'r' || q[1] != '_')
		return;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)q[i]) && q[i] != '_' && q[i] != '-')
			return;
	for (i = 0; i < len && i + 1 < n; i++)
		out[i] = (char)tolower((unsigned char)q[i]);
	out[i] = '\0';
}

/* Runs whose id starts with the query, as [{id, href, model, hardware,
 * backend, decode_tok_s}]. */
static json_t *find_runs(struct search *s)
{
	sqlite3_stmt *st;
	char pre[16], end[16];
	json_t *a = json_array();

	run_prefix(s->q, pre, sizeof pre);
	if (!pre[0] || !a)
		return a;
	if (!(st = db_stmt(s->b.c, sql_runs))) {
		json_decref(a);
		return NULL;
	}
	prefix_end(pre, end, sizeof end);
	db_bind_text(st, 1, pre);
	db_bind_text(st, 2, end);
	sqlite3_bind_int(st, 3, RUN_HITS);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);

		json_array_append_new(a, json_pack("{s:s, s:o, s:s, s:s, s:s, s:f, s:o}", "id", id,
			"href", browse_link(&s->b, "/r/", id, NULL),
			"model", (const char *)sqlite3_column_text(st, 1),
			"hardware", (const char *)sqlite3_column_text(st, 2),
			"backend", (const char *)sqlite3_column_text(st, 3),
			"decode_tok_s", sqlite3_column_double(st, 4),
			"decode_text", browse_fig(sqlite3_column_double(st, 4))));
	}
	sqlite3_reset(st);
	return a;
}

/* "sha256:<hex>" into out when q is such a prefix, or bare hex of six
 * digits or more; else "". */
static void digest_prefix(const char *q, char *out, size_t n)
{
	const char *hex = strncasecmp(q, "sha256:", 7) ? q : q + 7;
	size_t len = strlen(hex), i;

	out[0] = '\0';
	if (len < (hex == q ? 6 : 1) || len > 64 || strspn(hex, "0123456789abcdefABCDEF") != len)
		return;
	snprintf(out, n, "sha256:");
	for (i = 0; i < len && 7 + i + 1 < n; i++)
		out[7 + i] = (char)tolower((unsigned char)hex[i]);
	out[7 + i] = '\0';
}

/* Distinct digests of the suite starting with the query, one seek each,
 * as [{digest, model, href}]. */
static json_t *find_digests(struct search *s)
{
	sqlite3_stmt *st;
	char pre[80], lo[80], end[80];
	json_t *a = json_array();
	int k;

	digest_prefix(s->q, pre, sizeof pre);
	if (!pre[0] || !a)
		return a;
	prefix_end(pre, end, sizeof end);
	snprintf(lo, sizeof lo, "%s", pre);
	for (k = 0; k < DIGEST_HITS; k++) {
		if (!(st = db_stmt(s->b.c, sql_digest))) {
			json_decref(a);
			return NULL;
		}
		db_bind_text(st, 1, lo);
		db_bind_text(st, 2, end);
		db_bind_text(st, 3, s->b.suite);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_reset(st);
			break;
		}
		const char *d = (const char *)sqlite3_column_text(st, 0);
		const char *slug = (const char *)sqlite3_column_text(st, 1);

		json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "digest", d,
			"model", (const char *)sqlite3_column_text(st, 2),
			"href", browse_link(&s->b, "/m/", slug, "digest", d, NULL)));
		/* The next digest is above this one and all its runs. */
		snprintf(lo, sizeof lo, "%s\x01", d);
		sqlite3_reset(st);
	}
	return a;
}

/* ?page= as 1..MAX_PAGES; 0 when malformed. */
static int page_arg(struct req *r)
{
	const char *v = http_query(r, "page");
	char *end;
	long p;

	if (!v || !*v)
		return 1;
	p = strtol(v, &end, 10);
	return *end || p < 1 || p > MAX_PAGES ? 0 : (int)p;
}

/* The link to page p of this query. */
static json_t *page_link(const struct search *s, int p)
{
	char num[8];

	snprintf(num, sizeof num, "%d", p);
	return browse_link(&s->b, s->b.html ? "/search" : "/search.json", NULL, "q", s->q, "page", p > 1 ? num : NULL, NULL);
}

/* The result list, ranked, with page p of it. */
static json_t *results(struct search *s, int p)
{
	json_t *m = json_object(), *a = json_array();
	size_t i, from = (size_t)(p - 1) * PER_PAGE;

	qsort(s->h, s->n, sizeof *s->h, hit_cmp);
	for (i = from; i < s->n && i < from + PER_PAGE; i++)
		json_array_append_new(a, hit_json(s, &s->h[i]));
	json_object_set_new(m, "results", a);
	json_object_set_new(m, "total", json_integer((json_int_t)s->n));
	json_object_set_new(m, "capped", json_boolean(s->n >= CANDIDATES));
	json_object_set_new(m, "page", json_integer(p));
	json_object_set_new(m, "next", s->n > from + PER_PAGE ? page_link(s, p + 1) : json_null());
	json_object_set_new(m, "prev", p > 1 ? page_link(s, p - 1) : json_null());
	return m;
}

/* 1 when a name of kind with slug exists, 0 when not, -1 on error. */
static int known(struct dbconn *c, const char *kind, const char *slug)
{
	sqlite3_stmt *st = db_stmt(c, kind ? sql_known : sql_run_known);
	int rc;

	if (!st)
		return -1;
	if (kind) {
		db_bind_text(st, 1, kind);
		db_bind_text(st, 2, slug);
	} else {
		db_bind_text(st, 1, slug);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The page slug a typed name stands for (model: 1) into slug: the
 * reference the resolver reads it as, else the slug of its spelling.
 * 0, or -1 when it gives no slug. */
static int name_slug(const struct ceiling_ref *ref, int model, const char *typed,
		     char slug[SLUG_MAX + 1])
{
	const struct ceiling_model *m = model ? resolve_model_name(ref, typed) : NULL;
	const struct ceiling_hw *h = model ? NULL : resolve_hw_name(ref, typed);

	if (m || h) {
		snprintf(slug, SLUG_MAX + 1, "%s", m ? m->id : h->slug);
		return 0;
	}
	return model ? slug_model(typed, slug, SLUG_MAX + 1) : slug_hw(typed, slug, SLUG_MAX + 1);
}

/* The canonical page q names exactly (a run id, or a model or hardware
 * name in any spelling the resolver knows, any case or spacing, whose
 * slug is known) into out; 1 when there is one, 0 when not, -1 on error. */
static int canonical(const struct ceiling_ref *ref, struct dbconn *c, const char *q,
		     char *out, size_t n)
{
	char slug[SLUG_MAX + 1];
	int k;

	if (run_id_valid(q) && (k = known(c, NULL, q)) != 0) {
		snprintf(out, n, "/r/%s", q);
		return k;
	}
	if (name_slug(ref, 1, q, slug) == 0 && (k = known(c, "model", slug)) != 0) {
		snprintf(out, n, "/m/%s", slug);
		return k;
	}
	if (name_slug(ref, 0, q, slug) == 0 && (k = known(c, "hw", slug)) != 0) {
		snprintf(out, n, "/hw/%s", slug);
		return k;
	}
	return 0;
}

/* A search "<model> on <hardware>" (both known, here or in the reference
 * data) that names a combination without runs ends there: counted for
 * /wanted, and the answer links the model-on-hardware page.  Sets m's
 * "combination" ({model_slug, hw_slug, href, runs}) or null; -1 on error. */
static int combination(struct search *s, json_t *m)
{
	const struct ceiling_ref *ref = s->b.r->app->ref;
	char model[SLUG_MAX + 1], hw[SLUG_MAX + 1], left[Q_MAX + 1], href[2 * SLUG_MAX + 16];
	const char *on = strstr(s->q, " on ");
	sqlite3_stmt *st;
	long long runs;
	int km, kh;

	json_object_set_new(m, "combination", json_null());
	if (!on || on == s->q || (size_t)(on - s->q) > Q_MAX)
		return 0;
	snprintf(left, sizeof left, "%.*s", (int)(on - s->q), s->q);
	if (name_slug(ref, 1, left, model) < 0 || name_slug(ref, 0, on + 4, hw) < 0)
		return 0;
	if ((km = known(s->b.c, "model", model)) < 0 || (kh = known(s->b.c, "hw", hw)) < 0)
		return -1;
	if ((!km && !(ref && (ceiling_model_by_slug(ref, model) || ceiling_model(ref, model)))) ||
	    (!kh && !(ref && ceiling_hw(ref, hw))))
		return 0;
	if (!(st = db_stmt(s->b.c, sql_combo_runs)))
		return -1;
	db_bind_text(st, 1, s->b.suite);
	db_bind_text(st, 2, model);
	db_bind_text(st, 3, hw);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return -1;
	}
	runs = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (!runs)
		wanted_note(s->b.r->client, s->b.suite, model, hw);
	snprintf(href, sizeof href, "/m/%s/hw/%s", model, hw);
	json_object_set_new(m, "combination", json_pack("{s:s, s:s, s:s, s:I}", "model_slug", model,
		"hw_slug", hw, "href", href, "runs", (json_int_t)runs));
	return 0;
}

/* Refuses a client over its search rate; 1 when refused (b's error set). */
static int over_rate(struct search *s)
{
	char key[80];

	http_client_key(s->b.r, key, sizeof key);
	s->b.r->retry_after = ratelimit_take(s->b.r->app->search_rl, key);
	if (!s->b.r->retry_after)
		return 0;
	browse_error(&s->b, 429, "Too many searches from this address; wait %u seconds and try again.",
		     s->b.r->retry_after);
	s->b.err.code = "rate_limited";
	return 1;
}

/* Checks ?q= into s->q; -1 with a 400 when too long. */
static int take_q(struct search *s)
{
	const char *q = http_query(s->b.r, "q");
	size_t n;

	if (!q)
		q = "";
	q += strspn(q, " \t");
	n = strlen(q);
	while (n && (q[n - 1] == ' ' || q[n - 1] == '\t'))
		n--;
	if (n > Q_MAX)
		return browse_error(&s->b, 400, "The q= argument is at most %d characters; search for part of the name.", Q_MAX);
	memcpy(s->q, q, n);
	s->q[n] = '\0';
	squash_of(s->q, s->squash, sizeof s->squash);
	return 0;
}

/* The view model of /search, or NULL with s->b's failure set; *redirect
 * gets the canonical page an exact name leads to (HTML only). */
static json_t *search_model(struct search *s, struct req *r, char *redirect, size_t rn)
{
	json_t *m, *runs = NULL, *digests = NULL;
	int p, k = 0;

	if (browse_begin(&s->b, r) < 0 || over_rate(s) || take_q(s) < 0)
		return NULL;
	if (!(p = page_arg(r))) {
		browse_error(&s->b, 400, "The page= argument must be a whole number from 1 to %d.", MAX_PAGES);
		return NULL;
	}
	/* "<model> on <hardware>" is answered by that page (page_pick.c). */
	if (s->b.html && s->q[0] && (k = page_pick_pair(r, s->q, redirect, rn)) == 0)
		k = canonical(r->app->ref, s->b.c, s->q, redirect, rn);
	if (s->b.html && s->q[0] && k != 0) {
		if (k < 0) {
			redirect[0] = '\0';
			browse_error(&s->b, 503, MSG_DB_DOWN);
		}
		return NULL;   /* the caller redirects, or fails */
	}
	if (!(s->h = calloc(CANDIDATES, sizeof *s->h)))
		return NULL;
	if (s->q[0] && (find_prefix(s) < 0 || find_substring(s) < 0 || add_counts(s) < 0 ||
			!(runs = find_runs(s)) || !(digests = find_digests(s)))) {
		json_decref(runs);
		browse_error(&s->b, 503, MSG_DB_DOWN);
		return NULL;
	}
	m = results(s, p);
	if (s->q[0] && combination(s, m) < 0) {
		json_decref(m);
		json_decref(runs);
		json_decref(digests);
		browse_error(&s->b, 503, MSG_DB_DOWN);
		return NULL;
	}
	json_object_set_new(m, "q", json_string(s->q));
	json_object_set_new(m, "suite_version", json_string(s->b.suite));
	json_object_set_new(m, "runs", runs ? runs : json_array());
	json_object_set_new(m, "digests", digests ? digests : json_array());
	json_object_set_new(m, "searched", json_boolean(s->q[0] != '\0'));
	json_object_set_new(m, "title", json_string(s->q[0] ? "Search results" : "Search"));
	return m;
}

/* GET /search, /search.json and /search.csv: the ranked results; an exact
 * model or hardware name or run id answers 303 to its page (HTML only: a
 * search is answered by another page, not moved there for good, so no
 * browser keeps the redirect); NULL with a 400 for a q= or page= out of
 * bounds, a 429 over the rate limit. */
json_t *page_search_view(struct page_view *v)
{
	struct search s = { 0 };
	char to[2 * SLUG_MAX + 16] = "";
	json_t *m = search_model(&s, v->r, to, sizeof to);

	free(s.h);
	if (!m && to[0]) {
		browse_end(&s.b);
		return page_view_redirect(v, 303, CC_NONE, to);
	}
	return page_view_browsed(v, &s.b, m);
}

/* The page slug typed names on /m/ (model) or /hw/ into out (size n): the
 * page an uploaded name's slug moved to (slug_aliases: such a slug is no
 * page of its own); else the slug itself when a page has it; else the
 * reference the resolver reads the name as, or the slug of its spelling
 * when a page has that.  1 when out is another
 * page's slug, 0 when typed is its own or names none, -1 when the
 * database did not answer. */
static int page_slug(struct req *r, struct dbconn *c, int model, const char *typed,
		     char *out, size_t n)
{
	const char *kind = model ? "model" : "hw";   /* search_names.kind */
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	sqlite3_stmt *st;
	char slug[SLUG_MAX + 1];
	int k, rc;

	if (slug_valid(typed) && (st = db_stmt(c, sql_alias))) {
		db_bind_text(st, 1, kind);
		db_bind_text(st, 2, typed);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_reset(st);
		if (rc == SQLITE_ROW)
			return strcmp(out, typed) != 0;
		if (rc != SQLITE_DONE)
			return -1;
	}
	if (slug_valid(typed) && (k = known(c, kind, typed)) != 0)
		return k < 0 ? -1 : 0;
	if (model && (m = resolve_model_name(r->app->ref, typed))) {
		snprintf(out, n, "%s", m->id);
		return strcmp(out, typed) != 0;
	}
	if (!model && (h = resolve_hw_name(r->app->ref, typed))) {
		snprintf(out, n, "%s", h->slug);
		return strcmp(out, typed) != 0;
	}
	if ((model ? slug_model(typed, slug, sizeof slug) : slug_hw(typed, slug, sizeof slug)) < 0 ||
	    !strcmp(slug, typed) || (k = known(c, kind, slug)) == 0)
		return 0;
	if (k < 0)
		return -1;
	snprintf(out, n, "%s", slug);
	return 1;
}

/* The twin's or feed's extension path ends in (".json", ".csv", ".atom"),
 * or "". */
static const char *path_ext(const char *path)
{
	static const char *const exts[] = { ".json", ".csv", ".atom" };
	size_t n = path ? strlen(path) : 0, i;

	for (i = 0; i < 3; i++)
		if (n > strlen(exts[i]) && !strcmp(path + n - strlen(exts[i]), exts[i]))
			return exts[i];
	return "";
}

/* Appends r's query string, re-encoded, to b ("?a=1&b=2"; nothing when
 * there is none). */
struct query_out {
	struct buf *b;
	int n;
};

static void query_one(void *ctx, const char *key, const char *value)
{
	struct query_out *q = ctx;

	buf_putc(q->b, q->n++ ? '&' : '?');
	html_url_arg(q->b, key);
	if (value) {
		buf_putc(q->b, '=');
		html_url_arg(q->b, value);
	}
}

int page_search_moved(struct req *r, enum page_arg what, struct buf *to)
{
	char model[SLUG_MAX + 1], hw[SLUG_MAX + 1], tm[SLUG_MAX + 1], th[SLUG_MAX + 1];
	const char *ext = path_ext(r->path);
	struct query_out q = { to, 0 };
	struct dbconn *c = db_reader(r->app->db);
	int km = 0, kh = 0;

	if (!c)
		return 0;
	if (what == PAGE_ARG_MODEL_HW) {
		if (page_model_hw_slugs(r->path, tm, th) < 0)
			return 0;
		km = page_slug(r, c, 1, tm, model, sizeof model);
		kh = page_slug(r, c, 0, th, hw, sizeof hw);
		if (km <= 0 && kh <= 0)
			return 0;
		buf_printf(to, "/m/%s/hw/%s%s", km > 0 ? model : tm, kh > 0 ? hw : th, ext);
	} else {
		km = page_slug(r, c, what == PAGE_ARG_MODEL, r->arg, model, sizeof model);
		if (km <= 0)
			return 0;
		buf_printf(to, "/%s/%s%s", what == PAGE_ARG_MODEL ? "m" : "hw", model, ext);
	}
	http_query_each(r, query_one, &q);
	return !buf_error(to);
}

int page_search_canonical(struct page_view *v, enum page_arg what)
{
	struct buf to = BUF_INIT;
	int moved = page_search_moved(v->r, what, &to);

	if (moved)
		page_view_redirect(v, 301, CC_PAGE, to.buf);
	buf_release(&to);
	return moved;
}
