/* dispute.h: the public dispute thread of every run (contract section 5).
 *
 * Posts: anyone may post (author optional, body 1..4000 characters of plain
 * text, kept with its line breaks); a post sent as a JWS signed by the run's
 * own key is shown as the submitter's, one signed by any other key is
 * refused.  A signed payload is posted once: sent again (whatever its
 * signature bytes) it is refused as a replay, so a submitter saying the
 * same words twice adds a fresh "nonce" or "iat" (within
 * DISPUTE_IAT_WINDOW of the server's clock).  An unsigned post may not
 * take an author name that reads as "submitter" or "moderator"
 * (confusable.h).  Posting is rate-limited per client address, in memory
 * only.
 *
 * The browser form on the run page posts to /r/<id>/disputes and is
 * answered with 303 back to the thread.  It is protected against posts from
 * other sites twice: the Origin (or, without one, the Referer) must be this
 * site's origin, and the form carries a token, an HMAC (crypto_auth) over
 * the run id and the UTC day under a key drawn at random when the process
 * starts.  The token is the same for every visitor (the run page is cached
 * per run) and is accepted on the day it was made and the next; a stale
 * token, or one from before a restart, is refused with a request to reload
 * the page, and the run's cached page is dropped so the reload gets a fresh
 * one.
 *
 * Moderation: a moderator (Authorization: Bearer LLMSPEED_MODERATOR_TOKEN)
 * rules on a thread, which need not have posts.  "upheld" sets the run's
 * status to 'upheld' and recomputes its cluster in the same transaction,
 * taking it out of every ranking, list, aggregate and cluster statistic;
 * its page stays, marked.  "dismissed" keeps the run in, and puts an upheld
 * run back.  A ruled thread can be ruled again (the latest ruling and note
 * stand), and still takes posts, which do not reopen it: only a moderator
 * changes its state.  Wrong moderator tokens are limited per address
 * (DISPUTE_MODERATOR_GUESSES in any minute, app->moderator_rl), apart
 * from the posting allowance and whatever --dispute-rate says. */
#ifndef LLMS_DISPUTE_H
#define LLMS_DISPUTE_H

#include <jansson.h>

#include "http/defer.h"
#include "http/http.h"

#define DISPUTE_BODY_MAX   4000   /* characters of a post's body */
#define DISPUTE_AUTHOR_MAX 80     /* characters of an author name */
#define DISPUTE_NOTE_MAX   4000   /* characters of a moderator's note */
#define DISPUTE_THREAD_MAX 500    /* posts on one page of a thread */
#define DISPUTE_PINNED_MAX 20     /* submitter posts pinned beside a page */
#define DISPUTE_IAT_WINDOW 600    /* seconds a signed post's "iat" may be off */
#define DISPUTE_MODERATOR_GUESSES 20   /* wrong moderator tokens per address in any minute */

/* POST /api/v1/runs/<id>/disputes: JSON {"author"?, "body"} or a JWS of
 * {"run_id", "body", "author"?}.  201 with the post; 400 invalid_json or
 * malformed_jws, 401 invalid_signature, 403 forbidden_key (signed by
 * another key), 404, 409 replayed_post, 415, 422 schema_violation (with
 * field) or reserved_author, 429. */
extern const struct defer_row dispute_api_write;
/* POST /api/v1/runs/<id>/disputes/resolve with the moderator token and
 * {"resolution": "upheld"|"dismissed", "note"?}.  200 with the thread's
 * state; 401 invalid_token (also when moderation is not configured), 404,
 * 415, 400 invalid_json, 422 schema_violation, 429 after too many wrong
 * tokens from the address. */
extern const struct defer_row dispute_resolve_write;
/* POST /r/<id>/disputes (browser form, urlencoded author, body, token).
 * 303 to the thread; error pages: 403 for another site or a bad token,
 * 404, 415, 422, 429. */
extern const struct defer_row dispute_form_write;

/* The thread of run id as JSON, for the run's view model:
 * {"state": "open"|"upheld"|"dismissed", "resolution": null or the ruling,
 *  "upheld", "dismissed" (booleans for templates), "note", "note_html",
 *  "resolved_at", "count", "posts": [{"id", "run_id", "author",
 *  "body", "body_html", "by_submitter", "created_at"}], "truncated",
 *  "after", "next_after", "submitter_posts": [posts], "form_token"};
 * an empty open thread when nobody posted.  NULL when the database failed.
 *
 * The thread is paged by key: `posts` holds at most DISPUTE_THREAD_MAX
 * posts with an id above the request's ?after= (dispute_after), and
 * next_after is the value for the next page (null on the last).  Each page
 * also carries, in submitter_posts, the submitter's latest signed posts
 * that are not on it, so no number of other posts hides the submitter's
 * reply; the moderator's ruling and note are in the head of every page.
 * Returns a new reference (the caller's to json_decref), NULL on failure. */
json_t *dispute_thread_json(struct req *r, const char *id);

/* The ?after= post id of a request for a later page of a thread; 0 for
 * the first page (also when absent or not a number).  A run page with one
 * is not served from or stored in the render cache. */
long long dispute_after(struct req *r);

/* The form token for run_id at unix time now (DISPUTE_TOKEN_LEN bytes
 * with the NUL), and whether token is one for run_id still accepted at
 * now (made that UTC day or the day before). */
#define DISPUTE_TOKEN_LEN 48
void dispute_form_token(const char *run_id, long long now, char out[DISPUTE_TOKEN_LEN]);
int dispute_form_token_ok(const char *run_id, const char *token, long long now);

struct db;
/* Loads the form-token key kept in the database (creating it on first
 * start), so forms on pages cached before a restart still post.  Call once
 * before serving; 0 or -1. */
int dispute_init(struct db *db);

#endif
