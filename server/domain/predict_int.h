/* predict_int.h: what predict.c shares with predict_backtest.c, below
 * predict.h; nothing outside the predictor includes it. */
#ifndef LLMS_PREDICT_INT_H
#define LLMS_PREDICT_INT_H

#include "domain/predict.h"

/* Indexes rows[0..n) into ix, uncalibrated: every step's method the time
 * model, no intervals.  0, or -1 when memory ran out (ix then empty). */
int predict_index_cells(const struct predict_combo *rows, size_t n, struct predict_index *ix);

#endif
