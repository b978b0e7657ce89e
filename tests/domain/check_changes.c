/* check_changes.c: the Mann-Whitney U test between two versions' key values
 * and the pairs of consecutive versions (domain/changes.c).  The p values
 * marked scipy are scipy.stats.mannwhitneyu (scipy 1.10.1, Debian 12) of
 * (to, from); the exact ones with ties, which scipy does not compute, are
 * checked against enumerating every split here. */
#include "check_util.h"

#include <math.h>

#include "domain/changes.h"

#define N_OF(a) ((int)(sizeof a / sizeof *a))

/* Runs the test and asserts it succeeded. */
static struct changes_test run(const double *from, int nf, const double *to, int nt)
{
	struct changes_test t;

	ck_assert_int_eq(changes_test(from, nf, to, nt, &t), 0);
	ck_assert_int_eq(t.n_from, nf);
	ck_assert_int_eq(t.n_to, nt);
	return t;
}

START_TEST(five_a_side_reach_one_percent)
{
	static const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	struct changes_test t = run(lo, 5, hi, 5);

	ck_assert(t.exact);
	ck_assert_double_eq_tol(t.p, 2.0 / 252, 1e-15);     /* scipy: 0.007936507936507936 */
	ck_assert_double_eq(t.u, 25);
	ck_assert(t.changed);
	t = run(hi, 5, lo, 5);
	ck_assert_double_eq_tol(t.p, 2.0 / 252, 1e-15);
	ck_assert_double_eq(t.u, 0);
	ck_assert(t.changed);
	ck_assert_double_eq(t.change_pct, -62.5);           /* 3 / 8 - 1 */
}
END_TEST

/* Below five a side: 4 and 5 cannot reach 0.01; 4 and 6 can, but a side of
 * 4 keys is not enough to report. */
START_TEST(four_a_side_is_not_a_change)
{
	static const double four[] = { 1, 2, 3, 4 }, five[] = { 6, 7, 8, 9, 10 },
		six[] = { 6, 7, 8, 9, 10, 11 };
	struct changes_test t = run(four, 4, five, 5);

	ck_assert_double_eq_tol(t.p, 2.0 / 126, 1e-15);
	ck_assert(!t.changed);
	t = run(four, 4, six, 6);
	ck_assert_double_eq_tol(t.p, 2.0 / 210, 1e-15);
	ck_assert(t.p < CHANGES_ALPHA);
	ck_assert(!t.changed);
}
END_TEST

START_TEST(scipy_exact_without_ties)
{
	static const double from[] = { 10.1, 11.3, 9.8, 10.7, 12.0, 10.4 };
	static const double to[] = { 11.9, 12.5, 13.1, 11.0, 12.8, 13.4, 12.2 };
	struct changes_test t = run(from, N_OF(from), to, N_OF(to));

	ck_assert(t.exact);
	ck_assert_double_eq(t.u, 39);
	ck_assert_double_eq_tol(t.p, 0.008158508158508158, 1e-14);
	ck_assert(t.changed);
	ck_assert_double_eq(t.median_from, 10.55);
	ck_assert_double_eq(t.median_to, 12.5);
	ck_assert_double_eq(t.change_pct, 18.5);            /* 12.5 / 10.55 = 1.18483 */
}
END_TEST

/* 47 keys with ties (values to 0.5 tok/s): the normal approximation. */
START_TEST(scipy_asymptotic_with_ties)
{
	static const double from[] = {
		98.5, 103.0, 98.5, 98.0, 94.5, 98.5, 106.5, 102.5, 106.0, 101.5, 102.5, 101.0,
		90.0, 105.0, 103.0, 103.0, 90.0, 89.5, 94.5, 97.0, 102.0, 99.5, 103.0, 96.0, 102.0,
	};
	static const double to[] = {
		106.5, 100.0, 114.5, 107.5, 111.0, 100.5, 99.5, 102.0, 103.5, 108.0, 105.5,
		101.5, 98.5, 101.0, 111.5, 99.0, 105.5, 106.5, 95.0, 104.5, 112.0, 92.0,
	};
	struct changes_test t = run(from, N_OF(from), to, N_OF(to));

	ck_assert(!t.exact);
	ck_assert_double_eq(t.u, 394);
	ck_assert_double_eq_tol(t.p, 0.011439174209172872, 1e-12);
	ck_assert(!t.changed);                              /* just above 0.01 */
}
END_TEST

/* The exact p with ties by enumerating all C(N, n_to) splits (N <= 16):
 * U of the to side counted pair by pair, the tails as changes.h says. */
static double brute_p(const double *from, int nf, const double *to, int nt, double *u_obs)
{
	double pooled[16], le = 0, ge = 0, all = 0;
	int N = nf + nt, i, j;
	unsigned mask;

	for (i = 0; i < N; i++)
		pooled[i] = i < nf ? from[i] : to[i - nf];
	*u_obs = -1;
	for (mask = 0; mask < (1u << N); mask++) {
		double u = 0;

		if (__builtin_popcount(mask) != nt)
			continue;
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				if ((mask >> i & 1) && !(mask >> j & 1))
					u += pooled[i] > pooled[j] ? 1 : pooled[i] == pooled[j] ? 0.5 : 0;
		if (mask == ((1u << N) - 1) - ((1u << nf) - 1)) /* the observed split */
			*u_obs = u;
		all++;
	}
	for (mask = 0; mask < (1u << N); mask++) {
		double u = 0;

		if (__builtin_popcount(mask) != nt)
			continue;
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				if ((mask >> i & 1) && !(mask >> j & 1))
					u += pooled[i] > pooled[j] ? 1 : pooled[i] == pooled[j] ? 0.5 : 0;
		le += u <= *u_obs;
		ge += u >= *u_obs;
	}
	return fmin(1, 2 * fmin(le, ge) / all);
}

START_TEST(exact_with_ties_matches_enumeration)
{
	static const double from[] = { 100, 101, 101, 102, 103, 103, 104 };
	static const double to[] = { 103, 104, 104, 105, 106, 106 };
	struct changes_test t = run(from, 7, to, 6);
	double u;

	/* enumerated in Python too: U 39, p 0.011655011655011656 */
	ck_assert(t.exact);
	ck_assert_double_eq(t.u, 39);
	ck_assert_double_eq_tol(t.p, 0.011655011655011656, 1e-14);
	ck_assert_double_eq_tol(brute_p(from, 7, to, 6, &u), t.p, 1e-14);
	ck_assert_double_eq(u, 39);
}
END_TEST

/* Random small samples drawn from few values (many ties), sides of 1 to 8:
 * the dynamic programme agrees with enumeration every time. */
START_TEST(exact_random_against_enumeration)
{
	unsigned long long s = 0x9e3779b97f4a7c15ull;
	int trial;

	for (trial = 0; trial < 300; trial++) {
		double from[8], to[8], u;
		int nf, nt, i;
		struct changes_test t;

		s = s * 6364136223846793005ull + 1442695040888963407ull;
		nf = 1 + (int)(s >> 33) % 8;
		nt = 1 + (int)(s >> 45) % 8;
		for (i = 0; i < nf + nt; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			*(i < nf ? &from[i] : &to[i - nf]) =
				100 + (double)((s >> 40) % 6) + (i >= nf) * (trial % 3);
		}
		t = run(from, nf, to, nt);
		ck_assert_msg(fabs(brute_p(from, nf, to, nt, &u) - t.p) < 1e-12,
			      "trial %d: %d vs %d keys", trial, nf, nt);
		ck_assert_double_eq(u, t.u);
	}
}
END_TEST

/* The issue's example: 8 keys near 100 tok/s on b6100, 8 near 120 on b6200:
 * one change of +20%; two versions at the same speed: none. */
START_TEST(issue_example)
{
	static const double b6100[] = { 97.2, 98.5, 99.1, 99.8, 100.2, 100.9, 101.5, 102.6 };
	static const double b6200[] = { 116.4, 118.2, 119.0, 119.7, 120.3, 121.1, 122.0, 123.5 };
	static const double same[] = { 97.5, 98.3, 99.4, 99.9, 100.1, 100.6, 101.9, 102.2 };
	struct changes_test t = run(b6100, 8, b6200, 8);

	ck_assert(t.changed);
	ck_assert_double_eq_tol(t.median_from, 100, 1e-12);
	ck_assert_double_eq_tol(t.median_to, 120, 1e-12);
	ck_assert_double_eq(t.change_pct, 20);
	ck_assert_double_eq(t.u, 64);
	ck_assert_double_eq_tol(t.p, 2.0 / 12870, 1e-15);   /* 2 / C(16, 8) */
	t = run(b6100, 8, same, 8);
	ck_assert(!t.changed);
	ck_assert(t.p > 0.5);
	ck_assert_double_eq(t.change_pct, 0);
}
END_TEST

/* change_pct is rounded to 0.1, half away from zero, both ways. */
START_TEST(change_pct_rounding)
{
	static const double hundred[] = { 100 }, up[] = { 123.46 }, down[] = { 87.64 };

	ck_assert_double_eq(run(hundred, 1, up, 1).change_pct, 23.5);
	ck_assert_double_eq(run(hundred, 1, down, 1).change_pct, -12.4);
	ck_assert(!run(hundred, 1, up, 1).changed);
}
END_TEST

/* Up to 40 keys together the p is exact (20 and 20 apart: 2 / C(40, 20));
 * from 41 the normal approximation, close to it where both are good. */
START_TEST(exact_cutoff)
{
	double lo[21], hi[21];
	struct changes_test t;
	int i;

	for (i = 0; i < 21; i++) {
		lo[i] = 50 + i;
		hi[i] = 80 + i;
	}
	t = run(lo, 20, hi, 20);
	ck_assert(t.exact);
	ck_assert_double_eq_tol(t.p, 2 / 137846528820.0, 1e-22);
	t = run(lo, 20, hi, 21);
	ck_assert(!t.exact);
	ck_assert(t.p < 1e-6 && t.changed);
	/* interleaved, U 210 of 400: at 40 keys the exact p is near the
	 * normal approximation's erfc(z / sqrt 2), z = (10 - 1/2) / sqrt(4100 / 3) */
	for (i = 0; i < 21; i++)
		hi[i] = 50.5 + i;
	t = run(lo, 20, hi, 20);
	ck_assert(t.exact);
	ck_assert_double_eq(t.u, 210);
	ck_assert_double_lt(fabs(t.p - erfc(9.5 / sqrt(4100.0 / 3) / sqrt(2))), 0.01);
}
END_TEST

START_TEST(bad_input)
{
	static const double v[] = { 1, 2 }, notnum[] = { 1, NAN };
	struct changes_test t = { .u = 123 };

	ck_assert_int_eq(changes_test(v, 0, v, 2, &t), -1);
	ck_assert_int_eq(changes_test(v, 2, v, 0, &t), -1);
	ck_assert_int_eq(changes_test(v, 2, notnum, 2, &t), -1);
	ck_assert_double_eq(t.u, 123);                      /* untouched */
	/* all equal: no spread, p 1 */
	t = run(v, 1, v, 1);
	ck_assert_double_eq(t.p, 1);
}
END_TEST

static const double near100[] = { 97.2, 98.5, 99.1, 99.8, 100.2, 100.9, 101.5, 102.6 };
static const double near120[] = { 116.4, 118.2, 119.0, 119.7, 120.3, 121.1, 122.0, 123.5 };
static const double near121[] = { 116.9, 118.0, 119.3, 119.9, 120.6, 121.4, 122.2, 123.1 };
static const double few[] = { 200, 201 };

/* Versions out of order, one too thin and one unparsable: sorted, the thin
 * and unparsable skipped over, each consecutive testable pair tested. */
START_TEST(find_consecutive_pairs)
{
	struct changes_version v[] = {
		{ "b6200", near120, 8, 0, 0 }, { "unknown", near100, 8, 0, 0 }, { "b6100", near100, 8, 0, 0 },
		{ "b6150", few, 2, 0, 0 }, { "b6300-abc", near121, 8, 0, 0 },
	};
	struct changes_pair out[5];
	long n = changes_find("llama.cpp", v, 5, out, 5, 0);

	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(v[0].version, "unknown");
	ck_assert_str_eq(v[1].version, "b6100");
	ck_assert_str_eq(v[2].version, "b6150");
	ck_assert_str_eq(v[out[0].from].version, "b6100");
	ck_assert_str_eq(v[out[0].to].version, "b6200");
	ck_assert(out[0].t.changed);
	ck_assert_double_eq(out[0].t.change_pct, 20);
	ck_assert_str_eq(v[out[1].from].version, "b6200");
	ck_assert_str_eq(v[out[1].to].version, "b6300-abc");
	ck_assert(!out[1].t.changed);
	/* room for one: the first pair only */
	ck_assert_int_eq(changes_find("llama.cpp", v, 5, out, 1, 0), 1);
	ck_assert_str_eq(v[out[0].to].version, "b6200");
}
END_TEST

START_TEST(find_skips_same_version_and_empty)
{
	struct changes_version v[] = { { "b6200", near100, 8, 0, 0 }, { "6200 (abc)", near120, 8, 0, 0 } };
	struct changes_version w[] = { { "0.7.0", near120, 8, 0, 0 }, { "v0.7.0rc1", near100, 8, 0, 0 } };
	struct changes_pair out[2];

	ck_assert_int_eq(changes_find("llama.cpp", v, 2, out, 2, 0), 0);
	ck_assert_int_eq(changes_find("llama.cpp", v, 0, out, 2, 0), 0);
	ck_assert_int_eq(changes_find("vllm", w, 2, out, 2, 0), 1);
	ck_assert_str_eq(w[out[0].from].version, "v0.7.0rc1");
	ck_assert(out[0].t.changed && out[0].t.change_pct == 20);
}
END_TEST

/* Issue 37, H8: five keys from two networks cannot put a change on
 * /changes when three are needed; and an invented build slipped in
 * between two real ones after the newer was seen needs twice the keys and
 * networks, so five keys on it neither invent a change nor hide the real
 * one between its neighbours. */
START_TEST(find_needs_networks_and_late_versions_twice)
{
	static const double near70[] = { 68.1, 69.0, 69.6, 70.2, 70.8, 71.5, 72.3, 73.0 };
	static const double five100[] = { 98.0, 99.0, 100.0, 101.0, 102.0 };
	struct changes_version v[] = {
		{ "b6100", near100, 8, 8, 1000 }, { "b6200", near70, 8, 2, 2000 },
	};
	struct changes_version w[] = {
		{ "b6100", near100, 8, 8, 1000 }, { "b6300", near70, 8, 8, 2000 },
		{ "b6200", five100, 5, 5, 3000 },
	};
	struct changes_pair out[3];

	ck_assert_int_eq(changes_find("llama.cpp", v, 2, out, 2, CHANGES_MIN_NETS), 0);
	v[1].nets = 3;
	ck_assert_int_eq(changes_find("llama.cpp", v, 2, out, 2, CHANGES_MIN_NETS), 1);
	ck_assert(out[0].t.changed);
	/* b6200 came after b6300: skipped, so b6100 -> b6300 (-30%) stands. */
	ck_assert_int_eq(changes_find("llama.cpp", w, 3, out, 3, CHANGES_MIN_NETS), 1);
	ck_assert_str_eq(w[out[0].from].version, "b6100");
	ck_assert_str_eq(w[out[0].to].version, "b6300");
	ck_assert(out[0].t.changed && out[0].t.change_pct < -25);
	/* Seen in order (w is sorted by version now), it is an ordinary one. */
	ck_assert_str_eq(w[1].version, "b6200");
	w[1].first_seen = 2000;
	w[2].first_seen = 3000;
	ck_assert_int_eq(changes_find("llama.cpp", w, 3, out, 3, CHANGES_MIN_NETS), 2);
}
END_TEST

static Suite *suite_changes(void)
{
	Suite *s = suite_create("changes");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, five_a_side_reach_one_percent);
	tcase_add_test(tc, four_a_side_is_not_a_change);
	tcase_add_test(tc, scipy_exact_without_ties);
	tcase_add_test(tc, scipy_asymptotic_with_ties);
	tcase_add_test(tc, exact_with_ties_matches_enumeration);
	tcase_add_test(tc, exact_random_against_enumeration);
	tcase_add_test(tc, issue_example);
	tcase_add_test(tc, change_pct_rounding);
	tcase_add_test(tc, exact_cutoff);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, find_consecutive_pairs);
	tcase_add_test(tc, find_skips_same_version_and_empty);
	tcase_add_test(tc, find_needs_networks_and_late_versions_twice);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_changes)
