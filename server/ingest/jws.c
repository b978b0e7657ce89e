/* jws.c: compact JWS parsing and verification (libsodium Ed25519, mbedTLS ES256). */
#include "ingest/jws.h"
#include "ingest/validate.h"
#include "util/b64u.h"
#include "util/buf.h"
#include "util/nelem.h"

#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/sha256.h>
#include <sodium.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B64U sodium_base64_VARIANT_URLSAFE_NO_PADDING

/* What each supported alg requires of the jwk in the protected header. */
struct alg_info {
	const char *name, *kty, *crv;
	enum jws_alg alg;
};

static const struct alg_info algs[] = {
	{ "EdDSA", "OKP", "Ed25519", JWS_ALG_EDDSA },
	{ "ES256", "EC", "P-256", JWS_ALG_ES256 },
};

/* The three parts of a compact JWS, pointing into the caller's bytes. */
struct parts {
	const char *at[3];
	size_t len[3];
};

static const char *const part_name[3] = { "protected header", "payload", "signature" };

int jws_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

/* The one map from a JWS failure to the contract's status, code and
 * field (JWS_MALFORMED's, the first row, for any other). */
struct jws_answer {
	int st;
	unsigned http;
	const char *code, *field;
};

static const struct jws_answer *jws_http(int status)
{
	static const struct jws_answer map[] = {
		{ JWS_MALFORMED, 400, "malformed_jws", NULL },
		{ JWS_UNSUPPORTED_ALG, 400, "unsupported_alg", "header.alg" },
		{ JWS_BAD_SIGNATURE, 401, "invalid_signature", NULL },
		{ JWS_NOMEM, 503, "unavailable", NULL },
	};
	size_t i;

	for (i = 1; i < NELEM(map); i++)
		if (map[i].st == status)
			return &map[i];
	return &map[0];
}

/* Fills err (when there is one) with the HTTP answer for status and the
 * formatted sentence, with every byte outside printable ASCII replaced by
 * '?' so that the message is always valid UTF-8 for a JSON error body, and
 * returns status. */
static int fail(struct err *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct err *err, int status, const char *fmt, ...)
{
	const struct jws_answer *m = jws_http(status);
	va_list ap;
	char *p;

	if (!err)
		return status;
	if (status == JWS_NOMEM) {
		err_set(err, m->http, m->code, m->field, "%s", MSG_NOMEM);
		return status;
	}
	va_start(ap, fmt);
	err_vset(err, m->http, m->code, m->field, fmt, ap);
	va_end(ap);
	for (p = err->message; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	/* A sentence ends with a full stop (the messages are written without). */
	if (p > err->message && p[-1] != '.' && p + 1 < err->message + sizeof err->message) {
		p[0] = '.';
		p[1] = '\0';
	}
	return status;
}

static int is_b64u_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Returns 1 when s[0..n) is non-empty, uses only the base64url alphabet and
 * has a length an unpadded encoding can have (not 1 more than a multiple
 * of 4); 0 otherwise. */
static int b64u_shape_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n % 4 == 1)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_b64u_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Decodes s[0..n) (strictly, as above) into exactly want bytes at dst.
 * Returns 0, or -1 when the text is not the canonical encoding of want bytes. */
static int b64u_decode_fixed(const char *s, size_t n, unsigned char *dst, size_t want)
{
	size_t got;

	if (b64u_decode(s, n, dst, want, &got) != 0)
		return -1;
	return got == want ? 0 : -1;
}

/* Decodes s[0..n) (strictly, as above) into a malloc'd buffer with a NUL
 * after the bytes, which the caller frees.  Returns 0, JWS_MALFORMED or
 * JWS_NOMEM; *out is NULL on failure. */
static int b64u_decode_alloc(const char *s, size_t n, unsigned char **out, size_t *out_len)
{
	size_t cap = n / 4 * 3 + 3;
	unsigned char *bin;

	*out = NULL;
	bin = malloc(cap + 1);
	if (!bin)
		return JWS_NOMEM;
	if (b64u_decode(s, n, bin, cap, out_len) != 0) {
		free(bin);
		return JWS_MALFORMED;
	}
	bin[*out_len] = '\0';
	*out = bin;
	return 0;
}

/* Appends the unpadded base64url encoding of bin[0..n) to b (sticky error). */
static void b64u_put(struct buf *b, const void *bin, size_t n)
{
	size_t m = sodium_base64_ENCODED_LEN(n, B64U);

	buf_grow(b, m);
	if (buf_error(b))
		return;
	sodium_bin2base64(b->buf + b->len, m, bin, n, B64U);
	b->len += m - 1;
}

/* Fails with a sentence about the byte c at offset i, which is outside the
 * base64url alphabet, naming the usual mistakes: padding, whitespace (a
 * trailing newline from a file), and the standard base64 alphabet. */
static int bad_byte(struct err *err, unsigned char c, size_t i)
{
	if (c == '=')
		return fail(err, JWS_MALFORMED, "the JWS has base64 padding ('=') at offset %zu; base64url here is unpadded, so strip every '='", i);
	if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
		return fail(err, JWS_MALFORMED, "the JWS has whitespace (byte 0x%02x) at offset %zu; send the compact JWS alone, with no spaces or line breaks (a file that ends in a newline adds one)", c, i);
	if (c == '+' || c == '/')
		return fail(err, JWS_MALFORMED, "the JWS has '%c' at offset %zu, from the standard base64 alphabet; encode each part as base64url ('-' and '_') without padding", c, i);
	return fail(err, JWS_MALFORMED, "the JWS has byte 0x%02x at offset %zu, which is outside the base64url alphabet; send header.payload.signature as unpadded base64url", c, i);
}

/* Finds the two dots of compact[0..len) and checks that every other byte is
 * in the base64url alphabet.  The parts themselves are checked as they are
 * decoded, so that an "alg":"none" JWS with an empty signature is reported
 * as such.  Returns 0 with p filled, or JWS_MALFORMED. */
static int split_parts(const char *s, size_t len, struct parts *p, struct err *err)
{
	const char *d1, *d2;
	size_t i, dots = 0;

	if (len == 0)
		return fail(err, JWS_MALFORMED, "the request body is empty; send one compact JWS");
	if (len > JWS_MAX_COMPACT)
		return fail(err, JWS_MALFORMED, "the JWS is %zu bytes, more than the %zu accepted", len, JWS_MAX_COMPACT);
	for (i = 0; i < len; i++) {
		if (s[i] == '.')
			dots++;
		else if (!is_b64u_char((unsigned char)s[i]))
			return bad_byte(err, (unsigned char)s[i], i);
	}
	if (dots != 2)
		return fail(err, JWS_MALFORMED, "the JWS has %zu dot(s); a compact JWS is header.payload.signature, with exactly two", dots);
	d1 = memchr(s, '.', len);
	d2 = memchr(d1 + 1, '.', (size_t)(s + len - (d1 + 1)));
	p->at[0] = s;
	p->len[0] = (size_t)(d1 - s);
	p->at[1] = d1 + 1;
	p->len[1] = (size_t)(d2 - p->at[1]);
	p->at[2] = d2 + 1;
	p->len[2] = (size_t)(s + len - p->at[2]);
	return 0;
}

/* Fails with a sentence saying why part i of p did not decode. */
static int bad_part(const struct parts *p, int i, struct err *err)
{
	if (p->len[i] == 0)
		return fail(err, JWS_MALFORMED, "the JWS's %s part is empty; send header.payload.signature with all three parts", part_name[i]);
	return fail(err, JWS_MALFORMED, "the JWS's %s part is not canonical unpadded base64url (its length is impossible or its unused trailing bits are not zero)", part_name[i]);
}

/* Decodes the protected header into out->header, a JSON object.
 * Returns 0, JWS_MALFORMED or JWS_NOMEM. */
static int decode_header(const struct parts *p, struct jws *out, struct err *err)
{
	unsigned char *raw;
	size_t n;
	json_error_t jerr;
	int rc;

	rc = b64u_decode_alloc(p->at[0], p->len[0], &raw, &n);
	if (rc == JWS_NOMEM)
		return fail(err, rc, "the server ran out of memory decoding the protected header");
	if (rc < 0)
		return bad_part(p, 0, err);
	if (n > JWS_MAX_HEADER) {
		free(raw);
		return fail(err, JWS_MALFORMED, "the protected header is %zu bytes decoded, more than the %d accepted; send only alg and jwk (typ and kid may be added)", n, JWS_MAX_HEADER);
	}
	if (validate_json_depth(raw, n, VALIDATE_MAX_DEPTH) > VALIDATE_MAX_DEPTH) {
		free(raw);
		return fail(err, JWS_MALFORMED, "the protected header nests arrays and objects more than %d deep; send {\"alg\":...,\"jwk\":{...}}", VALIDATE_MAX_DEPTH);
	}
	out->header = json_loadb((const char *)raw, n, JSON_REJECT_DUPLICATES, &jerr);
	free(raw);
	if (!out->header)
		return fail(err, JWS_MALFORMED, "the protected header is not valid JSON: %s", jerr.text);
	if (!json_is_object(out->header))
		return fail(err, JWS_MALFORMED, "the protected header is JSON but not an object; send {\"alg\":...,\"jwk\":{...}}");
	return 0;
}

/* Looks up the header's "alg" among the supported ones.  Returns 0 with
 * *ai set, JWS_MALFORMED when alg is missing or not a string, or
 * JWS_UNSUPPORTED_ALG. */
static int check_alg(json_t *h, const struct alg_info **ai, struct err *err)
{
	const char *name = json_string_value(json_object_get(h, "alg"));
	size_t i;

	if (!name)
		return fail(err, JWS_MALFORMED, "the protected header has no \"alg\" string; set it to \"EdDSA\" (or \"ES256\")");
	for (i = 0; i < NELEM(algs); i++) {
		if (strcmp(name, algs[i].name) == 0) {
			*ai = &algs[i];
			return 0;
		}
	}
	return fail(err, JWS_UNSUPPORTED_ALG, "the protected header's alg \"%.40s\" is not supported; sign with \"EdDSA\" (Ed25519) or \"ES256\" (P-256)", name);
}

/* Refuses the JWS extensions this server does not implement: any "crit",
 * and an unencoded payload ("b64" other than true).  Returns 0 or
 * JWS_MALFORMED. */
static int check_extensions(json_t *h, struct err *err)
{
	json_t *b64 = json_object_get(h, "b64");

	if (json_object_get(h, "crit"))
		return fail(err, JWS_MALFORMED, "the protected header has a \"crit\" member, but this server implements no JWS extensions; remove it");
	if (b64 && !json_is_true(b64))
		return fail(err, JWS_MALFORMED, "the protected header sets \"b64\" to something other than true; send the payload base64url-encoded and drop \"b64\"");
	return 0;
}

/* Checks that jwk's member name is the string want, as alg ai requires.
 * Returns 0 or JWS_MALFORMED. */
static int check_jwk_str(json_t *jwk, const char *name, const char *want,
			 const struct alg_info *ai, struct err *err)
{
	const char *v = json_string_value(json_object_get(jwk, name));

	if (v && strcmp(v, want) == 0)
		return 0;
	return fail(err, JWS_MALFORMED, "the protected header's jwk has %s \"%.20s\", but alg %s needs kty \"%s\" and crv \"%s\"",
		    name, v ? v : "(missing)", ai->name, ai->kty, ai->crv);
}

/* Decodes the jwk coordinate name into 32 bytes at dst and returns its text
 * in *text.  Returns 0 or JWS_MALFORMED. */
static int read_coord(json_t *jwk, const char *name, unsigned char dst[32],
		      const char **text, struct err *err)
{
	*text = json_string_value(json_object_get(jwk, name));
	if (!*text || b64u_decode_fixed(*text, strlen(*text), dst, 32) < 0)
		return fail(err, JWS_MALFORMED, "the protected header's jwk \"%s\" must be a 32-byte key in unpadded base64url (43 characters)", name);
	return 0;
}

/* Loads P-256 into grp and (x, y) into q, refusing a point not on the
 * curve.  Returns 0 or -1; the caller frees grp and q either way. */
static int es256_load(mbedtls_ecp_group *grp, mbedtls_ecp_point *q,
		      const unsigned char x[32], const unsigned char y[32])
{
	unsigned char pt[65];

	pt[0] = 0x04;
	memcpy(pt + 1, x, 32);
	memcpy(pt + 33, y, 32);
	if (mbedtls_ecp_group_load(grp, MBEDTLS_ECP_DP_SECP256R1) != 0 ||
	    mbedtls_ecp_point_read_binary(grp, q, pt, sizeof pt) != 0 ||
	    mbedtls_ecp_check_pubkey(grp, q) != 0)
		return -1;
	return 0;
}

/* Returns 1 when (x, y) is a valid P-256 public key, 0 otherwise. */
static int es256_point_ok(const unsigned char x[32], const unsigned char y[32])
{
	mbedtls_ecp_group grp;
	mbedtls_ecp_point q;
	int ok;

	mbedtls_ecp_group_init(&grp);
	mbedtls_ecp_point_init(&q);
	ok = es256_load(&grp, &q, x, y) == 0;
	mbedtls_ecp_point_free(&q);
	mbedtls_ecp_group_free(&grp);
	return ok;
}

/* Reads the P-256 key of the jwk into out->pub (0x04||X||Y) and its
 * thumbprint.  Returns 0, JWS_MALFORMED or JWS_NOMEM. */
static int read_ec_key(json_t *jwk, struct jws *out, struct err *err)
{
	const char *xs, *ys;
	int rc;

	out->pub[0] = 0x04;
	if ((rc = read_coord(jwk, "x", out->pub + 1, &xs, err)) < 0 ||
	    (rc = read_coord(jwk, "y", out->pub + 33, &ys, err)) < 0)
		return rc;
	if (!es256_point_ok(out->pub + 1, out->pub + 33))
		return fail(err, JWS_MALFORMED, "the protected header's jwk is not a point on P-256; send the public key of the signing key");
	out->pub_len = 65;
	if (jws_thumbprint_ec(xs, ys, out->thumbprint) < 0)
		return fail(err, JWS_NOMEM, "the server ran out of memory hashing the jwk");
	return 0;
}

/* Reads the Ed25519 key of the jwk into out->pub and its thumbprint.
 * Returns 0, JWS_MALFORMED or JWS_NOMEM. */
static int read_okp_key(json_t *jwk, struct jws *out, struct err *err)
{
	const char *xs;
	int rc;

	if ((rc = read_coord(jwk, "x", out->pub, &xs, err)) < 0)
		return rc;
	out->pub_len = 32;
	if (jws_thumbprint_okp(xs, out->thumbprint) < 0)
		return fail(err, JWS_NOMEM, "the server ran out of memory hashing the jwk");
	return 0;
}

/* Checks the header's "jwk" against alg ai and reads the public key from it.
 * Returns 0, JWS_MALFORMED or JWS_NOMEM. */
static int read_jwk(json_t *h, const struct alg_info *ai, struct jws *out, struct err *err)
{
	json_t *jwk = json_object_get(h, "jwk");
	int rc;

	if (!json_is_object(jwk))
		return fail(err, JWS_MALFORMED, "the protected header has no \"jwk\" object; include the public key that signed the upload");
	if (json_object_get(jwk, "d"))
		return fail(err, JWS_MALFORMED, "the protected header's jwk carries a private key (\"d\"); send only the public key");
	if ((rc = check_jwk_str(jwk, "kty", ai->kty, ai, err)) < 0 ||
	    (rc = check_jwk_str(jwk, "crv", ai->crv, ai, err)) < 0)
		return rc;
	out->alg = ai->alg;
	if (ai->alg == JWS_ALG_ES256)
		return read_ec_key(jwk, out, err);
	return read_okp_key(jwk, out, err);
}

/* Decodes the payload part into out->payload.  Returns 0, JWS_MALFORMED or
 * JWS_NOMEM. */
static int decode_payload(const struct parts *p, struct jws *out, struct err *err)
{
	int rc = b64u_decode_alloc(p->at[1], p->len[1], &out->payload, &out->payload_len);

	if (rc == JWS_NOMEM)
		return fail(err, rc, "the server ran out of memory decoding the payload");
	if (rc < 0)
		return bad_part(p, 1, err);
	return 0;
}

/* Verifies the signature part over ASCII(header "." payload) with out's key.
 * Returns 0, JWS_MALFORMED (not 64 bytes) or JWS_BAD_SIGNATURE. */
static int check_signature(const char *compact, const struct parts *p,
			   const struct jws *out, struct err *err)
{
	const unsigned char *msg = (const unsigned char *)compact;
	size_t msg_len = p->len[0] + 1 + p->len[1];
	unsigned char sig[64];
	int rc;

	if (p->len[2] == 0)
		return bad_part(p, 2, err);
	if (b64u_decode_fixed(p->at[2], p->len[2], sig, sizeof sig) < 0)
		return fail(err, JWS_MALFORMED, "the signature part must be 64 bytes in unpadded base64url (86 characters)%s",
			    out->alg == JWS_ALG_ES256 ? ", r||s for ES256" : "");
	if (out->alg == JWS_ALG_ES256)
		rc = jws_verify_es256(out->pub + 1, out->pub + 33, msg, msg_len, sig, sizeof sig);
	else
		rc = jws_verify_ed25519(out->pub, msg, msg_len, sig, sizeof sig);
	if (rc < 0)
		return fail(err, JWS_BAD_SIGNATURE, "the signature does not verify with the jwk in the protected header; sign ASCII(header \".\" payload) with that key");
	return 0;
}

int jws_parse_verify(const char *compact, size_t len, struct jws *out,
		     struct err *err)
{
	const struct alg_info *ai = NULL;
	struct parts p = { 0 };
	int rc;

	memset(out, 0, sizeof *out);
	if (err)
		err->message[0] = '\0';
	if (jws_init() < 0)
		return fail(err, JWS_NOMEM, "the server could not start its crypto library");
	if ((rc = split_parts(compact, len, &p, err)) < 0 ||
	    (rc = decode_header(&p, out, err)) < 0 ||
	    (rc = check_alg(out->header, &ai, err)) < 0 ||
	    (rc = check_extensions(out->header, err)) < 0 ||
	    (rc = read_jwk(out->header, ai, out, err)) < 0 ||
	    (rc = decode_payload(&p, out, err)) < 0 ||
	    (rc = check_signature(compact, &p, out, err)) < 0)
		jws_free(out);
	return rc;
}

void jws_free(struct jws *j)
{
	json_decref(j->header);
	free(j->payload);
	memset(j, 0, sizeof *j);
}

int jws_verify_ed25519(const unsigned char pub[32], const unsigned char *msg,
		       size_t msg_len, const unsigned char *sig, size_t sig_len)
{
	if (sig_len != crypto_sign_BYTES || jws_init() < 0)
		return -1;
	return crypto_sign_verify_detached(sig, msg, msg_len, pub) == 0 ? 0 : -1;
}

/* Returns 1 when 1 <= v < n, 0 otherwise. */
static int in_scalar_range(const mbedtls_mpi *v, const mbedtls_mpi *n)
{
	return mbedtls_mpi_cmp_int(v, 1) >= 0 && mbedtls_mpi_cmp_mpi(v, n) < 0;
}

/* Reads the 64-byte r||s into r and s.  Returns 0 when both are in
 * [1, n-1], -1 otherwise. */
static int es256_read_sig(const mbedtls_ecp_group *grp, mbedtls_mpi *r,
			  mbedtls_mpi *s, const unsigned char sig[64])
{
	if (mbedtls_mpi_read_binary(r, sig, 32) != 0 ||
	    mbedtls_mpi_read_binary(s, sig + 32, 32) != 0)
		return -1;
	return in_scalar_range(r, &grp->N) && in_scalar_range(s, &grp->N) ? 0 : -1;
}

int jws_verify_es256(const unsigned char x[32], const unsigned char y[32],
		     const unsigned char *msg, size_t msg_len,
		     const unsigned char *sig, size_t sig_len)
{
	mbedtls_ecp_group grp;
	mbedtls_ecp_point q;
	mbedtls_mpi r, s;
	unsigned char hash[32];
	int rc = -1;

	mbedtls_ecp_group_init(&grp);
	mbedtls_ecp_point_init(&q);
	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	if (sig_len != 64 || es256_load(&grp, &q, x, y) < 0 ||
	    es256_read_sig(&grp, &r, &s, sig) < 0)
		goto out;
	if (mbedtls_sha256_ret(msg, msg_len, hash, 0) != 0)
		goto out;
	if (mbedtls_ecdsa_verify(&grp, hash, sizeof hash, &q, &r, &s) == 0)
		rc = 0;
out:
	mbedtls_mpi_free(&s);
	mbedtls_mpi_free(&r);
	mbedtls_ecp_point_free(&q);
	mbedtls_ecp_group_free(&grp);
	return rc;
}

/* Returns 1 when the NUL-terminated s is a plausible base64url coordinate
 * (safe to place inside a JSON string as is), 0 otherwise. */
static int coord_text_ok(const char *s)
{
	size_t n = strnlen(s, 1025);

	return n <= 1024 && b64u_shape_ok(s, n);
}

/* Writes the base64url SHA-256 of b's contents to out.  Returns 0, or -1
 * when b is in error. */
static int hash_b64u(const struct buf *b, char out[48])
{
	unsigned char h[crypto_hash_sha256_BYTES];

	if (buf_error(b) || jws_init() < 0)
		return -1;
	crypto_hash_sha256(h, (const unsigned char *)b->buf, b->len);
	sodium_bin2base64(out, 48, h, sizeof h, B64U);
	return 0;
}

int jws_thumbprint_okp(const char *x_b64u, char out[48])
{
	struct buf b = BUF_INIT;
	int rc = -1;

	if (!coord_text_ok(x_b64u))
		goto out;
	buf_printf(&b, "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"%s\"}", x_b64u);
	rc = hash_b64u(&b, out);
out:
	buf_release(&b);
	return rc;
}

int jws_thumbprint_ec(const char *x_b64u, const char *y_b64u, char out[48])
{
	struct buf b = BUF_INIT;
	int rc = -1;

	if (!coord_text_ok(x_b64u) || !coord_text_ok(y_b64u))
		goto out;
	buf_printf(&b, "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\",\"y\":\"%s\"}", x_b64u, y_b64u);
	rc = hash_b64u(&b, out);
out:
	buf_release(&b);
	return rc;
}

/* Appends the base64url protected header that names the Ed25519 public
 * key pk (sticky error). */
static void put_eddsa_header(struct buf *b, const unsigned char pk[32])
{
	char x[sodium_base64_ENCODED_LEN(32, B64U)];
	char hdr[128];
	int n;

	sodium_bin2base64(x, sizeof x, pk, 32, B64U);
	n = snprintf(hdr, sizeof hdr, "{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"%s\"}}", x);
	b64u_put(b, hdr, (size_t)n);
}

char *jws_sign_eddsa(const unsigned char sk[64], const unsigned char *payload,
		     size_t payload_len)
{
	struct buf b = BUF_INIT;
	unsigned char sig[crypto_sign_BYTES];
	char *s = NULL;

	if (jws_init() < 0)
		goto out;
	put_eddsa_header(&b, sk + crypto_sign_SEEDBYTES);
	buf_putc(&b, '.');
	b64u_put(&b, payload, payload_len);
	if (buf_error(&b) ||
	    crypto_sign_detached(sig, NULL, (const unsigned char *)b.buf, b.len, sk) != 0)
		goto out;
	buf_putc(&b, '.');
	b64u_put(&b, sig, sizeof sig);
	s = buf_detach(&b, NULL);
out:
	buf_release(&b);
	return s;
}
