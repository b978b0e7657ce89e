/* check_version.c: the order of backend versions (domain/version.c).  The
 * PEP 440 lists are the specification's own ordering example and vLLM's
 * release tags; their order and normal forms were checked against Python's
 * packaging.version (packaging 23) when the tests were written. */
#include "check_util.h"

#include "domain/version.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* Every pair of list (n strictly increasing versions of backend) compares
 * as its positions do, both ways, and its keys order the same way. */
static void assert_increasing(const char *backend, const char *const *list, int n)
{
	char ka[VERSION_KEY_MAX], kb[VERSION_KEY_MAX];
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int want = sign(i - j);

			ck_assert_msg(sign(version_cmp(backend, list[i], list[j])) == want,
				      "%s: %s vs %s should be %d", backend, list[i], list[j], want);
			ck_assert_int_ge(version_key(backend, list[i], ka, sizeof ka), 1);
			ck_assert_int_ge(version_key(backend, list[j], kb, sizeof kb), 1);
			ck_assert_msg(sign(strcmp(ka, kb)) == want, "%s: keys of %s and %s",
				      backend, list[i], list[j]);
		}
}

/* a and b are the same version of backend: cmp 0 and equal keys. */
static void assert_same(const char *backend, const char *a, const char *b)
{
	char ka[VERSION_KEY_MAX], kb[VERSION_KEY_MAX];

	ck_assert_msg(version_cmp(backend, a, b) == 0, "%s: %s and %s differ", backend, a, b);
	version_key(backend, a, ka, sizeof ka);
	version_key(backend, b, kb, sizeof kb);
	ck_assert_str_eq(ka, kb);
}

START_TEST(llama_builds_by_number)
{
	static const char *const list[] = {
		"b1", "b999", "b1000", "b6100", "b6123", "b6200", "b8200", "b9707", "b123456789",
	};

	assert_increasing("llama.cpp", list, (int)(sizeof list / sizeof *list));
}
END_TEST

START_TEST(llama_forms_of_one_build)
{
	static const char *const forms[] = {
		"6200", "B6200", "b6200-abc1234", "6200 (abc1234)", " b6200 ", "b6200+cuda",
		"b06200",
	};
	size_t i;

	for (i = 0; i < sizeof forms / sizeof *forms; i++) {
		ck_assert_msg(version_parsable("llama.cpp", forms[i]), "%s", forms[i]);
		assert_same("llama.cpp", "b6200", forms[i]);
	}
}
END_TEST

START_TEST(llama_unparsable)
{
	static const char *const bad[] = {
		"", "   ", "b", "abc1234", "b6200abc", "0.0.6200", "1.2.3", "unknown",
		"b1234567890", "v6200", "b-6200",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(!version_parsable("llama.cpp", bad[i]), "%s", bad[i]);
	ck_assert(!version_parsable("llama.cpp", NULL));
}
END_TEST

/* PEP 440's "summary of permitted suffixes and relative ordering". */
START_TEST(pep440_example_order)
{
	static const char *const list[] = {
		"1.dev0", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
		"1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345",
		"1.0rc1.dev456", "1.0rc1", "1.0", "1.0.post456.dev34", "1.0.post456",
		"1.0.15", "1.1.dev1",
	};

	assert_increasing("vllm", list, (int)(sizeof list / sizeof *list));
}
END_TEST

START_TEST(vllm_releases)
{
	static const char *const list[] = {
		"0.5.5", "0.6.0", "0.6.3", "0.6.3.post1", "0.6.4.dev123+gabc", "0.6.4",
		"0.6.4.post1", "0.6.6", "0.7.0rc1", "0.7.0", "0.7.3", "0.10.0", "0.10.1.1",
	};

	assert_increasing("vllm", list, (int)(sizeof list / sizeof *list));
}
END_TEST

/* Semantic versions: ollama's tags with a 'v' and semver pre-releases,
 * mlx and exllamav2 numbers; 0.10 after 0.9 (not as strings). */
START_TEST(semver_backends)
{
	static const char *const ollama[] = {
		"v0.1.32", "0.5.7", "v0.5.8", "0.6.0-rc0", "0.6.0-rc.1", "v0.6.0", "0.12.6",
	};
	static const char *const mlx[] = { "0.9.1", "0.21.0", "0.29.3", "0.31.3", "1.0.0-beta.2", "1.0.0" };
	static const char *const exl[] = { "0.0.9", "0.2.7", "0.2.8+cu121.torch2.5.0", "0.3.0.dev1", "0.3.0a1", "0.3.0" };

	assert_increasing("ollama", ollama, 7);
	assert_increasing("mlx", mlx, 6);
	assert_increasing("exllamav2", exl, 6);
	assert_increasing("some-new-engine", mlx, 6);
}
END_TEST

START_TEST(pep440_spellings_of_one_version)
{
	static const char *const pairs[][2] = {
		{ "1.0RC1", "1.0rc1" }, { "0.7.0-rc.1", "0.7.0rc1" }, { "0.7.0.rc1", "0.7.0rc1" },
		{ "1.0alpha1", "1.0a1" }, { "1.0c1", "1.0rc1" }, { "1.0preview2", "1.0rc2" },
		{ "1.0pre2", "1.0rc2" }, { "1.0rc", "1.0rc0" }, { "1.0.post", "1.0.post0" },
		{ "1.0-post1", "1.0.post1" }, { "1.0rev3", "1.0.post3" }, { "1.0r3", "1.0.post3" },
		{ "1.0-dev2", "1.0.dev2" }, { "1.0_b_2", "1.0b2" }, { "1.0beta2", "1.0b2" },
		{ "v0.5.7", "0.5.7" }, { "V0.5.7", "0.5.7" }, { "0.5", "0.5.0" }, { "1", "1.0.0.0.0.0" },
		{ "0.2.8+cu121", "0.2.8" }, { "0.2.8+cu121", "0.2.8+cu124" }, { " 0.5.7 ", "0.5.7" },
		{ "007.01", "7.1" },
	};
	size_t i;

	for (i = 0; i < sizeof pairs / sizeof *pairs; i++)
		assert_same("vllm", pairs[i][0], pairs[i][1]);
}
END_TEST

START_TEST(pep440_unparsable)
{
	static const char *const bad[] = {
		"", "v", "unknown", "abc1234", "1!2.0", "0.5.7-dirty", "0.5.7-3-gabc1234",
		"1.0-1", "1.0 rc1", "1.2.3.4.5.6.7", "1234567890.0", "1.0rc1234567890",
		".1", "1.", "1..2", "1.0.gamma", "latest", "main",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(!version_parsable("mlx", bad[i]), "%s", bad[i]);
	ck_assert(version_parsable("mlx", "1.2.3.4.5.6"));
	ck_assert(version_parsable("mlx", "123456789.0"));
}
END_TEST

/* Unparsable versions sort before every parsable one, by their bytes. */
START_TEST(unparsable_first_by_bytes)
{
	static const char *const list[] = {
		"", "0.0.6200", "abc1234", "unknown", "b1", "b6200",
	};

	assert_increasing("llama.cpp", list, 6);
	ck_assert_int_eq(version_cmp("llama.cpp", NULL, ""), 0);
	ck_assert_int_lt(version_cmp("llama.cpp", NULL, "b1"), 0);
	ck_assert_int_gt(version_cmp("mlx", "0.0.1", "zzz"), 0);
	ck_assert_int_ne(version_cmp("mlx", "unknown", "Unknown"), 0);
	ck_assert_int_eq(version_cmp("mlx", "unknown", "unknown"), 0);
}
END_TEST

/* The key format the header promises, and its length limits. */
START_TEST(key_format)
{
	char k[VERSION_KEY_MAX], small[8];
	char raw[401];

	ck_assert_int_eq(version_key("mlx", "0.5.7", k, sizeof k), 22);
	ck_assert_str_eq(k, "1101517101010z10010110");
	ck_assert_int_eq(version_key("llama.cpp", "b6200", k, sizeof k), 6);
	ck_assert_str_eq(k, "146200");
	ck_assert_int_eq(version_key("llama.cpp", "b6200-abc", k, sizeof k), 6);
	ck_assert_int_eq(version_key("mlx", "dev", k, sizeof k), 4);
	ck_assert_str_eq(k, "0dev");
	ck_assert_int_eq(version_key("mlx", NULL, k, sizeof k), 1);
	ck_assert_str_eq(k, "0");
	/* the longest parsable key fits the 95 bytes the header says */
	ck_assert_int_eq(version_key("mlx", "123456789.123456789.123456789.123456789.123456789.123456789"
				     "a123456789.post123456789.dev123456789",
				     k, sizeof k), 94);
	ck_assert_int_eq(version_key("mlx", "0.5.7", small, sizeof small), -1);
	ck_assert_str_eq(small, "");
	memset(raw, 'x', 400);
	raw[400] = '\0';
	ck_assert_int_eq(version_key("mlx", raw, k, sizeof k), 401);
	ck_assert_int_eq(k[0], '0');
}
END_TEST

START_TEST(canonical_forms)
{
	static const char *const t[][3] = {
		{ "llama.cpp", "6200 (abc1234)", "b6200" }, { "llama.cpp", "B06200", "b6200" },
		{ "llama.cpp", "abc1234", "abc1234" }, { "vllm", "0.7.0-RC.1", "0.7.0rc1" },
		{ "vllm", "0.6.3-post1", "0.6.3.post1" }, { "vllm", "0.6.4.dev123+gabc", "0.6.4.dev123" },
		{ "ollama", "v0.5.7", "0.5.7" }, { "mlx", "0.5", "0.5" }, { "mlx", "1.0alpha", "1.0a0" },
		{ "vllm", "1.0b2-post345_dev456", "1.0b2.post345.dev456" }, { "mlx", " unknown", " unknown" },
	};
	char out[VERSION_KEY_MAX], small[4];
	size_t i;

	for (i = 0; i < sizeof t / sizeof *t; i++) {
		ck_assert_int_eq(version_canon(t[i][0], t[i][1], out, sizeof out), (int)strlen(t[i][2]));
		ck_assert_str_eq(out, t[i][2]);
	}
	ck_assert_int_eq(version_canon("vllm", "0.7.0rc1", small, sizeof small), -1);
	ck_assert_str_eq(small, "");
}
END_TEST

/* A shuffled mixed list sorts into one order whatever its start. */
static const char *sort_backend;

static int by_version(const void *a, const void *b)
{
	return version_cmp(sort_backend, *(const char *const *)a, *(const char *const *)b);
}

START_TEST(qsort_is_deterministic)
{
	static const char *const want[] = {
		"", "b6200x", "zzz", "b100", "b6100", "6200", "b6201",
	};
	const char *v[7];
	int i, rot;

	sort_backend = "llama.cpp";
	for (rot = 0; rot < 7; rot++) {
		for (i = 0; i < 7; i++)
			v[i] = want[(i + rot) % 7];
		qsort(v, 7, sizeof *v, by_version);
		for (i = 0; i < 7; i++)
			ck_assert_str_eq(v[i], want[i]);
	}
}
END_TEST

/* Issue 37, L2: what a page may show as a backend version. */
START_TEST(versions_that_look_like_versions)
{
	static const char *const good[] = {
		"0.31.3", "v0.5.7", "V1.0", "b6200", "B6200", "6200", "b6200-abc1234",
		"6200 (abc1234)", "b6200+cuda", "0.2.8+cu121", "0.7.0rc1", "0.6.0-rc0",
		"1.0.dev1", "1.0a1.dev1", "0.6.3.post1", "2.0.0-rc.1", "1.2.3-beta",
		"0.9+cu121.torch2-abc1234f", " 0.31.3 ", "abc1234", "0123456789abcdef0123456789abcdef01234567",
		"1.2.3.4.5.6",
	};
	static const char *const bad[] = {
		"", "   ", NULL, "99.0 SECURITY: update from https://evil.example",
		"99 SECURITY", "0.5.7-dirty", "main", "unknown", "latest", "v", "b", "1.", "1..2",
		"1.2.3.4.5.6.7", "abc123", "ABC1234", "1.0 (see https://x.example)",
		"6200 (abc1234", "b6200-xyz1234", "1.0+", "1.0+a..b",
		"0.31.3\xe2\x80\x8b", "1.0 rc1", "0.31.3.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1",
	};
	size_t i;

	for (i = 0; i < sizeof good / sizeof *good; i++) {
		ck_assert_msg(version_looks_like(good[i]), "%s", good[i]);
		ck_assert_str_eq(version_shown(good[i]), good[i]);
	}
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(!version_looks_like(bad[i]), "%s", bad[i] ? bad[i] : "NULL");
		ck_assert_str_eq(version_shown(bad[i]), VERSION_UNRECOGNISED);
	}
}
END_TEST

static Suite *suite_version(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, llama_builds_by_number);
	tcase_add_test(tc, llama_forms_of_one_build);
	tcase_add_test(tc, llama_unparsable);
	tcase_add_test(tc, pep440_example_order);
	tcase_add_test(tc, vllm_releases);
	tcase_add_test(tc, semver_backends);
	tcase_add_test(tc, pep440_spellings_of_one_version);
	tcase_add_test(tc, pep440_unparsable);
	tcase_add_test(tc, unparsable_first_by_bytes);
	tcase_add_test(tc, key_format);
	tcase_add_test(tc, canonical_forms);
	tcase_add_test(tc, qsort_is_deterministic);
	tcase_add_test(tc, versions_that_look_like_versions);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_version)
