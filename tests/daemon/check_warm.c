/* check_warm.c: the pages built ahead (server/warm.c),
 * in process: every hardware's page, the board filtered to it, every
 * model's page and the sitemap are kept before anyone asks, once; a stop
 * before the first build builds nothing. */
#include "check_pages.h"

#include <time.h>

#include "util/metrics.h"
#include "warm.h"

static struct pages P;

/* Qwen3-8B on an M3 Ultra, Llama 3.1 8B on an RTX 4090. */
static void setup(void)
{
	pages_open(&P, "check_warm", 1);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 62 }, "key-a", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Llama-3.1-8B-Instruct",
		  .accelerator = "NVIDIA GeForce RTX 4090", .decode_tok_s = 120 }, "key-b", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* Two hardware pages, two filtered boards, two model pages and the
 * sitemap (one urlset, no files): seven pages kept, none twice. */
START_TEST(every_page_is_kept_once)
{
	uint64_t before = metrics_count(MC_PAGES_AHEAD);
	struct timespec t = { 0, 50 * 1000000L };
	struct warm *w;
	int i;

	ck_assert_uint_eq(cache_count(P.app.cache), 0);
	w = warm_start(&P.app);
	ck_assert_ptr_nonnull(w);
	for (i = 0; i < 400 && metrics_count(MC_PAGES_AHEAD) - before < 7; i++)
		nanosleep(&t, NULL);
	for (i = 0; i < 10; i++)   /* and no more come */
		nanosleep(&t, NULL);
	warm_stop(w);
	ck_assert_uint_eq(metrics_count(MC_PAGES_AHEAD) - before, 7);
	ck_assert_uint_eq(cache_count(P.app.cache), 7);
}
END_TEST

/* Stopped in its first second, nothing is built; --test-warm 0 starts
 * nothing. */
START_TEST(a_stop_before_the_first_build_builds_nothing)
{
	uint64_t before = metrics_count(MC_PAGES_AHEAD);
	struct warm *w = warm_start(&P.app);

	ck_assert_ptr_nonnull(w);
	warm_stop(w);
	ck_assert_uint_eq(metrics_count(MC_PAGES_AHEAD), before);
	ck_assert_uint_eq(cache_count(P.app.cache), 0);
	P.app.cfg.test_no_warm = 1;
	ck_assert_ptr_null(warm_start(&P.app));
	P.app.cfg.test_no_warm = 0;
}
END_TEST

/* The lists of models and hardware are read in index order, never by
 * a scan or a sort of the table. */
START_TEST(the_lists_read_an_index)
{
	struct dbconn *c = db_reader(P.app.db);
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; warm_sql[k]; k++) {
		char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", warm_sql[k]);
		sqlite3_stmt *st = NULL;
		int steps = 0;

		ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
		sqlite3_free(q);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 3);

			ck_assert_msg(strstr(d, "USING") && !strstr(d, "TEMP B-TREE"), "%s: %s", warm_sql[k], d);
			steps++;
		}
		sqlite3_finalize(st);
		ck_assert_int_ge(steps, 1);
	}
	ck_assert_uint_eq(k, 2);
}
END_TEST

static Suite *suite_page_warm(void)
{
	Suite *s = suite_create("page_warm");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_page_is_kept_once);
	tcase_add_test(tc, a_stop_before_the_first_build_builds_nothing);
	tcase_add_test(tc, the_lists_read_an_index);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_warm)
