/* metrics.c: lock-free sharded counters and their text exposition (see metrics.h). */
#include "util/metrics.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/numfmt.h"

#define NCLASS 5               /* status classes 1xx .. 5xx */
#define NDUR 17                /* duration buckets, +Inf last */
#define NGC 11                 /* group commit buckets 1, 2, 4 .. 512, +Inf */
#define SHARDS 16

/* Upper bounds of the duration buckets, in microseconds and as labels. */
static const uint64_t dur_us[NDUR - 1] = {
	100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000,
	500000, 1000000, 2500000, 5000000, 10000000,
};
static const char *const dur_le[NDUR] = {
	"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
	"0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
};

/* Where each family's slots start in a shard. */
enum {
	S_REQ = 0,                                    /* [route][class] */
	S_DUR = S_REQ + METRICS_ROUTES * NCLASS,      /* [kind][bucket] */
	S_DUR_SUM = S_DUR + METRICS_KINDS * NDUR,     /* [kind], microseconds */
	S_RL = S_DUR_SUM + METRICS_KINDS,             /* [route] */
	S_UP = S_RL + METRICS_ROUTES,                 /* [result], "other" last */
	S_HIT = S_UP + METRICS_RESULTS + 1,           /* [rep] */
	S_MISS = S_HIT + METRICS_REPS,                /* [rep] */
	S_GC = S_MISS + METRICS_REPS,                 /* [bucket] */
	S_GC_SUM = S_GC + NGC,
	S_CTR = S_GC_SUM + 1,                         /* [enum metrics_counter] */
	S__MAX = S_CTR + MC__MAX
};

struct shard {
	_Alignas(64) atomic_uint_fast64_t v[S__MAX];
};

static struct shard shards[SHARDS];
static atomic_uint next_shard;
static _Thread_local struct shard *my_shard;

static const char *const *label_names[ML__MAX];
static unsigned label_count[ML__MAX];

/* The upload results seen so far, in order of first sight; entries are
 * claimed once, with a compare-and-swap, and never change after. */
static _Atomic(const char *) results[METRICS_RESULTS] = { "accepted", "duplicate" };

static const char *const counter_names[MC__MAX][2] = {
	[MC_CONN_REFUSED] = { "llmspeed_connections_refused_total",
			      "Connections refused at accept because their address held --max-per-ip already." },
	[MC_ACCESS_LOG_DROPPED] = { "llmspeed_access_log_dropped_lines_total",
				    "Access log lines dropped because the log's buffer was full." },
	[MC_ACCESS_LOG_ERRORS] = { "llmspeed_access_log_write_errors_total",
				   "Failed writes or reopens of the access log file." },
	[MC_PAGES_AHEAD] = { "llmspeed_pages_built_ahead_total",
			     "Pages built ahead after start, before any visitor asked for them." },
	[MC_LIST_WRITES_ALL] = { "llmspeed_list_writes_all_total",
				 "Writes that made every kept list page stale (a dispute post; a run that renames, adds an alias, or moves outlier flags on runs of another model's name)." },
	[MC_LIST_WRITES_SCOPED] = { "llmspeed_list_writes_scoped_total",
				    "Writes that made stale only the kept pages of their model, hardware and weights file (and the unscoped lists)." },
};

/* The calling thread's shard, given out round the table on first use. */
static struct shard *shard(void)
{
	if (!my_shard)
		my_shard = &shards[atomic_fetch_add(&next_shard, 1) % SHARDS];
	return my_shard;
}

static void add(unsigned slot, uint64_t n)
{
	atomic_fetch_add_explicit(&shard()->v[slot], n, memory_order_relaxed);
}

static uint64_t sum(unsigned slot)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < SHARDS; i++)
		n += atomic_load_explicit(&shards[i].v[slot], memory_order_relaxed);
	return n;
}

void metrics_names(enum metrics_labels set, const char *const *names, unsigned n)
{
	static const unsigned max[ML__MAX] = { METRICS_ROUTES, METRICS_KINDS, METRICS_REPS };

	label_names[set] = names;
	label_count[set] = n < max[set] ? n : max[set];
}

void metrics_request(unsigned route, unsigned kind, unsigned status, uint64_t micros)
{
	unsigned b;

	if (route >= METRICS_ROUTES || kind >= METRICS_KINDS || status < 100 || status > 599)
		return;
	add(S_REQ + route * NCLASS + status / 100 - 1, 1);
	for (b = 0; b < NDUR - 1 && micros > dur_us[b]; b++)
		;
	add(S_DUR + kind * NDUR + b, 1);
	add(S_DUR_SUM + kind, micros);
}

void metrics_rate_limited(unsigned route)
{
	if (route < METRICS_ROUTES)
		add(S_RL + route, 1);
}

void metrics_upload(const char *result)
{
	const char *seen;
	unsigned i;

	for (i = 0; i < METRICS_RESULTS; i++) {
		seen = atomic_load(&results[i]);
		if (!seen && atomic_compare_exchange_strong(&results[i], &seen, result))
			break;
		if (!strcmp(seen, result))
			break;
	}
	add(S_UP + i, 1);           /* i == METRICS_RESULTS: "other" */
}

void metrics_cache(unsigned rep, int hit)
{
	if (rep < METRICS_REPS)
		add((hit ? S_HIT : S_MISS) + rep, 1);
}

void metrics_group_commit(unsigned jobs)
{
	unsigned b, le;

	for (b = 0, le = 1; b < NGC - 1 && jobs > le; b++, le *= 2)
		;
	add(S_GC + b, 1);
	add(S_GC_SUM, jobs);
}

void metrics_inc(enum metrics_counter c)
{
	add(S_CTR + c, 1);
}

uint64_t metrics_count(enum metrics_counter c)
{
	return sum(S_CTR + c);
}

/* ---- the text exposition ---- */

void metrics_label(struct buf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			buf_putc(b, '\\');
		if (*v == '\n')
			buf_puts(b, "\\n");
		else
			buf_putc(b, *v);
	}
}

static void head(struct buf *b, const char *name, const char *type, const char *help)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void number(struct buf *b, double v)
{
	char num[NUMFMT_SHORTEST_LEN];

	if (numfmt_shortest(num, v) < 0)
		snprintf(num, sizeof num, "NaN");
	buf_puts(b, num);
}

void metrics_gauge(struct buf *b, const char *name, const char *type, const char *help,
		   double v)
{
	head(b, name, type, help);
	buf_printf(b, "%s ", name);
	number(b, v);
	buf_putc(b, '\n');
}

/* The name of value i of a label set. */
static const char *label(enum metrics_labels set, unsigned i)
{
	return i < label_count[set] && label_names[set][i] ? label_names[set][i] : "unknown";
}

static void write_requests(struct buf *b)
{
	unsigned r, c;
	uint64_t n;

	head(b, "llmspeed_http_requests_total", "counter",
	     "Requests answered, by route pattern and status class.");
	for (r = 0; r < label_count[ML_ROUTE]; r++)
		for (c = 0; c < NCLASS; c++) {
			if (!(n = sum(S_REQ + r * NCLASS + c)))
				continue;
			buf_puts(b, "llmspeed_http_requests_total{route=\"");
			metrics_label(b, label(ML_ROUTE, r));
			buf_printf(b, "\",code=\"%uxx\"} %llu\n", c + 1, (unsigned long long)n);
		}
}

/* One histogram series: cumulative buckets, their count, and the sum. */
static void histogram(struct buf *b, const char *name, const char *labels, unsigned first,
		      unsigned nb, const char *const *le, double sum_v)
{
	uint64_t cum = 0;
	unsigned i;

	for (i = 0; i < nb; i++) {
		cum += sum(first + i);
		buf_printf(b, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, *labels ? "," : "",
			   le[i], (unsigned long long)cum);
	}
	buf_printf(b, "%s_sum%s%s%s ", name, *labels ? "{" : "", labels, *labels ? "}" : "");
	number(b, sum_v);
	buf_printf(b, "\n%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels,
		   *labels ? "}" : "", (unsigned long long)cum);
}

static void write_durations(struct buf *b)
{
	struct buf labels = BUF_INIT;
	unsigned k, i;
	uint64_t n;

	head(b, "llmspeed_http_request_duration_seconds", "histogram",
	     "Time from a request's first line to its response sent, by route kind.");
	for (k = 0; k < label_count[ML_KIND]; k++) {
		for (i = 0, n = 0; i < NDUR; i++)
			n += sum(S_DUR + k * NDUR + i);
		if (!n)
			continue;
		buf_reset(&labels);
		buf_puts(&labels, "kind=\"");
		metrics_label(&labels, label(ML_KIND, k));
		buf_putc(&labels, '"');
		histogram(b, "llmspeed_http_request_duration_seconds", labels.buf, S_DUR + k * NDUR,
			  NDUR, dur_le, (double)sum(S_DUR_SUM + k) / 1e6);
	}
	buf_release(&labels);
}

static void write_uploads(struct buf *b)
{
	const char *name;
	unsigned i;

	head(b, "llmspeed_uploads_total", "counter",
	     "Uploads by result: accepted (201), duplicate (200) or the error code.");
	for (i = 0; i <= METRICS_RESULTS; i++) {
		name = i < METRICS_RESULTS ? atomic_load(&results[i]) : "other";
		if (!name || (i >= 2 && !sum(S_UP + i)))
			continue;
		buf_puts(b, "llmspeed_uploads_total{result=\"");
		metrics_label(b, name);
		buf_printf(b, "\"} %llu\n", (unsigned long long)sum(S_UP + i));
	}
}

static void write_rate_limited(struct buf *b)
{
	unsigned r;
	uint64_t n;

	head(b, "llmspeed_rate_limited_total", "counter",
	     "Requests refused with 429 by a rate limit, by route pattern.");
	for (r = 0; r < label_count[ML_ROUTE]; r++) {
		if (!(n = sum(S_RL + r)))
			continue;
		buf_puts(b, "llmspeed_rate_limited_total{route=\"");
		metrics_label(b, label(ML_ROUTE, r));
		buf_printf(b, "\"} %llu\n", (unsigned long long)n);
	}
}

static void write_cache(struct buf *b)
{
	static const char *const fam[2][2] = {
		{ "llmspeed_response_cache_hits_total", "Responses served from the response cache, by kind." },
		{ "llmspeed_response_cache_misses_total", "Cache lookups that found nothing to serve, by kind." },
	};
	unsigned f, i;

	for (f = 0; f < 2; f++) {
		head(b, fam[f][0], "counter", fam[f][1]);
		for (i = 0; i < label_count[ML_REP]; i++) {
			buf_printf(b, "%s{kind=\"", fam[f][0]);
			metrics_label(b, label(ML_REP, i));
			buf_printf(b, "\"} %llu\n", (unsigned long long)sum((f ? S_MISS : S_HIT) + i));
		}
	}
}

static void write_group_commit(struct buf *b)
{
	static const char *const le[NGC] = { "1", "2", "4", "8", "16", "32", "64", "128", "256",
					     "512", "+Inf" };

	head(b, "llmspeed_db_group_commit_size", "histogram",
	     "Writes per group commit of the database writer.");
	histogram(b, "llmspeed_db_group_commit_size", "", S_GC, NGC, le, (double)sum(S_GC_SUM));
}

void metrics_write(struct buf *b)
{
	unsigned c;

	write_requests(b);
	write_durations(b);
	write_uploads(b);
	write_rate_limited(b);
	write_cache(b);
	write_group_commit(b);
	for (c = 0; c < MC__MAX; c++)
		metrics_gauge(b, counter_names[c][0], "counter", counter_names[c][1],
			      (double)sum(S_CTR + c));
}
