/* limits.c: the reference limits the ingest path is measured against:
 * libsodium's Ed25519 verifications per second on one core, and SQLite's
 * commits per second with synchronous=FULL in WAL mode (one fsync per
 * commit, as the server commits), both on this machine, in the folder
 * given.  Prints one JSON object. */
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Ed25519 verifications of a 3 KB message (a typical upload) per second. */
static double verify_rate(void)
{
	unsigned char pk[32], sk[64], sig[64], msg[3072];
	double t0 = now(), t;
	long n = 0;

	randombytes_buf(msg, sizeof msg);
	crypto_sign_keypair(pk, sk);
	crypto_sign_detached(sig, NULL, msg, sizeof msg, sk);
	do {
		if (crypto_sign_verify_detached(sig, msg, sizeof msg, pk) != 0)
			return -1;
		n++;
	} while ((t = now() - t0) < 1.0);
	return (double)n / t;
}

/* Rows per second when each commit holds `batch` inserts of 4 KB. */
static double commit_rate(const char *dir, int batch)
{
	char path[512], blob[4096];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	double t0, t;
	long rows = 0;
	int i;

	snprintf(path, sizeof path, "%s/limits-%d.db", dir, batch);
	remove(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
		     "CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO t(b) VALUES (?)", -1, &st, NULL);
	memset(blob, 'x', sizeof blob);
	t0 = now();
	do {
		sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		for (i = 0; i < batch; i++) {
			sqlite3_bind_blob(st, 1, blob, sizeof blob, SQLITE_STATIC);
			sqlite3_step(st);
			sqlite3_reset(st);
		}
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		rows += batch;
	} while ((t = now() - t0) < 2.0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	remove(path);
	return (double)rows / t;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";

	if (sodium_init() < 0)
		return 1;
	printf("{\"ed25519_verify_per_s\": %.0f, \"sqlite_commits_per_s\": %.0f, "
	       "\"sqlite_rows_per_s_64_per_commit\": %.0f}\n",
	       verify_rate(), commit_rate(dir, 1), commit_rate(dir, 64));
	return 0;
}
