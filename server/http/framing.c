/* framing.c: refusing ambiguous request framing on the first callback (framing.h). */
#include "http/framing.h"

#include <string.h>
#include <strings.h>

/* What the headers say about framing, gathered in one pass. */
struct seen {
	unsigned hosts, lengths, encodings;
	const char *length;        /* the first Content-Length */
	const char *encoding;      /* the first Transfer-Encoding */
	int lengths_differ, bad_length, bad_name;
};

static int all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static enum MHD_Result note(void *cls, enum MHD_ValueKind kind,
			    const char *key, const char *value)
{
	struct seen *s = cls;

	(void)kind;
	if (!key || !value)
		return MHD_YES;
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
	return MHD_YES;
}

static int fail(struct framing_error *e, unsigned status, const char *code, const char *msg)
{
	e->status = status;
	e->code = code;
	e->message = msg;
	return -1;
}

int framing_check(struct MHD_Connection *conn, const char *version,
		  struct framing_error *e)
{
	struct seen s = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, note, &s);
	if (s.bad_name)
		return fail(e, 400, "bad_request", "A header name contains a space or tab (before its colon); send \"Name: value\".");
	if (s.lengths_differ || s.bad_length)
		return fail(e, 400, "bad_request", "Content-Length must be one whole number, sent once.");
	if (s.encodings > 1 || (s.encodings && strcasecmp(s.encoding, "chunked")))
		return fail(e, 501, "not_implemented", "The only Transfer-Encoding this server reads is chunked.");
	if (s.encodings && s.lengths)
		return fail(e, 400, "bad_request", "Send either Transfer-Encoding or Content-Length, not both.");
	if (s.hosts > 1)
		return fail(e, 400, "bad_request", "Send one Host header, not several.");
	if (!s.hosts && version && !strcmp(version, MHD_HTTP_VERSION_1_1))
		return fail(e, 400, "bad_request", "An HTTP/1.1 request must carry a Host header.");
	return 0;
}
