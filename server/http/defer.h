/* defer.h: the deferred-write loop.  Each endpoint that writes (an upload,
 * a dispute post by API or form, a ruling, a withdrawal) is a row of what
 * it does, and one function, defer_serve, runs every row the same way:
 *
 *   1. allocates the row's state: size bytes, zeroed, starting with the
 *      struct db_job of its write (DEFER_STATE checks that);
 *   2. check, on the request's thread: refuses (e) or fills the state;
 *   3. hands the job to the store's writer, which runs run on the writer
 *      thread inside the commit's transaction, and suspends the request;
 *   4. done, on the sync thread once the commit is on disk (or failed):
 *      what must follow the commit whether or not the client is still
 *      there (cache drops); then the request is woken;
 *   5. finish, on the request's thread when it resumes: the answer.
 *
 * The state lives until the request ends, answered or not, and is freed
 * one way: release (what the state owns; NULL: nothing), then the state.
 *
 *   static const struct defer_row upload_write = {
 *           sizeof(struct upload), upload_check, run_store_run, upload_done,
 *           upload_finish, upload_release,
 *   };
 *
 * A route row names its write (router.c); its handler is defer_serve.
 */
#ifndef LLMS_DEFER_H
#define LLMS_DEFER_H

#include <stddef.h>

#include "http/http.h"
#include "store/db.h"
#include "util/container_of.h"

struct answer;

struct defer_row {
	size_t size;
	int (*check)(struct req *r, void *state, struct err *e);
	int (*run)(struct dbconn *w, struct db_job *job);
	void (*done)(struct req *r, void *state);
	int (*finish)(struct req *r, void *state, struct answer *a);
	void (*release)(void *state);
};

/* A row's state type starts with its struct db_job (the member job). */
#define DEFER_STATE(type, job) \
	_Static_assert(offsetof(type, job) == 0, #type " must start with its struct db_job")

/* The handler of every write route: runs r->write's row (above).  0 with a
 * "later" answer once the write is handed over; -1 with a->err when check
 * refused it (or out of memory). */
int defer_serve(struct req *r, struct answer *a);

#endif
