/* http.h: one request as the handlers see it, and the parts of a response:
 * status codes, content types, caching and security headers are set here
 * and nowhere else.  Handlers answer with data (http/answer.h), which
 * answer_send() alone queues. */
#ifndef LLMS_HTTP_H
#define LLMS_HTTP_H

#include <microhttpd.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "http/framing.h"
#include "util/buf.h"
#include "util/err.h"

struct answer;
struct app;
struct defer_row;
struct route;
struct req;

/* Renders an error page for people (the site's look, one sentence) into
 * the answer a; given to the HTTP layer as data by whoever knows the pages
 * (the router). */
typedef void (*http_error_page_fn)(struct req *r, const struct err *e, struct answer *a);

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_OTHER };

/* The form a page kind's route answers in (the route row says which, the
 * handler never parses the path's suffix): the page, its .json or its .csv
 * twin.  HTTP_FMT_NONE: a route that is no page kind's. */
enum http_format { HTTP_FMT_NONE, HTTP_FMT_HTML, HTTP_FMT_JSON, HTTP_FMT_CSV };

/* A query argument as sent, decoded; value NULL for a key without "=". */
struct http_pair {
	const char *key, *value;
};

/* Per-request state, created on the first access-handler call and freed when
 * libmicrohttpd reports the request complete.  Handlers own nothing in it. */
struct req {
	struct MHD_Connection *conn;
	struct app *app;
	const struct route *route;    /* NULL: no route matched; read by the
	                               * router only */
	int html;                     /* 1: a page for people (from the route
	                               * row): errors answer as HTML pages */
	http_error_page_fn error_page;/* renders errors when html; NULL: JSON */
	enum http_format format;      /* the route row's form of a page kind */
	int kind;                     /* the route row's page kind (enum page_kind,
	                               * pages/kinds.h); -1 for other routes */
	const char *allow;            /* the Allow header of a 405 */
	enum http_method method;
	const char *path;             /* owned by libmicrohttpd */
	char arg[160];                /* the path segment the route's '*' matched */
	struct http_pair query[FRAMING_MAX_ARGS]; /* the query's arguments in the
	                               * order sent (http_take_query; a unit
	                               * test's own): all a request may hold */
	int nquery;
	struct buf body;              /* request body, at most route->max_body */
	int body_too_large;
	int calls;                    /* access-handler calls so far */
	void *job;                    /* a pending database write, see db.h */
	void (*job_free)(void *job);  /* frees job when the request ends */
	/* Set by a handler that suspended the request: answers it when it is
	 * resumed, instead of the route's handler (http/defer.h). */
	int (*resume)(struct req *r, struct answer *a);
	const struct defer_row *write;/* the route row's write (defer_serve runs it) */
	unsigned retry_after;         /* for a 429 or 503: seconds to wait */
	char client[64];              /* client address: memory only, and the
	                               * access log when one is kept */
	int close;                    /* 1: answer with Connection: close */
	size_t target_bytes;          /* the request target's length as sent */
	struct err target;            /* status 0, or why the target is refused */
	/* For the access log and the metrics, once the request is done: */
	int ready;                    /* the router's first call has set it up */
	uint64_t start_us;            /* CLOCK_MONOTONIC at the request line */
	struct timespec received;     /* wall clock at the request line */
	char *raw_uri;                /* the target as sent, with --access-log; owned */
	char verb[16];                /* the method as sent ("GET") */
	char version[12];             /* "HTTP/1.1" */
	const char *err_code;         /* the error code answered; NULL: none */
	size_t sent_bytes;            /* body bytes queued; 0: none or unknown */
};

/* Response options; zeroed means "no such header". */
struct http_opts {
	const char *cache_control;    /* default: "no-store" for errors, see http.c */
	const char *location;
	const char *allow;
	unsigned retry_after;
	int etag;                     /* 1: compute a strong ETag from the body and
	                               * answer If-None-Match with 304 */
};

#define HTTP_STR_(x) #x
#define HTTP_STR(x) HTTP_STR_(x)

/* Cache-Control values used across the site: every policy is one of these. */
#define CC_PAGE   "public, max-age=60, stale-while-revalidate=300"
#define CC_STATIC "public, max-age=86400"
/* A found run's badge and card for CC_BADGE_TTL seconds; a "run not
 * found" badge only briefly, so that a proxy does not keep an error for
 * hours (the badge JSON's cacheSeconds says the same). */
#define CC_BADGE_TTL 14400
#define CC_BADGE  "public, max-age=" HTTP_STR(CC_BADGE_TTL) ", stale-while-revalidate=86400"
#define CC_BADGE_MISSING_TTL 300
#define CC_BADGE_MISSING "public, max-age=" HTTP_STR(CC_BADGE_MISSING_TTL)
/* What never changes once served: a full log tile, a run's signed bytes. */
#define CC_IMMUTABLE "public, max-age=31536000, immutable"
/* What is superseded within seconds: the log's checkpoint, a partial tile. */
#define CC_LOG_SHORT "public, max-age=5"
#define CC_NONE   "no-store"

/* Content types: every answer's is one of these. */
#define CT_HTML MT_HTML "; charset=utf-8"
#define MT_HTML "text/html"   /* the media type alone, for a link's type */
#define CT_JSON "application/json"
#define CT_JOSE "application/jose"
#define CT_SVG  "image/svg+xml"
#define CT_PNG  "image/png"
#define CT_ICON "image/x-icon"
#define CT_CSS  "text/css; charset=utf-8"
#define CT_JS   "text/javascript; charset=utf-8"
#define CT_TEXT "text/plain; charset=utf-8"
#define CT_ATOM "application/atom+xml"
#define CT_XML  "application/xml"
#define CT_NDJSON "application/x-ndjson"
#define CT_OCTETS "application/octet-stream"
/* Prometheus's text exposition format, version 0.0.4. */
#define CT_METRICS "text/plain; version=0.0.4; charset=utf-8"
/* CSV (RFC 4180 with RFC 7111's header parameter: the first record names
 * the columns); MT_CSV is the media type alone, for a link's type. */
#define MT_CSV  "text/csv"
#define CT_CSV  MT_CSV "; charset=utf-8; header=present"

/* The content type of a static file by its name's extension (.css, .svg,
 * .js, .txt, .ico), else CT_OCTETS. */
const char *http_ctype_of_name(const char *name);

/* Seconds a 503 asks the client to wait when the handler named none. */
#define HTTP_RETRY_UNAVAILABLE 5

/* Builds a response with the standard headers, for caching and reuse. */
struct MHD_Response *http_build(const char *ctype, const void *body, size_t len,
				const char *cache_control, const char *etag);

/* Builds a streamed response of unknown length (chunked) whose body comes
 * from cb, with the standard headers; fr frees cls when it is done.  With
 * negotiated set the body depends on Accept-Encoding (Vary), and with gzip
 * set it is gzip-encoded (Content-Encoding). */
struct MHD_Response *http_build_stream(const char *ctype, MHD_ContentReaderCallback cb,
				       void *cls, MHD_ContentReaderFreeCallback fr,
				       size_t block, const char *cache_control,
				       int negotiated, int gzip);

/* A built response kept to be queued again (the response cache's, a
 * static file, a full log tile), shared by reference: whoever keeps it
 * holds one, and an answer that queues it (answer_kept) another, so a
 * response dropped while it is being queued lives until it is queued. */
#define CACHE_NOTE_MAX 160
struct http_kept {
	struct MHD_Response *resp;    /* as built; NULL when only gz is held */
	struct MHD_Response *gz;      /* gzip-encoded, or NULL (see below) */
	unsigned status;
	const char *ctype;            /* a CT_ constant, for a copy of resp */
	const void *body;             /* resp's body (NULL without resp): read
	                               * it with http_kept_body */
	const void *gzbody;           /* gz's body, read-only, alive while k is */
	size_t gzbytes;               /* ... and its length */
	size_t plain;                 /* the body's length as built */
	size_t bytes;                 /* what k holds: its bodies' lengths together */
	char etag[40];                /* "" when it has none */
	char cc[80];                  /* its Cache-Control, for a 304 */
	char note[CACHE_NOTE_MAX];    /* what its keeper does on each serving of
	                               * it ("": nothing; pages/page.c: an ask) */
	atomic_int refs;
};

/* Builds a kept response (http_build's headers) with one reference, its
 * body copied once into a buffer the response owns; NULL out of memory.
 * A text body (HTML, JSON, XML, SVG, CSS, script, plain) of at least
 * KEPT_GZ_MIN bytes (not a badge: a second response of its own would
 * cost more memory than gzip saves it) is also kept gzip-encoded, for the clients whose
 * Accept-Encoding takes it (both copies then say Vary: Accept-Encoding,
 * and the gzip one's ETag is the body's with "-gz" before its closing
 * quote); from KEPT_GZ_ONLY bytes on only that copy is held, and a
 * client that does not take gzip is answered with it decoded, so a
 * large page costs the cache a tenth of its size or so. */
#define KEPT_GZ_MIN 4096
#define KEPT_GZ_ONLY 32768
struct http_kept *http_kept_build(unsigned status, const char *ctype, const void *body,
				  size_t len, const char *cache_control, const char *etag);
/* Appends k's body as built (decoded when k holds only its gzip copy)
 * to out; 0, or -1 (out's error set) out of memory. */
int http_kept_body(const struct http_kept *k, struct buf *out);
/* Takes another reference to k; returns k. */
struct http_kept *http_kept_ref(struct http_kept *k);
/* Drops a reference (NULL: nothing); the last frees the response. */
void http_kept_unref(struct http_kept *k);

/* 1 when the request's If-None-Match matches etag (a quoted strong tag). */
int http_etag_matches(struct req *r, const char *etag);
/* Writes a strong ETag ("\"" + 32 hex + "\"") for body into out[40]. */
void http_etag_of(const void *body, size_t len, char out[40]);

/* Request header, or NULL (always for a request without a connection: a
 * unit test's). */
const char *http_header(struct req *r, const char *name);
/* Request header with its length in *len, NUL bytes in it included (a
 * C string of it would stop at the first); NULL and 0 when absent. */
const char *http_header_n(struct req *r, const char *name, size_t *len);
/* Copies the pointers to the request's query arguments (libmicrohttpd's,
 * which live as long as the request) into r->query, in the order sent;
 * the router's first call does it once.  The rest of the request reads
 * its query from there, so a request made in a test reads the same way. */
void http_take_query(struct req *r);
/* The first query-string argument named name (ASCII case ignored, as
 * libmicrohttpd compares them), or NULL. */
const char *http_query(struct req *r, const char *name);
/* Calls fn(ctx, key, value) for every query-string argument, decoded, in
 * the order sent (a key sent twice is passed twice; value is NULL for a
 * key without "="). */
void http_query_each(struct req *r, void (*fn)(void *ctx, const char *key, const char *value),
		     void *ctx);

/* A copy of r that outlives it, for a build off the request path: its
 * route, kind, form, path, '*' argument and query (copied), no
 * connection (no headers), no client (nobody's visit), no body.  NULL
 * out of memory; freed with http_req_copy_free. */
struct req *http_req_copy(const struct req *r);
void http_req_copy_free(struct req *r);

/* The public origin ("https://host") for absolute links: --base-url, else
 * the listen address; never the Host header.  Written to out. */
void http_origin(struct req *r, char *out, size_t n);

/* 1 when the Content-Type header's media type equals want (parameters and
 * case ignored). */
int http_ctype_is(struct req *r, const char *want);

/* The key a per-client rate limit counts under: "addr:<IPv4 address>",
 * or for IPv6 "net:<the /64 prefix>", since one host is given a whole /64
 * and could otherwise take a new allowance with every address in it.
 * Written to out. */
void http_client_key(struct req *r, char *out, size_t n);

#endif
