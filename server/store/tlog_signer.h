/* tlog_signer.h: the log's Ed25519 key and its signed checkpoints.
 *
 * The key is the 32-byte seed in "<db>.logkey", mode 0600, created on first
 * start.  The last checkpoint published is kept in "<db>.checkpoint" (0600),
 * written and synced before it is served, so the log never signs a tree
 * that does not extend it: not a smaller one, and not one whose first
 * entries hash differently (an older database restored).  Both files sit
 * beside the database and are not inside it, so restoring a database backup
 * can roll back neither.
 *
 * A thread signs a new checkpoint after a group commit that grew the tree,
 * at most one every TLOG_SIGN_INTERVAL_MS, of the tree's size once on disk
 * (read through the writer: tlog_signer.c, size_job). */
#ifndef LLMS_TLOG_SIGNER_H
#define LLMS_TLOG_SIGNER_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "store/db.h"
#include "util/tlog.h"
#include "util/err.h"

#define TLOG_SIGN_INTERVAL_MS 500

struct tlog_signer;

/* The paths of the key's file and the checkpoint's beside the database
 * db_path ("<db_path>.logkey", "<db_path>.checkpoint"), each n bytes. */
void tlog_signer_files(const char *db_path, char *key, char *ckpt, size_t n);

/* The checkpoint origin for a public base URL: scheme and trailing slashes
 * removed ("https://host/path/" -> "host/path"), written to out. */
void tlog_signer_origin_of(const char *base_url, char *out, size_t n);

/* Loads (or creates) the key beside db_path, loads the last published
 * checkpoint and checks that the database's tree extends it, then signs
 * the current tree once.  Fails with the reason in err, and the daemon
 * must not start: the database is older than the log it published. */
int tlog_signer_open(struct db *db, const char *db_path, const char *origin,
		     struct tlog_signer **out, struct err *err);
/* Starts the signing thread; 0 or -1. */
int tlog_signer_start(struct tlog_signer *s);
/* db commit hook (arg is the signer): wakes the signing thread. */
void tlog_signer_notify(void *arg);
/* Signs the current tree now, unless it is the published one; 0, or -1
 * with the reason logged (a fork is refused, never signed). */
int tlog_signer_sign(struct tlog_signer *s);
/* fn(arg) is called after each new checkpoint is published (on the
 * signing thread); set it before tlog_signer_start. */
void tlog_signer_on_publish(struct tlog_signer *s, void (*fn)(void *arg), void *arg);
/* Stops the thread and frees s (NULL is fine). */
void tlog_signer_close(struct tlog_signer *s);

/* The latest published checkpoint: its text appended to text (may be
 * NULL), its size and root.  0, or -1 when none is published. */
int tlog_signer_latest(struct tlog_signer *s, struct buf *text, uint64_t *n,
		       unsigned char root[TLOG_HASH]);
/* When the latest checkpoint was published, in seconds since the epoch
 * (read from its file's time after a restart); 0 when none is. */
double tlog_signer_published_at(struct tlog_signer *s);
/* The verifier key "<origin>+<id>+<key>" appended to b. */
void tlog_signer_vkey(struct tlog_signer *s, struct buf *b);
const char *tlog_signer_origin(struct tlog_signer *s);

#endif
