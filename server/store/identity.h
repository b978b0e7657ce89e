/* identity.h: the stored runs resolved again against the reference data
 * (issue 32): when the data changes, every run's page slugs, shown names,
 * canonical quantization, weights family, hardware bin and hardware class
 * are computed again from its signed payload (domain/resolve.h), and a run
 * whose identity moved leaves every figure under its old names and enters
 * them under the new.  The signed payloads and the uploaded strings in
 * them are never touched. */
#ifndef LLMS_IDENTITY_H
#define LLMS_IDENTITY_H

#include "store/db.h"
#include "util/err.h"

/* On the writer connection before the writer thread starts: resolves every
 * run again when the reference data (db_reference()) differs from what the
 * runs were last resolved against (stats_state 'identity'), a batch per
 * transaction, carrying on where a stopped start left it.  Nothing when no
 * reference data is loaded.  *moved gets 1 when any run moved (the ceiling
 * verdicts are then owed again), else 0.  Returns a db_status, with a
 * sentence in err. */
int identity_refresh(struct dbconn *w, int *moved, struct err *err);

#endif
