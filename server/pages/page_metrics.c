/* page_metrics.c: /metrics, the Prometheus text exposition (format 0.0.4),
 * for loopback clients and the --metrics-allow addresses only. */
#include "pages/page.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app.h"
#include "http/builds.h"
#include "store/refresh.h"
#include "http/cache.h"
#include "http/guard.h"
#include "store/db.h"
#include "store/tlog_signer.h"
#include "store/tlog_store.h"
#include "util/buf.h"
#include "util/metrics.h"

#ifndef LLMSPEED_VERSION
#define LLMSPEED_VERSION "unknown"
#endif


static const char sql_counts[] = "SELECT name, n FROM row_counts";
/* From the partial index runs_outlier (0001): as many entries as flags. */
static const char sql_flagged[] = "SELECT count(*) FROM runs WHERE outlier = 1";

/* 1 when the address text a is a loopback address (127.0.0.0/8, ::1). */
static int loopback(const char *a)
{
	unsigned char b[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, a, b) == 1)
		return b[0] == 127;
	return inet_pton(AF_INET6, a, b) == 1 && IN6_IS_ADDR_LOOPBACK((struct in6_addr *)b);
}

/* 1 when the address text a is one of the comma-separated list. */
static int listed(const char *a, const char *list)
{
	unsigned char x[sizeof(struct in6_addr)], y[sizeof(struct in6_addr)];
	char one[INET6_ADDRSTRLEN + 1];
	int fam = inet_pton(AF_INET, a, x) == 1 ? AF_INET : AF_INET6;
	size_t n;

	if (fam == AF_INET6 && inet_pton(AF_INET6, a, x) != 1)
		return 0;
	while (list && *list) {
		n = strcspn(list, ",");
		if (n < sizeof one) {
			memcpy(one, list, n);
			one[n] = '\0';
			if (inet_pton(fam, one, y) == 1 && !memcmp(x, y, fam == AF_INET ? 4 : 16))
				return 1;
		}
		list += n + (list[n] == ',');
	}
	return 0;
}

/* The client may read /metrics: a loopback address, or a listed one.
 * Under --trust-proxy r->client is the forwarded address, so a proxy on
 * this host does not make every visitor a loopback client. */
static int allowed(struct req *r)
{
	return loopback(r->client) || listed(r->client, r->app->cfg.metrics_allow);
}

/* A file's size in bytes, 0 when it is not there. */
static double file_bytes(const char *path, const char *suffix)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof p, "%s%s", path, suffix);
	return stat(p, &st) == 0 ? (double)st.st_size : 0;
}

/* The stored counts of row_counts (0023) and the flags; -1 each when
 * the database does not answer. */
static void stored(struct app *app, double *runs, double *keys, double *clusters,
		   double *flagged, double *log_entries)
{
	struct dbconn *c = db_reader(app->db);
	sqlite3_stmt *st;
	const char *name;

	*runs = *keys = *clusters = *flagged = *log_entries = -1;
	if (!c)
		return;
	if ((st = db_stmt(c, sql_counts)))
		while (sqlite3_step(st) == SQLITE_ROW) {
			name = (const char *)sqlite3_column_text(st, 0);
			double *to = !strcmp(name, "runs") ? runs : !strcmp(name, "signing_keys") ? keys
				   : !strcmp(name, "clusters") ? clusters : NULL;
			if (to)
				*to = (double)sqlite3_column_int64(st, 1);
		}
	if ((st = db_stmt(c, sql_flagged)) && sqlite3_step(st) == SQLITE_ROW)
		*flagged = (double)sqlite3_column_int64(st, 0);
	if (st)
		sqlite3_reset(st);
	*log_entries = (double)tlog_store_size(c);
}

/* build_info's labels. */
static void build_info(struct buf *b)
{
	buf_puts(b, "# HELP llmspeed_build_info The server's version and the SQLite and "
		 "libmicrohttpd it runs on.\n# TYPE llmspeed_build_info gauge\n"
		 "llmspeed_build_info{version=\"");
	metrics_label(b, LLMSPEED_VERSION);
	buf_puts(b, "\",sqlite=\"");
	metrics_label(b, sqlite3_libversion());
	buf_puts(b, "\",microhttpd=\"");
	metrics_label(b, MHD_get_version());
	buf_puts(b, "\"} 1\n");
}

/* The gauges a scrape reads from the database, the log and the daemon. */
static void gauges(struct buf *b, struct app *app)
{
	double runs, keys, clusters, flagged, entries, at = 0;
	unsigned long commits, writes;
	struct timespec now;
	uint64_t size = 0;

	stored(app, &runs, &keys, &clusters, &flagged, &entries);
	metrics_gauge(b, "llmspeed_runs_stored", "gauge", "Runs stored, of any status.", runs);
	metrics_gauge(b, "llmspeed_signing_keys_stored", "gauge",
		      "Signing keys that have stored a run.", keys);
	metrics_gauge(b, "llmspeed_clusters_stored", "gauge", "Outlier clusters stored.", clusters);
	metrics_gauge(b, "llmspeed_runs_flagged", "gauge", "Runs whose outlier flag is set.", flagged);
	metrics_gauge(b, "llmspeed_db_size_bytes", "gauge", "The database file's size.",
		      file_bytes(app->cfg.db_path, ""));
	metrics_gauge(b, "llmspeed_db_wal_size_bytes", "gauge", "The write-ahead log's size.",
		      file_bytes(app->cfg.db_path, "-wal"));
	metrics_gauge(b, "llmspeed_db_checkpoint_lag_frames", "gauge",
		      "WAL frames not yet copied into the database by a checkpoint.",
		      db_checkpoint_lag(app->db));
	metrics_gauge(b, "llmspeed_refresh_owed", "gauge",
		      "1 while the refresh thread owes work after a commit (versions, changes, predictions), else 0.",
		      (double)refresh_owed(app->refresh));
	metrics_gauge(b, "llmspeed_db_writer_queue_depth", "gauge",
		      "Writes waiting for the writer thread to take them.",
		      (double)db_queue_depth(app->db));
	db_stats(app->db, &commits, &writes);
	metrics_gauge(b, "llmspeed_db_commits_total", "counter", "Group commits of the writer.",
		      (double)commits);
	metrics_gauge(b, "llmspeed_db_writes_total", "counter", "Writes committed by the writer.",
		      (double)writes);
	clock_gettime(CLOCK_REALTIME, &now);
	if (app->tlog && tlog_signer_latest(app->tlog, NULL, &size, NULL) == 0)
		at = tlog_signer_published_at(app->tlog);
	metrics_gauge(b, "llmspeed_tlog_entries", "gauge",
		      "Entries in the transparency log's tree.", entries);
	metrics_gauge(b, "llmspeed_tlog_checkpoint_entries", "gauge",
		      "Entries covered by the latest signed checkpoint.", (double)size);
	metrics_gauge(b, "llmspeed_tlog_checkpoint_age_seconds", "gauge",
		      "Seconds since the latest checkpoint was signed.",
		      at ? (double)now.tv_sec + now.tv_nsec / 1e9 - at : -1);
	metrics_gauge(b, "llmspeed_response_cache_bytes", "gauge",
		      "Bytes of response bodies the response cache holds.",
		      app->cache ? (double)cache_bytes(app->cache) : 0);
	metrics_gauge(b, "llmspeed_response_cache_entries", "gauge",
		      "Keys (run ids, list pages) the response cache holds responses under.",
		      app->cache ? (double)cache_count(app->cache) : 0);
	metrics_gauge(b, "llmspeed_response_cache_builds", "gauge",
		      "Kept pages being built now, one build each (the requests for them get the stale copy or wait).",
		      app->cache ? (double)cache_flights(app->cache) : 0);
	metrics_gauge(b, "llmspeed_response_cache_waiting", "gauge",
		      "Requests suspended until the one build of what they asked for lands.",
		      app->cache ? (double)cache_waiting(app->cache) : 0);
	metrics_gauge(b, "llmspeed_page_builds_running", "gauge",
		      "Page builds running on the build threads now.",
		      (double)builds_running(app->builds));
	metrics_gauge(b, "llmspeed_page_builds_queued", "gauge",
		      "Page builds waiting for a build thread (or for their client's share).",
		      (double)builds_queued(app->builds));
	metrics_gauge(b, "llmspeed_page_builds_most_per_client", "gauge",
		      "The most build threads one client address held at once since the start.",
		      (double)builds_most_held(app->builds));
	metrics_gauge(b, "llmspeed_open_connections", "gauge", "Connections open now.",
		      guard_open_count(app->guard));
	metrics_gauge(b, "llmspeed_connections_cut_total", "counter",
		      "Connections cut for missing their request deadline, or shed under pressure.",
		      (double)guard_cut_count(app->guard));
	metrics_gauge(b, "llmspeed_process_start_time_seconds", "gauge",
		      "When the server started, in seconds since the epoch.", app->started);
	build_info(b);
}

/* GET /metrics: 200 with the exposition to an allowed client; 404, as any
 * unknown address, to everyone else. */
int page_metrics(struct req *r, struct answer *a)
{
	struct buf b = BUF_INIT;

	if (!allowed(r))
		return err_set(&a->err, 404, "not_found", NULL, "%s",
			       "There is no page at this address; check the link, or start from the leaderboard.");
	metrics_write(&b);
	gauges(&b, r->app);
	return answer_buf(a, 200, CT_METRICS, &b, NULL);
}
