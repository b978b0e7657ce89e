/* page_home.c: the leaderboard at /: each combination (a model's weights
 * file on one hardware with one backend) of one suite with its typical
 * chat-short decode tok/s (the median over signing keys, with the spread
 * and the best run beside it), filterable and sortable, with the most
 * recent runs. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pages/browse.h"
#include "store/db.h"
#include "store/names.h"
#include "util/slug.h"

#define BOARD_PAGE 50
#define RECENT "10"
/* The count of matching groups stops here ("More than 1000"): counting is a walk
 * over the summary's index, so it is capped like every list. */
#define COUNT_CAP 1000

/* How many combinations match, up to COUNT_CAP + 1, in the index the
 * default order reads, without reading the rows: a combination has a
 * typical figure (t_runs > 0) exactly when its median, and so its rank
 * by the median, is not NULL (the writer keeps it so,
 * store/outlier_pop.c; tests/check_stats.h checks it), and that rank is
 * in combos_med, combos_med_hw and combos_med_be: the count reads those
 * indexes alone, never a row (med is in no index: counting by it took a
 * seek of the table per combination, up to 1,001, a quarter of a
 * filtered board's build at 200,000 runs). */
#define COUNT_OF(where) "SELECT count(*) FROM (SELECT 1 FROM combos WHERE suite_version = ?1 " \
	"AND rank_med IS NOT NULL" where " LIMIT ?4)"
static const char sql_count[] = COUNT_OF("");
static const char sql_count_hw[] = COUNT_OF(" AND hw_slug = ?2");
static const char sql_count_be[] = COUNT_OF(" AND backend_name = ?3");
static const char sql_count_hw_be[] = COUNT_OF(" AND hw_slug = ?2 AND backend_name = ?3");
/* The filter choices: the next hardware or backend with a group, one
 * seek each. */
static const char sql_hw_next[] =
	"SELECT min(hw_slug) FROM combos WHERE suite_version = ?1 AND t_runs > 0 AND hw_slug > ?2";
static const char sql_be_next[] =
	"SELECT min(backend_name) FROM combos WHERE suite_version = ?1 AND t_runs > 0 AND backend_name > ?2";
static const char sql_recent[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE suite_version = ? AND status = 'ok' "
	"ORDER BY received_at DESC LIMIT " RECENT;
/* As page_hw.c's: the shown name, of a hardware the suite has runs on. */
static const char sql_hw_name[] =
	"SELECT " NAMES_HW("hw_slug", "accelerator") " FROM runs WHERE id = coalesce("
	"(SELECT best_id FROM hw_best WHERE suite_version = ?1 AND hw_slug = ?2 "
	"ORDER BY best_decode DESC, best_id DESC LIMIT 1), "
	"(SELECT id FROM runs WHERE suite_version = ?1 AND hw_slug = ?2 AND status <> 'ok' LIMIT 1))";

const char *const page_home_sql[] = {
	sql_count, sql_count_hw, sql_count_be, sql_count_hw_be,
	sql_hw_next, sql_be_next, sql_recent, sql_hw_name, NULL
};

/* Binds the suite and the filters (?1..?3) shared by the board queries. */
static void bind_filters(const struct browse *b, sqlite3_stmt *st)
{
	db_bind_text(st, 1, b->suite);
	if (b->hw)
		db_bind_text(st, 2, b->hw);
	if (b->backend)
		db_bind_text(st, 3, b->backend);
}

/* The number of groups within the filters, at most COUNT_CAP + 1; -1 on
 * a database error. */
static long board_count(struct browse *b)
{
	static const char *const sqls[2][2] = {
		{ sql_count, sql_count_be }, { sql_count_hw, sql_count_hw_be }
	};
	sqlite3_stmt *st = db_stmt(b->c, sqls[b->hw != NULL][b->backend != NULL]);
	long n = -1;

	if (!st)
		return -1;
	bind_filters(b, st);
	sqlite3_bind_int(st, 4, COUNT_CAP + 1);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return n;
}

/* One "Sort by" link of the board, keeping its filters. */
static json_t *board_sort_href(void *ctx, const char *sort)
{
	struct browse *b = ctx;

	return browse_link(b, "/", NULL, "backend", b->backend, "hw", b->hw, "sort", sort, NULL);
}

/* The board's link after cursor cur (NULL: page one), in the order of
 * its sort, keeping the filters. */
struct board_ctx { struct browse *b; const char *sort; };

static json_t *board_link(void *ctx, const char *cur)
{
	struct board_ctx *k = ctx;

	return browse_link(k->b, "/", NULL, "backend", k->b->backend, "hw", k->b->hw,
			   "sort", k->sort, "after", cur, NULL);
}

/* The board: one page of the combinations that match the filters, after
 * the cursor, in the order sort (combos_page), as {"rows", "count",
 * "total", "total_text", "next", "first", "paged", "prev",
 * "ceiling_note"}.  NULL with b's failure set. */
static json_t *board_json(struct browse *b, enum browse_sort sort)
{
	struct combos_q q = { b->hw, b->backend, NULL, NULL };
	struct board_ctx k = { b, sort == SORT_DECODE ? NULL : browse_sort_key(sort) };
	char total_text[32];
	json_t *o;
	long total;

	if (!(o = combos_page(b, &q, sort, BOARD_PAGE, board_link, &k)))
		return NULL;
	if ((total = board_count(b)) < 0) {
		json_decref(o);
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	if (total > COUNT_CAP)
		snprintf(total_text, sizeof total_text, "More than %d", COUNT_CAP);
	else
		snprintf(total_text, sizeof total_text, "%ld", total);
	json_object_set_new(o, "total", json_integer((json_int_t)total));
	json_object_set_new(o, "total_text", json_string(total_text));
	json_object_set_new(o, "ceiling_note", combos_ceiling_note(b, json_object_get(o, "rows")));
	return o;
}

/* The name people know hardware slug hw by (store/names.h). */
static json_t *hw_name(struct browse *b, const char *hw)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_hw_name);
	json_t *name = NULL;

	if (!st)
		return json_string(hw);
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, hw);
	if (sqlite3_step(st) == SQLITE_ROW)
		name = json_string((const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return name ? name : json_string(hw);
}

/* The next value after prev of the column stepped by sql (one seek); 1
 * with it in out, 0 at the end, -1 on error. */
static int next_value(struct browse *b, const char *sql, const char *prev, char *out, size_t n)
{
	sqlite3_stmt *st = db_stmt(b->c, sql);

	if (!st)
		return -1;
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, prev);
	return browse_step_text(st, out, n);
}

/* The filter choices: every hardware class and backend that has a group
 * in the suite, plus the selected one even when it has none; 0 or -1. */
static int add_options(struct browse *b, json_t *m)
{
	json_t *hws = json_array(), *bes = json_array();
	char v[SLUG_MAX + 1] = "";
	int rc, rc2 = 0, hw_seen = 0, be_seen = 0;

	while ((rc = next_value(b, sql_hw_next, v, v, sizeof v)) == 1) {
		hw_seen |= b->hw && !strcmp(b->hw, v);
		json_array_append_new(hws, json_pack("{s:s, s:o, s:b}", "slug", v,
			"name", hw_name(b, v), "selected", b->hw && !strcmp(b->hw, v)));
	}
	v[0] = '\0';
	while (rc == 0 && (rc2 = next_value(b, sql_be_next, v, v, sizeof v)) == 1) {
		be_seen |= b->backend && !strcmp(b->backend, v);
		json_array_append_new(bes, json_pack("{s:s, s:b}", "name", v,
			"selected", b->backend && !strcmp(b->backend, v)));
	}
	if (b->hw && !hw_seen)
		json_array_append_new(hws, json_pack("{s:s, s:s, s:b}", "slug", b->hw, "name", b->hw, "selected", 1));
	if (b->backend && !be_seen)
		json_array_append_new(bes, json_pack("{s:s, s:b}", "name", b->backend, "selected", 1));
	browse_sort_by_name(hws);
	browse_sort_by_name(bes);
	json_object_set_new(m, "hardware_options", hws);
	json_object_set_new(m, "backend_options", bes);
	return rc < 0 || rc2 < 0 ? -1 : 0;
}

/* Newer measurement first (created_at is RFC 3339 UTC, so it sorts as
 * text); ties by id. */
static int newest_first(const void *x, const void *y)
{
	const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	const char *ca = json_string_value(json_object_get(a, "created_at"));
	const char *cb = json_string_value(json_object_get(b, "created_at"));
	int c = strcmp(cb ? cb : "", ca ? ca : "");

	if (c)
		return c;
	ca = json_string_value(json_object_get(a, "id"));
	cb = json_string_value(json_object_get(b, "id"));
	return strcmp(ca ? ca : "", cb ? cb : "");
}

/* The most recent runs of the suite, whatever the filters: the last
 * RECENT received, shown newest measurement first (a batch received in
 * the same second, as the demo is, has no order of its own). */
static json_t *recent_json(struct browse *b)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_recent);
	json_t *runs = json_array();
	int rc;

	if (!st)
		return NULL;
	db_bind_text(st, 1, b->suite);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(runs, browse_run(b, st));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(runs);
		return NULL;
	}
	browse_sort(runs, newest_first);
	return json_pack("{s:i, s:o}", "count", (int)json_array_size(runs), "runs", runs);
}

/* The page's view model, or NULL with b's failure set. */
static json_t *home_model(struct browse *b)
{
	json_t *m = NULL, *board, *recent, *suites;
	int demo, sort = browse_take_order(b, &browse_board_orders);

	if (sort < 0)
		return NULL;
	board = board_json(b, (enum browse_sort)sort);
	recent = recent_json(b);
	suites = browse_suites(b, "/", NULL);
	demo = browse_has_demo(b);
	m = json_pack("{s:s, s:s, s:o*, s:b, s:{s:s?, s:s?, s:s?, s:b}, s:o*, s:o*, s:o*}",
		"title", "Leaderboard", "suite_version", b->suite, "suites", suites,
		"demo", demo > 0,
		"filters", "suite", b->suite_given ? b->suite : NULL, "hw", b->hw,
		"backend", b->backend, "active", b->hw || b->backend,
		"board", board, "recent", recent,
		"clear_href", browse_link(b, "/", NULL, NULL));
	if (m) {
		json_object_set_new(m, "sort", json_string(browse_sort_key(sort)));
		json_object_set_new(m, "sort_text", json_string(browse_board_orders.o[sort].text));
		json_object_set_new(m, "sort_param", sort ? json_string(browse_sort_key(sort)) : json_null());
		json_object_set_new(m, "sorts", browse_sort_links((enum browse_sort)sort, board_sort_href, b));
		if (board)   /* the board's headers only, not the recent runs' */
			json_object_set_new(board, "sort_by", browse_sort_by(json_object_get(m, "sorts")));
	}
	if (!m || !board || !recent || !suites || demo < 0 || add_options(b, m) < 0) {
		json_decref(m);
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	return m;
}

/* GET /, /index.json, /index.csv: the board; NULL with a 400 for a
 * malformed filter or cursor, a 404 for ?suite= naming a suite without
 * runs.  With ?model= on the page for people, the picker (page_pick.c)
 * answers instead (a query the list cache never keeps). */
json_t *page_home_view(struct page_view *v)
{
	struct browse b;
	json_t *m = NULL;

	if (v->format == HTTP_FMT_HTML && page_pick(v, &m))
		return m;
	if (browse_begin(&b, v->r) == 0 && (m = home_model(&b)))
		json_object_set_new(m, "cols", combos_cols(1, 1));
	return page_view_browsed(v, &b, m);
}
