/* check_db_status.c: what a database failure means (server/store/db_status.c):
 * SQLite's codes as db_status, a sentence for each, and a failed write
 * told apart by the system error or a look at the files. */
#include <errno.h>
#include <sqlite3.h>

#include "check_tmpdb.h"
#include "store/db.h"
#include "store/db_int.h"
#include "util/log.h"

START_TEST(sqlite_codes_map_to_statuses)
{
	static const struct { int rc, want; } cases[] = {
		{ SQLITE_OK, DB_OK }, { SQLITE_DONE, DB_OK }, { SQLITE_ROW, DB_OK },
		{ SQLITE_BUSY, DB_BUSY }, { SQLITE_BUSY_SNAPSHOT, DB_BUSY }, { SQLITE_BUSY_TIMEOUT, DB_BUSY },
		{ SQLITE_LOCKED, DB_BUSY }, { SQLITE_LOCKED_SHAREDCACHE, DB_BUSY },
		{ SQLITE_FULL, DB_FULL }, { SQLITE_IOERR_WRITE, DB_FULL }, { SQLITE_IOERR_FSYNC, DB_FULL },
		{ SQLITE_READONLY, DB_READONLY }, { SQLITE_READONLY_DBMOVED, DB_READONLY },
		{ SQLITE_CANTOPEN, DB_READONLY }, { SQLITE_CANTOPEN_ISDIR, DB_READONLY },
		{ SQLITE_PERM, DB_READONLY },
		{ SQLITE_CONSTRAINT, DB_CONFLICT }, { SQLITE_CONSTRAINT_UNIQUE, DB_CONFLICT },
		{ SQLITE_CONSTRAINT_PRIMARYKEY, DB_CONFLICT },
		{ SQLITE_IOERR, DB_ERR }, { SQLITE_IOERR_READ, DB_ERR }, { SQLITE_IOERR_SHORT_READ, DB_ERR },
		{ SQLITE_CORRUPT, DB_ERR }, { SQLITE_NOMEM, DB_ERR }, { SQLITE_MISUSE, DB_ERR },
		{ SQLITE_ERROR, DB_ERR }, { SQLITE_SCHEMA, DB_ERR },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(db_status_of(cases[i].rc) == cases[i].want, "%s (%d): %d, want %d",
			      sqlite3_errstr(cases[i].rc), cases[i].rc, db_status_of(cases[i].rc),
			      cases[i].want);
}
END_TEST

/* One sentence per status, each its own; a refused write says nothing was
 * stored and who must act; anything else gets the general sentence. */
START_TEST(each_status_has_its_own_sentence)
{
	static const int statuses[] = { DB_BUSY, DB_FULL, DB_READONLY, DB_CONFLICT, DB_NOTFOUND, DB_ERR };
	size_t i, j, n = sizeof statuses / sizeof statuses[0];

	for (i = 0; i < n; i++) {
		const char *m = db_status_message(statuses[i]);

		ck_assert_msg(m && strlen(m) > 5 && m[strlen(m) - 1] == '.', "%d: %s", statuses[i], m);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(m, db_status_message(statuses[j]));
	}
	ck_assert_ptr_nonnull(strstr(db_status_message(DB_BUSY), "another process"));
	ck_assert_ptr_nonnull(strstr(db_status_message(DB_FULL), "disk is full"));
	ck_assert_ptr_nonnull(strstr(db_status_message(DB_READONLY), "read-only"));
	for (i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(strstr(db_status_message(statuses[i]), "nothing was stored"));
	ck_assert_str_eq(db_status_message(42), db_status_message(DB_ERR));
	ck_assert_str_eq(db_status_message(DB_OK), db_status_message(DB_ERR));
}
END_TEST

/* A failed sync: the system error says which. */
START_TEST(sync_errors)
{
	ck_assert_int_eq(db_sync_status(ENOSPC), DB_FULL);
	ck_assert_int_eq(db_sync_status(EDQUOT), DB_FULL);
	ck_assert_int_eq(db_sync_status(EROFS), DB_READONLY);
	ck_assert_int_eq(db_sync_status(EPERM), DB_READONLY);
	ck_assert_int_eq(db_sync_status(EACCES), DB_READONLY);
	ck_assert_int_eq(db_sync_status(EIO), DB_ERR);
	ck_assert_int_eq(db_sync_status(0), DB_ERR);
}
END_TEST

static struct tmpdb T;
static struct db *db;

static void db_setup(void)
{
	log_set_quiet(1);
	tmpdb_begin(&T, "check_db_status");
	db = tmpdb_open(&T, NULL);
}

static void db_teardown(void)
{
	char cmd[700];

	snprintf(cmd, sizeof cmd, "chattr -i '%s' '%s-wal' 2>/dev/null", T.path, T.path);
	if (system(cmd) != 0) {
		/* not set, or no chattr here */
	}
	db_close(db);
	tmpdb_end(&T);
}

/* A failed write on healthy files keeps what SQLite said; a "failure" that
 * is none is an error all the same (the job did not run). */
START_TEST(write_failures_on_healthy_files)
{
	ck_assert_int_eq(db_write_status(db, SQLITE_BUSY), DB_BUSY);
	ck_assert_int_eq(db_write_status(db, SQLITE_CONSTRAINT_UNIQUE), DB_CONFLICT);
	ck_assert_int_eq(db_write_status(db, SQLITE_FULL), DB_FULL);
	ck_assert_int_eq(db_write_status(db, SQLITE_READONLY), DB_READONLY);
	ck_assert_int_eq(db_write_status(db, SQLITE_IOERR), DB_ERR);
	ck_assert_int_eq(db_write_status(db, SQLITE_CORRUPT), DB_ERR);
	ck_assert_int_eq(db_write_status(db, SQLITE_OK), DB_ERR);
	ck_assert_int_eq(db_write_status(db, SQLITE_DONE), DB_ERR);
}
END_TEST

/* A plain I/O error on a file that cannot be opened for writing (root
 * ignores modes, so: the immutable attribute) is a read-only database,
 * which the operator can fix, not a generic failure. */
START_TEST(an_unwritable_file_is_read_only)
{
	char cmd[700];

	snprintf(cmd, sizeof cmd, "chattr +i '%s-wal' 2>/dev/null", T.path);
	if (system(cmd) != 0)
		return;   /* no chattr, or a file system without the attribute */
	ck_assert_int_eq(db_write_status(db, SQLITE_IOERR), DB_READONLY);
	ck_assert_int_eq(db_write_status(db, SQLITE_FULL), DB_READONLY);
	ck_assert_int_eq(db_write_status(db, SQLITE_CONSTRAINT), DB_CONFLICT);   /* not a file's fault */
	snprintf(cmd, sizeof cmd, "chattr -i '%s-wal'", T.path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(db_write_status(db, SQLITE_IOERR), DB_ERR);
}
END_TEST

static Suite *suite_db_status(void)
{
	Suite *s = suite_create("db_status");
	TCase *tc = tcase_create("core");
	TCase *files = tcase_create("files");

	tcase_add_test(tc, sqlite_codes_map_to_statuses);
	tcase_add_test(tc, each_status_has_its_own_sentence);
	tcase_add_test(tc, sync_errors);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(files, db_setup, db_teardown);
	tcase_add_test(files, write_failures_on_healthy_files);
	tcase_add_test(files, an_unwritable_file_is_read_only);
	suite_add_tcase(s, files);
	return s;
}

CHECK_MAIN(suite_db_status)
