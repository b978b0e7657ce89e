/* defer.c: suspend, hand the write to the writer, resume after the commit. */
#include "http/defer.h"

#include "app.h"

enum MHD_Result defer_submit(struct req *r, struct db_job *job,
			     void (*done)(struct db_job *job),
			     void *owner, void (*owner_free)(void *owner))
{
	job->done = done;
	r->job = owner;
	r->job_free = owner_free;
	MHD_suspend_connection(r->conn);
	db_submit(r->app->db, job);
	return MHD_YES;
}

void defer_wake(struct req *r)
{
	MHD_resume_connection(r->conn);
}
