/* kinds.h: every page kind of the site as data.  One enum names the kinds,
 * one const table (kinds.c, page_kinds[]) says for each: its name, its
 * address, its template and nav key, its JSON and CSV twins (with the CSV's
 * columns), its Atom feed, whether a sitemap lists it, and the function
 * that builds its view model.  The router makes each kind's routes from the
 * table at start-up (router_init); one handler (page_serve, page.c) answers
 * all of them: it calls the builder and renders what it returns as HTML
 * (the template), JSON or CSV (twins.c), by the route's form.
 *
 * To add a page kind: a PAGE_X here (before PAGE_KIND__MAX), its row in
 * kinds.c, one page_X.c with its builder (declared below) and one
 * templates/X.html.  A kind without a row, or a row without a builder,
 * path or template, stops the daemon at start-up (page_kinds_check). */
#ifndef LLMS_KINDS_H
#define LLMS_KINDS_H

#include <jansson.h>
#include <stdint.h>

#include "http/cache.h"
#include "http/http.h"
#include "render/csv.h"
#include "util/err.h"

struct browse;
struct tmpl_set;

enum page_kind {
	PAGE_HOME, PAGE_RUN, PAGE_MODEL_HW, PAGE_MODEL, PAGE_HW, PAGE_MODELS, PAGE_HARDWARE,
	PAGE_SEARCH, PAGE_COMPARE, PAGE_CHEATSHEET, PAGE_OUTLIERS, PAGE_DISPUTES,
	PAGE_FIT, PAGE_GLOSSARY, PAGE_METHODOLOGY, PAGE_PRIVACY, PAGE_EXPLAIN,
	PAGE_API, PAGE_LOG, PAGE_ACCOUNT, PAGE_CHANGES, PAGE_WANTED,
	PAGE_KIND__MAX
};

/* What the '*' of a kind's path names, when it has one. */
enum page_arg { PAGE_ARG_NONE, PAGE_ARG_RUN, PAGE_ARG_MODEL, PAGE_ARG_HW, PAGE_ARG_ACCOUNT,
		PAGE_ARG_MODEL_HW /* two stars: a model's slug, then a hardware's */ };

/* Whether a sitemap lists the kind: not at all, its one fixed address, or
 * one address per thing its '*' names (every model, hardware or run). */
enum page_sitemap { SITEMAP_NONE, SITEMAP_ONE, SITEMAP_EACH };

/* What a CSV row's "url" column links to (twins.c writes the address). */
enum page_csv_url {
	CSV_URL_NONE,      /* no url column to fill */
	CSV_URL_RUN,       /* the row's run, "id" */
	CSV_URL_BEST,      /* its best run, "best_id" */
	CSV_URL_BEST_RUN,  /* its best run, "best_run" */
	CSV_URL_NAME,      /* a search result's page, by "kind" and "slug" */
};

/* One table a CSV twin may write: its rows are the array at the dotted
 * path rows of the view model, or what rows_of makes of the model (a new
 * reference); the columns, and what "url" links to. */
struct page_csv {
	const char *rows;
	json_t *(*rows_of)(const json_t *m);
	enum page_csv_url url;
	const struct csv_col *cols;
	size_t ncols;
};

/* Flags of a kind: where page_serve keeps its answers in the response
 * cache (and looks for them before the builder runs). */
enum page_kind_flags {
	PAGE_LISTED = 1,  /* its HTML and JSON follow from path, query and database
	                   * alone: kept by path and query until the next write
	                   * (browse_list_key) */
	PAGE_KEPT_RUN = 2, /* kept under the run id of its path (REP_RUN_HTML,
	                   * REP_RUN_JSON) until the run changes, unless ?after=
	                   * asks for a later page of its dispute thread */
};

struct page_view;
/* A kind's view-model builder: it returns one of three things, and
 * page_serve alone answers with it:
 *   the view model of v->r in v->format, a new reference (a page of
 *   another template when it sets v->tmpl, with v->status);
 *   NULL with v->err set: the request is refused (v->err left empty: out
 *   of memory);
 *   NULL with v->redirect.status set: a redirect to v->redirect.to. */
typedef json_t *(*page_build_fn)(struct page_view *v);

struct page_kind_def {
	const char *name;          /* "models": its name in kinds.json */
	const char *path;          /* "/models", or "/m/<*>": a star is one segment */
	const char *tmpl;          /* templates/<tmpl>.html */
	const char *nav;           /* the header's nav key ({{#nav.X}}); NULL: none */
	const char *json;          /* its JSON twin's path, or NULL */
	const char *csv;           /* its CSV twin's path, or NULL */
	struct page_csv csv_tables[2]; /* the CSV's table: the first whose rows
	                               * the model has */
	const char *feed;          /* its Atom feed's path, or NULL */
	enum page_arg arg;         /* what the path's '*' names */
	enum page_sitemap sitemap;
	unsigned flags;            /* enum page_kind_flags */
	page_build_fn build;
};

/* Every kind, indexed by enum page_kind. */
extern const struct page_kind_def page_kinds[PAGE_KIND__MAX];

/* One request to a page kind, as its builder sees it and fills it. */
struct page_view {
	struct req *r;
	const struct page_kind_def *kind;
	enum http_format format;   /* r->format: HTML, JSON or CSV */
	struct err err;            /* why the builder returned NULL */
	struct {
		unsigned status;       /* 301 or 303; 0: none */
		const char *cache_control;
		struct buf to;         /* the site-relative target */
	} redirect;                /* where the builder sends the client instead */
	const char *tmpl;          /* the model is a page of this template, not
	                            * the kind's (no twins, no nav entry) ... */
	unsigned status;           /* ... answered with this status */
	int keep;                  /* keep the answer in the cache as (key, rep)
	                            * (page_serve sets it by the kind's flags; a
	                            * builder may clear it) ... */
	char key[CACHE_ID_MAX + 1];
	enum cache_rep rep;
	unsigned tag;              /* ... tagged with a cluster (0: none) */
	uint64_t gen;              /* the cache's generation before the reads */
};

/* Sets v's redirect: status (301 or 303) to the site-relative path to
 * with cache_control.  Returns NULL, no new reference: the builder's
 * return. */
json_t *page_view_redirect(struct page_view *v, unsigned status, const char *cache_control,
			   const char *to);

/* Ends a builder's browse state b: its read snapshot; its failure (when m
 * is NULL) and whether to keep the page (not a CSV twin's, nor one of
 * hardware without runs: browse_hw_listed) go into v.  Returns m, the
 * new reference the builder made (or NULL). */
json_t *page_view_browsed(struct page_view *v, struct browse *b, json_t *m);

/* Checks the table at start-up: every kind has a name, a path, a template
 * that tmpl holds and a builder; twins' paths are the page's path with
 * ".json" or ".csv"; a CSV twin has a table.  0, or -1 with e saying
 * which kind is wrong (tmpl NULL: the templates are not checked). */
int page_kinds_check(const struct tmpl_set *tmpl, struct err *e);

/* The table as JSON for tests and tools (`llm-speedd kinds`): an array of
 * {name, path, template, nav, json, csv, csv_columns, feed, arg, sitemap},
 * a new reference. */
json_t *page_kinds_json(void);

/* The builders, one per page file, each a page_build_fn. */
/* page_home.c: / and /index.json, .csv; a new reference */
json_t *page_home_view(struct page_view *v);
/* page_run.c: /r/<id>, .json; a new reference */
json_t *page_run_view(struct page_view *v);
/* page_model.c: /m/<slug>, .json, .csv; a new reference */
json_t *page_model_view(struct page_view *v);
/* page_model_hw.c: /m/<model>/hw/<hw>, .json; a new reference */
json_t *page_model_hw_view(struct page_view *v);
/* page_hw.c: /hw/<slug>, .json, .csv; a new reference */
json_t *page_hw_view(struct page_view *v);
/* page_catalog.c: /models, .json, .csv; a new reference */
json_t *page_models_view(struct page_view *v);
/* page_catalog.c: /hardware, .json, .csv; a new reference */
json_t *page_hardware_view(struct page_view *v);
/* page_search.c: /search, .json, .csv; a new reference */
json_t *page_search_view(struct page_view *v);
/* page_compare.c: /compare, .json, .csv; a new reference */
json_t *page_compare_view(struct page_view *v);
/* page_cheatsheet.c: /cheatsheet, .json, .csv; a new reference */
json_t *page_cheatsheet_view(struct page_view *v);
/* page_lists.c: /outliers, .json, .csv; a new reference */
json_t *page_outliers_view(struct page_view *v);
/* page_lists.c: /disputes, .json, .csv; a new reference */
json_t *page_disputes_view(struct page_view *v);
/* page_fit.c: /fit, .json; a new reference */
json_t *page_fit_view(struct page_view *v);
/* page_static.c: /glossary, /methodology, /privacy; a new reference */
json_t *page_reference_view(struct page_view *v);
/* page_explain.c: /explain/quantization; a new reference */
json_t *page_explain_view(struct page_view *v);
/* page_api.c: /api; a new reference */
json_t *page_api_view(struct page_view *v);
/* page_log.c: /log; a new reference */
json_t *page_log_view(struct page_view *v);
/* page_account.c: /u/<name>, .json, .csv; a new reference */
json_t *page_account_view(struct page_view *v);
/* page_changes.c: /changes, .json; a new reference */
json_t *page_changes_view(struct page_view *v);
/* page_wanted.c: /wanted, .json; a new reference */
json_t *page_wanted_view(struct page_view *v);

/* twins.c: answers a with v's kind's table in the view model m as CSV (the
 * first of its csv_tables the model holds; each row that names a run or a
 * page gains "url", its absolute address), with an ETag.  0, or -1 out of
 * memory. */
struct answer;
int twins_csv(struct page_view *v, json_t *m, struct answer *a);
/* twins.c: adds "alternates" [{type, href, title}] to the view model m of
 * a kind with a CSV twin, for <link rel="alternate">: its JSON and CSV
 * twins (with the request's query: the same rows) and its Atom feed. */
void twins_add_alternates(struct page_view *v, json_t *m);

/* twins.c: /compare's figures as CSV rows, one per figure and run (a
 * new reference). */
json_t *twins_compare_rows(const json_t *m);
/* twins.c: the cheatsheet's entries as CSV rows, one per model, hardware
 * and entry (a new reference). */
json_t *twins_cheatsheet_rows(const json_t *m);

#endif
