/* check_jsonw.c: the JSON writer (util/jsonw.c) and its number writer
 * (numfmt_shortest, util/numfmt.c). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "util/jsonw.h"
#include "util/numfmt.h"

/* The JSON text jsonw writes for the real x; the caller frees. */
static char *real_text(double x)
{
	json_t *v = json_real(x);
	char *s;

	ck_assert_ptr_nonnull(v);
	s = jsonw_dumps(v, JSONW_ASCII);
	json_decref(v);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* 1 when a and b are the same double, bit for bit (so -0.0 is not 0.0). */
static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* x written by jsonw and read back by jansson is x, bit for bit, and is a
 * real (not an integer) there. */
static void ck_round_trip(double x)
{
	char *s = real_text(x);
	json_t *back = json_loads(s, JSON_DECODE_ANY, NULL);

	ck_assert_msg(back && json_is_real(back), "%s does not read back as a real", s);
	ck_assert_msg(same_bits(json_real_value(back), x), "%.17g written as %s reads back as %.17g",
		      x, s, json_real_value(back));
	ck_assert_msg(same_bits(strtod(s, NULL), x), "%s: strtod differs", s);
	json_decref(back);
	free(s);
}

#define REAL_EQ(x, want) do { char *s_ = real_text(x); \
	ck_assert_str_eq(s_, want); free(s_); ck_round_trip(x); } while (0)

START_TEST(reals_are_the_shortest_that_read_back)
{
	REAL_EQ(540.6, "540.6");           /* jansson: 540.60000000000002 */
	REAL_EQ(0.1, "0.1");
	REAL_EQ(1e-7, "1e-7");
	REAL_EQ(123456789.125, "123456789.125");
	REAL_EQ(DBL_MAX, "1.7976931348623157e308");
	REAL_EQ(-DBL_MAX, "-1.7976931348623157e308");
	REAL_EQ(DBL_MIN, "2.2250738585072014e-308");
	REAL_EQ(4.9406564584124654e-324, "4.94065645841247e-324");   /* the least subnormal */
	REAL_EQ(0.1 + 0.2, "0.30000000000000004");   /* needs all 17 digits */
	REAL_EQ(1.0 / 3.0, "0.3333333333333333");    /* 16 */
	REAL_EQ(2.5e-7, "2.5e-7");
	REAL_EQ(1e21, "1e21");
	REAL_EQ(1e100, "1e100");
}
END_TEST

START_TEST(whole_reals_stay_reals)
{
	REAL_EQ(0.0, "0.0");
	REAL_EQ(-0.0, "-0.0");            /* the sign survives */
	REAL_EQ(12.0, "12.0");
	REAL_EQ(-3.0, "-3.0");
	REAL_EQ(100000.0, "100000.0");
	REAL_EQ(1e15, "1e15");
	REAL_EQ(9007199254740993.0, "9007199254740992.0");   /* 2^53 + 1 is not a double */
}
END_TEST

START_TEST(integers_are_written_as_integers)
{
	json_t *v = json_pack("[I, I, I, i]", (json_int_t)INT64_MAX, (json_int_t)INT64_MIN,
			      (json_int_t)0, -42);
	char *s = jsonw_dumps(v, 0);

	ck_assert_str_eq(s, "[9223372036854775807,-9223372036854775808,0,-42]");
	free(s);
	json_decref(v);
}
END_TEST

/* A random finite double from random bits (every exponent, subnormals too). */
static double random_double(uint64_t *state)
{
	double x;

	do {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		memcpy(&x, state, sizeof x);
	} while (!isfinite(x));
	return x;
}

START_TEST(random_doubles_round_trip)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	char num[NUMFMT_SHORTEST_LEN];
	int i;

	for (i = 0; i < 200000; i++) {
		double x = random_double(&state);

		ck_assert_int_ge(numfmt_shortest(num, x), 1);
		ck_assert_msg(same_bits(strtod(num, NULL), x), "%.17g written as %s", x, num);
		ck_assert_msg(!strchr(num, '+'), "%s has a '+'", num);
	}
	/* And rates as uploads send them, with three decimals: each is
	 * written back as it was sent. */
	for (i = 0; i < 100000; i++) {
		char sent[32];
		double x;

		snprintf(sent, sizeof sent, "%d.%03d", i / 1000, i % 1000);
		x = strtod(sent, NULL);

		ck_round_trip(x);
		numfmt_shortest(num, x);
		ck_assert_msg(strtod(num, NULL) == x && strlen(num) <= strlen(sent),
			      "%s written as %s", sent, num);
	}
}
END_TEST

START_TEST(not_finite_is_refused)
{
	char num[NUMFMT_SHORTEST_LEN] = "x";
	struct buf b = BUF_INIT;

	ck_assert_int_eq(numfmt_shortest(num, NAN), -1);
	ck_assert_str_eq(num, "");
	ck_assert_int_eq(numfmt_shortest(num, -INFINITY), -1);
	ck_assert_int_eq(jsonw_real(&b, INFINITY), -1);
	ck_assert_uint_eq(b.len, 0);
	buf_release(&b);
}
END_TEST

/* jsonw_dumps(v, flags) is json_dumps(v, JSON_COMPACT | jflags) byte for byte. */
static void ck_same_as_jansson(json_t *v, unsigned flags, size_t jflags)
{
	char *ours = jsonw_dumps(v, flags), *theirs = json_dumps(v, JSON_COMPACT | jflags);

	ck_assert_ptr_nonnull(ours);
	ck_assert_ptr_nonnull(theirs);
	ck_assert_str_eq(ours, theirs);
	free(ours);
	free(theirs);
}

START_TEST(strings_are_escaped_as_jansson_escapes_them)
{
	static const char *const texts[] = {
		"plain", "", "quote \" and backslash \\ and slash /",
		"\b\f\n\r\t", "\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x80\xae bidi \xe2\x81\xa9",
		"astral \xf0\x9f\x98\x80 and \xf4\x8f\xbf\xbf", "\xef\xbb\xbf BOM, U+2028 \xe2\x80\xa8",
		"eyJhbGciOiJFZERTQSJ9.eyJ4IjoxfQ.c2lnbmF0dXJl",   /* a JWS stays as it is */
	};
	size_t i;

	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		json_t *v = json_pack("{s:s, s:[s, s]}", texts[i], texts[i], "k", texts[i], "x");

		ck_assert_ptr_nonnull(v);
		ck_same_as_jansson(v, JSONW_ASCII, JSON_ENSURE_ASCII);
		ck_same_as_jansson(v, 0, 0);
		json_decref(v);
	}
	/* A NUL inside a string, as json_stringn keeps it. */
	{
		json_t *v = json_pack("[s#]", "a\0b", (size_t)3);

		ck_same_as_jansson(v, JSONW_ASCII, JSON_ENSURE_ASCII);
		json_decref(v);
	}
}
END_TEST

START_TEST(structure_is_written_as_jansson_writes_it)
{
	json_t *v = json_pack("{s:i, s:b, s:b, s:n, s:[], s:{}, s:[i, [i, {s:s}]], s:s}",
			      "z", 1, "t", 1, "f", 0, "nil", "empty", "obj",
			      "nest", 1, 2, "deep", "x", "a", "last");

	ck_assert_ptr_nonnull(v);
	ck_same_as_jansson(v, JSONW_ASCII, JSON_ENSURE_ASCII);
	json_decref(v);
	/* Scalars at the top, which json_dumps writes only with JSON_ENCODE_ANY. */
	v = json_string("top");
	{
		char *s = jsonw_dumps(v, 0);

		ck_assert_str_eq(s, "\"top\"");
		free(s);
	}
	json_decref(v);
}
END_TEST

START_TEST(bad_strings_and_deep_values_fail)
{
	json_t *v = json_stringn_nocheck("\xff\xfe", 2), *deep = json_array(), *cur = deep;
	int i;

	ck_assert_ptr_null(jsonw_dumps(v, 0));
	json_decref(v);
	for (i = 0; i < 3000; i++) {
		json_t *next = json_array();

		json_array_append_new(cur, next);
		cur = next;
	}
	ck_assert_ptr_null(jsonw_dumps(deep, 0));
	json_decref(deep);
	ck_assert_ptr_null(jsonw_dumps(NULL, 0));
}
END_TEST

START_TEST(a_run_row_reads_as_it_was_sent)
{
	json_t *v = json_loads("{\"decode_tok_s\":540.6,\"ttft_ms\":85.2,\"prefill_tok_s\":1234.56,"
			       "\"p95_ms\":30.1,\"n\":3}", 0, NULL);
	char *s = jsonw_dumps(v, JSONW_ASCII);

	ck_assert_str_eq(s, "{\"decode_tok_s\":540.6,\"ttft_ms\":85.2,\"prefill_tok_s\":1234.56,"
			 "\"p95_ms\":30.1,\"n\":3}");
	free(s);
	json_decref(v);
}
END_TEST

START_TEST(script_text_cannot_end_its_script)
{
	json_t *v = json_pack("{s:s}", "name</script><!--x", "a</script>&b>\xe2\x80\xa8" "c");
	char *s = jsonw_dumps(v, JSONW_SCRIPT), *plain = jsonw_dumps(v, 0);
	json_t *back;

	ck_assert_str_eq(s, "{\"name\\u003C/script\\u003E\\u003C!--x\":"
			 "\"a\\u003C/script\\u003E\\u0026b\\u003E\\u2028c\"}");
	ck_assert_ptr_null(strstr(s, "</"));
	ck_assert_ptr_nonnull(strstr(plain, "</script>"));   /* only on request */
	back = json_loads(s, 0, NULL);
	ck_assert(json_equal(back, v));
	json_decref(back);
	free(plain);
	free(s);
	json_decref(v);
}
END_TEST

static Suite *suite_jsonw(void)
{
	Suite *s = suite_create("jsonw");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reals_are_the_shortest_that_read_back);
	tcase_add_test(tc, whole_reals_stay_reals);
	tcase_add_test(tc, integers_are_written_as_integers);
	tcase_add_test(tc, random_doubles_round_trip);
	tcase_add_test(tc, not_finite_is_refused);
	tcase_add_test(tc, strings_are_escaped_as_jansson_escapes_them);
	tcase_add_test(tc, structure_is_written_as_jansson_writes_it);
	tcase_add_test(tc, bad_strings_and_deep_values_fail);
	tcase_add_test(tc, a_run_row_reads_as_it_was_sent);
	tcase_add_test(tc, script_text_cannot_end_its_script);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_jsonw)
