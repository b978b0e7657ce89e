/* b64u.h: strict unpadded base64url decoding (RFC 4648 section 5), one
 * decoder for the JWS verifier, the run page and the migrations, and its
 * encoder for a stored JWS given back (store/jws_pack.h). */
#ifndef LLMSPEED_B64U_H
#define LLMSPEED_B64U_H

#include <stddef.h>

/* Decodes s[0..n) as strict unpadded base64url into dst (room for cap
 * bytes) and sets *got: the same texts as libsodium's strict
 * sodium_base642bin() (no '=', whitespace, other alphabets, impossible
 * lengths or non-zero unused bits), except that the empty text is refused.
 * Not constant-time: for public data only.  Returns 0 or -1. */
int b64u_decode(const char *s, size_t n, unsigned char *dst, size_t cap, size_t *got);

/* Writes the unpadded base64url text of p[0..n) to dst, which has room
 * for B64U_LEN(n) bytes, and returns its length; no NUL is written.  The
 * inverse of b64u_decode(): strict text is the one text of its bytes.
 * Not constant-time: for public data only. */
#define B64U_LEN(n) (((n) / 3) * 4 + ((n) % 3 ? (n) % 3 + 1 : 0))
size_t b64u_encode(const unsigned char *p, size_t n, char *dst);

/* The payload (middle segment) of compact JWS jws[0..n), decoded into a
 * malloc'd buffer *out of *len bytes plus a NUL, which the caller frees.
 * Checks no signature: for JWS already verified and stored.  Returns 0, or
 * -1 (*out NULL) when there are not two dots, the segment is not strict
 * base64url, or memory runs out. */
int b64u_jws_payload(const char *jws, size_t n, unsigned char **out, size_t *len);

#endif
