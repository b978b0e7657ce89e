/* cache.c: the in-memory response cache (see cache.h).  A chained hash table
 * behind a read-write lock; readers only take the read lock.  Beside it, a
 * small table of the builds under way (single flight), behind a mutex of
 * its own with one condition their waiters sleep on. */
#include "http/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/metrics.h"

#define NBUCKETS 16384
#define NTAGS 65536     /* cluster generations; clusters sharing a slot share one */

struct rep {
	struct http_kept *k;    /* NULL: none; its bytes are counted in cache->bytes */
	struct cache_tags tags; /* the populations it shows */
	unsigned tag_gen[2];    /* those tags' generations when it was built */
	unsigned rep_gen;       /* its rep's generation when it was kept */
	uint64_t gen;           /* the cache's generation it was built at */
	uint64_t wgen;          /* the list writes' generation it was built at */
	uint64_t agen;          /* and the writes that stale every list page */
	int behind;             /* a scoped list page led while a write of
				 * its scopes happened: stale at once, aged
				 * from wgen */
};

/* A build under way of (id, rep): its leader alone builds it. */
struct flight {
	char id[CACHE_ID_MAX + 1];
	enum cache_rep rep;
	int active;
	int voided;             /* a drop of id happened since: keep nothing */
	unsigned seq;           /* which flight of this slot */
	uint64_t wgen;          /* the list writes' generation when it began */
	uint64_t agen;          /* and that of the writes that stale every list page */
	struct cache_waiter *waiters; /* woken when it lands (cache_fetch_async) */
};

/* When the generation moved: gen became g at the cache clock's ms.  Not
 * every move is written down, only the first after BUMP_GAP_MS without
 * one, so a move not written happened less than BUMP_GAP_MS after the
 * latest one that was. */
struct bump {
	uint64_t g;
	int64_t ms;
};
#define BUMPS 256        /* at BUMP_GAP_MS apart at least: 2.5 s of them */
#define BUMP_GAP_MS 10

/* The moves of one generation, a ring of struct bump; under the write lock. */
struct bumps {
	struct bump b[BUMPS];
	unsigned n, last;
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
	atomic_uint_fast64_t gen;       /* any change: drops, bumps, list writes */
	atomic_uint_fast64_t wgen;      /* writes that change what lists show */
	atomic_uint_fast64_t agen;      /* ... on every list page, scoped or not */
	atomic_uint tag_gen[NTAGS];
	uint64_t tag_wgen[NTAGS];       /* wgen of each slot's latest scope bump */
	atomic_uint rep_gen[REP__MAX];
	int64_t (*now_ms)(void);
	int64_t stale_ms;               /* CACHE_STALE_MS unless a test says */
	int64_t settle_ms;              /* CACHE_SETTLE_MS, or less under a short bound */
	pthread_mutex_t flight_lock;
	pthread_cond_t landed;          /* broadcast whenever a flight lands */
	struct flight flights[CACHE_FLIGHTS];
	unsigned waiting;               /* waiters linked to flights now */
	struct bumps wbumps;            /* when wgen moved */
};

/* The default cache clock: monotonic milliseconds. */
static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
	pthread_mutex_init(&c->flight_lock, NULL);
	pthread_cond_init(&c->landed, NULL);
	c->now_ms = mono_ms;
	c->stale_ms = CACHE_STALE_MS;
	c->settle_ms = CACHE_SETTLE_MS;
	c->max = max_ids ? max_ids : 1;
	c->max_bytes = CACHE_MAX_BYTES;
	atomic_init(&c->gen, 1);
	atomic_init(&c->wgen, 1);
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
	pthread_mutex_destroy(&c->flight_lock);
	pthread_cond_destroy(&c->landed);
	free(c);
}

void cache_set_clock(struct cache *c, int64_t (*now_ms)(void))
{
	c->now_ms = now_ms ? now_ms : mono_ms;
}

void cache_set_stale_ms(struct cache *c, long ms)
{
	c->stale_ms = ms < 0 ? CACHE_STALE_MS : ms;
	/* A fifth of the bound at most: the rebuild has the rest to run. */
	c->settle_ms = c->stale_ms / 5 < CACHE_SETTLE_MS ? c->stale_ms / 5 : CACHE_SETTLE_MS;
}

unsigned cache_count(struct cache *c)
{
	unsigned n;

	pthread_rwlock_rdlock(&c->lock);
	n = c->count;
	pthread_rwlock_unlock(&c->lock);
	return n;
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

/* 1 when no population p shows has changed since it was kept. */
static int tags_fresh(struct cache *c, const struct rep *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (p->tags.t[i] && atomic_load(&c->tag_gen[slot_of(p->tags.t[i])]) != p->tag_gen[i])
			return 0;
	return 1;
}

/* Moves the generation on; caller holds the write lock. */
static void gen_bump(struct cache *c)
{
	atomic_fetch_add(&c->gen, 1);
}

/* Moves the list writes' generation on (and the generation) and notes
 * when: not every move is written down, only the first after BUMP_GAP_MS
 * without one, so a move not written happened less than BUMP_GAP_MS
 * after the latest one that was.  Caller holds the write lock. */
static void wgen_bump(struct cache *c)
{
	uint64_t g = atomic_fetch_add(&c->wgen, 1) + 1;
	int64_t now = c->now_ms();
	struct bumps *r = &c->wbumps;

	gen_bump(c);
	if (r->n && now - r->b[r->last].ms < BUMP_GAP_MS)
		return;
	r->last = r->n ? (r->last + 1) % BUMPS : 0;
	r->b[r->last] = (struct bump){ g, now };
	if (r->n < BUMPS)
		r->n++;
}

/* How long ago, at least, the first list write after wgen happened (what
 * a list page built at wgen has missed since), in ms; INT64_MAX when it
 * is older than the moves written down.  Caller holds the lock. */
static int64_t missed_ms(struct cache *c, uint64_t wgen)
{
	const struct bumps *r = &c->wbumps;
	unsigned i, at;

	for (i = 0; i < r->n; i++) {
		at = (r->last + BUMPS - i) % BUMPS;
		if (r->b[at].g <= wgen + 1)
			return c->now_ms() - r->b[at].ms;
	}
	return INT64_MAX;
}

/* 1 when p, a list page, was kept with tags (the scopes it shows,
 * store/scope.h): list writes outside them leave it fresh. */
static int scoped(const struct rep *p)
{
	return p->tags.t[0] || p->tags.t[1];
}

/* 1 when no list write that p shows happened since it was built. */
static int lists_fresh(struct cache *c, const struct rep *p)
{
	if (scoped(p))
		return !p->behind && atomic_load(&c->agen) == p->agen && tags_fresh(c, p);
	return atomic_load(&c->wgen) == p->wgen;
}

/* missed_ms of a scoped page p: exact when each of its scopes that moved
 * moved once since p was built (the list write of that bump), else, as
 * for an unscoped page, from the first list write of any scope since its
 * build, which is never younger.  Caller holds the lock. */
static int64_t scoped_missed_ms(struct cache *c, const struct rep *p)
{
	int64_t age = -1, a;
	unsigned s, moved;
	int i;

	if (p->behind || atomic_load(&c->agen) != p->agen)
		return missed_ms(c, p->wgen);
	for (i = 0; i < 2; i++) {
		if (!p->tags.t[i])
			continue;
		s = slot_of(p->tags.t[i]);
		if (!(moved = atomic_load(&c->tag_gen[s]) - p->tag_gen[i]))
			continue;
		/* Moved more than once, or by a cluster bump sharing the slot
		 * (its last scope bump predates the page): not known exactly. */
		if (moved != 1 || c->tag_wgen[s] <= p->wgen)
			return missed_ms(c, p->wgen);
		if ((a = missed_ms(c, c->tag_wgen[s] - 1)) > age)
			age = a;
	}
	return age < 0 ? missed_ms(c, p->wgen) : age;
}

/* What a kept response is worth to a reader. */
enum rep_state { ST_NONE, ST_STALE, ST_FRESH };

/* p's state as (rep): FRESH when nothing it shows changed since it was
 * built; a list page STALE when only the list writes it shows moved (a
 * stored run, a refresh of the figures; for a scoped page, one in its
 * scopes) and the first list write it misses is at most CACHE_STALE_MS
 * old (*age: how old, in ms; for a scoped page, scoped_missed_ms): other changes (a run's own page dropped, a new log
 * checkpoint) do not touch it and do not age it; else NONE.  Caller
 * holds the lock. */
static enum rep_state rep_state(struct cache *c, const struct rep *p, enum cache_rep rep,
				int64_t *age)
{
	if (!p->k || atomic_load(&c->rep_gen[rep]) != p->rep_gen)
		return ST_NONE;
	if (rep != REP_LIST_HTML)
		return tags_fresh(c, p) ? ST_FRESH : ST_NONE;
	if (lists_fresh(c, p))
		return ST_FRESH;
	if (c->stale_ms > 0 &&
	    (*age = scoped(p) ? scoped_missed_ms(c, p) : missed_ms(c, p->wgen)) <= c->stale_ms)
		return ST_STALE;
	return ST_NONE;
}

/* A new reference to the response kept as (id, rep) when it is fresh or
 * stale (*st says which; *age, when stale, how old the first write it
 * misses is), else NULL with *st ST_NONE. */
static struct http_kept *look(struct cache *c, const char *id, enum cache_rep rep,
			      enum rep_state *st, int64_t *age)
{
	struct http_kept *k = NULL;
	struct entry *e;

	pthread_rwlock_rdlock(&c->lock);
	e = find(c, id, bucket_of(id));
	*st = e ? rep_state(c, &e->reps[rep], rep, age) : ST_NONE;
	if (*st != ST_NONE)
		k = http_kept_ref(e->reps[rep].k);
	pthread_rwlock_unlock(&c->lock);
	return k;
}

struct http_kept *cache_get(struct cache *c, const char *id, enum cache_rep rep)
{
	enum rep_state st;
	int64_t age;
	struct http_kept *k = look(c, id, rep, &st, &age);

	if (k && st != ST_FRESH) {
		http_kept_unref(k);
		k = NULL;
	}
	metrics_cache(rep, k != NULL);
	return k;
}

/* ---- single flight ---- */

/* The flight of (id, rep) under way, or NULL; caller holds flight_lock. */
static struct flight *flight_find(struct cache *c, const char *id, enum cache_rep rep)
{
	int i;

	for (i = 0; i < CACHE_FLIGHTS; i++)
		if (c->flights[i].active && c->flights[i].rep == rep && !strcmp(c->flights[i].id, id))
			return &c->flights[i];
	return NULL;
}

/* Starts the flight of (id, rep): its lead (slot + 1), or 0 when every
 * slot is taken.  Caller holds flight_lock. */
static unsigned flight_start(struct cache *c, const char *id, enum cache_rep rep)
{
	unsigned i;

	for (i = 0; i < CACHE_FLIGHTS; i++) {
		struct flight *f = &c->flights[i];

		if (f->active)
			continue;
		snprintf(f->id, sizeof f->id, "%s", id);
		f->rep = rep;
		f->active = 1;
		f->voided = 0;
		f->seq++;
		f->wgen = atomic_load(&c->wgen);
		f->agen = atomic_load(&c->agen);
		f->waiters = NULL;
		return i + 1;
	}
	return 0;
}

/* Sleeps until flight f (seq) lands, a few seconds at most (a leader
 * that never lands cannot hold its waiters for good).  0 when it landed,
 * -1 on the time limit.  Caller holds flight_lock. */
static int flight_wait(struct cache *c, struct flight *f, unsigned seq)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += CACHE_WAIT_S;
	while (f->active && f->seq == seq)
		if (pthread_cond_timedwait(&c->landed, &c->flight_lock, &until) == ETIMEDOUT)
			return f->active && f->seq == seq ? -1 : 0;
	return 0;
}

/* One look for fetch (below): the copy to answer with, or NULL with
 * *lead set (the caller builds) or with *f the flight to wait for
 * (flight_lock then held, and *seq its flight), or neither (build
 * unshared). */
static struct http_kept *fetch_step(struct cache *c, const char *id, enum cache_rep rep,
				    unsigned *lead, int waited, struct flight **f, unsigned *seq)
{
	struct http_kept *k;
	enum rep_state st;
	int64_t age = 0;

	*f = NULL;
	k = look(c, id, rep, &st, &age);
	/* Fresh; or stale by writes younger than the settling time: answered,
	 * and rebuilt only once they settle, so a burst of writes costs one
	 * rebuild of each page asked for, not one a write. */
	if (st == ST_FRESH || (st == ST_STALE && age < c->settle_ms))
		return k;
	pthread_mutex_lock(&c->flight_lock);
	if (!(*f = flight_find(c, id, rep))) {
		/* Nothing building it: the caller leads, and answers with the
		 * stale copy when there is one (the build runs off its path). */
		*lead = flight_start(c, id, rep);
		pthread_mutex_unlock(&c->flight_lock);
		return k;
	}
	if (k || waited >= CACHE_WAITS) {  /* stale; or flights that keep nothing */
		*f = NULL;
		pthread_mutex_unlock(&c->flight_lock);
		return k;
	}
	*seq = (*f)->seq;
	return NULL;                       /* flight_lock held */
}

struct http_kept *cache_fetch(struct cache *c, const char *id, enum cache_rep rep, unsigned *lead)
{
	struct http_kept *k;
	struct flight *f;
	unsigned seq;
	int waited = 0;

	*lead = 0;
	if (strlen(id) > CACHE_ID_MAX)
		return NULL;
	for (;;) {
		k = fetch_step(c, id, rep, lead, waited, &f, &seq);
		if (!f)
			break;
		if (flight_wait(c, f, seq) < 0)
			waited = CACHE_WAITS;       /* on the time limit: built unshared */
		waited++;
		pthread_mutex_unlock(&c->flight_lock);
	}
	metrics_cache(rep, k != NULL);
	return k;
}

struct http_kept *cache_fetch_async(struct cache *c, const char *id, enum cache_rep rep,
				    unsigned *lead, struct cache_waiter *w)
{
	struct http_kept *k;
	struct flight *f;
	unsigned seq;

	*lead = 0;
	w->waiting = 0;
	if (strlen(id) > CACHE_ID_MAX)
		return NULL;
	k = fetch_step(c, id, rep, lead, w->waits, &f, &seq);
	if (f) {
		w->hold(w);                 /* before any land can wake it */
		w->next = f->waiters;
		f->waiters = w;
		c->waiting++;
		w->waiting = 1;
		w->waits++;
		pthread_mutex_unlock(&c->flight_lock);
		return NULL;
	}
	metrics_cache(rep, k != NULL);
	return k;
}

unsigned cache_flights(struct cache *c)
{
	unsigned i, n = 0;

	pthread_mutex_lock(&c->flight_lock);
	for (i = 0; i < CACHE_FLIGHTS; i++)
		n += c->flights[i].active != 0;
	pthread_mutex_unlock(&c->flight_lock);
	return n;
}

unsigned cache_waiting(struct cache *c)
{
	unsigned n;

	pthread_mutex_lock(&c->flight_lock);
	n = c->waiting;
	pthread_mutex_unlock(&c->flight_lock);
	return n;
}

void cache_land(struct cache *c, unsigned lead)
{
	struct cache_waiter *w, *next;

	if (!lead || lead > CACHE_FLIGHTS)
		return;
	pthread_mutex_lock(&c->flight_lock);
	c->flights[lead - 1].active = 0;
	w = c->flights[lead - 1].waiters;
	c->flights[lead - 1].waiters = NULL;
	for (next = w; next; next = next->next)
		c->waiting--;
	pthread_cond_broadcast(&c->landed);
	pthread_mutex_unlock(&c->flight_lock);
	for (; w; w = next) {          /* each was held when it was linked */
		next = w->next;
		w->wake(w);
	}
}

/* Marks the flights of id voided: what they build predates a drop of it
 * (all of them when id is NULL). */
static void flights_void(struct cache *c, const char *id)
{
	int i;

	pthread_mutex_lock(&c->flight_lock);
	for (i = 0; i < CACHE_FLIGHTS; i++)
		if (c->flights[i].active && (!id || !strcmp(c->flights[i].id, id)))
			c->flights[i].voided = 1;
	pthread_mutex_unlock(&c->flight_lock);
}

/* 1 when the leader lead may keep its build though the cache moved since
 * it read (a list page, its flight not voided), with *wgen and *agen the
 * list writes' generations when its flight began; else 0. */
static int flight_soft(struct cache *c, unsigned lead, const char *id, enum cache_rep rep,
		       uint64_t *wgen, uint64_t *agen)
{
	struct flight *f;
	int ok;

	if (!lead || lead > CACHE_FLIGHTS || rep != REP_LIST_HTML)
		return 0;
	pthread_mutex_lock(&c->flight_lock);
	f = &c->flights[lead - 1];
	ok = f->active && !f->voided && f->rep == rep && !strcmp(f->id, id);
	*wgen = f->wgen;
	*agen = f->agen;
	pthread_mutex_unlock(&c->flight_lock);
	return ok;
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
	gen_bump(c);
	atomic_fetch_add(&c->tag_gen[slot_of(tag)], 1);
	pthread_rwlock_unlock(&c->lock);
}

void cache_bump_rep(struct cache *c, enum cache_rep rep)
{
	if ((unsigned)rep >= REP__MAX)
		return;
	if (rep == REP_LIST_HTML) {
		cache_bump_lists(c);
		return;
	}
	pthread_rwlock_wrlock(&c->lock);
	gen_bump(c);
	atomic_fetch_add(&c->rep_gen[rep], 1);
	pthread_rwlock_unlock(&c->lock);
}

void cache_bump_lists(struct cache *c)
{
	metrics_inc(MC_LIST_WRITES_ALL);
	pthread_rwlock_wrlock(&c->lock);
	atomic_fetch_add(&c->agen, 1);
	wgen_bump(c);
	pthread_rwlock_unlock(&c->lock);
}

void cache_bump_scopes(struct cache *c, const unsigned *tags, int n)
{
	int i;

	metrics_inc(MC_LIST_WRITES_SCOPED);
	pthread_rwlock_wrlock(&c->lock);
	wgen_bump(c);
	for (i = 0; i < n; i++)
		if (tags[i]) {
			atomic_fetch_add(&c->tag_gen[slot_of(tags[i])], 1);
			c->tag_wgen[slot_of(tags[i])] = atomic_load(&c->wgen);
		}
	pthread_rwlock_unlock(&c->lock);
}

/* 1 when a list page of tags, whose build began at the list writes'
 * generation wgen, may have missed a write it shows: any, for a page
 * without tags; else a bump of one of its scopes since wgen (tag_wgen:
 * each slot's latest scope bump).  Caller holds the write lock. */
static int missed_own(struct cache *c, struct cache_tags tags, uint64_t wgen)
{
	int i;

	if (!tags.t[0] && !tags.t[1])
		return 1;
	for (i = 0; i < 2; i++)
		if (tags.t[i] && c->tag_wgen[slot_of(tags.t[i])] > wgen)
			return 1;
	return 0;
}

/* Keeps k as (id, rep) built from the snapshot of gen: only when the
 * cache has not moved since gen, or, when soft, over no copy of a later
 * snapshot.  Takes the caller's reference. */
static void put(struct cache *c, const char *id, enum cache_rep rep, uint64_t gen,
		struct cache_tags tags, struct http_kept *k, int soft, uint64_t wgen, uint64_t agen)
{
	unsigned b = bucket_of(id);
	int i;
	struct entry *e;
	struct rep *p;

	if (strlen(id) >= sizeof e->id) {
		http_kept_unref(k);
		return;
	}
	pthread_rwlock_wrlock(&c->lock);
	if ((!soft && atomic_load(&c->gen) != gen) || k->bytes > c->max_bytes / 4)
		goto drop;
	e = find(c, id, b);
	if (e && e->reps[rep].k && soft && e->reps[rep].gen > gen)
		goto drop;
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
	p->tags = tags;
	for (i = 0; i < 2; i++)
		p->tag_gen[i] = tags.t[i] ? atomic_load(&c->tag_gen[slot_of(tags.t[i])]) : 0;
	/* Soft, a list write since the flight began: a scoped page is stale
	 * at once (aged from that write, as an unscoped one is) only when it
	 * was of one of its own scopes; writes of other scopes leave it
	 * fresh, as they would have had it been built before them. */
	p->behind = soft && atomic_load(&c->wgen) != wgen && missed_own(c, tags, wgen);
	p->rep_gen = atomic_load(&c->rep_gen[rep]);
	p->gen = gen;
	/* Unsoft, nothing moved since gen: the list writes' generations are
	 * today's. */
	p->wgen = soft ? wgen : atomic_load(&c->wgen);
	p->agen = soft ? agen : atomic_load(&c->agen);
	p->k = k;
	c->bytes += k->bytes;
	pthread_rwlock_unlock(&c->lock);
	return;
drop:
	pthread_rwlock_unlock(&c->lock);
	http_kept_unref(k);
}

void cache_put(struct cache *c, const char *id, enum cache_rep rep, uint64_t gen,
	       struct cache_tags tags, struct http_kept *k)
{
	put(c, id, rep, gen, tags, k, 0, 0, 0);
}

void cache_put_led(struct cache *c, unsigned lead, const char *id, enum cache_rep rep,
		   uint64_t gen, struct cache_tags tags, struct http_kept *k)
{
	uint64_t wgen = 0, agen = 0;
	int soft = flight_soft(c, lead, id, rep, &wgen, &agen);

	put(c, id, rep, gen, tags, k, soft, wgen, agen);
}

void cache_invalidate(struct cache *c, const char *id)
{
	unsigned b = bucket_of(id);
	struct entry **pp, *e;

	flights_void(c, id);
	pthread_rwlock_wrlock(&c->lock);
	gen_bump(c);
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

	flights_void(c, NULL);
	pthread_rwlock_wrlock(&c->lock);
	wgen_bump(c);
	for (b = 0; b < NBUCKETS; b++)
		drop_bucket(c, b);
	pthread_rwlock_unlock(&c->lock);
}
