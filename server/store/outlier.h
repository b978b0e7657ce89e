/* outlier.h: cluster statistics and 3-sigma flags (contract section 4),
 * kept incrementally: each change of a cluster costs O(log n + flags
 * changed), whatever the size of the cluster. */
#ifndef LLMS_OUTLIER_H
#define LLMS_OUTLIER_H

#include <jansson.h>

#include "store/db.h"

/* The cluster a run belongs to. */
struct cluster_key {
	const char *suite, *digest, *hw_class, *backend;
};

/* Decode rates enter the sums as q = round(x * OUTLIER_SCALE), an
 * integer, clamped to |q| <= 2^62 (|x| <= 4.6e9 tok/s, far beyond any real
 * rate; a clamped run is still compared by its real value). */
#define OUTLIER_SCALE 1e9L

/* The figures a page shows for a cluster: the columns n, mean, stddev,
 * keys and new_keys of table clusters, one row per cluster with a counted
 * run, for lists to join.  A signing key is "new" while it has stored
 * exactly one run on this server (table signing_keys, column runs = 1). */
struct cluster_figures {
	long long n;              /* counted runs (status 'ok') */
	double mean, stddev;      /* population, of chat-short decode tok/s */
	long long keys, new_keys; /* distinct signing keys behind them; new ones */
};

/* All of the following run on the writer connection w inside the caller's
 * transaction, and return 0 or a negative db_status.  When ids is an
 * array, they append the id of every run whose outlier flag changed. */

/* A new run was stored with status 'ok': counts its signing key and
 * enters it into its cluster k with value x.  When the key thereby stops
 * being new, the cluster of its first run shows one new key fewer:
 * *other_tag (when set) gets that cluster's cache_cluster_tag, else 0. */
int outlier_run_added(struct dbconn *w, const struct cluster_key *k, const char *id,
		      double x, const char *thumbprint, json_t *ids, unsigned *other_tag);

/* The run's status changed (a moderator upheld or dismissed a dispute):
 * it enters its cluster when its status is now 'ok' and leaves it
 * otherwise.  A run already where it belongs is left alone. */
int outlier_run_status_changed(struct dbconn *w, const char *id, json_t *ids);

/* The run is about to be deleted (a later withdrawal): takes it out of
 * its cluster and its signing key's count.  Call before the DELETE, and
 * drop the cache of the run's cluster (and of the key's other cluster,
 * whose new-key count may have grown) after the commit. */
int outlier_run_withdrawn(struct dbconn *w, const char *id, json_t *ids);

/* Rebuilds cluster k's figures, key counts and every member's flag from
 * its runs, in one pass over them (the backfill, and repairs). */
int outlier_recompute(struct dbconn *w, const struct cluster_key *k, json_t *ids);

/* Fills every cluster whose sums are missing (after migration 0006), a
 * few hundred clusters per transaction, reporting progress on stderr.
 * Must run before the writer thread starts.  err gets a message. */
int outlier_backfill(struct dbconn *w, char *err, size_t errlen);

/* The figures of cluster k read on connection c; DB_NOTFOUND when the
 * cluster has no counted run. */
int outlier_figures(struct dbconn *c, const struct cluster_key *k,
		    struct cluster_figures *out);

/* 1 when x is more than 3 standard deviations from mean (sd > 0): the
 * same test as the stored flags, x < mean - 3 sd or x > mean + 3 sd. */
int outlier_is_flagged(double x, double mean, double sd);

#endif
