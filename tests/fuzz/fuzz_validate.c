/* fuzz_validate.c: libFuzzer target for payload validation (server/ingest/validate*.c
 * validate_payload_bytes): strict JSON parsing plus every schema rule.  The
 * clock is fixed so that a crashing input replays the same way. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ingest/validate.h"

/* 2026-04-28T10:12:00Z, the contract's example created_at. */
#define FUZZ_NOW 1777371120LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_fields f;
	struct err e;
	json_t *j = NULL;

	if (validate_payload_bytes(data, size, FUZZ_NOW, &j, &f, &e) == 0) {
		assert(j && f.suite_version && f.model_name && f.backend_name);
		assert(f.decode_tok_s > 0);
		assert(strlen(f.model_slug) < sizeof f.model_slug);
		/* The parsed value must validate again on its own. */
		assert(validate_payload(j, FUZZ_NOW, NULL, NULL) == 0);
		json_decref(j);
	} else {
		assert(!j && e.code && (e.status == 400 || e.status == 422));
		assert(memchr(e.message, '\0', sizeof e.message));
	}
	return 0;
}
