/* versions.h: typical figures per backend version and the speed changes
 * between consecutive versions (issue 26; contract section 8), kept in
 * tables combo_versions and changes (migration 0024).
 *
 * A version of a combination (suite, model slug, model digest, hardware
 * slug, backend) is a version_key() of domain/version.h: raw strings that
 * are one version ("b6200", "b6200-abc1234") are one row.  Over its counted
 * runs that are not flagged (status 'ok', outlier 0), each signing key
 * counts once, as the exact median of its decode there; the row holds the
 * median and quartiles over keys (exact, linear between order statistics
 * as domain/quantile.h places them), the keys, the runs and the key values.
 *
 * Who keeps them.  Triggers on runs name every (combination, raw version) a
 * write touches in version_dirty; versions_pass(), run on the writer thread
 * by the refresh thread (store/refresh.c) shortly after each commit,
 * recomputes those versions (one range of runs_version_key each: the cost
 * is the touched version's runs, never all runs) and then the changes of
 * their combinations: each pair of consecutive testable versions
 * (changes_find, domain/changes.h: >= 5 keys each, Mann-Whitney U, p <
 * 0.01) that differs is a row of changes, its found_at the time it first
 * qualified; a pair that stops differing is removed. */
#ifndef LLMS_VERSIONS_H
#define LLMS_VERSIONS_H

#include <jansson.h>

#include "store/db.h"

/* Dirty versions one pass recomputes at most (a pass is one writer job;
 * the refresh thread runs passes until none is left). */
#define VERSIONS_PASS_MAX 32
/* Changes a list returns at most. */
#define VERSIONS_LIST_MAX 200

/* On the writer thread (w): recomputes at most max dirty versions and the
 * changes of their combinations, removing them from version_dirty; *left
 * gets 1 when dirty versions remain, and touched (when not NULL) the
 * scopes of their models and hardware (store/scope.h).  A db_status. */
struct scope_set;
int versions_pass(struct dbconn *w, int max, int *left, struct scope_set *touched);

/* 1 when version_dirty holds a row (read on c), 0 when not, a negative
 * db_status on failure. */
int versions_dirty(struct dbconn *c);

/* The version chart of one model on one hardware: a new JSON array with
 * one object per (backend, weights digest) that has versions, backends by
 * name: {backend, digest, points: [{version, median_decode_tok_s,
 * p25_decode_tok_s, p75_decode_tok_s, keys, runs}, ...]}, points in
 * version order (oldest first), figures rounded to 0.01 tok/s.  Reads only
 * that model's versions.  NULL when the database fails or memory runs out. */
json_t *versions_series(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug);

/* The changes of suite, newest first (found_at, then id), at most limit
 * (<= VERSIONS_LIST_MAX), only backend's and hw's when they are not NULL:
 * *out gets a new array of {id, model_slug, digest, hw_slug, backend,
 * quant, model_name, hw_name, from_version, to_version, from_median_tok_s,
 * to_median_tok_s, from_keys, to_keys, change_pct, u, p, exact, found_at}
 * (medians rounded to 0.01 tok/s, names as names.h shows them).  One range
 * of an index.  A db_status. */
int versions_changes(struct dbconn *c, const char *suite, const char *backend, const char *hw,
		     int limit, json_t **out);

/* The statements of versions.c and versions_read.c, for the plan checks
 * of the tests. */
extern const char *const versions_sql[];
extern const char *const versions_read_sql[];

#endif
