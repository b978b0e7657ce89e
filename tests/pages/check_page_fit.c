/* check_page_fit.c: /fit (server/pages/page_fit.c) built in process: the
 * memory a model needs on a machine and the fastest it can decode there,
 * the runs measured beside it, and the arguments it refuses. */
#include "check_pages.h"

#include <math.h>

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_fit");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen2.5-7B-Instruct-4bit", .accelerator = "M3 Ultra",
		  .decode_tok_s = 110 }, "key-a", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* Qwen2.5 7B in Q4_K_M at 8K context on an M3 Ultra: weights, cache and
 * overhead add up to the total, which fits in its memory; the ceiling is
 * its sustained bandwidth over the bytes one step reads. */
START_TEST(fit_adds_up_memory_and_the_ceiling)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/fit.json?model=qwen2-5-7b&hw=m3-ultra"));
	double w, kv, total, read, sus;

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "inputs.format"), "q4_k_m");
	ck_assert_int_eq(json_integer_value(pages_at(m, "inputs.context")), 8192);
	w = json_real_value(pages_at(m, "result.weights_gb"));
	kv = json_real_value(pages_at(m, "result.kv_cache_gb"));
	total = json_real_value(pages_at(m, "result.total_gb"));
	read = json_real_value(pages_at(m, "result.read_per_step_gb"));
	sus = json_real_value(pages_at(m, "result.sustained_gb_s"));
	ck_assert(w > 4 && w < 5);
	ck_assert(fabs(total - (w + kv + json_real_value(pages_at(m, "result.overhead_gb")) +
			json_real_value(pages_at(m, "result.state_gb")))) < 1e-9);
	ck_assert(json_is_true(pages_at(m, "result.fits")));
	ck_assert(fabs(json_real_value(pages_at(m, "result.ceiling_tok_s")) - sus / read) < 1e-6);
	ck_assert_str_eq(pages_str(m, "hardware.slug"), "m3-ultra");
	pages_done(&q, m);
}
END_TEST

/* Doubling the context doubles the cache and lowers the ceiling. */
START_TEST(context_moves_the_cache)
{
	struct page_req q;
	json_t *a = pages_build(pages_get(&q, &P, "/fit.json?model=qwen2-5-7b&hw=m3-ultra&context=8192"));
	double kv8 = json_real_value(pages_at(a, "result.kv_cache_gb"));
	double c8 = json_real_value(pages_at(a, "result.ceiling_tok_s"));
	json_t *b;

	pages_done(&q, a);
	b = pages_build(pages_get(&q, &P, "/fit.json?model=qwen2-5-7b&hw=m3-ultra&context=16384"));
	ck_assert_ptr_nonnull(b);
	ck_assert(fabs(json_real_value(pages_at(b, "result.kv_cache_gb")) - 2 * kv8) < 1e-9);
	ck_assert(json_real_value(pages_at(b, "result.ceiling_tok_s")) < c8);
	pages_done(&q, b);
}
END_TEST

/* A context that is not a number is a 400 naming it; page_fit_number
 * takes a whole number in range and nothing else. */
START_TEST(bad_numbers_are_refused)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/fit.json?model=qwen2-5-7b&hw=m3-ultra&context=abc"));
	double d = -1;

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_str_eq(q.v.err.field, "context");
	pages_done(&q, m);
	pages_get(&q, &P, "/fit.json?n=12&f=1.5&s=+3&e=&big=1e9");
	ck_assert_int_eq(page_fit_number(&q.r, "n", 1, 100, 1, &d), 1);
	ck_assert(d == 12);
	ck_assert_int_eq(page_fit_number(&q.r, "f", 1, 100, 1, &d), -1);
	ck_assert_int_eq(page_fit_number(&q.r, "f", 1, 100, 0, &d), 1);
	ck_assert(d == 1.5);
	ck_assert_int_eq(page_fit_number(&q.r, "s", 1, 100, 0, &d), -1);
	ck_assert_int_eq(page_fit_number(&q.r, "e", 1, 100, 0, &d), 0);
	ck_assert_int_eq(page_fit_number(&q.r, "absent", 1, 100, 0, &d), 0);
	ck_assert_int_eq(page_fit_number(&q.r, "big", 1, 100, 0, &d), -1);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page_fit(void)
{
	Suite *s = suite_create("page_fit");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, fit_adds_up_memory_and_the_ceiling);
	tcase_add_test(tc, context_moves_the_cache);
	tcase_add_test(tc, bad_numbers_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_fit)
