/* check_jws_pack.c: server/store/jws_pack.c: a JWS packed for the disk
 * gives back the very bytes uploaded (RFC 8037 and RFC 7515 examples, a
 * payload of the CLI's shape with all five workloads), a CLI upload packs
 * to well under half its size, what is not three strict base64url
 * segments is refused (and then stored as it came), rows stored before
 * packing read as they are, a damaged pack (cut, or a byte changed) is an
 * error, never other bytes and never a crash,
 * and a value packed today still unpacks (the dictionary is frozen). */
#include "check_util.h"
#include "ingest/jws.h"
#include "store/jws_pack.h"
#include "util/b64u.h"

#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>

/* RFC 8037 A.4 as packed by JWS_PACK_V1 when this test was written. */
static const char pinned_a4[] =
	"\x01\x78\xbb\x02\x16\xbf\x2b\xe3\x47\x4d\x14\xb5\x52\xae\x15\x89\xb9\x05\x39\xa9"
	"\x0a\xf9\x69\x0a\xd0\x64\xa0\x50\x9c\x99\x9e\x07\xf4\x5b\x1b\xcf\x8c\x4b\x9a\xf5"
	"\x06\x09\x8b\xed\x9d\x8a\xa7\x15\x5d\x93\x0e\x3e\x6f\x75\xef\xdf\xe5\xcb\xc7\x8a"
	"\x3e\x2b\xdc\x61\x92\x76\x94\x9b\x1b\xb9\x23\xa9\xf7\x70\xe0\x23\x8f\x1d\xdd\x9a"
	"\x6e\x7d\x7c\x8e\xad\xd1\xfc\xdb\x6f\x58\x6f\x8c\x7e\xc9\xb4\xff\xcc\x8e\xb3\x5c"
	"\x4c\x00\x47\x1e\x2b\xb3";

/* A payload as the CLI writes it, every workload present. */
static const char cli_payload[] =
	"{\"suite_version\":\"suite-v1\",\"created_at\":\"2026-11-30T21:04:17Z\","
	"\"client\":{\"name\":\"llm-speed\",\"version\":\"1.4.2\"},"
	"\"backend\":{\"name\":\"llama.cpp\",\"version\":\"b6123\",\"runner\":null},"
	"\"model\":{\"name\":\"Meta-Llama-3.1-8B-Instruct\",\"digest\":\"sha256:"
	"7b064f5842bf9532c91456deda288a1b672397a54fa729aa665952863033557c\","
	"\"quantization\":\"Q4_K_M\",\"format\":\"gguf\",\"weights_bytes\":4920739232},"
	"\"hardware\":{\"cpu_model\":\"AMD Ryzen 9 7950X 16-Core Processor\",\"cpu_cores\":16,"
	"\"ram_gb\":64,\"gpu_name\":\"NVIDIA GeForce RTX 4090\",\"vram_gb\":24,"
	"\"os\":\"Ubuntu 24.04\",\"accelerator_summary\":\"RTX 4090\","
	"\"fingerprint_hash\":\"3f9a0c11d2e4b5a6\"},"
	"\"workloads\":{\"chat-short\":{\"prompt_tokens\":128,\"output_tokens\":256,"
	"\"batch_size\":1,\"ttft_ms\":21.4,\"prefill_tok_s\":5981.3,\"decode_tok_s\":127.7,"
	"\"p50_ms\":7.81,\"p95_ms\":8.12,\"wall_ms\":2026.6},"
	"\"chat-long\":{\"prompt_tokens\":4096,\"output_tokens\":512,\"batch_size\":1,"
	"\"ttft_ms\":412.0,\"prefill_tok_s\":9941.7,\"decode_tok_s\":118.2,\"p50_ms\":8.44,"
	"\"p95_ms\":8.91,\"wall_ms\":4744.1},"
	"\"long-context-decay\":{\"points\":[{\"context_tokens\":1024,\"output_tokens\":128,"
	"\"ttft_ms\":103.1,\"prefill_tok_s\":9932.1,\"decode_tok_s\":125.4},"
	"{\"context_tokens\":16384,\"output_tokens\":128,\"ttft_ms\":1893.5,"
	"\"prefill_tok_s\":8652.8,\"decode_tok_s\":97.6}]},"
	"\"concurrent-decode\":{\"serial\":false,\"points\":[{\"batch_size\":1,"
	"\"aggregate_tok_s\":127.1,\"per_stream_tok_s\":127.1,\"p50_ms\":7.86,\"p95_ms\":8.2},"
	"{\"batch_size\":4,\"aggregate_tok_s\":401.9,\"per_stream_tok_s\":100.5,"
	"\"p50_ms\":9.95,\"p95_ms\":11.3}]},"
	"\"agent-trace\":{\"turns\":[{\"turn\":1,\"context_tokens\":2048,\"ttft_ms\":207.3,"
	"\"decode_tok_s\":123.9},{\"turn\":2,\"context_tokens\":3110,\"ttft_ms\":118.6,"
	"\"decode_tok_s\":121.0}],\"wall_ms\":9120.4}}}";

/* The compact JWS of cli_payload under a fixed Ed25519 key; freed by caller. */
static char *cli_jws(void)
{
	unsigned char seed[32], pk[32], sk[64];
	char *s;

	memset(seed, 42, sizeof seed);
	ck_assert_int_eq(crypto_sign_seed_keypair(pk, sk, seed), 0);
	s = jws_sign_eddsa(sk, (const unsigned char *)cli_payload, strlen(cli_payload));
	ck_assert_ptr_nonnull(s);
	return s;
}

/* A JSON string member of a vector file; the caller frees it. */
static char *vector_str(const char *file, const char *member)
{
	size_t n;
	char *text = read_vector(file, &n), *out;
	json_t *v = json_loadb(text, n, 0, NULL);

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(v, member)));
	out = strdup(json_string_value(json_object_get(v, member)));
	json_decref(v);
	free(text);
	return out;
}

/* Packs s, checks the pack is tagged, unpacks to s and yields its payload;
 * returns the packed length. */
static size_t round_trip(const char *s)
{
	struct buf p = BUF_INIT, back = BUF_INIT;
	unsigned char *pl = NULL, *want = NULL;
	size_t n = strlen(s), pln, wantn, len;

	ck_assert_int_eq(jws_pack(s, n, &p), 0);
	ck_assert_uint_gt(p.len, 1);
	ck_assert_uint_eq((unsigned char)p.buf[0], JWS_PACK_V1);
	ck_assert_int_eq(jws_unpack(p.buf, p.len, &back), 0);
	ck_assert_uint_eq(back.len, n);
	ck_assert(memcmp(back.buf, s, n) == 0);
	ck_assert_int_eq(jws_stored_payload(p.buf, p.len, &pl, &pln), 0);
	ck_assert_int_eq(b64u_jws_payload(s, n, &want, &wantn), 0);
	ck_assert_uint_eq(pln, wantn);
	ck_assert(memcmp(pl, want, pln) == 0);
	ck_assert_uint_eq(pl[pln], 0);
	len = p.len;
	free(pl);
	free(want);
	buf_release(&p);
	buf_release(&back);
	return len;
}

START_TEST(rfc_examples_come_back)
{
	char *a4 = vector_str("rfc8037_a4.json", "A.4_compact");
	char *a3 = vector_str("rfc7515_a3_es256.json", "compact");

	round_trip(a4);
	round_trip(a3);                  /* a payload with CR LF bytes, an ES256 signature */
	free(a4);
	free(a3);
}
END_TEST

START_TEST(cli_upload_packs_small)
{
	char *s = cli_jws();
	size_t n = strlen(s), packed = round_trip(s);

	/* a CLI upload is mostly its own fixed shape: well under half stays */
	ck_assert_msg(packed * 100 < n * 45, "%zu bytes packed to %zu", n, packed);
	free(s);
}
END_TEST

START_TEST(not_strict_is_refused)
{
	static const char *bad[] = {
		"",
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZQ",                 /* two segments */
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZQ.AAAA.AAAA",       /* four */
		"eyJhbGciOiJFZERTQSJ9..AAAA",                      /* an empty payload */
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZQ==.AAAA",          /* padding */
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZR.AAAA",            /* unused bits set */
		"eyJhbGciOiJFZERTQSJ9.RXhh bXBsZQ.AAAA",           /* a space */
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZQ.AAAA+",           /* another alphabet */
	};
	struct buf p = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_puts(&p, "left over");
		ck_assert_msg(jws_pack(bad[i], strlen(bad[i]), &p) == -1, "%s", bad[i]);
		ck_assert_uint_eq(p.len, 0);
	}
	buf_release(&p);
}
END_TEST

START_TEST(rows_before_packing_read_as_they_are)
{
	char *a4 = vector_str("rfc8037_a4.json", "A.4_compact");
	struct buf back = BUF_INIT;
	unsigned char *pl = NULL;
	size_t n;

	ck_assert_int_eq(jws_unpack(a4, strlen(a4), &back), 0);
	ck_assert_str_eq(back.buf, a4);
	ck_assert_int_eq(jws_stored_payload(a4, strlen(a4), &pl, &n), 0);
	ck_assert_str_eq((char *)pl, "Example of Ed25519 signing");
	free(pl);
	buf_release(&back);
	free(a4);
}
END_TEST

START_TEST(a_value_packed_before_still_unpacks)
{
	char *a4 = vector_str("rfc8037_a4.json", "A.4_compact");
	struct buf back = BUF_INIT;

	ck_assert_int_eq(jws_unpack(pinned_a4, sizeof pinned_a4 - 1, &back), 0);
	ck_assert_str_eq(back.buf, a4);
	buf_release(&back);
	free(a4);
}
END_TEST

START_TEST(damage_is_an_error_not_a_crash)
{
	char *s = cli_jws();
	struct buf p = BUF_INIT, back = BUF_INIT;
	unsigned char *pl;
	size_t i, n, bad = 0;
	char *copy;

	ck_assert_int_eq(jws_pack(s, strlen(s), &p), 0);
	copy = malloc(p.len);
	for (i = 1; i < p.len; i++) {           /* every cut is refused */
		ck_assert_msg(jws_unpack(p.buf, i, &back) == -1, "cut at %zu", i);
		ck_assert_int_eq(jws_stored_payload(p.buf, i, &pl, &n), -1);
		ck_assert_ptr_null(pl);
		buf_reset(&back);
	}
	for (i = 1; i < p.len; i++) {           /* a changed byte: never other bytes */
		memcpy(copy, p.buf, p.len);
		copy[i] ^= 0x5a;
		if (jws_unpack(copy, p.len, &back) == -1)
			bad++;                  /* the checksum refuses it */
		else                            /* only the last code's unused bits */
			ck_assert_msg(!strcmp(back.buf, s), "byte %zu of %zu", i, p.len);
		buf_reset(&back);
	}
	ck_assert_uint_ge(bad, p.len - 2);
	free(copy);
	buf_release(&back);
	buf_release(&p);
	free(s);
}
END_TEST

static Suite *suite_jws_pack(void)
{
	Suite *s = suite_create("jws_pack");
	TCase *tc = tcase_create("core");

	if (sodium_init() < 0)
		abort();
	tcase_add_test(tc, rfc_examples_come_back);
	tcase_add_test(tc, cli_upload_packs_small);
	tcase_add_test(tc, not_strict_is_refused);
	tcase_add_test(tc, rows_before_packing_read_as_they_are);
	tcase_add_test(tc, a_value_packed_before_still_unpacks);
	tcase_add_test(tc, damage_is_an_error_not_a_crash);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_jws_pack)
