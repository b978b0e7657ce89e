/* check_page_model_hw.c: one model on one hardware
 * (server/pages/page_model_hw.c) built in process: a row per backend and
 * weights file, the page of a pair never measured, and its 404s. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_model_hw");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .decode_tok_s = 61 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "llama.cpp", .decode_tok_s = 55 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Max",
		  .backend = "mlx", .decode_tok_s = 40 }, "key-c", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* Both backends measured on the M3 Ultra, and not the M3 Max's run; the
 * names and links of the model and hardware; kept for the next request. */
START_TEST(rows_per_backend)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b/hw/m3-ultra.json")), *w, *row;
	size_t i, j, n = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "title"), "Qwen3-8B on M3 Ultra");
	ck_assert_str_eq(pages_str(m, "model.href"), "/m/qwen3-8b.json");
	ck_assert_str_eq(pages_str(m, "hardware.href"), "/hw/m3-ultra.json");
	ck_assert(json_is_true(pages_at(m, "model.measured")));
	ck_assert(json_is_false(pages_at(m, "empty")));
	json_array_foreach(pages_at(m, "weights"), i, w)
		json_array_foreach(json_object_get(w, "rows"), j, row) {
			ck_assert_str_eq(pages_str(row, "hw_slug"), "m3-ultra");
			n++;
		}
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(json_integer_value(pages_at(m, "rows_count")), 2);
	pages_done(&q, m);
}
END_TEST

/* A pair in the reference data but never measured has a page, empty, kept
 * with its ask as its note (each visit to the kept copy counts it); a
 * model that is neither measured nor known is a 404. */
START_TEST(empty_pairs_and_unknown_models)
{
	struct page_req q;
	json_t *m;

	pages_get(&q, &P, "/m/qwen3-8b/hw/rtx-4090.json");
	snprintf(q.v.key, sizeof q.v.key, "Lsomething");     /* as page_serve keys it */
	m = pages_build(&q.v);
	ck_assert_ptr_nonnull(m);
	ck_assert(json_is_true(pages_at(m, "empty")));
	ck_assert_int_eq(json_integer_value(pages_at(m, "rows_count")), 0);
	ck_assert_int_eq(q.v.keep, 1);
	ck_assert_ptr_nonnull(strstr(q.v.note, "\nqwen3-8b\nrtx-4090"));
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/m/no-such-model/hw/m3-ultra.json"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_model_hw(void)
{
	Suite *s = suite_create("page_model_hw");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_per_backend);
	tcase_add_test(tc, empty_pairs_and_unknown_models);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_model_hw)
