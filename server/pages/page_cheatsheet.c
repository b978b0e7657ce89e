/* page_cheatsheet.c: /cheatsheet, .json and .csv: the current suite's
 * models (rows, highest typical figure first, a page at a time) by its
 * most-run hardware (columns), each cell the typical chat-short decode of
 * every backend and weights file side by side (MLX beside llama.cpp) with
 * the weights' quantization, the best run beside it, and a link to the
 * runs.  Read from the summaries model_index, hw_index (0012) and combos
 * (0020): a few seeks per cell, whatever the number of runs.
 * With ?memory=<class>, only runs that reported memory of that class
 * (migration 0017): rows, columns and cells from cheat_model, cheat_hw and
 * cheat_best, the same summaries kept per class. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/validate.h"
#include "pages/browse.h"
#include "render/csv.h"
#include "render/html.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/slug.h"
#include "store/typical.h"
#include "util/nelem.h"

#define ROWS 20                /* models per page */
#define COLS 10                /* hardware columns: the most-run ones */

/* Rows: models by their leading combination's median (model_index_med,
 * migration 0020). */
static const char sql_models[] =
	"SELECT i.model_slug, i.top_rank, n.name FROM model_index i "
	"JOIN search_names n ON n.kind = 'model' AND n.slug = i.model_slug "
	"WHERE i.suite_version = ?1 AND (i.top_rank, i.model_slug) < (?2, ?3) "
	"ORDER BY i.top_rank DESC, i.model_slug DESC LIMIT ?4";
static const char sql_hws[] =
	"SELECT i.hw_slug, n.name FROM hw_index i "
	"JOIN search_names n ON n.kind = 'hw' AND n.slug = i.hw_slug "
	"WHERE i.suite_version = ?1 ORDER BY i.runs DESC, i.hw_slug DESC LIMIT ?2";
/* A cell: the model's combinations on the hardware (each weights file and
 * backend, with its typical figures): its digests (digest_counts, a few),
 * then a primary-key seek in combos each.  CROSS JOIN keeps that order:
 * left to itself the planner walked all of the model's combinations on
 * every hardware (combos_digest_date) and kept this one's, 240 rows for
 * the hottest model at 1,000,000 runs, 122 us a cell against 9 us. */
static const char sql_cell[] =
	"SELECT " TYPICAL_COLS("c") ", r.model_quant FROM digest_counts d CROSS JOIN combos c "
	"ON c.suite_version = d.suite_version AND c.model_slug = d.model_slug "
	"AND c.model_digest = d.model_digest AND c.hw_slug = ?3 "
	"JOIN runs r ON r.id = coalesce(c.best_id, c.key_id) "
	"WHERE d.suite_version = ?1 AND d.model_slug = ?2 AND c.t_runs > 0 "
	"AND (?4 IS NULL OR c.backend_name = ?4)";

/* The same three within memory class ?5 (rows), ?3 (columns), ?5 (cells);
 * the columns are the hardware with the most cells in the class, and each
 * cell is its backends' best unflagged run of that class (typical figures
 * are not split by memory). */
static const char sql_models_mem[] =
	"SELECT i.model_slug, i.best_decode, n.name FROM cheat_model i "
	"JOIN search_names n ON n.kind = 'model' AND n.slug = i.model_slug "
	"WHERE i.suite_version = ?1 AND i.mem_class = ?5 AND (i.best_decode, i.model_slug) < (?2, ?3) "
	"ORDER BY i.best_decode DESC, i.model_slug DESC LIMIT ?4";
static const char sql_hws_mem[] =
	"SELECT i.hw_slug, n.name FROM cheat_hw i "
	"JOIN search_names n ON n.kind = 'hw' AND n.slug = i.hw_slug "
	"WHERE i.suite_version = ?1 AND i.mem_class = ?3 ORDER BY i.cells DESC, i.hw_slug DESC LIMIT ?2";
static const char sql_cell_mem[] =
	"SELECT b.backend_name, b.best_decode, b.best_id, r.model_quant FROM cheat_best b "
	"JOIN runs r ON r.id = b.best_id "
	"WHERE b.suite_version = ?1 AND b.mem_class = ?5 AND b.model_slug = ?2 AND b.hw_slug = ?3 "
	"AND (?4 IS NULL OR b.backend_name = ?4)";

const char *const page_cheatsheet_sql[] = { sql_models, sql_hws, sql_cell, sql_models_mem,
	sql_hws_mem, sql_cell_mem, NULL };

/* The memory classes of migration 0017's mem_classes, smallest first:
 * the ?memory= key and what the page calls it.  A run's memory is the
 * GPU's own when it reported one, else its RAM (Apple silicon's unified
 * memory); each class reaches 10% past its bound (see 0017). */
static const struct { const char *key, *label; } mem_classes[] = {
	{ "8", "Up to 8 GB" }, { "16", "9 to 16 GB" }, { "24", "17 to 24 GB" },
	{ "48", "25 to 48 GB" }, { "96", "49 to 96 GB" }, { "192", "97 to 192 GB" },
	{ "over-192", "Over 192 GB" }, { "unknown", "Not reported" },
};
#define MEM_CLASSES NELEM(mem_classes)

const char *page_cheatsheet_mem_key(size_t i)
{
	return i < MEM_CLASSES ? mem_classes[i].key : NULL;
}


struct sheet {
	struct browse b;
	enum http_format form;     /* the route's: links lead to the same form */
	const struct page_kind_def *kind;   /* the sheet's own: its twins' paths */
	double cur_decode;
	char cur_slug[SLUG_MAX + 1];
	int has_cursor;
	const char *mem;           /* ?memory=, a key of mem_classes, or NULL */
	const char *mem_label;
	json_t *hw;                /* the columns: [{slug, name, href}] */
};

/* ?memory=: one of mem_classes' keys, or empty for every class; -1 with a
 * 400 naming the choices otherwise. */
static int take_memory(struct sheet *s)
{
	const char *v = http_query(s->b.r, "memory");
	size_t i;

	if (!v || !*v)
		return 0;
	for (i = 0; i < MEM_CLASSES; i++)
		if (!strcmp(v, mem_classes[i].key)) {
			s->mem = mem_classes[i].key;
			s->mem_label = mem_classes[i].label;
			return 0;
		}
	return browse_error(&s->b, 400, "The memory= argument must be a memory class: 8, 16, 24, 48, 96, 192 (up to that many GB), over-192 or unknown (no memory reported).");
}

/* The memory filter's choices. */
static json_t *memory_options(const struct sheet *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < MEM_CLASSES; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:b}", "key", mem_classes[i].key,
			"label", mem_classes[i].label, "selected", s->mem == mem_classes[i].key));
	return a;
}

/* ?cursor=<decode>:<model slug>; -1 with a 400 when malformed. */
static int take_cursor(struct sheet *s)
{
	const char *v = http_query(s->b.r, "cursor"), *colon;
	char num[48], *end;

	s->cur_decode = HUGE_VAL;
	strcpy(s->cur_slug, "~");
	if (!v || !*v)
		return 0;
	colon = strrchr(v, ':');
	if (!colon || colon == v || (size_t)(colon - v) >= sizeof num || isspace((unsigned char)*v))
		goto bad;
	memcpy(num, v, (size_t)(colon - v));
	num[colon - v] = '\0';
	s->cur_decode = strtod(num, &end);
	if (*end || !isfinite(s->cur_decode) || !typical_rank_valid(s->cur_decode) || !slug_valid(colon + 1))
		goto bad;
	snprintf(s->cur_slug, sizeof s->cur_slug, "%s", colon + 1);
	s->has_cursor = 1;
	return 0;
bad:
	return browse_error(&s->b, 400, "The cursor= argument must be <decode>:<model slug>; follow the Next page link instead of editing it.");
}

/* The link to this sheet in form f (after cursor, NULL: page one). */
static json_t *sheet_link(const struct sheet *s, enum http_format f, const char *cursor)
{
	const struct page_kind_def *k = s->kind;

	return browse_link(&s->b, f == HTTP_FMT_JSON ? k->json : f == HTTP_FMT_CSV ? k->csv : k->path, NULL, "backend", s->b.backend, "memory", s->mem,
			   "cursor", cursor, NULL);
}

/* The columns: the suite's most-run hardware. */
static int load_hw(struct sheet *s)
{
	sqlite3_stmt *st = db_stmt(s->b.c, s->mem ? sql_hws_mem : sql_hws);
	int rc;

	if (!st || !(s->hw = json_array()))
		return -1;
	db_bind_text(st, 1, s->b.suite);
	sqlite3_bind_int(st, 2, COLS);
	if (s->mem)
		db_bind_text(st, 3, s->mem);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *slug = (const char *)sqlite3_column_text(st, 0);

		json_array_append_new(s->hw, json_pack("{s:s, s:s, s:o}", "slug", slug,
			"name", (const char *)sqlite3_column_text(st, 1),
			"href", browse_link(&s->b, "/hw/", slug, NULL)));
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Where backend name sits in the cell: the order of browse_backends
 * (mlx first, llama.cpp next), unknown ones last. */
static int backend_rank(const char *name)
{
	int i;

	for (i = 0; validate_backends[i]; i++)
		if (!strcmp(validate_backends[i], name))
			return i;
	return i;
}

static int entry_cmp(const void *x, const void *y)
{
	const char *a = json_string_value(json_object_get(*(json_t *const *)x, "backend"));
	const char *b = json_string_value(json_object_get(*(json_t *const *)y, "backend"));

	return backend_rank(a) - backend_rank(b);
}

/* One entry of a memory class's cell: its backend's best unflagged run. */
static json_t *best_entry(struct sheet *s, sqlite3_stmt *st)
{
	const char *id = (const char *)sqlite3_column_text(st, 2);
	const char *q = (const char *)sqlite3_column_text(st, 3);

	return json_pack("{s:s, s:f, s:s, s:o, s:s?, s:s, s:o}",
		"backend", (const char *)sqlite3_column_text(st, 0),
		"best_decode_tok_s", sqlite3_column_double(st, 1), "best_run", id,
		"decode_text", browse_fig(sqlite3_column_double(st, 1)), "quantization", q,
		"id", id, "href", browse_link(&s->b, "/r/", id, NULL));
}

/* One entry of a cell: a combination's typical figures, linking to its
 * runs; the best run's id stays in "id" for the CSV twin. */
static json_t *typical_entry(struct sheet *s, sqlite3_stmt *st)
{
	json_t *o = typical_row(st, 0);
	const char *q = (const char *)sqlite3_column_text(st, TYPICAL_NCOLS);
	double med = json_number_value(json_object_get(o, "median_decode_tok_s"));

	if (!o)
		return NULL;
	json_object_set_new(o, "quantization", q ? json_string(q) : json_null());
	json_object_set(o, "id", json_object_get(o, "best_run"));
	json_object_set_new(o, "decode_text", browse_fig(med));
	json_object_set_new(o, "best_text", browse_fig(json_number_value(json_object_get(o, "best_decode_tok_s"))));
	json_object_set_new(o, "href", browse_link(&s->b, "/m/", json_string_value(json_object_get(o, "model_slug")),
		"digest", json_string_value(json_object_get(o, "digest")),
		"hw", json_string_value(json_object_get(o, "hw_slug")),
		"backend", json_string_value(json_object_get(o, "backend")), NULL));
	json_object_del(o, "first_at");
	json_object_del(o, "key_id");
	return o;
}

/* One cell: each backend (and weights file) of model on hw. */
static json_t *cell(struct sheet *s, const char *model, const char *hw)
{
	sqlite3_stmt *st = db_stmt(s->b.c, s->mem ? sql_cell_mem : sql_cell);
	json_t *a = json_array();
	int rc;

	if (!st || !a) {
		json_decref(a);
		return NULL;
	}
	db_bind_text(st, 1, s->b.suite);
	db_bind_text(st, 2, model);
	db_bind_text(st, 3, hw);
	db_bind_text(st, 4, s->b.backend);
	if (s->mem)
		db_bind_text(st, 5, s->mem);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(a, s->mem ? best_entry(s, st) : typical_entry(s, st));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(a);
		return NULL;
	}
	browse_sort(a, entry_cmp);
	return json_pack("{s:s, s:o, s:b}", "hw", hw, "entries", a, "empty", json_array_size(a) == 0);
}

/* The page of model rows after the cursor, and the paging links. */
static int load_rows(struct sheet *s, json_t *m)
{
	sqlite3_stmt *st = db_stmt(s->b.c, s->mem ? sql_models_mem : sql_models);
	json_t *rows = json_array(), *row, *cells, *c, *h;
	char cur[SLUG_MAX + 48] = "";
	/* The rows first: the cells' statement runs after this one is reset. */
	struct { char slug[SLUG_MAX + 1], name[300]; double d; } got[ROWS + 1];
	size_t i;
	int n = 0, rc, k;

	if (!st || !rows)
		goto fail;
	db_bind_text(st, 1, s->b.suite);
	sqlite3_bind_double(st, 2, s->cur_decode);
	db_bind_text(st, 3, s->cur_slug);
	sqlite3_bind_int(st, 4, ROWS + 1);
	if (s->mem)
		db_bind_text(st, 5, s->mem);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < ROWS + 1) {
		snprintf(got[n].slug, sizeof got[n].slug, "%s", (const char *)sqlite3_column_text(st, 0));
		got[n].d = sqlite3_column_double(st, 1);
		snprintf(got[n].name, sizeof got[n].name, "%s", (const char *)sqlite3_column_text(st, 2));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		goto fail;
	for (k = 0; k < n && k < ROWS; k++) {
		cells = json_array();
		json_array_foreach(s->hw, i, h) {
			if (!(c = cell(s, got[k].slug, json_string_value(json_object_get(h, "slug"))))) {
				json_decref(cells);
				goto fail;
			}
			json_array_append_new(cells, c);
		}
		row = json_pack("{s:{s:s, s:s, s:o}, s:o}", "model", "slug", got[k].slug,
				"name", got[k].name, "href", browse_link(&s->b, "/m/", got[k].slug, NULL),
				"cells", cells);
		json_array_append_new(rows, row);
		browse_cursor(cur, sizeof cur, got[k].d, got[k].slug);
	}
	json_object_set_new(m, "rows", rows);
	json_object_set_new(m, "count", json_integer(n > ROWS ? ROWS : n));
	json_object_set_new(m, "next", n > ROWS ? sheet_link(s, s->form, cur) : json_null());
	json_object_set_new(m, "first", s->has_cursor ? sheet_link(s, s->form, NULL) : json_null());
	json_object_set_new(m, "paged", json_boolean(n > ROWS || s->has_cursor));
	return 0;
fail:
	json_decref(rows);
	return browse_error(&s->b, 503, MSG_DB_DOWN);
}

/* An entry's figure as the cell shows it: the typical median, or (a
 * memory class) the best run's decode. */
static double entry_decode(const json_t *e)
{
	const json_t *v = json_object_get(e, "median_decode_tok_s");

	return json_number_value(v ? v : json_object_get(e, "best_decode_tok_s"));
}

/* Says on each entry of a cell's entries whose backend has another entry
 * there why it has two lines ("twice"): "another quantization" when their
 * quantizations differ, else "another weights file <digest12>". */
static void explain_twice(json_t *entries)
{
	json_t *e, *k;
	size_t i, j;

	json_array_foreach(entries, i, e) {
		const char *be = json_string_value(json_object_get(e, "backend"));
		const char *q = json_string_value(json_object_get(e, "quantization"));
		const char *d = json_string_value(json_object_get(e, "digest"));
		int twin = 0, same_quant = 0;

		json_array_foreach(entries, j, k) {
			const char *kq = json_string_value(json_object_get(k, "quantization"));

			if (j == i || strcmp(be, json_string_value(json_object_get(k, "backend"))))
				continue;
			twin = 1;
			same_quant |= q && kq ? !strcmp(q, kq) : !q && !kq;
		}
		if (!twin)
			continue;
		if (same_quant && d && strlen(d) > 19)
			json_object_set_new(e, "twice", json_sprintf("another weights file %.12s", d + 7));
		else
			json_object_set_new(e, "twice", json_string(same_quant ? "another weights file" : "another quantization"));
	}
}

/* A copy of cell c for the page: its hardware's name (each phone card's
 * label), why a backend has two lines (explain_twice) and, when it holds
 * two entries or more, "fastest" on the one with the highest figure (the
 * first of equals) among those that may lead (a confirmed
 * combination's). */
static json_t *page_cell(const json_t *c, const json_t *h)
{
	json_t *o = json_deep_copy(c), *e, *best = NULL;
	size_t i;

	if (!o)
		return NULL;
	json_object_set(o, "hw_name", json_object_get(h, "name"));
	explain_twice(json_object_get(o, "entries"));
	json_array_foreach(json_object_get(o, "entries"), i, e)
		if (combos_may_lead(e) && (!best || entry_decode(e) > entry_decode(best)))
			best = e;
	if (best && json_array_size(json_object_get(o, "entries")) > 1)
		json_object_set_new(best, "fastest", json_true());
	return o;
}

/* Adds "groups" to the page's view model m (HTML only; the JSON twin
 * keeps one matrix): the hardware columns cut into tables of at most
 * GROUP_COLS, as even as they go (5 is 3 and 2), each with every model
 * row, so that each table fits a 1280 px window beside a model column
 * wide enough for its names, and its caption naming its hardware.
 * 0, or -1 out of memory. */
#define GROUP_COLS 4
static int add_groups(json_t *m)
{
	const json_t *hw = json_object_get(m, "hardware"), *rows = json_object_get(m, "rows"), *row;
	size_t n = json_array_size(hw), ng = (n + GROUP_COLS - 1) / GROUP_COLS, g, i, k;
	json_t *groups = json_array();

	for (g = 0; groups && g < ng; g++) {
		size_t from = (g * n + ng - 1) / ng, to = ((g + 1) * n + ng - 1) / ng;  /* larger first */
		json_t *gh = json_array(), *grows = json_array();
		struct buf cap = BUF_INIT;

		buf_puts(&cap, "Typical decode tok/s on ");
		for (k = from; k < to; k++) {
			json_array_append(gh, json_array_get(hw, k));
			buf_printf(&cap, "%s%s", k == from ? "" : k + 1 == to ? " and " : ", ",
				   json_string_value(json_object_get(json_array_get(hw, k), "name")));
		}
		if (ng > 1)
			buf_printf(&cap, " (table %zu of %zu)", g + 1, ng);
		json_array_foreach(rows, i, row) {
			json_t *cells = json_array();

			for (k = from; k < to; k++)
				json_array_append_new(cells, page_cell(json_array_get(json_object_get(row, "cells"), k),
								       json_array_get(hw, k)));
			json_array_append_new(grows, json_pack("{s:O, s:o}", "model", json_object_get(row, "model"),
							       "cells", cells));
		}
		if (buf_error(&cap) || json_array_append_new(groups, json_pack("{s:s%, s:o, s:o}",
				"caption", cap.buf, cap.len, "hardware", gh, "rows", grows))) {
			json_decref(groups);
			groups = NULL;
		}
		buf_release(&cap);
	}
	return groups ? json_object_set_new(m, "groups", groups) : -1;
}

/* The backend filter's choices. */
static json_t *backend_options(const struct sheet *s)
{
	json_t *a = json_array();
	int i;

	for (i = 0; validate_backends[i]; i++)
		json_array_append_new(a, json_pack("{s:s, s:b}", "name", validate_backends[i],
			"selected", s->b.backend && !strcmp(s->b.backend, validate_backends[i])));
	return a;
}

/* GET /cheatsheet, .json, .csv: a page of the matrix; NULL with a 400 for
 * a malformed backend=, memory= or cursor=, a 404 for an unknown suite. */
json_t *page_cheatsheet_view(struct page_view *v)
{
	const struct page_kind_def *k = v->kind;
	struct sheet s = { .form = v->format, .kind = v->kind };
	json_t *m = NULL;

	if (browse_begin(&s.b, v->r) < 0 || take_memory(&s) < 0 || take_cursor(&s) < 0)
		return page_view_browsed(v, &s.b, NULL);
	if (load_hw(&s) < 0) {
		json_decref(s.hw);
		browse_error(&s.b, 503, MSG_DB_DOWN);
		return page_view_browsed(v, &s.b, NULL);
	}
	m = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:O, s:o, s:o, s:o, s:o, s:o}", "title", "Cheatsheet",
		      "suite_version", s.b.suite, "backend", s.b.backend, "memory", s.mem,
		      "memory_label", s.mem_label, "hardware", s.hw,
		      "backends", backend_options(&s), "memories", memory_options(&s),
		      "json_href", browse_twin_href(&s.b, k->json),
		      "csv_href", browse_twin_href(&s.b, k->csv),
		      "suites", browse_suites(&s.b, k->path, NULL));
	if (m && load_rows(&s, m) < 0) {
		json_decref(m);
		m = NULL;
	}
	json_decref(s.hw);
	if (m && v->format == HTTP_FMT_HTML && add_groups(m) < 0) {
		json_decref(m);
		m = NULL;
		browse_error(&s.b, 503, MSG_NOMEM);
	}
	return page_view_browsed(v, &s.b, m);
}
