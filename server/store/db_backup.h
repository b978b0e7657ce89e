/* db_backup.h: `llm-speedd backup`: an online, consistent copy of the
 * database, with the transparency log's files beside it (db_backup.c). */
#ifndef LLMS_DB_BACKUP_H
#define LLMS_DB_BACKUP_H

#include <stddef.h>
#include <stdint.h>
#include "util/err.h"

struct db_backup_result {
	int64_t runs;                  /* runs in the copy */
	int64_t log_entries;           /* entries of its log tree */
	uint64_t checkpoint_entries;   /* entries the checkpoint beside it covers */
};

/* Copies the database at src to out while a daemon may be serving and
 * writing it: first the log's last published checkpoint ("<src>.checkpoint",
 * if any) is read, then every page of the database is copied in one read
 * transaction (SQLite's backup API; writers go on meanwhile), so the copy
 * holds every write acknowledged before the backup began and extends
 * that checkpoint, which is checked.  The copy is written to
 * "<out>.tmp" (mode 0600), synced and renamed to out last, after
 * "<out>.logkey" (the log's key), "<out>.checkpoint" (that checkpoint) and
 * "<out>.netkey" (the secret networks are hashed under, store/netkey.h),
 * so a daemon started with --db out alone serves and verifies.  Refuses an
 * out that is src or has a -wal file.  0, or -1 with the reason in err and
 * out left as it was. */
int db_backup(const char *src, const char *out, unsigned busy_ms, struct db_backup_result *res,
	      struct err *err);

#endif
