/* check_framing.c: server/http/framing.c, the request's framing judged from
 * its headers (framing_note, framing_judge) and its target as sent
 * (framing_check_target, framing_pool_bytes).  framing_check() itself, over
 * a live connection, is covered by tests/http/test_framing.py and
 * test_hardening.py. */
#include <stdarg.h>

#include "check_util.h"
#include "http/framing.h"

/* Judges the headers given as "Name", "value" pairs, ending with NULL. */
static int judge(const char *version, size_t line, size_t max, struct err *e, ...)
{
	struct framing_seen s = { 0 };
	const char *k, *v;
	va_list ap;

	va_start(ap, e);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		framing_note(&s, k, v);
	}
	va_end(ap);
	memset(e, 0, sizeof *e);
	return framing_judge(&s, version, line, max, e);
}

#define V11 MHD_HTTP_VERSION_1_1
#define V10 MHD_HTTP_VERSION_1_0

START_TEST(plain_requests_pass)
{
	struct err e;

	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", NULL), 0);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "12", NULL), 0);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Transfer-Encoding", "chunked", NULL), 0);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "host", "x", "transfer-encoding", "Chunked", NULL), 0);
	/* Two equal Content-Lengths say one thing. */
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "5",
			       "Content-Length", "5", NULL), 0);
	/* HTTP/1.0 needs no Host and may send a Content-Length. */
	ck_assert_int_eq(judge(V10, 30, 8192, &e, NULL), 0);
	ck_assert_int_eq(judge(V10, 30, 8192, &e, "Content-Length", "3", NULL), 0);
	ck_assert_uint_eq(e.status, 0);
}
END_TEST

START_TEST(http10_transfer_encoding_is_400)
{
	struct err e;

	ck_assert_int_eq(judge(V10, 30, 8192, &e, "Host", "x", "Transfer-Encoding", "chunked", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_str_eq(e.code, "bad_request");
	ck_assert_ptr_nonnull(strstr(e.message, "HTTP/1.1"));
	/* Whatever the coding, and with no version at all. */
	ck_assert_int_eq(judge(V10, 30, 8192, &e, "Transfer-Encoding", "gzip", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(NULL, 30, 8192, &e, "Transfer-Encoding", "chunked", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
}
END_TEST

START_TEST(ambiguous_framing_is_refused)
{
	struct err e;

	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "5",
			       "Content-Length", "6", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "5x", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Content-Length", "-1", NULL), -1);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Transfer-Encoding", "chunked",
			       "Content-Length", "5", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Transfer-Encoding", "gzip", NULL), -1);
	ck_assert_uint_eq(e.status, 501);
	ck_assert_str_eq(e.code, "not_implemented");
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "x", "Transfer-Encoding", "chunked",
			       "Transfer-Encoding", "chunked", NULL), -1);
	ck_assert_uint_eq(e.status, 501);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "a", "Host", "b", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "a", "X-Thing ", "b", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
	ck_assert_int_eq(judge(V11, 30, 8192, &e, "Host", "a", "X\tThing", "b", NULL), -1);
	ck_assert_uint_eq(e.status, 400);
}
END_TEST

/* Line and headers together are held to the limit, CRLFs counted. */
START_TEST(size_limit_is_line_and_headers)
{
	struct err e;
	char big[200];

	memset(big, 'v', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	/* "Host: x\r\n" is 9 bytes, "X-Big: <199>\r\n" 208. */
	ck_assert_int_eq(judge(V11, 100, 100 + 9 + 208, &e, "Host", "x", "X-Big", big, NULL), 0);
	ck_assert_int_eq(judge(V11, 101, 100 + 9 + 208, &e, "Host", "x", "X-Big", big, NULL), -1);
	ck_assert_uint_eq(e.status, 431);
	ck_assert_str_eq(e.code, "headers_too_large");
	/* It is judged first: an oversized request is 431 whatever else. */
	ck_assert_int_eq(judge(V10, 9000, 8192, &e, "Transfer-Encoding", "chunked", NULL), -1);
	ck_assert_uint_eq(e.status, 431);
}
END_TEST

/* NULL keys or values (libmicrohttpd gives them for empty cookie parts)
 * are skipped. */
START_TEST(null_values_are_skipped)
{
	struct framing_seen s = { 0 };
	struct err e = ERR_INIT;

	framing_note(&s, NULL, "x");
	framing_note(&s, "Content-Length", NULL);
	framing_note(&s, "Host", "x");
	ck_assert_uint_eq(s.lengths, 0);
	ck_assert_uint_eq(s.hosts, 1);
	ck_assert_uint_eq(s.bytes, 9);
	ck_assert_int_eq(framing_judge(&s, V11, 10, 8192, &e), 0);
}
END_TEST

/* Runs framing_check_target on a copy of target; returns its status (0:
 * accepted) and leaves the possibly cut copy in out. */
static unsigned target(const char *t, size_t max, char *out, size_t n)
{
	struct err e = ERR_INIT;

	snprintf(out, n, "%s", t);
	if (framing_check_target(out, max, &e) == 0) {
		ck_assert_uint_eq(e.status, 0);
		return 0;
	}
	ck_assert_ptr_nonnull(e.code);
	ck_assert(e.message[0] != '\0');
	return e.status;
}

START_TEST(path_escapes)
{
	char b[256];

	ck_assert_uint_eq(target("/r/r_abc.json", 8192, b, sizeof b), 0);
	ck_assert_uint_eq(target("/r/r%5Fabc", 8192, b, sizeof b), 0);
	ck_assert_uint_eq(target("/a%2fb%41%7e", 8192, b, sizeof b), 0);
	ck_assert_uint_eq(target("/r/r_abc%00.json", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/%00", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%0", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%zz", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%0g", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%g0", 8192, b, sizeof b), 400);
	/* The escape ends at the '?': the query is not part of the path. */
	ck_assert_uint_eq(target("/x%?a=1", 8192, b, sizeof b), 400);
	ck_assert_uint_eq(target("/x%4?a=1", 8192, b, sizeof b), 400);
	/* A query's escapes are left to the routes that read it. */
	ck_assert_uint_eq(target("/search?q=%00", 8192, b, sizeof b), 0);
	ck_assert_uint_eq(target("/search?q=%", 8192, b, sizeof b), 0);
	ck_assert_str_eq(b, "/search?q=%");
	/* "%%30%30" is a broken escape, not a NUL. */
	ck_assert_uint_eq(target("/x%%30%30", 8192, b, sizeof b), 400);
	/* An escaped percent sign then digits is not NUL either. */
	ck_assert_uint_eq(target("/x%2500", 8192, b, sizeof b), 0);
}
END_TEST

/* Builds "/p?" and n arguments made of piece, joined by '&'. */
static char *query_of(const char *piece, int n)
{
	size_t len = strlen(piece), i;
	char *s = malloc(4 + (len + 1) * (size_t)n + 1), *p = s;

	ck_assert_ptr_nonnull(s);
	p += sprintf(p, "/p?");
	for (i = 0; i < (size_t)n; i++)
		p += sprintf(p, "%s%s", i ? "&" : "", piece);
	return s;
}

START_TEST(arguments_are_counted_as_the_parser_does)
{
	char b[8192];
	char *q;

	q = query_of("a=1", FRAMING_MAX_ARGS);
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 0);
	ck_assert_str_eq(b, q);                /* nothing cut */
	free(q);
	q = query_of("a=1", FRAMING_MAX_ARGS + 1);
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 414);
	ck_assert_str_eq(b, "/p?");            /* the query cut off: none parsed */
	free(q);
	/* Empty pieces are records too ("a&&b" is three), a final '&' is not. */
	q = query_of("", FRAMING_MAX_ARGS + 1);      /* 128 '&': 128 records */
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 0);
	free(q);
	q = query_of("", FRAMING_MAX_ARGS + 2);      /* 129 '&' */
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 414);
	free(q);
	q = query_of("a", FRAMING_MAX_ARGS);
	strcat(q, "&");
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 0);
	strcat(q, "b");
	ck_assert_uint_eq(target(q, 8192, b, sizeof b), 414);
	free(q);
	ck_assert_uint_eq(target("/p?", 8192, b, sizeof b), 0);
	ck_assert_uint_eq(target("/p", 8192, b, sizeof b), 0);
}
END_TEST

START_TEST(long_target_is_414_and_cut)
{
	char t[300], b[300];

	memset(t, 'x', sizeof t);
	memcpy(t, "/p?a=", 5);
	t[200] = '\0';
	ck_assert_uint_eq(target(t, 200, b, sizeof b), 0);
	ck_assert_uint_eq(target(t, 199, b, sizeof b), 414);
	ck_assert_str_eq(b, "/p?");
	/* Without a query there is nothing to cut. */
	t[2] = 'x';
	ck_assert_uint_eq(target(t, 199, b, sizeof b), 414);
	ck_assert_uint_eq(strlen(b), 200);
}
END_TEST

/* The pool holds the limit and the largest set of argument records. */
START_TEST(pool_has_room_for_the_arguments)
{
	ck_assert_uint_ge(framing_pool_bytes(32768), 32768 + FRAMING_MAX_ARGS * 64);
	ck_assert_uint_ge(framing_pool_bytes(8192), 8192 + FRAMING_MAX_ARGS * 64);
	ck_assert_uint_lt(framing_pool_bytes(32768), 2 * 32768);
}
END_TEST

static Suite *suite_framing(void)
{
	Suite *s = suite_create("framing");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, plain_requests_pass);
	tcase_add_test(tc, http10_transfer_encoding_is_400);
	tcase_add_test(tc, ambiguous_framing_is_refused);
	tcase_add_test(tc, size_limit_is_line_and_headers);
	tcase_add_test(tc, null_values_are_skipped);
	tcase_add_test(tc, path_escapes);
	tcase_add_test(tc, arguments_are_counted_as_the_parser_does);
	tcase_add_test(tc, long_target_is_414_and_cut);
	tcase_add_test(tc, pool_has_room_for_the_arguments);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_framing)
