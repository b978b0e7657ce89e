/* check_netkey.c: server/store/netkey.c: the network of an address as a
 * keyed hash (contract section 4): one hash per IPv4 /24 and IPv6 /48, an
 * IPv4-mapped address as its IPv4 one, another secret another hash, HMAC-
 * SHA-256 as libsodium computes it, and the secret's file made once, 0600. */
#include "check_util.h"
#include "store/netkey.h"

#include <arpa/inet.h>
#include <sodium.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct netkey key(unsigned char fill)
{
	struct netkey k;

	memset(k.k, fill, sizeof k.k);
	return k;
}

static void of(const struct netkey *k, const char *addr, char out[NETKEY_HEX])
{
	ck_assert_msg(netkey_of(k, addr, out) == 0, "%s", addr);
	ck_assert_uint_eq(strlen(out), NETKEY_HEX - 1);
}

START_TEST(one_hash_per_network)
{
	struct netkey k = key(7);
	char a[NETKEY_HEX], b[NETKEY_HEX];

	of(&k, "192.0.2.1", a);
	of(&k, "192.0.2.254", b);
	ck_assert_str_eq(a, b);                  /* one /24 */
	of(&k, "192.0.3.1", b);
	ck_assert_str_ne(a, b);                  /* the next /24 */
	of(&k, "::ffff:192.0.2.9", b);
	ck_assert_str_eq(a, b);                  /* IPv4-mapped: its IPv4 network */
	of(&k, "2001:db8:1::1", a);
	of(&k, "2001:db8:1:ffff:ffff::2", b);
	ck_assert_str_eq(a, b);                  /* one /48 */
	of(&k, "2001:db8:2::1", b);
	ck_assert_str_ne(a, b);                  /* the next /48 */
	ck_assert_int_eq(netkey_of(&k, "not an address", a), -1);
	ck_assert_str_eq(a, "");
	ck_assert_int_eq(netkey_of(&k, "/run/llm-speed.sock", a), -1);
}
END_TEST

/* The hash is HMAC-SHA-256 under the secret of the network's bytes (the
 * first three of an IPv4 address, six of an IPv6 one, with a family tag),
 * so it differs from one secret to another and names no address. */
START_TEST(keyed_by_the_secret)
{
	struct netkey k1 = key(1), k2 = key(2);
	char a[NETKEY_HEX], b[NETKEY_HEX];

	static const unsigned char msg[] = { 4, 198, 51, 100 };
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	char want[NETKEY_HEX];

	of(&k1, "198.51.100.7", a);
	of(&k2, "198.51.100.7", b);
	ck_assert_str_ne(a, b);
	crypto_auth_hmacsha256(mac, msg, sizeof msg, k1.k);
	sodium_bin2hex(want, sizeof want, mac, 16);
	ck_assert_str_eq(a, want);
}
END_TEST

START_TEST(secret_file_made_once_private)
{
	char dir[] = "/tmp/check_netkey_XXXXXX", db[300], file[320];
	struct netkey k1, k2;
	struct err e = ERR_INIT;
	struct stat s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/runs.db", dir);
	netkey_file(db, file, sizeof file);
	ck_assert_str_eq(file + strlen(dir), "/runs.db.netkey");
	ck_assert_int_eq(netkey_load(db, &k1, &e), 0);
	ck_assert_int_eq(stat(file, &s), 0);
	ck_assert_uint_eq(s.st_mode & 0777, 0600);
	ck_assert_int_eq(s.st_size, 32);
	ck_assert_int_eq(netkey_load(db, &k2, &e), 0);
	ck_assert(!memcmp(k1.k, k2.k, sizeof k1.k));   /* the same secret again */
	/* A secret of the wrong size is refused, with the reason. */
	ck_assert_int_eq(truncate(file, 5), 0);
	ck_assert_int_eq(netkey_load(db, &k2, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "netkey"));
	unlink(file);
	rmdir(dir);
}
END_TEST

static Suite *suite_netkey(void)
{
	Suite *s = suite_create("netkey");
	TCase *tc = tcase_create("core");

	if (sodium_init() < 0)
		abort();
	tcase_add_test(tc, one_hash_per_network);
	tcase_add_test(tc, keyed_by_the_secret);
	tcase_add_test(tc, secret_file_made_once_private);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_netkey)
