/* check_tmpdb.h: the one temporary database of the unit tests: a fresh
 * folder under $TMPDIR (or /tmp) per test, a database path in it, opened
 * with the repository's migrations, and all of it removed afterwards.
 *
 *   static struct tmpdb t;
 *   setup:    tmpdb_begin(&t, "check_x"); db = tmpdb_open(&t, NULL);
 *   teardown: db_close(db); tmpdb_end(&t);
 */
#ifndef LLMS_CHECK_TMPDB_H
#define LLMS_CHECK_TMPDB_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_util.h"
#include "store/db.h"
#include "store/outlier.h"

struct tmpdb {
	char dir[256];    /* the folder, removed by tmpdb_end */
	char path[300];   /* <dir>/test.db */
};

/* Makes the folder (named after the test file, name) and sets the path. */
static inline void tmpdb_begin(struct tmpdb *t, const char *name)
{
	const char *base = getenv("TMPDIR");

	snprintf(t->dir, sizeof t->dir, "%s/%s.XXXXXX", base ? base : "/tmp", name);
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	snprintf(t->path, sizeof t->path, "%s/test.db", t->dir);
}

/* Opens t's database with the migrations in folder migrations (NULL: the
 * repository's) and, as the server does, the outlier backfill after them;
 * fails the test when it does not open. */
static inline struct db *tmpdb_open(struct tmpdb *t, const char *migrations)
{
	struct err err = ERR_INIT;
	char mig[600];
	struct db *db = NULL;
	int rc;

	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	db_after_migrate = outlier_backfill;
	rc = db_open(t->path, migrations ? migrations : mig, &db, &err);
	ck_assert_msg(rc == DB_OK, "db_open: %d %s", rc, err.message);
	return db;
}

/* Removes the folder and everything in it. */
static inline void tmpdb_end(struct tmpdb *t)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", t->dir);
}

#endif
