/* browse_cache.c: the key list pages are kept under in the response cache
 * until the next write (browse_list_key(); page_serve() keeps them), and
 * which hardware filters may be kept (browse_hw_listed()). */
#include "pages/browse.h"

#include <sodium.h>
#include <string.h>

#include "app.h"
#include "store/db.h"
#include "http/cache.h"
#include "util/buf.h"
#include "util/sha256.h"

/* The key's input, and whether the query keeps the page out of the cache. */
struct keyin {
	struct buf in;
	int sort, suite, hw, backend, other;
};

/* Adds one query argument to the key's input: key and value each ended by
 * a NUL (no argument can hold one).  Only ?sort=, ?suite=, ?backend= and
 * ?hw=, once each and not empty, may stand in the query of a kept page:
 * each takes a value from a short list (anything else is a 400 or a 404,
 * which are not kept; a ?hw= naming hardware without runs is not kept
 * either, browse_hw_listed()), so the pages kept are bounded by the models,
 * hardware and backends that exist.  Cursors, other filters and arguments
 * the page ignores would let a client fill the cache with copies (?x=1,
 * ?x=2, ...), so such pages are built each time. */
static void key_arg(void *ctx, const char *k, const char *v)
{
	struct keyin *ki = ctx;
	int *seen = !strcmp(k, "sort") ? &ki->sort : !strcmp(k, "suite") ? &ki->suite
		  : !strcmp(k, "hw") ? &ki->hw : !strcmp(k, "backend") ? &ki->backend : NULL;

	if (!seen || (*seen)++ || !v || !*v)
		ki->other = 1;
	buf_add(&ki->in, k, strlen(k) + 1);
	buf_add(&ki->in, v ? v : "", (v ? strlen(v) : 0) + 1);
}

int browse_list_key(struct req *r, char key[CACHE_ID_MAX + 1])
{
	struct keyin ki = { .in = BUF_INIT };
	unsigned char d[32];

	buf_add(&ki.in, r->path, strlen(r->path) + 1);
	http_query_each(r, key_arg, &ki);
	if (buf_error(&ki.in) || ki.other) {
		buf_release(&ki.in);
		return -1;
	}
	sha256_digest(d, ki.in.buf, ki.in.len);
	buf_release(&ki.in);
	key[0] = 'L';
	sodium_bin2hex(key + 1, CACHE_ID_MAX, d, 16);
	return 0;
}

static const char sql_hw_listed[] =
	"SELECT 1 FROM hw_index WHERE suite_version = ?1 AND hw_slug = ?2 AND runs > 0";

int browse_hw_listed(struct browse *b)
{
	sqlite3_stmt *st;
	int rc;

	if (!b->hw)
		return 1;
	if (!(st = db_stmt(b->c, sql_hw_listed)))
		return 0;
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, b->hw);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW;
}
