/* check_twins.c: a page's twins (server/pages/twins.c) in process: the
 * CSV of a page's table with absolute addresses, the rows made for
 * /compare, and each page's <link rel="alternate"> list carrying its
 * query to the twins. */
#include "check_pages.h"

#include <math.h>

static struct pages P;
static char a_id[RUN_ID_LEN], b_id[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_twins");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 61 }, "key-a", a_id);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .decode_tok_s = 63 }, "key-b", b_id);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The model's runs as CSV: the header the kind's table names, a record a
 * run, its url column the run's absolute address; CRLF ends each record. */
START_TEST(csv_of_a_page_table)
{
	struct page_req q;
	struct answer a = ANSWER_INIT;
	json_t *m = pages_build(pages_get(&q, &P, "/m/qwen3-8b.csv?hw=m3-ultra"));
	char url[80];

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(twins_csv(&q.v, m, &a), 0);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_CSV);
	ck_assert_int_eq(strncmp(a.body.buf, "\"id\",\"url\",\"model\",", 19), 0);
	snprintf(url, sizeof url, "\"" PAGES_ORIGIN "/r/%s\"", b_id);
	ck_assert_msg(strstr(a.body.buf, url), "%s", a.body.buf);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "\r\n"));
	ck_assert_int_eq(a.body.buf[a.body.len - 1], '\n');
	answer_release(&a);
	pages_done(&q, m);
}
END_TEST

/* /compare's CSV has a row per figure and run: the second run's W1 decode
 * is its own, with its percent from run 1's. */
START_TEST(compare_rows_per_figure_and_run)
{
	struct page_req q;
	char target[80];
	json_t *m, *rows, *row;
	size_t i, decode = 0;

	snprintf(target, sizeof target, "/compare.csv?r=%s,%s", a_id, b_id);
	m = pages_build(pages_get(&q, &P, target));
	ck_assert_ptr_nonnull(m);
	rows = twins_compare_rows(m);
	ck_assert_uint_gt(json_array_size(rows), 2);
	json_array_foreach(rows, i, row)
		if (json_integer_value(json_object_get(row, "n")) == 2 &&
		    !strcmp(pages_str(row, "figure"), "W1 decode")) {
			ck_assert_str_eq(pages_str(row, "id"), b_id);
			ck_assert(json_number_value(json_object_get(row, "value")) == 63);
			ck_assert(fabs(json_number_value(json_object_get(row, "pct")) - 200.0 / 61) < 1e-9);
			decode++;
		}
	ck_assert_uint_eq(decode, 1);
	json_decref(rows);
	pages_done(&q, m);
}
END_TEST

/* A page's alternates: its JSON and CSV twins with the query it was asked
 * with (empty arguments left out), and its feed without one. */
START_TEST(alternates_carry_the_query)
{
	struct page_req q;
	json_t *m = json_object();

	pages_get(&q, &P, "/m/qwen3-8b?sort=ttft&hw=");
	twins_add_alternates(&q.v, m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "alternates")), 3);
	ck_assert_str_eq(pages_str(m, "alternates.0.type"), CT_JSON);
	ck_assert_str_eq(pages_str(m, "alternates.0.href"), "/m/qwen3-8b.json?sort=ttft");
	ck_assert_str_eq(pages_str(m, "alternates.1.href"), "/m/qwen3-8b.csv?sort=ttft");
	ck_assert_str_eq(pages_str(m, "alternates.2.type"), CT_ATOM);
	ck_assert_str_eq(pages_str(m, "alternates.2.href"), "/m/qwen3-8b.atom");
	pages_done(&q, m);
}
END_TEST

/* Every declared twin or feed is an alternate, a CSV twin or not: /changes
 * advertises its JSON and its Atom feed, one model on one hardware its
 * JSON at its own address (both stars of its path filled), a run's page
 * kept under its id its JSON without the query. */
START_TEST(every_twin_and_feed_is_an_alternate)
{
	struct page_req q;
	char target[80], want[80];
	json_t *m = json_object();

	pages_get(&q, &P, "/changes?hw=m3-ultra");
	twins_add_alternates(&q.v, m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "alternates")), 2);
	ck_assert_str_eq(pages_str(m, "alternates.0.href"), "/changes.json?hw=m3-ultra");
	ck_assert_str_eq(pages_str(m, "alternates.1.type"), CT_ATOM);
	ck_assert_str_eq(pages_str(m, "alternates.1.href"), "/changes.atom");
	pages_done(&q, m);
	m = json_object();
	pages_get(&q, &P, "/m/qwen3-8b/hw/m3-ultra?suite=suite-v1");
	twins_add_alternates(&q.v, m);
	ck_assert_uint_eq(json_array_size(pages_at(m, "alternates")), 1);
	ck_assert_str_eq(pages_str(m, "alternates.0.href"), "/m/qwen3-8b/hw/m3-ultra.json?suite=suite-v1");
	pages_done(&q, m);
	m = json_object();
	snprintf(target, sizeof target, "/r/%s?posted=3", a_id);
	pages_get(&q, &P, target);
	q.v.keep = 1;                     /* kept under its id, as page_run_view says */
	twins_add_alternates(&q.v, m);
	snprintf(want, sizeof want, "/r/%s.json", a_id);
	ck_assert_str_eq(pages_str(m, "alternates.0.href"), want);
	pages_done(&q, m);
	m = json_object();
	pages_get(&q, &P, "/glossary");   /* no twin, no feed: none */
	twins_add_alternates(&q.v, m);
	ck_assert_ptr_null(json_object_get(m, "alternates"));
	pages_done(&q, m);
}
END_TEST

static Suite *suite_twins(void)
{
	Suite *s = suite_create("twins");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, csv_of_a_page_table);
	tcase_add_test(tc, compare_rows_per_figure_and_run);
	tcase_add_test(tc, alternates_carry_the_query);
	tcase_add_test(tc, every_twin_and_feed_is_an_alternate);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_twins)
