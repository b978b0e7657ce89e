/* access_log.c: the access log, buffered and written by a thread of its own (see access_log.h). */
#include "http/access_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/metrics.h"

#define AL_BYTES ((size_t)4 << 20)   /* the most held between two writes */
#define AL_KICK ((size_t)256 << 10)  /* past this the thread writes at once */
#define AL_INTERVAL_MS 250           /* else it writes this often */
#define AL_TARGET_MAX 2048           /* request target bytes kept in a line */
#define AL_FIELD_MAX 512             /* and of the Referer and User-Agent */
#define AL_LINE_MAX 16384            /* room for them all, escaped four times over */

struct access_log {
	char *path;                  /* NULL: standard output */
	int fd;                      /* owned by the thread once it runs */
	pthread_mutex_t lock;        /* guards what follows, held only to copy */
	pthread_cond_t wake;
	struct buf front;            /* lines not yet handed to the thread */
	int stopping, reopen, kicked;
	pthread_t thread;
	int started;
};

/* Opens the log file for appending; -1 with errno. */
static int open_file(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
}

/* Writes all of p[0..n) to fd; 0, or -1 with errno. */
static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reopens the file by its name (after logrotate moved it away); the old
 * descriptor stays when the new one cannot be opened. */
static void reopen_file(struct access_log *l)
{
	int fd;

	if (!l->path)
		return;
	if ((fd = open_file(l->path)) < 0) {
		metrics_inc(MC_ACCESS_LOG_ERRORS);
		return;
	}
	close(l->fd);
	l->fd = fd;
}

/* The thread: swaps the buffer out under the lock and writes it without. */
static void *writer_main(void *arg)
{
	struct access_log *l = arg;
	struct buf back = BUF_INIT, t;
	struct timespec until;
	int stop, reopen;

	pthread_setname_np(pthread_self(), "access-log");
	do {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += AL_INTERVAL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&l->lock);
		while (!l->stopping && !l->kicked && !l->reopen &&
		       pthread_cond_timedwait(&l->wake, &l->lock, &until) == 0)
			;
		t = l->front;
		l->front = back;
		back = t;
		l->kicked = 0;
		reopen = l->reopen;
		l->reopen = 0;
		stop = l->stopping;
		pthread_mutex_unlock(&l->lock);
		if (reopen)
			reopen_file(l);
		if (back.len && write_all(l->fd, back.buf, back.len) < 0)
			metrics_inc(MC_ACCESS_LOG_ERRORS);
		buf_reset(&back);
	} while (!stop);
	buf_release(&back);
	return NULL;
}

struct access_log *access_log_open(const char *path, struct err *err)
{
	struct access_log *l = calloc(1, sizeof *l);

	if (!l) {
		err_internal(err, "out of memory");
		return NULL;
	}
	buf_init(&l->front);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	l->fd = STDOUT_FILENO;
	if (strcmp(path, "-") != 0) {
		if (!(l->path = strdup(path)) || (l->fd = open_file(path)) < 0) {
			err_internal(err, "cannot open the access log %s: %s", path,
				 l->path ? strerror(errno) : "out of memory");
			l->fd = -1;
			access_log_close(l);
			return NULL;
		}
	}
	if (pthread_create(&l->thread, NULL, writer_main, l) != 0) {
		err_internal(err, "cannot start the access log's thread");
		access_log_close(l);
		return NULL;
	}
	l->started = 1;
	return l;
}

void access_log_close(struct access_log *l)
{
	if (!l)
		return;
	if (l->started) {
		pthread_mutex_lock(&l->lock);
		l->stopping = 1;
		pthread_cond_signal(&l->wake);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->thread, NULL);
	}
	if (l->path && l->fd >= 0)
		close(l->fd);
	buf_release(&l->front);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l->path);
	free(l);
}

void access_log_reopen(struct access_log *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->reopen = 1;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

/* One line being formatted: a fixed buffer of the calling thread, so a
 * request's line costs no allocation.  Appends past AL_LINE_MAX - 1 bytes
 * are cut (the fields are cut well before), leaving room for the '\n'. */
struct line {
	size_t n;
	char b[AL_LINE_MAX];
};

static _Thread_local struct line tl_line;
static _Thread_local time_t tl_sec = -1;     /* the second tl_when shows */
static _Thread_local char tl_when[40];

static void put(struct line *l, const char *s, size_t n)
{
	size_t room = AL_LINE_MAX - 1 - l->n;

	if (n > room)
		n = room;
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void put_uint(struct line *l, unsigned long long v)
{
	char d[24];
	int i = sizeof d;

	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	put(l, d + i, sizeof d - (size_t)i);
}

/* s[0..n) with '"', '\\' and bytes outside 0x20..0x7e as \xHH; "-" for none. */
static void escape(struct line *l, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char esc[4] = { '\\', 'x', 0, 0 };
	size_t i, run = 0;

	if (!s || !n) {
		put(l, "-", 1);
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			continue;
		put(l, s + run, i - run);
		esc[2] = hex[p[i] >> 4];
		esc[3] = hex[p[i] & 15];
		put(l, esc, 4);
		run = i + 1;
	}
	put(l, s + run, n - run);
}

void access_log_escape(struct buf *b, const char *s, size_t n)
{
	struct line *l = malloc(sizeof *l);

	if (!l) {
		buf_grow(b, BUF_MAX);        /* out of memory: the sticky error */
		return;
	}
	l->n = 0;
	escape(l, s, n);
	buf_add(b, l->b, l->n);
	free(l);
}

/* A header's value, whole (a NUL in it is written \x00, not an end),
 * escaped and cut to AL_FIELD_MAX bytes. */
static void header_field(struct line *l, struct req *r, const char *name)
{
	size_t n;
	const char *v = http_header_n(r, name, &n);

	escape(l, v, n < AL_FIELD_MAX ? n : AL_FIELD_MAX);
}

/* "[28/Apr/2026:10:12:00 +0000]", the time the request line came; written
 * once a second per thread. */
static void when(struct line *l, const struct timespec *t)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	if (t->tv_sec != tl_sec) {
		gmtime_r(&t->tv_sec, &tm);
		snprintf(tl_when, sizeof tl_when, "[%02d/%s/%04d:%02d:%02d:%02d +0000]", tm.tm_mday,
			 months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
		tl_sec = t->tv_sec;
	}
	put_str(l, tl_when);
}

/* The request line: method, target (without the query of a POST), version. */
static void request_line(struct line *l, struct req *r)
{
	const char *target = r->raw_uri ? r->raw_uri : r->path;
	size_t n = target ? strlen(target) : 0;
	const char *q;

	if (target && r->method == HTTP_POST && (q = memchr(target, '?', n)))
		n = (size_t)(q - target);
	put(l, "\"", 1);
	escape(l, r->verb, strlen(r->verb));
	put(l, " ", 1);
	escape(l, target, n < AL_TARGET_MAX ? n : AL_TARGET_MAX);
	put(l, " ", 1);
	escape(l, r->version, strlen(r->version));
	put(l, "\"", 1);
}

void access_log_request(struct access_log *al, struct req *r, unsigned status, uint64_t micros)
{
	struct line *l = &tl_line;
	size_t bytes = r->method == HTTP_HEAD || status == 304 ? 0 : r->sent_bytes;
	char frac[5] = { '.', 0, 0, 0, ' ' };
	unsigned ms = (unsigned)(micros / 1000 % 1000);

	if (!al || !status)
		return;
	l->n = 0;
	put_str(l, r->client[0] ? r->client : "-");
	put(l, " - - ", 5);
	when(l, &r->received);
	put(l, " ", 1);
	request_line(l, r);
	put(l, " ", 1);
	put_uint(l, status);
	put(l, " ", 1);
	if (bytes)
		put_uint(l, bytes);
	else
		put(l, "-", 1);
	put(l, " \"", 2);
	header_field(l, r, "Referer");
	put(l, "\" \"", 3);
	header_field(l, r, "User-Agent");
	put(l, "\" ", 2);
	put_uint(l, micros / 1000000);
	frac[1] = (char)('0' + ms / 100);
	frac[2] = (char)('0' + ms / 10 % 10);
	frac[3] = (char)('0' + ms % 10);
	put(l, frac, 4);
	l->b[l->n++] = '\n';            /* put() always leaves this byte */
	pthread_mutex_lock(&al->lock);
	if (al->front.len + l->n > AL_BYTES) {
		metrics_inc(MC_ACCESS_LOG_DROPPED);
	} else {
		buf_add(&al->front, l->b, l->n);
		if (al->front.len >= AL_KICK && !al->kicked) {
			al->kicked = 1;
			pthread_cond_signal(&al->wake);
		}
	}
	pthread_mutex_unlock(&al->lock);
}
