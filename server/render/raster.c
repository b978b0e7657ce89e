/* raster.c: SVG to PNG through rsvg-convert as a subprocess (see raster.h):
 * the child (spawned, fed, drained, reaped) and the pool of threads that
 * runs at most a few at once. */
#include "render/raster.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define ERR_KEEP 200          /* bytes of the child's stderr kept for why */
#define VERSION_MAX 4096      /* bytes of --version read at most */

struct raster {
	char *program;            /* NULL: off */
	char *version;            /* first line of --version; NULL: off */
	struct raster_limits lim;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct raster_job *head, *tail;
	unsigned queued;
	int stop;
	pthread_t *threads;
	unsigned nthreads;        /* started */
};

/* ---- time ------------------------------------------------------------------ */

/* Milliseconds on the monotonic clock. */
static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- the child ------------------------------------------------------------- */

/* A running child and our ends of its three pipes (-1: closed). */
struct child {
	pid_t pid;
	int in, out, err;
};

/* Closes *fd if open and marks it closed. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Starts argv[0] with stdin, stdout and stderr on new pipes, as raster.h
 * describes (no shell, nothing else inherited, signals at their defaults,
 * its own process group, a two-variable environment).  Returns 0 and
 * fills c, or -1 with why. */
static int spawn(char *const argv[], struct child *c, struct err *why)
{
	static char *const envp[] = { "PATH=" DEFAULT_PATH, "LC_ALL=C.UTF-8", NULL };
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int rc = -1, e;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		err_internal(why, "cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	/* Every signal at its default, since exec keeps what is ignored and
	 * the daemon ignores SIGPIPE.  (glibc's sigfillset leaves out its own
	 * two internal real-time signals, which posix_spawn leaves ignored in
	 * the child; nobody sends them, and a glibc program re-arms them.) */
	sigfillset(&dfl);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETPGROUP);
	e = posix_spawn(&c->pid, argv[0], &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		err_internal(why, "cannot start %s: %s", argv[0], strerror(e));
		goto fail;
	}
	c->in = in[1], c->out = out[0], c->err = err[0];
	in[1] = out[0] = err[0] = -1;
	fcntl(c->in, F_SETFL, O_NONBLOCK);
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	fcntl(c->err, F_SETFL, O_NONBLOCK);
	rc = 0;
fail:
	close_fd(&in[0]), close_fd(&in[1]);
	close_fd(&out[0]), close_fd(&out[1]);
	close_fd(&err[0]), close_fd(&err[1]);
	return rc;
}

/* Reads what fd has now: into out up to max bytes (past it, returns 1),
 * or, with out NULL, into the kept start of stderr.  Closes fd at its
 * end.  Returns 0, 1 over max, or -1 on a read error or no memory. */
static int drain(int *fd, struct buf *out, size_t max, char *keep, size_t *kept)
{
	char tmp[16384];
	ssize_t n;

	for (;;) {
		n = read(*fd, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			close_fd(fd);
			return n < 0 ? -1 : 0;
		}
		if (!out) {
			size_t k = (size_t)n < ERR_KEEP - *kept ? (size_t)n : ERR_KEEP - *kept;
			memcpy(keep + *kept, tmp, k);
			*kept += k;
			continue;
		}
		if (out->len + (size_t)n > max)
			return 1;
		buf_add(out, tmp, (size_t)n);
		if (buf_error(out))
			return -1;
	}
}

/* write(2) that cannot raise SIGPIPE: the signal is blocked on this
 * thread for the call and a pending one it raised is taken back, so a
 * child that stops reading costs an EPIPE, not the process (the daemon
 * ignores SIGPIPE, a test program need not). */
static ssize_t write_nosig(int fd, const void *p, size_t n)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t w;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	w = write(fd, p, n);
	e = errno;
	if (w < 0 && e == EPIPE && !sigismember(&old, SIGPIPE))
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return w;
}

/* Writes what the child's stdin takes of in[*off..n); closes it once all
 * is written or the child stopped reading. */
static void feed(struct child *c, const char *in, size_t n, size_t *off)
{
	ssize_t w;

	while (*off < n) {
		w = write_nosig(c->in, in + *off, n - *off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w < 0)
			break;   /* EPIPE: it stopped reading; its status tells why */
		*off += (size_t)w;
	}
	close_fd(&c->in);
}

/* Feeds in to the child and collects its stdout into out (at most max
 * bytes) and the start of its stderr into keep, until both end or the
 * deadline passes.  Returns 0, or -1 with why (timeout, over max, I/O). */
static int pump(struct child *c, const char *in, size_t n, struct buf *out,
		size_t max, char *keep, size_t *kept, int64_t deadline,
		struct err *why)
{
	struct pollfd p[3];
	size_t off = 0;
	int k, r;

	if (!n)
		close_fd(&c->in);
	while (c->out >= 0 || c->err >= 0) {
		int64_t left = deadline - now_ms();

		if (left <= 0) {
			err_internal(why, "did not finish within its time limit");
			return -1;
		}
		k = 0;
		if (c->in >= 0)
			p[k++] = (struct pollfd){ c->in, POLLOUT, 0 };
		if (c->out >= 0)
			p[k++] = (struct pollfd){ c->out, POLLIN, 0 };
		if (c->err >= 0)
			p[k++] = (struct pollfd){ c->err, POLLIN, 0 };
		r = poll(p, (nfds_t)k, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno != EINTR) {
			err_internal(why, "poll: %s", strerror(errno));
			return -1;
		}
		if (c->in >= 0)
			feed(c, in, n, &off);
		if (c->out >= 0 && (r = drain(&c->out, out, max, NULL, NULL))) {
			err_internal(why, r > 0 ? "wrote more than %zu bytes" : "its output could not be read or kept (%zu bytes)", max);
			return -1;
		}
		if (c->err >= 0 && drain(&c->err, NULL, 0, keep, kept) < 0) {
			err_internal(why, "its stderr could not be read");
			return -1;
		}
	}
	return 0;
}

/* Waits for the child until the deadline (it has closed its output, so it
 * is ending), or at once with kill_now, then kills its process group and
 * waits for it: the child is always reaped.  Returns its wait status, or
 * -1 when it was killed, with lost saying why unless kill_now (ECHILD:
 * something else reaped it). */
static int reap(struct child *c, int64_t deadline, int kill_now, struct err *lost)
{
	struct timespec tick = { 0, 2 * 1000 * 1000 };
	int st = 0;
	pid_t got;

	while (!kill_now) {
		got = waitpid(c->pid, &st, WNOHANG);
		if (got == c->pid)
			return st;
		if (got < 0 && errno != EINTR) {
			err_internal(lost, "its exit status was lost (%s)", strerror(errno));
			return -1;
		}
		if (now_ms() >= deadline) {
			err_internal(lost, "did not exit within its time limit");
			break;
		}
		nanosleep(&tick, NULL);
	}
	kill(-c->pid, SIGKILL);   /* its process group: anything it started too */
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* Runs argv with in on its stdin until it ends or timeout_ms pass; its
 * stdout goes to out (at most max bytes).  Returns 0 when it exited 0,
 * else -1 with why (its own stderr's first line when it said something). */
static int run(char *const argv[], const char *in, size_t n, struct buf *out,
	       size_t max, unsigned timeout_ms, struct err *why)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct child c = { -1, -1, -1, -1 };
	char keep[ERR_KEEP + 1];
	size_t kept = 0;
	int bad, st;

	*why = (struct err)ERR_INIT;
	if (spawn(argv, &c, why) < 0)
		return -1;
	bad = pump(&c, in, n, out, max, keep, &kept, deadline, why);
	close_fd(&c.in), close_fd(&c.out), close_fd(&c.err);
	st = reap(&c, deadline, bad, why);
	if (bad || st < 0)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	keep[kept] = '\0';
	keep[strcspn(keep, "\n")] = '\0';
	if (WIFSIGNALED(st))
		err_internal(why, "was killed by signal %d%s%s", WTERMSIG(st), kept ? ": " : "", keep);
	else
		err_internal(why, "exited with status %d%s%s", WEXITSTATUS(st), kept ? ": " : "", keep);
	return -1;
}

/* ---- finding it ------------------------------------------------------------ */

/* A malloc'd path to name on PATH (or DEFAULT_PATH) that is an executable
 * regular file, or NULL. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat sb;
	char full[4096];

	if (!path || !*path)
		path = DEFAULT_PATH;
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (end == p)
			continue;
		if (snprintf(full, sizeof full, "%.*s/%s", (int)(end - p), p, name) >= (int)sizeof full)
			continue;
		if (!stat(full, &sb) && S_ISREG(sb.st_mode) && !access(full, X_OK))
			return strdup(full);
	}
	return NULL;
}

/* Runs program --version and keeps its first line as rs->version; logs
 * once what came of it. */
static void check_program(struct raster *rs)
{
	char *argv[] = { rs->program, "--version", NULL };
	struct buf out = BUF_INIT;
	struct err why = ERR_INIT;

	if (run(argv, NULL, 0, &out, VERSION_MAX, rs->lim.timeout_ms, &why) < 0 ||
	    !out.len) {
		log_error("link-preview cards are off: %s --version %s", rs->program,
			  why.message[0] ? why.message : "printed nothing");
		goto out;
	}
	out.buf[strcspn(out.buf, "\n")] = '\0';
	rs->version = strdup(out.buf);
	if (rs->version)
		log_info("link-preview cards: %s (%s)", rs->version, rs->program);
out:
	buf_release(&out);
}

/* ---- the PNG ------------------------------------------------------------- */

/* 1 when png[0..n) starts as a PNG of w × h px: the signature, then an
 * IHDR chunk of 13 bytes holding the width and height. */
static int png_ok(const unsigned char *png, size_t n, int w, int h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned long pw, ph;

	if (n < 33 || memcmp(png, sig, 8) || memcmp(png + 8, "\0\0\0\x0dIHDR", 8))
		return 0;
	pw = (unsigned long)png[16] << 24 | (unsigned long)png[17] << 16 | png[18] << 8 | png[19];
	ph = (unsigned long)png[20] << 24 | (unsigned long)png[21] << 16 | png[22] << 8 | png[23];
	return pw == (unsigned long)w && ph == (unsigned long)h;
}

enum raster_status raster_png(struct raster *rs, const char *svg, size_t len,
			      struct buf *png, struct err *why)
{
	char fmt[] = "--format=png", wa[32], ha[32];
	char *argv[] = { rs->program, fmt, wa, ha, NULL };
	size_t from = png->len;

	if (!rs->version) {
		err_internal(why, "no rasterizer: install %s (Debian package librsvg2-bin)", RASTER_PROGRAM);
		return RASTER_OFF;
	}
	if (len > RASTER_MAX_SVG) {
		err_internal(why, "the SVG is %zu bytes, over %zu", len, RASTER_MAX_SVG);
		return RASTER_FAILED;
	}
	snprintf(wa, sizeof wa, "--width=%d", rs->lim.width);
	snprintf(ha, sizeof ha, "--height=%d", rs->lim.height);
	if (run(argv, svg, len, png, rs->lim.max_png, rs->lim.timeout_ms, why) < 0)
		return RASTER_FAILED;
	if (!png_ok((const unsigned char *)png->buf + from, png->len - from, rs->lim.width,
		    rs->lim.height)) {
		err_internal(why, "wrote %zu bytes that are not a %d x %d PNG",
			 png->len - from, rs->lim.width, rs->lim.height);
		return RASTER_FAILED;
	}
	return RASTER_OK;
}

/* ---- the pool ------------------------------------------------------------ */

/* Takes the oldest queued job, waiting for one; NULL once stopping with
 * none left.  *stopping says whether the pool is stopping. */
static struct raster_job *take(struct raster *rs, int *stopping)
{
	struct raster_job *j;

	pthread_mutex_lock(&rs->lock);
	while (!rs->head && !rs->stop)
		pthread_cond_wait(&rs->wake, &rs->lock);
	j = rs->head;
	if (j) {
		rs->head = j->next;
		if (!rs->head)
			rs->tail = NULL;
		rs->queued--;
	}
	*stopping = rs->stop;
	pthread_mutex_unlock(&rs->lock);
	return j;
}

/* A pool thread: runs jobs until the pool stops; one that waited past
 * wait_ms, or is still queued at the stop, is answered RASTER_BUSY. */
static void *worker(void *arg)
{
	struct raster *rs = arg;
	struct raster_job *j;
	struct timespec t;
	int64_t waited;
	int stopping;

	while ((j = take(rs, &stopping))) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		waited = (int64_t)(t.tv_sec - j->since.tv_sec) * 1000 +
			 (t.tv_nsec - j->since.tv_nsec) / 1000000;
		if (stopping || waited > rs->lim.wait_ms) {
			j->status = RASTER_BUSY;
			err_internal(&j->err, "waited %lld ms for a free rasterizer", (long long)waited);
		} else {
			j->status = raster_png(rs, j->svg, j->len, &j->png, &j->err);
		}
		j->done(j);   /* the job is the caller's again: not touched after */
	}
	return NULL;
}

int raster_submit(struct raster *rs, struct raster_job *j)
{
	int ret = -1;

	j->next = NULL;
	j->err = (struct err)ERR_INIT;
	if (!rs->version) {
		j->status = RASTER_OFF;
		return -1;
	}
	pthread_mutex_lock(&rs->lock);
	if (rs->stop || rs->queued >= rs->lim.queue) {
		j->status = RASTER_BUSY;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->since);
	if (j->queued)
		j->queued(j);
	if (rs->tail)
		rs->tail->next = j;
	else
		rs->head = j;
	rs->tail = j;
	rs->queued++;
	pthread_cond_signal(&rs->wake);
	ret = 0;
out:
	pthread_mutex_unlock(&rs->lock);
	return ret;
}

/* Fills the limits' zero fields with the defaults. */
static void set_limits(struct raster_limits *l, const struct raster_limits *from)
{
	static const struct raster_limits dflt = {
		RASTER_THREADS, RASTER_QUEUE, RASTER_WAIT_MS, RASTER_TIMEOUT_MS,
		RASTER_MAX_PNG, 1200, 630
	};

	*l = from ? *from : dflt;
	l->threads = l->threads ? l->threads : dflt.threads;
	l->queue = l->queue ? l->queue : dflt.queue;
	l->wait_ms = l->wait_ms ? l->wait_ms : dflt.wait_ms;
	l->timeout_ms = l->timeout_ms ? l->timeout_ms : dflt.timeout_ms;
	l->max_png = l->max_png ? l->max_png : dflt.max_png;
	l->width = l->width > 0 ? l->width : dflt.width;
	l->height = l->height > 0 ? l->height : dflt.height;
}

struct raster *raster_new(const char *program, const struct raster_limits *lim)
{
	struct raster *rs = calloc(1, sizeof *rs);
	unsigned i;

	if (!rs)
		return NULL;
	set_limits(&rs->lim, lim);
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->wake, NULL);
	rs->program = program ? strdup(program) : find_on_path(RASTER_PROGRAM);
	if (!rs->program) {
		log_error("link-preview cards are off: %s is not on PATH (Debian package "
			  "librsvg2-bin; deploy/deps.sh installs it)", RASTER_PROGRAM);
		return rs;
	}
	check_program(rs);
	if (!rs->version)
		return rs;
	if (!(rs->threads = calloc(rs->lim.threads, sizeof *rs->threads)))
		goto fail;
	for (i = 0; i < rs->lim.threads; i++, rs->nthreads++)
		if (pthread_create(&rs->threads[i], NULL, worker, rs))
			goto fail;
	return rs;
fail:
	raster_free(rs);
	return NULL;
}

void raster_free(struct raster *rs)
{
	unsigned i;

	if (!rs)
		return;
	pthread_mutex_lock(&rs->lock);
	rs->stop = 1;
	pthread_cond_broadcast(&rs->wake);
	pthread_mutex_unlock(&rs->lock);
	for (i = 0; i < rs->nthreads; i++)
		pthread_join(rs->threads[i], NULL);
	pthread_cond_destroy(&rs->wake);
	pthread_mutex_destroy(&rs->lock);
	free(rs->threads);
	free(rs->version);
	free(rs->program);
	free(rs);
}

const char *raster_version(const struct raster *rs)
{
	return rs ? rs->version : NULL;
}
