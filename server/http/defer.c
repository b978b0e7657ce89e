/* defer.c: the deferred-write loop (defer.h): allocate, check, hand the
 * write to the writer and suspend, resume after the commit, answer, free. */
#include "http/defer.h"

#include <stdalign.h>
#include <stdlib.h>

#include "app.h"
#include "http/answer.h"

/* One write in flight: its request, its row and the row's state. */
struct deferred {
	struct req *r;
	const struct defer_row *row;
	alignas(max_align_t) unsigned char state[];
};

/* r->job_free: the one cleanup path, when the request ends. */
static void deferred_free(void *p)
{
	struct deferred *d = p;

	if (d->row->release)
		d->row->release(d->state);
	free(d);
}

/* The job's done(), on the sync thread after the commit (or its failure):
 * the row's done, then the request is woken (and finish answers it). */
static void deferred_done(struct db_job *j)
{
	struct deferred *d = container_of((unsigned char *)j, struct deferred, state);

	if (d->row->done)
		d->row->done(d->r, d->state);
	MHD_resume_connection(d->r->conn);
}

/* r->resume, on the request's thread once it is woken: the row's answer. */
static int deferred_finish(struct req *r, struct answer *a)
{
	struct deferred *d = r->job;

	return d->row->finish(r, d->state, a);
}

int defer_serve(struct req *r, struct answer *a)
{
	const struct defer_row *w = r->write;
	struct deferred *d = calloc(1, sizeof *d + w->size);
	struct db_job *job;

	if (!d)
		return err_nomem(&a->err);
	d->r = r;
	d->row = w;
	r->job = d;
	r->job_free = deferred_free;
	if (w->check(r, d->state, &a->err) < 0)
		return -1;
	job = (struct db_job *)d->state;
	job->run = w->run;
	job->done = deferred_done;
	r->resume = deferred_finish;
	MHD_suspend_connection(r->conn);
	db_submit(r->app->db, job);
	return answer_later(a);
}
