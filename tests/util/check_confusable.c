/* check_confusable.c: name skeletons, reserved names, names as they read
 * and words in two scripts, of server/util/confusable.c. */
#include "check_util.h"
#include "util/buf.h"
#include "util/confusable.h"

static void skeleton_is(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	confusable_skeleton(in, &b);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_msg(!strcmp(b.buf, want), "skeleton of \"%s\" is \"%s\", want \"%s\"", in, b.buf, want);
	buf_release(&b);
}

START_TEST(skeletons_fold_lookalikes)
{
	skeleton_is("The Sub-Mitter!", "thesubmitteri");
	skeleton_is("sub\xe2\x80\x8bmitter", "submitter");              /* U+200B */
	skeleton_is("\xd1\x95ubm\xd1\x96tter", "submitter");            /* Cyrillic s, i */
	skeleton_is("\xef\xbd\x93\xef\xbd\x95\xef\xbd\x82", "sub");     /* fullwidth */
	skeleton_is("s\xc3\xbc" "bm\xc3\xaftter", "submitter");         /* accents */
	skeleton_is("M\xce\xbf" "der\xd0\xb0tor", "moderator");         /* Greek o, Cyrillic a */
	skeleton_is("subrnitter", "submitter");
	skeleton_is("subm1tter", "submitter");
	skeleton_is("\xff\xfe", "");                                    /* malformed */
	skeleton_is("", "");
}
END_TEST

START_TEST(reserved_names)
{
	ck_assert(confusable_reserved("the submitter"));
	ck_assert(confusable_reserved("SUBMITTER (verified)"));
	ck_assert(confusable_reserved("moderator"));
	ck_assert(confusable_reserved("Mod-e-rator"));
	ck_assert(!confusable_reserved("Alice"));
	ck_assert(!confusable_reserved("submit team"));
	ck_assert(!confusable_reserved("mod"));
	ck_assert(!confusable_reserved("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"));   /* Hebrew */
}
END_TEST

static void latin_is(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	confusable_latin(in, &b);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_msg(!strcmp(b.buf ? b.buf : "", want), "\"%s\" reads as \"%s\", want \"%s\"",
		      in, b.buf ? b.buf : "", want);
	buf_release(&b);
}

/* A name reads with its look-alike letters as the ASCII ones (case kept),
 * beside a digit as the digit, and without invisible characters; ASCII
 * and the letters of other words stay as they are. */
START_TEST(names_read_as_latin)
{
	latin_is("Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B-Instruct");
	latin_is("Qwen3-C\xd0\xbe" "der-30B", "Qwen3-Coder-30B");               /* Cyrillic о */
	latin_is("\xd0\x90" "3\xd0\x92", "A3B");                                /* А3В */
	latin_is("RTX 4\xd0\x9e" "90", "RTX 4090");                             /* О among digits */
	latin_is("\xce\x9f" "pen", "Open");                                     /* Greek Ο, no digit */
	latin_is("Co\xe2\x80\x8b" "der\xc2\xad", "Coder");                      /* U+200B, soft hyphen */
	latin_is("\xef\xbc\xb1wen\xef\xbc\x93", "Qwen3");                       /* fullwidth */
	latin_is("Caf\xc3\xa9 \xc3\x84", "Cafe A");                             /* accents */
	latin_is("\xd0\x9f\xd0\x9e\xd0\x94", "\xd0\x9f" "O" "\xd0\x94");       /* ПОД: only О reads as O */
	latin_is("\xc3\x9f\xc3\x86", "\xc3\x9f\xc3\x86");                       /* ß Æ kept */
	latin_is("", "");
}
END_TEST

/* A word (letters and marks; digits and punctuation end it) of two
 * scripts is found, with its place and scripts; one script per word,
 * whatever the scripts of the other words, is not. */
START_TEST(mixed_script_words)
{
	struct confusable_mix m;
	const char *s;

	s = "Qwen3-C\xd0\xbe" "der-30B";
	ck_assert(confusable_mixed(s, &m));
	ck_assert_uint_eq(m.at, 6);
	ck_assert_uint_eq(m.len, 6);
	ck_assert_str_eq(m.script[0], "Latin");
	ck_assert_str_eq(m.script[1], "Cyrillic");
	s = "\xd0\xa1oder";                                   /* Сoder */
	ck_assert(confusable_mixed(s, &m));
	ck_assert_str_eq(m.script[0], "Cyrillic");
	ck_assert_str_eq(m.script[1], "Latin");
	ck_assert_uint_eq(m.len, strlen(s));
	ck_assert(confusable_mixed("a \xce\xb1" "b", &m));    /* αb: Greek, Latin */
	ck_assert_uint_eq(m.at, 2);
	ck_assert(!confusable_mixed("Qwen3-Coder \xe2\x80\x94 \xd0\x9f\xd0\x9e\xd0\x94\xd0\x94\xd0\x95\xd0\x9b\xd0\x9a\xd0\x90", &m));
	ck_assert(!confusable_mixed("\xd0\x90" "3\xd0\x92 B", &m));         /* digits end words */
	ck_assert(!confusable_mixed("Caf\xc3\xa9 e\xcc\x81", &m));          /* accents, marks */
	ck_assert(!confusable_mixed("Qwen\xe4\xb8\xad", &m));               /* Han is no word here */
	ck_assert(!confusable_mixed("", &m));
}
END_TEST

static Suite *suite_confusable(void)
{
	Suite *s = suite_create("confusable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, skeletons_fold_lookalikes);
	tcase_add_test(tc, reserved_names);
	tcase_add_test(tc, names_read_as_latin);
	tcase_add_test(tc, mixed_script_words);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_confusable)
