/* page.h: the handlers for what people and scripts read (contract section
 * 3) that are no page kind's (those are in kinds.h, answered by
 * page_serve), and what the pages share. */
#ifndef LLMS_PAGE_H
#define LLMS_PAGE_H

#include <jansson.h>

#include "http/cache.h"
#include "http/http.h"
#include "pages/kinds.h"

/* page_static.c */
enum MHD_Result page_healthz(struct req *r);      /* 200 "ok" once serving */
enum MHD_Result page_static_file(struct req *r);  /* /static/<name> */
enum MHD_Result page_favicon(struct req *r);      /* /favicon.ico, from static/ */

/* page_wellknown.c */
enum MHD_Result page_robots(struct req *r);       /* /robots.txt */
enum MHD_Result page_security_txt(struct req *r); /* /.well-known/security.txt */

/* page_sitemap.c */
enum MHD_Result page_sitemap(struct req *r);      /* /sitemap.xml: a urlset, or an index */
enum MHD_Result page_sitemap_file(struct req *r); /* /sitemap-<n>.xml: one file of the index */

/* page_metrics.c */
enum MHD_Result page_metrics(struct req *r);      /* /metrics: loopback and --metrics-allow only */
/* Loads every file of dir (static/) into memory once, at start. */
int page_static_init(const char *dir);
void page_static_free(void);

/* Builds the /api page's model from the OpenAPI description at path, once
 * at start; -1 with the reason in err. */
int page_api_init(const char *path, char *err, size_t errlen);
void page_api_free(void);

/* page_run.c */
enum MHD_Result page_run_jws(struct req *r);      /* /r/<id>.jws */
/* run_model.c: builds the run's view model (the JSON of /r/<id>.json), a new
 * reference; NULL with *status 404 when there is no such run, 503 when the
 * database failed. */
json_t *page_run_model(struct req *r, const char *id, unsigned *status);

/* rank.c */
/* Adds "rank" to the run view model m: {cluster, digest: {runs, others,
 * pct, text}, svg}, where its decode falls among the counted runs of its
 * cluster and of its weights file on any hardware, from the histograms
 * writes keep (migration 0012).  0, or -1 on a database error. */
int page_rank_add(struct req *r, json_t *m);

/* page_pick.c: the home page's picker (?model=&hw=): when r's query holds
 * model=, answers it (303 to the model-on-hardware page, or a page naming
 * the field to fix) into *ret and returns 1; else 0. */
int page_pick(struct req *r, enum MHD_Result *ret);
/* When q reads "<model> on <hardware>" (each a name or a slug that is
 * known, as the picker takes them): writes that page's path to out (size
 * n); 1, or 0 when q does not read so, -1 when the database does not
 * answer.  (Search's 303 for people.) */
int page_pick_pair(struct req *r, const char *q, char *out, size_t n);

/* page_feed.c: Atom feeds (RFC 4287), the newest 50 entries each. */
enum MHD_Result page_feed_new(struct req *r);       /* /feed.atom: runs */
enum MHD_Result page_feed_model(struct req *r);     /* /m/<slug>.atom */
enum MHD_Result page_feed_hw(struct req *r);        /* /hw/<slug>.atom */
enum MHD_Result page_feed_disputes(struct req *r);  /* /disputes.atom: open threads */
enum MHD_Result page_feed_account(struct req *r);   /* /u/<name>.atom */
/* The id of the account named name: DB_OK, DB_NOTFOUND (also for a name
 * no account could have) or another db_status. */
int page_account_id(struct req *r, const char *name, long long *id);

/* page_export.c */
enum MHD_Result page_export(struct req *r);       /* /export: NDJSON, streamed */
/* Writes the export, gzipped, as dir/llm-speed-export-<YYYYMMDDTHHMMSSZ>.ndjson.gz
 * (its name into name) through a temporary file, then rewrites
 * dir/SHA256SUMS over every snapshot there (sha256sum -c format), for
 * mirrors.  0, or -1 with the reason in err; nothing half-written stays. */
struct db;
int export_snapshot(struct db *db, const char *dir, char *name, size_t namelen,
		    char *err, size_t errlen);

/* page_search.c */
/* For /m/<name>, /hw/<name> and /m/<name>/hw/<name> (what: PAGE_ARG_MODEL,
 * PAGE_ARG_HW or PAGE_ARG_MODEL_HW) and their twins and feeds (by
 * r->format): when a name is not its page's slug but stands for a page (an
 * uploaded name's slug whose runs resolved to a reference id, any spelling
 * the resolver knows, a name typed in another case), queues a 301 to that
 * page, with the query kept, into *ret and returns 1; else 0 (the page
 * answers, or its 404). */
int page_search_canonical(struct req *r, enum page_arg what, enum MHD_Result *ret);
/* page_model_hw.c: the two slugs of a model-on-hardware path (its .json
 * twin's too) into model and hw (SLUG_MAX + 1 each, not checked for
 * shape); 0, or -1 when the path is not of that form or a part is too long. */
int page_model_hw_slugs(const char *path, char *model, char *hw);

/* page_changes.c */
enum MHD_Result page_changes_atom(struct req *r);  /* /changes.atom */
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
enum MHD_Result page_log_checkpoint(struct req *r); /* /log/checkpoint */
enum MHD_Result page_log_tile(struct req *r);       /* /log/tile/... (C2SP tlog-tiles) */
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
/* The handler of every page kind's route (pages/kinds.h): builds the view
 * model of kind r->kind and answers with it in r->format, from or into the
 * response cache as the builder says. */
enum MHD_Result page_serve(struct req *r);

/* Renders the error page (status, one sentence) for people; the router
 * hands it to the HTTP layer's responder (http_reply_err) as data. */
enum MHD_Result page_error(struct req *r, const struct err *e);

/* Renders template name with the view model into an HTML response (with
 * ETag and 304); adds the site-wide fields (title, origin) to model. */
enum MHD_Result page_render(struct req *r, const char *name, json_t *model,
			    unsigned status);

/* As page_render, and keeps the result in the render cache as (r->arg,
 * rep) unless the data moved since gen. */
enum MHD_Result page_render_cached(struct req *r, const char *name, json_t *model,
				   enum cache_rep rep, uint64_t gen);
/* As page_render_cached, for a page showing the figures of the cluster
 * with cache tag tag (outlier_cluster_tag). */
enum MHD_Result page_render_cached_tag(struct req *r, const char *name, json_t *model,
				       enum cache_rep rep, uint64_t gen, unsigned tag);
/* As page_render_cached, kept under id (not r->arg) as rep. */
enum MHD_Result page_render_kept(struct req *r, const char *name, json_t *model,
				 const char *id, enum cache_rep rep, uint64_t gen);

#endif
