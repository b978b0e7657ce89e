/* cache.h: rendered responses kept in memory, keyed by run id, so the
 * hottest reads (badges, run pages) touch no SQL and render nothing; and
 * the busiest list pages (the board, a model's and a hardware's page), kept
 * by a key of their path and query (REP_LIST_HTML), fresh until the next
 * write that changes what lists show (a stored run, new figures), since
 * any upload may change what they list.
 *
 * Freshness: every write that changes what a run shows calls
 * cache_invalidate() for that run after its commit.  A reader takes
 * cache_gen() before it reads the database and passes it to cache_put(); the
 * put is dropped when any invalidation happened in between, so a response
 * built from a snapshot older than a commit is never kept.
 *
 * List pages are served stale while they are rebuilt (cache_fetch): a
 * write that changes what lists show (a stored run, the refresh thread's
 * new figures: cache_bump_scopes, cache_bump_lists) makes the kept list
 * pages it touches stale, not gone (a page kept with tags is scoped: a
 * model's or a hardware's page, store/scope.h, is touched only by writes
 * of its scopes and by cache_bump_lists; one kept without tags by every
 * list write); other changes (a run's own page dropped, a new log checkpoint)
 * leave them fresh.  The first request for a stale page once the first
 * write it misses is CACHE_SETTLE_MS old (before that the stale copy is
 * answered and nothing rebuilt, so a burst of writes costs one rebuild
 * of a page, not one a write) leads the page's one flight and is answered from the stale copy at once like every
 * other request for it, while the rebuild runs off the request path
 * (pages/page_kept.c), as long as the first list write that copy misses
 * is at most CACHE_STALE_MS old; past that, or when nothing is kept,
 * they wait for the one build instead of each making its own (single
 * flight, as nginx's proxy_cache_use_stale updating with
 * proxy_cache_lock).  So a list page served is at most about
 * CACHE_STALE_MS behind the writes that touch it.  Drops
 * (cache_invalidate of an id, cache_clear) stay hard: nothing built
 * before one is served or kept after it. */
#ifndef LLMS_CACHE_H
#define LLMS_CACHE_H

#include <stdint.h>

#include "http/http.h"

enum cache_rep {
	REP_RUN_HTML,
	REP_RUN_JSON,
	REP_BADGE_SVG,
	REP_BADGE_JSON,
	REP_LIST_HTML,      /* a list page by path and query: stale after a list write */
	REP_CARD_PNG,       /* a run's link-preview card (pages/page_card.c) */
	REP_CARD_SVG,       /* ... and the SVG it is drawn from */
	REP__MAX
};

struct cache;

/* Bytes of response bodies the cache holds at most, by default.  A run
 * page with a full dispute thread is megabytes, so a bound on ids alone
 * does not bound memory.  64 MB holds some 3,000 run pages with their
 * badges, or 50,000 badges alone: the hot ones, while the daemon's own
 * memory stays under 200 MB with default settings (tests/bench/README.md). */
#define CACHE_MAX_BYTES ((size_t)64 << 20)

/* A cache holding at most max_ids run ids (each with all its reps) and at
 * most CACHE_MAX_BYTES of bodies; the oldest buckets go first. */
struct cache *cache_new(unsigned max_ids);
void cache_free(struct cache *c);
/* Changes the byte bound (for tests and operators); 0 keeps the default. */
void cache_set_max_bytes(struct cache *c, size_t max_bytes);
/* Bytes of bodies held now. */
size_t cache_bytes(struct cache *c);

uint64_t cache_gen(struct cache *c);
/* Responses (ids) held now. */
unsigned cache_count(struct cache *c);
/* The clock stale copies are aged by, in milliseconds (NULL: the
 * monotonic clock); for tests, before any thread uses the cache. */
void cache_set_clock(struct cache *c, int64_t (*now_ms)(void));

/* Changes the bound below (tests only: --test-stale-ms); 0 serves no
 * stale copy at all (the request after a write waits for the rebuild);
 * negative keeps it. */
void cache_set_stale_ms(struct cache *c, long ms);
/* How long ago the first write a stale list page misses may be and the
 * page still be served while its rebuild runs: the freshness bound of kept
 * pages (schema/API.md). */
#define CACHE_STALE_MS 1000
/* A stale copy is answered without a rebuild until the first write it
 * misses is this old (a fifth of a shorter bound): the writes of a burst
 * settle into one rebuild a page, and the rebuild still has the rest of
 * the bound to land in. */
#define CACHE_SETTLE_MS 200
/* Builds under way at once, each of one (id, rep); past that, a request
 * builds without a flight. */
#define CACHE_FLIGHTS 64
/* How long a request waits for another's build at most (seconds), and on
 * how many builds that keep nothing it waits before building its own. */
#define CACHE_WAIT_S 5
#define CACHE_WAITS 3

/* The response kept as (id, rep), a new reference (answer_kept takes
 * it), or NULL when there is none or it went stale; counts the hit or
 * miss for /metrics. */
struct http_kept *cache_get(struct cache *c, const char *id, enum cache_rep rep);

/* The populations a response shows (each 0: none): a run page shows its
 * fingerprint cluster and its combination; for a list page
 * (REP_LIST_HTML) they are its scopes instead (cache_bump_scopes). */
struct cache_tags {
	unsigned t[2];
};
#define CACHE_NO_TAGS ((struct cache_tags){ { 0, 0 } })

/* The response to answer (id, rep) with, a new reference, or NULL, and
 * *lead set when the caller is to build it:
 *   fresh: the kept copy, *lead 0;
 *   stale (a list page whose first missed list write is at most
 *   CACHE_STALE_MS old): the stale copy; *lead 0 while another builds
 *   it, else the caller's flight: the caller answers with the copy and
 *   has it rebuilt off its path;
 *   nothing usable and no build: NULL, and *lead is the caller's flight
 *   (not 0): it builds;
 *   nothing usable while another builds: waits for that build (at most
 *   CACHE_WAIT_S) and looks again.
 * A leader keeps its answer with cache_put_led and must call
 * cache_land(lead) after, kept or not.  NULL with *lead 0: build
 * without a flight (all slots taken, or the waits ran out).  Counts the
 * hit or miss for /metrics. */
struct http_kept *cache_fetch(struct cache *c, const char *id, enum cache_rep rep, unsigned *lead);

/* One who waits for a flight without sleeping (a suspended request):
 * hold is called, under the flights' lock, when it is linked to the
 * flight, and wake once that flight lands, on the lander's thread and
 * after hold; then it looks again.  waits counts the flights waited for
 * (0 at first; kept across looks). */
struct cache_waiter {
	void (*hold)(struct cache_waiter *w);
	void (*wake)(struct cache_waiter *w);
	struct cache_waiter *next;     /* the cache's */
	int waits;
	int waiting;                   /* set by cache_fetch_async */
};

/* As cache_fetch, but where that would sleep, w is linked to the flight
 * (w->hold called) and NULL returned with *lead 0 and w->waiting set:
 * w->wake says when to look again. */
struct http_kept *cache_fetch_async(struct cache *c, const char *id, enum cache_rep rep,
				    unsigned *lead, struct cache_waiter *w);
/* Waiters (cache_fetch_async) suspended on flights now. */
unsigned cache_waiting(struct cache *c);
/* Flights under way now (builds led, not yet landed). */
unsigned cache_flights(struct cache *c);
/* Ends the flight lead (0: none) and wakes its waiters. */
void cache_land(struct cache *c, unsigned lead);
/* As cache_put, by the leader of a flight: a list page is kept even when
 * the cache moved during the build (newer than the copy it replaces; it
 * is stale at once, aged from the first list write after its flight
 * began, when that write may have been one it shows: any, for a page kept
 * without tags, else one of its scopes or of every list), unless a drop
 * (cache_invalidate of id, cache_clear) happened since the flight began. */
void cache_put_led(struct cache *c, unsigned lead, const char *id, enum cache_rep rep,
		   uint64_t gen, struct cache_tags tags, struct http_kept *k);

/* Keeps k (the cache takes the caller's reference) as (id, rep), tagged
 * with the populations it shows (see below), unless an invalidation
 * happened since gen or the body alone is over a quarter of the byte
 * bound; then the reference is dropped instead. */
void cache_put(struct cache *c, const char *id, enum cache_rep rep, uint64_t gen,
	       struct cache_tags tags, struct http_kept *k);

/* Cluster generations: a response that shows a cluster's figures (a run
 * page shows its cluster's size, mean and spread) is kept with the tag of
 * that cluster (any number but 0; the store's outlier_cluster_tag), and
 * stops being served once either population changes, without visiting every
 * member.  Tags that share a slot are bumped together, which only costs
 * extra misses.
 *
 * After a commit that changed the cluster's figures: every response kept
 * with this tag is stale, and puts begun before now are dropped. */
void cache_bump_cluster(struct cache *c, unsigned tag);
/* Every kept response of kind rep is stale, and puts begun before now are
 * dropped (a new log checkpoint: each /r/<id>.json carries a proof against
 * the latest one).  For REP_LIST_HTML, cache_bump_lists. */
void cache_bump_rep(struct cache *c, enum cache_rep rep);
/* A write that changes what list pages show beyond any scope (a dispute
 * post; a run marked wide, store/run_store.h: flags moved beyond its
 * model, a rename, a
 * twin digest, a new alias, a suite's first run): every kept
 * list page is stale from now on, and its bound counts from the first of
 * these it misses. */
void cache_bump_lists(struct cache *c);
/* A write that changes what list pages show only within the scopes
 * tags[0..n) (store/scope.h: a stored run's model, hardware and digest,
 * and those of the combination whose new keys it changed,
 * the refresh round's figures of them; 0s are skipped): every list page kept
 * without tags is stale from now on, as after cache_bump_lists, and so is
 * one kept with the tags of a scope named here (a list page's tags, unlike
 * a run page's, are scopes: it stays fresh through list writes outside
 * them).  A scoped page is aged from the bump of its own scope when that
 * scope moved once since its build, else, conservatively, from the first
 * list write of any scope since then. */
void cache_bump_scopes(struct cache *c, const unsigned *tags, int n);
/* The longest id the cache keeps (a run id, or a list page's key). */
#define CACHE_ID_MAX 39

/* Drops every rep of id and moves the generation on. */
void cache_invalidate(struct cache *c, const char *id);
/* Drops everything (a moderator ruling, a cluster-wide change). */
void cache_clear(struct cache *c);

#endif
