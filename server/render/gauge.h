/* gauge.h: a measured speed against its bandwidth ceiling, as a small
 * inline SVG bar (the model-on-hardware page).
 *
 * Pure rendering, no I/O.  Colours come from the page's stylesheet through
 * classes (svg.gauge .fill, .band, .top); no user text is drawn, and the
 * one label goes through html_attr.
 *
 *   gauge_svg(&out, 62.4, 150.0, 290.0, "Median 62.4 tok/s: 22-42% of the ceiling");
 */
#ifndef LLMS_GAUGE_H
#define LLMS_GAUGE_H

#include "util/buf.h"

#define GAUGE_WIDTH 240   /* viewBox units; drawn at the width of its cell */
#define GAUGE_HEIGHT 16

/* Appends one <svg class="gauge" role="img"> to out, its aria-label and
 * <title> label: a bar from 0 to value, the ceiling's range from low to
 * high as a band (one line when low == high), and the scale from 0 to the
 * larger of high and value (a value above the ceiling fills the width, the
 * ceiling's mark inside it).  value, low and high must be finite and
 * >= 0, high >= low > 0; otherwise nothing is appended and -1 returned.
 * Returns 0, or -1 when out is in error. */
int gauge_svg(struct buf *out, double value, double low, double high, const char *label);

#endif
