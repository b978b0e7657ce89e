/* check_outlier_stmt.c: server/store/outlier_stmt.c, the cluster tag (the
 * statement helpers run in every test of check_outlier.c and check_typical.c). */
#include "check_util.h"
#include "store/outlier_int.h"

/* A cluster's tag is never 0 (0 means "no tag" to the cache), the same
 * for the same cluster, and differs when any part does, or where one
 * part ends and the next begins. */
START_TEST(cluster_tags)
{
	unsigned t = outlier_cluster_tag("suite-v1", "sha256:aa", "3f9a", "mlx");

	ck_assert_uint_ne(t, 0);
	ck_assert_uint_eq(t, outlier_cluster_tag("suite-v1", "sha256:aa", "3f9a", "mlx"));
	ck_assert_uint_ne(t, outlier_cluster_tag("suite-v1", "sha256:aa", "3f9a", "vllm"));
	ck_assert_uint_ne(t, outlier_cluster_tag("suite-v2", "sha256:aa", "3f9a", "mlx"));
	ck_assert_uint_ne(outlier_cluster_tag("ab", "c", "d", "e"), outlier_cluster_tag("a", "bc", "d", "e"));
	ck_assert_uint_eq(outlier_cluster_tag(NULL, "c", "d", "e"), outlier_cluster_tag("", "c", "d", "e"));
}
END_TEST

static Suite *suite_outlier_stmt(void)
{
	Suite *s = suite_create("outlier_stmt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cluster_tags);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_outlier_stmt)
