/* check_page_run.c: a run's page (server/pages/page_run.c) built in
 * process: the page's parts (its rank, its view of every workload, its
 * title), whether page_serve keeps it, its 404s, and its signed bytes
 * (/r/<id>.jws) as an answer. */
#include "check_pages.h"

static struct pages P;
static char id[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_page_run");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61.5, .all_workloads = 1 }, "key-a", id);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The page has its rank and a view of its workloads (chat, decay,
 * concurrency, agent), and a title
 * naming model and hardware; kept (tagged with its population) when
 * page_serve keyed it, not otherwise. */
START_TEST(page_parts_and_keeping)
{
	struct page_req q;
	char target[40];
	json_t *m;

	snprintf(target, sizeof target, "/r/%s", id);
	m = pages_build(pages_get(&q, &P, target));
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(pages_at(m, "rank.digest"));
	ck_assert_ptr_nonnull(pages_at(m, "view.chat"));
	ck_assert_ptr_nonnull(pages_at(m, "view.w3"));
	ck_assert_ptr_nonnull(pages_at(m, "view.w5"));
	ck_assert_msg(strstr(pages_str(m, "title"), "Qwen3-8B") && strstr(pages_str(m, "title"), "M3 Ultra"),
		      "%s", pages_str(m, "title"));
	ck_assert_int_eq(q.v.keep, 0);
	pages_done(&q, m);
	pages_get(&q, &P, target);
	snprintf(q.v.key, sizeof q.v.key, "%s", id);     /* as page_serve keys it */
	m = pages_build(&q.v);
	ck_assert_int_eq(q.v.keep, 1);
	ck_assert_uint_ne(q.v.tag, 0);
	pages_done(&q, m);
}
END_TEST

/* An id no run has is a 404; so is one that is no run id at all. */
START_TEST(unknown_runs_are_404)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/r/r_aaaaaaaaaaa"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/r/nope"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
}
END_TEST

/* /r/<id>.jws answers the bytes as signed, kept for good (CC_IMMUTABLE,
 * ETag); an unknown id is a 404 refusal. */
START_TEST(jws_answers_the_signed_bytes)
{
	struct page_req q;
	struct answer a = ANSWER_INIT;
	char target[40];

	snprintf(target, sizeof target, "/r/%s", id);
	pages_get(&q, &P, target);
	ck_assert_int_eq(page_run_jws(&q.r, &a), 0);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_JOSE);
	ck_assert_str_eq(a.o.cache_control, CC_IMMUTABLE);
	ck_assert_int_eq(a.o.etag, 1);
	ck_assert_uint_eq(a.len, a.body.len);
	ck_assert_ptr_nonnull(strchr(a.body.buf, '.'));
	ck_assert_int_eq(strncmp(a.body.buf, "eyJ", 3), 0);   /* base64url of '{"' */
	answer_release(&a);
	a = (struct answer)ANSWER_INIT;
	snprintf(q.r.arg, sizeof q.r.arg, "r_aaaaaaaaaaa");
	ck_assert_int_eq(page_run_jws(&q.r, &a), -1);
	ck_assert_uint_eq(a.err.status, 404);
	answer_release(&a);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page_run(void)
{
	Suite *s = suite_create("page_run");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, page_parts_and_keeping);
	tcase_add_test(tc, unknown_runs_are_404);
	tcase_add_test(tc, jws_answers_the_signed_bytes);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_run)
