/* cache.h: rendered responses kept in memory, keyed by run id, so the
 * hottest reads (badges, run pages) touch no SQL and render nothing; and
 * the busiest list pages (the board, a model's and a hardware's page), kept
 * by a key of their path and query (REP_LIST_HTML) only until the next
 * write of any kind, since any upload may change what they list.
 *
 * Freshness: every write that changes what a run shows calls
 * cache_invalidate() for that run after its commit.  A reader takes
 * cache_gen() before it reads the database and passes it to cache_put(); the
 * put is dropped when any invalidation happened in between, so a response
 * built from a snapshot older than a commit is never kept. */
#ifndef LLMS_CACHE_H
#define LLMS_CACHE_H

#include <stdint.h>

#include "http/http.h"

enum cache_rep {
	REP_RUN_HTML,
	REP_RUN_JSON,
	REP_BADGE_SVG,
	REP_BADGE_JSON,
	REP_LIST_HTML,      /* a list page by path and query: stale after any write */
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

/* The response kept as (id, rep), a new reference (answer_kept takes
 * it), or NULL when there is none or it went stale; counts the hit or
 * miss for /metrics. */
struct http_kept *cache_get(struct cache *c, const char *id, enum cache_rep rep);

/* Keeps k (the cache takes the caller's reference) as (id, rep), tagged
 * with the cluster it shows (0: none; see below), unless an invalidation
 * happened since gen or the body alone is over a quarter of the byte
 * bound; then the reference is dropped instead. */
void cache_put(struct cache *c, const char *id, enum cache_rep rep, uint64_t gen, unsigned tag,
	       struct http_kept *k);

/* Cluster generations: a response that shows a cluster's figures (a run
 * page shows its cluster's size, mean and spread) is kept with the tag of
 * that cluster (any number but 0; the store's outlier_cluster_tag), and
 * stops being served once the cluster changes, without visiting every
 * member.  Tags that share a slot are bumped together, which only costs
 * extra misses.
 *
 * After a commit that changed the cluster's figures: every response kept
 * with this tag is stale, and puts begun before now are dropped. */
void cache_bump_cluster(struct cache *c, unsigned tag);
/* Every kept response of kind rep is stale, and puts begun before now are
 * dropped (a new log checkpoint: each /r/<id>.json carries a proof against
 * the latest one). */
void cache_bump_rep(struct cache *c, enum cache_rep rep);
/* The longest id the cache keeps (a run id, or a list page's key). */
#define CACHE_ID_MAX 39

/* Drops every rep of id and moves the generation on. */
void cache_invalidate(struct cache *c, const char *id);
/* Drops everything (a moderator ruling, a cluster-wide change). */
void cache_clear(struct cache *c);

#endif
