/* check_b64u.c: the one base64url decoder and a compact JWS's payload
 * (server/util/b64u.c), against the RFC 7515 and RFC 8037 examples in
 * tests/vectors and against libsodium's encoder; its encoder against
 * libsodium's. */
#include <jansson.h>
#include <sodium.h>

#include "check_util.h"
#include "util/b64u.h"

/* Loads a vector file as JSON; fails the test when it cannot. */
static json_t *load_json(const char *name)
{
	size_t n = 0;
	char *s = read_vector(name, &n);
	json_error_t e;
	json_t *j;

	ck_assert_msg(s != NULL, "cannot read %s/%s", vectors_dir(), name);
	j = json_loadb(s, n, 0, &e);
	free(s);
	ck_assert_msg(j != NULL, "%s: %s", name, e.text);
	return j;
}

/* The string member key of o; "object.member" (split at the last dot, as
 * the RFC files' own keys hold dots) reaches into an object. */
static const char *str(json_t *o, const char *key)
{
	const char *dot = strrchr(key, '.');
	const char *s;

	if (dot && !json_object_get(o, key)) {
		char head[80];

		snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
		return str(json_object_get(o, head), dot + 1);
	}
	s = json_string_value(json_object_get(o, key));
	ck_assert_msg(s != NULL, "missing string \"%s\"", key);
	return s;
}

/* s decoded; fails the test when it does not decode. */
static unsigned char *decoded(const char *s, size_t *n)
{
	size_t len = strlen(s);
	unsigned char *b = malloc(len + 1);

	ck_assert_ptr_nonnull(b);
	ck_assert_msg(b64u_decode(s, len, b, len, n) == 0, "%s did not decode", s);
	return b;
}

/* Hex-decodes into a malloc'd buffer. */
static unsigned char *unhex(const char *hex, size_t *n)
{
	size_t len = strlen(hex);
	unsigned char *b = malloc(len / 2 + 1);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(sodium_hex2bin(b, len / 2 + 1, hex, len, NULL, n, NULL), 0);
	return b;
}

/* Every base64url field of RFC 8037 A.1-A.4 decodes to what the RFC says:
 * the key's d and x to their hex, the header and payload to their text,
 * the signature to 64 bytes, the thumbprint to its SHA-256. */
START_TEST(rfc8037_values)
{
	json_t *v = load_json("rfc8037_a4.json");
	static const char *const pairs[][2] = {
		{ "A.1_private_key_jwk.d", "A.1_d_hex" },
		{ "A.1_private_key_jwk.x", "A.1_x_hex" },
		{ "A.2_public_key_jwk.x", "A.1_x_hex" },
		{ "A.3_thumbprint_b64u", "A.3_thumbprint_sha256_hex" },
	};
	unsigned char *got, *want;
	size_t n, m, i;

	for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		got = decoded(str(v, pairs[i][0]), &n);
		want = unhex(str(v, pairs[i][1]), &m);
		ck_assert_msg(n == m && !memcmp(got, want, n), "%s", pairs[i][0]);
		free(got);
		free(want);
	}
	got = decoded(str(v, "A.4_protected_header_b64u"), &n);
	ck_assert_uint_eq(n, strlen(str(v, "A.4_protected_header")));
	ck_assert_mem_eq(got, str(v, "A.4_protected_header"), n);
	free(got);
	got = decoded(str(v, "A.4_payload_b64u"), &n);
	ck_assert_uint_eq(n, strlen(str(v, "A.4_payload")));
	ck_assert_mem_eq(got, str(v, "A.4_payload"), n);
	free(got);
	got = decoded(str(v, "A.4_signature_b64u"), &n);
	ck_assert_uint_eq(n, 64);
	free(got);
	json_decref(v);
}
END_TEST

/* RFC 7515 A.3: the ES256 key's coordinates are 32 bytes each, the
 * signature R||S 64, and the payload keeps its CR LF bytes. */
START_TEST(rfc7515_values)
{
	json_t *v = load_json("rfc7515_a3_es256.json");
	unsigned char *got;
	size_t n;

	got = decoded(str(v, "key_jwk.x"), &n);
	ck_assert_uint_eq(n, 32);
	free(got);
	got = decoded(str(v, "key_jwk.y"), &n);
	ck_assert_uint_eq(n, 32);
	free(got);
	got = decoded(str(v, "key_jwk.d"), &n);
	ck_assert_uint_eq(n, 32);
	free(got);
	got = decoded(str(v, "signature_b64u"), &n);
	ck_assert_uint_eq(n, 64);
	free(got);
	got = decoded(str(v, "payload_b64u"), &n);
	ck_assert_uint_eq(n, strlen(str(v, "payload")));
	ck_assert_mem_eq(got, str(v, "payload"), n);
	ck_assert_ptr_nonnull(memchr(got, '\r', n));
	free(got);
	json_decref(v);
}
END_TEST

/* b64u_jws_payload takes the middle segment of both RFC examples,
 * NUL-terminated, without looking at the signature. */
START_TEST(jws_payload_of_the_rfc_examples)
{
	static const struct { const char *file, *compact, *payload; } ex[] = {
		{ "rfc8037_a4.json", "A.4_compact", "A.4_payload" },
		{ "rfc7515_a3_es256.json", "compact", "payload" },
	};
	unsigned char *out;
	size_t len, i;

	for (i = 0; i < 2; i++) {
		json_t *v = load_json(ex[i].file);
		const char *jws = str(v, ex[i].compact), *want = str(v, ex[i].payload);
		char *broken = strdup(jws);

		ck_assert_int_eq(b64u_jws_payload(jws, strlen(jws), &out, &len), 0);
		ck_assert_uint_eq(len, strlen(want));
		ck_assert_mem_eq(out, want, len);
		ck_assert_int_eq(out[len], '\0');
		free(out);
		/* A signature that does not verify is not its business. */
		broken[strlen(broken) - 2] ^= 1;
		ck_assert_int_eq(b64u_jws_payload(broken, strlen(broken), &out, &len), 0);
		free(out);
		free(broken);
		json_decref(v);
	}
}
END_TEST

/* What b64u_jws_payload refuses: fewer than two dots, a payload segment
 * that is not strict base64url; an empty payload is refused too (the
 * empty text decodes to nothing). */
START_TEST(jws_payload_refusals)
{
	static const char *const bad[] = {
		"", "eyJhIjoxfQ", "a.eyJhIjoxfQ", ".eyJhIjoxfQ", "a.eyJhIjoxfQ=.b",
		"a.eyJh IjoxfQ.b", "a.eyJhIjoxfQ+.b", "a..b", "a.e.b",
	};
	unsigned char *out = (unsigned char *)1;
	size_t len, i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(b64u_jws_payload(bad[i], strlen(bad[i]), &out, &len) == -1, "%s", bad[i]);
		ck_assert_ptr_null(out);
	}
	ck_assert_int_eq(b64u_jws_payload(NULL, 0, &out, &len), -1);
	/* Only n bytes are read: the second dot past n is not there. */
	ck_assert_int_eq(b64u_jws_payload("a.eyJhIjoxfQ.b", 12, &out, &len), -1);
	ck_assert_int_eq(b64u_jws_payload("a.eyJhIjoxfQ.b", 13, &out, &len), 0);
	ck_assert_str_eq((char *)out, "{\"a\":1}");
	free(out);
	/* More segments than three: the payload is still the second. */
	ck_assert_int_eq(b64u_jws_payload("a.eyJhIjoxfQ.b.c", 16, &out, &len), 0);
	ck_assert_str_eq((char *)out, "{\"a\":1}");
	free(out);
}
END_TEST

/* Every byte string of 1 to 64 bytes that libsodium encodes decodes back,
 * into a buffer of exactly its size; one byte less of room is refused. */
START_TEST(round_trips_libsodium_encodings)
{
	unsigned char bin[64], got[64];
	char text[100];
	size_t n, len, out;
	int k;

	srand(11);
	for (k = 0; k < 2000; k++) {
		n = 1 + (size_t)k % 64;
		for (size_t i = 0; i < n; i++)
			bin[i] = (unsigned char)rand();
		sodium_bin2base64(text, sizeof text, bin, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
		len = strlen(text);
		ck_assert_int_eq(b64u_decode(text, len, got, n, &out), 0);
		ck_assert_uint_eq(out, n);
		ck_assert_mem_eq(got, bin, n);
		ck_assert_int_eq(b64u_decode(text, len, got, n - 1, &out), -1);
	}
}
END_TEST

/* b64u_encode writes what libsodium's encoder writes, at every length
 * (none included), B64U_LEN bytes and not one more. */
START_TEST(encodes_as_libsodium)
{
	unsigned char bin[64];
	char want[100], got[100];
	size_t n, len;
	int k;

	srand(12);
	for (k = 0; k < 2000; k++) {
		n = (size_t)k % 65;
		for (size_t i = 0; i < n; i++)
			bin[i] = (unsigned char)rand();
		sodium_bin2base64(want, sizeof want, bin, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
		memset(got, '#', sizeof got);
		len = b64u_encode(bin, n, got);
		ck_assert_uint_eq(len, strlen(want));
		ck_assert_uint_eq(len, B64U_LEN(n));
		ck_assert_mem_eq(got, want, len);
		ck_assert_int_eq(got[len], '#');
	}
}
END_TEST

/* The strictness the header promises, one case each. */
START_TEST(strict)
{
	unsigned char b[8];
	size_t n = 99;

	ck_assert_int_eq(b64u_decode("", 0, b, sizeof b, &n), -1);
	ck_assert_uint_eq(n, 99);                                      /* untouched */
	ck_assert_int_eq(b64u_decode("QQ", 2, b, sizeof b, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(b[0], 'A');
	ck_assert_int_eq(b64u_decode("QR", 2, b, sizeof b, &n), -1);   /* unused bits */
	ck_assert_int_eq(b64u_decode("QUI", 3, b, sizeof b, &n), 0);
	ck_assert_int_eq(b64u_decode("QUJ", 3, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("QQ==", 4, b, sizeof b, &n), -1); /* padding */
	ck_assert_int_eq(b64u_decode("Q", 1, b, sizeof b, &n), -1);    /* 4k + 1 */
	ck_assert_int_eq(b64u_decode("QUJDR", 5, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("Pz8+", 4, b, sizeof b, &n), -1); /* standard alphabet */
	ck_assert_int_eq(b64u_decode("Pz8/", 4, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("Pz8-", 4, b, sizeof b, &n), 0);
	ck_assert_int_eq(b64u_decode("Pz8_", 4, b, sizeof b, &n), 0);
	ck_assert_int_eq(b64u_decode("QU JD", 5, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("QUJD\n", 5, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("QU\0D", 4, b, sizeof b, &n), -1);
	ck_assert_int_eq(b64u_decode("QUJ\xc3", 4, b, sizeof b, &n), -1);
	/* Exactly as much room as the bytes, and no more written. */
	memset(b, 0x55, sizeof b);
	ck_assert_int_eq(b64u_decode("QUJD", 4, b, 3, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_mem_eq(b, "ABC\x55", 4);
	ck_assert_int_eq(b64u_decode("QUJD", 4, b, 2, &n), -1);
}
END_TEST

static Suite *suite_b64u(void)
{
	Suite *s = suite_create("b64u");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rfc8037_values);
	tcase_add_test(tc, rfc7515_values);
	tcase_add_test(tc, jws_payload_of_the_rfc_examples);
	tcase_add_test(tc, jws_payload_refusals);
	tcase_add_test(tc, round_trips_libsodium_encodings);
	tcase_add_test(tc, encodes_as_libsodium);
	tcase_add_test(tc, strict);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_b64u)
