/* wanted.h: the measurements visitors asked for that nobody has made
 * (issue 26, /wanted): visits and searches that ended on a model on a
 * hardware with no runs.
 *
 * Counting.  wanted_note() is called by the pages that end on such a
 * combination (the model-on-hardware page, /fit, a search), for a model
 * and a hardware that have pages.  It counts at most once per visitor
 * (an IPv4 address, an IPv6 /64), combination and UTC day.  While the
 * network cap is on (store/netcap.h, netcap_keys() > 0), a network (IPv4
 * /24, IPv6 /48) counts at most netcap_keys() visitors per combination
 * and WANTED_NET_ASKS asks a day in all, so one network cannot fill the
 * list or the day's table.  No address is stored, only keyed hashes
 * (SipHash-2-4, crypto_shorthash) under a random key made in memory for
 * the day and thrown away with it.  The day's counters sit in a fixed
 * table of WANTED_SEEN_MAX (once half full, nothing more is counted that
 * day), the counts waiting to be written in one of WANTED_PENDING_MAX
 * combinations (past that, new combinations wait for the next day's
 * notes); behind one mutex, no allocation and no SQL on the request path.
 * The refresh thread (store/refresh.c) writes the asks and the networks
 * that asked to table wanted (migrations 0024, 0033) with wanted_flush()
 * within a second or so.
 *
 * The list: the most asks first, at most WANTED_LIST_MAX, only
 * combinations with runs from fewer than WANTED_DONE_KEYS signing keys (the
 * keys of its combinations, summed over backends and weights files) whose
 * model and hardware have pages; the table keeps at most WANTED_ROWS_MAX
 * rows, those the fewest networks asked for leaving first. */
#ifndef LLMS_WANTED_H
#define LLMS_WANTED_H

#include <jansson.h>

#include "domain/ceiling.h"
#include "store/db.h"

#define WANTED_SEEN_MAX 65536       /* hash slots a day; half of them may fill */
#define WANTED_PENDING_MAX 1024     /* combinations counted between flushes */
#define WANTED_LIST_MAX 100
#define WANTED_ROWS_MAX 2000
#define WANTED_DONE_KEYS 3
#define WANTED_NET_ASKS 50          /* asks a network counts a day (cap on) */

/* Counts one ask of model_slug on hw_slug in suite from peer_addr (any
 * string naming the client; NULL or "": no client, a rebuild off the
 * request path, which counts nothing), unless this address asked for it
 * today already.  Slugs that are not slugs
 * (util/slug.h) are ignored.  Thread-safe, cheap, never fails. */
void wanted_note(const char *peer_addr, const char *suite, const char *model_slug,
		 const char *hw_slug);

/* 1 when counts are waiting for wanted_flush(). */
int wanted_pending(void);

/* On the writer thread: adds the waiting counts to table wanted, removes
 * the combinations that now have runs from WANTED_DONE_KEYS keys, and the
 * rows past WANTED_ROWS_MAX.  The counts are taken out before the write;
 * should it fail they are lost (a count, not a record).  A db_status. */
int wanted_flush(struct dbconn *w);

/* The list of suite as a new array in *out: {model_slug, hw_slug,
 * model_name, hw_name, asks, last_at, keys, networks}, most asks first
 * (ties: the latest), at most limit (<= WANTED_LIST_MAX), leaving out
 * rows whose model or hardware has neither stored runs nor reference
 * data in ref (their pages would be 404s).  Names are the shown ones,
 * else the reference's.  A db_status. */
int wanted_list(struct dbconn *c, const struct ceiling_ref *ref, const char *suite, int limit,
		json_t **out);

/* Forgets the day's hashes and the waiting counts (unit tests). */
void wanted_reset(void);

extern const char *const wanted_sql[];

#endif
