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
#define AL_TARGET_MAX 4096           /* request target bytes kept in a line */
#define AL_FIELD_MAX 1024            /* and of the Referer and User-Agent */

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

struct access_log *access_log_open(const char *path, char *err, size_t errlen)
{
	struct access_log *l = calloc(1, sizeof *l);

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	buf_init(&l->front);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	l->fd = STDOUT_FILENO;
	if (strcmp(path, "-") != 0) {
		if (!(l->path = strdup(path)) || (l->fd = open_file(path)) < 0) {
			snprintf(err, errlen, "cannot open the access log %s: %s", path,
				 l->path ? strerror(errno) : "out of memory");
			l->fd = -1;
			access_log_close(l);
			return NULL;
		}
	}
	if (pthread_create(&l->thread, NULL, writer_main, l) != 0) {
		snprintf(err, errlen, "cannot start the access log's thread");
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

void access_log_escape(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, run = 0;

	if (!s || !n) {
		buf_putc(b, '-');
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			continue;
		buf_add(b, s + run, i - run);
		buf_add(b, "\\x", 2);
		buf_putc(b, hex[p[i] >> 4]);
		buf_putc(b, hex[p[i] & 15]);
		run = i + 1;
	}
	buf_add(b, s + run, n - run);
}

/* A header's value, escaped and cut to AL_FIELD_MAX bytes. */
static void header_field(struct buf *b, struct req *r, const char *name)
{
	const char *v = http_header(r, name);
	size_t n = v ? strlen(v) : 0;

	access_log_escape(b, v, n < AL_FIELD_MAX ? n : AL_FIELD_MAX);
}

/* "[28/Apr/2026:10:12:00 +0000]", the time the request line came. */
static void when(struct buf *b, const struct timespec *t)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t->tv_sec, &tm);
	buf_printf(b, "[%02d/%s/%04d:%02d:%02d:%02d +0000]", tm.tm_mday, months[tm.tm_mon % 12],
		   tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* The request line: method, target (without the query of a POST), version. */
static void request_line(struct buf *b, struct req *r)
{
	const char *target = r->raw_uri ? r->raw_uri : r->path;
	size_t n = target ? strlen(target) : 0;
	const char *q;

	if (target && r->method == HTTP_POST && (q = memchr(target, '?', n)))
		n = (size_t)(q - target);
	buf_putc(b, '"');
	access_log_escape(b, r->verb, strlen(r->verb));
	buf_putc(b, ' ');
	access_log_escape(b, target, n < AL_TARGET_MAX ? n : AL_TARGET_MAX);
	buf_putc(b, ' ');
	access_log_escape(b, r->version, strlen(r->version));
	buf_putc(b, '"');
}

void access_log_request(struct access_log *l, struct req *r, unsigned status, uint64_t micros)
{
	struct buf line = BUF_INIT;
	size_t bytes = r->method == HTTP_HEAD || status == 304 ? 0 : r->sent_bytes;

	if (!l || !status)
		return;
	buf_puts(&line, r->client[0] ? r->client : "-");
	buf_puts(&line, " - - ");
	when(&line, &r->received);
	buf_putc(&line, ' ');
	request_line(&line, r);
	buf_printf(&line, " %u ", status);
	if (bytes)
		buf_printf(&line, "%zu", bytes);
	else
		buf_putc(&line, '-');
	buf_puts(&line, " \"");
	header_field(&line, r, "Referer");
	buf_puts(&line, "\" \"");
	header_field(&line, r, "User-Agent");
	buf_printf(&line, "\" %llu.%03llu\n", (unsigned long long)(micros / 1000000),
		   (unsigned long long)(micros / 1000 % 1000));
	if (buf_error(&line))
		goto out;
	pthread_mutex_lock(&l->lock);
	if (l->front.len + line.len > AL_BYTES) {
		metrics_inc(MC_ACCESS_LOG_DROPPED);
	} else {
		buf_add(&l->front, line.buf, line.len);
		if (l->front.len >= AL_KICK && !l->kicked) {
			l->kicked = 1;
			pthread_cond_signal(&l->wake);
		}
	}
	pthread_mutex_unlock(&l->lock);
out:
	buf_release(&line);
}
