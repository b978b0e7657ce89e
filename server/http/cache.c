/* cache.c: the in-memory response cache (see cache.h).  A chained hash table
 * behind a read-write lock; readers only take the read lock. */
#include "http/cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/metrics.h"

#define NBUCKETS 16384
#define NTAGS 65536     /* cluster generations; clusters sharing a slot share one */

struct rep {
	struct http_kept *k;    /* NULL: none; its bytes are counted in cache->bytes */
	unsigned tag;           /* the cluster tag of what it shows, 0: none */
	unsigned tag_gen;       /* that tag's generation when it was built */
	unsigned rep_gen;       /* its rep's generation when it was kept */
	uint64_t gen;           /* the cache's generation it was built at */
};

struct entry {
	char id[CACHE_ID_MAX + 1];
	struct rep reps[REP__MAX];
	struct entry *next;
};

struct cache {
	pthread_rwlock_t lock;
	struct entry *buckets[NBUCKETS];
	unsigned count, max;
	size_t bytes, max_bytes;
	unsigned evict_cursor;
	atomic_uint_fast64_t gen;
	atomic_uint tag_gen[NTAGS];
	atomic_uint rep_gen[REP__MAX];
};

/* FNV-1a of the id, reduced to a bucket. */
static unsigned bucket_of(const char *id)
{
	uint32_t h = 2166136261u;

	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 16777619u;
	return h % NBUCKETS;
}

struct cache *cache_new(unsigned max_ids)
{
	static const char *const rep_names[REP__MAX] = {
		[REP_RUN_HTML] = "run_html", [REP_RUN_JSON] = "run_json",
		[REP_BADGE_SVG] = "badge_svg", [REP_BADGE_JSON] = "badge_json",
		[REP_LIST_HTML] = "list_html", [REP_CARD_PNG] = "card_png", [REP_CARD_SVG] = "card_svg",
	};
	struct cache *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	pthread_rwlock_init(&c->lock, NULL);
	c->max = max_ids ? max_ids : 1;
	c->max_bytes = CACHE_MAX_BYTES;
	atomic_init(&c->gen, 1);
	metrics_names(ML_REP, rep_names, REP__MAX);
	return c;
}

void cache_set_max_bytes(struct cache *c, size_t max_bytes)
{
	pthread_rwlock_wrlock(&c->lock);
	c->max_bytes = max_bytes ? max_bytes : CACHE_MAX_BYTES;
	pthread_rwlock_unlock(&c->lock);
}

size_t cache_bytes(struct cache *c)
{
	size_t n;

	pthread_rwlock_rdlock(&c->lock);
	n = c->bytes;
	pthread_rwlock_unlock(&c->lock);
	return n;
}

/* Frees e and takes its bodies off the byte count; caller holds the
 * write lock and has unlinked e. */
static void entry_free(struct cache *c, struct entry *e)
{
	int i;

	for (i = 0; i < REP__MAX; i++) {
		if (!e->reps[i].k)
			continue;
		c->bytes -= e->reps[i].k->bytes;
		http_kept_unref(e->reps[i].k);
	}
	free(e);
	c->count--;
}

/* Drops every entry of bucket b; caller holds the write lock. */
static void drop_bucket(struct cache *c, unsigned b)
{
	struct entry *e, *next;

	for (e = c->buckets[b]; e; e = next) {
		next = e->next;
		entry_free(c, e);
	}
	c->buckets[b] = NULL;
}

void cache_free(struct cache *c)
{
	unsigned b;

	if (!c)
		return;
	for (b = 0; b < NBUCKETS; b++)
		drop_bucket(c, b);
	pthread_rwlock_destroy(&c->lock);
	free(c);
}

uint64_t cache_gen(struct cache *c)
{
	return atomic_load(&c->gen);
}

static struct entry *find(struct cache *c, const char *id, unsigned b)
{
	struct entry *e;

	for (e = c->buckets[b]; e; e = e->next)
		if (!strcmp(e->id, id))
			return e;
	return NULL;
}

/* The generation slot of tag (not 0): tags that share one are bumped
 * together, which only costs extra misses. */
static unsigned slot_of(unsigned tag)
{
	return (tag - 1) % NTAGS;
}

struct http_kept *cache_get(struct cache *c, const char *id, enum cache_rep rep)
{
	struct http_kept *k = NULL;
	struct entry *e;
	struct rep *p;

	pthread_rwlock_rdlock(&c->lock);
	e = find(c, id, bucket_of(id));
	if (e && (p = &e->reps[rep])->k &&
	    (!p->tag || atomic_load(&c->tag_gen[slot_of(p->tag)]) == p->tag_gen) &&
	    atomic_load(&c->rep_gen[rep]) == p->rep_gen &&
	    (rep != REP_LIST_HTML || atomic_load(&c->gen) == p->gen))
		k = http_kept_ref(p->k);
	pthread_rwlock_unlock(&c->lock);
	metrics_cache(rep, k != NULL);
	return k;
}

/* Makes room for bytes more, and for one more id unless id is cached;
 * caller holds the write lock.  Whole buckets go, round the table. */
static void evict(struct cache *c, const char *id, unsigned b, size_t bytes)
{
	while (c->count && (c->bytes + bytes > c->max_bytes ||
			    (c->count >= c->max && !find(c, id, b)))) {
		drop_bucket(c, c->evict_cursor);
		c->evict_cursor = (c->evict_cursor + 1) % NBUCKETS;
	}
}

void cache_bump_cluster(struct cache *c, unsigned tag)
{
	if (!tag)
		return;
	pthread_rwlock_wrlock(&c->lock);
	atomic_fetch_add(&c->gen, 1);
	atomic_fetch_add(&c->tag_gen[slot_of(tag)], 1);
	pthread_rwlock_unlock(&c->lock);
}

void cache_bump_rep(struct cache *c, enum cache_rep rep)
{
	if ((unsigned)rep >= REP__MAX)
		return;
	pthread_rwlock_wrlock(&c->lock);
	atomic_fetch_add(&c->gen, 1);
	atomic_fetch_add(&c->rep_gen[rep], 1);
	pthread_rwlock_unlock(&c->lock);
}

void cache_put(struct cache *c, const char *id, enum cache_rep rep, uint64_t gen, unsigned tag,
	       struct http_kept *k)
{
	unsigned b = bucket_of(id);
	struct entry *e;
	struct rep *p;

	if (strlen(id) >= sizeof e->id) {
		http_kept_unref(k);
		return;
	}
	pthread_rwlock_wrlock(&c->lock);
	if (atomic_load(&c->gen) != gen || k->bytes > c->max_bytes / 4)
		goto drop;
	e = find(c, id, b);
	if (e && e->reps[rep].k) {
		/* The old body leaves before the room for the new is made. */
		c->bytes -= e->reps[rep].k->bytes;
		http_kept_unref(e->reps[rep].k);
		e->reps[rep].k = NULL;
	}
	evict(c, id, b, k->bytes);
	e = find(c, id, b);
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e)
			goto drop;
		strcpy(e->id, id);
		e->next = c->buckets[b];
		c->buckets[b] = e;
		c->count++;
	}
	p = &e->reps[rep];
	p->tag = tag;
	p->tag_gen = tag ? atomic_load(&c->tag_gen[slot_of(tag)]) : 0;
	p->rep_gen = atomic_load(&c->rep_gen[rep]);
	p->gen = gen;
	p->k = k;
	c->bytes += k->bytes;
	pthread_rwlock_unlock(&c->lock);
	return;
drop:
	pthread_rwlock_unlock(&c->lock);
	http_kept_unref(k);
}

void cache_invalidate(struct cache *c, const char *id)
{
	unsigned b = bucket_of(id);
	struct entry **pp, *e;

	pthread_rwlock_wrlock(&c->lock);
	atomic_fetch_add(&c->gen, 1);
	for (pp = &c->buckets[b]; (e = *pp); pp = &e->next) {
		if (!strcmp(e->id, id)) {
			*pp = e->next;
			entry_free(c, e);
			break;
		}
	}
	pthread_rwlock_unlock(&c->lock);
}

void cache_clear(struct cache *c)
{
	unsigned b;

	pthread_rwlock_wrlock(&c->lock);
	atomic_fetch_add(&c->gen, 1);
	for (b = 0; b < NBUCKETS; b++)
		drop_bucket(c, b);
	pthread_rwlock_unlock(&c->lock);
}
