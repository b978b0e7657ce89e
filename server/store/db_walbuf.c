/* db_walbuf.c: a VFS over SQLite's default one that gathers the writer's
 * WAL writes into large pwrite()s.
 *
 * A commit writes each dirty page as two appends to the WAL (a 24-byte
 * frame header, then the page): with a group commit of 30 uploads that is
 * about 1,600 pwrite() calls, and their system-call cost was the largest
 * part of the writer's CPU after the SQL itself (tests/bench/README.md).
 * Here appends at the end of what is buffered are copied into one buffer,
 * written out in a single pwrite() when the WAL is synced, read, sized,
 * truncated, closed or written elsewhere, or when the buffer is full.
 *
 * Why it is safe: a commit's frames become visible to other connections
 * only when the writer publishes the new wal-index header, and with
 * synchronous=FULL (which db.c sets on the writer and this relies on)
 * SQLite syncs the WAL before it does that, and the sync writes the buffer
 * out first.  The writer's own reads of the WAL (a page spilled from its
 * cache, a rewritten frame's checksum) write the buffer out before they
 * read.  Only files opened as a WAL are wrapped; the database and every
 * other file go straight to the default VFS.  A write that fails is
 * reported by the call that writes the buffer out, so the transaction
 * fails as it would have; nothing acknowledged was in the buffer, as the
 * 201 goes out only after the commit's sync. */
#include "store/db_walbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define WALBUF_BYTES (1 << 20)
/* The default VFS writes at most 128 KiB - 1 bytes a call (it masks the
 * length: os_unix.c, seekAndWriteFd), so the buffer goes out in pieces. */
#define WALBUF_PIECE (64 << 10)

struct walfile {
	sqlite3_file base;       /* pMethods: walbuf_io */
	unsigned char *buf;      /* bytes buffered for offset off onwards */
	size_t len;
	sqlite3_int64 off;
	sqlite3_file *real;      /* the default VFS's file, right after this */
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
	int rc;

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

static int wb_sync(sqlite3_file *pf, int flags)
{
	struct walfile *f = (struct walfile *)pf;
	int rc = wb_flush(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
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

const char *walbuf_vfs_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, walbuf_setup);
	return walbuf_ready ? WALBUF_VFS : NULL;
}
