/* rank.c: where a run's decode falls among the runs of its cluster and of
 * its weights file ("faster than P% of N runs"), and the histograms the
 * small strip that shows it is drawn from (render/rankstrip.c), read from
 * rank_cluster and rank_digest (migration 0012) that every write keeps
 * current: a run page reads at most RANK_BUCKETS rows per scope, never the
 * runs themselves. */
#include "pages/page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "render/rankstrip.h"
#include "store/db.h"
#include "util/buf.h"

/* Buckets read at most per scope: 16 a doubling covers 0.001 to 10^12
 * tok/s in under 700, and real clusters use a few dozen. */
#define RANK_BUCKETS 1024
#define PER_DOUBLING RANKSTRIP_PER_DOUBLING

static const char sql_cluster[] =
	"SELECT bucket, n FROM rank_cluster WHERE suite_version = ?1 AND model_digest = ?2 "
	"AND hw_class = ?3 AND backend_name = ?4 ORDER BY bucket LIMIT ?5";
static const char sql_digest[] =
	"SELECT bucket, n FROM rank_digest WHERE suite_version = ?1 AND model_digest = ?2 "
	"ORDER BY bucket LIMIT ?5";

const char *const page_rank_sql[] = { sql_cluster, sql_digest, NULL };

/* One scope's histogram. */
struct hist {
	int lo;                    /* first bucket held */
	long long n[RANK_BUCKETS]; /* runs per bucket from lo */
	int len;
	long long total;
};

/* The bucket of a decode rate: as the migration's SQL computes it. */
static int bucket_of(double decode)
{
	return (int)floor(PER_DOUBLING * log2(fmax(decode, 0.001)));
}

/* Reads a scope's histogram into h; 0, or -1 on a database error. */
static int load(struct dbconn *c, const char *sql, const char *const *keys, int nkeys,
		struct hist *h)
{
	sqlite3_stmt *st = db_stmt(c, sql);
	int i, rc, b;

	memset(h, 0, sizeof *h);
	if (!st)
		return -1;
	for (i = 0; i < nkeys; i++)
		db_bind_text(st, i + 1, keys[i]);
	sqlite3_bind_int(st, 5, RANK_BUCKETS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b = sqlite3_column_int(st, 0);
		if (!h->len)
			h->lo = b;
		if (b - h->lo >= RANK_BUCKETS)
			break;
		h->n[b - h->lo] += sqlite3_column_int64(st, 1);
		h->len = b - h->lo + 1;
		h->total += sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The share of the other runs of h slower than a run in bucket b (half of
 * those in its own bucket, whose order within 4.4% the histogram does not
 * keep), in percent; counted says whether the run itself is in h.  NAN
 * when there is no other run. */
static double pct_faster(const struct hist *h, int b, int counted, long long *others)
{
	long long below = 0, same = 0;
	int i;

	for (i = 0; i < h->len; i++) {
		if (h->lo + i < b)
			below += h->n[i];
		else if (h->lo + i == b)
			same = h->n[i];
	}
	if (counted && same > 0)
		same--;
	*others = h->total - (counted ? 1 : 0);
	if (*others <= 0)
		return NAN;
	return 100.0 * ((double)below + (double)same / 2.0) / (double)*others;
}

/* {n, others, pct, text} of one scope, the text in words that hold at
 * the ends too: "Faster than all 19 other runs ...", "Slower than all
 * ...", "Faster than 13% of the 60 other runs ...". */
static json_t *scope(const struct hist *h, int b, int counted, const char *where)
{
	long long others;
	double p = pct_faster(h, b, counted, &others);
	char text[200];

	if (!isfinite(p))
		snprintf(text, sizeof text, "The only counted run %s so far.", where);
	else if (others == 1)
		snprintf(text, sizeof text, "%s the one other run %s.",
			 p >= 75 ? "Faster than" : p <= 25 ? "Slower than" : "As fast as", where);
	else if (p <= 0 || p >= 100)
		snprintf(text, sizeof text, "%s than all %lld other runs %s.", p >= 100 ? "Faster" : "Slower",
			 others, where);
	else
		snprintf(text, sizeof text, "Faster than %.0f%% of the %lld other runs %s.",
			 p < 1 ? 1 : p > 99 ? 99 : p, others, where);
	return json_pack("{s:I, s:I, s:o, s:s}", "runs", (json_int_t)h->total,
			 "others", (json_int_t)(others > 0 ? others : 0),
			 "pct", isfinite(p) ? json_real(round(p * 10) / 10) : json_null(), "text", text);
}

/* The strip of rankstrip_svg as a JSON string (NULL out of memory). */
static json_t *strip_svg(const struct hist *all, const struct hist *cl, int b, const char *label)
{
	struct rankstrip_hist a = { all->lo, all->n, all->len }, c = { cl->lo, cl->n, cl->len };
	struct buf s = BUF_INIT;
	json_t *v;

	rankstrip_svg(&s, &a, &c, b, label);
	v = buf_error(&s) ? NULL : json_stringn(s.buf, s.len);
	buf_release(&s);
	return v;
}

int page_rank_add(struct req *r, json_t *m)
{
	const char *suite = json_string_value(json_object_get(m, "suite_version"));
	const char *digest = json_string_value(json_object_get(json_object_get(m, "model"), "digest"));
	const char *hw_class = json_string_value(json_object_get(json_object_get(m, "outlier"), "hw_class"));
	const char *backend = json_string_value(json_object_get(json_object_get(m, "backend"), "name"));
	const char *status = json_string_value(json_object_get(m, "status"));
	double decode = json_number_value(json_object_get(m, "decode_tok_s"));
	const char *ck[] = { suite, digest, hw_class, backend }, *dk[] = { suite, digest };
	struct hist *h = NULL;
	struct dbconn *c;
	json_t *v;
	int b = bucket_of(decode), counted = status && !strcmp(status, "ok");
	char where[160], label[400];

	if (!suite || !digest || !hw_class || !backend || !(c = db_reader(r->app->db)) ||
	    !(h = calloc(2, sizeof *h)) ||
	    load(c, sql_cluster, ck, 4, &h[0]) < 0 || load(c, sql_digest, dk, 2, &h[1]) < 0) {
		free(h);
		return -1;
	}
	snprintf(where, sizeof where, "of this weights file on this machine with %s", backend);
	v = json_pack("{s:o, s:o}", "cluster", scope(&h[0], b, counted, where),
		      "digest", scope(&h[1], b, counted, "of this weights file on any hardware"));
	if (v) {
		/* Only like is ranked with like in words: this machine here,
		 * the combination's submitters on the page (issue 35). */
		snprintf(label, sizeof label, "Decode of the runs of this weights file on a log scale: "
			 "all hardware light, this machine and backend dark, this run marked. %s",
			 json_string_value(json_object_get(json_object_get(v, "cluster"), "text")));
		json_object_set_new(v, "svg", strip_svg(&h[1], &h[0], b, label));
		json_object_set_new(m, "rank", v);
	}
	free(h);
	return v ? 0 : -1;
}
