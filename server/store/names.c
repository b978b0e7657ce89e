/* names.c: the names a model or hardware is shown by, and names that read
 * as another model's or hardware's (names.h). */
#include "store/names.h"

#include <stdio.h>
#include <string.h>

#include "domain/ceiling.h"
#include "domain/shown.h"
#include "util/buf.h"
#include "util/confusable.h"
#include "util/log.h"
#include "util/slug.h"
#include "util/textcut.h"

/* What the keys and the judgements depend on besides ICU and the
 * reference data: bump it when confusable_keys or shown_ok change. */
#define NAMES_RULES "names-3"
#define JUDGE_BATCH 512

static const char sql_shown[] = "SELECT name FROM search_names WHERE kind = ?1 AND slug = ?2";
/* Another page than ?5 that exists with one of the keys ?2..?4 (NULL for
 * none) from a name whose own slug is not ?6. */
static const char sql_key_hit[] =
	"SELECT k.slug FROM name_skeletons k WHERE k.kind = ?1 AND k.key IN (?2, ?3, ?4) "
	"AND k.slug <> ?5 AND k.plain <> ?6 AND EXISTS (SELECT 1 FROM search_names s WHERE s.kind = ?1 AND s.slug = k.slug) "
	"LIMIT 1";
static const char sql_key_add[] =
	"INSERT OR IGNORE INTO name_skeletons(kind, key, slug, plain) VALUES (?1, ?2, ?3, ?4)";
/* Before its run is stored, so the run's own triggers (0021) find it. */
static const char sql_vote_add[] =
	"INSERT OR IGNORE INTO name_votes(kind, slug, name, plain) VALUES (?1, ?2, ?3, ?4)";
static const char sql_unjudged[] =
	"SELECT id, kind, slug, name FROM name_votes WHERE plain IS NULL ORDER BY id LIMIT ?1";
static const char sql_judge[] = "UPDATE name_votes SET plain = ?2 WHERE id = ?1";
static const char sql_forget[] =
	"DELETE FROM name_skeletons; UPDATE name_votes SET plain = NULL WHERE plain IS NOT NULL;";

/* The upload's statements (names_refresh's run only at a start). */
const char *const names_sql[] = { sql_shown, sql_key_hit, sql_key_add, sql_vote_add, NULL };

/* See names.h. */
int names_shown_of(struct dbconn *c, const char *kind, const char *slug, char *out, size_t n)
{
	sqlite3_stmt *st = db_stmt(c, sql_shown);
	int rc;

	out[0] = '\0';
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, kind);
	db_bind_text(st, 2, slug);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_status_of(rc);
}

/* Fills out from the shown name of (kind, slug) when there is one: 1, 0
 * when the slug has none, or a negative DB_ status. */
static int shown(struct dbconn *c, const char *kind, const char *slug, struct names_clash *out)
{
	char full[NAME_SHOWN_MAX];
	struct buf b = BUF_INIT;
	int rc = names_shown_of(c, kind, slug, full, sizeof full);

	if (rc == 1) {
		textcut(&b, full, 60);
		snprintf(out->name, sizeof out->name, "%s", b.buf ? b.buf : slug);
		snprintf(out->slug, sizeof out->slug, "%s", slug);
		buf_release(&b);
	}
	return rc;
}

/* The slug rules keys of kind are made with (confusable_keys). */
static int (*slug_rule(const char *kind))(const char *, char *, size_t)
{
	return !strcmp(kind, "model") ? slug_model : slug_hw;
}

/* The slug of name as it is spelt (kind's slug rules), "" for none. */
static void own_slug(const char *kind, const char *name, char out[SLUG_MAX + 1])
{
	if (slug_rule(kind)(name, out, SLUG_MAX + 1) != 0)
		out[0] = '\0';
}

/* Writes into other (size n) the slug of a page other than own that
 * exists and has a key of name (kind's keys) from a name of another
 * spelling, or "" when none; a db_status.  A name spelt as one of that
 * page's (the same own slug) reads as it without any look-alike, and
 * landed elsewhere only by the resolver's choice (llama-bench's "llama
 * 7B", which several models share, beside LLaMA 7B's page). */
static int key_clash(struct dbconn *c, const char *kind, const char *name, const char *own,
		     char *other, size_t n)
{
	char keys[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX], plain[SLUG_MAX + 1];
	sqlite3_stmt *st = db_stmt(c, sql_key_hit);
	int i, rc;

	other[0] = '\0';
	if (!st)
		return DB_ERR;
	if (!confusable_keys(name, slug_rule(kind), keys))
		return DB_OK;
	own_slug(kind, name, plain);
	db_bind_text(st, 1, kind);
	for (i = 0; i < CONFUSABLE_KEYS; i++)
		db_bind_text(st, 2 + i, keys[i][0] ? keys[i] : NULL);
	db_bind_text(st, 5, own);
	db_bind_text(st, 6, plain);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(other, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* The clash of one name, when it has one: the page it reads as (its
 * reading's, lookalike, else one that shares a key with it, for a name
 * that resolved to no reference), filled into *out with field and what.
 * A db_status. */
static int clash_of(struct dbconn *c, const char *kind, const char *name, const char *slug,
		    const char *lookalike, struct names_clash *out)
{
	int model = !strcmp(kind, "model"), rc;
	const struct ceiling_ref *ref = db_reference();
	char other[CONFUSABLE_KEY_MAX] = "";

	if (lookalike[0] && (rc = shown(c, kind, lookalike, out)) != 0) {
		if (rc < 0)
			return rc;
	} else {
		if (model ? ceiling_model(ref, slug) != NULL : ceiling_hw(ref, slug) != NULL)
			return DB_OK;           /* a reference's name: that page, whatever it reads as */
		if ((rc = key_clash(c, kind, name, slug, other, sizeof other)) != DB_OK)
			return rc;
		if (!other[0] || (rc = shown(c, kind, other, out)) <= 0)
			return rc;
	}
	out->field = model ? "model.name" : "hardware.accelerator_summary";
	out->what = model ? "model" : "hardware";
	out->prefix = model ? "/m/" : "/hw/";
	return DB_OK;
}

int names_lookalike(struct dbconn *c, const struct run_fields *f, struct names_clash *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	rc = clash_of(c, "model", f->model_name, f->model_slug, f->model_lookalike, out);
	if (rc == DB_OK && !out->field)
		rc = clash_of(c, "hw", f->accelerator, f->hw_slug, f->hw_lookalike, out);
	return rc;
}

/* Adds name's keys for the page slug of kind; a db_status. */
static int add_keys(struct dbconn *c, const char *kind, const char *name, const char *slug)
{
	char keys[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX], plain[SLUG_MAX + 1];
	sqlite3_stmt *st;
	int i, rc = DB_OK;

	confusable_keys(name, slug_rule(kind), keys);
	own_slug(kind, name, plain);
	for (i = 0; rc == DB_OK && i < CONFUSABLE_KEYS; i++) {
		if (!keys[i][0])
			continue;
		if ((st = db_stmt(c, sql_key_add))) {
			db_bind_text(st, 1, kind);
			db_bind_text(st, 2, keys[i]);
			db_bind_text(st, 3, slug);
			db_bind_text(st, 4, plain);
		}
		rc = db_step_done(st);
	}
	return rc;
}

/* Registers one name of a run about to be stored, judged, with its keys
 * when it is new; a db_status. */
static int register_one(struct dbconn *c, const char *kind, const char *slug, const char *name)
{
	sqlite3_stmt *st = db_stmt(c, sql_vote_add);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, kind);
	db_bind_text(st, 2, slug);
	db_bind_text(st, 3, name);
	sqlite3_bind_int(st, 4, shown_ok(db_reference(), name));
	if ((rc = db_step_done(st)) != DB_OK || sqlite3_changes(c->h) == 0)
		return rc;
	return add_keys(c, kind, name, slug);
}

int names_register(struct dbconn *c, const struct run_fields *f)
{
	int rc = register_one(c, "model", f->model_slug, f->model_name);

	return rc == DB_OK ? register_one(c, "hw", f->hw_slug, f->accelerator) : rc;
}

/* The keys of every name and alias of the reference data, for their pages. */
static int add_reference(struct dbconn *c, const struct ceiling_ref *ref)
{
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	const json_t *v;
	size_t i, j;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && (m = ceiling_model_at(ref, i)); i++) {
		if ((rc = add_keys(c, "model", m->name, m->id)) == DB_OK)
			rc = add_keys(c, "model", m->id, m->id);
		json_array_foreach((json_t *)m->aliases, j, v)
			if (rc == DB_OK && json_string_value(v))
				rc = add_keys(c, "model", json_string_value(v), m->id);
	}
	for (i = 0; rc == DB_OK && (h = ceiling_hw_at(ref, i)); i++) {
		if ((rc = add_keys(c, "hw", h->name, h->slug)) == DB_OK)
			rc = add_keys(c, "hw", h->slug, h->slug);
		json_array_foreach((json_t *)h->aliases, j, v)
			if (rc == DB_OK && json_string_value(v))
				rc = add_keys(c, "hw", json_string_value(v), h->slug);
	}
	return rc;
}

/* Judges one batch of the names not judged yet, with their keys; *n gets
 * how many.  In the caller's transaction; a db_status. */
static int judge_batch(struct dbconn *c, int *n)
{
	sqlite3_stmt *st = db_stmt(c, sql_unjudged), *up;
	long long id[JUDGE_BATCH];
	int plain[JUDGE_BATCH], i, rc;

	*n = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int(st, 1, JUDGE_BATCH);
	rc = DB_OK;
	while (rc == DB_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *slug = (const char *)sqlite3_column_text(st, 2);
		const char *name = (const char *)sqlite3_column_text(st, 3);

		id[*n] = sqlite3_column_int64(st, 0);
		plain[*n] = shown_ok(db_reference(), name);
		rc = add_keys(c, kind, name, slug);
		(*n)++;
	}
	sqlite3_reset(st);
	for (i = 0; rc == DB_OK && i < *n; i++) {
		if ((up = db_stmt(c, sql_judge))) {
			sqlite3_bind_int64(up, 1, id[i]);
			sqlite3_bind_int(up, 2, plain[i]);
		}
		rc = db_step_done(up);
	}
	return rc;
}

/* Runs sql's statements (no results) on c; a db_status. */
static int exec(struct dbconn *c, const char *sql)
{
	return sqlite3_exec(c->h, sql, NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
}

/* The version of what keys and judgements were made with into out. */
static void rules_version(const struct ceiling_ref *ref, char out[160])
{
	unsigned char fp[32];
	char icu[64];
	int i, n;

	confusable_data_version(icu);
	n = snprintf(out, 160, "%s %s ", NAMES_RULES, icu);
	ceiling_fingerprint(ref, fp);
	for (i = 0; i < 32 && n + 2 < 160; i++, n += 2)
		snprintf(out + n, 3, "%02x", fp[i]);
}

int names_refresh(struct dbconn *w, struct err *err)
{
	const struct ceiling_ref *ref = db_reference();
	char want[160], have[160];
	int rc, n = JUDGE_BATCH, total = 0;

	if (!ref)
		return DB_OK;               /* commands without the reference data */
	rules_version(ref, want);
	if ((rc = db_state_get(w, "names", have, sizeof have)) != DB_OK)
		goto fail;
	if (strcmp(have, want)) {
		rc = exec(w, "BEGIN");
		if (rc == DB_OK)
			rc = exec(w, sql_forget);
		if (rc == DB_OK)
			rc = add_reference(w, ref);
		if (rc == DB_OK)
			rc = db_state_put(w, "names", want);
		rc = rc == DB_OK ? exec(w, "COMMIT") : (exec(w, "ROLLBACK"), rc);
		if (rc != DB_OK)
			goto fail;
	}
	while (n == JUDGE_BATCH) {
		if ((rc = exec(w, "BEGIN")) == DB_OK)
			rc = judge_batch(w, &n);
		rc = rc == DB_OK ? exec(w, "COMMIT") : (exec(w, "ROLLBACK"), rc);
		if (rc != DB_OK)
			goto fail;
		total += n;
	}
	if (total)
		log_info("judged %d names for what pages may show and what reads alike", total);
	return DB_OK;
fail:
	err_internal(err, "cannot read the names anew: %s", sqlite3_errmsg(w->h));
	return rc;
}
