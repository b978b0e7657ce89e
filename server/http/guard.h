/* guard.h: connection admission and the request deadline libmicrohttpd
 * 0.9.75 lacks.
 *
 * Deadlines.  MHD_OPTION_CONNECTION_TIMEOUT is an idle timeout: every byte
 * a client sends resets it, so a client trickling one header byte a second
 * (slowloris), or a body just as slowly, would hold its connection for
 * ever.  The guard gives each request a deadline instead: its request line,
 * headers and body must all have arrived within `request_seconds` of the
 * moment the connection opened or the previous response on it was done.  A
 * watchdog thread checks once a second and shuts down the socket of a
 * connection past its deadline; libmicrohttpd then sees the end of the
 * stream and closes it as usual.  A request that is in (being answered, or
 * suspended while the database works) has no deadline.
 *
 * Per-address limit.  The guard counts open connections per client address
 * (an IPv6 address by its /64) and refuses one over `max_per_ip` at accept.
 * A trusted reverse proxy's own address is exempt: it carries many clients
 * over shared keep-alive connections, and limits them itself (nginx
 * limit_conn, deploy/nginx.conf).
 *
 * Pressure.  When more than three quarters of `max_connections` are open,
 * the watchdog sheds first the keep-alive connections that sit idle after a
 * response, then every connection that has waited more than
 * GUARD_PRESSURE_SECONDS for its request to arrive, so slow or idle
 * clients cannot keep the slots from everyone else.
 *
 *   struct guard *g = guard_new(&(struct guard_config){ ... });
 *   MHD_start_daemon(..., guard_accept, g, ...,
 *                    MHD_OPTION_NOTIFY_CONNECTION, guard_notify, g, ...);
 *   ... router: guard_request_in(conn) when the whole request is in,
 *               guard_request_done(conn) when it completed ...
 *   MHD_stop_daemon(d);  guard_free(g);
 */
#ifndef LLMS_GUARD_H
#define LLMS_GUARD_H

#include <microhttpd.h>
#include <sys/socket.h>

/* Under pressure, how long a connection may wait for its request. */
#define GUARD_PRESSURE_SECONDS 5

struct guard_config {
	unsigned request_seconds;   /* a request's deadline; 0: none */
	unsigned max_connections;   /* the daemon's total; sets the pressure mark */
	unsigned max_per_ip;        /* open connections per address; 0: no limit */
	const char *exempt_addr;    /* a trusted proxy, exempt from max_per_ip */
};

struct guard;

/* Starts the watchdog.  NULL on failure, with a log line (every function
 * below accepts NULL and then does nothing). */
struct guard *guard_new(const struct guard_config *cfg);
/* Stops the watchdog and frees g; call after MHD_stop_daemon(). */
void guard_free(struct guard *g);

/* The MHD_AcceptPolicyCallback; cls is the guard.  MHD_NO for an address
 * that holds max_per_ip connections already. */
enum MHD_Result guard_accept(void *cls, const struct sockaddr *addr, socklen_t len);

/* The MHD_OPTION_NOTIFY_CONNECTION callback; cls is the guard. */
void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		  enum MHD_ConnectionNotificationCode toe);

/* The whole request on conn is in: no deadline until it is answered. */
void guard_request_in(struct MHD_Connection *conn);
/* The request on conn is over: the next one's deadline starts now. */
void guard_request_done(struct MHD_Connection *conn);

/* Connections cut so far for missing their deadline or shed. */
unsigned long guard_cut_count(struct guard *g);
/* Connections open now (for /metrics). */
unsigned guard_open_count(struct guard *g);

#endif
