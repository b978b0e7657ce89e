/* db_backup.c: an online, consistent copy of the database (SQLite's backup
 * API) with the transparency log's key and a checkpoint the copy extends
 * written beside it, while a daemon keeps serving and storing uploads. */
#include "store/db_backup.h"
#include "store/db_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/netkey.h"
#include "store/tlog_signer.h"
#include "store/tlog_store.h"
#include "util/fileio.h"

#define PATHN 4200

/* The whole of a small file at path into b (at most max bytes); 0, 1
 * when there is none, -1 with err. */
static int slurp(const char *path, struct buf *b, size_t max, struct err *err)
{
	char chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0) {
		err_internal(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, chunk, sizeof chunk)) > 0 && b->len + (size_t)n <= max)
		buf_add(b, chunk, (size_t)n);
	close(fd);
	if (n != 0 || buf_error(b)) {
		err_internal(err, "cannot read %s whole", path);
		return -1;
	}
	return 0;
}

/* 1 when a and b name the same existing file. */
static int same_file(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Copies every page of src into dst in one read transaction of src, so
 * the copy is one snapshot however the daemon writes meanwhile (WAL:
 * the writer goes on; only the checkpointer waits to pass the snapshot).
 * Retries while src is locked for a moment (a WAL restart). */
static int copy_pages(struct dbconn *src, struct dbconn *dst, unsigned busy_ms, struct err *err)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	sqlite3_backup *bk = sqlite3_backup_init(dst->h, "main", src->h, "main");
	unsigned waited = 0;
	int rc;

	if (!bk) {
		err_internal(err, "cannot start the copy: %s", sqlite3_errmsg(dst->h));
		return -1;
	}
	while ((rc = sqlite3_backup_step(bk, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED) {
		if (waited >= busy_ms)
			break;
		nanosleep(&pause, NULL);
		waited += 50;
	}
	sqlite3_backup_finish(bk);
	if (rc != SQLITE_DONE) {
		err_internal(err, "the copy failed: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

/* The copy's tree must extend the checkpoint read before it was taken:
 * at least as many entries, and the same root over the first ones. */
static int check_extends(struct dbconn *copy, const struct buf *ckpt, struct db_backup_result *res,
			 struct err *err)
{
	struct tlog_reader rd = tlog_store_reader(copy);
	unsigned char want[TLOG_HASH], got[TLOG_HASH];
	char origin[256];
	uint64_t size;
	int64_t n = tlog_store_size(copy);

	if (n < 0) {
		err_internal(err, "cannot read the transparency log's size from the copy");
		return -1;
	}
	res->log_entries = n;
	if (!ckpt->len)
		return 0;
	if (tlog_checkpoint_parse(ckpt->buf, ckpt->len, origin, sizeof origin, &size, want) < 0) {
		err_internal(err, "the database's .checkpoint file is not a checkpoint");
		return -1;
	}
	res->checkpoint_entries = size;
	if ((uint64_t)n < size || (size && (tlog_root(&rd, size, got) < 0 ||
					   sodium_memcmp(got, want, TLOG_HASH) != 0))) {
		err_internal(err, "the copy does not extend the log's published checkpoint "
			 "(%lld entries against %llu): is another database's checkpoint beside it?",
			 (long long)n, (unsigned long long)size);
		return -1;
	}
	return 0;
}

/* Runs in the copy, for the report. */
static int64_t count_runs(struct dbconn *c)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(c->h, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* fsyncs the file at path; 0 or -1. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Takes the snapshot into tmp (created 0600) and checks it. */
static int take(const char *src, const char *tmp, unsigned busy_ms, const struct buf *ckpt,
		struct db_backup_result *res, struct err *err)
{
	struct dbconn *from = NULL, *to = NULL;
	int fd, rc = -1;

	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		err_internal(err, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	close(fd);
	if (!(from = db_conn_open(src, 1, busy_ms, NULL)) || !(to = db_conn_open(tmp, 0, busy_ms, NULL))) {
		err_internal(err, "cannot open %s", from ? tmp : src);
		goto out;
	}
	if (copy_pages(from, to, busy_ms, err) < 0 ||
	    check_extends(to, ckpt, res, err) < 0)
		goto out;
	/* A copy in rollback-journal mode is one file; the daemon started on
	 * it turns WAL on again. */
	if (db_exec(to, "PRAGMA journal_mode=DELETE") != SQLITE_OK) {
		err_internal(err, "cannot finish the copy: %s", sqlite3_errmsg(to->h));
		goto out;
	}
	res->runs = count_runs(to);
	rc = 0;
out:
	db_conn_close(from);
	db_conn_close(to);
	if (rc == 0 && sync_file(tmp) < 0) {
		err_internal(err, "cannot sync %s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int db_backup(const char *src, const char *out, unsigned busy_ms, struct db_backup_result *res,
	      struct err *err)
{
	char src_key[PATHN], src_ckpt[PATHN], out_key[PATHN], out_ckpt[PATHN], path[PATHN];
	char src_net[PATHN], out_net[PATHN];
	struct buf key = BUF_INIT, ckpt = BUF_INIT, net = BUF_INIT;
	struct stat st;
	int rc = -1, r;

	memset(res, 0, sizeof *res);
	tlog_signer_files(src, src_key, src_ckpt, PATHN);
	tlog_signer_files(out, out_key, out_ckpt, PATHN);
	netkey_file(src, src_net, PATHN);
	netkey_file(out, out_net, PATHN);
	if (stat(src, &st) < 0) {
		err_internal(err, "there is no database at %s", src);
		return -1;
	}
	snprintf(path, sizeof path, "%s-wal", out);
	if (same_file(src, out) || access(path, F_OK) == 0) {
		err_internal(err, "%s is a database in use (%s): back up to a new file",
			 out, same_file(src, out) ? "the one being copied" : "it has a -wal file");
		return -1;
	}
	snprintf(path, sizeof path, "%s.tmp", out);
	/* The checkpoint first, then the snapshot: the log published it from
	 * commits already on disk, so the snapshot taken after holds them. */
	if (slurp(src_ckpt, &ckpt, 4096, err) < 0 || (r = slurp(src_key, &key, 64, err)) < 0)
		goto out;
	if (r == 1) {
		err_internal(err, "there is no log key %s beside the database: start the "
			 "server on it once, or restore the key there first", src_key);
		goto out;
	}
	/* The network key, when the server made one: without it the copy
	 * would count every network anew. */
	if ((r = slurp(src_net, &net, 64, err)) < 0)
		goto out;
	if (take(src, path, busy_ms, &ckpt, res, err) < 0)
		goto out;
	if (fileio_write_private(out_key, key.buf, key.len, err) < 0)
		goto out;
	if (r == 0 && fileio_write_private(out_net, net.buf, net.len, err) < 0)
		goto out;
	if (ckpt.len ? fileio_write_private(out_ckpt, ckpt.buf, ckpt.len, err) < 0
		     : (unlink(out_ckpt) < 0 && errno != ENOENT))
		goto out;
	if (rename(path, out) < 0) {
		err_internal(err, "cannot rename %s to %s: %s", path, out, strerror(errno));
		goto out;
	}
	fileio_sync_dir(out);
	rc = 0;
out:
	if (rc < 0)
		unlink(path);
	sodium_memzero(key.buf, key.len);
	sodium_memzero(net.buf, net.len);
	buf_release(&key);
	buf_release(&net);
	buf_release(&ckpt);
	return rc;
}
