/* db_sync.c: the sync thread, the last stage of the group commit.  The
 * writer hands it each batch after COMMIT; it calls fdatasync() on the
 * WAL when a commit's sync was left to it (db_walbuf.c) and only then
 * answers the batch's jobs, in the order they were committed.  So the
 * writer runs the next batch while the disk takes the last one, and no
 * job is answered before its commit, and every commit before it, is on
 * disk.  One fdatasync() covers every batch waiting when it starts.
 *
 * A failed fdatasync() fails the jobs it covered, and the writer refuses
 * every later batch (db->sync_failed) until the daemon is restarted: after
 * a failed sync the kernel may have dropped the pages it could not write,
 * so nothing later could be acknowledged with confidence either.  The
 * commits it covered stay visible, as they were before the sync. */
#include "store/db_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

/* fdatasync(), or the test's stand-in. */
static int sync_fd(struct db *db, int fd)
{
	int rc;

	if (db->sync_fn)
		return db->sync_fn(fd);
	do
		rc = fdatasync(fd);
	while (rc < 0 && errno == EINTR);
	return rc;
}

void db_sync_enqueue(struct db *db, struct db_job *batch, int fd)
{
	struct db_job *last;

	if (!batch)
		return;
	for (last = batch; last->next; last = last->next)
		;
	pthread_mutex_lock(&db->lock);
	if (db->sync_tail)
		db->sync_tail->next = batch;
	else
		db->sync_head = batch;
	db->sync_tail = last;
	if (fd >= 0)
		db->sync_fd = fd;
	pthread_cond_signal(&db->sync_wake);
	pthread_mutex_unlock(&db->lock);
}

/* Answers jobs in order, each failed with status first when status is set. */
static void answer(struct db *db, struct db_job *jobs, int status)
{
	struct db_job *j, *next;

	for (j = jobs; j; j = next) {
		next = j->next;
		j->next = NULL;
		if (status && j->rc >= 0)
			j->rc = status;
		j->done(j);
		pthread_mutex_lock(&db->lock);
		db->finished++;
		pthread_mutex_unlock(&db->lock);
	}
}

static void *sync_main(void *arg)
{
	struct db *db = arg;
	struct db_job *jobs;
	int fd, status;

	pthread_setname_np(pthread_self(), "db-sync");
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while (!db->sync_head && !db->sync_stopping)
			pthread_cond_wait(&db->sync_wake, &db->lock);
		jobs = db->sync_head;
		fd = db->sync_fd;
		db->sync_head = db->sync_tail = NULL;
		db->sync_fd = -1;
		pthread_mutex_unlock(&db->lock);
		if (!jobs)
			break;         /* stopping, and nothing left */
		status = 0;
		if (fd >= 0 && sync_fd(db, fd) < 0) {
			int e = errno;

			status = db_sync_status(e);
			log_error("database: the log could not be synced to disk (%s): the "
				  "last writes are not acknowledged, and no write is taken until "
				  "the daemon is restarted", strerror(e));
			pthread_mutex_lock(&db->lock);
			db->sync_failed = status;
			pthread_mutex_unlock(&db->lock);
		}
		answer(db, jobs, status);
	}
	return NULL;
}

int db_sync_start(struct db *db)
{
	db->sync_fd = -1;
	pthread_cond_init(&db->sync_wake, NULL);
	if (pthread_create(&db->sync_thread, NULL, sync_main, db) != 0) {
		pthread_cond_destroy(&db->sync_wake);
		return -1;
	}
	db->sync_started = 1;
	return 0;
}

void db_sync_stop(struct db *db)
{
	if (!db->sync_started)
		return;
	pthread_mutex_lock(&db->lock);
	db->sync_stopping = 1;
	pthread_cond_signal(&db->sync_wake);
	pthread_mutex_unlock(&db->lock);
	pthread_join(db->sync_thread, NULL);
	pthread_cond_destroy(&db->sync_wake);
	db->sync_started = 0;
}
