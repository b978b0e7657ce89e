/* check_validate_rules.c: the single-field rules of
 * server/ingest/validate_rules.c (suites, backends, digests, fingerprints,
 * names, the time window), through the payload validator's public face on
 * the sample payload (ingest/sample.h).  check_validate.c walks the whole
 * schema; this file pins each rule's edges and sentences. */
#include <jansson.h>

#include "check_util.h"
#include "ingest/sample.h"
#include "ingest/validate.h"

#define NOW 1777371120LL   /* 2026-04-28T10:12:00Z */

/* The sample payload with member key of object at (NULL: the top) set to
 * v (stolen; NULL removes it), validated at NOW; the error in *e. */
static int with(const char *at, const char *key, json_t *v, struct err *e)
{
	struct sample_opts o = { .fingerprint = "3f9a0c11d2e4b5a6", .created_at = "2026-04-28T10:00:00Z" };
	json_t *p = sample_payload(&o), *obj = at ? json_object_get(p, at) : p;
	int rc;

	ck_assert_ptr_nonnull(obj);
	if (v)
		json_object_set_new(obj, key, v);
	else
		json_object_del(obj, key);
	memset(e, 0, sizeof *e);
	rc = validate_payload(p, NOW, NULL, e);
	json_decref(p);
	return rc;
}

/* with(), expecting a refusal at field with code; returns the message. */
static const char *refused(const char *at, const char *key, json_t *v, const char *code,
			   const char *field)
{
	static struct err e;

	ck_assert_msg(with(at, key, v, &e) == -1, "%s.%s accepted", at ? at : "", key);
	ck_assert_str_eq(e.code, code);
	ck_assert_str_eq(e.field, field);
	ck_assert_uint_eq(e.status, 422);
	return e.message;
}

static void accepted(const char *at, const char *key, json_t *v)
{
	struct err e;

	ck_assert_msg(with(at, key, v, &e) == 0, "%s.%s: %s", at ? at : "", key, e.message);
}

START_TEST(the_sample_payload_passes)
{
	accepted(NULL, "suite_version", json_string(VALIDATE_SUITE));
}
END_TEST

/* Every backend of the list is accepted, and the sentence lists exactly
 * them (the one list: a new backend must be added to both). */
START_TEST(backends_and_their_sentence_agree)
{
	const char *const *b;
	char text[256] = "";
	size_t n = 0;

	for (b = validate_backends; *b; b++) {
		ck_assert(validate_backend_known(*b));
		accepted("backend", "name", json_string(*b));
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? ", " : "", *b);
	}
	ck_assert_str_eq(text, VALIDATE_BACKENDS_TEXT);
	ck_assert(!validate_backend_known("MLX"));
	ck_assert(!validate_backend_known("mlx "));
	ck_assert(!validate_backend_known(""));
	ck_assert(strstr(refused("backend", "name", json_string("hosted-api"), "hosted_api_rejected",
				 "backend.name"), "local hardware only"));
	ck_assert(strstr(refused("backend", "name", json_string("tgi"), "schema_violation", "backend.name"),
			 VALIDATE_BACKENDS_TEXT));
	ck_assert(strstr(refused(NULL, "suite_version", json_string("suite-v2"), "unknown_suite",
				 "suite_version"), VALIDATE_SUITE));
}
END_TEST

/* A digest is "sha256:" and 16 to 64 lowercase hex digits. */
START_TEST(digest_edges)
{
	char d[100];

	strcpy(d, "sha256:");
	memset(d + 7, 'a', 16);
	d[23] = '\0';
	ck_assert(validate_digest_ok(d));
	d[22] = '\0';
	ck_assert(!validate_digest_ok(d));                       /* 15 digits */
	memset(d + 7, '0', 64);
	d[71] = '\0';
	ck_assert(validate_digest_ok(d));
	accepted("model", "digest", json_string(d));
	d[71] = 'f';
	d[72] = '\0';
	ck_assert(!validate_digest_ok(d));                       /* 65 digits */
	ck_assert(!validate_digest_ok("SHA256:0123456789abcdef"));
	ck_assert(!validate_digest_ok("sha256:0123456789abcdeF"));
	ck_assert(!validate_digest_ok("sha256:0123456789abcdeg"));
	ck_assert(!validate_digest_ok("sha256: 123456789abcdef"));
	ck_assert(!validate_digest_ok("sha512:0123456789abcdef"));
	ck_assert(!validate_digest_ok(""));
	ck_assert(strstr(refused("model", "digest", json_string("sha256:xyz"), "schema_violation",
				 "model.digest"), "16 to 64 lowercase hex digits"));
}
END_TEST

START_TEST(fingerprint_is_sixteen_lowercase_hex)
{
	accepted("hardware", "fingerprint_hash", json_string("0123456789abcdef"));
	accepted("hardware", "fingerprint_hash", NULL);
	refused("hardware", "fingerprint_hash", json_string("0123456789ABCDEF"), "schema_violation",
		"hardware.fingerprint_hash");
	refused("hardware", "fingerprint_hash", json_string("0123456789abcde"), "schema_violation",
		"hardware.fingerprint_hash");
	ck_assert(strstr(refused("hardware", "fingerprint_hash", json_string("0123456789abcdef0"),
				 "schema_violation", "hardware.fingerprint_hash"), "exactly 16"));
}
END_TEST

/* A model or hardware name must give a slug: something beyond vendor
 * words and punctuation. */
START_TEST(names_must_give_a_slug)
{
	accepted("model", "name", json_string("\xe9\x80\x9a\xe4\xb9\x89-7B"));
	ck_assert(strstr(refused("model", "name", json_string("\xe9\x80\x9a\xe4\xb9\x89"),
				 "schema_violation", "model.name"), "no ASCII letter or digit"));
	refused("model", "name", json_string("--/--"), "schema_violation", "model.name");
	accepted("hardware", "accelerator_summary", json_string("NVIDIA RTX 4090"));
	ck_assert(strstr(refused("hardware", "accelerator_summary", json_string("NVIDIA GeForce"),
				 "schema_violation", "hardware.accelerator_summary"), "beyond a vendor word"));
	refused("hardware", "accelerator_summary", json_string("Apple"), "schema_violation",
		"hardware.accelerator_summary");
}
END_TEST

/* created_at: each way of being wrong has its own sentence, and the
 * window is [2023-01-01, now + 600 s]. */
START_TEST(time_window_and_sentences)
{
	ck_assert(strstr(refused(NULL, "created_at", json_string("2026-04-28T12:12:00+02:00"),
				 "schema_violation", "created_at"), "must be in UTC"));
	ck_assert(strstr(refused(NULL, "created_at", json_string("2026-02-29T10:00:00Z"),
				 "schema_violation", "created_at"), "not a real calendar date"));
	ck_assert(strstr(refused(NULL, "created_at", json_string("yesterday"),
				 "schema_violation", "created_at"), "RFC 3339"));
	accepted(NULL, "created_at", json_string("2023-01-01T00:00:00Z"));
	ck_assert(strstr(refused(NULL, "created_at", json_string("2022-12-31T23:59:59Z"),
				 "schema_violation", "created_at"), "before 2023-01-01"));
	accepted(NULL, "created_at", json_string("2026-04-28T10:22:00Z"));           /* now + 600 s */
	ck_assert(strstr(refused(NULL, "created_at", json_string("2026-04-28T10:22:01Z"),
				 "schema_violation", "created_at"), "is 11 minutes in the future"));
	ck_assert(strstr(refused(NULL, "created_at", json_string("2026-04-29T10:12:00Z"),
				 "schema_violation", "created_at"), "is 1440 minutes in the future"));
	ck_assert(strstr(refused(NULL, "created_at", json_string("2026-04-29T10:12:01Z"),
				 "schema_violation", "created_at"), "more than a day in the future"));
}
END_TEST

static Suite *suite_validate_rules(void)
{
	Suite *s = suite_create("validate_rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_sample_payload_passes);
	tcase_add_test(tc, backends_and_their_sentence_agree);
	tcase_add_test(tc, digest_edges);
	tcase_add_test(tc, fingerprint_is_sixteen_lowercase_hex);
	tcase_add_test(tc, names_must_give_a_slug);
	tcase_add_test(tc, time_window_and_sentences);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_validate_rules)
