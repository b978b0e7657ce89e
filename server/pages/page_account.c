/* page_account.c: /u/<name>, an account's runs (never its anonymous ones), with JSON and CSV twins. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "store/db.h"

/* An account's runs that count in one suite, in list order after the
 * cursor: runs_account_board (0013) holds exactly them.  Anonymous uploads
 * store no account (upload.c), so they are never among them. */
static const char sql_runs[] =
	"SELECT " BROWSE_RUN_COLS " FROM runs INDEXED BY runs_account_board "
	"WHERE account_id = ?1 AND account_id IS NOT NULL AND suite_version = ?2 AND status = 'ok' "
	"AND (decode_tok_s, id) < (?3, ?4) ORDER BY decode_tok_s DESC, id DESC LIMIT ?5";

const char *const page_account_sql[] = { sql_runs, NULL };

/* The view model of /u/<name>, or NULL with b's failure set. */
static json_t *account_model(struct browse *b, struct req *r)
{
	sqlite3_stmt *st;
	long long id;
	json_t *m, *list;
	char feed[200];
	int rc;

	if (browse_begin(b, r) < 0)
		return NULL;
	rc = page_account_id(r, r->arg, &id);
	if (rc == DB_NOTFOUND) {
		browse_error(b, 404, "There is no account with this name; check the link.");
		return NULL;
	}
	if (rc != DB_OK || !(st = db_stmt(b->c, sql_runs))) {
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, b->suite);
	browse_bind_after(b, st, 3);
	sqlite3_bind_int(st, 5, BROWSE_PAGE + 1);
	if (!(list = browse_list(b, st, BROWSE_PAGE, "/u/", r->arg, NULL))) {
		browse_error(b, 503, MSG_DB_DOWN);
		return NULL;
	}
	snprintf(feed, sizeof feed, "/u/%s.atom", r->arg);
	m = json_pack("{s:o, s:s, s:{s:s}, s:s, s:o, s:o*, s:{s:b, s:b}}",
		      "title", browse_title(r->arg), "suite_version", b->suite,
		      "account", "name", r->arg, "feed", feed, "list", list,
		      "suites", browse_suites(b, "/u/", r->arg),
		      "cols", "model", 1, "hw", 1);
	if (!m)
		browse_error(b, 503, MSG_NOMEM);
	return m;
}

/* GET /u/<name> and its .json and .csv: the account's runs; NULL with a
 * 404 for an unknown account or a suite without runs, a 400 for a
 * malformed argument. */
json_t *page_account_view(struct page_view *v)
{
	struct browse b;
	json_t *m = account_model(&b, v->r);

	return page_view_browsed(v, &b, m);
}
