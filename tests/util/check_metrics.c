/* check_metrics.c: the lock-free counters and their exposition (util/metrics.c),
 * and the access log's escaping (http/access_log.c). */
#include <pthread.h>

#include "check_util.h"
#include "http/access_log.h"
#include "util/metrics.h"

static const char *const routes[] = { "none", "/r/*", "/a\"b\\c" };
static const char *const kinds[] = { "none", "page", "data" };

/* The exposition as a string; the caller frees. */
static char *exposition(void)
{
	struct buf b = BUF_INIT;

	metrics_write(&b);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

/* The value of the sample line that starts with prefix (name and labels). */
static double sample(const char *text, const char *prefix)
{
	char want[256];
	const char *p;

	snprintf(want, sizeof want, "\n%s ", prefix);
	p = strstr(text, want);
	ck_assert_msg(p != NULL, "no sample %s", prefix);
	return strtod(p + strlen(want), NULL);
}

static void *count_many(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100000; i++) {
		metrics_request(1, 1, 200, 300);
		metrics_inc(MC_ACCESS_LOG_DROPPED);
	}
	return NULL;
}

START_TEST(threads_count_exactly_without_a_lock)
{
	pthread_t t[8];
	char *s;
	int i;

	metrics_names(ML_ROUTE, routes, 3);
	metrics_names(ML_KIND, kinds, 3);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, count_many, NULL), 0);
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	ck_assert_uint_eq(metrics_count(MC_ACCESS_LOG_DROPPED), 800000);
	s = exposition();
	ck_assert_double_eq(sample(s, "llmspeed_http_requests_total{route=\"/r/*\",code=\"2xx\"}"), 800000);
	/* 300 us is in the 0.0005 bucket, not the 0.00025 one; the count is the +Inf bucket. */
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_bucket{kind=\"page\",le=\"0.00025\"}"), 0);
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_bucket{kind=\"page\",le=\"0.0005\"}"), 800000);
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_bucket{kind=\"page\",le=\"+Inf\"}"), 800000);
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_count{kind=\"page\"}"), 800000);
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_sum{kind=\"page\"}"), 240);
	free(s);
}
END_TEST

START_TEST(labels_are_escaped_and_statuses_classed)
{
	char *s;

	metrics_names(ML_ROUTE, routes, 3);
	metrics_names(ML_KIND, kinds, 3);
	metrics_request(2, 2, 404, 10);
	metrics_request(2, 2, 503, 10);
	metrics_request(2, 2, 99, 10);        /* not a status: not counted */
	metrics_request(200, 2, 200, 10);     /* no such route: not counted */
	s = exposition();
	ck_assert_double_eq(sample(s, "llmspeed_http_requests_total{route=\"/a\\\"b\\\\c\",code=\"4xx\"}"), 1);
	ck_assert_double_eq(sample(s, "llmspeed_http_requests_total{route=\"/a\\\"b\\\\c\",code=\"5xx\"}"), 1);
	ck_assert_ptr_null(strstr(s, "code=\"0xx\""));
	ck_assert_double_eq(sample(s, "llmspeed_http_request_duration_seconds_count{kind=\"data\"}"), 2);
	free(s);
}
END_TEST

START_TEST(upload_results_are_kept_by_name)
{
	static char names[40][24];
	char *s;
	int i;

	metrics_upload("accepted");
	metrics_upload("accepted");
	metrics_upload("invalid_signature");
	for (i = 0; i < 40; i++) {           /* more distinct codes than slots */
		snprintf(names[i], sizeof names[i], "code_%d", i);
		metrics_upload(names[i]);
	}
	s = exposition();
	ck_assert_double_eq(sample(s, "llmspeed_uploads_total{result=\"accepted\"}"), 2);
	ck_assert_double_eq(sample(s, "llmspeed_uploads_total{result=\"duplicate\"}"), 0);
	ck_assert_double_eq(sample(s, "llmspeed_uploads_total{result=\"invalid_signature\"}"), 1);
	ck_assert_double_eq(sample(s, "llmspeed_uploads_total{result=\"code_0\"}"), 1);
	/* 32 slots: accepted, duplicate, invalid_signature and 29 codes; 11 more are "other". */
	ck_assert_double_eq(sample(s, "llmspeed_uploads_total{result=\"other\"}"), 11);
	free(s);
}
END_TEST

START_TEST(group_commits_and_cache_lookups)
{
	static const char *const reps[] = { "run_html", "badge_svg" };
	char *s;

	metrics_names(ML_REP, reps, 2);
	metrics_group_commit(1);
	metrics_group_commit(3);
	metrics_group_commit(600);
	metrics_cache(1, 1);
	metrics_cache(1, 0);
	metrics_cache(1, 1);
	s = exposition();
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_bucket{le=\"1\"}"), 1);
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_bucket{le=\"2\"}"), 1);
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_bucket{le=\"4\"}"), 2);
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_bucket{le=\"512\"}"), 2);
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_bucket{le=\"+Inf\"}"), 3);
	ck_assert_double_eq(sample(s, "llmspeed_db_group_commit_size_sum"), 604);
	ck_assert_double_eq(sample(s, "llmspeed_response_cache_hits_total{kind=\"badge_svg\"}"), 2);
	ck_assert_double_eq(sample(s, "llmspeed_response_cache_misses_total{kind=\"badge_svg\"}"), 1);
	ck_assert_ptr_nonnull(strstr(s, "# TYPE llmspeed_db_group_commit_size histogram\n"));
	free(s);
}
END_TEST

#define ESC_EQ(in, n, want) do { struct buf b_ = BUF_INIT; access_log_escape(&b_, in, n); \
	ck_assert_str_eq(b_.buf, want); buf_release(&b_); } while (0)

START_TEST(access_log_fields_are_escaped)
{
	ESC_EQ("curl/8.5.0", 10, "curl/8.5.0");
	ESC_EQ("say \"hi\"", 8, "say \\x22hi\\x22");
	ESC_EQ("back\\slash", 10, "back\\x5cslash");
	ESC_EQ("line\nbreak\x7f", 11, "line\\x0abreak\\x7f");
	ESC_EQ("caf\xc3\xa9", 5, "caf\\xc3\\xa9");
	ESC_EQ("", 0, "-");
	ESC_EQ(NULL, 0, "-");
	ESC_EQ("abcdef", 3, "abc");                /* cut where asked */
}
END_TEST

static Suite *suite_metrics(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	/* One process for all: the counters are process-wide. */
	tcase_add_test(tc, threads_count_exactly_without_a_lock);
	tcase_add_test(tc, labels_are_escaped_and_statuses_classed);
	tcase_add_test(tc, upload_results_are_kept_by_name);
	tcase_add_test(tc, group_commits_and_cache_lookups);
	tcase_add_test(tc, access_log_fields_are_escaped);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_metrics)
