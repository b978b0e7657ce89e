/* identity.c: every stored run resolved again when the reference data
 * changes (issue 32, migration 0027): its page slugs, shown names,
 * canonical quantization, weights family, hardware bin, hardware class
 * and shown backend version (issue 37, migration 0030), from its signed
 * payload.
 *
 * A run whose identity moves leaves every figure under its old names and
 * enters them under the new ones by the path a ruling takes (its status
 * set aside, the row rewritten, its status set back: the triggers and
 * outlier_run_status_changed do the rest), so no figure is computed
 * twice by two codes.  The pass runs on the writer before it starts, a
 * batch of runs per transaction, and records how far it got, so a start
 * stopped half-way carries on. */
#include "store/identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "store/outlier.h"
#include "store/run_store.h"
#include "store/jws_pack.h"
#include "util/log.h"

#define BATCH 512

static const char sql_scan[] =
	"SELECT rowid, id, jws, status, fingerprint_hash, model_name, model_slug, model_quant, "
	"model_format, accelerator, hw_slug, hw_bin, hw_class, backend_version FROM runs WHERE rowid > ?1 "
	"ORDER BY rowid LIMIT ?2";
static const char sql_status[] = "UPDATE runs SET status = ?2 WHERE rowid = ?1";
static const char sql_rewrite[] =
	"UPDATE runs SET model_name = ?2, model_slug = ?3, model_quant = ?4, model_format = ?5, "
	"accelerator = ?6, hw_slug = ?7, hw_bin = ?8, hw_class = ?9, backend_version = ?10 "
	"WHERE rowid = ?1";
/* An alias slug is never a page of its own: once the runs under an
 * uploaded name's slug moved to their reference's page, that slug leaves
 * search (its FTS entry first: search_fts is external content), and a
 * slug that is a page again stops redirecting. */
static const char sql_unlist[] =
	"INSERT INTO search_fts(search_fts, rowid, squash, name) "
	"SELECT 'delete', s.id, s.squash, s.name FROM search_names s JOIN slug_aliases a "
	"ON a.kind = s.kind AND a.slug = s.slug; "
	"DELETE FROM search_names WHERE kind IN ('model', 'hw') AND EXISTS (SELECT 1 FROM "
	"slug_aliases a WHERE a.kind = search_names.kind AND a.slug = search_names.slug);";
static const char sql_unalias[] =
	"DELETE FROM slug_aliases WHERE kind = ?1 AND slug = ?2";
/* A slug that moved keeps a search entry for its new page. */
static const char sql_search[] =
	"INSERT OR IGNORE INTO search_names(kind, slug, name, squash) "
	"VALUES (?1, ?2, ?3, replace(?2, '-', ''))";

/* Column i of st as a string, "" for NULL. */
static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

/* What a run's row should hold. */
struct want {
	long long rowid;
	char id[16], status[16];
	struct resolve_names n;
	char hw_class[200];
};

/* Resolves the run of the scan's current row into *x; 1 when its row
 * differs from it, 0 when not (or its payload cannot be read: it keeps
 * what it has), -1 on no memory. */
static int want_of(sqlite3_stmt *st, struct want *x)
{
	const char *fp = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL : col(st, 4);
	unsigned char *bytes = NULL;
	size_t len = 0;
	json_t *payload;
	char bin[16];

	if (jws_pack_payload(sqlite3_column_blob(st, 2),
			       (size_t)sqlite3_column_bytes(st, 2), &bytes, &len) < 0)
		return 0;
	payload = json_loadb((const char *)bytes, len, 0, NULL);
	free(bytes);
	if (!payload)
		return 0;
	x->rowid = sqlite3_column_int64(st, 0);
	snprintf(x->id, sizeof x->id, "%s", col(st, 1));
	snprintf(x->status, sizeof x->status, "%s", col(st, 3));
	if (resolve_payload(db_reference(), payload, &x->n) < 0) {
		json_decref(payload);
		return 0;
	}
	json_decref(payload);
	run_store_hw_class(fp, x->n.hw_slug, x->hw_class, sizeof x->hw_class);
	snprintf(bin, sizeof bin, "%d", x->n.bin);
	return strcmp(col(st, 5), x->n.model_name) || strcmp(col(st, 6), x->n.model_slug) ||
	       strcmp(col(st, 7), x->n.quant) || strcmp(col(st, 8), x->n.format) ||
	       strcmp(col(st, 9), x->n.accelerator) || strcmp(col(st, 10), x->n.hw_slug) ||
	       strcmp(sqlite3_column_type(st, 11) == SQLITE_NULL ? "0" : col(st, 11), bin) ||
	       strcmp(col(st, 12), x->hw_class) || strcmp(col(st, 13), x->n.backend_version);
}

/* Sets the status of row rowid. */
static int set_status(struct dbconn *w, long long rowid, const char *status)
{
	sqlite3_stmt *st = db_stmt(w, sql_status);

	if (st) {
		sqlite3_bind_int64(st, 1, rowid);
		db_bind_text(st, 2, status);
	}
	return db_step_done(st);
}

/* Binds text s, or NULL when it is empty. */
static void bind_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (*s)
		db_bind_text(st, i, s);
	else
		sqlite3_bind_null(st, i);
}

/* Writes x's names into its row. */
static int rewrite(struct dbconn *w, const struct want *x)
{
	sqlite3_stmt *st = db_stmt(w, sql_rewrite);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, x->rowid);
	db_bind_text(st, 2, x->n.model_name);
	db_bind_text(st, 3, x->n.model_slug);
	bind_or_null(st, 4, x->n.quant);
	bind_or_null(st, 5, x->n.format);
	db_bind_text(st, 6, x->n.accelerator);
	db_bind_text(st, 7, x->n.hw_slug);
	if (x->n.bin > 0)
		sqlite3_bind_int(st, 8, x->n.bin);
	else
		sqlite3_bind_null(st, 8);
	db_bind_text(st, 9, x->hw_class);
	db_bind_text(st, 10, x->n.backend_version);
	return db_step_done(st);
}

/* Registers a page slug's search entry and an uploaded slug's alias. */
static int names_of(struct dbconn *w, const struct want *x)
{
	const char *kind[2] = { "model", "hw" };
	const char *slug[2] = { x->n.model_slug, x->n.hw_slug };
	const char *name[2] = { x->n.model_name, x->n.accelerator };
	sqlite3_stmt *st;
	int i, rc = DB_OK;

	for (i = 0; i < 2 && rc == DB_OK; i++) {
		if ((st = db_stmt(w, sql_search))) {
			db_bind_text(st, 1, kind[i]);
			db_bind_text(st, 2, slug[i]);
			db_bind_text(st, 3, name[i]);
		}
		if ((rc = db_step_done(st)) == DB_OK && (st = db_stmt(w, sql_unalias))) {
			db_bind_text(st, 1, kind[i]);
			db_bind_text(st, 2, slug[i]);
		}
		if (rc == DB_OK)
			rc = db_step_done(st);
	}
	if (rc == DB_OK)
		rc = run_store_alias(w, "model", x->n.name_slug, x->n.model_slug, NULL);
	if (rc == DB_OK)
		rc = run_store_alias(w, "hw", x->n.accel_slug, x->n.hw_slug, NULL);
	return rc;
}

/* Moves a counted run out of every figure, rewrites it, moves it back. */
static int move(struct dbconn *w, const struct want *x)
{
	int counted = !strcmp(x->status, "ok"), rc = DB_OK;

	if (counted && (rc = set_status(w, x->rowid, "upheld")) == DB_OK)
		rc = outlier_run_status_changed(w, x->id, NULL);
	if (rc == DB_OK)
		rc = rewrite(w, x);
	if (rc == DB_OK)
		rc = names_of(w, x);
	if (rc == DB_OK && counted && (rc = set_status(w, x->rowid, "ok")) == DB_OK)
		rc = outlier_run_status_changed(w, x->id, NULL);
	return rc;
}

/* One batch after *at, in one transaction; *n gets the rows read and
 * *moved the runs rewritten. */
static int batch(struct dbconn *w, long long *at, const char *hex, size_t *n, size_t *moved)
{
	sqlite3_stmt *st;
	struct want *x = calloc(BATCH, sizeof *x);
	size_t k = 0, i;
	char progress[96];
	int rc;

	*n = 0;
	if (!x)
		return DB_ERR;
	if (!(st = db_stmt(w, sql_scan))) {
		free(x);
		return DB_ERR;
	}
	sqlite3_bind_int64(st, 1, *at);
	sqlite3_bind_int(st, 2, BATCH);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*at = sqlite3_column_int64(st, 0);
		(*n)++;
		if (want_of(st, &x[k]) == 1)
			k++;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	if (rc == DB_OK)
		rc = sqlite3_exec(w->h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
	for (i = 0; rc == DB_OK && i < k; i++)
		rc = move(w, &x[i]);
	snprintf(progress, sizeof progress, "%s@%lld", hex, *at);
	if (rc == DB_OK)
		rc = db_state_put(w, "identity", *n < BATCH ? hex : progress);
	if (rc == DB_OK)
		rc = sqlite3_exec(w->h, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
	else
		sqlite3_exec(w->h, "ROLLBACK", NULL, NULL, NULL);
	*moved += k;
	free(x);
	return rc;
}

int identity_refresh(struct dbconn *w, int *moved, struct err *err)
{
	unsigned char fp[32];
	char hex[65], state[128], *at_sign;
	long long at = 0;
	size_t n = BATCH, total = 0, read = 0;
	int rc, i;

	*moved = 0;
	if (!db_reference())
		return DB_OK;          /* commands without the data: nothing resolves */
	ceiling_fingerprint(db_reference(), fp);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", fp[i]);
	if ((rc = db_state_get(w, "identity", state, sizeof state)) != DB_OK)
		goto fail;
	if (!strcmp(state, hex))
		return DB_OK;
	/* Carry on where a stopped start left this version of the data. */
	if ((at_sign = strchr(state, '@')) && (size_t)(at_sign - state) == 64 &&
	    !strncmp(state, hex, 64))
		at = atoll(at_sign + 1);
	/* A pass from the start makes the aliases anew: the first run of the
	 * pass to bring an uploaded slug names its page, as on upload. */
	else if (sqlite3_exec(w->h, "DELETE FROM slug_aliases", NULL, NULL, NULL) != SQLITE_OK)
		rc = DB_ERR;
	while (rc == DB_OK && n == BATCH) {
		rc = batch(w, &at, hex, &n, &total);
		read += n;
		if (rc == DB_OK && read % (BATCH * 200) == 0 && read)
			log_info("resolving names: %zu runs read, %zu moved", read, total);
	}
	if (rc == DB_OK && total &&
	    sqlite3_exec(w->h, sql_unlist, NULL, NULL, NULL) != SQLITE_OK)
		rc = DB_ERR;
	if (rc != DB_OK)
		goto fail;
	if (total)
		log_info("resolved the names of %zu runs anew against the reference data", total);
	*moved = total > 0;
	return DB_OK;
fail:
	err_internal(err, "cannot resolve the runs' names anew: %s", sqlite3_errmsg(w->h));
	return rc;
}
