/* check_browse.c: every query of the browse pages (server/browse.c,
 * page_home.c, page_model.c, page_hw.c) is planned on an index: no pass
 * over the runs table or a whole index, and no sort, whatever the data. */
#include "check_util.h"

#include <math.h>
#include <unistd.h>

#include "barchart.h"
#include "browse.h"
#include "db.h"

static struct db *db;
static char dir[] = "/tmp/check_browse_XXXXXX";

static void setup(void)
{
	char path[256], migrations[1024], err[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.db", dir);
	snprintf(migrations, sizeof migrations, "%s/migrations", repo_root());
	ck_assert_msg(db_open(path, migrations, &db, err, sizeof err) == DB_OK, "%s", err);
}

static void teardown(void)
{
	char path[300];

	db_close(db);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}

/* Fails when the plan of sql reads runs front to back or sorts. */
static void check_plan(sqlite3 *h, const char *sql)
{
	char q[4096];
	sqlite3_stmt *st;
	int n = 0;

	snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
	ck_assert_msg(sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		ck_assert_msg(strncmp(d, "SCAN runs", 9) != 0, "full scan in %s: %s", sql, d);
		ck_assert_msg(!strstr(d, "TEMP B-TREE"), "sort in %s: %s", sql, d);
		if (!strncmp(d, "SEARCH runs", 11))
			ck_assert_msg(strstr(d, "INDEX") || strstr(d, "PRIMARY KEY"), "no index in %s: %s", sql, d);
		n++;
	}
	sqlite3_finalize(st);
	ck_assert_msg(n > 0, "no plan for %s", sql);
}

START_TEST(every_query_uses_an_index)
{
	const char *const *sets[] = { browse_sql, page_home_sql, page_model_sql, page_hw_sql };
	struct dbconn *c = db_reader(db);
	size_t i, k, total = 0;

	ck_assert_ptr_nonnull(c);
	for (i = 0; i < sizeof sets / sizeof sets[0]; i++)
		for (k = 0; sets[i][k]; k++, total++)
			check_plan(c->h, sets[i][k]);
	ck_assert_uint_ge(total, 20);
}
END_TEST

START_TEST(cursor_reads_back_exactly)
{
	char out[80], *end;
	double v[] = { 192.5, 19.4, 0.1 + 0.2, 1e-7, 123456789.125 };
	size_t i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		browse_cursor(out, sizeof out, v[i], "r_y2_5y8oo97d");
		ck_assert(strtod(out, &end) == v[i]);
		ck_assert_str_eq(end, ":r_y2_5y8oo97d");
	}
	browse_cursor(out, sizeof out, 192.5, "r_y2_5y8oo97d");
	ck_assert_str_eq(out, "192.5:r_y2_5y8oo97d");
}
END_TEST

START_TEST(barchart_escapes_and_labels)
{
	struct barchart_bar bars[] = { { "<b>M3 & \"Ultra\"</b>", 192.5 }, { "M3 Pro", 19.4 },
				       { "broken", NAN } };
	struct buf b = BUF_INIT;

	ck_assert_int_eq(barchart_svg(&b, "Best <decode>", "tok/s", bars, 3), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "role=\"img\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "aria-label=\"Best &lt;decode&gt;\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "<title>Best &lt;decode&gt;</title>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "&lt;b&gt;M3 &amp; &quot;Ultra&quot;&lt;/b&gt;"));
	ck_assert_ptr_null(strstr(b.buf, "<b>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "192.5 tok/s"));
	ck_assert_ptr_nonnull(strstr(b.buf, "19.4 tok/s"));
	ck_assert_ptr_null(strstr(b.buf, "broken"));
	/* The longest bar is the full width; the other in proportion. */
	ck_assert_ptr_nonnull(strstr(b.buf, "width=\"340.0\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "width=\"34.3\""));
	buf_release(&b);
}
END_TEST

START_TEST(barchart_cuts_long_labels_on_characters)
{
	struct barchart_bar bars[] = { { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 1 } };
	struct buf b = BUF_INIT;
	const char *t;

	ck_assert_int_eq(barchart_svg(&b, "t", "tok/s", bars, 1), 0);
	t = strstr(b.buf, "text-anchor=\"end\" fill=\"currentColor\">");
	ck_assert_ptr_nonnull(t);
	t = strchr(t, '>') + 1;
	ck_assert_int_eq(strncmp(t + 2 * BARCHART_LABEL_MAX, "\xe2\x80\xa6</text>", 10), 0);
	buf_release(&b);
}
END_TEST

START_TEST(barchart_without_bars_says_so)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(barchart_svg(&b, "Nothing", "tok/s", NULL, 0), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, ">no data</text>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "</svg>"));
	buf_release(&b);
}
END_TEST

static Suite *suite_browse(void)
{
	Suite *s = suite_create("browse");
	TCase *t = tcase_create("plans");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, every_query_uses_an_index);
	suite_add_tcase(s, t);
	t = tcase_create("parts");
	tcase_add_test(t, cursor_reads_back_exactly);
	tcase_add_test(t, barchart_escapes_and_labels);
	tcase_add_test(t, barchart_cuts_long_labels_on_characters);
	tcase_add_test(t, barchart_without_bars_says_so);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_browse)
