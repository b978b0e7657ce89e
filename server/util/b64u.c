/* b64u.c: strict unpadded base64url decoding and encoding, and a compact
 * JWS's payload. */
#include "util/b64u.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The value of each base64url character, 64 for any other byte. */
static unsigned char b64u_value[256];

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void b64u_table_init(void)
{
	int i;

	memset(b64u_value, 64, sizeof b64u_value);
	for (i = 0; i < 64; i++)
		b64u_value[(unsigned char)alphabet[i]] = (unsigned char)i;
}

/* Decodes s[0..n) as strict unpadded base64url into dst (room for cap
 * bytes), *got the bytes written (declared in b64u.h): refuses an empty text, '=', whitespace,
 * any byte outside the alphabet, a length no encoding has (4k + 1), unused
 * trailing bits that are not zero (so a text has one decoding and each
 * decoding one text), and output beyond cap.  Returns 0 or -1.
 *
 * A table decoder, not sodium_base642bin(): everything it decodes (a JWS's
 * header, payload and signature) is public, so it needs no constant-time
 * care, and libsodium's constant-time decoder took about 45 us of the
 * serving thread's 200 us per upload (a 3.7 KB payload). */
int b64u_decode(const char *s, size_t n, unsigned char *dst, size_t cap, size_t *got)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, rest = n % 4;
	unsigned a, b, c, d;

	pthread_once(&once, b64u_table_init);
	if (n == 0 || rest == 1 || n / 4 * 3 + (rest ? rest - 1 : 0) > cap)
		return -1;
	for (; i + 4 <= n; i += 4) {
		a = b64u_value[u[i]], b = b64u_value[u[i + 1]];
		c = b64u_value[u[i + 2]], d = b64u_value[u[i + 3]];
		if ((a | b | c | d) & 64)
			return -1;
		dst[o++] = (unsigned char)(a << 2 | b >> 4);
		dst[o++] = (unsigned char)(b << 4 | c >> 2);
		dst[o++] = (unsigned char)(c << 6 | d);
	}
	if (rest) {
		a = b64u_value[u[i]], b = b64u_value[u[i + 1]];
		c = rest == 3 ? b64u_value[u[i + 2]] : 0;
		if ((a | b | c) & 64)
			return -1;
		if (rest == 2 ? (b & 15) : (c & 3))
			return -1;                  /* trailing bits not zero */
		dst[o++] = (unsigned char)(a << 2 | b >> 4);
		if (rest == 3)
			dst[o++] = (unsigned char)(b << 4 | c >> 2);
	}
	*got = o;
	return 0;
}

/* See b64u.h.  A table encoder for the same reason as the decoder: a
 * stored JWS is public, and given back on every .jws, export line and
 * check of a pack (store/jws_pack.c), libsodium's constant-time encoder
 * was most of an unpack's time. */
size_t b64u_encode(const unsigned char *p, size_t n, char *dst)
{
	size_t i = 0, o = 0;
	unsigned v;

	for (; i + 3 <= n; i += 3) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[v >> 12 & 63];
		dst[o++] = alphabet[v >> 6 & 63];
		dst[o++] = alphabet[v & 63];
	}
	if (n - i == 1) {
		v = (unsigned)p[i] << 16;
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[v >> 12 & 63];
	} else if (n - i == 2) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[v >> 12 & 63];
		dst[o++] = alphabet[v >> 6 & 63];
	}
	return o;
}

int b64u_jws_payload(const char *jws, size_t n, unsigned char **out, size_t *len)
{
	const char *p = jws ? memchr(jws, '.', n) : NULL;
	const char *q = p ? memchr(p + 1, '.', n - (size_t)(p + 1 - jws)) : NULL;
	size_t m = q ? (size_t)(q - p - 1) : 0;
	unsigned char *bin;

	*out = NULL;
	if (!q || !(bin = malloc(m / 4 * 3 + 3)))
		return -1;
	if (b64u_decode(p + 1, m, bin, m / 4 * 3 + 2, len) != 0) {
		free(bin);
		return -1;
	}
	bin[*len] = '\0';
	*out = bin;
	return 0;
}
