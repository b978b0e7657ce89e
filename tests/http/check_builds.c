/* check_builds.c: the build pool of server/http/builds.c: every job runs,
 * one holder never has more than its share of threads at once while its
 * other jobs wait in the queue, and another holder's job runs meanwhile. */
#include "check_util.h"
#include "http/builds.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int gate_open;            /* holder A's jobs wait until it is set */
static int running_a, most_a, done_a, done_b;


/* A's job: counts itself running, waits for the gate, ends. */
static void run_a(struct build_job *bj)
{
	pthread_mutex_lock(&lock);
	if (++running_a > most_a)
		most_a = running_a;
	pthread_cond_broadcast(&changed);
	while (!gate_open)
		pthread_cond_wait(&changed, &lock);
	running_a--;
	done_a++;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	free(bj);
}

/* B's job: ends at once. */
static void run_b(struct build_job *bj)
{
	pthread_mutex_lock(&lock);
	done_b++;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	free(bj);
}

static struct build_job *job_of(void (*run)(struct build_job *), const char *holder)
{
	struct build_job *j = calloc(1, sizeof *j);

	ck_assert_ptr_nonnull(j);
	j->run = run;
	snprintf(j->holder, sizeof j->holder, "%s", holder);
	return j;
}

START_TEST(test_one_holder_has_at_most_its_share)
{
	struct builds *b = builds_new(BUILDS_THREADS, BUILDS_PER_HOLDER);
	int i;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(builds_submit(b, job_of(run_a, "addr:127.0.0.1")), 0);
	pthread_mutex_lock(&lock);
	while (running_a < BUILDS_PER_HOLDER)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	/* A holds its share, its other jobs wait in the queue, holding no
	 * thread: another holder's job runs (and ends) meanwhile. */
	ck_assert_int_eq(builds_submit(b, job_of(run_b, "addr:127.2.0.1")), 0);
	pthread_mutex_lock(&lock);
	while (!done_b)
		pthread_cond_wait(&changed, &lock);
	ck_assert_int_eq(running_a, BUILDS_PER_HOLDER);
	ck_assert_int_eq(done_a, 0);
	pthread_mutex_unlock(&lock);
	/* B's thread counts as running until the pool takes its job back, a
	 * moment after run_b returns: wait for that (A's stay blocked, so a
	 * third of A's would hold this loop until the test's timeout). */
	while (builds_running(b) > BUILDS_PER_HOLDER)
		usleep(1000);
	ck_assert_uint_eq(builds_queued(b), 8 - BUILDS_PER_HOLDER);
	ck_assert_uint_eq(builds_running(b), BUILDS_PER_HOLDER);
	pthread_mutex_lock(&lock);
	gate_open = 1;
	pthread_cond_broadcast(&changed);
	while (done_a < 8)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	ck_assert_int_eq(most_a, BUILDS_PER_HOLDER);
	ck_assert_uint_eq(builds_most_held(b), BUILDS_PER_HOLDER);
	builds_free(b);
}
END_TEST

/* Jobs with no holder are each a holder of their own; what is queued
 * when the pool is freed still runs. */
START_TEST(test_free_runs_what_is_queued)
{
	struct builds *b = builds_new(1, 1);
	int i;

	ck_assert_ptr_nonnull(b);
	done_b = 0;
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(builds_submit(b, job_of(run_b, "")), 0);
	builds_free(b);
	ck_assert_int_eq(done_b, 20);
}
END_TEST

/* The order the recording jobs ran in, by their number. */
static int order[8], norder;

/* A job that notes its number when it runs. */
struct noted {
	struct build_job bj;        /* first: the pool's pointer is the job's */
	int n;
};

static void run_note(struct build_job *bj)
{
	struct noted *j = (struct noted *)bj;

	pthread_mutex_lock(&lock);
	order[norder++] = j->n;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	free(j);
}

/* A holder's rebuilds of stale copies (urgent) are taken before its first
 * builds queued earlier, each kind in queue order. */
START_TEST(test_urgent_jobs_go_first_within_a_holder)
{
	struct builds *b = builds_new(2, 1);
	struct noted *j;
	int i;

	ck_assert_ptr_nonnull(b);
	gate_open = 0;
	running_a = done_a = norder = 0;
	ck_assert_int_eq(builds_submit(b, job_of(run_a, "addr:127.0.0.1")), 0);
	pthread_mutex_lock(&lock);
	while (running_a < 1)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	/* The holder's one thread is held (the other thread is free but may
	 * not take the holder's jobs); queued behind it: 1, 2 (first builds),
	 * 3, 4 (urgent), 5. */
	for (i = 1; i <= 5; i++) {
		ck_assert_ptr_nonnull(j = calloc(1, sizeof *j));
		j->bj.run = run_note;
		snprintf(j->bj.holder, sizeof j->bj.holder, "addr:127.0.0.1");
		j->bj.urgent = i == 3 || i == 4;
		j->n = i;
		ck_assert_int_eq(builds_submit(b, &j->bj), 0);
	}
	ck_assert_uint_eq(builds_queued(b), 5);
	pthread_mutex_lock(&lock);
	gate_open = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
	builds_free(b);
	ck_assert_int_eq(norder, 5);
	ck_assert_int_eq(order[0], 3);
	ck_assert_int_eq(order[1], 4);
	ck_assert_int_eq(order[2], 1);
	ck_assert_int_eq(order[3], 2);
	ck_assert_int_eq(order[4], 5);
}
END_TEST

static Suite *suite_builds(void)
{
	Suite *s = suite_create("builds");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_one_holder_has_at_most_its_share);
	tcase_add_test(t, test_free_runs_what_is_queued);
	tcase_add_test(t, test_urgent_jobs_go_first_within_a_holder);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_builds)
