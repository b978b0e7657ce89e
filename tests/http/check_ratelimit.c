/* check_ratelimit.c: the per-client token buckets of server/http/ratelimit.c. */
#include "check_util.h"
#include "http/ratelimit.h"

#include <pthread.h>
#include <time.h>

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

/* Retry-After: the whole seconds until one token is back, rounded up. */
START_TEST(wait_is_the_time_to_the_next_token)
{
	struct ratelimit *rl = ratelimit_new(1, 1), *fast = ratelimit_new(120, 1);
	struct ratelimit *odd = ratelimit_new(40, 1);

	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ck_assert_uint_eq(ratelimit_take(rl, "k"), 60);      /* one a minute waits a minute */
	ck_assert_uint_eq(ratelimit_take(fast, "k"), 0);
	ck_assert_uint_eq(ratelimit_take(fast, "k"), 1);     /* half a second is 1 */
	ck_assert_uint_eq(ratelimit_take(odd, "k"), 0);
	ck_assert_uint_eq(ratelimit_take(odd, "k"), 2);      /* 1.5 s rounds up */
	ratelimit_free(rl);
	ratelimit_free(fast);
	ratelimit_free(odd);
}
END_TEST

/* Tokens come back at the rate: at 60,000 a minute one is back within a
 * millisecond, so after a short pause the key is allowed again. */
START_TEST(tokens_come_back)
{
	struct ratelimit *rl = ratelimit_new(60000, 2);
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	nanosleep(&pause, NULL);
	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ratelimit_free(rl);
}
END_TEST

/* A burst of 0 is a burst of 1; a NULL limiter allows everything. */
START_TEST(burst_zero_and_null)
{
	struct ratelimit *rl = ratelimit_new(1, 0);

	ck_assert_uint_eq(ratelimit_take(rl, "k"), 0);
	ck_assert_uint_ge(ratelimit_take(rl, "k"), 1);
	ck_assert_uint_eq(ratelimit_take(NULL, "k"), 0);
	ck_assert_uint_eq(ratelimit_check(NULL, "k"), 0);
	ratelimit_free(rl);
	ratelimit_free(NULL);
}
END_TEST

/* Keys are compared whole ("addr:1" is not "addr:10") and each limiter
 * keeps its own buckets. */
START_TEST(keys_and_limiters_are_apart)
{
	struct ratelimit *a = ratelimit_new(1, 1), *b = ratelimit_new(1, 1);

	ck_assert_uint_eq(ratelimit_take(a, "addr:1"), 0);
	ck_assert_uint_eq(ratelimit_take(a, "addr:10"), 0);
	ck_assert_uint_eq(ratelimit_take(a, "addr:1 "), 0);
	ck_assert_uint_eq(ratelimit_take(b, "addr:1"), 0);
	ck_assert_uint_ge(ratelimit_take(a, "addr:1"), 1);
	ck_assert_uint_ge(ratelimit_take(b, "addr:1"), 1);
	ratelimit_free(a);
	ratelimit_free(b);
}
END_TEST

struct racer {
	struct ratelimit *rl;
	int allowed;
};

static void *race(void *arg)
{
	struct racer *r = arg;

	for (int i = 0; i < 500; i++)
		r->allowed += ratelimit_take(r->rl, "shared") == 0;
	return NULL;
}

/* Four threads taking from one key at once get exactly the burst between
 * them (at one a minute, no token comes back meanwhile). */
START_TEST(threads_share_one_bucket_exactly)
{
	struct racer r[4];
	pthread_t t[4];
	struct ratelimit *rl = ratelimit_new(1, 100);
	int i, total = 0;

	for (i = 0; i < 4; i++) {
		r[i] = (struct racer){ rl, 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		total += r[i].allowed;
	}
	ck_assert_int_eq(total, 100);
	ratelimit_free(rl);
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
	tcase_add_test(tc, wait_is_the_time_to_the_next_token);
	tcase_add_test(tc, tokens_come_back);
	tcase_add_test(tc, burst_zero_and_null);
	tcase_add_test(tc, keys_and_limiters_are_apart);
	tcase_add_test(tc, threads_share_one_bucket_exactly);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_ratelimit)
