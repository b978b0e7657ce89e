/* check_err.c: the one error carrier of server/util/err.c. */
#include "check_util.h"
#include "util/err.h"

/* err_set fills every field, returns -1, and cuts an over-long sentence
 * inside the carrier, NUL-terminated. */
START_TEST(set_fills_and_cuts)
{
	struct err e = ERR_INIT;
	char longmsg[sizeof e.message + 400];

	ck_assert_int_eq(err_set(&e, 422, "schema_violation", "model.name", "%s is %d", "x", 5), -1);
	ck_assert_uint_eq(e.status, 422);
	ck_assert_str_eq(e.code, "schema_violation");
	ck_assert_str_eq(e.field, "model.name");
	ck_assert_str_eq(e.message, "x is 5");
	memset(longmsg, 'a', sizeof longmsg - 1);
	longmsg[sizeof longmsg - 1] = '\0';
	err_set(&e, 400, NULL, NULL, "%s", longmsg);
	ck_assert_str_eq(e.field, "");
	ck_assert_uint_eq(strlen(e.message), sizeof e.message - 1);
}
END_TEST

/* Without a code, the status names one; a set code wins. */
START_TEST(code_from_status)
{
	struct err e = ERR_INIT;

	err_unavailable(&e, MSG_DB_DOWN);
	ck_assert_uint_eq(e.status, 503);
	ck_assert_str_eq(err_code(&e), "unavailable");
	ck_assert_str_eq(e.message, MSG_DB_DOWN);
	err_set(&e, 404, NULL, NULL, "gone");
	ck_assert_str_eq(err_code(&e), "not_found");
	err_set(&e, 400, NULL, NULL, "bad");
	ck_assert_str_eq(err_code(&e), "invalid_query");
	err_set(&e, 401, "invalid_signature", NULL, "bad");
	ck_assert_str_eq(err_code(&e), "invalid_signature");
}
END_TEST

static Suite *suite_err(void)
{
	Suite *s = suite_create("err");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, set_fills_and_cuts);
	tcase_add_test(tc, code_from_status);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_err)
