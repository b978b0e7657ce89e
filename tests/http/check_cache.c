/* check_cache.c: the render cache of server/http/cache.c: its bounds on ids and on bytes, and the generation check. */
#include "check_util.h"
#include "http/cache.h"

/* A kept response with an n-byte body, as answer_send() keeps them. */
static struct http_kept *body_of(size_t n)
{
	static char zeros[1 << 16];
	struct http_kept *k;

	ck_assert_uint_le(n, sizeof zeros);
	k = http_kept_build(200, CT_HTML, zeros, n, CC_PAGE, "\"x\"");
	ck_assert_ptr_nonnull(k);
	return k;
}

static void put(struct cache *c, const char *id, enum cache_rep rep, size_t n)
{
	cache_put(c, id, rep, cache_gen(c), 0, body_of(n));
}

/* Ids "r_aaaaaaaaa00".."r_aaaaaaaaa99". */
static const char *id_of(int i)
{
	static char id[16];

	snprintf(id, sizeof id, "r_aaaaaaaaa%02d", i);
	return id;
}

START_TEST(test_bytes_are_counted_and_bounded)
{
	struct cache *c = cache_new(1000);
	int i;

	cache_set_max_bytes(c, 40000);
	put(c, id_of(0), REP_RUN_HTML, 3000);
	put(c, id_of(0), REP_RUN_JSON, 1000);
	ck_assert_uint_eq(cache_bytes(c), 4000);
	/* Replacing a rep replaces its bytes. */
	put(c, id_of(0), REP_RUN_JSON, 500);
	ck_assert_uint_eq(cache_bytes(c), 3500);
	/* Many pages: the total never passes the bound. */
	for (i = 1; i < 100; i++) {
		put(c, id_of(i), REP_RUN_HTML, 9000);
		ck_assert_uint_le(cache_bytes(c), 40000);
	}
	ck_assert_uint_ge(cache_bytes(c), 9000);
	cache_clear(c);
	ck_assert_uint_eq(cache_bytes(c), 0);
	cache_free(c);
}
END_TEST

START_TEST(test_oversized_bodies_are_not_kept)
{
	struct cache *c = cache_new(1000);

	cache_set_max_bytes(c, 40000);
	put(c, id_of(1), REP_RUN_HTML, 10000);
	put(c, id_of(2), REP_RUN_HTML, 10001);   /* over a quarter of the bound */
	ck_assert_uint_eq(cache_bytes(c), 10000);
	cache_free(c);
}
END_TEST

START_TEST(test_invalidate_gives_the_bytes_back)
{
	struct cache *c = cache_new(1000);
	uint64_t gen;

	put(c, id_of(1), REP_RUN_HTML, 2000);
	put(c, id_of(2), REP_BADGE_SVG, 700);
	cache_invalidate(c, id_of(1));
	ck_assert_uint_eq(cache_bytes(c), 700);
	/* A put made from a read older than an invalidation is dropped. */
	gen = cache_gen(c);
	cache_invalidate(c, id_of(3));
	cache_put(c, id_of(1), REP_RUN_HTML, gen, 0, body_of(2000));
	ck_assert_uint_eq(cache_bytes(c), 700);
	cache_free(c);
}
END_TEST

START_TEST(test_id_bound_still_holds)
{
	struct cache *c = cache_new(10);
	int i;

	for (i = 0; i < 100; i++)
		put(c, id_of(i), REP_BADGE_SVG, 100);
	ck_assert_uint_le(cache_bytes(c), 10 * 100);
	cache_free(c);
}
END_TEST

START_TEST(test_cluster_tags_and_bumps)
{
	struct cache *c = cache_new(1000);
	unsigned t = 3000000000u;        /* any tag but 0 (outlier_cluster_tag's) */
	uint64_t gen;

	/* A page built before the cluster changed is not kept. */
	gen = cache_gen(c);
	cache_bump_cluster(c, t);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_HTML, gen, t, body_of(500));
	ck_assert_uint_eq(cache_bytes(c), 0);
	/* One built after it is. */
	gen = cache_gen(c);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_HTML, gen, t, body_of(500));
	ck_assert_uint_eq(cache_bytes(c), 500);
	cache_bump_cluster(c, 0);        /* no tag: nothing happens */
	cache_free(c);
}
END_TEST

/* A bump of one kind of response drops puts of any kind begun before it
 * (the HTTP tests check that kept run JSON stops being served). */
START_TEST(test_rep_bumps)
{
	struct cache *c = cache_new(1000);
	uint64_t gen = cache_gen(c);

	cache_bump_rep(c, REP_RUN_JSON);
	ck_assert_uint_gt(cache_gen(c), gen);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_JSON, gen, 0, body_of(300));
	ck_assert_uint_eq(cache_bytes(c), 0);
	put(c, "r_aaaaaaaaaaa", REP_RUN_JSON, 300);
	ck_assert_uint_eq(cache_bytes(c), 300);
	cache_bump_rep(c, REP__MAX);     /* not a kind: nothing happens */
	cache_free(c);
}
END_TEST

/* What cache_get() hands out is the kept response itself, a reference of
 * its own: it outlives the entry being dropped or replaced meanwhile (an
 * answer queues it after the cache lock is gone); a stale entry is not
 * handed out. */
START_TEST(test_got_responses_outlive_their_entry)
{
	struct cache *c = cache_new(1000);
	struct http_kept *k, *got;

	k = body_of(700);
	cache_put(c, "r_aaaaaaaaaaa", REP_BADGE_SVG, cache_gen(c), 0, http_kept_ref(k));
	got = cache_get(c, "r_aaaaaaaaaaa", REP_BADGE_SVG);
	ck_assert_ptr_eq(got, k);
	ck_assert_int_eq(atomic_load(&k->refs), 3);
	cache_invalidate(c, "r_aaaaaaaaaaa");
	ck_assert_int_eq(atomic_load(&k->refs), 2);
	ck_assert_ptr_null(cache_get(c, "r_aaaaaaaaaaa", REP_BADGE_SVG));
	ck_assert_uint_eq(got->bytes, 700);
	ck_assert_str_eq(MHD_get_response_header(got->resp, "ETag"), "\"x\"");
	http_kept_unref(got);
	http_kept_unref(k);
	/* A list page is stale after any write, kept or not. */
	put(c, "Lkey", REP_LIST_HTML, 100);
	cache_invalidate(c, "r_other");
	ck_assert_ptr_null(cache_get(c, "Lkey", REP_LIST_HTML));
	cache_free(c);
}
END_TEST

static Suite *suite_cache(void)
{
	Suite *s = suite_create("cache");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_bytes_are_counted_and_bounded);
	tcase_add_test(t, test_oversized_bodies_are_not_kept);
	tcase_add_test(t, test_invalidate_gives_the_bytes_back);
	tcase_add_test(t, test_cluster_tags_and_bumps);
	tcase_add_test(t, test_rep_bumps);
	tcase_add_test(t, test_id_bound_still_holds);
	tcase_add_test(t, test_got_responses_outlive_their_entry);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_cache)
