/* check_jws.c: server/ingest/jws.c against Wycheproof, the RFC examples and hostile JWS. */
#include "check_util.h"
#include "ingest/jws.h"
#include "util/b64u.h"

#include <jansson.h>
#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/sha256.h>
#include <sodium.h>

#define B64U sodium_base64_VARIANT_URLSAFE_NO_PADDING

/* The RFC 8037 A.1 key, used wherever a fixed Ed25519 key helps. */
static const char rfc8037_d_hex[] = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
#define X8037 "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
static const char rfc8037_thumb[] = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";

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

/* Returns the string member key of o; fails the test when it is missing. */
static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	ck_assert_msg(s != NULL, "missing string \"%s\"", key);
	return s;
}

/* Hex-decodes into a malloc'd buffer (never NULL, even when empty). */
static unsigned char *unhex(const char *hex, size_t *n)
{
	size_t len = strlen(hex);
	unsigned char *b = malloc(len / 2 + 1);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(sodium_hex2bin(b, len / 2 + 1, hex, len, NULL, n, NULL), 0);
	ck_assert_uint_eq(*n * 2, len);
	return b;
}

/* Base64url-decodes (strictly) into a malloc'd buffer, never NULL. */
static unsigned char *unb64u(const char *s, size_t *n)
{
	size_t len = strlen(s);
	unsigned char *b = malloc(len + 1);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(sodium_base642bin(b, len + 1, s, len, NULL, n, NULL, B64U), 0);
	return b;
}

/* Returns the malloc'd unpadded base64url of bin[0..n). */
static char *b64u(const void *bin, size_t n)
{
	size_t m = sodium_base64_ENCODED_LEN(n, B64U);
	char *s = malloc(m);

	ck_assert_ptr_nonnull(s);
	return sodium_bin2base64(s, m, bin, n, B64U);
}

/* Returns the malloc'd "b64u(hdr).b64u(payload)". */
static char *signing_input(const char *hdr, const char *payload)
{
	char *h = b64u(hdr, strlen(hdr)), *p = b64u(payload, strlen(payload));
	size_t n = strlen(h) + strlen(p) + 2;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(s);
	snprintf(s, n, "%s.%s", h, p);
	free(h);
	free(p);
	return s;
}

/* Returns the malloc'd "input.b64u(sig)". */
static char *with_sig(const char *input, const unsigned char *sig, size_t sig_len)
{
	char *g = b64u(sig, sig_len);
	size_t n = strlen(input) + strlen(g) + 2;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(s);
	snprintf(s, n, "%s.%s", input, g);
	free(g);
	return s;
}

/* The libsodium secret key (seed || pk) of the RFC 8037 A.1 key. */
static void rfc8037_sk(unsigned char sk[64])
{
	unsigned char pk[32], seed[32];
	size_t n;

	ck_assert_int_eq(sodium_hex2bin(seed, 32, rfc8037_d_hex, 64, NULL, &n, NULL), 0);
	ck_assert_int_eq(crypto_sign_seed_keypair(pk, sk, seed), 0);
}

/* Returns a compact EdDSA JWS of any header text, signed with sk. */
static char *make_eddsa(const unsigned char sk[64], const char *hdr, const char *payload)
{
	char *in = signing_input(hdr, payload), *s;
	unsigned char sig[64];

	crypto_sign_detached(sig, NULL, (const unsigned char *)in, strlen(in), sk);
	s = with_sig(in, sig, sizeof sig);
	free(in);
	return s;
}

/* Runs jws_parse_verify on a NUL-terminated JWS and checks the status, that
 * a failure leaves a message and nothing to free. */
static int parse_status(const char *compact, size_t len)
{
	struct jws j;
	struct err e;
	int rc = jws_parse_verify(compact, len, &j, &e);

	if (rc < 0) {
		ck_assert_msg(e.message[0] != '\0', "no message for status %d", rc);
		ck_assert_ptr_null(j.header);
		ck_assert_ptr_null(j.payload);
	}
	jws_free(&j);
	jws_free(&j);
	return rc;
}

#define PARSE(s) parse_status((s), strlen(s))

/* ---------------------------------------------------------------- Wycheproof */

/* Runs one Wycheproof file: verify(group, test) per case, compared with the
 * expected result.  Returns the number of cases run; fails on a mismatch. */
static int run_wycheproof(const char *file,
			  int (*verify)(json_t *group, const unsigned char *msg, size_t msg_len,
					const unsigned char *sig, size_t sig_len))
{
	json_t *root = load_json(file), *groups = json_object_get(root, "testGroups");
	json_t *g, *t;
	size_t gi, ti, msg_len, sig_len;
	int ran = 0, wrong = 0;

	json_array_foreach(groups, gi, g) {
		json_array_foreach(json_object_get(g, "tests"), ti, t) {
			unsigned char *msg = unhex(str(t, "msg"), &msg_len);
			unsigned char *sig = unhex(str(t, "sig"), &sig_len);
			int want = strcmp(str(t, "result"), "valid") == 0 ? 0 : -1;
			int got = verify(g, msg, msg_len, sig, sig_len);

			if (got != want) {
				fprintf(stderr, "%s: tcId %lld: got %d, want %d (%s)\n", file,
					(long long)json_integer_value(json_object_get(t, "tcId")),
					got, want, str(t, "comment"));
				wrong++;
			}
			ran++;
			free(msg);
			free(sig);
		}
	}
	ck_assert_int_eq(ran, (int)json_integer_value(json_object_get(root, "numberOfTests")));
	ck_assert_int_eq(wrong, 0);
	fprintf(stderr, "%s: %d cases, all as expected\n", file, ran);
	json_decref(root);
	return ran;
}

static int verify_ed_case(json_t *g, const unsigned char *msg, size_t msg_len,
			  const unsigned char *sig, size_t sig_len)
{
	size_t n;
	unsigned char *pk = unhex(str(json_object_get(g, "publicKey"), "pk"), &n);
	int rc;

	ck_assert_uint_eq(n, 32);
	rc = jws_verify_ed25519(pk, msg, msg_len, sig, sig_len);
	free(pk);
	return rc;
}

static int verify_es_case(json_t *g, const unsigned char *msg, size_t msg_len,
			  const unsigned char *sig, size_t sig_len)
{
	size_t n;
	unsigned char *pt = unhex(str(json_object_get(g, "publicKey"), "uncompressed"), &n);
	int rc;

	ck_assert_uint_eq(n, 65);
	ck_assert_uint_eq(pt[0], 0x04);
	rc = jws_verify_es256(pt + 1, pt + 33, msg, msg_len, sig, sig_len);
	free(pt);
	return rc;
}

START_TEST(wycheproof_ed25519)
{
	ck_assert_int_eq(run_wycheproof("ed25519_test.json", verify_ed_case), 151);
}
END_TEST

START_TEST(wycheproof_es256_p1363)
{
	ck_assert_int_eq(run_wycheproof("ecdsa_secp256r1_sha256_p1363_test.json", verify_es_case), 262);
}
END_TEST

/* ---------------------------------------------------------------- RFC examples */

START_TEST(rfc8037_a4_verifies)
{
	json_t *v = load_json("rfc8037_a4.json");
	const char *in = str(v, "A.4_signing_input");
	size_t x_len, sig_len, in_len = strlen(in);
	unsigned char *x = unb64u(str(json_object_get(v, "A.2_public_key_jwk"), "x"), &x_len);
	unsigned char *sig = unb64u(str(v, "A.4_signature_b64u"), &sig_len);
	char thumb[48];

	ck_assert_uint_eq(x_len, 32);
	ck_assert_uint_eq(sig_len, 64);
	ck_assert_int_eq(jws_verify_ed25519(x, (const unsigned char *)in, in_len, sig, sig_len), 0);
	sig[10] ^= 1;
	ck_assert_int_eq(jws_verify_ed25519(x, (const unsigned char *)in, in_len, sig, sig_len), -1);
	sig[10] ^= 1;
	ck_assert_int_eq(jws_verify_ed25519(x, (const unsigned char *)in, in_len - 1, sig, sig_len), -1);

	ck_assert_int_eq(jws_thumbprint_okp(str(json_object_get(v, "A.2_public_key_jwk"), "x"), thumb), 0);
	ck_assert_str_eq(thumb, str(v, "A.3_thumbprint_b64u"));
	ck_assert_str_eq(thumb, rfc8037_thumb);

	/* The RFC's header has no jwk, which the contract requires. */
	ck_assert_int_eq(PARSE(str(v, "A.4_compact")), JWS_MALFORMED);
	free(x);
	free(sig);
	json_decref(v);
}
END_TEST

START_TEST(rfc7515_a3_verifies)
{
	json_t *v = load_json("rfc7515_a3_es256.json"), *jwk = json_object_get(v, "key_jwk");
	const char *in = str(v, "signing_input");
	size_t x_len, y_len, sig_len, in_len = strlen(in);
	unsigned char *x = unb64u(str(jwk, "x"), &x_len);
	unsigned char *y = unb64u(str(jwk, "y"), &y_len);
	unsigned char *sig = unb64u(str(v, "signature_b64u"), &sig_len);
	char thumb[48];

	ck_assert_uint_eq(x_len, 32);
	ck_assert_uint_eq(y_len, 32);
	ck_assert_uint_eq(sig_len, 64);
	ck_assert_int_eq(jws_verify_es256(x, y, (const unsigned char *)in, in_len, sig, sig_len), 0);
	ck_assert_int_eq(jws_verify_es256(x, y, (const unsigned char *)in, in_len, sig, 63), -1);
	sig[40] ^= 0x80;
	ck_assert_int_eq(jws_verify_es256(x, y, (const unsigned char *)in, in_len, sig, sig_len), -1);
	sig[40] ^= 0x80;
	y[31] ^= 1;    /* no longer on the curve */
	ck_assert_int_eq(jws_verify_es256(x, y, (const unsigned char *)in, in_len, sig, sig_len), -1);

	/* Canonical {"crv","kty","x","y"}; the value was computed with Python. */
	ck_assert_int_eq(jws_thumbprint_ec(str(jwk, "x"), str(jwk, "y"), thumb), 0);
	ck_assert_str_eq(thumb, "oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U");
	ck_assert_int_eq(jws_thumbprint_ec("a\"b", str(jwk, "y"), thumb), -1);
	ck_assert_int_eq(jws_thumbprint_okp("", thumb), -1);
	free(x);
	free(y);
	free(sig);
	json_decref(v);
}
END_TEST

/* ---------------------------------------------------------------- base64url */

/* Returns the status of libsodium's strict decode of s. */
static int sodium_strict(const char *s)
{
	unsigned char bin[16];
	size_t n;

	return sodium_base642bin(bin, sizeof bin, s, strlen(s), NULL, &n, NULL, B64U);
}

/* b64u_decode() accepts exactly the texts libsodium's strict decoder
 * does (but the empty one) and decodes them to the same bytes: random
 * short texts over the alphabet plus the usual mistakes, and every output
 * room from too small to enough. */
START_TEST(b64u_decoder_agrees_with_libsodium)
{
	static const char chars[] = "AQgwBRhx-_09azAZ+/= \n.";
	unsigned char want[16], got[16];
	size_t nw, ng, len, cap, i;
	char s[16];
	int k, rs, rg;

	srand(9);
	for (k = 0; k < 200000; k++) {
		len = (size_t)rand() % 13;
		for (i = 0; i < len; i++)
			s[i] = chars[rand() % (int)(sizeof chars - 1)];
		cap = (size_t)rand() % 11;
		rs = sodium_base642bin(want, cap, s, len, NULL, &nw, NULL, B64U);
		rg = b64u_decode(s, len, got, cap, &ng);
		if (len == 0) {
			ck_assert_int_eq(rg, -1);
			continue;
		}
		ck_assert_msg(rs == rg, "%.*s (room %zu): libsodium %d, ours %d", (int)len, s, cap, rs, rg);
		if (rs == 0) {
			ck_assert_uint_eq(nw, ng);
			ck_assert_mem_eq(want, got, nw);
		}
	}
}
END_TEST

START_TEST(libsodium_b64u_is_strict)
{
	ck_assert_int_eq(sodium_strict("QQ"), 0);      /* "A" */
	ck_assert_int_eq(sodium_strict("QUI"), 0);     /* "AB" */
	ck_assert_int_eq(sodium_strict("QR"), -1);     /* non-zero unused bits */
	ck_assert_int_eq(sodium_strict("QUJ"), -1);
	ck_assert_int_eq(sodium_strict("QQ=="), -1);   /* padding */
	ck_assert_int_eq(sodium_strict("Q Q"), -1);    /* whitespace */
	ck_assert_int_eq(sodium_strict("QQ\n"), -1);
	ck_assert_int_eq(sodium_strict("Q"), -1);      /* impossible length */
	ck_assert_int_eq(sodium_strict("Pz8+"), -1);   /* standard alphabet */
	ck_assert_int_eq(sodium_strict("Pz8-"), 0);
}
END_TEST

/* ---------------------------------------------------------------- parse and verify */

START_TEST(eddsa_round_trip)
{
	unsigned char pk[32], sk[64];
	const char *payload = "{\"suite_version\":\"suite-v1\"}";
	char *s, *x, thumb[48];
	struct jws j;
	struct err e;

	ck_assert_int_eq(jws_init(), 0);
	crypto_sign_keypair(pk, sk);
	s = jws_sign_eddsa(sk, (const unsigned char *)payload, strlen(payload));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(jws_parse_verify(s, strlen(s), &j, &e), JWS_OK);
	ck_assert_int_eq(j.alg, JWS_ALG_EDDSA);
	ck_assert_uint_eq(j.payload_len, strlen(payload));
	ck_assert_str_eq((const char *)j.payload, payload);
	ck_assert_uint_eq(j.pub_len, 32);
	ck_assert_mem_eq(j.pub, pk, 32);
	ck_assert_str_eq(json_string_value(json_object_get(j.header, "alg")), "EdDSA");
	x = b64u(pk, 32);
	ck_assert_int_eq(jws_thumbprint_okp(x, thumb), 0);
	ck_assert_str_eq(j.thumbprint, thumb);
	jws_free(&j);
	jws_free(&j);
	free(x);
	free(s);
}
END_TEST

START_TEST(eddsa_rfc8037_key_thumbprint)
{
	unsigned char sk[64];
	char *s, *want_in;
	struct jws j;

	rfc8037_sk(sk);
	s = jws_sign_eddsa(sk, (const unsigned char *)"Example of Ed25519 signing", 26);
	ck_assert_ptr_nonnull(s);
	want_in = signing_input("{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "\"}}",
				"Example of Ed25519 signing");
	ck_assert(strncmp(s, want_in, strlen(want_in)) == 0);
	ck_assert_int_eq(jws_parse_verify(s, strlen(s), &j, NULL), JWS_OK);
	ck_assert_str_eq(j.thumbprint, rfc8037_thumb);
	jws_free(&j);
	free(want_in);
	free(s);
}
END_TEST

START_TEST(eddsa_tampering_fails)
{
	unsigned char sk[64];
	char *s, *t, *p, *other;
	size_t n;

	rfc8037_sk(sk);
	s = jws_sign_eddsa(sk, (const unsigned char *)"{\"a\":1}", 7);
	ck_assert_int_eq(PARSE(s), JWS_OK);

	/* Swap the payload part for another payload. */
	other = b64u("{\"a\":2}", 7);
	p = strchr(s, '.') + 1;
	n = strlen(s) + 1;
	t = malloc(n);
	ck_assert_ptr_nonnull(t);
	memcpy(t, s, n);
	memcpy(t + (p - s), other, strlen(other));
	ck_assert_int_eq(PARSE(t), JWS_BAD_SIGNATURE);

	/* Change the signature's first character (still canonical). */
	memcpy(t, s, n);
	p = strrchr(t, '.') + 1;
	*p = *p == 'A' ? 'B' : 'A';
	ck_assert_int_eq(PARSE(t), JWS_BAD_SIGNATURE);

	/* Set an unused trailing bit of the signature (86 chars: 4 unused). */
	memcpy(t, s, n);
	ck_assert_uint_eq(strlen(strrchr(t, '.') + 1), 86);
	ck_assert_ptr_nonnull(strchr("AQgw", t[n - 2]));
	t[n - 2]++;    /* A->B, Q->R, g->h, w->x: the low unused bit set */
	ck_assert_int_eq(PARSE(t), JWS_MALFORMED);

	free(other);
	free(t);
	free(s);
}
END_TEST

/* A JWS built by editing a good one: cut bytes at an offset, insert others. */
struct edit {
	const char *what;
	int at;              /* offset in the good JWS; -1 is the end */
	size_t cut;          /* bytes removed there first */
	const char *insert;  /* bytes inserted there */
	size_t ins_len;
};

#define INS(s) s, sizeof s - 1

static const struct edit bad_edits[] = {
	{ "padding at the end", -1, 0, INS("=") },
	{ "padding mid-way", 5, 0, INS("==") },
	{ "a leading space", 0, 0, INS(" ") },
	{ "a trailing newline", -1, 0, INS("\n") },
	{ "a CRLF", -1, 0, INS("\r\n") },
	{ "a tab inside", 7, 0, INS("\t") },
	{ "a '+'", 3, 1, INS("+") },
	{ "a '/'", 3, 1, INS("/") },
	{ "a NUL byte", 3, 1, INS("\0") },
	{ "a byte over 0x7f", 3, 1, INS("\xc3") },
	{ "a third dot", -1, 0, INS(".AAAA") },
	{ "a trailing dot", -1, 0, INS(".") },
	{ "a doubled dot", 10, 0, INS(".") },
};

/* Applies ed to good and returns the new bytes (malloc'd) and length. */
static char *apply_edit(const char *good, const struct edit *ed, size_t *len)
{
	size_t n = strlen(good), at = ed->at < 0 ? n : (size_t)ed->at;
	char *s = malloc(n + ed->ins_len + 1);

	ck_assert_ptr_nonnull(s);
	memcpy(s, good, at);
	memcpy(s + at, ed->insert, ed->ins_len);
	memcpy(s + at + ed->ins_len, good + at + ed->cut, n - at - ed->cut);
	*len = n - ed->cut + ed->ins_len;
	s[*len] = '\0';
	return s;
}

START_TEST(encoding_errors_are_malformed)
{
	unsigned char sk[64];
	char *good, *hdr_pad;
	size_t i, len, dot;

	rfc8037_sk(sk);
	good = jws_sign_eddsa(sk, (const unsigned char *)"{\"a\":1}", 7);
	for (i = 0; i < sizeof bad_edits / sizeof bad_edits[0]; i++) {
		char *s = apply_edit(good, &bad_edits[i], &len);

		ck_assert_msg(parse_status(s, len) == JWS_MALFORMED, "%s was accepted", bad_edits[i].what);
		free(s);
	}

	/* Header part padded out to a multiple of 4 with '='. */
	dot = (size_t)(strchr(good, '.') - good);
	ck_assert_uint_ne(dot % 4, 0);
	hdr_pad = malloc(strlen(good) + 4);
	ck_assert_ptr_nonnull(hdr_pad);
	memcpy(hdr_pad, good, dot);
	len = dot;
	while (len % 4)
		hdr_pad[len++] = '=';
	strcpy(hdr_pad + len, good + dot);
	ck_assert_int_eq(PARSE(hdr_pad), JWS_MALFORMED);
	free(hdr_pad);

	ck_assert_int_eq(parse_status(good, 0), JWS_MALFORMED);
	ck_assert_int_eq(PARSE("abc"), JWS_MALFORMED);
	ck_assert_int_eq(PARSE("abc.def"), JWS_MALFORMED);
	ck_assert_int_eq(PARSE("ab.cd.ef.gh"), JWS_MALFORMED);
	ck_assert_int_eq(PARSE(".."), JWS_MALFORMED);
	ck_assert_int_eq(PARSE("..."), JWS_MALFORMED);
	free(good);
}
END_TEST

START_TEST(empty_payload_and_huge_input_are_malformed)
{
	unsigned char sk[64];
	char *s, *big;
	size_t n = JWS_MAX_COMPACT + 1;

	rfc8037_sk(sk);
	s = make_eddsa(sk, "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "\"}}", "");
	ck_assert_ptr_nonnull(strstr(s, "..")); /* the payload part is empty */
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);

	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'A', n);
	big[10] = big[20] = '.';
	big[n] = '\0';
	ck_assert_int_eq(parse_status(big, n), JWS_MALFORMED);
	free(big);
}
END_TEST

/* A protected header and the status it must produce (signed correctly). */
struct hdr_case {
	const char *hdr;
	int want;
	const char *in_message;  /* a word the error message must contain */
};

#define JWK_OK "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "\"}"
#define X31 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define X33 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

static const struct hdr_case hdr_cases[] = {
	{ "{\"alg\":\"EdDSA\",\"jwk\":" JWK_OK "}", JWS_OK, NULL },
	{ "{\"alg\":\"EdDSA\",\"typ\":\"JWT\",\"kid\":\"k1\",\"jwk\":" JWK_OK "}", JWS_OK, NULL },
	{ "{\"alg\":\"EdDSA\",\"b64\":true,\"jwk\":" JWK_OK "}", JWS_OK, NULL },
	{ "{\"alg\":\"none\",\"jwk\":" JWK_OK "}", JWS_UNSUPPORTED_ALG, "none" },
	{ "{\"alg\":\"HS256\",\"jwk\":" JWK_OK "}", JWS_UNSUPPORTED_ALG, "HS256" },
	{ "{\"alg\":\"RS256\",\"jwk\":" JWK_OK "}", JWS_UNSUPPORTED_ALG, "RS256" },
	{ "{\"alg\":\"eddsa\",\"jwk\":" JWK_OK "}", JWS_UNSUPPORTED_ALG, "eddsa" },
	{ "{\"alg\":\"Ed\xc3\xa9\",\"jwk\":" JWK_OK "}", JWS_UNSUPPORTED_ALG, "Ed??" },
	{ "{\"jwk\":" JWK_OK "}", JWS_MALFORMED, "alg" },
	{ "{\"alg\":7,\"jwk\":" JWK_OK "}", JWS_MALFORMED, "alg" },
	{ "{\"alg\":\"EdDSA\",\"crit\":[\"exp\"],\"jwk\":" JWK_OK "}", JWS_MALFORMED, "crit" },
	{ "{\"alg\":\"EdDSA\",\"crit\":[],\"jwk\":" JWK_OK "}", JWS_MALFORMED, "crit" },
	{ "{\"alg\":\"EdDSA\",\"b64\":false,\"jwk\":" JWK_OK "}", JWS_MALFORMED, "b64" },
	{ "{\"alg\":\"EdDSA\",\"b64\":\"false\",\"jwk\":" JWK_OK "}", JWS_MALFORMED, "b64" },
	{ "{\"alg\":\"EdDSA\"}", JWS_MALFORMED, "jwk" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":\"" X8037 "\"}", JWS_MALFORMED, "jwk" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "\",\"d\":\"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A\"}}", JWS_MALFORMED, "private key (\"d\")" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X31 "\"}}", JWS_MALFORMED, "32-byte" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X33 "\"}}", JWS_MALFORMED, "32-byte" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "=\"}}", JWS_MALFORMED, "32-byte" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURp\"}}", JWS_MALFORMED, "32-byte" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":7}}", JWS_MALFORMED, "32-byte" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"EC\",\"crv\":\"Ed25519\",\"x\":\"" X8037 "\"}}", JWS_MALFORMED, "kty" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"crv\":\"Ed25519\",\"x\":\"" X8037 "\"}}", JWS_MALFORMED, "kty" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"X25519\",\"x\":\"" X8037 "\"}}", JWS_MALFORMED, "crv" },
	{ "{\"alg\":\"ES256\",\"jwk\":" JWK_OK "}", JWS_MALFORMED, "kty" },
	{ "{\"alg\":\"EdDSA\",\"alg\":\"EdDSA\",\"jwk\":" JWK_OK "}", JWS_MALFORMED, "JSON" },
	{ "[\"alg\",\"EdDSA\"]", JWS_MALFORMED, "object" },
	{ "{\"alg\":\"EdDSA\",\"jwk\":" JWK_OK "} x", JWS_MALFORMED, "JSON" },
	{ "", JWS_MALFORMED, "header" },
};

START_TEST(header_rules)
{
	unsigned char sk[64];
	size_t i;

	rfc8037_sk(sk);
	for (i = 0; i < sizeof hdr_cases / sizeof hdr_cases[0]; i++) {
		const struct hdr_case *c = &hdr_cases[i];
		char *s = make_eddsa(sk, c->hdr, "{\"a\":1}");
		struct jws j;
		struct err e;
		int rc = jws_parse_verify(s, strlen(s), &j, &e);

		ck_assert_msg(rc == c->want, "header %s: got %d, want %d (%s)", c->hdr, rc, c->want, e.message);
		if (c->in_message)
			ck_assert_msg(strstr(e.message, c->in_message) != NULL,
				      "header %s: message \"%s\" lacks \"%s\"", c->hdr, e.message, c->in_message);
		if (rc == JWS_OK)
			ck_assert_str_eq(j.thumbprint, rfc8037_thumb);
		jws_free(&j);
		free(s);
	}
}
END_TEST

/* The protected header is held to the payload's depth (32) and to
 * JWS_MAX_HEADER bytes decoded: deeper or larger is malformed, saying
 * which; exactly at both limits it verifies. */
START_TEST(header_depth_and_size_are_bounded)
{
	static const char head[] = "{\"alg\":\"EdDSA\",\"jwk\":" JWK_OK ",\"x\":";
	unsigned char sk[64];
	char *hdr = malloc(8192), *s;
	struct jws j;
	struct err e;
	size_t at, k;
	int depth, rc;

	ck_assert_ptr_nonnull(hdr);
	rfc8037_sk(sk);
	for (depth = 31; depth <= 1500; depth += depth == 31 ? 1 : 1468) {
		at = (size_t)snprintf(hdr, 8192, "%s", head);
		for (k = 0; k < (size_t)depth; k++)
			hdr[at++] = '[';
		for (k = 0; k < (size_t)depth; k++)
			hdr[at++] = ']';
		hdr[at++] = '}';
		hdr[at] = '\0';
		s = make_eddsa(sk, hdr, "{\"a\":1}");
		rc = jws_parse_verify(s, strlen(s), &j, &e);
		if (depth == 31) {      /* 1 + 31 = 32 levels */
			ck_assert_int_eq(rc, JWS_OK);
		} else {
			ck_assert_int_eq(rc, JWS_MALFORMED);
			ck_assert_int_eq(e.status, 400);
			ck_assert_str_eq(e.code, "malformed_jws");
			ck_assert_msg(strstr(e.message, "more than 32 deep"), "%s", e.message);
		}
		jws_free(&j);
		free(s);
	}
	for (k = JWS_MAX_HEADER; k <= JWS_MAX_HEADER + 1; k++) {
		at = (size_t)snprintf(hdr, 8192, "{\"alg\":\"EdDSA\",\"jwk\":" JWK_OK ",\"kid\":\"");
		while (at < k - 2)
			hdr[at++] = 'k';
		memcpy(hdr + at, "\"}", 3);
		ck_assert_uint_eq(strlen(hdr), k);
		s = make_eddsa(sk, hdr, "{\"a\":1}");
		rc = jws_parse_verify(s, strlen(s), &j, &e);
		ck_assert_int_eq(rc, k == JWS_MAX_HEADER ? JWS_OK : JWS_MALFORMED);
		if (rc)
			ck_assert_msg(strstr(e.message, "4097 bytes decoded, more than the 4096"), "%s", e.message);
		jws_free(&j);
		free(s);
	}
	free(hdr);
}
END_TEST

START_TEST(wrong_signature_length_is_malformed)
{
	unsigned char sk[64], sig[65] = { 0 };
	char *in, *s;

	rfc8037_sk(sk);
	in = signing_input("{\"alg\":\"EdDSA\",\"jwk\":" JWK_OK "}", "{}");
	s = with_sig(in, sig, 63);
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);
	s = with_sig(in, sig, 65);
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);
	free(in);
}
END_TEST

/* ---------------------------------------------------------------- ES256 */

static int test_rng(void *ctx, unsigned char *out, size_t n)
{
	randombytes_buf(out, n);
	return 0;
}

/* A fresh P-256 key and its jwk coordinates. */
struct ec_key {
	mbedtls_ecdsa_context ctx;
	char *x, *y;
};

static void ec_key_new(struct ec_key *k)
{
	unsigned char pt[65];
	size_t n;

	mbedtls_ecdsa_init(&k->ctx);
	ck_assert_int_eq(mbedtls_ecdsa_genkey(&k->ctx, MBEDTLS_ECP_DP_SECP256R1, test_rng, NULL), 0);
	ck_assert_int_eq(mbedtls_ecp_point_write_binary(&k->ctx.grp, &k->ctx.Q, MBEDTLS_ECP_PF_UNCOMPRESSED,
							&n, pt, sizeof pt), 0);
	ck_assert_uint_eq(n, 65);
	k->x = b64u(pt + 1, 32);
	k->y = b64u(pt + 33, 32);
}

static void ec_key_free(struct ec_key *k)
{
	mbedtls_ecdsa_free(&k->ctx);
	free(k->x);
	free(k->y);
}

/* Signs input with k into the 64-byte r||s; tweak 1 replaces s by n - s
 * (high S), 2 sets r to 0, 3 sets r to n. */
static void es256_sign(struct ec_key *k, const char *input, unsigned char sig[64], int tweak)
{
	unsigned char hash[32];
	mbedtls_mpi r, s;

	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	ck_assert_int_eq(mbedtls_sha256_ret((const unsigned char *)input, strlen(input), hash, 0), 0);
	ck_assert_int_eq(mbedtls_ecdsa_sign(&k->ctx.grp, &r, &s, &k->ctx.d, hash, sizeof hash, test_rng, NULL), 0);
	if (tweak == 1)
		ck_assert_int_eq(mbedtls_mpi_sub_mpi(&s, &k->ctx.grp.N, &s), 0);
	if (tweak == 2)
		ck_assert_int_eq(mbedtls_mpi_lset(&r, 0), 0);
	if (tweak == 3)
		ck_assert_int_eq(mbedtls_mpi_copy(&r, &k->ctx.grp.N), 0);
	ck_assert_int_eq(mbedtls_mpi_write_binary(&r, sig, 32), 0);
	ck_assert_int_eq(mbedtls_mpi_write_binary(&s, sig + 32, 32), 0);
	mbedtls_mpi_free(&r);
	mbedtls_mpi_free(&s);
}

/* Returns a compact ES256 JWS over payload whose header names (x, y). */
static char *make_es256(struct ec_key *k, const char *x, const char *y,
			const char *payload, int tweak)
{
	char hdr[256], *in, *s;
	unsigned char sig[64];

	snprintf(hdr, sizeof hdr, "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"jwk\":{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"}}", x, y);
	in = signing_input(hdr, payload);
	es256_sign(k, in, sig, tweak);
	s = with_sig(in, sig, sizeof sig);
	free(in);
	return s;
}

START_TEST(es256_parse_verify)
{
	struct ec_key k;
	struct jws j;
	struct err e;
	char *s, thumb[48], *bad_y;
	size_t n;

	ec_key_new(&k);
	s = make_es256(&k, k.x, k.y, "{\"a\":1}", 0);
	ck_assert_msg(jws_parse_verify(s, strlen(s), &j, &e) == JWS_OK, "%s", e.message);
	ck_assert_int_eq(j.alg, JWS_ALG_ES256);
	ck_assert_str_eq((const char *)j.payload, "{\"a\":1}");
	ck_assert_uint_eq(j.pub_len, 65);
	ck_assert_uint_eq(j.pub[0], 0x04);
	ck_assert_int_eq(jws_thumbprint_ec(k.x, k.y, thumb), 0);
	ck_assert_str_eq(j.thumbprint, thumb);
	jws_free(&j);
	free(s);

	s = make_es256(&k, k.x, k.y, "{\"a\":1}", 1);    /* high S is valid */
	ck_assert_int_eq(PARSE(s), JWS_OK);
	free(s);
	s = make_es256(&k, k.x, k.y, "{\"a\":1}", 2);    /* r = 0 */
	ck_assert_int_eq(PARSE(s), JWS_BAD_SIGNATURE);
	free(s);
	s = make_es256(&k, k.x, k.y, "{\"a\":1}", 3);    /* r = n */
	ck_assert_int_eq(PARSE(s), JWS_BAD_SIGNATURE);
	free(s);

	/* A y that puts the point off the curve. */
	bad_y = strdup(k.y);
	ck_assert_ptr_nonnull(bad_y);
	n = strlen(bad_y);
	bad_y[n - 2] = bad_y[n - 2] == 'A' ? 'B' : 'A';
	s = make_es256(&k, k.x, bad_y, "{\"a\":1}", 0);
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);
	free(bad_y);

	/* A y of 31 bytes. */
	s = make_es256(&k, k.x, X31, "{\"a\":1}", 0);
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);
	ec_key_free(&k);
}
END_TEST

START_TEST(es256_key_under_eddsa_is_malformed)
{
	struct ec_key k;
	unsigned char sk[64];
	char hdr[256], *s;

	ec_key_new(&k);
	rfc8037_sk(sk);
	snprintf(hdr, sizeof hdr, "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"}}", k.x, k.y);
	s = make_eddsa(sk, hdr, "{}");
	ck_assert_int_eq(PARSE(s), JWS_MALFORMED);
	free(s);
	ec_key_free(&k);
}
END_TEST

static Suite *suite_jws(void)
{
	Suite *s = suite_create("jws");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, wycheproof_ed25519);
	tcase_add_test(tc, wycheproof_es256_p1363);
	tcase_add_test(tc, rfc8037_a4_verifies);
	tcase_add_test(tc, rfc7515_a3_verifies);
	tcase_add_test(tc, libsodium_b64u_is_strict);
	tcase_add_test(tc, b64u_decoder_agrees_with_libsodium);
	tcase_add_test(tc, eddsa_round_trip);
	tcase_add_test(tc, eddsa_rfc8037_key_thumbprint);
	tcase_add_test(tc, eddsa_tampering_fails);
	tcase_add_test(tc, encoding_errors_are_malformed);
	tcase_add_test(tc, empty_payload_and_huge_input_are_malformed);
	tcase_add_test(tc, header_rules);
	tcase_add_test(tc, wrong_signature_length_is_malformed);
	tcase_add_test(tc, header_depth_and_size_are_bounded);
	tcase_add_test(tc, es256_parse_verify);
	tcase_add_test(tc, es256_key_under_eddsa_is_malformed);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_jws)
