/* check_sha256.c: server/util/sha256.c against FIPS 180-2's examples and libsodium. */
#include "check_util.h"
#include "util/sha256.h"

#include <sodium.h>

static void hex(const unsigned char d[32], char out[65])
{
	int i;

	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The examples of FIPS 180-2, appendix B (one block, two blocks). */
START_TEST(known_answers)
{
	static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	unsigned char d[32];
	char h[65];

	sha256_digest(d, "abc", 3);
	hex(d, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_digest(d, two, strlen(two));
	hex(d, h);
	ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	sha256_digest(d, "", 0);
	hex(d, h);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

/* Every length from 0 to 1,100 bytes (each way the padding can fall,
 * one to many blocks) and a few upload-sized buffers, at odd offsets:
 * the same digest as libsodium's. */
START_TEST(agrees_with_libsodium)
{
	static unsigned char buf[9001];
	unsigned char a[32], b[32];
	size_t n;

	ck_assert_int_ge(sodium_init(), 0);
	randombytes_buf(buf, sizeof buf);
	for (n = 0; n <= 1100; n++) {
		sha256_digest(a, buf + 1 + n % 7, n);
		sha256_portable(b, buf + 1 + n % 7, n);
		ck_assert_msg(!memcmp(a, b, 32), "length %zu", n);
	}
	for (n = 4000; n <= 9000; n += 997) {
		sha256_digest(a, buf, n);
		sha256_portable(b, buf, n);
		ck_assert_msg(!memcmp(a, b, 32), "length %zu", n);
	}
}
END_TEST

static Suite *suite_sha256(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_answers);
	tcase_add_test(tc, agrees_with_libsodium);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_sha256)
