/* page.h: the handlers for what people and scripts read (contract section
 * 3) that are no page kind's (those are in kinds.h, answered by
 * page_serve), and what the pages share.  Each handler is a route_fn: it
 * fills the answer a (http/answer.h) and returns 0, or -1 with a->err. */
#ifndef LLMS_PAGE_H
#define LLMS_PAGE_H

#include <jansson.h>

#include "http/answer.h"
#include "http/cache.h"
#include "http/http.h"
#include "pages/kinds.h"

/* page_static.c */
int page_healthz(struct req *r, struct answer *a);      /* 200 "ok" once serving */
int page_static_file(struct req *r, struct answer *a);  /* /static/<name> */
int page_favicon(struct req *r, struct answer *a);      /* /favicon.ico, from static/ */

/* page_badge.c: GET /badge/<id>.svg and /badge/<id>.json. */
/* The run badge as SVG (image/svg+xml): the run's chat-short decode tok/s,
 * model and hardware; a flag mark on an outlier; "disputed: upheld" in place
 * of the figure once a dispute was upheld.  200 with CC_BADGE and an ETag
 * that follows the bytes (304 on If-None-Match); 404 with a "run not found"
 * badge and CC_BADGE_MISSING for an unknown or malformed id; 503 (JSON
 * error) when the database does not answer.  Served from the render cache:
 * a hit reads no SQL and renders nothing. */
int page_badge_svg(struct req *r, struct answer *a);

/* The shields.io endpoint-badge JSON for the same run (application/json):
 * {"schemaVersion": 1, "label", "message", "color", "cacheSeconds"}, with
 * "isError": true on the 404.  Statuses and caching as page_badge_svg(). */
int page_badge_json(struct req *r, struct answer *a);

/* page_card.c: GET /card/<id>.png and /card/<id>.svg, a run's link-preview
 * card (the og:image of its page), and the cards of model and hardware
 * pages. */
#include <stdint.h>



/* The 503 when the server has no rasterizer. */
#define MSG_NO_RASTER "This server cannot draw link-preview cards: rsvg-convert " \
	"(Debian package librsvg2-bin) is not installed. The run's page and badge still work."
/* The 503 when every rasterizer stayed busy. */
#define MSG_RASTER_BUSY "Too many link-preview cards are being drawn at once; try again in a moment."
/* The 503 when drawing failed (the log says why). */
#define MSG_RASTER_FAILED "The link-preview card could not be drawn; try again shortly."

/* The run's card as a 1200 × 630 PNG (image/png), drawn from the SVG of
 * page_card_run_svg() by rsvg-convert (render/raster.c) off the daemon's
 * threads: the connection is suspended while it is drawn.  200 with
 * CC_BADGE and an ETag of the SVG and the rasterizer's version, so a
 * 304 on If-None-Match needs no drawing; 404 (JSON error) for an unknown
 * or malformed id; 503 with Retry-After when there is no rasterizer
 * (MSG_NO_RASTER, an hour), every rasterizer is busy (2 s) or drawing
 * failed (5 s, logged), or the database does not answer.  Kept in the
 * response cache like the badge, and dropped with it when the run
 * changes. */
int page_card_run_png(struct req *r, struct answer *a);

/* The card's SVG (image/svg+xml), the one the PNG is drawn from: 200 with
 * CC_BADGE and an ETag of its bytes (304 on If-None-Match), 404 (JSON
 * error) for an unknown or malformed id, 503 when the database does not
 * answer.  Cached like the PNG. */
int page_card_run_svg(struct req *r, struct answer *a);

/* The cards of model and hardware pages, the og:image of
 * /m/<slug> and /hw/<slug>: the name, its counted runs and machines (or
 * models) in the newest suite, and its five fastest hardware (or models)
 * by their best combination's median decode over submitters, as bars.
 * The SVG is kept as its page is (page_list_key of its path and ?suite=,
 * REP_LIST_HTML: stale on a list write, served stale while it is rebuilt
 * off the request path, one build however many ask, page_kept_serve),
 * with CC_BADGE and the ETag of its bytes.  The PNG, 1200 × 630 as
 * page_card_run_png answers it (suspended while drawn; 503 and
 * Retry-After the same), is drawn from that kept SVG (its one build
 * waited for), and kept under a key of what it shows, so a write that
 * changes nothing on the card costs no drawing.  404 (JSON
 * error) for a slug no run names or a malformed one; 503 when the
 * database does not answer. */
int page_card_model_png(struct req *r, struct answer *a);    /* /card/m/<slug>.png */
int page_card_model_svg(struct req *r, struct answer *a);    /* /card/m/<slug>.svg */
int page_card_hw_png(struct req *r, struct answer *a);       /* /card/hw/<slug>.png */
int page_card_hw_svg(struct req *r, struct answer *a);       /* /card/hw/<slug>.svg */

/* Rasterizes svg (taken: emptied here) and answers r with the PNG into a,
 * or 304 / 503 as page_card_run_png; kept in the cache under a key of the
 * PNG's tag, if no write happened since gen.  The request is suspended
 * while it is drawn, and answered when it resumes (r->resume); one
 * drawing of a PNG at a time: a request for one being drawn is suspended
 * until it is kept, then again(r, a) (its route's handler) answers it. */
struct buf;
int page_card_png_of(struct req *r, struct buf *svg, uint64_t gen,
		     int (*again)(struct req *, struct answer *), struct answer *a);

/* page_wellknown.c */
int page_robots(struct req *r, struct answer *a);       /* /robots.txt */
int page_security_txt(struct req *r, struct answer *a); /* /.well-known/security.txt */

/* page_sitemap.c */
int page_sitemap(struct req *r, struct answer *a);      /* /sitemap.xml: a urlset, or an index */
int page_sitemap_file(struct req *r, struct answer *a); /* /sitemap-<n>.xml: one file of the index */

/* page_metrics.c */
int page_metrics(struct req *r, struct answer *a);      /* /metrics: loopback and --metrics-allow only */
/* Loads every file of dir (static/) into memory once, at start. */
int page_static_init(const char *dir);
void page_static_free(void);

/* Builds the /api page's model from the OpenAPI description at path, once
 * at start; -1 with the reason in err. */
int page_api_init(const char *path, struct err *err);
void page_api_free(void);

/* page_run.c */
int page_run_jws(struct req *r, struct answer *a);      /* /r/<id>.jws */
/* page_run_model.c: builds the run's view model (the JSON of /r/<id>.json), a new
 * reference; NULL with e a 404 when there is no such run, a 503 when the
 * database failed. */
json_t *page_run_model(struct req *r, const char *id, struct err *e);

/* rank.c */
/* Adds "rank" to the run view model m: {cluster, digest: {runs, others,
 * pct, text}, svg}, where its decode falls among the counted runs of its
 * cluster and of its weights file on any hardware, from the histograms
 * writes keep (migration 0012).  0, or -1 on a database error. */
int page_rank_add(struct req *r, json_t *m);

/* page_pick.c: the home page's picker (?model=&hw=): when v's query holds
 * model=, answers it and returns 1: a 303 to the model-on-hardware page
 * (v->redirect), the form again naming the field to fix (its view model
 * into *m, v->tmpl and v->status set), or a 503 (v->err); else 0. */
int page_pick(struct page_view *v, json_t **m);
/* When q reads "<model> on <hardware>" (each a name or a slug that is
 * known, as the picker takes them): writes that page's path to out (size
 * n); 1, or 0 when q does not read so, -1 when the database does not
 * answer.  (Search's 303 for people.) */
int page_pick_pair(struct req *r, const char *q, char *out, size_t n);

/* page_feed.c: Atom feeds (RFC 4287), the newest 50 entries each. */
int page_feed_new(struct req *r, struct answer *a);       /* /feed.atom: runs */
int page_feed_model(struct req *r, struct answer *a);     /* /m/<slug>.atom */
int page_feed_hw(struct req *r, struct answer *a);        /* /hw/<slug>.atom */
int page_feed_disputes(struct req *r, struct answer *a);  /* /disputes.atom: open threads */
int page_feed_account(struct req *r, struct answer *a);   /* /u/<name>.atom */
/* The id of the account named name: DB_OK, DB_NOTFOUND (also for a name
 * no account could have) or another db_status. */
int page_account_id(struct req *r, const char *name, long long *id);

/* page_export.c */
int page_export(struct req *r, struct answer *a);       /* /export: NDJSON, streamed */
/* A slot for one export by client key: 0 taken, 1 every slot busy, 2 the
 * client already holds its two; page_export_slot_give hands one back. */
int page_export_slot_take(const char *key);
void page_export_slot_give(const char *key);
/* Writes the export, gzipped, as dir/llm-speed-export-<YYYYMMDDTHHMMSSZ>.ndjson.gz
 * (its name into name) through a temporary file, then rewrites
 * dir/SHA256SUMS over every snapshot there (sha256sum -c format), for
 * mirrors.  0, or -1 with the reason in err; nothing half-written stays. */
struct db;
int export_snapshot(struct db *db, const char *dir, char *name, size_t namelen,
		    struct err *err);

/* page_search.c */
/* For /m/<name>, /hw/<name> and /m/<name>/hw/<name> (what: PAGE_ARG_MODEL,
 * PAGE_ARG_HW or PAGE_ARG_MODEL_HW) and their twins and feeds (by the
 * path's extension): when a name is not its page's slug but stands for a
 * page (an uploaded name's slug whose runs resolved to a reference id, any
 * spelling the resolver knows, a name typed in another case), writes that
 * page's path, with r's query kept, to to and returns 1; else 0 (the page
 * answers, or its 404). */
int page_search_moved(struct req *r, enum page_arg what, struct buf *to);
struct dbconn;
/* The names of kind ("model" or "hw") a search for q finds in suite, as
 * /search ranks them, at most max: a new array of {slug, name, runs}
 * (empty for a q without a letter or digit); NULL when the database did
 * not answer.  (The picker's candidates for what it cannot open.) */
json_t *page_search_names(struct req *r, struct dbconn *c, const char *suite, const char *q,
			  const char *kind, size_t max);
/* The same as the 301 of page view v (page_view_redirect). */
int page_search_canonical(struct page_view *v, enum page_arg what);
/* page_model_hw.c: the two slugs of a model-on-hardware path (its .json
 * twin's too) into model and hw (SLUG_MAX + 1 each, not checked for
 * shape); 0, or -1 when the path is not of that form or a part is too long. */
int page_model_hw_slugs(const char *path, char *model, char *hw);
/* page_model_hw.c: the visit of a kept unmeasured page (kinds.h .visit):
 * counts the ask its note names ("suite\nmodel\nhw") for r's client. */
void page_model_hw_visit(struct req *r, const char *note);
/* page.c: 1 when some page reads the query argument name (ASCII case
 * ignored): the others change no answer, so no cache key or carried
 * query holds them. */
int page_query_known(const char *name);

/* page_changes.c */
int page_changes_atom(struct req *r, struct answer *a);  /* /changes.atom */
/* page_wanted.c: appends the command that would measure the model shown as
 * model_name on hw_slug: "llm-speed bench --models <name> --backends
 * <list>", the list the backends measured on that hardware (most runs
 * first, at most 5), else llama.cpp; the name the reference model of
 * model_slug is published as (its first alias) when there is one; each
 * argument one single-quoted shell word (render/shell.h), the slug in
 * place of a name that begins with '-'.  0, or -1 when the database or
 * memory failed. */
struct dbconn;
struct ceiling_ref;
int page_wanted_command(struct dbconn *c, const struct ceiling_ref *ref, const char *model_slug,
			const char *model_name, const char *hw_slug, struct buf *out);

/* page_fit.c */
/* Query argument name as a number in [lo, hi] (a whole one when whole)
 * into *out: 1 when given, 0 when absent or empty (*out untouched), -1
 * when malformed or out of range. */
int page_fit_number(struct req *r, const char *name, double lo, double hi,
		    int whole, double *out);

/* page_log.c */
int page_log_checkpoint(struct req *r, struct answer *a); /* /log/checkpoint */
int page_log_tile(struct req *r, struct answer *a);       /* /log/tile/... (C2SP tlog-tiles) */
/* Releases the full tiles kept in memory (at exit). */
void page_log_free(void);
/* Completes m's "log" member ({"index"}, set by the run's model) with the
 * latest checkpoint, its size and root, and the run's inclusion proof
 * against it.  Returns 1 when m is complete, 0 when the run is not in a
 * signed checkpoint yet (the answer must then not be cached). */
int page_log_run_proof(struct req *r, json_t *m);

/* page_meta.c: what a page says about itself in its <head>. */
/* Reads the glossary's common questions from templates_dir/glossary.html
 * once at start, for its FAQPage JSON-LD.  0, or -1 with the reason in
 * err (the section missing, or text it cannot turn into plain text). */
int page_meta_init(const char *templates_dir, struct err *err);
void page_meta_free(void);
/* Adds "head" to the view model m of template name, answered with status:
 * raw HTML the header writes as it is, every value in it escaped here:
 * <meta name="description"> (page_describe); for a 200 the canonical link
 * (the --base-url origin and r's path, so every query variant names the
 * plain page), on run, model and hardware pages OpenGraph and Twitter
 * card tags naming the page's card (/card/<id>.png, /card/m/<slug>.png,
 * /card/hw/<slug>.png), and the JSON-LD of the glossary (FAQPage) and
 * /api (a Dataset of /export); for another status, noindex.  0, or -1
 * out of memory. */
/* page_meta.c: appends origin and path, each segment of path
 * percent-encoded (html_url_arg): a page's absolute address. */
void page_meta_address(struct buf *b, const char *origin, const char *path);
int page_meta_add(struct req *r, const char *name, json_t *m, unsigned status);

/* page_describe.c */
/* Appends to d the plain-text description of template name's page, from
 * its view model m: the figures of that run, model or hardware, the
 * counts of a list, or a fixed sentence for a reference page. */
struct buf;
void page_describe(struct buf *d, const char *name, const json_t *m);

/* page.c: what every page shares. */
/* The handler of every page kind's route (pages/kinds.h), and the one
 * place a builder's result is answered: the answer kept in the response
 * cache when the kind's flags keep it, else the view model of kind
 * r->kind in r->format (kept as the builder allows), its refusal, or its
 * redirect. */
int page_serve(struct req *r, struct answer *a);
/* The cache key of r's page as a list page is kept (REP_LIST_HTML): "L"
 * and 32 hex digits of the SHA-256 of path (r->path, or the path of what
 * r is drawn from: a card's PNG reads its SVG's) and the query arguments
 * pages read, in the order sent; 0, or -1 when the page is not to be
 * kept (a query with more than ?sort=, ?suite=, ?backend= and ?hw=, once
 * each) or out of memory.  query 0: a page that reads no query, kept by
 * its path alone. */
int page_list_key(struct req *r, const char *path, int query, char key[CACHE_ID_MAX + 1]);

/* page_examples.c: what a "Not found" page offers instead: {run, model,
 * hw, model_hw} (each {href, name}, each a page that exists, never r's own
 * address; missing when none), "any", and search {href, q} for the name r
 * asked for when it reads as one.  A new reference; NULL out of memory. */
json_t *page_examples(struct req *r);
extern const char *const page_examples_sql[];

/* page_kept.c: the response cache's answers with no request waiting for
 * a build. */
/* Fills a with r's answer on whatever thread builds it: r may be a
 * copy with no connection (http_req_copy); a leads r's flight already
 * (answer_lead), and the answer is kept as the builder says
 * (answer_keep).  0, or -1 with a->err. */
typedef int (*page_build_answer_fn)(struct req *r, struct answer *a);
/* What a serving of a kept copy with a note does besides reading
 * (kinds.h .visit). */
typedef void (*page_visit_fn)(struct req *r, const char *note);
/* The 503 when the build pool's queue is full. */
#define MSG_BUILDS_BUSY "Too many pages are being built at once; try again in a moment."
/* Answers r with what the cache keeps as (key, rep) and never waits on a
 * serving thread: a fresh copy at once; a stale one (http/cache.h) at
 * once too, its rebuild queued on the build pool (http/builds.h) from a
 * copy of r when no build of it is under way; nothing kept: r is
 * suspended while build runs on the pool (one build however many ask,
 * the others suspended until it lands).  One client holds at most
 * BUILDS_PER_HOLDER of the pool's threads; its other builds wait in the
 * queue.  visit (NULL: none) is called on each serving of a kept copy
 * that carries a note.  503 with Retry-After when the queue is full.
 * Without a connection or a pool, builds on this thread. */
int page_kept_serve(struct req *r, struct answer *a, const char *key, enum cache_rep rep,
		    page_build_answer_fn build, page_visit_fn visit);

/* Has the stale copy of what r asks for rebuilt by build on the pool,
 * from a copy of r, leading flight lead (the one cache_fetch gave with
 * the stale copy), as page_kept_serve does; when it cannot be (out of
 * memory, the queue full), the flight lands and a later request leads
 * the next. */
void page_kept_rebuild(struct req *r, unsigned lead, enum cache_rep rep, page_build_answer_fn build);

/* For a handler that builds (id, rep) its own way (a card drawn on the
 * raster pool), or reads a kept copy rather than answering with it: 0
 * with *k the kept copy, fresh, or stale (*lead 0 while another builds
 * it, else the caller's flight: page_kept_rebuild), or with *k NULL and
 * *lead the caller's flight (0: build without one), which its answer
 * must land (answer_lead, or cache_put_led and cache_land); or 1 with a
 * "later" answer: r is suspended until another's build of it lands,
 * then again(r, a) answers it.  Without a connection, or with r->job
 * taken, it waits on this thread instead. */
int page_kept_look(struct req *r, struct answer *a, const char *key, enum cache_rep rep,
		   int (*again)(struct req *r, struct answer *a), struct http_kept **k,
		   unsigned *lead);

/* Renders the error page (status, one sentence) for people into a; the
 * router hands it to the HTTP layer's responder as data. */
void page_error(struct req *r, const struct err *e, struct answer *a);

/* Renders template name with the view model into a as an HTML answer
 * with status (an ETag and 304 for a 200); adds the site-wide fields
 * (title, origin, head) to model.  A template that fails to render is a
 * 500.  0, or -1 out of memory. */
int page_render(struct req *r, const char *name, json_t *model, unsigned status,
		struct answer *a);

#endif
