/* changes.h: whether a combination's decode speed changed between two
 * consecutive backend versions (issue 26, /changes).
 *
 * The rule (stated on /methodology): each side is one value per signing
 * key (the key's own median decode tok/s on that version, so one
 * submitter's hundred uploads weigh as one).  Two consecutive versions
 * each with at least CHANGES_MIN_KEYS keys are compared by the two-sided
 * Mann-Whitney U test; a change is reported when p < CHANGES_ALPHA.
 *
 * Five a side is the least that can reach p < 0.01: with 5 and 5 keys the
 * smallest two-sided p is 2 / C(10, 5) = 2/252 = 0.0079 (4 and 5: 2/126 =
 * 0.016).  (4 and 6 could reach 2/210 = 0.0095, but the issue asks for 5
 * a side, and a side of 4 is too easily one household's machines.)
 *
 * p is exact when the two sides hold at most CHANGES_EXACT_MAX keys
 * together: the distribution of U over every way of splitting the pooled
 * values into two sides of these sizes, ties kept as they are (midranks),
 * counted by dynamic programming over the groups of tied values.  Above
 * that, the normal approximation with the tie correction of the variance
 * and a continuity correction of 1/2 (scipy.stats.mannwhitneyu's
 * "asymptotic" method with use_continuity=True).  Both are two-sided:
 * twice the smaller tail, at most 1. */
#ifndef LLMS_CHANGES_H
#define LLMS_CHANGES_H

#include <stddef.h>

#define CHANGES_MIN_KEYS 5
/* ...from at least this many networks (issue 37), unless the caller lifts
 * the network minimums (the network cap lifted, store/netcap.h). */
#define CHANGES_MIN_NETS 3
#define CHANGES_ALPHA 0.01
#define CHANGES_EXACT_MAX 40    /* keys on both sides together */

struct changes_test {
	int n_from, n_to;              /* keys on each side */
	double median_from, median_to; /* median over keys, exact (mean of the middle two) */
	double u;          /* U of the "to" side: pairs (from, to) with to > from, ties half */
	double p;          /* two-sided p */
	int exact;         /* 1: p from the exact distribution; 0: normal approximation */
	double change_pct; /* (median_to / median_from - 1) x 100, rounded to 0.1 */
	int changed;       /* both sides >= CHANGES_MIN_KEYS and p < CHANGES_ALPHA */
};

/* Tests from[0..n_from) against to[0..n_to) (one finite value per key,
 * tok/s > 0; the arrays are not changed) and fills out.  Returns 0, or -1
 * when a side is empty, a value is not finite, or memory ran out (out then
 * untouched).  Cost: O(N log N), and for an exact p at most
 * O(N x n x N^2) small steps with N <= CHANGES_EXACT_MAX. */
int changes_test(const double *from, int n_from, const double *to, int n_to,
		 struct changes_test *out);

/* One version of one combination: its key values (see above). */
struct changes_version {
	const char *version;     /* as stored; group equal version_key()s first */
	const double *values;    /* one per signing key */
	int n;
	int nets;                /* networks among those keys */
	long long first_seen;    /* its first counted run, seconds since the epoch */
};

/* One tested pair of consecutive versions: indexes into the sorted array. */
struct changes_pair {
	size_t from, to;
	struct changes_test t;
};

/* Sorts v[0..n) by version (version_cmp of backend; the caller's array is
 * reordered), then tests each pair of consecutive testable versions:
 * versions that are parsable and have at least CHANGES_MIN_KEYS keys from
 * min_nets networks (0: no minimum), thinner or unparsable ones skipped
 * over (b6100 with 8 keys, b6150 with 2, b6200 with 9: b6100 is tested
 * against b6200).  A version that sorts between two others but was first
 * seen after a newer one (an invented build slipped in between) is tested
 * only with twice those keys and networks.  Two entries of the same
 * version are not tested against each other.  Writes at most cap pairs to
 * out in version order, each with t.changed saying whether it is a change;
 * returns how many were written (n - 1 at most), or -1 when memory ran out. */
long changes_find(const char *backend, struct changes_version *v, size_t n,
		  struct changes_pair *out, size_t cap, int min_nets);

#endif
