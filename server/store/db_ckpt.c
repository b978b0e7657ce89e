/* db_ckpt.c: the checkpointer: copies the WAL into the database on its own
 * thread and connection, so the writer's commits never wait for it. */
#include "store/db_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "util/log.h"

/* WAL pages after which the writer asks the checkpointer to run (SQLite's
 * own automatic checkpoint runs at 1000, inside the committing write).  A
 * page dirtied by many commits in between (a cluster's row, the newest
 * leaf of runs and of runs_received, a busy key's row) is copied into the
 * database once per checkpoint: at 10,000 pages (a WAL of about 40 MB) the
 * checkpointer's CPU per upload fell from about 115 us to 85 us in
 * tests/bench (many clusters), against 1,000. */
#define CKPT_PAGES 10000

/* WAL pages (about 320 MB) past which the writer itself copies what the
 * checkpointer has not.  A passive checkpoint copies the frames that were
 * committed when it began; while the writer commits without a pause (a
 * sustained flood, a bulk load into a large database whose pages are
 * copied to random places) it never catches up, SQLite can never start the
 * log over, and the WAL grew to 75 GB at 555,000 runs in tests/bench's
 * fill.  Past this limit the writer, between its commits, copies the rest:
 * uploads wait for it (backpressure) and the next transaction restarts the
 * log from its beginning.  No checkpoint can pass the frames a reader's
 * snapshot still needs, so the bound holds only while every read is short:
 * pages read in one short transaction, and /export in chunks of their own. */
#define WAL_LIMIT (8 * CKPT_PAGES)

/* Writer's WAL hook, after every commit: wakes the checkpointer once the
 * log has grown past CKPT_PAGES, and past wal_limit copies the rest itself
 * (a no-op when the checkpointer is busy: it is retried at the next
 * commit). */
static int wal_grew(void *arg, sqlite3 *h, const char *name, int pages)
{
	struct db *db = arg;
	int log, copied;

	atomic_store(&db->wal_frames, pages);
	if (pages >= db->wal_limit &&
	    sqlite3_wal_checkpoint_v2(h, name, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) == SQLITE_OK)
		atomic_store(&db->ckpt_frames, copied);
	if (pages >= CKPT_PAGES) {
		pthread_mutex_lock(&db->lock);
		db->ckpt_wanted = 1;
		pthread_cond_signal(&db->ckpt_wake);
		pthread_mutex_unlock(&db->lock);
	}
	return SQLITE_OK;
}

/* The checkpointer thread: a passive checkpoint whenever the writer asks
 * (it neither blocks nor waits for the writer or readers; a frame a
 * reader still needs is copied next time).  It runs as SCHED_IDLE, on
 * cores nothing else wants: the single writer bounds the upload rate, and
 * a checkpointer woken beside it took its core from it (a fifth of the
 * writer's time was spent waiting to run; tests/bench/README.md).  When
 * the cores stay busy the log grows to wal_limit and the writer copies it
 * itself, as when the checkpointer lags for any other reason. */
static void *ckpt_main(void *arg)
{
	struct db *db = arg;
	struct sched_param idle = { .sched_priority = 0 };
	int stop, log, copied;

	pthread_setname_np(pthread_self(), "db-checkpoint");
	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
		log_info("checkpointer: cannot run as SCHED_IDLE; it shares the cores evenly");
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while ((!db->ckpt_wanted || db->ckpt_held) && !db->stopping)
			pthread_cond_wait(&db->ckpt_wake, &db->lock);
		stop = db->stopping;
		db->ckpt_wanted = 0;
		pthread_mutex_unlock(&db->lock);
		if (stop)
			break;
		if (sqlite3_wal_checkpoint_v2(db->ckpt->h, NULL, SQLITE_CHECKPOINT_PASSIVE,
					      &log, &copied) == SQLITE_OK)
			atomic_store(&db->ckpt_frames, copied);
	}
	return NULL;
}

/* Moves checkpoints off the writer: its own automatic checkpoint is
 * replaced by the hook that wakes the checkpointer thread. */
int ckpt_start(struct db *db)
{
	db->ckpt = conn_open(db->path, 0, db->busy_ms, NULL);
	if (!db->ckpt || db_exec(db->ckpt, "PRAGMA synchronous=FULL") != SQLITE_OK)
		return -1;
	pthread_cond_init(&db->ckpt_wake, NULL);
	db->wal_limit = WAL_LIMIT;
	if (pthread_create(&db->ckpt_thread, NULL, ckpt_main, db) != 0)
		return -1;
	db->ckpt_started = 1;
	sqlite3_wal_hook(db->writer->h, wal_grew, db);
	return 0;
}

int db_checkpoint_lag(struct db *db)
{
	int wal = atomic_load(&db->wal_frames), copied = atomic_load(&db->ckpt_frames);

	/* Fewer frames than were copied: the log started over since. */
	return wal >= copied ? wal - copied : wal;
}
