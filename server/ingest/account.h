/* account.h: accounts and their bearer tokens.  Only a token's SHA-256 is
 * stored; the token is shown once, when the account is created. */
#ifndef LLMS_ACCOUNT_H
#define LLMS_ACCOUNT_H

#include "store/db.h"

#define ACCOUNT_TOKEN_LEN 48   /* "lls_" + 43 base64url characters + NUL */

/* 1 when name is an acceptable account name: 1..64 of [A-Za-z0-9._-]. */
int account_name_ok(const char *name);

/* Creates account name with a fresh random token written to token; returns
 * 0, DB_CONFLICT when the name is taken, or another db_status. */
int account_add(struct db *db, const char *name, char token[ACCOUNT_TOKEN_LEN]);

/* Revokes every token of account name; 0 or DB_NOTFOUND. */
int account_revoke(struct db *db, const char *name);

/* Finds the live account owning token; writes its id and returns 0, or
 * DB_NOTFOUND for an unknown or revoked token. */
int account_lookup(struct dbconn *c, const char *token, long long *id);

#endif
