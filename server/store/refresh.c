/* refresh.c: the refresh thread (refresh.h): woken by commits, it keeps
 * the per-version figures, the asks and the prediction snapshot. */
#include "store/refresh.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "domain/ceiling.h"
#include "store/forecast.h"
#include "store/scope.h"
#include "store/versions.h"
#include "store/wanted.h"
#include "util/log.h"

struct refresh {
	struct db *db;
	const struct ceiling_ref *ref;
	const char *suite;
	void (*changed)(void *arg, const struct scope_set *touched);
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long commits;         /* commits seen by the hook */
	unsigned long done;            /* commits whose round (and callback) has run */
	int stop;
};

/* A writer job running one function. */
struct fjob {
	struct db_job j;
	int left;
	int (*fn)(struct dbconn *w, struct fjob *f);
	struct scope_set *touched;
};

static int fjob_run(struct dbconn *w, struct db_job *j)
{
	struct fjob *f = (struct fjob *)j;

	return f->fn(w, f);
}

static int pass_fn(struct dbconn *w, struct fjob *f)
{
	return versions_pass(w, VERSIONS_PASS_MAX, &f->left, f->touched);
}

static int flush_fn(struct dbconn *w, struct fjob *f)
{
	(void)f;
	return wanted_flush(w);
}

/* The scopes of the pages a new prediction snapshot changes: every model
 * the reference data knows (store/scope.h). */
static void predicted_scopes(const struct ceiling_ref *ref, struct scope_set *touched)
{
	const struct ceiling_model *m;
	size_t i;

	for (i = 0; ref && (m = ceiling_model_at(ref, i)); i++)
		scope_add(touched, scope_tag('m', m->id));
}

/* One round: versions passes until none is dirty, the asks flushed, the
 * prediction snapshot rebuilt when due; *did set once it wrote or rebuilt
 * anything, even when a later step fails: what was written stands, and the kept
 * pages must still learn of it.  touched gets the scopes of what it
 * rewrote (store/scope.h: the versions' models and hardware, and for a
 * new snapshot every model the reference data knows; the asks show on
 * no scoped page).
 * 0, or a negative db_status. */
static int round_of(struct db *db, const struct ceiling_ref *ref, const char *suite, int *did,
		    struct scope_set *touched)
{
	struct dbconn *c = db_reader(db);
	int rc, guard = 0;

	*did = 0;
	if (!c)
		return DB_ERR;
	while ((rc = versions_dirty(c)) == 1 && guard++ < 100000) {
		struct fjob f = { .j = { .run = fjob_run }, .fn = pass_fn, .touched = touched };

		if ((rc = db_write(db, &f.j)) != DB_OK)
			return rc;
		*did = 1;
		if (!f.left)
			break;
	}
	if (rc < 0)
		return rc;
	if (wanted_pending()) {
		struct fjob f = { .j = { .run = fjob_run }, .fn = flush_fn };

		if ((rc = db_write(db, &f.j)) != DB_OK)
			return rc;
		*did = 1;
	}
	if ((rc = forecast_refresh(c, ref, suite)) < 0)
		return rc;
	if (rc > 0)
		predicted_scopes(ref, touched);
	*did |= rc > 0;
	return 0;
}

/* Waits until ms from now or until stopped; with the lock held. */
static void wait_ms(struct refresh *r, long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&r->cond, &r->lock, &t);
}

static void *refresh_main(void *arg)
{
	struct refresh *r = arg;
	unsigned long seen = (unsigned long)-1;
	struct scope_set touched;
	int rc, did;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		if (r->commits == seen && !wanted_pending() && !forecast_owed()) {
			wait_ms(r, REFRESH_IDLE_MS);
			if (r->commits == seen && !wanted_pending() && !forecast_owed())
				continue;
		} else if (r->commits == seen) {
			wait_ms(r, REFRESH_IDLE_MS / 2);   /* a rebuild owed but not yet due */
		}
		wait_ms(r, REFRESH_SETTLE_MS);   /* let a burst of commits gather */
		if (r->stop)
			break;
		if (r->commits != seen)
			forecast_owe();
		seen = r->commits;
		pthread_mutex_unlock(&r->lock);
		touched = (struct scope_set){ .n = 0 };
		rc = round_of(r->db, r->ref, r->suite, &did, &touched);
		touched.over |= rc < 0;          /* a failed round: all it may have touched */
		if (did && r->changed)
			r->changed(r->arg, &touched);     /* also after a failed later step */
		pthread_mutex_lock(&r->lock);
		if (rc >= 0)
			r->done = seen;
		if (rc < 0) {
			int i;

			log_error("refresh: %s; trying again in 5 s", db_status_message(rc));
			for (i = 0; i < 50 && !r->stop; i++)   /* commits do not cut it short */
				wait_ms(r, 100);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct refresh *refresh_start(struct db *db, const struct ceiling_ref *ref, const char *suite,
			      void (*changed)(void *arg, const struct scope_set *touched), void *arg)
{
	struct refresh *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->db = db;
	r->ref = ref;
	r->suite = suite;
	r->changed = changed;
	r->arg = arg;
	r->done = (unsigned long)-2;   /* owed until the first round has run */
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	if (pthread_create(&r->thread, NULL, refresh_main, r) != 0) {
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->cond);
		free(r);
		return NULL;
	}
	return r;
}

void refresh_notify(void *arg)
{
	struct refresh *r = arg;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->commits++;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

int refresh_owed(struct refresh *r)
{
	int owed;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->lock);
	owed = r->done != r->commits || wanted_pending() || forecast_owed();
	pthread_mutex_unlock(&r->lock);
	return owed;
}

void refresh_stop(struct refresh *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}
