/* db_ckpt.c: the checkpointer: copies the WAL into the database on its own
 * thread and connection, so the writer's commits never wait for it, and
 * lets the writer take the copy over when the log reaches its bound. */
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
 * tests/bench (many clusters), against 1,000; at 40,000 (160 MB) to about
 * 40 us, as low as when it ran only on idle cores (tests/bench/README.md,
 * issue 25). */
#define CKPT_PAGES 40000

/* WAL pages (about 330 MB with their frame headers) at which the writer
 * stops committing until the log has been copied: the bound on the WAL.
 * A passive checkpoint copies the frames that were committed when it
 * began; while the writer commits without a pause (a sustained flood, a
 * bulk load into a large database whose pages are copied to random
 * places) it may never catch up, and SQLite can start the log over only
 * once every frame is copied.  At this limit the writer, between its
 * commits, waits for the checkpointer's pass to end and copies the rest
 * itself: uploads wait for it (backpressure) and the next transaction
 * restarts the log from its beginning.  The WAL so stays under this
 * limit plus one commit's frames (a batch of at most 512 uploads, about
 * 13,000 pages), whatever else runs on the cores (tests/bench/wal_busy.py).
 * No checkpoint can pass the frames a reader's snapshot still needs, so
 * the bound holds only while every read is short: pages read in one short
 * transaction, and /export in chunks of their own. */
#define WAL_LIMIT 80000

/* Writer's WAL hook, after every commit (its locks released): wakes the
 * checkpointer once the log has grown past CKPT_PAGES; at wal_limit waits
 * for a pass in progress to end, then copies the rest itself, with the
 * checkpointer held off so that its checkpoint cannot find the lock
 * taken. */
static int wal_grew(void *arg, sqlite3 *h, const char *name, int pages)
{
	struct db *db = arg;
	int log, copied;

	pthread_mutex_lock(&db->lock);
	db->wal_pages = pages;
	atomic_store(&db->wal_frames, pages);
	if (pages >= db->wal_limit) {
		if (db->ckpt_running)
			db->writer_waits++;
		while (db->ckpt_running)
			pthread_cond_wait(&db->ckpt_idle, &db->lock);
		db->writer_ckpt = 1;
		db->writer_ckpts++;
		pthread_mutex_unlock(&db->lock);
		if (sqlite3_wal_checkpoint_v2(h, name, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) == SQLITE_OK)
			atomic_store(&db->ckpt_frames, copied);
		pthread_mutex_lock(&db->lock);
		db->writer_ckpt = 0;
	}
	if (pages >= CKPT_PAGES) {
		db->ckpt_wanted = 1;
		pthread_cond_signal(&db->ckpt_wake);
	}
	pthread_mutex_unlock(&db->lock);
	return SQLITE_OK;
}

/* Lowers the calling thread's priority without making it starvable:
 * SCHED_BATCH keeps a normal share of the cores under any load (so a pass
 * holding SQLite's checkpoint lock always finishes), but a wake-up does
 * not preempt the writer, which bounds the upload rate.  SCHED_IDLE, used
 * before, ran only on cores nothing else wanted: with the cores busy the
 * checkpointer held the lock for minutes at a time, the writer's own
 * checkpoint found it taken, and the WAL grew to 20 GB (issue 25). */
static void lower_priority(void)
{
	struct sched_param p = { .sched_priority = 0 };

	if (pthread_setschedparam(pthread_self(), SCHED_BATCH, &p) != 0)
		log_info("checkpointer: cannot run as SCHED_BATCH; it shares the cores evenly");
}

/* The checkpointer thread: a passive checkpoint whenever the writer asks
 * (it neither blocks nor waits for the writer or readers; a frame a
 * reader still needs is copied next time), except while the writer copies
 * the log itself. */
static void *ckpt_main(void *arg)
{
	struct db *db = arg;
	int stop, log, copied;

	pthread_setname_np(pthread_self(), "db-checkpoint");
	lower_priority();
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while ((!db->ckpt_wanted || db->ckpt_held || db->writer_ckpt) && !db->stopping)
			pthread_cond_wait(&db->ckpt_wake, &db->lock);
		stop = db->stopping;
		db->ckpt_wanted = 0;
		db->ckpt_running = !stop;
		pthread_mutex_unlock(&db->lock);
		if (stop)
			break;
		if (sqlite3_wal_checkpoint_v2(db->ckpt->h, NULL, SQLITE_CHECKPOINT_PASSIVE,
					      &log, &copied) == SQLITE_OK)
			atomic_store(&db->ckpt_frames, copied);
		pthread_mutex_lock(&db->lock);
		db->ckpt_running = 0;
		db->ckpt_passes++;
		pthread_cond_broadcast(&db->ckpt_idle);
		pthread_mutex_unlock(&db->lock);
	}
	return NULL;
}

/* Moves checkpoints off the writer: its own automatic checkpoint is
 * replaced by the hook that wakes the checkpointer thread. */
int db_ckpt_start(struct db *db)
{
	db->ckpt = db_conn_open(db->path, 0, db->busy_ms, NULL);
	if (!db->ckpt || db_exec(db->ckpt, "PRAGMA synchronous=FULL") != SQLITE_OK)
		return -1;
	pthread_cond_init(&db->ckpt_wake, NULL);
	pthread_cond_init(&db->ckpt_idle, NULL);
	db->wal_limit = WAL_LIMIT;
	if (pthread_create(&db->ckpt_thread, NULL, ckpt_main, db) != 0)
		return -1;
	db->ckpt_started = 1;
	sqlite3_wal_hook(db->writer->h, wal_grew, db);
	return 0;
}

void db_wal_stats(struct db *db, struct db_wal_stats *out)
{
	pthread_mutex_lock(&db->lock);
	out->wal_pages = (unsigned long)(db->wal_pages > 0 ? db->wal_pages : 0);
	out->wal_limit = (unsigned long)db->wal_limit;
	out->ckpt_passes = db->ckpt_passes;
	out->writer_ckpts = db->writer_ckpts;
	out->writer_waits = db->writer_waits;
	pthread_mutex_unlock(&db->lock);
}

int db_checkpoint_lag(struct db *db)
{
	int wal = atomic_load(&db->wal_frames), copied = atomic_load(&db->ckpt_frames);

	/* Fewer frames than were copied: the log started over since. */
	return wal >= copied ? wal - copied : wal;
}
