/* withdraw.h: POST /api/v1/runs/<id>/withdraw, a submitter takes a run back. */
#ifndef LLMS_WITHDRAW_H
#define LLMS_WITHDRAW_H

#include "http/defer.h"

/* Longest withdrawal reason, in characters. */
#define WITHDRAW_REASON_MAX 500

/* Withdraws run r->arg on a JWS (application/jose) of
 * {"run_id", "action": "withdraw", "reason"} signed by the run's key.
 * 200 {"run_id", "status": "withdrawn", "withdrawn_at", "reason", "url"};
 * 400 malformed JWS or JSON; 401 bad signature; 403 another key;
 * 404 unknown run; 409 already withdrawn (a replay included);
 * 415 not application/jose; 422 payload fields; 503 database down. */
extern const struct defer_row withdraw_write;

#endif
