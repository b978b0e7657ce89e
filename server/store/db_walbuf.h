/* db_walbuf.h: the VFS the writer's connection opens its database with,
 * which gathers its WAL writes into large pwrite()s (db_walbuf.c). */
#ifndef LLMS_DB_WALBUF_H
#define LLMS_DB_WALBUF_H

#include <sqlite3.h>

#define WALBUF_VFS "llms-walbuf"

/* Registers the VFS on first use; its name, or NULL when it could not be
 * made (then the default VFS serves, unbuffered).  Its WAL writes reach
 * other connections only through a sync, so a connection opened with it
 * must keep synchronous=FULL. */
const char *db_walbuf_vfs_name(void);

/* With on, the syncs of h's commits are left for the caller (see
 * walbuf_take_pending); off (the default) syncs in place.  0, or -1 when
 * h's WAL was not opened through this VFS or has no descriptor to sync
 * from elsewhere (then every sync stays in place).  Only the thread that
 * uses h may call these. */
int db_walbuf_defer(sqlite3 *h, int on);
/* After a COMMIT on h: the descriptor to fdatasync() before the commit
 * may be acknowledged, or -1 when the commit's sync was done in place.
 * Clears the mark.  The descriptor stays open until h is closed. */
int db_walbuf_take_pending(sqlite3 *h);

#endif
