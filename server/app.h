/* app.h: the process-wide state every handler can reach through its request:
 * configuration, the database, templates and the render cache.  Nothing here
 * is request state; what changes after start-up is owned by its module. */
#ifndef LLMS_APP_H
#define LLMS_APP_H

#include <stddef.h>

struct db;
struct tmpl_set;
struct cache;
struct ratelimit;
struct guard;
struct ceiling_ref;
struct tlog_signer;
struct raster;
struct access_log;
struct refresh;
struct netkey;
struct builds;

struct config {
	const char *listen;           /* host:port, default 127.0.0.1:8080 */
	const char *db_path;          /* default ./data/llm-speed.db */
	const char *db_group;         /* group that may read the database files; NULL: none */
	const char *assets;           /* folder holding templates/, static/, migrations/ */
	const char *base_url;         /* public origin for links; NULL: from Host */
	const char *moderator_token;  /* LLMSPEED_MODERATOR_TOKEN, NULL: moderation off */
	unsigned threads;             /* libmicrohttpd worker threads */
	unsigned max_connections;     /* in total */
	unsigned max_per_ip;          /* per client address */
	unsigned conn_timeout;        /* seconds a connection may be idle */
	unsigned upload_rate;         /* uploads per minute per account or address */
	unsigned dispute_rate;        /* dispute posts per minute per address */
	unsigned refusal_rate;        /* refused uploads in any minute per address */
	unsigned search_rate;         /* searches per minute per address */
	int trust_proxy;              /* --trust-proxy given (refused without an address) */
	const char *trust_proxy_addr; /* take the client address from X-Forwarded-For
				       * on connections from this peer only */
	unsigned request_timeout;     /* seconds for a whole request to arrive; 0: off */
	unsigned max_header_bytes;    /* per-connection buffer for request line and headers */
	unsigned db_busy_ms;          /* how long a write waits for a locked database */
	const char *access_log;       /* --access-log FILE ("-": stdout); NULL: none */
	const char *metrics_allow;    /* addresses besides loopback that may read /metrics */
	const char *security_contact; /* security.txt's Contact URI; NULL: /privacy#reporting */
	int demo;                     /* fill an empty database with demo runs */
	int quiet;                    /* no request log */
	unsigned sitemap_page_urls;   /* --sitemap-page-urls, tests only; 0: SITEMAP_PAGE_URLS */
	unsigned sitemap_file_urls;   /* --sitemap-file-urls, tests only; 0: SITEMAP_FILE_URLS */
	const char *test_clock;       /* --test-clock FILE, tests only (util/timefmt.h); NULL: the real clock */
	const char *test_hold_builds; /* --test-hold-builds FILE, tests only (pages/page_kept.c); NULL: none */
	int test_no_warm;             /* --test-warm 0, tests only: no page built ahead */
	long test_stale_ms;           /* --test-stale-ms N, tests only (http/cache.h): 0 serves no
	                               * stale copy (a write shows on the next request, which
	                               * waits for the rebuild); -1 (not given): CACHE_STALE_MS */
	unsigned keys_per_network;    /* keys a network counts in a scope (store/netcap.h); 0: no cap */
	unsigned new_keys_per_network;/* new keys a network may bring a day; 0 (or --upload-rate 0): no limit */
	int serving;                  /* the server itself opens the database (not a command) */
};

struct app {
	struct config cfg;
	struct db *db;
	struct tmpl_set *tmpl;
	struct cache *cache;
	struct ratelimit *upload_rl;
	struct ratelimit *dispute_rl;
	struct ratelimit *refusal_rl;   /* refused uploads per address */
	struct ratelimit *moderator_rl; /* wrong moderator tokens per address */
	struct ratelimit *search_rl;
	struct guard *guard;          /* request deadlines, NULL when off */
	struct ceiling_ref *ref;      /* static/reference/ data, NULL when absent */
	struct tlog_signer *tlog;     /* the transparency log's key and checkpoints */
	struct raster *raster;        /* SVG to PNG for link-preview cards; off without rsvg-convert */
	struct access_log *access_log;/* NULL without --access-log */
	struct refresh *refresh;      /* the figures kept after writes (store/refresh.h) */
	struct netkey *netkey;        /* the secret networks are hashed under (store/netkey.h) */
	struct builds *builds;        /* the threads pages are built on (http/builds.h); NULL: on the request's */
	struct warm *warm;            /* the pages built ahead after start (warm.c) */
	double started;               /* when serving began, seconds since the epoch */
};

#endif
