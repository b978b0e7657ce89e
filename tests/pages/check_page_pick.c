/* check_page_pick.c: "<model> on <hardware>" (server/pages/page_pick.c),
 * as the picker and search read it, built in process: names and slugs of
 * what was measured or is in the reference data. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_pick");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* A name or slug on either side, as typed; the reference data's models
 * and hardware count too, measured or not; what reads otherwise is 0. */
START_TEST(pairs_are_read)
{
	struct page_req q;
	char to[200];

	pages_get(&q, &P, "/");
	ck_assert_int_eq(page_pick_pair(&q.r, "Qwen3-8B on M3 Ultra", to, sizeof to), 1);
	ck_assert_str_eq(to, "/m/qwen3-8b/hw/m3-ultra");
	ck_assert_int_eq(page_pick_pair(&q.r, "qwen3-8b on m3-ultra", to, sizeof to), 1);
	ck_assert_str_eq(to, "/m/qwen3-8b/hw/m3-ultra");
	ck_assert_int_eq(page_pick_pair(&q.r, "qwen3-8b on rtx-4090", to, sizeof to), 1);
	ck_assert_str_eq(to, "/m/qwen3-8b/hw/rtx-4090");
	ck_assert_int_eq(page_pick_pair(&q.r, "qwen3-8b", to, sizeof to), 0);
	ck_assert_int_eq(page_pick_pair(&q.r, "no such model on m3-ultra", to, sizeof to), 0);
	ck_assert_int_eq(page_pick_pair(&q.r, "qwen3-8b on no such thing", to, sizeof to), 0);
	pages_done(&q, NULL);
}
END_TEST

/* The picker's empty field is a 400 form naming it; a known pair with
 * ?suite= keeps the suite. */
START_TEST(picker_form_and_redirect)
{
	struct page_req q;
	json_t *m = NULL;

	pages_get(&q, &P, "/?model=&hw=m3-ultra");
	ck_assert_int_eq(page_pick(&q.v, &m), 1);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(q.v.status, 400);
	ck_assert_str_eq(q.v.tmpl, "pick");
	ck_assert_str_ne(pages_str(m, "pick.model_error"), "");
	pages_done(&q, m);
	m = NULL;
	pages_get(&q, &P, "/?model=qwen3-8b&hw=M3 Ultra");
	ck_assert_int_eq(page_pick(&q.v, &m), 1);
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.redirect.status, 303);
	ck_assert_str_eq(q.v.redirect.to.buf, "/m/qwen3-8b/hw/m3-ultra");
	pages_done(&q, m);
	pages_get(&q, &P, "/?hw=m3-ultra");
	ck_assert_int_eq(page_pick(&q.v, &m), 0);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page_pick(void)
{
	Suite *s = suite_create("page_pick");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pairs_are_read);
	tcase_add_test(tc, picker_form_and_redirect);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_pick)
