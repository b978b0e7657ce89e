/* outlier.h: outlier flags (contract section 4) and the typical figures
 * they feed (typical.h), kept incrementally by the writer.
 *
 * The rule.  A run's fingerprint cluster is (suite, model digest, hardware
 * class, backend); its combination is (suite, model slug, model digest,
 * hardware slug, backend).  In each, every signing key counts once, as the
 * exact median chat-short decode of its counted runs there (status 'ok';
 * flagged runs count, but a run above its ceiling never does).  A run is
 * flagged when its own decode is more than 3 population standard
 * deviations from the mean of those key values, after sigma clipping
 * (outlier_clip.c: keys whose every run lies outside leave, and the rule
 * is applied again, at most OUTLIER_CLIP_ROUNDS times): of its
 * combination's always, and of its cluster's too when the cluster has
 * OUTLIER_MIN_KEYS keys or more; either flags it.  It is flagged whatever
 * their size when its decode is more than CEILING_FLAG_FACTOR times its
 * bandwidth ceiling (domain/ceiling.h).  A run is "checked" when it is
 * flagged or when a population that judges it has OUTLIER_MIN_KEYS keys:
 * below that a key whose runs agree cannot be flagged (Samuelson's
 * inequality: no value lies more than sqrt(n - 1) standard deviations from
 * the mean of n), so an unflagged run there is no finding.
 *
 * Cost.  Each change of a cluster or combination costs a few index seeks
 * (a key's median is a pointer that one run moves by one step at most),
 * plus one row write per run whose verdict changes, whatever the number of
 * runs, keys or clusters. */
#ifndef LLMS_OUTLIER_H
#define LLMS_OUTLIER_H

#include <jansson.h>

#include "store/db.h"

struct ceiling_ref;

/* Below this many keys a population cannot flag a key whose runs agree. */
#define OUTLIER_MIN_KEYS 11
/* A combination is confirmed (contract section 9) when this many keys
 * count in its figures, from this many networks (any networks when the
 * network cap is lifted, store/netcap.h). */
#define OUTLIER_CONFIRM_KEYS 3
#define OUTLIER_CONFIRM_NETS 2
/* Sigma clipping stops after this many rounds (contract section 4). */
#define OUTLIER_CLIP_ROUNDS 10

/* 1 when a run's cluster (ckeys keys) rather than its combination (wkeys)
 * is the population its page and lists show as deciding, given its
 * verdict bits (runs.flag_bits: 1 outside the cluster's bounds, 2 the
 * combination's): the cluster judges (11 keys) and flags it alone, or
 * neither flags it and the cluster has more keys. */
static inline int outlier_by_cluster(long long ckeys, long long wkeys, long long bits)
{
	return ckeys >= OUTLIER_MIN_KEYS && ((bits & 3) == 1 || (!(bits & 2) && ckeys > wkeys));
}

/* The cluster a run belongs to. */
struct cluster_key {
	const char *suite, *digest, *hw_class, *backend;
};

/* The combination a run belongs to. */
struct combo_key {
	const char *suite, *model, *digest, *hw, *backend;
};

/* Decode rates enter the sums as q = round(x * OUTLIER_SCALE), an
 * integer, clamped to |q| <= 2^62 (|x| <= 4.6e9 tok/s, far beyond any real
 * rate; a clamped run is still compared by its real value). */
#define OUTLIER_SCALE 1e9L

/* The tag of cluster (suite, digest, hw_class, backend): a hash, never 0,
 * that the layers above keep a page showing the cluster's figures under,
 * and drop it by when the cluster changes (http/cache.h).  NULL parts
 * count as "". */
unsigned outlier_cluster_tag(const char *suite, const char *digest, const char *hw_class,
			     const char *backend);

/* A run just inserted with status 'ok', outlier 0 and flag_bits 0, as the
 * writer has it. */
struct outlier_run {
	const char *id, *received_at;
	struct cluster_key c;
	struct combo_key k;
	const char *key;                  /* the signing key's thumbprint */
	double x, prefill, ttft;          /* chat-short; prefill, ttft NAN when unknown */
	const char *quant, *format;       /* for the ceiling (NULL: unknown) */
	int bin;                          /* the hardware's bin (runs.hw_bin), 0: unknown */
	const char *net;                  /* its network (store/netkey.h); NULL or "": none */
};


/* All of the following run on the writer connection w inside the caller's
 * transaction, and return 0 or a negative db_status.  When ids is an
 * array, they append the id of every run whose outlier flag changed. */

/* A new run was stored: counts its signing key, enters it into its
 * cluster, its combination and (unflagged) its typical figures, flags it
 * when it stands out or is above its ceiling, and moves every flag the new
 * figures move.  When the key thereby stops being new, the cluster of its
 * first run shows one new key fewer: *other_tag (when set) gets that
 * cluster's outlier_cluster_tag, else 0. */
int outlier_run_added(struct dbconn *w, const struct outlier_run *r, json_t *ids,
		      unsigned *other_tag);

/* The run's status has just changed (a ruling, a withdrawal): it enters
 * everything when its status is now 'ok' and leaves everything otherwise.
 * The caller calls this only when the status did change. */
int outlier_run_status_changed(struct dbconn *w, const char *id, json_t *ids);

/* Fills what migration 0020 left to do (and the ceiling flags when the
 * reference data changed), reporting progress on stderr.  Must run before
 * the writer thread starts.  err gets a message. */
int outlier_backfill(struct dbconn *w, struct err *err);

/* Judges every counted run against its ceiling again (as outlier_backfill
 * does when the reference data changed), after the runs' names moved. */
int outlier_backfill_ceilings(struct dbconn *w, struct err *err);

/* Rebuilds every cluster, combination, flag and typical figure from the
 * runs, as outlier_backfill does after migration 0020 (tests, repairs). */
int outlier_rebuild_all(struct dbconn *w);

/* 1 when x is more than 3 standard deviations from mean (sd > 0): the
 * same test as the stored verdicts, x < mean - 3 sd or x > mean + 3 sd. */
int outlier_is_flagged(double x, double mean, double sd);

/* 1 when a run of this model, weights and hardware (bin: runs.hw_bin) at
 * decode x is above ceiling_flag_bound() (domain/ceiling.h): more than
 * 1.5 times its peak-bandwidth ceiling, or the most generous one the data
 * allows when the format is unknown; 0 when the data cannot tell. */
int outlier_above_ceiling(const char *model_slug, const char *quant, const char *hw_slug,
			  int bin, double x);

/* 1 when such a run is above its peak-bandwidth ceiling (the bound above
 * divided by CEILING_FLAG_FACTOR): "above the bandwidth ceiling", marked,
 * never a best run (store/typical.h), though not flagged below the bound. */
int outlier_above_peak(const char *model_slug, const char *quant, const char *hw_slug, int bin,
		       double x);

/* Every statement the writer's flag and typical code runs per change, one
 * array per file, NULL-ended: for the test that plans each on an index. */
extern const char *const outlier_sql[], *const outlier_median_sql[], *const outlier_pop_sql[],
	*const outlier_keys_sql[], *const typical_hist_sql[], *const typical_tops_sql[],
	*const outlier_clip_sql[];

#endif
