/* db.c: opening and closing the database: file modes, pragmas, migrations,
 * the reader of each thread, the writer and checkpointer threads (see db.h). */
#include "store/db_int.h"
#include "store/db_walbuf.h"
#include "store/migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/nelem.h"

int (*db_after_migrate)(struct dbconn *w, struct err *err);

static atomic_ulong next_db_id = 1;
static _Thread_local struct dbconn *tl_reader;
static _Thread_local unsigned long tl_db_id;

/* ---- open and close ---- */

struct dbconn *db_reader(struct db *db)
{
	struct dbconn *c;

	if (tl_reader && tl_db_id == db->id)
		return tl_reader;
	c = db_conn_open(db->path, 1, db->busy_ms, NULL);
	if (!c)
		return NULL;
	pthread_mutex_lock(&db->lock);
	c->next = db->readers;
	db->readers = c;
	pthread_mutex_unlock(&db->lock);
	tl_reader = c;
	tl_db_id = db->id;
	return c;
}

/* Gives the file at path perm's mode and group, whatever the umask,
 * creating it when create is set; a missing file is fine otherwise. SQLite
 * creates -wal and -shm with the database file's mode. An existing file is
 * changed by path, never opened: closing a descriptor of a database file
 * would drop the POSIX locks this process's connections hold on it. */
static int set_perm(const char *path, struct db_perm perm, int create, struct err *err)
{
	int fd = create ? open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, perm.mode) : -1;
	struct stat st;

	if (fd >= 0) {
		if (fchmod(fd, perm.mode) < 0 ||
		    (perm.gid != (gid_t)-1 && fchown(fd, (uid_t)-1, perm.gid) < 0))
			goto fail;
		close(fd);
		return 0;
	}
	if (create && errno != EEXIST) {
		err_internal(err, "cannot open database %s: %s (is the folder there and writable?)",
			 path, strerror(errno));
		return -1;
	}
	if (stat(path, &st) < 0) {
		if (!create && errno == ENOENT)
			return 0;
		goto fail;
	}
	if ((st.st_mode & 07777) != perm.mode && chmod(path, perm.mode) < 0)
		goto fail;
	if (perm.gid != (gid_t)-1 && st.st_gid != perm.gid && chown(path, (uid_t)-1, perm.gid) < 0)
		goto fail;
	return 0;
fail:
	err_internal(err, "cannot give %s mode %04o%s: %s", path, (unsigned)perm.mode,
		 perm.gid != (gid_t)-1 ? " and the database group" : "", strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The database, -wal and -shm files with perm's mode and group. */
static int set_perms(const char *path, struct db_perm perm, int create, struct err *err)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	struct buf b = BUF_INIT;
	size_t i;
	int rc = set_perm(path, perm, create, err);

	for (i = 0; rc == 0 && i < NELEM(suffix); i++) {
		buf_reset(&b);
		buf_printf(&b, "%s%s", path, suffix[i]);
		rc = buf_error(&b) < 0 ? (err_internal(err, "out of memory"), -1)
				       : set_perm(b.buf, perm, 0, err);
	}
	buf_release(&b);
	return rc;
}

int db_open(const char *path, const char *migrations_dir, struct db **out,
	    struct err *err)
{
	return db_open_perm(path, migrations_dir, DB_PERM_DEFAULT, out, err);
}

int db_open_perm(const char *path, const char *migrations_dir, struct db_perm perm,
		 struct db **out, struct err *err)
{
	struct db *db = calloc(1, sizeof *db);
	int rc = DB_ERR;

	*out = NULL;
	if (!db || !(db->path = strdup(path))) {
		err_internal(err, "out of memory");
		goto fail;
	}
	if (set_perms(path, perm, 1, err) < 0) {
		rc = DB_READONLY;
		goto fail;
	}
	db->id = atomic_fetch_add(&next_db_id, 1);
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->wake, NULL);
	db->busy_ms = 5000;
	/* The writer's WAL writes are gathered (db_walbuf.c), which needs its
	 * synchronous=FULL below. */
	db->writer = db_conn_open(path, 0, db->busy_ms, db_walbuf_vfs_name());
	if (!db->writer) {
		err_internal(err, "cannot open database %s (is the folder there and writable?)", path);
		rc = DB_READONLY;
		goto fail;
	}
	if (db_exec(db->writer, "PRAGMA journal_mode=WAL") != SQLITE_OK ||
	    db_exec(db->writer, "PRAGMA synchronous=FULL") != SQLITE_OK ||
	    db_exec(db->writer, "PRAGMA foreign_keys=ON") != SQLITE_OK ||
	    /* Statement journals (every insert into runs has one, as triggers
	     * keep digest_counts in step) stay in memory, not a temp file. */
	    db_exec(db->writer, "PRAGMA temp_store=MEMORY") != SQLITE_OK) {
		err_internal(err, "cannot configure database %s: %s", path,
			 sqlite3_errmsg(db->writer->h));
		rc = db_status_of(sqlite3_errcode(db->writer->h));
		goto fail;
	}
	rc = db_status_of(migrate_apply(db->writer->h, migrations_dir, err));
	if (rc == DB_OK && db_after_migrate)
		rc = db_after_migrate(db->writer, err);
	if (rc != DB_OK)
		goto fail;
	if (db_ckpt_start(db) < 0) {
		err_internal(err, "cannot start the checkpoint thread");
		rc = DB_ERR;
		goto fail;
	}
	/* -wal and -shm exist now; with a group named, they get it too (SQLite
	 * gives them the database's owner only when running as root). */
	if (set_perms(path, perm, 0, err) < 0) {
		rc = DB_READONLY;
		goto fail;
	}
	/* The writer's commits are synced by the sync thread, which answers
	 * their jobs only after (db_sync.c). */
	if (db_sync_start(db) < 0) {
		err_internal(err, "cannot start the sync thread");
		rc = DB_ERR;
		goto fail;
	}
	db_walbuf_defer(db->writer->h, 1);
	if (pthread_create(&db->thread, NULL, db_writer_main, db) != 0) {
		err_internal(err, "cannot start the writer thread");
		rc = DB_ERR;
		goto fail;
	}
	db->thread_started = 1;
	*out = db;
	return DB_OK;
fail:
	db_close(db);
	return rc == DB_OK ? DB_ERR : rc;
}

/* Tells the thread t, waiting on cv, to stop, and waits until it has. */
static void stop_thread(struct db *db, pthread_cond_t *cv, pthread_t t)
{
	pthread_mutex_lock(&db->lock);
	db->stopping = 1;
	pthread_cond_signal(cv);
	pthread_mutex_unlock(&db->lock);
	pthread_join(t, NULL);
}

void db_close(struct db *db)
{
	struct dbconn *c, *next;

	if (!db)
		return;
	if (db->thread_started)
		stop_thread(db, &db->wake, db->thread);
	db_sync_stop(db);
	if (db->ckpt_started) {
		stop_thread(db, &db->ckpt_wake, db->ckpt_thread);
		pthread_cond_destroy(&db->ckpt_wake);
		pthread_cond_destroy(&db->ckpt_idle);
	}
	if (db->ckpt)
		db_conn_close(db->ckpt);
	for (c = db->readers; c; c = next) {
		next = c->next;
		db_conn_close(c);
	}
	if (db->writer) {
		db_walbuf_defer(db->writer->h, 0);
		db_exec(db->writer, "PRAGMA wal_checkpoint(TRUNCATE)");
		db_conn_close(db->writer);
	}
	pthread_cond_destroy(&db->wake);
	pthread_mutex_destroy(&db->lock);
	free(db->path);
	free(db);
	tl_reader = NULL;
	tl_db_id = 0;
}
