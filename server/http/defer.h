/* defer.h: a request that waits for a database write.  The handler hands
 * its job to the writer thread and the connection is suspended; the job's
 * done() callback (on the writer thread, right after the commit) does what
 * must follow the commit whether or not the client is still there (cache
 * drops), then wakes the request; the handler is then called again and
 * finds its state in r->job.
 *
 *   static void saved(struct db_job *j)
 *   {
 *           struct upload *u = container_of(j, struct upload, n.j);
 *           if (j->rc == DB_OK)
 *                   cache_invalidate(...);
 *           defer_wake(u->r);
 *   }
 *   ...
 *   if (r->job)
 *           return finish(r);        // second call: the write is done
 *   u->n.j.run = write_it;
 *   return defer_submit(r, &u->n.j, saved, u, upload_free);
 */
#ifndef LLMS_DEFER_H
#define LLMS_DEFER_H

#include "http/http.h"
#include "store/db.h"
#include "util/container_of.h"

/* Keeps owner in r->job (freed by owner_free when the request ends, whether
 * or not it was answered), sets job->done, suspends the connection and
 * queues job.  Returns MHD_YES: the answer comes on the next call. */
enum MHD_Result defer_submit(struct req *r, struct db_job *job,
			     void (*done)(struct db_job *job),
			     void *owner, void (*owner_free)(void *owner));

/* Wakes the request suspended by defer_submit; the last thing done() does. */
void defer_wake(struct req *r);

#endif
