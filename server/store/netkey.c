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

int netkey_of(const struct netkey *k, const char *addr, char out[NETKEY_HEX])
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	unsigned char a[16], msg[8], mac[crypto_auth_hmacsha256_BYTES];
	size_t n;

	out[0] = '\0';
	if (inet_pton(AF_INET, addr, a) == 1) {
		msg[0] = 4;
		memcpy(msg + 1, a, 3);                   /* the /24 */
		n = 4;
	} else if (inet_pton(AF_INET6, addr, a) == 1) {
		if (!memcmp(a, mapped, sizeof mapped)) {
			msg[0] = 4;
			memcpy(msg + 1, a + 12, 3);
			n = 4;
		} else {
			msg[0] = 6;
			memcpy(msg + 1, a, 6);           /* the /48 */
			n = 7;
		}
	} else
		return -1;
	crypto_auth_hmacsha256(mac, msg, n, k->k);
	sodium_bin2hex(out, NETKEY_HEX, mac, 16);
	return 0;
}
