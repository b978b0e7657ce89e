/* netkey.h: the network an upload came from, as a keyed hash (contract
 * section 4).
 *
 * A network is an IPv4 /24 or an IPv6 /48 (an IPv4-mapped IPv6 address is
 * its IPv4 one).  The server keeps only HMAC-SHA-256 of it under a secret
 * of its own, the 32 bytes in "<db>.netkey" (mode 0600, created on first
 * start, beside the log's key, copied by `llm-speedd backup`): two runs
 * from one network share the hash, and the hash names no address to
 * anyone without the secret. */
#ifndef LLMS_NETKEY_H
#define LLMS_NETKEY_H

#include <stddef.h>

#include "util/err.h"

/* The hash as text: 32 hex digits (the first 16 bytes of the HMAC). */
#define NETKEY_HEX 33

struct netkey {
	unsigned char k[32];
};

/* The secret's file beside the database db_path ("<db_path>.netkey"). */
void netkey_file(const char *db_path, char *out, size_t n);

/* Loads the secret beside db_path, or makes one on first start; 0, or -1
 * with the reason in err. */
int netkey_load(const char *db_path, struct netkey *k, struct err *err);

/* Room for netkey_prefix(): a family byte and at most 8 address bytes. */
#define NETKEY_PREFIX_MAX 9

/* The bytes that name addr's network (host 0: a family byte, then the
 * IPv4 /24 or the IPv6 /48; an IPv4-mapped address is its IPv4 one) or
 * its visitor (host 1: the IPv4 address, or the IPv6 /64 one host is
 * given), into out; their number, or 0 when addr is not an IP address. */
size_t netkey_prefix(const char *addr, int host, unsigned char out[NETKEY_PREFIX_MAX]);

/* The network of the address text addr (IPv4 or IPv6) under k, into out;
 * 0, or -1 (out "") when addr is not an IP address (a Unix socket). */
int netkey_of(const struct netkey *k, const char *addr, char out[NETKEY_HEX]);

#endif
