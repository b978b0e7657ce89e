/* netkey.c: an upload's network as a keyed hash (netkey.h). */
#include "store/netkey.h"

#include <arpa/inet.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "util/fileio.h"
#include "util/log.h"

void netkey_file(const char *db_path, char *out, size_t n)
{
	snprintf(out, n, "%s.netkey", db_path);
}

int netkey_load(const char *db_path, struct netkey *k, struct err *err)
{
	char path[4096];
	size_t got = 0;
	int rc;

	netkey_file(db_path, path, sizeof path);
	if ((rc = fileio_read_private(path, k->k, sizeof k->k, &got, err)) < 0)
		return -1;
	if (rc == 1) {
		randombytes_buf(k->k, sizeof k->k);
		if (fileio_write_private(path, k->k, sizeof k->k, err) < 0)
			return -1;
		log_info("created the network key %s", path);
		return 0;
	}
	if (got != sizeof k->k) {
		err_internal(err, "%s is not a network key (32 bytes); restore it from the backup, "
			     "or remove it to start counting networks afresh", path);
		return -1;
	}
	return 0;
}

size_t netkey_prefix(const char *addr, int host, unsigned char out[NETKEY_PREFIX_MAX])
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	unsigned char a[16];
	size_t n4 = host ? 4 : 3, n6 = host ? 8 : 6;

	if (inet_pton(AF_INET, addr, a) == 1) {
		out[0] = 4;
		memcpy(out + 1, a, n4);
		return 1 + n4;
	}
	if (inet_pton(AF_INET6, addr, a) != 1)
		return 0;
	if (!memcmp(a, mapped, sizeof mapped)) {
		out[0] = 4;
		memcpy(out + 1, a + 12, n4);
		return 1 + n4;
	}
	out[0] = 6;
	memcpy(out + 1, a, n6);
	return 1 + n6;
}

int netkey_of(const struct netkey *k, const char *addr, char out[NETKEY_HEX])
{
	unsigned char msg[NETKEY_PREFIX_MAX], mac[crypto_auth_hmacsha256_BYTES];
	size_t n = netkey_prefix(addr, 0, msg);

	out[0] = '\0';
	if (!n)
		return -1;
	crypto_auth_hmacsha256(mac, msg, n, k->k);
	sodium_bin2hex(out, NETKEY_HEX, mac, 16);
	return 0;
}
