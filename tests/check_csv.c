/* check_csv.c: the CSV escaper of server/render/csv.c. */
#include <math.h>

#include "check_util.h"
#include "render/csv.h"
#include "util/buf.h"

static char *text(const char *in)
{
	struct buf b = BUF_INIT;

	csv_text(&b, in);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

#define TEXT_EQ(in, want) do { char *s_ = text(in); \
	ck_assert_str_eq(s_, want); free(s_); } while (0)

START_TEST(text_is_quoted_per_rfc4180)
{
	TEXT_EQ("plain", "\"plain\"");
	TEXT_EQ("a,b", "\"a,b\"");
	TEXT_EQ("say \"hi\"", "\"say \"\"hi\"\"\"");
	TEXT_EQ("\"", "\"\"\"\"");
	TEXT_EQ("two\r\nlines", "\"two\r\nlines\"");
	TEXT_EQ("", "\"\"");
	TEXT_EQ(NULL, "\"\"");
	TEXT_EQ("M3 Ultra \xc2\xb7 \xe2\x80\xae", "\"M3 Ultra \xc2\xb7 \xe2\x80\xae\"");
}
END_TEST

START_TEST(formulas_are_neutralised)
{
	TEXT_EQ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	TEXT_EQ("+1+1", "\"'+1+1\"");
	TEXT_EQ("-2+3", "\"'-2+3\"");
	TEXT_EQ("@SUM(A1)", "\"'@SUM(A1)\"");
	TEXT_EQ("\t=1", "\"'\t=1\"");
	TEXT_EQ("\r=1", "\"'\r=1\"");
	/* Only the first character decides. */
	TEXT_EQ("a=b", "\"a=b\"");
	TEXT_EQ("'quoted", "\"'quoted\"");
}
END_TEST

static char *num(double x)
{
	struct buf b = BUF_INIT;

	csv_number(&b, x);
	ck_assert_int_eq(buf_error(&b), 0);
	return b.buf ? buf_detach(&b, NULL) : strdup("");
}

#define NUM_EQ(x, want) do { char *s_ = num(x); \
	ck_assert_str_eq(s_, want); free(s_); } while (0)

START_TEST(numbers_round_trip_and_stay_numbers)
{
	NUM_EQ(112.2, "112.2");
	NUM_EQ(-0.5, "-0.5");
	NUM_EQ(0.1 + 0.2, "0.30000000000000004");
	NUM_EQ(3e-7, "3e-7");
	NUM_EQ(NAN, "");
	NUM_EQ(INFINITY, "");
}
END_TEST

START_TEST(table_has_header_and_crlf_records)
{
	struct buf b = BUF_INIT;
	struct csv_col cols[] = { { "id", "id" }, { "model", "model.name" },
				  { "decode", "decode_tok_s" }, { "flag", "outlier" },
				  { "none", "missing.deep" } };
	json_t *rows = json_pack("[{s:s, s:{s:s}, s:f, s:b}, {s:s, s:{s:s}, s:i, s:b}]",
				 "id", "r_1", "model", "name", "=cmd|' /C calc'!A0",
				 "decode_tok_s", 12.5, "outlier", 1,
				 "id", "r_2", "model", "name", "Qwen, \"coder\"",
				 "decode_tok_s", 7, "outlier", 0);

	ck_assert_int_eq(csv_table(&b, rows, cols, 5), 0);
	ck_assert_str_eq(b.buf,
		"\"id\",\"model\",\"decode\",\"flag\",\"none\"\r\n"
		"\"r_1\",\"'=cmd|' /C calc'!A0\",12.5,true,\r\n"
		"\"r_2\",\"Qwen, \"\"coder\"\"\",7,false,\r\n");
	buf_release(&b);
	json_decref(rows);
}
END_TEST

static Suite *suite_csv(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, text_is_quoted_per_rfc4180);
	tcase_add_test(tc, formulas_are_neutralised);
	tcase_add_test(tc, numbers_round_trip_and_stay_numbers);
	tcase_add_test(tc, table_has_header_and_crlf_records);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_csv)
