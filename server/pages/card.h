/* card.h: GET /card/<id>.png and /card/<id>.svg, a run's link-preview
 * card (the og:image of its page). */
#ifndef LLMS_CARD_H
#define LLMS_CARD_H

#include "http/http.h"

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
enum MHD_Result card_run_png(struct req *r);

/* The card's SVG (image/svg+xml), the one the PNG is drawn from: 200 with
 * CC_BADGE and an ETag of its bytes (304 on If-None-Match), 404 (JSON
 * error) for an unknown or malformed id, 503 when the database does not
 * answer.  Cached like the PNG. */
enum MHD_Result card_run_svg(struct req *r);

#endif
