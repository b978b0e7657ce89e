/* check_sample_run.h: a run ready for the store, made from the sample
 * payload (ingest/sample.h) the way the upload path makes one: validated,
 * its fields filled, digests computed.  For the unit tests of storage. */
#ifndef LLMS_CHECK_SAMPLE_RUN_H
#define LLMS_CHECK_SAMPLE_RUN_H

#include <check.h>
#include <jansson.h>
#include <string.h>
#include <time.h>

#include "ingest/sample.h"
#include "ingest/validate.h"
#include "store/run_store.h"

struct sample_run {
	struct run_new n;
	json_t *payload;
	char *text;
};

/* Fills s from the sample payload with options o, stored as the JWS bytes
 * jws signed by the key with thumbprint thumb (alg EdDSA). */
static inline void sample_run_init(struct sample_run *s, const struct sample_opts *o,
				   const char *jws, const char *thumb)
{
	json_t *p = sample_payload(o);
	struct err e;

	memset(s, 0, sizeof *s);
	s->text = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	ck_assert_ptr_nonnull(s->text);
	ck_assert_msg(validate_payload_bytes((unsigned char *)s->text, strlen(s->text),
					     (long long)time(NULL), &s->payload, &s->n.f, &e) == 0,
		      "%s: %s", e.field, e.message);
	s->n.payload = (unsigned char *)s->text;
	s->n.payload_len = strlen(s->text);
	s->n.jws = jws;
	s->n.jws_len = strlen(jws);
	s->n.thumbprint = thumb;
	s->n.alg = "EdDSA";
	s->n.j.run = run_store_run;
}

static inline void sample_run_free(struct sample_run *s)
{
	json_decref(s->n.affected);
	json_decref(s->payload);
	free(s->text);
}

#endif
