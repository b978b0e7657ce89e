/* page.h: the handlers for pages people and scripts read (contract section
 * 3), one file per page kind, and what they share. */
#ifndef LLMS_PAGE_H
#define LLMS_PAGE_H

#include <jansson.h>

#include "http/cache.h"
#include "http/http.h"

/* page_static.c */
enum MHD_Result page_healthz(struct req *r);      /* 200 "ok" once serving */
enum MHD_Result page_reference(struct req *r);    /* /glossary, /methodology, /privacy */
enum MHD_Result page_static_file(struct req *r);  /* /static/<name> */
enum MHD_Result page_favicon(struct req *r);      /* /favicon.ico, from static/ */
/* Loads every file of dir (static/) into memory once, at start. */
int page_static_init(const char *dir);
void page_static_free(void);
/* Renders the error page (status, one sentence) for people; the router
 * hands it to the HTTP layer's responder (http_reply_err) as data. */
enum MHD_Result page_error(struct req *r, const struct err *e);

/* page_api.c */
enum MHD_Result page_api(struct req *r);          /* /api */
/* Builds the /api page's model from the OpenAPI description at path, once
 * at start; -1 with the reason in err. */
int page_api_init(const char *path, char *err, size_t errlen);
void page_api_free(void);

/* page_run.c */
enum MHD_Result page_run(struct req *r);          /* /r/<id> */
enum MHD_Result page_run_json(struct req *r);     /* /r/<id>.json */
enum MHD_Result page_run_jws(struct req *r);      /* /r/<id>.jws */
/* Builds the run's view model (the JSON of /r/<id>.json); NULL with
 * *status 404 when there is no such run, 503 when the database failed. */
json_t *page_run_model(struct req *r, const char *id, unsigned *status);

/* rank.c */
/* Adds "rank" to the run view model m: {cluster, digest: {runs, others,
 * pct, text}, svg}, where its decode falls among the counted runs of its
 * cluster and of its weights file on any hardware, from the histograms
 * writes keep (migration 0012).  0, or -1 on a database error. */
int page_rank_add(struct req *r, json_t *m);

/* page_home.c */
enum MHD_Result page_home(struct req *r);         /* / */

/* page_model.c */
enum MHD_Result page_model(struct req *r);        /* /m/<slug> */
enum MHD_Result page_model_json(struct req *r);   /* /m/<slug>.json */

/* page_hw.c */
enum MHD_Result page_hw(struct req *r);           /* /hw/<slug> */
enum MHD_Result page_hw_json(struct req *r);      /* /hw/<slug>.json */

/* page_lists.c */
enum MHD_Result page_outliers(struct req *r);     /* /outliers */
enum MHD_Result page_disputes(struct req *r);     /* /disputes */

/* page_search.c */
enum MHD_Result page_search(struct req *r);       /* /search */
enum MHD_Result page_search_json(struct req *r);  /* /search.json */
/* For /m/<name> and /hw/<name> (kind "model" or "hw") when r->arg is not
 * a slug: when the slug of that name is known, queues a 301 to its page
 * into *ret and returns 1; else 0 (the page answers its 404). */
int page_search_canonical(struct req *r, const char *kind, enum MHD_Result *ret);

/* page_index.c */
enum MHD_Result page_models(struct req *r);       /* /models, /models.json */
enum MHD_Result page_hardware(struct req *r);     /* /hardware, /hardware.json */

/* page_compare.c */
enum MHD_Result page_compare(struct req *r);      /* /compare, /compare.json */

/* page_cheatsheet.c */
enum MHD_Result page_cheatsheet(struct req *r);     /* /cheatsheet, .json */
enum MHD_Result page_cheatsheet_csv(struct req *r); /* /cheatsheet.csv */

/* page_fit.c */
enum MHD_Result page_fit(struct req *r);          /* /fit */
enum MHD_Result page_fit_json(struct req *r);     /* /fit.json */
/* Query argument name as a number in [lo, hi] (a whole one when whole)
 * into *out: 1 when given, 0 when absent or empty (*out untouched), -1
 * when malformed or out of range. */
int page_fit_number(struct req *r, const char *name, double lo, double hi,
		    int whole, double *out);

/* page_explain.c */
enum MHD_Result page_explain_quantization(struct req *r); /* /explain/quantization */

/* Renders template name with the view model into an HTML response (with
 * ETag and 304); adds the site-wide fields (title, origin) to model. */
enum MHD_Result page_render(struct req *r, const char *name, json_t *model,
			    unsigned status);

/* As page_render, and keeps the result in the render cache as (r->arg,
 * rep) unless the data moved since gen. */
enum MHD_Result page_render_cached(struct req *r, const char *name, json_t *model,
				   enum cache_rep rep, uint64_t gen);
/* As page_render_cached, for a page showing the figures of the cluster
 * with cache tag tag (cache_cluster_tag). */
enum MHD_Result page_render_cached_tag(struct req *r, const char *name, json_t *model,
				       enum cache_rep rep, uint64_t gen, unsigned tag);

#endif
