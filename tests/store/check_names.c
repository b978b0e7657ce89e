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
#include "domain/ceiling.h"
#include "store/names.h"
#include "store/outlier.h"
#include "store/run_store.h"
#include "util/log.h"

#include <sodium.h>
#include <sqlite3.h>

static struct tmpdb T, F;
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

/* Stores one run of model on accel through the real write path, its JWS
 * bytes and key told apart by kind and i, outside the recount. */
static void store_named(int kind, const char *model, const char *accel, size_t i)
{
	struct sample_opts o = { .model = model, .accelerator = accel };
	struct sample_run u;
	char jws[48];

	snprintf(jws, sizeof jws, "page.%d.%zu", kind, i);
	sample_run_init(&u, &o, jws, jws);
	validate_resolve(db_reference(), u.payload, &u.n.f);
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_msg(!u.n.clash.field, "%s on %s: %s", model, accel, u.n.clash.field);
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

/* Copies the repository's migrations but 0021 and those that build on it
 * (0022-0025, 0029, 0031; 0033 alters 0024's table) into dir. */
static void migrations_before_names(const char *dir)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && for f in '%s'/migrations/*.sql; do "
		 "case \"$(basename \"$f\")\" in 0021_*|0022_*|0023_*|0024_*|0025_*|0029_*|0031_*|0033_*) ;; *) cp \"$f\" '%s'/ ;; esac; done",
		 dir, repo_root(), dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Copies the runs of the database at from into the one at to, in order,
 * the columns to has (its triggers fill its summaries as they go). */
static void copy_runs(const char *to, const char *from)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char sql[4096];

	ck_assert_int_eq(sqlite3_open(to, &h), SQLITE_OK);
	snprintf(sql, sizeof sql, "ATTACH '%s' AS f", from);
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT group_concat(name) FROM pragma_table_info('runs')",
					    -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	snprintf(sql, sizeof sql, "INSERT INTO main.runs(%s) SELECT %s FROM f.runs ORDER BY rowid",
		 (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* The clusters, combinations and flags of the copied runs. */
static int rebuild_run(struct dbconn *w, struct db_job *j)
{
	return outlier_rebuild_all(w);
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
	/* The runs go through today's write path, and the rulings through the
	 * moderator's, into a database of today's schema (the path writes the
	 * tables of later migrations too); they are copied, in order, into
	 * one without 0021. */
	tmpdb_begin(&F, "check_names_full");
	db = tmpdb_open(&F, NULL);
	for (i = 0; i < 40; i++)
		store_run(pick(KIND_MODEL), pick(KIND_HW), (int)rnd(N_KEYS));
	for (i = 0; i < 8; i++) {
		int r = (int)rnd((uint32_t)n_runs);
		runs[r].ok = 0;
		write_sql("UPDATE runs SET status = 'upheld' WHERE id = ?1", runs[r].id);
	}
	db_close(db);
	db = tmpdb_open(&T, old);
	db_close(db);
	copy_runs(T.path, F.path);
	tmpdb_end(&F);
	db = tmpdb_open(&T, NULL);           /* applies 0021 */
	ck_assert_int_eq(db_write(db, &(struct db_job){ .run = rebuild_run }), DB_OK);
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

/* ---- against the reference data: ICU's keys (issue 37, H6) ---- */

static struct ceiling_ref *ref;

static void load_reference(void)
{
	struct err err = ERR_INIT;
	char dir[1024];

	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	ref = ceiling_load(dir, &err);
	ck_assert_msg(ref != NULL, "%s", err.message);
	db_set_reference(ref);
}

static void unload_reference(void)
{
	db_set_reference(NULL);
	ceiling_free(ref);
	ref = NULL;
}

/* What the server runs after its migrations, names_refresh included. */
static int after_migrate(struct dbconn *w, struct err *err)
{
	int rc = outlier_backfill(w, err);

	return rc == DB_OK ? names_refresh(w, err) : rc;
}

/* Opens T's database as the server does (migrations, then names_refresh). */
static struct db *open_as_server(void)
{
	struct err err = ERR_INIT;
	char mig[600];
	struct db *d = NULL;

	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	db_after_migrate = after_migrate;
	ck_assert_msg(db_open(T.path, mig, &d, &err) == DB_OK, "%s", err.message);
	return d;
}

/* Stores the sample run of o, resolved as an upload is; its clash field
 * (NULL when stored) into field (size n). */
static void upload(struct sample_opts o, const char *jws, char *field, size_t n)
{
	struct sample_run u;

	sample_run_init(&u, &o, jws, jws);
	validate_resolve(ref, u.payload, &u.n.f);
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	snprintf(field, n, "%s%s%s%s%s", u.n.clash.field ? u.n.clash.field : "",
		 u.n.clash.field ? ": reads as " : "", u.n.clash.field ? u.n.clash.slug : "",
		 u.n.clash.field ? ", lands on " : "", u.n.clash.field ? u.n.f.model_slug : "");
	sample_run_free(&u);
}

/* Every model and hardware string of the resolver's corpus of real names
 * (tests/vectors/names/corpus.json) is stored, with every reference page
 * there already: none reads as another page. */
START_TEST(real_names_never_read_as_another_page)
{
	static const char *const kinds[] = { "models", "hardware" };
	char path[1024], jws[64], field[400];
	json_t *corpus, *a, *v;
	size_t i, k, stored = 0;

	load_reference();
	db = open_as_server();
	for (i = 0; ceiling_model_at(ref, i); i++)
		store_named(0, ceiling_model_at(ref, i)->name, "M3 Ultra", i);
	for (i = 0; ceiling_hw_at(ref, i); i++)
		store_named(1, "Qwen3-Coder-30B-A3B-Instruct", ceiling_hw_at(ref, i)->name, i);
	snprintf(path, sizeof path, "%s/names/corpus.json", vectors_dir());
	ck_assert_ptr_nonnull(corpus = json_load_file(path, 0, NULL));
	for (k = 0; k < 2; k++) {
		a = json_object_get(corpus, kinds[k]);
		json_array_foreach(a, i, v) {
			const char *str = json_string_value(json_object_get(v, "s"));

			if (strpbrk(str, "\t\r\n"))
				continue;       /* a tool's raw line: refused before, as control characters */
			snprintf(jws, sizeof jws, "corpus.%zu.%zu", k, i);
			upload(k ? (struct sample_opts){ .accelerator = str } : (struct sample_opts){ .model = str },
			       jws, field, sizeof field);
			ck_assert_msg(!field[0], "%s refused as a look-alike (%s)", str, field);
			stored++;
		}
	}
	ck_assert_uint_gt(stored, 900);
	json_decref(corpus);
	db_close(db);
	db = NULL;
	unload_reference();
}
END_TEST

/* Look-alikes that only keys tell: ASCII tricks, with the reference's
 * page there (LIama, Llarna: issue 37's "done when"), and an unresolved
 * page's own name; a name that lands on the page it reads as is stored. */
START_TEST(look_alike_keys_are_refused_in_the_writer)
{
	static const char *const tricks[] = {
		"LIama-3.1-8B", "Llarna-3.1-8B", "L1ama-3.1-8B", "Llama-3.l-8B", "Meta-LIama-3.1-8B-Instruct",
	};
	char field[400], jws[64];
	size_t i;

	load_reference();
	db = open_as_server();
	/* With no page it reads as, a name like any other; a second that reads
	 * as the first is refused. */
	upload((struct sample_opts){ .model = tricks[0] }, "early.0", field, sizeof field);
	ck_assert_str_eq(field, "");
	upload((struct sample_opts){ .model = tricks[1] }, "early.1", field, sizeof field);
	ck_assert(!strncmp(field, "model.name:", 11));
	db_close(db);
	tmpdb_end(&T);
	tmpdb_begin(&T, "check_names");
	db = open_as_server();
	upload((struct sample_opts){ .model = "Llama-3.1-8B" }, "honest", field, sizeof field);
	ck_assert_str_eq(field, "");
	for (i = 0; i < sizeof tricks / sizeof *tricks; i++) {
		snprintf(jws, sizeof jws, "trick.%zu", i);
		upload((struct sample_opts){ .model = tricks[i] }, jws, field, sizeof field);
		ck_assert_msg(!strncmp(field, "model.name: reads as llama-3-1-8b", 33), "%s: %s", tricks[i], field);
	}
	upload((struct sample_opts){ .model = "hf.co/meta-llama/Llama-3.1-8B" }, "hf", field, sizeof field);
	ck_assert_str_eq(field, "");
	upload((struct sample_opts){ .model = "Llama\xe2\x80\x91" "3.1\xe2\x80\x91" "8B" }, "nbh", field, sizeof field);
	ck_assert_str_eq(field, "");
	upload((struct sample_opts){ .model = "Acme-Coder-30B" }, "acme", field, sizeof field);
	upload((struct sample_opts){ .model = "Acrne-C0der-30B" }, "acme2", field, sizeof field);
	ck_assert(!strncmp(field, "model.name:", 11));
	upload((struct sample_opts){ .model = "Acme-Coder-30B-4bit" }, "acme3", field, sizeof field);
	ck_assert_str_eq(field, "");                 /* the same page */
	db_close(db);
	db = NULL;
	unload_reference();
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
	tcase_add_test(tc, real_names_never_read_as_another_page);
	tcase_add_test(tc, look_alike_keys_are_refused_in_the_writer);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_names)
