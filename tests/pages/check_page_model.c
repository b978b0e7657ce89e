/* check_page_model.c: a model's page (server/pages/page_model.c) built in
 * process: its runs and combinations, its weights files, the 301 from a
 * name typed another way, and its 404s. */
#include "check_pages.h"

static struct pages P;

/* Qwen3-8B by two keys on an M3 Ultra and one on an RTX 4090. */
static void setup(void)
{
	pages_begin(&P, "check_page_model");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 63 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 140 }, "key-c", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The model's name and slug, its three runs fastest first, and one
 * combination per hardware. */
START_TEST(model_lists_its_runs_and_combinations)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "model.name"), "Qwen3-8B");
	ck_assert_str_eq(pages_str(m, "title"), "Qwen3-8B");
	ck_assert_int_eq(json_integer_value(pages_at(m, "list.count")), 3);
	ck_assert(json_real_value(pages_at(m, "list.runs.0.decode_tok_s")) == 140.0);
	ck_assert(json_real_value(pages_at(m, "list.runs.2.decode_tok_s")) == 61.0);
	ck_assert_uint_eq(json_array_size(pages_at(m, "combos.rows")), 2);
	ck_assert_str_eq(pages_str(m, "combos.rows.0.hw_slug"), "rtx-4090");
	ck_assert_uint_eq(json_array_size(pages_at(m, "digests")), 1);
	ck_assert_int_eq(json_integer_value(pages_at(m, "digests.0.runs")), 3);
	/* Links in the JSON lead to JSON. */
	ck_assert_ptr_nonnull(strstr(pages_str(m, "list.runs.0.href"), ".json"));
	ck_assert(json_is_false(pages_at(m, "sorted_groups")));
	pages_done(&q, m);
}
END_TEST

/* ?sort= orders the runs (ascending for time to first token) and says it
 * was asked for; an unknown one is a 400. */
START_TEST(sort_is_taken_once)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.json?sort=best"));

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "sort"), "best");
	ck_assert(json_is_true(pages_at(m, "sorted_groups")));
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.json?sort=fastest"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "sort="));
	pages_done(&q, m);
}
END_TEST

/* The model's name typed another way is a 301 to its slug's page, in the
 * route's form; a slug no run names, or a malformed one, is a 404. */
START_TEST(names_redirect_and_unknown_slugs_are_404)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/m/Qwen3-8B"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.redirect.status, 301);
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/m/Qwen3-8B.json"));
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b.json");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/m/no-such-model.json"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	ck_assert_uint_eq(q.v.redirect.status, 0);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/m/NOT_A_SLUG.json"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, m);
}
END_TEST

/* ?hw= narrows the runs to one hardware's. */
START_TEST(hw_filter_narrows_the_runs)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.json?hw=m3-ultra"));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(json_integer_value(pages_at(m, "list.count")), 2);
	ck_assert_str_eq(pages_str(m, "list.runs.0.hardware.slug"), "m3-ultra");
	ck_assert_str_eq(pages_str(m, "filters.hw"), "m3-ultra");
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_model(void)
{
	Suite *s = suite_create("page_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, model_lists_its_runs_and_combinations);
	tcase_add_test(tc, sort_is_taken_once);
	tcase_add_test(tc, names_redirect_and_unknown_slugs_are_404);
	tcase_add_test(tc, hw_filter_narrows_the_runs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_model)
