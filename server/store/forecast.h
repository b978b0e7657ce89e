/* forecast.h: the evidence domain/predict.c predicts from, read from
 * the combinations' typical figures, its backtest, and the calls the pages
 * use (issues 26 and 36; contract sections 8 and 9: predicted_decode_tok_s,
 * predicted_low, predicted_high, predicted_from, too_uncertain).
 *
 * Evidence.  Every combination of the suite with a median from at least
 * PREDICT_TEST_MIN_KEYS keys (table combos, store/typical.h) that the
 * reference data knows (its model by slug, the quantization its best run
 * names, its hardware), whose backend runs there and whose weights fit:
 * its model (the reference model's id, so that two slugs of one model are
 * one model), hardware, kin, backend, class, median, ceiling at the
 * chat-short context, keys and runs (domain/predict.h, predict_row).
 * predict() uses those with PREDICT_MIN_KEYS keys; the backtest tests all.
 *
 * The snapshot: those rows, their index and the backtest that calibrated
 * it, rebuilt together by the refresh thread (store/refresh.c) after
 * writes (forecast_refresh), at most once a second and never more
 * often than 20 times its own cost.  A request reads no combination row to
 * predict: a prediction is a lookup in the index (O(log n) per backend)
 * and, for forecast_for_combo, one probe for the quantization the model is
 * run at. */
#ifndef LLMS_FORECAST_H
#define LLMS_FORECAST_H

#include <jansson.h>

#include "domain/predict.h"
#include "store/db.h"

struct ceiling_ref;

/* What forecast_for_combo predicts when the model has no run naming its
 * quantization. */
#define PREDICT_READ_QUANT "Q4_K_M"
/* Backends a snapshot tells apart; the evidence of any further ones is
 * left out. */
#define PREDICT_READ_BACKENDS 16

/* Predicts chat-short decode for model_slug (a site slug, or a reference
 * model id) on hw_slug with backend into *out: the ceiling is that of the
 * quantization the model's best run names (else PREDICT_READ_QUANT) on
 * that hardware at chat-short context.  No figure (out->step
 * PREDICT_NONE, out->refusal and out->from saying why) where the reference
 * data says the backend does not run on that hardware, or the weights and
 * a chat-short cache do not fit its memory.  backend NULL: every backend
 * the evidence holds that runs there is tried and the best prediction kept
 * (the narrowest step first, then the highest figure); out->backend names
 * the backend predicted for.
 * Returns 0 (out->step PREDICT_NONE also when the ceiling is unknown, the
 * snapshot is not built yet or the evidence is too thin), or -1 when the
 * database failed. */
int forecast_for_combo(struct dbconn *c, const char *suite, const char *model_slug,
		      const char *hw_slug, const char *backend /* NULL = best/all */,
		      struct predict_result *out);

/* forecast_for_combo in two parts, for a page that predicts one model on
 * many hardware (/m/<model>): the quantization the model's best run names
 * (else PREDICT_READ_QUANT) into quant (0, or -1 when the database
 * failed), read once; then each prediction with it, which reads nothing
 * from the database. */
int forecast_quant(struct dbconn *c, const char *suite, const char *model_slug, char *quant,
		   size_t size);
int forecast_for_combo_quant(const char *suite, const char *model_slug, const char *hw_slug,
			     const char *backend, const char *quant, struct predict_result *out);
/* 1 when the reference data knows model_slug (a site slug or reference
 * id); where it does not, every prediction of it is PREDICT_NONE (no
 * ceiling, no class), so a page can leave its predictions out. */
int forecast_model_known(const char *model_slug);

/* The same against a ceiling the caller computed (/fit: its own format
 * quant, context and batch; the caller has judged the fit); ceiling <= 0
 * or a quant the data does not know: PREDICT_NONE.  hw_name (NULL: from
 * the reference data, else the slug) is for the basis text. */
int forecast_for_ceiling(struct dbconn *c, const char *suite, const char *model_slug,
			const char *hw_slug, const char *backend, double ceiling,
			const char *quant, const char *hw_name, struct predict_result *out);

/* Sets the contract's fields of r on row: predicted_decode_tok_s,
 * predicted_low, predicted_high (numbers; null without a figure or an
 * interval), predicted_width (high ÷ low), too_uncertain (boolean; null
 * without a figure) and predicted_from (the basis, always a string), with
 * predicted_step, predicted_method, predicted_class, predicted_models,
 * predicted_refusal and predicted_backend (null when empty) beside them.
 * Never touches a measured field.  0, or -1 when memory ran out. */
int forecast_json_fields(json_t *row, const struct predict_result *r);

/* The figures of r as pages print them, a new object: {tok_s, low, high,
 * width} (three significant digits; "" where r has none). */
json_t *forecast_text_json(const struct predict_result *r);

/* Rebuilds the snapshot of suite's evidence, its index and its backtest
 * from c (a reader) against ref when a write was owed (forecast_owe)
 * and the rebuild is due.  For the refresh thread; 1 when rebuilt, 0 when
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
