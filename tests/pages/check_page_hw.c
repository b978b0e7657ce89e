/* check_page_hw.c: a hardware's page (server/pages/page_hw.c) built in
 * process: its runs and combinations, ?model=, the 301 from a name typed
 * another way, and its 404s. */
#include "check_pages.h"

static struct pages P;

/* Two models on an M3 Ultra, one of them on an RTX 4090 too. */
static void setup(void)
{
	pages_begin(&P, "check_page_hw");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct", .accelerator = "M3 Ultra",
		  .decode_tok_s = 55 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 140 }, "key-c", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The hardware's combinations, one per model, fastest first, none of
 * another hardware's; its runs are listed only for one model (below). */
START_TEST(hw_lists_its_models)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/hw/m3-ultra.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "hardware.name"), "M3 Ultra");
	ck_assert(json_is_null(pages_at(m, "list")));
	ck_assert_uint_eq(json_array_size(pages_at(m, "combos.rows")), 2);
	ck_assert_str_eq(pages_str(m, "combos.rows.0.model_slug"), "qwen3-8b");
	ck_assert_str_eq(pages_str(m, "combos.rows.1.model_slug"), "llama-3-1-8b-instruct");
	pages_done(&q, m);
}
END_TEST

/* ?model= keeps one model's runs on the hardware. */
START_TEST(model_filter_keeps_one_model)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/hw/m3-ultra.json?model=llama-3-1-8b-instruct"));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(json_integer_value(pages_at(m, "list.count")), 1);
	ck_assert_str_eq(pages_str(m, "list.runs.0.model.slug"), "llama-3-1-8b-instruct");
	pages_done(&q, m);
}
END_TEST

/* A name typed another way is a 301; a slug no run names is a 404. */
START_TEST(names_redirect_and_unknown_slugs_are_404)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/hw/M3 Ultra"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.redirect.status, 301);
	ck_assert_str_eq(q.v.redirect.to.buf, "/hw/m3-ultra");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/hw/no-such-hw.json"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_hw(void)
{
	Suite *s = suite_create("page_hw");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, hw_lists_its_models);
	tcase_add_test(tc, model_filter_keeps_one_model);
	tcase_add_test(tc, names_redirect_and_unknown_slugs_are_404);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_hw)
