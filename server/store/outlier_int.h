/* outlier_int.h: what the files of the outlier flags share (outlier.c,
 * outlier_sums.c, outlier_keys.c, outlier_backfill.c); nothing outside
 * store/outlier*.c includes it.  The contract is outlier.h. */
#ifndef LLMS_OUTLIER_INT_H
#define LLMS_OUTLIER_INT_H

#include <stdint.h>

#include "store/outlier.h"

typedef unsigned __int128 u128;

/* A 256-bit unsigned integer, least significant limb first. */
struct u256 {
	uint64_t w[4];
};

/* The figures kept in a cluster's row. */
struct fig {
	long long n;
	__int128 s;
	struct u256 qq;
	long long keys, new_keys;
};

#define WHERE_KEY "suite_version = ?1 AND model_digest = ?2 AND hw_class = ?3 AND backend_name = ?4"

/* outlier_sums.c: the exact fixed-point sums (see the comment there). */
/* The limbs w[0..limbs-1] as big-endian bytes at p, and back. */
void be_put(unsigned char *p, const uint64_t *w, int limbs);
void be_get(const unsigned char *p, uint64_t *w, int limbs);
/* Adds (sign 1) or removes (sign −1) value x. */
void fig_move(struct fig *f, double x, int sign);
/* Mean and population standard deviation from the exact sums, and the
 * bounds outside which a run is flagged (infinite when σ = 0). */
void moments(const struct fig *f, double *mean, double *sd, double *lo, double *hi);

/* outlier.c: steps st to the end, appending the first column of each row
 * to ids when it is an array; *last gets the first column of the last row
 * (when last is set).  Resets st; a db_status. */
int step_all(sqlite3_stmt *st, json_t *ids, long long *last);
/* Prepares sql with the cluster key bound to ?1..?4 (NULL on failure). */
sqlite3_stmt *keyed(struct dbconn *w, const char *sql, const struct cluster_key *k);

/* outlier_keys.c: key stored one more run (sign 1) or one fewer (−1);
 * *tag (when set) gets the cache tag of a cluster that lost a new key. */
int key_count(struct dbconn *w, const char *key, int sign, unsigned *tag);
/* key's runs in cluster k go up (sign 1) or down (−1) by one; the
 * cluster's key counts in f follow. */
int cluster_key_move(struct dbconn *w, const struct cluster_key *k, const char *key,
		     int sign, struct fig *f);

#endif
