/* browse.h: what the browse pages (/, /m/<slug>, /hw/<slug>) share: the
 * suite a page lists, the query arguments checked at the edge, the keyset
 * cursor, run rows as JSON, links, and answering with a page or its JSON.
 *
 * Every list and aggregate is within one suite_version and counts only runs
 * with status 'ok'.  Lists are ordered by chat-short decode_tok_s DESC, id
 * DESC and paged by the keyset ?after=<decode>:<id> (the last row shown), so
 * a page costs one index seek plus its rows however long the list is.
 * Links in view models are site-relative paths ("href") that carry ?suite=
 * on when the request named the suite; in the JSON they lead to the JSON
 * of the page linked (/m/<slug>.json, /r/<id>.json), in the HTML to pages.
 *
 * A page kind's builder (kinds.h) uses it so:
 *
 *   struct browse b;
 *   json_t *m = NULL;
 *   if (browse_begin(&b, v->r) == 0)
 *           ...build m with browse_run() / browse_list()...
 *   return page_view_browsed(v, &b, m);      (ends b; its failure into v)
 */
#ifndef LLMS_BROWSE_H
#define LLMS_BROWSE_H

#include <jansson.h>
#include <sqlite3.h>

#include "http/http.h"
#include "http/cache.h"
#include "store/names.h"

struct dbconn;

/* Rows per page of a run list. */
#define BROWSE_PAGE 20

/* The columns browse_run() reads, in this order; a query selects them
 * first (more columns may follow).  A list names each run's model and
 * hardware by their shown names (store/names.h), not the run's own. */
#define BROWSE_RUN_COLS \
	"id, " NAMES_MODEL("model_slug", "model_name") ", model_slug, model_digest, model_quant, model_format, " \
	NAMES_HW("hw_slug", "accelerator") ", hw_slug, backend_name, backend_version, decode_tok_s, " \
	"prefill_tok_s, ttft_ms, created_at, demo, outlier, " \
	"(SELECT (runs.decode_tok_s - iif(c.keys >= 11, c.mean, o.mean)) / " \
	"nullif(iif(c.keys >= 11, c.stddev, o.stddev), 0) FROM clusters c, combos o " \
	"WHERE c.suite_version = runs.suite_version AND c.model_digest = runs.model_digest " \
	"AND c.hw_class = runs.hw_class AND c.backend_name = runs.backend_name " \
	"AND o.suite_version = runs.suite_version AND o.model_slug = runs.model_slug " \
	"AND o.model_digest = runs.model_digest AND o.hw_slug = runs.hw_slug " \
	"AND o.backend_name = runs.backend_name AND runs.status = 'ok') AS sigma, status, " \
	"EXISTS (SELECT 1 FROM run_withdrawals w WHERE w.run_id = runs.id) AS withdrawn, flag_bits"

/* One browse request: its connection, suite and checked query arguments. */
struct browse {
	struct req *r;
	struct dbconn *c;          /* this thread's read connection */
	int html;                  /* r->html: a page, else the JSON view model */
	int csv;                   /* the route is a CSV twin: the page's table as CSV */
	char suite[64];            /* the suite listed */
	int suite_given;           /* ?suite= named it */
	const char *hw;            /* ?hw=, a valid slug, or NULL */
	const char *backend;       /* ?backend=, a known backend, or NULL */
	const char *digest;        /* ?digest=, sha256:<hex>, or NULL */
	const char *model;         /* ?model=, a valid slug, or NULL */
	int sort_given;            /* ?sort= named an order (browse_take_order) */
	int has_after;             /* ?after= was given */
	double after_decode;       /* the cursor; +inf and "~" without one */
	char after_id[16];
	int in_txn;                /* the page's reads share one snapshot */
	uint64_t gen;              /* the response cache's, before the snapshot */
	struct err err;            /* why the last step failed */
};

/* Starts a browse request: takes the read connection and opens a read
 * transaction on it (so every query of the page sees one snapshot; it ends
 * in browse_end(), which must follow), resolves the suite
 * (?suite=, else the newest in the runs table, else the server's suite when
 * there are no runs) and checks every query argument.  Returns 0, or -1
 * with b->err set: 400 for a malformed argument (naming
 * it and its form), 404 for a suite with no runs, 503 when the database does
 * not answer. */
int browse_begin(struct browse *b, struct req *r);


/* Sets b's failure (status and a printf-style sentence); returns -1. */
int browse_error(struct browse *b, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Ends b's read transaction (page_view_browsed() does). */
void browse_end(struct browse *b);

/* twins.c: path followed by b's request's query as its twins read it
 * (every argument with its first value, empty ones left out, URL-escaped),
 * as a new JSON string for a page's visible twin link; NULL when out of memory. */
json_t *browse_twin_href(const struct browse *b, const char *path);

/* The run in st's current row (selected with BROWSE_RUN_COLS) as a list
 * item: id, href, decode_tok_s, prefill_tok_s, ttft_ms, created_at, date,
 * model {name, slug, digest, digest_short, quantization, format, href},
 * hardware {name, slug, href}, backend {name, version}, outlier (with
 * outlier_reason "cluster" or "above_ceiling"), sigma (against the
 * population that judges it: its cluster with 11 keys, else its
 * combination), demo, status, above_ceiling (its decode is above the
 * bandwidth ceiling of its weights on its hardware; ceiling_tok_s the top
 * of it, null when the reference data cannot tell), and marks: the words
 * a list shows beside it ("outlier", "above the bandwidth ceiling",
 * "withdrawn", "upheld"), a new reference.  NULL when memory runs out. */
json_t *browse_run(const struct browse *b, sqlite3_stmt *st);

/* Binds the cursor to parameters i (decode) and i+1 (id) of a statement
 * whose WHERE has "(decode_tok_s, id) < (?i, ?i+1)". */
void browse_bind_after(const struct browse *b, sqlite3_stmt *st, int i);

/* Steps st (bound, selecting BROWSE_RUN_COLS in list order, with LIMIT at
 * least limit + 1) and returns {"runs": [...], "count": n, "next": href or
 * null, "first": href or null, "paged": next or first}: at most limit runs;
 * next continues after the last one when more rows exist; first leads back
 * to page one when this page came from a cursor.  The links are made as by
 * browse_link() from prefix, segment and the pairs that follow.  Resets st.
 * A new reference; NULL when a step fails (logged). */
json_t *browse_list(const struct browse *b, sqlite3_stmt *st, int limit,
		    const char *prefix, const char *segment, ...)
	__attribute__((sentinel));

/* browse_sort.c: a list's orders for ?sort=: each order's query value,
 * its name on the sort links and column headers, the order in words for
 * the caption, and its direction.  o[0] is the order without ?sort=. */
struct browse_order {
	const char *key;          /* ?sort= value, "decode" */
	const char *label;        /* "Decode" */
	const char *text;         /* "fastest decode first" */
	int ascending;            /* 1: smallest first (TTFT), else largest first */
};
struct browse_orders {
	const struct browse_order *o;
	int n;
};

/* The sort= argument of b's request among s, the one place ?sort= is
 * read (once a request): 0 (the first order) when absent or empty, -1
 * with a 400 prepared in b that names sort= and every allowed value when
 * it names none of them; b->sort_given says whether it named one. */
int browse_take_order(struct browse *b, const struct browse_orders *s);

/* Adds the sort of the view model m, order cur of s: "sort" (its key),
 * "sort_text" (its words), "sort_param" (its key, null for the default),
 * "sorts" [{key, label, href, selected, dir, ascending}] for a "Sort by" line, and
 * "sort_by" {key: the same link} for column headers, dir being
 * "ascending" or "descending" (aria-sort's words).  href(ctx, sort) makes
 * each link, sort being NULL for the default order.  -1 when memory runs
 * out.  (/outliers, /disputes.) */
int browse_add_orders(json_t *m, const struct browse_orders *s, int cur,
		      json_t *(*href)(void *ctx, const char *sort), void *ctx);

/* The board-like lists (/, /m/<slug>, /hw/<slug>): their ?sort= orders,
 * the figure their rows are ordered by, in this enum's order (taken by
 * browse_take_order(b, &browse_board_orders)); browse_sort_key(s) is
 * order s's query value. */
enum browse_sort { SORT_DECODE, SORT_PREFILL, SORT_TTFT, SORT_DATE, SORT_BEST, SORT__MAX };
extern const struct browse_orders browse_board_orders;
#define browse_sort_key(s) (browse_board_orders.o[(s)].key)

/* The board's "Sort by" links, [{key, label, href, selected, dir}] with
 * cur selected, dir being aria-sort's word for the order (TTFT ascends,
 * the rest descend): the links of browse_add_orders() without its
 * "ascending", for pages whose view model places "sort_by" itself.
 * href(ctx, sort) makes each link, sort being NULL for the default order.
 * A new reference; NULL when memory runs out. */
json_t *browse_sort_links(enum browse_sort cur, json_t *(*href)(void *ctx, const char *sort), void *ctx);

/* The links of browse_sort_links() keyed by sort value, for the column
 * headers of a run list (templates/_list_runs.html).  The objects are
 * shared with sorts (the new object holds its own references to them).
 * NULL when memory runs out. */
json_t *browse_sort_by(json_t *sorts);

/* Steps st, a sorted list's query selecting (sort key, run id) with the
 * cursor at ?4 and ?5 and the limit at ?6, its other parameters bound: binds
 * b's cursor (below every key for the ascending TTFT order on page one) and
 * limit + 1, reads up to limit run ids into ids, sets *more when another
 * row follows and *last to the last key read.  The number of ids, or -1 on
 * a database error.  Resets st. */
int browse_sorted_ids(struct browse *b, sqlite3_stmt *st, enum browse_sort sort, int limit,
		      char (*ids)[16], int *more, double *last);

/* The most rows browse_sorted_page() lists. */
#define BROWSE_SORTED_MAX 50

/* A keyset page's list object {<key>: items, count, next, first, paged},
 * with "prev" when b came from a cursor: more says a next page exists
 * (after cursor cur), back whether the page before starts after pcur
 * (else it is page one); links by link(ctx, cursor) as below.  Takes
 * items; returns a new object, or NULL with a 503 set in b. */
json_t *browse_pager_list(struct browse *b, const char *key, json_t *items, int more, const char *cur,
			  int back, const char *pcur, json_t *(*link)(void *ctx, const char *cursor),
			  void *ctx);

/* One page of a sorted list (/, /m/<slug>, /hw/<slug> with ?sort=), as
 * browse_list()'s object {runs, count, next, first, paged}, with "prev"
 * when this page came from a cursor: st is the list's statement as
 * browse_sorted_ids() takes it (or NULL when it could not be prepared),
 * up the same list read the other way as browse_up_cursor() takes it,
 * every parameter of both but the cursor and limit bound; each id st
 * gives becomes browse_run()'s item (one primary-key seek).
 * link(ctx, cursor) makes the page's links: after cursor ("<key>:<id>",
 * for next and prev) or, with NULL, page one (first, and prev when fewer
 * than limit rows are above).  limit is at most BROWSE_SORTED_MAX.
 * Returns a new object, or NULL with a 503 set in b. */
json_t *browse_sorted_page(struct browse *b, sqlite3_stmt *st, sqlite3_stmt *up, enum browse_sort sort,
			   int limit, json_t *(*link)(void *ctx, const char *cursor), void *ctx);

/* The cursor of the page before b's: up is a list read backwards from the
 * cursor, inclusive ("(key, id) >= (?4, ?5)" in the reverse order, "LIMIT 1
 * OFFSET ?6"), selecting (key, run id), its other parameters bound.  Binds
 * b's cursor and limit, steps, and writes the row limit places above the
 * cursor as "<key>:<id>" to cur (size >= 48): 1 with it, 0 when there is
 * none (the page before is page one), -1 on a database error.  Resets up. */
int browse_up_cursor(const struct browse *b, sqlite3_stmt *up, int limit, char *cur, size_t n);

/* combos.c: lists of combinations (a model's weights file on one hardware
 * with one backend) with their typical figures (store/typical.h), by the
 * board-like orders: decode is the median over keys, best the best run.
 * q is the list's scope: hw and backend filter (every order reads an
 * index; the backend filter skips rows of others except by decode), or
 * with model and digest set, one weights file's combinations. */
struct combos_q {
	const char *hw, *backend, *model, *digest;
};
/* One page of q's combinations in order sort after b's cursor, at most
 * limit (<= BROWSE_SORTED_MAX), as {rows, count, next, first, paged, prev}
 * with links made by link(ctx, cursor) as browse_sorted_page()'s.  Returns
 * a new object, or NULL with a 503 set in b. */
json_t *combos_page(struct browse *b, const struct combos_q *q, enum browse_sort sort, int limit,
		    json_t *(*link)(void *ctx, const char *cursor), void *ctx);
/* The combination in st's row from column i on (store/typical.h's
 * TYPICAL_COLS, then its best run's model name, accelerator, quantization,
 * format and backend version) as a list row: typical_row()'s members with
 * model {name, slug, digest, digest_short, quantization, format, href},
 * hardware {name, slug, href}, backend_version, best_href, href (its runs),
 * pair_href (every backend of the model on the hardware),
 * ceiling {ceiling_tok_s, low_tok_s, percent_of_ceiling, above, text} or
 * null, above_ceiling, and for pages text {median, p25, p75, best,
 * prefill, ttft}.  A new reference; NULL when out of memory. */
json_t *combos_item(const struct browse *b, sqlite3_stmt *st, int i);
/* The middle half of row o's submitters as a page shows it under the
 * median: "96.0â104.2" (its p25_decode_tok_s to p75_decode_tok_s), or a
 * lone "â" when one submitter stands behind it ("keys" 1, or without a
 * "keys" the two ends equal) or either end is missing.  A new reference;
 * NULL when out of memory. */
json_t *combos_spread_text(const json_t *o);
/* Adds to row o's "text" (a page's, not JSON's) its "spread"
 * (combos_spread_text) and what its figure rests on
 * (contract section 9, issue 35): "awaiting confirmation: N submitters"
 * for a row that is not confirmed, "disputed" for one whose figures hold a
 * run under open dispute. */
void combos_marks_text(json_t *o);
/* Marks the first row of rows that is not confirmed with text.await_head
 * (its list's "Awaiting confirmation" heading goes above it) when the
 * list ranks confirmed rows first. */
void combos_await_head(json_t *rows, int confirmed_first);
/* What a row lacks to be confirmed, in words ("fewer than 3 submitters
 * from 2 networks"; no networks when the network cap is lifted). */
const char *combos_confirm_text(void);
/* 1 when row may be called fastest or head a page: a confirmed
 * combination, or a row that carries no "confirmed" (not a combination). */
int combos_may_lead(const json_t *row);
/* A combinations list's columns: model and hardware shown or not, and
 * how many columns that makes (span).  A new reference. */
json_t *combos_cols(int model, int hw);
/* The names of the hardware of rows that the reference data does not
 * know, once each ("RTX 3060, M1 Max"), for a page's one note; null when
 * every one is known.  A new reference. */
json_t *combos_ceiling_note(const struct browse *b, const json_t *rows);
extern const char *const combos_sql[];

/* A site-relative link: prefix ("/m/"), then segment URL-escaped (NULL:
 * none) and ".json" when b answers with JSON, then the key/value pairs
 * that follow, NULL-terminated, as query arguments (a NULL value skips its
 * pair), then ?suite= when the request named the suite.  Returns a JSON
 * string, a new reference (NULL when memory runs out). */
json_t *browse_link(const struct browse *b, const char *prefix, const char *segment, ...)
	__attribute__((sentinel));

/* The link to model on hw, /m/<model>/hw/<hw> (".json" when b answers
 * with JSON, ?suite= as browse_link() carries it); a new JSON string,
 * NULL when memory runs out. */
json_t *browse_mhw_link(const struct browse *b, const char *model, const char *hw);
extern const char *const page_model_hw_sql[];

/* page_unmeasured.c: sets m's "unmeasured" for the page of a model (hw
 * NULL) or of a hardware (model NULL) that the reference data knows and
 * the suite has no run of: {command (to measure it with llm-speed, quoted
 * as /wanted quotes it: for a hardware, with the suite's most-run model;
 * null when there is none), asks (what /wanted counts for it, summed over
 * its rows), asks_text, wanted_href, href (the model-on-hardware page of
 * the command, or null)}.  0, or -1 with b's failure set (503). */
int page_unmeasured(struct browse *b, json_t *m, const char *model, const char *model_name,
		    const char *hw);
extern const char *const page_unmeasured_sql[];
/* page_wanted.c: the backends a copy-paste command names. */
extern const char *const page_wanted_sql[];
extern const char *const page_pick_sql[];     /* page_pick.c */

/* Appends "<decode>:<id>", the cursor after a row, to out (size >= 48). */
void browse_cursor(char *out, size_t n, double decode, const char *id);

/* The suites in the runs table as [{"name", "selected", "href"}], oldest
 * first (at most 50), for a selector whose links lead to prefix and
 * segment as in browse_link(); a new reference, NULL on a database error. */
json_t *browse_suites(const struct browse *b, const char *prefix, const char *segment);

/* v as numfmt_fig writes a figure ("7,314", "53.0"), as a new JSON
 * string for a page's view; NULL when out of memory. */
json_t *browse_fig(double v);
/* o's number under k as browse_fig, or "" when it has none (a figure not
 * known); a new JSON string, NULL when out of memory. */
json_t *browse_fig_of(const json_t *o, const char *k);

/* The short display of a model digest ("sha256:<64 hex>") into out: its
 * first 12 hex digits, or all 64 when another digest with a counted run in
 * suite (of any model: two seeks) starts with the same 12,
 * so that a look-alike digest is never shown as the one it imitates
 * (issue 37, H2); "" for a digest of another form.  On a read failure the
 * digest is shown in full. */
#define BROWSE_DIGEST_SHORT 72
void browse_digest_short(struct dbconn *c, const char *suite, const char *digest,
			 char out[BROWSE_DIGEST_SHORT]);

/* A page title from a name people chose: cut (with an ellipsis) so that
 * the escaped title stays under the 70 characters browsers show and the
 * HTML checker allows.  Returns a new JSON string. */
json_t *browse_title(const char *name);

/* Sorts the JSON array a in place with cmp, which compares two json_t *
 * (passed as pointers to them, as qsort does). */
void browse_sort(json_t *a, int (*cmp)(const void *, const void *));
/* Sorts an array of objects by their "name" member, ignoring case. */
void browse_sort_by_name(json_t *a);

/* Steps the bound st once and copies column 0's text of the row to out;
 * 1 with it, 0 when there is no row (or a NULL), -1 on error.  Resets st. */
int browse_step_text(sqlite3_stmt *st, char *out, size_t n);

/* 1 when any run in the database is a demo run, 0 when none, -1 on error. */
int browse_has_demo(const struct browse *b);

/* Every SQL statement of the browse pages, NULL-ended, one array per file:
 * for the unit test that checks each query plan uses an index and never
 * scans a table (runs, or the digest_counts summary of migration 0004) or
 * sorts. */
extern const char *const browse_sql[];
extern const char *const browse_sort_sql[];   /* browse_sort.c */
extern const char *const page_home_sql[];
extern const char *const page_model_sql[];
extern const char *const page_model_digests_sql[];   /* page_model_digests.c */
extern const char *const page_model_best_sql[];      /* page_model_best.c */
extern const char *const page_hw_sql[];
extern const char *const page_fit_sql[];     /* page_fit.c */
/* /search (page_search.c), /models and /hardware (page_catalog.c). */
extern const char *const page_search_sql[];
extern const char *const page_catalog_sql[];
extern const char *const page_compare_sql[];  /* page_compare.c */
/* page_compare_choose.c: /compare without r=, the form that picks runs
 * from a model or a hardware (b's ?model= and ?hw=): the view model {title,
 * choosing, choose {models, hardware, model, hw, chosen, rows, has_rows,
 * max_rows}, ...}, a new reference; NULL with b's 503 on a database
 * error. */
json_t *page_compare_choose(struct browse *b);
extern const char *const page_compare_choose_sql[];
extern const char *const page_rank_sql[];     /* rank.c */
extern const char *const page_cheatsheet_sql[]; /* page_cheatsheet.c */
/* The key of the cheatsheet's i-th ?memory= class (smallest first, as
 * migration 0017's mem_classes, "unknown" last), or NULL past the last. */
const char *page_cheatsheet_mem_key(size_t i);
/* /outliers and /disputes (page_lists.c). */
extern const char *const page_lists_sql[];
/* The ruled threads of /disputes (?state=upheld, dismissed): each a page
 * and a page backwards, which seek the state and the cursor in
 * dispute_threads_state (0003) and sort only the ties of the cursor key. */
extern const char *const page_lists_ruled_sql[];
/* /u/<name> (page_account.c). */
extern const char *const page_account_sql[];
extern const char *const page_judges_sql[];
/* The Atom feeds (page_feed.c): index scans in feed order, LIMIT 50. */
extern const char *const page_feed_sql[];
/* The model and hardware cards' rows and counts (page_card.c). */
extern const char *const page_card_sql[];
/* page_sitemap.c's statements, NULL-ended, for the same test. */
extern const char *const page_sitemap_sql[];

#endif
