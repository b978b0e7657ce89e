/* framing.h: refusing requests whose framing two HTTP parsers could read
 * differently.
 *
 * libmicrohttpd 0.9.75 (Debian 12) takes the first of two Content-Length
 * headers and runs the rest of the body as a second request, keeps a
 * connection with both Transfer-Encoding and Content-Length open, waits
 * for an unknown Transfer-Encoding's body until the timeout, and accepts
 * HTTP/1.1 without a Host, with two Hosts, or with a space before a
 * header's colon.  Behind a proxy that reads the same bytes another way,
 * each is request smuggling.  The router calls framing_check() on a
 * request's first callback, before any body is read, and answers a refusal
 * at once with Connection: close.
 */
#ifndef LLMS_FRAMING_H
#define LLMS_FRAMING_H

#include <microhttpd.h>

struct framing_error {
	unsigned status;       /* 400 or 501 */
	const char *code;      /* snake_case error code */
	const char *message;   /* one sentence naming what to fix */
};

/* 0 when the request line and headers of conn frame one unambiguous
 * request; otherwise -1 with *e filled. */
int framing_check(struct MHD_Connection *conn, const char *version,
		  struct framing_error *e);

#endif
