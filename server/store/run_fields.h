/* run_fields.h: a run as the store keeps it, as the upload's validation
 * (ingest/validate.h) hands it over.  Here, below both, so that the store
 * need not know the payload schema. */
#ifndef LLMS_RUN_FIELDS_H
#define LLMS_RUN_FIELDS_H

#include "domain/resolve.h"

/* What the rest of the server needs from a valid payload.  The pointers are
 * borrowed from the json_t that was validated and live as long as it does. */
struct run_fields {
	const char *suite_version, *created_at;   /* created_at as sent (RFC 3339 UTC) */
	long long created_unix;                   /* created_at as seconds since the epoch */
	const char *client_name, *client_version;
	const char *backend_name, *backend_version;
	const char *model_name, *model_digest, *model_quant, *model_format; /* quant/format NULL when absent or null */
	const char *accelerator, *cpu_model, *fingerprint_hash;  /* fingerprint NULL when absent or null */
	double decode_tok_s, prefill_tok_s, ttft_ms;  /* from workloads.chat-short */
	double mem_gb;                            /* the memory the run reported, in GB:
	                                           * hardware.vram_gb when more than 0 (a
	                                           * GPU's own), else hardware.ram_gb
	                                           * (unified memory, or no GPU); 0: none
	                                           * (runs.mem_gb NULL; the cheatsheet's
	                                           * memory classes, migration 0017) */
	/* The page slugs: the contract's slugs of the names until
	 * validate_resolve() (ingest/validate.h) makes them the reference ids
	 * the names resolve to (domain/resolve.h). */
	char model_slug[128], hw_slug[128];
	/* What validate_resolve() made of the names (domain/resolve.h), where
	 * model_name, accelerator, model_quant and model_format then point;
	 * the exact uploaded strings stay in the signed payload. */
	struct resolve_names res;
	/* The slug each name reads as (util/confusable.h: look-alike letters
	 * as the ASCII ones, invisible characters left out) when that differs
	 * from its own slug, else "": the store refuses a name whose reading
	 * is another model's or hardware's slug (store/names.h). */
	char model_lookalike[128], hw_lookalike[128];
};

#endif
