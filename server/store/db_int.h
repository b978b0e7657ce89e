/* db_int.h: what the files of the database handle share (db.c, db_conn.c,
 * db_status.c, db_writer.c, db_ckpt.c); nothing outside store/db*.c but
 * tests/check_db.c includes it.  The contract is db.h. */
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
	int wal_limit;                 /* WAL pages past which the writer copies */
	pthread_cond_t ckpt_wake;      /* with lock */
	void (*commit_hook)(void *);   /* with lock: called after each commit */
	void *commit_arg;
};

/* db_conn.c: one connection with the settings every connection shares,
 * through VFS vfs (NULL: the default), or NULL on failure (logged);
 * closing finalizes its cached statements. */
struct dbconn *conn_open(const char *path, int readonly, unsigned busy_ms, const char *vfs);
void conn_close(struct dbconn *c);
/* Runs SQL without results on c, logging a failure; an SQLite rc. */
int db_exec(struct dbconn *c, const char *sql);

/* db_status.c: the db_status of a failure rc on the writer, telling a
 * read-only file from a full disk. */
int write_status(struct db *db, int rc);

/* db_writer.c: the writer thread's body (arg: the struct db). */
void *writer_main(void *arg);

/* db_ckpt.c: starts the checkpointer thread and its connection; 0 or -1. */
int ckpt_start(struct db *db);

#endif
