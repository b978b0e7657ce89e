/* check_guard.c: the per-address connection limit of server/http/guard.c, on a real daemon. */
#include "check_util.h"
#include "http/guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sys/time.h>
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

/* Without a per-address limit, or with every peer a trusted proxy, one
 * address may hold as many connections as it likes. */
static void unlimited_case(const struct guard_config *cfg)
{
	struct guard *g = guard_new(cfg);
	unsigned short port;
	struct MHD_Daemon *d;
	int s[6], i;

	ck_assert_ptr_nonnull(g);
	d = daemon_with(g, &port);
	for (i = 0; i < 6; i++)
		s[i] = dial(port);
	for (i = 5; i >= 0; i--)
		ck_assert_msg(answered(s[i]), "connection %d was not served", i);
	for (i = 0; i < 6; i++)
		close(s[i]);
	MHD_stop_daemon(d);
	guard_free(g);
}

START_TEST(no_limit_and_an_exempt_proxy_admit_everything)
{
	unlimited_case(&(struct guard_config){ .max_connections = 100, .max_per_ip = 0 });
	unlimited_case(&(struct guard_config){ .max_connections = 100, .max_per_ip = 1,
					       .exempt_addr = "127.0.0.1" });
}
END_TEST

/* Once an address's connections close, its count goes down and it is let
 * in again (the count follows libmicrohttpd's close notices). */
START_TEST(closed_connections_give_their_slots_back)
{
	struct guard *g = guard_new(&(struct guard_config){ .max_connections = 100, .max_per_ip = 1 });
	unsigned short port;
	struct MHD_Daemon *d;
	int s, i, ok = 0;

	ck_assert_ptr_nonnull(g);
	d = daemon_with(g, &port);
	s = dial(port);
	ck_assert(answered(s));
	close(s);
	for (i = 0; i < 100 && !ok; i++) {       /* until the daemon saw the close */
		s = dial(port);
		ok = answered(s);
		close(s);
		if (!ok)
			usleep(50 * 1000);
	}
	ck_assert_msg(ok, "the address was never let in again");
	MHD_stop_daemon(d);
	guard_free(g);
}
END_TEST

/* 0 when the server ended s (EOF or reset) within 10 s, 1 when it
 * answered or stayed silent. */
static int ended_by_server(int s)
{
	struct timeval tv = { 10, 0 };
	char got[64];

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return read(s, got, sizeof got) > 0 || errno == EAGAIN;
}

/* A connection whose request does not arrive within request_seconds is
 * shut down by the watchdog, however recently it sent a byte, and counted. */
START_TEST(a_request_not_in_by_its_deadline_is_cut)
{
	struct guard *g = guard_new(&(struct guard_config){ .request_seconds = 1, .max_connections = 100 });
	static const char part[] = "GET / HTTP/1.1\r\nHost: t\r\n";
	unsigned short port;
	struct MHD_Daemon *d;
	int s;

	ck_assert_ptr_nonnull(g);
	d = daemon_with(g, &port);
	s = dial(port);
	ck_assert_int_eq(write(s, part, sizeof part - 1), (ssize_t)(sizeof part - 1));
	ck_assert_int_eq(ended_by_server(s), 0);
	ck_assert_uint_eq(guard_cut_count(g), 1);
	close(s);
	MHD_stop_daemon(d);
	guard_free(g);
}
END_TEST

/* 1 when the server ends at least one of the n sockets s within 10 s. */
static int shed_any(const int *s, int n)
{
	struct pollfd p[8];
	char got[64];
	int i;

	for (i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = s[i], .events = POLLIN };
	if (poll(p, (nfds_t)n, 10000) <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) && read(s[i], got, sizeof got) <= 0)
			return 1;
	return 0;
}

/* As answer(), but as the router does: the first call only marks the
 * request (libmicrohttpd closes a connection answered before its request
 * was all read), the second tells the guard the request is in and answers,
 * so the connection is kept alive. */
static enum MHD_Result answer_in(void *cls, struct MHD_Connection *conn, const char *url,
				 const char *method, const char *version, const char *body,
				 size_t *body_len, void **ctx)
{
	static int seen;

	if (!*ctx) {
		*ctx = &seen;
		return MHD_YES;
	}
	guard_request_in(conn);
	return answer(cls, conn, url, method, version, body, body_len, ctx);
}

/* The router's completion notice: the connection waits for a request again. */
static void completed(void *cls, struct MHD_Connection *conn, void **ctx,
		      enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)ctx, (void)toe;
	guard_request_done(conn);
}

/* Over three quarters of max_connections open, keep-alive connections idle
 * after their response are shed (within a second or two), so they cannot
 * keep the slots from new clients. */
START_TEST(idle_keepalive_connections_are_shed_under_pressure)
{
	struct guard *g = guard_new(&(struct guard_config){ .max_connections = 4, .max_per_ip = 0 });
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	int s[4], i;

	ck_assert_ptr_nonnull(g);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
			     guard_accept, g, answer_in, NULL,
			     MHD_OPTION_NOTIFY_CONNECTION, guard_notify, g,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	info = d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
	ck_assert_ptr_nonnull(info);
	for (i = 0; i < 4; i++) {
		s[i] = dial(info->port);
		ck_assert(answered(s[i]));
		ck_assert_msg(answered(s[i]), "connection %d was not kept alive", i);
	}
	/* Shedding goes on until the pressure is off: at least one goes (all
	 * that were idle a second when the watchdog looked), the count with it. */
	ck_assert_msg(shed_any(s, 4), "no idle connection was shed under pressure");
	ck_assert_uint_ge(guard_cut_count(g), 1);
	for (i = 0; i < 4; i++)
		close(s[i]);
	MHD_stop_daemon(d);
	guard_free(g);
}
END_TEST

static Suite *suite_guard(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("core");
	TCase *slow = tcase_create("watchdog");

	tcase_add_test(tc, third_connection_from_one_address_refused);
	tcase_add_test(tc, exempt_proxy_is_not_limited);
	tcase_add_test(tc, null_guard_admits);
	tcase_add_test(tc, no_limit_and_an_exempt_proxy_admit_everything);
	suite_add_tcase(s, tc);
	/* These wait for the daemon's close notices or for the watchdog, which
	 * looks once a second (up to 10 s a connection). */
	tcase_set_timeout(slow, 60);
	tcase_add_test(slow, closed_connections_give_their_slots_back);
	tcase_add_test(slow, a_request_not_in_by_its_deadline_is_cut);
	tcase_add_test(slow, idle_keepalive_connections_are_shed_under_pressure);
	suite_add_tcase(s, slow);
	return s;
}

CHECK_MAIN(suite_guard)
