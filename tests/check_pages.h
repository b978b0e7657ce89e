/* check_pages.h: page builders driven in process, for the check files of
 * server/pages/ (tests/pages/check_<file>.c).  A temporary database with
 * the repository's migrations, the reference data of static/reference/,
 * runs stored through the store's real write path (run_store_run), and a
 * request made by hand: no connection, its query as data, its route found
 * by the real router.  The kind's builder then builds its view model as
 * page_serve would call it; or page_serve itself answers into a struct
 * answer, which is data a test can read.
 *
 *   static struct pages P;
 *   setup:    pages_begin(&P, "check_page_x");
 *   a test:   struct page_req q;
 *             pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B" }, "key-a", id);
 *             json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.json?sort=ttft"));
 *             ...
 *             pages_done(&q, m);
 *   teardown: pages_end(&P);
 */
#ifndef LLMS_CHECK_PAGES_H
#define LLMS_CHECK_PAGES_H

#include <check.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "check_tmpdb.h"
#include "check_util.h"
#include "domain/ceiling.h"
#include "ingest/jws.h"
#include "ingest/sample.h"
#include "ingest/validate.h"
#include "store/run_store.h"
#include "util/timefmt.h"
#include "http/answer.h"
#include "http/cache.h"
#include "pages/kinds.h"
#include "pages/page.h"
#include "render/tmpl.h"
#include "router.h"

/* The origin every test request's links are made against. */
#define PAGES_ORIGIN "https://llm-speed.example"

struct pages {
	struct tmpdb t;
	struct app app;
	int nruns;                 /* runs stored, for distinct JWS bytes */
};

/* Opens the database, the cache and the reference data; with templates
 * set, the templates too (for page_serve's HTML). */
static inline void pages_open(struct pages *p, const char *name, int templates)
{
	struct err e = ERR_INIT;
	char dir[600];

	memset(p, 0, sizeof *p);
	tmpdb_begin(&p->t, name);
	p->app.db = tmpdb_open(&p->t, NULL);
	p->app.cache = cache_new(1000);
	p->app.cfg.base_url = PAGES_ORIGIN;
	p->app.cfg.listen = "127.0.0.1:8080";
	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	p->app.ref = ceiling_load(dir, &e);
	ck_assert_msg(p->app.ref, "%s", e.message);
	if (!templates)
		return;
	snprintf(dir, sizeof dir, "%s/templates", repo_root());
	p->app.tmpl = tmpl_set_load(dir, &e);
	ck_assert_msg(p->app.tmpl, "%s", e.message);
	ck_assert_msg(page_meta_init(dir, &e) == 0, "%s", e.message);
}

static inline void pages_begin(struct pages *p, const char *name)
{
	pages_open(p, name, 0);
}

static inline void pages_end(struct pages *p)
{
	if (p->app.tmpl) {
		page_meta_free();
		tmpl_set_free(p->app.tmpl);
	}
	ceiling_free(p->app.ref);
	cache_free(p->app.cache);
	db_close(p->app.db);
	tmpdb_end(&p->t);
}

/* Stores one run of the sample payload with options o, as an upload
 * stores it: a compact JWS signed by the Ed25519 key drawn from the name
 * key (the same name, the same key: one submitter), verified, validated
 * and written by the store's write path.  Its id into id (NULL: not
 * wanted). */
static inline void pages_run(struct pages *p, const struct sample_opts *o, const char *key,
			     char id[RUN_ID_LEN])
{
	unsigned char seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char sk[crypto_sign_SECRETKEYBYTES];
	struct run_new n = { .f = { 0 } };
	json_t *pl = sample_payload(o), *payload = NULL;
	char *text = json_dumps(pl, JSON_COMPACT), *compact;
	struct err e = ERR_INIT;
	struct jws j;

	ck_assert_ptr_nonnull(text);
	crypto_hash_sha256(seed, (const unsigned char *)key, strlen(key));
	crypto_sign_seed_keypair(pk, sk, seed);
	ck_assert_ptr_nonnull(compact = jws_sign_eddsa(sk, (const unsigned char *)text, strlen(text)));
	ck_assert_msg(jws_parse_verify(compact, strlen(compact), &j, &e) == JWS_OK, "%s", e.message);
	ck_assert_msg(validate_payload_bytes(j.payload, j.payload_len, time_now(), &payload, &n.f, &e) == 0,
		      "%s: %s", e.field, e.message);
	n.payload = j.payload;
	n.payload_len = j.payload_len;
	n.jws = compact;
	n.jws_len = strlen(compact);
	n.thumbprint = j.thumbprint;
	n.alg = "EdDSA";
	n.j.run = run_store_run;
	ck_assert_int_eq(db_write(p->app.db, &n.j), DB_OK);
	ck_assert_msg(!n.duplicate && !n.clash.field, "run %d was not stored", p->nruns);
	p->nruns++;
	if (id)
		snprintf(id, RUN_ID_LEN, "%s", n.id);
	json_decref(n.affected);
	json_decref(payload);
	jws_free(&j);
	free(compact);
	free(text);
	json_decref(pl);
}

/* One request made by hand and the view its builder fills. */
struct page_req {
	struct req r;
	char path[300];
	char query[600];           /* the query's bytes, cut into r.query */
	struct page_view v;
};

/* Cuts q->query ("a=b&c&d=e", no escapes) into the request's arguments. */
static inline void pages_query(struct page_req *q)
{
	char *s = q->query, *amp, *eq;

	q->r.nquery = 0;
	while (*s && q->r.nquery < (int)(sizeof q->r.query / sizeof q->r.query[0])) {
		if ((amp = strchr(s, '&')))
			*amp = '\0';
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		q->r.query[q->r.nquery++] = (struct http_pair){ s, eq ? eq + 1 : NULL };
		if (!amp)
			break;
		s = amp + 1;
	}
}

/* A GET of target ("/m/qwen3-8b.json?sort=ttft") as the router hands it
 * to page_serve: its route, kind, form, '*' argument and query; the view
 * as page_serve starts it.  Returns &q->v; fails the test when no page
 * kind's route takes the path. */
static inline struct page_view *pages_get(struct page_req *q, struct pages *p, const char *target)
{
	const char *mark = strchr(target, '?');
	const struct route *rt;

	memset(q, 0, sizeof *q);
	snprintf(q->path, sizeof q->path, "%.*s", (int)(mark ? (size_t)(mark - target) : strlen(target)), target);
	snprintf(q->query, sizeof q->query, "%s", mark ? mark + 1 : "");
	q->r.app = &p->app;
	q->r.path = q->path;
	q->r.method = HTTP_GET;
	snprintf(q->r.client, sizeof q->r.client, "192.0.2.1");
	pages_query(q);
	rt = router_match(HTTP_GET, q->path, q->r.arg, sizeof q->r.arg);
	ck_assert_msg(rt, "no route takes %s", q->path);
	q->r.route = rt;
	q->r.html = (rt->flags & ROUTE_HTML) != 0;
	q->r.format = rt->format;
	q->r.kind = rt->format ? rt->kind : -1;
	q->r.error_page = page_error;
	ck_assert_msg(q->r.kind >= 0, "%s is no page kind's", q->path);
	q->v = (struct page_view){ .r = &q->r, .kind = &page_kinds[q->r.kind], .format = q->r.format,
				   .err = ERR_INIT, .redirect.to = BUF_INIT, .status = 200,
				   .gen = cache_gen(p->app.cache) };
	return &q->v;
}

/* The kind's builder on v, as page_serve calls it: a view model (a new
 * reference), or NULL with v->err or v->redirect. */
static inline json_t *pages_build(struct page_view *v)
{
	return v->kind->build(v);
}

/* Frees what a request and its model hold. */
static inline void pages_done(struct page_req *q, json_t *m)
{
	json_decref(m);
	buf_release(&q->v.redirect.to);
}

/* The member at the dotted path ("board.rows") of m, or NULL. */
static inline json_t *pages_at(const json_t *m, const char *path)
{
	char seg[128];
	const char *dot;
	json_t *o = (json_t *)m;

	while (o && *path) {
		dot = strchr(path, '.');
		snprintf(seg, sizeof seg, "%.*s", (int)(dot ? (size_t)(dot - path) : strlen(path)), path);
		o = json_is_array(o) ? json_array_get(o, strtoul(seg, NULL, 10)) : json_object_get(o, seg);
		path = dot ? dot + 1 : "";
	}
	return o;
}

/* The string at path in m, or "" when there is none. */
static inline const char *pages_str(const json_t *m, const char *path)
{
	const char *s = json_string_value(pages_at(m, path));
	return s ? s : "";
}

#endif
