/* check_store_err.c: server/http/store_err.c, what the store's failures
 * mean to a client: a write's db_status, a name that reads as another's. */
#include "check_util.h"
#include "http/store_err.h"
#include "store/db.h"

/* A failed write is 503 unavailable with the sentence its status has. */
START_TEST(db_statuses_are_unavailable_with_their_sentence)
{
	static const int statuses[] = { DB_BUSY, DB_FULL, DB_READONLY, DB_ERR };
	struct err e = ERR_INIT;
	size_t i;

	for (i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
		ck_assert_int_eq(http_db_err(&e, statuses[i]), -1);
		ck_assert_uint_eq(e.status, 503);
		ck_assert_str_eq(err_code(&e), "unavailable");
		ck_assert_str_eq(e.message, db_status_message(statuses[i]));
		ck_assert_str_eq(e.field, "");
	}
	http_db_err(&e, DB_FULL);
	ck_assert_ptr_nonnull(strstr(e.message, "disk is full"));
}
END_TEST

/* A look-alike name is 422 confusable_name on its field, naming the name
 * it reads as and that name's page. */
START_TEST(a_clash_is_422_naming_the_look_alike)
{
	struct names_clash c = { "hardware.accelerator_summary", "hardware", "/hw/", "rtx-4090", "RTX 4090" };
	struct err e = ERR_INIT;

	ck_assert_int_eq(http_clash_err(&e, &c), -1);
	ck_assert_uint_eq(e.status, 422);
	ck_assert_str_eq(e.code, "confusable_name");
	ck_assert_str_eq(e.field, "hardware.accelerator_summary");
	ck_assert_str_eq(e.message, "hardware.accelerator_summary looks like the hardware \"RTX 4090\" (/hw/rtx-4090) "
			 "but is spelt with look-alike letters or invisible characters; send that hardware's "
			 "name, or one that reads differently.");
}
END_TEST

static Suite *suite_store_err(void)
{
	Suite *s = suite_create("store_err");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, db_statuses_are_unavailable_with_their_sentence);
	tcase_add_test(tc, a_clash_is_422_naming_the_look_alike);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_store_err)
