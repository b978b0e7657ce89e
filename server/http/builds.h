/* builds.h: a small pool of threads that build pages off the request
 * path (pages/page_kept.c): the rebuilds of stale kept pages, and the
 * first builds of pages never kept while their requests are suspended.
 * So no serving thread is ever held by a build, and one client holds at
 * most BUILDS_PER_HOLDER of the pool's threads at once: its further
 * builds wait in the queue, holding no thread, while other clients' run
 * (issue 37: no page takes the site down). */
#ifndef LLMS_BUILDS_H
#define LLMS_BUILDS_H

/* Threads in the pool, and how many of them one holder (a client key,
 * http_client_key) may have at once. */
#define BUILDS_THREADS 4
#define BUILDS_PER_HOLDER 2
/* Jobs queued at most (waiting for a thread); past that, builds_submit
 * refuses. */
#define BUILDS_QUEUE_MAX 1024

/* One job: run is called on a pool thread and owns the job from then on
 * (it frees it); holder is the client key it counts against ("": a
 * holder of its own). */
struct build_job {
	void (*run)(struct build_job *j);
	/* Called under the pool's lock as j is queued, before any thread can
	 * run it (a request suspends itself there); NULL: nothing. */
	void (*queued)(struct build_job *j);
	char holder[80];
	/* Taken before every job that is not (each kind in queue order): a
	 * stale copy's rebuild, whose readers are answered already but whose
	 * freshness bound is running, goes before first builds. */
	int urgent;
	struct build_job *next;          /* the pool's */
};

struct builds;

/* A pool of threads threads, each holder at most per_holder of them;
 * NULL when the threads cannot be started. */
struct builds *builds_new(unsigned threads, unsigned per_holder);
/* Runs what is queued, then stops the threads and frees the pool. */
void builds_free(struct builds *b);

/* Queues j: 0, or -1 when the queue is full (j is still the caller's). */
int builds_submit(struct builds *b, struct build_job *j);
/* Jobs running now, and queued (not yet running). */
unsigned builds_running(struct builds *b);
unsigned builds_queued(struct builds *b);
/* The most threads one holder had at once since the start. */
unsigned builds_most_held(struct builds *b);

#endif
