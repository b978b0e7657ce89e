/* check_textcut.c: page titles cut to a width and the short hardware name
 * (server/util/textcut.c). */
#include "check_util.h"
#include "util/textcut.h"

#define ELL "\xe2\x80\xa6"

/* s cut to max; the caller frees. */
static char *cut(const char *s, size_t max)
{
	struct buf b = BUF_INIT;

	textcut(&b, s, max);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

#define CK_CUT(s, max, want) do {                     \
		char *got_ = cut(s, max);                    \
		ck_assert_str_eq(got_, want);                \
		free(got_);                                  \
	} while (0)

START_TEST(title_cuts)
{
	CK_CUT("short", 10, "short");
	CK_CUT("", 10, "");
	CK_CUT("0123456789", 10, "0123456789");        /* exactly max: kept whole */
	CK_CUT("0123456789A", 10, "012345678" ELL);
	CK_CUT("ab", 1, ELL);                          /* nothing fits beside the "…" */
	CK_CUT("abc", 2, "a" ELL);
	/* Widths as escaped: & and ' five, " six, < and > four. */
	CK_CUT("a&b&c", 10, "a&b" ELL);
	CK_CUT("a&b", 7, "a&b");
	CK_CUT("a'b'c", 13, "a'b'c");
	CK_CUT("a'b'c", 12, "a'b" ELL);
	CK_CUT("\"x\"", 13, "\"x\"");
	CK_CUT("\"x\"", 12, "\"x" ELL);
	CK_CUT("<b>", 9, "<b>");
	CK_CUT("<b>", 8, "<b" ELL);
	/* A code point counts one and is never split. */
	CK_CUT("ab\xc3\xa9\xc3\xa9\xc3\xa9xyz", 5, "ab\xc3\xa9\xc3\xa9" ELL);
	CK_CUT("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
	CK_CUT("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 2, "\xe6\x97\xa5" ELL);
	CK_CUT("\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 2, "\xf0\x9f\x98\x80" ELL);
}
END_TEST

/* Whatever the text, the cut is never wider than max, ends in "…" when
 * it was cut, and is a prefix of the text. */
START_TEST(never_wider_than_max)
{
	static const char *const pieces[] = { "a", "&", "\"", "<", "\xc3\xa9", "\xe6\x97\xa5",
					      "\xf0\x9f\x98\x80", " " };
	char s[200];
	size_t max, i, k;

	srand(5);
	for (k = 0; k < 3000; k++) {
		size_t len = 0, count = (size_t)rand() % 30;

		for (i = 0; i < count; i++) {
			const char *p = pieces[rand() % 8];

			memcpy(s + len, p, strlen(p));
			len += strlen(p);
		}
		s[len] = '\0';
		for (max = 1; max < 40; max += 7) {
			char *t = cut(s, max);
			size_t n = strlen(t), w = 0, body = n;

			if (strcmp(t, s)) {
				ck_assert_msg(n >= 3 && !strcmp(t + n - 3, ELL), "%s cut to %s", s, t);
				body = n - 3;
				w = 1;
			}
			ck_assert_msg(!strncmp(t, s, body), "%s cut to %s", s, t);
			for (i = 0; i < body; i++) {
				unsigned char c = (unsigned char)t[i];

				w += (c & 0xc0) == 0x80 ? 0 : c == '&' ? 5 : c == '"' ? 6 : c == '<' ? 4 : 1;
			}
			ck_assert_msg(w <= max, "%s cut to %s is %zu wide, over %zu", s, t, w, max);
			free(t);
		}
	}
}
END_TEST

/* The short hardware name of s. */
static void ck_hw(const char *s, const char *want)
{
	size_t len, at = textcut_hw(s, strlen(s), &len);

	ck_assert_msg(len == strlen(want) && !strncmp(s + at, want, len),
		      "%s: got %.*s, want %s", s, (int)len, s + at, want);
}

START_TEST(hardware_short_names)
{
	ck_hw("NVIDIA GeForce RTX 4090", "RTX 4090");
	ck_hw("NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 4090 Laptop");
	ck_hw("Apple M3 Ultra", "M3 Ultra");
	ck_hw("AMD Radeon RX 7900 XTX", "Radeon RX 7900 XTX");
	ck_hw("nvidia  H100 ", "H100");
	ck_hw("  Intel Arc A770 gpu  ", "Arc A770");
	ck_hw("M3 Pro", "M3 Pro");
	ck_hw("NVIDIA", "NVIDIA");          /* the last word stays */
	ck_hw("NVIDIA GeForce", "GeForce");
	ck_hw("Apple GPU", "GPU");
	ck_hw("GPU", "GPU");
	ck_hw("RTX GPU", "RTX");
	ck_hw("AMDGPU 7", "AMDGPU 7");      /* whole words only */
	ck_hw("Intelligent 1", "Intelligent 1");
	ck_hw("", "");
	ck_hw("   ", "");
}
END_TEST

/* Only the n bytes given are read: a name inside a longer text. */
/* s cut by textcut_words to max; the caller frees. */
static char *cut_words(const char *s, size_t max)
{
	struct buf b = BUF_INIT;

	textcut_words(&b, s, max);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

/* After the last whole word that fits, unless that keeps less than half;
 * textcut_width measures as the cut does. */
START_TEST(word_cuts)
{
	const struct { const char *s; size_t max; const char *want; } cases[] = {
		{ "short enough", 12, "short enough" },
		{ "These figures look too good", 20, "These figures look\xe2\x80\xa6" },
		{ "These figures look too good", 18, "These figures\xe2\x80\xa6" },
		{ "a  b   spaced", 5, "a  b\xe2\x80\xa6" },
		/* One long word: cut inside it rather than keep almost nothing. */
		{ "ab Supercalifragilistic", 12, "ab Supercal\xe2\x80\xa6" },
		{ "caf\xc3\xa9 au lait", 8, "caf\xc3\xa9 au\xe2\x80\xa6" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = cut_words(cases[i].s, cases[i].max);

		ck_assert_msg(!strcmp(got, cases[i].want), "%s cut to %zu: %s", cases[i].s, cases[i].max, got);
		ck_assert_uint_le(textcut_width(got), cases[i].max);
		free(got);
	}
	ck_assert_uint_eq(textcut_width("a&b \xc3\xa9"), 9);   /* "&" counts 5, "é" 1 */
}
END_TEST

START_TEST(hardware_short_name_of_a_slice)
{
	const char *s = "NVIDIA GeForce RTX 4090 GPU|and more";
	size_t len, at = textcut_hw(s, 27, &len);

	ck_assert_uint_eq(at, 15);
	ck_assert_uint_eq(len, 8);
	at = textcut_hw(s, 6, &len);         /* "NVIDIA" alone */
	ck_assert_uint_eq(at, 0);
	ck_assert_uint_eq(len, 6);
}
END_TEST

static Suite *suite_textcut(void)
{
	Suite *s = suite_create("textcut");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, title_cuts);
	tcase_add_test(tc, never_wider_than_max);
	tcase_add_test(tc, hardware_short_names);
	tcase_add_test(tc, hardware_short_name_of_a_slice);
	tcase_add_test(tc, word_cuts);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_textcut)
