/* run_store.c: the insert of one run and its cluster update, as a db job. */
#include "store/run_store.h"
#include "store/scope.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store/netcap.h"
#include "store/jws_pack.h"
#include "store/outlier.h"
#include "util/sha256.h"
#include "util/timefmt.h"
#include "store/tlog_store.h"

/* The same bytes, or the same payload signed by the same key (an ES256
 * signature's (r, n - s) twin, or any re-signature): the oldest such run. */
static const char sql_by_sha[] =
	"SELECT id, outlier, capped FROM runs WHERE jws_sha256 = ?1 "
	"OR (key_thumbprint = ?2 AND payload_sha256 = ?3) ORDER BY rowid LIMIT 1";
static const char sql_insert[] =
	"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, "
	"model_quant, model_format, accelerator, hw_slug, fingerprint_hash, hw_class, "
	"backend_name, backend_version, decode_tok_s, prefill_tok_s, ttft_ms, "
	"created_at, received_at, key_thumbprint, alg, account_id, payload, jws, "
	"jws_sha256, demo, payload_sha256, mem_gb, log_index, hw_bin, net, capped, status) "
	"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
/* An uploaded name's own slug that is not its page's (issue 32): the page
 * slug it redirects to.  The first run to bring it decides. */
static const char sql_twin[] = RUN_DIGEST_TWIN_SQL;
static const char sql_suite_has[] =
	"SELECT 1 FROM runs WHERE suite_version = ?1 AND status = 'ok' LIMIT 1";
static const char sql_slug_of[] = "SELECT model_slug FROM runs WHERE id = ?";
/* The other run of a key that has two (?2 the new one): the one its first
 * combination's count of new keys came from, as a cluster's row of the
 * key names it (cluster_keys.mid_id; the new run last, when both count
 * in one cluster and it is that row's). */
static const char sql_key_first[] =
	"SELECT r.id, r.model_slug, r.hw_slug, r.model_digest FROM cluster_keys k "
	"JOIN runs r ON r.id = k.mid_id WHERE k.key_thumbprint = ?1 ORDER BY k.mid_id = ?2 LIMIT 1";
static const char sql_alias[] =
	"INSERT OR IGNORE INTO slug_aliases(kind, slug, target) VALUES (?1, ?2, ?3)";

static const char id_alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";

void run_id_new(char out[RUN_ID_LEN])
{
	unsigned char b[32];
	size_t i = 0, k = 0, n = sizeof id_alphabet - 1;   /* 38 */

	out[0] = 'r';
	out[1] = '_';
	while (k < 11) {
		if (i == sizeof b || k == 0) {
			randombytes_buf(b, sizeof b);
			i = 0;
		}
		/* Rejection sampling keeps every character equally likely. */
		if (b[i] < 228)
			out[2 + k++] = id_alphabet[b[i] % n];
		i++;
	}
	out[13] = '\0';
}

int run_id_valid(const char *s)
{
	return strlen(s) == 13 && s[0] == 'r' && s[1] == '_' &&
	       strspn(s + 2, id_alphabet) == 11;
}

/* Looks the upload up by its hashes; 1 and fills id/outlier when stored. */
static int find_duplicate(struct dbconn *w, struct run_new *n)
{
	sqlite3_stmt *st = db_stmt(w, sql_by_sha);
	int found = 0;

	if (!st)
		return 0;
	sqlite3_bind_blob(st, 1, n->sha, sizeof n->sha, SQLITE_STATIC);
	db_bind_text(st, 2, n->thumbprint);
	sqlite3_bind_blob(st, 3, n->payload_sha, sizeof n->payload_sha, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(n->id, sizeof n->id, "%s", (const char *)sqlite3_column_text(st, 0));
		n->outlier = sqlite3_column_int(st, 1);
		n->capped = sqlite3_column_int(st, 2);
		found = 1;
	}
	sqlite3_reset(st);
	return found;
}

/* Binds every column of the insert; log_index is the log entry the run
 * will have. */
static void bind_run(sqlite3_stmt *st, const struct run_new *n,
		     const char *hw_class, const char *received, int64_t log_index)
{
	const struct run_fields *f = &n->f;

	db_bind_text(st, 1, n->id);
	db_bind_text(st, 2, f->suite_version);
	db_bind_text(st, 3, f->model_name);
	db_bind_text(st, 4, f->model_slug);
	db_bind_text(st, 5, f->model_digest);
	db_bind_text(st, 6, f->model_quant);
	db_bind_text(st, 7, f->model_format);
	db_bind_text(st, 8, f->accelerator);
	db_bind_text(st, 9, f->hw_slug);
	db_bind_text(st, 10, f->fingerprint_hash);
	db_bind_text(st, 11, hw_class);
	db_bind_text(st, 12, f->backend_name);
	db_bind_text(st, 13, f->backend_version);
	sqlite3_bind_double(st, 14, f->decode_tok_s);
	sqlite3_bind_double(st, 15, f->prefill_tok_s);
	sqlite3_bind_double(st, 16, f->ttft_ms);
	db_bind_text(st, 17, f->created_at);
	db_bind_text(st, 18, received);
	db_bind_text(st, 19, n->thumbprint);
	db_bind_text(st, 20, n->alg);
	if (n->account_id)
		sqlite3_bind_int64(st, 21, n->account_id);
	/* The payload is inside the JWS already (page_run.c decodes it from
	 * there); storing it twice doubled the bytes written per upload. */
	sqlite3_bind_text(st, 22, "", 0, SQLITE_STATIC);
	if (n->packed.len)
		sqlite3_bind_blob(st, 23, n->packed.buf, (int)n->packed.len, SQLITE_STATIC);
	else
		sqlite3_bind_blob(st, 23, n->jws, (int)n->jws_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 24, n->sha, sizeof n->sha, SQLITE_STATIC);
	sqlite3_bind_int(st, 25, n->demo);
	sqlite3_bind_blob(st, 26, n->payload_sha, sizeof n->payload_sha, SQLITE_STATIC);
	if (n->f.mem_gb > 0)
		sqlite3_bind_double(st, 27, n->f.mem_gb);
	else
		sqlite3_bind_null(st, 27);
	sqlite3_bind_int64(st, 28, log_index);
	if (f->res.bin > 0)
		sqlite3_bind_int(st, 29, f->res.bin);
	else
		sqlite3_bind_null(st, 29);
	db_bind_text(st, 30, n->net && *n->net ? n->net : NULL);
	sqlite3_bind_int(st, 31, n->capped);
	db_bind_text(st, 32, n->capped ? "upheld" : "ok");
}

/* Inserts the row under a fresh id, retrying on the (unlikely) id clash,
 * with log_index the leaf index its log entry will get. */
static int insert(struct dbconn *w, struct run_new *n, const char *hw_class, int64_t log_index,
		  char received[32])
{
	sqlite3_stmt *st;
	int rc = SQLITE_CONSTRAINT, tries;

	time_now_rfc3339(received);
	for (tries = 0; tries < 5 && (rc & 0xff) == SQLITE_CONSTRAINT; tries++) {
		st = db_stmt(w, sql_insert);
		if (!st)
			return DB_ERR;
		if (n->fixed_id)
			snprintf(n->id, sizeof n->id, "%s", n->fixed_id);
		else
			run_id_new(n->id);
		bind_run(st, n, hw_class, received, log_index);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Stores the row with its leaf index in the transparency log, then
 * appends its entry (the SHA-256 of its exact JWS bytes) at that index, in
 * the run's transaction: one write of the row, no UPDATE after.  The log's
 * size is read first because the entry names the run's id, which the
 * insert picks; the writer is the log's only appender, so the entry lands
 * at that index, and anything else fails the job (rolled back). */
static int insert_logged(struct dbconn *w, struct run_new *n, const char *hw_class,
			 char received[32])
{
	int64_t at = tlog_store_size(w);
	uint64_t index;
	int rc;

	if (at < 0)
		return DB_ERR;
	if ((rc = insert(w, n, hw_class, at, received)) != DB_OK)
		return rc;
	if ((rc = tlog_store_append(w, TLOG_RUN, n->id, n->sha, &index)) != DB_OK)
		return rc;
	return index == (uint64_t)at ? DB_OK : DB_ERR;
}

void run_store_hw_class(const char *fingerprint, const char *hw_slug, char *out, size_t n)
{
	if (fingerprint)
		snprintf(out, n, "%s:%s", fingerprint, hw_slug);
	else
		snprintf(out, n, "slug:%s", hw_slug);
}

int run_store_alias(struct dbconn *w, const char *kind, const char *slug, const char *target,
		    int *added)
{
	sqlite3_stmt *st;
	int rc;

	if (!slug || !*slug || !strcmp(slug, target))
		return DB_OK;
	if ((st = db_stmt(w, sql_alias))) {
		db_bind_text(st, 1, kind);
		db_bind_text(st, 2, slug);
		db_bind_text(st, 3, target);
	}
	rc = db_step_done(st);
	if (rc == DB_OK && added)
		*added |= sqlite3_changes(w->h) > 0;
	return rc;
}

unsigned run_store_combo_tag(const char *suite, const char *digest, const char *hw_slug,
			     const char *backend)
{
	char c[170];

	snprintf(c, sizeof c, "combo:%s", hw_slug);
	return outlier_cluster_tag(suite, digest, c, backend);
}

/* 1 when the cluster update flagged the new run: it was stored unflagged,
 * so it is flagged exactly when its id is among the changed flags (no
 * second seek for the row just written). */
static int flagged_now(const struct run_new *n)
{
	size_t i;

	for (i = 0; i < json_array_size(n->affected); i++)
		if (!strcmp(json_string_value(json_array_get(n->affected, i)), n->id))
			return 1;
	return 0;
}

/* Whether the run's key counts in its scope under its network's cap
 * (store/netcap.h): n->capped 1 when not. */
static int admit(struct dbconn *w, struct run_new *n)
{
	struct netcap_scope s = { n->f.suite_version, n->f.model_digest, n->f.hw_slug,
				  n->f.backend_name };
	int counted, rc = netcap_admit(w, &s, n->thumbprint, n->net, &counted);

	n->capped = rc == DB_OK && !counted;
	return rc;
}

void run_store_pack(struct run_new *n)
{
	jws_pack(n->jws, n->jws_len, &n->packed);
}

/* The shown names of n's model and hardware (names_shown_of) into
 * shown[0] and [1] ("" where none); a db_status. */
static int shown_names(struct dbconn *w, const struct run_new *n, char shown[2][NAME_SHOWN_MAX])
{
	int rc = names_shown_of(w, "model", n->f.model_slug, shown[0], NAME_SHOWN_MAX);

	if (rc >= 0)
		rc = names_shown_of(w, "hw", n->f.hw_slug, shown[1], NAME_SHOWN_MAX);
	return rc < 0 ? rc : DB_OK;
}

/* Sets n->wide when the suite has no counted run yet: every model's and
 * hardware's page lists the suites and, unasked, shows the newest.  Before
 * the run is stored.  A db_status. */
static int first_of_suite(struct dbconn *w, struct run_new *n)
{
	sqlite3_stmt *st = db_stmt(w, sql_suite_has);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, n->f.suite_version);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	n->wide |= rc == SQLITE_DONE;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Sets n->wide when another digest of the suite starts as the run's does
 * (RUN_DIGEST_TWIN_SQL): both are then shown in full, on the other
 * model's pages too.  A db_status. */
static int twin_digest(struct dbconn *w, struct run_new *n)
{
	const char *d = n->f.model_digest;
	sqlite3_stmt *st;
	char lo[32], hi[32];
	int rc;

	if (strncmp(d, "sha256:", 7) || strlen(d) < 7 + 12)
		return DB_OK;
	if (!(st = db_stmt(w, sql_twin)))
		return DB_ERR;
	snprintf(lo, sizeof lo, "%.19s", d);
	snprintf(hi, sizeof hi, "%.19s~", d);
	db_bind_text(st, 1, lo);
	db_bind_text(st, 2, hi);
	db_bind_text(st, 3, d);
	db_bind_text(st, 4, n->f.suite_version);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	n->wide |= rc == SQLITE_ROW;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Sets n->wide when the run changed a shown name its model or hardware
 * had before (shown, from shown_names): other pages print that name (a
 * hardware's page names the models run on it).  A first name is shown
 * nowhere else yet.  A db_status. */
static int renamed(struct dbconn *w, struct run_new *n, char shown[2][NAME_SHOWN_MAX])
{
	char now[2][NAME_SHOWN_MAX];
	int rc = shown_names(w, n, now), i;

	for (i = 0; i < 2 && rc == DB_OK; i++)
		n->wide |= shown[i][0] && strcmp(shown[i], now[i]) != 0;
	return rc;
}

/* Flags a new run moves beyond which the scopes are not looked for: the
 * run marks every list instead. */
#define SCOPED_FLAGS_MAX 64

/* Sets n->wide when the flags the run moved (n->affected) show beyond its
 * scopes: on more than SCOPED_FLAGS_MAX runs, or on a run listed under
 * another model's name.  Those runs share the new run's cluster, so its
 * digest and hardware: a flag of one of its own model's runs shows on the
 * pages of its model, its hardware and its digest (its scopes), and on
 * the unscoped lists, which every upload marks.  A db_status. */
static int flags_moved(struct dbconn *w, struct run_new *n)
{
	size_t i, k = json_array_size(n->affected);
	sqlite3_stmt *st;
	const char *slug;
	int rc = SQLITE_DONE;

	if (k > SCOPED_FLAGS_MAX) {
		n->wide = 1;
		return DB_OK;
	}
	if (!k || !(st = db_stmt(w, sql_slug_of)))
		return k ? DB_ERR : DB_OK;
	for (i = 0; i < k && !n->wide; i++) {
		db_bind_text(st, 1, json_string_value(json_array_get(n->affected, i)));
		rc = sqlite3_step(st);
		slug = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		n->wide |= rc != SQLITE_ROW || !slug || strcmp(slug, n->f.model_slug) != 0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_status_of(rc);
	}
	return DB_OK;
}

/* The scopes of the combination that lost a new key to the run (its
 * key's first run: n->other_tag set) into n->other_scopes; n->wide when
 * that run is not found.  A db_status. */
static int other_scopes(struct dbconn *w, struct run_new *n)
{
	sqlite3_stmt *st;
	int rc;

	if (!n->other_tag)
		return DB_OK;
	if (!(st = db_stmt(w, sql_key_first)))
		return DB_ERR;
	db_bind_text(st, 1, n->thumbprint);
	db_bind_text(st, 2, n->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), n->id) != 0) {
		n->other_scopes[0] = scope_tag('m', (const char *)sqlite3_column_text(st, 1));
		n->other_scopes[1] = scope_tag('h', (const char *)sqlite3_column_text(st, 2));
		n->other_scopes[2] = scope_tag('d', (const char *)sqlite3_column_text(st, 3));
	} else {
		n->wide = 1;      /* the first run not found apart: every list */
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int run_store_run(struct dbconn *w, struct db_job *j)
{
	struct run_new *n = (struct run_new *)j;
	struct outlier_run o;
	char hw_class[160], received[32], shown[2][NAME_SHOWN_MAX];
	int rc;

	sha256_digest(n->sha, n->jws, n->jws_len);
	sha256_digest(n->payload_sha, n->payload, n->payload_len);
	if (find_duplicate(w, n)) {
		n->duplicate = 1;
		return DB_OK;
	}
	if ((rc = names_lookalike(w, &n->f, &n->clash)) != DB_OK || n->clash.field)
		return rc;       /* a look-alike name: refused, nothing written */
	if ((rc = netcap_new_key(w, n->thumbprint, n->net, &n->new_key_refused,
				 &n->retry_after)) != DB_OK || n->new_key_refused)
		return rc;       /* too many new keys from its network today */
	if ((rc = admit(w, n)) != DB_OK)
		return rc;
	if ((rc = shown_names(w, n, shown)) != DB_OK || (rc = first_of_suite(w, n)) != DB_OK ||
	    (rc = names_register(w, &n->f)) != DB_OK)
		return rc;
	run_store_hw_class(n->f.fingerprint_hash, n->f.hw_slug, hw_class, sizeof hw_class);
	rc = insert_logged(w, n, hw_class, received);
	if (rc == DB_OK)
		rc = renamed(w, n, shown);
	if (rc == DB_OK)
		rc = twin_digest(w, n);
	/* A new alias turns the alias slug's page, which may be kept, into a
	 * redirect: beyond the run's scopes. */
	if (rc == DB_OK)
		rc = run_store_alias(w, "model", n->f.res.name_slug, n->f.model_slug, &n->wide);
	if (rc == DB_OK)
		rc = run_store_alias(w, "hw", n->f.res.accel_slug, n->f.hw_slug, &n->wide);
	if (rc != DB_OK || n->capped)
		return rc;       /* a capped run takes part in no figure */
	if (!n->affected)
		n->affected = json_array();
	o = (struct outlier_run){
		.id = n->id, .received_at = received,
		.c = { n->f.suite_version, n->f.model_digest, hw_class, n->f.backend_name },
		.k = { n->f.suite_version, n->f.model_slug, n->f.model_digest, n->f.hw_slug,
		       n->f.backend_name },
		.key = n->thumbprint, .x = n->f.decode_tok_s, .prefill = n->f.prefill_tok_s,
		.ttft = n->f.ttft_ms, .quant = n->f.model_quant, .format = n->f.model_format,
		.bin = n->f.res.bin, .net = n->net,
	};
	n->cluster_tag = outlier_cluster_tag(o.c.suite, o.c.digest, o.c.hw_class, o.c.backend);
	n->combo_tag = run_store_combo_tag(o.c.suite, o.c.digest, n->f.hw_slug, o.c.backend);
	rc = outlier_run_added(w, &o, n->affected, &n->other_tag);
	if (rc != DB_OK)
		return rc;
	n->outlier = flagged_now(n);
	/* Another combination's new keys: its scopes too; flags moved on
	 * runs listed under another model's name: beyond its scopes. */
	if ((rc = other_scopes(w, n)) != DB_OK || (rc = flags_moved(w, n)) != DB_OK)
		return rc;
	/* Anything else a stored run must write in the same transaction goes
	 * here or beside insert_logged above, before the writer's group commit: a
	 * status other than DB_OK rolls this upload back to its savepoint
	 * (db.c, run_job) and answers it 503; the batch's other uploads still
	 * commit, and none is answered before the commit. */
	return DB_OK;
}
