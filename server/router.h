/* router.h: the route table and the one place requests are dispatched. */
#ifndef LLMS_ROUTER_H
#define LLMS_ROUTER_H

#include <stddef.h>
#include <stdio.h>

#include "http/http.h"

enum route_flags {
	ROUTE_HTML = 1,   /* a page for people: errors render as HTML */
	ROUTE_BODY = 2,   /* reads a request body of at most max_body bytes */
};

struct answer;
/* A route's handler: fills a with the answer to r (http/answer.h) and
 * returns 0, or -1 with a->err set (-1 without it: out of memory). */
typedef int (*route_fn)(struct req *r, struct answer *a);

/* One row of the route table (a page kind's rows are made from the
 * table in pages/kinds.c; format and kind say which form of which kind).  The pattern is a literal path in which one
 * '*' matches a single non-empty path segment (no '/'), captured in r->arg;
 * a pattern ending in "**" matches any non-empty rest, slashes included.
 * With several stars (the pattern of /m/<model>/hw/<hw>), each takes one
 * segment and none is captured: r->arg is empty, the handler reads r->path. */
struct route {
	enum http_method method;   /* HTTP_GET also answers HEAD */
	const char *pattern;
	route_fn handler;
	unsigned flags;
	size_t max_body;
	enum http_format format;   /* HTTP_FMT_NONE: no page kind's row */
	int kind;                  /* enum page_kind, when format is set */
	const struct defer_row *write; /* a write's row, run by defer_serve
	                           * (the handler), or NULL */
};

/* Makes the page kinds' rows from pages/kinds.c's table (once; the lookups
 * below do it too) and checks that the table holds together and that every
 * row is reachable.  0, or -1 with e naming what is wrong: the daemon must
 * not start. */
int router_init(struct err *e);

/* Writes every row as "GET /pattern" or "POST /pattern", one a line, in
 * the order they are checked (`llm-speedd routes`). */
void router_print(FILE *f);

/* Finds the route for method and path; on a match copies the captured
 * segment into arg.  NULL when nothing matches. */
const struct route *router_match(enum http_method m, const char *path,
				 char *arg, size_t argn);

/* The Allow header value for a path some route serves with another method,
 * or NULL when no route serves the path at all. */
const char *router_allow(const char *path);

/* 1 when pattern matches path, capturing '*' into arg (exported for tests). */
int router_pattern_match(const char *pattern, const char *path, char *arg, size_t argn);

/* A path that pattern matches, its '*' as "x": pattern itself when it
 * has none, else written to out (for the start-up check and tests). */
const char *router_sample_path(const char *pattern, char *out, size_t n);

/* libmicrohttpd callbacks (cls is the struct app): the URI callback,
 * which creates the request state and checks the target as sent
 * (framing_check_target), the access handler, and the request-completed
 * notifier that frees the request. */
void *router_uri(void *cls, const char *uri, struct MHD_Connection *conn);
enum MHD_Result router_access(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls);
void router_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe);

/* Requests started and not yet completed, for a graceful stop. */
unsigned router_in_flight(void);

/* The MHD_OPTION_URI_LOG_CALLBACK (cls is the struct app): creates the
 * request's state when its request line is in, so the access log and the
 * metrics time it from there and see requests libmicrohttpd refuses
 * itself.  NULL when out of memory. */
void *router_uri(void *cls, const char *uri, struct MHD_Connection *conn);

/* Hands the route patterns and kinds to util/metrics.c as label values;
 * call once before serving. */
void router_metrics_init(void);

#endif
