/* check_answer.c: answers as data (http/answer.h) and the one place they
 * are queued (server/http/http.c), through a real libmicrohttpd daemon on
 * a loopback port: bodies and their headers, the error responder (JSON,
 * or the error page a route for people hands it), 304s, kept responses,
 * and the one out-of-memory answer however a handler runs out. */
#include "check_util.h"
#include "http/answer.h"
#include "http/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct http_kept *kept;

/* The error page of a route for people, as the router hands one over. */
static void error_page(struct req *r, const struct err *e, struct answer *a)
{
	static const struct http_opts o = { .cache_control = CC_NONE };
	char page[64];

	snprintf(page, sizeof page, "<p>%u: %s</p>", e->status, e->code);
	answer_body(a, e->status, CT_HTML, page, strlen(page), &o);
}

/* Fills a as a handler of the path would. */
static void handle(struct req *r, const char *url, struct answer *a)
{
	struct buf b = BUF_INIT;
	char where[64];

	if (!strcmp(url, "/nomem-err"))
		err_nomem(&a->err);
	else if (!strcmp(url, "/nomem-buf")) {
		b.err = 1;
		ck_assert_int_eq(answer_buf(a, 200, CT_TEXT, &b, NULL), -1);
	} else if (!strcmp(url, "/405")) {
		r->allow = "GET, HEAD";
		err_set(&a->err, 405, NULL, NULL, "%s", "not this method; see Allow.");
	} else if (!strcmp(url, "/503"))
		err_unavailable(&a->err, MSG_DB_DOWN);
	else if (!strcmp(url, "/page-404")) {
		r->html = 1;
		r->error_page = error_page;
		err_set(&a->err, 404, "not_found", NULL, "%s", "No such page.");
	} else if (!strcmp(url, "/etag"))
		answer_static(a, 200, CT_TEXT, "same\n", 5, &(struct http_opts){ .cache_control = CC_PAGE, .etag = 1 });
	else if (!strcmp(url, "/kept"))
		answer_kept(a, http_kept_ref(kept));
	else if (!strcmp(url, "/redirect")) {
		/* The target is copied: the handler's buffer is gone when the
		 * answer is queued. */
		snprintf(where, sizeof where, "/r/r_aaaaaaaaaaa");
		answer_body(a, 303, CT_TEXT, where, strlen(where), &(struct http_opts){ .location = where });
		memset(where, 'x', sizeof where - 1);
	}
	/* anything else: nothing, as a handler's -1 without an error */
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn, const char *url,
				 const char *method, const char *version, const char *body,
				 size_t *body_len, void **ctx)
{
	struct req r = { .conn = conn };
	struct answer a = ANSWER_INIT;

	(void)cls, (void)method, (void)version, (void)body, (void)body_len, (void)ctx;
	handle(&r, url, &a);
	return answer_send(&r, &a);
}

/* One request to 127.0.0.1:port with the extra header lines hdr; the whole
 * answer (the daemon closes after it) into got. */
static void get(unsigned short port, const char *path, const char *hdr, char *got, size_t n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	char req[512];
	int s = socket(AF_INET, SOCK_STREAM, 0), len;
	size_t have = 0;
	ssize_t k;

	len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\n%sConnection: close\r\n\r\n", path, hdr);
	ck_assert_int_ge(s, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(write(s, req, (size_t)len), len);
	while (have + 1 < n && (k = read(s, got + have, n - 1 - have)) > 0)
		have += (size_t)k;
	got[have] = '\0';
	close(s);
}

static struct MHD_Daemon *d;
static unsigned short port;

static void setup(void)
{
	ck_assert_int_eq(answer_init(), 0);
	kept = http_kept_build(200, CT_TEXT, "kept\n", 5, CC_STATIC, "\"k1\"");
	ck_assert_ptr_nonnull(kept);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, access_cb, NULL, MHD_OPTION_END);
	ck_assert_ptr_nonnull(d);
	port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void teardown(void)
{
	MHD_stop_daemon(d);
	http_kept_unref(kept);
}

/* Out of memory is always 503 with Retry-After and the contract's JSON
 * body (code "unavailable"), never a dropped connection or a 500, however
 * the handler ran out, and the one prebuilt answer serves one request
 * after another. */
START_TEST(nomem_is_503_with_retry_after)
{
	static const char *const paths[] = { "/nomem-err", "/nomem-buf", "/nothing", "/nomem-err" };
	char got[2048];
	size_t k;

	for (k = 0; k < sizeof paths / sizeof paths[0]; k++) {
		get(port, paths[k], "", got, sizeof got);
		ck_assert_msg(!strncmp(got, "HTTP/1.1 503 ", 13), "%s", got);
		ck_assert_msg(strstr(got, "\r\nRetry-After: 5\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "\r\nContent-Type: " CT_JSON "\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "\r\nCache-Control: no-store\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "{\"error\":{\"code\":\"unavailable\",\"message\":\""
				     MSG_NOMEM "\"}}"), "%s", got);
	}
}
END_TEST

/* An error leaves as the contract's JSON body, its sentence capitalised,
 * with Allow on a 405 and Retry-After on a 503; on a route for people it
 * is the error page the route hands over. */
START_TEST(errors_have_one_responder)
{
	char got[2048];

	get(port, "/405", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 405 ", 13), "%s", got);
	ck_assert_msg(strstr(got, "\r\nAllow: GET, HEAD\r\n"), "%s", got);
	ck_assert_msg(strstr(got, "{\"error\":{\"code\":\"method_not_allowed\",\"message\":\"Not this method; see Allow.\"}}"), "%s", got);
	get(port, "/503", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 503 ", 13), "%s", got);
	ck_assert_msg(strstr(got, "\r\nRetry-After: 5\r\n"), "%s", got);
	ck_assert_msg(strstr(got, MSG_DB_DOWN), "%s", got);
	get(port, "/page-404", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 404 ", 13), "%s", got);
	ck_assert_msg(strstr(got, "\r\nContent-Type: " CT_HTML "\r\n"), "%s", got);
	ck_assert_msg(strstr(got, "<p>404: not_found</p>"), "%s", got);
}
END_TEST

/* A body asked to carry an ETag is 304 when If-None-Match names it; a
 * kept response too, under its own tag and Cache-Control; a redirect's
 * target is the handler's as it was when it answered. */
START_TEST(etags_kept_and_redirects)
{
	char got[2048], tag[40], hdr[80];

	http_etag_of("same\n", 5, tag);
	get(port, "/etag", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 200 ", 13) && strstr(got, tag), "%s", got);
	snprintf(hdr, sizeof hdr, "If-None-Match: %s\r\n", tag);
	get(port, "/etag", hdr, got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 304 ", 13), "%s", got);
	get(port, "/kept", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 200 ", 13) && strstr(got, "\r\n\r\nkept\n"), "%s", got);
	get(port, "/kept", "If-None-Match: \"k1\"\r\n", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 304 ", 13), "%s", got);
	ck_assert_msg(strstr(got, "\r\nCache-Control: " CC_STATIC "\r\n"), "%s", got);
	ck_assert_int_eq(atomic_load(&kept->refs), 1);   /* each answer dropped its own */
	get(port, "/redirect", "", got, sizeof got);
	ck_assert_msg(!strncmp(got, "HTTP/1.1 303 ", 13), "%s", got);
	ck_assert_msg(strstr(got, "\r\nLocation: /r/r_aaaaaaaaaaa\r\n"), "%s", got);
}
END_TEST

static Suite *suite_answer(void)
{
	Suite *s = suite_create("answer");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nomem_is_503_with_retry_after);
	tcase_add_test(tc, errors_have_one_responder);
	tcase_add_test(tc, etags_kept_and_redirects);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_answer)
