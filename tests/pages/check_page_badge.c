/* check_page_badge.c: a run's badge (server/pages/page_badge.c) as answers, in
 * process: the SVG and shields JSON of a run, kept for the next request;
 * the "not found" badge of an unknown id, kept briefly, of a malformed
 * one, never kept. */
#include "check_pages.h"

#include "pages/page.h"

static struct pages P;
static char id[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_badge");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61.5 }, "key-a", id);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The badge answer for run arg of route fn. */
static void badge(int (*fn)(struct req *, struct answer *), const char *arg, struct answer *a)
{
	struct page_req q;

	pages_get(&q, &P, "/");
	snprintf(q.r.arg, sizeof q.r.arg, "%s", arg);
	*a = (struct answer)ANSWER_INIT;
	ck_assert_int_eq(fn(&q.r, a), 0);
	pages_done(&q, NULL);
}

/* A run's badge says its decode, is cached for CC_BADGE and kept under
 * its id; the JSON says the same to shields.io. */
START_TEST(a_runs_badge)
{
	struct answer a;

	badge(page_badge_svg, id, &a);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_SVG);
	ck_assert_str_eq(a.o.cache_control, CC_BADGE);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "<svg"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "61.5"));
	ck_assert_ptr_eq(a.keep, P.app.cache);
	ck_assert_str_eq(a.keep_id, id);
	ck_assert_int_eq(a.keep_rep, REP_BADGE_SVG);
	answer_release(&a);
	badge(page_badge_json, id, &a);
	ck_assert_str_eq(a.ctype, CT_JSON);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "\"schemaVersion\":1"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "61.5"));
	ck_assert_ptr_null(strstr(a.body.buf, "isError"));
	ck_assert_int_eq(a.keep_rep, REP_BADGE_JSON);
	answer_release(&a);
}
END_TEST

/* An unknown id: the 404 badge, kept briefly; a malformed id: the same
 * badge, never kept (no cache entry per made-up id). */
START_TEST(missing_badges)
{
	struct answer a;

	badge(page_badge_json, "r_aaaaaaaaaaa", &a);
	ck_assert_uint_eq(a.status, 404);
	ck_assert_str_eq(a.o.cache_control, CC_BADGE_MISSING);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "\"isError\":true"));
	ck_assert_ptr_nonnull(a.keep);
	answer_release(&a);
	badge(page_badge_svg, "not-a-run", &a);
	ck_assert_uint_eq(a.status, 404);
	ck_assert_ptr_null(a.keep);
	answer_release(&a);
}
END_TEST

static Suite *suite_badge(void)
{
	Suite *s = suite_create("badge");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_runs_badge);
	tcase_add_test(tc, missing_badges);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_badge)
