/* builds.c: the pool of build threads (builds.h): one queue, taken in
 * order but skipping the jobs of a holder that has its share of threads
 * already, behind one mutex with one condition. */
#include "http/builds.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A holder with jobs running: its key and how many. */
struct held {
	char key[80];
	unsigned n;
};

struct builds {
	pthread_mutex_t lock;
	pthread_cond_t work;            /* a job queued, a thread freed, or stop */
	struct build_job *head, **tail;
	unsigned queued, running, most_held, per_holder, nthreads;
	int stop;
	struct held *held;              /* nthreads slots; n 0: free */
	pthread_t *threads;
};

/* The slot of holder key, or NULL; caller holds the lock. */
static struct held *held_find(struct builds *b, const char *key)
{
	unsigned i;

	for (i = 0; i < b->nthreads; i++)
		if (b->held[i].n && !strcmp(b->held[i].key, key))
			return &b->held[i];
	return NULL;
}

/* Counts one more running job of key; caller holds the lock, and a
 * thread is free, so a slot is. */
static void held_take(struct builds *b, const char *key)
{
	struct held *h = held_find(b, key);
	unsigned i;

	for (i = 0; !h && i < b->nthreads; i++)
		if (!b->held[i].n) {
			h = &b->held[i];
			strcpy(h->key, key);
		}
	h->n++;
	if (h->n > b->most_held)
		b->most_held = h->n;
}

/* The first queued job, urgent ones first, whose holder may have one
 * more thread, unlinked; NULL when there is none.  Caller holds the lock.
 * A job with no holder ("") counts as a holder of its own. */
static struct build_job *take(struct builds *b)
{
	struct build_job **pp, *j;
	struct held *h;
	int pass;

	for (pass = 1; pass >= 0; pass--)
		for (pp = &b->head; (j = *pp); pp = &j->next) {
			h = j->holder[0] ? held_find(b, j->holder) : NULL;
			if ((j->urgent != 0) != pass || (h && h->n >= b->per_holder))
				continue;
			*pp = j->next;
			if (!*pp)
				b->tail = pp;
			b->queued--;
			return j;
		}
	return NULL;
}

static void *worker(void *arg)
{
	struct builds *b = arg;
	struct build_job *j;
	char key[80];

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!(j = take(b)) && !(b->stop && !b->head))
			pthread_cond_wait(&b->work, &b->lock);
		if (!j)
			break;
		strcpy(key, j->holder);
		if (key[0])
			held_take(b, key);
		b->running++;
		pthread_mutex_unlock(&b->lock);
		j->run(j);              /* j is run's from here */
		pthread_mutex_lock(&b->lock);
		b->running--;
		if (key[0])
			held_find(b, key)->n--;
		pthread_cond_broadcast(&b->work);   /* a holder may have room again */
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct builds *builds_new(unsigned threads, unsigned per_holder)
{
	struct builds *b = calloc(1, sizeof *b);
	unsigned i;

	if (!b)
		return NULL;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->work, NULL);
	b->tail = &b->head;
	b->per_holder = per_holder ? per_holder : 1;
	b->held = calloc(threads, sizeof *b->held);
	b->threads = calloc(threads, sizeof *b->threads);
	if (!b->held || !b->threads)
		goto fail;
	for (i = 0; i < threads; i++, b->nthreads++)
		if (pthread_create(&b->threads[i], NULL, worker, b) != 0)
			goto fail;
	return b;
fail:
	builds_free(b);
	return NULL;
}

void builds_free(struct builds *b)
{
	unsigned i;

	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = 1;
	pthread_cond_broadcast(&b->work);
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < b->nthreads; i++)
		pthread_join(b->threads[i], NULL);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->work);
	free(b->held);
	free(b->threads);
	free(b);
}

int builds_submit(struct builds *b, struct build_job *j)
{
	pthread_mutex_lock(&b->lock);
	if (b->queued >= BUILDS_QUEUE_MAX || b->stop) {
		pthread_mutex_unlock(&b->lock);
		return -1;
	}
	if (j->queued)
		j->queued(j);
	j->next = NULL;
	*b->tail = j;
	b->tail = &j->next;
	b->queued++;
	pthread_cond_broadcast(&b->work);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* One of the pool's counts, read under its lock. */
static unsigned count(struct builds *b, const unsigned *n)
{
	unsigned v;

	pthread_mutex_lock(&b->lock);
	v = *n;
	pthread_mutex_unlock(&b->lock);
	return v;
}

unsigned builds_running(struct builds *b)
{
	return b ? count(b, &b->running) : 0;
}

unsigned builds_queued(struct builds *b)
{
	return b ? count(b, &b->queued) : 0;
}

unsigned builds_most_held(struct builds *b)
{
	return b ? count(b, &b->most_held) : 0;
}
