/* browse_sort.c: ?sort= of the browse pages and lists: taking the argument,
 * the "Sort by" links and column headers, and a sorted list's page by
 * keyset (browse_sorted_page). */
#include "pages/browse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "store/db.h"
#include "util/err.h"

/* A sorted list's run, by its id. */
static const char sql_run_by_id[] = "SELECT " BROWSE_RUN_COLS " FROM runs WHERE id = ?";

const char *const browse_sort_sql[] = { sql_run_by_id, NULL };

/* The board's orders, in enum browse_sort's order. */
static const struct browse_order board_order[SORT__MAX] = {
	{ "decode", "Median decode", "highest median decode first", 0 },
	{ "prefill", "Median prefill", "fastest median prefill first", 0 },
	{ "ttft", "Median time to first token", "quickest median first token first", 1 },
	{ "date", "First measured", "newest first", 0 },
	{ "best", "Best run", "fastest best run first", 0 },
};
const struct browse_orders browse_board_orders = { board_order, SORT__MAX };

int browse_take_order(struct browse *b, const struct browse_orders *s)
{
	const char *v = http_query(b->r, "sort");
	struct buf allowed = BUF_INIT;
	int i;

	b->sort_given = 0;
	if (!v || !*v)
		return 0;
	for (i = 0; i < s->n; i++)
		if (!strcmp(v, s->o[i].key)) {
			b->sort_given = 1;
			return i;
		}
	for (i = 0; i < s->n; i++)
		buf_printf(&allowed, "%s%s", i == 0 ? "" : i == s->n - 1 ? " or " : ", ", s->o[i].key);
	browse_error(b, 400, "The sort= argument must be %s.", buf_error(&allowed) ? "a listed order" : allowed.buf);
	buf_release(&allowed);
	return -1;
}

/* Order i of s as a "Sort by" link, {key, label, href, selected, dir}, cur
 * being the page's order; NULL when memory runs out. */
static json_t *order_link(const struct browse_orders *s, int i, int cur,
			  json_t *(*href)(void *ctx, const char *sort), void *ctx)
{
	json_t *l = json_pack("{s:s, s:s, s:o*, s:b, s:s}", "key", s->o[i].key, "label", s->o[i].label,
			      "href", href(ctx, i ? s->o[i].key : NULL), "selected", i == cur,
			      "dir", s->o[i].ascending ? "ascending" : "descending");

	if (l && !json_object_get(l, "href")) {
		json_decref(l);
		l = NULL;
	}
	return l;
}

json_t *browse_sort_links(enum browse_sort cur, json_t *(*href)(void *ctx, const char *sort), void *ctx)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < SORT__MAX; i++)
		json_array_append_new(a, order_link(&browse_board_orders, i, (int)cur, href, ctx));
	return a;
}

json_t *browse_sort_by(json_t *sorts)
{
	json_t *by = json_object(), *l;
	const char *k;
	size_t i;

	json_array_foreach(sorts, i, l) {
		if (!by || !(k = json_string_value(json_object_get(l, "key"))))
			break;
		json_object_set(by, k, l);
	}
	return by;
}

int browse_add_orders(json_t *m, const struct browse_orders *s, int cur,
		      json_t *(*href)(void *ctx, const char *sort), void *ctx)
{
	json_t *a = json_array(), *by = json_object(), *l;
	int i, bad = !a || !by;

	for (i = 0; !bad && i < s->n; i++) {
		l = order_link(s, i, cur, href, ctx);
		if (!l || json_object_set_new(l, "ascending", json_boolean(s->o[i].ascending)) ||
		    json_object_set(by, s->o[i].key, l) || json_array_append(a, l))
			bad = 1;
		json_decref(l);
	}
	bad = bad || json_object_set_new(m, "sort", json_string(s->o[cur].key)) ||
	      json_object_set_new(m, "sort_text", json_string(s->o[cur].text)) ||
	      json_object_set_new(m, "sort_param", cur ? json_string(s->o[cur].key) : json_null());
	if (bad) {
		json_decref(a);
		json_decref(by);
		return -1;
	}
	json_object_set_new(m, "sorts", a);
	json_object_set_new(m, "sort_by", by);
	return 0;
}

int browse_sorted_ids(struct browse *b, sqlite3_stmt *st, enum browse_sort sort, int limit,
		      char (*ids)[16], int *more, double *last)
{
	int n = 0, rc;

	*more = 0;
	browse_bind_after(b, st, 4);
	if (sort == SORT_TTFT && !b->has_after) {   /* ascending: start below all */
		sqlite3_bind_double(st, 4, -HUGE_VAL);
		db_bind_text(st, 5, "");
	}
	sqlite3_bind_int(st, 6, limit + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit) {
			*more = 1;
			break;
		}
		*last = sqlite3_column_double(st, 0);
		snprintf(ids[n++], 16, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

/* Appends run id to a as browse_run() shows it (nothing when it went); 0,
 * or -1 on a database error. */
static int add_run_by_id(struct browse *b, json_t *a, const char *id)
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

int browse_up_cursor(const struct browse *b, sqlite3_stmt *up, int limit, char *cur, size_t n)
{
	int rc;

	browse_bind_after(b, up, 4);
	sqlite3_bind_int(up, 6, limit);
	rc = sqlite3_step(up);
	if (rc == SQLITE_ROW)
		browse_cursor(cur, n, sqlite3_column_double(up, 0), (const char *)sqlite3_column_text(up, 1));
	sqlite3_reset(up);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

json_t *browse_pager_list(struct browse *b, const char *key, json_t *items, int more, const char *cur,
			  int back, const char *pcur, json_t *(*link)(void *ctx, const char *cursor),
			  void *ctx)
{
	json_t *list = json_pack("{s:o, s:i, s:o, s:o, s:b}", key, items,
		"count", (int)json_array_size(items),
		"next", more ? link(ctx, cur) : json_null(),
		"first", b->has_after ? link(ctx, NULL) : json_null(),
		"paged", more || b->has_after);

	if (list && b->has_after && json_object_set_new(list, "prev", link(ctx, back ? pcur : NULL)) < 0) {
		json_decref(list);
		list = NULL;
	}
	if (!list)
		browse_error(b, 503, MSG_NOMEM);
	return list;
}

json_t *browse_sorted_page(struct browse *b, sqlite3_stmt *st, sqlite3_stmt *up, enum browse_sort sort,
			   int limit, json_t *(*link)(void *ctx, const char *cursor), void *ctx)
{
	char ids[BROWSE_SORTED_MAX][16], cur[80], pcur[80];
	json_t *runs = json_array();
	double last = 0;
	int n, more, i, back = 0;

	if (limit > BROWSE_SORTED_MAX)
		limit = BROWSE_SORTED_MAX;
	if (!st || !runs || (n = browse_sorted_ids(b, st, sort, limit, ids, &more, &last)) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		if (add_run_by_id(b, runs, ids[i]) < 0)
			goto fail;
	if (b->has_after && (!up || (back = browse_up_cursor(b, up, limit, pcur, sizeof pcur)) < 0))
		goto fail;
	if (more)
		browse_cursor(cur, sizeof cur, last, ids[n - 1]);
	return browse_pager_list(b, "runs", runs, more, cur, back, pcur, link, ctx);
fail:
	json_decref(runs);
	browse_error(b, 503, MSG_DB_DOWN);
	return NULL;
}
