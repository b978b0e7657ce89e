/* check_migrate.c: the migration runner of server/store/migrate.c, on a
 * plain SQLite handle and a migrations folder of the test's own. */
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_util.h"
#include "store/migrate.h"
#include "util/log.h"

static char dir[256];
static sqlite3 *h;

static void setup(void)
{
	snprintf(dir, sizeof dir, "%s/check_migrate.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sqlite3_open(":memory:", &h), SQLITE_OK);
	log_set_quiet(1);
}

static void teardown(void)
{
	char cmd[300];

	sqlite3_close(h);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void put(const char *name, const char *sql)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(sql, f);
	fclose(f);
}

/* The one integer sql answers; -1 when it fails. */
static long long scalar(const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* migrate_apply on the test's folder; err gets its message. */
static int apply(struct err *err)
{
	*err = (struct err)ERR_INIT;
	return migrate_apply(h, dir, err);
}

/* The recorded migrations as "version name, ...". */
static char *recorded(void)
{
	static char out[512];
	sqlite3_stmt *st;
	size_t n = 0;

	out[0] = '\0';
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT version, name FROM schema_migrations ORDER BY version",
					    -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		n += (size_t)snprintf(out + n, sizeof out - n, "%s%d %s", n ? ", " : "",
				      sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return out;
}

/* Files apply in name order whatever order the folder lists them in; other
 * names are left alone; each is recorded with its version, name and an
 * RFC 3339 time. */
START_TEST(applies_in_name_order_and_records_each)
{
	struct err err = ERR_INIT;

	put("0003_third.sql", "INSERT INTO t(x) VALUES (3);");
	put("0001_first.sql", "CREATE TABLE t(x INTEGER, seq INTEGER PRIMARY KEY);");
	put("0002_second.sql", "INSERT INTO t(x) VALUES (2);");
	put("README", "not SQL");
	put("001_short.sql", "not SQL");
	put("0004-dash.sql", "not SQL");
	put("0005_x.sql.bak", "not SQL");
	put("abcd_x.sql", "not SQL");
	put("0006_.sql", "not SQL");
	put("0007_upper.SQL", "not SQL");
	ck_assert_int_eq(apply(&err), SQLITE_OK);
	ck_assert_str_eq(err.message, "");
	ck_assert_str_eq(recorded(), "1 0001_first.sql, 2 0002_second.sql, 3 0003_third.sql");
	ck_assert_int_eq(scalar("SELECT group_concat(x, '') FROM (SELECT x FROM t ORDER BY seq)"), 23);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations WHERE applied_at GLOB "
				"'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'"), 3);
}
END_TEST

/* A second run applies only what is new: a recorded file is never run
 * again (these would fail if they were). */
START_TEST(applied_files_are_not_run_again)
{
	struct err err = ERR_INIT;

	put("0001_t.sql", "CREATE TABLE t(x INTEGER);");
	ck_assert_int_eq(apply(&err), SQLITE_OK);
	ck_assert_int_eq(apply(&err), SQLITE_OK);
	put("0002_u.sql", "CREATE TABLE u(x INTEGER);");
	ck_assert_int_eq(apply(&err), SQLITE_OK);
	ck_assert_str_eq(recorded(), "1 0001_t.sql, 2 0002_u.sql");
	ck_assert_int_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('t', 'u')"), 2);
}
END_TEST

/* A failing migration is undone as a whole and not recorded, the ones
 * before it stay, the ones after it are not run, and the message names
 * the file and SQLite's reason.  Fixed, the next run carries on. */
START_TEST(a_failing_migration_is_undone_and_stops_the_rest)
{
	struct err err = ERR_INIT;

	put("0001_t.sql", "CREATE TABLE t(x INTEGER);");
	put("0002_broken.sql", "CREATE TABLE half(x INTEGER); INSERT INTO t VALUES (1); NOT SQL;");
	put("0003_after.sql", "CREATE TABLE after(x INTEGER);");
	ck_assert_int_eq(apply(&err), SQLITE_ERROR);
	ck_assert_msg(strstr(err.message, "migration 0002_broken.sql failed") && strstr(err.message, "syntax error"),
		      "message: %s", err.message);
	ck_assert_str_eq(recorded(), "1 0001_t.sql");
	ck_assert_int_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('half', 'after')"), 0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM t"), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(h), 1);          /* no transaction left open */

	put("0002_broken.sql", "CREATE TABLE half(x INTEGER); INSERT INTO t VALUES (1);");
	ck_assert_int_eq(apply(&err), SQLITE_OK);
	ck_assert_str_eq(recorded(), "1 0001_t.sql, 2 0002_broken.sql, 3 0003_after.sql");
	ck_assert_int_eq(scalar("SELECT count(*) FROM t"), 1);
}
END_TEST

/* Without a folder nothing runs and the message says which folder. */
START_TEST(a_missing_folder_is_an_error_that_names_it)
{
	struct err err = ERR_INIT;
	char missing[300];

	snprintf(missing, sizeof missing, "%s/none", dir);
	ck_assert_int_eq(migrate_apply(h, missing, &err), SQLITE_ERROR);
	ck_assert_msg(strstr(err.message, "cannot open migrations folder") && strstr(err.message, missing),
		      "message: %s", err.message);
}
END_TEST

/* An empty folder is a database with only the bookkeeping table. */
START_TEST(an_empty_folder_makes_only_the_table)
{
	struct err err = ERR_INIT;

	ck_assert_int_eq(apply(&err), SQLITE_OK);
	ck_assert_int_eq(scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM schema_migrations"), 0);
}
END_TEST

/* A read-only handle cannot take the bookkeeping table: SQLite's own code
 * comes back, with a message. */
START_TEST(a_read_only_database_says_so)
{
	struct err err = ERR_INIT;
	char path[300];

	snprintf(path, sizeof path, "%s/ro.db", dir);
	sqlite3_close(h);
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE x(y)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	put("0001_t.sql", "CREATE TABLE t(x INTEGER);");
	ck_assert_int_eq(migrate_apply(h, dir, &err), SQLITE_READONLY);
	ck_assert_msg(strstr(err.message, "schema_migrations") != NULL, "message: %s", err.message);
}
END_TEST

static Suite *suite_migrate(void)
{
	Suite *s = suite_create("migrate");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, applies_in_name_order_and_records_each);
	tcase_add_test(tc, applied_files_are_not_run_again);
	tcase_add_test(tc, a_failing_migration_is_undone_and_stops_the_rest);
	tcase_add_test(tc, a_missing_folder_is_an_error_that_names_it);
	tcase_add_test(tc, an_empty_folder_makes_only_the_table);
	tcase_add_test(tc, a_read_only_database_says_so);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_migrate)
