/* http.c: responses, status codes, caching and security headers. */
#include "http/http.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "util/jsonw.h"

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

	for (i = 0; dot && i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].ctype;
	return CT_OCTETS;
}

enum MHD_Result http_send_prebuilt(struct req *r, unsigned status,
				   struct MHD_Response *resp, size_t bytes)
{
	r->sent_bytes = bytes;
	return MHD_queue_response(r->conn, status, resp);
}

/* The one out-of-memory answer, built once (http_init) so that queueing
 * it allocates no response of its own. */
#define NOMEM_BODY "{\"error\":{\"code\":\"unavailable\",\"message\":\"" MSG_NOMEM "\"}}"
#define STR_(x) #x
#define STR(x) STR_(x)
static struct MHD_Response *nomem_resp;
static pthread_once_t nomem_once = PTHREAD_ONCE_INIT;

static void nomem_build(void)
{
	nomem_resp = http_build(CT_JSON, NOMEM_BODY, sizeof NOMEM_BODY - 1, CC_NONE, NULL);
	if (nomem_resp)
		MHD_add_response_header(nomem_resp, "Retry-After", STR(HTTP_RETRY_UNAVAILABLE));
}

int http_init(void)
{
	pthread_once(&nomem_once, nomem_build);
	return nomem_resp ? 0 : -1;
}

enum MHD_Result http_send_nomem_conn(struct MHD_Connection *conn)
{
	if (http_init() < 0)
		return MHD_NO;
	return MHD_queue_response(conn, 503, nomem_resp);
}

enum MHD_Result http_send_nomem(struct req *r)
{
	r->err_code = "unavailable";
	r->sent_bytes = sizeof NOMEM_BODY - 1;
	return http_send_nomem_conn(r->conn);
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

enum MHD_Result http_not_modified(struct req *r, const char *etag,
				  const char *cache_control)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return http_send_nomem(r);
	MHD_add_response_header(resp, "ETag", etag);
	if (cache_control)
		MHD_add_response_header(resp, "Cache-Control", cache_control);
	ret = MHD_queue_response(r->conn, MHD_HTTP_NOT_MODIFIED, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* The headers an error status carries, unless o already names them:
 * Allow for 405, Retry-After for 429 and 503. */
static void error_opts(struct req *r, unsigned status, struct http_opts *o)
{
	if (status == 405 && !o->allow)
		o->allow = r->allow;
	if ((status == 429 || status == 503) && !o->retry_after)
		o->retry_after = r->retry_after ? r->retry_after
					: (status == 429 ? 60 : HTTP_RETRY_UNAVAILABLE);
}

enum MHD_Result http_send(struct req *r, unsigned status, const char *ctype,
			  const void *body, size_t len, const struct http_opts *o)
{
	struct http_opts all = { 0 };
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char etag[40], num[24];
	const char *cc;

	if (o)
		all = *o;
	error_opts(r, status, &all);
	o = &all;
	cc = o->cache_control ? o->cache_control : CC_NONE;
	if (o->etag && status == 200) {
		http_etag_of(body, len, etag);
		if (http_etag_matches(r, etag))
			return http_not_modified(r, etag, cc);
	}
	resp = http_build(ctype, body, len, cc, o->etag && status == 200 ? etag : NULL);
	if (!resp)
		return http_send_nomem(r);
	if (o->location)
		MHD_add_response_header(resp, "Location", o->location);
	if (o->allow)
		MHD_add_response_header(resp, "Allow", o->allow);
	if (o->retry_after) {
		snprintf(num, sizeof num, "%u", o->retry_after);
		MHD_add_response_header(resp, "Retry-After", num);
	}
	if (r->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(r->conn, status, resp);
	MHD_destroy_response(resp);
	r->sent_bytes = len;
	return ret;
}

enum MHD_Result http_send_json(struct req *r, unsigned status, const json_t *v,
			       const struct http_opts *o)
{
	enum MHD_Result ret;
	char *s;

	s = jsonw_dumps(v, JSONW_ASCII);
	if (!s)
		return http_send_nomem(r);
	ret = http_send(r, status, CT_JSON, s, strlen(s), o);
	free(s);
	return ret;
}

/* A message from a parser starts lower-case; a sentence does not, unless
 * it starts with the field's exact name.  Returns the message to send
 * (m when it was capitalised into it). */
static const char *sentence(const struct err *e, char *m, size_t n)
{
	const char *s = e->message;

	if (!(s[0] >= 'a' && s[0] <= 'z') ||
	    (e->field[0] && !strncmp(s, e->field, strlen(e->field))))
		return s;
	snprintf(m, n, "%s", s);
	m[0] = (char)(m[0] - 'a' + 'A');
	return m;
}

enum MHD_Result http_reply_err_json(struct req *r, const struct err *e)
{
	char m[sizeof e->message];
	enum MHD_Result ret;
	json_t *body;

	if (err_is_nomem(e))
		return http_send_nomem(r);
	r->err_code = err_code(e);
	body = json_pack("{s:{s:s, s:s}}", "error", "code", err_code(e),
			 "message", sentence(e, m, sizeof m));
	if (body && e->field[0])
		json_object_set_new(json_object_get(body, "error"), "field",
				    json_string(e->field));
	if (!body)
		return http_send_nomem(r);
	ret = http_send_json(r, e->status, body, NULL);
	json_decref(body);
	return ret;
}

enum MHD_Result http_reply_err(struct req *r, const struct err *e)
{
	if (err_is_nomem(e))
		return http_send_nomem(r);
	r->err_code = err_code(e);
	if (r->html && r->error_page)
		return r->error_page(r, e);
	return http_reply_err_json(r, e);
}

enum MHD_Result http_fail(struct req *r, unsigned status, const char *code,
			  const char *message, const char *field)
{
	struct err e;

	err_set(&e, status, code, field, "%s", message);
	return http_reply_err(r, &e);
}

const char *http_header(struct req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *http_header_n(struct req *r, const char *name, size_t *len)
{
	const char *v = NULL;

	*len = 0;
	if (MHD_lookup_connection_value_n(r->conn, MHD_HEADER_KIND, name, strlen(name), &v, len) != MHD_YES)
		return NULL;
	return v;
}

const char *http_query(struct req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct query_each {
	void (*fn)(void *ctx, const char *key, const char *value);
	void *ctx;
};

static enum MHD_Result query_one(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct query_each *q = cls;

	(void)kind;
	q->fn(q->ctx, key, value);
	return MHD_YES;
}

void http_query_each(struct req *r, void (*fn)(void *ctx, const char *key, const char *value),
		     void *ctx)
{
	struct query_each q = { fn, ctx };

	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, query_one, &q);
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
