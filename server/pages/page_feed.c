/* page_feed.c: Atom feeds (RFC 4287) of new runs, per model, per hardware, per account, and of disputes. */
#include "pages/page.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "ingest/account.h"
#include "pages/browse.h"
#include "render/html.h"
#include "store/db.h"
#include "store/names.h"
#include "util/buf.h"
#include "util/slug.h"

/* Entries per feed: the newest ones, read from an index in feed order. */
#define FEED_MAX 50


/* An entry names the model and hardware by their shown names
 * (store/names.h), as every list does, not by the run's own. */
#define RUN_COLS "id, " NAMES_MODEL("model_slug", "model_name") ", model_digest, " \
	NAMES_HW("hw_slug", "accelerator") ", backend_name, backend_version, decode_tok_s, received_at"

/* Each reads FEED_MAX rows (bound to :max by feed_send) of one index
 * (0013's partial indexes, or runs_received) newest first; withdrawn and
 * upheld runs are not in them. */
static const char sql_new[] =
	"SELECT " RUN_COLS " FROM runs INDEXED BY runs_recent WHERE status = 'ok' "
	"ORDER BY received_at DESC, id DESC LIMIT :max";
static const char sql_model[] =
	"SELECT " RUN_COLS " FROM runs INDEXED BY runs_model_recent "
	"WHERE model_slug = ? AND status = 'ok' ORDER BY received_at DESC, id DESC LIMIT :max";
static const char sql_hw[] =
	"SELECT " RUN_COLS " FROM runs INDEXED BY runs_hw_recent "
	"WHERE hw_slug = ? AND status = 'ok' ORDER BY received_at DESC, id DESC LIMIT :max";
static const char sql_account[] =
	"SELECT " RUN_COLS " FROM runs INDEXED BY runs_account_recent "
	"WHERE account_id = ? AND account_id IS NOT NULL AND status = 'ok' ORDER BY received_at DESC, id DESC LIMIT :max";
static const char sql_account_id[] = "SELECT id FROM accounts WHERE name = ?";
static const char sql_disputes[] =
	"SELECT t.run_id, " NAMES_MODEL("r.model_slug", "r.model_name") ", "
	NAMES_HW("r.hw_slug", "r.accelerator") ", r.backend_name, t.posts, "
	"t.last_post_at, t.opened_at FROM dispute_threads t INDEXED BY dispute_threads_recent "
	"JOIN runs r ON r.id = t.run_id "
	"WHERE t.state = 'open' ORDER BY t.last_post_id DESC, t.run_id DESC LIMIT :max";

/* The feeds' statements, for the unit test of query plans. */
const char *const page_feed_sql[] = { sql_new, sql_model, sql_hw, sql_account,
				      sql_account_id, sql_disputes, NULL };

/* One element <name>text</name>, the text escaped for XML. */
static void el(struct buf *b, const char *name, const char *text)
{
	buf_printf(b, "<%s>", name);
	html_txt(b, text ? text : "");
	buf_printf(b, "</%s>\n", name);
}

/* <link rel type href/>, the address escaped for an attribute. */
static void link_el(struct buf *b, const char *rel, const char *type, const char *href)
{
	buf_printf(b, "<link rel=\"%s\" type=\"%s\" href=\"", rel, type);
	html_attr(b, href);
	buf_puts(b, "\"/>\n");
}

/* The feed's head: id and self link (origin + self), its HTML page (origin
 * + page), title and updated (the newest entry's time, or the epoch for a
 * feed with none yet). */
static void feed_head(struct buf *b, const char *origin, const char *self,
		      const char *page, const char *title, const char *updated)
{
	struct buf u = BUF_INIT;

	buf_puts(b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		    "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
	buf_printf(&u, "%s%s", origin, self);
	el(b, "id", u.buf);
	link_el(b, "self", CT_ATOM, u.buf);
	buf_reset(&u);
	buf_printf(&u, "%s%s", origin, page);
	link_el(b, "alternate", MT_HTML, u.buf);
	el(b, "title", title);
	el(b, "updated", updated ? updated : "1970-01-01T00:00:00Z");
	buf_puts(b, "<author><name>llm-speed</name></author>\n"
		    "<generator>llm-speedd</generator>\n");
	if (buf_error(&u))
		buf_grow(b, BUF_MAX);
	buf_release(&u);
}

/* One run as an entry, from the current row of a RUN_COLS statement. */
static void run_entry(struct buf *b, const char *origin, sqlite3_stmt *st)
{
	const char *id = (const char *)sqlite3_column_text(st, 0);
	const char *model = (const char *)sqlite3_column_text(st, 1);
	const char *digest = (const char *)sqlite3_column_text(st, 2);
	const char *hw = (const char *)sqlite3_column_text(st, 3);
	const char *be = (const char *)sqlite3_column_text(st, 4);
	const char *bev = (const char *)sqlite3_column_text(st, 5);
	double x = sqlite3_column_double(st, 6);
	const char *at = (const char *)sqlite3_column_text(st, 7);
	struct buf t = BUF_INIT;

	buf_puts(b, "<entry>\n");
	buf_printf(&t, "%s/r/%s", origin, id);
	el(b, "id", t.buf);
	link_el(b, "alternate", MT_HTML, t.buf);
	buf_reset(&t);
	buf_printf(&t, "%s on %s: %.1f tok/s", model, hw, x);
	el(b, "title", t.buf);
	el(b, "updated", at);
	el(b, "published", at);
	buf_reset(&t);
	buf_printf(&t, "%s (%s) on %s with %s %s: chat-short decode %.2f tok/s.",
		   model, digest, hw, be, bev, x);
	el(b, "summary", t.buf);
	buf_puts(b, "</entry>\n");
	if (buf_error(&t))
		buf_grow(b, BUF_MAX);
	buf_release(&t);
}

/* One open dispute thread as an entry. */
static void dispute_entry(struct buf *b, const char *origin, sqlite3_stmt *st)
{
	const char *id = (const char *)sqlite3_column_text(st, 0);
	struct buf t = BUF_INIT;

	buf_puts(b, "<entry>\n");
	buf_printf(&t, "%s/r/%s#dispute", origin, id);
	el(b, "id", t.buf);
	link_el(b, "alternate", MT_HTML, t.buf);
	buf_reset(&t);
	buf_printf(&t, "Dispute on %s on %s (%s)", (const char *)sqlite3_column_text(st, 1),
		   (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3));
	el(b, "title", t.buf);
	el(b, "updated", (const char *)sqlite3_column_text(st, 5));
	el(b, "published", (const char *)sqlite3_column_text(st, 6));
	buf_reset(&t);
	buf_printf(&t, "Open dispute thread of run %s, %d post%s.", id, sqlite3_column_int(st, 4),
		   sqlite3_column_int(st, 4) == 1 ? "" : "s");
	el(b, "summary", t.buf);
	buf_puts(b, "</entry>\n");
	if (buf_error(&t))
		buf_grow(b, BUF_MAX);
	buf_release(&t);
}

/* What one feed is: its statement (bound), where it lives, its title. */
struct feed {
	sqlite3_stmt *st;
	const char *self, *page, *title;
	void (*entry)(struct buf *, const char *, sqlite3_stmt *);
	int updated_col;      /* the column of an entry's updated time */
};

/* Steps f's statement into a feed, the answer a (ETag, CC_PAGE). */
static int feed_answer(struct req *r, struct feed *f, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	struct buf body = BUF_INIT, entries = BUF_INIT;
	char origin[300], updated[40] = "";
	int rc, n = 0;

	http_origin(r, origin, sizeof origin);
	sqlite3_bind_int(f->st, sqlite3_bind_parameter_index(f->st, ":max"), FEED_MAX);
	while ((rc = sqlite3_step(f->st)) == SQLITE_ROW && n++ < FEED_MAX) {
		if (!*updated)
			snprintf(updated, sizeof updated, "%s",
				 (const char *)sqlite3_column_text(f->st, f->updated_col));
		f->entry(&entries, origin, f->st);
	}
	sqlite3_reset(f->st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		buf_release(&entries);
		return err_unavailable(&a->err, MSG_DB_DOWN);
	}
	feed_head(&body, origin, f->self, f->page, f->title, *updated ? updated : NULL);
	buf_add(&body, entries.buf ? entries.buf : "", entries.len);
	buf_puts(&body, "</feed>\n");
	rc = buf_error(&entries) ? -1 : answer_buf(a, 200, CT_ATOM, &body, &o);
	buf_release(&entries);
	buf_release(&body);
	return rc;
}

/* The statement sql on this thread's read connection, or NULL. */
static sqlite3_stmt *stmt(struct req *r, const char *sql)
{
	struct dbconn *c = db_reader(r->app->db);

	return c ? db_stmt(c, sql) : NULL;
}

int page_feed_new(struct req *r, struct answer *a)
{
	struct feed f = { stmt(r, sql_new), "/feed.atom", "/", "llm-speed: new runs",
			  run_entry, 7 };

	if (!f.st)
		return err_unavailable(&a->err, MSG_DB_DOWN);
	return feed_answer(r, &f, a);
}

/* The feed of sql bound to slug r->arg, at prefix<slug>.atom, for the
 * page prefix<slug>. */
static int slug_feed(struct req *r, const char *sql, const char *prefix,
		     const char *what, struct answer *a)
{
	char self[200], page[200], title[260];
	struct feed f = { NULL, self, page, title, run_entry, 7 };

	if (!slug_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", "Feeds are named by slug: lowercase letters and digits joined by single hyphens, then .atom.");
	if (!(f.st = stmt(r, sql)))
		return err_unavailable(&a->err, MSG_DB_DOWN);
	snprintf(self, sizeof self, "%s%s.atom", prefix, r->arg);
	snprintf(page, sizeof page, "%s%s", prefix, r->arg);
	snprintf(title, sizeof title, "llm-speed: new runs of %s %s", what, r->arg);
	db_bind_text(f.st, 1, r->arg);
	return feed_answer(r, &f, a);
}

/* The 301 of a feed whose name is another spelling of a page's (to: the
 * path; released here). */
static int feed_moved(struct answer *a, struct buf *to)
{
	struct http_opts o = { .cache_control = CC_PAGE, .location = to->buf };
	int rc = answer_body(a, 301, CT_TEXT, to->buf, to->len, &o);

	buf_release(to);
	return rc;
}

int page_feed_model(struct req *r, struct answer *a)
{
	struct buf to = BUF_INIT;

	if (page_search_moved(r, PAGE_ARG_MODEL, &to))
		return feed_moved(a, &to);   /* another spelling of a page: moved there */
	buf_release(&to);
	return slug_feed(r, sql_model, "/m/", "model", a);
}

int page_feed_hw(struct req *r, struct answer *a)
{
	struct buf to = BUF_INIT;

	if (page_search_moved(r, PAGE_ARG_HW, &to))
		return feed_moved(a, &to);   /* another spelling of a page: moved there */
	buf_release(&to);
	return slug_feed(r, sql_hw, "/hw/", "hardware", a);
}

int page_feed_disputes(struct req *r, struct answer *a)
{
	struct feed f = { stmt(r, sql_disputes), "/disputes.atom", "/disputes",
			  "llm-speed: open disputes", dispute_entry, 5 };

	if (!f.st)
		return err_unavailable(&a->err, MSG_DB_DOWN);
	return feed_answer(r, &f, a);
}

int page_account_id(struct req *r, const char *name, long long *id)
{
	sqlite3_stmt *st;
	int rc;

	if (!account_name_ok(name))
		return DB_NOTFOUND;
	if (!(st = stmt(r, sql_account_id)))
		return DB_ERR;
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
}

int page_feed_account(struct req *r, struct answer *a)
{
	char self[200], page[200], title[260];
	struct feed f = { NULL, self, page, title, run_entry, 7 };
	long long id;
	int rc = page_account_id(r, r->arg, &id);

	if (rc == DB_NOTFOUND)
		return err_set(&a->err, 404, "not_found", NULL, "%s", "There is no account with this name; check the link.");
	if (rc != DB_OK || !(f.st = stmt(r, sql_account)))
		return err_unavailable(&a->err, MSG_DB_DOWN);
	snprintf(self, sizeof self, "/u/%s.atom", r->arg);
	snprintf(page, sizeof page, "/u/%s", r->arg);
	snprintf(title, sizeof title, "llm-speed: runs of %s", r->arg);
	sqlite3_bind_int64(f.st, 1, id);
	return feed_answer(r, &f, a);
}
