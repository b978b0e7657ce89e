/* metrics.h: the counters behind /metrics, kept without a lock.
 *
 * Each thread adds to a shard of its own (a relaxed atomic add to a cache
 * line no other thread writes, unless more threads than shards run), and
 * a scrape sums the shards, so counting costs a request a few nanoseconds
 * and no waiting.  The label values of a family come as data from the
 * layer that knows them (the router's route patterns and kinds, the
 * cache's kinds of response), so this file knows no routes.
 * metrics_write() writes every family kept here in the Prometheus text
 * exposition format 0.0.4; the gauges a scrape reads from elsewhere (the
 * database, the log, the connections) are added by pages/page_metrics.c
 * with metrics_gauge(). */
#ifndef LLMS_METRICS_H
#define LLMS_METRICS_H

#include <stdint.h>

#include "util/buf.h"

#define METRICS_ROUTES 128      /* route table rows + 1 (0: no route matched) */
#define METRICS_KINDS 8         /* kinds of route, for the duration histogram */
#define METRICS_REPS 8          /* kinds of cached response */
#define METRICS_RESULTS 32      /* distinct upload results (error codes) */

/* The sets of label values a layer above hands in, once at start-up. */
enum metrics_labels {
	ML_ROUTE,     /* route patterns; index 0 is "none" (no route) */
	ML_KIND,      /* route kinds: "page", "data", "badge", ... */
	ML_REP,       /* the response cache's kinds */
	ML__MAX
};

/* Names the label values of set: names[i] for index i (n at most the
 * set's size; the strings must outlive the process's scrapes). */
void metrics_names(enum metrics_labels set, const char *const *names, unsigned n);

/* A request answered with status after micros microseconds, on route
 * (ML_ROUTE index) of kind (ML_KIND index). */
void metrics_request(unsigned route, unsigned kind, unsigned status, uint64_t micros);
/* A request on route refused by a rate limit (429). */
void metrics_rate_limited(unsigned route);
/* An upload's result: "accepted", "duplicate" or its error code (a string
 * with static storage).  Past METRICS_RESULTS distinct results, "other". */
void metrics_upload(const char *result);
/* A lookup in the response cache for a response of kind rep (ML_REP). */
void metrics_cache(unsigned rep, int hit);
/* A group commit of jobs writes. */
void metrics_group_commit(unsigned jobs);

enum metrics_counter {
	MC_CONN_REFUSED,         /* connections refused over --max-per-ip */
	MC_ACCESS_LOG_DROPPED,   /* access log lines dropped: the buffer was full */
	MC_ACCESS_LOG_ERRORS,    /* failed writes of the access log */
	MC_PAGES_AHEAD,          /* pages built ahead after start (warm.c) */
	MC_LIST_WRITES_ALL,      /* writes that made every kept list page stale */
	MC_LIST_WRITES_SCOPED,   /* writes that made only their scopes' pages stale */
	MC__MAX
};
void metrics_inc(enum metrics_counter c);

/* The sum of counter c over the shards (for tests and the page). */
uint64_t metrics_count(enum metrics_counter c);

/* Appends every family kept here, with its HELP and TYPE lines. */
void metrics_write(struct buf *b);

/* Appends one family of a single unlabelled sample: type is "gauge" or
 * "counter".  v is written as numfmt_shortest writes it. */
void metrics_gauge(struct buf *b, const char *name, const char *type, const char *help,
		   double v);

/* Appends a label value with the escapes the format wants (\\, \", \n). */
void metrics_label(struct buf *b, const char *value);

#endif
