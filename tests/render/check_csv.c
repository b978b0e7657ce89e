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

/* Every finite double is written in at most 17 digits that read back as
 * exactly it. */
START_TEST(every_double_reads_back)
{
	union { double d; unsigned long long u; } v;
	int k;

	srand(7);
	for (k = 0; k < 20000; k++) {
		char *s;

		v.u = (unsigned long long)rand() << 42 ^ (unsigned long long)rand() << 21 ^ (unsigned)rand();
		if (!isfinite(v.d))
			continue;
		s = num(v.d);
		ck_assert_msg(strtod(s, NULL) == v.d, "%s is not %.17g", s, v.d);
		ck_assert_msg(!strchr(s, ',') && !strchr(s, '"') && strlen(s) <= 24, "%s", s);
		free(s);
	}
}
END_TEST

/* A JSON value as one field, whatever its kind. */
START_TEST(json_values_as_fields)
{
	static const struct { const char *json, *want; } cases[] = {
		{ "\"=1+1\"", "\"'=1+1\"" },
		{ "42", "42" },
		{ "-7", "-7" },
		{ "0.25", "0.25" },
		{ "true", "true" },
		{ "false", "false" },
		{ "null", "" },
		{ "[1,\"a\"]", "\"[1,\"\"a\"\"]\"" },
		{ "{\"k\":\"-v\"}", "\"{\"\"k\"\":\"\"-v\"\"}\"" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf b = BUF_INIT;
		json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);

		ck_assert_ptr_nonnull(v);
		csv_json(&b, v);
		ck_assert_int_eq(buf_error(&b), 0);
		ck_assert_msg(!strcmp(b.buf ? b.buf : "", cases[i].want), "%s gave %s", cases[i].json, b.buf);
		buf_release(&b);
		json_decref(v);
	}
	{
		struct buf b = BUF_INIT;

		csv_json(&b, NULL);
		ck_assert_uint_eq(b.len, 0);
		buf_release(&b);
	}
}
END_TEST

/* Dotted paths reach into objects and nothing else. */
START_TEST(paths)
{
	json_t *o = json_pack("{s:{s:{s:i}}, s:[i], s:i}", "a", "b", "c", 3, "arr", 1, "n", 5);
	char longkey[80];

	ck_assert_int_eq(json_integer_value(csv_path(o, "a.b.c")), 3);
	ck_assert_int_eq(json_integer_value(csv_path(o, "n")), 5);
	ck_assert(json_is_object(csv_path(o, "a.b")));
	ck_assert_ptr_null(csv_path(o, "a.x.c"));
	ck_assert_ptr_null(csv_path(o, "n.deeper"));
	ck_assert_ptr_null(csv_path(o, "arr.0"));
	ck_assert_ptr_null(csv_path(o, "a.b.c.d"));
	ck_assert_ptr_null(csv_path(NULL, "a"));
	memset(longkey, 'k', 70);
	strcpy(longkey + 70, ".x");
	ck_assert_ptr_null(csv_path(o, longkey));   /* a key past 63 bytes: none */
	json_decref(o);
}
END_TEST

/* No rows (or no array): the header record alone. */
START_TEST(empty_table_is_its_header)
{
	struct buf b = BUF_INIT;
	struct csv_col cols[] = { { "id", "id" }, { "=x", "x" } };
	json_t *rows = json_array();

	ck_assert_int_eq(csv_table(&b, rows, cols, 2), 0);
	ck_assert_str_eq(b.buf, "\"id\",\"'=x\"\r\n");
	buf_reset(&b);
	ck_assert_int_eq(csv_table(&b, NULL, cols, 2), 0);
	ck_assert_str_eq(b.buf, "\"id\",\"'=x\"\r\n");
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
	tcase_add_test(tc, every_double_reads_back);
	tcase_add_test(tc, json_values_as_fields);
	tcase_add_test(tc, paths);
	tcase_add_test(tc, empty_table_is_its_header);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_csv)
