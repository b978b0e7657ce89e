/* tlogfill.c: appends N synthetic run entries to a database's transparency
 * log, through tlog_store_append() as the writer does, for tests/bench/tlog_tiles.py.
 *
 *   tlogfill DB MIGRATIONS_DIR N */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/tlog_store.h"

#define BATCH 20000

struct fill_job {
	struct db_job j;
	unsigned long from, count;
};

/* Appends entries "run r_<i> <sha256 of i>" for i in [from, from + count). */
static int fill_run(struct dbconn *w, struct db_job *j)
{
	struct fill_job *f = (struct fill_job *)j;
	unsigned char sha[32];
	char ref[32];
	unsigned long i;
	int rc;

	for (i = f->from; i < f->from + f->count; i++) {
		snprintf(ref, sizeof ref, "r_%011lu", i);
		crypto_hash_sha256(sha, (const unsigned char *)ref, strlen(ref));
		if ((rc = tlog_store_append(w, TLOG_RUN, ref, sha, NULL)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

int main(int argc, char **argv)
{
	unsigned long n, done;
	struct err err = ERR_INIT;
	struct db *db;

	if (argc != 4 || (n = strtoul(argv[3], NULL, 10)) == 0) {
		fputs("usage: tlogfill DB MIGRATIONS_DIR N\n", stderr);
		return 2;
	}
	if (sodium_init() < 0 || db_open(argv[1], argv[2], &db, &err) != DB_OK) {
		fprintf(stderr, "tlogfill: %s\n", err.message);
		return 1;
	}
	for (done = 0; done < n; done += BATCH) {
		struct fill_job f = { .j = { .run = fill_run }, .from = done,
				      .count = n - done < BATCH ? n - done : BATCH };

		if (db_write(db, &f.j) != DB_OK) {
			fprintf(stderr, "tlogfill: a write failed at entry %lu\n", done);
			db_close(db);
			return 1;
		}
	}
	db_close(db);
	return 0;
}
