/* account.c: accounts, token creation and lookup by token hash. */
#include "ingest/account.h"

#include <sodium.h>
#include <string.h>
#include "util/container_of.h"

static const char sql_insert[] =
	"INSERT INTO accounts(name, token_hash, created_at) "
	"VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))";
static const char sql_revoke[] = "UPDATE accounts SET revoked = 1 WHERE name = ?";
static const char sql_lookup[] = "SELECT id FROM accounts WHERE token_hash = ? AND revoked = 0";

struct account_job {
	struct db_job j;
	const char *name;
	unsigned char hash[crypto_hash_sha256_BYTES];
	int revoke;
};

int account_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n >= 1 && n <= 64 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int account_run(struct dbconn *w, struct db_job *j)
{
	struct account_job *a = container_of(j, struct account_job, j);
	sqlite3_stmt *st = db_stmt(w, a->revoke ? sql_revoke : sql_insert);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, a->name);
	if (!a->revoke)
		sqlite3_bind_blob(st, 2, a->hash, sizeof a->hash, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	if (a->revoke && sqlite3_changes(w->h) == 0)
		return DB_NOTFOUND;
	return DB_OK;
}

int account_add(struct db *db, const char *name, char token[ACCOUNT_TOKEN_LEN])
{
	struct account_job a = { .j = { .run = account_run }, .name = name };
	unsigned char raw[32];

	randombytes_buf(raw, sizeof raw);
	memcpy(token, "lls_", 4);
	sodium_bin2base64(token + 4, ACCOUNT_TOKEN_LEN - 4, raw, sizeof raw,
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	crypto_hash_sha256(a.hash, (const unsigned char *)token, strlen(token));
	sodium_memzero(raw, sizeof raw);
	return db_write(db, &a.j);
}

int account_revoke(struct db *db, const char *name)
{
	struct account_job a = { .j = { .run = account_run }, .name = name, .revoke = 1 };

	return db_write(db, &a.j);
}

int account_lookup(struct dbconn *c, const char *token, long long *id)
{
	unsigned char hash[crypto_hash_sha256_BYTES];
	sqlite3_stmt *st = db_stmt(c, sql_lookup);
	int rc;

	if (!st)
		return DB_ERR;
	crypto_hash_sha256(hash, (const unsigned char *)token, strlen(token));
	sqlite3_bind_blob(st, 1, hash, sizeof hash, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return DB_OK;
	return rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
}
