/* dispute.h: the public dispute thread of every run (contract section 5). */
#ifndef LLMS_DISPUTE_H
#define LLMS_DISPUTE_H

#include <jansson.h>

#include "http.h"

enum MHD_Result dispute_api_post(struct req *r);     /* POST /api/v1/runs/<id>/disputes */
enum MHD_Result dispute_api_resolve(struct req *r);  /* POST /api/v1/runs/<id>/disputes/resolve */
enum MHD_Result dispute_form_post(struct req *r);    /* POST /r/<id>/disputes (browser form) */

/* The thread of run id as JSON {"state","resolution","note","posts":[...]},
 * for the run's view model; an empty open thread when nobody posted. */
json_t *dispute_thread_json(struct req *r, const char *id);

#endif
