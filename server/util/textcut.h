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

#endif
