/* http.c: responses, status codes, caching and security headers, all in
 * one place: a request's headers, query and origin, a response's headers,
 * and the one place an answer is queued (answer.h): bodies, the error
 * responder, kept and built responses, the one out-of-memory answer. */
#include "http/http.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "http/answer.h"
#include "http/gzip.h"
#include "util/jsonw.h"
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

/* Adds to resp (NULL: nothing) the headers of http_build; returns resp. */
static struct MHD_Response *dress(struct MHD_Response *resp, const char *ctype,
				  const char *cache_control, const char *etag)
{
	if (!resp)
		return NULL;
	add_common(resp, ctype);
	if (cache_control)
		MHD_add_response_header(resp, "Cache-Control", cache_control);
	if (etag)
		MHD_add_response_header(resp, "ETag", etag);
	return resp;
}

struct MHD_Response *http_build(const char *ctype, const void *body, size_t len,
				const char *cache_control, const char *etag)
{
	return dress(MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY),
		     ctype, cache_control, etag);
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

/* 1 when a body of ctype is text, which gzip shrinks. */
static int compressible(const char *ctype)
{
	static const char *const text[] = { "text/", CT_JSON, CT_XML, CT_SVG, CT_ATOM };
	size_t i;

	for (i = 0; i < NELEM(text); i++)
		if (!strncmp(ctype, text[i], strlen(text[i])))
			return 1;
	return 0;
}

/* A response of the n bytes at body, handed over (libmicrohttpd frees
 * them with the response, which may outlive its kept response while it
 * is sent), with http_build's headers and, when negotiated, Vary; NULL
 * out of memory (body freed). */
static struct MHD_Response *owned(void *body, size_t n, const char *ctype, const char *cc,
				  const char *etag, int negotiated)
{
	struct MHD_Response *resp =
		dress(MHD_create_response_from_buffer_with_free_callback(n, body, free), ctype, cc, etag);

	if (!resp)
		free(body);
	else if (negotiated)
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	return resp;
}

/* etag (a quoted tag) with "-gz" before its closing quote, into out[40]. */
static void gz_etag(const char *etag, char out[40])
{
	size_t n = strlen(etag);

	if (n >= 2 && n + 3 < 40)
		snprintf(out, 40, "%.*s-gz\"", (int)(n - 1), etag);
	else
		snprintf(out, 40, "%s", etag);
}

/* Keeps body gzip-encoded in k (k->gz); 0, or -1 out of memory. */
static int keep_gzip(struct http_kept *k, const void *body, size_t len, const char *cc,
		     const char *etag)
{
	struct buf z = BUF_INIT;
	char tag[40];
	size_t n;
	void *gz;

	if (gz_compress(body, len, len >= KEPT_GZ_ONLY ? 4 : 6, &z) < 0) {
		buf_release(&z);
		return -1;
	}
	if (etag)
		gz_etag(etag, tag);
	/* A copy of its own size: the buffer was made for the worst case,
	 * about the body's, and would hold that much for as long as k. */
	n = z.len;
	gz = malloc(n ? n : 1);
	if (gz)
		memcpy(gz, z.buf, n);
	buf_release(&z);
	if (!gz || !(k->gz = owned(gz, n, k->ctype, cc, etag ? tag : NULL, 1)))
		return -1;
	MHD_add_response_header(k->gz, "Content-Encoding", "gzip");
	k->gzbody = gz;
	k->gzbytes = n;
	return 0;
}

struct http_kept *http_kept_build(unsigned status, const char *ctype, const void *body,
				  size_t len, const char *cache_control, const char *etag)
{
	struct http_kept *k = calloc(1, sizeof *k);
	int zip = len >= KEPT_GZ_MIN && compressible(ctype);
	char *copy;

	if (!k)
		return NULL;
	k->ctype = ctype;
	if (zip && keep_gzip(k, body, len, cache_control, etag) < 0)
		goto fail;
	if (!zip || len < KEPT_GZ_ONLY) {
		if (!(copy = malloc(len ? len : 1)))
			goto fail;
		if (len)
			memcpy(copy, body, len);
		if (!(k->resp = owned(copy, len, ctype, cache_control, etag, zip)))
			goto fail;
		k->body = copy;
	}
	k->status = status;
	k->plain = len;
	k->bytes = (k->resp ? len : 0) + k->gzbytes;
	snprintf(k->etag, sizeof k->etag, "%s", etag ? etag : "");
	snprintf(k->cc, sizeof k->cc, "%s", cache_control ? cache_control : "");
	atomic_init(&k->refs, 1);
	return k;
fail:
	if (k->gz)
		MHD_destroy_response(k->gz);
	free(k);
	return NULL;
}

int http_kept_body(const struct http_kept *k, struct buf *out)
{
	if (k->body) {
		buf_add(out, k->body, k->plain);
		return buf_error(out);
	}
	buf_grow(out, k->plain);
	if (buf_error(out))
		return -1;
	if (gz_expand(k->gzbody, k->gzbytes, out->buf + out->len, k->plain) < 0) {
		out->err = 1;
		return -1;
	}
	out->len += k->plain;
	out->buf[out->len] = '\0';
	return 0;
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
	if (k->resp)
		MHD_destroy_response(k->resp);
	if (k->gz)
		MHD_destroy_response(k->gz);
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

/* The strings a copy of a request owns, after it in one allocation. */
struct req_copy {
	struct req r;
	char strings[];
};

/* Appends the string v (NULL: none) to the copy's strings at *at;
 * returns where it went. */
static const char *copy_str(char **at, const char *v)
{
	char *p = *at;
	size_t n;

	if (!v)
		return NULL;
	n = strlen(v) + 1;
	memcpy(p, v, n);
	*at += n;
	return p;
}

struct req *http_req_copy(const struct req *r)
{
	size_t n = strlen(r->path ? r->path : "/") + 1;
	struct req_copy *c;
	char *at;
	int i;

	for (i = 0; i < r->nquery; i++)
		n += (r->query[i].key ? strlen(r->query[i].key) + 1 : 0) +
		     (r->query[i].value ? strlen(r->query[i].value) + 1 : 0);
	if (!(c = calloc(1, sizeof *c + n)))
		return NULL;
	at = c->strings;
	c->r.app = r->app;
	c->r.route = r->route;
	c->r.html = r->html;
	c->r.error_page = r->error_page;
	c->r.format = r->format;
	c->r.kind = r->kind;
	c->r.method = r->method;
	memcpy(c->r.arg, r->arg, sizeof c->r.arg);
	c->r.path = copy_str(&at, r->path ? r->path : "/");
	for (i = 0; i < r->nquery; i++)
		c->r.query[i] = (struct http_pair){ copy_str(&at, r->query[i].key),
						    copy_str(&at, r->query[i].value) };
	c->r.nquery = r->nquery;
	c->r.body = (struct buf)BUF_INIT;
	c->r.target = (struct err)ERR_INIT;
	return &c->r;
}

void http_req_copy_free(struct req *r)
{
	free(r);   /* the struct req_copy: r is its first member */
}

/* 1 when a and b are the same but for the case of ASCII letters. */
static int ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && ((*a | 0x20) != (*b | 0x20) || (*a | 0x20) < 'a' || (*a | 0x20) > 'z'))
			return 0;
	return *a == *b;
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

/* ---- filling an answer ---- */

int answer_static(struct answer *a, unsigned status, const char *ctype, const void *body,
		  size_t len, const struct http_opts *o)
{
	a->status = status;
	a->ctype = ctype;
	a->bytes = body;
	a->len = len;
	if (!o)
		return 0;
	a->o = *o;
	if (o->location) {
		buf_reset(&a->loc);
		buf_puts(&a->loc, o->location);
		a->o.location = a->loc.buf;
	}
	return buf_error(&a->loc);
}

int answer_body(struct answer *a, unsigned status, const char *ctype, const void *body,
		size_t len, const struct http_opts *o)
{
	buf_reset(&a->body);
	buf_add(&a->body, body, len);
	return answer_static(a, status, ctype, NULL, len, o);
}

int answer_buf(struct answer *a, unsigned status, const char *ctype, struct buf *b,
	       const struct http_opts *o)
{
	if (buf_error(b)) {
		buf_release(b);
		return -1;
	}
	buf_release(&a->body);
	a->body = *b;
	buf_init(b);
	return answer_static(a, status, ctype, NULL, a->body.len, o);
}

int answer_json(struct answer *a, unsigned status, const json_t *v, const struct http_opts *o)
{
	char *s = jsonw_dumps(v, JSONW_ASCII);
	int rc;

	if (!s)
		return -1;
	rc = answer_body(a, status, CT_JSON, s, strlen(s), o);
	free(s);
	return rc;
}

void answer_keep(struct answer *a, struct cache *c, const char *id, enum cache_rep rep,
		 uint64_t gen, struct cache_tags tags)
{
	a->keep = c;
	snprintf(a->keep_id, sizeof a->keep_id, "%s", id);
	a->keep_rep = rep;
	a->keep_gen = gen;
	a->keep_tags = tags;
}

void answer_lead(struct answer *a, struct cache *c, unsigned lead)
{
	a->lead_cache = c;
	a->lead = lead;
}

int answer_kept(struct answer *a, struct http_kept *k)
{
	http_kept_unref(a->kept);
	a->kept = k;
	return 0;
}

int answer_built(struct answer *a, unsigned status, struct MHD_Response *resp)
{
	if (a->built)
		MHD_destroy_response(a->built);
	a->built = resp;
	a->status = status;
	return 0;
}

int answer_not_modified(struct answer *a, const char *etag, const char *cache_control)
{
	a->status = 304;
	snprintf(a->etag, sizeof a->etag, "%s", etag);
	a->o.cache_control = cache_control;
	return 0;
}

int answer_later(struct answer *a)
{
	a->later = 1;
	return 0;
}

void answer_release(struct answer *a)
{
	buf_release(&a->body);
	buf_release(&a->loc);
	http_kept_unref(a->kept);
	a->kept = NULL;
	if (a->built)
		MHD_destroy_response(a->built);
	a->built = NULL;
	if (a->lead)
		cache_land(a->lead_cache, a->lead);
	a->lead = 0;
}

/* ---- out of memory ---- */

/* The one out-of-memory answer, built once (answer_init) so that queueing
 * it allocates no response of its own. */
#define NOMEM_BODY "{\"error\":{\"code\":\"unavailable\",\"message\":\"" MSG_NOMEM "\"}}"
static struct MHD_Response *nomem_resp;
static pthread_once_t nomem_once = PTHREAD_ONCE_INIT;

static void nomem_build(void)
{
	nomem_resp = http_build(CT_JSON, NOMEM_BODY, sizeof NOMEM_BODY - 1, CC_NONE, NULL);
	if (nomem_resp)
		MHD_add_response_header(nomem_resp, "Retry-After", HTTP_STR(HTTP_RETRY_UNAVAILABLE));
}

int answer_init(void)
{
	pthread_once(&nomem_once, nomem_build);
	return nomem_resp ? 0 : -1;
}

enum MHD_Result answer_nomem_conn(struct MHD_Connection *conn)
{
	if (answer_init() < 0)
		return MHD_NO;
	return MHD_queue_response(conn, 503, nomem_resp);
}

/* The out-of-memory answer for r. */
static enum MHD_Result send_nomem(struct req *r)
{
	r->err_code = "unavailable";
	r->sent_bytes = sizeof NOMEM_BODY - 1;
	return answer_nomem_conn(r->conn);
}

/* ---- queueing ---- */

/* Queues a built response and releases it (our reference; libmicrohttpd
 * keeps its own until it is sent); a body of bytes for the access log. */
static enum MHD_Result queue(struct req *r, unsigned status, struct MHD_Response *resp, size_t bytes)
{
	enum MHD_Result ret = MHD_queue_response(r->conn, status, resp);

	MHD_destroy_response(resp);
	r->sent_bytes = bytes;
	return ret;
}

/* Queues 304 Not Modified for etag. */
static enum MHD_Result not_modified(struct req *r, const char *etag, const char *cache_control,
				    int negotiated)
{
	struct MHD_Response *resp;

	resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return send_nomem(r);
	MHD_add_response_header(resp, "ETag", etag);
	if (cache_control)
		MHD_add_response_header(resp, "Cache-Control", cache_control);
	if (negotiated)
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	return queue(r, MHD_HTTP_NOT_MODIFIED, resp, 0);
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

/* Queues a body (copied) with the security headers every response carries,
 * the content type and the options. */
static enum MHD_Result send_body(struct req *r, unsigned status, const char *ctype,
				 const void *body, size_t len, const struct http_opts *given)
{
	struct http_opts all = *given;
	struct MHD_Response *resp;
	char etag[40], num[24];
	const char *cc;

	error_opts(r, status, &all);
	cc = all.cache_control ? all.cache_control : CC_NONE;
	if (all.etag && status == 200) {
		http_etag_of(body, len, etag);
		if (http_etag_matches(r, etag))
			return not_modified(r, etag, cc, 0);
	}
	resp = http_build(ctype, body, len, cc, all.etag && status == 200 ? etag : NULL);
	if (!resp)
		return send_nomem(r);
	if (all.location)
		MHD_add_response_header(resp, "Location", all.location);
	if (all.allow)
		MHD_add_response_header(resp, "Allow", all.allow);
	if (all.retry_after) {
		snprintf(num, sizeof num, "%u", all.retry_after);
		MHD_add_response_header(resp, "Retry-After", num);
	}
	if (r->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	return queue(r, status, resp, len);
}

/* Queues k's body decoded from its gzip copy, in a response of its own
 * (k holds none as built). */
static enum MHD_Result send_expanded(struct req *r, struct http_kept *k)
{
	struct MHD_Response *resp;
	char *body = malloc(k->plain ? k->plain : 1);

	if (!body || gz_expand(k->gzbody, k->gzbytes, body, k->plain) < 0) {
		free(body);
		return send_nomem(r);
	}
	if (!(resp = owned(body, k->plain, k->ctype, k->cc[0] ? k->cc : NULL,
			   k->etag[0] && k->status == 200 ? k->etag : NULL, 1)))
		return send_nomem(r);
	return queue(r, k->status, resp, k->plain);
}

/* Queues the kept response k, gzip-encoded when it holds that copy and
 * the request takes it (304 for a 200 whose ETag, of either copy,
 * If-None-Match names: with the tag of the copy it would get). */
static enum MHD_Result send_kept(struct req *r, struct http_kept *k)
{
	int zip = k->gz && gz_accepted(http_header(r, "Accept-Encoding"));
	char tag[40];

	if (k->status == 200 && k->etag[0]) {
		gz_etag(k->etag, tag);
		if (http_etag_matches(r, k->etag) || (k->gz && http_etag_matches(r, tag)))
			return not_modified(r, zip ? tag : k->etag, k->cc, k->gz != NULL);
	}
	if (!zip && !k->resp)
		return send_expanded(r, k);
	r->sent_bytes = zip ? k->gzbytes : k->plain;
	return MHD_queue_response(r->conn, k->status, zip ? k->gz : k->resp);
}

/* Queues a body and keeps it in a->keep (as its flight's when the
 * request leads one); 304 when If-None-Match names its tag, kept all the
 * same, so that the next request need not build it again. */
static enum MHD_Result send_keep(struct req *r, struct answer *a, const void *body)
{
	const char *cc = a->o.cache_control;
	struct http_kept *k;
	enum MHD_Result ret;
	char etag[40];

	http_etag_of(body, a->len, etag);
	if (!(k = http_kept_build(a->status, a->ctype, body, a->len, cc, a->status == 200 ? etag : NULL)))
		return a->status == 200 && http_etag_matches(r, etag) ? not_modified(r, etag, cc, 0) : send_nomem(r);
	snprintf(k->etag, sizeof k->etag, "%s", etag);   /* kept with its tag, 200 or not */
	snprintf(k->note, sizeof k->note, "%s", a->keep_note);
	ret = send_kept(r, k);
	cache_put_led(a->keep, a->lead, a->keep_id, a->keep_rep, a->keep_gen, a->keep_tags, k);
	return ret;
}

void answer_store(struct answer *a)
{
	const void *body = a->bytes ? a->bytes : a->body.buf;
	struct http_kept *k = NULL;
	char etag[40];

	if (a->keep && a->status && !a->err.status && !a->kept && !a->built && !a->later &&
	    a->status != 304 && !buf_error(&a->body) && !buf_error(&a->loc)) {
		http_etag_of(body, a->len, etag);
		k = http_kept_build(a->status, a->ctype, body, a->len, a->o.cache_control,
				    a->status == 200 ? etag : NULL);
	}
	if (k) {
		snprintf(k->etag, sizeof k->etag, "%s", etag);
		snprintf(k->note, sizeof k->note, "%s", a->keep_note);
		cache_put_led(a->keep, a->lead, a->keep_id, a->keep_rep, a->keep_gen, a->keep_tags,
			      http_kept_ref(k));
		buf_release(&a->body);
		a->bytes = NULL;
		a->keep = NULL;
		a->kept = k;               /* answered as kept: 304 on its tag */
	}
	if (a->lead)
		cache_land(a->lead_cache, a->lead);
	a->lead = 0;
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

/* The contract's JSON error body for e: {"error": {"code", "message"[,
 * "field"]}}. */
static enum MHD_Result send_err_json(struct req *r, const struct err *e)
{
	static const struct http_opts none;
	char m[sizeof e->message], *s;
	enum MHD_Result ret;
	json_t *body;

	body = json_pack("{s:{s:s, s:s}}", "error", "code", err_code(e),
			 "message", sentence(e, m, sizeof m));
	if (body && e->field[0])
		json_object_set_new(json_object_get(body, "error"), "field",
				    json_string(e->field));
	if (!body || !(s = jsonw_dumps(body, JSONW_ASCII))) {
		json_decref(body);
		return send_nomem(r);
	}
	ret = send_body(r, e->status, CT_JSON, s, strlen(s), &none);
	free(s);
	json_decref(body);
	return ret;
}

/* The one error responder: e as the client reads it, the error page on
 * routes for people (r->html, r->error_page), else the contract's body;
 * out of memory as the one 503. */
static enum MHD_Result send_err(struct req *r, const struct err *e, int json)
{
	struct answer page = ANSWER_INIT;

	if (err_is_nomem(e))
		return send_nomem(r);
	r->err_code = err_code(e);
	if (json || !r->html || !r->error_page)
		return send_err_json(r, e);
	r->error_page(r, e, &page);
	return answer_send(r, &page);
}

enum MHD_Result answer_send(struct req *r, struct answer *a)
{
	const void *body = a->bytes ? a->bytes : a->body.buf;
	enum MHD_Result ret;

	if (a->later)
		ret = MHD_YES;
	else if (a->err.status)
		ret = send_err(r, &a->err, a->err_json);
	else if (a->kept)
		ret = send_kept(r, a->kept);
	else if (a->built) {
		ret = queue(r, a->status, a->built, 0);
		a->built = NULL;
	} else if (!a->status || buf_error(&a->body) || buf_error(&a->loc))
		ret = send_nomem(r);
	else if (a->status == 304)
		ret = not_modified(r, a->etag, a->o.cache_control, 0);
	else if (a->keep)
		ret = send_keep(r, a, body);
	else
		ret = send_body(r, a->status, a->ctype, body, a->len, &a->o);
	answer_release(a);
	return ret;
}
