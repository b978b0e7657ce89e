/* check_identity.c: the stored runs resolved again when the reference data
 * changes (store/identity.c): runs stored under the slugs of their own
 * names move to their reference's page with every figure, the signed
 * payload untouched; a second start moves nothing. */
#include <sodium.h>

#include "check_sample_run.h"
#include "check_tmpdb.h"
#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "store/identity.h"
#include "util/b64u.h"

static struct tmpdb T;
static struct db *db;
static struct ceiling_ref *ref;

/* What the server runs after its migrations (commands.c). */
static int after_migrate(struct dbconn *w, struct err *err)
{
	int moved = 0, rc = outlier_backfill(w, err);

	if (rc == DB_OK)
		rc = identity_refresh(w, &moved, err);
	if (rc == DB_OK && moved)
		rc = outlier_backfill_ceilings(w, err);
	return rc;
}

static void reopen(void)
{
	struct err err = ERR_INIT;
	char mig[600];

	if (db)
		db_close(db);
	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	db_after_migrate = after_migrate;
	ck_assert_int_eq(db_open(T.path, mig, &db, &err), DB_OK);
}

static void setup(void)
{
	struct err err = ERR_INIT;
	char dir[1024];

	ck_assert_int_ge(sodium_init(), 0);
	tmpdb_begin(&T, "check_identity");
	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	ck_assert_ptr_nonnull(ref = ceiling_load(dir, &err));
	db_set_reference(NULL);       /* the runs are stored as before the resolver */
	db = tmpdb_open(&T, NULL);
}

static void teardown(void)
{
	db_close(db);
	db = NULL;
	db_set_reference(NULL);
	ceiling_free(ref);
	tmpdb_end(&T);
}

/* Stores a run of model on accel by key, as a JWS whose payload is the
 * real one (the identity pass reads it), under the uploaded names' slugs. */
static void store(const char *model, const char *accel, const char *key, double decode, int n)
{
	struct sample_opts o = { .model = model, .accelerator = accel, .decode_tok_s = decode,
				 .fingerprint = "0123456789abcdef", .digest = "sha256:00112233445566778899aabb" };
	struct sample_run u;
	struct buf jws = BUF_INIT;
	char *b64;
	size_t len;

	sample_run_init(&u, &o, "x", key);
	len = sodium_base64_ENCODED_LEN(u.n.payload_len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	ck_assert_ptr_nonnull(b64 = malloc(len));
	sodium_bin2base64(b64, len, u.n.payload, u.n.payload_len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	buf_printf(&jws, "eyJhbGciOiJFZERTQSJ9.%s.sig%d", b64, n);
	u.n.jws = jws.buf;
	u.n.jws_len = jws.len;
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert_int_eq(u.n.duplicate, 0);
	free(b64);
	buf_release(&jws);
	sample_run_free(&u);
}

static long long scalar(const char *sql, const char *arg)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long long v = -1;

	ck_assert_int_eq(sqlite3_open_v2(T.path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static const char *const names[][2] = {
	{ "Meta-Llama-3.1-8B-Instruct", "NVIDIA GeForce RTX 4090" },
	{ "llama3.1:8b-instruct-q4_K_M", "NVIDIA GeForce RTX 4090" },
	{ "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "RTX 4090" },
	{ "Acme-Unknown-7B", "Acme Box (water-cooled)" },
};

START_TEST(runs_move_to_their_reference_with_their_figures)
{
	char key[16];
	int i;

	for (i = 0; i < 12; i++) {
		snprintf(key, sizeof key, "key-%d", i);
		store(names[i % 4][0], names[i % 4][1], key, 100.0 + i, i);
	}
	/* As stored: three model pages for one model, and no resolution. */
	ck_assert_int_eq(scalar("SELECT count(DISTINCT model_slug) FROM runs WHERE model_slug LIKE '%llama%'", NULL), 2);
	ck_assert_int_eq(scalar("SELECT count(*) FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 0);

	db_set_reference(ref);
	reopen();
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE model_slug = 'llama-3-1-8b' AND "
				"hw_slug = 'rtx-4090' AND hw_class = '0123456789abcdef:rtx-4090'", NULL), 9);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE model_slug = 'acme-unknown-7b' AND "
				"hw_slug = 'acme-box'", NULL), 3);
	/* One combination with every run and key, nothing left under the old
	 * slugs, and the shown name the reference's. */
	ck_assert_int_eq(scalar("SELECT runs FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 9);
	ck_assert_int_eq(scalar("SELECT keys FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 9);
	ck_assert_int_eq(scalar("SELECT t_keys FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 9);
	ck_assert_int_eq(scalar("SELECT coalesce(sum(runs), 0) FROM combos WHERE model_slug LIKE 'meta-%'", NULL), 0);
	ck_assert_int_eq(scalar("SELECT count(*) FROM search_names WHERE kind = 'model' AND slug = "
				"'llama-3-1-8b' AND name = ?", ceiling_model(ref, "llama-3-1-8b")->name), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE model_name = ?",
				ceiling_model(ref, "llama-3-1-8b")->name), 9);
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE model_quant = 'Q4_K_M'", NULL), 6);
	/* The uploaded slugs redirect and are no pages of their own. */
	ck_assert_int_eq(scalar("SELECT count(*) FROM slug_aliases WHERE kind = 'model' AND "
				"slug = 'meta-llama-3-1-8b-instruct' AND target = 'llama-3-1-8b'", NULL), 1);
	ck_assert_int_eq(scalar("SELECT count(*) FROM search_names WHERE slug = 'meta-llama-3-1-8b-instruct'", NULL), 0);
	/* The signed bytes are as they were. */
	ck_assert_int_eq(scalar("SELECT count(*) FROM runs WHERE CAST(jws AS TEXT) LIKE 'eyJhbGciOiJFZERTQSJ9.%'", NULL), 12);
	/* Started again with the same data: nothing moves. */
	reopen();
	ck_assert_int_eq(scalar("SELECT runs FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 9);
	ck_assert_int_eq(scalar("SELECT count(*) FROM combos WHERE runs > 0", NULL), 2);
}
END_TEST

/* A pass stopped half-way carries on from its last batch, and a run moved
 * twice is counted once everywhere. */
START_TEST(a_stopped_pass_carries_on)
{
	unsigned char fp[32];
	char hex[65], state[128];
	int i;

	for (i = 0; i < 6; i++)
		store(names[i % 2][0], names[i % 2][1], i % 2 ? "key-b" : "key-a", 90.0 + i, i);
	db_set_reference(ref);
	ceiling_fingerprint(ref, fp);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", fp[i]);
	reopen();
	/* Pretend the pass had stopped after the first run. */
	db_close(db);
	db = NULL;
	{
		sqlite3 *h;
		char sql[300];

		ck_assert_int_eq(sqlite3_open(T.path, &h), SQLITE_OK);
		snprintf(state, sizeof state, "%s@1", hex);
		snprintf(sql, sizeof sql, "UPDATE stats_state SET value = '%s' WHERE name = 'identity'", state);
		ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
	}
	reopen();
	ck_assert_int_eq(scalar("SELECT count(*) FROM stats_state WHERE name = 'identity' AND value = ?", hex), 1);
	ck_assert_int_eq(scalar("SELECT runs FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 6);
	ck_assert_int_eq(scalar("SELECT keys FROM combos WHERE model_slug = 'llama-3-1-8b'", NULL), 2);
}
END_TEST

static Suite *suite_identity(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runs_move_to_their_reference_with_their_figures);
	tcase_add_test(tc, a_stopped_pass_carries_on);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_identity)
