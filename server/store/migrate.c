/* migrate.c: the migration runner: lists NNNN_name.sql files, applies the
 * new ones in order, each in its own transaction, then the after-migrate hook. */
#include "store/migrate.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/log.h"

#define MIGRATIONS_MAX 256

int (*db_after_migrate)(struct dbconn *w, char *err, size_t errlen);

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
 * few seconds it says so on stderr, with the time spent, so an operator
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
		fprintf(stderr, "migration %s: still backfilling, %.0f s so far\n",
			p->name, secs_between(&p->start, &now));
		p->last = now;
	}
	return 0;
}

/* Applies one migration file in its own transaction, recording it. */
static int apply_one(struct dbconn *w, const char *dir, const char *name,
		     char *err, size_t errlen)
{
	static const char rec[] =
		"INSERT INTO schema_migrations(version, name, applied_at) "
		"VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))";
	struct buf path = BUF_INIT, sql = BUF_INIT;
	sqlite3_stmt *st;
	struct progress prog;
	char *msg = NULL;
	int rc = DB_ERR, ok;

	buf_printf(&path, "%s/%s", dir, name);
	if (slurp(path.buf, &sql) < 0) {
		snprintf(err, errlen, "cannot read migration %s", path.buf);
		goto out;
	}
	if (db_exec(w, "BEGIN IMMEDIATE") != SQLITE_OK) {
		snprintf(err, errlen, "cannot start the transaction for migration %s: %s",
			 name, sqlite3_errmsg(w->h));
		if (db_status_of(sqlite3_errcode(w->h)) < 0)
			rc = db_status_of(sqlite3_errcode(w->h));
		goto out;
	}
	prog.name = name;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	prog.last = prog.start;
	sqlite3_progress_handler(w->h, 1000000, migration_progress, &prog);
	ok = sqlite3_exec(w->h, sql.buf, NULL, NULL, &msg) == SQLITE_OK;
	sqlite3_progress_handler(w->h, 0, NULL, NULL);
	if (!ok) {
		snprintf(err, errlen, "migration %s failed: %s", name, msg ? msg : "?");
		db_exec(w, "ROLLBACK");
		goto out;
	}
	if (!(st = db_stmt(w, rec))) {
		snprintf(err, errlen, "cannot record migration %s: %s", name, sqlite3_errmsg(w->h));
		db_exec(w, "ROLLBACK");
		goto out;
	}
	if (sqlite3_bind_int(st, 1, atoi(name)) != SQLITE_OK || db_bind_text(st, 2, name) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE || db_exec(w, "COMMIT") != SQLITE_OK) {
		snprintf(err, errlen, "cannot record migration %s", name);
		db_exec(w, "ROLLBACK");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &prog.last);
	log_info("applied migration %s in %.1f s", name, secs_between(&prog.start, &prog.last));
	rc = DB_OK;
out:
	sqlite3_free(msg);
	buf_release(&sql);
	buf_release(&path);
	return rc;
}

/* 1 when migration version v is recorded, 0 when not, -1 when the
 * question could not be asked. */
static int applied(struct dbconn *w, int v)
{
	static const char q[] = "SELECT 1 FROM schema_migrations WHERE version = ?";
	sqlite3_stmt *st = db_stmt(w, q);
	int rc;

	if (!st || sqlite3_bind_int(st, 1, v) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Reads the names of the migration files in dir into names (at most
 * MIGRATIONS_MAX); returns how many, or -1 with the reason in err. */
static int list_migrations(const char *dir, char **names, char *err, size_t errlen)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d) {
		snprintf(err, errlen, "cannot open migrations folder %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!is_migration(de->d_name))
			continue;
		if (n == MIGRATIONS_MAX) {
			snprintf(err, errlen, "more than %d migration files in %s; the server reads at most %d",
				 MIGRATIONS_MAX, dir, MIGRATIONS_MAX);
			goto fail;
		}
		if (!(names[n] = strdup(de->d_name))) {
			snprintf(err, errlen, "out of memory reading the migrations folder %s", dir);
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

/* Applies, in name order, every migration in dir not yet recorded; stops at
 * the first that fails or cannot be checked. */
static int apply_all(struct dbconn *w, const char *dir, char *err, size_t errlen)
{
	char *names[MIGRATIONS_MAX];
	int n, i, done, rc = DB_OK;

	if (db_exec(w, "CREATE TABLE IF NOT EXISTS schema_migrations("
		    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
		    "applied_at TEXT NOT NULL)") != SQLITE_OK) {
		snprintf(err, errlen, "cannot create schema_migrations: %s", sqlite3_errmsg(w->h));
		return db_status_of(sqlite3_errcode(w->h));
	}
	if ((n = list_migrations(dir, names, err, errlen)) < 0)
		return DB_ERR;
	qsort(names, (size_t)n, sizeof *names, name_cmp);
	for (i = 0; i < n; i++) {
		if (rc == DB_OK && (done = applied(w, atoi(names[i]))) < 0) {
			snprintf(err, errlen, "cannot tell whether migration %s was applied: %s",
				 names[i], sqlite3_errmsg(w->h));
			rc = DB_ERR;
		} else if (rc == DB_OK && !done) {
			rc = apply_one(w, dir, names[i], err, errlen);
		}
		free(names[i]);
	}
	return rc;
}

int db_migrate(struct dbconn *w, const char *dir, char *err, size_t errlen)
{
	int rc = apply_all(w, dir, err, errlen);

	if (rc == DB_OK && db_after_migrate)
		rc = db_after_migrate(w, err, errlen);
	return rc;
}
