/* db_writer.c: the group-commit writer thread: jobs queued by db_submit
 * and db_write, run in batches of savepoints under one commit, then handed
 * to the sync thread (db_sync.c), which answers them once on disk. */
#include "store/db_int.h"
#include "store/db_walbuf.h"

#include "util/log.h"
#include "util/metrics.h"

#define BATCH_MAX 512

/* Marks every job of the batch failed with status. */
static void fail_all(struct db_job *batch, int status)
{
	for (; batch; batch = batch->next)
		batch->rc = status;
}

/* Fails every job of a batch with status and tells the operator why. */
static void batch_failed(struct db_job *batch, int status)
{
	log_error("database write failed, nothing of it was stored: %s",
		  db_status_message(status));
	fail_all(batch, status);
}

static const char sql_savepoint[] = "SAVEPOINT job";
static const char sql_rollback_to[] = "ROLLBACK TO job";
static const char sql_release[] = "RELEASE job";

/* Runs one of the statements above from the statement cache (two per
 * upload: parsing them each time cost more than the seeks of a small
 * job), logging a failure like db_exec(). */
static int exec_cached(struct dbconn *c, const char *sql)
{
	sqlite3_stmt *st = db_stmt(c, sql);
	int rc;

	if (!st)
		return db_exec(c, sql);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return SQLITE_OK;
	log_error("sqlite: %s: %s (%d)", sql, sqlite3_errmsg(c->h), rc);
	return rc;
}

/* Runs one job in a savepoint; returns 0, or a status when the whole
 * transaction was lost (SQLite rolled it back). */
static int run_job(struct dbconn *w, struct db_job *j)
{
	exec_cached(w, sql_savepoint);
	j->rc = j->run(w, j);
	if (j->rc < 0 && sqlite3_get_autocommit(w->h))
		return j->rc;        /* SQLite rolled back everything */
	if (j->rc < 0)
		exec_cached(w, sql_rollback_to);
	exec_cached(w, sql_release);
	return 0;
}

/* Runs a batch in one transaction and one commit. */
static void run_batch(struct db *db, struct db_job *batch)
{
	struct dbconn *w = db->writer;
	void (*hook)(void *);
	void *hook_arg;
	struct db_job *j;
	int rc;

	pthread_mutex_lock(&db->lock);
	rc = db->sync_failed;
	pthread_mutex_unlock(&db->lock);
	if (rc) {
		fail_all(batch, rc);       /* logged when the sync failed */
		return;
	}
	rc = db_exec(w, "BEGIN IMMEDIATE");
	if (rc != SQLITE_OK) {
		batch_failed(batch, db_write_status(db, rc));
		return;
	}
	for (j = batch; j; j = j->next) {
		int lost = run_job(w, j);
		if (lost) {
			batch_failed(batch, lost);
			return;
		}
	}
	rc = db_exec(w, "COMMIT");
	if (rc != SQLITE_OK) {
		rc = db_write_status(db, rc);
		if (!sqlite3_get_autocommit(w->h))
			db_exec(w, "ROLLBACK");
		batch_failed(batch, rc);
		return;
	}
	pthread_mutex_lock(&db->lock);
	hook = db->commit_hook;
	hook_arg = db->commit_arg;
	pthread_mutex_unlock(&db->lock);
	if (hook)
		hook(hook_arg);
}

void db_set_commit_hook(struct db *db, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&db->lock);
	db->commit_hook = fn;
	db->commit_arg = arg;
	pthread_mutex_unlock(&db->lock);
}

void *db_writer_main(void *arg)
{
	struct db *db = arg;
	struct db_job *batch, *j;
	unsigned n;

	pthread_setname_np(pthread_self(), "db-writer");   /* for perf and top -H */
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while (!db->head && !db->stopping)
			pthread_cond_wait(&db->wake, &db->lock);
		if (!db->head) {
			pthread_mutex_unlock(&db->lock);
			break;
		}
		batch = db->head;
		for (j = batch, n = 1; j->next && n < BATCH_MAX; j = j->next)
			n++;
		db->head = j->next;
		if (!db->head)
			db->tail = NULL;
		j->next = NULL;
		db->commits++;
		db->jobs += n;
		pthread_mutex_unlock(&db->lock);
		metrics_group_commit(n);

		run_batch(db, batch);
		db_sync_enqueue(db, batch, db_walbuf_take_pending(db->writer->h));
	}
	return NULL;
}

void db_submit(struct db *db, struct db_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&db->lock);
	if (db->tail)
		db->tail->next = job;
	else
		db->head = job;
	db->tail = job;
	db->submitted++;
	pthread_cond_signal(&db->wake);
	pthread_mutex_unlock(&db->lock);
}

struct sync_job {
	struct db_job j;
	struct db_job *user;
	pthread_mutex_t m;
	pthread_cond_t c;
	int finished;
};

static int sync_run(struct dbconn *w, struct db_job *j)
{
	struct sync_job *s = (struct sync_job *)j;
	return s->user->run(w, s->user);
}

static void sync_done(struct db_job *j)
{
	struct sync_job *s = (struct sync_job *)j;

	pthread_mutex_lock(&s->m);
	s->finished = 1;
	pthread_cond_signal(&s->c);
	pthread_mutex_unlock(&s->m);
}

int db_write(struct db *db, struct db_job *job)
{
	struct sync_job s = { .j = { .run = sync_run, .done = sync_done }, .user = job };

	pthread_mutex_init(&s.m, NULL);
	pthread_cond_init(&s.c, NULL);
	db_submit(db, &s.j);
	pthread_mutex_lock(&s.m);
	while (!s.finished)
		pthread_cond_wait(&s.c, &s.m);
	pthread_mutex_unlock(&s.m);
	pthread_cond_destroy(&s.c);
	pthread_mutex_destroy(&s.m);
	job->rc = s.j.rc;
	return job->rc;
}

void db_set_busy_timeout(struct db *db, unsigned ms)
{
	pthread_mutex_lock(&db->lock);
	db->busy_ms = ms;
	sqlite3_busy_timeout(db->writer->h, (int)ms);
	pthread_mutex_unlock(&db->lock);
}

unsigned long db_pending(struct db *db)
{
	unsigned long n;

	pthread_mutex_lock(&db->lock);
	n = db->submitted - db->finished;
	pthread_mutex_unlock(&db->lock);
	return n;
}

void db_stats(struct db *db, unsigned long *commits, unsigned long *jobs)
{
	pthread_mutex_lock(&db->lock);
	*commits = db->commits;
	*jobs = db->jobs;
	pthread_mutex_unlock(&db->lock);
}

unsigned long db_queue_depth(struct db *db)
{
	unsigned long n;

	pthread_mutex_lock(&db->lock);
	n = db->submitted - db->jobs;     /* handed in, not yet taken into a batch */
	pthread_mutex_unlock(&db->lock);
	return n;
}
