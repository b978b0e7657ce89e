/* db_walbuf.c: a VFS over SQLite's default one for the writer's
 * connection: it gathers the WAL writes into large pwrite()s, and it can
 * leave a commit's sync to another thread.
 *
 * Gathering.  A commit writes each dirty page as two appends to the WAL
 * (a 24-byte frame header, then the page): with a group commit of 30
 * uploads that is about 1,600 pwrite() calls, and their system-call cost
 * was the largest part of the writer's CPU after the SQL itself
 * (tests/bench/README.md).  Here appends at the end of what is buffered
 * are copied into one buffer, written out in 64 KiB pwrite()s when the WAL
 * is synced, read, sized, truncated, closed or written elsewhere, or when
 * the buffer is full.  Safe because a commit's frames become visible to
 * other connections only when the writer publishes the new wal-index
 * header, and with synchronous=FULL (which db.c sets on the writer and
 * this relies on) SQLite syncs the WAL, writing the buffer out, before it
 * does that.  The writer's own reads of the WAL (a page spilled from its
 * cache, a rewritten frame's checksum) write the buffer out first.  A
 * write that fails is reported by the call that writes the buffer out, so
 * the transaction fails as it would have.
 *
 * Leaving the sync.  With db_walbuf_defer() on, the sync SQLite asks for
 * right after it wrote a commit frame only writes the buffer out and
 * marks the file; the writer then takes the mark (db_walbuf_take_pending())
 * and its sync thread calls fdatasync() on a descriptor of the same file
 * before any job of that commit is answered (db_sync.c).  The commit is
 * then visible to readers a moment before it is on disk, never
 * acknowledged before.  Every other sync stays in place: the first one of
 * a file (which also syncs its folder), and any with no frame written
 * since the last sync: the WAL header's when the log starts over, and a
 * checkpoint's before it copies frames into the database, so no frame
 * reaches the database before the log holding it is on disk.  Only
 * files opened as a WAL are wrapped; the database and every other file go
 * straight to the default VFS. */
#include "store/db_walbuf.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#define WALBUF_BYTES (1 << 20)
/* The default VFS writes at most 128 KiB - 1 bytes a call (it masks the
 * length: os_unix.c, seekAndWriteFd), so the buffer goes out in pieces. */
#define WALBUF_PIECE (64 << 10)
/* A WAL's header (the log starting over) and each frame's header. */
#define WAL_HEADER_BYTES 32
#define FRAME_HEADER_BYTES 24

struct walfile {
	sqlite3_file base;       /* pMethods: walbuf_io */
	unsigned char *buf;      /* bytes buffered for offset off onwards */
	size_t len;
	sqlite3_int64 off;
	sqlite3_file *real;      /* the default VFS's file, right after this */
	int syncfd;              /* the same file, for the sync thread; -1: none */
	int defer;               /* db_walbuf_defer(): commit syncs may be left */
	int synced;              /* a sync has been done in place */
	int frames;              /* frames written since the last sync */
	int commit;              /* the last frame written ends a commit */
	int pending;             /* a commit sync was left to the sync thread */
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs walbuf_vfs;
static sqlite3_io_methods walbuf_io;
static int walbuf_ready;

/* Writes the buffered bytes out; an SQLite rc.  The buffer is empty
 * afterwards either way: a failed write fails the transaction. */
static int wb_flush(struct walfile *f)
{
	size_t done = 0, n;
	int rc = SQLITE_OK;

	while (rc == SQLITE_OK && done < f->len) {
		n = f->len - done < WALBUF_PIECE ? f->len - done : WALBUF_PIECE;
		rc = f->real->pMethods->xWrite(f->real, f->buf + done, (int)n,
					       f->off + (sqlite3_int64)done);
		done += n;
	}
	f->len = 0;
	return rc;
}

/* Appends to the buffer when data follows what it holds; otherwise writes
 * the buffer out and starts it again at off. */
static int wb_write(sqlite3_file *pf, const void *data, int n, sqlite3_int64 off)
{
	struct walfile *f = (struct walfile *)pf;
	const unsigned char *b = data;
	int rc;

	if (off >= WAL_HEADER_BYTES && n == FRAME_HEADER_BYTES) {
		f->frames++;
		f->commit = (b[4] | b[5] | b[6] | b[7]) != 0;   /* database size: a commit */
	}
	if (f->len && off == f->off + (sqlite3_int64)f->len && f->len + (size_t)n <= WALBUF_BYTES) {
		memcpy(f->buf + f->len, data, (size_t)n);
		f->len += (size_t)n;
		return SQLITE_OK;
	}
	rc = wb_flush(f);
	if (rc != SQLITE_OK)
		return rc;
	if ((size_t)n > WALBUF_PIECE)
		return f->real->pMethods->xWrite(f->real, data, n, off);
	memcpy(f->buf, data, (size_t)n);
	f->off = off;
	f->len = (size_t)n;
	return SQLITE_OK;
}

static int wb_read(sqlite3_file *pf, void *data, int n, sqlite3_int64 off)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xRead(f->real, data, n, off);
}

/* Writes the buffer out, then syncs in place, or, for a commit's sync
 * while deferring, marks the file for the sync thread (see the top). */
static int wb_sync(sqlite3_file *pf, int flags)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);
	int leave = f->defer && f->synced && f->frames && f->commit && f->syncfd >= 0;

	if (rc != SQLITE_OK)
		return rc;
	f->frames = 0;
	if (leave) {
		f->pending = 1;
		return SQLITE_OK;
	}
	rc = f->real->pMethods->xSync(f->real, flags);
	if (rc == SQLITE_OK) {
		f->synced = 1;
		f->pending = 0;
	}
	return rc;
}

static int wb_truncate(sqlite3_file *pf, sqlite3_int64 size)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int wb_size(sqlite3_file *pf, sqlite3_int64 *size)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int wb_close(sqlite3_file *pf)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);
	int rc2 = f->real->pMethods->xClose(f->real);

	if (f->syncfd >= 0)
		close(f->syncfd);
	f->syncfd = -1;
	free(f->buf);
	f->buf = NULL;
	return rc != SQLITE_OK ? rc : rc2;
}

static int wb_file_control(sqlite3_file *pf, int op, void *arg)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}

/* ---- the rest is the default VFS's, unchanged ---- */

static int wb_lock(sqlite3_file *pf, int lock)
{
	struct walfile *f = (struct walfile *)pf;

	return f->real->pMethods->xLock(f->real, lock);
}

static int wb_unlock(sqlite3_file *pf, int lock)
{
	struct walfile *f = (struct walfile *)pf;

	return f->real->pMethods->xUnlock(f->real, lock);
}

static int wb_reserved(sqlite3_file *pf, int *out)
{
	struct walfile *f = (struct walfile *)pf;

	return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int wb_sector_size(sqlite3_file *pf)
{
	struct walfile *f = (struct walfile *)pf;

	return f->real->pMethods->xSectorSize(f->real);
}

static int wb_device(sqlite3_file *pf)
{
	struct walfile *f = (struct walfile *)pf;

	return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/* Opens a WAL wrapped, every other file as the default VFS would. */
static int wb_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *pf, int flags, int *out)
{
	struct walfile *f = (struct walfile *)pf;
	int rc;

	(void)vfs;
	if (!(flags & SQLITE_OPEN_WAL))
		return real_vfs->xOpen(real_vfs, name, pf, flags, out);
	memset(f, 0, sizeof *f);
	f->syncfd = -1;
	f->real = (sqlite3_file *)(f + 1);
	f->buf = malloc(WALBUF_BYTES);
	if (!f->buf)
		return SQLITE_NOMEM;
	rc = real_vfs->xOpen(real_vfs, name, f->real, flags, out);
	if (rc != SQLITE_OK) {
		free(f->buf);
		f->buf = NULL;
		return rc;
	}
	/* Without a descriptor of its own every sync stays in place. */
	f->syncfd = open(name, O_RDONLY | O_CLOEXEC);
	pf->pMethods = &walbuf_io;
	return SQLITE_OK;
}

/* The methods a WAL file opened here answers; the shared-memory and
 * memory-map ones are never called on a WAL, so they are left out
 * (iVersion 1). */
static void walbuf_setup(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs)
		return;
	walbuf_io = (sqlite3_io_methods){
		.iVersion = 1,
		.xClose = wb_close,
		.xRead = wb_read,
		.xWrite = wb_write,
		.xTruncate = wb_truncate,
		.xSync = wb_sync,
		.xFileSize = wb_size,
		.xLock = wb_lock,
		.xUnlock = wb_unlock,
		.xCheckReservedLock = wb_reserved,
		.xFileControl = wb_file_control,
		.xSectorSize = wb_sector_size,
		.xDeviceCharacteristics = wb_device,
	};
	walbuf_vfs = *real_vfs;
	walbuf_vfs.zName = WALBUF_VFS;
	walbuf_vfs.pNext = NULL;
	walbuf_vfs.szOsFile = (int)sizeof(struct walfile) + real_vfs->szOsFile;
	if (walbuf_vfs.szOsFile < real_vfs->szOsFile)
		return;
	walbuf_vfs.xOpen = wb_open;
	walbuf_ready = sqlite3_vfs_register(&walbuf_vfs, 0) == SQLITE_OK;
}

const char *db_walbuf_vfs_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, walbuf_setup);
	return walbuf_ready ? WALBUF_VFS : NULL;
}

/* The WAL file of h's main database when it was opened here, else NULL. */
static struct walfile *wal_of(sqlite3 *h)
{
	sqlite3_file *pf = NULL;

	if (sqlite3_file_control(h, "main", SQLITE_FCNTL_JOURNAL_POINTER, &pf) != SQLITE_OK ||
	    !pf || pf->pMethods != &walbuf_io)
		return NULL;
	return (struct walfile *)pf;
}

int db_walbuf_defer(sqlite3 *h, int on)
{
	struct walfile *f = wal_of(h);

	if (!f || f->syncfd < 0)
		return -1;
	f->defer = on;
	return 0;
}

int db_walbuf_take_pending(sqlite3 *h)
{
	struct walfile *f = wal_of(h);

	if (!f || !f->pending)
		return -1;
	f->pending = 0;
	return f->syncfd;
}
