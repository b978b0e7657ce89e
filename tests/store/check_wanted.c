/* check_wanted.c: server/store/wanted.c: asks counted once per visitor
 * (an IPv4 address, an IPv6 /64), a network's visitors and daily asks
 * bounded while the network cap is on, the networks that asked written
 * beside the asks, trimming that keeps the rows the most networks asked
 * for, and a list of pages that exist, by their names. */
#include "check_stats.h"

#include "store/netcap.h"
#include "store/wanted.h"

static void setup(void)
{
	stats_setup();
	wanted_reset();
	netcap_configure(3, 0);
}

static void teardown(void)
{
	netcap_configure(0, 0);
	wanted_reset();
	stats_teardown();
}

static int flush_fn(struct dbconn *w, void *arg)
{
	(void)arg;
	return wanted_flush(w);
}

static void flush(void)
{
	ck_assert_int_eq(in_writer(flush_fn, NULL), DB_OK);
}

/* The stored asks and networks of model on hw (0, 0 when no row). */
static void stored(const char *model, const char *hw, long long *asks, long long *nets)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st;

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(st = db_stmt(c, "SELECT asks, networks FROM wanted WHERE "
					  "suite_version = 'suite-v1' AND model_slug = ?1 AND hw_slug = ?2"));
	db_bind_text(st, 1, model);
	db_bind_text(st, 2, hw);
	*asks = *nets = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*asks = sqlite3_column_int64(st, 0);
		*nets = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
}

START_TEST(test_a_visitor_is_an_address_or_a_slash_64)
{
	static const char *const asks[] = {
		"2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:1:1:ffff::9",   /* one /64 */
		"192.0.2.1", "::ffff:192.0.2.1",                               /* one address */
		"192.0.2.2",
	};
	long long n, nets;
	size_t i;

	for (i = 0; i < sizeof asks / sizeof *asks; i++)
		wanted_note(asks[i], "suite-v1", "qwen2-5-7b", "m3-ultra");
	flush();
	stored("qwen2-5-7b", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 3);                  /* the /64, 192.0.2.1, 192.0.2.2 */
	ck_assert_int_eq(nets, 2);               /* 2001:db8:1::/48, 192.0.2.0/24 */
	wanted_note("2001:db8:1:1::7", "suite-v1", "qwen2-5-7b", "m3-ultra");
	ck_assert(!wanted_pending());            /* asked today already */
}
END_TEST

START_TEST(test_a_network_counts_three_visitors_and_fifty_asks)
{
	char addr[64], model[32];
	long long n, nets;
	int i;

	for (i = 0; i < 10; i++) {             /* ten /64s of one /48 */
		snprintf(addr, sizeof addr, "2001:db8:7:%x::1", i + 1);
		wanted_note(addr, "suite-v1", "qwen2-5-7b", "m3-ultra");
	}
	flush();
	stored("qwen2-5-7b", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(nets, 1);
	for (i = 0; i < 60; i++) {             /* one address, 60 rows: 47 more count */
		snprintf(model, sizeof model, "model-%d", i);
		wanted_note("2001:db8:7:1::1", "suite-v1", model, "m3-ultra");
	}
	flush();
	stored("model-46", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 1);
	stored("model-47", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 0);
	wanted_note("2001:db8:8::1", "suite-v1", "model-47", "m3-ultra");  /* another network */
	flush();
	stored("model-47", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 1);
	/* With the cap lifted, only the visitor rule is left. */
	netcap_configure(0, 0);
	wanted_note("2001:db8:7:1::1", "suite-v1", "model-59", "m3-ultra");
	flush();
	stored("model-59", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 1);
}
END_TEST

static int fill_fn(struct dbconn *w, void *arg)
{
	sqlite3_stmt *st = db_stmt(w, "INSERT INTO wanted(suite_version, model_slug, hw_slug, asks, "
				      "last_at, networks) VALUES ('suite-v1', ?1, 'm3-ultra', 10, ?2, 1)");
	char model[32];
	int i, rc = DB_OK;

	(void)arg;
	for (i = 0; st && i < WANTED_ROWS_MAX && rc == DB_OK; i++) {
		snprintf(model, sizeof model, "flood-%d", i);
		db_bind_text(st, 1, model);
		sqlite3_bind_int64(st, 2, 2000000000LL + i);    /* newer than today */
		rc = db_step_done(st);
	}
	return st ? rc : DB_ERR;
}

/* One network's ten asks each on 2,000 rows, then a row three networks
 * asked for three times: the full table lets a one-network row go, not
 * the new one (by asks alone, it would have left first). */
START_TEST(test_trimming_keeps_the_rows_most_networks_asked_for)
{
	long long n, nets;

	ck_assert_int_eq(in_writer(fill_fn, NULL), DB_OK);
	wanted_note("192.0.2.1", "suite-v1", "qwen2-5-7b", "m3-ultra");
	wanted_note("198.51.100.1", "suite-v1", "qwen2-5-7b", "m3-ultra");
	wanted_note("203.0.113.1", "suite-v1", "qwen2-5-7b", "m3-ultra");
	flush();
	stored("qwen2-5-7b", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(nets, 3);
	stored("flood-0", "m3-ultra", &n, &nets);   /* the oldest of the fewest networks */
	ck_assert_int_eq(n, 0);
	stored("flood-1", "m3-ultra", &n, &nets);
	ck_assert_int_eq(n, 10);
}
END_TEST

/* Rows whose model or hardware has no page are left out of the list; a
 * reference model and hardware without runs are listed by their names. */
START_TEST(test_the_list_holds_pages_that_exist_by_their_names)
{
	struct dbconn *c;
	json_t *rows = NULL, *row;

	netcap_configure(0, 0);
	wanted_note("192.0.2.1", "suite-v1", "qwen2-5-7b", "m3-ultra");
	wanted_note("192.0.2.1", "suite-v1", "qwen2-5-7b", "visit-spam-example-com");
	wanted_note("192.0.2.1", "suite-v1", "no-such-model", "m3-ultra");
	flush();
	ck_assert_ptr_nonnull(c = db_reader(db));
	ck_assert_int_eq(wanted_list(c, ref, "suite-v1", WANTED_LIST_MAX, &rows), DB_OK);
	ck_assert_uint_eq(json_array_size(rows), 1);
	row = json_array_get(rows, 0);
	ck_assert_str_eq(json_string_value(json_object_get(row, "hw_slug")), "m3-ultra");
	ck_assert_str_eq(json_string_value(json_object_get(row, "hw_name")),
			 ceiling_hw(ref, "m3-ultra")->name);
	ck_assert_str_ne(json_string_value(json_object_get(row, "model_name")), "qwen2-5-7b");
	ck_assert_int_eq(json_integer_value(json_object_get(row, "networks")), 1);
	json_decref(rows);
}
END_TEST

static Suite *suite_wanted(void)
{
	Suite *s = suite_create("wanted");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_a_visitor_is_an_address_or_a_slash_64);
	tcase_add_test(tc, test_a_network_counts_three_visitors_and_fifty_asks);
	tcase_add_test(tc, test_trimming_keeps_the_rows_most_networks_asked_for);
	tcase_add_test(tc, test_the_list_holds_pages_that_exist_by_their_names);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_wanted)
