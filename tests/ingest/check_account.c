/* check_account.c: accounts and their bearer tokens (server/ingest/account.c)
 * on a temporary database: names, fresh tokens, lookup by hash, revoking. */
#include <sodium.h>

#include "check_tmpdb.h"
#include "ingest/account.h"
#include "util/log.h"

static struct tmpdb T;
static struct db *db;

static void setup(void)
{
	log_set_quiet(1);
	ck_assert_int_ge(sodium_init(), 0);
	tmpdb_begin(&T, "check_account");
	db = tmpdb_open(&T, NULL);
}

static void teardown(void)
{
	db_close(db);
	tmpdb_end(&T);
}

START_TEST(names)
{
	char s[70];

	ck_assert(account_name_ok("alice"));
	ck_assert(account_name_ok("A.b_c-9"));
	ck_assert(!account_name_ok(""));
	ck_assert(!account_name_ok("al ice"));
	ck_assert(!account_name_ok("al/ice"));
	ck_assert(!account_name_ok("al\xc3\xaf" "ce"));
	ck_assert(!account_name_ok("alice\n"));
	memset(s, 'a', 64);
	s[64] = '\0';
	ck_assert(account_name_ok(s));
	s[64] = 'a';
	s[65] = '\0';
	ck_assert(!account_name_ok(s));
}
END_TEST

/* The token: "lls_" and 43 base64url characters, new each time. */
START_TEST(tokens_are_fresh_and_well_formed)
{
	char a[ACCOUNT_TOKEN_LEN], b[ACCOUNT_TOKEN_LEN];

	ck_assert_int_eq(account_add(db, "alice", a), DB_OK);
	ck_assert_int_eq(account_add(db, "bob", b), DB_OK);
	ck_assert_uint_eq(strlen(a), 47);
	ck_assert(!strncmp(a, "lls_", 4));
	ck_assert_uint_eq(strspn(a + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), 43);
	ck_assert_str_ne(a, b);
}
END_TEST

/* A token finds its account; another token, a near miss or a revoked
 * token finds none; a taken name is a conflict. */
START_TEST(lookup_and_revoke)
{
	char a[ACCOUNT_TOKEN_LEN], b[ACCOUNT_TOKEN_LEN], other[ACCOUNT_TOKEN_LEN];
	struct dbconn *c = db_reader(db);
	long long ida = 0, idb = 0, id = -1;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(account_add(db, "alice", a), DB_OK);
	ck_assert_int_eq(account_add(db, "bob", b), DB_OK);
	ck_assert_int_eq(account_lookup(c, a, &ida), DB_OK);
	ck_assert_int_eq(account_lookup(c, b, &idb), DB_OK);
	ck_assert_int_ne(ida, idb);
	ck_assert_int_eq(account_add(db, "alice", other), DB_CONFLICT);
	ck_assert_int_eq(account_lookup(c, other, &id), DB_NOTFOUND);
	a[10] ^= 1;
	ck_assert_int_eq(account_lookup(c, a, &id), DB_NOTFOUND);
	a[10] ^= 1;
	ck_assert_int_eq(account_lookup(c, "", &id), DB_NOTFOUND);
	ck_assert_int_eq(id, -1);                                  /* untouched */
	ck_assert_int_eq(account_revoke(db, "alice"), DB_OK);
	ck_assert_int_eq(account_lookup(c, a, &id), DB_NOTFOUND);
	ck_assert_int_eq(account_lookup(c, b, &id), DB_OK);       /* bob keeps his */
	ck_assert_int_eq(id, idb);
	ck_assert_int_eq(account_revoke(db, "carol"), DB_NOTFOUND);
}
END_TEST

/* Only the token's SHA-256 is stored: the token's text is nowhere in the
 * database file. */
START_TEST(only_the_hash_is_stored)
{
	char t[ACCOUNT_TOKEN_LEN];
	unsigned char h[crypto_hash_sha256_BYTES];
	sqlite3 *raw;
	sqlite3_stmt *st;

	ck_assert_int_eq(account_add(db, "alice", t), DB_OK);
	crypto_hash_sha256(h, (const unsigned char *)t, strlen(t));
	ck_assert_int_eq(sqlite3_open_v2(T.path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(raw, "SELECT token_hash FROM accounts WHERE name = 'alice'",
					    -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_bytes(st, 0), sizeof h);
	ck_assert_mem_eq(sqlite3_column_blob(st, 0), h, sizeof h);
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_prepare_v2(raw, "SELECT count(*) FROM accounts WHERE "
					    "instr(CAST(token_hash AS TEXT), ?) OR instr(name, ?)", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, t + 4, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t + 4, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(raw);
}
END_TEST

static Suite *suite_account(void)
{
	Suite *s = suite_create("account");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tokens_are_fresh_and_well_formed);
	tcase_add_test(tc, lookup_and_revoke);
	tcase_add_test(tc, only_the_hash_is_stored);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_account)
