/* check_rank.c: where a run's decode falls (server/pages/rank.c) among the
 * counted runs of its cluster and its weights file, from the histograms
 * the writes keep, built in process. */
#include "check_pages.h"

static struct pages P;
static char fast[RUN_ID_LEN], mid[RUN_ID_LEN], other[RUN_ID_LEN];

/* Three runs of one weights file on one machine (40, 50, 60 tok/s), and
 * one on another machine. */
static void setup(void)
{
	pages_begin(&P, "check_rank");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 40, .fingerprint = "3f9a0c11d2e4b5a6" }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 50, .fingerprint = "3f9a0c11d2e4b5a6" }, "key-b", mid);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 60, .fingerprint = "3f9a0c11d2e4b5a6" }, "key-c", fast);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 130, .fingerprint = "00000000000000aa" }, "key-d", other);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The rank of run id: its view model with "rank" added. */
static json_t *ranked(const char *id)
{
	struct page_req q;
	json_t *m;

	pages_get(&q, &P, "/r/x");
	m = page_run_model(&q.r, id, &q.v.err);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(page_rank_add(&q.r, m), 0);
	pages_done(&q, NULL);
	return m;
}

/* The fastest of its cluster is faster than both others there, and than
 * two of the three others of its weights file anywhere; the middle one is
 * in the middle; the strip is drawn. */
START_TEST(ranks_within_cluster_and_weights_file)
{
	json_t *m = ranked(fast);

	ck_assert_int_eq(json_integer_value(pages_at(m, "rank.cluster.runs")), 3);
	ck_assert_int_eq(json_integer_value(pages_at(m, "rank.cluster.others")), 2);
	ck_assert(json_real_value(pages_at(m, "rank.cluster.pct")) == 100.0);
	ck_assert_msg(!strncmp(pages_str(m, "rank.cluster.text"), "Faster than all 2 other runs", 28),
		      "%s", pages_str(m, "rank.cluster.text"));
	ck_assert_int_eq(json_integer_value(pages_at(m, "rank.digest.runs")), 4);
	ck_assert_int_eq(json_integer_value(pages_at(m, "rank.digest.others")), 3);
	ck_assert_msg(!strncmp(pages_str(m, "rank.digest.text"), "Faster than 67% of the 3 other runs", 35),
		      "%s", pages_str(m, "rank.digest.text"));
	ck_assert_ptr_nonnull(strstr(pages_str(m, "rank.svg"), "<svg"));
	json_decref(m);
	m = ranked(mid);
	ck_assert(json_real_value(pages_at(m, "rank.cluster.pct")) == 50.0);
	json_decref(m);
	m = ranked(other);
	ck_assert_msg(!strncmp(pages_str(m, "rank.cluster.text"), "The only counted run", 20),
		      "%s", pages_str(m, "rank.cluster.text"));
	ck_assert(json_is_null(pages_at(m, "rank.cluster.pct")));
	json_decref(m);
}
END_TEST

static Suite *suite_rank(void)
{
	Suite *s = suite_create("rank");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ranks_within_cluster_and_weights_file);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_rank)
