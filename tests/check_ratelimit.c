/* check_ratelimit.c: the per-client token buckets of server/http/ratelimit.c. */
#include "check_util.h"
#include "http/ratelimit.h"

/* A burst of events is allowed, the next one waits at least a second (and,
 * at one a minute, at most a minute); other keys keep their own allowance. */
START_TEST(burst_then_wait_per_key)
{
	struct ratelimit *rl = ratelimit_new(1, 3);
	unsigned wait;
	int i;

	ck_assert_ptr_nonnull(rl);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(ratelimit_take(rl, "addr:192.0.2.1"), 0);
	wait = ratelimit_take(rl, "addr:192.0.2.1");
	ck_assert_uint_ge(wait, 1);
	ck_assert_uint_le(wait, 60);
	ck_assert_uint_eq(ratelimit_take(rl, "addr:192.0.2.2"), 0);
	ratelimit_free(rl);
}
END_TEST

/* ratelimit_check refuses like take but uses nothing up. */
START_TEST(check_takes_nothing)
{
	struct ratelimit *rl = ratelimit_new(1, 1);
	int i;

	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(ratelimit_check(rl, "k"), 0);
	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ck_assert_uint_ge(ratelimit_check(rl, "k"), 1);
	ck_assert_uint_ge(ratelimit_take(rl, "k"), 1);
	ratelimit_free(rl);
}
END_TEST

/* 0 per minute is no limit at all. */
START_TEST(zero_is_unlimited)
{
	struct ratelimit *rl = ratelimit_new(0, 1);
	int i;

	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ratelimit_free(rl);
}
END_TEST

/* A capped limiter allows a quarter of its cap at once and counts what it
 * refuses; 0 is no limit. */
START_TEST(capped_bursts_a_quarter_and_counts_refusals)
{
	struct ratelimit *rl = ratelimit_new_capped(120);
	int i;

	ck_assert_ptr_nonnull(rl);
	for (i = 0; i < 30; i++)
		ck_assert_uint_eq(ratelimit_take(rl, "a"), 0);
	ck_assert_uint_eq(ratelimit_refused(rl), 0);
	ck_assert_uint_ge(ratelimit_take(rl, "a"), 1);
	ck_assert_uint_ge(ratelimit_check(rl, "a"), 1);
	ck_assert_uint_eq(ratelimit_refused(rl), 2);
	ck_assert_uint_eq(ratelimit_take(rl, "b"), 0);
	ratelimit_free(rl);
	rl = ratelimit_new_capped(20);
	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(ratelimit_take(rl, "a"), 0);
	ck_assert_uint_ge(ratelimit_take(rl, "a"), 1);
	ratelimit_free(rl);
	rl = ratelimit_new_capped(0);
	for (i = 0; i < 500; i++)
		ck_assert_uint_eq(ratelimit_take(rl, "a"), 0);
	ck_assert_uint_eq(ratelimit_refused(rl), 0);
	ratelimit_free(rl);
	ck_assert_uint_eq(ratelimit_refused(NULL), 0);
}
END_TEST

static Suite *suite_ratelimit(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, burst_then_wait_per_key);
	tcase_add_test(tc, check_takes_nothing);
	tcase_add_test(tc, zero_is_unlimited);
	tcase_add_test(tc, capped_bursts_a_quarter_and_counts_refusals);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_ratelimit)
