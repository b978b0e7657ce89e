/* check_browse.c: every query of the browse pages (server/pages/browse.c,
 * page_home.c, page_model.c, page_hw.c) is planned on an index: no pass
 * over the runs table or a whole index, and no sort, whatever the data;
 * the digest summary of migration 0004 stays exact through every change
 * to runs at a cost that does not grow with the model's runs. */
#include "check_util.h"
#include "check_tmpdb.h"

#include <math.h>
#include <unistd.h>

#include "render/barchart.h"
#include "pages/browse.h"
#include "pages/page.h"
#include "store/db.h"

static struct db *db;
static struct tmpdb T;

static void setup(void)
{
	tmpdb_begin(&T, "check_browse");
	db = tmpdb_open(&T, NULL);
}

static void teardown(void)
{
	db_close(db);
	tmpdb_end(&T);
}

/* Fails when the plan of sql reads a table (runs, digest_counts) front to
 * back, looks rows up without an index, or sorts. */
static void check_plan(sqlite3 *h, const char *sql)
{
	char q[4096];
	sqlite3_stmt *st;
	int n = 0;

	snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
	ck_assert_msg(sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		/* A subquery's rows are what its own plan (checked here too)
		 * and LIMIT give, not a table: the capped counts read them. */
		/* An FTS5 MATCH (search, migration 0012) is a seek in the
		 * full-text index however SQLite names it. */
		/* A SELECT without FROM reads one constant row, no table. */
		ck_assert_msg(strncmp(d, "SCAN ", 5) != 0 || !strncmp(d, "SCAN (subquery-", 15) ||
			      !strcmp(d, "SCAN CONSTANT ROW") ||
			      (strstr(d, "VIRTUAL TABLE INDEX") && strstr(d, ":M")),
			      "full scan in %s: %s", sql, d);
		ck_assert_msg(!strstr(d, "TEMP B-TREE"), "sort in %s: %s", sql, d);
		if (!strncmp(d, "SEARCH ", 7))
			ck_assert_msg(strstr(d, "INDEX") || strstr(d, "PRIMARY KEY"), "no index in %s: %s", sql, d);
		n++;
	}
	sqlite3_finalize(st);
	ck_assert_msg(n > 0, "no plan for %s", sql);
}

/* The copy-paste command's backends (/wanted, the unmeasured pages) seek
 * the hardware's own rows of hw_backends, never the suite's combinations;
 * their order by runs is a sort of those few (one per backend). */
START_TEST(wanted_command_seeks_its_hardware)
{
	struct dbconn *c = db_reader(db);
	char q[4096];
	sqlite3_stmt *st;
	int seek = 0;

	ck_assert_ptr_nonnull(c);
	snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", page_wanted_sql[0]);
	ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);

		ck_assert_msg(strncmp(d, "SCAN ", 5) != 0, "%s", d);
		seek += !strncmp(d, "SEARCH ", 7) && strstr(d, "hw_slug=?") != NULL;
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(seek, 1);
}
END_TEST

START_TEST(every_query_uses_an_index)
{
	const char *const *sets[] = { browse_sql, browse_sort_sql, combos_sql, page_home_sql, page_model_sql, page_model_digests_sql, page_model_best_sql, page_hw_sql,
				      page_fit_sql, page_lists_sql, page_account_sql, page_judges_sql, page_search_sql,
				      page_catalog_sql, page_compare_sql, page_rank_sql, page_cheatsheet_sql,
				      page_model_hw_sql, page_pick_sql, page_unmeasured_sql, page_examples_sql,
				      page_compare_choose_sql };
	struct dbconn *c = db_reader(db);
	size_t i, k, total = 0;

	ck_assert_ptr_nonnull(c);
	for (i = 0; i < sizeof sets / sizeof sets[0]; i++)
		for (k = 0; sets[i][k]; k++, total++)
			check_plan(c->h, sets[i][k]);
	ck_assert_uint_ge(total, 30);
}
END_TEST

/* How many lines of sql's plan begin with step; each of them must hold
 * needle (what = the message's name for the plan). */
static int plan_steps_hold(sqlite3 *h, const char *sql, const char *step, const char *needle,
			   const char *what)
{
	sqlite3_stmt *st = NULL;
	char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	int n = 0;

	ck_assert_int_eq(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
	sqlite3_free(q);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);

		if (strncmp(d, step, strlen(step)))
			continue;
		ck_assert_msg(strstr(d, needle) != NULL, "%s plan: %s", what, d);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* The board's "N combinations" count reads an index alone, never the
 * rows of combos it counts (1,001 seeks of the table otherwise). */
START_TEST(board_counts_read_an_index_alone)
{
	struct dbconn *c = db_reader(db);
	size_t k;
	int seen = 0;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_home_sql[k]; k++) {
		const char *sql = page_home_sql[k];

		/* With both filters one index is read and the other filter
		 * checked in the row: the rarer choice, left out here. */
		if (strncmp(sql, "SELECT count(*)", 15) || (strstr(sql, "hw_slug = ?2") && strstr(sql, "backend_name = ?3")))
			continue;
		ck_assert_int_eq(plan_steps_hold(c->h, sql, "SEARCH combos", "COVERING INDEX", "count"), 1);
		seen++;
	}
	ck_assert_int_eq(seen, 3);
}
END_TEST

/* A model's or hardware's card reads that slug's combinations alone: the
 * step over combos seeks the suite and the slug (a seek on the suite
 * alone walks every combination, 75 ms a card at 200,000 runs). */
START_TEST(cards_seek_their_slug)
{
	struct dbconn *c = db_reader(db);
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_card_sql[k]; k++) {
		const char *slug = strstr(page_card_sql[k], "model_slug = ?2") ? "model_slug=?" : "hw_slug=?";

		ck_assert_int_eq(plan_steps_hold(c->h, page_card_sql[k], "SEARCH combos", slug, "card"), 1);
	}
	ck_assert_uint_eq(k, 4);
}
END_TEST

/* Every combination lookup keyed down to its hardware seeks the row by
 * the whole key (combos' UNIQUE index), never a walk over a model's
 * combinations on every hardware: at 1,000,000 runs the cheatsheet's cell
 * took 122 us that way against 9 us (tests/bench/README.md). */
START_TEST(cheatsheet_cells_seek_their_combination)
{
	struct dbconn *c = db_reader(db);
	size_t k;
	int found = 0;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_cheatsheet_sql[k]; k++) {
		if (!strstr(page_cheatsheet_sql[k], "digest_counts d"))
			continue;
		found++;
		ck_assert_int_gt(plan_steps_hold(c->h, page_cheatsheet_sql[k], "SEARCH c ", "hw_slug=?", "cell"), 0);
	}
	ck_assert_int_gt(found, 0);
}
END_TEST

/* The cheatsheet's ?memory= keys are migration 0017's classes, in order
 * of their bounds. */
START_TEST(memory_classes_match_the_migration)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;
	size_t i = 0;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(sqlite3_prepare_v2(c->h, "SELECT key FROM mem_classes ORDER BY upper_gb",
					    -1, &st, NULL), SQLITE_OK);
	/* "unknown" (bound 0) sorts first in the table, last on the page. */
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "unknown");
	while (sqlite3_step(st) == SQLITE_ROW) {
		ck_assert_ptr_nonnull(page_cheatsheet_mem_key(i));
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), page_cheatsheet_mem_key(i));
		i++;
	}
	sqlite3_finalize(st);
	ck_assert_str_eq(page_cheatsheet_mem_key(i), "unknown");
	ck_assert_ptr_null(page_cheatsheet_mem_key(i + 1));
}
END_TEST

/* The feeds read their newest 50 rows in index order: an index (never the
 * table) and no sort; /feed.atom walks runs_recent from its newest end. */
START_TEST(feeds_read_an_index_in_order)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_feed_sql[k]; k++) {
		char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", page_feed_sql[k]);
		int n = 0;

		ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 3);

			n++;
			ck_assert_msg(!strstr(d, "TEMP B-TREE"), "sort in %s: %s", page_feed_sql[k], d);
			ck_assert_msg(strncmp(d, "SCAN ", 5) != 0 || strstr(d, "USING INDEX") ||
				      strstr(d, "USING COVERING INDEX"),
				      "table scan in %s: %s", page_feed_sql[k], d);
		}
		sqlite3_finalize(st);
		sqlite3_free(q);
		ck_assert_msg(n > 0, "no plan for %s", page_feed_sql[k]);
	}
}
END_TEST

/* The sitemap (page_sitemap.c) never walks the runs: each statement that
 * reads them seeks, by rowid range or a partial index of a model's or a
 * hardware's newest (or the newest run: runs_recent from its top for one
 * row), so a file of runs costs its own rows at any size. */
START_TEST(sitemap_seeks_the_runs)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_sitemap_sql[k]; k++) {
		char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", page_sitemap_sql[k]);
		int n = 0;

		ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 3);

			n++;
			/* an index walked from its newest end for one row is a seek */
			ck_assert_msg(strncmp(d, "SCAN runs", 9) != 0 ||
				      (strstr(d, "USING") && strlen(page_sitemap_sql[k]) > 7 &&
				       !strcmp(page_sitemap_sql[k] + strlen(page_sitemap_sql[k]) - 7, "LIMIT 1")),
				      "walks the runs in %s: %s", page_sitemap_sql[k], d);
		}
		sqlite3_finalize(st);
		sqlite3_free(q);
		ck_assert_msg(n > 0, "no plan for %s", page_sitemap_sql[k]);
	}
}
END_TEST

/* Every order of /outliers and /disputes (page_lists.c, migration 0018)
 * starts at its cursor: the first table read is a seek in a partial index
 * of the list's own rows with a range on the sort key, never a walk from
 * the top of the suite that skips rows (which an expression key compared
 * as a row value would be), so a deep page costs what the first does. */
START_TEST(lists_seek_their_cursor)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_lists_sql[k]; k++) {
		char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", page_lists_sql[k]);
		const char *d;

		ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		d = (const char *)sqlite3_column_text(st, 3);
		ck_assert_msg(!strncmp(d, "SEARCH ", 7) &&
			      (strstr(d, "USING INDEX runs_outliers_") ||
			       strstr(d, "USING INDEX dispute_threads_")),
			      "not the list's index in %s: %s", page_lists_sql[k], d);
		ck_assert_msg(strstr(d, "suite_version=? AND ") && (strchr(d, '<') || strchr(d, '>')),
			      "no seek to the cursor in %s: %s", page_lists_sql[k], d);
		sqlite3_finalize(st);
		sqlite3_free(q);
	}
	ck_assert_uint_eq(k, 16);
}
END_TEST

/* The ruled views of /disputes seek the state and the cursor in
 * dispute_threads_state (0003), never walk the table, and sort at most the
 * threads tied on the cursor key ("RIGHT PART"), never the list. */
START_TEST(ruled_disputes_seek_their_cursor)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;
	size_t k;

	ck_assert_ptr_nonnull(c);
	for (k = 0; page_lists_ruled_sql[k]; k++) {
		char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", page_lists_ruled_sql[k]);
		int first = 1;

		ck_assert_int_eq(sqlite3_prepare_v2(c->h, q, -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 3);

			if (first)
				ck_assert_msg(strstr(d, "SEARCH t USING INDEX dispute_threads_state (state=? AND last_post_id") != NULL,
					      "not a seek of the state and cursor in %s: %s", page_lists_ruled_sql[k], d);
			first = 0;
			ck_assert_msg(strncmp(d, "SCAN ", 5) != 0, "scan in %s: %s", page_lists_ruled_sql[k], d);
			ck_assert_msg(!strstr(d, "TEMP B-TREE") || strstr(d, "RIGHT PART OF ORDER BY"),
				      "sort in %s: %s", page_lists_ruled_sql[k], d);
		}
		sqlite3_finalize(st);
		sqlite3_free(q);
		ck_assert_int_eq(first, 0);
	}
	ck_assert_uint_eq(k, 4);
}
END_TEST

/* A second connection to the test database, for writes the way an
 * upload, a moderator or sqlite3 would make them. */
static sqlite3 *raw_open(void)
{
	char path[300];
	sqlite3 *h;

	snprintf(path, sizeof path, "%s", T.path);
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	/* A test's database need not survive a power cut. */
	ck_assert_int_eq(sqlite3_exec(h, "PRAGMA synchronous = OFF", NULL, NULL, NULL), SQLITE_OK);
	return h;
}

/* Runs one statement with the text arguments given (NULL binds NULL);
 * returns the SQLite virtual machine steps it took, triggers included. */
static int exec_args(sqlite3 *h, const char *sql, int n, const char *const *args)
{
	sqlite3_stmt *st;
	int i, steps;

	ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	for (i = 0; i < n; i++)
		sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_TRANSIENT);
	ck_assert_msg(sqlite3_step(st) == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(h));
	steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
	sqlite3_finalize(st);
	return steps;
}

/* Stores a run with the fields the summaries read, on hardware hw-<k>
 * and a backend chosen by k; returns the steps the insert took. */
static int insert_run_on(sqlite3 *h, const char *id, const char *suite, const char *slug,
			 const char *digest, const char *quant, const char *decode, unsigned k)
{
	static const char *const hws[] = { "m3-ultra", "rtx-4090", "rx-7900" };
	static const char *const bes[] = { "mlx", "llama.cpp" };
	/* Reported memory (runs.mem_gb, as the upload sets it): sizes on
	 * either side of a class's bound, none, and 0. */
	static const char *const mems[] = { "24", "128", NULL, "16", "25.76", "36", "512", "0" };
	const char *a[] = { id, suite, slug, digest, quant, decode, id, hws[k % 3], bes[k / 3 % 2],
			    mems[k % 8] };

	return exec_args(h, "INSERT INTO runs(id, suite_version, model_name, model_slug, "
		"model_digest, model_quant, model_format, accelerator, hw_slug, hw_class, "
		"backend_name, backend_version, decode_tok_s, prefill_tok_s, ttft_ms, created_at, "
		"received_at, key_thumbprint, alg, payload, jws, jws_sha256, mem_gb) VALUES (?1, ?2, ?3, ?3, "
		"?4, ?5, 'gguf', ?8, ?8, 'slug:' || ?8, ?9, '1', CAST(?6 AS REAL), "
		"CAST(?6 AS REAL) * 10 + length(?7) % 7, nullif(length(?7) % 5, 0), "
		"'2025-01-01T00:00:00Z', '2025-01-0' || (1 + length(?7) % 9) || 'T00:00:00Z', "
		"'t' || CAST(substr(?7, -1) AS INTEGER) % 3, "
		"'EdDSA', '', 'x', ?7, CAST(?10 AS REAL))", 10, a);
}

static int insert_run(sqlite3 *h, const char *id, const char *suite, const char *slug,
		      const char *digest, const char *quant, const char *decode)
{
	return insert_run_on(h, id, suite, slug, digest, quant, decode, 0);
}

/* The rows of the summary held that differ from truth, a recount over
 * runs, in either direction (0 when the summary is exact). */
static int diff_of(sqlite3 *h, const char *truth, const char *held)
{
	char q[8192];
	sqlite3_stmt *st;
	int n;

	snprintf(q, sizeof q, "SELECT (SELECT count(*) FROM (%s EXCEPT %s)) + (SELECT count(*) FROM (%s EXCEPT %s))",
		 truth, held, held, truth);
	ck_assert_msg(sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* digest_counts (migrations 0004 and 0032, its signing keys) against a
 * recount. */
static int summary_diff(sqlite3 *h)
{
	return diff_of(h,
		"SELECT suite_version, model_slug, model_digest, n, decode_tok_s, id, model_quant, model_format, "
		"(SELECT count(DISTINCT key_thumbprint) FROM runs r WHERE r.status = 'ok' "
		" AND r.suite_version = x.suite_version AND r.model_slug = x.model_slug AND r.model_digest = x.model_digest) "
		"FROM (SELECT *, count(*) OVER g AS n, row_number() OVER (g ORDER BY decode_tok_s DESC, id DESC) AS k "
		"      FROM runs WHERE status = 'ok' "
		"      WINDOW g AS (PARTITION BY suite_version, model_slug, model_digest)) AS x WHERE k = 1",
		"SELECT suite_version, model_slug, model_digest, runs, best_decode, best_id, model_quant, model_format, keys "
		"FROM digest_counts");
}

/* The memory class of each run that counts and is not flagged (the
 * cheatsheet's cells by class show the best unflagged run, migration
 * 0020), written out here as the cheatsheet's table says
 * (page_cheatsheet.c), not by the migration's expression. */
#define RUN_MEM_CLASS \
	"(SELECT *, CASE WHEN m IS NULL OR m <= 0 THEN 'unknown' WHEN m <= 8.8 THEN '8' " \
	"WHEN m <= 17.6 THEN '16' WHEN m <= 26.4 THEN '24' WHEN m <= 52.8 THEN '48' " \
	"WHEN m <= 105.6 THEN '96' WHEN m <= 211.2 THEN '192' ELSE 'over-192' END AS mc " \
	"FROM (SELECT *, mem_gb AS m FROM runs WHERE status = 'ok' AND outlier = 0))"

/* cheat_best, cheat_model and cheat_hw (migration 0017) against a
 * recount: the number of rows wrong in any. */
static int memory_diff(sqlite3 *h)
{
	return diff_of(h,
		"SELECT suite_version, mc, model_slug, hw_slug, backend_name, decode_tok_s, id "
		"FROM (SELECT *, row_number() OVER (PARTITION BY suite_version, mc, model_slug, hw_slug, "
		"backend_name ORDER BY decode_tok_s DESC, id DESC) AS k FROM " RUN_MEM_CLASS ") WHERE k = 1",
		"SELECT * FROM cheat_best") +
	       diff_of(h, "SELECT suite_version, mc, model_slug, max(decode_tok_s) FROM " RUN_MEM_CLASS
		" GROUP BY suite_version, mc, model_slug", "SELECT * FROM cheat_model") +
	       diff_of(h, "SELECT suite_version, mc, hw_slug, count(DISTINCT model_slug || ' ' || backend_name) "
		"FROM " RUN_MEM_CLASS " GROUP BY suite_version, mc, hw_slug", "SELECT * FROM cheat_hw");
}

/* hw_best (migration 0007) against a recount, and the memory classes'
 * summaries: the number of rows wrong in any.  (board_best, board_sort
 * and digest_sort went in 0020: the lists read combos, which the writer
 * keeps; tests/store/check_outlier.c checks it against a recount.) */
static int lists_diff(sqlite3 *h)
{
	return diff_of(h,
		"SELECT suite_version, hw_slug, model_slug, decode_tok_s, id "
		"FROM (SELECT *, row_number() OVER (PARTITION BY suite_version, hw_slug, model_slug "
		"      ORDER BY decode_tok_s DESC, id DESC) AS k FROM runs WHERE status = 'ok') WHERE k = 1",
		"SELECT * FROM hw_best") +
	       memory_diff(h);
}

static int count_of(sqlite3 *h, const char *q);

/* model_index and hw_index (migrations 0012, 0015) against a recount:
 * each model's and hardware's runs that count (their leaders and best
 * runs are the writer's, checked by tests/store/check_outlier.c's exact
 * recomputation since migration 0020); and pair_index (0036): each
 * model-on-hardware pair's runs, its time never older than its newest
 * run's. */
static int find_index_diff(sqlite3 *h)
{
	return diff_of(h,
		"SELECT suite_version, model_slug, hw_slug, count(*) FROM runs WHERE status = 'ok' "
		"GROUP BY suite_version, model_slug, hw_slug",
		"SELECT suite_version, model_slug, hw_slug, runs FROM pair_index") +
	       count_of(h, "SELECT count(*) FROM pair_index p WHERE last_at < (SELECT max(received_at) "
		"FROM runs r WHERE r.suite_version = p.suite_version AND r.model_slug = p.model_slug "
		"AND r.hw_slug = p.hw_slug AND r.status = 'ok')") +
	       diff_of(h,
		"SELECT suite_version, model_slug, count(*) FROM runs WHERE status = 'ok' "
		"GROUP BY suite_version, model_slug",
		"SELECT suite_version, model_slug, runs FROM model_index") +
	       diff_of(h,
		"SELECT suite_version, hw_slug, count(*) FROM runs WHERE status = 'ok' "
		"GROUP BY suite_version, hw_slug",
		"SELECT suite_version, hw_slug, runs FROM hw_index");
}

/* The integer the one-row query q answers. */
static int count_of(sqlite3 *h, const char *q)
{
	sqlite3_stmt *st;
	int n;

	ck_assert_msg(sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* A small deterministic generator, so a failure repeats. */
static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

/* Makes 600 random changes on h, each the statement change writes into
 * sql for a random number, and after every 50 asserts that diff (the rows
 * where a kept sum and the sum made again disagree) counts none. */
static void follow_changes(sqlite3 *h, unsigned seed, void (*change)(unsigned r, char *sql, size_t n),
			   const char *diff, const char *what)
{
	char sql[512];
	int i;

	for (i = 0; i < 600; i++) {
		change((seed = seed * 1103515245u + 12345u) >> 8, sql, sizeof sql);
		exec_args(h, sql, 0, NULL);
		if (i % 50 == 49)
			ck_assert_msg(count_of(h, diff) == 0, "%s wrong after %d changes", what, i + 1);
	}
}

static const char *const bes4[] = { "llama.cpp", "mlx", "vllm", "ollama" };

/* A combination comes, changes its runs, is renamed (the identity pass)
 * or goes. */
static void combo_change(unsigned r, char *sql, size_t n)
{
	static const char *const hws[] = { "rtx-4090", "m3-ultra", "rtx-3090" };
	const char *hw = hws[r % 3], *be = bes4[(r >> 3) % 4];

	switch ((r >> 6) % 5) {
	case 0: case 1:
		snprintf(sql, n, "INSERT OR IGNORE INTO combos(suite_version, model_slug, "
			 "model_digest, hw_slug, backend_name, key_id, first_at, runs) VALUES "
			 "('suite-v1', 'm%u', 'sha256:%04u', '%s', '%s', 'r_%u', 0, %u)",
			 r % 7, (r >> 9) % 5, hw, be, r, (r >> 12) % 40);
		break;
	case 2:
		snprintf(sql, n, "UPDATE combos SET runs = runs + %u - 3 WHERE cid = "
			 "(SELECT cid FROM combos ORDER BY (cid * %u) %% 101 LIMIT 1)", (r >> 12) % 9, r % 97 + 1);
		break;
	case 3:
		snprintf(sql, n, "UPDATE OR IGNORE combos SET hw_slug = '%s', backend_name = '%s' "
			 "WHERE cid = (SELECT cid FROM combos ORDER BY (cid * %u) %% 101 LIMIT 1)", hw, be, r % 97 + 1);
		break;
	default:
		snprintf(sql, n, "DELETE FROM combos WHERE cid = "
			 "(SELECT cid FROM combos ORDER BY (cid * %u) %% 101 LIMIT 1)", r % 97 + 1);
	}
}

/* hw_backends (migration 0035) is what summing combos by hardware and
 * backend gives, after combinations come, change their runs, are renamed
 * (the identity pass) and go. */
START_TEST(hw_backends_follow_the_combinations)
{
	static const char diff[] =
		"SELECT count(*) FROM (SELECT * FROM (SELECT suite_version, hw_slug, backend_name, "
		"sum(runs), count(*) FROM combos GROUP BY 1, 2, 3) EXCEPT SELECT * FROM hw_backends "
		"UNION ALL SELECT * FROM (SELECT * FROM hw_backends EXCEPT SELECT suite_version, hw_slug, "
		"backend_name, sum(runs), count(*) FROM combos GROUP BY 1, 2, 3))";
	sqlite3 *h = raw_open();

	follow_changes(h, 7, combo_change, diff, "hw_backends");
	ck_assert_int_gt(count_of(h, "SELECT count(*) FROM hw_backends"), 3);
	exec_args(h, "DELETE FROM combos", 0, NULL);
	ck_assert_int_eq(count_of(h, "SELECT count(*) FROM hw_backends"), 0);
	sqlite3_close(h);
}
END_TEST

/* A cluster is stored (the store's upsert), gains runs, moves to another
 * suite or backend, or goes. */
static void cluster_change(unsigned r, char *sql, size_t n)
{
	static const char *const suites[] = { "suite-v1", "suite-v2" };
	const char *su = suites[r % 2], *be = bes4[(r >> 3) % 4];

	switch ((r >> 6) % 5) {
	case 0: case 1:
		snprintf(sql, n, "INSERT INTO clusters(suite_version, model_digest, hw_class, "
			 "backend_name, n, mean, stddev) VALUES ('%s', 'sha256:%04u', 'c%u', '%s', %u, 0, 0) "
			 "ON CONFLICT DO UPDATE SET n = excluded.n", su, (r >> 9) % 5, (r >> 12) % 3, be,
			 (r >> 14) % 40);
		break;
	case 2:
		snprintf(sql, n, "UPDATE clusters SET n = n + %u WHERE model_digest = 'sha256:%04u'",
			 (r >> 12) % 9, (r >> 9) % 5);
		break;
	case 3:
		snprintf(sql, n, "UPDATE OR IGNORE clusters SET backend_name = '%s', "
			 "suite_version = '%s' WHERE model_digest = 'sha256:%04u' AND hw_class = 'c%u'",
			 be, su, (r >> 9) % 5, (r >> 12) % 3);
		break;
	default:
		snprintf(sql, n, "DELETE FROM clusters WHERE model_digest = 'sha256:%04u' "
			 "AND hw_class = 'c%u'", (r >> 9) % 5, (r >> 12) % 3);
	}
}

/* backend_runs (migration 0037) is what summing clusters' n by suite and
 * backend gives, after clusters come, are stored again with a new n (the
 * store's upsert), move to another backend and go. */
START_TEST(backend_runs_follow_the_clusters)
{
	static const char diff[] =
		"SELECT count(*) FROM (SELECT * FROM (SELECT suite_version, backend_name, sum(n) FROM clusters "
		"GROUP BY 1, 2 HAVING sum(n) <> 0) EXCEPT SELECT * FROM backend_runs WHERE runs <> 0 "
		"UNION ALL SELECT * FROM (SELECT * FROM backend_runs WHERE runs <> 0 EXCEPT "
		"SELECT suite_version, backend_name, sum(n) FROM clusters GROUP BY 1, 2 HAVING sum(n) <> 0))";
	sqlite3 *h = raw_open();

	follow_changes(h, 11, cluster_change, diff, "backend_runs");
	ck_assert_int_gt(count_of(h, "SELECT count(*) FROM backend_runs WHERE runs > 0"), 3);
	exec_args(h, "DELETE FROM clusters", 0, NULL);
	ck_assert_int_eq(count_of(h, "SELECT count(*) FROM backend_runs WHERE runs <> 0"), 0);
	sqlite3_close(h);
}
END_TEST

/* Makes one random change to runs: a new run, an uphold or its reversal, a
 * deletion, or a changed decode, digest, quantization or id. */
static void random_change(sqlite3 *h, unsigned *seed, int *made)
{
	static const char *const suites[] = { "suite-v1", "suite-v2" };
	static const char *const slugs[] = { "model-a", "model-b" };
	static const char *const digests[] = { "sha256:aaaaaaaaaaaaaaaa", "sha256:bbbbbbbbbbbbbbbb",
					       "sha256:cccccccccccccccc" };
	static const char *const quants[] = { "4bit", "Q4_K_M", NULL };
	char id[16], other[16], decode[16];
	const char *a[2];
	unsigned op = next_rand(seed) % 9;

	/* Few distinct speeds, so ties on decode_tok_s are common. */
	snprintf(decode, sizeof decode, "%u.5", next_rand(seed) % 6);
	snprintf(other, sizeof other, "r_%011d", *made ? (int)(next_rand(seed) % (unsigned)*made) : 0);
	a[0] = other;
	if (op < 3 || !*made) {
		snprintf(id, sizeof id, "r_%011d", (*made)++);
		insert_run_on(h, id, suites[next_rand(seed) % 2], slugs[next_rand(seed) % 2],
			      digests[next_rand(seed) % 3], quants[next_rand(seed) % 3], decode,
			      next_rand(seed) % 6);
	} else if (op == 3) {
		exec_args(h, "UPDATE runs SET status = 'upheld' WHERE id = ?1", 1, a);
	} else if (op == 4) {
		exec_args(h, "UPDATE runs SET status = 'ok' WHERE id = ?1", 1, a);
	} else if (op == 5) {
		exec_args(h, "DELETE FROM runs WHERE id = ?1", 1, a);
	} else if (op == 6) {
		a[1] = decode;
		exec_args(h, "UPDATE runs SET decode_tok_s = CAST(?2 AS REAL) WHERE id = ?1", 2, a);
	} else if (op == 8) {
		a[1] = next_rand(seed) % 2 ? "8" : "96";
		exec_args(h, "UPDATE runs SET mem_gb = CAST(?2 AS REAL) WHERE id = ?1", 2, a);
	} else if (next_rand(seed) % 2) {
		a[1] = next_rand(seed) % 2 ? "rtx-4090" : "m3-ultra";
		exec_args(h, "UPDATE runs SET hw_slug = ?2, backend_name = 'vllm' WHERE id = ?1", 2, a);
	} else {
		a[1] = digests[next_rand(seed) % 3];
		exec_args(h, "UPDATE runs SET model_digest = ?2, model_quant = 'q' || id, "
			  "key_thumbprint = 'k' || rowid % 2 WHERE id = ?1", 2, a);
	}
}

START_TEST(digest_summary_follows_every_change)
{
	sqlite3 *h = raw_open();
	unsigned seed = 20250101;
	int made = 0, i;

	for (i = 1; i <= 1000; i++) {
		random_change(h, &seed, &made);
		if (i % 100 == 0) {
			ck_assert_msg(summary_diff(h) == 0, "summary wrong after %d changes", i);
			ck_assert_msg(lists_diff(h) == 0, "list summaries wrong after %d changes", i);
			ck_assert_msg(find_index_diff(h) == 0, "model/hw index wrong after %d changes", i);
		}
	}
	/* The runs' memory spread over several classes, each recounted. */
	ck_assert_int_ge(count_of(h, "SELECT count(DISTINCT mem_class) FROM cheat_best"), 5);
	/* Rows that changed only their flags fire nothing and stay counted. */
	exec_args(h, "UPDATE runs SET outlier = 1, sigma = 4.0, demo = 1", 0, NULL);
	ck_assert_int_eq(summary_diff(h), 0);
	ck_assert_int_eq(lists_diff(h), 0);
	exec_args(h, "UPDATE runs SET id = id || 'x' WHERE rowid % 3 = 0", 0, NULL);
	ck_assert_int_eq(summary_diff(h), 0);
	ck_assert_int_eq(lists_diff(h), 0);
	ck_assert_int_eq(find_index_diff(h), 0);
	/* Every run upheld leaves the lists empty; dismissing brings them back. */
	exec_args(h, "UPDATE runs SET status = 'upheld'", 0, NULL);
	ck_assert_int_eq(lists_diff(h), 0);
	ck_assert_int_eq(count_of(h, "SELECT count(*) FROM hw_best"), 0);
	exec_args(h, "UPDATE runs SET status = 'ok'", 0, NULL);
	ck_assert_int_eq(lists_diff(h), 0);
	ck_assert_int_gt(count_of(h, "SELECT count(*) FROM hw_best"), 0);
	exec_args(h, "DELETE FROM runs", 0, NULL);
	ck_assert_int_eq(summary_diff(h), 0);
	ck_assert_int_eq(lists_diff(h), 0);
	sqlite3_close(h);
}
END_TEST

/* The steps of storing a run and of upholding and restoring the best run
 * of a digest that already holds n runs. */
static int change_steps(sqlite3 *h, const char *digest, int n)
{
	const char *best[] = { "r_best0000000" };
	char id[16], decode[16];
	int i, steps = 0;

	exec_args(h, "BEGIN", 0, NULL);
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "r_%.1s%010d", digest + 7, i);
		snprintf(decode, sizeof decode, "%d", i % 97);
		insert_run(h, id, "suite-v1", "model-a", digest, "4bit", decode);
	}
	exec_args(h, "COMMIT", 0, NULL);
	steps += insert_run(h, best[0], "suite-v1", "model-a", digest, "4bit", "1000");
	steps += exec_args(h, "UPDATE runs SET status = 'upheld' WHERE id = ?1", 1, best);
	steps += exec_args(h, "UPDATE runs SET status = 'ok' WHERE id = ?1", 1, best);
	steps += exec_args(h, "DELETE FROM runs WHERE id = ?1", 1, best);
	return steps;
}

/* Keeping the summary costs seeks, not a pass over the digest's runs: the
 * same work whether the digest holds 50 runs or 3,000. */
START_TEST(digest_summary_costs_do_not_grow_with_runs)
{
	sqlite3 *h = raw_open();
	int small = change_steps(h, "sha256:aaaaaaaaaaaaaaaa", 50);
	int big = change_steps(h, "sha256:bbbbbbbbbbbbbbbb", 3000);

	ck_assert_int_eq(summary_diff(h), 0);
	ck_assert_int_eq(lists_diff(h), 0);
	ck_assert_int_eq(find_index_diff(h), 0);
	ck_assert_msg(big < small + small / 2, "50 runs: %d steps, 3000 runs: %d steps", small, big);
	sqlite3_close(h);
}
END_TEST

START_TEST(cursor_reads_back_exactly)
{
	char out[80], *end;
	double v[] = { 192.5, 19.4, 0.1 + 0.2, 1e-7, 123456789.125 };
	size_t i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		browse_cursor(out, sizeof out, v[i], "r_y2_5y8oo97d");
		ck_assert(strtod(out, &end) == v[i]);
		ck_assert_str_eq(end, ":r_y2_5y8oo97d");
	}
	browse_cursor(out, sizeof out, 192.5, "r_y2_5y8oo97d");
	ck_assert_str_eq(out, "192.5:r_y2_5y8oo97d");
}
END_TEST

START_TEST(barchart_escapes_and_labels)
{
	struct barchart_bar bars[] = { { "<b>M3 & \"Ultra\"</b>", 192.5, NULL }, { "M3 Pro", 19.4, NULL },
				       { "broken", NAN, NULL } };
	struct buf b = BUF_INIT;

	ck_assert_int_eq(barchart_svg(&b, "Best <decode>", "tok/s", bars, 3), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, "role=\"img\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "aria-label=\"Best &lt;decode&gt;\""));
	ck_assert_ptr_nonnull(strstr(b.buf, "<title>Best &lt;decode&gt;</title>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "&lt;b&gt;M3 &amp; &quot;Ultra&quot;&lt;/b&gt;"));
	ck_assert_ptr_null(strstr(b.buf, "<b>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "192.5 tok/s"));
	ck_assert_ptr_nonnull(strstr(b.buf, "19.4 tok/s"));
	ck_assert_ptr_null(strstr(b.buf, "broken"));
	/* The bars in proportion (the longest is what its value's text leaves
	 * of the width). */
	{
		const char *r1 = strstr(b.buf, "<rect"), *r2 = r1 ? strstr(r1 + 1, "<rect") : NULL;
		double w1, w2;

		ck_assert_ptr_nonnull(r2);
		w1 = strtod(strstr(r1, "width=\"") + 7, NULL);
		w2 = strtod(strstr(r2, "width=\"") + 7, NULL);
		ck_assert_msg(w1 > 100 && fabs(w2 / w1 - 19.4 / 192.5) < 0.002, "bars %g and %g", w1, w2);
	}
	buf_release(&b);
}
END_TEST

START_TEST(barchart_cuts_long_labels_on_characters)
{
	struct barchart_bar bars[] = { { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 1, NULL } };
	struct buf b = BUF_INIT;
	const char *t;

	ck_assert_int_eq(barchart_svg(&b, "t", "tok/s", bars, 1), 0);
	t = strstr(b.buf, "text-anchor=\"end\" fill=\"currentColor\">");
	ck_assert_ptr_nonnull(t);
	t = strchr(t, '>') + 1;
	/* No word to cut after: cut after whole characters that fit, "…" last. */
	{
		size_t n = 0;

		while (!strncmp(t + 2 * n, "\xc3\xa9", 2))
			n++;
		ck_assert_msg(n >= 10 && n < 30, "%zu characters kept", n);
		ck_assert_int_eq(strncmp(t + 2 * n, "\xe2\x80\xa6</text>", 10), 0);
	}
	buf_release(&b);
}
END_TEST

START_TEST(barchart_without_bars_says_so)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(barchart_svg(&b, "Nothing", "tok/s", NULL, 0), 0);
	ck_assert_ptr_nonnull(strstr(b.buf, ">no data</text>"));
	ck_assert_ptr_nonnull(strstr(b.buf, "</svg>"));
	buf_release(&b);
}
END_TEST

static Suite *suite_browse(void)
{
	Suite *s = suite_create("browse");
	TCase *t = tcase_create("plans");

	tcase_add_checked_fixture(t, setup, teardown);
	/* Thousands of writes: room for the sanitizer build. */
	tcase_set_timeout(t, 60);
	tcase_add_test(t, every_query_uses_an_index);
	tcase_add_test(t, board_counts_read_an_index_alone);
	tcase_add_test(t, cards_seek_their_slug);
	tcase_add_test(t, wanted_command_seeks_its_hardware);
	tcase_add_test(t, hw_backends_follow_the_combinations);
	tcase_add_test(t, backend_runs_follow_the_clusters);
	tcase_add_test(t, cheatsheet_cells_seek_their_combination);
	tcase_add_test(t, feeds_read_an_index_in_order);
	tcase_add_test(t, sitemap_seeks_the_runs);
	tcase_add_test(t, memory_classes_match_the_migration);
	tcase_add_test(t, lists_seek_their_cursor);
	tcase_add_test(t, ruled_disputes_seek_their_cursor);
	tcase_add_test(t, digest_summary_follows_every_change);
	tcase_add_test(t, digest_summary_costs_do_not_grow_with_runs);
	suite_add_tcase(s, t);
	t = tcase_create("parts");
	tcase_add_test(t, cursor_reads_back_exactly);
	tcase_add_test(t, barchart_escapes_and_labels);
	tcase_add_test(t, barchart_cuts_long_labels_on_characters);
	tcase_add_test(t, barchart_without_bars_says_so);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_browse)
