/* check_page_lists.c: /outliers and /disputes (server/pages/page_lists.c)
 * built in process: the run a cluster of twelve keys flags, the open
 * threads, the ?state= and ?sort= they take. */
#include "check_pages.h"

#include <sqlite3.h>

static struct pages P;
static char slow[RUN_ID_LEN], disputed[RUN_ID_LEN];

/* Twelve keys near 100 tok/s on one combination and a thirteenth at 30:
 * the last is far below its cluster's figures. */
static void setup(void)
{
	char key[16];
	int i;

	pages_begin(&P, "check_page_lists");
	for (i = 0; i < 12; i++) {
		snprintf(key, sizeof key, "key-%02d", i);
		pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
			  .decode_tok_s = 100 + i * 0.5, .fingerprint = "3f9a0c11d2e4b5a6" }, key,
			  i == 3 ? disputed : NULL);
	}
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 30, .fingerprint = "3f9a0c11d2e4b5a6" }, "key-12", slow);
}

static void teardown(void)
{
	pages_end(&P);
}

/* Opens a dispute thread on run id with one post, as post.c's write does. */
static void open_thread(const char *id)
{
	char sql[600];
	sqlite3 *h;

	snprintf(sql, sizeof sql,
		 "INSERT INTO dispute_threads(run_id, state, opened_at, last_post_at) VALUES ('%s', 'open', "
		 "'2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z');"
		 "INSERT INTO dispute_posts(run_id, author, body, by_submitter, created_at) VALUES ('%s', NULL, "
		 "'Why so fast?', 0, '2030-01-01T00:00:00Z');"
		 "UPDATE dispute_threads SET posts = posts + 1, last_post_id = last_insert_rowid() WHERE run_id = '%s';",
		 id, id, id);
	ck_assert_int_eq(sqlite3_open(P.t.path, &h), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* The slow run is the one outlier, below its cluster by sigmas. */
START_TEST(outliers_lists_the_flagged_run)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, "/outliers.json"));

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 1);
	ck_assert_str_eq(pages_str(m, "rows.0.id"), slow);
	ck_assert(json_real_value(pages_at(m, "rows.0.sigma")) < -3);
	ck_assert_ptr_nonnull(strstr(pages_str(m, "rows.0.sigma_text"), "below"));
	ck_assert_str_eq(pages_str(m, "sort"), "date");
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/outliers.json?sort=sigma"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	pages_done(&q, m);
}
END_TEST

/* An open thread is listed under /disputes (open by default), not among
 * the upheld; ?state= takes only open, upheld or dismissed. */
START_TEST(disputes_lists_open_threads)
{
	struct page_req q;
	json_t *m;

	open_thread(disputed);
	m = pages_build(pages_get(&q, &P, "/disputes.json"));
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(pages_str(m, "state"), "open");
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 1);
	ck_assert_str_eq(pages_str(m, "rows.0.id"), disputed);
	ck_assert_int_eq(json_integer_value(pages_at(m, "rows.0.posts")), 1);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/disputes.json?state=upheld"));
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "rows")), 0);
	pages_done(&q, m);
	m = pages_build(pages_get(&q, &P, "/disputes.json?state=closed"));
	ck_assert_ptr_null(m);
	ck_assert_uint_eq(q.v.err.status, 400);
	ck_assert_str_eq(q.v.err.message, "The state= argument must be open, upheld or dismissed.");
	pages_done(&q, m);
}
END_TEST

static Suite *suite_page_lists(void)
{
	Suite *s = suite_create("page_lists");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, outliers_lists_the_flagged_run);
	tcase_add_test(tc, disputes_lists_open_threads);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_lists)
