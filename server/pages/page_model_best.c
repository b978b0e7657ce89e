/* page_model_best.c: the model page's answer (issue 38): on each
 * hardware, the fastest combination across every weights file of the
 * model, with the backend and the weights named, so that the M4 Max reads
 * mlx's figure when mlx ran another file than llama.cpp.  Each file's own
 * figures stay below, one file at a time (page_model.c): this only picks
 * among them, it never blends them.
 *
 * Reads each listed digest's combinations by combos_digest_med (the
 * digest's hardware times its backends), the rows the page shows. */
#include "pages/page_model.h"

#include <math.h>
#include <string.h>

#include "domain/quantile.h"
#include "render/barchart.h"
#include "store/db.h"
#include "store/names.h"
#include "store/typical.h"
#include "util/buf.h"
#include "util/textcut.h"
#include "util/utf8.h"

static const char sql_digest_combos[] =
	"SELECT " TYPICAL_COLS("c") ", " NAMES_HW("c.hw_slug", "r.accelerator") ", r.model_quant, "
	"r.model_format, c.rank_med FROM combos c JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) "
	"WHERE c.suite_version = ?1 AND c.model_slug = ?2 AND c.model_digest = ?3 AND c.t_runs > 0 "
	"ORDER BY c.rank_med DESC, c.key_id DESC";

const char *const page_model_best_sql[] = { sql_digest_combos, NULL };

/* The text at column i, or NULL. */
static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* What ran, in words: "mlx, MLX-4bit (mlx)"; a new JSON string. */
static json_t *ran_label(const char *backend, const char *quant, const char *format)
{
	if (quant && format)
		return json_sprintf("%s, %s (%s)", backend, quant, format);
	if (quant || format)
		return json_sprintf("%s, %s", backend, quant ? quant : format);
	return json_string(backend);
}

/* Keeps st's row in best (hardware slug -> row) when it ranks above the
 * one kept for its hardware and is within the ?backend= filter. */
static void keep_if_faster(struct mpage *p, json_t *best, sqlite3_stmt *st)
{
	const char *hw = col(st, 2), *be = col(st, 3);
	double rank = sqlite3_column_double(st, TYPICAL_NCOLS + 3);
	const json_t *had = hw ? json_object_get(best, hw) : NULL;
	char shrt[BROWSE_DIGEST_SHORT];
	json_t *o;

	if (!hw || !be || (had && json_real_value(json_object_get(had, "rank")) >= rank) ||
	    (p->b.backend && strcmp(p->b.backend, be)))
		return;
	if (!(o = typical_row(st, 0)))
		return;
	browse_digest_short(p->b.c, p->b.suite, col(st, 1), shrt);
	json_object_set_new(o, "name", json_string(col(st, TYPICAL_NCOLS) ? col(st, TYPICAL_NCOLS) : hw));
	json_object_set_new(o, "quantization", col(st, TYPICAL_NCOLS + 1) ? json_string(col(st, TYPICAL_NCOLS + 1)) : json_null());
	json_object_set_new(o, "format", col(st, TYPICAL_NCOLS + 2) ? json_string(col(st, TYPICAL_NCOLS + 2)) : json_null());
	json_object_set_new(o, "label", ran_label(be, col(st, TYPICAL_NCOLS + 1), col(st, TYPICAL_NCOLS + 2)));
	json_object_set_new(o, "digest_short", json_string(shrt));
	json_object_set_new(o, "rank", json_real(rank));
	json_object_set_new(o, "href", browse_mhw_link(&p->b, p->slug, hw));
	json_object_set_new(o, "runs_href", browse_link(&p->b, "/m/", p->slug, "digest", col(st, 1),
							"hw", hw, "backend", be, NULL));
	json_object_del(o, "first_at");
	json_object_del(o, "key_id");
	json_object_set_new(best, hw, o);
}

/* Adds backend to the array bes unless it is there. */
static void add_backend(json_t *bes, const char *backend)
{
	json_t *v;
	size_t i;

	if (!backend)
		return;
	json_array_foreach(bes, i, v)
		if (!strcmp(json_string_value(v), backend))
			return;
	json_array_append_new(bes, json_string(backend));
}

/* Names the digest item d (and the shown digest, when it is d) by what it
 * is and what ran it: "backends" (bes, taken; fastest first) and "label",
 * "Q4_K_M (gguf), run with ollama"; the hash comes second on the page. */
static void name_file(struct mpage *p, json_t *d, json_t *bes)
{
	const char *q = json_string_value(json_object_get(d, "quantization"));
	const char *f = json_string_value(json_object_get(d, "format"));
	json_t *sel = json_object_get(p->m, "digest"), *v;
	struct buf b = BUF_INIT;
	size_t i;

	if (q && f)
		buf_printf(&b, "%s (%s)", q, f);
	else
		buf_puts(&b, q ? q : f ? f : "quantization not named");
	json_array_foreach(bes, i, v)
		buf_printf(&b, "%s%s", i ? (i + 1 == json_array_size(bes) ? " and " : ", ") : ", run with ",
			   json_string_value(v));
	json_object_set_new(d, "label", json_string(buf_error(&b) ? "" : b.buf));
	json_object_set_new(d, "backends", bes);
	if (json_is_object(sel) && json_equal(json_object_get(sel, "digest"), json_object_get(d, "digest"))) {
		json_object_set(sel, "label", json_object_get(d, "label"));
		json_object_set(sel, "backends", bes);
	}
	buf_release(&b);
}

static int by_rank(const void *x, const void *y)
{
	double a = json_real_value(json_object_get(*(json_t *const *)x, "rank"));
	double b = json_real_value(json_object_get(*(json_t *const *)y, "rank"));

	return a < b ? 1 : a > b ? -1 : 0;
}

/* The bar chart of rows for pages: a bar per hardware, its short name as
 * the label and what ran as its second line ("exllamav2 EXL2-4.0bpw",
 * "llama.cpp Q4_K_M (gguf)"), so the chart never cuts the weights off. */
static void add_chart(json_t *m, json_t *rows)
{
	struct barchart_bar v[BARCHART_MAX_BARS];
	char names[BARCHART_MAX_BARS][BARCHART_LABEL_MAX * 4 + 1];
	char subs[BARCHART_MAX_BARS][BARCHART_LABEL_MAX * 4 + 1];
	struct buf svg = BUF_INIT, label = BUF_INIT;
	json_t *row;
	size_t i, n = 0;

	json_array_foreach(rows, i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *be = json_string_value(json_object_get(row, "backend"));
		const char *q = json_string_value(json_object_get(row, "quantization"));
		const char *f = json_string_value(json_object_get(row, "format"));
		size_t len = 0, at = name ? textcut_hw(name, strlen(name), &len) : 0;

		if (n == BARCHART_MAX_BARS)
			break;
		len = name ? utf8_cut(name + at, len, sizeof names[n] - 1) : 0;
		memcpy(names[n], name ? name + at : "", len);
		names[n][len] = '\0';
		q = q && *q ? q : NULL;     /* an empty label names nothing */
		f = f && *f ? f : NULL;
		buf_reset(&label);
		buf_puts(&label, be ? be : "");
		if (q)
			buf_printf(&label, " %s", q);
		/* The format, unless the quantization names it ("EXL2-4.0bpw"). */
		if (f && !(q && strcasestr(q, f)))
			buf_printf(&label, q ? " (%s)" : " %s", f);
		len = buf_error(&label) ? 0 : utf8_cut(label.buf, label.len, sizeof subs[n] - 1);
		memcpy(subs[n], len ? label.buf : "", len);
		subs[n][len] = '\0';
		v[n].label = names[n];
		v[n].sub = subs[n];
		v[n++].value = json_number_value(json_object_get(row, "median_decode_tok_s"));
	}
	if (barchart_svg(&svg, "Median chat-short decode tok/s, the fastest backend and weights on each hardware",
			 "tok/s", v, n) == 0)
		json_object_set_new(m, "best_chart_svg", json_stringn(svg.buf, svg.len));
	buf_release(&svg);
	buf_release(&label);
}

int model_load_best(struct mpage *p)
{
	sqlite3_stmt *st = db_stmt(p->b.c, sql_digest_combos);
	json_t *best = json_object(), *rows = json_array(), *d, *o;
	const char *k;
	size_t i;
	int rc = SQLITE_DONE;

	if (!st || !best || !rows)
		goto fail;
	json_array_foreach(json_object_get(p->m, "digests"), i, d) {
		json_t *bes = json_array();

		db_bind_text(st, 1, p->b.suite);
		db_bind_text(st, 2, p->slug);
		db_bind_text(st, 3, json_string_value(json_object_get(d, "digest")));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			keep_if_faster(p, best, st);
			add_backend(bes, col(st, 3));
		}
		sqlite3_reset(st);
		name_file(p, d, bes);
		if (rc != SQLITE_DONE)
			goto fail;
	}
	/* A ?digest= past the listed page of files: named by what it is. */
	d = json_object_get(p->m, "digest");
	if (json_is_object(d) && !json_object_get(d, "label"))
		name_file(p, d, json_array());
	json_object_foreach(best, k, o)
		json_array_append(rows, o);
	browse_sort(rows, by_rank);
	json_array_foreach(rows, i, o) {
		json_object_del(o, "rank");
		if (p->b.html) {
			json_object_set_new(o, "text", json_pack("{s:o, s:o, s:o}",
				"median", browse_fig_of(o, "median_decode_tok_s"),
				"middle", combos_spread_text(o),
				"keys", json_sprintf("%" JSON_INTEGER_FORMAT " submitter%s", json_integer_value(json_object_get(o, "keys")),
						     json_integer_value(json_object_get(o, "keys")) == 1 ? "" : "s")));
		}
	}
	if (p->b.html)
		add_chart(p->m, rows);
	json_decref(best);
	json_object_set_new(p->m, "best_per_hw", rows);
	json_object_set_new(p->m, "has_best", json_boolean(json_array_size(rows) > 0));
	return 0;
fail:
	json_decref(best);
	json_decref(rows);
	return browse_error(&p->b, 503, MSG_DB_DOWN);
}
