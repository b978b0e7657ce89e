/* guard.h: the request deadline libmicrohttpd 0.9.75 lacks.
 *
 * MHD_OPTION_CONNECTION_TIMEOUT is an idle timeout: every byte a client
 * sends resets it, so a client trickling one header byte a second
 * (slowloris), or a body just as slowly, would hold its connection for
 * ever.  The guard gives each request a deadline instead: its request line,
 * headers and body must all have arrived within `seconds` of the moment the
 * connection opened or the previous response on it was done.  A watchdog
 * thread checks once a second and shuts down the socket of a connection
 * past its deadline; libmicrohttpd then sees the end of the stream and
 * closes it as usual.  A request that is in (being answered, or suspended
 * while the database works) has no deadline.
 *
 *   struct guard *g = guard_new(30);
 *   MHD_start_daemon(..., MHD_OPTION_NOTIFY_CONNECTION, guard_notify, g, ...);
 *   ... router: guard_request_in(conn) when the whole request is in,
 *               guard_request_done(conn) when it completed ...
 *   MHD_stop_daemon(d);  guard_free(g);
 */
#ifndef LLMS_GUARD_H
#define LLMS_GUARD_H

#include <microhttpd.h>

struct guard;

/* Starts the watchdog; seconds 0 turns the guard off and returns NULL
 * (every function below accepts that).  NULL on failure too, with a log line. */
struct guard *guard_new(unsigned seconds);
/* Stops the watchdog and frees g; call after MHD_stop_daemon(). */
void guard_free(struct guard *g);

/* The MHD_OPTION_NOTIFY_CONNECTION callback; cls is the guard. */
void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		  enum MHD_ConnectionNotificationCode toe);

/* The whole request on conn is in: no deadline until it is answered. */
void guard_request_in(struct MHD_Connection *conn);
/* The request on conn is over: the next one's deadline starts now. */
void guard_request_done(struct MHD_Connection *conn);

/* Connections cut so far for missing their deadline. */
unsigned long guard_cut_count(struct guard *g);

#endif
