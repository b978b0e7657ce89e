/* check_raster.c: server/render/raster.c, SVG to PNG through rsvg-convert
 * as a subprocess: the real rasterizer on a card, and stand-in programs
 * (shell scripts written here) that hang, flood, fail, quit early, or
 * look for what they should not inherit; then the pool's bounds. */
#include "check_util.h"
#include "render/card_svg.h"
#include "render/raster.h"
#include "util/buf.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RSVG "/usr/bin/rsvg-convert"

static char dir[64];

/* A fresh folder for the stand-in programs and their marks. */
static void setup(void)
{
	strcpy(dir, "/tmp/check_raster_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	log_set_quiet(1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Writes an executable shell script dir/name: "--version" prints a
 * version, anything else runs body.  Returns its path (static). */
static const char *script(const char *name, const char *body)
{
	static char path[160];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fake rsvg 1.0'; exit 0; fi\n%s\n", body);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

/* Milliseconds on the monotonic clock. */
static long long ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* 1 when this process has no child left, reaped or not. */
static int no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* Rasterizes svg with rs; returns the status, why in why. */
static enum raster_status try(struct raster *rs, const char *svg, size_t n, struct buf *png,
			      struct err *why)
{
	return raster_png(rs, svg, n, png, why);
}

START_TEST(real_rasterizer_draws_the_card)
{
	struct card_run in = { 112.2, 1520.4, 212.0, "Qwen3-Coder-30B-A3B", "Apple M3 Ultra",
			       "llama.cpp", "b4567", CARD_MARK_OUTLIER, 0 };
	struct buf svg = BUF_INIT, png = BUF_INIT;
	struct raster *rs = raster_new(RSVG, NULL);
	const unsigned char *p;
	struct err why = ERR_INIT;

	ck_assert_msg(access(RSVG, X_OK) == 0, RSVG " is missing: deploy/deps.sh installs librsvg2-bin");
	ck_assert_ptr_nonnull(rs);
	ck_assert_ptr_nonnull(raster_version(rs));
	ck_assert(!strncmp(raster_version(rs), "rsvg-convert version ", 21));
	ck_assert_int_eq(card_render_run(&in, &svg), 0);
	ck_assert_int_eq(try(rs, svg.buf, svg.len, &png, &why), RASTER_OK);
	p = (const unsigned char *)png.buf;
	ck_assert(png.len > 1000 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8));
	ck_assert_int_eq((p[16] << 24 | p[17] << 16 | p[18] << 8 | p[19]), 1200);
	ck_assert_int_eq((p[20] << 24 | p[21] << 16 | p[22] << 8 | p[23]), 630);
	/* Not an SVG: refused with rsvg-convert's own words. */
	buf_reset(&png);
	ck_assert_int_eq(try(rs, "<nope", 5, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "exited with status"), "%s", why.message);
	ck_assert(no_children());
	buf_release(&png);
	buf_release(&svg);
	raster_free(rs);
}
END_TEST

START_TEST(missing_program_is_off)
{
	struct raster *rs = raster_new("/nonexistent/rsvg-convert", NULL);
	struct raster_job j = { 0 };
	struct buf png = BUF_INIT;
	struct err why = ERR_INIT;

	ck_assert_ptr_nonnull(rs);
	ck_assert_ptr_null(raster_version(rs));
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_OFF);
	ck_assert(strstr(why.message, "librsvg2-bin"));
	j.svg = "<svg/>";
	j.len = 6;
	ck_assert_int_eq(raster_submit(rs, &j), -1);
	ck_assert_int_eq(j.status, RASTER_OFF);
	raster_free(rs);

	/* A program that fails --version is off too. */
	rs = raster_new("/bin/false", NULL);
	ck_assert_ptr_null(raster_version(rs));
	raster_free(rs);
	ck_assert(no_children());
}
END_TEST

START_TEST(hanging_child_is_killed_with_its_group)
{
	struct raster_limits lim = { .timeout_ms = 300 };
	struct raster *rs;
	struct buf png = BUF_INIT;
	struct err why = ERR_INIT;
	char mark[160], pidtxt[32] = "";
	long long t0;
	FILE *f;
	pid_t grandchild;
	int i;

	snprintf(mark, sizeof mark, "%s/sleeper.pid", dir);
	{
		char body[400];

		snprintf(body, sizeof body, "sleep 30 & echo $! > '%s'; wait", mark);
		rs = raster_new(script("hang", body), &lim);
	}
	ck_assert_ptr_nonnull(raster_version(rs));
	t0 = ms();
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "time limit"), "%s", why.message);
	ck_assert_int_lt(ms() - t0, 10000);   /* killed, not waited for (sleep 30) */
	ck_assert(no_children());             /* reaped: no zombie left */
	/* The sleep it started went with it: the whole group was killed. */
	f = fopen(mark, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(pidtxt, sizeof pidtxt, f));
	fclose(f);
	grandchild = (pid_t)atoi(pidtxt);
	ck_assert_int_gt(grandchild, 1);
	for (i = 0; i < 500 && kill(grandchild, 0) == 0; i++)
		usleep(10000);   /* init reaps it once killed */
	ck_assert_msg(kill(grandchild, 0) < 0 && errno == ESRCH, "the grandchild %d lives on", grandchild);
	buf_release(&png);
	raster_free(rs);
}
END_TEST

START_TEST(output_over_the_cap_is_cut_off)
{
	struct raster_limits lim = { .max_png = 65536 };
	struct raster *rs = raster_new(script("flood", "cat /dev/zero"), &lim);
	struct buf png = BUF_INIT;
	struct err why = ERR_INIT;

	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "more than 65536 bytes"), "%s", why.message);
	ck_assert_uint_le(png.len, 65536);
	ck_assert(no_children());
	buf_release(&png);
	raster_free(rs);
}
END_TEST

START_TEST(failures_say_why)
{
	struct raster *rs;
	struct buf png = BUF_INIT;
	struct err why = ERR_INIT;

	rs = raster_new(script("boom", "cat >/dev/null; echo 'boom: bad input' >&2; exit 3"), NULL);
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_str_eq(why.message, "exited with status 3: boom: bad input");
	raster_free(rs);

	rs = raster_new(script("notpng", "cat >/dev/null; echo hello"), NULL);
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "not a 1200 x 630 PNG"), "%s", why.message);
	raster_free(rs);

	rs = raster_new(script("killed", "kill -9 $$"), NULL);
	buf_reset(&png);
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "killed by signal 9"), "%s", why.message);
	raster_free(rs);
	ck_assert(no_children());
	buf_release(&png);
}
END_TEST

START_TEST(child_quitting_early_costs_no_sigpipe)
{
	/* The test process keeps SIGPIPE at its default: a write to a pipe
	 * nobody reads would kill it.  Half a megabyte overfills the pipe. */
	struct raster *rs = raster_new(script("early", "exit 0"), NULL);
	struct buf png = BUF_INIT;
	size_t n = 512 * 1024;
	struct err why = ERR_INIT;
	char *big = malloc(n);

	ck_assert_ptr_nonnull(big);
	memset(big, ' ', n);
	signal(SIGPIPE, SIG_DFL);
	ck_assert_int_eq(try(rs, big, n, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "not a 1200 x 630 PNG"), "%s", why.message);
	/* Over the SVG cap: refused before any child starts. */
	free(big);
	n = RASTER_MAX_SVG + 1;
	ck_assert_ptr_nonnull(big = calloc(1, n));
	ck_assert_int_eq(try(rs, big, n, &png, &why), RASTER_FAILED);
	ck_assert_msg(strstr(why.message, "over"), "%s", why.message);
	free(big);
	buf_release(&png);
	raster_free(rs);
}
END_TEST

START_TEST(child_inherits_nothing)
{
	/* An fd of ours without O_CLOEXEC, a secret in our environment, a
	 * blocked signal and an ignored one (signals 1 to 31; glibc's own two
	 * real-time signals it leaves ignored itself): the child sees none. */
	char body[600];
	struct raster *rs;
	struct buf png = BUF_INIT;
	struct err why = ERR_INIT;
	sigset_t term;
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 3);
	setenv("LLMSPEED_MODERATOR_TOKEN", "secret", 1);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	snprintf(body, sizeof body,
		 "[ -e /proc/$$/fd/%d ] && { echo 'fd %d leaked' >&2; exit 4; }\n"
		 "[ -n \"$LLMSPEED_MODERATOR_TOKEN\" ] && { echo 'secret leaked' >&2; exit 5; }\n"
		 "grep -q '^SigBlk:[[:space:]]*0*$' /proc/self/status || { grep SigBlk /proc/self/status >&2; exit 6; }\n"
		 "grep -q '^SigIgn:[[:space:]]*[0-9a-f]*[08]0000000$' /proc/self/status || { grep SigIgn /proc/self/status >&2; exit 7; }\n"
		 "ls /proc/$$/fd | tr '\\n' ' ' >&2; exit 9", fd, fd);
	signal(SIGPIPE, SIG_IGN);   /* as the daemon has it: the child must not */
	rs = raster_new(script("nosy", body), NULL);
	ck_assert_int_eq(try(rs, "<svg/>", 6, &png, &why), RASTER_FAILED);
	ck_assert_msg(!strncmp(why.message, "exited with status 9", 20), "%s", why.message);
	signal(SIGPIPE, SIG_DFL);
	close(fd);
	buf_release(&png);
	raster_free(rs);
}
END_TEST

/* ---- the pool ------------------------------------------------------------ */

/* Jobs that count their done() calls. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int dones, queueds;

static void on_queued(struct raster_job *j)
{
	queueds++;   /* under the pool's lock */
}

static void on_done(struct raster_job *j)
{
	pthread_mutex_lock(&lock);
	dones++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* Waits (up to 20 s) until n jobs are done. */
static void wait_dones(int n)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&lock);
	while (dones < n && pthread_cond_timedwait(&cond, &lock, &until) == 0)
		;
	ck_assert_int_ge(dones, n);
	pthread_mutex_unlock(&lock);
}

/* A job over a tiny SVG. */
static void job(struct raster_job *j)
{
	memset(j, 0, sizeof *j);
	j->svg = "<svg/>";
	j->len = 6;
	j->queued = on_queued;
	j->done = on_done;
	buf_init(&j->png);
}

/* A stand-in that marks dir/started, then takes a while; and a wait for
 * the mark, so the first job is known to be running. */
static const char *slow_script(void)
{
	char body[300];

	snprintf(body, sizeof body, "touch '%s/started'; sleep 0.6; exit 1", dir);
	return script("slow", body);
}

static void wait_started(void)
{
	char path[160];
	int i;

	snprintf(path, sizeof path, "%s/started", dir);
	for (i = 0; i < 2000 && access(path, F_OK); i++)
		usleep(5000);
	ck_assert_int_eq(access(path, F_OK), 0);
}

START_TEST(pool_bounds_the_queue)
{
	struct raster_limits lim = { .threads = 1, .queue = 1, .wait_ms = 20000 };
	struct raster *rs = raster_new(slow_script(), &lim);
	struct raster_job a, b, c;

	dones = queueds = 0;
	job(&a), job(&b), job(&c);
	ck_assert_int_eq(raster_submit(rs, &a), 0);
	wait_started();                              /* a runs: the queue is empty */
	ck_assert_int_eq(raster_submit(rs, &b), 0);  /* b waits */
	ck_assert_int_eq(raster_submit(rs, &c), -1); /* c finds the queue full */
	ck_assert_int_eq(c.status, RASTER_BUSY);
	ck_assert_int_eq(queueds, 2);                /* c's queued() never ran */
	wait_dones(2);
	ck_assert_int_eq(a.status, RASTER_FAILED);   /* both ran (the stand-in exits 1) */
	ck_assert_int_eq(b.status, RASTER_FAILED);
	ck_assert_msg(strstr(b.err.message, "exited with status 1"), "%s", b.err.message);
	raster_free(rs);
	ck_assert_int_eq(dones, 2);
	ck_assert(no_children());
}
END_TEST

START_TEST(pool_answers_busy_after_the_wait)
{
	struct raster_limits lim = { .threads = 1, .wait_ms = 100 };
	struct raster *rs = raster_new(slow_script(), &lim);
	struct raster_job a, b;

	dones = queueds = 0;
	job(&a), job(&b);
	ck_assert_int_eq(raster_submit(rs, &a), 0);
	wait_started();
	ck_assert_int_eq(raster_submit(rs, &b), 0);  /* waits for a's 0.6 s: over 100 ms */
	wait_dones(2);
	ck_assert_int_eq(b.status, RASTER_BUSY);
	ck_assert_msg(strstr(b.err.message, "for a free rasterizer"), "%s", b.err.message);
	raster_free(rs);
}
END_TEST

START_TEST(pool_stop_finishes_every_job)
{
	struct raster_limits lim = { .threads = 1, .wait_ms = 20000 };
	struct raster *rs = raster_new(slow_script(), &lim);
	struct raster_job a, b;

	dones = queueds = 0;
	job(&a), job(&b);
	ck_assert_int_eq(raster_submit(rs, &a), 0);
	wait_started();
	ck_assert_int_eq(raster_submit(rs, &b), 0);
	raster_free(rs);   /* a finishes, b is answered busy; both done once */
	ck_assert_int_eq(dones, 2);
	ck_assert_int_eq(a.status, RASTER_FAILED);
	ck_assert_int_eq(b.status, RASTER_BUSY);
	ck_assert(no_children());
}
END_TEST

START_TEST(pool_draws_with_the_real_rasterizer)
{
	struct raster *rs = raster_new(RSVG, NULL);
	struct raster_job j[4];
	int i;

	dones = queueds = 0;
	for (i = 0; i < 4; i++) {
		job(&j[i]);
		j[i].svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>";
		j[i].len = strlen(j[i].svg);
		ck_assert_int_eq(raster_submit(rs, &j[i]), 0);
	}
	wait_dones(4);
	for (i = 0; i < 4; i++) {
		ck_assert_msg(j[i].status == RASTER_OK, "%d: %s", i, j[i].err.message);
		ck_assert(!memcmp(j[i].png.buf, "\x89PNG", 4));
		buf_release(&j[i].png);
	}
	raster_free(rs);
	ck_assert(no_children());
}
END_TEST

static Suite *suite_raster(void)
{
	Suite *s = suite_create("raster");
	TCase *c = tcase_create("child");
	TCase *p = tcase_create("pool");

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_checked_fixture(p, setup, teardown);
	tcase_add_test(c, real_rasterizer_draws_the_card);
	tcase_add_test(c, missing_program_is_off);
	tcase_add_test(c, hanging_child_is_killed_with_its_group);
	tcase_add_test(c, output_over_the_cap_is_cut_off);
	tcase_add_test(c, failures_say_why);
	tcase_add_test(c, child_quitting_early_costs_no_sigpipe);
	tcase_add_test(c, child_inherits_nothing);
	tcase_add_test(p, pool_bounds_the_queue);
	tcase_add_test(p, pool_answers_busy_after_the_wait);
	tcase_add_test(p, pool_stop_finishes_every_job);
	tcase_add_test(p, pool_draws_with_the_real_rasterizer);
	tcase_set_timeout(c, 60);
	tcase_set_timeout(p, 60);
	suite_add_tcase(s, c);
	suite_add_tcase(s, p);
	return s;
}

CHECK_MAIN(suite_raster)
