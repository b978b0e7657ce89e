/* check_db.c: the group-commit writer, savepoint rollback and migrations of server/store/db*.c, and run storage of server/store/run_store.c. */
#include "check_util.h"
#include "check_tmpdb.h"
#include "check_sample_run.h"
#include "store/db.h"
#include "store/db_int.h"
#include "util/log.h"
#include "store/run_store.h"
#include "ingest/sample.h"
#include "ingest/validate.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- fixtures ---- */

/* A fresh folder for one test's database; removed by cleanup(). */
static struct tmpdb T;

static void setup(void)
{
	tmpdb_begin(&T, "check_db");
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
}

static void cleanup(void)
{
	tmpdb_end(&T);
}

static void db_path(char *out, size_t n)
{
	snprintf(out, n, "%s", T.path);
}

/* Opens the test database with the repository's migrations (or dir). */
static struct db *open_with(const char *migrations)
{
	return tmpdb_open(&T, migrations);
}

static struct db *open_test_db(void)
{
	return open_with(NULL);
}

/* A plain read-write connection of our own, outside db.c. */
static sqlite3 *raw_open(void)
{
	char path[300];
	sqlite3 *h = NULL;

	db_path(path, sizeof path);
	ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	return h;
}

/* The single integer an SQL query returns, on our own connection. */
static long long scalar(const char *sql, const char *arg)
{
	sqlite3 *h = raw_open();
	sqlite3_stmt *st;
	long long v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* ---- jobs ---- */

/* A job that inserts account rows named names[0..n), then fails with
 * fail_with when that is not 0; done() counts finished jobs and checks,
 * on a connection of its own, that a job reported OK is visible. */
struct acct_job {
	struct db_job j;
	const char *names[2];
	int n;
	int fail_with;
	int visible_in_done;      /* out: 1 when done() saw the rows committed */
	struct waiter *w;
};

/* Counts finished jobs so a test can wait for all of them. */
struct waiter {
	pthread_mutex_t m;
	pthread_cond_t c;
	int done;
};

static const char sql_acct[] =
	"INSERT INTO accounts(name, token_hash, created_at) VALUES (?, randomblob(32), 'now')";

static int acct_run(struct dbconn *w, struct db_job *j)
{
	struct acct_job *a = (struct acct_job *)j;
	sqlite3_stmt *st;
	int i, rc;

	for (i = 0; i < a->n; i++) {
		st = db_stmt(w, sql_acct);
		if (!st)
			return DB_ERR;
		db_bind_text(st, 1, a->names[i]);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return db_status_of(rc);
	}
	return a->fail_with;
}

static void acct_done(struct db_job *j)
{
	struct acct_job *a = (struct acct_job *)j;

	if (a->j.rc == DB_OK && a->n > 0)
		a->visible_in_done = scalar("SELECT count(*) FROM accounts WHERE name = ?",
					    a->names[0]) == 1;
	pthread_mutex_lock(&a->w->m);
	a->w->done++;
	pthread_cond_broadcast(&a->w->c);
	pthread_mutex_unlock(&a->w->m);
}

static void waiter_init(struct waiter *w)
{
	pthread_mutex_init(&w->m, NULL);
	pthread_cond_init(&w->c, NULL);
	w->done = 0;
}

static void waiter_wait(struct waiter *w, int n)
{
	pthread_mutex_lock(&w->m);
	while (w->done < n)
		pthread_cond_wait(&w->c, &w->m);
	pthread_mutex_unlock(&w->m);
}

static void waiter_destroy(struct waiter *w)
{
	pthread_cond_destroy(&w->c);
	pthread_mutex_destroy(&w->m);
}

/* A job that holds the writer inside its transaction until opened, so that
 * every job submitted meanwhile queues up behind it. */
struct gate {
	struct db_job j;
	pthread_mutex_t m;
	pthread_cond_t c;
	int entered, open;
};

static int gate_run(struct dbconn *w, struct db_job *j)
{
	struct gate *g = (struct gate *)j;

	pthread_mutex_lock(&g->m);
	g->entered = 1;
	pthread_cond_broadcast(&g->c);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
	return DB_OK;
}

static void gate_done(struct db_job *j)
{
	(void)j;
}

/* Submits the gate and returns once the writer is inside it. */
static void gate_close(struct db *db, struct gate *g)
{
	memset(g, 0, sizeof *g);
	pthread_mutex_init(&g->m, NULL);
	pthread_cond_init(&g->c, NULL);
	g->j.run = gate_run;
	g->j.done = gate_done;
	db_submit(db, &g->j);
	pthread_mutex_lock(&g->m);
	while (!g->entered)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->open = 1;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void gate_destroy(struct gate *g)
{
	pthread_cond_destroy(&g->c);
	pthread_mutex_destroy(&g->m);
}

/* ---- group commit ---- */

#define N_THREADS 8
#define N_JOBS 200

struct submitter {
	struct db *db;
	struct acct_job *jobs;
	int n;
};

static void *submit_all(void *arg)
{
	struct submitter *s = arg;
	int i;

	for (i = 0; i < s->n; i++)
		db_submit(s->db, &s->jobs[i].j);
	return NULL;
}

/* Fills jobs[0..n) as single-row inserts named "<prefix><i>". */
static void make_jobs(struct acct_job *jobs, char (*names)[32], int n,
		      const char *prefix, struct waiter *w)
{
	int i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], 32, "%s%d", prefix, i);
		memset(&jobs[i], 0, sizeof jobs[i]);
		jobs[i].j.run = acct_run;
		jobs[i].j.done = acct_done;
		jobs[i].names[0] = names[i];
		jobs[i].n = 1;
		jobs[i].w = w;
	}
}

/* Jobs submitted from several threads while the writer is busy share
 * commits; every one is committed, and done() only runs after the commit
 * (the rows are visible to another connection by then). */
START_TEST(group_commit_shares_commits)
{
	static struct acct_job jobs[N_JOBS];
	static char names[N_JOBS][32];
	struct submitter sub[N_THREADS];
	pthread_t th[N_THREADS];
	unsigned long commits, njobs, c0, j0;
	struct waiter w;
	struct gate g;
	struct db *db = open_test_db();
	int i, per = N_JOBS / N_THREADS;

	waiter_init(&w);
	make_jobs(jobs, names, N_JOBS, "user", &w);
	db_stats(db, &c0, &j0);
	gate_close(db, &g);
	for (i = 0; i < N_THREADS; i++) {
		sub[i] = (struct submitter){ db, jobs + i * per, per };
		ck_assert_int_eq(pthread_create(&th[i], NULL, submit_all, &sub[i]), 0);
	}
	for (i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	gate_open(&g);
	waiter_wait(&w, N_JOBS);
	for (i = 0; i < N_JOBS; i++) {
		ck_assert_int_eq(jobs[i].j.rc, DB_OK);
		ck_assert_msg(jobs[i].visible_in_done, "job %d not committed before done()", i);
	}
	db_stats(db, &commits, &njobs);
	ck_assert_uint_eq(njobs - j0, N_JOBS + 1);
	ck_assert_uint_le(commits - c0, 2);
	ck_assert_uint_lt(commits - c0, njobs - j0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts", NULL), N_JOBS);
	db_close(db);
	gate_destroy(&g);
	waiter_destroy(&w);
}
END_TEST

/* Without a gate, concurrent submitters still get every job committed
 * exactly once, and the statistics add up. */
START_TEST(concurrent_submit_commits_all)
{
	static struct acct_job jobs[N_JOBS];
	static char names[N_JOBS][32];
	struct submitter sub[N_THREADS];
	pthread_t th[N_THREADS];
	unsigned long commits, njobs;
	struct waiter w;
	struct db *db = open_test_db();
	int i, per = N_JOBS / N_THREADS;

	waiter_init(&w);
	make_jobs(jobs, names, N_JOBS, "free", &w);
	for (i = 0; i < N_THREADS; i++) {
		sub[i] = (struct submitter){ db, jobs + i * per, per };
		ck_assert_int_eq(pthread_create(&th[i], NULL, submit_all, &sub[i]), 0);
	}
	for (i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	waiter_wait(&w, N_JOBS);
	for (i = 0; i < N_JOBS; i++)
		ck_assert_int_eq(jobs[i].j.rc, DB_OK);
	db_stats(db, &commits, &njobs);
	ck_assert_uint_eq(njobs, N_JOBS);
	ck_assert_uint_ge(commits, 1);
	ck_assert_uint_le(commits, njobs);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts", NULL), N_JOBS);
	db_close(db);
	waiter_destroy(&w);
}
END_TEST

/* A job that fails is undone alone: its partial work is rolled back to its
 * savepoint while the jobs before and after it in the same batch commit. */
START_TEST(failing_job_rolls_back_alone)
{
	struct acct_job a = { .names = { "x1" }, .n = 1 };
	struct acct_job b = { .names = { "x2", "x1" }, .n = 2 };   /* x1: conflict */
	struct acct_job c = { .names = { "x3", "x4" }, .n = 2, .fail_with = DB_ERR };
	struct acct_job d = { .names = { "x5" }, .n = 1 };
	struct acct_job *all[] = { &a, &b, &c, &d };
	unsigned long c0, j0, commits, njobs;
	struct waiter w;
	struct gate g;
	struct db *db = open_test_db();
	size_t i;

	waiter_init(&w);
	db_stats(db, &c0, &j0);
	gate_close(db, &g);
	for (i = 0; i < 4; i++) {
		all[i]->j.run = acct_run;
		all[i]->j.done = acct_done;
		all[i]->w = &w;
		db_submit(db, &all[i]->j);
	}
	gate_open(&g);
	waiter_wait(&w, 4);
	db_stats(db, &commits, &njobs);
	ck_assert_uint_le(commits - c0, 2);    /* the four shared one batch */
	ck_assert_int_eq(a.j.rc, DB_OK);
	ck_assert_int_eq(b.j.rc, DB_CONFLICT);
	ck_assert_int_eq(c.j.rc, DB_ERR);
	ck_assert_int_eq(d.j.rc, DB_OK);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name = 'x1'", NULL), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name = 'x2'", NULL), 0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name IN ('x3', 'x4')", NULL), 0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name = 'x5'", NULL), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts", NULL), 2);
	db_close(db);
	gate_destroy(&g);
	waiter_destroy(&w);
}
END_TEST

/* db_write waits for its job and returns the job's status. */
START_TEST(db_write_returns_the_status)
{
	struct acct_job a = { .j = { .run = acct_run }, .names = { "solo" }, .n = 1 };
	struct acct_job b = { .j = { .run = acct_run }, .names = { "solo" }, .n = 1 };
	struct db *db = open_test_db();

	ck_assert_int_eq(db_write(db, &a.j), DB_OK);
	ck_assert_int_eq(db_write(db, &b.j), DB_CONFLICT);
	ck_assert_int_eq(b.j.rc, DB_CONFLICT);
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts", NULL), 1);
}
END_TEST

/* A job that stores a 3 KB blob: about one WAL page per commit. */
static int blob_run(struct dbconn *w, struct db_job *j)
{
	(void)j;
	if (db_exec(w, "CREATE TABLE IF NOT EXISTS wal_blobs(b BLOB)") != SQLITE_OK)
		return DB_ERR;
	return db_exec(w, "INSERT INTO wal_blobs(b) VALUES (randomblob(3000))") == SQLITE_OK ? DB_OK : DB_ERR;
}

/* With the checkpointer thread held back (as when it cannot keep up with a
 * writer that never pauses), the writer copies the WAL itself past its
 * limit, so the log starts over instead of growing with every commit. */
START_TEST(wal_stays_bounded_when_the_checkpointer_lags)
{
	struct db *db = open_test_db();
	struct db_job j = { .run = blob_run };
	char wal[320];
	struct stat st;
	off_t before, bound;
	int i;

	pthread_mutex_lock(&db->lock);
	db->ckpt_held = 1;
	db->wal_limit = 100;
	pthread_mutex_unlock(&db->lock);
	snprintf(wal, sizeof wal, "%s-wal", T.path);
	ck_assert_int_eq(stat(wal, &st), 0);
	before = st.st_size;               /* the migrations' frames */
	for (i = 0; i < 2000; i++)
		ck_assert_int_eq(db_write(db, &j), DB_OK);
	ck_assert_int_eq(stat(wal, &st), 0);
	/* The log starts over within a few commits, then near every 100
	 * pages; 2,000 commits of a page or more would be over 8 MB of log. */
	bound = before + 10 * 4200 > 200 * 4200 ? before + 10 * 4200 : 200 * 4200;
	ck_assert_msg(st.st_size <= bound, "WAL is %lld bytes, %lld before the writes",
		      (long long)st.st_size, (long long)before);
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM wal_blobs", NULL), 2000);
}
END_TEST

/* ---- the sync thread ---- */

/* The test's fdatasync(): counts calls, and fails with sync_errno when
 * that is set. */
static atomic_int syncs;
static int sync_errno;

static int counting_sync(int fd)
{
	atomic_fetch_add(&syncs, 1);
	if (sync_errno) {
		errno = sync_errno;
		return -1;
	}
	return fdatasync(fd);
}

/* An account job that notes the syncs done before it ran and before it
 * was answered. */
struct synced_job {
	struct acct_job a;
	int at_run, at_done;
};

static int synced_run(struct dbconn *w, struct db_job *j)
{
	struct synced_job *s = (struct synced_job *)j;

	s->at_run = atomic_load(&syncs);
	return acct_run(w, j);
}

static void synced_done(struct db_job *j)
{
	struct synced_job *s = (struct synced_job *)j;

	s->at_done = atomic_load(&syncs);
	acct_done(j);
}

/* Makes db sync through counting_sync, failing with errno e when e is set. */
static void count_syncs(struct db *db, int e)
{
	atomic_store(&syncs, 0);
	sync_errno = e;
	pthread_mutex_lock(&db->lock);
	db->sync_fn = counting_sync;
	pthread_mutex_unlock(&db->lock);
}

/* Submits n synced jobs (names prefix-i) and waits until all are answered. */
static void run_synced(struct db *db, struct synced_job *jobs, char (*names)[32], int n,
		       const char *prefix, struct waiter *w)
{
	int i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], 32, "%s-%d", prefix, i);
		jobs[i] = (struct synced_job){ .a = { .j = { .run = synced_run, .done = synced_done },
						      .names = { names[i] }, .n = 1, .w = w } };
		db_submit(db, &jobs[i].a.j);
	}
	waiter_wait(w, n);
}

/* Every job is answered only after a sync that came after it ran: the WAL
 * of its commit was on disk before done(), and its rows were visible. */
START_TEST(jobs_are_answered_after_their_sync)
{
	static struct synced_job jobs[40];
	static char names[40][32];
	struct db *db = open_test_db();
	struct waiter w;
	int i;

	count_syncs(db, 0);
	waiter_init(&w);
	run_synced(db, jobs, names, 40, "synced", &w);
	for (i = 0; i < 40; i++) {
		ck_assert_int_eq(jobs[i].a.j.rc, DB_OK);
		ck_assert_msg(jobs[i].at_done > jobs[i].at_run,
			      "job %d answered with no sync after it ran (%d, %d)", i,
			      jobs[i].at_run, jobs[i].at_done);
		ck_assert_int_eq(jobs[i].a.visible_in_done, 1);
	}
	/* One sync covers the batches waiting for it: never more syncs than
	 * commits. */
	ck_assert_int_ge(atomic_load(&syncs), 1);
	ck_assert_int_le(atomic_load(&syncs), 40);
	db_close(db);
	waiter_destroy(&w);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name LIKE 'synced-%'", NULL), 40);
}
END_TEST

/* A failed sync fails the jobs it covered with the status of its errno,
 * and every later write is refused, stored nowhere. */
START_TEST(a_failed_sync_fails_its_jobs_and_stops_writes)
{
	static struct synced_job jobs[3];
	static char names[3][32];
	struct acct_job later = { .j = { .run = acct_run }, .names = { "after-failure" }, .n = 1 };
	struct db *db = open_test_db();
	struct waiter w;
	int i;

	count_syncs(db, ENOSPC);
	waiter_init(&w);
	run_synced(db, jobs, names, 3, "unsynced", &w);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(jobs[i].a.j.rc, DB_FULL);
	ck_assert_int_ge(atomic_load(&syncs), 1);
	sync_errno = 0;
	ck_assert_int_eq(db_write(db, &later.j), DB_FULL);
	db_close(db);
	waiter_destroy(&w);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts WHERE name = 'after-failure'", NULL), 0);
}
END_TEST

/* db_close runs every job already queued before it stops the writer. */
START_TEST(close_drains_the_queue)
{
	static struct acct_job jobs[50];
	static char names[50][32];
	struct waiter w;
	struct db *db = open_test_db();
	int i;

	waiter_init(&w);
	make_jobs(jobs, names, 50, "drain", &w);
	for (i = 0; i < 50; i++)
		db_submit(db, &jobs[i].j);
	db_close(db);
	ck_assert_int_eq(w.done, 50);
	for (i = 0; i < 50; i++)
		ck_assert_int_eq(jobs[i].j.rc, DB_OK);
	ck_assert_int_eq(scalar("SELECT count(*) FROM accounts", NULL), 50);
	waiter_destroy(&w);
}
END_TEST

/* ---- migrations ---- */

/* Number of NNNN_*.sql files in dir. */
static long count_migrations(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	long n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (strlen(de->d_name) > 9 && strspn(de->d_name, "0123456789") == 4 &&
		    de->d_name[4] == '_' && strstr(de->d_name, ".sql"))
			n++;
	closedir(d);
	return n;
}

/* Every migration is recorded once with its version and name; opening the
 * database again applies none of them a second time. */
START_TEST(migrations_recorded_once)
{
	char mig[600];
	struct db *db;
	sqlite3 *h;
	long n;

	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	n = count_migrations(mig);
	ck_assert_int_ge(n, 1);
	db = open_test_db();
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations", NULL), n);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations WHERE version = 1 "
				"AND name = '0001_init.sql'", NULL), 1);
	/* Backdate the records: a re-application would write new times. */
	h = raw_open();
	ck_assert_int_eq(sqlite3_exec(h, "UPDATE schema_migrations SET applied_at = '2000-01-01T00:00:00Z'",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	db = open_test_db();
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations", NULL), n);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations WHERE applied_at = '2000-01-01T00:00:00Z'", NULL), n);
}
END_TEST

/* Writes text to dir/name. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A migrations folder of our own: the repository's files (symlinked) and
 * whatever a test adds. */
static void own_migrations(char *dir, size_t n)
{
	char rel[600], real[PATH_MAX], from[PATH_MAX + 300], to[700];
	struct dirent *de;
	DIR *d;

	snprintf(dir, n, "%s/mig", T.dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(rel, sizeof rel, "%s/migrations", repo_root());
	ck_assert_ptr_nonnull(realpath(rel, real));
	d = opendir(real);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(from, sizeof from, "%s/%s", real, de->d_name);
		snprintf(to, sizeof to, "%s/%s", dir, de->d_name);
		ck_assert_int_eq(symlink(from, to), 0);
	}
	closedir(d);
}

/* A new migration is applied on the next open, alone; a failing one stops
 * db_open with its name in the message and is not recorded, and what it
 * did is rolled back. */
START_TEST(new_and_failing_migrations)
{
	struct err err = ERR_INIT;
	char mig[300], path[300];
	struct db *db;
	long before;
	int rc;

	own_migrations(mig, sizeof mig);
	db = open_with(mig);
	db_close(db);
	before = scalar("SELECT count(*) FROM schema_migrations", NULL);
	write_file(mig, "9000_extra.sql", "CREATE TABLE extra(x INTEGER);");
	write_file(mig, "README.txt", "not a migration");
	db = open_with(mig);
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations", NULL), before + 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations WHERE version = 9000", NULL), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM extra", NULL), 0);

	write_file(mig, "9001_broken.sql", "CREATE TABLE half(x INTEGER); THIS IS NOT SQL;");
	db_path(path, sizeof path);
	rc = db_open(path, mig, &db, &err);
	ck_assert_int_ne(rc, DB_OK);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.message, "9001_broken.sql") != NULL, "message: %s", err.message);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations WHERE version = 9001", NULL), 0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half'", NULL), 0);
}
END_TEST

/* More migration files than the loader reads stop start-up with a message
 * saying so, and none of the extra ones is applied. */
START_TEST(too_many_migrations_stop_start_up)
{
	struct err err = ERR_INIT;
	char mig[300], path[300], name[64];
	struct db *db;
	int i, rc;

	own_migrations(mig, sizeof mig);
	for (i = 0; i < 257; i++) {
		snprintf(name, sizeof name, "%04d_t.sql", 6000 + i);
		write_file(mig, name, "SELECT 1;");
	}
	db_path(path, sizeof path);
	rc = db_open(path, mig, &db, &err);
	ck_assert_int_ne(rc, DB_OK);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.message, "more than 256 migration files") != NULL, "message: %s", err.message);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations", NULL), 0);
}
END_TEST

/* A migration whose transaction cannot start (another process holds the
 * write lock) stops start-up naming it, rather than running unprotected. */
START_TEST(migration_that_cannot_begin_stops_start_up)
{
	struct err err = ERR_INIT;
	char mig[300], path[300];
	struct db *db;
	sqlite3 *other;
	int rc;

	own_migrations(mig, sizeof mig);
	db = open_with(mig);
	db_close(db);
	write_file(mig, "9000_extra.sql", "CREATE TABLE extra(x INTEGER);");
	other = raw_open();
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	db_path(path, sizeof path);
	rc = db_open(path, mig, &db, &err);
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	ck_assert_int_ne(rc, DB_OK);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err.message, "9000_extra.sql") && strstr(err.message, "transaction"), "message: %s", err.message);
	ck_assert_int_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name = 'extra'", NULL), 0);
}
END_TEST

/* The mode of path's permission bits, or -1 when it is missing. */
static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* Under umask 022 the database, -wal and -shm are created 0600, a 0644
 * file left by an older server is brought to 0600, and a group makes it
 * 0640. */
START_TEST(database_files_are_private_whatever_the_umask)
{
	struct err err = ERR_INIT;
	char path[300], side[320], mig[600];
	struct db_perm perm = { 0640, getgid() };
	mode_t old = umask(022);
	struct db *db = open_test_db();
	const char *const suffix[] = { "", "-wal", "-shm" };
	size_t i;

	db_path(path, sizeof path);
	for (i = 0; i < 3; i++) {
		snprintf(side, sizeof side, "%s%s", path, suffix[i]);
		ck_assert_msg(mode_of(side) == 0600, "%s: %o", side, mode_of(side));
	}
	db_close(db);
	ck_assert_int_eq(chmod(path, 0644), 0);
	db = open_test_db();
	ck_assert_int_eq(mode_of(path), 0600);
	db_close(db);
	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	ck_assert_msg(db_open_perm(path, mig, perm, &db, &err) == DB_OK, "%s", err.message);
	for (i = 0; i < 3; i++) {
		snprintf(side, sizeof side, "%s%s", path, suffix[i]);
		ck_assert_msg(mode_of(side) == 0640, "%s: %o", side, mode_of(side));
	}
	db_close(db);
	umask(old);
}
END_TEST

/* ---- run storage ---- */

/* A run_new for a valid sample payload and the given JWS bytes. */
static void stored_init(struct sample_run *s, const char *jws, const char *fingerprint)
{
	struct sample_opts o = { .fingerprint = fingerprint };

	sample_run_init(s, &o, jws, "thumbprint-of-the-test-key");
}

/* The same JWS bytes stored twice give the first id back, marked duplicate,
 * and one row; other bytes get a new id. */
START_TEST(duplicate_jws_returns_the_first_id)
{
	struct sample_run a, b, c;
	struct db *db = open_test_db();

	stored_init(&a, "aaaa.bbbb.cccc", "3f9a0c11d2e4b5a6");
	stored_init(&b, "aaaa.bbbb.cccc", "3f9a0c11d2e4b5a6");
	stored_init(&c, "aaaa.bbbb.dddd", NULL);
	ck_assert_int_eq(db_write(db, &a.n.j), DB_OK);
	ck_assert_int_eq(a.n.duplicate, 0);
	ck_assert(run_id_valid(a.n.id));
	ck_assert_int_eq(db_write(db, &b.n.j), DB_OK);
	ck_assert_int_eq(b.n.duplicate, 1);
	ck_assert_str_eq(b.n.id, a.n.id);
	ck_assert_int_eq(db_write(db, &c.n.j), DB_OK);
	ck_assert_int_eq(c.n.duplicate, 0);
	ck_assert_str_ne(c.n.id, a.n.id);
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs", NULL), 2);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE id = ? AND fingerprint_hash IS NULL "
				"AND hw_class = 'slug:m3-ultra' AND account_id IS NULL", c.n.id), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE id = ? AND "
				"hw_class = '3f9a0c11d2e4b5a6:m3-ultra' AND jws = CAST('aaaa.bbbb.cccc' AS BLOB)", a.n.id), 1);
	sample_run_free(&a);
	sample_run_free(&b);
	sample_run_free(&c);
}
END_TEST

/* A run stored with an account keeps its id; with 0 the column is NULL. */
START_TEST(account_is_stored_when_given)
{
	struct acct_job acc = { .j = { .run = acct_run }, .names = { "alice" }, .n = 1 };
	struct sample_run s;
	struct db *db = open_test_db();

	ck_assert_int_eq(db_write(db, &acc.j), DB_OK);
	stored_init(&s, "eeee.ffff.gggg", NULL);
	s.n.account_id = scalar("SELECT id FROM accounts WHERE name = 'alice'", NULL);
	ck_assert_int_eq(db_write(db, &s.n.j), DB_OK);
	db_close(db);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs r JOIN accounts a ON a.id = r.account_id "
				"WHERE r.id = ? AND a.name = 'alice'", s.n.id), 1);
	sample_run_free(&s);
}
END_TEST

static int id_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Run ids are "r_" and 11 of [a-z0-9_-], drawn so that 1000 of them are
 * all different and every character of the alphabet turns up. */
START_TEST(run_ids_are_random_and_well_formed)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
	static char ids[1000][RUN_ID_LEN];
	int seen[256] = { 0 };
	size_t i, k;

	ck_assert_int_ge(sodium_init(), 0);
	for (i = 0; i < 1000; i++) {
		run_id_new(ids[i]);
		ck_assert_uint_eq(strlen(ids[i]), 13);
		ck_assert(ids[i][0] == 'r' && ids[i][1] == '_');
		ck_assert_uint_eq(strspn(ids[i] + 2, alphabet), 11);
		ck_assert(run_id_valid(ids[i]));
		for (k = 2; k < 13; k++)
			seen[(unsigned char)ids[i][k]]++;
	}
	qsort(ids, 1000, RUN_ID_LEN, id_cmp);
	for (i = 1; i < 1000; i++)
		ck_assert_str_ne(ids[i - 1], ids[i]);
	for (i = 0; alphabet[i]; i++)
		ck_assert_msg(seen[(unsigned char)alphabet[i]] > 0, "never drew '%c'", alphabet[i]);
}
END_TEST

START_TEST(run_id_valid_refuses_other_shapes)
{
	ck_assert(run_id_valid("r_y2_5y8oo97d"));
	ck_assert(!run_id_valid("r_y2_5y8oo97"));
	ck_assert(!run_id_valid("r_y2_5y8oo97dd"));
	ck_assert(!run_id_valid("x_y2_5y8oo97d"));
	ck_assert(!run_id_valid("r-y2_5y8oo97d"));
	ck_assert(!run_id_valid("r_Y2_5y8oo97d"));
	ck_assert(!run_id_valid("r_y2_5y8oo9.d"));
	ck_assert(!run_id_valid("r_y2_5y8oo9/d"));
	ck_assert(!run_id_valid(""));
}
END_TEST

static Suite *suite_db(void)
{
	Suite *s = suite_create("db");
	TCase *w = tcase_create("writer");
	TCase *m = tcase_create("migrations");
	TCase *r = tcase_create("run_store");

	tcase_add_checked_fixture(w, setup, cleanup);
	tcase_add_checked_fixture(m, setup, cleanup);
	tcase_add_checked_fixture(r, setup, cleanup);
	tcase_set_timeout(w, 60);
	tcase_set_timeout(m, 60);    /* a locked database waits out the 5 s busy timeout */
	tcase_add_test(w, group_commit_shares_commits);
	tcase_add_test(w, concurrent_submit_commits_all);
	tcase_add_test(w, failing_job_rolls_back_alone);
	tcase_add_test(w, db_write_returns_the_status);
	tcase_add_test(w, close_drains_the_queue);
	tcase_add_test(w, jobs_are_answered_after_their_sync);
	tcase_add_test(w, a_failed_sync_fails_its_jobs_and_stops_writes);
	tcase_add_test(w, wal_stays_bounded_when_the_checkpointer_lags);
	tcase_add_test(m, migrations_recorded_once);
	tcase_add_test(m, new_and_failing_migrations);
	tcase_add_test(m, too_many_migrations_stop_start_up);
	tcase_add_test(m, migration_that_cannot_begin_stops_start_up);
	tcase_add_test(m, database_files_are_private_whatever_the_umask);
	tcase_add_test(r, duplicate_jws_returns_the_first_id);
	tcase_add_test(r, account_is_stored_when_given);
	tcase_add_test(r, run_ids_are_random_and_well_formed);
	tcase_add_test(r, run_id_valid_refuses_other_shapes);
	suite_add_tcase(s, w);
	suite_add_tcase(s, m);
	suite_add_tcase(s, r);
	return s;
}

CHECK_MAIN(suite_db)
