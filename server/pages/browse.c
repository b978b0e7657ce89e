/* browse.c: suite, query arguments, cursor, run rows and links shared by the browse pages. */
#include "pages/browse.h"
#include "store/typical.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "util/buf.h"
#include "store/db.h"
#include "render/html.h"
#include "util/log.h"
#include "http/cache.h"
#include "pages/page.h"
#include "store/run_store.h"
#include "util/slug.h"
#include "util/numfmt.h"
#include "util/textcut.h"
#include "ingest/validate.h"
#include "domain/ceiling.h"

/* Suites are few; the next one after ?1 is one seek in runs_received. */
static const char sql_suite_next[] =
	"SELECT min(suite_version) FROM runs WHERE suite_version > ?";
static const char sql_suite_known[] =
	"SELECT 1 FROM runs WHERE suite_version = ? LIMIT 1";
static const char sql_demo[] = "SELECT 1 FROM runs WHERE demo = 1 LIMIT 1";

/* A counted run of suite ?4 with another digest than ?3 in [?1, ?2):
 * below it, and above it, each one seek in runs_cluster_decode (0020)
 * however many runs ?3 has. */
static const char sql_digest_twin[] = RUN_DIGEST_TWIN_SQL;
const char *const browse_sql[] = { sql_suite_next, sql_suite_known, sql_demo, sql_digest_twin, NULL };

#define MAX_SUITES 50
#define SUITE_LEN 64

/* The columns of BROWSE_RUN_COLS. */
enum {
	C_ID, C_MODEL_NAME, C_MODEL_SLUG, C_DIGEST, C_QUANT, C_FORMAT, C_ACCEL,
	C_HW_SLUG, C_BACKEND, C_BACKEND_VERSION, C_DECODE, C_PREFILL, C_TTFT,
	C_CREATED, C_DEMO, C_OUTLIER, C_SIGMA, C_STATUS, C_WITHDRAWN, C_FLAG_BITS
};

int browse_error(struct browse *b, unsigned status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(&b->err, status, status == 400 ? "invalid_query" : NULL, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

/* The query argument k, or NULL when it is absent or empty (an "All"
 * option of a filter form sends it empty). */
static const char *arg(struct req *r, const char *k)
{
	const char *v = http_query(r, k);

	return v && *v ? v : NULL;
}

/* 1 when s names a suite the way the payload can: [A-Za-z0-9._-], 1 to 63. */
static int suite_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < SUITE_LEN &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* Parses "<decode>:<run id>" into b's cursor; 0, or -1 when malformed. */
static int parse_after(struct browse *b, const char *s)
{
	const char *colon = strrchr(s, ':');
	char num[48], *end;
	size_t n;
	double d;

	if (!colon || colon == s || (n = (size_t)(colon - s)) >= sizeof num ||
	    !run_id_valid(colon + 1))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (isspace((unsigned char)num[0]))
		return -1;
	d = strtod(num, &end);
	if (*end || !isfinite(d) || !typical_rank_valid(d))
		return -1;
	b->has_after = 1;
	b->after_decode = d;
	snprintf(b->after_id, sizeof b->after_id, "%s", colon + 1);
	return 0;
}

/* Checks every query argument the browse pages know; unknown ones are
 * ignored.  0, or -1 with a 400 naming the argument and its form. */
static int check_args(struct browse *b)
{
	const char *v;

	if ((v = arg(b->r, "hw")) && !slug_valid(v))
		return browse_error(b, 400, "The hw= argument must be a hardware slug such as m3-ultra: lowercase letters and digits joined by single hyphens.");
	if ((v = arg(b->r, "model")) && !slug_valid(v))
		return browse_error(b, 400, "The model= argument must be a model slug such as qwen2-5-7b-instruct: lowercase letters and digits joined by single hyphens.");
	if ((v = arg(b->r, "backend")) && !validate_backend_known(v))
		return browse_error(b, 400, "The backend= argument must be one of " VALIDATE_BACKENDS_TEXT ".");
	if ((v = arg(b->r, "digest")) && !validate_digest_ok(v))
		return browse_error(b, 400, "The digest= argument must be \"sha256:\" followed by 16 to 64 lowercase hex digits, as the model page links it.");
	if ((v = arg(b->r, "suite")) && !suite_name_valid(v))
		return browse_error(b, 400, "The suite= argument must name a suite such as %s.", VALIDATE_SUITE);
	if ((v = arg(b->r, "after")) && parse_after(b, v) < 0)
		return browse_error(b, 400, "The after= argument must be <decode tok/s>:<run id> such as 112.2:r_y2_5y8oo97d; follow the Next page link instead of editing it.");
	b->hw = arg(b->r, "hw");
	b->model = arg(b->r, "model");
	b->backend = arg(b->r, "backend");
	b->digest = arg(b->r, "digest");
	return 0;
}

/* Orders suite names so that "suite-v10" follows "suite-v9": by the text
 * before a trailing number, then by that number. */
static int suite_cmp(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), da = la, db_ = lb;

	while (da > 0 && isdigit((unsigned char)a[da - 1]))
		da--;
	while (db_ > 0 && isdigit((unsigned char)b[db_ - 1]))
		db_--;
	if (da != db_ || strncmp(a, b, da) || da == la || db_ == lb)
		return strcmp(a, b);
	while (a[da] == '0' && da + 1 < la)
		da++;
	while (b[db_] == '0' && db_ + 1 < lb)
		db_++;
	if (la - da != lb - db_)
		return la - da < lb - db_ ? -1 : 1;
	return strcmp(a + da, b + db_);
}

static int suite_qcmp(const void *x, const void *y)
{
	return suite_cmp(x, y);
}

/* Fills out with the distinct suites of the runs table, newest last, by
 * one seek each; returns how many (at most MAX_SUITES), or -1. */
static int suite_list(struct dbconn *c, char out[][SUITE_LEN])
{
	sqlite3_stmt *st = db_stmt(c, sql_suite_next);
	char prev[SUITE_LEN] = "";
	const char *s;
	int n = 0, rc;

	if (!st)
		return -1;
	while (n < MAX_SUITES) {
		db_bind_text(st, 1, prev);
		if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
			sqlite3_reset(st);
			return -1;
		}
		s = (const char *)sqlite3_column_text(st, 0);
		if (!s || strlen(s) >= SUITE_LEN) {
			sqlite3_reset(st);
			break;
		}
		snprintf(prev, sizeof prev, "%s", s);
		snprintf(out[n++], SUITE_LEN, "%s", s);
		sqlite3_reset(st);
	}
	qsort(out, (size_t)n, SUITE_LEN, suite_qcmp);
	return n;
}

/* 1 when suite has runs, 0 when not, -1 on a database error. */
static int suite_known(struct dbconn *c, const char *suite)
{
	sqlite3_stmt *st = db_stmt(c, sql_suite_known);
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, suite);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Sets b->suite: the one ?suite= names (404 when it has no runs), else the
 * newest in the runs table, else the server's suite. */
static int resolve_suite(struct browse *b)
{
	char suites[MAX_SUITES][SUITE_LEN];
	const char *s = arg(b->r, "suite");
	int n, known;

	if (s) {
		known = suite_known(b->c, s);
		if (known < 0)
			return browse_error(b, 503, MSG_DB_DOWN);
		if (!known)
			return browse_error(b, 404, "There are no runs in suite %s. Leave out ?suite= to see the newest suite.", s);
		snprintf(b->suite, sizeof b->suite, "%s", s);
		b->suite_given = 1;
		return 0;
	}
	n = suite_list(b->c, suites);
	if (n < 0)
		return browse_error(b, 503, MSG_DB_DOWN);
	snprintf(b->suite, sizeof b->suite, "%s", n ? suites[n - 1] : VALIDATE_SUITE);
	return 0;
}

/* Opens the page's read transaction; one left open by an earlier request
 * on this thread's connection is rolled back first. */
static void snapshot_begin(struct browse *b)
{
	if (!sqlite3_get_autocommit(b->c->h))
		sqlite3_exec(b->c->h, "ROLLBACK", NULL, NULL, NULL);
	b->in_txn = sqlite3_exec(b->c->h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

static void snapshot_end(struct browse *b)
{
	if (b->in_txn && !sqlite3_get_autocommit(b->c->h))
		sqlite3_exec(b->c->h, "COMMIT", NULL, NULL, NULL);
	b->in_txn = 0;
}

/* browse_begin calls on this thread: each opens a new snapshot. */
static _Thread_local unsigned long begun;

int browse_begin(struct browse *b, struct req *r)
{
	memset(b, 0, sizeof *b);
	b->r = r;
	b->html = r->html;
	b->csv = r->format == HTTP_FMT_CSV;
	b->after_decode = HUGE_VAL;
	strcpy(b->after_id, "~");
	if (!(b->c = db_reader(r->app->db)))
		return browse_error(b, 503, MSG_DB_DOWN);
	b->gen = cache_gen(r->app->cache);
	begun++;                   /* a new snapshot: browse_digest_short's memo is void */
	snapshot_begin(b);
	if (check_args(b) < 0)
		return -1;
	return resolve_suite(b);
}

void browse_end(struct browse *b)
{
	snapshot_end(b);
}

void browse_cursor(char *out, size_t n, double decode, const char *id)
{
	char num[NUMFMT_SHORTEST_LEN];

	numfmt_shortest(num, decode);    /* reads back as the same double */
	snprintf(out, n, "%s:%s", num, id);
}

void browse_bind_after(const struct browse *b, sqlite3_stmt *st, int i)
{
	sqlite3_bind_double(st, i, b->after_decode);
	db_bind_text(st, i + 1, b->after_id);
}

/* Appends "?k=v" or "&k=v" (v escaped) to out. */
static void add_pair(struct buf *out, int *first, const char *k, const char *v)
{
	buf_putc(out, *first ? '?' : '&');
	buf_puts(out, k);
	buf_putc(out, '=');
	html_url_arg(out, v);
	*first = 0;
}

/* The link of browse_link() from a va_list, with after appended when not
 * NULL. */
static json_t *link_v(const struct browse *b, const char *prefix, const char *segment,
		      va_list ap, const char *after)
{
	struct buf out = BUF_INIT;
	const char *k, *v;
	int first = 1;
	json_t *s;

	buf_puts(&out, prefix);
	if (segment) {
		html_url_arg(&out, segment);
		if (!b->html)
			buf_puts(&out, ".json");
	}
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		if (v)
			add_pair(&out, &first, k, v);
	}
	if (b->suite_given)
		add_pair(&out, &first, "suite", b->suite);
	if (after)
		add_pair(&out, &first, "after", after);
	s = buf_error(&out) ? NULL : json_stringn(out.buf, out.len);
	buf_release(&out);
	return s;
}

json_t *browse_link(const struct browse *b, const char *prefix, const char *segment, ...)
{
	va_list ap;
	json_t *s;

	va_start(ap, segment);
	s = link_v(b, prefix, segment, ap, NULL);
	va_end(ap);
	return s;
}

json_t *browse_mhw_link(const struct browse *b, const char *model, const char *hw)
{
	struct buf prefix = BUF_INIT;
	json_t *l = NULL;

	buf_puts(&prefix, "/m/");
	html_url_arg(&prefix, model);
	buf_puts(&prefix, "/hw/");
	if (!buf_error(&prefix))
		l = browse_link(b, prefix.buf, hw, NULL);
	buf_release(&prefix);
	return l;
}

/* Column i as a JSON string, or null. */
static json_t *col_str(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	json_t *v = s ? json_stringn(s, (size_t)sqlite3_column_bytes(st, i)) : NULL;

	return v ? v : json_null();
}

/* Column i as a JSON number, or null. */
static json_t *col_num(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return json_null();
	return json_real(sqlite3_column_double(st, i));
}

json_t *browse_fig(double v)
{
	struct buf b = BUF_INIT;
	json_t *s;

	numfmt_fig(&b, v);
	s = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return s;
}

json_t *browse_fig_of(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? browse_fig(json_number_value(v)) : json_string("");
}

/* Column i as browse_fig, or "" for NULL. */
static json_t *col_fig(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return json_string("");
	return browse_fig(sqlite3_column_double(st, i));
}

/* The model block of a run item. */
static json_t *run_model(const struct browse *b, sqlite3_stmt *st)
{
	const char *digest = (const char *)sqlite3_column_text(st, C_DIGEST);
	const char *slug = (const char *)sqlite3_column_text(st, C_MODEL_SLUG);
	json_t *m = json_object();
	char shrt[BROWSE_DIGEST_SHORT];

	browse_digest_short(b->c, b->suite, digest, shrt);
	json_object_set_new(m, "name", col_str(st, C_MODEL_NAME));
	json_object_set_new(m, "slug", col_str(st, C_MODEL_SLUG));
	json_object_set_new(m, "digest", col_str(st, C_DIGEST));
	json_object_set_new(m, "digest_short", json_string(shrt));
	json_object_set_new(m, "quantization", col_str(st, C_QUANT));
	json_object_set_new(m, "format", col_str(st, C_FORMAT));
	json_object_set_new(m, "href", browse_link(b, "/m/", slug, "digest", digest, NULL));
	return m;
}

/* The run's status, its place against its ceiling, and the words a list
 * shows beside it (not only an icon: a phone shows no tooltip). */
static void run_marks(const struct browse *b, sqlite3_stmt *st, json_t *o)
{
	const char *status = (const char *)sqlite3_column_text(st, C_STATUS);
	int withdrawn = sqlite3_column_int(st, C_WITHDRAWN), above = 0;
	json_t *marks = json_array();
	struct ceiling_range c;

	if (ceiling_range_of_run(b->r->app->ref, (const char *)sqlite3_column_text(st, C_MODEL_SLUG),
				 (const char *)sqlite3_column_text(st, C_QUANT),
				 (const char *)sqlite3_column_text(st, C_FORMAT),
				 (const char *)sqlite3_column_text(st, C_HW_SLUG),
				 CEILING_CHAT_SHORT_CONTEXT, &c) == 0) {
		above = ceiling_above(&c, sqlite3_column_double(st, C_DECODE));
		json_object_set_new(o, "ceiling_tok_s", json_real(c.high.step.tok_s));
	} else {
		json_object_set_new(o, "ceiling_tok_s", json_null());
	}
	json_object_set_new(o, "above_ceiling", json_boolean(above));
	json_object_set_new(o, "status", json_string(withdrawn ? "withdrawn" : status ? status : "ok"));
	if (sqlite3_column_int(st, C_OUTLIER))
		json_array_append_new(marks, json_string("outlier"));
	if (above)
		json_array_append_new(marks, json_string("above the bandwidth ceiling"));
	if (withdrawn)
		json_array_append_new(marks, json_string("withdrawn"));
	else if (status && !strcmp(status, "upheld"))
		json_array_append_new(marks, json_string("upheld"));
	json_object_set_new(o, "marks", marks);
}

/* The page's words for a run's marks (run_marks): short enough that a
 * mark fits on one line beside a figure; the JSON keeps the long ones.  A
 * new array (empty when out of memory). */
static json_t *marks_text(const json_t *marks)
{
	json_t *out = json_array();
	const json_t *m;
	size_t i;

	json_array_foreach(marks, i, m) {
		const char *s = json_string_value(m);

		json_array_append_new(out, json_string(s && !strcmp(s, "above the bandwidth ceiling")
						       ? "above ceiling" : s ? s : ""));
	}
	return out ? out : json_array();
}

json_t *browse_run(const struct browse *b, sqlite3_stmt *st)
{
	const char *id = (const char *)sqlite3_column_text(st, C_ID);
	const char *created = (const char *)sqlite3_column_text(st, C_CREATED);
	const char *hw = (const char *)sqlite3_column_text(st, C_HW_SLUG);
	json_t *o = json_object();
	char href[32];

	if (!o || !id) {
		json_decref(o);
		return NULL;
	}
	snprintf(href, sizeof href, "/r/%s%s", id, b->html ? "" : ".json");
	json_object_set_new(o, "id", col_str(st, C_ID));
	json_object_set_new(o, "href", json_string(href));
	json_object_set_new(o, "decode_tok_s", col_num(st, C_DECODE));
	json_object_set_new(o, "prefill_tok_s", col_num(st, C_PREFILL));
	json_object_set_new(o, "ttft_ms", col_num(st, C_TTFT));
	json_object_set_new(o, "created_at", col_str(st, C_CREATED));
	json_object_set_new(o, "date", created ? json_stringn(created, strnlen(created, 10)) : json_null());
	json_object_set_new(o, "model", run_model(b, st));
	json_object_set_new(o, "hardware", json_pack("{s:o, s:o, s:o*}",
		"name", col_str(st, C_ACCEL), "slug", col_str(st, C_HW_SLUG),
		"href", browse_link(b, "/hw/", hw, NULL)));
	json_object_set_new(o, "backend", json_pack("{s:o, s:o}",
		"name", col_str(st, C_BACKEND), "version", col_str(st, C_BACKEND_VERSION)));
	json_object_set_new(o, "outlier", json_boolean(sqlite3_column_int(st, C_OUTLIER)));
	json_object_set_new(o, "outlier_reason", !sqlite3_column_int(st, C_OUTLIER) ? json_null()
		: json_string(sqlite3_column_int(st, C_FLAG_BITS) & 4 ? "above_ceiling" : "cluster"));
	json_object_set_new(o, "sigma", col_num(st, C_SIGMA));
	json_object_set_new(o, "demo", json_boolean(sqlite3_column_int(st, C_DEMO)));
	run_marks(b, st, o);
	if (b->html)
		json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o, s:b, s:o}",
			"decode", col_fig(st, C_DECODE), "prefill", col_fig(st, C_PREFILL),
			"ttft", col_fig(st, C_TTFT),
			"marked", json_array_size(json_object_get(o, "marks")) > 0,
			"marks", marks_text(json_object_get(o, "marks"))));
	return o;
}

json_t *browse_list(const struct browse *b, sqlite3_stmt *st, int limit,
		    const char *prefix, const char *segment, ...)
{
	json_t *runs = json_array(), *out;
	char last_id[16] = "", cur[80];
	double last = 0;
	int n = 0, more = 0, rc;
	va_list ap;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit) {
			more = 1;
			break;
		}
		json_array_append_new(runs, browse_run(b, st));
		last = sqlite3_column_double(st, C_DECODE);
		snprintf(last_id, sizeof last_id, "%s", (const char *)sqlite3_column_text(st, C_ID));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		log_error("sqlite: browse list: %s", sqlite3_errstr(rc));
		json_decref(runs);
		return NULL;
	}
	out = json_pack("{s:o, s:i, s:n, s:n, s:b}", "runs", runs, "count", n,
			"next", "first", "paged", more || b->has_after);
	if (more) {
		browse_cursor(cur, sizeof cur, last, last_id);
		va_start(ap, segment);
		json_object_set_new(out, "next", link_v(b, prefix, segment, ap, cur));
		va_end(ap);
	}
	if (b->has_after) {
		va_start(ap, segment);
		json_object_set_new(out, "first", link_v(b, prefix, segment, ap, NULL));
		va_end(ap);
	}
	return out;
}

json_t *browse_suites(const struct browse *b, const char *prefix, const char *segment)
{
	char suites[MAX_SUITES][SUITE_LEN];
	struct buf href = BUF_INIT;
	json_t *a;
	int n, i;

	if ((n = suite_list(b->c, suites)) < 0 || !(a = json_array()))
		return NULL;
	for (i = 0; i < n; i++) {
		buf_reset(&href);
		buf_puts(&href, prefix);
		if (segment) {
			html_url_arg(&href, segment);
			if (!b->html)
				buf_puts(&href, ".json");
		}
		buf_puts(&href, "?suite=");
		html_url_arg(&href, suites[i]);
		json_array_append_new(a, json_pack("{s:s, s:b, s:s}", "name", suites[i],
			"selected", !strcmp(suites[i], b->suite), "href", href.buf));
	}
	buf_release(&href);
	return a;
}

int browse_step_text(sqlite3_stmt *st, char *out, size_t n)
{
	int rc = sqlite3_step(st), found = 0;
	const char *v;

	if (rc == SQLITE_ROW && (v = (const char *)sqlite3_column_text(st, 0))) {
		snprintf(out, n, "%s", v);
		found = 1;
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? found : -1;
}

int browse_has_demo(const struct browse *b)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_demo);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void browse_sort(json_t *a, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(a), i;
	json_t **v = malloc((n ? n : 1) * sizeof *v);

	if (!v)
		return;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(a, i));
	qsort(v, n, sizeof *v, cmp);
	json_array_clear(a);
	for (i = 0; i < n; i++)
		json_array_append_new(a, v[i]);
	free(v);
}

static int name_cmp(const void *x, const void *y)
{
	const char *a = json_string_value(json_object_get(*(json_t *const *)x, "name"));
	const char *b = json_string_value(json_object_get(*(json_t *const *)y, "name"));

	return strcasecmp(a ? a : "", b ? b : "");
}

void browse_sort_by_name(json_t *a)
{
	browse_sort(a, name_cmp);
}

json_t *browse_title(const char *name)
{
	struct buf b = BUF_INIT;
	json_t *t;

	textcut(&b, name, TEXTCUT_TITLE_MAX);
	t = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return t;
}

/* The last short digest this thread made within one page's snapshot (a
 * list names the same weights file row after row): valid while the
 * thread's browse_begin count is still seq and for the same connection,
 * suite and digest. */
static _Thread_local struct {
	unsigned long seq;
	const struct dbconn *c;
	char suite[64], digest[80], shrt[BROWSE_DIGEST_SHORT];
} memo;

void browse_digest_short(struct dbconn *c, const char *suite, const char *digest,
			 char out[BROWSE_DIGEST_SHORT])
{
	sqlite3_stmt *st = c ? db_stmt(c, sql_digest_twin) : NULL;
	char lo[32], hi[32];
	int twin = 1;

	out[0] = '\0';
	if (!digest || strncmp(digest, "sha256:", 7) || strlen(digest) < 7 + 12)
		return;
	if (c && memo.seq == begun && memo.c == c && !strcmp(memo.suite, suite) &&
	    !strcmp(memo.digest, digest)) {
		memcpy(out, memo.shrt, BROWSE_DIGEST_SHORT);
		return;
	}
	snprintf(lo, sizeof lo, "%.19s", digest);
	snprintf(hi, sizeof hi, "%.19s~", digest);
	if (st) {
		db_bind_text(st, 1, lo);
		db_bind_text(st, 2, hi);
		db_bind_text(st, 3, digest);
		db_bind_text(st, 4, suite);
		switch (sqlite3_step(st)) {
		case SQLITE_ROW: twin = 1; break;
		case SQLITE_DONE: twin = 0; break;
		default: break;          /* a failure: in full */
		}
		sqlite3_reset(st);
	}
	snprintf(out, BROWSE_DIGEST_SHORT, "%.*s", twin ? 64 : 12, digest + 7);
	if (st && strlen(suite) < sizeof memo.suite && strlen(digest) < sizeof memo.digest) {
		memo.seq = begun;
		memo.c = c;
		strcpy(memo.suite, suite);
		strcpy(memo.digest, digest);
		memcpy(memo.shrt, out, BROWSE_DIGEST_SHORT);
	}
}
