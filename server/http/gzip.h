/* gzip.h: gzip bodies (RFC 1952, by zlib) for the kept responses that
 * carry text, and the reading of a request's Accept-Encoding (RFC 9110
 * 12.5.3) that says whether it takes them. */
#ifndef LLMS_GZIP_H
#define LLMS_GZIP_H

#include <stddef.h>

#include "util/buf.h"

/* Appends n bytes of in, gzip-encoded at level (1-9), to out; 0, or -1
 * out of memory or when zlib fails (out's sticky error is then set). */
int gz_compress(const void *in, size_t n, int level, struct buf *out);

/* Decodes the gzip member in[0..n) into out, which has room for exactly
 * plain bytes: 0 when it held exactly that many and its check matched,
 * else -1. */
int gz_expand(const void *in, size_t n, void *out, size_t plain);

/* 1 when an Accept-Encoding value (NULL: the header is absent) takes
 * gzip: it names gzip or x-gzip, or else "*", with a q above 0. */
int gz_accepted(const char *accept_encoding);

#endif
