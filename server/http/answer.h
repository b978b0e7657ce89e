/* answer.h: an answer as data, and the one place it is queued (http.c).
 *
 * A handler fills a struct answer and returns; answer_send() alone turns
 * it into a response.  An answer is one of:
 *
 *   a body:     answer_body(), answer_buf(), answer_json(): status, type,
 *               bytes and the headers of struct http_opts; kept in the
 *               response cache too when answer_keep() says under what;
 *   an error:   a->err, filled with err_set() (util/err.h): the one
 *               responder makes it the HTML error page on routes for
 *               people, the contract's JSON body elsewhere (a->err_json:
 *               always JSON);
 *   kept:       answer_kept(): a response built once and shared (the
 *               response cache's, a static file, a full log tile);
 *   built:      answer_built(): a response made for this request (a
 *               stream);
 *   later:      answer_later(): the request is suspended; r->resume fills
 *               the answer when it wakes.
 *
 * Out of memory is answered one way: a handler that returns -1 without
 * a->err set, an err_nomem(), a body whose buffer failed, all reach the
 * one prebuilt 503.
 *
 *   int handler(struct req *r, struct answer *a)
 *   {
 *           if (!found)
 *                   return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
 *           return answer_body(a, 200, CT_TEXT, "ok\n", 3, NULL);
 *   }
 */
#ifndef LLMS_ANSWER_H
#define LLMS_ANSWER_H

#include <stdint.h>

#include "http/cache.h"
#include "http/http.h"
#include "util/buf.h"
#include "util/err.h"

struct answer {
	unsigned status;              /* a body's status; 0: no body */
	const char *ctype;
	struct buf body;              /* the body, owned */
	const void *bytes;            /* or one borrowed for good (static storage) */
	size_t len;                   /* its length */
	struct http_opts o;           /* o.location points into loc */
	struct buf loc;
	struct err err;               /* status set: the answer is this error */
	int err_json;                 /* ... as the contract's JSON, whatever the route */
	struct http_kept *kept;       /* one reference, owned */
	struct MHD_Response *built;   /* owned */
	int later;                    /* suspended: r->resume answers */
	char etag[40];                /* status 304: the tag not modified */
	struct cache *keep;           /* keep the body in this cache as: */
	char keep_id[CACHE_ID_MAX + 1];
	enum cache_rep keep_rep;
	uint64_t keep_gen;            /* the cache's generation before the reads */
	struct cache_tags keep_tags;  /* the populations it shows */
	char keep_note[CACHE_NOTE_MAX]; /* kept with it as its note */
	struct cache *lead_cache;     /* the cache flight this request leads ... */
	unsigned lead;                /* ... (0: none): landed when a is released */
};

#define ANSWER_INIT { .body = BUF_INIT, .loc = BUF_INIT, .err = ERR_INIT }

/* A body of len bytes from body (copied), with the headers of o (NULL:
 * none; o->etag: a strong ETag and 304 for a 200; o->location is copied,
 * the other strings must be static).  0. */
int answer_body(struct answer *a, unsigned status, const char *ctype, const void *body,
		size_t len, const struct http_opts *o);
/* As answer_body, the body borrowed: it must outlive the request. */
int answer_static(struct answer *a, unsigned status, const char *ctype, const void *body,
		  size_t len, const struct http_opts *o);
/* As answer_body, the body taken from b (left empty); -1 when b failed
 * (out of memory: the answer is the 503). */
int answer_buf(struct answer *a, unsigned status, const char *ctype, struct buf *b,
	       const struct http_opts *o);
/* The JSON value v (not consumed) as the body; -1 out of memory. */
int answer_json(struct answer *a, unsigned status, const json_t *v, const struct http_opts *o);
/* The body is also kept in c as (id, rep), tagged with the populations it shows,
 * unless the cache moved since gen: answered as it is kept, with an ETag
 * (304 for a 200 whose tag If-None-Match names) and o->cache_control. */
void answer_keep(struct answer *a, struct cache *c, const char *id, enum cache_rep rep,
		 uint64_t gen, struct cache_tags tags);
/* The request leads flight lead of c (cache_fetch): its body is kept
 * as the flight's (cache_put_led), and the flight lands once a is sent or
 * released, kept or not. */
void answer_lead(struct answer *a, struct cache *c, unsigned lead);
/* The kept response k (its reference taken): 304 for a 200 with an ETag
 * that If-None-Match names.  0. */
int answer_kept(struct answer *a, struct http_kept *k);
/* The response resp made for this request (taken), as status.  0. */
int answer_built(struct answer *a, unsigned status, struct MHD_Response *resp);
/* 304 Not Modified for the tag etag, with cache_control.  0. */
int answer_not_modified(struct answer *a, const char *etag, const char *cache_control);
/* No answer yet: the request is suspended, and r->resume answers when it
 * is resumed.  0. */
int answer_later(struct answer *a);

/* Queues a for r (a is released): the one place a response is queued.
 * Returns the libmicrohttpd result. */
enum MHD_Result answer_send(struct req *r, struct answer *a);
/* Keeps a's body now as answer_keep() said, as answer_send() would (a
 * then answers with the kept response); nothing when it said nothing or
 * a is no body.  Either way the flight a leads lands.  For a build off
 * the request path. */
void answer_store(struct answer *a);
/* Frees what a holds without sending it. */
void answer_release(struct answer *a);

/* The one answer to running out of memory, whatever the route (an error
 * page would need memory to render): 503, the contract's JSON body with
 * code "unavailable" and MSG_NOMEM, Retry-After HTTP_RETRY_UNAVAILABLE,
 * no-store.  It queues a response built once, so it allocates nothing;
 * for a connection that has no request state yet (the router's first
 * call, when allocating it failed). */
enum MHD_Result answer_nomem_conn(struct MHD_Connection *conn);

/* Builds the out-of-memory answer ahead of need; main.c calls it at start
 * (it is built on first use otherwise).  0, or -1 when even that cannot
 * be built. */
int answer_init(void);

#endif
