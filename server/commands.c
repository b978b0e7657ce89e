/* commands.c: opening the database (file modes, migrations and what follows
 * them), and the account, snapshot and backup sub-commands. */
#include "commands.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "ingest/account.h"
#include "pages/page.h"
#include "store/db.h"
#include "store/db_backup.h"
#include "store/outlier.h"
#include "store/tlog_store.h"

/* The mode and group of the database files: 0600, or 0640 for --db-group. */
static int db_perm_of(const struct config *c, struct db_perm *p)
{
	struct group *g;

	*p = DB_PERM_DEFAULT;
	if (!c->db_group)
		return 0;
	errno = 0;
	if (!(g = getgrnam(c->db_group))) {
		fprintf(stderr, "llm-speedd: --db-group %s: %s\n", c->db_group,
			errno ? strerror(errno) : "there is no group of that name");
		return -1;
	}
	p->mode = 0640;
	p->gid = g->gr_gid;
	return 0;
}

/* After the migrations, on the writer before it starts: the cluster sums
 * migrated without them, then the log entries of rows stored before the
 * log.  A db_status, with the reason in err. */
static int after_migrate(struct dbconn *w, struct err *err)
{
	int rc = outlier_backfill(w, err);

	return rc == DB_OK ? tlog_store_backfill(w, err) : rc;
}

/* Opens the database, applying migrations; prints the reason on failure. */
struct db *open_db(const struct config *c)
{
	struct err err = ERR_INIT;
	char mig[PATH_MAX];
	struct db_perm perm;
	struct db *db;

	if (db_perm_of(c, &perm) < 0)
		return NULL;
	snprintf(mig, sizeof mig, "%s/migrations", c->assets);
	db_after_migrate = after_migrate;
	if (db_open_perm(c->db_path, mig, perm, &db, &err) != DB_OK) {
		fprintf(stderr, "llm-speedd: %s\n", err.message);
		return NULL;
	}
	db_set_busy_timeout(db, c->db_busy_ms);
	return db;
}

/* `llm-speedd account add|revoke NAME`. */
int commands_account(const struct config *c, int argc, char **argv)
{
	char token[ACCOUNT_TOKEN_LEN];
	struct db *db;
	int rc;

	if (argc != 2 || (strcmp(argv[0], "add") && strcmp(argv[0], "revoke"))) {
		fputs("usage: llm-speedd account add|revoke NAME [--db FILE]\n", stderr);
		return 2;
	}
	if (!account_name_ok(argv[1])) {
		fputs("llm-speedd: an account name is 1 to 64 of A-Z a-z 0-9 . _ -\n", stderr);
		return 2;
	}
	if (!(db = open_db(c)))
		return 1;
	if (!strcmp(argv[0], "add")) {
		rc = account_add(db, argv[1], token);
		if (rc == DB_OK)
			printf("%s\n", token);
		else if (rc == DB_CONFLICT)
			fprintf(stderr, "llm-speedd: an account named %s exists already\n", argv[1]);
		sodium_memzero(token, sizeof token);
	} else {
		rc = account_revoke(db, argv[1]);
		if (rc == DB_NOTFOUND)
			fprintf(stderr, "llm-speedd: no account named %s\n", argv[1]);
	}
	if (rc != DB_OK && rc != DB_CONFLICT && rc != DB_NOTFOUND)
		fprintf(stderr, "llm-speedd: %s\n", db_status_message(rc));
	db_close(db);
	return rc == DB_OK ? 0 : 1;
}

/* `llm-speedd snapshot DIR`: one export snapshot for mirrors. */
int commands_snapshot(const struct config *c, int argc, char **argv)
{
	struct err err = ERR_INIT;
	char name[128];
	struct db *db;
	int rc;

	if (argc != 1) {
		fputs("usage: llm-speedd snapshot DIR [--db FILE]\n", stderr);
		return 2;
	}
	if (!(db = open_db(c)))
		return 1;
	rc = export_snapshot(db, argv[0], name, sizeof name, &err);
	if (rc == 0)
		printf("%s/%s\n", argv[0], name);
	else
		fprintf(stderr, "llm-speedd: %s\n", err.message);
	db_close(db);
	return rc == 0 ? 0 : 1;
}


/* `llm-speedd backup --db FILE OUT`: an online copy beside its log files. */
int commands_backup(const struct config *c, int argc, char **argv)
{
	struct db_backup_result res;
	struct err err = ERR_INIT;

	if (argc != 1) {
		fputs("usage: llm-speedd backup --db FILE OUT\n", stderr);
		return 2;
	}
	if (db_backup(c->db_path, argv[0], c->db_busy_ms, &res, &err) < 0) {
		fprintf(stderr, "llm-speedd: backup: %s\n", err.message);
		return 1;
	}
	printf("%s: %lld runs, %lld log entries; %s.checkpoint covers %llu of them, %s.logkey\n",
	       argv[0], (long long)res.runs, (long long)res.log_entries, argv[0],
	       (unsigned long long)res.checkpoint_entries, argv[0]);
	return 0;
}
