/* check_page_run_model.c: a run's view model (server/pages/page_run_model.c), the
 * JSON of /r/<id>.json without its log proof, built in process: what the
 * run's row and signed payload say, who judges it, and the refusals. */
#include "check_pages.h"

static struct pages P;
static char id[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_page_run_model");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 61.5 }, "key-a", id);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 63.5 }, "key-b", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The run's figures, names, signature and links, its payload as signed,
 * and its judging: by its combination of two keys until a cluster has 11. */
START_TEST(model_of_a_run)
{
	struct page_req q;
	char url[80];
	json_t *m;

	pages_get(&q, &P, "/r/x.json");
	m = page_run_model(&q.r, id, &q.v.err);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "id"), id);
	snprintf(url, sizeof url, PAGES_ORIGIN "/r/%s", id);
	ck_assert_str_eq(pages_str(m, "url"), url);
	ck_assert(json_real_value(pages_at(m, "decode_tok_s")) == 61.5);
	ck_assert_str_eq(pages_str(m, "model.slug"), "qwen3-8b");
	ck_assert_str_eq(pages_str(m, "hardware.slug"), "m3-ultra");
	ck_assert_str_eq(pages_str(m, "backend.version"), "0.31.3");
	ck_assert_str_eq(pages_str(m, "signing.alg"), "EdDSA");
	ck_assert_str_eq(pages_str(m, "status"), "ok");
	ck_assert(json_is_false(pages_at(m, "outlier.flagged")));
	ck_assert_str_eq(pages_str(m, "outlier.decided_by"), "combination");
	ck_assert_int_eq(json_integer_value(pages_at(m, "outlier.combination.keys")), 2);
	ck_assert(json_real_value(pages_at(m, "payload.workloads.chat-short.decode_tok_s")) == 61.5);
	ck_assert_str_eq(pages_str(m, "dispute.state"), "open");
	pages_done(&q, m);
}
END_TEST

/* A malformed id and an id no run has are both a 404 with the one
 * sentence for it. */
START_TEST(unknown_runs_are_404)
{
	struct page_req q;

	pages_get(&q, &P, "/r/x.json");
	ck_assert_ptr_null(page_run_model(&q.r, "not-a-run-id", &q.v.err));
	ck_assert_uint_eq(q.v.err.status, 404);
	ck_assert_str_eq(q.v.err.message, MSG_NO_RUN);
	q.v.err = (struct err)ERR_INIT;
	ck_assert_ptr_null(page_run_model(&q.r, "r_aaaaaaaaaaa", &q.v.err));
	ck_assert_uint_eq(q.v.err.status, 404);
	pages_done(&q, NULL);
}
END_TEST

static Suite *suite_page_run_model(void)
{
	Suite *s = suite_create("page_run_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, model_of_a_run);
	tcase_add_test(tc, unknown_runs_are_404);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_run_model)
