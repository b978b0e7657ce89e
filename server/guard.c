/* guard.c: request deadlines and the watchdog that enforces them (guard.h). */
#include "guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"

/* One open connection; its socket_context.  Owned by the guard's list,
 * freed when libmicrohttpd reports the connection closed. */
struct gconn {
	struct guard *g;
	MHD_socket fd;
	double deadline;            /* monotonic seconds; 0: none */
	struct gconn *prev, *next;
};

struct guard {
	unsigned seconds;
	pthread_mutex_t lock;       /* guards the list, deadlines and stopping */
	pthread_cond_t wake;
	struct gconn *head;
	int stopping;
	unsigned long cut;
	pthread_t thread;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Shuts down every socket past its deadline.  Runs under g->lock, and a
 * connection leaves the list (under the same lock) before libmicrohttpd
 * closes its socket, so fd is never a number already reused. */
static void cut_late(struct guard *g, double now)
{
	struct gconn *c;

	for (c = g->head; c; c = c->next) {
		if (!c->deadline || c->deadline > now)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->deadline = 0;
		g->cut++;
	}
}

static void *watchdog(void *arg)
{
	struct guard *g = arg;
	struct timespec until;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&g->wake, &g->lock, &until);
		cut_late(g, now_s());
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

struct guard *guard_new(unsigned seconds)
{
	struct guard *g;

	if (!seconds)
		return NULL;
	if (!(g = calloc(1, sizeof *g)))
		return NULL;
	g->seconds = seconds;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->wake, NULL);
	if (pthread_create(&g->thread, NULL, watchdog, g) != 0) {
		log_error("cannot start the request-deadline watchdog: %s", strerror(errno));
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g);
		return NULL;
	}
	return g;
}

void guard_free(struct guard *g)
{
	struct gconn *c, *next;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = 1;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	for (c = g->head; c; c = next) {
		next = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

/* Adds a new connection to the list with its first deadline. */
static struct gconn *track(struct guard *g, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	struct gconn *c;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || !(c = calloc(1, sizeof *c)))
		return NULL;
	c->g = g;
	c->fd = ci->connect_fd;
	pthread_mutex_lock(&g->lock);
	c->deadline = now_s() + g->seconds;
	c->next = g->head;
	if (g->head)
		g->head->prev = c;
	g->head = c;
	pthread_mutex_unlock(&g->lock);
	return c;
}

static void untrack(struct gconn *c)
{
	struct guard *g = c->g;

	pthread_mutex_lock(&g->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&g->lock);
	free(c);
}

void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		  enum MHD_ConnectionNotificationCode toe)
{
	if (!cls)
		return;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
		*socket_context = track(cls, conn);
	else if (*socket_context) {
		untrack(*socket_context);
		*socket_context = NULL;
	}
}

/* Sets conn's deadline to seconds from now, or clears it. */
static void set_deadline(struct MHD_Connection *conn, int start)
{
	const union MHD_ConnectionInfo *ci;
	struct gconn *c;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!ci || !(c = ci->socket_context))
		return;
	pthread_mutex_lock(&c->g->lock);
	c->deadline = start ? now_s() + c->g->seconds : 0;
	pthread_mutex_unlock(&c->g->lock);
}

void guard_request_in(struct MHD_Connection *conn)
{
	set_deadline(conn, 0);
}

void guard_request_done(struct MHD_Connection *conn)
{
	set_deadline(conn, 1);
}

unsigned long guard_cut_count(struct guard *g)
{
	unsigned long n;

	if (!g)
		return 0;
	pthread_mutex_lock(&g->lock);
	n = g->cut;
	pthread_mutex_unlock(&g->lock);
	return n;
}
