/* page_export.c: /export, every run as newline-delimited JSON with its exact JWS, streamed. */
#include "pages/page.h"

#include <math.h>
#include <pthread.h>
#include <dirent.h>
#include <errno.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "app.h"
#include "http/gzip.h"
#include "util/timefmt.h"
#include "http/ratelimit.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/jsonw.h"
#include "util/nelem.h"
#include "store/jws_pack.h"

/* Rows per read transaction, and the most raw bytes one chunk gathers
 * (a JWS is at most 64 KiB): memory stays bounded by about
 * EXPORT_CHUNK_BYTES + one row, whatever the number of runs, and no read
 * transaction lasts longer than one chunk, so WAL checkpoints go on. */
#define EXPORT_ROWS 256
#define EXPORT_CHUNK_BYTES (256 * 1024)
/* Exports a minute per client (burst 2), at once over all clients, and at
 * once per client (issue 37, M3: slow readers from two addresses held
 * every slot). */
#define EXPORT_PER_MINUTE 2
#define EXPORT_AT_ONCE 8
#define EXPORT_PER_CLIENT 2


/* One keyset chunk after ?1, in id order, with what a line carries. */
static const char sql_chunk[] =
	"SELECT r.id, r.received_at, r.status, r.outlier, r.decode_tok_s, "
	"c.n, c.mean, c.stddev, w.withdrawn_at, w.reason, w.jws, r.jws "
	"FROM runs r LEFT JOIN clusters c ON r.status = 'ok' "
	"AND c.suite_version = r.suite_version AND c.model_digest = r.model_digest "
	"AND c.hw_class = r.hw_class AND c.backend_name = r.backend_name "
	"LEFT JOIN run_withdrawals w ON w.run_id = r.id "
	"WHERE r.id > ?1 ORDER BY r.id LIMIT " "256";

const char *const page_export_sql[] = { sql_chunk, NULL };

/* Who holds the running exports: a client key and its count, at most
 * EXPORT_AT_ONCE in all. */
static struct {
	char key[80];
	int n;
} holders[EXPORT_AT_ONCE];
static int held;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ratelimit *export_rl;
static pthread_once_t export_rl_once = PTHREAD_ONCE_INIT;

static void export_rl_init(void)
{
	export_rl = ratelimit_new(EXPORT_PER_MINUTE, EXPORT_PER_MINUTE);
}

/* One export in progress: the cursor, the bytes made but not yet sent, and
 * the gzip stream when the client takes gzip. */
struct export {
	struct db *db;
	char after[64];        /* the last id written; "" before the first */
	int eof;               /* every row has been read */
	int finished;          /* ... and every byte made (gzip trailer too) */
	struct buf out;        /* made, from out_off on not yet handed over */
	size_t out_off;
	int gzip;
	z_stream z;
	char holder[80];       /* the client key whose slot it holds */
};

static void export_free(void *p)
{
	struct export *e = p;

	if (e->gzip)
		deflateEnd(&e->z);
	buf_release(&e->out);
	free(e);
}

int page_export_slot_take(const char *key)
{
	int i, free_at = -1, rc = 0;

	pthread_mutex_lock(&hold_lock);
	for (i = 0; i < EXPORT_AT_ONCE; i++) {
		if (holders[i].n && !strcmp(holders[i].key, key))
			break;
		if (!holders[i].n && free_at < 0)
			free_at = i;
	}
	if (held >= EXPORT_AT_ONCE)
		rc = 1;
	else if (i < EXPORT_AT_ONCE && holders[i].n >= EXPORT_PER_CLIENT)
		rc = 2;
	else {
		if (i == EXPORT_AT_ONCE) {
			i = free_at;     /* held < EXPORT_AT_ONCE: one is free */
			snprintf(holders[i].key, sizeof holders[i].key, "%s", key);
		}
		holders[i].n++;
		held++;
	}
	pthread_mutex_unlock(&hold_lock);
	return rc;
}

void page_export_slot_give(const char *key)
{
	int i;

	pthread_mutex_lock(&hold_lock);
	for (i = 0; i < EXPORT_AT_ONCE; i++)
		if (holders[i].n && !strcmp(holders[i].key, key)) {
			holders[i].n--;
			held--;
			break;
		}
	pthread_mutex_unlock(&hold_lock);
}

/* export_free for a request's export, which also held a slot. */
static void export_done(void *p)
{
	struct export *e = p;

	page_export_slot_give(e->holder);
	export_free(p);
}

/* The text of a blob or text column (n bytes), as a JSON string. */
static json_t *text_col(sqlite3_stmt *st, int col)
{
	const char *s = sqlite3_column_blob(st, col);

	return s ? json_stringn(s, (size_t)sqlite3_column_bytes(st, col)) : json_null();
}

/* The run's JWS, stored packed or as it came, as the JSON string of the
 * bytes uploaded (store/jws_pack.h); null when it cannot be read. */
static json_t *jws_col(sqlite3_stmt *st, int col)
{
	struct buf b = BUF_INIT;
	json_t *v;

	v = jws_pack_unpack(sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col), &b)
		? json_null() : json_stringn(b.buf, b.len);
	buf_release(&b);
	return v;
}

/* The current row as one line (with its LF) appended to raw. */
static int add_line(struct buf *raw, sqlite3_stmt *st)
{
	int withdrawn = sqlite3_column_type(st, 8) != SQLITE_NULL;
	double x = sqlite3_column_double(st, 4), mean = sqlite3_column_double(st, 6);
	double sd = sqlite3_column_double(st, 7);
	int counted = sqlite3_column_type(st, 5) != SQLITE_NULL;
	json_t *o;
	char *s;

	o = json_pack("{s:o, s:o, s:s, s:b, s:f, s:{s:b, s:o, s:o}, s:o, s:o}",
		"id", text_col(st, 0), "received_at", text_col(st, 1),
		"status", withdrawn ? "withdrawn" : (const char *)sqlite3_column_text(st, 2),
		"withdrawn", withdrawn, "decode_tok_s", x,
		"outlier", "flagged", sqlite3_column_int(st, 3) != 0,
		"sigma", counted && sd > 0 ? json_real((x - mean) / sd) : json_null(),
		"cluster", counted ? json_pack("{s:I, s:f, s:f}", "n",
			(json_int_t)sqlite3_column_int64(st, 5), "mean", mean, "stddev", sd) : json_null(),
		"withdrawal", withdrawn ? json_pack("{s:o, s:o, s:o}",
			"withdrawn_at", text_col(st, 8), "reason", text_col(st, 9),
			"jws", text_col(st, 10)) : json_null(),
		"jws", jws_col(st, 11));
	if (!o || !(s = jsonw_dumps(o, JSONW_ASCII))) {
		json_decref(o);
		return -1;
	}
	buf_puts(raw, s);
	buf_putc(raw, '\n');
	free(s);
	json_decref(o);
	return buf_error(raw);
}

/* Reads the next chunk into raw in its own short read transaction; sets
 * e->eof after the last row.  0, or -1 when the database failed. */
static int read_chunk(struct export *e, struct buf *raw)
{
	struct dbconn *c = db_reader(e->db);
	sqlite3_stmt *st = c ? db_stmt(c, sql_chunk) : NULL;
	int rc = SQLITE_DONE, rows = 0, bad = 0;

	if (!st)
		return -1;
	if (sqlite3_get_autocommit(c->h) && sqlite3_exec(c->h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	db_bind_text(st, 1, e->after);
	while (raw->len < EXPORT_CHUNK_BYTES && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		if (add_line(raw, st) < 0) {
			bad = 1;
			break;
		}
		snprintf(e->after, sizeof e->after, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	if (raw->len < EXPORT_CHUNK_BYTES && !bad && rc != SQLITE_DONE && rc != SQLITE_ROW)
		bad = 1;
	sqlite3_reset(st);
	sqlite3_exec(c->h, "COMMIT", NULL, NULL, NULL);
	if (!bad && rows == 0)
		e->eof = 1;
	return bad ? -1 : 0;
}

/* Compresses raw (and, at the end, the trailer) into e->out.  0 or -1. */
static int deflate_into(struct export *e, const struct buf *raw)
{
	int flush = e->eof ? Z_FINISH : Z_NO_FLUSH, rc;
	unsigned char tmp[16384];

	e->z.next_in = (Bytef *)(raw->buf ? raw->buf : "");
	e->z.avail_in = (uInt)raw->len;
	do {
		e->z.next_out = tmp;
		e->z.avail_out = sizeof tmp;
		rc = deflate(&e->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		buf_add(&e->out, (const char *)tmp, sizeof tmp - e->z.avail_out);
	} while (e->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	if (flush == Z_FINISH)
		e->finished = 1;
	return buf_error(&e->out);
}

/* Makes more output: one chunk read, compressed when gzip.  0 or -1. */
static int produce(struct export *e)
{
	struct buf raw = BUF_INIT;
	int rc = read_chunk(e, &raw);

	if (rc == 0 && e->gzip)
		rc = deflate_into(e, &raw);
	else if (rc == 0) {
		buf_add(&e->out, raw.buf ? raw.buf : "", raw.len);
		e->finished = e->eof;
		rc = buf_error(&e->out);
	}
	buf_release(&raw);
	return rc;
}

/* libmicrohttpd's content reader: hands over up to max bytes. */
static ssize_t export_read(void *cls, uint64_t pos, char *dst, size_t max)
{
	struct export *e = cls;
	size_t n;

	while (e->out.len == e->out_off) {
		buf_reset(&e->out);
		e->out_off = 0;
		if (e->finished)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (produce(e) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	n = e->out.len - e->out_off;
	if (n > max)
		n = max;
	memcpy(dst, e->out.buf + e->out_off, n);
	e->out_off += n;
	return (ssize_t)n;
}

int page_export(struct req *r, struct answer *a)
{
	struct MHD_Response *resp;
	struct export *e;
	char key[80];

	pthread_once(&export_rl_once, export_rl_init);
	http_client_key(r, key, sizeof key);
	if (export_rl && (r->retry_after = ratelimit_take(export_rl, key)) > 0)
		return err_set(&a->err, 429, "rate_limited", NULL, "%s", "Exports are limited to 2 a minute per client; wait for the time in Retry-After, or mirror a snapshot.");
	switch (page_export_slot_take(key)) {
	case 1:
		r->retry_after = 30;
		return err_unavailable(&a->err, "The server is busy with other exports; try again in a minute.");
	case 2:
		r->retry_after = 30;
		return err_set(&a->err, 429, "rate_limited", NULL, "%s", "Two exports from this address are "
			       "still running; let one finish before starting another, or mirror a snapshot.");
	}
	if (!(e = calloc(1, sizeof *e))) {
		page_export_slot_give(key);
		return err_nomem(&a->err);
	}
	snprintf(e->holder, sizeof e->holder, "%s", key);
	buf_init(&e->out);
	e->db = r->app->db;
	e->gzip = gz_accepted(http_header(r, "Accept-Encoding"));
	if (e->gzip && deflateInit2(&e->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		e->gzip = 0;
		export_done(e);
		return err_nomem(&a->err);
	}
	resp = http_build_stream(CT_NDJSON, export_read, e, export_done, 32 * 1024, CC_NONE, 1, e->gzip);
	if (!resp) {
		export_done(e);
		return err_nomem(&a->err);
	}
	return answer_built(a, 200, resp);
}

/* ---- snapshots for mirrors ---- */

#define SNAP_PREFIX "llm-speed-export-"
#define SNAP_SUFFIX ".ndjson.gz"

/* Writes the whole export, gzipped, to f. */
static int snapshot_write(struct db *db, FILE *f)
{
	struct export e = { .db = db, .gzip = 1 };
	int rc = 0;

	buf_init(&e.out);
	if (deflateInit2(&e.z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	while (!e.finished && rc == 0) {
		buf_reset(&e.out);
		if ((rc = produce(&e)) == 0 && e.out.len &&
		    fwrite(e.out.buf, 1, e.out.len, f) != e.out.len)
			rc = -1;
	}
	deflateEnd(&e.z);
	buf_release(&e.out);
	return rc;
}

/* SHA-256 of file path, as 64 hex digits into hex; 0 or -1. */
static int file_sha256(const char *path, char hex[65])
{
	crypto_hash_sha256_state h;
	unsigned char buf[65536], sha[32];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	crypto_hash_sha256_init(&h);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		crypto_hash_sha256_update(&h, buf, n);
	n = ferror(f);
	fclose(f);
	crypto_hash_sha256_final(&h, sha);
	sodium_bin2hex(hex, 65, sha, sizeof sha);
	return n ? -1 : 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Rewrites dir/SHA256SUMS (sha256sum -c format) over every snapshot in
 * dir, oldest first, through a temporary file renamed into place. */
static int snapshot_manifest(const char *dir, struct err *err)
{
	char *names[4096], path[4096], tmp[4096], hex[65];
	struct dirent *de;
	size_t n = 0, i, len;
	DIR *d = opendir(dir);
	FILE *f = NULL;
	int rc = -1;

	if (!d)
		return err_internal(err, "cannot read %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) && n < NELEM(names)) {
		len = strlen(de->d_name);
		if (!strncmp(de->d_name, SNAP_PREFIX, strlen(SNAP_PREFIX)) &&
		    len > strlen(SNAP_SUFFIX) && !strcmp(de->d_name + len - strlen(SNAP_SUFFIX), SNAP_SUFFIX) &&
		    (names[n] = strdup(de->d_name)))
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	snprintf(tmp, sizeof tmp, "%s/.SHA256SUMS.tmp", dir);
	if (!(f = fopen(tmp, "w"))) {
		err_internal(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (file_sha256(path, hex) < 0) {
			err_internal(err, "cannot read %s", path);
			goto out;
		}
		fprintf(f, "%s  %s\n", hex, names[i]);
	}
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		f = NULL;
		err_internal(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
	if (rename(tmp, path) < 0) {
		err_internal(err, "cannot rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	if (rc < 0)
		unlink(tmp);
	for (i = 0; i < n; i++)
		free(names[i]);
	return rc;
}

int export_snapshot(struct db *db, const char *dir, char *name, size_t namelen,
		    struct err *err)
{
	char stamp[TIMEFMT_LEN], tmp[4096], path[4096];
	FILE *f;
	int rc;

	char *s, *t;

	time_now_rfc3339(stamp);
	for (s = t = stamp; *s; s++)      /* 20261130T210423Z: no ':' in a URL */
		if (*s != ':' && *s != '-')
			*t++ = *s;
	*t = '\0';
	snprintf(name, namelen, SNAP_PREFIX "%s" SNAP_SUFFIX, stamp);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(tmp, "wx")))
		return err_internal(err, "cannot create %s: %s", tmp, strerror(errno));
	errno = 0;
	rc = snapshot_write(db, f);
	if (fflush(f) || fsync(fileno(f)))
		rc = -1;
	if (fclose(f))
		rc = -1;
	if (rc < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return err_internal(err, "cannot write %s: %s", path,
				    errno ? strerror(errno) : "the database failed");
	}
	return snapshot_manifest(dir, err);
}
