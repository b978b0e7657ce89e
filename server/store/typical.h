/* typical.h: reading the typical figures of combinations (issue 22,
 * contract section 8), kept by the writer in table combos (typical.c).
 *
 * A combination is (suite, model slug, model digest, hardware slug,
 * backend).  Over its counted runs that are not flagged (flagged, withdrawn
 * and upheld runs never enter), each signing key counts once, as its own
 * median: the figures are the median and quartiles over keys of decode,
 * the medians over keys of prefill and TTFT, the runs and keys behind
 * them, and the best run.  Medians and quartiles are within
 * QUANTILE_PRECISION (0.6%) of the exact ones; figures are rounded as
 * printed (0.01 tok/s, 0.1 ms). */
#ifndef LLMS_TYPICAL_H
#define LLMS_TYPICAL_H

#include <jansson.h>
#include <sqlite3.h>

#include "store/db.h"

/* The columns typical_row() reads, in this order, of a table or alias c of
 * combos; a query selects them first (more columns may follow). */
#define TYPICAL_COLS(c) \
	c ".model_slug, " c ".model_digest, " c ".hw_slug, " c ".backend_name, " c ".key_id, " \
	c ".med, " c ".p25, " c ".p75, " c ".best_decode, " c ".best_id, " c ".t_runs, " \
	c ".t_keys, " c ".med_prefill, " c ".med_ttft, " c ".runs, " c ".first_at, " c ".confirmed, " \
	c ".disputed"
#define TYPICAL_NCOLS 18

/* The combination in st's row from column i on (TYPICAL_COLS) as JSON:
 * {model_slug, digest, hw_slug, backend, key_id, median_decode_tok_s,
 * p25_decode_tok_s, p75_decode_tok_s, best_decode_tok_s, best_run, runs,
 * keys, median_prefill_tok_s, median_ttft_ms, flagged_runs, one_submitter,
 * first_at, confirmed, disputed_runs}, figures rounded, unknown ones null.  A new reference; NULL
 * when out of memory. */
json_t *typical_row(sqlite3_stmt *st, int i);

/* One model on one hardware: every combination of model slug and hardware
 * slug in suite, one row per weights file and backend (digests kept apart),
 * the highest median first (ties: key_id), as typical_row() gives them
 * with the "quantization" and "format" its best run names.
 * Reads only that model's combinations on that hardware (one seek per
 * weights file of the model).  *out gets a new array; a db_status. */
/* The current version's figure of combination row o (typical_row()'s,
 * contract section 9): when /changes holds a live change between its
 * backend's versions, sets o's since_version to the newer side of the
 * newest change, and median_decode_tok_s, p25 and p75 to those over the
 * key values of that version and every later one (since_keys of them;
 * blended_decode_tok_s keeps the blend); else since_version is null and the blend stands.  Reads the
 * combination's changes and versions (a few rows of their unique
 * indexes).  A db_status. */
int typical_since(struct dbconn *c, const char *suite, json_t *o);

/* Where a run of decode x stands in its combination (suite, model,
 * digest, hw, backend): *out gets a new {median_decode_tok_s (the shown
 * figure, typical_since()'s), since_version, keys, confirmed, diff_pct
 * (x against that figure, rounded to 0.1), others (the keys besides the
 * run's own when own_key_counts), faster_pct (the share of those whose
 * key value is below x, half of those in x's own bucket)}, or null when no
 * key counts there.  Reads the combination's row, its changes and its
 * histogram of key values (a few hundred buckets at most).  A db_status. */
int typical_place(struct dbconn *c, const char *suite, const char *model, const char *digest,
		  const char *hw, const char *backend, double x, int own_key_counts, json_t **out);

int typical_model_hw(struct dbconn *c, const char *suite, const char *model, const char *hw,
		     json_t **out);

/* How lists rank a combination's median or best run (contract section 9:
 * confirmed rows first): the figure itself when the row is confirmed,
 * else the figure less TYPICAL_UNCONFIRMED_OFFSET, below every confirmed
 * one (decode is at most 1e12 tok/s).  combos.rank_med and rank_best,
 * model_index and hw_index's top_rank and best_rank hold it; the pages
 * show the figure. */
#define TYPICAL_UNCONFIRMED_OFFSET 1e13
static inline double typical_rank(double v, int confirmed)
{
	return confirmed ? v : v - TYPICAL_UNCONFIRMED_OFFSET;
}

/* 1 when d is a rank typical_rank can give for a figure v >= 0 (a page
 * cursor carries it): v itself, or v less the offset for any v below
 * half the offset. */
static inline int typical_rank_valid(double d)
{
	return d >= 0 || (d >= -TYPICAL_UNCONFIRMED_OFFSET && d < -TYPICAL_UNCONFIRMED_OFFSET / 2);
}

/* The bits of runs.marks (migration 0028): a counted, unflagged run so
 * marked stays in the figures but is never a combination's best run. */
#define TYPICAL_MARK_ABOVE_PEAK 1  /* above its peak-bandwidth ceiling (issue 33) */
#define TYPICAL_MARK_DISPUTED   2  /* under an open dispute */

/* Writer: sets the bits set and clears the bits clear of run id's marks;
 * when the run is in its combination's typical figures, the best run
 * (the fastest unmarked one), the count of disputed runs and the model's
 * and hardware's leaders follow.  A db_status (DB_NOTFOUND: no such run). */
int typical_marks_set(struct dbconn *w, const char *id, int set, int clear);

/* The statements of typical_read.c, for the plan checks of the tests. */
extern const char *const typical_read_sql[];

#endif
