/* page_home.c: the leaderboard at /: the best chat-short decode tok/s of
 * each model, hardware and backend in one suite, filterable, with the most
 * recent runs. */
#include "page.h"

#include <stdlib.h>
#include <string.h>

#include "browse.h"
#include "db.h"
#include "log.h"
#include "slug.h"

#define BOARD_PAGE 50
#define RECENT "10"
/* Groups past this many are left off the board (and logged). */
#define MAX_GROUPS 50000

/* The best run of the first (model, hardware, backend) group after the
 * one bound, in the order of index runs_ok_board: one seek per group, so
 * the board costs (groups x log runs), not a pass over the suite's runs.
 * The key is bound as (m, h, b || char(1)) with ">=": slugs and backend
 * names hold no control characters, so this seeks straight past the whole
 * current group, where a plain ">" on the row value would seek to the
 * group's start and step over each of its rows. */
static const char sql_group_next[] =
	"SELECT model_slug, hw_slug, backend_name, decode_tok_s, id FROM runs "
	"WHERE suite_version = ?1 AND status = 'ok' "
	"AND (model_slug, hw_slug, backend_name) >= (?2, ?3, ?4 || char(1)) "
	"ORDER BY model_slug, hw_slug, backend_name, decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_run_by_id[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE id = ?";
static const char sql_recent[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs WHERE suite_version = ? AND status = 'ok' "
	"ORDER BY received_at DESC LIMIT " RECENT;
static const char sql_hw_name[] =
	"SELECT accelerator FROM runs WHERE suite_version = ? AND hw_slug = ? "
	"ORDER BY decode_tok_s DESC LIMIT 1";

const char *const page_home_sql[] = {
	sql_group_next, sql_run_by_id, sql_recent, sql_hw_name, NULL
};

/* One group's best run. */
struct group {
	char model[SLUG_MAX + 1];
	char hw[SLUG_MAX + 1];
	char backend[32];
	double decode;
	char id[16];
};

struct groups {
	struct group *g;
	size_t n, cap;
};

/* Appends the group in st's row; 0 or -1 when memory runs out. */
static int groups_add(struct groups *gs, sqlite3_stmt *st)
{
	struct group *g;

	if (gs->n == gs->cap) {
		size_t cap = gs->cap ? gs->cap * 2 : 256;
		g = realloc(gs->g, cap * sizeof *g);
		if (!g)
			return -1;
		gs->g = g;
		gs->cap = cap;
	}
	g = &gs->g[gs->n++];
	snprintf(g->model, sizeof g->model, "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(g->hw, sizeof g->hw, "%s", (const char *)sqlite3_column_text(st, 1));
	snprintf(g->backend, sizeof g->backend, "%s", (const char *)sqlite3_column_text(st, 2));
	g->decode = sqlite3_column_double(st, 3);
	snprintf(g->id, sizeof g->id, "%s", (const char *)sqlite3_column_text(st, 4));
	return 0;
}

/* Loads the best run of every group of the suite into gs, one seek each.
 * 0, or -1 on a database error or when memory runs out. */
static int groups_load(struct browse *b, struct groups *gs)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_group_next);
	struct group last = { "", "", "", 0, "" };
	int rc;

	if (!st)
		return -1;
	while (gs->n < MAX_GROUPS) {
		db_bind_text(st, 1, b->suite);
		db_bind_text(st, 2, last.model);
		db_bind_text(st, 3, last.hw);
		db_bind_text(st, 4, last.backend);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && groups_add(gs, st) == 0) {
			last = gs->g[gs->n - 1];
			sqlite3_reset(st);
			continue;
		}
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : -1;
	}
	log_error("the leaderboard of %s has more than %d groups; the rest are left off", b->suite, MAX_GROUPS);
	return 0;
}

/* Board order: decode tok/s descending, then run id descending (the order
 * of every list, so the keyset cursor means the same everywhere). */
static int group_cmp(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	if (a->decode != b->decode)
		return a->decode > b->decode ? -1 : 1;
	return -strcmp(a->id, b->id);
}

static int group_matches(const struct browse *b, const struct group *g)
{
	return (!b->hw || !strcmp(b->hw, g->hw)) &&
	       (!b->backend || !strcmp(b->backend, g->backend));
}

/* 1 when g comes after the cursor in board order. */
static int after_cursor(const struct browse *b, const struct group *g)
{
	if (g->decode != b->after_decode)
		return g->decode < b->after_decode;
	return strcmp(g->id, b->after_id) < 0;
}

/* Appends the full run item of id to a, or nothing when it vanished. */
static int add_run(struct browse *b, json_t *a, const char *id)
{
	sqlite3_stmt *st = db_stmt(b->c, sql_run_by_id);
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		json_array_append_new(a, browse_run(b, st));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The board: the groups that match the filters, one page of them after
 * the cursor, as {"runs", "count", "total", "next", "first", "paged"}. */
static json_t *board_json(struct browse *b, const struct groups *gs)
{
	json_t *runs = json_array(), *o;
	const struct group *last = NULL;
	size_t i, total = 0, shown = 0;
	int more = 0;
	char cur[80];

	for (i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		if (!group_matches(b, g))
			continue;
		total++;
		if (!after_cursor(b, g))
			continue;
		if (shown == BOARD_PAGE) {
			more = 1;
			continue;
		}
		if (add_run(b, runs, g->id) < 0)
			goto fail;
		last = g;
		shown++;
	}
	o = json_pack("{s:o, s:i, s:I, s:n, s:n, s:b}", "runs", runs,
		      "count", (int)json_array_size(runs), "total", (json_int_t)total,
		      "next", "first", "paged", more || b->has_after);
	if (o && more && last) {
		browse_cursor(cur, sizeof cur, last->decode, last->id);
		json_object_set_new(o, "next", browse_link(b, "/", NULL, "backend", b->backend,
			"hw", b->hw, "after", cur, NULL));
	}
	if (o && b->has_after)
		json_object_set_new(o, "first", browse_link(b, "/", NULL, "backend", b->backend,
			"hw", b->hw, NULL));
	return o;
fail:
	json_decref(runs);
	return NULL;
}

/* The name people know hardware slug hw by (its best run's accelerator). */
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

/* 1 when the options array a holds an item whose key k equals v. */
static int has_option(const json_t *a, const char *k, const char *v)
{
	size_t i;
	json_t *o;

	json_array_foreach(a, i, o)
		if (!strcmp(json_string_value(json_object_get(o, k)), v))
			return 1;
	return 0;
}

/* The filter choices: every hardware class and backend that has a group
 * in the suite, plus the selected one even when it has none. */
static void add_options(struct browse *b, const struct groups *gs, json_t *m)
{
	json_t *hws = json_array(), *bes = json_array();
	size_t i;

	for (i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		if (!has_option(hws, "slug", g->hw))
			json_array_append_new(hws, json_pack("{s:s, s:o, s:b}", "slug", g->hw,
				"name", hw_name(b, g->hw), "selected", b->hw && !strcmp(b->hw, g->hw)));
		if (!has_option(bes, "name", g->backend))
			json_array_append_new(bes, json_pack("{s:s, s:b}", "name", g->backend,
				"selected", b->backend && !strcmp(b->backend, g->backend)));
	}
	if (b->hw && !has_option(hws, "slug", b->hw))
		json_array_append_new(hws, json_pack("{s:s, s:s, s:b}", "slug", b->hw, "name", b->hw, "selected", 1));
	if (b->backend && !has_option(bes, "name", b->backend))
		json_array_append_new(bes, json_pack("{s:s, s:b}", "name", b->backend, "selected", 1));
	browse_sort_by_name(hws);
	browse_sort_by_name(bes);
	json_object_set_new(m, "hardware_options", hws);
	json_object_set_new(m, "backend_options", bes);
}

/* The most recent runs of the suite, whatever the filters. */
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
	return json_pack("{s:i, s:o}", "count", (int)json_array_size(runs), "runs", runs);
}

/* The page's view model, or NULL with b's failure set. */
static json_t *home_model(struct browse *b)
{
	struct groups gs = { 0 };
	json_t *m = NULL, *board, *recent, *suites;
	int demo;

	if (groups_load(b, &gs) < 0)
		goto fail;
	if (gs.n)
		qsort(gs.g, gs.n, sizeof *gs.g, group_cmp);
	board = board_json(b, &gs);
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
	if (!m || !board || !recent || !suites || demo < 0) {
		json_decref(m);
		m = NULL;
		goto fail;
	}
	add_options(b, &gs, m);
	free(gs.g);
	return m;
fail:
	free(gs.g);
	browse_error(b, 503, "The database is not answering; try again shortly.");
	return NULL;
}

/* GET /: 200 with the board; 400 for a malformed filter or cursor, 404
 * for ?suite= naming a suite without runs. */
enum MHD_Result page_home(struct req *r)
{
	struct browse b;
	json_t *m;

	if (browse_begin(&b, r, 1) < 0 || !(m = home_model(&b)))
		return browse_fail(&b);
	json_object_set_new(m, "cols", json_pack("{s:b, s:b}", "model", 1, "hw", 1));
	return browse_send(&b, "home", m);
}
