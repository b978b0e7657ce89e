/* validate.h: the upload payload schema (contract section 1), in one place.
 *
 * upload.c hands the JWS payload bytes to validate_payload_bytes(); past it,
 * every handler sees only fields that parsed and passed.  Every rule here is
 * also written down, with descriptions, in schema/payload.schema.json.
 *
 * Errors come back in a struct err: the HTTP status, the contract's error
 * code, the dotted path of the field at fault and one sentence a person can
 * act on.  Messages are plain ASCII; field paths name only members the
 * schema knows, never user-supplied keys.
 */
#ifndef LLMS_VALIDATE_H
#define LLMS_VALIDATE_H

#include <stddef.h>

#include "domain/ceiling.h"
#include <jansson.h>

#include "store/run_fields.h"
#include "util/err.h"

/* The suite this server knows; others get 422 unknown_suite. */
#define VALIDATE_SUITE "suite-v1"
/* The backends the leaderboard accepts (contract section 1), the one list:
 * NULL-ended, and as a sentence for error messages. */
extern const char *const validate_backends[];
#define VALIDATE_BACKENDS_TEXT "mlx, llama.cpp, vllm, ollama, exllamav2"
/* 1 when name is one of validate_backends. */
int validate_backend_known(const char *name);

/* 1 when s is a model digest as the payload may send it: "sha256:" and 16
 * to 64 lowercase hex digits; the one digest rule. */
int validate_digest_ok(const char *s);

/* created_at may be at most this many seconds ahead of the server's clock. */
#define VALIDATE_FUTURE_SKEW 600
/* created_at may not be earlier than 2023-01-01T00:00:00Z. */
#define VALIDATE_OLDEST_UNIX 1672531200LL
/* Arrays and objects may nest at most this deep in the payload bytes. */
#define VALIDATE_MAX_DEPTH 32
/* long-context-decay and concurrent-decode points, agent-trace turns. */
#define VALIDATE_MAX_ITEMS 64
/* No measured number (time, rate, count, GB) may exceed this. */
#define VALIDATE_NUM_MAX 1e12


/* The deepest nesting of arrays and objects in the n JSON bytes at p,
 * counting brackets outside strings, before any parser sees them (jansson
 * allows 2048 levels, and readers elsewhere, such as Python's json that
 * deploy/verify-export.py uses, recurse); stops counting past limit, so
 * the cost is bounded by n.  The payload, the protected header and a
 * withdrawal's payload are each held to VALIDATE_MAX_DEPTH. */
int validate_json_depth(const unsigned char *p, size_t n, int limit);

/* Parses the n payload bytes at p as JSON and validates them.  Parsing is
 * strict RFC 8259: no NUL bytes, valid UTF-8 (no BOM), no duplicate keys,
 * no \u0000 escapes, no number that overflows a double or a 64-bit integer,
 * nesting at most VALIDATE_MAX_DEPTH; any of these is 400 invalid_json with
 * the parser's line and column.  Well-formed JSON that is not an object is
 * 422 schema_violation with field "".  On success returns 0 and stores the
 * parsed payload in *out_json (the caller owns it: json_decref) and its fields
 * in *out (which borrow from it).  On failure returns -1, fills *err and sets
 * *out_json to NULL.  out_json may be NULL only when out is NULL too; out and
 * err may be NULL. */
int validate_payload_bytes(const unsigned char *p, size_t n, long long now_unix,
			   json_t **out_json, struct run_fields *out, struct err *err);

/* Validates an already-parsed payload against every rule of the contract;
 * now_unix is the server's clock for the "created_at not more than 10
 * minutes in the future" rule.  The first rule broken, in document order,
 * is reported.  Unknown members are ignored everywhere, and a member that is
 * optional may also be null.  Returns 0 with *out filled (out may be NULL),
 * or -1 with *err filled (err may be NULL). */
int validate_payload(const json_t *payload, long long now_unix,
		     struct run_fields *out, struct err *err);

/* Resolves the valid payload's names against the reference data ref (NULL:
 * nothing resolves; domain/resolve.h) into out, filled by validation: the
 * page slugs become the reference ids where the names resolve, and
 * model_name, accelerator, model_quant and model_format then point at the
 * name pages show, the canonical quantization (the label as sent when the
 * data does not know it) and the weights family (the payload's, or the
 * one the name or backend tells).  The uploaded strings stay in the
 * payload. */
void validate_resolve(const struct ceiling_ref *ref, const json_t *payload,
		      struct run_fields *out);

#endif
