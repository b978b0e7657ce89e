/* check_page_search.c: /search (server/pages/page_search.c) built in
 * process: names found by a part of them, the 303 an exact name or
 * "<model> on <hardware>" answers with on the page for people, and the
 * arguments it refuses. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_search");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen2.5-7B-Instruct", .accelerator = "M3 Ultra",
		  .decode_tok_s = 70 }, "key-b", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct", .accelerator = "M3 Max",
		  .decode_tok_s = 40 }, "key-c", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* A part of a name finds every model whose name holds it, and nothing
 * else; each result says what it is and links to its page. */
START_TEST(part_of_a_name_finds_the_models)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/search.json?q=qwen"));
	json_t *hit;
	size_t i;

	ck_assert_ptr_nonnull(m);
	ck_assert(json_is_true(pages_at(m, "searched")));
	ck_assert_str_eq(pages_str(m, "q"), "qwen");
	ck_assert_uint_eq(json_array_size(pages_at(m, "results")), 2);
	json_array_foreach(pages_at(m, "results"), i, hit) {
		ck_assert_str_eq(pages_str(hit, "kind"), "model");
		ck_assert_ptr_nonnull(strcasestr(pages_str(hit, "name"), "qwen"));
		ck_assert_ptr_nonnull(strstr(pages_str(hit, "href"), ".json"));
	}
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/search.json?q=llama"));
	ck_assert_uint_eq(json_array_size(pages_at(m, "results")), 1);
	ck_assert_str_eq(pages_str(m, "results.0.slug"), "llama-3-1-8b-instruct");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/search.json"));
	ck_assert_ptr_nonnull(m);
	ck_assert(json_is_false(pages_at(m, "searched")));
	ck_assert_str_eq(pages_str(m, "title"), "Search");
	pages_done(&q, m);
}
END_TEST

/* For people, an exact name is answered by its page (303, not kept), and
 * so is "<model> on <hardware>"; the JSON twin lists instead. */
START_TEST(exact_names_are_redirects_for_people)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/search?q=Qwen3-8B"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.redirect.status, 303);
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b");
	ck_assert_str_eq(q.v.redirect.cache_control, CC_NONE);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/search?q=qwen3-8b on M3 Ultra"));
	ck_assert_ptr_null(m);
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b/hw/m3-ultra");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/search.json?q=Qwen3-8B"));
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(q.v.redirect.status, 0);
	ck_assert_str_eq(pages_str(m, "results.0.slug"), "qwen3-8b");
	pages_done(&q, m);
}
END_TEST

/* A page= that is not a page number is a 400 naming it. */
START_TEST(bad_page_is_refused)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/search.json?q=qwen&page=x"));

	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_ptr_nonnull(strstr(q.v.err.message, "page="));
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_search(void)
{
	Suite *s = suite_create("page_search");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, part_of_a_name_finds_the_models);
	tcase_add_test(tc, exact_names_are_redirects_for_people);
	tcase_add_test(tc, bad_page_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_search)
