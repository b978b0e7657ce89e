/* badge.h: GET /badge/<id>.svg and /badge/<id>.json. */
#ifndef LLMS_BADGE_H
#define LLMS_BADGE_H

#include "http/http.h"

/* The run badge as SVG (image/svg+xml): the run's chat-short decode tok/s,
 * model and hardware; a flag mark on an outlier; "disputed: upheld" in place
 * of the figure once a dispute was upheld.  200 with CC_BADGE and an ETag
 * that follows the bytes (304 on If-None-Match); 404 with a "run not found"
 * badge and CC_BADGE_MISSING for an unknown or malformed id; 503 (JSON
 * error) when the database does not answer.  Served from the render cache:
 * a hit reads no SQL and renders nothing. */
struct answer;
int badge_svg(struct req *r, struct answer *a);

/* The shields.io endpoint-badge JSON for the same run (application/json):
 * {"schemaVersion": 1, "label", "message", "color", "cacheSeconds"}, with
 * "isError": true on the 404.  Statuses and caching as badge_svg(). */
int badge_json(struct req *r, struct answer *a);

#endif
