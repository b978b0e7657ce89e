/* check_http.c: what server/http/http.c puts on every response, and its
 * entity tags (the parts that need no live connection). */
#include "check_util.h"
#include "http/http.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

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

/* n bytes of text that compresses as pages do. */
static char *text_of(size_t n)
{
	char *s = malloc(n + 1);
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		s[i] = "<tr><td>Qwen3 8B</td><td class=\"n\">141.7</td></tr>\n"[i % 47] ^ (char)(i / 4093 % 2);
	return s;
}

/* A kept text body: small, as built; from KEPT_GZ_MIN, gzipped beside it
 * (Vary on both, the gzip copy's tag "-gz"); from KEPT_GZ_ONLY, gzipped
 * only, a small part of its size held, read back whole.  A PNG is kept as
 * it is, however large. */
START_TEST(a_kept_text_body_is_held_gzipped)
{
	static const size_t sizes[] = { 200, 5000, 120000 };
	struct http_kept *k;
	struct buf back = BUF_INIT;
	size_t i;
	char *body;

	for (i = 0; i < 3; i++) {
		body = text_of(sizes[i]);
		k = http_kept_build(200, CT_HTML, body, sizes[i], CC_PAGE, "\"abc\"");
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(k->plain, sizes[i]);
		ck_assert_int_eq(k->resp != NULL, sizes[i] < KEPT_GZ_ONLY);
		ck_assert_int_eq(k->gz != NULL, sizes[i] >= KEPT_GZ_MIN);
		ck_assert_uint_eq(k->bytes, (k->resp ? sizes[i] : 0) + k->gzbytes);
		if (k->gz) {
			ck_assert_str_eq(MHD_get_response_header(k->gz, "Content-Encoding"), "gzip");
			ck_assert_str_eq(MHD_get_response_header(k->gz, "Vary"), "Accept-Encoding");
			ck_assert_str_eq(MHD_get_response_header(k->gz, "ETag"), "\"abc-gz\"");
			ck_assert_str_eq(MHD_get_response_header(k->gz, "Content-Type"), CT_HTML);
			ck_assert_uint_lt(k->gzbytes, sizes[i] / 4);
			/* ... and it holds no more memory than that (the cache
			 * counts k->bytes against its bound). */
			ck_assert_uint_lt(malloc_usable_size((void *)k->gzbody), k->gzbytes + 64);
		}
		if (k->resp) {
			ck_assert_ptr_null(MHD_get_response_header(k->resp, "Content-Encoding"));
			ck_assert_int_eq(MHD_get_response_header(k->resp, "Vary") != NULL, k->gz != NULL);
			ck_assert_str_eq(MHD_get_response_header(k->resp, "ETag"), "\"abc\"");
		}
		buf_reset(&back);
		ck_assert_int_eq(http_kept_body(k, &back), 0);
		ck_assert_uint_eq(back.len, sizes[i]);
		ck_assert(memcmp(back.buf, body, sizes[i]) == 0);
		http_kept_unref(k);
		k = http_kept_build(200, CT_PNG, body, sizes[i], CC_BADGE, NULL);
		ck_assert_ptr_nonnull(k->resp);
		ck_assert_ptr_null(k->gz);
		ck_assert_uint_eq(k->bytes, sizes[i]);
		http_kept_unref(k);
		free(body);
	}
	buf_release(&back);
}
END_TEST

static Suite *suite_http(void)
{
	Suite *s = suite_create("http");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, build_adds_the_common_headers);
	tcase_add_test(tc, etag_follows_the_body);
	tcase_add_test(tc, err_nomem_is_recognised);
	tcase_add_test(tc, a_kept_text_body_is_held_gzipped);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_http)
