/* framing.h: refusing requests whose framing two HTTP parsers could read
 * differently, and request targets this server would misread.
 *
 * libmicrohttpd 0.9.75 (Debian 12) takes the first of two Content-Length
 * headers and runs the rest of the body as a second request, keeps a
 * connection with both Transfer-Encoding and Content-Length open, waits
 * for an unknown Transfer-Encoding's body until the timeout, decodes a
 * chunked body sent with HTTP/1.0 (which has no chunked coding: RFC 9112
 * section 6.1), and accepts HTTP/1.1 without a Host, with two Hosts, or
 * with a space before a header's colon.  Behind a proxy that reads the
 * same bytes another way, each is request smuggling.  The router calls
 * framing_check() on a request's first callback, before any body is read,
 * and answers a refusal at once with Connection: close.
 *
 * It also decodes "%00" in a path into a NUL that ends the path early
 * (/r/<id>%00.json routed as /r/<id>), leaves a broken escape as it was,
 * and never answers a request whose query arguments fill the connection's
 * memory pool (each takes a record there).  framing_check_target() reads
 * the target as sent, before any of that, from the URI callback.
 */
#ifndef LLMS_FRAMING_H
#define LLMS_FRAMING_H

#include <stddef.h>
#include <microhttpd.h>

#include "util/err.h"

/* Query arguments read from one request; more get 414. */
#define FRAMING_MAX_ARGS 128

/* What the headers say about framing, gathered one header at a time. */
struct framing_seen {
	unsigned hosts, lengths, encodings;
	const char *length;        /* the first Content-Length */
	const char *encoding;      /* the first Transfer-Encoding */
	int lengths_differ, bad_length, bad_name;
	size_t bytes;              /* the headers' size as sent, CRLFs included */
};

/* Notes one header (key and value NUL-terminated; NULL ones are skipped). */
void framing_note(struct framing_seen *s, const char *key, const char *value);

/* 0 when the headers noted in s, with a request line of line_bytes, frame
 * one unambiguous request of at most max_bytes (request line and headers);
 * otherwise -1 with *e filled (status 400, 431 or 501, a
 * snake_case code and a sentence naming what to fix).  version is the request's HTTP version. */
int framing_judge(const struct framing_seen *s, const char *version,
		  size_t line_bytes, size_t max_bytes, struct err *e);

/* framing_note() over every header of conn, then framing_judge(). */
int framing_check(struct MHD_Connection *conn, const char *version,
		  size_t line_bytes, size_t max_bytes, struct err *e);

/* Checks the request target as sent (NUL-terminated, not yet decoded):
 * 414 when it is longer than max_bytes or holds more than
 * FRAMING_MAX_ARGS query arguments, 400 when its path holds a broken
 * escape or one that decodes to NUL.  On a 414 the query is cut off in
 * place (target is libmicrohttpd's buffer, which parses the arguments
 * after this call), so that none is parsed.  0, or -1 with *e filled. */
int framing_check_target(char *target, size_t max_bytes, struct err *e);

/* The connection memory pool for requests of at most max_bytes (request
 * line and headers): those bytes, and room for the records of
 * FRAMING_MAX_ARGS query arguments beside them, so that the arguments
 * of a request within the limits always fit. */
size_t framing_pool_bytes(size_t max_bytes);

#endif
