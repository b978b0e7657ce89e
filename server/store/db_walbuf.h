/* db_walbuf.h: the VFS the writer's connection opens its database with,
 * which gathers its WAL writes into large pwrite()s (db_walbuf.c). */
#ifndef LLMS_DB_WALBUF_H
#define LLMS_DB_WALBUF_H

#define WALBUF_VFS "llms-walbuf"

/* Registers the VFS on first use; its name, or NULL when it could not be
 * made (then the default VFS serves, unbuffered).  Its WAL writes reach
 * other connections only through a sync, so a connection opened with it
 * must keep synchronous=FULL. */
const char *walbuf_vfs_name(void);

#endif
