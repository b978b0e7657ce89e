/* predict.h: predicted decode speed where nothing was measured, and the
 * leave-one-model-out backtest of the predictor (issue 26).
 *
 * The prediction for a model on a hardware with a backend is the ceiling
 * of its weights on that hardware (tok/s, from the ceiling arithmetic; the
 * caller passes it as a number) times the typical efficiency, measured ÷
 * ceiling, of OTHER models there:
 *
 * - Evidence is a combination (suite, model digest, hardware, backend) of
 *   another model whose median decode comes from at least PREDICT_MIN_KEYS
 *   signing keys, each key counted once (issue 22's median over keys), and
 *   whose ceiling is known.  Its efficiency is median ÷ ceiling.  Thinner
 *   combinations are not used at all: one or two submitters cannot move a
 *   prediction.
 * - A model's efficiency is the median of its combinations' in the scope
 *   (its weights files; in the wider steps, its hardware or backends), so
 *   each model weighs as one.  The typical efficiency is the geometric
 *   mean over models, and the interval is the Student-t prediction
 *   interval on their logarithms at PREDICT_BAND (80%): mean ± t(0.90,
 *   n-1) × s × sqrt(1 + 1/n), s the models' standard deviation, never
 *   below PREDICT_MIN_SPREAD.  For efficiencies spread log-normally over
 *   models this holds a new model's efficiency 80% of the time; the
 *   backtest reports how often it does on the real data.  (The floor: a
 *   median of 8 keys whose values spread about ±10% is itself good to
 *   about 5%, so no interval claims less.)
 * - Steps, each tried when the one before has too little evidence:
 *   1. this backend on this hardware;
 *   2. this backend on all hardware (an efficiency is a share of each
 *      machine's own ceiling, so it carries over roughly), half-width
 *      × PREDICT_WIDEN_ALL_HW;
 *   3. all backends on this hardware, half-width × PREDICT_WIDEN_ALL_BACKENDS.
 *   A step has enough evidence when PREDICT_MIN_MODELS other models are in
 *   it; with none, no figure (only the ceiling).
 *
 * A prediction is always labelled predicted: the result carries its step
 * and predict_basis() writes what it rests on.  Pure: no state; predict()
 * allocates scratch and frees it. */
#ifndef LLMS_PREDICT_H
#define LLMS_PREDICT_H

#include <stddef.h>

#include "util/buf.h"

#define PREDICT_MIN_KEYS 8          /* keys a combination needs to be evidence */
#define PREDICT_MIN_MODELS 2        /* other models a step needs */
#define PREDICT_BAND 0.80           /* the interval's nominal coverage */
#define PREDICT_MIN_SPREAD 0.05     /* least standard deviation of log efficiency */
#define PREDICT_WIDEN_ALL_HW 1.5
#define PREDICT_WIDEN_ALL_BACKENDS 2.0
/* The backtest tests combinations measured by at least this many keys: a
 * combination leaves /wanted at 3 keys, as measured from then on. */
#define PREDICT_TEST_MIN_KEYS 3

enum predict_step {
	PREDICT_NONE = 0,            /* too little evidence: show the ceiling only */
	PREDICT_BACKEND_ON_HW,       /* step 1 */
	PREDICT_BACKEND_ALL_HW,      /* step 2 */
	PREDICT_ALL_BACKENDS_ON_HW,  /* step 3 */
};
#define PREDICT_STEPS 4

/* One combination's typical figure, as the store's summary row has it. */
struct predict_combo {
	const char *model;     /* model slug: what "other models" leaves out */
	const char *hw;        /* hardware slug */
	const char *backend;   /* backend name */
	double median;         /* median decode tok/s over keys (chat-short) */
	double ceiling;        /* ceiling tok/s of its weights on its hardware; <= 0 or NaN: unknown */
	int keys;              /* distinct signing keys behind median */
	long long runs;        /* counted runs behind it */
};

/* What to predict: the model (left out of the evidence), hardware and
 * backend, the ceiling tok/s of its weights there, and the hardware's
 * shown name for the basis text (NULL: its slug). */
struct predict_query {
	const char *model, *hw, *backend;
	double ceiling;
	const char *hw_name;
};

/* Room for the basis text: two names of at most 400 bytes (a payload's
 * 100 code points) and the words around them. */
#define PREDICT_FROM_MAX 1024

struct predict_result {
	enum predict_step step;      /* PREDICT_NONE: no figure; the rest 0 */
	double efficiency;           /* typical share of the ceiling */
	double eff_low, eff_high;    /* its interval */
	double tok_s, low, high;     /* ceiling × the above, rounded to 0.01 tok/s */
	double widen;                /* the step's widening of the interval: 1, 1.5, 2 */
	int models;                  /* other models the step rests on */
	int combos;                  /* their combinations */
	long long keys;              /* keys over those combinations (a key in two counts twice) */
	long long runs;              /* runs over those combinations */
	char from[PREDICT_FROM_MAX]; /* predict_basis() of this result: predicted_from */
	char backend[64];            /* the backend predicted for: set by the store's
				      * forecast_for_combo (its choice when asked for
				      * none); predict() leaves it "" */
};

/* Predicts q from rows[0..n) (any rows: those outside a step's scope, of
 * q->model, thinner than PREDICT_MIN_KEYS or without a ceiling are passed
 * over) into out, its basis text in out->from (cut between code points
 * should it not fit).  Returns 0 (out->step PREDICT_NONE when no step has
 * enough evidence or q->ceiling is unknown; out->from then says what was
 * missing), or -1 when memory ran out.
 * Cost: O(n + m log m), m the rows in a step's scope. */
int predict(const struct predict_combo *rows, size_t n, const struct predict_query *q,
	    struct predict_result *out);

/* The step as the JSON names it: "none", "backend_on_hardware",
 * "backend_on_all_hardware", "all_backends_on_hardware" (static). */
const char *predict_step_name(enum predict_step step);

/* Appends what r rests on, as predict() writes it into r->from, with the
 * hardware's shown name and the backend: "from 37 runs of 6 other models
 * on RTX 4090 with llama.cpp", the wider steps saying why and how much
 * wider ("..., as too few were measured on RTX 4090 (interval widened
 * 1.5×)"), and for PREDICT_NONE the minimum that was not met.  Plain text:
 * the caller escapes it for its context. */
void predict_basis(const struct predict_result *r, const char *hw_name, const char *backend,
		   struct buf *out);

/* The leave-one-model-out backtest: each combination measured by at least
 * PREDICT_TEST_MIN_KEYS keys, with a ceiling, predicted from the others
 * (its model left out entirely, as predict() does) and compared with its
 * measured median. */
struct predict_backtest {
	int tested;              /* combinations predicted (a step other than NONE) */
	int inside;              /* of them, measured median within [low, high] */
	int unpredicted;         /* eligible but too little evidence */
	int by_step[PREDICT_STEPS];   /* tested per step */
	double median_abs_pct;   /* median of |predicted / measured - 1| x 100; 0 when none */
	double inside_share;     /* inside / tested; 0 when none */
};

/* Runs the backtest over rows[0..n) into out.  Returns 0, or -1 when memory
 * ran out.  Cost: O(T × (n + m log m)) for T tested combinations: for the
 * bounded background job that keeps /methodology's figures, not a request. */
int predict_backtest(const struct predict_combo *rows, size_t n, struct predict_backtest *out);

#endif
