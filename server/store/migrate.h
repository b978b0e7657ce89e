/* migrate.h: the schema migration runner db_open uses. */
#ifndef LLMS_MIGRATE_H
#define LLMS_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>
#include "util/err.h"

/* Applies, in name order, every NNNN_name.sql in dir not yet recorded in
 * schema_migrations (created if missing), each in its own transaction and
 * recorded there, with a progress line in the log (util/log.h) every few
 * seconds of a long one.  Stops at the first failure.  Returns SQLITE_OK, or with a
 * message in err the SQLite code that says why (SQLITE_ERROR when the
 * cause is not SQLite's: an unreadable file, a failing migration). */
int migrate_apply(sqlite3 *h, const char *dir, struct err *err);

#endif
