/* ratelimit.c: token buckets in a fixed open-addressed table. */
#include "http/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 65536
#define PROBE 8

struct bucket {
	uint64_t key;      /* keyed hash of the client key; 0 = empty */
	double tokens;
	double last;       /* monotonic seconds of the last refill */
};

struct ratelimit {
	pthread_mutex_t lock;
	double rate;       /* tokens per second */
	double burst;
	unsigned char hkey[crypto_shorthash_KEYBYTES];
	struct bucket *slots;
	unsigned long refused;   /* with lock */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct ratelimit *ratelimit_new(unsigned per_minute, unsigned burst)
{
	struct ratelimit *rl = calloc(1, sizeof *rl);

	if (!rl)
		return NULL;
	if (per_minute) {
		rl->slots = calloc(SLOTS, sizeof *rl->slots);
		if (!rl->slots) {
			free(rl);
			return NULL;
		}
	}
	pthread_mutex_init(&rl->lock, NULL);
	rl->rate = per_minute / 60.0;
	rl->burst = burst ? burst : 1;
	randombytes_buf(rl->hkey, sizeof rl->hkey);
	return rl;
}

struct ratelimit *ratelimit_new_capped(unsigned most)
{
	unsigned burst = most / 4 ? most / 4 : 1;

	if (!most)
		return ratelimit_new(0, 1);
	if (burst >= most)            /* most 1: one, then one a minute */
		return ratelimit_new(1, 1);
	return ratelimit_new(most - burst, burst);
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->lock);
	free(rl->slots);
	free(rl);
}

/* The bucket for h: its own slot, an empty one, or the stalest of the probe
 * window (which is then reset). */
static struct bucket *slot_for(struct ratelimit *rl, uint64_t h, double now)
{
	struct bucket *b, *stalest = NULL;
	size_t i, at = (size_t)(h % SLOTS);

	for (i = 0; i < PROBE; i++) {
		b = &rl->slots[(at + i) % SLOTS];
		if (b->key == h)
			return b;
		if (!stalest || b->key == 0 || (stalest->key && b->last < stalest->last))
			stalest = b;
		if (b->key == 0)
			break;
	}
	stalest->key = h;
	stalest->tokens = rl->burst;
	stalest->last = now;
	return stalest;
}

/* ratelimit_take and ratelimit_check: take says whether an allowed
 * event uses up its token. */
static unsigned consult(struct ratelimit *rl, const char *key, int take)
{
	unsigned char out[crypto_shorthash_BYTES];
	struct bucket *b;
	uint64_t h;
	double now, wait;

	if (!rl || !rl->slots)
		return 0;
	crypto_shorthash(out, (const unsigned char *)key, strlen(key), rl->hkey);
	memcpy(&h, out, sizeof h);
	h |= 1;                   /* never 0, which marks an empty slot */
	now = now_s();
	pthread_mutex_lock(&rl->lock);
	b = slot_for(rl, h, now);
	b->tokens = fmin(rl->burst, b->tokens + (now - b->last) * rl->rate);
	b->last = now;
	if (b->tokens >= 1.0) {
		if (take)
			b->tokens -= 1.0;
		pthread_mutex_unlock(&rl->lock);
		return 0;
	}
	wait = (1.0 - b->tokens) / rl->rate;
	rl->refused++;
	pthread_mutex_unlock(&rl->lock);
	return wait < 1.0 ? 1u : (unsigned)ceil(wait);
}

unsigned ratelimit_take(struct ratelimit *rl, const char *key)
{
	return consult(rl, key, 1);
}

unsigned ratelimit_check(struct ratelimit *rl, const char *key)
{
	return consult(rl, key, 0);
}

unsigned long ratelimit_refused(struct ratelimit *rl)
{
	unsigned long n;

	if (!rl)
		return 0;
	pthread_mutex_lock(&rl->lock);
	n = rl->refused;
	pthread_mutex_unlock(&rl->lock);
	return n;
}
