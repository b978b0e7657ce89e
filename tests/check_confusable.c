/* check_confusable.c: name skeletons and reserved names of server/disputes/confusable.c. */
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

static Suite *suite_confusable(void)
{
	Suite *s = suite_create("confusable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, skeletons_fold_lookalikes);
	tcase_add_test(tc, reserved_names);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_confusable)
