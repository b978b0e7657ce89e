/* check_page.c: page_serve (server/pages/page.c), the one place a
 * builder's result is answered, driven in process: its answer is data.
 * A JSON twin kept by path and query, a page rendered and kept, a kept
 * answer served again until a write, a refusal as the error page, a
 * builder's redirect as the answer. */
#include "check_pages.h"
#include "ingest/validate.h"

static struct pages P;

static void setup(void)
{
	pages_open(&P, "check_page", 1);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* page_serve's answer to target. */
static void serve(struct page_req *q, const char *target, struct answer *a)
{
	*a = (struct answer)ANSWER_INIT;
	pages_get(q, &P, target);
	if (page_serve(&q->r, a) < 0 && !a->err.status)
		ck_abort_msg("%s: out of memory", target);
}

/* The board's JSON twin is a 200 JSON body with an ETag, to be kept by
 * its path and query; the page is HTML with its head, kept too; a CSV
 * twin is never kept. */
START_TEST(listed_pages_are_answered_and_kept)
{
	struct page_req q;
	struct answer a;

	serve(&q, "/index.json?sort=ttft", &a);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_JSON);
	ck_assert_int_eq(a.o.etag, 1);
	ck_assert_ptr_eq(a.keep, P.app.cache);
	ck_assert_int_eq(a.keep_id[0], 'L');
	ck_assert_int_eq(a.keep_rep, REP_LIST_HTML);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "\"sort\":\"ttft\""));
	answer_release(&a);
	serve(&q, "/", &a);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_HTML);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "<!DOCTYPE html>"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "<link rel=\"canonical\" href=\"" PAGES_ORIGIN "/\""));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "aria-current=\"page\">Leaderboard"));
	ck_assert_ptr_nonnull(a.keep);
	answer_release(&a);
	serve(&q, "/index.csv", &a);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_CSV);
	ck_assert_ptr_null(a.keep);
	ck_assert_int_eq(strncmp(a.body.buf, "\"model\",\"model_slug\",", 21), 0);
	answer_release(&a);
}
END_TEST

/* What page_serve kept is answered from the cache (the builder does not
 * run) until a write that changes what lists show; a change that does
 * not (another run's own page dropped) leaves it kept. */
START_TEST(kept_answers_are_served_until_a_write)
{
	struct page_req q;
	struct answer a;
	struct http_kept *k;

	serve(&q, "/models.json", &a);
	ck_assert_ptr_nonnull(a.keep);
	k = http_kept_build(a.status, a.ctype, a.body.buf, a.len, a.o.cache_control, "\"t\"");
	cache_put(a.keep, a.keep_id, a.keep_rep, a.keep_gen, a.keep_tags, k);
	answer_release(&a);
	serve(&q, "/models.json", &a);
	ck_assert_ptr_eq(a.kept, k);
	answer_release(&a);
	cache_invalidate(P.app.cache, "r_somethingelse");
	serve(&q, "/models.json", &a);
	ck_assert_ptr_eq(a.kept, k);
	answer_release(&a);
	cache_bump_lists(P.app.cache);
	serve(&q, "/models.json", &a);
	ck_assert_ptr_null(a.kept);
	ck_assert_uint_eq(a.status, 200);
	answer_release(&a);
}
END_TEST

/* An argument no page reads is left out of the key: ?x=1, ?X=2 and
 * ?utm_source= are the page without them; one a page reads is not. */
START_TEST(unread_arguments_share_the_key)
{
	static const char *const same[] = { "/models.json?x=1", "/models.json?X=2&utm_source=a",
					    "/models.json?fbclid=" };
	struct page_req q;
	struct answer a;
	char key[CACHE_ID_MAX + 1];
	size_t i;

	serve(&q, "/models.json", &a);
	snprintf(key, sizeof key, "%s", a.keep_id);
	answer_release(&a);
	for (i = 0; i < sizeof same / sizeof same[0]; i++) {
		serve(&q, same[i], &a);
		ck_assert_str_eq(a.keep_id, key);
		answer_release(&a);
	}
	serve(&q, "/models.json?suite=" VALIDATE_SUITE, &a);
	ck_assert_str_ne(a.keep_id, key);
	answer_release(&a);
	ck_assert(page_query_known("sort") && page_query_known("SORT") && page_query_known("after"));
	ck_assert(!page_query_known("x") && !page_query_known("utm_source"));
}
END_TEST

/* A builder's refusal is the answer's error (the responder renders it);
 * its redirect is the answer, the target as Location and body. */
START_TEST(refusals_and_redirects)
{
	struct page_req q;
	struct answer a;

	serve(&q, "/m/no-such-model", &a);
	ck_assert_uint_eq(a.err.status, 404);
	ck_assert_uint_eq(a.status, 0);
	answer_release(&a);
	serve(&q, "/m/Qwen3-8B", &a);
	ck_assert_uint_eq(a.status, 301);
	ck_assert_str_eq(a.o.location, "/m/qwen3-8b");
	ck_assert_str_eq(a.o.cache_control, CC_PAGE);
	ck_assert_str_eq(a.body.buf, "/m/qwen3-8b");
	answer_release(&a);
}
END_TEST

/* The error page people see: the status's title, the sentence, no-store,
 * and the path they asked for, escaped. */
START_TEST(error_page)
{
	struct page_req q;
	struct answer a = ANSWER_INIT;
	struct err e;

	pages_get(&q, &P, "/m/no-such-model");
	q.r.path = "/m/<b>x</b>";
	err_set(&e, 404, "not_found", NULL, "%s", "There is no such model.");
	page_error(&q.r, &e, &a);
	ck_assert_uint_eq(a.status, 404);
	ck_assert_str_eq(a.ctype, CT_HTML);
	ck_assert_str_eq(a.o.cache_control, CC_NONE);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "There is no such model."));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "&lt;b&gt;x&lt;/b&gt;"));
	ck_assert_ptr_null(strstr(a.body.buf, "<b>x</b>"));
	answer_release(&a);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page(void)
{
	Suite *s = suite_create("page");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, listed_pages_are_answered_and_kept);
	tcase_add_test(tc, kept_answers_are_served_until_a_write);
	tcase_add_test(tc, unread_arguments_share_the_key);
	tcase_add_test(tc, refusals_and_redirects);
	tcase_add_test(tc, error_page);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page)
