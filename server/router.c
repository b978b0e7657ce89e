/* router.c: the route table, request lifecycle and dispatch.  404, 405 and
 * 413 are decided here, before any handler runs. */
#include "router.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "disputes/dispute.h"
#include "http/access_log.h"
#include "http/answer.h"
#include "http/framing.h"
#include "http/guard.h"
#include "pages/kinds.h"
#include "pages/page.h"
#include "http/defer.h"
#include "ingest/upload.h"
#include "ingest/withdraw.h"
#include "util/metrics.h"
#include "util/nelem.h"

#define KB 1024

/* The routes that are no page kind's (uploads, posts, the run's JWS,
 * feeds, badges, cards, files), checked first and in order: a more
 * specific pattern comes before a general one.  The writes are rows of
 * http/defer.h, each run by defer_serve.  The page kinds' rows (each
 * page and its twins) follow, made from pages/kinds.c's table by
 * router_init(). */
static const struct route fixed[] = {
	{ HTTP_GET,  "/healthz",                     page_healthz,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_POST, "/api/v1/runs",                 defer_serve,       ROUTE_BODY, 64 * KB, HTTP_FMT_NONE, -1, &upload_write },
	{ HTTP_POST, "/api/v1/runs/*/disputes",      defer_serve,       ROUTE_BODY, 64 * KB, HTTP_FMT_NONE, -1, &dispute_api_write },
	{ HTTP_POST, "/api/v1/runs/*/disputes/resolve", defer_serve,    ROUTE_BODY, 64 * KB, HTTP_FMT_NONE, -1, &dispute_resolve_write },
	{ HTTP_POST, "/api/v1/runs/*/withdraw",      defer_serve,       ROUTE_BODY, 64 * KB, HTTP_FMT_NONE, -1, &withdraw_write },
	{ HTTP_GET,  "/r/*.jws",                     page_run_jws,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_POST, "/r/*/disputes",                defer_serve,       ROUTE_HTML | ROUTE_BODY, 64 * KB, HTTP_FMT_NONE, -1, &dispute_form_write },
	{ HTTP_GET,  "/export",                      page_export,       0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/feed.atom",                   page_feed_new,     0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/m/*.atom",                    page_feed_model,   0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/hw/*.atom",                   page_feed_hw,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/disputes.atom",               page_feed_disputes, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/u/*.atom",                    page_feed_account, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/changes.atom",                page_changes_atom, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/badge/*.svg",                 page_badge_svg,         0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/badge/*.json",                page_badge_json,        0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/m/*.png",                page_card_model_png,    0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/m/*.svg",                page_card_model_svg,    0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/hw/*.png",               page_card_hw_png,       0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/hw/*.svg",               page_card_hw_svg,       0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/*.png",                  page_card_run_png,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/card/*.svg",                  page_card_run_svg,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/log/checkpoint",              page_log_checkpoint, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/log/tile/**",                 page_log_tile,     0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/static/*",                    page_static_file,  0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/favicon.ico",                 page_favicon,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/robots.txt",                  page_robots,       0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/sitemap.xml",                 page_sitemap,      0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/sitemap-*.xml",               page_sitemap_file, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/.well-known/security.txt",    page_security_txt, 0, 0, HTTP_FMT_NONE, -1, NULL },
	{ HTTP_GET,  "/metrics",                     page_metrics,      ROUTE_HTML, 0, HTTP_FMT_NONE, -1, NULL },
};

#define NFIXED NELEM(fixed)
/* Every route: the fixed ones, then a page kind's JSON, CSV and page. */
#define NROUTES_MAX (NFIXED + 3 * PAGE_KINDS_MAX)
static struct route routes[NROUTES_MAX];
static size_t nroutes;
static pthread_once_t routes_once = PTHREAD_ONCE_INIT;
static struct err routes_err = ERR_INIT;

static atomic_uint in_flight;

/* ---- the page kinds' rows ---- */

static const struct route *match(enum http_method m, const char *path, char *arg, size_t argn);

/* Appends one page kind's row. */
static void add_kind_row(const char *pattern, unsigned flags, enum http_format f, int kind)
{
	routes[nroutes++] = (struct route){ HTTP_GET, pattern, page_serve, flags, 0, f, kind, NULL };
}

const char *router_sample_path(const char *pattern, char *out, size_t n)
{
	size_t i;

	if (!strchr(pattern, '*'))
		return pattern;
	for (i = 0; pattern[i] && i + 1 < n; i++)
		out[i] = pattern[i] == '*' ? 'x' : pattern[i];
	out[i] = '\0';
	return out;
}

/* 0 when every row reaches its requests (no row before it takes its
 * path) and every kind's feed is a fixed row; else -1 with routes_err. */
static int check_routes(void)
{
	char path[200], arg[160];
	const struct route *rt;
	size_t i;
	int k;

	for (i = 0; i < nroutes; i++) {
		rt = match(routes[i].method, router_sample_path(routes[i].pattern, path, sizeof path),
				  arg, sizeof arg);
		if (rt != &routes[i])
			return err_set(&routes_err, 500, NULL, NULL, "route %s is taken by %s before it",
				       routes[i].pattern, rt ? rt->pattern : "nothing");
	}
	for (k = 0; k < page_kinds_n; k++) {
		const char *feed = page_kinds[k].feed;

		rt = feed ? match(HTTP_GET, router_sample_path(feed, path, sizeof path), arg, sizeof arg) : NULL;
		if (feed && (!rt || strcmp(rt->pattern, feed)))
			return err_set(&routes_err, 500, NULL, NULL, "page kind %s names the feed %s, which no route serves",
				       page_kinds[k].name, feed);
	}
	return 0;
}

/* Fills routes[]: the fixed rows, then each page kind's twins and page
 * (twins first: "/m/<*>" would take "/m/x.json"), once; a table that does not
 * hold together leaves routes_err set. */
static void build_routes(void)
{
	const struct page_kind_def *k;
	int i;

	memcpy(routes, fixed, sizeof fixed);
	nroutes = NFIXED;
	if (page_kinds_check(NULL, &routes_err) < 0)
		return;
	for (i = 0; i < page_kinds_n; i++) {
		k = &page_kinds[i];
		if (k->json)
			add_kind_row(k->json, 0, HTTP_FMT_JSON, i);
		if (k->csv)
			add_kind_row(k->csv, 0, HTTP_FMT_CSV, i);
		add_kind_row(k->path, ROUTE_HTML, HTTP_FMT_HTML, i);
	}
	check_routes();
}

int router_init(struct err *e)
{
	pthread_once(&routes_once, build_routes);
	if (!routes_err.status)
		return 0;
	*e = routes_err;
	return -1;
}

void router_print(FILE *f)
{
	size_t i;

	pthread_once(&routes_once, build_routes);
	for (i = 0; i < nroutes; i++)
		fprintf(f, "%s %s\n", routes[i].method == HTTP_POST ? "POST" : "GET", routes[i].pattern);
}

/* ---- metrics: each route's label and kind ---- */

enum route_kind { RK_NONE, RK_PAGE, RK_DATA, RK_BADGE, RK_STATIC, RK_UPLOAD, RK_POST, RK__MAX };
static const char *const kind_names[RK__MAX] = {
	"none", "page", "data", "badge", "static", "upload", "post",
};
static const char *route_names[NROUTES_MAX + 1];
static unsigned char route_kinds[NROUTES_MAX + 1];

/* What a route is, for the duration histogram: a page for people, data
 * for scripts (JSON, CSV, feeds, tiles), a badge, a static file, an
 * upload or another write. */
static enum route_kind kind_of(const struct route *rt)
{
	if (rt->method == HTTP_POST)
		return rt->write == &upload_write ? RK_UPLOAD : RK_POST;
	if (!strncmp(rt->pattern, "/badge/", 7))
		return RK_BADGE;
	if (!strncmp(rt->pattern, "/static/", 8) || !strcmp(rt->pattern, "/favicon.ico"))
		return RK_STATIC;
	return rt->flags & ROUTE_HTML && rt->handler != page_metrics ? RK_PAGE : RK_DATA;
}

void router_metrics_init(void)
{
	size_t i;

	pthread_once(&routes_once, build_routes);
	route_names[0] = "none";
	for (i = 0; i < nroutes; i++) {
		route_names[i + 1] = routes[i].pattern;
		route_kinds[i + 1] = (unsigned char)kind_of(&routes[i]);
	}
	metrics_names(ML_ROUTE, route_names, (unsigned)nroutes + 1);
	metrics_names(ML_KIND, kind_names, RK__MAX);
}

/* Microseconds on the monotonic clock. */
static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

unsigned router_in_flight(void)
{
	return atomic_load(&in_flight);
}

/* A pattern with several stars (the model-on-hardware page's): each takes
 * one non-empty segment, ending at the path's next '/' less the literal
 * that follows the star up to its own next '/' (".json").  Nothing is
 * captured (arg is left empty): two segments need not fit in arg, and the
 * handler reads them from the path.  1 when it matches. */
static int match_segments(const char *pat, const char *path, char *arg)
{
	size_t tail;
	const char *end;

	arg[0] = '\0';
	while (*pat) {
		if (*pat != '*') {
			if (*pat++ != *path++)
				return 0;
			continue;
		}
		pat++;
		tail = strcspn(pat, "*/");
		if (pat[tail] == '*')       /* two in one segment: not a pattern we write */
			return 0;
		end = path + strcspn(path, "/");
		if ((size_t)(end - path) < tail + 1 || memcmp(end - tail, pat, tail))
			return 0;
		path = end - tail;
	}
	return *path == '\0';
}

int router_pattern_match(const char *pat, const char *path, char *arg, size_t argn)
{
	const char *star = strchr(pat, '*');
	size_t pre, suf, plen, seg;

	if (!star)
		return strcmp(pat, path) == 0;
	if (star[1] != '*' && strchr(star + 1, '*'))
		return argn ? match_segments(pat, path, arg) : 0;
	pre = (size_t)(star - pat);
	if (!strcmp(star, "**")) {      /* the rest of the path, slashes and all */
		seg = strlen(path);
		if (seg <= pre || strncmp(pat, path, pre) || seg - pre >= argn)
			return 0;
		memcpy(arg, path + pre, seg - pre + 1);
		return 1;
	}
	suf = strlen(star + 1);
	plen = strlen(path);
	if (plen < pre + suf + 1 || strncmp(pat, path, pre) != 0 ||
	    strcmp(path + plen - suf, star + 1) != 0)
		return 0;
	seg = plen - pre - suf;
	if (memchr(path + pre, '/', seg) || seg >= argn)
		return 0;
	memcpy(arg, path + pre, seg);
	arg[seg] = '\0';
	return 1;
}

/* router_match() on the table as it stands. */
static const struct route *match(enum http_method m, const char *path, char *arg, size_t argn)
{
	size_t i;

	if (m == HTTP_HEAD)
		m = HTTP_GET;
	for (i = 0; i < nroutes; i++)
		if (routes[i].method == m &&
		    router_pattern_match(routes[i].pattern, path, arg, argn))
			return &routes[i];
	return NULL;
}

const struct route *router_match(enum http_method m, const char *path,
				 char *arg, size_t argn)
{
	pthread_once(&routes_once, build_routes);
	return match(m, path, arg, argn);
}

const char *router_allow(const char *path)
{
	char arg[160];
	int get = 0, post = 0;
	size_t i;

	pthread_once(&routes_once, build_routes);
	for (i = 0; i < nroutes; i++) {
		if (!router_pattern_match(routes[i].pattern, path, arg, sizeof arg))
			continue;
		if (routes[i].method == HTTP_GET)
			get = 1;
		else
			post = 1;
	}
	if (get && post)
		return "GET, HEAD, POST";
	if (get)
		return "GET, HEAD";
	return post ? "POST" : NULL;
}

static enum http_method method_of(const char *m)
{
	if (!strcmp(m, "GET"))
		return HTTP_GET;
	if (!strcmp(m, "HEAD"))
		return HTTP_HEAD;
	if (!strcmp(m, "POST"))
		return HTTP_POST;
	return HTTP_OTHER;
}

/* 1 when the two textual IP addresses are the same address. */
static int same_address(const char *a, const char *b)
{
	unsigned char x[sizeof(struct in6_addr)], y[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, a, x) == 1)
		return inet_pton(AF_INET, b, y) == 1 && !memcmp(x, y, 4);
	if (inet_pton(AF_INET6, a, x) == 1)
		return inet_pton(AF_INET6, b, y) == 1 && !memcmp(x, y, 16);
	return 0;
}

/* Writes the peer's address (the TCP connection's other end) into out. */
static void peer_of(struct req *r, char *out, size_t n)
{
	const union MHD_ConnectionInfo *ci;
	const struct sockaddr *sa;

	snprintf(out, n, "unknown");
	ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!ci || !(sa = ci->client_addr))
		return;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)n);
	else if (sa->sa_family == AF_INET6 &&
		 IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)sa)->sin6_addr))
		inet_ntop(AF_INET, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr + 12,
			  out, (socklen_t)n);   /* ::ffff:a.b.c.d is a.b.c.d */
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)n);
}

/* Copies the last X-Forwarded-For entry (the address our proxy saw) into
 * out in canonical form; 0, or -1 when there is none or it is not an IP
 * address. */
static int forwarded_for(struct req *r, char *out, size_t n)
{
	const char *xff = http_header(r, "X-Forwarded-For"), *last;
	unsigned char bin[sizeof(struct in6_addr)];
	char text[64];
	size_t len;

	if (!xff)
		return -1;
	last = strrchr(xff, ',');
	last = last ? last + 1 : xff;
	last += strspn(last, " \t");
	len = strcspn(last, " \t");
	if (!len || len >= sizeof text)
		return -1;
	memcpy(text, last, len);
	text[len] = '\0';
	if (inet_pton(AF_INET, text, bin) == 1)
		return inet_ntop(AF_INET, bin, out, (socklen_t)n) ? 0 : -1;
	if (inet_pton(AF_INET6, text, bin) == 1)
		return inet_ntop(AF_INET6, bin, out, (socklen_t)n) ? 0 : -1;
	return -1;
}

/* Writes the client's address into r->client: the peer address, or, when
 * the peer is the trusted proxy (--trust-proxy=ADDR: a peer at ADDR), the
 * last X-Forwarded-For entry.  Kept in
 * memory only, for rate limits; never logged or stored. */
static void client_of(struct req *r)
{
	const struct config *c = &r->app->cfg;

	peer_of(r, r->client, sizeof r->client);
	if (!c->trust_proxy_addr || !same_address(r->client, c->trust_proxy_addr))
		return;
	if (forwarded_for(r, r->client, sizeof r->client) < 0)
		peer_of(r, r->client, sizeof r->client);
}

void *router_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct app *app = cls;
	struct req *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->conn = conn;
	r->app = app;
	r->start_us = now_us();
	clock_gettime(CLOCK_REALTIME, &r->received);
	buf_init(&r->body);
	if (app->access_log)
		r->raw_uri = strdup(uri);
	peer_of(r, r->client, sizeof r->client);
	snprintf(r->verb, sizeof r->verb, "-");
	snprintf(r->version, sizeof r->version, "-");
	r->target_bytes = strlen(uri);
	/* The target is libmicrohttpd's own buffer, which it goes on to
	 * split and decode: the check may cut off a query too long to read. */
	framing_check_target((char *)uri, app->cfg.max_header_bytes, &r->target);
	return r;
}

/* Fills in the request state on the first call (r from router_uri) and
 * checks what can be checked from the headers alone. */
static void req_begin(struct req *r, struct MHD_Connection *conn, const char *url,
		      const char *method, const char *version)
{
	const char *cl;

	r->ready = 1;
	snprintf(r->verb, sizeof r->verb, "%s", method);
	snprintf(r->version, sizeof r->version, "%s", version);
	r->path = url;
	http_take_query(r);
	r->method = method_of(method);
	r->route = router_match(r->method, url, r->arg, sizeof r->arg);
	/* What the responder needs, as data: no route is a page for people. */
	r->html = !r->route || (r->route->flags & ROUTE_HTML);
	r->format = r->route ? r->route->format : HTTP_FMT_NONE;
	r->kind = r->format ? r->route->kind : -1;
	r->write = r->route ? r->route->write : NULL;
	r->error_page = page_error;
	client_of(r);
	cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	if (r->route && cl && strtoull(cl, NULL, 10) > r->route->max_body)
		r->body_too_large = 1;
	atomic_fetch_add(&in_flight, 1);
}

/* Takes one chunk of the request body, or drops it once over the limit. */
static void req_take_body(struct req *r, const char *data, size_t n)
{
	size_t max = r->route && (r->route->flags & ROUTE_BODY) ? r->route->max_body : 0;

	if (r->body_too_large || r->body.len + n > max) {
		r->body_too_large = 1;
		buf_release(&r->body);
		return;
	}
	buf_add(&r->body, data, n);
}

/* Answers a with the contract's JSON error body whatever the path: for
 * answers about the request's framing or method, which no page is for. */
static int refuse_json(struct answer *a, unsigned status, const char *code, const char *message)
{
	a->err_json = 1;
	return err_set(&a->err, status, code, NULL, "%s", message);
}

/* The answer once the whole request is in: 404, 405, 413, then the
 * handler (or, for a request resumed after it was suspended, the function
 * its handler left to answer it). */
static int answer_of(struct req *r, struct answer *a)
{
	if (!r->route) {
		r->allow = router_allow(r->path);
		if (!r->allow)
			return err_set(&a->err, 404, "not_found", NULL, "%s",
				       "There is no page at this address; check the link, or start from the leaderboard.");
		return refuse_json(a, 405, "method_not_allowed",
				   "This address does not take that method; see the Allow header.");
	}
	if (r->body_too_large)
		return err_set(&a->err, 413, "payload_too_large", NULL, "%s",
			       "The request body is larger than this endpoint accepts (64 KiB for uploads); send a smaller body.");
	if (buf_error(&r->body))
		return err_nomem(&a->err);
	if (r->resume)
		return r->resume(r, a);
	return r->route->handler(r, a);
}

/* Runs once the whole request is in: answers it. */
static enum MHD_Result dispatch(struct req *r)
{
	struct answer a = ANSWER_INIT;

	if (answer_of(r, &a) < 0 && !a.err.status)
		err_nomem(&a.err);
	return answer_send(r, &a);
}

enum MHD_Result router_access(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct req *r = *con_cls;
	struct app *app = cls;
	struct err fe;
	size_t line;

	if (!r)
		return answer_nomem_conn(conn);   /* router_uri ran out of memory */
	if (!r->ready) {
		/* Queueing on this first call would make libmicrohttpd close
		 * the connection; answer on the next call instead. */
		req_begin(r, conn, url, method, version);
		/* Except for framing two parsers could read differently, or a
		 * target this server would misread: that is refused at once,
		 * and closing is what it needs. */
		line = strlen(method) + r->target_bytes + strlen(version) + 4;
		fe = r->target;
		if (fe.status ||
		    framing_check(conn, version, line, app->cfg.max_header_bytes, &fe) < 0) {
			struct answer a = ANSWER_INIT;

			r->close = 1;
			a.err = fe;
			a.err_json = 1;
			return answer_send(r, &a);
		}
		/* Except for a client waiting for "100 Continue" before it
		 * sends a body declared over the route's limit: it gets the
		 * 413 at once and the body is never sent.  Other clients are
		 * already sending; their body is read and dropped (within
		 * --request-timeout), since closing on them would cut off
		 * the 413 they are owed. */
		if (r->route && r->body_too_large && http_header(r, "Expect"))
			return dispatch(r);
		return MHD_YES;
	}
	r->calls++;
	if (*upload_data_size) {
		req_take_body(r, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	guard_request_in(conn);   /* the whole request is in: no deadline */
	return dispatch(r);
}

/* Counts and logs a request that is over: its status (none when no
 * answer was queued), route, kind and time. */
static void req_account(struct app *app, struct req *r)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_HTTP_STATUS);
	unsigned status = ci ? ci->http_status : 0;
	unsigned route = r->route ? (unsigned)(r->route - routes) + 1 : 0;
	uint64_t took = now_us() - r->start_us;

	if (!status)
		return;
	metrics_request(route, route_kinds[route], status, took);
	if (r->err_code && !strcmp(r->err_code, "rate_limited"))
		metrics_rate_limited(route);
	if (r->route && r->route->write == &upload_write)
		metrics_upload(status == 201 ? "accepted" : status == 200 ? "duplicate"
			       : r->err_code ? r->err_code : "other");
	access_log_request(app->access_log, r, status, took);
}

void router_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *r = *con_cls;

	guard_request_done(conn);  /* the next request's deadline starts */
	if (!r)
		return;
	req_account(cls, r);
	if (r->job && r->job_free)
		r->job_free(r->job);
	buf_release(&r->body);
	if (r->ready)
		atomic_fetch_sub(&in_flight, 1);
	free(r->raw_uri);
	free(r);
	*con_cls = NULL;
}
