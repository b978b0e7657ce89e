/* resolve.h: from what an upload says to what it is (issue 32): the
 * reference model, the canonical quantization and the reference hardware
 * that the names real tools write stand for.
 *
 * The lists are data (static/reference/: models.json's and hardware.json's
 * aliases, formats.json's format aliases and width-only labels, names.json's
 * tokens); this file holds the rules that read a name with them:
 *
 * A model name.  Everything up to the last '/' or '\' goes (an organisation,
 * "hf.co/", a path), and an organisation that a quantizer's file name puts
 * before an underscore ("Qwen_Qwen3-30B-A3B"); the rest is slugged into
 * tokens.  The longest run of tokens that spells a format alias
 * ("q4-k-m", "awq", "mxfp4-moe"), a width-only label ("4bit") or a
 * format word ("gguf") is taken out, wherever it stands, and so are
 * shard suffixes ("00001-of-00003"), labels that state their bits
 * ("4.0bpw"), names.json's dropped words (instruct, chat, it ...) and a
 * leading vendor word (meta).  Letters then part from the digits that
 * follow them ("llama3" reads as "llama 3", so "llama3.1:8b" and
 * "Llama-3.1-8B" are one key), and the key is looked up among the models'
 * aliases, ids and, last, llama-bench's descriptions ("llama 8B").  A key
 * two models claim resolves to nothing: a wrong match is worse than none.
 *
 * A hardware string.  What a listing puts around the name goes: after the
 * last '=' or ':' ("Device 0: ...", "Chipset Model: ..."), from the first
 * '|' or ',' (", compute capability 8.9"), notes in brackets, a
 * "w/ <integrated GPU>" tail, the vendor words and names.json's dropped
 * words, and a core count ("16-Core").  The rest is looked up among the
 * hardware aliases; a name two memory variants share (RTX 3080 10GB and
 * 12GB) is told apart by the reported VRAM, or by a size in the name.
 * accelerator_summary names the machine; gpu_name may refine it (a laptop
 * part, a memory variant of it) but never replaces it with another; the
 * GPU cores named anywhere, hardware.cpu_cores and the reported memory
 * pick a binned chip's bin.
 *
 * A resolution costs a slugging pass and a few binary searches over the
 * index built at load; nothing is allocated. */
#ifndef LLMS_RESOLVE_H
#define LLMS_RESOLVE_H

#include <jansson.h>

#include "domain/ceiling.h"
#include "domain/version.h"
#include "util/err.h"
#include "util/slug.h"

struct resolve_index;

/* Builds the index of ref's aliases (called by ceiling_load).  NULL with
 * err set when out of memory. */
struct resolve_index *resolve_index_new(const struct ceiling_ref *ref, struct err *err);
void resolve_index_free(struct resolve_index *ix);
/* The index of the format whose id, canonical name or alias name is (as
 * a slug: "Q4_K_M" and "q4-k-m" alike), or -1 (ceiling_format's lookup). */
int resolve_format_at(const struct resolve_index *ix, const char *name);

/* What an upload says, borrowed from its payload. */
struct resolve_in {
	const char *model_name, *quant, *format, *backend;
	const char *accel, *gpu_name, *cpu_model;
	double vram_gb, ram_gb;     /* 0: not given */
	int cpu_cores, gpu_cores;   /* 0: not given */
};

/* A canonical quantization. */
struct resolve_quant {
	const struct ceiling_bits *f;  /* the format, or a family's template for a
					* label with its own bits; NULL: unknown */
	double bits;                   /* bits a weight; NAN when unknown */
	char name[32];                 /* canonical spelling ("Q4_K_M", "AWQ-4bit",
					* "EXL2-4.0bpw"); "" when unknown */
	const char *family;            /* the weights family ("gguf", "mlx", "awq")
					* the payload or the name gives; NULL */
};

/* What it is. */
struct resolve_out {
	const struct ceiling_model *model;   /* NULL: unresolved */
	const struct ceiling_hw *hw;         /* NULL: unresolved */
	int bin;                             /* 1 + index into hw->bins, 0: none or unknown */
	struct resolve_quant q;
	/* The page slugs: the reference ids when resolved, else the contract's
	 * slugs of the uploaded names (the hardware's without its notes). */
	char model_slug[SLUG_MAX + 1], hw_slug[SLUG_MAX + 1];
};

/* What the store keeps of a run's names (migration 0027). */
struct resolve_names {
	char model_slug[SLUG_MAX + 1], hw_slug[SLUG_MAX + 1];  /* the page slugs */
	char model_name[256], accelerator[256];  /* the names pages show (resolve_shown_name) */
	char quant[64];          /* the canonical quantization, else the label as sent; "" none */
	char format[64];         /* the payload's weights format, else the family its
				  * name or backend tells; "" none */
	int bin;                 /* 1 + the hardware bin's index, 0: none or unknown */
	char name_slug[SLUG_MAX + 1], accel_slug[SLUG_MAX + 1];  /* the uploaded names'
				  * own slugs when they differ from the page slugs, else "" */
	char backend_version[VERSION_SHOWN_MAX + 48];  /* the version pages show:
				  * version_shown() of the payload's (domain/version.h) */
};

/* Resolves a valid payload's names into out.  Returns 0, or -1 when a name
 * gives no slug at all (validation refuses those first). */
int resolve_payload(const struct ceiling_ref *ref, const json_t *payload, struct resolve_names *out);

/* Fills in from a valid payload (borrowed pointers). */
void resolve_in_of_payload(const json_t *payload, struct resolve_in *in);

/* Resolves in against ref (NULL: nothing resolves).  Returns 0, or -1 when
 * a name gives no slug at all (validation refuses those first). */
int resolve_run(const struct ceiling_ref *ref, const struct resolve_in *in, struct resolve_out *out);

/* The reference model a name or slug stands for, in any spelling the
 * resolver knows; NULL when none (or two). */
const struct ceiling_model *resolve_model_name(const struct ceiling_ref *ref, const char *name);
/* The reference hardware a name or slug stands for, without refinement
 * (a name memory variants share resolves to none); NULL when none. */
const struct ceiling_hw *resolve_hw_name(const struct ceiling_ref *ref, const char *name);

/* The canonical quantization of a payload's quantization and format fields
 * and its model name (a width-only or missing label is read from the name,
 * then by the family the format, the name or the backend gives).  Returns
 * 0 when known, -1 when not (out->family may still be set). */
int resolve_quant(const struct ceiling_ref *ref, const char *quant, const char *format,
		  const char *name, const char *backend, struct resolve_quant *out);

/* The name a page shows for a model or hardware (kind "model" or "hw")
 * whose page slug is slug and that a run uploaded as name: the reference's
 * display name when slug is a reference id, else name without what the
 * slug rules drop (an organisation and a trailing quantization for a model,
 * notes in brackets for hardware).  Appends to out. */
void resolve_shown_name(const struct ceiling_ref *ref, const char *kind, const char *slug,
			const char *name, struct buf *out);

/* The hardware's slug of accel without its notes (brackets, "w/ ..."),
 * as resolve_run gives an unresolved machine's page.  0, or -1 as slug_hw. */
int resolve_hw_slug(const char *accel, char *out, size_t n);

#endif
