/* rankstrip.h: the small strip a run page shows where its decode falls:
 * the weights file's histogram (all hardware) as light bars, the cluster's
 * as dark bars over it, a line at the run's bucket, and an axis of decode
 * rates on a log scale under them.
 *
 * Pure rendering, no I/O.  Its colours are classes style.css sets for
 * light and dark pages (the attributes are the light page's, for a reader
 * without the stylesheet); the legend is the page's, in HTML.  The label
 * goes through the escapers of html.h.
 *
 *   struct rankstrip_hist all = { lo, counts, len }, cl = { ... };
 *   rankstrip_svg(&out, &all, &cl, bucket, "Decode of the runs ...");
 */
#ifndef LLMS_RANKSTRIP_H
#define LLMS_RANKSTRIP_H

#include "util/buf.h"

/* Buckets per doubling of the decode rate: bucket b holds rates from
 * 2^(b / 16) up (migration 0012 makes them so). */
#define RANKSTRIP_PER_DOUBLING 16.0

/* One histogram: n[i] runs in bucket lo + i, for i below len. */
struct rankstrip_hist {
	int lo;
	const long long *n;
	int len;
};

/* Appends one <svg class="rank-strip" role="img"> to out (360 by 56 user
 * units), its aria-label and <title> equal to label: all's bars, cl's
 * over them (those outside the strip's range left out), and the mark
 * at bucket b, which widens the range when it lies outside all's.  The
 * bars scale to all's tallest.  Errors stick in out (util/buf.h). */
void rankstrip_svg(struct buf *out, const struct rankstrip_hist *all, const struct rankstrip_hist *cl,
		   int b, const char *label);

#endif
