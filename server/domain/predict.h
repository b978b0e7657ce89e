/* predict.h: predicted decode speed where nothing was measured, learned
 * within kinds of model and weights, and the leave-one-model-out backtest
 * that calibrates it (issues 26 and 36).
 *
 * Evidence.  A combination (model, weights, hardware, backend) of another
 * model whose median decode comes from at least PREDICT_MIN_KEYS signing
 * keys and whose ceiling (tok/s, the bandwidth arithmetic's typical line;
 * the caller passes it as a number) is known.  Thinner combinations are
 * not evidence: one or two submitters cannot move a prediction.  Each
 * combination weighs as one.
 *
 * Classes.  Evidence is learned and applied within a class: dense or a
 * mixture of experts (MoE), times the width of the weights read (bits per
 * weight with their scales: up to PREDICT_W4_MAX_BITS is 4-bit, up to
 * PREDICT_W8_MAX_BITS 5- to 8-bit, above it 16-bit).  MoE runs reach a
 * far smaller share of their ceiling than dense ones, and 16-bit weights a
 * larger one than 4-bit.
 *
 * Steps, in this order, each tried when the one before holds fewer than
 * PREDICT_MIN_MODELS other models of the class with the backend:
 *   1. the same hardware;
 *   2. the hardware's kin: the same vendor and kind (NVIDIA GPUs, Apple
 *      silicon, AMD processors ...; predict_kin);
 *   3. all hardware;
 *   4. none: no figure, only the ceiling.
 *
 * Two ways to turn a step's evidence into a figure:
 * - the ratio: the ceiling times the geometric mean of the combinations'
 *   efficiencies (median ÷ ceiling);
 * - the time model: time per token = a ÷ ceiling + b, fitted to the
 *   combinations by least squares on relative error, so that a per-token
 *   overhead b (kernel launches, sampling) slows small, fast models more
 *   than large ones.  It holds only when a > 0, b >= 0 and the ceilings
 *   spread enough to tell a from b; elsewhere the ratio stands in.
 * The backtest decides, step by step, which of the two is used: the one
 * with the lower mean error on that step's points.
 *
 * Intervals.  The 80% interval is the figure times the 10th and 90th
 * percentiles of measured ÷ predicted over the backtest's points of that
 * step (PREDICT_MIN_RESIDUALS at least; else over all steps' points; else
 * none).  Its width is high ÷ low; one wider than PREDICT_TOO_WIDE, or
 * none at all, is too uncertain to rely on.
 *
 * Cost.  The evidence is indexed once (predict_index_build): per step, a
 * cell per (class, backend, hardware / kin / nothing) holding its running
 * sums, and within it a group per model.  A prediction is three lookups,
 * each a binary search for the cell and one for the asking model's group,
 * whose sums are subtracted: O(log n), never a scan.  Leaving a model out
 * is that subtraction, so the backtest predicts each tested combination
 * exactly as a page would for a model never measured. */
#ifndef LLMS_PREDICT_H
#define LLMS_PREDICT_H

#include <stddef.h>

#include "util/buf.h"

#define PREDICT_MIN_KEYS 8          /* keys a combination needs to be evidence */
#define PREDICT_MIN_MODELS 3        /* other models a step needs */
#define PREDICT_BAND 0.80           /* the interval's nominal coverage */
#define PREDICT_MIN_RESIDUALS 10    /* backtest points an interval is taken from */
#define PREDICT_TOO_WIDE 3.0        /* high ÷ low above which a figure is too uncertain */
#define PREDICT_W4_MAX_BITS 5.25    /* Q4_K_M 4.85, Q4_1 5.0; Q5_0 is 5.5 */
#define PREDICT_W8_MAX_BITS 12.0    /* Q8_0 8.5; F16 16 */
/* The time model needs this spread of log ceilings (standard deviation)
 * to tell the per-token overhead from the share of the ceiling. */
#define PREDICT_MIN_LOG_SPREAD 0.1
/* The backtest tests combinations measured by at least this many keys: a
 * combination leaves /wanted at 3 keys, as measured from then on. */
#define PREDICT_TEST_MIN_KEYS 3
/* The first rule of thumb the backtest compares with: this share of the
 * ceiling. */
#define PREDICT_RULE_SHARE 0.7

enum predict_step {
	PREDICT_NONE = 0,       /* too little evidence: show the ceiling only */
	PREDICT_SAME_HW,        /* step 1 */
	PREDICT_SAME_KIN,       /* step 2 */
	PREDICT_ALL_HW,         /* step 3 */
};
#define PREDICT_STEPS 4

enum predict_method {
	PREDICT_RATIO = 0,      /* the ceiling times the typical efficiency */
	PREDICT_TIME,           /* time per token = a ÷ ceiling + b */
};
#define PREDICT_METHODS 2

/* Why the store gives no figure however rich the evidence (set by the
 * store, store/forecast.h; predict() leaves PREDICT_OK). */
enum predict_refusal {
	PREDICT_OK = 0,
	PREDICT_CANNOT_RUN,     /* the reference data says the backend does not run there */
	PREDICT_NO_FIT,         /* the weights and cache exceed the machine's memory */
};

/* Classes: moe x 3 + width (0: 4-bit, 1: 5- to 8-bit, 2: 16-bit). */
#define PREDICT_CLASSES 6
/* The class of a model (moe 1 for a mixture of experts) read at bits per
 * weight; -1 when bits is not a positive number. */
int predict_class(int moe, double bits);
/* "dense-4bit", "dense-8bit", "dense-16bit", "moe-4bit" ... (static);
 * "unknown" out of range. */
const char *predict_class_name(int cls);
/* The same in words for the basis: "dense 4-bit", "MoE 5- to 8-bit". */
const char *predict_class_words(int cls);
/* The kin of hardware from its vendor ("nvidia", "amd", "intel",
 * "apple") and whether it is a processor: "nvidia", "amd", "amd-cpu",
 * "intel", "intel-cpu", "apple" (static), NULL for another vendor. */
const char *predict_kin(const char *vendor, int cpu);
/* "NVIDIA GPUs", "AMD processors", "Apple silicon" ... (static); kin
 * itself for one it does not know. */
const char *predict_kin_words(const char *kin);

/* One combination's typical figure, as the store's summary row has it. */
struct predict_combo {
	const char *model;     /* reference model id: what "other models" leaves out */
	const char *hw;        /* hardware slug */
	const char *kin;       /* predict_kin of the hardware; NULL: unknown */
	const char *backend;   /* backend name */
	int cls;               /* predict_class; out of range: not evidence */
	double median;         /* median decode tok/s over keys (chat-short) */
	double ceiling;        /* ceiling tok/s of its weights on its hardware; <= 0 or NaN: unknown */
	int keys;              /* distinct signing keys behind median */
	long long runs;        /* counted runs behind it */
};

/* Running sums of a set of combinations: count, the time model's normal
 * equations (u = efficiency, v = median tok/s), log ceilings and log
 * efficiencies, keys and runs. */
struct predict_sums {
	int n;
	double uu, uv, vv, u, v;
	double l, ll;          /* sum of ln(ceiling) and of its square */
	double e;              /* sum of ln(efficiency) */
	long long keys, runs;
};

/* One model's combinations in one cell. */
struct predict_group {
	const char *model;
	struct predict_sums s;
};

/* One cell of a step: its key (any of its combinations), its groups
 * (group[first .. first + ngroups), by model) and their sums. */
struct predict_cell {
	const struct predict_combo *key;
	size_t first, ngroups;
	struct predict_sums s;
};

/* One step's cells, sorted by key.  eff[first .. first + ngroups) holds
 * a cell's models' efficiencies (each the geometric mean of that model's
 * combinations in the cell), ascending: the ratio method takes their
 * median, so no one model, however many combinations it has, sets it. */
struct predict_level {
	struct predict_cell *cell;
	size_t ncells;
	struct predict_group *group;
	double *eff;
};

/* What the backtest decided and measured, that predictions use: per step
 * the method and the interval's log quantiles of measured ÷ predicted. */
struct predict_calib {
	enum predict_method method[PREDICT_STEPS];
	int have[PREDICT_STEPS];         /* 1: lo and hi are known */
	int pooled[PREDICT_STEPS];       /* 1: taken over all steps' points */
	double lo[PREDICT_STEPS], hi[PREDICT_STEPS];
};

/* The evidence indexed: borrows the rows, owns its arrays. */
struct predict_index {
	struct predict_level level[PREDICT_STEPS];   /* [PREDICT_NONE] unused */
	struct predict_calib calib;
};

/* What to predict: the model (left out of the evidence), hardware, its
 * kin, backend and class, the ceiling tok/s of its weights there, and the
 * hardware's shown name for the basis text (NULL: its slug). */
struct predict_query {
	const char *model, *hw, *kin, *backend;
	int cls;
	double ceiling;
	const char *hw_name;
};

/* Room for the basis text: two names of at most 400 bytes (a payload's
 * 100 code points) and the words around them. */
#define PREDICT_FROM_MAX 1024

struct predict_result {
	enum predict_step step;      /* PREDICT_NONE: no figure; the figures 0 */
	enum predict_method method;  /* what the figure came from */
	enum predict_refusal refusal;
	int cls;                     /* the query's class */
	double efficiency;           /* figure ÷ ceiling */
	double tok_s, low, high;     /* rounded to 0.01 tok/s; low, high 0 without an interval */
	int has_interval;
	double width;                /* high ÷ low; 0 without an interval */
	int too_uncertain;           /* no interval, or one wider than PREDICT_TOO_WIDE */
	double time_a, time_b;       /* the time model's a and b (seconds); 0 for the ratio */
	int models;                  /* other models the step rests on */
	int combos;                  /* their combinations */
	long long keys;              /* keys over those combinations (a key in two counts twice) */
	long long runs;              /* runs over those combinations */
	char from[PREDICT_FROM_MAX]; /* predict_basis() of this result: predicted_from */
	char backend[64];            /* the backend predicted for: set by the store
				      * (its choice when asked for none); predict()
				      * leaves it "" */
};

/* The leave-one-model-out backtest: each combination measured by at least
 * PREDICT_TEST_MIN_KEYS keys, with a ceiling and a class, predicted with
 * its model left out and compared with its measured median, beside the
 * two rules of thumb on the same points: PREDICT_RULE_SHARE x ceiling,
 * and the hardware's median efficiency (over other models' evidence
 * there; over all other models' where it has none) x ceiling.  Errors are
 * |predicted ÷ measured - 1| x 100. */
struct predict_errors {
	int n;
	double mean, median, p90, worst;   /* p90: nearest rank; all 0 when n is 0 */
};

struct predict_backtest {
	int tested;                  /* combinations predicted */
	int unpredicted;             /* testable but too little evidence */
	int by_step[PREDICT_STEPS];  /* tested per step */
	struct predict_errors site, share, hw_median;
	struct predict_errors step_site[PREDICT_STEPS], step_share[PREDICT_STEPS],
			      step_hw_median[PREDICT_STEPS];
	double method_mean[PREDICT_STEPS][PREDICT_METHODS];  /* mean error of each way, per step */
	/* Out of sample: each point's interval from the other models' points. */
	int inside;                  /* measured median within it */
	double coverage;             /* inside ÷ tested (no interval counts as outside); 0 when none */
	double median_width;         /* of those intervals; 0 when none */
	int too_wide;                /* points whose interval is too uncertain (or missing) */
	struct predict_calib calib;  /* what predictions use */
};

/* Indexes rows[0..n) (rows are borrowed and must outlive ix; those not
 * evidence are passed over) and calibrates the index by the backtest over
 * the same rows, whose figures go in *bt (NULL: not wanted).  Returns 0,
 * or -1 when memory ran out (ix then holds nothing).
 * Cost: O(n log n) to index, O(T log n + T x e) for the backtest of T
 * points (e: the most combinations one model has on one hardware). */
int predict_index_build(const struct predict_combo *rows, size_t n, struct predict_index *ix,
			struct predict_backtest *bt);
/* Frees what ix owns (a zeroed ix is fine). */
void predict_index_free(struct predict_index *ix);

/* Predicts q from ix into out, its basis text in out->from (cut between
 * code points should it not fit).  out->step is PREDICT_NONE when no step
 * has enough evidence or q's ceiling or class is unknown (out->from then
 * says what was missing).  A lookup: O(log n). */
void predict(const struct predict_index *ix, const struct predict_query *q,
	     struct predict_result *out);
/* The same with the method forced in every step (the backtest compares
 * them); out's interval from ix's calibration all the same. */
void predict_with(const struct predict_index *ix, const struct predict_query *q,
		  const enum predict_method method[PREDICT_STEPS], struct predict_result *out);

/* As the JSON names them (static): "none", "same_hardware",
 * "same_vendor", "all_hardware"; "ratio", "time"; null for PREDICT_OK
 * (NULL), "backend_cannot_run_there", "does_not_fit". */
const char *predict_step_name(enum predict_step step);
const char *predict_method_name(enum predict_method method);
const char *predict_refusal_name(enum predict_refusal refusal);

/* Appends what r rests on, as predict() writes it into r->from, with the
 * hardware's shown name, its kin and the backend: "from 37 runs of 6
 * other dense 4-bit models on RTX 4090 with llama.cpp, time per token
 * fitted to the ceiling"; the wider steps saying why ("..., as fewer than
 * 3 were measured on RTX 4090"); for PREDICT_NONE the minimum that was
 * not met.  Plain text: the caller escapes it for its context. */
void predict_basis(const struct predict_result *r, const char *hw_name, const char *kin,
		   const char *backend, struct buf *out);

/* ---- what the reference data says (predict_ref.c) ---- */

struct ceiling_ref;
struct ceiling_model;
struct ceiling_hw;

/* A combination as predictions see it: the model (reference entry), the
 * hardware, the ceiling tok/s of the weights there at the chat-short
 * context (the full part's bandwidth), the class and kin, and whether the
 * backend runs there and the weights and cache fit. */
struct predict_where {
	const struct ceiling_model *m;
	const struct ceiling_hw *hw;
	double ceiling;
	double peak;                     /* the same ceiling at the maker's peak bandwidth */
	int cls;
	const char *kin;
	enum predict_refusal refusal;    /* PREDICT_CANNOT_RUN first, then PREDICT_NO_FIT */
	double need_gb, have_gb;         /* the fit's memory: what it needs and has */
	char format[32];                 /* the weights' canonical name ("Q4_K_M") */
};

/* Reads model_slug (a site slug or reference id) with quant weights (an
 * id, name or alias, or a label with its own bits) on hw_slug with
 * backend (NULL: not judged) into out.  Returns 0, or -1 when the
 * reference data does not know the model, the format or the hardware. */
int predict_where(const struct ceiling_ref *ref, const char *model_slug, const char *quant,
		  const char *hw_slug, const char *backend, struct predict_where *out);

/* The evidence row of a measured combination (median tok/s from keys
 * keys over runs runs) into row, its strings borrowed from ref except
 * backend (the caller's): 0 when it is evidence, -1 when predict_where
 * fails or refuses it (a backend that cannot run there, weights that did
 * not fit: partly offloaded runs say nothing of a fitting one) or its
 * median is above the peak ceiling (no machine reads faster than its
 * peak: such a figure would teach an efficiency no run can have; issue
 * 37, H7). */
int predict_row(const struct ceiling_ref *ref, const char *model_slug, const char *quant,
		const char *hw_slug, const char *backend, double median, int keys, long long runs,
		struct predict_combo *row);

#endif
