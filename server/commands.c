/* commands.c: opening the database (file modes, migrations and what follows
 * them), and the account, snapshot and backup sub-commands. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <grp.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "ingest/account.h"
#include "pages/page.h"
#include "store/db.h"
#include "store/db_backup.h"
#include "store/identity.h"
#include "store/names.h"
#include "store/netcap.h"
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
 * migrated without them, the runs' names resolved again when the
 * reference data changed (and then their ceiling verdicts), the names
 * judged and keyed for look-alikes (store/names.h), then the log
 * entries of rows stored before the log.  A db_status, with the reason in
 * err. */
/* Set by open_db: only the server applies a changed --keys-per-network to
 * the stored runs (a command run with other settings must not). */
static int judge_caps;

static int after_migrate(struct dbconn *w, struct err *err)
{
	int moved = 0, rc = outlier_backfill(w, err);

	if (rc == DB_OK)
		rc = identity_refresh(w, &moved, err);
	if (rc == DB_OK)
		rc = names_refresh(w, err);
	if (rc == DB_OK && moved)
		rc = outlier_backfill_ceilings(w, err);
	if (rc == DB_OK && judge_caps)
		rc = netcap_refresh(w, err);
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
	netcap_configure(c->keys_per_network, c->upload_rate ? c->new_keys_per_network : 0);
	judge_caps = c->serving;
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

/* The ceiling the resolved names give at chat-short's context: {peak_tok_s
 * (the physical line, the top of a range), ceiling_tok_s (the typical
 * line), low_tok_s, range (1 when a range), flag_tok_s (above it a run is
 * flagged)}, or null when the model or hardware is unknown. */
static json_t *resolve_ceiling(const struct ceiling_ref *ref, const struct resolve_names *n)
{
	struct ceiling_range c;
	double flag = ceiling_flag_bound(ref, n->model_slug, n->quant[0] ? n->quant : NULL,
					 n->hw_slug, n->bin, CEILING_CHAT_SHORT_CONTEXT);

	if (ceiling_range_of_run_bin(ref, n->model_slug, n->quant[0] ? n->quant : NULL,
				     n->format[0] ? n->format : NULL, n->hw_slug, n->bin,
				     CEILING_CHAT_SHORT_CONTEXT, &c) < 0)
		return isinf(flag) ? json_null() : json_pack("{s:n, s:n, s:n, s:b, s:f}", "peak_tok_s",
			"ceiling_tok_s", "low_tok_s", "range", 1, "flag_tok_s", flag);
	return json_pack("{s:f, s:f, s:f, s:b, s:f}", "peak_tok_s", c.high.peak_tok_s,
		"ceiling_tok_s", c.high.step.tok_s, "low_tok_s", c.low.peak_tok_s,
		"range", c.family || c.over_bins, "flag_tok_s", flag);
}

/* One input line's resolution as a JSON line on stdout. */
static void resolve_line(const struct ceiling_ref *ref, const char *line)
{
	json_t *in = json_loads(line, 0, NULL), *out;
	struct resolve_names n;
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	char *s;

	if (!in || resolve_payload(ref, in, &n) < 0) {
		puts("null");
		json_decref(in);
		return;
	}
	m = ceiling_model(ref, n.model_slug);
	h = ceiling_hw(ref, n.hw_slug);
	out = json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:o}",
		"model_ref", m ? json_string(m->id) : json_null(), "model_slug", n.model_slug,
		"model_name", n.model_name,
		"quantization", n.quant[0] ? json_string(n.quant) : json_null(),
		"format", n.format[0] ? json_string(n.format) : json_null(),
		"hardware_ref", h ? json_string(h->slug) : json_null(), "hw_slug", n.hw_slug,
		"hardware_name", n.accelerator,
		"bin", h && n.bin > 0 ? json_string(h->bins[n.bin - 1].name) : json_null());
	if (out)
		json_object_set_new(out, "ceiling", resolve_ceiling(ref, &n));
	s = out ? json_dumps(out, JSON_COMPACT) : NULL;
	puts(s ? s : "null");
	free(s);
	json_decref(out);
	json_decref(in);
}

int commands_resolve(const struct config *c, int argc, char **argv)
{
	struct err err = ERR_INIT;
	struct ceiling_ref *ref;
	char dir[PATH_MAX], *line = NULL;
	size_t cap = 0;

	(void)argv;
	if (argc != 0) {
		fputs("usage: llm-speedd resolve [--assets DIR] < payloads.jsonl\n", stderr);
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/static/reference", c->assets);
	if (!(ref = ceiling_load(dir, &err))) {
		fprintf(stderr, "llm-speedd: %s\n", err.message);
		return 1;
	}
	while (getline(&line, &cap, stdin) > 0)
		resolve_line(ref, line);
	free(line);
	ceiling_free(ref);
	return 0;
}
