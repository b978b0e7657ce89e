/* check_http.c: what server/http/http.c puts on every response, and its
 * entity tags (the parts that need no live connection). */
#include "check_util.h"
#include "http/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A built response carries the content type, the security headers every
 * response carries, and the caching headers it was given. */
START_TEST(build_adds_the_common_headers)
{
	struct MHD_Response *resp = http_build(CT_HTML, "<p>x</p>", 8, CC_PAGE, "\"abc\"");
	const char *csp;

	ck_assert_ptr_nonnull(resp);
	ck_assert_str_eq(MHD_get_response_header(resp, "Content-Type"), CT_HTML);
	ck_assert_str_eq(MHD_get_response_header(resp, "X-Content-Type-Options"), "nosniff");
	ck_assert_str_eq(MHD_get_response_header(resp, "Cache-Control"), CC_PAGE);
	ck_assert_str_eq(MHD_get_response_header(resp, "ETag"), "\"abc\"");
	csp = MHD_get_response_header(resp, "Content-Security-Policy");
	ck_assert_ptr_nonnull(csp);
	ck_assert_ptr_nonnull(strstr(csp, "default-src 'none'"));
	ck_assert_ptr_nonnull(strstr(csp, "frame-ancestors 'none'"));
	MHD_destroy_response(resp);
	resp = http_build(CT_JSON, "{}", 2, NULL, NULL);
	ck_assert_ptr_null(MHD_get_response_header(resp, "Cache-Control"));
	ck_assert_ptr_null(MHD_get_response_header(resp, "ETag"));
	MHD_destroy_response(resp);
}
END_TEST

/* The entity tag is a quoted 32-digit hex digest of the body: the same
 * body gives the same tag, one changed byte another. */
START_TEST(etag_follows_the_body)
{
	char a[40], b[40], c[40];
	size_t i;

	http_etag_of("hello", 5, a);
	http_etag_of("hello", 5, b);
	http_etag_of("hellp", 5, c);
	ck_assert_uint_eq(strlen(a), 34);
	ck_assert_int_eq(a[0], '"');
	ck_assert_int_eq(a[33], '"');
	for (i = 1; i < 33; i++)
		ck_assert_msg(strchr("0123456789abcdef", a[i]) != NULL, "%s", a);
	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
}
END_TEST

/* Answers every request with http_send_nomem, as a handler that ran out
 * of memory does. */
static enum MHD_Result answer_nomem(void *cls, struct MHD_Connection *conn, const char *url,
				    const char *method, const char *version, const char *body,
				    size_t *body_len, void **ctx)
{
	struct req r = { .conn = conn };

	(void)cls, (void)url, (void)method, (void)version, (void)body, (void)body_len, (void)ctx;
	return http_send_nomem(&r);
}

/* One GET to 127.0.0.1:port; the whole answer (the daemon closes after
 * it) into got. */
static void get(unsigned short port, char *got, size_t n)
{
	static const char req[] = "GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_STREAM, 0);
	size_t len = 0;
	ssize_t k;

	ck_assert_int_ge(s, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(write(s, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
	while (len + 1 < n && (k = read(s, got + len, n - 1 - len)) > 0)
		len += (size_t)k;
	got[len] = '\0';
	close(s);
}

/* Out of memory is always 503 with Retry-After and the contract's JSON
 * body (code "unavailable"), never a dropped connection or a 500, and the
 * one prebuilt answer serves one request after another. */
START_TEST(nomem_is_503_with_retry_after)
{
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *i;
	char got[2048];
	int k;

	ck_assert_int_eq(http_init(), 0);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			     answer_nomem, NULL, MHD_OPTION_END);
	ck_assert_ptr_nonnull(d);
	i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	for (k = 0; k < 2; k++) {
		get(i->port, got, sizeof got);
		ck_assert_msg(!strncmp(got, "HTTP/1.1 503 ", 13), "%s", got);
		ck_assert_msg(strstr(got, "\r\nRetry-After: 5\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "\r\nContent-Type: " CT_JSON "\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "\r\nCache-Control: no-store\r\n"), "%s", got);
		ck_assert_msg(strstr(got, "{\"error\":{\"code\":\"unavailable\",\"message\":\""
				     MSG_NOMEM "\"}}"), "%s", got);
	}
	MHD_stop_daemon(d);
}
END_TEST

/* An err carrying MSG_NOMEM is out of memory; the same status with
 * another sentence is not. */
START_TEST(err_nomem_is_recognised)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(err_nomem(&e), -1);
	ck_assert(err_is_nomem(&e));
	ck_assert_uint_eq(e.status, 503);
	err_unavailable(&e, MSG_DB_DOWN);
	ck_assert(!err_is_nomem(&e));
}
END_TEST

static Suite *suite_http(void)
{
	Suite *s = suite_create("http");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, build_adds_the_common_headers);
	tcase_add_test(tc, etag_follows_the_body);
	tcase_add_test(tc, nomem_is_503_with_retry_after);
	tcase_add_test(tc, err_nomem_is_recognised);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_http)
