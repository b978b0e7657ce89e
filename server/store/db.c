/* db.c: connections, cached statements and the group-commit
 * writer thread (see db.h for the contract). */
#include "store/db.h"
#include "store/migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "util/b64u.h"
#include "util/buf.h"
#include "util/log.h"

int (*db_after_migrate)(struct dbconn *w, char *err, size_t errlen);

#define BATCH_MAX 512

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
	pthread_cond_t ckpt_wake;      /* with lock */
	void (*commit_hook)(void *);   /* with lock: called after each commit */
	void *commit_arg;
};

/* WAL pages after which the writer asks the checkpointer to run (SQLite's
 * own automatic checkpoint runs at 1000, inside the committing write).  A
 * page dirtied by many commits in between (a cluster's row, the newest
 * leaf of runs and of runs_received, a busy key's row) is copied into the
 * database once per checkpoint: at 10,000 pages (a WAL of about 40 MB) the
 * checkpointer's CPU per upload fell from about 115 us to 85 us in
 * tests/bench (many clusters), against 1,000. */
#define CKPT_PAGES 10000

static atomic_ulong next_db_id = 1;
static _Thread_local struct dbconn *tl_reader;
static _Thread_local unsigned long tl_db_id;

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
static int write_status(struct db *db, int rc)
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

/* Runs SQL without results on c, logging a failure. */
static int db_exec(struct dbconn *c, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(c->h, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int e = (rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL ?
			sqlite3_system_errno(c->h) : 0;
		log_error("sqlite: %s: %s (%d)%s%s", sql, msg ? msg : sqlite3_errstr(rc), rc,
			  e ? ": " : "", e ? strerror(e) : "");
		sqlite3_free(msg);
	}
	return rc;
}

/* sha256(X): the SHA-256 of blob or text X as a 32-byte blob; NULL for
 * NULL.  Migrations use it to backfill digests (0008). */
static void sql_sha256(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	unsigned char h[crypto_hash_sha256_BYTES];
	const void *p;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	p = sqlite3_value_blob(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	crypto_hash_sha256(h, p ? p : (const void *)"", (unsigned long long)n);
	sqlite3_result_blob(cx, h, sizeof h, SQLITE_TRANSIENT);
}

/* jws_payload(X): the signed payload bytes of compact JWS X (its middle
 * segment, base64url-decoded) as a blob; NULL when X is NULL or not three
 * segments of base64url.  Migrations use it where runs keep the payload
 * only inside the JWS (0006 on). */
static void sql_jws_payload(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	unsigned char *bin;
	size_t got;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (b64u_jws_payload(sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0]),
			     &bin, &got) == 0)
		sqlite3_result_blob64(cx, bin, got, free);
}

/* Opens one connection with the settings every connection shares. */
static struct dbconn *conn_open(const char *path, int readonly, unsigned busy_ms)
{
	struct dbconn *c = calloc(1, sizeof *c);
	int flags = readonly ? SQLITE_OPEN_READONLY
			     : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	if (!c)
		return NULL;
	if (sqlite3_open_v2(path, &c->h, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_error("sqlite: cannot open %s: %s", path,
			  c->h ? sqlite3_errmsg(c->h) : "out of memory");
		sqlite3_close(c->h);
		free(c);
		return NULL;
	}
	sqlite3_busy_timeout(c->h, (int)busy_ms);
	sqlite3_create_function(c->h, "sha256", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				NULL, sql_sha256, NULL, NULL);
	sqlite3_create_function(c->h, "jws_payload", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				NULL, sql_jws_payload, NULL, NULL);
	sqlite3_extended_result_codes(c->h, 1);
	/* 32 MiB of page cache and memory-mapped reads per connection keep
	 * the indexes an upload or a page touches out of pread(). */
	db_exec(c, "PRAGMA cache_size=-32768");
	db_exec(c, "PRAGMA mmap_size=268435456");
	if (readonly)
		db_exec(c, "PRAGMA query_only=1");
	return c;
}

static void conn_close(struct dbconn *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < DB_STMT_SLOTS; i++)
		sqlite3_finalize(c->st[i]);
	sqlite3_close(c->h);
	free(c);
}

sqlite3_stmt *db_stmt(struct dbconn *c, const char *sql)
{
	size_t slot = ((uintptr_t)sql >> 3) % DB_STMT_SLOTS, i;
	sqlite3_stmt *st;

	for (i = 0; i < DB_STMT_SLOTS; i++, slot = (slot + 1) % DB_STMT_SLOTS) {
		if (c->sql[slot] == sql) {
			sqlite3_reset(c->st[slot]);
			sqlite3_clear_bindings(c->st[slot]);
			return c->st[slot];
		}
		if (!c->sql[slot])
			break;
	}
	if (i == DB_STMT_SLOTS) {
		log_error("sqlite: statement cache full");
		return NULL;
	}
	if (sqlite3_prepare_v3(c->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		log_error("sqlite: prepare failed: %s: %s", sqlite3_errmsg(c->h), sql);
		return NULL;
	}
	c->sql[slot] = sql;
	c->st[slot] = st;
	return st;
}

int db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

json_t *db_row_json(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int i, n = sqlite3_column_count(st);

	for (i = 0; o && i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		json_t *v = NULL;

		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = json_integer((json_int_t)sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_real(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			v = json_stringn((const char *)sqlite3_column_text(st, i),
					 (size_t)sqlite3_column_bytes(st, i));
			break;
		case SQLITE_NULL:
			v = json_null();
			break;
		default:
			continue;
		}
		json_object_set_new(o, name, v);
	}
	return o;
}

json_t *db_rows_json(sqlite3_stmt *st)
{
	json_t *a = json_array();
	int rc;

	while (a && (rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(a, db_row_json(st));
	if (a && rc != SQLITE_DONE) {
		log_error("sqlite: step: %s", sqlite3_errstr(rc));
		json_decref(a);
		a = NULL;
	}
	sqlite3_reset(st);
	return a;
}

/* ---- the writer ---- */

/* Marks every job of the batch failed with status. */
static void fail_all(struct db_job *batch, int status)
{
	for (; batch; batch = batch->next)
		batch->rc = status;
}

/* Fails every job of a batch with status and tells the operator why. */
static void batch_failed(struct db_job *batch, int status)
{
	log_error("database write failed, nothing of it was stored: %s",
		  db_status_message(status));
	fail_all(batch, status);
}

static const char sql_savepoint[] = "SAVEPOINT job";
static const char sql_rollback_to[] = "ROLLBACK TO job";
static const char sql_release[] = "RELEASE job";

/* Runs one of the statements above from the statement cache (two per
 * upload: parsing them each time cost more than the seeks of a small
 * job), logging a failure like db_exec(). */
static int exec_cached(struct dbconn *c, const char *sql)
{
	sqlite3_stmt *st = db_stmt(c, sql);
	int rc;

	if (!st)
		return db_exec(c, sql);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return SQLITE_OK;
	log_error("sqlite: %s: %s (%d)", sql, sqlite3_errmsg(c->h), rc);
	return rc;
}

/* Runs one job in a savepoint; returns 0, or a status when the whole
 * transaction was lost (SQLite rolled it back). */
static int run_job(struct dbconn *w, struct db_job *j)
{
	exec_cached(w, sql_savepoint);
	j->rc = j->run(w, j);
	if (j->rc < 0 && sqlite3_get_autocommit(w->h))
		return j->rc;        /* SQLite rolled back everything */
	if (j->rc < 0)
		exec_cached(w, sql_rollback_to);
	exec_cached(w, sql_release);
	return 0;
}

/* Runs a batch in one transaction and one commit. */
static void run_batch(struct db *db, struct db_job *batch)
{
	struct dbconn *w = db->writer;
	void (*hook)(void *);
	void *hook_arg;
	struct db_job *j;
	int rc;

	rc = db_exec(w, "BEGIN IMMEDIATE");
	if (rc != SQLITE_OK) {
		batch_failed(batch, write_status(db, rc));
		return;
	}
	for (j = batch; j; j = j->next) {
		int lost = run_job(w, j);
		if (lost) {
			batch_failed(batch, lost);
			return;
		}
	}
	rc = db_exec(w, "COMMIT");
	if (rc != SQLITE_OK) {
		rc = write_status(db, rc);
		if (!sqlite3_get_autocommit(w->h))
			db_exec(w, "ROLLBACK");
		batch_failed(batch, rc);
		return;
	}
	pthread_mutex_lock(&db->lock);
	hook = db->commit_hook;
	hook_arg = db->commit_arg;
	pthread_mutex_unlock(&db->lock);
	if (hook)
		hook(hook_arg);
}

void db_set_commit_hook(struct db *db, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&db->lock);
	db->commit_hook = fn;
	db->commit_arg = arg;
	pthread_mutex_unlock(&db->lock);
}

static void *writer_main(void *arg)
{
	struct db *db = arg;
	struct db_job *batch, *j, *next;
	unsigned n;

	pthread_setname_np(pthread_self(), "db-writer");   /* for perf and top -H */
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while (!db->head && !db->stopping)
			pthread_cond_wait(&db->wake, &db->lock);
		if (!db->head) {
			pthread_mutex_unlock(&db->lock);
			break;
		}
		batch = db->head;
		for (j = batch, n = 1; j->next && n < BATCH_MAX; j = j->next)
			n++;
		db->head = j->next;
		if (!db->head)
			db->tail = NULL;
		j->next = NULL;
		db->commits++;
		db->jobs += n;
		pthread_mutex_unlock(&db->lock);

		run_batch(db, batch);
		for (j = batch; j; j = next) {
			next = j->next;
			j->next = NULL;
			j->done(j);
			pthread_mutex_lock(&db->lock);
			db->finished++;
			pthread_mutex_unlock(&db->lock);
		}
	}
	return NULL;
}

void db_submit(struct db *db, struct db_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&db->lock);
	if (db->tail)
		db->tail->next = job;
	else
		db->head = job;
	db->tail = job;
	db->submitted++;
	pthread_cond_signal(&db->wake);
	pthread_mutex_unlock(&db->lock);
}

struct sync_job {
	struct db_job j;
	struct db_job *user;
	pthread_mutex_t m;
	pthread_cond_t c;
	int finished;
};

static int sync_run(struct dbconn *w, struct db_job *j)
{
	struct sync_job *s = (struct sync_job *)j;
	return s->user->run(w, s->user);
}

static void sync_done(struct db_job *j)
{
	struct sync_job *s = (struct sync_job *)j;

	pthread_mutex_lock(&s->m);
	s->finished = 1;
	pthread_cond_signal(&s->c);
	pthread_mutex_unlock(&s->m);
}

int db_write(struct db *db, struct db_job *job)
{
	struct sync_job s = { .j = { .run = sync_run, .done = sync_done }, .user = job };

	pthread_mutex_init(&s.m, NULL);
	pthread_cond_init(&s.c, NULL);
	db_submit(db, &s.j);
	pthread_mutex_lock(&s.m);
	while (!s.finished)
		pthread_cond_wait(&s.c, &s.m);
	pthread_mutex_unlock(&s.m);
	pthread_cond_destroy(&s.c);
	pthread_mutex_destroy(&s.m);
	job->rc = s.j.rc;
	return job->rc;
}

void db_set_busy_timeout(struct db *db, unsigned ms)
{
	pthread_mutex_lock(&db->lock);
	db->busy_ms = ms;
	sqlite3_busy_timeout(db->writer->h, (int)ms);
	pthread_mutex_unlock(&db->lock);
}

unsigned long db_pending(struct db *db)
{
	unsigned long n;

	pthread_mutex_lock(&db->lock);
	n = db->submitted - db->finished;
	pthread_mutex_unlock(&db->lock);
	return n;
}

void db_stats(struct db *db, unsigned long *commits, unsigned long *jobs)
{
	pthread_mutex_lock(&db->lock);
	*commits = db->commits;
	*jobs = db->jobs;
	pthread_mutex_unlock(&db->lock);
}

/* ---- open and close ---- */

struct dbconn *db_reader(struct db *db)
{
	struct dbconn *c;

	if (tl_reader && tl_db_id == db->id)
		return tl_reader;
	c = conn_open(db->path, 1, db->busy_ms);
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

/* Writer's WAL hook, after every commit: wakes the checkpointer once the
 * log has grown past CKPT_PAGES. */
static int wal_grew(void *arg, sqlite3 *h, const char *name, int pages)
{
	struct db *db = arg;

	if (pages >= CKPT_PAGES) {
		pthread_mutex_lock(&db->lock);
		db->ckpt_wanted = 1;
		pthread_cond_signal(&db->ckpt_wake);
		pthread_mutex_unlock(&db->lock);
	}
	return SQLITE_OK;
}

/* The checkpointer thread: a passive checkpoint whenever the writer asks
 * (it neither blocks nor waits for the writer or readers; a frame a
 * reader still needs is copied next time). */
static void *ckpt_main(void *arg)
{
	struct db *db = arg;
	int stop;

	pthread_setname_np(pthread_self(), "db-checkpoint");
	for (;;) {
		pthread_mutex_lock(&db->lock);
		while (!db->ckpt_wanted && !db->stopping)
			pthread_cond_wait(&db->ckpt_wake, &db->lock);
		stop = db->stopping;
		db->ckpt_wanted = 0;
		pthread_mutex_unlock(&db->lock);
		if (stop)
			break;
		sqlite3_wal_checkpoint_v2(db->ckpt->h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	}
	return NULL;
}

/* Moves checkpoints off the writer: its own automatic checkpoint is
 * replaced by the hook that wakes the checkpointer thread. */
static int ckpt_start(struct db *db)
{
	db->ckpt = conn_open(db->path, 0, db->busy_ms);
	if (!db->ckpt || db_exec(db->ckpt, "PRAGMA synchronous=FULL") != SQLITE_OK)
		return -1;
	pthread_cond_init(&db->ckpt_wake, NULL);
	if (pthread_create(&db->ckpt_thread, NULL, ckpt_main, db) != 0)
		return -1;
	db->ckpt_started = 1;
	sqlite3_wal_hook(db->writer->h, wal_grew, db);
	return 0;
}

/* Gives the file at path perm's mode and group, whatever the umask,
 * creating it when create is set; a missing file is fine otherwise. SQLite
 * creates -wal and -shm with the database file's mode. An existing file is
 * changed by path, never opened: closing a descriptor of a database file
 * would drop the POSIX locks this process's connections hold on it. */
static int set_perm(const char *path, struct db_perm perm, int create, char *err, size_t errlen)
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
		snprintf(err, errlen, "cannot open database %s: %s (is the folder there and writable?)",
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
	snprintf(err, errlen, "cannot give %s mode %04o%s: %s", path, (unsigned)perm.mode,
		 perm.gid != (gid_t)-1 ? " and the database group" : "", strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The database, -wal and -shm files with perm's mode and group. */
static int set_perms(const char *path, struct db_perm perm, int create, char *err, size_t errlen)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	struct buf b = BUF_INIT;
	size_t i;
	int rc = set_perm(path, perm, create, err, errlen);

	for (i = 0; rc == 0 && i < sizeof suffix / sizeof *suffix; i++) {
		buf_reset(&b);
		buf_printf(&b, "%s%s", path, suffix[i]);
		rc = buf_error(&b) < 0 ? (snprintf(err, errlen, "out of memory"), -1)
				       : set_perm(b.buf, perm, 0, err, errlen);
	}
	buf_release(&b);
	return rc;
}

int db_open(const char *path, const char *migrations_dir, struct db **out,
	    char *err, size_t errlen)
{
	return db_open_perm(path, migrations_dir, DB_PERM_DEFAULT, out, err, errlen);
}

int db_open_perm(const char *path, const char *migrations_dir, struct db_perm perm,
		 struct db **out, char *err, size_t errlen)
{
	struct db *db = calloc(1, sizeof *db);
	int rc = DB_ERR;

	*out = NULL;
	if (!db || !(db->path = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (set_perms(path, perm, 1, err, errlen) < 0) {
		rc = DB_READONLY;
		goto fail;
	}
	db->id = atomic_fetch_add(&next_db_id, 1);
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->wake, NULL);
	db->busy_ms = 5000;
	db->writer = conn_open(path, 0, db->busy_ms);
	if (!db->writer) {
		snprintf(err, errlen, "cannot open database %s (is the folder there and writable?)", path);
		rc = DB_READONLY;
		goto fail;
	}
	if (db_exec(db->writer, "PRAGMA journal_mode=WAL") != SQLITE_OK ||
	    db_exec(db->writer, "PRAGMA synchronous=FULL") != SQLITE_OK ||
	    db_exec(db->writer, "PRAGMA foreign_keys=ON") != SQLITE_OK ||
	    /* Statement journals (every insert into runs has one, as triggers
	     * keep digest_counts in step) stay in memory, not a temp file. */
	    db_exec(db->writer, "PRAGMA temp_store=MEMORY") != SQLITE_OK) {
		snprintf(err, errlen, "cannot configure database %s: %s", path,
			 sqlite3_errmsg(db->writer->h));
		rc = db_status_of(sqlite3_errcode(db->writer->h));
		goto fail;
	}
	rc = db_status_of(migrate_apply(db->writer->h, migrations_dir, err, errlen));
	if (rc == DB_OK && db_after_migrate)
		rc = db_after_migrate(db->writer, err, errlen);
	if (rc != DB_OK)
		goto fail;
	if (ckpt_start(db) < 0) {
		snprintf(err, errlen, "cannot start the checkpoint thread");
		rc = DB_ERR;
		goto fail;
	}
	/* -wal and -shm exist now; with a group named, they get it too (SQLite
	 * gives them the database's owner only when running as root). */
	if (set_perms(path, perm, 0, err, errlen) < 0) {
		rc = DB_READONLY;
		goto fail;
	}
	if (pthread_create(&db->thread, NULL, writer_main, db) != 0) {
		snprintf(err, errlen, "cannot start the writer thread");
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

void db_close(struct db *db)
{
	struct dbconn *c, *next;

	if (!db)
		return;
	if (db->thread_started) {
		pthread_mutex_lock(&db->lock);
		db->stopping = 1;
		pthread_cond_signal(&db->wake);
		pthread_mutex_unlock(&db->lock);
		pthread_join(db->thread, NULL);
	}
	if (db->ckpt_started) {
		pthread_mutex_lock(&db->lock);
		db->stopping = 1;
		pthread_cond_signal(&db->ckpt_wake);
		pthread_mutex_unlock(&db->lock);
		pthread_join(db->ckpt_thread, NULL);
		pthread_cond_destroy(&db->ckpt_wake);
	}
	if (db->ckpt)
		conn_close(db->ckpt);
	for (c = db->readers; c; c = next) {
		next = c->next;
		conn_close(c);
	}
	if (db->writer) {
		db_exec(db->writer, "PRAGMA wal_checkpoint(TRUNCATE)");
		conn_close(db->writer);
	}
	pthread_cond_destroy(&db->wake);
	pthread_mutex_destroy(&db->lock);
	free(db->path);
	free(db);
	tl_reader = NULL;
	tl_db_id = 0;
}
