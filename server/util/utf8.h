/* utf8.h: the one UTF-8 reader.  Well-formed means RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF, nothing cut off. */
#ifndef LLMS_UTF8_H
#define LLMS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the code point at s[0..n), n >= 1, into *cp and returns its
 * length in bytes (1..4); 0 when the bytes there are not a well-formed
 * sequence, with *cp set to U+FFFD (callers that go on step one byte). */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

/* As utf8_seq, for readers that go on past bad bytes: a malformed byte
 * decodes as U+FFFD of length 1, so the result is always 1..4. */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* The number of code points of s[0..n), or -1 when it is not well-formed
 * UTF-8 or holds a NUL. */
long utf8_count(const unsigned char *s, size_t n);

/* The number of code points of the well-formed NUL-terminated s (its
 * bytes that are not continuation bytes); 0 for NULL. */
size_t utf8_len(const char *s);

/* The length in bytes of the first max code points of s[0..n) (n when it
 * holds no more), stepping as utf8_next() does. */
size_t utf8_prefix(const char *s, size_t n, size_t max);

/* The length of the longest start of the well-formed s[0..n) that is at
 * most max bytes and ends between two code points (n when n <= max). */
size_t utf8_cut(const char *s, size_t n, size_t max);

#endif
