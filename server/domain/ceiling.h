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

/* A binned part sold under its chip's name (an M3 Max with 30 GPU cores):
 * the bin refines the ceiling only and shares its chip's page. */
struct ceiling_bin {
	const char *name, *source;
	int gpu_cores, cpu_cores;          /* 0: not given */
	double memory_gb;                  /* the bin's own memory (a capacity variant), 0: the part's */
	const json_t *memory_options;      /* array of GB figures it is sold with, or NULL */
	double peak_gb_s;
};

struct ceiling_hw {
	const char *slug, *name, *source;
	double memory_gb, peak_gb_s, sustained;   /* sustained: fraction of peak */
	const char *vendor, *family, *form;       /* "nvidia", "nvidia-rtx-40", "desktop" */
	double memory_match_gb;            /* > 0: a memory variant whose name a sibling
					    * shares, told apart by the reported VRAM */
	const json_t *memory_options;      /* array of GB figures, or NULL */
	const json_t *aliases;             /* array of strings as tools print them, or NULL */
	struct ceiling_bin *bins;          /* nbins of them, or NULL */
	size_t nbins;
	int cpu;                           /* 1: a processor (its memory is the machine's RAM) */
};

/* A weight format or a KV cache type: bits stored per value, scales included. */
struct ceiling_bits {
	const char *id, *name, *source;
	double bits;
	const char *family;                /* "gguf", "mlx", "awq" ...; NULL for KV types */
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
	const char *family, *version, *size, *variant;  /* variant NULL for none */
	const struct ceiling_bits *native;  /* the format a share of the weights keeps
					     * whatever the file's label (gpt-oss: MXFP4
					     * experts), or NULL */
	double native_share;      /* that share of the active parameters ... */
	double native_share_total; /* ... and of all the file's */
	const json_t *aliases;    /* array of names as published */
	const json_t *llama_bench; /* array of llama-bench descriptions ("llama 8B"), or NULL */
};

/* 1 when m is a mixture of experts (it reads fewer weights than it holds). */
#define CEILING_MOE(m) ((m)->active_params < (m)->total_params * 0.95)

/* A weights format (the payload's model.format, "gguf") and the range of
 * quantizations a file of it without a label is taken to span: the lightest
 * (fewest bits, the highest ceiling) and the heaviest. */
struct ceiling_family {
	const char *id, *name, *source;
	const struct ceiling_bits *lightest, *heaviest;
};

struct ceiling_ref;
struct resolve_index;

/* Loads hardware.json, models.json, formats.json and names.json (the
 * resolver's rules, domain/resolve.h) from dir.  Returns the data (free
 * with ceiling_free), or NULL with a sentence in err. */
struct ceiling_ref *ceiling_load(const char *dir, struct err *err);
void ceiling_free(struct ceiling_ref *ref);

/* Lookups; NULL when unknown (callers then show no ceiling). */
const struct ceiling_hw *ceiling_hw(const struct ceiling_ref *ref, const char *slug);
const struct ceiling_model *ceiling_model(const struct ceiling_ref *ref, const char *id);
/* The model by its id, or by any spelling of its name the resolver knows
 * (resolve_model_name): a page slug, an old site slug, an Ollama tag. */
const struct ceiling_model *ceiling_model_by_slug(const struct ceiling_ref *ref, const char *slug);
/* Weight format by id, canonical name or one of its aliases, case ignored
 * ("Q4_K_M", "q4_k_m", "AWQ-4bit"); also a label that states its own bits
 * ("EXL2-4.0bpw", see resolve.h), as a format of the caller's: NULL for
 * those here (use resolve_quant). */
const struct ceiling_bits *ceiling_format(const struct ceiling_ref *ref, const char *name);
const struct ceiling_bits *ceiling_kv(const struct ceiling_ref *ref, const char *id);
/* A weights format family by its id ("gguf", case ignored); NULL when unknown. */
const struct ceiling_family *ceiling_family(const struct ceiling_ref *ref, const char *name);
/* The format with the fewest bits a weight of all the data knows: the most
 * generous ceiling a model allows when its format is unknown. */
const struct ceiling_bits *ceiling_lightest(const struct ceiling_ref *ref);
/* The format a label that names only a width ("4bit", "int4") means in
 * the weights family fam ("mlx": MLX-4bit); NULL when the data does not say. */
const struct ceiling_bits *ceiling_generic(const struct ceiling_ref *ref, const char *label,
					   const char *fam);
/* 1 when a weight format of family fam states its bits in its label
 * ("EXL2" files: "4.0bpw"), else 0. */
int ceiling_label_bits(const struct ceiling_ref *ref, const char *fam);
/* Whether backend runs on hw by the reference data (hardware.json's
 * "backends": every family of the vendors it names, or only the families
 * it lists): 1 yes, 0 no, -1 the data does not say (unknown backend, or
 * hw NULL). */
int ceiling_backend_runs(const struct ceiling_ref *ref, const char *backend,
			 const struct ceiling_hw *hw);
/* The i-th backend hardware.json names, in its order; NULL past the end. */
const char *ceiling_backend_at(const struct ceiling_ref *ref, size_t i);
/* The aliases of the i-th format (an array, borrowed); NULL when none. */
const json_t *ceiling_format_aliases(const struct ceiling_ref *ref, size_t i);
/* formats.json's "generic" object (width-only labels by family), borrowed;
 * NULL when none. */
const json_t *ceiling_generic_labels(const struct ceiling_ref *ref);
/* names.json's root object (the resolver's token lists), borrowed. */
const json_t *ceiling_names(const struct ceiling_ref *ref);
/* The resolver's index (domain/resolve.c builds it at load), borrowed. */
const struct resolve_index *ceiling_index(const struct ceiling_ref *ref);
/* The SHA-256 of the loaded files' JSON (keys sorted), so that what was
 * decided against one version of the reference data can be told apart. */
void ceiling_fingerprint(const struct ceiling_ref *ref, unsigned char out[32]);

/* The i-th entry of each list, in the files' order; NULL past the end. */
const struct ceiling_hw *ceiling_hw_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_model *ceiling_model_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_bits *ceiling_format_at(const struct ceiling_ref *ref, size_t i);
const struct ceiling_bits *ceiling_kv_at(const struct ceiling_ref *ref, size_t i);
/* The i-th weight format and model of the explainer's tables
 * (formats.json "explainer"), NULL past the end. */
const struct ceiling_bits *ceiling_explainer_format(const struct ceiling_ref *ref, size_t i);
const struct ceiling_model *ceiling_explainer_model(const struct ceiling_ref *ref, size_t i);
/* Effective bits a weight of model m read from a file labelled f: f's
 * bits, except for the share of the weights that keep the model's own
 * format whatever the label says (gpt-oss keeps MXFP4 experts). */
double ceiling_model_bits(const struct ceiling_model *m, const struct ceiling_bits *f,
			  int whole_file);

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

/* ---- fit (ceiling_run.c) ---- */

/* The overhead in memory beside the weights and the cache when nothing
 * else says (runtime buffers, the activations of one step): /fit's default. */
#define CEILING_FIT_OVERHEAD_GB 1.0

/* Whether a model fits a machine's memory: what one sequence of context
 * tokens needs (the weights file, its native share in the model's own
 * format; an FP16 cache; the fixed state; the overhead) and what the
 * machine has (its bin's memory when known, else its largest). */
struct ceiling_fit {
	double need_gb, have_gb;
	int fits;
};
/* 0 with out filled; -1 when m, f or hw is NULL. */
int ceiling_fit(const struct ceiling_ref *ref, const struct ceiling_model *m,
		const struct ceiling_bits *f, const struct ceiling_hw *hw, int bin, double context,
		double overhead_gb, struct ceiling_fit *out);
/* out as JSON: {fits, need_gb, have_gb, format, context_tokens, text:
 * {need_gb, have_gb, sentence: "needs 42.8 GB with Q4_K_M weights and a
 * 384-token context; this machine has 24 GB"}}, a new reference. */
json_t *ceiling_fit_json(const struct ceiling_fit *out, const struct ceiling_bits *f, double context);

/* ---- a measured run beside its ceiling (ceiling_run.c) ---- */

/* The decode context of a chat-short run when its payload does not say:
 * a 128-token prompt and 256 generated tokens. */
#define CEILING_CHAT_SHORT_CONTEXT 384

/* Two lines (issue 33, /methodology).  The physical line is the ceiling
 * at the maker's peak bandwidth: only a run above it is "above the
 * bandwidth ceiling".  The typical line, at the hardware's sustained share
 * of peak, is what gauges and predictions use.  A run more than
 * CEILING_FLAG_FACTOR times its peak-bandwidth ceiling is flagged
 * above_ceiling whatever its cluster's size: measured decode reaches about
 * 0.9 of peak, and the largest real gain of speculative decoding at batch
 * size 1 seen is under 1.5x.  When the run's format is unknown the flag is
 * judged against the most generous ceiling its model allows there (the
 * fewest bits a weight any real format uses, the fastest bin). */
#define CEILING_FLAG_FACTOR 1.5

/* The batch-1 ceiling of a run: the model by its site slug, the weights by
 * the run's quantization, an FP16 cache of context tokens, on the hardware
 * of hw_slug (one of its bins, or the full part). */
struct ceiling_run {
	const struct ceiling_model *m;
	const struct ceiling_bits *f, *kv;  /* f: the format, or a family's template
					     * for a label that states its bits */
	const struct ceiling_hw *hw;
	const struct ceiling_bin *bin;      /* the bin whose bandwidth this is; NULL: the part's */
	char format_name[32];               /* f's canonical name, or "EXL2-4.0bpw" */
	double bits;                        /* effective bits a weight read (ceiling_model_bits) */
	double context, bandwidth, peak;    /* sustained and peak bytes per second */
	struct ceiling_step step;           /* at the sustained bandwidth */
	double peak_tok_s;                  /* the same step at peak bandwidth */
};
/* 0 with out filled when model, format and hardware are all known (the
 * full part's bandwidth); -1 when any is not (the page then shows no
 * ceiling).  quant is a format id, name or alias, or a label with its own
 * bits ("EXL2-4.0bpw"). */
int ceiling_of_run(const struct ceiling_ref *ref, const char *model_slug,
		   const char *quant, const char *hw_slug, double context,
		   struct ceiling_run *out);
/* The arithmetic of c as JSON, and measured tok/s as a share of the
 * ceiling when measured > 0: {model, format, bits_per_weight, hardware,
 * peak_gb_s, sustained_fraction, bandwidth_gb_s, context_tokens,
 * weights_read_gb, kv_cache_gb, state_gb, read_gb, ceiling_tok_s,
 * peak_tok_s, measured_tok_s, percent_of_ceiling, percent_of_peak,
 * text{...}}, a new reference; NULL on no memory. */
json_t *ceiling_run_json(const struct ceiling_run *c, double measured);

/* A run's ceiling where the reference data allows: exact when its
 * quantization is known and its hardware has one bandwidth (low and high
 * the same); else a range: over its weights family's usual formats when
 * the quantization is unknown ("GGUF": Q4_K_M to Q8_0), and over the
 * hardware's bins when the bin is unknown.  low is the slowest end,
 * high the fastest. */
struct ceiling_range {
	struct ceiling_run low, high;
	const struct ceiling_family *family;   /* set when the quantization is unknown */
	int over_bins;                         /* 1 when the range spans bins */
};
/* 0 with out filled; -1 when the model or the hardware is unknown, or
 * neither the quantization nor the format is.  bin: 1 + the index of the
 * run's bin in hw->bins, or 0 when unknown (or the part has none). */
int ceiling_range_of_run_bin(const struct ceiling_ref *ref, const char *model_slug,
			     const char *quant, const char *format, const char *hw_slug,
			     int bin, double context, struct ceiling_range *out);
/* ceiling_range_of_run_bin with the bin unknown: what a combination of
 * runs on any of the part's bins is held to. */
int ceiling_range_of_run(const struct ceiling_ref *ref, const char *model_slug,
			 const char *quant, const char *format, const char *hw_slug,
			 double context, struct ceiling_range *out);
/* 1 when measured tok/s is above the top of c at peak bandwidth, so the
 * run is "above the bandwidth ceiling"; 0 when not, and always 0 when the
 * quantization is unknown (a range of formats never accuses a run). */
int ceiling_above(const struct ceiling_range *c, double measured);
/* The decode above which a run is flagged above_ceiling: CEILING_FLAG_FACTOR
 * times the most generous peak-bandwidth ceiling the data allows for it
 * (its format when known, else the lightest format there is; its bin when
 * known, else the fastest).  INFINITY when the model or the hardware is
 * unknown. */
double ceiling_flag_bound(const struct ceiling_ref *ref, const char *model_slug,
			  const char *quant, const char *hw_slug, int bin, double context);
/* c as JSON: ceiling_run_json() of the top of the range, with
 * "range" (null when exact, else {family, low_tok_s, high_tok_s,
 * low_format, high_format, over_bins, text{low_tok_s, high_tok_s}}),
 * "above" (ceiling_above), "flag_factor" and "text.ceiling" ("165" or
 * "150–290").  A new reference; NULL on no memory. */
json_t *ceiling_range_json(const struct ceiling_range *c, double measured);

#endif
