/* card.h: GET /card/<id>.png and /card/<id>.svg, a run's link-preview
 * card (the og:image of its page). */
#ifndef LLMS_CARD_H
#define LLMS_CARD_H

#include <stdint.h>

#include "http/http.h"

struct answer;

/* The 503 when the server has no rasterizer. */
#define MSG_NO_RASTER "This server cannot draw link-preview cards: rsvg-convert " \
	"(Debian package librsvg2-bin) is not installed. The run's page and badge still work."
/* The 503 when every rasterizer stayed busy. */
#define MSG_RASTER_BUSY "Too many link-preview cards are being drawn at once; try again in a moment."
/* The 503 when drawing failed (the log says why). */
#define MSG_RASTER_FAILED "The link-preview card could not be drawn; try again shortly."

/* The run's card as a 1200 × 630 PNG (image/png), drawn from the SVG of
 * card_run_svg() by rsvg-convert (render/raster.c) off the daemon's
 * threads: the connection is suspended while it is drawn.  200 with
 * CC_BADGE and an ETag of the SVG and the rasterizer's version, so a
 * 304 on If-None-Match needs no drawing; 404 (JSON error) for an unknown
 * or malformed id; 503 with Retry-After when there is no rasterizer
 * (MSG_NO_RASTER, an hour), every rasterizer is busy (2 s) or drawing
 * failed (5 s, logged), or the database does not answer.  Kept in the
 * response cache like the badge, and dropped with it when the run
 * changes. */
int card_run_png(struct req *r, struct answer *a);

/* The card's SVG (image/svg+xml), the one the PNG is drawn from: 200 with
 * CC_BADGE and an ETag of its bytes (304 on If-None-Match), 404 (JSON
 * error) for an unknown or malformed id, 503 when the database does not
 * answer.  Cached like the PNG. */
int card_run_svg(struct req *r, struct answer *a);

/* The cards of model and hardware pages (card_page.c), the og:image of
 * /m/<slug> and /hw/<slug>: the name, its counted runs and machines (or
 * models) in the newest suite, and its five fastest hardware (or models)
 * by their best combination's median decode over submitters, as bars.
 * PNG 1200 × 630 as card_run_png answers it (suspended while drawn; 503
 * and Retry-After the same), kept in the response cache under a key of
 * what it shows, so a write that changes nothing on the card costs no
 * drawing and one that does is never served stale; the SVG is drawn on
 * each request (one read of a few rows).  404 (JSON error) for a slug no
 * run names or a malformed one; 503 when the database does not answer. */
int card_model_png(struct req *r, struct answer *a);    /* /card/m/<slug>.png */
int card_model_svg(struct req *r, struct answer *a);    /* /card/m/<slug>.svg */
int card_hw_png(struct req *r, struct answer *a);       /* /card/hw/<slug>.png */
int card_hw_svg(struct req *r, struct answer *a);       /* /card/hw/<slug>.svg */

/* Rasterizes svg (taken: emptied here) and answers r with the PNG into a,
 * or 304 / 503 as card_run_png; kept in the cache under a key of the
 * PNG's tag, if no write happened since gen.  The request is suspended
 * while it is drawn, and answered when it resumes (r->resume). */
struct buf;
int card_png_of(struct req *r, struct buf *svg, uint64_t gen, struct answer *a);

#endif
