/* check_page_export.c: the export slots of server/pages/page_export.c (the
 * stream itself is checked over HTTP by tests/http/test_export.py, every
 * run's signature verified offline): at most 8 exports at once, and at most
 * 2 of them held by one client (issue 37, M3), a slot handed back opening
 * the way for the next. */
#include "check_util.h"
#include "pages/page.h"

START_TEST(two_a_client_eight_in_all)
{
	static const char *const keys[] = { "a", "b", "c", "d" };
	int i;

	ck_assert_int_eq(page_export_slot_take("a"), 0);
	ck_assert_int_eq(page_export_slot_take("a"), 0);
	ck_assert_int_eq(page_export_slot_take("a"), 2);    /* its third: refused */
	for (i = 1; i < 4; i++) {
		ck_assert_int_eq(page_export_slot_take(keys[i]), 0);
		ck_assert_int_eq(page_export_slot_take(keys[i]), 0);
	}
	ck_assert_int_eq(page_export_slot_take("e"), 1);    /* all 8 held */
	ck_assert_int_eq(page_export_slot_take("a"), 1);
	page_export_slot_give("a");
	ck_assert_int_eq(page_export_slot_take("e"), 0);    /* one freed: taken */
	ck_assert_int_eq(page_export_slot_take("a"), 1);
	page_export_slot_give("b");
	ck_assert_int_eq(page_export_slot_take("a"), 0);    /* back to its two */
	ck_assert_int_eq(page_export_slot_take("a"), 1);
	page_export_slot_give("nobody");                     /* holds none: nothing moves */
	ck_assert_int_eq(page_export_slot_take("f"), 1);
	for (i = 0; i < 4; i++) {
		page_export_slot_give(keys[i]);
		page_export_slot_give(keys[i]);
	}
	page_export_slot_give("e");
	/* All handed back: every slot is free again. */
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(page_export_slot_take(keys[i]), 0);
		ck_assert_int_eq(page_export_slot_take(keys[i]), 0);
	}
	ck_assert_int_eq(page_export_slot_take("x"), 1);
}
END_TEST

static Suite *suite_page_export(void)
{
	Suite *s = suite_create("page_export");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, two_a_client_eight_in_all);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_export)
