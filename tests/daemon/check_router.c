/* check_router.c: the route table of server/router.c: pattern matching,
 * which row a request reaches, and the Allow header of a 405. */
#include "check_util.h"
#include "router.h"
#include "pages/kinds.h"
#include "pages/page.h"
#include "disputes/dispute.h"
#include "ingest/upload.h"

/* The index of the page kind called name (a route's kind). */
static int kind_of(const char *name)
{
	const struct page_kind_def *k = page_kind_named(name);

	ck_assert_msg(k, "no page kind %s", name);
	return (int)(k - page_kinds);
}

/* '*' captures exactly one non-empty segment, between a literal prefix and
 * suffix. */
START_TEST(pattern_star_is_one_segment)
{
	char arg[16];

	ck_assert(router_pattern_match("/healthz", "/healthz", arg, sizeof arg));
	ck_assert(!router_pattern_match("/healthz", "/healthz/", arg, sizeof arg));
	ck_assert(router_pattern_match("/r/*.json", "/r/abc.json", arg, sizeof arg));
	ck_assert_str_eq(arg, "abc");
	ck_assert(!router_pattern_match("/r/*.json", "/r/.json", arg, sizeof arg));
	ck_assert(!router_pattern_match("/r/*", "/r/a/b", arg, sizeof arg));
	ck_assert(!router_pattern_match("/r/*", "/r/", arg, sizeof arg));
	/* A segment that does not fit arg does not match. */
	ck_assert(!router_pattern_match("/r/*", "/r/0123456789abcdef", arg, sizeof arg));
}
END_TEST

/* Several stars: each one non-empty segment, the literal after it at the
 * segment's end; nothing captured, whatever the segments' length. */
START_TEST(pattern_stars_are_segments)
{
	char arg[16] = "x";

	ck_assert(router_pattern_match("/m/*/hw/*", "/m/llama-3-1-8b-instruct/hw/rtx-4090", arg, sizeof arg));
	ck_assert_str_eq(arg, "");
	ck_assert(router_pattern_match("/m/*/hw/*.json", "/m/a/hw/b.json", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*.json", "/m/a/hw/.json", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*.json", "/m/a/hw/b", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m//hw/b", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m/a/hw/", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m/a/hw/b/c", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m/a/b/hw/c", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m/a/hx/c", arg, sizeof arg));
	ck_assert(!router_pattern_match("/m/*/hw/*", "/m/a", arg, sizeof arg));
	/* The twin's row comes first in the table; the page's own row would
	 * take "b.json" as its segment. */
	ck_assert(router_pattern_match("/m/*/hw/*", "/m/a/hw/b.json", arg, sizeof arg));
}
END_TEST

/* Requests reach the row the table lists first for them; HEAD is GET. */
START_TEST(match_picks_the_row)
{
	const struct route *rt;
	char arg[160];

	rt = router_match(HTTP_GET, "/r/r_y2_5y8oo97d.json", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == page_serve);
	ck_assert_int_eq(rt->kind, kind_of("run"));
	ck_assert_int_eq(rt->format, HTTP_FMT_JSON);
	ck_assert_str_eq(arg, "r_y2_5y8oo97d");
	ck_assert_uint_eq(rt->flags & ROUTE_HTML, 0);
	rt = router_match(HTTP_GET, "/m/a/hw/b.json", arg, sizeof arg);
	ck_assert(rt && rt->kind == kind_of("model_hw") && rt->format == HTTP_FMT_JSON && !(rt->flags & ROUTE_HTML));
	rt = router_match(HTTP_GET, "/m/a/hw/b", arg, sizeof arg);
	ck_assert(rt && rt->kind == kind_of("model_hw") && rt->format == HTTP_FMT_HTML && (rt->flags & ROUTE_HTML));
	rt = router_match(HTTP_GET, "/m/a.json", arg, sizeof arg);
	ck_assert(rt && rt->kind == kind_of("model") && rt->format == HTTP_FMT_JSON);
	rt = router_match(HTTP_GET, "/r/r_y2_5y8oo97d.jws", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == page_run_jws);
	ck_assert_int_eq(rt->format, HTTP_FMT_NONE);
	rt = router_match(HTTP_HEAD, "/r/r_y2_5y8oo97d", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == page_serve);
	ck_assert_int_eq(rt->format, HTTP_FMT_HTML);
	ck_assert_uint_eq(rt->flags & ROUTE_HTML, ROUTE_HTML);
	/* A twin is its own row, not the page's reading the suffix. */
	rt = router_match(HTTP_GET, "/m/qwen3-8b.csv", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert_int_eq(rt->kind, kind_of("model"));
	ck_assert_int_eq(rt->format, HTTP_FMT_CSV);
	ck_assert_str_eq(arg, "qwen3-8b");
	rt = router_match(HTTP_GET, "/m/qwen3-8b.atom", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == page_feed_model);
	rt = router_match(HTTP_POST, "/r/r_y2_5y8oo97d/disputes", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == defer_serve && rt->write == &dispute_form_write);
	ck_assert_uint_eq(rt->flags, ROUTE_HTML | ROUTE_BODY);
	rt = router_match(HTTP_POST, "/api/v1/runs", arg, sizeof arg);
	ck_assert_ptr_nonnull(rt);
	ck_assert(rt->handler == defer_serve && rt->write == &upload_write);
	ck_assert_uint_eq(rt->max_body, 64 * 1024);
	ck_assert_ptr_null(router_match(HTTP_GET, "/api/v1/runs", arg, sizeof arg));
	ck_assert_ptr_null(router_match(HTTP_GET, "/no/such/page", arg, sizeof arg));
	ck_assert_ptr_null(router_match(HTTP_OTHER, "/", arg, sizeof arg));
}
END_TEST

/* The Allow value names the methods some row serves the path with; NULL
 * when none does (a 404, not a 405). */
START_TEST(allow_names_the_methods)
{
	ck_assert_str_eq(router_allow("/api/v1/runs"), "POST");
	ck_assert_str_eq(router_allow("/r/r_y2_5y8oo97d"), "GET, HEAD");
	ck_assert_str_eq(router_allow("/r/r_y2_5y8oo97d/disputes"), "POST");
	ck_assert_ptr_null(router_allow("/no/such/page"));
}
END_TEST

static Suite *suite_router(void)
{
	Suite *s = suite_create("router");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pattern_star_is_one_segment);
	tcase_add_test(tc, pattern_stars_are_segments);
	tcase_add_test(tc, match_picks_the_row);
	tcase_add_test(tc, allow_names_the_methods);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_router)
