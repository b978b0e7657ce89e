/* check_guard.c: the per-address connection limit of server/http/guard.c, on a real daemon. */
#include "check_util.h"
#include "http/guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Answers every request "ok", keeping the connection open. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *body,
			      size_t *body_len, void **ctx)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	(void)cls, (void)url, (void)method, (void)version, (void)body, (void)body_len, (void)ctx;
	resp = MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(conn, 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A daemon on a free loopback port with guard g; its port in *port. */
static struct MHD_Daemon *daemon_with(struct guard *g, unsigned short *port)
{
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
		0, guard_accept, g, answer, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, guard_notify, g,
		MHD_OPTION_END);
	const union MHD_DaemonInfo *i = d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;

	ck_assert_ptr_nonnull(i);
	*port = i->port;
	return d;
}

/* A connection to 127.0.0.1:port that has sent nothing yet. */
static int dial(unsigned short port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(s, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&a, sizeof a), 0);
	return s;
}

/* Sends one request on s: 1 when an HTTP answer came back, 0 when the
 * server closed the connection instead. */
static int answered(int s)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
	char got[256];
	ssize_t n;

	(void)!write(s, req, sizeof req - 1);
	n = read(s, got, sizeof got - 1);
	return n > 0 && !memcmp(got, "HTTP/1.1 200", 12);
}

/* With max_per_ip 2, while two connections from one address are open a
 * third is closed unanswered (the daemon's one thread accepts them in
 * order, so the first two are counted before the third is judged), and
 * the first two are still served; a proxy named exempt is never limited. */
static void limit_case(const char *exempt_addr, int third_answered)
{
	struct guard *g = guard_new(&(struct guard_config){
		.max_connections = 100, .max_per_ip = 2, .exempt_addr = exempt_addr });
	unsigned short port;
	struct MHD_Daemon *d;
	int s[3], i;

	ck_assert_ptr_nonnull(g);
	d = daemon_with(g, &port);
	for (i = 0; i < 3; i++)
		s[i] = dial(port);
	ck_assert_int_eq(answered(s[2]), third_answered);
	ck_assert_msg(answered(s[0]), "a connection within the limit was not served");
	ck_assert_msg(answered(s[1]), "the second connection within the limit was not served");
	for (i = 0; i < 3; i++)
		close(s[i]);
	MHD_stop_daemon(d);
	guard_free(g);
}

START_TEST(third_connection_from_one_address_refused)
{
	limit_case(NULL, 0);
}
END_TEST

START_TEST(exempt_proxy_is_not_limited)
{
	limit_case("127.0.0.1", 1);
}
END_TEST

/* Without a guard every address is let in and nothing was cut. */
START_TEST(null_guard_admits)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	ck_assert_int_eq(guard_accept(NULL, (struct sockaddr *)&a, sizeof a), MHD_YES);
	ck_assert_uint_eq(guard_cut_count(NULL), 0);
}
END_TEST

static Suite *suite_guard(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, third_connection_from_one_address_refused);
	tcase_add_test(tc, exempt_proxy_is_not_limited);
	tcase_add_test(tc, null_guard_admits);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_guard)
