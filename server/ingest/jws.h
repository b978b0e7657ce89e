/* jws.h: compact JWS parsing and verification (EdDSA/Ed25519 and ES256/P-256).
 *
 * The upload endpoint hands the request body to jws_parse_verify().  It
 * accepts exactly the JWS schema/API.md describes: three unpadded base64url
 * parts, a protected header that is a JSON object naming "EdDSA" or "ES256"
 * and carrying the public key as "jwk", and a signature by that key over
 * ASCII(part1 "." part2).  Everything else is refused with a status that maps
 * onto the contract's error codes and a sentence a person can act on:
 *
 *   JWS_MALFORMED        -> 400 malformed_jws
 *   JWS_UNSUPPORTED_ALG  -> 400 unsupported_alg
 *   JWS_BAD_SIGNATURE    -> 401 invalid_signature
 *   JWS_NOMEM            -> 503 unavailable
 *
 *   struct jws j;
 *   if (jws_parse_verify(body, len, &j, &a->err) < 0)
 *           return -1;
 *   ...j.payload, j.thumbprint...
 *   jws_free(&j);
 *
 * Every function here is safe to call from any thread.
 */
#ifndef LLMS_JWS_H
#define LLMS_JWS_H

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/* Largest compact JWS accepted: the 64 KiB body limit plus some slack, so
 * this module never decides a size question the HTTP layer should answer. */
#define JWS_MAX_COMPACT ((size_t)72 * 1024)

/* Largest protected header accepted, decoded: alg, a P-256 jwk, typ and a
 * kid take about 250 bytes, so 4 KiB leaves room for any honest header
 * while keeping every stored one small enough to show and re-verify.  It
 * nests at most VALIDATE_MAX_DEPTH (32) deep, as the payload does. */
#define JWS_MAX_HEADER 4096

enum jws_alg { JWS_ALG_EDDSA = 1, JWS_ALG_ES256 = 2 };

enum jws_status {
	JWS_OK = 0,
	JWS_MALFORMED = -1,
	JWS_UNSUPPORTED_ALG = -2,
	JWS_BAD_SIGNATURE = -3,
	JWS_NOMEM = -4
};

/* A verified JWS.  Owns header and payload; release with jws_free(). */
struct jws {
	enum jws_alg alg;
	json_t *header;            /* the decoded protected header object */
	unsigned char *payload;    /* decoded payload, NUL-terminated */
	size_t payload_len;        /* not counting the NUL */
	unsigned char pub[65];     /* Ed25519: 32 raw bytes; P-256: 0x04||X||Y */
	size_t pub_len;
	char thumbprint[48];       /* RFC 7638 JWK thumbprint, base64url */
};

/* Initialises libsodium.  Idempotent and thread-safe; the other functions
 * call it themselves, so calling it at startup only moves the cost there.
 * Returns 0, or -1 when libsodium cannot start. */
int jws_init(void);

/* Parses the compact JWS compact[0..len) and verifies its signature with the
 * key in its protected header.  Returns JWS_OK and fills *out, or a negative
 * enum jws_status with err->message filled (err may be NULL).  On failure
 * *out holds nothing that needs freeing, and jws_free(out) is still safe. */
int jws_parse_verify(const char *compact, size_t len, struct jws *out,
		     struct err *err);

/* Frees what jws_parse_verify() stored in j and zeroes it; safe on a zeroed
 * or already freed struct. */
void jws_free(struct jws *j);

/* Verify one signature.  Return 0 when sig is a valid signature of msg under
 * the key, -1 otherwise (including a key that is not a valid point, and for
 * ES256 a signature that is not exactly r||s of 32 bytes each with r and s
 * in [1, n-1]). */
int jws_verify_ed25519(const unsigned char pub[32], const unsigned char *msg,
		       size_t msg_len, const unsigned char *sig, size_t sig_len);
int jws_verify_es256(const unsigned char x[32], const unsigned char y[32],
		     const unsigned char *msg, size_t msg_len,
		     const unsigned char *sig, size_t sig_len);

/* RFC 7638 JWK thumbprints of an OKP/Ed25519 and an EC/P-256 public key
 * given by their base64url coordinates.  Write the base64url SHA-256 of the
 * canonical JWK JSON to out (NUL-terminated).  Return 0, or -1 when a
 * coordinate is not base64url or memory runs out. */
int jws_thumbprint_okp(const char *x_b64u, char out[48]);
int jws_thumbprint_ec(const char *x_b64u, const char *y_b64u, char out[48]);

/* Base64url decoding is util/b64u.h's b64u_decode(). */

/* Signs payload with the libsodium secret key sk (seed || public key) and
 * returns a compact JWS whose protected header is
 * {"alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":...}}.
 * The caller frees the string; NULL when memory runs out. */
char *jws_sign_eddsa(const unsigned char sk[64], const unsigned char *payload,
		     size_t payload_len);

#endif
