/* warm.c: the kept pages built ahead after start.  A model's or a
 * hardware's page, the board filtered to a hardware and a sitemap file
 * take milliseconds to build at a million runs (a sitemap file tens), and
 * there are thousands of them: the first visitor of each would wait for
 * its build, and a crawler walking them all would hold the build threads.
 * So once, a second after start, one thread of the lowest priority asks
 * for each of them as a visitor would, without a connection (the page is
 * built on this thread and kept, page_kept_serve), one at a time, the
 * most visited kinds first.  After that they are kept (in their scopes,
 * http/cache.h) like any page a visitor asked for, and a write makes them
 * stale and rebuilt as it would have. */
#include "warm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "pages/page.h"
#include "pages/browse.h"
#include "router.h"
#include "store/db.h"
#include "util/log.h"
#include "util/metrics.h"

/* Things of one kind built ahead at most. */
#define WARM_MAX 20000
/* Sitemap files tried at most (each of 10,000 addresses). */
#define WARM_SITEMAP_MAX 1000
/* The wait after start before the first build, ms. */
#define WARM_DELAY_MS 1000

static const char sql_models[] =
	"SELECT model_slug FROM model_index WHERE suite_version = ? AND runs > 0 "
	"ORDER BY runs DESC, model_slug DESC LIMIT " HTTP_STR(WARM_MAX);
static const char sql_hws[] =
	"SELECT hw_slug FROM hw_index WHERE suite_version = ? AND runs > 0 "
	"ORDER BY runs DESC, hw_slug DESC LIMIT " HTTP_STR(WARM_MAX);

/* The statements, for the unit test of query plans. */
const char *const warm_sql[] = { sql_models, sql_hws, NULL };

struct warm {
	struct app *app;
	pthread_t thread;
	atomic_int stop;
};

/* A list of slugs, read before any build (no read is held open across
 * the builds: a long one would keep the WAL from being checkpointed). */
struct slugs {
	char **s;
	size_t n;
};

static void slugs_free(struct slugs *l)
{
	while (l->n)
		free(l->s[--l->n]);
	free(l->s);
	l->s = NULL;
}

/* r made a GET of path (its query, when it has one, of one argument
 * key=value: not decoded, so give none that needs it), as the router makes
 * a request from a connection; 0, or -1 when no route serves it. */
static int make_req(struct req *r, struct app *app, char *path)
{
	char *q = strchr(path, '?'), *eq;

	memset(r, 0, sizeof *r);
	r->app = app;
	r->method = HTTP_GET;
	r->body = (struct buf)BUF_INIT;
	r->target = (struct err)ERR_INIT;
	r->error_page = page_error;
	if (q) {
		*q++ = '\0';
		if ((eq = strchr(q, '='))) {
			*eq = '\0';
			r->query[0] = (struct http_pair){ q, eq + 1 };
			r->nquery = 1;
		}
	}
	r->path = path;
	if (!(r->route = router_match(HTTP_GET, path, r->arg, sizeof r->arg)))
		return -1;
	r->html = (r->route->flags & ROUTE_HTML) != 0;
	r->format = r->route->format;
	r->kind = r->format ? r->route->kind : -1;
	return 0;
}

/* Asks for the page at path as a visitor would: built and kept unless it
 * is kept already.  1 when it is a page (200), 0 when it is none (a 404:
 * past the last sitemap file), -1 when it could not be built. */
static int warm_one(struct app *app, const char *path)
{
	struct answer a = ANSWER_INIT;
	char p[CACHE_ID_MAX + 200];
	struct req r;
	int rc;

	snprintf(p, sizeof p, "%s", path);
	if (make_req(&r, app, p) < 0)
		return -1;
	rc = r.route->handler(&r, &a);
	answer_store(&a);
	if (rc == 0 && !a.err.status && (a.status == 200 || a.kept))
		rc = 1;
	else
		rc = a.err.status == 404 ? 0 : -1;
	answer_release(&a);
	buf_release(&r.body);
	if (rc == 1)
		metrics_inc(MC_PAGES_AHEAD);
	return rc;
}

/* The slugs sql lists for the newest suite into l; 0, or -1. */
static int read_slugs(struct app *app, const char *sql, struct slugs *l)
{
	struct browse b;
	struct req r;
	char path[] = "/";
	sqlite3_stmt *st;
	char **grown;
	int rc = -1;

	if (make_req(&r, app, path) < 0)
		return -1;
	if (browse_begin(&b, &r) < 0)
		goto out;
	if (!(st = db_stmt(b.c, sql)))
		goto out;
	db_bind_text(st, 1, b.suite);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *slug = (const char *)sqlite3_column_text(st, 0);

		if (!slug || !(grown = realloc(l->s, (l->n + 1) * sizeof *l->s)))
			continue;
		l->s = grown;
		if ((l->s[l->n] = strdup(slug)))
			l->n++;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? 0 : -1;
out:
	browse_end(&b);
	return rc;
}

/* Sleeps ms unless w is stopped meanwhile; 0, or -1 when it was. */
static int pause_ms(struct warm *w, long ms)
{
	struct timespec t = { 0, 50 * 1000000L };

	for (; ms > 0; ms -= 50) {
		if (atomic_load(&w->stop))
			return -1;
		nanosleep(&t, NULL);
	}
	return atomic_load(&w->stop) ? -1 : 0;
}

/* Each slug of l after prefix ("/hw/"), in l's order; -1 once w is
 * stopped. */
static int warm_each(struct warm *w, const struct slugs *l, const char *prefix, unsigned long *n)
{
	char path[CACHE_ID_MAX + 200];
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (atomic_load(&w->stop))
			return -1;
		snprintf(path, sizeof path, "%s%s", prefix, l->s[i]);
		*n += warm_one(w->app, path) == 1;
	}
	return 0;
}

static void *warm_main(void *arg)
{
	struct warm *w = arg;
	struct slugs hws = { 0 }, models = { 0 };
	char path[64];
	unsigned long n = 0;
	struct timespec t0, t1;
	int i;

	/* The lowest priority: the requests under way go first. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	if (pause_ms(w, WARM_DELAY_MS) < 0)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (read_slugs(w->app, sql_hws, &hws) < 0 || read_slugs(w->app, sql_models, &models) < 0)
		log_info("pages ahead: the lists of models and hardware could not be read");
	if (warm_each(w, &hws, "/hw/", &n) < 0 || warm_each(w, &hws, "/?hw=", &n) < 0 ||
	    warm_each(w, &models, "/m/", &n) < 0)
		goto out;
	for (i = 0; i <= WARM_SITEMAP_MAX && !atomic_load(&w->stop); i++) {
		if (i)
			snprintf(path, sizeof path, "/sitemap-%d.xml", i);
		if (warm_one(w->app, i ? path : "/sitemap.xml") != 1)
			break;     /* past the last file (or /sitemap.xml is the one urlset) */
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_info("pages ahead: %lu built in %.1f s", n,
		 (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	slugs_free(&hws);
	slugs_free(&models);
	return NULL;
}

struct warm *warm_start(struct app *app)
{
	struct warm *w;

	if (app->cfg.test_no_warm || !(w = calloc(1, sizeof *w)))
		return NULL;
	w->app = app;
	atomic_init(&w->stop, 0);
	if (pthread_create(&w->thread, NULL, warm_main, w) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void warm_stop(struct warm *w)
{
	if (!w)
		return;
	atomic_store(&w->stop, 1);
	pthread_join(w->thread, NULL);
	free(w);
}
