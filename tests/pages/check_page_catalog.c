/* check_page_catalog.c: /models and /hardware (server/pages/page_catalog.c)
 * built in process: one row per model or hardware, by its leading
 * combination, in every ?sort= order, and their refusals. */
#include "check_pages.h"

static struct pages P;

/* Qwen3-8B on two machines, Llama on one (faster), Alpha once (slowest). */
static void setup(void)
{
	pages_begin(&P, "check_page_catalog");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Max",
		  .decode_tok_s = 50 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct", .accelerator = "M3 Ultra",
		  .decode_tok_s = 90 }, "key-c", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Alpha-1B", .accelerator = "M3 Max",
		  .decode_tok_s = 20 }, "key-d", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* /models: each model once, by its leading combination's median decode;
 * a row names its best run and links to the model's JSON. */
START_TEST(models_by_median_decode)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/models.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "title"), "Models");
	ck_assert_str_eq(pages_str(m, "kind"), "model");
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 3);
	ck_assert_str_eq(pages_str(m, "rows.0.slug"), "llama-3-1-8b-instruct");
	ck_assert_str_eq(pages_str(m, "rows.1.slug"), "qwen3-8b");
	ck_assert_int_eq(json_integer_value(pages_at(m, "rows.1.runs")), 2);
	ck_assert(json_real_value(pages_at(m, "rows.1.best_decode_tok_s")) == 61.0);
	ck_assert_str_eq(pages_str(m, "rows.1.href"), "/m/qwen3-8b.json");
	ck_assert_str_eq(pages_str(m, "rows.2.slug"), "alpha-1b");
	pages_done(&q, m);
}
END_TEST

/* ?sort=name and ?sort=runs reorder; the sort links lead to the kind's own
 * address; an unknown order is a 400 listing the four. */
START_TEST(sorts_and_refusals)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/models.json?sort=name"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "sort"), "name");
	ck_assert_str_eq(pages_str(m, "rows.0.slug"), "alpha-1b");
	ck_assert_str_eq(pages_str(m, "rows.2.slug"), "qwen3-8b");
	ck_assert_str_eq(pages_str(m, "sorts.0.href"), "/models.json");
	ck_assert_str_eq(pages_str(m, "sorts.3.href"), "/models.json?sort=name");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/models.json?sort=runs"));
	ck_assert_str_eq(pages_str(m, "rows.0.slug"), "qwen3-8b");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/models.json?sort=speed"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_str_eq(q.v.err.message, "The sort= argument must be decode, best, runs or name.");
	pages_done(&q, m);
}
END_TEST

/* /hardware: each machine once, by name when asked; its page's address. */
START_TEST(hardware_lists_machines)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/hardware?sort=name"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "title"), "Hardware");
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 2);
	ck_assert_str_eq(pages_str(m, "rows.0.slug"), "m3-max");
	ck_assert_str_eq(pages_str(m, "rows.0.href"), "/hw/m3-max");
	ck_assert_str_eq(pages_str(m, "suites.0.href"), "/hardware?suite=suite-v1");
	ck_assert(json_is_false(pages_at(m, "is_models")));
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_catalog(void)
{
	Suite *s = suite_create("page_catalog");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, models_by_median_decode);
	tcase_add_test(tc, sorts_and_refusals);
	tcase_add_test(tc, hardware_lists_machines);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_catalog)
