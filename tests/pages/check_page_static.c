/* check_page_static.c: the reference pages' builders and the health check
 * (server/pages/page_static.c): each page's title, the security contact,
 * the backtest the methodology shows before the refresh thread ran. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_static");
}

static void teardown(void)
{
	pages_end(&P);
}

/* Each reference page has its own title; privacy names the operator's
 * security contact when one is set; only the methodology has a backtest,
 * over no data before the first refresh. */
START_TEST(reference_pages)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/glossary"));

	ck_assert_str_eq(pages_str(m, "title"), "Glossary");
	ck_assert(json_is_null(json_object_get(m, "security_contact")));
	ck_assert_ptr_null(json_object_get(m, "backtest"));
	pages_done(&q, m);
	P.app.cfg.security_contact = "mailto:security@llm-speed.example";
	m = pages_build(pages_get(&q, &P, "/privacy"));
	ck_assert_str_eq(pages_str(m, "title"), "Privacy");
	ck_assert_str_eq(pages_str(m, "security_contact"), "mailto:security@llm-speed.example");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/methodology"));
	ck_assert_str_eq(pages_str(m, "title"), "Methodology");
	ck_assert_int_eq(json_integer_value(pages_at(m, "backtest.tested")), 0);
	ck_assert(json_is_false(pages_at(m, "backtest.has_tests")));
	pages_done(&q, m);
}
END_TEST

/* The health check answers "ok" as plain text; a static file that was
 * never loaded is a 404. */
START_TEST(healthz_and_missing_files)
{
	struct page_req q;
	struct answer a = ANSWER_INIT;

	pages_get(&q, &P, "/glossary");
	ck_assert_int_eq(page_healthz(&q.r, &a), 0);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_TEXT);
	ck_assert_uint_eq(a.len, 3);
	ck_assert_int_eq(memcmp(a.bytes, "ok\n", 3), 0);
	answer_release(&a);
	a = (struct answer)ANSWER_INIT;
	snprintf(q.r.arg, sizeof q.r.arg, "nope.css");
	ck_assert_int_eq(page_static_file(&q.r, &a), -1);
	ck_assert_uint_eq(a.err.status, 404);
	answer_release(&a);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page_static(void)
{
	Suite *s = suite_create("page_static");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reference_pages);
	tcase_add_test(tc, healthz_and_missing_files);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_static)
