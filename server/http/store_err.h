/* store_err.h: what the store's failures mean to a client.  The store says
 * what went wrong (a db_status code, a name that reads as another's); this
 * says which answer that is, one formatter for each. */
#ifndef LLMS_STORE_ERR_H
#define LLMS_STORE_ERR_H

#include "store/names.h"
#include "util/err.h"

/* Fills e with what a write's failure status (a db_status other than
 * DB_OK) means for the client that asked for it: 503 unavailable, with
 * db_status_message()'s sentence (a locked database, a full disk, a
 * read-only file).  Returns -1. */
int http_db_err(struct err *e, int status);

/* Fills e with the refusal of a name that reads as an existing one's
 * (clash, from names_lookalike): 422 confusable_name on its field, naming
 * the look-alike and its page.  Returns -1. */
int http_clash_err(struct err *e, const struct names_clash *clash);

#endif
