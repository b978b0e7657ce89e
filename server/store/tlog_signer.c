/* tlog_signer.c: the log key, the last published checkpoint and the thread that signs new ones. */
#include "store/tlog_signer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/log.h"
#include "store/tlog_store.h"

struct tlog_signer {
	struct db *db;
	char origin[256];
	char key_path[4096], ckpt_path[4096];
	unsigned char pk[32], sk[64];
	pthread_mutex_t lock;         /* guards the published checkpoint below */
	struct buf text;              /* the published checkpoint, "" when none */
	uint64_t size;
	unsigned char root[TLOG_HASH];
	double published_at;          /* when it was signed (the file's mtime at start) */
	pthread_mutex_t sign_lock;    /* one signer at a time */
	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
	int wanted, stopping, started;
	pthread_t thread;
	void (*on_publish)(void *);
	void *on_publish_arg;
};

void tlog_signer_files(const char *db_path, char *key, char *ckpt, size_t n)
{
	snprintf(key, n, "%s.logkey", db_path);
	snprintf(ckpt, n, "%s.checkpoint", db_path);
}

void tlog_signer_origin_of(const char *base_url, char *out, size_t n)
{
	const char *p = strstr(base_url, "://");
	size_t len;

	p = p ? p + 3 : base_url;
	len = strlen(p);
	while (len && p[len - 1] == '/')
		len--;
	snprintf(out, n, "%.*s", (int)len, p);
}

/* Reads exactly n bytes of the file at path into p; 0, 1 when it does not
 * exist, -1 with err on any other failure.  A file readable by others is
 * brought to 0600. */
static int read_secret(const char *path, void *p, size_t n, size_t *got, struct err *err)
{
	struct stat sb;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		err_internal(err, "cannot read %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((sb.st_mode & 077) && fchmod(fd, 0600) < 0) {
		err_internal(err, "cannot narrow %s to mode 0600: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	r = read(fd, p, n);
	close(fd);
	if (r < 0) {
		err_internal(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	*got = (size_t)r;
	return 0;
}

/* Loads the key's seed, or creates one on first start. */
static int load_key(struct tlog_signer *s, struct err *err)
{
	unsigned char seed[crypto_sign_SEEDBYTES + 1];
	size_t got = 0;
	int rc = read_secret(s->key_path, seed, sizeof seed, &got, err);

	if (rc < 0)
		return -1;
	if (rc == 1) {
		randombytes_buf(seed, crypto_sign_SEEDBYTES);
		if (fileio_write_private(s->key_path, seed, crypto_sign_SEEDBYTES, err) < 0)
			return -1;
		log_info("created the log key %s", s->key_path);
	} else if (got != crypto_sign_SEEDBYTES) {
		err_internal(err, "%s is not a log key (32 bytes); restore it from the backup",
			 s->key_path);
		return -1;
	}
	crypto_sign_seed_keypair(s->pk, s->sk, seed);
	sodium_memzero(seed, sizeof seed);
	return 0;
}

/* Loads the last published checkpoint, if any, after checking its
 * signature by our key (under whatever origin it was signed with). */
static int load_checkpoint(struct tlog_signer *s, struct err *err)
{
	char text[4096], origin[256];
	struct stat sb;
	size_t got = 0, body;
	int rc = read_secret(s->ckpt_path, text, sizeof text - 1, &got, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (tlog_checkpoint_parse(text, got, origin, sizeof origin, &s->size, s->root) < 0 ||
	    !tlog_note_verify(text, got, origin, s->pk, &body)) {
		err_internal(err, "%s is not a checkpoint signed by the log key %s; "
			 "restore both files from the same backup", s->ckpt_path, s->key_path);
		return -1;
	}
	buf_add(&s->text, text, got);
	if (stat(s->ckpt_path, &sb) == 0)
		s->published_at = (double)sb.st_mtim.tv_sec + sb.st_mtim.tv_nsec / 1e9;
	return buf_error(&s->text);
}

/* Checks that the tree of the database (size n, read on c) extends the
 * published checkpoint; 0, or -1 with the reason in err. */
static int extends_published(struct tlog_signer *s, struct dbconn *c, uint64_t n,
			     struct err *err)
{
	struct tlog_reader rd = tlog_store_reader(c);
	unsigned char root[TLOG_HASH];

	if (n < s->size) {
		err_internal(err, "the database holds %llu log entries, but this log already "
			 "published a checkpoint of %llu (%s): the database is older than the log, "
			 "and serving it would roll the log back. Nothing was changed. Restore instead "
			 "a backup taken after that checkpoint (a copy made by `llm-speedd backup` "
			 "whose .checkpoint file covers %llu entries or more), keeping %s and %s where "
			 "they are; if no backup holds those entries, the log cannot go on: move both "
			 "files aside to start a new log under a new key, and tell auditors why "
			 "(README, \"Backups and restoring\")",
			 (unsigned long long)n, (unsigned long long)s->size, s->ckpt_path,
			 (unsigned long long)s->size, s->ckpt_path, s->key_path);
		return -1;
	}
	if (s->size && (tlog_root(&rd, s->size, root) < 0 ||
			sodium_memcmp(root, s->root, TLOG_HASH) != 0)) {
		err_internal(err, "the first %llu log entries of the database do not hash to the "
			 "checkpoint this log published (%s): it is another site's database, or one "
			 "that took other writes since, and signing would fork the log. Nothing was "
			 "changed. Restore the backup of this site's own database (or put back the "
			 ".logkey and .checkpoint that came with this one); see README, "
			 "\"Backups and restoring\"",
			 (unsigned long long)s->size, s->ckpt_path);
		return -1;
	}
	return 0;
}

/* Signs the tree of size n (root) and publishes it: file first, then memory. */
static int publish(struct tlog_signer *s, uint64_t n, const unsigned char root[TLOG_HASH],
		   struct err *err)
{
	struct buf body = BUF_INIT, note = BUF_INIT;
	struct timespec now;
	int rc = -1;

	tlog_checkpoint_body(&body, s->origin, n, root);
	tlog_note_sign(&note, body.buf, body.len, s->origin, s->sk, s->pk);
	if (buf_error(&body) || buf_error(&note)) {
		err_internal(err, "out of memory signing a checkpoint");
		goto out;
	}
	if (fileio_write_private(s->ckpt_path, note.buf, note.len, err) < 0)
		goto out;
	pthread_mutex_lock(&s->lock);
	buf_reset(&s->text);
	buf_add(&s->text, note.buf, note.len);
	s->size = n;
	memcpy(s->root, root, TLOG_HASH);
	clock_gettime(CLOCK_REALTIME, &now);
	s->published_at = (double)now.tv_sec + now.tv_nsec / 1e9;
	pthread_mutex_unlock(&s->lock);
	if (s->on_publish)
		s->on_publish(s->on_publish_arg);
	rc = 0;
out:
	buf_release(&body);
	buf_release(&note);
	return rc;
}

/* A writer job that reads the log's size.  The writer answers a job only
 * once every commit before it is on disk (db_sync.c), while readers may
 * already see a commit whose sync is still under way; a size read this
 * way is one that survives a crash, so a signed checkpoint never names an
 * entry the log could lose. */
struct size_job {
	struct db_job j;
	int64_t n;
};

static int size_run(struct dbconn *w, struct db_job *j)
{
	struct size_job *sj = (struct size_job *)j;

	sj->n = tlog_store_size(w);
	return sj->n < 0 ? DB_ERR : DB_OK;
}

/* The whole signing step, with errors in err. */
static int sign_now(struct tlog_signer *s, struct err *err)
{
	struct size_job sj = { .j = { .run = size_run }, .n = -1 };
	struct dbconn *c = db_reader(s->db);
	unsigned char root[TLOG_HASH];
	struct tlog_reader rd;
	int64_t n;
	int rc = -1;

	pthread_mutex_lock(&s->sign_lock);
	if (!c || db_write(s->db, &sj.j) != DB_OK || (n = sj.n) < 0) {
		err_internal(err, "cannot read the log's size from the database");
		goto out;
	}
	if (extends_published(s, c, (uint64_t)n, err) < 0)
		goto out;
	rc = 0;
	if ((uint64_t)n == s->size && s->text.len &&
	    !strncmp(s->text.buf, s->origin, strlen(s->origin)) &&
	    s->text.buf[strlen(s->origin)] == '\n')
		goto out;           /* nothing new, same origin */
	rd = tlog_store_reader(c);
	if (tlog_root(&rd, (uint64_t)n, root) < 0) {
		err_internal(err, "a stored hash of the log is missing");
		rc = -1;
		goto out;
	}
	rc = publish(s, (uint64_t)n, root, err);
out:
	pthread_mutex_unlock(&s->sign_lock);
	return rc;
}

int tlog_signer_sign(struct tlog_signer *s)
{
	struct err err = ERR_INIT;

	if (sign_now(s, &err) < 0) {
		log_error("log: no checkpoint signed: %s", err.message);
		return -1;
	}
	return 0;
}

int tlog_signer_open(struct db *db, const char *db_path, const char *origin,
		     struct tlog_signer **out, struct err *err)
{
	struct tlog_signer *s = calloc(1, sizeof *s);

	*out = NULL;
	if (!s) {
		err_internal(err, "out of memory");
		return -1;
	}
	s->db = db;
	buf_init(&s->text);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->sign_lock, NULL);
	pthread_mutex_init(&s->wake_lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	snprintf(s->origin, sizeof s->origin, "%s", origin);
	tlog_signer_files(db_path, s->key_path, s->ckpt_path, sizeof s->key_path);
	if (load_key(s, err) < 0 || load_checkpoint(s, err) < 0 ||
	    sign_now(s, err) < 0) {
		tlog_signer_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* Sleeps ms milliseconds. */
static void sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

static void *sign_main(void *arg)
{
	struct tlog_signer *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->wake_lock);
		while (!s->wanted && !s->stopping)
			pthread_cond_wait(&s->wake, &s->wake_lock);
		s->wanted = 0;
		if (s->stopping) {
			pthread_mutex_unlock(&s->wake_lock);
			break;
		}
		pthread_mutex_unlock(&s->wake_lock);
		tlog_signer_sign(s);
		sleep_ms(TLOG_SIGN_INTERVAL_MS);
	}
	return NULL;
}

int tlog_signer_start(struct tlog_signer *s)
{
	if (pthread_create(&s->thread, NULL, sign_main, s) != 0)
		return -1;
	s->started = 1;
	return 0;
}

void tlog_signer_on_publish(struct tlog_signer *s, void (*fn)(void *arg), void *arg)
{
	s->on_publish = fn;
	s->on_publish_arg = arg;
}

void tlog_signer_notify(void *arg)
{
	struct tlog_signer *s = arg;

	pthread_mutex_lock(&s->wake_lock);
	s->wanted = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->wake_lock);
}

void tlog_signer_close(struct tlog_signer *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->wake_lock);
		s->stopping = 1;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->wake_lock);
		pthread_join(s->thread, NULL);
		tlog_signer_sign(s);          /* what the last commits added */
	}
	sodium_memzero(s->sk, sizeof s->sk);
	buf_release(&s->text);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->wake_lock);
	pthread_mutex_destroy(&s->sign_lock);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int tlog_signer_latest(struct tlog_signer *s, struct buf *text, uint64_t *n,
		       unsigned char root[TLOG_HASH])
{
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (s->text.len) {
		if (text)
			buf_add(text, s->text.buf, s->text.len);
		if (n)
			*n = s->size;
		if (root)
			memcpy(root, s->root, TLOG_HASH);
		rc = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void tlog_signer_vkey(struct tlog_signer *s, struct buf *b)
{
	tlog_verifier_key(b, s->origin, s->pk);
}

const char *tlog_signer_origin(struct tlog_signer *s)
{
	return s->origin;
}

double tlog_signer_published_at(struct tlog_signer *s)
{
	double t;

	pthread_mutex_lock(&s->lock);
	t = s->text.len ? s->published_at : 0;
	pthread_mutex_unlock(&s->lock);
	return t;
}
