/* framing.c: refusing ambiguous request framing on the first callback,
 * and request targets the router would misread (framing.h). */
#include "http/framing.h"

#include <string.h>
#include <strings.h>

/* What one query argument costs in libmicrohttpd's pool: its record
 * (struct MHD_HTTP_Header, 56 bytes on 64-bit, rounded to 64, and 16 more
 * when it is built with red zones), with room to spare. */
#define ARG_RECORD_BYTES 96

/* Pool bytes kept beside the arguments' records: alignment, and the step
 * by which the read buffer grows past a long request line. */
#define POOL_SLACK 1024

#define STR_(x) #x
#define STR(x) STR_(x)

static int all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

void framing_note(struct framing_seen *s, const char *key, const char *value)
{
	if (!key || !value)
		return;
	s->bytes += strlen(key) + strlen(value) + 4;     /* ": " and CRLF */
	if (strpbrk(key, " \t"))
		s->bad_name = 1;
	if (!strcasecmp(key, "Host"))
		s->hosts++;
	else if (!strcasecmp(key, "Transfer-Encoding")) {
		if (!s->encodings++)
			s->encoding = value;
	} else if (!strcasecmp(key, "Content-Length")) {
		if (!all_digits(value))
			s->bad_length = 1;
		if (!s->lengths++)
			s->length = value;
		else if (strcmp(s->length, value))
			s->lengths_differ = 1;
	}
}

/* Fills e with a refusal (no field) and returns -1. */
static int refuse(struct err *e, unsigned status, const char *code, const char *msg)
{
	return err_set(e, status, code, NULL, "%s", msg);
}

int framing_judge(const struct framing_seen *s, const char *version,
		  size_t line_bytes, size_t max_bytes, struct err *e)
{
	int v11 = version && !strcmp(version, MHD_HTTP_VERSION_1_1);

	if (line_bytes + s->bytes > max_bytes)
		return refuse(e, 431, "headers_too_large", "The request line and headers are larger than this server reads; send fewer or shorter headers.");
	if (s->bad_name)
		return refuse(e, 400, "bad_request", "A header name contains a space or tab (before its colon); send \"Name: value\".");
	if (s->lengths_differ || s->bad_length)
		return refuse(e, 400, "bad_request", "Content-Length must be one whole number, sent once.");
	if (s->encodings && !v11)
		return refuse(e, 400, "bad_request", "Transfer-Encoding needs HTTP/1.1; send an HTTP/1.0 body with Content-Length.");
	if (s->encodings > 1 || (s->encodings && strcasecmp(s->encoding, "chunked")))
		return refuse(e, 501, "not_implemented", "The only Transfer-Encoding this server reads is chunked.");
	if (s->encodings && s->lengths)
		return refuse(e, 400, "bad_request", "Send either Transfer-Encoding or Content-Length, not both.");
	if (s->hosts > 1)
		return refuse(e, 400, "bad_request", "Send one Host header, not several.");
	if (!s->hosts && v11)
		return refuse(e, 400, "bad_request", "An HTTP/1.1 request must carry a Host header.");
	return 0;
}

static enum MHD_Result note_one(void *cls, enum MHD_ValueKind kind,
				const char *key, const char *value)
{
	(void)kind;
	framing_note(cls, key, value);
	return MHD_YES;
}

int framing_check(struct MHD_Connection *conn, const char *version,
		  size_t line_bytes, size_t max_bytes, struct err *e)
{
	struct framing_seen s = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, note_one, &s);
	return framing_judge(&s, version, line_bytes, max_bytes, e);
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The records libmicrohttpd makes of query q: one per '&'-separated
 * piece, empty ones included, but none after a final '&'. */
static size_t count_args(const char *q)
{
	size_t n = 0, len = strlen(q);
	const char *p;

	if (!len)
		return 0;
	for (p = q; (p = strchr(p, '&')); p++)
		n++;
	return n + (q[len - 1] != '&');
}

int framing_check_target(char *target, size_t max_bytes, struct err *e)
{
	char *query = strchr(target, '?');
	size_t path_len = query ? (size_t)(query - target) : strlen(target), i;

	if (strlen(target) > max_bytes) {
		if (query)
			query[1] = '\0';
		return refuse(e, 414, "uri_too_long", "The address is longer than this server reads; shorten it.");
	}
	if (query && count_args(query + 1) > FRAMING_MAX_ARGS) {
		query[1] = '\0';
		return refuse(e, 414, "uri_too_long", "The address has more query arguments than this server reads (" STR(FRAMING_MAX_ARGS) "); send fewer.");
	}
	for (i = 0; i < path_len; i++) {
		if (target[i] != '%')
			continue;
		if (i + 2 >= path_len || !is_hex(target[i + 1]) || !is_hex(target[i + 2]))
			return refuse(e, 400, "bad_request", "The path holds a '%' that is not followed by two hex digits; write '%' itself as %25.");
		if (target[i + 1] == '0' && target[i + 2] == '0')
			return refuse(e, 400, "bad_request", "The path holds %00, which decodes to a NUL byte that no address contains.");
		i += 2;
	}
	return 0;
}

size_t framing_pool_bytes(size_t max_bytes)
{
	return max_bytes + FRAMING_MAX_ARGS * ARG_RECORD_BYTES + POOL_SLACK;
}
