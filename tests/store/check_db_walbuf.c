/* check_db_walbuf.c: the writer's VFS (server/store/db_walbuf.c), which holds
 * WAL writes back until a sync, read, resize or a write elsewhere: other
 * connections see every commit whole, the writer reads back frames it
 * spilled, a write that fails fails its transaction, the database stays
 * intact, and a commit's sync is left to the caller only where safe. */
#include <check.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_tmpdb.h"
#include "check_util.h"
#include "store/db_walbuf.h"

static struct tmpdb T;

static void setup(void)
{
	tmpdb_begin(&T, "check_db_walbuf");
}

static void teardown(void)
{
	tmpdb_end(&T);
}

/* Opens T's database through vfs (NULL: the default), in WAL mode with
 * synchronous=FULL and a page cache of cache_pages pages. */
static sqlite3 *open_conn(const char *vfs, int cache_pages)
{
	sqlite3 *h = NULL;
	char sql[128];

	ck_assert_int_eq(sqlite3_open_v2(T.path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs),
			 SQLITE_OK);
	snprintf(sql, sizeof sql,
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=%d;"
		 "PRAGMA wal_autocheckpoint=0;", cache_pages);
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	return h;
}

static long long one(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	long long v;

	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Inserts rows rows of about bytes bytes of text ending in their number, in one
 * transaction; an SQLite rc of the COMMIT (the inserts must succeed). */
static int insert_blobs(sqlite3 *h, int first, int rows, int bytes)
{
	char sql[160];
	int rc;

	ck_assert_int_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof sql,
		 "WITH RECURSIVE n(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
		 "INSERT INTO blobs SELECT i, hex(zeroblob(%d)) || i FROM n", first, first + rows - 1, bytes / 2);
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Creates the table the tests fill. */
static void make_blobs(sqlite3 *h)
{
	ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE blobs(i INTEGER PRIMARY KEY, b TEXT)",
				      NULL, NULL, NULL), SQLITE_OK);
}

/* The problems PRAGMA integrity_check finds, read by h (0: intact). */
static long long problems(sqlite3 *h)
{
	return one(h, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'");
}

/* The sum of every row's trailing number and of all lengths, read by h. */
static long long blob_check(sqlite3 *h)
{
	return one(h, "SELECT coalesce(sum(CAST(substr(b, -6) AS INT)), 0) * 1000003 "
		      "+ coalesce(sum(length(b)), 0) FROM blobs");
}

START_TEST(registers_a_named_vfs)
{
	const char *name = db_walbuf_vfs_name();

	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, WALBUF_VFS);
	ck_assert_ptr_nonnull(sqlite3_vfs_find(name));
	/* It is not made the default: readers keep SQLite's own. */
	ck_assert_str_ne(sqlite3_vfs_find(NULL)->zName, name);
}
END_TEST

/* Commits small and far larger than the buffer (1 MiB) are seen whole by
 * a connection on the default VFS as soon as each COMMIT returns. */
START_TEST(other_connections_see_each_commit)
{
	sqlite3 *w = open_conn(db_walbuf_vfs_name(), 2000);
	sqlite3 *r = open_conn(NULL, 2000);
	static const int rows[] = { 1, 3, 700, 1, 2500, 40 };
	int i, next = 100000;
	long long expect_rows = 0;

	make_blobs(w);
	for (i = 0; i < (int)(sizeof rows / sizeof rows[0]); i++) {
		ck_assert_int_eq(insert_blobs(w, next, rows[i], 3000), SQLITE_OK);
		next += rows[i];
		expect_rows += rows[i];
		ck_assert_int_eq(one(r, "SELECT count(*) FROM blobs"), expect_rows);
		ck_assert_int_eq(blob_check(r), blob_check(w));
	}
	ck_assert_int_ge(one(r, "PRAGMA page_count"), 2500);
	sqlite3_close(r);
	sqlite3_close(w);
	r = open_conn(NULL, 2000);
	ck_assert_int_eq(one(r, "SELECT count(*) FROM blobs"), expect_rows);
	ck_assert_int_eq(problems(r), 0);
	sqlite3_close(r);
}
END_TEST

/* With a page cache of 20 pages a transaction spills frames to the WAL
 * and reads them back before it commits; and a checkpoint run by the
 * writer's own connection reads the WAL through the buffer too. */
START_TEST(writer_reads_back_what_it_spilled)
{
	sqlite3 *w = open_conn(db_walbuf_vfs_name(), 20);
	sqlite3 *r;
	long long sum;
	int rc;

	ck_assert_int_eq(sqlite3_exec(w, "CREATE TABLE blobs(i INTEGER PRIMARY KEY, b TEXT);"
				      "CREATE INDEX blobs_b ON blobs(b)", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(insert_blobs(w, 100000, 1500, 900), SQLITE_OK);
	/* Rewrite every row in one transaction: pages spilled early are
	 * changed again and their frames overwritten or re-read. */
	ck_assert_int_eq(sqlite3_exec(w, "BEGIN; UPDATE blobs SET b = hex(zeroblob(350)) || (i + 1); "
				      "UPDATE blobs SET b = hex(zeroblob(400)) || (i + 7); COMMIT",
				      NULL, NULL, NULL), SQLITE_OK);
	sum = blob_check(w);
	rc = sqlite3_wal_checkpoint_v2(w, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	ck_assert_int_eq(rc, SQLITE_OK);
	ck_assert_int_eq(insert_blobs(w, 200000, 10, 900), SQLITE_OK);
	r = open_conn(NULL, 2000);
	ck_assert_int_eq(one(r, "SELECT count(*) FROM blobs"), 1510);
	ck_assert_int_eq(problems(r), 0);
	ck_assert_int_eq(blob_check(w), blob_check(r));
	ck_assert_int_ne(blob_check(r), sum);
	sqlite3_close(r);
	sqlite3_close(w);
}
END_TEST

/* A WAL write that fails (here the file-size limit) fails the COMMIT it
 * belongs to: nothing of it is seen, and later commits work. */
START_TEST(a_failed_write_fails_the_commit)
{
	sqlite3 *w = open_conn(db_walbuf_vfs_name(), 2000);
	sqlite3 *r = open_conn(NULL, 2000);
	struct rlimit lim, was;
	struct stat st;
	char wal[320];
	int rc;

	signal(SIGXFSZ, SIG_IGN);
	make_blobs(w);
	ck_assert_int_eq(insert_blobs(w, 100000, 10, 3000), SQLITE_OK);
	snprintf(wal, sizeof wal, "%s-wal", T.path);
	ck_assert_int_eq(stat(wal, &st), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = (rlim_t)st.st_size + 300000;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rc = insert_blobs(w, 200000, 400, 3000);    /* about 1.6 MB of log */
	ck_assert_int_ne(rc, SQLITE_OK);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
	ck_assert_int_eq(one(r, "SELECT count(*) FROM blobs"), 10);
	ck_assert_int_eq(one(w, "SELECT count(*) FROM blobs"), 10);
	ck_assert_int_eq(insert_blobs(w, 300000, 5, 3000), SQLITE_OK);
	ck_assert_int_eq(one(r, "SELECT count(*) FROM blobs"), 15);
	ck_assert_int_eq(problems(r), 0);
	sqlite3_close(r);
	sqlite3_close(w);
}
END_TEST

/* With deferral on, a commit's sync is left to the caller (a descriptor
 * to sync), but never a checkpoint's, which must reach the disk before
 * frames are copied into the database. */
START_TEST(commit_syncs_are_left_only_where_safe)
{
	sqlite3 *w = open_conn(db_walbuf_vfs_name(), 2000);
	sqlite3 *plain = open_conn(NULL, 2000);
	int fd;

	ck_assert_int_eq(db_walbuf_defer(plain, 1), -1);     /* not ours */
	ck_assert_int_eq(one(w, "SELECT count(*) FROM sqlite_master"), 0);
	ck_assert_int_eq(db_walbuf_defer(w, 1), 0);
	make_blobs(w);
	/* The new log's header was synced in place, before its first frame. */
	ck_assert_int_ge(db_walbuf_take_pending(w), 0);
	ck_assert_int_eq(insert_blobs(w, 100000, 3, 3000), SQLITE_OK);
	fd = db_walbuf_take_pending(w);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdatasync(fd), 0);
	ck_assert_int_eq(db_walbuf_take_pending(w), -1);        /* taken once */
	/* Readers see a deferred commit (it was written out, only not synced). */
	ck_assert_int_eq(one(plain, "SELECT count(*) FROM blobs"), 3);

	ck_assert_int_eq(insert_blobs(w, 100100, 3, 3000), SQLITE_OK);
	ck_assert_int_eq(sqlite3_wal_checkpoint_v2(w, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(db_walbuf_take_pending(w), -1);        /* the checkpoint synced */

	ck_assert_int_eq(sqlite3_wal_checkpoint_v2(w, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL),
			 SQLITE_OK);
	/* The log starts over: SQLite syncs its new header in place, then the
	 * commit's own sync is left again. */
	ck_assert_int_eq(insert_blobs(w, 100200, 3, 3000), SQLITE_OK);
	ck_assert_int_ge(db_walbuf_take_pending(w), 0);
	ck_assert_int_eq(insert_blobs(w, 100300, 3, 3000), SQLITE_OK);
	ck_assert_int_ge(db_walbuf_take_pending(w), 0);

	ck_assert_int_eq(db_walbuf_defer(w, 0), 0);
	ck_assert_int_eq(insert_blobs(w, 100400, 3, 3000), SQLITE_OK);
	ck_assert_int_eq(db_walbuf_take_pending(w), -1);
	ck_assert_int_eq(one(plain, "SELECT count(*) FROM blobs"), 15);
	sqlite3_close(plain);
	sqlite3_close(w);
}
END_TEST

static Suite *suite_walbuf(void)
{
	Suite *s = suite_create("walbuf");
	TCase *tc = tcase_create("wal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registers_a_named_vfs);
	tcase_add_test(tc, other_connections_see_each_commit);
	tcase_add_test(tc, writer_reads_back_what_it_spilled);
	tcase_add_test(tc, a_failed_write_fails_the_commit);
	tcase_add_test(tc, commit_syncs_are_left_only_where_safe);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_walbuf)
