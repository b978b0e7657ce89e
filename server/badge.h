/* badge.h: GET /badge/<id>.svg and /badge/<id>.json. */
#ifndef LLMS_BADGE_H
#define LLMS_BADGE_H

#include "http.h"

/* The run badge as SVG: 200 with CC_BADGE and an ETag (304 on
 * If-None-Match); 404 with a "run not found" badge and max-age=300. */
enum MHD_Result badge_svg(struct req *r);
/* The shields.io endpoint-badge JSON for the same run. */
enum MHD_Result badge_json(struct req *r);

#endif
