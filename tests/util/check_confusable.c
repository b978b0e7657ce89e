/* check_confusable.c: skeletons, reserved names, readings, keys and mixed
 * scripts of names, of server/util/confusable.c (ICU's spoof checker). */
#include "check_util.h"
#include "util/buf.h"
#include "util/confusable.h"
#include "util/slug.h"

static void skeleton_is(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	confusable_skeleton(in, &b);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_msg(!strcmp(b.buf ? b.buf : "", want), "skeleton of \"%s\" is \"%s\", want \"%s\"",
		      in, b.buf ? b.buf : "", want);
	buf_release(&b);
}

/* UTS #39's prototypes ("m" is "rn"), case, marks, invisible characters
 * and punctuation aside, "l" as "i". */
START_TEST(skeletons_fold_lookalikes)
{
	skeleton_is("The Sub-Mitter!", "thesubrnitter");
	skeleton_is("sub\xe2\x80\x8bmitter", "subrnitter");              /* U+200B */
	skeleton_is("\xd1\x95ubm\xd1\x96tter", "subrnitter");            /* Cyrillic s, i */
	skeleton_is("\xef\xbd\x93\xef\xbd\x95\xef\xbd\x82", "sub");      /* fullwidth */
	skeleton_is("s\xc3\xbc" "bm\xc3\xaftter", "subrnitter");         /* accents */
	skeleton_is("M\xce\xbf" "der\xd0\xb0tor", "rnoderator");         /* Greek o, Cyrillic a */
	skeleton_is("subrnitter", "subrnitter");
	skeleton_is("subm1tter", "subrnitter");
	skeleton_is("SUBMlTTER", "subrnitter");
	skeleton_is("", "");
}
END_TEST

START_TEST(reserved_names)
{
	ck_assert(confusable_reserved("the submitter"));
	ck_assert(confusable_reserved("SUBMITTER (verified)"));
	ck_assert(confusable_reserved("moderator"));
	ck_assert(confusable_reserved("Mod-e-rator"));
	ck_assert(confusable_reserved("\xf0\x9d\x90\xa6oderator"));          /* mathematical bold m */
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
 * without invisible characters and marks; ASCII and the letters of other
 * words stay as they are. */
START_TEST(names_read_as_latin)
{
	latin_is("Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B-Instruct");
	latin_is("Qwen3-C\xd0\xbe" "der-30B", "Qwen3-Coder-30B");               /* Cyrillic о */
	latin_is("\xd0\x90" "3\xd0\x92", "A3B");                                /* А3В */
	latin_is("\xce\x9f" "pen", "Open");                                     /* Greek Ο */
	latin_is("Co\xe2\x80\x8b" "der\xc2\xad", "Coder");                      /* U+200B, soft hyphen */
	latin_is("\xef\xbc\xb1wen\xef\xbc\x93", "Qwen3");                       /* fullwidth */
	latin_is("Caf\xc3\xa9 \xc3\x84", "Cafe A");                             /* accents */
	latin_is("\xd0\x9f\xd0\x9e\xd0\x94", "\xd0\x9f" "O" "\xd0\x94");       /* ПОД: only О reads as O */
	latin_is("Qwe\xd5\xb8", "Qwen");                                        /* Armenian ո */
	latin_is("C\xd6\x85" "der", "Coder");                                   /* Armenian օ */
	latin_is("Ll\xc9\x91ma", "Llama");                                      /* Latin alpha ɑ */
	latin_is("\xf0\x9d\x90\x8b\xf0\x9d\x90\xa5" "ama", "Llama");             /* mathematical bold */
	latin_is("In\xef\xac\x86ruct", "Instruct");                             /* the ﬆ ligature */
	latin_is("Lla\xcc\x8bma", "Llama");                                     /* a combining mark */
	latin_is("\xe1\x8f\x9e" "lama", "Llama");                               /* Cherokee Ꮮ */
	latin_is("\xe2\x85\xac" "lama 3.\xe2\x85\xa0", "Llama 3.I");            /* Roman numerals */
	latin_is("\xc3\x9f", "\xc3\x9f");                                       /* ß kept */
	latin_is("", "");
}
END_TEST

/* 1 when a key of a equals a key of b (slug_model's rules). */
static int read_alike(const char *a, const char *b)
{
	char ka[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX], kb[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX];
	int i, j;

	ck_assert_int_gt(confusable_keys(a, slug_model, ka), 0);
	ck_assert_int_gt(confusable_keys(b, slug_model, kb), 0);
	for (i = 0; i < CONFUSABLE_KEYS; i++)
		for (j = 0; j < CONFUSABLE_KEYS; j++)
			if (ka[i][0] && !strcmp(ka[i], kb[j]))
				return 1;
	return 0;
}

/* Issue 37's "done when": "LIama" and "Llarna" read as "Llama" (ICU maps
 * "I" and "l" to one prototype, and "m" to "rn"), and so do the probe's
 * other tricks; names that differ stay apart. */
START_TEST(keys_tell_names_that_read_alike)
{
	static const char *const alike[] = {
		"LIama-3.1-8B", "Llarna-3.1-8B", "L1ama-3.1-8B", "L|ama-3.1-8B", "Llama-3.l-8B",
		"Llama-3.I-8B", "Ll\xc9\x91ma-3.1-8B", "\xf0\x9d\x90\x8b\xf0\x9d\x90\xa5\xf0\x9d\x90\x9a"
		"\xf0\x9d\x90\xa6\xf0\x9d\x90\x9a-3.1-8B", "Lla\xcc\x8bma-3.1-8B", "\xe2\x85\xac\xe2\x85\xac" "ama-3.1-8B",
		"LLAMA-3.1-8B", "llama 3.1 8b", "Lla\xe2\x80\x8bma-3.1-8B", "\xef\xbc\xac\xef\xbd\x8c" "ama-3.1-8B",
		"Llama-3.\xc2\xb9-8B",
	};
	size_t i;

	for (i = 0; i < sizeof alike / sizeof *alike; i++)
		ck_assert_msg(read_alike(alike[i], "Llama-3.1-8B"), "%s", alike[i]);
	ck_assert(read_alike("Qwen3-Coder-3OB-A3B-Instruct", "Qwen3-Coder-30B-A3B-Instruct"));
	ck_assert(!read_alike("Llama-3.1-70B", "Llama-3.1-8B"));
	ck_assert(!read_alike("Llama-3.2-1B", "Llama-3.1-8B"));
	ck_assert(!read_alike("Qwen3-30B-A3B", "Qwen3-Coder-30B-A3B"));
	ck_assert(!read_alike("Mistral-7B-v0.3", "Mistral-7B-v0.2"));
	ck_assert(!read_alike("gemma-2-9b", "gemma-2-2b"));
}
END_TEST

/* A word (letters and marks; digits and punctuation end it) of two
 * scripts, beyond highly restrictive, is found, with its place and
 * scripts; one script per word, whatever the others, is not. */
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
	ck_assert(confusable_mixed("Qwe\xd5\xb8", &m));        /* Armenian ո */
	ck_assert_str_eq(m.script[1], "Armenian");
	ck_assert(confusable_mixed("\xe1\x8f\x9e" "lama", &m)); /* Cherokee Ꮮ */
	ck_assert_str_eq(m.script[0], "Cherokee");
	ck_assert(!confusable_mixed("Qwen3-Coder \xe2\x80\x94 \xd0\x9f\xd0\x9e\xd0\x94\xd0\x94\xd0\x95\xd0\x9b\xd0\x9a\xd0\x90", &m));
	ck_assert(!confusable_mixed("\xd0\x90" "3\xd0\x92 B", &m));         /* digits end words */
	ck_assert(!confusable_mixed("Caf\xc3\xa9 e\xcc\x81", &m));          /* accents, marks */
	ck_assert(!confusable_mixed("Qwen\xe4\xb8\xad", &m));               /* Latin with Han */
	ck_assert(!confusable_mixed("", &m));
}
END_TEST

START_TEST(digits_of_two_systems)
{
	ck_assert(confusable_mixed_digits("RTX 4\xd9\xa0" "90"));           /* an Arabic-Indic zero */
	ck_assert(!confusable_mixed_digits("RTX 4090"));
	ck_assert(!confusable_mixed_digits("\xd9\xa4\xd9\xa0"));             /* all Arabic-Indic */
}
END_TEST

static Suite *suite_confusable(void)
{
	Suite *s = suite_create("confusable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, skeletons_fold_lookalikes);
	tcase_add_test(tc, reserved_names);
	tcase_add_test(tc, names_read_as_latin);
	tcase_add_test(tc, keys_tell_names_that_read_alike);
	tcase_add_test(tc, mixed_script_words);
	tcase_add_test(tc, digits_of_two_systems);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_confusable)
