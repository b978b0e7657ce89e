/* db_status.c: what a database failure means (db_status), in words for
 * people, and which it is when a write fails: a read-only file or a full disk. */
#include "store/db_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

int db_status_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK: case SQLITE_DONE: case SQLITE_ROW:
		return DB_OK;
	case SQLITE_BUSY: case SQLITE_LOCKED:
		return DB_BUSY;
	case SQLITE_FULL:
		return DB_FULL;
	case SQLITE_READONLY: case SQLITE_CANTOPEN: case SQLITE_PERM:
		return DB_READONLY;
	case SQLITE_CONSTRAINT:
		return DB_CONFLICT;
	case SQLITE_IOERR:
		return rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_FSYNC ? DB_FULL : DB_ERR;
	}
	return DB_ERR;
}

const char *db_status_message(int status)
{
	switch (status) {
	case DB_BUSY:
		return "The database is locked by another process; nothing was stored, try again in a few seconds.";
	case DB_FULL:
		return "The server's disk is full or failing, so nothing was stored; the operator must free space.";
	case DB_READONLY:
		return "The database file is read-only, so nothing was stored; the operator must make it writable.";
	case DB_CONFLICT:
		return "That record already exists.";
	case DB_NOTFOUND:
		return "Not found.";
	}
	return "The database failed, so nothing was stored; try again later.";
}

/* The db_status for a system error, or 0 when it says nothing specific. */
static int status_of_errno(int e)
{
	switch (e) {
	case EROFS: case EPERM: case EACCES:
		return DB_READONLY;
	case ENOSPC: case EDQUOT:
		return DB_FULL;
	}
	return 0;
}

/* Looks at the files themselves after a failed write: DB_READONLY when the
 * database or its log cannot be opened for writing (a read-only or
 * immutable file, a read-only file system), DB_FULL when its file system
 * has no space left, else 0. */
static int probe_files(const char *path)
{
	const char *suffix[] = { "", "-wal" };
	char name[4096], *slash;
	struct statvfs vfs;
	size_t i;
	int fd, st;

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof name, "%s%s", path, suffix[i]);
		fd = open(name, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else if ((st = status_of_errno(errno)) == DB_READONLY)
			return st;
	}
	snprintf(name, sizeof name, "%s", path);
	slash = strrchr(name, '/');
	if (slash)
		slash[slash == name ? 1 : 0] = '\0';
	if (statvfs(slash ? name : ".", &vfs) == 0 &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < 64 * 1024)
		return DB_FULL;
	return 0;
}

/* The db_status of a failure rc on the writer.  SQLite reports most failed
 * writes as a plain I/O error, so the system error behind it, or a look at
 * the files, tells a read-only file from a full disk: the operator is told
 * the right thing to fix. */
int db_sync_status(int e)
{
	int st = status_of_errno(e);

	return st ? st : DB_ERR;
}

int db_write_status(struct db *db, int rc)
{
	int st = db_status_of(rc), why;

	if (st == DB_OK)
		return DB_ERR;
	if (st != DB_ERR && st != DB_FULL && st != DB_READONLY)
		return st;
	why = status_of_errno(sqlite3_system_errno(db->writer->h));
	if (!why)
		why = probe_files(db->path);
	return why ? why : st;
}
