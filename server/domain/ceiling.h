/* ceiling.h: the memory-bandwidth arithmetic of decode (weights, KV cache,
 * fit and the tokens-per-second ceiling) over the reference data in
 * static/reference/.
 *
 * Units, everywhere: bytes and bytes per second in the functions, GB = 10^9
 * bytes and GB/s = 10^9 bytes per second on pages; context in tokens, and
 * "K" on pages is 1,024 tokens (the explainer's "8K" is 8,192 tokens).
 *
 * The reference data is loaded once at start-up and read-only afterwards;
 * the arithmetic functions are pure: no state, no allocation. */
#ifndef LLMS_CEILING_H
#define LLMS_CEILING_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

#define CEILING_GB 1e9        /* bytes in the pages' GB */
#define CEILING_K  1024.0     /* tokens in the pages' K */

struct ceiling_hw {
	const char *slug, *name, *source;
	double memory_gb, peak_gb_s, sustained;   /* sustained: fraction of peak */
};

struct ceiling_model {
	const char *id, *name, *pattern, *source;
	double total_params;      /* in the weights file */
	double active_params;     /* read per decode step (MoE: routed experts only) */
	int layers, kv_heads, head_dim;
	int full_layers;          /* cache grows with every token */
	int sliding_layers, window; /* cache holds at most window tokens */
	int fixed_layers;         /* recurrent state of fixed size ... */
	double fixed_bytes;       /* ... of this many bytes per layer and sequence */
};

/* A weight format or a KV cache type: bits stored per value, scales included. */
struct ceiling_bits {
	const char *id, *name, *source;
	double bits;
};

/* A weights format (the payload's model.format, "gguf") and the range of
 * quantizations a file of it without a label is taken to be: the lightest
 * (fewest bits, the highest ceiling) and the heaviest. */
struct ceiling_family {
	const char *id, *name, *source;
	const struct ceiling_bits *lightest, *heaviest;
};

struct ceiling_ref;

/* Loads hardware.json, models.json and formats.json from dir.  Returns the
 * data (free with ceiling_free), or NULL with a sentence in err. */
struct ceiling_ref *ceiling_load(const char *dir, struct err *err);
void ceiling_free(struct ceiling_ref *ref);

/* Lookups; NULL when unknown (callers then show no ceiling). */
const struct ceiling_hw *ceiling_hw(const struct ceiling_ref *ref, const char *slug);
const struct ceiling_model *ceiling_model(const struct ceiling_ref *ref, const char *id);
/* The model whose slugs list holds the site's model slug. */
const struct ceiling_model *ceiling_model_by_slug(const struct ceiling_ref *ref, const char *slug);
/* Weight format by id, or by one of its aliases, case ignored ("Q4_K_M", "4bit"). */
const struct ceiling_bits *ceiling_format(const struct ceiling_ref *ref, const char *name);
const struct ceiling_bits *ceiling_kv(const struct ceiling_ref *ref, const char *id);
/* A weights format family by its id ("gguf", case ignored); NULL when unknown. */
const struct ceiling_family *ceiling_family(const struct ceiling_ref *ref, const char *name);
/* The SHA-256 of the loaded files' JSON (keys sorted), so that what was
 * decided against one version of the reference data can be told apart. */
void ceiling_fingerprint(const struct ceiling_ref *ref, unsigned char out[32]);

/* The i-th entry of each list, in the files' order; NULL past the end. */
const struct ceiling_hw *ceiling_hw_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_model *ceiling_model_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_bits *ceiling_format_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_bits *ceiling_kv_at(const struct ceiling_ref *ref, size_t i);
/* The model's site slugs (a JSON array, borrowed). */
json_t *ceiling_model_slugs(const struct ceiling_ref *ref, const struct ceiling_model *m);

/* ---- the arithmetic (pure) ---- */

/* Sustained bytes per second of hw: peak x sustained fraction. */
double ceiling_sustained(const struct ceiling_hw *hw);

/* Bytes of the weights file: total parameters x bits / 8. */
double ceiling_weight_bytes(const struct ceiling_model *m, double weight_bits);
/* Bytes of weights one decode step reads: active parameters x bits / 8. */
double ceiling_read_weight_bytes(const struct ceiling_model *m, double weight_bits);
/* Bytes the cache grows by per token, per sequence: 2 (K and V) x full
 * layers x KV heads x head dim x bits / 8. */
double ceiling_kv_token_bytes(const struct ceiling_model *m, double kv_bits);
/* KV cache bytes of one sequence holding context tokens: the growing
 * layers, plus the sliding layers' min(context, window) tokens. */
double ceiling_kv_bytes(const struct ceiling_model *m, double kv_bits, double context);
/* Fixed recurrent state of one sequence (hybrid layers), in bytes. */
double ceiling_state_bytes(const struct ceiling_model *m);

/* One decode step at batch streams of context tokens each. */
struct ceiling_step {
	double weights;        /* bytes of the weights file */
	double read_weights;   /* bytes of weights read per step */
	double kv;             /* bytes of KV cache, all streams */
	double state;          /* bytes of fixed state, all streams */
	double read;           /* bytes read per step: read_weights + kv + state */
	double tok_s;          /* ceiling per stream: bandwidth / read */
	double aggregate;      /* all streams: batch x tok_s */
};
void ceiling_step(const struct ceiling_model *m, double weight_bits, double kv_bits,
		  double context, double batch, double bandwidth, struct ceiling_step *out);

/* The context (tokens) past which one sequence's cache is larger than the
 * weights: weight bytes / cache bytes per token.  With active set, the
 * weights one step reads (a mixture of experts reads fewer than it holds);
 * otherwise the whole file, as the explainer counts it.  0 when the cache
 * does not grow (no full-attention layer). */
double ceiling_crossover(const struct ceiling_model *m, double weight_bits,
			 double kv_bits, int active);

/* Appends v as numfmt_sig3 writes an estimate ("16.0", "8.50", "4.69",
 * "163", "1,235"), "–" when not finite, as the explainer prints figures. */
void ceiling_fmt3(struct buf *b, double v);
/* v with three significant digits as a new JSON string. */
json_t *ceiling_fmt3_json(double v);

/* ---- a measured run beside its ceiling (ceiling_run.c) ---- */

/* The decode context of a chat-short run when its payload does not say:
 * a 128-token prompt and 256 generated tokens. */
#define CEILING_CHAT_SHORT_CONTEXT 384

/* A run is flagged "above the bandwidth ceiling" when its decode is more
 * than this many times its ceiling (the top of the range when the ceiling
 * is a range).  The room it leaves: speculative decoding at batch size 1,
 * whose published speed-ups reach about 3.5x (several tokens accepted per
 * read of the weights), times the reference data's own error, up to about
 * 1.25x (the sustained share of peak bandwidth is assumed at 0.8, and a
 * preset's bits per weight vary by model): 3.5 x 1.25 is about 4.4,
 * rounded up to 5.  /methodology says the same. */
#define CEILING_FLAG_FACTOR 5.0

/* The batch-1 ceiling of a run: the model by its site slug, the weights by
 * the run's quantization label, an FP16 cache of context tokens, on the
 * hardware of hw_slug at its sustained bandwidth. */
struct ceiling_run {
	const struct ceiling_model *m;
	const struct ceiling_bits *f, *kv;
	const struct ceiling_hw *hw;
	double context, bandwidth;
	struct ceiling_step step;
};
/* 0 with out filled when model, format and hardware are all known; -1
 * when any is not (the page then shows no ceiling). */
int ceiling_of_run(const struct ceiling_ref *ref, const char *model_slug,
		   const char *quant, const char *hw_slug, double context,
		   struct ceiling_run *out);
/* The arithmetic of c as JSON, and measured tok/s as a share of the
 * ceiling when measured > 0: {model, format, bits_per_weight, hardware,
 * peak_gb_s, sustained_fraction, bandwidth_gb_s, context_tokens,
 * weights_read_gb, kv_cache_gb, state_gb, read_gb, ceiling_tok_s,
 * measured_tok_s, percent_of_ceiling, text{...}}, a new reference; NULL on
 * no memory. */
json_t *ceiling_run_json(const struct ceiling_run *c, double measured);

/* A run's ceiling where the reference data allows: exact when its
 * quantization label is known (low and high the same), else the range of
 * its weights format's family ("GGUF": Q4_K_M to Q8_0), low being the
 * heaviest format's ceiling and high the lightest's. */
struct ceiling_range {
	struct ceiling_run low, high;
	const struct ceiling_family *family;   /* NULL when exact */
};
/* 0 with out filled; -1 when the model or the hardware is unknown, or
 * neither the quantization nor the format is. */
int ceiling_range_of_run(const struct ceiling_ref *ref, const char *model_slug,
			 const char *quant, const char *format, const char *hw_slug,
			 double context, struct ceiling_range *out);
/* 1 when measured tok/s is above the top of c, 0 when not. */
int ceiling_above(const struct ceiling_range *c, double measured);
/* 1 when measured tok/s is more than CEILING_FLAG_FACTOR times the top of
 * c: the flag "above the bandwidth ceiling". */
int ceiling_flags(const struct ceiling_range *c, double measured);
/* c as JSON: ceiling_run_json() of the top of the range, with
 * "range" (null when exact, else {family, low_tok_s, high_tok_s,
 * low_format, high_format, text{low_tok_s, high_tok_s}}), "above"
 * (measured is above the top) and "text.ceiling" ("165" or
 * "150–290").  A new reference; NULL on no memory. */
json_t *ceiling_range_json(const struct ceiling_range *c, double measured);

#endif
