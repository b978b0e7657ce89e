/* refresh.h: the refresh thread, the bounded background job behind the
 * figures that are kept after a write rather than in it (issue 26): the
 * per-version figures and changes (versions.h), the asks of /wanted
 * (wanted.h) and the prediction evidence and its backtest
 * (forecast.h).
 *
 * The database's commit hook wakes it (refresh_notify); it waits
 * REFRESH_SETTLE_MS for more commits to gather, then runs versions passes
 * (each one writer job of at most VERSIONS_PASS_MAX versions, so uploads
 * interleave) until no version is dirty, flushes the asks, and rebuilds
 * the prediction snapshot.  Without commits it wakes every
 * REFRESH_IDLE_MS to flush asks.  A change therefore shows well within
 * 2 s of the commit that completes it.  After a round that changed
 * something, changed(arg, touched) is called with the scopes it touched
 * (store/scope.h; touched->over when it cannot say): the daemon marks
 * the kept list pages of those scopes, and every unscoped one, stale
 * there. */
#ifndef LLMS_REFRESH_H
#define LLMS_REFRESH_H

#include "store/db.h"

struct ceiling_ref;
struct refresh;
struct scope_set;

#define REFRESH_SETTLE_MS 100
#define REFRESH_IDLE_MS 500

/* Starts the thread over db for suite with reference data ref (NULL: no
 * predictions); changed (may be NULL) is called after a round that wrote
 * or rebuilt.  NULL when the thread cannot start. */
struct refresh *refresh_start(struct db *db, const struct ceiling_ref *ref, const char *suite,
			      void (*changed)(void *arg, const struct scope_set *touched), void *arg);
/* The commit hook: wakes the thread (arg is the struct refresh). */
void refresh_notify(void *arg);
/* 1 while the thread owes work: a commit whose round has not finished
 * (figures, and the kept pages it drops, not yet caught up), asks not yet
 * flushed, or a prediction rebuild not yet due; 0 when idle (and for NULL).
 * /metrics shows it as llmspeed_refresh_owed. */
int refresh_owed(struct refresh *r);
/* Stops the thread and frees r (NULL is fine). */
void refresh_stop(struct refresh *r);

#endif
