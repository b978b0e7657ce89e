/* guard.c: per-address admission, request deadlines and shedding under pressure (guard.h). */
#include "http/guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "util/metrics.h"

#define NBUCKETS 4096

/* Open connections from one address (an IPv6 /64). */
struct addr_count {
	unsigned char key[16];
	unsigned n;
	struct addr_count *next;
};

/* One open connection; its socket_context.  Owned by the guard's list,
 * freed when libmicrohttpd reports the connection closed. */
struct gconn {
	struct guard *g;
	MHD_socket fd;
	double deadline;            /* monotonic seconds; 0: none */
	double since;               /* when it began to wait for a request */
	int busy;                   /* a request is in and being answered */
	int served;                 /* at least one response went out */
	int cut;                    /* already shut down */
	int counted;                /* counts against its address */
	unsigned char key[16];
	struct gconn *prev, *next;
};

struct guard {
	struct guard_config cfg;
	unsigned char exempt[16];
	int has_exempt;
	pthread_mutex_t lock;       /* guards everything below */
	pthread_cond_t wake;
	struct gconn *head;
	unsigned open;              /* connections in the list */
	struct addr_count *buckets[NBUCKETS];
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

/* The counting key of an address: IPv4 as ::ffff:a.b.c.d, IPv6 by its
 * /64 (one subscriber's share).  -1 for other families. */
static int key_of(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa && sa->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa && sa->sa_family == AF_INET6) {
		const unsigned char *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		memcpy(key, a, 16);
		if (!IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a))
			memset(key + 8, 0, 8);
		return 0;
	}
	return -1;
}

/* The key of a textual address, for the exempt proxy; -1 if not one. */
static int key_of_text(const char *text, unsigned char key[16])
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };

	if (inet_pton(AF_INET, text, &s4.sin_addr) == 1)
		return key_of((struct sockaddr *)&s4, key);
	if (inet_pton(AF_INET6, text, &s6.sin6_addr) == 1)
		return key_of((struct sockaddr *)&s6, key);
	return -1;
}

static int exempt(const struct guard *g, const unsigned char key[16])
{
	return g->has_exempt && !memcmp(key, g->exempt, 16);
}

static unsigned bucket_of(const unsigned char key[16])
{
	unsigned h = 2166136261u;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % NBUCKETS;
}

/* The count node of key, or NULL; under g->lock. */
static struct addr_count *count_find(struct guard *g, const unsigned char key[16])
{
	struct addr_count *a;

	for (a = g->buckets[bucket_of(key)]; a; a = a->next)
		if (!memcmp(a->key, key, 16))
			return a;
	return NULL;
}

/* Adds one connection to key's count and returns the new count; 0 when
 * out of memory (the connection is then not limited).  Under g->lock. */
static unsigned count_add(struct guard *g, const unsigned char key[16])
{
	struct addr_count *a = count_find(g, key);
	unsigned b;

	if (!a) {
		if (!(a = calloc(1, sizeof *a)))
			return 0;
		b = bucket_of(key);
		memcpy(a->key, key, 16);
		a->next = g->buckets[b];
		g->buckets[b] = a;
	}
	return ++a->n;
}

/* Takes one connection off key's count, dropping the node at zero. */
static void count_remove(struct guard *g, const unsigned char key[16])
{
	struct addr_count **p, *a;

	for (p = &g->buckets[bucket_of(key)]; (a = *p); p = &a->next) {
		if (memcmp(a->key, key, 16))
			continue;
		if (--a->n == 0) {
			*p = a->next;
			free(a);
		}
		return;
	}
}

static int under_pressure(const struct guard *g)
{
	return g->cfg.max_connections && g->open * 4 > g->cfg.max_connections * 3;
}

/* 1 when c should go now: past its deadline, or, under pressure, idle
 * after a response (at least a second) or waiting for its request longer
 * than GUARD_PRESSURE_SECONDS. */
static int due(const struct gconn *c, int pressure, double now)
{
	if (c->cut || c->busy)
		return 0;
	if (c->deadline && c->deadline <= now)
		return 1;
	if (!pressure)
		return 0;
	return now - c->since >= (c->served ? 1 : GUARD_PRESSURE_SECONDS);
}

/* Shuts down every socket that is due.  Runs under g->lock, and a
 * connection leaves the list (under the same lock) before libmicrohttpd
 * closes its socket, so fd is never a number already reused. */
static void cut_due(struct guard *g, double now)
{
	int pressure = under_pressure(g);
	struct gconn *c;

	for (c = g->head; c; c = c->next) {
		if (!due(c, pressure, now))
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->cut = 1;
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
		cut_due(g, now_s());
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

struct guard *guard_new(const struct guard_config *cfg)
{
	struct guard *g;

	if (!(g = calloc(1, sizeof *g)))
		return NULL;
	g->cfg = *cfg;
	g->has_exempt = cfg->exempt_addr && key_of_text(cfg->exempt_addr, g->exempt) == 0;
	g->cfg.exempt_addr = NULL;   /* not kept: the caller owns the text */
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->wake, NULL);
	if (pthread_create(&g->thread, NULL, watchdog, g) != 0) {
		log_error("cannot start the connection watchdog: %s", strerror(errno));
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g);
		return NULL;
	}
	return g;
}

void guard_free(struct guard *g)
{
	struct addr_count *a, *an;
	struct gconn *c, *next;
	size_t i;

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
	for (i = 0; i < NBUCKETS; i++)
		for (a = g->buckets[i]; a; a = an) {
			an = a->next;
			free(a);
		}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

enum MHD_Result guard_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct guard *g = cls;
	struct addr_count *a;
	unsigned char key[16];
	enum MHD_Result ok = MHD_YES;

	(void)len;
	if (!g || !g->cfg.max_per_ip || key_of(addr, key) < 0)
		return MHD_YES;
	pthread_mutex_lock(&g->lock);
	if (!exempt(g, key) && (a = count_find(g, key)) && a->n >= g->cfg.max_per_ip)
		ok = MHD_NO;
	pthread_mutex_unlock(&g->lock);
	if (ok == MHD_NO)
		metrics_inc(MC_CONN_REFUSED);
	return ok;
}

/* Adds a new connection to the list with its first deadline and counts
 * it against its address; one that slipped past guard_accept over the
 * limit (two threads accepting at once) is shut down at once. */
static struct gconn *track(struct guard *g, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *fd, *ad;
	struct gconn *c;
	double now = now_s();

	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	ad = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd || !(c = calloc(1, sizeof *c)))
		return NULL;
	c->g = g;
	c->fd = fd->connect_fd;
	c->since = now;
	pthread_mutex_lock(&g->lock);
	if (g->cfg.request_seconds)
		c->deadline = now + g->cfg.request_seconds;
	if (g->cfg.max_per_ip && ad && key_of(ad->client_addr, c->key) == 0 && !exempt(g, c->key)) {
		unsigned n = count_add(g, c->key);

		c->counted = n > 0;
		if (n > g->cfg.max_per_ip) {
			shutdown(c->fd, SHUT_RDWR);
			c->cut = 1;
		}
	}
	c->next = g->head;
	if (g->head)
		g->head->prev = c;
	g->head = c;
	g->open++;
	if (under_pressure(g))
		pthread_cond_signal(&g->wake);
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
	if (c->counted)
		count_remove(g, c->key);
	g->open--;
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

/* Marks conn busy (a request is in) or waiting again after a response. */
static void set_busy(struct MHD_Connection *conn, int busy)
{
	const union MHD_ConnectionInfo *ci;
	struct gconn *c;
	double now;

	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!ci || !(c = ci->socket_context))
		return;
	now = now_s();
	pthread_mutex_lock(&c->g->lock);
	c->busy = busy;
	if (!busy) {
		c->served = 1;
		c->since = now;
	}
	c->deadline = !busy && c->g->cfg.request_seconds ? now + c->g->cfg.request_seconds : 0;
	pthread_mutex_unlock(&c->g->lock);
}

void guard_request_in(struct MHD_Connection *conn)
{
	set_busy(conn, 1);
}

void guard_request_done(struct MHD_Connection *conn)
{
	set_busy(conn, 0);
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

unsigned guard_open_count(struct guard *g)
{
	unsigned n;

	if (!g)
		return 0;
	pthread_mutex_lock(&g->lock);
	n = g->open;
	pthread_mutex_unlock(&g->lock);
	return n;
}
