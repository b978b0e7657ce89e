/* forecast.h: the evidence domain/predict.c predicts from, read from
 * the combinations' typical figures, and the one call the pages use
 * (issue 26; contract section 8: predicted_decode_tok_s, predicted_low,
 * predicted_high, predicted_from).
 *
 * Evidence.  Every combination of the suite with a median from at least
 * PREDICT_TEST_MIN_KEYS keys (table combos, store/typical.h) whose ceiling
 * the reference data gives (its model by slug, the quantization its best
 * run names, its hardware; chat-short context): its model (the reference
 * model's id, so that two slugs of one model are one model), hardware,
 * backend, median, ceiling, keys and runs.  predict() uses only those with
 * PREDICT_MIN_KEYS keys; the backtest tests all of them.
 *
 * The rows are a snapshot in memory, rebuilt by the refresh thread
 * (store/refresh.c) after writes (forecast_refresh), at most once a
 * second and never more often than 20 times its own cost; the
 * leave-one-model-out backtest over it likewise, at most every 2 s.  A
 * request reads no combination row to predict: its cost is predict()'s
 * over the snapshot (O(n + m log m)) and, for forecast_for_combo, one probe
 * for the quantization the model is run at. */
#ifndef LLMS_FORECAST_H
#define LLMS_FORECAST_H

#include <jansson.h>

#include "domain/predict.h"
#include "store/db.h"

struct ceiling_ref;

/* What forecast_for_combo predicts when the model has no run naming its
 * quantization. */
#define PREDICT_READ_QUANT "Q4_K_M"

/* Predicts chat-short decode for model_slug (a site slug, or a reference
 * model id) on hw_slug with backend into *out: the ceiling is that of the
 * quantization the model's best run names (else PREDICT_READ_QUANT) on
 * that hardware at chat-short context.  backend NULL: every backend the
 * evidence holds is tried and the best prediction kept (the narrowest
 * step first, then the highest figure); out->backend names the backend
 * predicted for.
 * Returns 0 (out->step PREDICT_NONE when the ceiling is unknown, the
 * snapshot is not built yet or the evidence is too thin; out->from says
 * why), or -1 when the database or memory failed. */
int forecast_for_combo(struct dbconn *c, const char *suite, const char *model_slug,
		      const char *hw_slug, const char *backend /* NULL = best/all */,
		      struct predict_result *out);

/* The same against a ceiling the caller computed (/fit: its own format,
 * context and batch); ceiling <= 0: PREDICT_NONE.  hw_name (NULL: from
 * the reference data, else the slug) is for the basis text. */
int forecast_for_ceiling(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug, const char *backend, double ceiling,
			const char *hw_name, struct predict_result *out);

/* Sets the contract's fields of r on row: predicted_decode_tok_s,
 * predicted_low, predicted_high (numbers, null when r has no figure) and
 * predicted_from (the basis, always a string), with predicted_step
 * (predict_step_name) and predicted_backend (r->backend; null when
 * empty) beside them.
 * Never touches a measured field.  0, or -1 when memory ran out. */
int forecast_json_fields(json_t *row, const struct predict_result *r);

/* Rebuilds the snapshot of suite's evidence from c (a reader) against ref
 * when a write was owed (forecast_owe) and the rebuild is due, and the
 * backtest when it is due.  For the refresh thread; 1 when rebuilt, 0 when
 * not (yet), or a negative db_status. */
int forecast_refresh(struct dbconn *c, const struct ceiling_ref *ref, const char *suite);
/* A write happened: the next forecast_refresh that is due rebuilds. */
void forecast_owe(void);
/* 1 while a rebuild is owed. */
int forecast_owed(void);

/* The last backtest: *out, the time it was computed (time_now(); 0 when
 * none yet) in *at and the combinations the snapshot held.  0, or -1 when
 * none has run yet. */
int forecast_backtest(struct predict_backtest *out, long long *at, long long *rows);

/* Drops the snapshot (at exit, and between unit tests). */
void forecast_free(void);

/* The statements of forecast.c, for the plan checks of the tests. */
extern const char *const forecast_sql[];

#endif
