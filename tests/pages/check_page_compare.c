/* check_page_compare.c: /compare (server/pages/page_compare.c) built in
 * process: runs side by side with their figures, and the r= it refuses. */
#include "check_pages.h"

static struct pages P;
static char a[RUN_ID_LEN], b[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_page_compare");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 60 }, "key-a", a);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 120 }, "key-b", b);
}

static void teardown(void)
{
	pages_end(&P);
}

/* Two runs are compared in the order named, each numbered, with the
 * figures both have. */
START_TEST(runs_side_by_side)
{
	struct page_req q;
	char target[80];
	json_t *m;

	snprintf(target, sizeof target, "/compare.json?r=%s,%s", b, a);
	m = pages_build(pages_get(&q, &P, target));
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "runs")), 2);
	ck_assert_str_eq(pages_str(m, "runs.0.id"), b);
	ck_assert_str_eq(pages_str(m, "runs.1.id"), a);
	ck_assert_int_eq(json_integer_value(pages_at(m, "runs.1.n")), 2);
	ck_assert_str_eq(pages_str(m, "runs.0.hardware.slug"), "rtx-4090");
	ck_assert_uint_gt(json_array_size(pages_at(m, "figures.rows")), 0);
	ck_assert(json_is_false(pages_at(m, "single")));
	pages_done(&q, m);
}
END_TEST

/* No r= at all is the form that picks runs (issue 38), by model or
 * hardware; an empty r=, ids that are not run ids, and an id no run has
 * are refused: 400, 400, 404 naming the id. */
START_TEST(bad_run_lists_are_refused)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/compare.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert(json_is_true(pages_at(m, "choosing")));
	ck_assert_uint_eq(json_array_size(pages_at(m, "choose.rows")), 0);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/compare.json?hw=rtx-4090"));
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_gt(json_array_size(pages_at(m, "choose.rows")), 0);
	ck_assert_str_eq(pages_str(m, "choose.rows.0.hw_slug"), "rtx-4090");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/compare.json?r="));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "?r=<id>,<id>"));
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/compare.json?r=nope,x"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/compare.json?r=r_aaaaaaaaaaa,r_bbbbbbbbbbb"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "r_aaaaaaaaaaa"));
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_compare(void)
{
	Suite *s = suite_create("page_compare");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, runs_side_by_side);
	tcase_add_test(tc, bad_run_lists_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_compare)
