/* jsonw.h: the one JSON writer.  Every JSON answer, export line and twin
 * is written from a jansson value by jsonw, not by json_dumps: jansson 2.14
 * prints every real with a fixed precision (%.17g, "540.60000000000002"),
 * while jsonw writes the shortest text that reads back as the same double
 * ("540.6"; util/numfmt.c, numfmt_shortest).  Everything else is written
 * as json_dumps(v, JSON_COMPACT [| JSON_ENSURE_ASCII]) writes it: strings
 * escaped byte for byte alike, object members in insertion order, no
 * whitespace. */
#ifndef LLMS_JSONW_H
#define LLMS_JSONW_H

#include <jansson.h>

#include "util/buf.h"

enum jsonw_flags {
	JSONW_ASCII = 1,   /* every code point past U+007F as \uXXXX (JSON_ENSURE_ASCII) */
	JSONW_SCRIPT = 2,  /* '<', '>' and '&' as \u003C \u003E \u0026, and U+2028,
			    * U+2029 as \u2028 \u2029: the text can stand inside an
			    * HTML <script> (JSON-LD) without "</script" or "<!--"
			    * ending or changing it, and reads back the same */
};

/* Appends the compact JSON text of v (any value, not only an object or an
 * array) to b.  Returns 0, or -1 when a string is not well-formed UTF-8 or
 * values nest deeper than 2048 (b may then hold part of the text). */
int jsonw_buf(struct buf *b, const json_t *v, unsigned flags);

/* The compact JSON text of v as a malloc'd string the caller frees, or
 * NULL (out of memory, or as jsonw_buf fails): json_dumps' replacement. */
char *jsonw_dumps(const json_t *v, unsigned flags);

/* Appends the JSON text of the double x: numfmt_shortest, with ".0" when
 * that reads as an integer ("12.0", "-0.0"), as jansson does so that a
 * real reads back as a real.  -1 (nothing appended) when x is not finite. */
int jsonw_real(struct buf *b, double x);

#endif
