/* migrate.c: the migration runner: lists NNNN_name.sql files, applies the
 * new ones in order, each in its own transaction.  Below db.c: plain SQLite. */
#include "store/migrate.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "util/buf.h"
#include "util/log.h"

#define MIGRATIONS_MAX 256


/* Runs fixed SQL without results on h, logging a failure. */
static int run(sqlite3 *h, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		log_error("sqlite: %s: %s (%d)", sql, msg ? msg : sqlite3_errstr(rc), rc);
	sqlite3_free(msg);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when name looks like NNNN_something.sql. */
static int is_migration(const char *name)
{
	size_t n = strlen(name);

	return n > 9 && strspn(name, "0123456789") == 4 && name[4] == '_' &&
	       !strcmp(name + n - 4, ".sql");
}

/* Reads a whole file into b. */
static int slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	fclose(f);
	return buf_error(b);
}

/* A migration that backfills a large database runs for a while: every
 * few seconds it says so in the log, with the time spent, so an operator
 * sees progress rather than a silent start-up. */
struct progress {
	const char *name;
	struct timespec start, last;
};

static double secs_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static int migration_progress(void *arg)
{
	struct progress *p = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (secs_between(&p->last, &now) >= 2.0) {
		log_info("migration %s: still backfilling, %.0f s so far",
			 p->name, secs_between(&p->start, &now));
		p->last = now;
	}
	return 0;
}

/* Applies one migration file in its own transaction, recording it. */
static int apply_one(sqlite3 *h, const char *dir, const char *name,
		     struct err *err)
{
	static const char rec[] =
		"INSERT INTO schema_migrations(version, name, applied_at) "
		"VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))";
	struct buf path = BUF_INIT, sql = BUF_INIT;
	sqlite3_stmt *st;
	struct progress prog;
	char *msg = NULL;
	int rc = SQLITE_ERROR, ok;

	buf_printf(&path, "%s/%s", dir, name);
	if (slurp(path.buf, &sql) < 0) {
		err_internal(err, "cannot read migration %s", path.buf);
		goto out;
	}
	if (run(h, "BEGIN IMMEDIATE") != SQLITE_OK) {
		err_internal(err, "cannot start the transaction for migration %s: %s",
			 name, sqlite3_errmsg(h));
		rc = sqlite3_errcode(h);
		goto out;
	}
	prog.name = name;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	prog.last = prog.start;
	sqlite3_progress_handler(h, 1000000, migration_progress, &prog);
	ok = sqlite3_exec(h, sql.buf, NULL, NULL, &msg) == SQLITE_OK;
	sqlite3_progress_handler(h, 0, NULL, NULL);
	if (!ok) {
		err_internal(err, "migration %s failed: %s", name, msg ? msg : "?");
		run(h, "ROLLBACK");
		goto out;
	}
	if (sqlite3_prepare_v2(h, rec, -1, &st, NULL) != SQLITE_OK) {
		err_internal(err, "cannot record migration %s: %s", name, sqlite3_errmsg(h));
		run(h, "ROLLBACK");
		goto out;
	}
	ok = sqlite3_bind_int(st, 1, atoi(name)) == SQLITE_OK &&
	     sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC) == SQLITE_OK &&
	     sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok || run(h, "COMMIT") != SQLITE_OK) {
		err_internal(err, "cannot record migration %s", name);
		run(h, "ROLLBACK");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &prog.last);
	log_info("applied migration %s in %.1f s", name, secs_between(&prog.start, &prog.last));
	rc = SQLITE_OK;
out:
	sqlite3_free(msg);
	buf_release(&sql);
	buf_release(&path);
	return rc;
}

/* 1 when migration version v is recorded, 0 when not, -1 when the
 * question could not be asked. */
static int applied(sqlite3 *h, int v)
{
	static const char q[] = "SELECT 1 FROM schema_migrations WHERE version = ?";
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR;

	if (sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_int(st, 1, v) == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Reads the names of the migration files in dir into names (at most
 * MIGRATIONS_MAX); returns how many, or -1 with the reason in err. */
static int list_migrations(const char *dir, char **names, struct err *err)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d) {
		err_internal(err, "cannot open migrations folder %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!is_migration(de->d_name))
			continue;
		if (n == MIGRATIONS_MAX) {
			err_internal(err, "more than %d migration files in %s; the server reads at most %d",
				 MIGRATIONS_MAX, dir, MIGRATIONS_MAX);
			goto fail;
		}
		if (!(names[n] = strdup(de->d_name))) {
			err_internal(err, "out of memory reading the migrations folder %s", dir);
			goto fail;
		}
		n++;
	}
	closedir(d);
	return n;
fail:
	closedir(d);
	while (n > 0)
		free(names[--n]);
	return -1;
}

/* (declared in migrate.h) */
int migrate_apply(sqlite3 *h, const char *dir, struct err *err)
{
	char *names[MIGRATIONS_MAX];
	int n, i, done, rc = SQLITE_OK;

	if (run(h, "CREATE TABLE IF NOT EXISTS schema_migrations("
		    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
		    "applied_at TEXT NOT NULL)") != SQLITE_OK) {
		err_internal(err, "cannot create schema_migrations: %s", sqlite3_errmsg(h));
		return sqlite3_errcode(h);
	}
	if ((n = list_migrations(dir, names, err)) < 0)
		return SQLITE_ERROR;
	qsort(names, (size_t)n, sizeof *names, name_cmp);
	for (i = 0; i < n; i++) {
		if (rc == SQLITE_OK && (done = applied(h, atoi(names[i]))) < 0) {
			err_internal(err, "cannot tell whether migration %s was applied: %s",
				 names[i], sqlite3_errmsg(h));
			rc = SQLITE_ERROR;
		} else if (rc == SQLITE_OK && !done) {
			rc = apply_one(h, dir, names[i], err);
		}
		free(names[i]);
	}
	return rc;
}
