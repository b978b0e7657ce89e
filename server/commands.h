/* commands.h: opening the database for the daemon and the sub-commands
 * that only need the database (commands.c). */
#ifndef LLMS_COMMANDS_H
#define LLMS_COMMANDS_H

#include "app.h"

/* Opens the database, applying migrations; prints the reason on failure. */
struct db *open_db(const struct config *c);

/* `llm-speedd account add|revoke NAME`: the exit status. */
int commands_account(const struct config *c, int argc, char **argv);

/* `llm-speedd snapshot DIR`: one export snapshot for mirrors; the exit status. */
int commands_snapshot(const struct config *c, int argc, char **argv);

/* `llm-speedd backup --db FILE OUT`: an online, consistent copy with the
 * log's key and checkpoint beside it (store/db_backup.h); the exit status. */
int commands_backup(const struct config *c, int argc, char **argv);

/* `llm-speedd resolve [--assets DIR]`: each line of standard input a JSON
 * payload (or its model, hardware and backend members), each line of
 * output what the resolver makes of it (domain/resolve.h): the reference
 * ids or null, the page slugs, the names pages show, the canonical
 * quantization, the weights family and the bin.  For operators checking
 * where uploads land, and for the corpus tests.  The exit status. */
int commands_resolve(const struct config *c, int argc, char **argv);

#endif
