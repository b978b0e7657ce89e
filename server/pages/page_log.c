/* page_log.c: the transparency log over HTTP: /log, /log/checkpoint, tiles and entry bundles (C2SP tlog-tiles). */
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "store/db.h"
#include "pages/page.h"
#include "pages/kinds.h"
#include "store/tlog_signer.h"
#include "store/tlog_store.h"

/* A full tile never changes (CC_IMMUTABLE); a partial tile and the
 * checkpoint are superseded within seconds (CC_LOG_SHORT). */

/* GET /log: what the log is, its verifier key, its latest checkpoint and
 * where the tiles are.  NULL with a 503 before the first checkpoint is
 * signed. */
json_t *page_log_view(struct page_view *v)
{
	struct buf vkey = BUF_INIT, ckpt = BUF_INIT;
	struct req *r = v->r;
	char origin[300];
	uint64_t n = 0;
	json_t *m;

	if (tlog_signer_latest(r->app->tlog, &ckpt, &n, NULL) < 0) {
		buf_release(&ckpt);
		err_unavailable(&v->err, "The log has no signed checkpoint yet; try again shortly.");
		return NULL;
	}
	tlog_signer_vkey(r->app->tlog, &vkey);
	http_origin(r, origin, sizeof origin);
	m = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s+}", "title", "Transparency log",
		      "origin", tlog_signer_origin(r->app->tlog), "verifier_key", vkey.buf,
		      "checkpoint", ckpt.buf, "tree_size", (json_int_t)n,
		      "prefix", origin, "/log");
	buf_release(&vkey);
	buf_release(&ckpt);
	return m;
}

/* GET /log/checkpoint: the latest signed checkpoint, text/plain. */
int page_log_checkpoint(struct req *r, struct answer *a)
{
	struct buf ckpt = BUF_INIT;

	if (tlog_signer_latest(r->app->tlog, &ckpt, NULL, NULL) < 0) {
		buf_release(&ckpt);
		return err_unavailable(&a->err, "The log has no signed checkpoint yet; try again shortly.");
	}
	return answer_buf(a, 200, CT_TEXT, &ckpt, &(struct http_opts){ .cache_control = CC_LOG_SHORT });
}

/* 1 when every hash or entry of tile t lies inside the tree of size n, so
 * that serving it publishes nothing a checkpoint does not cover. */
static int tile_published(const struct tlog_tile *t, uint64_t n)
{
	uint64_t end = t->n * TLOG_TILE_WIDTH + t->width;   /* in units of the tile's level */
	int shift = t->level < 0 ? 0 : t->level * TLOG_TILE_HEIGHT;

	if (shift >= 56 || end > (n >> shift))
		return 0;
	return 1;
}

/* Full tiles never change, so the hottest are kept as built responses: a
 * direct-mapped table (a new tile takes its slot's place), at most
 * TILE_SLOTS responses of 8 KiB (hashes) to about 30 KiB (entry bundles):
 * 32 to 120 MiB.  The level-0 tiles of the first 1M entries never collide
 * with each other. */
#define TILE_SLOTS 4096

struct tile_slot {
	int level;
	uint64_t n;
	struct http_kept *kept;       /* NULL: empty; one reference held here */
};

static struct tile_slot tile_slots[TILE_SLOTS];
static pthread_mutex_t tile_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tile_slot *slot_of(const struct tlog_tile *t)
{
	return &tile_slots[(t->n * 67 + (uint64_t)(t->level + 1)) % TILE_SLOTS];
}

/* The kept response for full tile t (a new reference), or NULL. */
static struct http_kept *tile_kept(const struct tlog_tile *t)
{
	struct tile_slot *s = slot_of(t);
	struct http_kept *k = NULL;

	pthread_mutex_lock(&tile_lock);
	if (s->kept && s->level == t->level && s->n == t->n)
		k = http_kept_ref(s->kept);
	pthread_mutex_unlock(&tile_lock);
	return k;
}

/* Builds the response for full tile t and keeps it in its slot; a new
 * reference for the answer, or NULL out of memory. */
static struct http_kept *tile_keep(const struct tlog_tile *t, const struct buf *b)
{
	struct http_kept *k = http_kept_build(200, CT_OCTETS, b->buf, b->len, CC_IMMUTABLE, NULL);
	struct tile_slot *s = slot_of(t);

	if (!k)
		return NULL;
	pthread_mutex_lock(&tile_lock);
	http_kept_unref(s->kept);
	*s = (struct tile_slot){ t->level, t->n, http_kept_ref(k) };
	pthread_mutex_unlock(&tile_lock);
	return k;
}

void page_log_free(void)
{
	size_t i;

	pthread_mutex_lock(&tile_lock);
	for (i = 0; i < TILE_SLOTS; i++) {
		http_kept_unref(tile_slots[i].kept);
		tile_slots[i].kept = NULL;
	}
	pthread_mutex_unlock(&tile_lock);
}

/* GET /log/tile/<L>/<N>[.p/<W>] and /log/tile/entries/<N>[.p/<W>]: 404 for
 * a path tlog-tiles does not allow or a tile past the latest checkpoint. */
int page_log_tile(struct req *r, struct answer *a)
{
	struct buf out = BUF_INIT;
	struct http_kept *k;
	struct tlog_tile t;
	struct dbconn *c;
	uint64_t n;
	int rc;

	if (tlog_tile_parse(r->arg, &t) < 0)
		return err_set(&a->err, 404, "not_found", NULL, "%s", "Tiles are at /log/tile/<L>/<N>[.p/<W>] and "
			       "/log/tile/entries/<N>[.p/<W>], N written as x001/x234/067 (C2SP tlog-tiles).");
	if (tlog_signer_latest(r->app->tlog, NULL, &n, NULL) < 0 || !tile_published(&t, n))
		return err_set(&a->err, 404, "not_found", NULL, "%s", "This tile is not covered by the latest checkpoint "
			       "(/log/checkpoint); fetch the tiles its tree size needs.");
	if (t.width == TLOG_TILE_WIDTH && (k = tile_kept(&t)))
		return answer_kept(a, k);
	if (!(c = db_reader(r->app->db)))
		return err_unavailable(&a->err, MSG_DB_DOWN);
	if ((rc = tlog_store_tile(c, &t, &out)) != DB_OK)
		rc = err_unavailable(&a->err, MSG_DB_DOWN);
	else if (t.width == TLOG_TILE_WIDTH)
		rc = (k = tile_keep(&t, &out)) ? answer_kept(a, k) : err_nomem(&a->err);
	else
		rc = answer_buf(a, 200, CT_OCTETS, &out, &(struct http_opts){ .cache_control = CC_LOG_SHORT });
	buf_release(&out);
	return rc;
}

/* Base64 of a hash as a JSON string. */
static json_t *hash_json(const unsigned char h[TLOG_HASH])
{
	char s[sodium_base64_ENCODED_LEN(TLOG_HASH, sodium_base64_VARIANT_ORIGINAL)];

	sodium_bin2base64(s, sizeof s, h, TLOG_HASH, sodium_base64_VARIANT_ORIGINAL);
	return json_string(s);
}

int page_log_run_proof(struct req *r, json_t *m)
{
	json_t *log = json_object_get(m, "log"), *path;
	unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], root[TLOG_HASH];
	struct buf ckpt = BUF_INIT;
	struct tlog_reader rd;
	struct dbconn *c;
	uint64_t n, index;
	size_t len, i;
	int rc = 0;

	if (!json_is_object(log) || !json_is_integer(json_object_get(log, "index")))
		return 1;            /* logged before the log existed: nothing to prove */
	index = (uint64_t)json_integer_value(json_object_get(log, "index"));
	if (tlog_signer_latest(r->app->tlog, &ckpt, &n, root) < 0 || index >= n)
		goto out;            /* not in a signed checkpoint yet */
	if (!(c = db_reader(r->app->db)))
		goto out;
	rd = tlog_store_reader(c);
	if (tlog_prove_inclusion(&rd, index, n, proof, &len) < 0 || !(path = json_array()))
		goto out;
	for (i = 0; i < len; i++)
		json_array_append_new(path, hash_json(proof[i]));
	json_object_set_new(log, "tree_size", json_integer((json_int_t)n));
	json_object_set_new(log, "root_hash", hash_json(root));
	json_object_set_new(log, "checkpoint", json_string(ckpt.buf));
	json_object_set_new(log, "inclusion_proof", path);
	rc = 1;
out:
	buf_release(&ckpt);
	return rc;
}
