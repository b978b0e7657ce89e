/* outlier_stmt.c: what the files of the flags and the typical figures
 * share below outlier.c (outlier_int.h): statements bound to a cluster's
 * or a combination's key, stepped to the end; a run's cluster and
 * combination; and a cluster's tag.  It
 * calls none of them, so none of them needs to call outlier.c. */
#include "store/outlier_int.h"

#include <stdint.h>

unsigned outlier_cluster_tag(const char *suite, const char *digest, const char *hw_class,
			     const char *backend)
{
	const char *part[4] = { suite, digest, hw_class, backend };
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < 4; i++) {
		const char *p = part[i] ? part[i] : "";

		for (; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		h = (h ^ 0xff) * 16777619u;   /* the separator: no UTF-8 byte */
	}
	return h ? h : 1;
}

int outlier_step_all(sqlite3_stmt *st, json_t *ids, long long *last)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (last)
			*last = sqlite3_column_int64(st, 0);
		if (json_is_array(ids) && sqlite3_column_text(st, 0))
			json_array_append_new(ids, json_string((const char *)sqlite3_column_text(st, 0)));
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

sqlite3_stmt *outlier_keyed(struct dbconn *w, const char *sql, const struct cluster_key *k)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (st) {
		db_bind_text(st, 1, k->suite);
		db_bind_text(st, 2, k->digest);
		db_bind_text(st, 3, k->hw_class);
		db_bind_text(st, 4, k->backend);
	}
	return st;
}

sqlite3_stmt *outlier_combo_keyed(struct dbconn *w, const char *sql, const struct combo_key *k)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (st) {
		db_bind_text(st, 1, k->suite);
		db_bind_text(st, 2, k->model);
		db_bind_text(st, 3, k->digest);
		db_bind_text(st, 4, k->hw);
		db_bind_text(st, 5, k->backend);
	}
	return st;
}

struct cluster_key outlier_frun_cluster(const struct frun *r)
{
	return (struct cluster_key){ r->suite, r->digest, r->hw_class, r->backend };
}

struct combo_key outlier_frun_combo(const struct frun *r)
{
	return (struct combo_key){ r->suite, r->model, r->digest, r->hw, r->backend };
}
