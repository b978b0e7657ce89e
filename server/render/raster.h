/* raster.h: SVG to PNG through a well-kept rasterizer, Debian's
 * rsvg-convert (librsvg2-bin), run as a subprocess: glib, cairo and the
 * fonts stay out of the daemon's address space (and its sanitizer runs),
 * and a rasterizer that hangs or crashes is killed, not the daemon.
 *
 * The child gets the SVG on stdin and writes the PNG on stdout, started
 * with posix_spawn from an argv (no shell), every other descriptor closed
 * (O_CLOEXEC on our pipes, and closefrom 3 in the child for any the rest
 * of the daemon left open), an empty signal mask, every standard signal at its default (none ignored),
 * a process group of its own and an environment of PATH and LC_ALL only
 * (no secret of the daemon's reaches it).  It is waited for by its pid
 * alone, so nothing else in the process may reap children with
 * waitpid(-1) or ignore SIGCHLD (then its status is lost and the run
 * fails).  Past its time limit or its output cap it is killed (its whole
 * process group, SIGKILL) and reaped: no zombie stays.
 *
 * A pool of RASTER_THREADS threads runs at most that many at once; a job
 * waits in a queue of at most RASTER_QUEUE for RASTER_WAIT_MS, then is
 * answered RASTER_BUSY, so a request waits a bounded time (the wait plus
 * the time limit) and the daemon's own threads never run a child.
 *
 *   struct raster *rs = raster_new(NULL, NULL);   // finds rsvg-convert
 *   if (!raster_version(rs)) ... cards are off
 *   job->svg = svg.buf; job->len = svg.len;
 *   job->queued = suspend_it; job->done = wake_it;   // see pages/page_card.c
 *   if (raster_submit(rs, job) < 0) ... busy: 503
 */
#ifndef LLMS_RASTER_H
#define LLMS_RASTER_H

#include <stddef.h>
#include <time.h>

#include "util/buf.h"
#include "util/err.h"

#define RASTER_PROGRAM "rsvg-convert"  /* looked up on PATH at start */
#define RASTER_THREADS 2               /* rasterizations at once */
#define RASTER_QUEUE 16                /* jobs waiting at most */
#define RASTER_WAIT_MS 2000            /* a job waits this long for a thread */
#define RASTER_TIMEOUT_MS 10000        /* a child runs this long at most */
#define RASTER_MAX_PNG ((size_t)4 << 20)  /* bytes of PNG at most */
#define RASTER_MAX_SVG ((size_t)1 << 20)  /* bytes of SVG taken at most */

/* Limits for raster_new; zero fields take the defaults above. */
struct raster_limits {
	unsigned threads, queue, wait_ms, timeout_ms;
	size_t max_png;
	int width, height;     /* px of the PNG; default 1200 × 630 */
};

enum raster_status {
	RASTER_OK = 0,
	RASTER_BUSY,           /* no thread free in time, or the pool stopping */
	RASTER_FAILED,         /* the child failed, timed out or wrote no PNG */
	RASTER_OFF             /* no rasterizer */
};

/* One rasterization handed to the pool.  The caller fills svg, len,
 * queued and done, and owns the job throughout; the pool fills status,
 * png and err. */
struct raster_job {
	const char *svg;       /* the caller's; kept alive until done */
	size_t len;
	/* Called under the pool's lock just before the job is queued, so it
	 * happens before any thread can start the job or call done (to
	 * suspend a connection that done resumes); may be NULL. */
	void (*queued)(struct raster_job *j);
	/* Called on a pool thread once the job is finished; the pool does
	 * not touch the job after it, so done may hand it back to whoever
	 * frees it. */
	void (*done)(struct raster_job *j);
	enum raster_status status;
	struct buf png;        /* the PNG when status is RASTER_OK; the
	                        * caller releases it (start it as BUF_INIT) */
	struct err err;        /* what failed (err.message), for the operator's log */
	/* the pool's */
	struct raster_job *next;
	struct timespec since;
};

struct raster;

/* A rasterizer running program (NULL: RASTER_PROGRAM found on PATH, or
 * /usr/local/bin:/usr/bin:/bin without one), checked once with
 * `program --version`, with lim (NULL: the defaults) and its pool
 * started.  When program is missing or does not answer, the result is a
 * rasterizer that is off (raster_version() NULL, every job RASTER_OFF),
 * and why says so on stderr once.  NULL only when out of memory or a
 * thread cannot start.  Free with raster_free. */
struct raster *raster_new(const char *program, const struct raster_limits *lim);

/* Stops the pool: jobs still queued are done as RASTER_BUSY, running ones
 * finish; then frees rs.  NULL is ignored. */
void raster_free(struct raster *rs);

/* The rasterizer's first line of --version ("rsvg-convert version
 * 2.54.7"), or NULL when it is off.  Lives as long as rs. */
const char *raster_version(const struct raster *rs);

/* Queues j: returns 0 and calls j->queued, then later j->done on a pool
 * thread; or returns -1 without calling either when rs is off or the
 * queue is full (j->status says which). */
int raster_submit(struct raster *rs, struct raster_job *j);

/* Rasterizes svg[0..len) on the calling thread, within the time limit:
 * appends the PNG to png and returns RASTER_OK, or returns another status
 * with what failed in why (a server's failure, err_internal: for the
 * operator's log).  The PNG is checked: its signature and an IHDR of the
 * asked width and height. */
enum raster_status raster_png(struct raster *rs, const char *svg, size_t len,
			      struct buf *png, struct err *why);

#endif
