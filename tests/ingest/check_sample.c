/* check_sample.c: the sample payloads and signing key of
 * server/ingest/sample.c, which `sample-run`, the demo and the tests use:
 * every payload it builds must pass the validator. */
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_util.h"
#include "ingest/sample.h"
#include "ingest/validate.h"
#include "util/timefmt.h"

/* o's payload validated at the current time; its fields in *f. */
static void valid(const struct sample_opts *o, struct run_fields *f, json_t **keep)
{
	json_t *p = sample_payload(o);
	struct err e;

	ck_assert_ptr_nonnull(p);
	ck_assert_msg(validate_payload(p, time_now(), f, &e) == 0, "%s: %s", e.field, e.message);
	*keep = p;    /* f borrows from it */
}

START_TEST(defaults_and_options_validate)
{
	struct sample_opts plain = { 0 };
	struct sample_opts all = { .model = "meta-llama/Llama-3.3-70B-Instruct", .accelerator = "RTX 4090",
				   .backend = "llama.cpp", .backend_version = "b4100",
				   .fingerprint = "0123456789abcdef", .created_at = "2026-01-02T03:04:05Z",
				   .decode_tok_s = 33.5, .prefill_tok_s = 900, .ttft_ms = 120,
				   .all_workloads = 1, .serial = 1 };
	struct run_fields f;
	json_t *p;
	char digest[80];

	valid(&plain, &f, &p);
	ck_assert_str_eq(f.model_name, "Qwen3-Coder-30B-A3B-Instruct");
	ck_assert_str_eq(f.model_slug, "qwen3-coder-30b-a3b-instruct");
	ck_assert_str_eq(f.backend_name, "mlx");
	ck_assert(f.decode_tok_s == 112.2);
	ck_assert_ptr_null(f.fingerprint_hash);
	ck_assert_ptr_null(json_object_get(json_object_get(p, "workloads"), "agent-trace"));
	json_decref(p);

	all.digest = "sha256:00112233445566778899aabbccddeeff";
	valid(&all, &f, &p);
	ck_assert_str_eq(f.model_digest, all.digest);
	json_decref(p);
	all.digest = NULL;
	valid(&all, &f, &p);
	ck_assert_str_eq(f.model_slug, "llama-3-3-70b-instruct");
	ck_assert_str_eq(f.backend_name, "llama.cpp");
	ck_assert_str_eq(f.fingerprint_hash, "0123456789abcdef");
	ck_assert_str_eq(f.created_at, "2026-01-02T03:04:05Z");
	ck_assert(f.decode_tok_s == 33.5);
	ck_assert_uint_eq(json_object_size(json_object_get(p, "workloads")), 5);
	sample_digest(all.model, digest);
	ck_assert_str_eq(f.model_digest, digest);
	json_decref(p);
}
END_TEST

/* The digest is "sha256:" and the name's SHA-256: one per model name. */
START_TEST(digest_of_the_name)
{
	char d[80];

	sample_digest("abc", d);
	ck_assert_str_eq(d, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert(validate_digest_ok(d));
}
END_TEST

/* The key file: created 0600 on first use, the same key read back after,
 * a file that holds no key refused. */
START_TEST(key_file)
{
	unsigned char a[crypto_sign_SECRETKEYBYTES], b[crypto_sign_SECRETKEYBYTES];
	char dir[256], path[300];
	struct stat st;
	FILE *f;

	ck_assert_int_ge(sodium_init(), 0);
	snprintf(dir, sizeof dir, "%s/check_sample.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/my.key", dir);
	ck_assert_int_eq(sample_key(path, a), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(sample_key(path, b), 0);
	ck_assert_mem_eq(a, b, sizeof a);
	f = fopen(path, "w");
	fputs("not a key\n", f);
	fclose(f);
	ck_assert_int_eq(sample_key(path, b), -1);
	f = fopen(path, "w");
	fputs("00112233\n", f);                  /* too short */
	fclose(f);
	ck_assert_int_eq(sample_key(path, b), -1);
	unlink(path);
	snprintf(path, sizeof path, "%s/missing/my.key", dir);
	ck_assert_int_eq(sample_key(path, b), -1);  /* cannot be created */
	rmdir(dir);
}
END_TEST

static Suite *suite_sample(void)
{
	Suite *s = suite_create("sample");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, defaults_and_options_validate);
	tcase_add_test(tc, digest_of_the_name);
	tcase_add_test(tc, key_file);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_sample)
