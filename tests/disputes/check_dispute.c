/* check_dispute.c: the dispute form's token of server/disputes/dispute.c (an HMAC over the run id and the UTC day). */
#include "check_util.h"
#include "disputes/dispute.h"

#define DAY 86400LL
#define T0 (20000 * DAY + 3600)          /* 01:00 UTC on some day */

START_TEST(test_token_shape)
{
	char a[DISPUTE_TOKEN_LEN], b[DISPUTE_TOKEN_LEN];

	dispute_form_token("r_aaaaaaaaaaa", T0, a);
	dispute_form_token("r_aaaaaaaaaaa", T0 + 3600, b);
	ck_assert_uint_eq(strlen(a), 43);                 /* 32 bytes, base64url */
	ck_assert_uint_eq(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), 43);
	ck_assert_str_eq(a, b);                           /* the same all day, for every visitor */
	dispute_form_token("r_bbbbbbbbbbb", T0, b);
	ck_assert_str_ne(a, b);                           /* and per run */
}
END_TEST

START_TEST(test_token_accepted_that_day_and_the_next)
{
	char t[DISPUTE_TOKEN_LEN];

	dispute_form_token("r_aaaaaaaaaaa", T0, t);
	ck_assert(dispute_form_token_ok("r_aaaaaaaaaaa", t, T0));
	ck_assert(dispute_form_token_ok("r_aaaaaaaaaaa", t, T0 + DAY));          /* grace */
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", t, T0 + 2 * DAY));     /* rotated out */
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", t, T0 - DAY));         /* not before it was made */
	ck_assert(!dispute_form_token_ok("r_bbbbbbbbbbb", t, T0));               /* another run */
}
END_TEST

START_TEST(test_token_garbage_refused)
{
	char t[DISPUTE_TOKEN_LEN];

	dispute_form_token("r_aaaaaaaaaaa", T0, t);
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", "", T0));
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", "x", T0));
	t[42] = t[42] == 'A' ? 'B' : 'A';
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", t, T0));
	t[42] = '\0';
	ck_assert(!dispute_form_token_ok("r_aaaaaaaaaaa", t, T0));
}
END_TEST

static Suite *suite_dispute(void)
{
	Suite *s = suite_create("dispute");
	TCase *t = tcase_create("token");

	tcase_add_test(t, test_token_shape);
	tcase_add_test(t, test_token_accepted_that_day_and_the_next);
	tcase_add_test(t, test_token_garbage_refused);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_dispute)
