/* http.c: a request's headers, query and origin, and a response's
 * headers: status codes, caching and security headers (answer.c queues). */
#include "http/http.h"

#include <arpa/inet.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "util/jsonw.h"
#include "util/nelem.h"
#include "util/nelem.h"

/* Content-Security-Policy for everything we serve: no script, styles
 * only from our own stylesheet, no framing.  A page (text/html) may also
 * run our own script files from static/ (the search box's type-ahead,
 * never inline) and let them read our own JSON; nothing else runs
 * script. */
#define CSP_BASE "default-src 'none'; style-src 'self'; img-src 'self' data:; " \
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
static const char csp[] = CSP_BASE;
static const char csp_page[] = CSP_BASE "; script-src 'self'; connect-src 'self'";

/* Adds the headers every response carries. */
static void add_common(struct MHD_Response *resp, const char *ctype)
{
	MHD_add_response_header(resp, "Content-Type", ctype);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "strict-origin-when-cross-origin");
	MHD_add_response_header(resp, "Content-Security-Policy",
				!strncmp(ctype, "text/html", 9) ? csp_page : csp);
}

void http_etag_of(const void *body, size_t len, char out[40])
{
	unsigned char h[16];

	crypto_generichash(h, sizeof h, body, len, NULL, 0);
	out[0] = '"';
	sodium_bin2hex(out + 1, 33, h, sizeof h);
	out[33] = '"';
	out[34] = '\0';
}

struct MHD_Response *http_build(const char *ctype, const void *body, size_t len,
				const char *cache_control, const char *etag)
{
	struct MHD_Response *resp;

	resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return NULL;
	add_common(resp, ctype);
	if (cache_control)
		MHD_add_response_header(resp, "Cache-Control", cache_control);
	if (etag)
		MHD_add_response_header(resp, "ETag", etag);
	return resp;
}

struct MHD_Response *http_build_stream(const char *ctype, MHD_ContentReaderCallback cb,
				       void *cls, MHD_ContentReaderFreeCallback fr,
				       size_t block, const char *cache_control,
				       int negotiated, int gzip)
{
	struct MHD_Response *resp;

	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block, cb, cls, fr);
	if (!resp)
		return NULL;
	add_common(resp, ctype);
	if (cache_control)
		MHD_add_response_header(resp, "Cache-Control", cache_control);
	if (negotiated)
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	if (gzip)
		MHD_add_response_header(resp, "Content-Encoding", "gzip");
	return resp;
}

const char *http_ctype_of_name(const char *name)
{
	static const struct { const char *ext, *ctype; } types[] = {
		{ ".css", CT_CSS }, { ".svg", CT_SVG }, { ".js", CT_JS },
		{ ".txt", CT_TEXT }, { ".ico", CT_ICON },
	};
	const char *dot = strrchr(name, '.');
	size_t i;

	for (i = 0; dot && i < NELEM(types); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].ctype;
	return CT_OCTETS;
}

struct http_kept *http_kept_build(unsigned status, const char *ctype, const void *body,
				  size_t len, const char *cache_control, const char *etag)
{
	struct http_kept *k = calloc(1, sizeof *k);

	if (!k || !(k->resp = http_build(ctype, body, len, cache_control, etag))) {
		free(k);
		return NULL;
	}
	k->status = status;
	k->bytes = len;
	snprintf(k->etag, sizeof k->etag, "%s", etag ? etag : "");
	snprintf(k->cc, sizeof k->cc, "%s", cache_control ? cache_control : "");
	atomic_init(&k->refs, 1);
	return k;
}

struct http_kept *http_kept_ref(struct http_kept *k)
{
	atomic_fetch_add(&k->refs, 1);
	return k;
}

void http_kept_unref(struct http_kept *k)
{
	if (!k || atomic_fetch_sub(&k->refs, 1) != 1)
		return;
	MHD_destroy_response(k->resp);
	free(k);
}

/* Compares one entity tag from If-None-Match with ours, ignoring a weak
 * prefix (RFC 9110 uses the weak comparison for If-None-Match). */
static int tag_eq(const char *t, size_t n, const char *etag)
{
	if (n >= 2 && t[0] == 'W' && t[1] == '/') {
		t += 2;
		n -= 2;
	}
	return n == strlen(etag) && memcmp(t, etag, n) == 0;
}

int http_etag_matches(struct req *r, const char *etag)
{
	const char *h = http_header(r, "If-None-Match");
	const char *p, *e;

	if (!h)
		return 0;
	for (p = h; *p; p = e) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		if (*p == '*')
			return 1;
		e = p;
		if (e[0] == 'W' && e[1] == '/')
			e += 2;
		if (*e == '"') {
			e = strchr(e + 1, '"');
			if (!e)
				return 0;
			e++;
		} else {
			while (*e && *e != ',')
				e++;
		}
		if (tag_eq(p, (size_t)(e - p), etag))
			return 1;
	}
	return 0;
}

const char *http_header(struct req *r, const char *name)
{
	return r->conn ? MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name) : NULL;
}

/* Keeps one query argument of the connection in r->query. */
static enum MHD_Result take_one(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct req *r = cls;

	(void)kind;
	if (r->nquery == (int)NELEM(r->query))
		return MHD_NO;     /* more than framing lets through: not reached */
	r->query[r->nquery++] = (struct http_pair){ key, value };
	return MHD_YES;
}

void http_take_query(struct req *r)
{
	r->nquery = 0;
	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, take_one, r);
}

/* 1 when a and b are the same but for the case of ASCII letters. */
static int ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && ((*a | 0x20) != (*b | 0x20) || (*a | 0x20) < 'a' || (*a | 0x20) > 'z'))
			return 0;
	return *a == *b;
}

const char *http_query(struct req *r, const char *name)
{
	int i;

	for (i = 0; i < r->nquery; i++)
		if (r->query[i].key && ascii_caseeq(r->query[i].key, name))
			return r->query[i].value;
	return NULL;
}

void http_query_each(struct req *r, void (*fn)(void *ctx, const char *key, const char *value),
		     void *ctx)
{
	int i;

	for (i = 0; i < r->nquery; i++)
		fn(ctx, r->query[i].key, r->query[i].value);
}

void http_origin(struct req *r, char *out, size_t n)
{
	const struct config *c = &r->app->cfg;

	/* Never from the Host header: cached pages would carry whatever
	 * origin the first client claimed. */
	if (c->base_url) {
		size_t len = strlen(c->base_url);

		/* "https://host/" is the origin "https://host": links append
		 * "/r/<id>" and must not get a double slash. */
		while (len && c->base_url[len - 1] == '/')
			len--;
		snprintf(out, n, "%.*s", (int)len, c->base_url);
	} else if (!strncmp(c->listen, "0.0.0.0:", 8))
		snprintf(out, n, "http://localhost:%s", c->listen + 8);
	else
		snprintf(out, n, "http://%s", c->listen);
}

int http_ctype_is(struct req *r, const char *want)
{
	const char *ct = http_header(r, "Content-Type");
	size_t n = strlen(want);

	if (!ct)
		return 0;
	while (*ct == ' ')
		ct++;
	if (strncasecmp(ct, want, n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return *ct == '\0' || *ct == ';';
}

void http_client_key(struct req *r, char *out, size_t n)
{
	unsigned char a[sizeof(struct in6_addr)];
	char text[INET6_ADDRSTRLEN];

	if (inet_pton(AF_INET6, r->client, a) != 1) {
		snprintf(out, n, "addr:%s", r->client);
		return;
	}
	memset(a + 8, 0, 8);
	inet_ntop(AF_INET6, a, text, sizeof text);
	snprintf(out, n, "net:%s/64", text);
}
