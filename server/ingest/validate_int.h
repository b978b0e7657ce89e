/* validate_int.h: what the files of the payload schema share (validate.c,
 * validate_rules.c, validate_bytes.c); nothing outside ingest/validate*.c
 * includes it.  The contract is validate.h. */
#ifndef LLMS_VALIDATE_INT_H
#define LLMS_VALIDATE_INT_H

#include "ingest/validate.h"

/* One validation: the server's clock, what was derived so far, the error. */
struct vctx {
	long long now;
	long long created;
	struct err *e;
};

#define HINT_SUITE "\"" VALIDATE_SUITE "\""
#define HINT_TIME "an RFC 3339 time in UTC such as \"2026-04-28T10:12:00Z\""
#define HINT_BACKEND "one of " VALIDATE_BACKENDS_TEXT
#define HINT_DIGEST "\"sha256:\" followed by 16 to 64 lowercase hex digits of the weights file's SHA-256"
#define HINT_FPRINT "a string of exactly 16 lowercase hex digits"
#define HINT_ACCEL "the accelerator's name, such as \"M3 Ultra\" or \"RTX 4090\""
#define HINT_MODEL "the model's name as published, with at least one ASCII letter or digit"
#define HINT_LABEL "a label as the tool prints it, such as \"Q4_K_M\" or \"gguf\", or leave it out"

/* validate.c: the error helpers. */
/* Reports an error with the given status and code; returns -1. */
int validate_fail(struct vctx *c, int status, const char *code, const char *field,
	 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Reports a 422 schema_violation at field; returns -1. */
int validate_bad(struct vctx *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The 1-based character number of byte offset at of str (well-formed
 * up to at), for messages that point at a character. */
size_t validate_nth(const char *str, long at);
/* Empties *e: status 0, no code, field and message "". */
void validate_err_clear(struct err *e);

/* validate_rules.c: the rules of single fields, beyond their kind; each
 * returns 0, or -1 with the error in c. */
int validate_check_suite(const json_t *v, const char *field, struct vctx *c);
int validate_check_time(const json_t *v, const char *field, struct vctx *c);
int validate_check_backend(const json_t *v, const char *field, struct vctx *c);
int validate_check_model_name(const json_t *v, const char *field, struct vctx *c);
int validate_check_digest(const json_t *v, const char *field, struct vctx *c);
int validate_check_accel(const json_t *v, const char *field, struct vctx *c);
int validate_check_fingerprint(const json_t *v, const char *field, struct vctx *c);
int validate_check_line(const json_t *v, const char *field, struct vctx *c);
int validate_check_label(const json_t *v, const char *field, struct vctx *c);

/* Writes into out (size n) the slug slug_fn gives the name as it reads
 * (util/confusable.h's confusable_latin), or "" when that is own, the
 * name's own slug, or there is none. */
void validate_lookalike_slug(const char *name, int (*slug_fn)(const char *, char *, size_t),
		    const char *own, char *out, size_t n);

#endif
