/* textcut.h: the one way a long name is shortened for a page title. */
#ifndef LLMS_TEXTCUT_H
#define LLMS_TEXTCUT_H

#include <stddef.h>

#include "util/buf.h"

/* A page title's text (before " · llm-speed") is at most this wide, counted
 * as it is escaped in the page ("&" counts 5). */
#define TEXTCUT_TITLE_MAX 57

/* Appends s (well-formed UTF-8), cut at a code point boundary and ended
 * with "…" when it is wider than max as escaped in HTML; the result, "…"
 * included (as one), is never wider than max. */
void textcut(struct buf *out, const char *s, size_t max);

/* As textcut, but the cut falls after the last whole word that fits (at
 * a space, which is dropped with any before it), unless that would keep
 * less than half of max; then at a code point as textcut does. */
void textcut_words(struct buf *out, const char *s, size_t max);

/* How wide s is as textcut counts it: one a code point, an escaped
 * character as its entity's length. */
size_t textcut_width(const char *s);

/* The short form of hardware name s[0..n) that a narrow space shows:
 * without leading vendor and brand words (NVIDIA, GeForce, AMD, Intel,
 * Apple; at least one word stays) and without a trailing " GPU", so
 * "NVIDIA GeForce RTX 4090 Laptop GPU" is "RTX 4090 Laptop" and "Apple M3
 * Ultra" is "M3 Ultra".  Returns where it starts in s; *len is its length. */
size_t textcut_hw(const char *s, size_t n, size_t *len);

#endif
