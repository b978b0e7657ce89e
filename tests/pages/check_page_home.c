/* check_page_home.c: the board (server/pages/page_home.c) built in process:
 * its combinations ordered by median decode over submitters, the ?sort=,
 * ?hw= and ?suite= arguments, and the picker's redirect and form. */
#include "check_pages.h"

static struct pages P;

/* Qwen3-8B on M3 Ultra by three keys (62 tok/s typical), Llama 3.1 8B on
 * an RTX 4090 by one (120 tok/s, slower to its first token). */
static void setup(void)
{
	static const double qwen[] = { 60, 62, 64 };
	static const char *const keys[] = { "key-a", "key-b", "key-c" };
	size_t i;

	pages_begin(&P, "check_page_home");
	for (i = 0; i < 3; i++)
		pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
			  .decode_tok_s = qwen[i], .ttft_ms = 300 }, keys[i], NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct",
		  .accelerator = "NVIDIA GeForce RTX 4090", .decode_tok_s = 120, .ttft_ms = 900 },
		  "key-d", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* One row per combination, the highest median decode first, with its
 * counts: runs, and keys each counted once. */
START_TEST(board_lists_combinations_by_median_decode)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/index.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "suite_version"), "suite-v1");
	ck_assert_uint_eq(json_array_size(pages_at(m, "board.rows")), 2);
	ck_assert_str_eq(pages_str(m, "board.rows.0.model_slug"), "llama-3-1-8b-instruct");
	ck_assert_str_eq(pages_str(m, "board.rows.1.model_slug"), "qwen3-8b");
	ck_assert_str_eq(pages_str(m, "board.rows.1.hw_slug"), "m3-ultra");
	ck_assert_int_eq(json_integer_value(pages_at(m, "board.rows.1.runs")), 3);
	ck_assert_int_eq(json_integer_value(pages_at(m, "board.rows.1.keys")), 3);
	ck_assert(json_real_value(pages_at(m, "board.rows.1.median_decode_tok_s")) == 62.0);
	ck_assert_str_eq(pages_str(m, "sort"), "decode");
	ck_assert_int_eq(json_integer_value(pages_at(m, "recent.count")), 4);
	pages_done(&q, m);
}
END_TEST

/* ?sort=ttft puts the quickest first token first; an unknown order is a
 * 400 naming the argument and every order it takes. */
START_TEST(sort_orders_the_board_or_is_refused)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/index.json?sort=ttft"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "sort"), "ttft");
	ck_assert_str_eq(pages_str(m, "board.rows.0.model_slug"), "qwen3-8b");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/index.json?sort=nope"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_str_eq(err_code(&q.v.err), "invalid_query");
	ck_assert_str_eq(q.v.err.message, "The sort= argument must be decode, prefill, ttft, date or best.");
	pages_done(&q, m);
}
END_TEST

/* ?hw= keeps that hardware's rows; a suite without runs is a 404. */
START_TEST(filters_narrow_the_board)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/index.json?hw=m3-ultra"));

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "board.rows")), 1);
	ck_assert_str_eq(pages_str(m, "board.rows.0.hw_slug"), "m3-ultra");
	ck_assert(json_is_true(pages_at(m, "filters.active")));
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/index.json?suite=suite-v9"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
}
END_TEST

/* The picker on the page for people: a known model and hardware is a 303
 * to their page (the suite carried); an unknown one is the form again, a
 * 404 naming the field; the JSON twin has no picker. */
START_TEST(picker_redirects_or_shows_the_form)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/?model=Qwen3-8B&hw=m3-ultra&suite=suite-v1"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.redirect.status, 303);
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b/hw/m3-ultra?suite=suite-v1");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/?model=no-such-model&hw=m3-ultra"));
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(q.v.tmpl, "pick");
	ck_assert_uint_eq(q.v.status, 404);
	ck_assert_ptr_nonnull(strstr(pages_str(m, "pick.model_error"), "no-such-model"));
	ck_assert_str_eq(pages_str(m, "pick.hw_error"), "");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/index.json?model=qwen3-8b&hw=m3-ultra"));
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(q.v.redirect.status, 0);
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_home(void)
{
	Suite *s = suite_create("page_home");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, board_lists_combinations_by_median_decode);
	tcase_add_test(tc, sort_orders_the_board_or_is_refused);
	tcase_add_test(tc, filters_narrow_the_board);
	tcase_add_test(tc, picker_redirects_or_shows_the_form);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_home)
