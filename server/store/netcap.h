/* netcap.h: a network counts at most a few keys (contract section 4).
 *
 * In each scope (suite, model digest, hardware slug, backend) the first
 * netcap_keys() keys seen from one network count; a run of any further key
 * from it there is stored capped (status 'upheld', capped 1: migration
 * 0028), shown on its own page with the reason, and left out of every
 * count, figure, flag and name.  A key belongs, in a scope, to the network
 * it was first seen from there; a run without a network (stored before
 * networks were kept) is its own network and always counts.  Separately,
 * a network may bring at most netcap_new_keys() keys never seen before in
 * a UTC day; more are refused (429).  Both are 0 when lifted. */
#ifndef LLMS_NETCAP_H
#define LLMS_NETCAP_H

#include "store/db.h"
#include "util/err.h"

/* The defaults (--keys-per-network, the daily allowance of new keys). */
#define NETCAP_KEYS_DEFAULT 3
#define NETCAP_NEW_KEYS_DEFAULT 20

/* Sets the cap and the allowance once at start-up (0: lifted). */
void netcap_configure(unsigned keys_per_network, unsigned new_keys_per_day);
unsigned netcap_keys(void);
unsigned netcap_new_keys(void);

/* A run's scope. */
struct netcap_scope {
	const char *suite, *digest, *hw, *backend;
};

/* Writer: whether key, uploading from net ("" or NULL: none), counts in
 * scope s (*counted), recording it there when first seen. */
int netcap_admit(struct dbconn *w, const struct netcap_scope *s, const char *key, const char *net,
		 int *counted);

/* Writer: *refused 1 when key has stored no run yet and net has brought
 * its allowance of new keys today (UTC); otherwise a new key is counted
 * against it.  *retry_after: seconds to the next UTC day when refused. */
int netcap_new_key(struct dbconn *w, const char *key, const char *net, int *refused,
		   unsigned *retry_after);

/* Writer, at start-up: when the cap differs from the one the stored runs
 * were judged under, every recorded key is judged again in the order seen
 * and each run whose key changes side moves in or out of every figure. */
int netcap_refresh(struct dbconn *w, struct err *err);

#endif
