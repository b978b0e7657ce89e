/* wanted.c: counting asks for combinations nobody measured, in memory, and
 * the table the refresh thread writes them to (wanted.h). */
#include "store/wanted.h"

#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <string.h>

#include "domain/resolve.h"
#include "store/names.h"
#include "store/netcap.h"
#include "store/netkey.h"
#include "util/slug.h"
#include "util/timefmt.h"

static const char sql_add[] =
	"INSERT INTO wanted(suite_version, model_slug, hw_slug, asks, last_at, networks) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO UPDATE SET asks = asks + excluded.asks, "
	"last_at = excluded.last_at, networks = networks + excluded.networks";
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
	"model_slug, hw_slug FROM wanted ORDER BY networks, asks, last_at LIMIT ?1)";
static const char sql_list[] =
	"SELECT w.model_slug, w.hw_slug, " NAMES_MODEL("w.model_slug", "w.model_slug") ", "
	NAMES_HW("w.hw_slug", "w.hw_slug") ", w.asks, w.last_at, "
	KEYS_OF("w.suite_version", "w.model_slug", "w.hw_slug") " AS k, w.networks, "
	"EXISTS (SELECT 1 FROM search_names WHERE kind = 'model' AND slug = w.model_slug), "
	"EXISTS (SELECT 1 FROM search_names WHERE kind = 'hw' AND slug = w.hw_slug) "
	"FROM wanted w INDEXED BY wanted_asks WHERE w.suite_version = ?1 AND k < ?2 "
	"ORDER BY w.asks DESC, w.last_at DESC, w.model_slug, w.hw_slug";

const char *const wanted_sql[] = { sql_add, sql_done, sql_count, sql_trim, sql_list, NULL };

struct pending {
	uint64_t h;                    /* hash of the combination (0: free) */
	char suite[64], model[129], hw[129];
	long long n, nets;             /* asks, and networks with an ask */
};

/* One of the day's counters: asks of a visitor for a combination, of a
 * network for a combination, or of a network in all. */
struct slot {
	uint64_t h;                    /* 0: free */
	unsigned n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long day = -1;
static unsigned char day_key[crypto_shorthash_KEYBYTES];
static struct slot seen[WANTED_SEEN_MAX];
static unsigned seen_n;
static struct pending pend[WANTED_PENDING_MAX];
static unsigned pend_n;

/* The day's keyed hash of tag, the prefix bytes p[0..np) and the
 * NUL-separated strings parts[0..n), cut to fit. */
static uint64_t day_hash(char tag, const unsigned char *p, size_t np, const char *const *parts,
			 int n)
{
	unsigned char msg[1024], out[crypto_shorthash_BYTES];
	size_t len = 0, l;
	uint64_t h;
	int i;

	msg[len++] = (unsigned char)tag;
	if (np)          /* p may be NULL with np 0: memcpy's arguments never are */
		memcpy(msg + len, p, np);
	len += np;
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

/* A new day: a new key, and yesterday's counters forgotten. */
static void roll_day(long long today)
{
	if (today == day)
		return;
	day = today;
	randombytes_buf(day_key, sizeof day_key);
	memset(seen, 0, sizeof seen);
	seen_n = 0;
}

/* The day's counter of h; with add, made (at 0) when missing.  NULL when
 * missing and not added, or when half the slots are taken. */
static struct slot *slot_of(uint64_t h, int add)
{
	size_t i = (size_t)(h % WANTED_SEEN_MAX);

	while (seen[i].h) {
		if (seen[i].h == h)
			return &seen[i];
		i = (i + 1) % WANTED_SEEN_MAX;
	}
	if (!add || seen_n >= WANTED_SEEN_MAX / 2)
		return NULL;
	seen[i].h = h;
	seen[i].n = 0;
	seen_n++;
	return &seen[i];
}

/* The waiting counts of combination ch, made when missing; NULL when
 * WANTED_PENDING_MAX combinations wait already. */
static struct pending *pending_of(uint64_t ch, const char *suite, const char *model,
				  const char *hw)
{
	struct pending *p;
	unsigned i;

	for (i = 0; i < pend_n && pend[i].h != ch; i++)
		;
	if (i < pend_n)
		return &pend[i];
	if (pend_n == WANTED_PENDING_MAX)
		return NULL;
	p = &pend[pend_n++];
	p->h = ch;
	snprintf(p->suite, sizeof p->suite, "%s", suite);
	snprintf(p->model, sizeof p->model, "%s", model);
	snprintf(p->hw, sizeof p->hw, "%s", hw);
	p->n = p->nets = 0;
	return p;
}

void wanted_note(const char *peer_addr, const char *suite, const char *model_slug,
		 const char *hw_slug)
{
	const char *combo[3] = { suite, model_slug, hw_slug };
	unsigned char who[NETKEY_PREFIX_MAX], net[NETKEY_PREFIX_MAX];
	size_t nwho = 0, nnet = 0;
	unsigned cap = netcap_keys();
	struct slot *asked, *in_net, *net_all = NULL;
	struct pending *p;

	if (!peer_addr || !*peer_addr)
		return;                    /* a rebuild off the request path: nobody's visit */
	if (!suite || !model_slug || !hw_slug || strlen(suite) >= sizeof pend[0].suite ||
	    strlen(model_slug) >= sizeof pend[0].model || strlen(hw_slug) >= sizeof pend[0].hw ||
	    !slug_valid(model_slug) || !slug_valid(hw_slug))
		return;
	if (peer_addr && peer_addr[0] && !(nwho = netkey_prefix(peer_addr, 1, who))) {
		nwho = strlen(peer_addr) < sizeof who ? strlen(peer_addr) : sizeof who;
		memcpy(who, peer_addr, nwho);          /* not an IP address: itself */
	}
	if (peer_addr && !(nnet = netkey_prefix(peer_addr, 0, net)))
		memcpy(net, who, nnet = nwho);
	pthread_mutex_lock(&lock);
	roll_day(time_now() / 86400);
	/* A network past its day's allowance adds nothing, not even a slot. */
	if (cap && (net_all = slot_of(day_hash('n', net, nnet, NULL, 0), 0)) &&
	    net_all->n >= WANTED_NET_ASKS)
		goto out;
	if (!(asked = slot_of(day_hash('a', who, nwho, combo, 3), 1)) || asked->n ||
	    !(in_net = slot_of(day_hash('c', net, nnet, combo, 3), 1)) || (cap && in_net->n >= cap) ||
	    (cap && !net_all && !(net_all = slot_of(day_hash('n', net, nnet, NULL, 0), 1))) ||
	    !(p = pending_of(day_hash('p', NULL, 0, combo, 3), suite, model_slug, hw_slug)))
		goto out;
	asked->n = 1;
	if (net_all)
		net_all->n++;
	if (in_net->n++ == 0)
		p->nets++;
	p->n++;
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
		sqlite3_bind_int64(st, 6, batch[i].nets);
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

/* The name row's column col shows for kind's slug: the stored one when
 * the slug has runs, else the reference's (resolve_shown_name). */
static json_t *row_name(sqlite3_stmt *st, int col, int measured, const struct ceiling_ref *ref,
			const char *kind, const char *slug)
{
	struct buf b = BUF_INIT;
	json_t *name;

	if (measured)
		return json_string((const char *)sqlite3_column_text(st, col));
	resolve_shown_name(ref, kind, slug, slug, &b);
	name = json_string(!buf_error(&b) && b.buf ? b.buf : slug);
	buf_release(&b);
	return name;
}

/* Appends the row st is on to a, when its model and hardware both have
 * a page: runs of theirs are stored, or the reference data knows them. */
static void list_row(sqlite3_stmt *st, const struct ceiling_ref *ref, json_t *a)
{
	const char *model = (const char *)sqlite3_column_text(st, 0);
	const char *hw = (const char *)sqlite3_column_text(st, 1);
	int has_model = sqlite3_column_int(st, 8), has_hw = sqlite3_column_int(st, 9);

	if ((!has_model && !ceiling_model(ref, model)) || (!has_hw && !ceiling_hw(ref, hw)))
		return;
	json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I}",
		"model_slug", model, "hw_slug", hw,
		"model_name", row_name(st, 2, has_model, ref, "model", model),
		"hw_name", row_name(st, 3, has_hw, ref, "hw", hw),
		"asks", (json_int_t)sqlite3_column_int64(st, 4),
		"last_at", (json_int_t)sqlite3_column_int64(st, 5),
		"keys", (json_int_t)sqlite3_column_int64(st, 6),
		"networks", (json_int_t)sqlite3_column_int64(st, 7)));
}

int wanted_list(struct dbconn *c, const struct ceiling_ref *ref, const char *suite, int limit,
		json_t **out)
{
	sqlite3_stmt *st = db_stmt(c, sql_list);
	json_t *a = json_array();
	int rc = SQLITE_DONE;

	*out = NULL;
	if (!st || !a) {
		json_decref(a);
		return DB_ERR;
	}
	if (limit < 1 || limit > WANTED_LIST_MAX)
		limit = WANTED_LIST_MAX;
	db_bind_text(st, 1, suite);
	sqlite3_bind_int(st, 2, WANTED_DONE_KEYS);
	while (json_array_size(a) < (size_t)limit && (rc = sqlite3_step(st)) == SQLITE_ROW)
		list_row(st, ref, a);
	if (json_array_size(a) == (size_t)limit)
		rc = SQLITE_DONE;
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return db_status_of(rc);
	}
	*out = a;
	return DB_OK;
}
