/* rank.c: where a run's decode falls among the runs of its cluster and of
 * its weights file ("faster than P% of N runs"), and the small SVG strip
 * that shows it, from the log-scale histograms rank_cluster and
 * rank_digest (migration 0012) that every write keeps current: a run page
 * reads at most RANK_BUCKETS rows per scope, never the runs themselves. */
#include "pages/page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "render/html.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/numfmt.h"

/* Buckets read at most per scope: 16 a doubling covers 0.001 to 10^12
 * tok/s in under 700, and real clusters use a few dozen. */
#define RANK_BUCKETS 1024
#define PER_DOUBLING 16.0

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

/* The strip's geometry, in user units. */
#define STRIP_W 360.0
#define STRIP_PAD 8.0      /* bars and tick labels keep off both edges */
#define BARS_TOP 4.0
#define BARS_BASE 34.0     /* the bars' baseline, which is the axis */
#define LABEL_Y 51.0       /* tick labels' baseline; 12 units high */
#define STRIP_H 56.0
#define LABEL_GAP 10.0     /* between two tick labels */

/* The position of decode rate v on the strip of buckets lo..hi. */
static double strip_x(double v, int lo, int hi)
{
	double bw = (STRIP_W - 2 * STRIP_PAD) / (double)(hi - lo + 1);

	return STRIP_PAD + (PER_DOUBLING * log2(v) - lo) * bw;
}

/* The width of a tick label at 12 units: digits and commas at 0.62 em. */
static double label_w(const char *s)
{
	return 12 * 0.62 * (double)strlen(s);
}

/* Rate v as a tick label into t: a whole number ("1,000") or, sig3, three
 * significant digits ("16.0", "8.50"). */
static void rate_text(char *t, size_t n, double v, int sig3)
{
	struct buf f = BUF_INIT;

	if (sig3)
		numfmt_sig3(&f, v);
	else
		numfmt_int(&f, v);
	snprintf(t, n, "%s", buf_error(&f) ? "?" : f.buf);
	buf_release(&f);
}

/* Labelled ticks under the strip at round rates (1, 2 and 5 times a power
 * of ten) between its ends, as many as fit apart; when fewer than two fit,
 * the ends' own rates instead.  Every label stays inside the drawing. */
static void strip_axis(struct buf *s, int lo, int hi)
{
	static const double steps[] = { 1, 2, 5 };
	double from = exp2(lo / PER_DOUBLING), to = exp2((hi + 1) / PER_DOUBLING);
	double x[12], last = -1e9, v;
	char t[12][32];
	int k, e, n = 0, i;

	for (e = (int)floor(log10(from)); e <= (int)ceil(log10(to)); e++)
		for (k = 0; k < 3 && n < 12; k++) {
			v = steps[k] * pow(10, e);
			if (v < from || v > to)
				continue;
			x[n] = strip_x(v, lo, hi);
			rate_text(t[n], sizeof t[n], v, v < 1);
			if (x[n] - label_w(t[n]) / 2 < 1 || x[n] + label_w(t[n]) / 2 > STRIP_W - 1 ||
			    x[n] - label_w(t[n]) / 2 < last + LABEL_GAP)
				continue;
			last = x[n] + label_w(t[n]) / 2;
			n++;
		}
	buf_puts(s, "<g class=\"axis\" font-size=\"12\" text-anchor=\"middle\">");
	if (n >= 2) {
		for (i = 0; i < n; i++)
			buf_printf(s, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"currentColor\"/>"
				   "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x[i], BARS_BASE, BARS_BASE + 4,
				   x[i], LABEL_Y, t[i]);
	} else {
		rate_text(t[0], sizeof t[0], from, 1);
		rate_text(t[1], sizeof t[1], to, 1);
		buf_printf(s, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"currentColor\"/>"
			   "<text x=\"2\" y=\"%.1f\" text-anchor=\"start\">%s</text>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			   STRIP_PAD, BARS_BASE, BARS_BASE + 4, STRIP_W - STRIP_PAD, BARS_BASE, BARS_BASE + 4,
			   LABEL_Y, t[0], STRIP_W - 2, LABEL_Y, t[1]);
	}
	buf_puts(s, "</g>");
}

/* The strip: the weights file's histogram (all hardware) as light bars,
 * the cluster's as dark bars over it, a line at the run's bucket, and an
 * axis of decode rates on a log scale under them.  Its colours are
 * classes style.css sets for light and dark pages (the attributes are the
 * light page's, for a reader without the stylesheet); the legend is the
 * page's, in HTML. */
static json_t *strip_svg(const struct hist *all, const struct hist *cl, int b, const char *label)
{
	int lo = all->len ? all->lo : b, hi = all->len ? all->lo + all->len - 1 : b, i;
	long long max = 1;
	struct buf s = BUF_INIT;
	double bw, x, hgt = BARS_BASE - BARS_TOP;
	json_t *v;

	lo = lo < b ? lo : b;
	hi = hi > b ? hi : b;
	for (i = 0; i < all->len; i++)
		max = all->n[i] > max ? all->n[i] : max;
	bw = (STRIP_W - 2 * STRIP_PAD) / (double)(hi - lo + 1);
	buf_printf(&s, "<svg class=\"rank-strip\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		   "width=\"%.0f\" height=\"%.0f\" role=\"img\" font-family=\"system-ui, sans-serif\" "
		   "fill=\"currentColor\" aria-label=\"", STRIP_W, STRIP_H, STRIP_W, STRIP_H);
	html_attr(&s, label);
	buf_puts(&s, "\"><title>");
	html_txt(&s, label);
	buf_puts(&s, "</title>");
	for (i = 0; i < all->len; i++) {
		double bh = hgt * (double)all->n[i] / (double)max;
		x = STRIP_PAD + (double)(all->lo + i - lo) * bw;
		if (all->n[i])
			buf_printf(&s, "<rect class=\"all\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"#8c959f\"/>", x, BARS_BASE - bh, bw, bh);
	}
	for (i = 0; i < cl->len; i++) {
		double bh = hgt * (double)cl->n[i] / (double)max;
		x = STRIP_PAD + (double)(cl->lo + i - lo) * bw;
		if (cl->n[i] && cl->lo + i >= lo && cl->lo + i <= hi)
			buf_printf(&s, "<rect class=\"cluster\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"#0072b2\"/>", x, BARS_BASE - bh, bw, bh);
	}
	buf_printf(&s, "<path class=\"baseline\" d=\"M%.1f %.1fH%.1f\" stroke=\"currentColor\"/>",
		   STRIP_PAD, BARS_BASE + 0.5, STRIP_W - STRIP_PAD);
	strip_axis(&s, lo, hi);
	x = STRIP_PAD + ((double)(b - lo) + 0.5) * bw;
	buf_printf(&s, "<path class=\"mark\" d=\"M%.1f 1V%.1f\" stroke=\"#d55e00\" stroke-width=\"2.5\"/></svg>",
		   x, BARS_BASE + 2);
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
	snprintf(where, sizeof where, "of this weights file on this hardware class with %s", backend);
	v = json_pack("{s:o, s:o}", "cluster", scope(&h[0], b, counted, where),
		      "digest", scope(&h[1], b, counted, "of this weights file on any hardware"));
	if (v) {
		snprintf(label, sizeof label, "Decode of the runs of this weights file on a log scale: "
			 "all hardware light, this hardware class and backend dark, this run marked. %s %s",
			 json_string_value(json_object_get(json_object_get(v, "cluster"), "text")),
			 json_string_value(json_object_get(json_object_get(v, "digest"), "text")));
		json_object_set_new(v, "svg", strip_svg(&h[1], &h[0], b, label));
		json_object_set_new(m, "rank", v);
	}
	free(h);
	return v ? 0 : -1;
}
