/* check_run_store.c: run ids and storing a run (server/store/run_store.c):
 * the digests it keys on, and what counts as the same upload twice. */
#include "check_util.h"
#include "check_tmpdb.h"
#include "check_sample_run.h"
#include "ingest/sample.h"
#include "ingest/validate.h"
#include "store/run_store.h"
#include "util/log.h"

#include <sodium.h>
#include <time.h>

static struct tmpdb T;
static struct db *db;

static void setup(void)
{
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
	tmpdb_begin(&T, "check_run_store");
	db = tmpdb_open(&T, NULL);
}

static void teardown(void)
{
	db_close(db);
	tmpdb_end(&T);
}

/* A run for the sample payload of model (NULL: the default), stored as
 * the JWS bytes jws signed by the key thumb. */
static void upload_init(struct sample_run *u, const char *model, const char *jws, const char *thumb)
{
	struct sample_opts o = { .model = model };

	sample_run_init(u, &o, jws, thumb);
}

/* New ids have the contract's shape and differ; the shape check refuses
 * anything else. */
START_TEST(ids_have_the_shape)
{
	char a[RUN_ID_LEN], b[RUN_ID_LEN];

	run_id_new(a);
	run_id_new(b);
	ck_assert(run_id_valid(a));
	ck_assert(run_id_valid(b));
	ck_assert_str_ne(a, b);
	ck_assert(run_id_valid("r_y2_5y8oo97d"));
	ck_assert(!run_id_valid("r_y2_5y8oo97"));     /* 10 characters */
	ck_assert(!run_id_valid("r_y2_5y8oo97dd"));   /* 12 */
	ck_assert(!run_id_valid("x_y2_5y8oo97d"));
	ck_assert(!run_id_valid("r_Y2_5y8oo97d"));    /* upper case */
	ck_assert(!run_id_valid("r_y2/5y8oo97d"));
}
END_TEST

/* The writer keys the run on SHA-256 of the JWS bytes and of the payload,
 * and stores the memory it reported. */
START_TEST(writer_digests_jws_and_payload)
{
	unsigned char want[32];
	struct sample_run u;
	struct dbconn *c;
	sqlite3_stmt *st;

	upload_init(&u, NULL, "aaaa.bbbb.cccc", "key-1");
	ck_assert(u.n.j.run == run_store_run);
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	crypto_hash_sha256(want, (const unsigned char *)"aaaa.bbbb.cccc", 14);
	ck_assert_int_eq(memcmp(u.n.sha, want, 32), 0);
	crypto_hash_sha256(want, u.n.payload, u.n.payload_len);
	ck_assert_int_eq(memcmp(u.n.payload_sha, want, 32), 0);
	ck_assert_ptr_nonnull(c = db_reader(db));
	ck_assert_ptr_nonnull(st = db_stmt(c, "SELECT jws_sha256, mem_gb FROM runs WHERE id = ?"));
	db_bind_text(st, 1, u.n.id);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	crypto_hash_sha256(want, (const unsigned char *)"aaaa.bbbb.cccc", 14);
	ck_assert_int_eq(memcmp(sqlite3_column_blob(st, 0), want, 32), 0);
	ck_assert(sqlite3_column_double(st, 1) == u.n.f.mem_gb && u.n.f.mem_gb > 0);
	sqlite3_reset(st);
	sample_run_free(&u);
}
END_TEST

/* The same payload signed again by the same key (ES256 signatures differ
 * each time) is the same run; under another key it is a new one. */
START_TEST(same_payload_same_key_is_a_duplicate)
{
	struct sample_run a, b, c;

	upload_init(&a, NULL, "aaaa.bbbb.sig1", "key-1");
	upload_init(&b, NULL, "aaaa.bbbb.sig2", "key-1");
	upload_init(&c, NULL, "aaaa.bbbb.sig3", "key-2");
	ck_assert_int_eq(db_write(db, &a.n.j), DB_OK);
	ck_assert_int_eq(a.n.duplicate, 0);
	ck_assert_int_eq(db_write(db, &b.n.j), DB_OK);
	ck_assert_int_eq(b.n.duplicate, 1);
	ck_assert_str_eq(b.n.id, a.n.id);
	ck_assert_int_eq(db_write(db, &c.n.j), DB_OK);
	ck_assert_int_eq(c.n.duplicate, 0);
	ck_assert_str_ne(c.n.id, a.n.id);
	sample_run_free(&a);
	sample_run_free(&b);
	sample_run_free(&c);
}
END_TEST

/* A lone run is not an outlier, and its cluster has a cache tag. */
START_TEST(first_run_of_a_cluster_is_not_flagged)
{
	struct sample_run u;

	upload_init(&u, "Lonely-Model-7B", "cccc.dddd.eeee", "key-1");
	ck_assert_int_eq(db_write(db, &u.n.j), DB_OK);
	ck_assert(run_id_valid(u.n.id));
	ck_assert_int_eq(u.n.outlier, 0);
	ck_assert_uint_ne(u.n.cluster_tag, 0);
	sample_run_free(&u);
}
END_TEST

static Suite *suite_run_store(void)
{
	Suite *s = suite_create("run_store");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ids_have_the_shape);
	tcase_add_test(tc, writer_digests_jws_and_payload);
	tcase_add_test(tc, same_payload_same_key_is_a_duplicate);
	tcase_add_test(tc, first_run_of_a_cluster_is_not_flagged);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_run_store)
