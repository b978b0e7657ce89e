/* upload.h: POST /api/v1/runs (contract section 1). */
#ifndef LLMS_UPLOAD_H
#define LLMS_UPLOAD_H

#include "http/defer.h"

/* Verifies, validates and stores one signed run.
 * 201 stored (200 when the same bytes were stored before), with
 * {"id","url","badge_url","outlier"} and Location;
 * 415 unless Content-Type is application/jose; 413 over 64 KiB;
 * 400 malformed JWS, header or JSON; 401 bad signature or unknown token;
 * 422 schema, unknown suite or hosted-api; 429 over the upload rate;
 * 503 when the database cannot take the write (nothing is stored). */
extern const struct defer_row upload_write;

#endif
