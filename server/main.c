/* main.c: start-up: options, the database, the daemon, signals; the
 * sub-commands (account, snapshot, backup, sample-run) are dispatched from here. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <sodium.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "http/builds.h"
#include "commands.h"
#include "options.h"
#include "http/cache.h"
#include "domain/ceiling.h"
#include "store/outlier.h"
#include "store/db.h"
#include "ingest/demo.h"
#include "disputes/dispute.h"
#include "http/access_log.h"
#include "http/answer.h"
#include "http/framing.h"
#include "http/guard.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "pages/kinds.h"
#include "pages/page.h"
#include "warm.h"
#include "http/ratelimit.h"
#include "router.h"
#include "ingest/sample.h"
#include "render/raster.h"
#include "render/tmpl.h"
#include "store/tlog_signer.h"
#include "store/netkey.h"
#include "store/refresh.h"
#include "store/scope.h"
#include "store/forecast.h"
#include "ingest/validate.h"
#include "store/tlog_store.h"

/* Resolves host:port (or [v6]:port) for libmicrohttpd. */
static struct addrinfo *resolve(const char *listen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	char host[256];
	const char *colon = strrchr(listen, ':');
	struct addrinfo *ai = NULL;
	size_t n;

	if (!colon || (n = (size_t)(colon - listen)) >= sizeof host)
		return NULL;
	memcpy(host, listen, n);
	host[n] = '\0';
	if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = '\0';
	}
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
		return NULL;
	return ai;
}

static struct MHD_Daemon *start_daemon(struct app *app, const struct sockaddr *sa)
{
	const struct config *c = &app->cfg;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
	struct guard_config gc = {
		.request_seconds = c->request_timeout,
		.max_connections = c->max_connections,
		.max_per_ip = c->max_per_ip,
		/* A trusted proxy carries many clients on shared keep-alive
		 * connections; it limits them itself (deploy/nginx.conf). */
		.exempt_addr = c->trust_proxy ? c->trust_proxy_addr : NULL,
	};

	if (sa->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (!(app->guard = guard_new(&gc)))
		return NULL;
	/* The per-address limit is the guard's (guard_accept), not
	 * MHD_OPTION_PER_IP_CONNECTION_LIMIT, which cannot exempt a proxy. */
	return MHD_start_daemon(flags, 0, guard_accept, app->guard, router_access, app,
		MHD_OPTION_SOCK_ADDR, sa,
		MHD_OPTION_THREAD_POOL_SIZE, c->threads,
		MHD_OPTION_CONNECTION_LIMIT, c->max_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, c->conn_timeout,
		/* Room for the request line and headers, and beside them for
		 * the records of the query arguments (framing.h). */
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, framing_pool_bytes(c->max_header_bytes),
		MHD_OPTION_URI_LOG_CALLBACK, router_uri, app,
		MHD_OPTION_NOTIFY_CONNECTION, guard_notify, app->guard,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024,
		MHD_OPTION_NOTIFY_COMPLETED, router_completed, app,
		MHD_OPTION_URI_LOG_CALLBACK, router_uri, app,
		MHD_OPTION_END);
}

/* Waits for SIGTERM or SIGINT (SIGHUP reopens the access log), then stops
 * accepting and lets the requests in flight finish (up to 30 s) before the
 * daemon is stopped. */
static void wait_and_drain(struct MHD_Daemon *d, struct app *app, const sigset_t *set)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct db *db = app->db;
	MHD_socket ls;
	int sig, i;

	while (sigwait(set, &sig) == 0 && sig == SIGHUP)
		access_log_reopen(app->access_log);
	log_info("signal %d: stopping", sig);
	ls = MHD_quiesce_daemon(d);
	/* The socket may only be closed after MHD_stop_daemon(), but shutting
	 * it down now makes new connections fail at once instead of waiting
	 * unanswered in the backlog while the requests in flight finish. */
	if (ls != MHD_INVALID_SOCKET)
		shutdown(ls, SHUT_RDWR);
	/* Requests get 30 s to finish; a connection suspended on a database
	 * write is waited for however long the write takes (each write ends
	 * within the busy timeout), since libmicrohttpd must not be stopped
	 * with a suspended connection. */
	for (i = 0; router_in_flight() > 0 && (i < 1500 || db_pending(db) > 0 ||
					      builds_running(app->builds) + builds_queued(app->builds) > 0); i++)
		nanosleep(&tick, NULL);
	MHD_stop_daemon(d);
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
}

static int load_assets(struct app *app)
{
	struct err te = ERR_INIT;
	char dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s/templates", app->cfg.assets);
	app->tmpl = tmpl_set_load(dir, &te);
	if (!app->tmpl) {
		fprintf(stderr, "llm-speedd: templates: %s\n", te.message);
		return -1;
	}
	/* The page kinds' table, its routes and templates hold together. */
	if (router_init(&te) < 0 || page_kinds_check(app->tmpl, &te) < 0) {
		fprintf(stderr, "llm-speedd: %s\n", te.message);
		return -1;
	}
	if (page_meta_init(dir, &te) < 0) {
		fprintf(stderr, "llm-speedd: templates: %s\n", te.message);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/schema/openapi.json", app->cfg.assets);
	if (page_api_init(dir, &te) < 0) {
		fprintf(stderr, "llm-speedd: %s\n", te.message);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/static", app->cfg.assets);
	if (page_static_init(dir) < 0)
		fprintf(stderr, "llm-speedd: no static folder at %s\n", dir);
	snprintf(dir, sizeof dir, "%s/static/reference", app->cfg.assets);
	app->ref = ceiling_load(dir, &te);
	if (!app->ref)   /* pages then show no ceiling; /fit answers 503 */
		fprintf(stderr, "llm-speedd: no reference data: %s\n", te.message);
	/* The writer flags runs far above their ceiling against the same data. */
	db_set_reference(app->ref);
	return 0;
}

/* After a new checkpoint: the run JSONs kept in the cache carry proofs
 * against the previous one. */
static void checkpoint_published(void *arg)
{
	cache_bump_rep(arg, REP_RUN_JSON);
}

/* After every commit: the log's signer and the refresh thread wake. */
static void on_commit(void *arg)
{
	struct app *app = arg;

	tlog_signer_notify(app->tlog);
	refresh_notify(app->refresh);
}

/* After the refresh thread changed figures the list pages show
 * (predictions, versions, asks): the kept list pages of the scopes it
 * touched, and every unscoped one, are stale. */
static void figures_refreshed(void *arg, const struct scope_set *touched)
{
	if (touched->over)
		cache_bump_lists(arg);
	else
		cache_bump_scopes(arg, touched->t, touched->n);
}

/* Opens the transparency log's signer (key and checkpoints beside the
 * database) with the origin of the public base URL, and wakes it after
 * every commit; prints the reason and returns -1 when the database does
 * not extend the log already published. */
static int open_tlog(struct app *app)
{
	const struct config *c = &app->cfg;
	struct err err = ERR_INIT;
	char base[512], origin[256];

	if (c->base_url)
		snprintf(base, sizeof base, "%s", c->base_url);
	else if (!strncmp(c->listen, "0.0.0.0:", 8))
		snprintf(base, sizeof base, "http://localhost:%s", c->listen + 8);
	else
		snprintf(base, sizeof base, "http://%s", c->listen);
	tlog_signer_origin_of(base, origin, sizeof origin);
	if (tlog_signer_open(app->db, c->db_path, origin, &app->tlog, &err) < 0) {
		fprintf(stderr, "llm-speedd: transparency log: %s\n", err.message);
		return -1;
	}
	tlog_signer_on_publish(app->tlog, checkpoint_published, app->cache);
	if (tlog_signer_start(app->tlog) < 0) {
		fprintf(stderr, "llm-speedd: transparency log: cannot start the signing thread\n");
		return -1;
	}
	db_set_commit_hook(app->db, on_commit, app);
	return 0;
}

/* Loads (or makes) the secret networks are hashed under, beside the
 * database. */
static int open_netkey(struct app *app)
{
	struct err err = ERR_INIT;

	if (!(app->netkey = malloc(sizeof *app->netkey)) ||
	    netkey_load(app->cfg.db_path, app->netkey, &err) < 0) {
		fprintf(stderr, "llm-speedd: %s\n", app->netkey ? err.message : "out of memory");
		return -1;
	}
	return 0;
}

/* What operators watch: the metrics' labels, the start time, the access log. */
static int open_ops(struct app *app)
{
	struct timespec now;
	struct err err = ERR_INIT;

	router_metrics_init();
	clock_gettime(CLOCK_REALTIME, &now);
	app->started = (double)now.tv_sec + now.tv_nsec / 1e9;
	if (app->cfg.access_log && !(app->access_log = access_log_open(app->cfg.access_log, &err))) {
		fprintf(stderr, "llm-speedd: %s\n", err.message);
		return -1;
	}
	return 0;
}

static void app_free(struct app *app)
{
	warm_stop(app->warm);     /* builds on the cache and the database */
	builds_free(app->builds);      /* runs what is queued: before the database goes */
	raster_free(app->raster);
	guard_free(app->guard);
	access_log_close(app->access_log);
	if (app->db)
		db_set_commit_hook(app->db, NULL, NULL);
	refresh_stop(app->refresh);
	forecast_free();
	tlog_signer_close(app->tlog);
	if (app->netkey)
		sodium_memzero(app->netkey, sizeof *app->netkey);
	free(app->netkey);
	db_close(app->db);
	tmpl_set_free(app->tmpl);
	cache_free(app->cache);
	ratelimit_free(app->upload_rl);
	ratelimit_free(app->dispute_rl);
	ratelimit_free(app->refusal_rl);
	ratelimit_free(app->moderator_rl);
	ratelimit_free(app->search_rl);
	page_static_free();
	ceiling_free(app->ref);
	page_api_free();
	page_meta_free();
	page_log_free();
}

static int serve(struct app *app)
{
	struct MHD_Daemon *d;
	unsigned long commits, writes;
	struct addrinfo *ai;
	sigset_t set;

	app->cfg.serving = 1;
	if (answer_init() < 0 || load_assets(app) < 0 || !(app->db = open_db(&app->cfg)))
		return 1;
	if (open_netkey(app) < 0)
		return 1;
	app->cache = cache_new(20000);
	if (app->cache)
		cache_set_stale_ms(app->cache, app->cfg.test_stale_ms);
	app->upload_rl = ratelimit_new(app->cfg.upload_rate, app->cfg.upload_rate ? app->cfg.upload_rate : 1);
	app->dispute_rl = ratelimit_new(app->cfg.dispute_rate, app->cfg.dispute_rate ? app->cfg.dispute_rate : 1);
	/* Searches come in bursts while someone types: a quarter of a minute's worth at once. */
	app->search_rl = ratelimit_new(app->cfg.search_rate,
				       app->cfg.search_rate > 4 ? app->cfg.search_rate / 4 : 1);
	/* Refused uploads and wrong moderator tokens cost the sender: each
	 * has an allowance of its own per address.  --upload-rate 0 (load
	 * tests) lifts the first; nothing lifts the second. */
	app->refusal_rl = ratelimit_new_capped(app->cfg.upload_rate ? app->cfg.refusal_rate : 0);
	app->moderator_rl = ratelimit_new_capped(DISPUTE_MODERATOR_GUESSES);
	if (!app->cache || !app->upload_rl || !app->dispute_rl || !app->search_rl ||
	    !app->refusal_rl || !app->moderator_rl) {
		fprintf(stderr, "llm-speedd: out of memory setting up the %s\n",
			!app->cache ? "response cache" : "rate limits");
		return 1;
	}
	if (!(app->builds = builds_new(BUILDS_THREADS, BUILDS_PER_HOLDER))) {
		fprintf(stderr, "llm-speedd: cannot start the threads that build pages\n");
		return 1;
	}
	/* Link-preview cards: off (and said so once) without rsvg-convert. */
	if (!(app->raster = raster_new(NULL, NULL))) {
		fprintf(stderr, "llm-speedd: cannot start the threads that draw link-preview cards\n");
		return 1;
	}
	if (dispute_init(app->db) < 0) {
		fprintf(stderr, "llm-speedd: cannot read or store the dispute form key\n");
		return 1;
	}
	if (!(app->refresh = refresh_start(app->db, app->ref, VALIDATE_SUITE, figures_refreshed,
					   app->cache))) {
		fprintf(stderr, "llm-speedd: cannot start the refresh thread\n");
		return 1;
	}
	if (open_tlog(app) < 0)
		return 1;
	if (app->cfg.demo && demo_fill(app->db) < 0)
		return 1;
	if (open_ops(app) < 0)
		return 1;
	if (!(ai = resolve(app->cfg.listen))) {
		fprintf(stderr, "llm-speedd: cannot use --listen %s (want HOST:PORT)\n", app->cfg.listen);
		return 1;
	}
	d = start_daemon(app, ai->ai_addr);
	freeaddrinfo(ai);
	if (!d) {
		fprintf(stderr, "llm-speedd: cannot listen on %s: %s\n", app->cfg.listen, strerror(errno));
		return 1;
	}
	log_info("serving on http://%s with database %s", app->cfg.listen, app->cfg.db_path);
	app->warm = warm_start(app);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	wait_and_drain(d, app, &set);
	db_stats(app->db, &commits, &writes);
	log_info("database writer: %lu writes in %lu commits", writes, commits);
	return 0;
}

/* --test-clock FILE (tests only, in no --help and no environment
 * variable): the clock is read from FILE from here on.  Returns 0, or -1
 * after saying why FILE holds no time. */
static int use_test_clock(const struct config *c)
{
	if (!c->test_clock)
		return 0;
	if (time_test_clock(c->test_clock) < 0) {
		fprintf(stderr, "llm-speedd: --test-clock %s: the file must hold a whole number of "
			"seconds (a time, or an offset such as +60)\n", c->test_clock);
		return -1;
	}
	log_info("--test-clock %s: the clock is read from this file (for tests only)", c->test_clock);
	return 0;
}

/* `llm-speedd kinds`: the page kinds' table as JSON (the browser tests
 * read their page list from it); `llm-speedd routes`: every route, one a
 * line (tests/http/test_openapi.py checks openapi.json against it).
 * 0, or 1 when the table does not hold together. */
static int tables_main(const char *what)
{
	struct err e = ERR_INIT;
	json_t *k;
	char *s;

	if (router_init(&e) < 0) {
		fprintf(stderr, "llm-speedd: %s\n", e.message);
		return 1;
	}
	if (!strcmp(what, "routes")) {
		router_print(stdout);
		return 0;
	}
	k = page_kinds_json();
	s = k ? json_dumps(k, JSON_INDENT(1)) : NULL;
	json_decref(k);
	if (!s)
		return 1;
	puts(s);
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	struct app app = { 0 };
	sigset_t set;
	int first, rc;

	if (sodium_init() < 0) {
		fputs("llm-speedd: libsodium failed to start\n", stderr);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "sample-run"))
		return sample_main(argc - 1, argv + 1);
	if (argc == 2 && (!strcmp(argv[1], "kinds") || !strcmp(argv[1], "routes")))
		return tables_main(argv[1]);
	defaults(&app.cfg);
	first = parse_options(argc, argv, &app.cfg, 0);
	if (first < 0)
		return 2;
	log_set_quiet(app.cfg.quiet);
	if (first < argc && !strcmp(argv[first], "account")) {
		/* Options after the command too: account add NAME --db FILE. */
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0 || use_test_clock(&app.cfg) < 0)
			return 2;
		return commands_account(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc && !strcmp(argv[first], "backup")) {
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0)
			return 2;
		return commands_backup(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc && !strcmp(argv[first], "resolve")) {
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0)
			return 2;
		return commands_resolve(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc && !strcmp(argv[first], "snapshot")) {
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0 || use_test_clock(&app.cfg) < 0)
			return 2;
		return commands_snapshot(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc) {
		fprintf(stderr, "llm-speedd: unknown command %s\n%s", argv[first], usage);
		return 2;
	}
	if (use_test_clock(&app.cfg) < 0)
		return 2;
	/* Threads started from here on inherit the blocked signals, so only
	 * sigwait() in this thread sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = serve(&app);
	app_free(&app);
	if (!rc)
		log_info("stopped cleanly");
	return rc;
}
