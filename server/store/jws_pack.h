/* jws_pack.h: the form a run's JWS is kept in on disk.
 *
 * The uploaded bytes are a compact JWS: three base64url segments, the
 * protected header and the payload being JSON the CLI writes in one fixed
 * shape.  Stored as they came they are the widest thing in a run's row
 * (about 1,170 bytes a run).  Packed, runs.jws holds one tag byte
 * (JWS_PACK_V1), then a zlib stream (RFC 1950: DEFLATE and a checksum),
 * primed with a dictionary of that shape, of the three segments decoded:
 * a varint length and the header, a varint length and the payload, and
 * the signature.  Strict
 * base64url (b64u.h) has one text for each byte string, so unpacking gives
 * back the exact bytes uploaded, and every pack is checked by inflating it
 * before it is stored.  A compact JWS begins with a base64url character,
 * never the tag, so rows stored before packing read as they are. */
#ifndef LLMS_JWS_PACK_H
#define LLMS_JWS_PACK_H

#include <stddef.h>

#include "util/buf.h"

#define JWS_PACK_V1 0x01

/* Replaces out's contents with the packed form of compact JWS s[0..n).
 * Returns 0, or -1 (out emptied) when s is not three strict base64url
 * segments, does not come back byte for byte, or memory runs out: the
 * caller then stores s as it is. */
int jws_pack(const char *s, size_t n, struct buf *out);

/* Appends to out the compact JWS that the stored value b[0..n) holds:
 * a packed value unpacked, anything else as it is.  Returns 0, or -1 when
 * a packed value is damaged or memory runs out. */
int jws_unpack(const void *b, size_t n, struct buf *out);

/* The payload (signed JSON) of the stored value b[0..n), packed or not,
 * into a malloc'd buffer *out of *len bytes plus a NUL, which the caller
 * frees.  Returns 0, or -1 (*out NULL) as b64u_jws_payload() does. */
int jws_stored_payload(const void *b, size_t n, unsigned char **out, size_t *len);

#endif
