/* db_conn.c: one connection (open, pragmas, the SQL functions migrations
 * use), its statement cache, and rows as JSON. */
#include "store/db_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "store/jws_pack.h"
#include "util/log.h"

static const struct ceiling_ref *reference;

void db_set_reference(const struct ceiling_ref *ref)
{
	reference = ref;
}

const struct ceiling_ref *db_reference(void)
{
	return reference;
}

int db_step_done(sqlite3_stmt *st)
{
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int db_state_get(struct dbconn *c, const char *name, char *out, size_t n)
{
	sqlite3_stmt *st = db_stmt(c, "SELECT value FROM stats_state WHERE name = ?1");
	int rc;

	out[0] = '\0';
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int db_state_put(struct dbconn *c, const char *name, const char *value)
{
	sqlite3_stmt *st = db_stmt(c, "INSERT OR REPLACE INTO stats_state(name, value) VALUES (?1, ?2)");

	if (st) {
		db_bind_text(st, 1, name);
		db_bind_text(st, 2, value);
	}
	return db_step_done(st);
}

/* Runs SQL without results on c, logging a failure. */
int db_exec(struct dbconn *c, const char *sql)
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

/* jws_payload(X): the signed payload bytes of stored JWS X (packed, or
 * compact: its middle segment, base64url-decoded) as a blob; NULL when X
 * is NULL, not three segments of base64url or a damaged pack.  Migrations use it where runs keep the payload
 * only inside the JWS (0006 on). */
static void sql_jws_payload(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	unsigned char *bin;
	size_t got;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (jws_pack_payload(sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0]),
			       &bin, &got) == 0)
		sqlite3_result_blob64(cx, bin, got, free);
}

/* Once, before SQLite's first connection: no memory statistics (nothing
 * reads them, and with them every allocation of every connection takes
 * one process-wide mutex). */
static void library_init(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* Opens one connection with the settings every connection shares, through
 * VFS vfs (NULL: the default). */
struct dbconn *db_conn_open(const char *path, int readonly, unsigned busy_ms, const char *vfs)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct dbconn *c = calloc(1, sizeof *c);
	int flags = readonly ? SQLITE_OPEN_READONLY
			     : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	pthread_once(&once, library_init);
	if (!c)
		return NULL;
	if (sqlite3_open_v2(path, &c->h, flags | SQLITE_OPEN_NOMUTEX, vfs) != SQLITE_OK) {
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
	/* Page cache and memory-mapped reads keep the indexes an upload or a
	 * page touches out of pread(): 32 MiB for the writer, whose batches
	 * revisit the same index leaves; 2 MiB for each reader (one per
	 * serving thread), since a page's reads are a few seeks that the
	 * kernel's page cache serves as well, and each reader's cache is the
	 * daemon's own memory (RssAnon; tests/bench/README.md: at a million
	 * runs, past the map, 8 MiB each held 30 MB more for no speed).  The map
	 * is as large as this SQLite allows (SQLITE_MAX_MMAP_SIZE, 2 GB on
	 * Debian): mapped pages are the kernel's page cache (RssFile), not
	 * the daemon's memory, and each page read through the map is no
	 * pread() copy (a filtered board's build spent a fifth of its time
	 * in the kernel copying pages at 200,000 runs, 1.1 GB, with 256 MB
	 * mapped). */
	db_exec(c, readonly ? "PRAGMA cache_size=-2048" : "PRAGMA cache_size=-32768");
	db_exec(c, "PRAGMA mmap_size=2147418112");
	if (readonly)
		db_exec(c, "PRAGMA query_only=1");
	return c;
}

void db_conn_close(struct dbconn *c)
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
