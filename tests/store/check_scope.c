/* check_scope.c: server/store/scope.c: scope tags are never 0, differ by
 * kind for one slug and by slug for one kind, and a scope set keeps each
 * tag once, skips 0 and says when it overflows. */
#include "check_util.h"

#include <stdio.h>

#include "store/scope.h"

START_TEST(tags_are_never_zero_and_tell_kinds_and_slugs_apart)
{
	char slug[32];
	unsigned seen[200];
	int i, j;

	ck_assert_uint_ne(scope_tag('m', "llama-3-1-8b"), scope_tag('h', "llama-3-1-8b"));
	ck_assert_uint_ne(scope_tag('m', "llama-3-1-8b"), scope_tag('d', "llama-3-1-8b"));
	ck_assert_uint_eq(scope_tag('m', "llama-3-1-8b"), scope_tag('m', "llama-3-1-8b"));
	ck_assert_uint_ne(scope_tag('m', ""), 0);
	ck_assert_uint_ne(scope_tag('h', NULL), 0);
	for (i = 0; i < 200; i++) {
		snprintf(slug, sizeof slug, "model-%d", i);
		seen[i] = scope_tag('m', slug);
		ck_assert_uint_ne(seen[i], 0);
		for (j = 0; j < i; j++)
			ck_assert_uint_ne(seen[i], seen[j]);
	}
}
END_TEST

START_TEST(a_set_keeps_each_tag_once_and_says_when_it_is_full)
{
	struct scope_set s = { .n = 0 };
	unsigned t;

	scope_add(&s, 7);
	scope_add(&s, 0);                /* no scope */
	scope_add(&s, 7);
	scope_add(&s, 9);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.t[0], 7);
	ck_assert_uint_eq(s.t[1], 9);
	ck_assert_int_eq(s.over, 0);
	for (t = 100; s.n < SCOPE_SET_MAX; t++)
		scope_add(&s, t);
	ck_assert_int_eq(s.over, 0);
	scope_add(&s, 9);                /* there already: still not over */
	ck_assert_int_eq(s.over, 0);
	scope_add(&s, t);                /* one more than it holds */
	ck_assert_int_eq(s.over, 1);
	ck_assert_int_eq(s.n, SCOPE_SET_MAX);
}
END_TEST

static Suite *suite_scope(void)
{
	Suite *s = suite_create("scope");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, tags_are_never_zero_and_tell_kinds_and_slugs_apart);
	tcase_add_test(tc, a_set_keeps_each_tag_once_and_says_when_it_is_full);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_scope)
