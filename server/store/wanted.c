/* wanted.c: counting asks for combinations nobody measured, in memory, and
 * the table the refresh thread writes them to (wanted.h). */
#include "store/wanted.h"

#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <string.h>

#include "store/names.h"
#include "util/slug.h"
#include "util/timefmt.h"

static const char sql_add[] =
	"INSERT INTO wanted(suite_version, model_slug, hw_slug, asks, last_at) VALUES (?1, ?2, ?3, ?4, ?5) "
	"ON CONFLICT DO UPDATE SET asks = asks + excluded.asks, last_at = excluded.last_at";
/* The keys of a model's combinations on a hardware (the unique index of
 * combos, the model's rows). */
#define KEYS_OF(s, m, h) "(SELECT coalesce(sum(c.keys), 0) FROM combos c WHERE c.suite_version = " \
	s " AND c.model_slug = " m " AND c.hw_slug = " h ")"
static const char sql_done[] =
	"DELETE FROM wanted WHERE suite_version = ?1 AND model_slug = ?2 AND hw_slug = ?3 AND "
	KEYS_OF("?1", "?2", "?3") " >= ?4";
static const char sql_count[] = "SELECT count(*) FROM wanted";
static const char sql_trim[] =
	"DELETE FROM wanted WHERE (suite_version, model_slug, hw_slug) IN (SELECT suite_version, "
	"model_slug, hw_slug FROM wanted ORDER BY asks, last_at LIMIT ?1)";
static const char sql_list[] =
	"SELECT w.model_slug, w.hw_slug, " NAMES_MODEL("w.model_slug", "w.model_slug") ", "
	NAMES_HW("w.hw_slug", "w.hw_slug") ", w.asks, w.last_at, "
	KEYS_OF("w.suite_version", "w.model_slug", "w.hw_slug") " AS k "
	"FROM wanted w INDEXED BY wanted_asks WHERE w.suite_version = ?1 AND k < ?2 "
	"ORDER BY w.asks DESC, w.last_at DESC, w.model_slug, w.hw_slug LIMIT ?3";

const char *const wanted_sql[] = { sql_add, sql_done, sql_count, sql_trim, sql_list, NULL };

struct pending {
	uint64_t h;                    /* hash of the combination (0: free) */
	char suite[64], model[129], hw[129];
	long long n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long day = -1;
static unsigned char day_key[crypto_shorthash_KEYBYTES];
static uint64_t seen[WANTED_SEEN_MAX];
static unsigned seen_n;
static struct pending pend[WANTED_PENDING_MAX];
static unsigned pend_n;

/* The keyed hash of the NUL-separated parts (with the day's key). */
static uint64_t hash_parts(const char *const *parts, int n)
{
	unsigned char msg[1024], out[crypto_shorthash_BYTES];
	size_t len = 0, l;
	uint64_t h;
	int i;

	for (i = 0; i < n; i++) {
		l = strlen(parts[i]);
		if (len + l + 1 > sizeof msg)
			l = sizeof msg - len - 1;
		memcpy(msg + len, parts[i], l);
		len += l;
		msg[len++] = '\0';
	}
	crypto_shorthash(out, msg, len, day_key);
	memcpy(&h, out, sizeof h);
	return h ? h : 1;
}

/* A new day: a new key, and yesterday's hashes forgotten. */
static void roll_day(long long today)
{
	if (today == day)
		return;
	day = today;
	randombytes_buf(day_key, sizeof day_key);
	memset(seen, 0, sizeof seen);
	seen_n = 0;
}

/* Adds h to the day's set; 1 when it was new, 0 when seen or full. */
static int seen_add(uint64_t h)
{
	size_t i = (size_t)(h % WANTED_SEEN_MAX);

	if (seen_n >= WANTED_SEEN_MAX / 2)
		return 0;
	while (seen[i]) {
		if (seen[i] == h)
			return 0;
		i = (i + 1) % WANTED_SEEN_MAX;
	}
	seen[i] = h;
	seen_n++;
	return 1;
}

void wanted_note(const char *peer_addr, const char *suite, const char *model_slug,
		 const char *hw_slug)
{
	const char *who[4] = { peer_addr ? peer_addr : "", suite, model_slug, hw_slug };
	uint64_t h, ch;
	unsigned i;

	if (!peer_addr || !*peer_addr)
		return;                    /* a rebuild off the request path: nobody's visit */
	if (!suite || !model_slug || !hw_slug || strlen(suite) >= sizeof pend[0].suite ||
	    strlen(model_slug) >= sizeof pend[0].model || strlen(hw_slug) >= sizeof pend[0].hw ||
	    !slug_valid(model_slug) || !slug_valid(hw_slug))
		return;
	pthread_mutex_lock(&lock);
	roll_day(time_now() / 86400);
	h = hash_parts(who, 4);
	ch = hash_parts(who + 1, 3);
	for (i = 0; i < pend_n && pend[i].h != ch; i++)
		;
	if (i == pend_n && pend_n == WANTED_PENDING_MAX)
		goto out;                  /* no room to count a new combination */
	if (!seen_add(h))
		goto out;
	if (i == pend_n) {
		pend[i].h = ch;
		snprintf(pend[i].suite, sizeof pend[i].suite, "%s", suite);
		snprintf(pend[i].model, sizeof pend[i].model, "%s", model_slug);
		snprintf(pend[i].hw, sizeof pend[i].hw, "%s", hw_slug);
		pend[i].n = 0;
		pend_n++;
	}
	pend[i].n++;
out:
	pthread_mutex_unlock(&lock);
}

int wanted_pending(void)
{
	int n;

	pthread_mutex_lock(&lock);
	n = pend_n > 0;
	pthread_mutex_unlock(&lock);
	return n;
}

void wanted_reset(void)
{
	pthread_mutex_lock(&lock);
	day = -1;
	pend_n = 0;
	seen_n = 0;
	memset(seen, 0, sizeof seen);
	pthread_mutex_unlock(&lock);
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

int wanted_flush(struct dbconn *w)
{
	static struct pending batch[WANTED_PENDING_MAX];   /* the writer thread's only */
	sqlite3_stmt *st;
	long long now = time_now(), rows = 0;
	unsigned n, i;
	int rc = DB_OK;

	pthread_mutex_lock(&lock);
	n = pend_n;
	memcpy(batch, pend, n * sizeof *batch);
	pend_n = 0;
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n && rc == DB_OK; i++) {
		if (!(st = db_stmt(w, sql_add)))
			return DB_ERR;
		db_bind_text(st, 1, batch[i].suite);
		db_bind_text(st, 2, batch[i].model);
		db_bind_text(st, 3, batch[i].hw);
		sqlite3_bind_int64(st, 4, batch[i].n);
		sqlite3_bind_int64(st, 5, now);
		if ((rc = step_done(st)) != DB_OK)
			break;
		if (!(st = db_stmt(w, sql_done)))
			return DB_ERR;
		db_bind_text(st, 1, batch[i].suite);
		db_bind_text(st, 2, batch[i].model);
		db_bind_text(st, 3, batch[i].hw);
		sqlite3_bind_int(st, 4, WANTED_DONE_KEYS);
		rc = step_done(st);
	}
	if (rc != DB_OK || !n)
		return rc;
	if (!(st = db_stmt(w, sql_count)))
		return DB_ERR;
	if (sqlite3_step(st) == SQLITE_ROW)
		rows = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rows <= WANTED_ROWS_MAX)
		return DB_OK;
	if (!(st = db_stmt(w, sql_trim)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, rows - WANTED_ROWS_MAX);
	return step_done(st);
}

int wanted_list(struct dbconn *c, const char *suite, int limit, json_t **out)
{
	sqlite3_stmt *st = db_stmt(c, sql_list);
	json_t *a = json_array();
	int rc;

	*out = NULL;
	if (!st || !a) {
		json_decref(a);
		return DB_ERR;
	}
	if (limit < 1 || limit > WANTED_LIST_MAX)
		limit = WANTED_LIST_MAX;
	db_bind_text(st, 1, suite);
	sqlite3_bind_int(st, 2, WANTED_DONE_KEYS);
	sqlite3_bind_int(st, 3, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}",
			"model_slug", (const char *)sqlite3_column_text(st, 0),
			"hw_slug", (const char *)sqlite3_column_text(st, 1),
			"model_name", (const char *)sqlite3_column_text(st, 2),
			"hw_name", (const char *)sqlite3_column_text(st, 3),
			"asks", (json_int_t)sqlite3_column_int64(st, 4),
			"last_at", (json_int_t)sqlite3_column_int64(st, 5),
			"keys", (json_int_t)sqlite3_column_int64(st, 6)));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return db_status_of(rc);
	}
	*out = a;
	return DB_OK;
}
