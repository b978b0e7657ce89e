/* outlier.h: cluster statistics and 3-sigma flags (contract section 4). */
#ifndef LLMS_OUTLIER_H
#define LLMS_OUTLIER_H

#include <jansson.h>

#include "db.h"

/* The cluster a run belongs to. */
struct cluster_key {
	const char *suite, *digest, *hw_class, *backend;
};

/* Recomputes, on the writer connection w inside the caller's transaction,
 * the cluster's population mean and standard deviation of chat-short
 * decode tok/s over its counted runs (status 'ok'), stores them in
 * clusters, and sets each run's outlier flag (more than 3 standard
 * deviations from the mean).  The work grows with the cluster, not with the
 * table.  When ids is an array, appends the id of every run of the cluster
 * whose page shows these figures.  Returns 0 or a negative db_status. */
int outlier_recompute(struct dbconn *w, const struct cluster_key *k, json_t *ids);

/* 1 when x is more than 3 standard deviations from mean (sd > 0). */
int outlier_is_flagged(double x, double mean, double sd);

#endif
