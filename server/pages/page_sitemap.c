/* page_sitemap.c: /sitemap.xml and /sitemap-<n>.xml (sitemaps.org 0.9),
 * made from the page kinds' table (kinds.c, .sitemap): each SITEMAP_ONE
 * kind's one address, and for each SITEMAP_EACH kind one address per thing
 * its '*' names: every run, every model and hardware with runs in the
 * suite listed, every model-on-hardware pair with runs (pair_index).  Up
 * to the page size (SITEMAP_PAGE_URLS, or --sitemap-page-urls in the
 * tests) /sitemap.xml is that urlset; above it, a sitemap index of
 * /sitemap-<n>.xml files of at most SITEMAP_FILE_URLS addresses each (or
 * --sitemap-file-urls, never more than the page size).
 *
 * Paging: runs by fixed rowid ranges (page j of the runs holds the rowids
 * j*K+1 .. (j+1)*K, read from the table's own b-tree), so no page counts
 * or skips rows before it; models, hardware and pairs, which number in
 * the thousands, not the millions, page by their slug order.  Every file
 * is kept in the response cache (REP_LIST_HTML), served stale while it is
 * rebuilt after a write (http/cache.h).  A file of runs whose range is
 * sealed (below the highest rowid: new runs only ever go past it) is kept
 * with the scope SITEMAP_SEALED, which no upload names: only what changes
 * every list (cache_bump_lists) or drops a run (a ruling, a withdrawal:
 * cache_clear) makes it stale, so a stream of uploads rebuilds the last
 * file, not the hundred before it. */
#include "pages/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/store_err.h"
#include "pages/browse.h"
#include "render/html.h"
#include "store/db.h"
#include "store/scope.h"
#include "util/buf.h"
#include "util/timefmt.h"

/* Addresses in /sitemap.xml before it is an index: sitemaps.org's limit
 * for a file. */
#define SITEMAP_PAGE_URLS 50000
/* Addresses per file of the index.  A fifth of the limit: every list
 * write makes each file stale, and a file of runs is built by reading
 * its rows of the table, so 10,000 runs (1 MB, about 20 ms at 200,000
 * runs) where 50,000 took 90-130 ms and 5 MB of the response cache.
 * Under SITEMAP_PAGE_URLS, /sitemap.xml itself is still the one urlset,
 * rebuilt whole after a write (up to 50,000 addresses: a site of that
 * size pays that build for the protocol's one-file form). */
#define SITEMAP_FILE_URLS 10000

#define NS "http://www.sitemaps.org/schemas/sitemap/0.9"

static const char sql_max_rowid[] = "SELECT max(rowid) FROM runs";
static const char sql_runs[] =
	"SELECT id, received_at FROM runs WHERE rowid BETWEEN ? AND ? AND status = 'ok' ORDER BY rowid";
static const char sql_runs_last[] =
	"SELECT received_at FROM runs WHERE rowid BETWEEN ? AND ? AND status = 'ok' "
	"ORDER BY rowid DESC LIMIT 1";
static const char sql_newest[] =
	"SELECT received_at FROM runs INDEXED BY runs_recent WHERE status = 'ok' "
	"ORDER BY received_at DESC, id DESC LIMIT 1";
static const char sql_nmodels[] = "SELECT count(*) FROM model_index WHERE suite_version = ? AND runs > 0";
static const char sql_nhw[] = "SELECT count(*) FROM hw_index WHERE suite_version = ? AND runs > 0";
static const char sql_npairs[] = "SELECT count(*) FROM pair_index WHERE suite_version = ?";
static const char sql_nruns[] = "SELECT n FROM row_counts WHERE name = 'runs'";
/* Each page of models, hardware and pairs: slug order, ? ? the limit and offset. */
static const char sql_models[] =
	"SELECT m.model_slug, NULL, (SELECT received_at FROM runs INDEXED BY runs_model_recent "
	"WHERE model_slug = m.model_slug AND status = 'ok' ORDER BY received_at DESC LIMIT 1) "
	"FROM model_index m WHERE m.suite_version = ? AND m.runs > 0 ORDER BY m.model_slug LIMIT ? OFFSET ?";
static const char sql_hws[] =
	"SELECT h.hw_slug, NULL, (SELECT received_at FROM runs INDEXED BY runs_hw_recent "
	"WHERE hw_slug = h.hw_slug AND status = 'ok' ORDER BY received_at DESC LIMIT 1) "
	"FROM hw_index h WHERE h.suite_version = ? AND h.runs > 0 ORDER BY h.hw_slug LIMIT ? OFFSET ?";
/* Pairs in key order with their newest run's time beside them
 * (migration 0036): no run is read. */
static const char sql_pairs[] =
	"SELECT model_slug, hw_slug, last_at FROM pair_index WHERE suite_version = ? "
	"ORDER BY model_slug, hw_slug LIMIT ? OFFSET ?";

/* The statements, for the unit test of query plans. */
const char *const page_sitemap_sql[] = { sql_max_rowid, sql_runs, sql_runs_last,
	sql_newest, sql_nmodels, sql_nhw, sql_npairs, sql_nruns, sql_models, sql_hws, sql_pairs, NULL };

/* One sitemap being written: the request's reads and where the text goes. */
struct smap {
	struct browse b;
	struct buf out;
	char origin[300];
	char ref_lastmod[TIMEFMT_LEN]; /* the reference pages': newest run or start */
	long long per;                 /* addresses in /sitemap.xml before it is an index */
	long long file_per;            /* addresses per file of the index */
	int failed;                    /* a read failed: 503 */
	int sealed;                    /* the file written is a sealed range of runs */
};

/* The scope of the sealed files of runs (none of a write's). */
#define SITEMAP_SEALED scope_tag('s', "runs")

/* The segments of the sitemap, one per kind listed (SITEMAP_ONE kinds all
 * in the first), in table order; each its number of things and files. */
struct seg {
	int kind;                      /* -1: every SITEMAP_ONE kind */
	long long n;                   /* things (runs: the highest rowid) */
	long long files;
};

/* The statement for sql, the suite bound first when it names one. */
static sqlite3_stmt *stmt(struct smap *s, const char *sql, int suite)
{
	sqlite3_stmt *st = db_stmt(s->b.c, sql);

	if (!st)
		s->failed = 1;
	else if (suite)
		db_bind_text(st, 1, s->b.suite);
	return st;
}

/* The first column of sql's one row as a number (0 without a row). */
static long long one_int(struct smap *s, const char *sql, int suite)
{
	sqlite3_stmt *st = stmt(s, sql, suite);
	long long v = 0;
	int rc;

	if (!st)
		return 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		s->failed = 1;
	sqlite3_reset(st);
	return v;
}

/* Appends <loc> of origin and the path made of a kind's path with its
 * stars replaced by a and then b (each percent-encoded), XML-escaped;
 * then <lastmod> when given. */
static void url_el(struct smap *s, const char *pattern, const char *a, const char *b,
		   const char *lastmod)
{
	struct buf path = BUF_INIT, url = BUF_INIT;
	const char *p, *arg = a;

	for (p = pattern; *p; p++)
		if (*p == '*') {
			buf_puts(&path, arg ? arg : "");
			arg = b;
		} else
			buf_putc(&path, *p);
	if (!buf_error(&path))
		page_meta_address(&url, s->origin, path.buf);
	buf_puts(&s->out, "<url><loc>");
	html_txt(&s->out, buf_error(&url) ? "" : url.buf);
	buf_puts(&s->out, "</loc>");
	if (lastmod && *lastmod) {
		buf_puts(&s->out, "<lastmod>");
		html_txt(&s->out, lastmod);
		buf_puts(&s->out, "</lastmod>");
	}
	buf_puts(&s->out, "</url>\n");
	if (buf_error(&path) || buf_error(&url))
		buf_grow(&s->out, BUF_MAX);
	buf_release(&path);
	buf_release(&url);
}

/* The SITEMAP_ONE kinds from the first'th, at most count of them. */
static void write_ones(struct smap *s, long long first, long long count)
{
	long long i = 0;
	int k;

	for (k = 0; k < page_kinds_n && count > 0; k++) {
		if (page_kinds[k].sitemap != SITEMAP_ONE || i++ < first)
			continue;
		url_el(s, page_kinds[k].path, NULL, NULL, s->ref_lastmod);
		count--;
	}
}

/* The runs of rowids lo..hi. */
static void write_runs(struct smap *s, const char *pattern, long long lo, long long hi)
{
	sqlite3_stmt *st = stmt(s, sql_runs, 0);
	int rc;

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		url_el(s, pattern, (const char *)sqlite3_column_text(st, 0), NULL,
		       (const char *)sqlite3_column_text(st, 1));
	if (rc != SQLITE_DONE)
		s->failed = 1;
	sqlite3_reset(st);
}

/* The things of a model, hardware or pair statement, count from first. */
static void write_slugs(struct smap *s, const char *sql, const char *pattern,
			long long first, long long count)
{
	sqlite3_stmt *st = stmt(s, sql, 1);
	int rc;

	if (!st)
		return;
	sqlite3_bind_int64(st, 2, count);
	sqlite3_bind_int64(st, 3, first);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		url_el(s, pattern, (const char *)sqlite3_column_text(st, 0),
		       (const char *)sqlite3_column_text(st, 1),
		       (const char *)sqlite3_column_text(st, 2));
	if (rc != SQLITE_DONE)
		s->failed = 1;
	sqlite3_reset(st);
}

/* The listing statement of a SITEMAP_EACH kind's things, by its arg
 * (NULL: the runs, or a kind the sitemap cannot list). */
static const char *each_sql(int kind, const char **count_sql)
{
	switch (page_kinds[kind].arg) {
	case PAGE_ARG_MODEL: *count_sql = sql_nmodels; return sql_models;
	case PAGE_ARG_HW: *count_sql = sql_nhw; return sql_hws;
	case PAGE_ARG_MODEL_HW: *count_sql = sql_npairs; return sql_pairs;
	default: *count_sql = NULL; return NULL;
	}
}

/* Fills segs (room for PAGE_KINDS_MAX + 1); returns how many, and the
 * addresses in all into *total (runs: every stored one, an upper bound). */
static int segments(struct smap *s, struct seg *segs, long long *total)
{
	const char *count_sql;
	int k, n = 1;

	segs[0] = (struct seg){ -1, 0, 0 };
	*total = 0;
	for (k = 0; k < page_kinds_n; k++) {
		if (page_kinds[k].sitemap == SITEMAP_ONE)
			segs[0].n++;
		if (page_kinds[k].sitemap != SITEMAP_EACH)
			continue;
		segs[n].kind = k;
		if (page_kinds[k].arg == PAGE_ARG_RUN) {
			segs[n].n = one_int(s, sql_max_rowid, 0);
			*total += one_int(s, sql_nruns, 0);
		} else if (each_sql(k, &count_sql)) {
			segs[n].n = one_int(s, count_sql, 1);
			*total += segs[n].n;
		} else
			continue;
		n++;
	}
	*total += segs[0].n;
	for (k = 0; k < n; k++)
		segs[k].files = (segs[k].n + s->file_per - 1) / s->file_per;
	return n;
}

/* Whether rowids lo..hi hold a run the sitemap lists; its newest time
 * into lastmod (empty when none). */
static int runs_lastmod(struct smap *s, long long lo, long long hi, char lastmod[TIMEFMT_LEN])
{
	sqlite3_stmt *st = stmt(s, sql_runs_last, 0);
	int rc;

	lastmod[0] = '\0';
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(lastmod, TIMEFMT_LEN, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		s->failed = 1;
	sqlite3_reset(st);
	return rc == SQLITE_ROW;
}

/* The index: one <sitemap> per file of every segment.  A file of runs
 * whose range holds none is left out, and so numbered past. */
static void write_index(struct smap *s, const struct seg *segs, int nsegs)
{
	char lastmod[TIMEFMT_LEN];
	long long file = 0, j;
	int i;

	buf_puts(&s->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"" NS "\">\n");
	for (i = 0; i < nsegs; i++)
		for (j = 0; j < segs[i].files; j++) {
			file++;
			if (segs[i].kind >= 0 && page_kinds[segs[i].kind].arg == PAGE_ARG_RUN) {
				if (!runs_lastmod(s, j * s->file_per + 1, (j + 1) * s->file_per, lastmod))
					continue;
			} else
				snprintf(lastmod, sizeof lastmod, "%s", s->ref_lastmod);
			buf_puts(&s->out, "<sitemap><loc>");
			html_txt(&s->out, s->origin);
			buf_printf(&s->out, "/sitemap-%lld.xml</loc>", file);
			if (*lastmod)
				buf_printf(&s->out, "<lastmod>%s</lastmod>", lastmod);
			buf_puts(&s->out, "</sitemap>\n");
		}
	buf_puts(&s->out, "</sitemapindex>\n");
}

/* The addresses of segment seg's file j (0-based). */
static void write_file(struct smap *s, const struct seg *seg, long long j)
{
	const struct page_kind_def *k = seg->kind >= 0 ? &page_kinds[seg->kind] : NULL;
	const char *count_sql, *sql;

	if (!k)
		write_ones(s, j * s->file_per, s->file_per);
	else if (k->arg == PAGE_ARG_RUN)
		write_runs(s, k->path, j * s->file_per + 1, (j + 1) * s->file_per);
	else if ((sql = each_sql(seg->kind, &count_sql)))
		write_slugs(s, sql, k->path, j * s->file_per, s->file_per);
}

/* Writes file n of the sitemap (0: /sitemap.xml) into s->out; 1, or 0
 * when there is no such file. */
static int write_sitemap(struct smap *s, long long n)
{
	struct seg segs[PAGE_KINDS_MAX + 1];
	long long total, file = 0, j;
	int nsegs = segments(s, segs, &total), i;
	char lastmod[TIMEFMT_LEN];

	if (s->failed)
		return 1;
	if (n == 0 && total > s->per) {
		write_index(s, segs, nsegs);
		return 1;
	}
	if (n > 0 && total <= s->per)
		return 0;
	buf_puts(&s->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"" NS "\">\n");
	for (i = 0; i < nsegs; i++)
		for (j = 0; j < segs[i].files; j++) {
			file++;
			if (n && file != n)
				continue;
			if (n && segs[i].kind >= 0 && page_kinds[segs[i].kind].arg == PAGE_ARG_RUN) {
				if (!runs_lastmod(s, j * s->file_per + 1, (j + 1) * s->file_per, lastmod))
					return 0;   /* a range of none: the index does not name it */
				s->sealed = (j + 1) * s->file_per < segs[i].n;
			}
			write_file(s, &segs[i], j);
		}
	if (n > file)
		return 0;
	buf_puts(&s->out, "</urlset>\n");
	return 1;
}

/* The later of the newest run's time and the server's start, for the
 * reference pages. */
static void reference_lastmod(struct smap *s)
{
	sqlite3_stmt *st = stmt(s, sql_newest, 0);
	long long newest = 0;
	const char *t;

	time_rfc3339((time_t)s->b.r->app->started, s->ref_lastmod);
	if (st && sqlite3_step(st) == SQLITE_ROW && (t = (const char *)sqlite3_column_text(st, 0)) &&
	    time_parse_rfc3339_utc(t, &newest) == 0 && newest > (long long)s->b.r->app->started)
		snprintf(s->ref_lastmod, sizeof s->ref_lastmod, "%s", t);
	if (st)
		sqlite3_reset(st);  /* a statement left on a row would hold this snapshot */
}

/* Counts one query argument some page reads (the others change nothing). */
static void count_arg(void *ctx, const char *k, const char *v)
{
	(void)v;
	if (page_query_known(k))
		(*(int *)ctx)++;
}

/* The sitemap file r asks for: 0 for /sitemap.xml (r->arg empty), else
 * n (1 or more) with its cache key; -1 for a file that cannot exist. */
static long long sitemap_which(struct req *r, char key[CACHE_ID_MAX + 1])
{
	char *end;
	long long n;

	if (!r->arg[0]) {
		snprintf(key, CACHE_ID_MAX + 1, "Smap");
		return 0;
	}
	n = strtoll(r->arg, &end, 10);
	if (*end || r->arg[0] < '1' || r->arg[0] > '9' || n < 1 || n > 100000000)
		return -1;
	snprintf(key, CACHE_ID_MAX + 1, "S%lld", n);
	return n;
}

/* page_build_answer_fn of the sitemap files: builds r's file, kept under
 * its key unless the request has a query some page reads (?suite= lists
 * another suite; nothing links to one), which is built each time so that
 * it cannot stand in for the plain file. */
static int sitemap_build(struct req *r, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE };
	struct smap s = { .out = BUF_INIT };
	char key[CACHE_ID_MAX + 1];
	int found, rc, args = 0;
	long long n = sitemap_which(r, key);

	http_query_each(r, count_arg, &args);
	s.per = r->app->cfg.sitemap_page_urls ? r->app->cfg.sitemap_page_urls : SITEMAP_PAGE_URLS;
	s.file_per = r->app->cfg.sitemap_file_urls ? r->app->cfg.sitemap_file_urls : SITEMAP_FILE_URLS;
	if (s.file_per > s.per)
		s.file_per = s.per;
	http_origin(r, s.origin, sizeof s.origin);
	if (browse_begin(&s.b, r) < 0) {
		a->err = s.b.err;
		browse_end(&s.b);
		return -1;
	}
	reference_lastmod(&s);
	found = n >= 0 && write_sitemap(&s, n);
	browse_end(&s.b);
	if (s.failed)
		rc = http_db_err(&a->err, DB_ERR);
	else if (!found)
		rc = err_set(&a->err, 404, "not_found", NULL, "%s", "No such sitemap file: /sitemap.xml names every one.");
	else {  /* with a query: under a key no request is served from */
		struct cache_tags tags = { { s.sealed ? SITEMAP_SEALED : 0, 0 } };

		answer_keep(a, r->app->cache, args ? "Squery" : key, REP_LIST_HTML, args ? 0 : s.b.gen, tags);
		rc = answer_buf(a, 200, CT_XML, &s.out, &o);
	}
	buf_release(&s.out);
	return rc;
}

/* GET /sitemap.xml and /sitemap-<n>.xml (r->arg: n, 1 or more).  404 for a
 * file the index does not name; 503 when the database does not answer.
 * Kept as its key (served stale while it is rebuilt off the request path
 * after a write, page_kept_serve), unless the request has a query some
 * page reads, built each time (sitemap_build); other arguments change
 * nothing. */
static int sitemap_answer(struct req *r, struct answer *a)
{
	char key[CACHE_ID_MAX + 1];
	int args = 0;

	if (sitemap_which(r, key) < 0)
		return err_set(&a->err, 404, "not_found", NULL, "%s", "No such sitemap file: /sitemap.xml names every one.");
	http_query_each(r, count_arg, &args);
	if (args)
		return sitemap_build(r, a);
	return page_kept_serve(r, a, key, REP_LIST_HTML, sitemap_build, NULL);
}

int page_sitemap(struct req *r, struct answer *a)
{
	return sitemap_answer(r, a);
}

int page_sitemap_file(struct req *r, struct answer *a)
{
	return sitemap_answer(r, a);
}
