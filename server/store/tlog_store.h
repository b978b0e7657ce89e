/* tlog_store.h: the transparency log's tree kept in SQLite (migration
 * 0011): entries appended on the writer in the same transaction as the
 * write they record, subtree hashes stored as they complete, tiles read
 * back by range.  The entry encoding is described in schema/TLOG.md. */
#ifndef LLMS_TLOG_STORE_H
#define LLMS_TLOG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "store/db.h"
#include "util/tlog.h"
#include "util/err.h"

/* What an entry records. */
enum tlog_kind {
	TLOG_RUN,          /* an accepted run: SHA-256 of its exact JWS bytes */
	TLOG_POST,         /* a dispute post: of its JWS bytes, or of its canonical record */
	TLOG_RULING,       /* a moderator's ruling: of its canonical record */
	TLOG_WITHDRAWAL,   /* a run withdrawn: of the withdrawal's JWS bytes or record */
	TLOG_KIND__MAX
};

/* Entries in the log as connection c sees it, or -1 on error. */
int64_t tlog_store_size(struct dbconn *c);

/* On the writer, inside the caller's transaction: appends the entry
 * "<kind> <ref> <64 hex digits of sha>\n" and the subtree hashes it
 * completes (O(log n) rows).  ref is a run id, or "<run id>/<post id>" for
 * a post; it must be non-empty and hold no space or control character.
 * *index (may be NULL) gets the entry's leaf index.  Returns a db_status;
 * the caller's job fails with it, so the write and its entry are kept or
 * lost together.  Withdrawals call this with TLOG_WITHDRAWAL. */
int tlog_store_append(struct dbconn *w, enum tlog_kind kind, const char *ref,
		const unsigned char sha[32], uint64_t *index);

/* The SHA-256 of the canonical record of an unsigned item (schema/TLOG.md):
 * "llm-speed-<tag>-v1\n" then each field as a netstring "<len>:<bytes>,"
 * (a NULL field is written as the empty string). */
void tlog_store_entry_sha(unsigned char out[32], const char *tag, const char *const *fields,
		     size_t n);

/* Appends what migration 0011 queued (the runs, posts and rulings stored
 * before the log existed) to the log, a thousand a transaction, on the
 * writer connection w before the writer thread starts; a run's row gets its
 * log_index.  Progress on stderr; stopped half-way, it carries on at the
 * next start.  DB_OK, or a db_status with the reason in err. */
int tlog_store_backfill(struct dbconn *w, struct err *err);

/* A tlog_reader over the stored hashes of connection c. */
struct tlog_reader tlog_store_reader(struct dbconn *c);

/* Appends the bytes of tile t (hashes, or an entry bundle of uint16
 * big-endian length-prefixed entries) to out.  DB_NOTFOUND when the log
 * does not hold all of it yet. */
int tlog_store_tile(struct dbconn *c, const struct tlog_tile *t, struct buf *out);

#endif
