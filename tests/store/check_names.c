/* check_names.c: the shown names of models and hardware (migration 0021,
 * server/store/names.h) and look-alike names (server/store/names.c).
 *
 * The bookkeeping is checked against an exact recount kept here in C
 * through random uploads, moderators' rulings (status 'upheld' and back)
 * and deletions, and after the migration backfills a database that had
 * runs before it. */
#include "check_util.h"
#include "check_tmpdb.h"
#include "check_sample_run.h"
#include "store/names.h"
#include "store/outlier.h"
#include "store/run_store.h"
#include "util/log.h"

#include <sodium.h>
#include <sqlite3.h>

static struct tmpdb T;
static struct db *db;

static void reset_world(void);

static void setup(void)
{
	reset_world();
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
	tmpdb_begin(&T, "check_names");
}

static void teardown(void)
{
	if (db)
		db_close(db);
	db = NULL;
	tmpdb_end(&T);
}

/* ---- the world as the test knows it ---- */

enum { KIND_MODEL, KIND_HW };
static const char *const kind_sql[] = { "model", "hw" };

/* The names the runs use: two model slugs and two hardware slugs, each
 * under several spellings. */
static const struct { int kind; const char *name, *slug; } names[] = {
	{ KIND_MODEL, "Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder-30b-a3b-instruct" },
	{ KIND_MODEL, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder-30b-a3b-instruct" },
	{ KIND_MODEL, "Qwen3-Coder-30B-A3B-Instruct-4bit", "qwen3-coder-30b-a3b-instruct" },
	{ KIND_MODEL, "qwen3 coder 30b a3b instruct", "qwen3-coder-30b-a3b-instruct" },
	{ KIND_MODEL, "Llama-3.1-8B", "llama-3-1-8b" },
	{ KIND_MODEL, "meta-llama/Llama-3.1-8B", "llama-3-1-8b" },
	{ KIND_HW, "M3 Ultra", "m3-ultra" },
	{ KIND_HW, "Apple M3 Ultra", "m3-ultra" },
	{ KIND_HW, "m3 ultra", "m3-ultra" },
	{ KIND_HW, "RTX 4090", "rtx-4090" },
	{ KIND_HW, "NVIDIA GeForce RTX 4090", "rtx-4090" },
};
#define N_NAMES ((int)(sizeof names / sizeof names[0]))
#define N_MODELS 6
#define N_KEYS 6
#define MAX_RUNS 400

struct trun {
	char id[RUN_ID_LEN];
	int model, hw, key;         /* indexes into names[] and the key pool */
	int ok, gone;               /* status 'ok'; deleted */
};

static struct trun runs[MAX_RUNS];
static int n_runs;
static int first_seen[N_NAMES];  /* 1 + order the name was first stored, 0: not yet */
static int n_seen;

/* The counts start again for each test (CK_FORK=no runs them in one process). */
static void reset_world(void)
{
	memset(runs, 0, sizeof runs);
	memset(first_seen, 0, sizeof first_seen);
	n_runs = n_seen = 0;
}

static const char *key_name(int k)
{
	static const char *const keys[N_KEYS] = { "key-a", "key-b", "key-c", "key-d", "key-e", "key-f" };
	return keys[k];
}

/* Stores one run through the real write path (run_store_run). */
static void store_run(int model, int hw, int key)
{
	struct sample_opts o = { .model = names[model].name, .accelerator = names[hw].name,
				 .decode_tok_s = 50.0 + n_runs * 0.25 };
	struct sample_run u;
	char jws[40];
	struct trun *t = &runs[n_runs];

	ck_assert_int_lt(n_runs, MAX_RUNS);
	snprintf(jws, sizeof jws, "aaaa.bbbb.run%d", n_runs);
	sample_run_init(&u, &o, jws, key_name(key));
	ck_assert_str_eq(u.n.f.model_slug, names[model].slug);
	ck_assert_str_eq(u.n.f.hw_slug, names[hw].slug);
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_int_eq(u.n.duplicate, 0);
	ck_assert_ptr_null(u.n.clash.field);
	snprintf(t->id, sizeof t->id, "%s", u.n.id);
	t->model = model;
	t->hw = hw;
	t->key = key;
	t->ok = 1;
	t->gone = 0;
	n_runs++;
	if (!first_seen[model])
		first_seen[model] = ++n_seen;
	if (!first_seen[hw])
		first_seen[hw] = ++n_seen;
	sample_run_free(&u);
}

/* ---- writes of the moderator's kind, on the writer ---- */

struct sql_job {
	struct db_job j;
	const char *sql, *id;
};

static int sql_run(struct dbconn *w, struct db_job *j)
{
	struct sql_job *s = (struct sql_job *)j;
	sqlite3_stmt *st = db_stmt(w, s->sql);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, s->id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	/* A ruling changes a run's status the way moderate.c does: the
	 * flags and typical figures, which the writer keeps, follow it. */
	return strncmp(s->sql, "UPDATE", 6) ? DB_OK : outlier_run_status_changed(w, s->id, NULL);
}

static void write_sql(const char *sql, const char *id)
{
	struct sql_job s = { .j = { .run = sql_run }, .sql = sql, .id = id };

	ck_assert_int_eq(db_write(db, &s.j), DB_OK);
}

/* ---- the recount, and the comparison with what is stored ---- */

/* The distinct keys of the live, counted runs under name i. */
static int keys_of(int i)
{
	int seen[N_KEYS] = { 0 }, n = 0, r;

	for (r = 0; r < n_runs; r++) {
		const struct trun *t = &runs[r];
		if (t->gone || !t->ok || (t->model != i && t->hw != i) || seen[t->key])
			continue;
		seen[t->key] = 1;
		n++;
	}
	return n;
}

/* The shown name of slug of kind: most keys, ties to the first seen; -1
 * when no name of it has been stored. */
static int shown_of(int kind, const char *slug)
{
	int best = -1, i;

	for (i = 0; i < N_NAMES; i++) {
		if (names[i].kind != kind || strcmp(names[i].slug, slug) || !first_seen[i])
			continue;
		if (best < 0 || keys_of(i) > keys_of(best) ||
		    (keys_of(i) == keys_of(best) && first_seen[i] < first_seen[best]))
			best = i;
	}
	return best;
}

static sqlite3 *raw(void)
{
	sqlite3 *h = NULL;

	ck_assert_int_eq(sqlite3_open_v2(T.path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	return h;
}

/* Every stored name has the recounted keys and comes in the order first
 * seen among its slug's; every key's run count is right; each slug shows the recount's
 * top name, and search finds it by that name. */
static void check_stored(void)
{
	sqlite3 *h = raw();
	sqlite3_stmt *st;
	int i, rows = 0, last_seen[N_NAMES] = { 0 }, r, k, g;

	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT kind, name, keys FROM name_votes ORDER BY id",
					    -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		for (i = 0; i < N_NAMES && strcmp(names[i].name, name); i++)
			;
		ck_assert_msg(i < N_NAMES, "unknown name %s", name);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), kind_sql[names[i].kind]);
		/* Within a slug, the order first seen (which breaks ties); a
		 * slug's group is its first name in names[]. */
		for (g = 0; strcmp(names[g].slug, names[i].slug) || names[g].kind != names[i].kind; g++)
			;
		ck_assert_int_gt(first_seen[i], last_seen[g]);
		last_seen[g] = first_seen[i];
		ck_assert_msg(sqlite3_column_int(st, 2) == keys_of(i), "%s: %d keys stored, %d counted",
			      name, sqlite3_column_int(st, 2), keys_of(i));
		rows++;
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(rows, n_seen);

	/* Each key's count of counted runs under each name. */
	ck_assert_int_eq(sqlite3_prepare_v2(h,
		"SELECT k.runs FROM name_keys k JOIN name_votes v ON v.id = k.vote "
		"WHERE v.name = ?1 AND k.key = ?2", -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < N_NAMES; i++) {
		for (k = 0; k < N_KEYS; k++) {
			int want = 0;
			for (r = 0; r < n_runs; r++)
				want += !runs[r].gone && runs[r].ok && runs[r].key == k &&
					(runs[r].model == i || runs[r].hw == i);
			sqlite3_bind_text(st, 1, names[i].name, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, key_name(k), -1, SQLITE_STATIC);
			if (sqlite3_step(st) == SQLITE_ROW)
				ck_assert_int_eq(sqlite3_column_int(st, 0), want);
			else
				ck_assert_int_eq(want, 0);
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);

	/* The shown name of every slug, and search finding it. */
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT name FROM search_names WHERE kind = ?1 AND slug = ?2",
					    -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < N_NAMES; i++) {
		int want = shown_of(names[i].kind, names[i].slug);
		sqlite3_bind_text(st, 1, kind_sql[names[i].kind], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, names[i].slug, -1, SQLITE_STATIC);
		if (want < 0) {
			ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
		} else {
			ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
			ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), names[want].name);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_exec(h, "INSERT INTO search_fts(search_fts, rank) VALUES ('integrity-check', 1)",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* A fixed-seed generator, so a failure repeats: 0 .. n - 1. */
static uint32_t rnd(uint32_t n)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (uint32_t)(x % n);
}

/* A name picked at random among those of kind. */
static int pick(int kind)
{
	int i;

	do
		i = (int)rnd(N_NAMES);
	while (names[i].kind != kind);
	return i;
}

/* Random uploads, rulings that take runs out and bring them back, and
 * deletions: after every step the stored names equal the recount. */
START_TEST(names_follow_the_most_keys_exactly)
{
	int step, r, shown = -1, moves = 0;

	db = tmpdb_open(&T, NULL);
	for (step = 0; step < 240; step++) {
		unsigned what = rnd(10);

		if (n_runs == 0 || what < 6) {
			store_run(pick(KIND_MODEL), pick(KIND_HW), (int)rnd(N_KEYS));
		} else if (what < 9) {
			r = (int)rnd((uint32_t)n_runs);
			if (runs[r].gone)
				continue;
			runs[r].ok = !runs[r].ok;
			write_sql(runs[r].ok ? "UPDATE runs SET status = 'ok' WHERE id = ?1"
					     : "UPDATE runs SET status = 'upheld' WHERE id = ?1", runs[r].id);
		} else {
			r = (int)rnd((uint32_t)n_runs);
			if (runs[r].gone)
				continue;
			runs[r].gone = 1;
			/* Out of the writer's figures first, as every path out of
			 * the rankings goes (a withdrawal, a ruling), then gone. */
			if (runs[r].ok)
				write_sql("UPDATE runs SET status = 'upheld' WHERE id = ?1", runs[r].id);
			write_sql("DELETE FROM runs WHERE id = ?1", runs[r].id);
		}
		check_stored();
		if (shown_of(KIND_MODEL, names[0].slug) != shown)
			moves++;
		shown = shown_of(KIND_MODEL, names[0].slug);
	}
	ck_assert_msg(moves > 3, "the shown name moved only %d times", moves);   /* the test moves it */
}
END_TEST

/* One key's many runs under a new name do not move a name another key
 * brought first; a second key does; the first name comes back when the
 * second's runs are taken out. */
START_TEST(one_key_does_not_rename)
{
	int i;

	db = tmpdb_open(&T, NULL);
	store_run(0, 6, 0);
	for (i = 0; i < 5; i++)
		store_run(1, 7, 1);
	check_stored();
	ck_assert_int_eq(shown_of(KIND_MODEL, names[0].slug), 0);
	store_run(1, 7, 2);
	ck_assert_int_eq(shown_of(KIND_MODEL, names[0].slug), 1);
	check_stored();
	runs[n_runs - 1].ok = 0;
	write_sql("UPDATE runs SET status = 'upheld' WHERE id = ?1", runs[n_runs - 1].id);
	ck_assert_int_eq(shown_of(KIND_MODEL, names[0].slug), 0);
	check_stored();
}
END_TEST

/* Copies the repository's migrations but those from "0021" on into dir. */
static void migrations_before_names(const char *dir)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && for f in '%s'/migrations/*.sql; do "
		 "case \"$(basename \"$f\")\" in 0021_*|0022_*|0023_*|0024_*|0025_*) ;; *) cp \"$f\" '%s'/ ;; esac; done",
		 dir, repo_root(), dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A database with runs from before migration 0021 gets the names it
 * would have had: the backfill, in the order runs came, then the triggers
 * from there on. */
START_TEST(migration_backfills_existing_runs)
{
	char old[400];
	int i;

	snprintf(old, sizeof old, "%s/old-migrations", T.dir);
	migrations_before_names(old);
	db = tmpdb_open(&T, old);
	for (i = 0; i < 40; i++)
		store_run(pick(KIND_MODEL), pick(KIND_HW), (int)rnd(N_KEYS));
	for (i = 0; i < 8; i++) {
		int r = (int)rnd((uint32_t)n_runs);
		runs[r].ok = 0;
		write_sql("UPDATE runs SET status = 'upheld' WHERE id = ?1", runs[r].id);
	}
	db_close(db);
	db = tmpdb_open(&T, NULL);           /* applies 0021 */
	check_stored();
	for (i = 0; i < 20; i++)
		store_run(pick(KIND_MODEL), pick(KIND_HW), (int)rnd(N_KEYS));
	check_stored();
}
END_TEST

/* A name that reads as another existing slug is refused in the writer,
 * nothing stored, with the look-alike named; its own slug may exist or
 * not; a name reading as no other slug is stored. */
START_TEST(look_alike_names_are_refused_in_the_writer)
{
	struct sample_opts o = { .model = "Qwen3-Coder-30B-\xd0\x90" "3\xd0\x92-Instruct" };
	struct sample_run u;
	sqlite3 *h;
	sqlite3_stmt *st;

	db = tmpdb_open(&T, NULL);
	store_run(0, 9, 0);                   /* Qwen3-Coder-30B-A3B-Instruct on RTX 4090 */
	sample_run_init(&u, &o, "cccc.dddd.spoof", "key-z");
	ck_assert_str_eq(u.n.f.model_lookalike, "qwen3-coder-30b-a3b-instruct");
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_ptr_nonnull(u.n.clash.field);
	ck_assert_str_eq(u.n.clash.field, "model.name");
	ck_assert_str_eq(u.n.clash.slug, "qwen3-coder-30b-a3b-instruct");
	ck_assert_str_eq(u.n.clash.name, "Qwen3-Coder-30B-A3B-Instruct");
	ck_assert_str_eq(u.n.clash.what, "model");
	ck_assert_str_eq(u.n.clash.prefix, "/m/");
	sample_run_free(&u);

	o = (struct sample_opts){ .accelerator = "RTX 4\xd0\x9e" "90" };
	sample_run_init(&u, &o, "cccc.dddd.spoof2", "key-z");
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_str_eq(u.n.clash.field, "hardware.accelerator_summary");
	ck_assert_str_eq(u.n.clash.name, "RTX 4090");
	sample_run_free(&u);

	h = raw();
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(h);

	/* An accent that reads as no existing slug is a name like any other. */
	o = (struct sample_opts){ .model = "Caf\xc3\xa9-7B" };
	sample_run_init(&u, &o, "cccc.dddd.cafe", "key-z");
	ck_assert_str_eq(u.n.f.model_lookalike, "cafe-7b");
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_ptr_null(u.n.clash.field);
	sample_run_free(&u);
}
END_TEST

static Suite *suite_names(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, names_follow_the_most_keys_exactly);
	tcase_add_test(tc, one_key_does_not_rename);
	tcase_add_test(tc, migration_backfills_existing_runs);
	tcase_add_test(tc, look_alike_names_are_refused_in_the_writer);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_names)
