/* tlog_store.c: the transparency log's entries and subtree hashes in SQLite. */
#include "store/tlog_store.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

static const char sql_size[] = "SELECT coalesce(max(idx) + 1, 0) FROM tlog_entries";
static const char sql_add_entry[] = "INSERT INTO tlog_entries(idx, data) VALUES (?, ?)";
static const char sql_add_hash[] = "INSERT INTO tlog_hashes(id, hash) VALUES (?, ?)";
static const char sql_hash[] = "SELECT hash FROM tlog_hashes WHERE id = ?";
static const char sql_hash_range[] =
	"SELECT hash FROM tlog_hashes WHERE id >= ?1 AND id < ?2 ORDER BY id";
static const char sql_entry_range[] =
	"SELECT data FROM tlog_entries WHERE idx >= ?1 AND idx < ?2 ORDER BY idx";

static const char *const kind_names[TLOG_KIND__MAX] = {
	[TLOG_RUN] = "run", [TLOG_POST] = "post", [TLOG_RULING] = "ruling",
	[TLOG_WITHDRAWAL] = "withdrawal",
};

/* The row id of the hash at (level, idx): level * 2^56 + idx. */
static int64_t hash_id(unsigned level, uint64_t idx)
{
	return (int64_t)(((uint64_t)level << 56) | idx);
}

int64_t tlog_store_size(struct dbconn *c)
{
	sqlite3_stmt *st = db_stmt(c, sql_size);
	int64_t n = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return n;
}

/* Reader callback: the stored hash at (level, idx). */
static int get_hash(void *ctx, unsigned level, uint64_t idx, unsigned char out[TLOG_HASH])
{
	sqlite3_stmt *st = db_stmt(ctx, sql_hash);
	int rc = -1;

	if (!st || level > 63 || idx >> 56)
		return -1;
	sqlite3_bind_int64(st, 1, hash_id(level, idx));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == TLOG_HASH) {
		memcpy(out, sqlite3_column_blob(st, 0), TLOG_HASH);
		rc = 0;
	}
	sqlite3_reset(st);
	return rc;
}

struct tlog_reader tlog_store_reader(struct dbconn *c)
{
	return (struct tlog_reader){ get_hash, c };
}

/* Steps a bound insert; a db_status. */
static int step_insert(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

static int put_hash(struct dbconn *w, unsigned level, uint64_t idx, const unsigned char h[TLOG_HASH])
{
	sqlite3_stmt *st = db_stmt(w, sql_add_hash);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, hash_id(level, idx));
	sqlite3_bind_blob(st, 2, h, TLOG_HASH, SQLITE_TRANSIENT);
	return step_insert(st);
}

/* Appends data as leaf n and stores every subtree hash it completes: while
 * the node is a right child, its parent (left sibling, node) is complete. */
static int append(struct dbconn *w, const void *data, size_t len, uint64_t n)
{
	unsigned char h[TLOG_HASH], left[TLOG_HASH];
	sqlite3_stmt *st = db_stmt(w, sql_add_entry);
	unsigned level = 0;
	uint64_t i = n;
	int rc;

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, (int64_t)n);
	sqlite3_bind_blob(st, 2, data, (int)len, SQLITE_STATIC);
	if ((rc = step_insert(st)) != DB_OK)
		return rc;
	tlog_leaf_hash(data, len, h);
	if ((rc = put_hash(w, 0, n, h)) != DB_OK)
		return rc;
	while (i & 1) {
		if (get_hash(w, level, i - 1, left) < 0)
			return DB_ERR;
		tlog_node_hash(left, h, h);
		i >>= 1;
		level++;
		if ((rc = put_hash(w, level, i, h)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

/* 1 when ref can sit in an entry line: non-empty, printable, no space. */
static int ref_ok(const char *ref)
{
	const unsigned char *p = (const unsigned char *)ref;

	if (!*p || strlen(ref) > 200)
		return 0;
	for (; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return 0;
	return 1;
}

int tlog_store_append(struct dbconn *w, enum tlog_kind kind, const char *ref,
		const unsigned char sha[32], uint64_t *index)
{
	char line[300], hex[65];
	int64_t n;
	int len, rc;

	if ((unsigned)kind >= TLOG_KIND__MAX || !ref_ok(ref))
		return DB_ERR;
	if ((n = tlog_store_size(w)) < 0)
		return DB_ERR;
	sodium_bin2hex(hex, sizeof hex, sha, 32);
	len = snprintf(line, sizeof line, "%s %s %s\n", kind_names[kind], ref, hex);
	if (len < 0 || (size_t)len >= sizeof line)
		return DB_ERR;
	if ((rc = append(w, line, (size_t)len, (uint64_t)n)) != DB_OK)
		return rc;
	if (index)
		*index = (uint64_t)n;
	return DB_OK;
}

void tlog_store_entry_sha(unsigned char out[32], const char *tag, const char *const *fields,
		     size_t n)
{
	crypto_hash_sha256_state s;
	char head[64];
	size_t i;

	crypto_hash_sha256_init(&s);
	snprintf(head, sizeof head, "llm-speed-%s-v1\n", tag);
	crypto_hash_sha256_update(&s, (const unsigned char *)head, strlen(head));
	for (i = 0; i < n; i++) {
		const char *f = fields[i] ? fields[i] : "";
		size_t len = strlen(f);

		snprintf(head, sizeof head, "%zu:", len);
		crypto_hash_sha256_update(&s, (const unsigned char *)head, strlen(head));
		crypto_hash_sha256_update(&s, (const unsigned char *)f, len);
		crypto_hash_sha256_update(&s, (const unsigned char *)",", 1);
	}
	crypto_hash_sha256_final(&s, out);
}

/* Appends the rows [lo, hi) of a range statement: hashes as they are, or
 * entries each behind its uint16 big-endian length; DB_NOTFOUND when a row
 * is missing. */
static int read_range(sqlite3_stmt *st, int64_t lo, int64_t hi, int bundle, struct buf *out)
{
	int64_t got = 0;
	int rc;

	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int len = sqlite3_column_bytes(st, 0);
		const void *p = sqlite3_column_blob(st, 0);

		if (bundle) {
			if (len > 0xffff)
				break;
			buf_putc(out, (char)(len >> 8));
			buf_putc(out, (char)(len & 0xff));
		}
		buf_add(out, p, (size_t)len);
		got++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_status_of(rc);
	if (buf_error(out))
		return DB_ERR;
	return got == hi - lo ? DB_OK : DB_NOTFOUND;
}

int tlog_store_tile(struct dbconn *c, const struct tlog_tile *t, struct buf *out)
{
	uint64_t lo = t->n * TLOG_TILE_WIDTH;
	sqlite3_stmt *st;
	unsigned level;

	if (t->n >> 40 || t->width < 1 || t->width > TLOG_TILE_WIDTH)
		return DB_NOTFOUND;
	if (t->level < 0) {
		if (!(st = db_stmt(c, sql_entry_range)))
			return DB_ERR;
		return read_range(st, (int64_t)lo, (int64_t)(lo + t->width), 1, out);
	}
	level = (unsigned)t->level * TLOG_TILE_HEIGHT;
	if (level > 48)
		return DB_NOTFOUND;
	if (!(st = db_stmt(c, sql_hash_range)))
		return DB_ERR;
	return read_range(st, hash_id(level, lo), hash_id(level, lo + t->width), 0, out);
}

/* ---- the backlog of migration 0011 ---- */

static const char sql_has_backlog[] =
	"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tlog_backlog'";
static const char sql_backlog_count[] = "SELECT count(*) FROM tlog_backlog";
static const char sql_backlog[] =
	"SELECT seq, kind, ref, sha, run_id FROM tlog_backlog ORDER BY seq LIMIT 1000";
static const char sql_backlog_done[] = "DELETE FROM tlog_backlog WHERE seq <= ?";
static const char sql_run_index[] = "UPDATE runs SET log_index = ? WHERE id = ?";

/* A count from a one-row query; -1 on error. */
static int64_t count_of(struct dbconn *w, const char *sql)
{
	sqlite3_stmt *st = db_stmt(w, sql);
	int64_t n = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	if (st)
		sqlite3_reset(st);
	return n;
}

/* Appends one backlog row (the statement's current row). */
static int backlog_one(struct dbconn *w, sqlite3_stmt *st)
{
	static const enum tlog_kind kinds[] = { TLOG_RUN, TLOG_POST, TLOG_RULING };
	static const char *const names[] = { "run", "post", "ruling" };
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	const char *ref = (const char *)sqlite3_column_text(st, 2);
	const char *run_id = (const char *)sqlite3_column_text(st, 4);
	sqlite3_stmt *up;
	uint64_t index;
	size_t k;
	int rc;

	if (!kind || !ref || sqlite3_column_bytes(st, 3) != 32)
		return DB_ERR;
	for (k = 0; k < 3 && strcmp(kind, names[k]); k++)
		;
	if (k == 3)
		return DB_ERR;
	rc = tlog_store_append(w, kinds[k], ref, sqlite3_column_blob(st, 3), &index);
	if (rc != DB_OK || !run_id)
		return rc;
	if (!(up = db_stmt(w, sql_run_index)))
		return DB_ERR;
	sqlite3_bind_int64(up, 1, (sqlite3_int64)index);
	db_bind_text(up, 2, run_id);
	return step_insert(up);
}

/* Appends up to 1000 backlog rows in one transaction; *done gets how many. */
static int backlog_batch(struct dbconn *w, int64_t *done)
{
	sqlite3_stmt *st, *del;
	int64_t last = -1, n = 0;
	int rc;

	*done = 0;
	if (sqlite3_exec(w->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_status_of(sqlite3_errcode(w->h));
	rc = (st = db_stmt(w, sql_backlog)) ? DB_OK : DB_ERR;
	while (rc == DB_OK && sqlite3_step(st) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		rc = backlog_one(w, st);
		n++;
	}
	if (st)
		sqlite3_reset(st);
	if (rc == DB_OK && n) {
		rc = (del = db_stmt(w, sql_backlog_done)) ? DB_OK : DB_ERR;
		if (rc == DB_OK) {
			sqlite3_bind_int64(del, 1, last);
			rc = step_insert(del);
		}
	}
	if (rc == DB_OK && sqlite3_exec(w->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = db_status_of(sqlite3_errcode(w->h));
	if (rc != DB_OK)
		sqlite3_exec(w->h, "ROLLBACK", NULL, NULL, NULL);
	*done = n;
	return rc;
}

int tlog_store_backfill(struct dbconn *w, struct err *err)
{
	int64_t total, done = 0, n;
	int rc;

	if (count_of(w, sql_has_backlog) != 1)
		return DB_OK;           /* before migration 0011 (tests of older schemas) */
	if ((total = count_of(w, sql_backlog_count)) <= 0)
		return total < 0 ? DB_ERR : DB_OK;
	log_info("adding %lld earlier runs, posts and rulings to the log", (long long)total);
	do {
		if ((rc = backlog_batch(w, &n)) != DB_OK) {
			err_internal(err, "cannot add earlier entries to the log: %s",
				 sqlite3_errmsg(w->h));
			return rc;
		}
		done += n;
	} while (n > 0);
	log_info("the log holds the %lld earlier entries", (long long)done);
	return DB_OK;
}
