/* netcap.c: a network's keys capped in each scope, and its new keys per
 * day (netcap.h; migration 0028). */
#include "store/netcap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/outlier.h"
#include "util/log.h"
#include "util/timefmt.h"

static unsigned cap_keys = NETCAP_KEYS_DEFAULT, cap_new = NETCAP_NEW_KEYS_DEFAULT;

#define SCOPE "suite_version = ?1 AND model_digest = ?2 AND hw_slug = ?3 AND backend_name = ?4"

static const char sql_seen[] = "SELECT counted FROM net_keys WHERE " SCOPE " AND key_thumbprint = ?5";
static const char sql_last[] =
	"SELECT seq FROM net_keys WHERE " SCOPE " AND net = ?5 ORDER BY seq DESC LIMIT 1";
static const char sql_add[] =
	"INSERT INTO net_keys VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char sql_key_known[] = "SELECT 1 FROM runs WHERE key_thumbprint = ?1 LIMIT 1";
static const char sql_day_get[] = "SELECT new_keys FROM net_days WHERE net = ?1 AND day = ?2";
static const char sql_day_put[] =
	"INSERT INTO net_days VALUES (?1, ?2, 1) ON CONFLICT DO UPDATE SET new_keys = new_keys + 1";
static const char sql_day_old[] = "DELETE FROM net_days WHERE day < ?1";
static const char sql_state_get[] = "SELECT value FROM stats_state WHERE name = 'net_cap'";
static const char sql_state_put[] = "INSERT OR REPLACE INTO stats_state VALUES ('net_cap', ?1)";
/* The keys whose side of the cap changes, and their runs. */
static const char sql_rejudge[] =
	"UPDATE net_keys SET counted = 1 - counted WHERE counted <> (?1 = 0 OR seq <= ?1) "
	"RETURNING suite_version, model_digest, hw_slug, backend_name, key_thumbprint, counted";
static const char sql_key_runs[] =
	"SELECT r.rowid, r.id, r.status, r.capped, EXISTS (SELECT 1 FROM run_withdrawals w "
	"WHERE w.run_id = r.id), EXISTS (SELECT 1 FROM dispute_threads d "
	"WHERE d.run_id = r.id AND d.state = 'upheld') FROM runs r WHERE r.key_thumbprint = ?5 AND r.suite_version = ?1 "
	"AND r.model_digest = ?2 AND r.hw_slug = ?3 AND r.backend_name = ?4";
static const char sql_set_run[] = "UPDATE runs SET capped = ?2, status = ?3 WHERE rowid = ?1";

void netcap_configure(unsigned keys_per_network, unsigned new_keys_per_day)
{
	cap_keys = keys_per_network;
	cap_new = new_keys_per_day;
}

unsigned netcap_keys(void)
{
	return cap_keys;
}

unsigned netcap_new_keys(void)
{
	return cap_new;
}

static sqlite3_stmt *scoped(struct dbconn *w, const char *sql, const struct netcap_scope *s)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (st) {
		db_bind_text(st, 1, s->suite);
		db_bind_text(st, 2, s->digest);
		db_bind_text(st, 3, s->hw);
		db_bind_text(st, 4, s->backend);
	}
	return st;
}

/* Steps st once: *v gets its first column (0 when no row); resets st. */
static int one_int(sqlite3_stmt *st, long long *v, int *found)
{
	int rc;

	*v = 0;
	if (found)
		*found = 0;
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		if (found)
			*found = 1;
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int netcap_admit(struct dbconn *w, const struct netcap_scope *s, const char *key, const char *net,
		 int *counted)
{
	sqlite3_stmt *st;
	long long v, last;
	int rc, found;

	*counted = 1;
	if (!net || !*net)
		return DB_OK;
	if ((st = scoped(w, sql_seen, s)))
		db_bind_text(st, 5, key);
	if ((rc = one_int(st, &v, &found)) != DB_OK)
		return rc;
	if (found) {
		*counted = (int)v;
		return DB_OK;
	}
	/* Keys only ever join a network's list, so its last seq is how many
	 * came before this one. */
	if ((st = scoped(w, sql_last, s)))
		db_bind_text(st, 5, net);
	if ((rc = one_int(st, &last, NULL)) != DB_OK)
		return rc;
	*counted = !cap_keys || last < cap_keys;
	if (!(st = scoped(w, sql_add, s)))
		return DB_ERR;
	db_bind_text(st, 5, key);
	db_bind_text(st, 6, net);
	sqlite3_bind_int64(st, 7, last + 1);
	sqlite3_bind_int(st, 8, *counted);
	return db_step_done(st);
}

int netcap_new_key(struct dbconn *w, const char *key, const char *net, int *refused,
		   unsigned *retry_after)
{
	sqlite3_stmt *st;
	char day[TIMEFMT_LEN];
	long long now = time_now(), v;
	int rc, found;

	*refused = 0;
	*retry_after = 0;
	if (!cap_new || !net || !*net)
		return DB_OK;
	if ((st = db_stmt(w, sql_key_known)))
		db_bind_text(st, 1, key);
	if ((rc = one_int(st, &v, &found)) != DB_OK || found)
		return rc;
	time_rfc3339((time_t)now, day);
	day[10] = '\0';                  /* YYYY-MM-DD, UTC */
	if ((st = db_stmt(w, sql_day_get))) {
		db_bind_text(st, 1, net);
		db_bind_text(st, 2, day);
	}
	if ((rc = one_int(st, &v, NULL)) != DB_OK)
		return rc;
	if (v >= cap_new) {
		*refused = 1;
		*retry_after = (unsigned)(86400 - now % 86400);
		return DB_OK;
	}
	/* The first new key of a day forgets the days before. */
	if (!v && (st = db_stmt(w, sql_day_old)))
		db_bind_text(st, 1, day);
	if (!v && (rc = db_step_done(st)) != DB_OK)
		return rc;
	if ((st = db_stmt(w, sql_day_put))) {
		db_bind_text(st, 1, net);
		db_bind_text(st, 2, day);
	}
	return db_step_done(st);
}

/* A key that changed side: each of its runs in the scope moves in
 * (counted) or out, unless a withdrawal or an upheld ruling keeps it out. */
static int move_runs(struct dbconn *w, const struct netcap_scope *s, const char *key, int counted,
		     size_t *moved)
{
	struct { long long rowid; char id[16]; int in_now, stays_out; } v[64];
	sqlite3_stmt *st, *up;
	size_t n, i;
	int rc, more = 1;

	/* A key has few runs in one scope; in pages of 64 for the rest. */
	while (more) {
		if (!(st = scoped(w, sql_key_runs, s)))
			return DB_ERR;
		db_bind_text(st, 5, key);
		n = 0;
		more = 0;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int capped = sqlite3_column_int(st, 3);

			if (capped == !counted)
				continue;     /* on the right side already */
			if (n == sizeof v / sizeof v[0]) {
				more = 1;
				break;
			}
			v[n].rowid = sqlite3_column_int64(st, 0);
			snprintf(v[n].id, sizeof v[n].id, "%s", (const char *)sqlite3_column_text(st, 1));
			v[n].in_now = !strcmp((const char *)sqlite3_column_text(st, 2), "ok");
			v[n].stays_out = sqlite3_column_int(st, 4) || sqlite3_column_int(st, 5);
			n++;
		}
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_status_of(rc);
		for (i = 0; i < n; i++) {
			int in = counted && !v[i].stays_out;

			if (!(up = db_stmt(w, sql_set_run)))
				return DB_ERR;
			sqlite3_bind_int64(up, 1, v[i].rowid);
			sqlite3_bind_int(up, 2, !counted);
			db_bind_text(up, 3, in ? "ok" : "upheld");
			if ((rc = db_step_done(up)) != DB_OK)
				return rc;
			if (in != v[i].in_now && (rc = outlier_run_status_changed(w, v[i].id, NULL)) != DB_OK)
				return rc;
			(*moved)++;
		}
	}
	return DB_OK;
}

int netcap_refresh(struct dbconn *w, struct err *err)
{
	struct chg { char *v[5]; int counted; } *c = NULL, *grown;
	size_t n = 0, cap = 0, i, moved = 0;
	char want[24], had[24] = "";
	sqlite3_stmt *st = db_stmt(w, sql_state_get);
	int rc, j;

	snprintf(want, sizeof want, "%u", cap_keys);
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(had, sizeof had, "%s", (const char *)sqlite3_column_text(st, 0));
	if (st)
		sqlite3_reset(st);
	if (!strcmp(had, want))
		return DB_OK;
	rc = sqlite3_exec(w->h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
	if (rc == DB_OK && (st = db_stmt(w, sql_rejudge))) {
		sqlite3_bind_int(st, 1, (int)cap_keys);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				if (!(grown = realloc(c, cap * sizeof *c))) {
					rc = SQLITE_NOMEM;
					break;
				}
				c = grown;
			}
			for (j = 0; j < 5; j++)
				c[n].v[j] = strdup((const char *)sqlite3_column_text(st, j));
			c[n++].counted = sqlite3_column_int(st, 5);
		}
		sqlite3_reset(st);
		rc = rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	} else if (rc == DB_OK)
		rc = DB_ERR;
	for (i = 0; rc == DB_OK && i < n; i++) {
		struct netcap_scope s = { c[i].v[0], c[i].v[1], c[i].v[2], c[i].v[3] };

		for (j = 0; j < 5; j++)
			if (!c[i].v[j])
				rc = DB_ERR;
		if (rc == DB_OK)
			rc = move_runs(w, &s, c[i].v[4], c[i].counted, &moved);
	}
	if (rc == DB_OK && (st = db_stmt(w, sql_state_put))) {
		db_bind_text(st, 1, want);
		rc = db_step_done(st);
	}
	if (rc == DB_OK && sqlite3_exec(w->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = DB_ERR;
	if (rc != DB_OK) {
		err_internal(err, "cannot apply --keys-per-network %s to the stored runs: %s", want,
			     sqlite3_errmsg(w->h));
		sqlite3_exec(w->h, "ROLLBACK", NULL, NULL, NULL);
	} else if (n)
		log_info("--keys-per-network %s (was %s): %zu keys changed side, %zu runs moved",
			 want, had[0] ? had : "unset", n, moved);
	for (i = 0; i < n; i++)
		for (j = 0; j < 5; j++)
			free(c[i].v[j]);
	free(c);
	return rc;
}
