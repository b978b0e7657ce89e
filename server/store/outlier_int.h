/* outlier_int.h: what the files of the flags and the typical figures share
 * (outlier.c, outlier_stmt.c, outlier_sums.c, outlier_keys.c,
 * outlier_median.c, outlier_pop.c, outlier_backfill.c, typical.c,
 * typical_hist.c); nothing
 * outside them includes it.  The contracts are outlier.h and typical.h. */
#ifndef LLMS_OUTLIER_INT_H
#define LLMS_OUTLIER_INT_H

#include <stdint.h>

#include "store/outlier.h"
#include "store/typical.h"

typedef unsigned __int128 u128;

/* A 256-bit unsigned integer, least significant limb first. */
struct u256 {
	uint64_t w[4];
};

/* Exact sums of the values of a population: n values (one per key), their
 * fixed-point sum s and sum of squares qq (outlier_sums.c). */
struct fig {
	long long n;
	__int128 s;
	struct u256 qq;
};

/* The verdict bits of runs.flag_bits (migration 0020). */
#define FLAG_CLUSTER 1     /* outside the bounds of its fingerprint cluster */
#define FLAG_COMBO   2     /* outside the bounds of its combination */
#define FLAG_CEILING 4     /* above its ceiling by more than the margin */

/* The bits of runs.marks (store/typical.h). */
#define MARK_ABOVE_PEAK TYPICAL_MARK_ABOVE_PEAK
#define MARK_DISPUTED   TYPICAL_MARK_DISPUTED

#define WHERE_KEY "suite_version = ?1 AND model_digest = ?2 AND hw_class = ?3 AND backend_name = ?4"
#define WHERE_COMBO "suite_version = ?1 AND model_slug = ?2 AND model_digest = ?3 " \
	"AND hw_slug = ?4 AND backend_name = ?5"

/* A run as the flag code knows it (copies of its row). */
struct frun {
	long long rowid;
	char id[16];
	char suite[64], model[129], digest[80], hw[129], backend[40], hw_class[170], key[100];
	double x, prefill, ttft;       /* prefill, ttft: NAN when unknown */
	int bits, outlier;
	char received[40];
	char net[40];                  /* its network (store/netkey.h), "" when none */
	int marks;                     /* runs.marks: MARK_ABOVE_PEAK, MARK_DISPUTED */
};
/* Its cluster and combination, pointing into r (outlier_stmt.c). */
struct cluster_key outlier_frun_cluster(const struct frun *r);
struct combo_key outlier_frun_combo(const struct frun *r);

/* ---- outlier_sums.c ---- */
/* The limbs w[0..limbs-1] as big-endian bytes at p, and back. */
void outlier_be_put(unsigned char *p, const uint64_t *w, int limbs);
void outlier_be_get(const unsigned char *p, uint64_t *w, int limbs);
/* Adds (sign 1) or removes (sign −1) value x. */
void outlier_fig_move(struct fig *f, double x, int sign);
/* A key's value went from old to new (has_old, has_new: it had / has one). */
void outlier_fig_replace(struct fig *f, int has_old, double old, int has_new, double now);
/* Mean and population standard deviation from the exact sums, and the
 * bounds outside which a run is flagged (infinite when σ = 0). */
void outlier_moments(const struct fig *f, double *mean, double *sd, double *lo, double *hi);
/* The sums as the two blobs of a row (16 and 32 bytes), and back; 0, or
 * -1 when the blobs are missing or of the wrong size. */
void outlier_fig_blobs(const struct fig *f, unsigned char s[16], unsigned char qq[32]);
int outlier_fig_of_blobs(struct fig *f, long long n, const void *s, int slen, const void *qq, int qqlen);

/* ---- outlier_stmt.c ---- */
/* Steps st to the end, appending the first column of each row to ids
 * when it is an array; *last gets the first column of the last row as an
 * integer (when last is set).  Resets st; a db_status. */
int outlier_step_all(sqlite3_stmt *st, json_t *ids, long long *last);
/* Prepares sql with the cluster key bound to ?1..?4 (NULL on failure). */
sqlite3_stmt *outlier_keyed(struct dbconn *w, const char *sql, const struct cluster_key *k);
/* The same with a combination bound to ?1..?5. */
sqlite3_stmt *outlier_combo_keyed(struct dbconn *w, const char *sql, const struct combo_key *k);

/* ---- outlier.c ---- */
/* Reads the run with this rowid (or, rowid 0, this id); DB_NOTFOUND. */
int outlier_frun_load(struct dbconn *w, long long rowid, const char *id, struct frun *r);
/* The flag a run's verdicts give: the ceiling's, else the cluster's when
 * the cluster has OUTLIER_MIN_KEYS keys, else the combination's. */
int outlier_flag_of_bits(int bits, int cluster_decides);

/* ---- outlier_clip.c: sigma clipping ---- */
/* A population: a cluster (c), or a combination (k and its row cid);
 * key, when set, is the one key whose row in combo_keys the caller holds
 * unwritten, with its value as it is now (has 0: it has none now). */
struct clip_pop {
	const struct cluster_key *c;
	const struct combo_key *k;
	long long cid;
	const char *key;
	int has;
	double val;
};
/* The mean and spread of population p after sigma clipping, from all, the
 * exact sums over every key value (contract section 4). */
int outlier_clip(struct dbconn *w, const struct clip_pop *p, const struct fig *all, double *mean,
		 double *sd);
/* The bounds outside which a run is flagged (infinite when sd is 0). */
void outlier_bounds(double mean, double sd, double *lo, double *hi);

/* ---- outlier_median.c: the exact median of one key's runs, a pointer
 * into an index that every change moves by one step at most ---- */
/* The lower middle of the key's n runs (by decode, then id), and the
 * median: that run's decode for odd n, the mean of it and the next one's
 * for even n. */
struct mptr {
	long long n;
	double x;
	char id[16];
	double val;
};
/* Which index: a key's runs in a cluster (runs_cluster_key), in a
 * combination (runs_combo_key, both flag values), or its unflagged runs
 * in a combination. */
enum mset_kind { MSET_CLUSTER, MSET_COMBO_ALL, MSET_COMBO_CLEAN };
struct mset {
	enum mset_kind kind;
	const struct cluster_key *c;   /* MSET_CLUSTER */
	const struct combo_key *k;     /* the others */
	const char *key;               /* the signing key */
};
/* The run (x, id) joined the set (it is in the index already): moves p. */
int outlier_mset_added(struct dbconn *w, const struct mset *s, struct mptr *p, double x, const char *id);
/* The run (x, id) left the set (it is no longer in the index): moves p. */
int outlier_mset_removed(struct dbconn *w, const struct mset *s, struct mptr *p, double x, const char *id);
/* p from columns i (x), i+1 (id), i+2 (val) of st, with n runs. */
void outlier_mptr_read(struct mptr *p, long long n, sqlite3_stmt *st, int i);
/* Binds p to parameters i (x), i+1 (id), i+2 (val): NULLs when empty. */
void outlier_mptr_bind(const struct mptr *p, sqlite3_stmt *st, int i);

/* ---- outlier_keys.c: signing keys ---- */
/* key stored one more run (sign 1) or one fewer (−1); *tag (when set) gets
 * the cache tag of a cluster that lost a new key. */
int outlier_key_count(struct dbconn *w, const char *key, int sign, unsigned *tag);
/* The cluster's figures as its row keeps them. */
struct cluster_row {
	int exists;
	long long runs, new_keys;
	struct fig f;                  /* f.n: keys */
	double mean, sd;               /* after sigma clipping: as stored, until
					* outlier_clip() sets them anew */
};
/* key's run (x, id) entered (sign 1) or left (−1) cluster k: its row in
 * cluster_keys (count, median) and the cluster's key count, new keys and
 * sums in row follow. */
int outlier_cluster_key_move(struct dbconn *w, const struct cluster_key *k, const char *key,
		     double x, const char *id, int sign, struct cluster_row *row);

/* ---- outlier_pop.c: the populations' rows ---- */
int outlier_cluster_row_load(struct dbconn *w, const struct cluster_key *k, struct cluster_row *row);
/* Writes row (removes it when no run counts), with its mean and spread. */
int outlier_cluster_row_store(struct dbconn *w, const struct cluster_key *k, const struct cluster_row *row);

/* A histogram pointer: bucket b, the values in buckets below it, and in
 * it with their sum (the bucket stands for their mean). */
struct hptr {
	int b;
	long long below, n;
	double sum;
};
/* A combination's row (combos): the flags' population and the typical
 * figures with their pointers (NAN: NULL). */
struct combo_row {
	int exists;
	long long cid;                 /* combos.cid (0 until the row exists) */
	char key_id[16];
	long long first_at;
	long long runs;
	struct fig f;                  /* f.n: keys */
	double mean, sd;               /* after sigma clipping, as for a cluster */
	long long disputed;            /* runs of the typical figures under open dispute */
	int confirmed;                 /* as stored; outlier_combo_row_store sets it anew */
	int stored_confirmed;
	long long t_runs, t_keys, pre_keys, ttft_keys;
	double med, p25, p75, med_prefill, med_ttft, best_decode;
	char best_id[16];
	struct hptr q[3], pre, ttft;
	/* The indexed figures as the row holds them (median, sort prefill,
	 * sort TTFT, best; NAN: NULL): the store writes only those that moved. */
	double stored[4];
	char stored_best_id[16];
};
/* A key's row in a combination (combo_keys). */
struct ckey_row {
	int exists;
	struct mptr all;               /* every counted run: all.n is runs */
	struct mptr clean;             /* the unflagged ones */
	long long pre_runs, ttft_runs;
	struct hptr pre, ttft;
	double pre_val, ttft_val;
	char net[40];                  /* the key's network there ("" none: its own) */
};
/* Reads combination k's row (row->exists 0 and cid 0 when it has none). */
int outlier_combo_row_load(struct dbconn *w, const struct combo_key *k, struct combo_row *row);
/* The same, and when k has no row yet, makes an empty one named by run id
 * (received at first_at), so that its key and bucket rows can name it. */
int outlier_combo_row_open(struct dbconn *w, const struct combo_key *k, const char *id, long long first_at,
		   struct combo_row *row);
/* Writes row back (drops it when no run counts), setting only the indexed
 * figures that moved since it was read. */
int outlier_combo_row_store(struct dbconn *w, const struct combo_key *k, struct combo_row *row);
/* A key's row in combination cid, read (exists 0 when none) and written
 * (dropped when the key has no counted run there). */
int outlier_ckey_row_load(struct dbconn *w, long long cid, const char *key, struct ckey_row *row);
int outlier_ckey_row_store(struct dbconn *w, long long cid, const char *key, const struct ckey_row *row);
/* key's run (x, id) entered (sign 1) or left (−1) the flags' population of
 * combination k: the key's median and the combination's sums follow. */
int outlier_combo_key_move(struct dbconn *w, const struct combo_key *k, const char *key,
		   double x, const char *id, int sign, struct ckey_row *kr, struct combo_row *cr);

/* ---- typical.c ---- */
/* Run r (its outlier column already 0, and counted) joins the typical
 * figures of its combination (sign 1), or (outlier already 1, or no longer
 * counted) leaves them (−1).  kr and cr, when set, are the loaded rows of
 * r's key and combination, which the caller stores; else they are loaded
 * and stored here. */
int typical_move(struct dbconn *w, const struct frun *r, int sign, struct ckey_row *kr,
		 struct combo_row *cr);
/* The combinations the verdicts of one change move runs in and out of,
 * each row read once and written once (typical_flush): the runs whose
 * verdict a moved bound changes share their combination, mostly. */
#define TBATCH_MAX 8
struct tbatch {
	int n;
	struct tbatch_row {
		struct frun r;             /* a run of it: k points into r */
		struct combo_key k;
		struct combo_row cr, old;
	} v[TBATCH_MAX];
};
/* typical_move() for a run whose verdict changed, its combination's row
 * kept in b (b's rows are written when b is full, and by typical_flush). */
int typical_move_batched(struct dbconn *w, const struct frun *r, int sign, struct tbatch *b);
/* Writes b's rows and follows the tops; b is empty after. */
int typical_flush(struct dbconn *w, struct tbatch *b);
/* After cr (of combination k) was stored with figures that differ from
 * before (old): the leading combination and best run of its model and its
 * hardware (model_index, hw_index) follow. */
int typical_tops(struct dbconn *w, const struct combo_key *k, const struct combo_row *old,
		 const struct combo_row *cr);
/* Recomputes the tops of every model and hardware of suite (the backfill). */
int typical_tops_all(struct dbconn *w);
/* ---- outlier_rebuild.c: from the runs, for the start-up fill ---- */
/* Cluster k's keys (counts, medians) and figures. */
int outlier_cluster_rebuild(struct dbconn *w, const struct cluster_key *k);
/* Combination k's keys and flag figures (its row then says filled = 1,
 * the typical figures empty), or the row dropped when no run counts. */
int outlier_combo_rebuild(struct dbconn *w, const struct combo_key *k);
/* Combination k's typical figures: its keys' rows, buckets and figures
 * (filled = 2), from its unflagged runs as flagged now. */
int outlier_typical_rebuild(struct dbconn *w, const struct combo_key *k);

/* ---- typical_hist.c: buckets and their pointers ---- */
/* One histogram: a key's buckets of one metric in a combination, or
 * (key "") the combination's buckets of its keys' values. */
struct hist {
	long long cid;                 /* combos.cid */
	const char *key;
	int metric;
};
/* Value v entered (sign 1) or left (−1) its bucket of h; total is the
 * number of values in h after the change; the pointers p[0..np-1] (one per
 * quantile qs[i]) follow.  A pointer is meaningless while total is 0. */
int typical_hist_move(struct dbconn *w, const struct hist *h, double v, int sign, long long total,
	      struct hptr *p, const double *qs, int np);
/* A value of h moved from old to now inside one bucket (the bucket's sum
 * follows, and the pointers at it). */
int typical_hist_adjust(struct dbconn *w, const struct hist *h, double old, double now,
		struct hptr *p, int np);
/* The row id in combo_hist of bucket b of combination cid's histogram of
 * metric (0 decode, 1 prefill, 2 TTFT): histograms take ids HIST_SPAN
 * apart, a bucket its histogram's base plus the bucket plus HIST_OFFSET
 * (buckets run from QUANTILE_ZERO_BUCKET to 12757). */
#define HIST_SPAN 16384
#define HIST_OFFSET 4096
long long typical_hist_id(long long cid, int metric, int b);
/* The value of quantile q of h's total values through p. */
int typical_hist_value(struct dbconn *w, const struct hist *h, const struct hptr *p, long long total,
	       double q, double *v);

#endif
