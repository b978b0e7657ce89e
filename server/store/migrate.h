/* migrate.h: the schema migration runner db_open uses, and its hook. */
#ifndef LLMS_MIGRATE_H
#define LLMS_MIGRATE_H

#include <stddef.h>

#include "store/db.h"

/* Run by db_open on the writer connection after the migrations and before
 * the writer thread starts: the repairs the layers that own the tables
 * need (main.c sets it to the outlier and log backfills).  NULL: none.  Returns a
 * db_status with a message in err. */
extern int (*db_after_migrate)(struct dbconn *w, char *err, size_t errlen);

/* Applies, in name order, every NNNN_name.sql in dir not yet recorded in
 * schema_migrations (each in its own transaction, with a progress line on
 * stderr every few seconds of a long one), then db_after_migrate.  Stops at
 * the first failure.  Returns a db_status with a message in err. */
int db_migrate(struct dbconn *w, const char *dir, char *err, size_t errlen);

#endif
