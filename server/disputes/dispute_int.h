/* dispute_int.h: what the dispute files (thread.c, post.c, token.c,
 * moderate.c, text.c, dispute_db.c) share; not for other layers, which use
 * dispute.h. */
#ifndef LLMS_DISPUTE_INT_H
#define LLMS_DISPUTE_INT_H

#include <jansson.h>
#include <sqlite3.h>

#include "disputes/dispute.h"
#include "store/db.h"
#include "util/err.h"

/* text.c: checks one text field (s[0..n), NULL when absent) of at most max
 * characters, required or not, with line breaks kept when lines, and stores
 * its cleaned copy in *out (NULL when empty and optional).  Returns 0, or
 * -1 with e filled (422 schema_violation naming field). */
int dispute_text_field(const char *s, size_t n, const char *field, long max,
		       int lines, int required, char **out, struct err *e);

/* dispute_db.c: 0 when run id exists (its key thumbprint copied to thumb),
 * DB_NOTFOUND, or another negative db_status. */
int dispute_run_lookup(struct req *r, const char *id, char thumb[48]);
/* dispute_run_lookup for the request's run (r->arg), as a refusal: 0, or
 * -1 with e filled (404 for no such run, 503 when the database failed). */
int dispute_run_check(struct req *r, char thumb[48], struct err *e);
/* Steps a bound write statement and resets it; returns a db_status. */
int dispute_step(sqlite3_stmt *st);
/* Takes one post from the client's allowance; 1 when over it (the wait is
 * in r->retry_after). */
int dispute_rate_limited(struct req *r);
/* A string member of o: 1 with s/n set, 0 when absent or null, -1 when of
 * another type. */
int dispute_member_str(const json_t *o, const char *k, const char **s, size_t *n);
/* Parses bytes as a JSON object, a new reference; NULL with e filled (400
 * invalid_json). */
json_t *dispute_load_object(const char *s, size_t n, struct err *e);

/* token.c: 1 when token is one this process made for run_id on a day
 * before the accepted ones (the page that carried it is a stale cached
 * copy); a made-up token is not. */
int dispute_token_stale(const char *run_id, const char *token, long long now);
/* 1 when the request came from a page of this site: its Origin, or without
 * one the origin part of its Referer, is ours. */
int dispute_same_site(struct req *r);

#endif
