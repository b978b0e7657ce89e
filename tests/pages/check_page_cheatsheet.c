/* check_page_cheatsheet.c: /cheatsheet (server/pages/page_cheatsheet.c)
 * built in process: a row per model, a column per hardware, the typical
 * figures in each cell, and the arguments it refuses. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_cheatsheet");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 60 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 64 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 130, .backend = "llama.cpp" }, "key-c", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct", .accelerator = "M3 Ultra",
		  .decode_tok_s = 50 }, "key-d", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* One row per model with one cell per hardware column; a cell's entry is
 * its combination's typical figures (the median over the two keys). */
START_TEST(rows_of_models_columns_of_hardware)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/cheatsheet.json")), *row, *cell;
	size_t i;

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "title"), "Cheatsheet");
	ck_assert_uint_eq(json_array_size(pages_at(m, "hardware")), 2);
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 2);
	json_array_foreach(pages_at(m, "rows"), i, row)
		ck_assert_uint_eq(json_array_size(json_object_get(row, "cells")), 2);
	row = json_array_get(pages_at(m, "rows"), 0);
	ck_assert_str_eq(pages_str(row, "model.slug"), "qwen3-8b");
	json_array_foreach(json_object_get(row, "cells"), i, cell)
		if (!strcmp(pages_str(cell, "hw"), "m3-ultra")) {
			ck_assert(json_real_value(pages_at(cell, "entries.0.median_decode_tok_s")) == 62.0);
			ck_assert_int_eq(json_integer_value(pages_at(cell, "entries.0.keys")), 2);
		}
	ck_assert_str_eq(pages_str(m, "json_href"), "/cheatsheet.json");
	ck_assert_str_eq(pages_str(m, "csv_href"), "/cheatsheet.csv");
	pages_done(&q, m);
}
END_TEST

/* ?backend= keeps that backend's entries in the cells (one here: Qwen3-8B
 * on the RTX 4090); ?memory= takes only a memory class and ?cursor= only a
 * cursor it wrote. */
START_TEST(filters_and_refusals)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/cheatsheet.json?backend=llama.cpp")), *row, *cell, *e;
	size_t i, j, k, n = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "backend"), "llama.cpp");
	json_array_foreach(pages_at(m, "rows"), i, row)
		json_array_foreach(json_object_get(row, "cells"), j, cell)
			json_array_foreach(json_object_get(cell, "entries"), k, e) {
				ck_assert_str_eq(pages_str(e, "backend"), "llama.cpp");
				ck_assert_str_eq(pages_str(e, "hw_slug"), "rtx-4090");
				n++;
			}
	ck_assert_uint_eq(n, 1);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/cheatsheet.json?memory=bogus"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "memory="));
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/cheatsheet.json?cursor=nope"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "cursor="));
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_cheatsheet(void)
{
	Suite *s = suite_create("page_cheatsheet");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_of_models_columns_of_hardware);
	tcase_add_test(tc, filters_and_refusals);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_cheatsheet)
