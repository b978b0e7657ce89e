/* db_int.h: what the files of the database handle share (db.c, db_conn.c,
 * db_status.c, db_writer.c, db_sync.c, db_ckpt.c); nothing outside store/db*.c but
 * tests/store/check_db.c and tests/util/check_tlog.c (the sync thread's test hook)
 * includes it.  The contract is db.h. */
#ifndef LLMS_DB_INT_H
#define LLMS_DB_INT_H

#include <pthread.h>

#include "store/db.h"

struct db {
	char *path;
	unsigned long id;              /* distinguishes dbs for thread-locals */
	struct dbconn *writer;
	pthread_mutex_t lock;          /* guards the queue, readers, stats */
	pthread_cond_t wake;
	struct db_job *head, *tail;
	int stopping;
	pthread_t thread;
	int thread_started;
	struct dbconn *readers;
	unsigned long commits, jobs;
	unsigned long submitted, finished;   /* jobs handed in / done() called */
	unsigned busy_ms;              /* sqlite3_busy_timeout of every connection */
	/* The checkpointer: copies the WAL into the database on its own
	 * thread and connection, so the writer's commits never wait for it. */
	struct dbconn *ckpt;
	pthread_t ckpt_thread;
	int ckpt_started, ckpt_wanted;
	int ckpt_held;                 /* with lock: tests hold the thread back */
	int ckpt_running;              /* with lock: the thread is in a checkpoint */
	int writer_ckpt;               /* with lock: the writer is; the thread waits */
	int wal_limit;                 /* WAL pages past which the writer copies */
	_Atomic int wal_frames;        /* frames in the WAL at the last commit */
	_Atomic int ckpt_frames;       /* of them, copied by the last checkpoint */
	pthread_cond_t ckpt_wake;      /* with lock */
	pthread_cond_t ckpt_idle;      /* with lock: signalled when a pass ends */
	unsigned long ckpt_passes, writer_ckpts, writer_waits;   /* with lock */
	int wal_pages;                 /* with lock: the WAL's frames at the last commit */
	void (*commit_hook)(void *);   /* with lock: called after each commit */
	void *commit_arg;
	/* The sync thread (db_sync.c): committed batches wait here for the
	 * fdatasync() that makes them durable before they are answered. */
	pthread_t sync_thread;
	int sync_started, sync_stopping;   /* with lock */
	pthread_cond_t sync_wake;          /* with lock */
	struct db_job *sync_head, *sync_tail;   /* with lock */
	int sync_fd;                   /* with lock: to sync before answering; -1 */
	int sync_failed;               /* with lock: the status every write gets */
	int (*sync_fn)(int fd);        /* tests: instead of fdatasync() */
};

/* db_conn.c: one connection with the settings every connection shares,
 * through VFS vfs (NULL: the default), or NULL on failure (logged);
 * closing finalizes its cached statements. */
struct dbconn *db_conn_open(const char *path, int readonly, unsigned busy_ms, const char *vfs);
void db_conn_close(struct dbconn *c);
/* Runs SQL without results on c, logging a failure; an SQLite rc. */
int db_exec(struct dbconn *c, const char *sql);

/* db_status.c: the db_status of a failure rc on the writer, telling a
 * read-only file from a full disk. */
int db_write_status(struct db *db, int rc);

/* db_writer.c: the writer thread's body (arg: the struct db). */
void *db_writer_main(void *arg);

/* db_sync.c: starts the sync thread (0 or -1); hands it a committed
 * batch, with the descriptor to sync first (-1: none); stops it after it
 * answered everything handed to it. */
int db_sync_start(struct db *db);
void db_sync_enqueue(struct db *db, struct db_job *batch, int fd);
void db_sync_stop(struct db *db);

/* db_status.c: the status of a failed fdatasync() with errno e. */
int db_sync_status(int e);

/* db_ckpt.c: starts the checkpointer thread and its connection; 0 or -1. */
int db_ckpt_start(struct db *db);

#endif
