/* check_versions.c: server/store/versions.c and versions_read.c: the
 * per-version figures of random runs against an exact recomputation from
 * scratch (each key's median, the median and quartiles over keys), raw
 * strings of one version kept together, flagged runs left out, a change
 * found and taken down again, and the version chart in version order. */
#include "check_stats.h"

#include "store/versions.h"

static void setup(void)
{
	stats_setup();
}

static void teardown(void)
{
	stats_teardown();
}

static const char sql_put[] =
	"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, model_quant, "
	"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, created_at, "
	"received_at, key_thumbprint, alg, payload, jws, jws_sha256, outlier) "
	"VALUES (?1, 'suite-v1', 'M', 'm-slug', ?2, 'Q4_K_M', 'Acc', 'rtx-4090', 'slug:rtx-4090', "
	"'llama.cpp', ?3, ?4, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', ?5, 'EdDSA', '{}', "
	"x'00', randomblob(32), ?6)";

struct vrun {
	char id[16], key[16], ver[24];
	const char *digest;
	double x;
	int outlier;
};

static int put_fn(struct dbconn *w, void *arg)
{
	const struct vrun *r = arg;
	sqlite3_stmt *st = db_stmt(w, sql_put);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, r->id);
	db_bind_text(st, 2, r->digest);
	db_bind_text(st, 3, r->ver);
	sqlite3_bind_double(st, 4, r->x);
	db_bind_text(st, 5, r->key);
	sqlite3_bind_int(st, 6, r->outlier);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

static int pass_fn(struct dbconn *w, void *arg)
{
	int left;
	int rc = versions_pass(w, 3, &left, NULL);     /* small passes: several are needed */

	*(int *)arg = left;
	return rc;
}

static void drain(void)
{
	int left = 1, guard = 0;

	while (left && guard++ < 1000)
		ck_assert_int_eq(in_writer(pass_fn, &left), DB_OK);
	ck_assert_int_eq(left, 0);
}

/* The canonical build of a raw version string of the test. */
static int build_of(const char *v)
{
	return atoi(v[0] == 'b' ? v + 1 : v);
}

START_TEST(test_figures_match_an_exact_recount)
{
	static const char *const raws[] = { "b6100", "6100", "b6100-abc1234", "b6200", "b6300 (x)" };
	static const char *const digests[] = { D1, D2 };
	struct vrun runs[400];
	unsigned seed = 12345;
	int n = 0, i, d, b, k, j;
	sqlite3 *h;

	for (i = 0; i < 400; i++) {
		struct vrun *r = &runs[n++];

		seed = seed * 1103515245 + 12345;
		snprintf(r->id, sizeof r->id, "r_%011d", i);
		snprintf(r->key, sizeof r->key, "k%d", (seed >> 8) % 23);
		snprintf(r->ver, sizeof r->ver, "%s", raws[(seed >> 16) % 5]);
		r->digest = digests[(seed >> 20) % 2];
		r->x = 80 + (seed >> 4) % 4000 / 100.0;
		r->outlier = (seed >> 24) % 17 == 0;
		ck_assert_int_eq(in_writer(put_fn, r), DB_OK);
		if (i % 97 == 0)
			drain();    /* passes between uploads, as the refresh thread runs them */
	}
	drain();
	h = raw();
	for (d = 0; d < 2; d++)
		for (b = 6100; b <= 6300; b += 100) {
			double kv[64], xs[400];
			int nk = 0, nruns = 0;
			const char *args[2] = { digests[d], NULL };
			char ver[16];

			for (k = 0; k < 23; k++) {
				int nx = 0;
				char key[16];

				snprintf(key, sizeof key, "k%d", k);
				for (j = 0; j < n; j++)
					if (runs[j].digest == digests[d] && !runs[j].outlier &&
					    build_of(runs[j].ver) == b && !strcmp(runs[j].key, key))
						xs[nx++] = runs[j].x;
				if (nx)
					kv[nk++] = median(xs, nx);
				nruns += nx;
			}
			snprintf(ver, sizeof ver, "b%d", b);
			args[1] = ver;
			if (!nk) {
				ck_assert_int_eq((int)q1(h, "SELECT count(*) FROM combo_versions WHERE "
					"model_digest = ?1 AND version = ?2", args, 2, NULL, 0), 0);
				continue;
			}
			qsort(kv, (size_t)nk, sizeof *kv, dcmp);
#define GET(col) q1(h, "SELECT " col " FROM combo_versions WHERE model_digest = ?1 AND version = ?2", args, 2, NULL, 0)
			ck_assert_int_eq((int)GET("keys"), nk);
			ck_assert_int_eq((int)GET("runs"), nruns);
			ck_assert_double_eq_tol(GET("med"), quant_of(kv, nk, 0.5), 1e-9);
			ck_assert_double_eq_tol(GET("p25"), quant_of(kv, nk, 0.25), 1e-9);
			ck_assert_double_eq_tol(GET("p75"), quant_of(kv, nk, 0.75), 1e-9);
#undef GET
		}
	/* One row per version, however it was spelled. */
	ck_assert_int_le((int)q1(h, "SELECT count(*) FROM combo_versions", NULL, 0, NULL, 0), 6);
	ck_assert_int_eq((int)q1(h, "SELECT count(*) FROM version_dirty", NULL, 0, NULL, 0), 0);
	sqlite3_close(h);
}
END_TEST

/* 8 keys at 100 and 8 at 120 (plus thin b6150 between): one change. */
START_TEST(test_a_change_is_found_and_taken_down)
{
	struct vrun r = { .digest = D1 };
	struct dbconn *c;
	json_t *a, *s, *pts;
	sqlite3 *h;
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(r.id, sizeof r.id, "r_a%010d", i);
		snprintf(r.key, sizeof r.key, "a%d", i);
		snprintf(r.ver, sizeof r.ver, "b6100");
		r.x = 100 + i * 0.3;
		ck_assert_int_eq(in_writer(put_fn, &r), DB_OK);
		snprintf(r.id, sizeof r.id, "r_b%010d", i);
		snprintf(r.ver, sizeof r.ver, "b6200");
		r.x = 120 + i * 0.3;
		ck_assert_int_eq(in_writer(put_fn, &r), DB_OK);
	}
	snprintf(r.id, sizeof r.id, "r_c%010d", 0);
	snprintf(r.ver, sizeof r.ver, "b6150");
	r.x = 10;
	ck_assert_int_eq(in_writer(put_fn, &r), DB_OK);
	drain();
	ck_assert_ptr_nonnull(c = db_reader(db));
	ck_assert_int_eq(versions_changes(c, S1, NULL, NULL, 10, &a), DB_OK);
	ck_assert_int_eq(json_array_size(a), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "from_version")), "b6100");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "to_version")), "b6200");
	ck_assert_double_eq_tol(json_number_value(json_object_get(json_array_get(a, 0), "change_pct")), 19.8, 0.01);   /* (121.05 / 101.05 - 1) x 100 */
	json_decref(a);
	ck_assert_int_eq(versions_changes(c, S1, "mlx", NULL, 10, &a), DB_OK);
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
	/* The chart: versions in order, the thin one too. */
	ck_assert_ptr_nonnull(s = versions_series(c, S1, "m-slug", "rtx-4090"));
	ck_assert_int_eq(json_array_size(s), 1);
	pts = json_object_get(json_array_get(s, 0), "points");
	ck_assert_int_eq(json_array_size(pts), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(pts, 0), "version")), "b6100");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(pts, 1), "version")), "b6150");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(pts, 2), "version")), "b6200");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(pts, 2), "keys")), 8);
	json_decref(s);
	/* b6200's runs flagged: it is no longer testable, and the change goes. */
	h = raw();
	ck_assert_int_eq(sqlite3_exec(h, "UPDATE runs SET outlier = 1 WHERE id LIKE 'r_b%' AND id < 'r_b0000000004'",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	drain();
	ck_assert_int_eq(versions_changes(c, S1, NULL, NULL, 10, &a), DB_OK);
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
}
END_TEST

static Suite *suite_versions(void)
{
	Suite *s = suite_create("versions");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_figures_match_an_exact_recount);
	tcase_add_test(t, test_a_change_is_found_and_taken_down);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_versions)
