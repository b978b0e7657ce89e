/* db.h: SQLite connections, statements prepared once per connection, the
 * the single writer thread that commits in groups (migrations: migrate.h).
 *
 * Reads: each thread gets its own read-only connection from db_reader().
 * Writes: a module fills a struct db_job and hands it to the writer thread,
 * which runs many jobs in one transaction and one fsync (group commit).
 * The sync thread calls each job's done() only once its commit is on disk
 * (the WAL synced, as synchronous=FULL would), so an acknowledged write is
 * never lost; readers may see a commit a moment before that (db_sync.c). */
#ifndef LLMS_DB_H
#define LLMS_DB_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <sys/types.h>
#include "util/err.h"

struct db;

#define DB_STMT_SLOTS 128

/* One connection and the statements prepared on it, keyed by the address of
 * their SQL text (a static string in the module that owns the query). */
struct dbconn {
	sqlite3 *h;
	const char *sql[DB_STMT_SLOTS];
	sqlite3_stmt *st[DB_STMT_SLOTS];
	struct dbconn *next;          /* in the db's list, for closing */
};

enum db_status {
	DB_OK = 0,
	DB_ERR = -1,        /* a bug or corrupt file: see the log */
	DB_BUSY = -2,       /* locked by another process for too long */
	DB_FULL = -3,       /* the disk is full */
	DB_READONLY = -4,   /* the file or folder is not writable */
	DB_CONFLICT = -5,   /* a uniqueness constraint said no */
	DB_NOTFOUND = -6,
};

struct ceiling_ref;

/* The reference data (domain/ceiling.h, domain/resolve.h) the store
 * judges ceilings and resolves names with; NULL: none, so no run is
 * flagged for its ceiling and no name resolves.  Set once at start-up,
 * before db_open; read-only afterwards. */
void db_set_reference(const struct ceiling_ref *ref);
const struct ceiling_ref *db_reference(void);

/* Run by db_open on the writer connection after the migrations and before
 * the writer thread starts: the repairs the layers that own the tables
 * need (main.c sets it to the outlier and log backfills).  NULL: none.  Returns a
 * db_status with a message in err. */
extern int (*db_after_migrate)(struct dbconn *w, struct err *err);

/* Opens (creating if needed) the database at path, applies every migration
 * in migrations_dir that is not yet recorded (by migrate_apply,
 * migrate.h), runs db_after_migrate, and
 * starts the writer thread.
 * On failure returns a negative status with a message in err. */
int db_open(const char *path, const char *migrations_dir, struct db **out,
	    struct err *err);
/* Who may read the database files (the database, -wal and -shm): mode
 * 0600, or 0640 with gid the group that may read them. */
struct db_perm {
	mode_t mode;
	gid_t gid;                     /* (gid_t)-1: the process's own */
};
#define DB_PERM_DEFAULT ((struct db_perm){ 0600, (gid_t)-1 })
/* db_open with the files' mode and group set whatever the umask: a new
 * database is created so, an existing one (and its -wal and -shm) brought
 * to it. Fails with the reason in err when that cannot be done. */
int db_open_perm(const char *path, const char *migrations_dir, struct db_perm perm,
		 struct db **out, struct err *err);
/* How long a connection waits for a lock another process holds before the
 * statement fails with DB_BUSY (default 5000 ms).  Applies to the writer
 * and to readers opened from now on; call it before any work is submitted. */
void db_set_busy_timeout(struct db *db, unsigned ms);
/* Drains the writer, finalizes every statement and closes every connection. */
void db_close(struct db *db);

/* The calling thread's read-only connection, opened on first use; NULL when
 * it cannot be opened. */
struct dbconn *db_reader(struct db *db);

/* The statement for sql on c, prepared on first use and reset with its
 * bindings cleared on every later call.  sql must be a string with static
 * storage: its address is the cache key.  NULL (and a log line) on error. */
sqlite3_stmt *db_stmt(struct dbconn *c, const char *sql);

/* Maps an SQLite result code to a db_status. */
int db_status_of(int sqlite_rc);
/* A sentence an operator can act on for a db_status. */
const char *db_status_message(int status);

/* Binds a text value, or NULL when s is NULL. */
int db_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Steps the statement st (NULL: DB_ERR) once and resets it: DB_OK when it
 * ran to its end, else its db_status.  For writes that return no row. */
int db_step_done(sqlite3_stmt *st);

/* stats_state (migration 0020): the value of name into out (size n; ""
 * when none), and the value of name set; a db_status.  What a start-up
 * pass recorded it did (store/identity.c, store/names.c). */
int db_state_get(struct dbconn *c, const char *name, char *out, size_t n);
int db_state_put(struct dbconn *c, const char *name, const char *value);

/* The current row as a new JSON object keyed by column name: integers,
 * reals, text and NULL map to their JSON kinds; blobs are skipped. */
json_t *db_row_json(sqlite3_stmt *st);
/* Steps st to the end and returns the rows as a new JSON array (NULL on error). */
json_t *db_rows_json(sqlite3_stmt *st);

/* A database write.  run() is called on the writer thread inside the
 * transaction (in its own savepoint: a negative return undoes only this job)
 * and returns 0 or a negative db_status.  done() is called on the sync
 * thread once the commit is on disk, in the order the jobs were committed,
 * with rc set to run()'s result, or to the commit's failure, in which case
 * nothing of the job was kept, or to the sync's failure (its commit may
 * still be visible; later writes are refused until a restart). */
struct db_job {
	int (*run)(struct dbconn *w, struct db_job *job);
	void (*done)(struct db_job *job);
	int rc;
	struct db_job *next;          /* writer queue, owned by db.c */
};

/* Queues job; done() will be called exactly once. */
void db_submit(struct db *db, struct db_job *job);
/* Queues job and waits for it; returns job->rc.  done must be NULL. */
int db_write(struct db *db, struct db_job *job);

/* fn(arg) is called on the writer thread after every successful commit
 * (the transparency log's signer is woken so); NULL removes it.  fn must
 * return quickly. */
void db_set_commit_hook(struct db *db, void (*fn)(void *arg), void *arg);

/* Counts of commits and jobs so far (group-commit statistics). */
void db_stats(struct db *db, unsigned long *commits, unsigned long *jobs);

/* Jobs submitted whose done() has not returned yet. */
unsigned long db_pending(struct db *db);

/* The WAL and its checkpoints (db_ckpt.c), for monitoring. */
struct db_wal_stats {
	unsigned long wal_pages;      /* frames in the WAL at the last commit */
	unsigned long wal_limit;      /* frames at which the writer copies it itself */
	unsigned long ckpt_passes;    /* the checkpointer thread's checkpoints */
	unsigned long writer_ckpts;   /* the writer's own, at the limit */
	unsigned long writer_waits;   /* ...that first waited for a pass to end */
};
void db_wal_stats(struct db *db, struct db_wal_stats *out);

/* For /metrics: jobs waiting for the writer to take them into a batch;
 * WAL frames not yet copied into the database by a checkpoint. */
unsigned long db_queue_depth(struct db *db);
int db_checkpoint_lag(struct db *db);

#endif
