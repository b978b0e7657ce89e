/* check_cache.c: the render cache of server/http/cache.c: its bounds on ids and on bytes, the generation check, and stale-while-rebuilding with single flight. */
#include "check_util.h"
#include "http/cache.h"

#include <pthread.h>

/* A kept response with an n-byte body, as answer_send() keeps them. */
static struct http_kept *body_of(size_t n)
{
	static char zeros[1 << 16];
	struct http_kept *k;

	ck_assert_uint_le(n, sizeof zeros);
	k = http_kept_build(200, CT_OCTETS, zeros, n, CC_PAGE, "\"x\"");   /* kept as it is */
	ck_assert_ptr_nonnull(k);
	return k;
}

static void put(struct cache *c, const char *id, enum cache_rep rep, size_t n)
{
	cache_put(c, id, rep, cache_gen(c), CACHE_NO_TAGS, body_of(n));
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
	cache_put(c, id_of(1), REP_RUN_HTML, gen, CACHE_NO_TAGS, body_of(2000));
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
	unsigned t2 = 12345u;
	struct http_kept *k;
	uint64_t gen;

	/* A page built before the cluster changed is not kept. */
	gen = cache_gen(c);
	cache_bump_cluster(c, t);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_HTML, gen, ((struct cache_tags){ { t, t2 } }),
		  body_of(500));
	ck_assert_uint_eq(cache_bytes(c), 0);
	/* One built after it is, and served until either population changes. */
	gen = cache_gen(c);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_HTML, gen, ((struct cache_tags){ { t, t2 } }),
		  body_of(500));
	ck_assert_uint_eq(cache_bytes(c), 500);
	k = cache_get(c, "r_aaaaaaaaaaa", REP_RUN_HTML);
	ck_assert_ptr_nonnull(k);
	http_kept_unref(k);
	cache_bump_cluster(c, 0);        /* no tag: nothing happens */
	ck_assert_ptr_nonnull(k = cache_get(c, "r_aaaaaaaaaaa", REP_RUN_HTML));
	http_kept_unref(k);
	cache_bump_cluster(c, t2);       /* the second tag (the combination) */
	ck_assert_ptr_null(cache_get(c, "r_aaaaaaaaaaa", REP_RUN_HTML));
	gen = cache_gen(c);
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_HTML, gen, ((struct cache_tags){ { t, t2 } }),
		  body_of(500));
	ck_assert_ptr_nonnull(k = cache_get(c, "r_aaaaaaaaaaa", REP_RUN_HTML));
	http_kept_unref(k);
	cache_bump_cluster(c, t);        /* the first (the cluster) */
	ck_assert_ptr_null(cache_get(c, "r_aaaaaaaaaaa", REP_RUN_HTML));
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
	cache_put(c, "r_aaaaaaaaaaa", REP_RUN_JSON, gen, CACHE_NO_TAGS, body_of(300));
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
	cache_put(c, "r_aaaaaaaaaaa", REP_BADGE_SVG, cache_gen(c), CACHE_NO_TAGS, http_kept_ref(k));
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
	/* A list page is stale after a list write, kept or not. */
	put(c, "Lkey", REP_LIST_HTML, 100);
	cache_bump_lists(c);
	ck_assert_ptr_null(cache_get(c, "Lkey", REP_LIST_HTML));
	cache_free(c);
}
END_TEST

/* ---- stale while rebuilding, single flight (the cache's clock is ours) ---- */

static int64_t fake_now = 1000000;

static int64_t fake_ms(void)
{
	return fake_now;
}

static struct cache *cache_faked(void)
{
	struct cache *c = cache_new(1000);

	cache_set_clock(c, fake_ms);
	return c;
}

/* The leader's build: keeps an n-byte body as its flight's and lands. */
static void lead_put(struct cache *c, unsigned lead, const char *id, uint64_t gen, size_t n)
{
	cache_put_led(c, lead, id, REP_LIST_HTML, gen, CACHE_NO_TAGS, body_of(n));
	cache_land(c, lead);
}

/* 1 when the list page id is kept and fresh. */
static int is_fresh(struct cache *c, const char *id)
{
	struct http_kept *k = cache_get(c, id, REP_LIST_HTML);

	http_kept_unref(k);
	return k != NULL;
}

/* lead_put of a page kept with tags. */
static void lead_put_tagged(struct cache *c, unsigned lead, const char *id, uint64_t gen,
			    struct cache_tags tags, size_t n)
{
	cache_put_led(c, lead, id, REP_LIST_HTML, gen, tags, body_of(n));
	cache_land(c, lead);
}

/* The bytes of what fetch answers with (0: nothing), and its lead. */
static size_t fetched(struct cache *c, const char *id, enum cache_rep rep, unsigned *lead)
{
	struct http_kept *k = cache_fetch(c, id, rep, lead);
	size_t n = k ? k->bytes : 0;

	http_kept_unref(k);
	return n;
}

START_TEST(test_stale_list_is_served_while_one_request_rebuilds)
{
	struct cache *c = cache_faked();
	unsigned lead, other;
	uint64_t gen;

	put(c, "Lkey", REP_LIST_HTML, 100);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);   /* fresh */
	ck_assert_uint_eq(lead, 0);
	cache_bump_lists(c);                     /* a write: the list is stale */
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	ck_assert_ptr_null(cache_get(c, "Lkey", REP_LIST_HTML));  /* not fresh */
	/* The first request leads the one rebuild, and is answered from the
	 * stale copy all the same: the rebuild runs off its path ... */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_ne(lead, 0);
	gen = cache_gen(c);
	/* ... every other one meanwhile gets the stale copy, building nothing. */
	fake_now += CACHE_STALE_MS / 2;
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 100);
	ck_assert_uint_eq(other, 0);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 100);
	ck_assert_uint_eq(other, 0);
	ck_assert_uint_eq(cache_flights(c), 1);
	/* A write during the build: the build is kept all the same (newer than
	 * the copy it replaces), stale at once, and the next one leads again. */
	cache_bump_lists(c);
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	lead_put(c, lead, "Lkey", gen, 200);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 200);
	ck_assert_uint_ne(lead, 0);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 200);
	ck_assert_uint_eq(other, 0);
	/* Without a write in between, the build is fresh. */
	lead_put(c, lead, "Lkey", cache_gen(c), 300);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 300);
	ck_assert_uint_eq(lead, 0);
	cache_free(c);
}
END_TEST

/* The bound counts from the first write that changes what lists show:
 * changes that do not (a run's own page dropped, a new log checkpoint,
 * a cluster's run pages) leave a list page fresh and do not age it. */
START_TEST(test_the_bound_counts_from_the_first_list_write)
{
	struct cache *c = cache_faked();
	unsigned lead;

	put(c, "Lkey", REP_LIST_HTML, 100);
	cache_invalidate(c, "r_other");          /* a dispute post on a run */
	cache_bump_rep(c, REP_RUN_JSON);         /* a new checkpoint */
	cache_bump_cluster(c, 7);                /* run pages of a cluster */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_eq(lead, 0);              /* fresh: nothing to rebuild */
	/* Those changes long ago, and a list write just now: stale, and
	 * served (its age is the list write's, not theirs). */
	fake_now += 10 * CACHE_STALE_MS;
	cache_invalidate(c, "r_third");
	fake_now += 10 * CACHE_STALE_MS;
	cache_bump_lists(c);
	fake_now += CACHE_STALE_MS - 1;
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	/* Past the bound from that write: no longer served. */
	fake_now += 2;
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	/* The refresh thread's new figures are a list write too. */
	put(c, "Lkey", REP_LIST_HTML, 100);
	cache_bump_rep(c, REP_LIST_HTML);
	ck_assert_ptr_null(cache_get(c, "Lkey", REP_LIST_HTML));
	cache_free(c);
}
END_TEST

/* Writes younger than the settling time leave a stale copy answered and
 * rebuild nothing: a burst of writes costs one rebuild.  Once the first
 * write the copy misses is that old, the next look leads the rebuild. */
START_TEST(test_a_burst_of_writes_settles_into_one_rebuild)
{
	struct cache *c = cache_faked();
	unsigned lead;
	int i;

	put(c, "Lkey", REP_LIST_HTML, 100);
	for (i = 0; i < 10; i++) {              /* ten writes, 19 ms apart */
		cache_bump_lists(c);
		ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
		ck_assert_uint_eq(lead, 0);
		fake_now += (CACHE_SETTLE_MS - 10) / 10;
	}
	ck_assert_uint_eq(cache_flights(c), 0);
	fake_now += 10;                          /* the first of them settled */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_ne(lead, 0);
	ck_assert_uint_eq(cache_flights(c), 1);
	lead_put(c, lead, "Lkey", cache_gen(c), 200);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 200);   /* fresh */
	ck_assert_uint_eq(lead, 0);
	/* A short bound (a test's) settles in a fifth of it. */
	cache_set_stale_ms(c, 100);
	cache_bump_lists(c);
	fake_now += 19;
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 200);
	ck_assert_uint_eq(lead, 0);
	fake_now += 1;
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 200);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	cache_free(c);
}
END_TEST

/* A list page kept with tags is scoped: list writes of other scopes
 * leave it fresh, one of its own (either tag) or a write of every list
 * (cache_bump_lists) makes it stale, served while it is rebuilt; a page
 * kept without tags follows every list write.  A build led while a list
 * write of one of its scopes happened is stale at once; one of other
 * scopes leaves it fresh. */
START_TEST(test_a_scoped_list_page_follows_only_its_scopes)
{
	struct cache *c = cache_faked();
	struct cache_tags mine = { { 11, 12 } };
	unsigned other[2] = { 21, 22 }, one[1] = { 12 }, lead;
	uint64_t gen;

	cache_put(c, "Lmine", REP_LIST_HTML, cache_gen(c), mine, body_of(100));
	put(c, "Lall", REP_LIST_HTML, 50);
	cache_bump_scopes(c, other, 2);          /* an upload of other scopes */
	ck_assert(is_fresh(c, "Lmine"));
	ck_assert_ptr_null(cache_get(c, "Lall", REP_LIST_HTML));   /* unscoped: stale */
	cache_bump_scopes(c, NULL, 0);           /* a refresh of no scope (asks) */
	ck_assert(is_fresh(c, "Lmine"));
	cache_bump_scopes(c, one, 1);            /* its second tag */
	ck_assert_ptr_null(cache_get(c, "Lmine", REP_LIST_HTML));
	fake_now += CACHE_SETTLE_MS;
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 100);   /* stale, led */
	ck_assert_uint_ne(lead, 0);
	gen = cache_gen(c);
	lead_put_tagged(c, lead, "Lmine", gen, mine, 200);
	ck_assert(is_fresh(c, "Lmine"));
	/* A write of every list. */
	cache_bump_lists(c);
	ck_assert_ptr_null(cache_get(c, "Lmine", REP_LIST_HTML));
	fake_now += CACHE_SETTLE_MS;
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 200);
	ck_assert_uint_ne(lead, 0);
	/* A list write of another scope while that build ran leaves what it
	 * keeps fresh: the page shows nothing of that write, whether its
	 * build read before or after it. */
	gen = cache_gen(c);
	cache_bump_scopes(c, other, 2);
	lead_put_tagged(c, lead, "Lmine", gen, mine, 250);
	ck_assert(is_fresh(c, "Lmine"));
	cache_bump_lists(c);
	fake_now += CACHE_SETTLE_MS;
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 250);
	ck_assert_uint_ne(lead, 0);
	/* One of its own scopes written while the build ran: it may have read
	 * before or after, so what it keeps is stale at once. */
	gen = cache_gen(c);
	cache_bump_scopes(c, one, 1);
	lead_put_tagged(c, lead, "Lmine", gen, mine, 300);
	ck_assert_ptr_null(cache_get(c, "Lmine", REP_LIST_HTML));
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 300);   /* served stale */
	cache_land(c, lead);
	/* A scoped page is aged from its own scope's write, not from the
	 * writes of other scopes before it: built, another scope written half
	 * a bound later, its own well past the bound after that; once its
	 * own write settles it is served stale while one request rebuilds. */
	lead_put_tagged(c, lead, "Lmine", cache_gen(c), mine, 400);
	ck_assert(is_fresh(c, "Lmine"));
	fake_now += CACHE_STALE_MS / 2;
	cache_bump_scopes(c, other, 2);
	fake_now += 2 * CACHE_STALE_MS;
	cache_bump_scopes(c, one, 1);
	fake_now += CACHE_SETTLE_MS;
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 400);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);                     /* (that rebuild kept nothing) */
	/* Past the bound from its own write, it is no longer served. */
	fake_now += CACHE_STALE_MS;
	ck_assert_uint_eq(fetched(c, "Lmine", REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	/* A run page's tags are its populations, not scopes: a bump of one
	 * of them leaves no copy to serve, stale or not. */
	cache_put(c, "r_aaaaaaaaa01", REP_RUN_HTML, cache_gen(c), mine, body_of(10));
	cache_bump_cluster(c, 11);
	ck_assert_ptr_null(cache_get(c, "r_aaaaaaaaa01", REP_RUN_HTML));
	ck_assert_uint_eq(fetched(c, "r_aaaaaaaaa01", REP_RUN_HTML, &lead), 0);
	cache_land(c, lead);
	cache_free(c);
}
END_TEST

START_TEST(test_an_older_build_never_replaces_a_newer_copy)
{
	struct cache *c = cache_faked();
	unsigned lead, other;
	uint64_t old;

	put(c, "Lkey", REP_LIST_HTML, 100);
	cache_bump_lists(c);
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_ne(lead, 0);
	old = cache_gen(c) - 1;                 /* a snapshot before the copy kept */
	cache_put_led(c, lead, "Lkey", REP_LIST_HTML, old - 1, CACHE_NO_TAGS, body_of(50));
	cache_land(c, lead);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);   /* stale: leads again */
	ck_assert_uint_ne(lead, 0);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 100); /* the copy kept is 100's */
	cache_land(c, lead);
	cache_free(c);
}
END_TEST

START_TEST(test_a_leader_that_keeps_nothing_hands_the_flight_on)
{
	struct cache *c = cache_faked();
	unsigned lead, next;

	ck_assert_uint_eq(fetched(c, "Lnone", REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);                    /* an error page: nothing kept */
	ck_assert_uint_eq(fetched(c, "Lnone", REP_LIST_HTML, &next), 0);
	ck_assert_uint_ne(next, 0);
	cache_land(c, next);
	cache_free(c);
}
END_TEST

START_TEST(test_stale_past_the_bound_or_dropped_is_never_served)
{
	struct cache *c = cache_faked();
	unsigned lead, other;

	put(c, "Lkey", REP_LIST_HTML, 100);
	fake_now += 60000;                       /* an old page ... */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);   /* ... fresh still */
	cache_bump_lists(c);                     /* a write a moment ago */
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 100);
	ck_assert_uint_ne(lead, 0);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 100);  /* served stale */
	ck_assert_uint_eq(other, 0);
	/* (Past the bound it is waited for instead: check_waiter_gets_the_build.) */
	lead_put(c, lead, "Lkey", cache_gen(c), 200);
	/* Run pages are never served stale: a cluster bump makes them miss. */
	cache_put(c, "r_aaaaaaaaa01", REP_RUN_HTML, cache_gen(c), (struct cache_tags){ { 7, 0 } }, body_of(10));
	cache_bump_cluster(c, 7);
	ck_assert_uint_eq(fetched(c, "r_aaaaaaaaa01", REP_RUN_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	/* A drop during a build: the build is not kept, nothing stale stays. */
	cache_bump_lists(c);
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 200);
	ck_assert_uint_ne(lead, 0);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &other), 200);   /* stale meanwhile */
	cache_clear(c);
	lead_put(c, lead, "Lkey", cache_gen(c) - 1, 300);
	ck_assert_uint_eq(fetched(c, "Lkey", REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	cache_land(c, lead);
	cache_free(c);
}
END_TEST

/* A waiter that does not sleep (a suspended request): held when it is
 * linked to the flight, woken once when the flight lands, never before
 * it was held; then it looks again and gets the one build. */
struct counted_waiter {
	struct cache_waiter w;
	int held, woken;
};

static void cw_hold(struct cache_waiter *w)
{
	((struct counted_waiter *)w)->held++;
}

static void cw_wake(struct cache_waiter *w)
{
	struct counted_waiter *cw = (struct counted_waiter *)w;

	ck_assert_int_eq(cw->held, 1);
	cw->woken++;
}

START_TEST(test_a_suspended_waiter_is_woken_by_the_one_build)
{
	struct cache *c = cache_faked();
	struct counted_waiter a = { { cw_hold, cw_wake, NULL, 0, 0 }, 0, 0 };
	struct counted_waiter b = a;
	struct http_kept *k;
	unsigned lead, other;

	ck_assert_uint_eq(fetched(c, "Lnew", REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	ck_assert_ptr_null(cache_fetch_async(c, "Lnew", REP_LIST_HTML, &other, &a.w));
	ck_assert_ptr_null(cache_fetch_async(c, "Lnew", REP_LIST_HTML, &other, &b.w));
	ck_assert_int_eq(a.w.waiting && b.w.waiting, 1);
	ck_assert_uint_eq(other, 0);
	ck_assert_int_eq(a.held + b.held, 2);
	ck_assert_int_eq(a.woken + b.woken, 0);
	lead_put(c, lead, "Lnew", cache_gen(c), 200);
	ck_assert_int_eq(a.woken, 1);
	ck_assert_int_eq(b.woken, 1);
	k = cache_fetch_async(c, "Lnew", REP_LIST_HTML, &other, &a.w);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->bytes, 200);
	ck_assert_int_eq(a.w.waiting, 0);
	http_kept_unref(k);
	/* A stale copy: the first async look leads and gets the copy. */
	cache_bump_lists(c);
	fake_now += CACHE_SETTLE_MS;            /* ... settled: the next look leads */
	k = cache_fetch_async(c, "Lnew", REP_LIST_HTML, &lead, &b.w);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_ne(lead, 0);
	ck_assert_int_eq(b.w.waiting, 0);
	http_kept_unref(k);
	cache_land(c, lead);
	cache_free(c);
}
END_TEST

struct waiter {
	struct cache *c;
	const char *id;
	size_t got;
	unsigned lead;
};

static void *wait_fetch(void *arg)
{
	struct waiter *w = arg;

	w->got = fetched(w->c, w->id, REP_LIST_HTML, &w->lead);
	return NULL;
}

/* Whenever the other request comes (before the build lands, waiting, or
 * after), it is answered with the one build and builds nothing itself. */
static void check_waiter_gets_the_build(const char *id, int stale_first)
{
	struct cache *c = cache_faked();
	struct waiter w = { c, id, 0, 0 };
	pthread_t t;
	unsigned lead;

	if (stale_first) {                      /* a copy too old to be served */
		put(c, id, REP_LIST_HTML, 100);
		cache_bump_lists(c);
		fake_now += CACHE_STALE_MS + 1;
	}
	ck_assert_uint_eq(fetched(c, id, REP_LIST_HTML, &lead), 0);
	ck_assert_uint_ne(lead, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, wait_fetch, &w), 0);
	lead_put(c, lead, id, cache_gen(c), 200);
	pthread_join(t, NULL);
	ck_assert_uint_eq(w.got, 200);
	ck_assert_uint_eq(w.lead, 0);
	cache_free(c);
}

START_TEST(test_a_page_never_kept_is_built_once)
{
	check_waiter_gets_the_build("Lnew", 0);
}
END_TEST

START_TEST(test_a_copy_too_old_is_waited_for_not_served)
{
	check_waiter_gets_the_build("Lold", 1);
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
	tcase_add_test(t, test_stale_list_is_served_while_one_request_rebuilds);
	tcase_add_test(t, test_the_bound_counts_from_the_first_list_write);
	tcase_add_test(t, test_a_burst_of_writes_settles_into_one_rebuild);
	tcase_add_test(t, test_a_suspended_waiter_is_woken_by_the_one_build);
	tcase_add_test(t, test_an_older_build_never_replaces_a_newer_copy);
	tcase_add_test(t, test_a_scoped_list_page_follows_only_its_scopes);
	tcase_add_test(t, test_a_leader_that_keeps_nothing_hands_the_flight_on);
	tcase_add_test(t, test_stale_past_the_bound_or_dropped_is_never_served);
	tcase_add_test(t, test_a_page_never_kept_is_built_once);
	tcase_add_test(t, test_a_copy_too_old_is_waited_for_not_served);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_cache)
