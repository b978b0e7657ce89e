/* main.c: options, the database, the daemon, signals; and the account and
 * sample-run subcommands. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <libgen.h>
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

#include "ingest/account.h"
#include "app.h"
#include "http/cache.h"
#include "store/ceiling.h"
#include "store/db.h"
#include "store/outlier.h"
#include "ingest/demo.h"
#include "disputes/dispute.h"
#include "http/guard.h"
#include "util/log.h"
#include "pages/page.h"
#include "http/ratelimit.h"
#include "router.h"
#include "ingest/sample.h"
#include "render/tmpl.h"
#include "store/tlog_signer.h"
#include "store/tlog_store.h"

/* Every setting: its flag, its environment variable, its default. */
static const char usage[] =
"usage: llm-speedd [options]                 serve the leaderboard\n"
"       llm-speedd account add NAME [--db F]  create an account, print its token once\n"
"       llm-speedd account revoke NAME [--db F]\n"
"       llm-speedd sample-run [--help]        print a signed sample run\n"
"       llm-speedd snapshot DIR [--db FILE]    write a gzipped export and SHA256SUMS to DIR\n"
"       (options may come before or after account add|revoke NAME)\n"
"\n"
"options (each also read from the environment variable shown):\n"
"  --listen HOST:PORT     LLMSPEED_LISTEN          default 127.0.0.1:8080\n"
"  --db FILE              LLMSPEED_DB              default ./data/llm-speed.db\n"
"  --db-group NAME        LLMSPEED_DB_GROUP        the database files are created 0600\n"
"                                                  (owner only) whatever the umask; with\n"
"                                                  a group, 0640 and that group may read\n"
"  --assets DIR           LLMSPEED_ASSETS          templates/, static/, migrations/, schema/;\n"
"                                                  default: the binary's folder\n"
"  --base-url URL         LLMSPEED_BASE_URL        public origin for links,\n"
"                                                  default http://<listen>\n"
"  --threads N            LLMSPEED_THREADS         worker threads, default: one per CPU\n"
"\n"
"limits (load tests and benchmarks raise them for their own traffic):\n"
"  --max-connections N    LLMSPEED_MAX_CONNECTIONS open connections in total, default 1024;\n"
"                                                  more wait in the listen queue; over\n"
"                                                  three quarters open, idle keep-alive\n"
"                                                  connections are shed and a request\n"
"                                                  gets 5 s to arrive\n"
"  --max-per-ip N         LLMSPEED_MAX_PER_IP      open connections per client address\n"
"                                                  (IPv6: per /64), default 32; more are\n"
"                                                  refused at once; a --trust-proxy peer\n"
"                                                  is exempt\n"
"  --timeout SECONDS      LLMSPEED_TIMEOUT         close a connection idle this long,\n"
"                                                  default 10\n"
"  --request-timeout SECONDS LLMSPEED_REQUEST_TIMEOUT a request's line, headers and body\n"
"                                                  must all arrive within this time of\n"
"                                                  its start however slowly they trickle,\n"
"                                                  default 30 (0: off)\n"
"  --max-header-bytes N   LLMSPEED_MAX_HEADER_BYTES memory per connection for the request\n"
"                                                  line and headers; larger gets 431,\n"
"                                                  default 32768 (at least 8192)\n"
"                         request bodies: 64 KiB for uploads (fixed by the contract),\n"
"                         64 KiB for dispute posts; larger gets 413\n"
"  --upload-rate N        LLMSPEED_UPLOAD_RATE     uploads per minute per account or\n"
"                                                  address, default 30 (0: unlimited);\n"
"                                                  over it: 429 with Retry-After\n"
"  --dispute-rate N       LLMSPEED_DISPUTE_RATE    dispute posts per minute per address,\n"
"                                                  default 5 (0: unlimited)\n"
"  --search-rate N        LLMSPEED_SEARCH_RATE     searches per minute per address,\n"
"                                                  default 120 (0: unlimited)\n"
"  --db-busy-timeout MS   LLMSPEED_DB_BUSY_TIMEOUT how long a write waits for a database\n"
"                                                  locked by another process before the\n"
"                                                  upload gets 503, default 5000\n"
"  --trust-proxy[=ADDR]   LLMSPEED_TRUST_PROXY=1|ADDR  take the client address (for rate\n"
"                                                  limits) from the last X-Forwarded-For\n"
"                                                  entry; with ADDR only on connections\n"
"                                                  from that address (your reverse proxy)\n"
"\n"
"  --demo                                          fill an empty database with demo runs\n"
"  --quiet                LLMSPEED_QUIET=1         no informational log lines\n"
"  LLMSPEED_MODERATOR_TOKEN=<secret>               enables dispute moderation\n";

/* Parses a whole decimal number up to UINT_MAX; -1 for anything else
 * (atoi would turn a typo into 0, which for a limit means "unlimited"). */
static int parse_uint(const char *s, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static unsigned env_uint(const char *name, unsigned def)
{
	const char *v = getenv(name);
	unsigned n;

	if (!v || !*v)
		return def;
	if (parse_uint(v, &n) < 0) {
		fprintf(stderr, "llm-speedd: %s=%s is not a whole number\n", name, v);
		exit(2);
	}
	return n;
}

/* The number after a flag, or exits naming the flag. */
static unsigned flag_uint(const char *flag, const char *arg)
{
	unsigned n;

	if (parse_uint(arg, &n) < 0) {
		fprintf(stderr, "llm-speedd: --%s wants a whole number, not \"%s\"\n", flag, arg);
		exit(2);
	}
	return n;
}

/* --trust-proxy and LLMSPEED_TRUST_PROXY: "1" (or no value) trusts
 * X-Forwarded-For from any peer, an address only from that peer. */
static void set_trust(struct config *c, const char *v)
{
	c->trust_proxy = v && strcmp(v, "0") != 0;
	c->trust_proxy_addr = v && strcmp(v, "0") && strcmp(v, "1") ? v : NULL;
}

static const char *env_str(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

/* The folder of the running binary (assets sit beside it by default). */
static char *exe_dir(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

	if (n <= 0)
		return ".";
	path[n] = '\0';
	return dirname(path);
}

/* Online CPUs, at least 2: serving threads never block on the database
 * (uploads suspend their connection), so one per core keeps them busy. */
static unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 2 ? (unsigned)(n > 64 ? 64 : n) : 2;
}

static void defaults(struct config *c)
{
	c->listen = env_str("LLMSPEED_LISTEN", "127.0.0.1:8080");
	c->db_path = env_str("LLMSPEED_DB", "./data/llm-speed.db");
	c->db_group = env_str("LLMSPEED_DB_GROUP", NULL);
	c->assets = env_str("LLMSPEED_ASSETS", NULL);
	c->base_url = env_str("LLMSPEED_BASE_URL", NULL);
	c->moderator_token = env_str("LLMSPEED_MODERATOR_TOKEN", NULL);
	c->threads = env_uint("LLMSPEED_THREADS", cpu_count());
	c->max_connections = env_uint("LLMSPEED_MAX_CONNECTIONS", 1024);
	c->max_per_ip = env_uint("LLMSPEED_MAX_PER_IP", 32);
	c->conn_timeout = env_uint("LLMSPEED_TIMEOUT", 10);
	c->upload_rate = env_uint("LLMSPEED_UPLOAD_RATE", 30);
	c->dispute_rate = env_uint("LLMSPEED_DISPUTE_RATE", 5);
	c->search_rate = env_uint("LLMSPEED_SEARCH_RATE", 120);
	c->request_timeout = env_uint("LLMSPEED_REQUEST_TIMEOUT", 30);
	c->max_header_bytes = env_uint("LLMSPEED_MAX_HEADER_BYTES", 32768);
	c->db_busy_ms = env_uint("LLMSPEED_DB_BUSY_TIMEOUT", 5000);
	set_trust(c, env_str("LLMSPEED_TRUST_PROXY", NULL));
	c->quiet = env_uint("LLMSPEED_QUIET", 0);
}

/* Refuses limits libmicrohttpd would misread: 0 connections means
 * "unlimited" to it, and too small a connection buffer cannot hold even a
 * response's headers. */
static int check_limits(const struct config *c)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!c->max_connections || !c->max_per_ip) {
		fprintf(stderr, "llm-speedd: --max-connections and --max-per-ip must be at least 1\n");
		return -1;
	}
	if (c->max_header_bytes < 8192) {
		fprintf(stderr, "llm-speedd: --max-header-bytes must be at least 8192\n");
		return -1;
	}
	if (c->trust_proxy_addr && inet_pton(AF_INET, c->trust_proxy_addr, &a4) != 1 &&
	    inet_pton(AF_INET6, c->trust_proxy_addr, &a6) != 1) {
		fprintf(stderr, "llm-speedd: --trust-proxy=%s is not an IP address\n", c->trust_proxy_addr);
		return -1;
	}
	return 0;
}

/* Parses the options; returns the index of the first operand, or -1 after
 * printing what is wrong. With `command` 0 it stops at the first operand (the
 * command's name); with 1 argv[0] is the command and options may come
 * anywhere among its operands, which GNU getopt moves to the end. */
static int parse_options(int argc, char **argv, struct config *c, int command)
{
	enum { O_LISTEN = 256, O_DB, O_ASSETS, O_BASE, O_THREADS, O_MAXC, O_MAXIP,
	       O_TIMEOUT, O_URATE, O_DRATE, O_TRUST, O_DEMO, O_QUIET, O_HELP,
	       O_REQTIMEOUT, O_HEADER, O_BUSY, O_DBGROUP, O_SRATE };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "db", required_argument, NULL, O_DB },
		{ "db-group", required_argument, NULL, O_DBGROUP },
		{ "assets", required_argument, NULL, O_ASSETS },
		{ "base-url", required_argument, NULL, O_BASE },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "max-connections", required_argument, NULL, O_MAXC },
		{ "max-per-ip", required_argument, NULL, O_MAXIP },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "upload-rate", required_argument, NULL, O_URATE },
		{ "dispute-rate", required_argument, NULL, O_DRATE },
		{ "search-rate", required_argument, NULL, O_SRATE },
		{ "trust-proxy", optional_argument, NULL, O_TRUST },
		{ "request-timeout", required_argument, NULL, O_REQTIMEOUT },
		{ "max-header-bytes", required_argument, NULL, O_HEADER },
		{ "db-busy-timeout", required_argument, NULL, O_BUSY },
		{ "demo", no_argument, NULL, O_DEMO },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	optind = 0;     /* a fresh scan, also for the second, per-command pass */
	while ((o = getopt_long(argc, argv, command ? "" : "+", opts, NULL)) != -1) {
		switch (o) {
		case O_LISTEN: c->listen = optarg; break;
		case O_DB: c->db_path = optarg; break;
		case O_DBGROUP: c->db_group = optarg; break;
		case O_ASSETS: c->assets = optarg; break;
		case O_BASE: c->base_url = optarg; break;
		case O_THREADS: c->threads = flag_uint("threads", optarg); break;
		case O_MAXC: c->max_connections = flag_uint("max-connections", optarg); break;
		case O_MAXIP: c->max_per_ip = flag_uint("max-per-ip", optarg); break;
		case O_TIMEOUT: c->conn_timeout = flag_uint("timeout", optarg); break;
		case O_URATE: c->upload_rate = flag_uint("upload-rate", optarg); break;
		case O_DRATE: c->dispute_rate = flag_uint("dispute-rate", optarg); break;
		case O_SRATE: c->search_rate = flag_uint("search-rate", optarg); break;
		case O_REQTIMEOUT: c->request_timeout = flag_uint("request-timeout", optarg); break;
		case O_HEADER: c->max_header_bytes = flag_uint("max-header-bytes", optarg); break;
		case O_BUSY: c->db_busy_ms = flag_uint("db-busy-timeout", optarg); break;
		case O_TRUST: set_trust(c, optarg ? optarg : "1"); break;
		case O_DEMO: c->demo = 1; break;
		case O_QUIET: c->quiet = 1; break;
		case O_HELP: fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return -1;
		}
	}
	if (!c->threads || c->threads > 256) {
		fprintf(stderr, "llm-speedd: --threads must be between 1 and 256\n");
		return -1;
	}
	if (check_limits(c) < 0)
		return -1;
	if (!c->assets)
		c->assets = exe_dir();
	return optind;
}

/* The mode and group of the database files: 0600, or 0640 for --db-group. */
static int db_perm_of(const struct config *c, struct db_perm *p)
{
	struct group *g;

	*p = DB_PERM_DEFAULT;
	if (!c->db_group)
		return 0;
	errno = 0;
	if (!(g = getgrnam(c->db_group))) {
		fprintf(stderr, "llm-speedd: --db-group %s: %s\n", c->db_group,
			errno ? strerror(errno) : "there is no group of that name");
		return -1;
	}
	p->mode = 0640;
	p->gid = g->gr_gid;
	return 0;
}

/* After the migrations, on the writer before it starts: the cluster sums
 * migrated without them, then the log entries of rows stored before the
 * log.  A db_status, with the reason in err. */
static int after_migrate(struct dbconn *w, char *err, size_t errlen)
{
	int rc = outlier_backfill(w, err, errlen);

	return rc == DB_OK ? tlog_store_backfill(w, err, errlen) : rc;
}

/* Opens the database, applying migrations; prints the reason on failure. */
static struct db *open_db(const struct config *c)
{
	char err[512], mig[PATH_MAX];
	struct db_perm perm;
	struct db *db;

	if (db_perm_of(c, &perm) < 0)
		return NULL;
	snprintf(mig, sizeof mig, "%s/migrations", c->assets);
	db_after_migrate = after_migrate;
	if (db_open_perm(c->db_path, mig, perm, &db, err, sizeof err) != DB_OK) {
		fprintf(stderr, "llm-speedd: %s\n", err);
		return NULL;
	}
	db_set_busy_timeout(db, c->db_busy_ms);
	return db;
}

/* `llm-speedd account add|revoke NAME`. */
static int account_main(const struct config *c, int argc, char **argv)
{
	char token[ACCOUNT_TOKEN_LEN];
	struct db *db;
	int rc;

	if (argc != 2 || (strcmp(argv[0], "add") && strcmp(argv[0], "revoke"))) {
		fputs("usage: llm-speedd account add|revoke NAME [--db FILE]\n", stderr);
		return 2;
	}
	if (!account_name_ok(argv[1])) {
		fputs("llm-speedd: an account name is 1 to 64 of A-Z a-z 0-9 . _ -\n", stderr);
		return 2;
	}
	if (!(db = open_db(c)))
		return 1;
	if (!strcmp(argv[0], "add")) {
		rc = account_add(db, argv[1], token);
		if (rc == DB_OK)
			printf("%s\n", token);
		else if (rc == DB_CONFLICT)
			fprintf(stderr, "llm-speedd: an account named %s exists already\n", argv[1]);
		sodium_memzero(token, sizeof token);
	} else {
		rc = account_revoke(db, argv[1]);
		if (rc == DB_NOTFOUND)
			fprintf(stderr, "llm-speedd: no account named %s\n", argv[1]);
	}
	if (rc != DB_OK && rc != DB_CONFLICT && rc != DB_NOTFOUND)
		fprintf(stderr, "llm-speedd: %s\n", db_status_message(rc));
	db_close(db);
	return rc == DB_OK ? 0 : 1;
}

/* `llm-speedd snapshot DIR`: one export snapshot for mirrors. */
static int snapshot_main(const struct config *c, int argc, char **argv)
{
	char name[128], err[600];
	struct db *db;
	int rc;

	if (argc != 1) {
		fputs("usage: llm-speedd snapshot DIR [--db FILE]\n", stderr);
		return 2;
	}
	if (!(db = open_db(c)))
		return 1;
	rc = export_snapshot(db, argv[0], name, sizeof name, err, sizeof err);
	if (rc == 0)
		printf("%s/%s\n", argv[0], name);
	else
		fprintf(stderr, "llm-speedd: %s\n", err);
	db_close(db);
	return rc == 0 ? 0 : 1;
}

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
		.exempt_all = c->trust_proxy && !c->trust_proxy_addr,
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
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)c->max_header_bytes,
		MHD_OPTION_NOTIFY_CONNECTION, guard_notify, app->guard,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024,
		MHD_OPTION_NOTIFY_COMPLETED, router_completed, app,
		MHD_OPTION_END);
}

/* Waits for SIGTERM or SIGINT, then stops accepting and lets the requests
 * in flight finish (up to 30 s) before the daemon is stopped. */
static void wait_and_drain(struct MHD_Daemon *d, struct db *db, const sigset_t *set)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	MHD_socket ls;
	int sig, i;

	sigwait(set, &sig);
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
	for (i = 0; router_in_flight() > 0 && (i < 1500 || db_pending(db) > 0); i++)
		nanosleep(&tick, NULL);
	MHD_stop_daemon(d);
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
}

static int load_assets(struct app *app)
{
	struct tmpl_error te = { 0 };
	char dir[PATH_MAX], err[512];

	snprintf(dir, sizeof dir, "%s/templates", app->cfg.assets);
	app->tmpl = tmpl_set_load(dir, &te);
	if (!app->tmpl) {
		fprintf(stderr, "llm-speedd: templates: %s\n", te.message);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/schema/openapi.json", app->cfg.assets);
	if (page_api_init(dir, err, sizeof err) < 0) {
		fprintf(stderr, "llm-speedd: %s\n", err);
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/static", app->cfg.assets);
	if (page_static_init(dir) < 0)
		fprintf(stderr, "llm-speedd: no static folder at %s\n", dir);
	snprintf(dir, sizeof dir, "%s/static/reference", app->cfg.assets);
	app->ref = ceiling_load(dir, te.message, sizeof te.message);
	if (!app->ref)   /* pages then show no ceiling; /fit answers 503 */
		fprintf(stderr, "llm-speedd: no reference data: %s\n", te.message);
	return 0;
}

/* After a new checkpoint: the run JSONs kept in the cache carry proofs
 * against the previous one. */
static void checkpoint_published(void *arg)
{
	cache_bump_rep(arg, REP_RUN_JSON);
}

/* Opens the transparency log's signer (key and checkpoints beside the
 * database) with the origin of the public base URL, and wakes it after
 * every commit; prints the reason and returns -1 when the database does
 * not extend the log already published. */
static int open_tlog(struct app *app)
{
	const struct config *c = &app->cfg;
	char base[512], origin[256], err[1024];

	if (c->base_url)
		snprintf(base, sizeof base, "%s", c->base_url);
	else if (!strncmp(c->listen, "0.0.0.0:", 8))
		snprintf(base, sizeof base, "http://localhost:%s", c->listen + 8);
	else
		snprintf(base, sizeof base, "http://%s", c->listen);
	tlog_origin_of(base, origin, sizeof origin);
	if (tlog_signer_open(app->db, c->db_path, origin, &app->tlog, err, sizeof err) < 0) {
		fprintf(stderr, "llm-speedd: transparency log: %s\n", err);
		return -1;
	}
	tlog_signer_on_publish(app->tlog, checkpoint_published, app->cache);
	if (tlog_signer_start(app->tlog) < 0) {
		fprintf(stderr, "llm-speedd: transparency log: cannot start the signing thread\n");
		return -1;
	}
	db_set_commit_hook(app->db, tlog_signer_notify, app->tlog);
	return 0;
}

static void app_free(struct app *app)
{
	guard_free(app->guard);
	if (app->db)
		db_set_commit_hook(app->db, NULL, NULL);
	tlog_signer_close(app->tlog);
	db_close(app->db);
	tmpl_set_free(app->tmpl);
	cache_free(app->cache);
	ratelimit_free(app->upload_rl);
	ratelimit_free(app->dispute_rl);
	ratelimit_free(app->search_rl);
	page_static_free();
	ceiling_free(app->ref);
	page_api_free();
	page_log_free();
}

static int serve(struct app *app)
{
	struct MHD_Daemon *d;
	unsigned long commits, writes;
	struct addrinfo *ai;
	sigset_t set;

	if (load_assets(app) < 0 || !(app->db = open_db(&app->cfg)))
		return 1;
	app->cache = cache_new(20000);
	app->upload_rl = ratelimit_new(app->cfg.upload_rate, app->cfg.upload_rate ? app->cfg.upload_rate : 1);
	app->dispute_rl = ratelimit_new(app->cfg.dispute_rate, app->cfg.dispute_rate ? app->cfg.dispute_rate : 1);
	/* Searches come in bursts while someone types: a quarter of a minute's worth at once. */
	app->search_rl = ratelimit_new(app->cfg.search_rate,
				       app->cfg.search_rate > 4 ? app->cfg.search_rate / 4 : 1);
	if (!app->cache || !app->upload_rl || !app->dispute_rl || !app->search_rl) {
		fprintf(stderr, "llm-speedd: out of memory setting up the %s\n",
			!app->cache ? "response cache" : "rate limits");
		return 1;
	}
	if (dispute_init(app->db) < 0) {
		fprintf(stderr, "llm-speedd: cannot read or store the dispute form key\n");
		return 1;
	}
	if (open_tlog(app) < 0)
		return 1;
	if (app->cfg.demo && demo_fill(app->db) < 0)
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
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	wait_and_drain(d, app->db, &set);
	db_stats(app->db, &commits, &writes);
	log_info("database writer: %lu writes in %lu commits", writes, commits);
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
	defaults(&app.cfg);
	first = parse_options(argc, argv, &app.cfg, 0);
	if (first < 0)
		return 2;
	log_set_quiet(app.cfg.quiet);
	if (first < argc && !strcmp(argv[first], "account")) {
		/* Options after the command too: account add NAME --db FILE. */
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0)
			return 2;
		return account_main(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc && !strcmp(argv[first], "snapshot")) {
		int rest = parse_options(argc - first, argv + first, &app.cfg, 1);

		if (rest < 0)
			return 2;
		return snapshot_main(&app.cfg, argc - first - rest, argv + first + rest);
	}
	if (first < argc) {
		fprintf(stderr, "llm-speedd: unknown command %s\n%s", argv[first], usage);
		return 2;
	}
	/* Threads started from here on inherit the blocked signals, so only
	 * sigwait() in this thread sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = serve(&app);
	app_free(&app);
	if (!rc)
		log_info("stopped cleanly");
	return rc;
}
