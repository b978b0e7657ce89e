/* page_kept.c: answering from the response cache with no request waiting
 * for a build (http/cache.h, http/builds.h): a kept copy, fresh or stale,
 * is answered at once, and the stale one's rebuild runs on the build
 * pool from a copy of the request; a page never kept is built on the
 * pool while its request is suspended, and the requests for it meanwhile
 * are suspended on that one build (single flight), so no serving thread
 * is held by a build or by a wait for one. */
#include "pages/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "app.h"
#include "http/builds.h"
#include "util/container_of.h"
#include "util/log.h"

/* A build on the pool: of the suspended request r itself (its answer
 * left in a, then r woken), or of a copy (kept, and the copy freed). */
struct kept_job {
	struct build_job bj;
	struct cache_waiter w;      /* r waiting for another's build */
	struct req *r;
	int copy;                   /* r is a copy: nobody to answer */
	char key[CACHE_ID_MAX + 1]; /* what r asks for, to look again when woken */
	enum cache_rep rep;
	page_visit_fn visit;
	page_build_answer_fn build;
	unsigned lead;              /* the flight this build lands */
	struct answer a;            /* the build's answer, for r */
	int rc;                     /* ... and build's return */
	int built;                  /* a holds it: answer with it on resume */
};

/* r->job_free: what the job still holds, then the job. */
static void job_free(void *p)
{
	struct kept_job *j = p;

	answer_release(&j->a);      /* lands a flight never answered */
	free(j);
}

static void hold_conn(struct cache_waiter *w)
{
	MHD_suspend_connection(container_of(w, struct kept_job, w)->r->conn);
}

static void wake_conn(struct cache_waiter *w)
{
	MHD_resume_connection(container_of(w, struct kept_job, w)->r->conn);
}

static void queued_conn(struct build_job *bj)
{
	MHD_suspend_connection(container_of(bj, struct kept_job, bj)->r->conn);
}

/* Tests only (--test-hold-builds FILE): a build that leads its flight
 * waits while FILE exists, 30 s at most; a list page's, a badge's or a
 * card's, not a run page's (which the tests' own waits read). */
static void hold_build(const struct req *r, unsigned lead, enum cache_rep rep)
{
	const char *f = r->app->cfg.test_hold_builds;
	int i;

	if (rep == REP_RUN_HTML || rep == REP_RUN_JSON)
		return;
	for (i = 0; f && lead && i < 3000 && access(f, F_OK) == 0; i++)
		usleep(10000);
}

/* The build, on a pool thread: keeps what the builder said to keep and
 * lands the flight (answer_store), then answers nobody (a copy: freed)
 * or wakes r, whose resume answers with it. */
static void job_run(struct build_job *bj)
{
	struct kept_job *j = container_of(bj, struct kept_job, bj);
	struct cache *c = j->r->app->cache;

	answer_lead(&j->a, c, j->lead);
	hold_build(j->r, j->lead, j->rep);
	j->rc = j->build(j->r, &j->a);
	if (j->rc < 0 && !j->a.err.status)
		err_nomem(&j->a.err);
	answer_store(&j->a);
	if (j->copy) {
		answer_release(&j->a);
		http_req_copy_free(j->r);
		free(j);
		return;
	}
	j->built = 1;
	MHD_resume_connection(j->r->conn);
}

/* r->resume: the answer its build left, or, woken from another's build,
 * a look in the cache again. */
static int job_resume(struct req *r, struct answer *a)
{
	struct kept_job *j = r->job;

	r->resume = NULL;
	if (!j->built)
		return page_kept_serve(r, a, j->key, j->rep, j->build, j->visit);
	j->built = 0;
	*a = j->a;
	j->a = (struct answer)ANSWER_INIT;
	return j->rc;
}

/* See page.h. */
void page_kept_rebuild(struct req *r, unsigned lead, enum cache_rep rep, page_build_answer_fn build)
{
	struct kept_job *j = r->app->builds ? calloc(1, sizeof *j) : NULL;

	if (j && (j->r = http_req_copy(r))) {
		j->a = (struct answer)ANSWER_INIT;
		j->copy = 1;
		j->rep = rep;
		j->build = build;
		j->lead = lead;
		j->bj.run = job_run;
		j->bj.urgent = 1;           /* readers have the stale copy; its bound runs */
		http_client_key(r, j->bj.holder, sizeof j->bj.holder);
		if (builds_submit(r->app->builds, &j->bj) == 0)
			return;
		http_req_copy_free(j->r);
	}
	free(j);
	cache_land(r->app->cache, lead);
}

/* Without a pool or a connection (a command, a unit test): the fresh kept
 * copy, or the build on this thread, one at a time. */
static int serve_here(struct req *r, struct answer *a, const char *key, enum cache_rep rep,
		      page_build_answer_fn build, page_visit_fn visit)
{
	unsigned lead = 0;
	/* Fresh only: a stale copy has nobody to rebuild it but this thread. */
	struct http_kept *k = cache_get(r->app->cache, key, rep);

	if (k) {
		if (k->note[0] && visit)
			visit(r, k->note);
		return answer_kept(a, k);
	}
	http_kept_unref(cache_fetch(r->app->cache, key, rep, &lead));
	answer_lead(a, r->app->cache, lead);
	return build(r, a);
}

/* The job of r, made on its first need; NULL out of memory. */
static struct kept_job *job_of(struct req *r)
{
	struct kept_job *j = r->job;

	if (j)
		return j;
	if (!(j = calloc(1, sizeof *j)))
		return NULL;
	j->r = r;
	j->a = (struct answer)ANSWER_INIT;
	j->w.hold = hold_conn;
	j->w.wake = wake_conn;
	r->job = j;
	r->job_free = job_free;
	return j;
}

int page_kept_serve(struct req *r, struct answer *a, const char *key, enum cache_rep rep,
		    page_build_answer_fn build, page_visit_fn visit)
{
	struct cache *c = r->app->cache;
	struct kept_job *j;
	struct http_kept *k;
	unsigned lead;

	if (!r->conn || !r->app->builds || (r->job && r->job_free != job_free))
		return serve_here(r, a, key, rep, build, visit);
	if (!(j = job_of(r)))
		return err_nomem(&a->err);
	k = cache_fetch_async(c, key, rep, &lead, &j->w);
	if (j->w.waiting) {         /* suspended until that build lands */
		snprintf(j->key, sizeof j->key, "%s", key);
		j->rep = rep;
		j->build = build;
		j->visit = visit;
		r->resume = job_resume;
		return answer_later(a);
	}
	if (k) {
		if (k->note[0] && visit)
			visit(r, k->note);
		if (lead)
			page_kept_rebuild(r, lead, rep, build);
		return answer_kept(a, k);
	}
	/* Nothing to answer with: built on the pool, r suspended meanwhile. */
	j->lead = lead;
	j->rep = rep;
	j->build = build;
	j->bj.run = job_run;
	j->bj.queued = queued_conn;
	http_client_key(r, j->bj.holder, sizeof j->bj.holder);
	r->resume = job_resume;
	if (builds_submit(r->app->builds, &j->bj) == 0)
		return answer_later(a);
	r->resume = NULL;
	cache_land(c, lead);
	r->retry_after = 2;
	return err_unavailable(&a->err, MSG_BUILDS_BUSY);
}

/* ---- for handlers that build their own way (cards) ---- */

/* A request suspended on another's build: again answers it once woken. */
struct look_wait {
	struct cache_waiter w;
	struct req *r;
	int (*again)(struct req *r, struct answer *a);
};

static void look_hold(struct cache_waiter *w)
{
	MHD_suspend_connection(container_of(w, struct look_wait, w)->r->conn);
}

static void look_wake(struct cache_waiter *w)
{
	MHD_resume_connection(container_of(w, struct look_wait, w)->r->conn);
}

/* r->resume of a woken waiter: the handler again, the wait gone. */
static int look_resume(struct req *r, struct answer *a)
{
	struct look_wait *lw = r->job;
	int (*again)(struct req *, struct answer *) = lw->again;

	r->resume = NULL;
	r->job = NULL;
	r->job_free = NULL;
	free(lw);
	return again(r, a);
}

int page_kept_look(struct req *r, struct answer *a, const char *key, enum cache_rep rep,
		   int (*again)(struct req *r, struct answer *a), struct http_kept **k,
		   unsigned *lead)
{
	struct cache *c = r->app->cache;
	struct look_wait *lw;

	*k = NULL;
	*lead = 0;
	if (!r->conn || r->job || !(lw = calloc(1, sizeof *lw))) {
		*k = cache_fetch(c, key, rep, lead);
		return 0;
	}
	lw->r = r;
	lw->again = again;
	lw->w.hold = look_hold;
	lw->w.wake = look_wake;
	r->job = lw;                /* linked before the hold can be woken */
	r->job_free = free;
	*k = cache_fetch_async(c, key, rep, lead, &lw->w);
	if (lw->w.waiting) {
		r->resume = look_resume;
		return answer_later(a) + 1;
	}
	r->job = NULL;
	r->job_free = NULL;
	free(lw);
	return 0;
}
