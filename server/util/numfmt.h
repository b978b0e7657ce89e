/* numfmt.h: the one way the site writes a figure, a count or a date for
 * people, and a number for machines (numfmt_shortest). */
#ifndef LLMS_NUMFMT_H
#define LLMS_NUMFMT_H

#include "util/buf.h"

/* Appends v with dec decimals and thousands commas ("1,234.5"); "?" when v
 * is not finite, "%.3g" from 1e15. "-0.0" is written "0.0". */
void numfmt_fixed(struct buf *out, double v, int dec);

/* Appends a measured figure: one decimal below 1000 ("53.0", "112.2"),
 * none from 1000 with thousands commas ("7,314"), two significant digits
 * below 1 ("0.42", "0.050"), "0" for zero.  Every figure on every page
 * (tok/s, ms, GB, sigma) is written this way. */
void numfmt_fig(struct buf *out, double v);

/* Appends an estimate with three significant digits, trailing zeros kept
 * ("16.0", "8.50", "4.69", "163"), whole numbers from 1000 with commas
 * ("1,235"); "?" when v is not finite. */
void numfmt_sig3(struct buf *out, double v);

/* Appends a whole number with thousands commas ("131,072"); a value with
 * a fraction as numfmt_fig. */
void numfmt_int(struct buf *out, double v);

/* Appends a count and its noun, singular for one: "1 post", "3 posts",
 * "1,204 runs" (numfmt_int's commas). */
void numfmt_count(struct buf *out, long long n, const char *one, const char *many);

/* Appends how far a figure lies from its cluster's mean in standard
 * deviations: "4.2 below" or "4.2 above" (numfmt_fig of |sigma|), "at"
 * for 0. */
void numfmt_sigma(struct buf *out, double sigma);

/* Appends the readable form of an RFC 3339 UTC timestamp
 * or date "YYYY-MM-DD[T...]" as "30 Nov 2026".  Returns 0, or -1 and
 * appends nothing when ts[0..len) is not one. */
int numfmt_date(struct buf *out, const char *ts, size_t len);

/* The longest text numfmt_shortest writes, with its NUL
 * ("-1.2345678901234567e-308"). */
#define NUMFMT_SHORTEST_LEN 32

/* Writes the finite x into out as the shortest of %.15g, %.16g and %.17g
 * that reads back (strtod) as the same double, with the exponent as JSON
 * writers print it: no "+", no leading zeros ("540.6", "0.1", "1e-7",
 * "1.7976931348623157e308", "-0").  Returns the length, or -1 and writes
 * "" when x is not finite.  Every JSON number and CSV number is written
 * by this. */
int numfmt_shortest(char out[NUMFMT_SHORTEST_LEN], double x);

#endif
