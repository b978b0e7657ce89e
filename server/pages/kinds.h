/* kinds.h: every page kind of the site as data.  One const table (kinds.c,
 * page_kinds[]) says for each: its name, its address, its template, whether
 * the header's nav links it, its JSON and CSV twins (with the CSV's
 * columns), its Atom feed, whether a sitemap lists it, and the function
 * that builds its view model.  A kind is one row there, KIND(x, ...): its
 * name x is spelled once, and its builder (page_x_view, in pages/page_x.c)
 * and template (templates/x.html) are named after it.  The router makes
 * each kind's routes from the table at start-up (router_init); one handler
 * (page_serve, page.c) answers all of them: it calls the builder and
 * renders what it returns as HTML (the template), JSON or CSV (twins.c),
 * by the route's form.  A row that does not hold together (see
 * page_kinds_check) stops the daemon at start-up. */
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

/* The most kinds the table may hold (kinds.c checks it as it compiles):
 * the router's and the sitemap's fixed arrays are sized by it. */
#define PAGE_KINDS_MAX 48

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
	                   * alone: kept by path and query, served stale while it
	                   * is rebuilt off the request path after a write
	                   * (page_kept.c, http/cache.h) */
	PAGE_KEPT_RUN = 2, /* kept under the run id of its path (REP_RUN_HTML,
	                   * REP_RUN_JSON) until the run changes, unless ?after=
	                   * asks for a later page of its dispute thread */
	PAGE_NO_QUERY = 8, /* reads no query argument: a listed page kept by its
	                   * path alone, whatever the query */
	PAGE_NAV = 4,     /* the header's nav links it: {{#nav.<name>}} in
	                   * templates/_header.html marks it on its page */
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
	const char *name;          /* "models": its name in kinds.json, its nav key */
	const char *tmpl;          /* templates/<tmpl>.html: the name's */
	page_build_fn build;       /* page_<name>_view */
	const char *path;          /* "/models", or "/m/<*>": a star is one segment */
	const char *json;          /* its JSON twin's path, or NULL */
	const char *csv;           /* its CSV twin's path, or NULL */
	struct page_csv csv_tables[2]; /* the CSV's table: the first whose rows
	                               * the model has */
	const char *feed;          /* its Atom feed's path, or NULL */
	enum page_arg arg;         /* what the path's '*' names */
	enum page_sitemap sitemap;
	unsigned flags;            /* enum page_kind_flags */
	/* Called on every serving of a kept answer whose builder left a note
	 * (page_view.note) with it, with that note: what a visit does besides
	 * reading (model_hw: counts the ask for /wanted).  NULL: nothing. */
	void (*visit)(struct req *r, const char *note);
};

/* Every kind, in the table's order (a route's kind is an index here), and
 * how many there are. */
extern const struct page_kind_def page_kinds[];
extern const int page_kinds_n;

/* The kind called name, or NULL. */
const struct page_kind_def *page_kind_named(const char *name);

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
	struct cache_tags tags;    /* ... tagged with the populations it shows,
	                            * with this note for its kind's visit ("") */
	char note[CACHE_NOTE_MAX];
	uint64_t gen;              /* the cache's generation before the reads */
};

/* Sets v's redirect: status (301 or 303) to the site-relative path to
 * with cache_control.  Returns NULL, no new reference: the builder's
 * return. */
json_t *page_view_redirect(struct page_view *v, unsigned status, const char *cache_control,
			   const char *to);

/* Ends a builder's browse state b: its read snapshot; its failure (when m
 * is NULL) and whether to keep the page (not a CSV twin's, nor one of
 * hardware without runs) go into v.  Returns m, the
 * new reference the builder made (or NULL). */
json_t *page_view_browsed(struct page_view *v, struct browse *b, json_t *m);

/* Checks the table at start-up: every kind has a name, a path and a
 * template that tmpl holds; twins' paths are the page's path with ".json"
 * or ".csv"; a CSV twin has a table; a kind the sitemap lists once has a
 * fixed path (no '*'); a kind in the nav has its link in the header
 * (templates/_header.html marks {{#nav.<name>}}).  0, or -1 with e saying
 * which kind is wrong (tmpl NULL: the templates are not checked). */
int page_kinds_check(const struct tmpl_set *tmpl, struct err *e);
/* What page_kinds_check finds wrong with one row k (the rest of a
 * sentence, "has no name, ..."), or NULL when it holds together. */
const char *page_kind_problem(const struct page_kind_def *k, const struct tmpl_set *tmpl);

/* The table as JSON for tests and tools (`llm-speedd kinds`): an array of
 * {name, path, template, nav (the name when the nav links it, else null),
 * json, csv, csv_columns, feed, arg, sitemap}, a new reference. */
json_t *page_kinds_json(void);

/* The builders, each a page_build_fn named after its kind,
 * page_<name>_view in pages/page_<name>.c (or the file of the kinds it
 * shares a subject with), are declared by the table's rows (kinds.c). */

/* twins.c: answers a with v's kind's table in the view model m as CSV (the
 * first of its csv_tables the model holds; each row that names a run or a
 * page gains "url", its absolute address), with an ETag.  0, or -1 out of
 * memory. */
struct answer;
int twins_csv(struct page_view *v, json_t *m, struct answer *a);
/* twins.c: adds "alternates" [{type, href, title}] to the view model m of
 * a kind with a twin or a feed, for <link rel="alternate">: its JSON and
 * CSV twins (with the request's query: the same rows; none on a page kept
 * under its run id) and its Atom feed. */
void twins_add_alternates(struct page_view *v, json_t *m);

/* twins.c: /compare's figures as CSV rows, one per figure and run (a
 * new reference). */
json_t *twins_compare_rows(const json_t *m);
/* twins.c: the cheatsheet's entries as CSV rows, one per model, hardware
 * and entry (a new reference). */
json_t *twins_cheatsheet_rows(const json_t *m);

#endif
