/* check_db_ckpt.c: the checkpointer of server/store/db_ckpt.c when it
 * stalls inside a checkpoint, holding SQLite's checkpoint lock (as it did
 * for minutes at SCHED_IDLE with the cores busy, issue 25): the writer
 * must wait for it at the WAL's limit instead of committing on while its
 * own checkpoint finds the lock taken.
 *
 * The stall is made with a VFS over the default one that holds the
 * checkpointer thread's writes into the database file at a gate. */
#include "check_util.h"
#include "check_tmpdb.h"
#include "store/db.h"
#include "store/db_int.h"
#include "util/log.h"

#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct tmpdb T;

/* ---- the gate: a VFS whose database files hold the checkpointer ---- */

static sqlite3_vfs gate_vfs, *real_vfs;
static sqlite3_io_methods gate_io;
static const sqlite3_io_methods *real_io;
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_closed, gate_held;   /* with gate_lock */

static int on_checkpointer(void)
{
	char name[32] = "";

	pthread_getname_np(pthread_self(), name, sizeof name);
	return !strcmp(name, "db-checkpoint");
}

/* A write into a database file: the checkpointer's waits while the gate
 * is closed (it holds the checkpoint lock meanwhile). */
static int gate_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	if (on_checkpointer()) {
		pthread_mutex_lock(&gate_lock);
		while (gate_closed) {
			gate_held = 1;
			pthread_cond_broadcast(&gate_cv);
			pthread_cond_wait(&gate_cv, &gate_lock);
		}
		pthread_mutex_unlock(&gate_lock);
	}
	return real_io->xWrite(f, p, n, off);
}

/* Opens through the real VFS; a main database file gets the real methods
 * with xWrite replaced (the file itself is the real one, so every other
 * method runs on it unchanged). */
static int gate_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *out)
{
	int rc = real_vfs->xOpen(real_vfs, name, f, flags, out);

	(void)vfs;
	if (rc != SQLITE_OK || !f->pMethods || !(flags & SQLITE_OPEN_MAIN_DB))
		return rc;
	if (!real_io) {
		real_io = f->pMethods;
		gate_io = *real_io;
		gate_io.xWrite = gate_write;
	}
	if (f->pMethods == real_io)
		f->pMethods = &gate_io;
	return rc;
}

static void gate_install(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	ck_assert_ptr_nonnull(real_vfs);
	gate_vfs = *real_vfs;
	gate_vfs.zName = "check-gate";
	gate_vfs.xOpen = gate_open;
	gate_vfs.pNext = NULL;
	ck_assert_int_eq(sqlite3_vfs_register(&gate_vfs, 1), SQLITE_OK);
}

static void gate_remove(void)
{
	sqlite3_vfs_register(real_vfs, 1);
	sqlite3_vfs_unregister(&gate_vfs);
}

static void gate_set(int closed)
{
	pthread_mutex_lock(&gate_lock);
	gate_closed = closed;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_lock);
}

/* Waits (up to 30 s) until the checkpointer is held at the gate. */
static int gate_wait_held(void)
{
	struct timespec until;
	int held;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&gate_lock);
	while (!gate_held && pthread_cond_timedwait(&gate_cv, &gate_lock, &until) == 0)
		;
	held = gate_held;
	pthread_mutex_unlock(&gate_lock);
	return held;
}

/* ---- the writes ---- */

/* A job that stores a 3 KB blob: about one WAL page per commit. */
static int blob_run(struct dbconn *w, struct db_job *j)
{
	(void)j;
	if (db_exec(w, "CREATE TABLE IF NOT EXISTS wal_blobs(b BLOB)") != SQLITE_OK)
		return DB_ERR;
	return db_exec(w, "INSERT INTO wal_blobs(b) VALUES (randomblob(3000))") == SQLITE_OK ? DB_OK : DB_ERR;
}

#define WRITES 1500
#define LIMIT 300                    /* WAL pages */

struct writer {
	struct db *db;
	int done, failed;                /* with gate_lock */
};

static void *write_all(void *arg)
{
	struct writer *w = arg;
	struct db_job j = { .run = blob_run };
	int i, bad = 0;

	for (i = 0; i < WRITES; i++)
		bad += db_write(w->db, &j) != DB_OK;
	pthread_mutex_lock(&gate_lock);
	w->done = 1;
	w->failed = bad;
	pthread_mutex_unlock(&gate_lock);
	return NULL;
}

static off_t wal_size(void)
{
	char wal[320];
	struct stat st;

	snprintf(wal, sizeof wal, "%s-wal", T.path);
	ck_assert_int_eq(stat(wal, &st), 0);
	return st.st_size;
}

/* The checkpointer stalls inside a pass; the writer reaches the WAL's
 * limit, waits for the pass instead of growing the log past it, and once
 * the pass ends copies the rest itself, so the log starts over.  Before
 * the fix the writer's checkpoint found the lock taken and the 1,500
 * commits grew the log to about 1,500 pages. */
START_TEST(writer_waits_for_a_stalled_checkpointer_at_the_limit)
{
	struct writer w = { 0 };
	struct db_wal_stats ws;
	struct db *db;
	pthread_t th;
	off_t bound = (off_t)(LIMIT + 50) * 4120;
	int i, done = 0;

	gate_install();
	db = tmpdb_open(&T, NULL);
	/* The migrations' own frames may already pass the limit (each new
	 * migration adds some): the writer may not grow the log past the
	 * larger of the two. */
	if (wal_size() > (off_t)LIMIT * 4120)
		bound = wal_size() + (off_t)50 * 4120;
	gate_set(1);
	pthread_mutex_lock(&db->lock);
	db->wal_limit = LIMIT;
	db->ckpt_wanted = 1;               /* a pass over the migrations' frames */
	pthread_cond_signal(&db->ckpt_wake);
	pthread_mutex_unlock(&db->lock);
	ck_assert_msg(gate_wait_held(), "the checkpointer never started its pass");

	w.db = db;
	ck_assert_int_eq(pthread_create(&th, NULL, write_all, &w), 0);
	/* Until the writer waits at the limit, or (the bug) has done it all. */
	for (i = 0; i < 3000; i++) {
		db_wal_stats(db, &ws);
		pthread_mutex_lock(&gate_lock);
		done = w.done;
		pthread_mutex_unlock(&gate_lock);
		if (ws.writer_waits || done)
			break;
		usleep(10 * 1000);
	}
	ck_assert_msg(!done, "the writer committed all %d writes past a stalled checkpointer", WRITES);
	ck_assert_uint_ge(ws.writer_waits, 1);
	ck_assert_msg(wal_size() <= bound, "WAL is %lld bytes with the checkpointer stalled",
		      (long long)wal_size());

	gate_set(0);
	pthread_join(th, NULL);
	ck_assert_int_eq(w.failed, 0);
	db_wal_stats(db, &ws);
	ck_assert_uint_ge(ws.writer_ckpts, 1);
	ck_assert_uint_ge(ws.ckpt_passes, 1);
	ck_assert_msg(wal_size() <= bound, "WAL is %lld bytes after the writes", (long long)wal_size());
	db_close(db);
	gate_remove();
}
END_TEST

static void setup(void)
{
	tmpdb_begin(&T, "check_db_ckpt");
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
}

static void cleanup(void)
{
	tmpdb_end(&T);
}

static Suite *suite_db_ckpt(void)
{
	Suite *s = suite_create("db_ckpt");
	TCase *tc = tcase_create("stalled");

	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, writer_waits_for_a_stalled_checkpointer_at_the_limit);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_db_ckpt)
