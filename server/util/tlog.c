/* tlog.c: RFC 6962 Merkle tree hashing and proofs, tlog-tiles paths and signed-note checkpoints. */
#include "util/tlog.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlog_leaf_hash(const void *data, size_t len, unsigned char out[TLOG_HASH])
{
	crypto_hash_sha256_state s;
	unsigned char z = 0;

	crypto_hash_sha256_init(&s);
	crypto_hash_sha256_update(&s, &z, 1);
	crypto_hash_sha256_update(&s, data, len);
	crypto_hash_sha256_final(&s, out);
}

void tlog_node_hash(const unsigned char l[TLOG_HASH], const unsigned char r[TLOG_HASH],
		    unsigned char out[TLOG_HASH])
{
	unsigned char m[1 + 2 * TLOG_HASH];

	m[0] = 1;
	memcpy(m + 1, l, TLOG_HASH);
	memcpy(m + 1 + TLOG_HASH, r, TLOG_HASH);
	crypto_hash_sha256(out, m, sizeof m);
}

/* The largest power of two smaller than n (n >= 2). */
static uint64_t split_of(uint64_t n)
{
	uint64_t k = 1;

	while (k << 1 < n)
		k <<= 1;
	return k;
}

/* log2 of n when n is a power of two, else -1. */
static int pow2_level(uint64_t n)
{
	int l = 0;

	if (!n || (n & (n - 1)))
		return -1;
	while (n > 1) {
		n >>= 1;
		l++;
	}
	return l;
}

int tlog_subtree(const struct tlog_reader *rd, uint64_t lo, uint64_t hi,
		 unsigned char out[TLOG_HASH])
{
	unsigned char l[TLOG_HASH], r[TLOG_HASH];
	uint64_t n = hi - lo, k;
	int level = pow2_level(n);

	if (hi <= lo)
		return -1;
	if (level >= 0 && lo % n == 0)
		return rd->get(rd->ctx, (unsigned)level, lo >> level, out);
	k = split_of(n);
	if (tlog_subtree(rd, lo, lo + k, l) < 0 || tlog_subtree(rd, lo + k, hi, r) < 0)
		return -1;
	tlog_node_hash(l, r, out);
	return 0;
}

int tlog_root(const struct tlog_reader *rd, uint64_t n, unsigned char out[TLOG_HASH])
{
	if (n == 0) {
		crypto_hash_sha256(out, (const unsigned char *)"", 0);
		return 0;
	}
	return tlog_subtree(rd, 0, n, out);
}

/* Appends MTH(D[lo:hi]) to proof; -1 when it is full or a hash is missing. */
static int push_subtree(const struct tlog_reader *rd, uint64_t lo, uint64_t hi,
			unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len)
{
	if (*len >= TLOG_MAX_PROOF || tlog_subtree(rd, lo, hi, proof[*len]) < 0)
		return -1;
	(*len)++;
	return 0;
}

/* PATH(m, D[lo:hi]) appended to proof (inner hashes first). */
static int path(const struct tlog_reader *rd, uint64_t m, uint64_t lo, uint64_t hi,
		unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len)
{
	uint64_t k;
	int rc;

	if (hi - lo <= 1)
		return 0;
	k = split_of(hi - lo);
	if (m < lo + k)
		rc = path(rd, m, lo, lo + k, proof, len);
	else
		rc = path(rd, m, lo + k, hi, proof, len);
	if (rc < 0)
		return -1;
	return m < lo + k ? push_subtree(rd, lo + k, hi, proof, len)
			  : push_subtree(rd, lo, lo + k, proof, len);
}

int tlog_prove_inclusion(const struct tlog_reader *rd, uint64_t index, uint64_t n,
			 unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len)
{
	*len = 0;
	if (index >= n)
		return -1;
	return path(rd, index, 0, n, proof, len);
}

/* SUBPROOF(m, D[lo:hi], b) appended to proof. */
static int subproof(const struct tlog_reader *rd, uint64_t m, uint64_t lo, uint64_t hi,
		    int b, unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len)
{
	uint64_t n = hi - lo, k;
	int rc;

	if (m == n)
		return b ? 0 : push_subtree(rd, lo, hi, proof, len);
	k = split_of(n);
	if (m <= k)
		rc = subproof(rd, m, lo, lo + k, b, proof, len);
	else
		rc = subproof(rd, m - k, lo + k, hi, 0, proof, len);
	if (rc < 0)
		return -1;
	return m <= k ? push_subtree(rd, lo + k, hi, proof, len)
		      : push_subtree(rd, lo, lo + k, proof, len);
}

int tlog_prove_consistency(const struct tlog_reader *rd, uint64_t m, uint64_t n,
			   unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len)
{
	*len = 0;
	if (m == 0 || m > n)
		return -1;
	return subproof(rd, m, 0, n, 1, proof, len);
}

int tlog_check_inclusion(const unsigned char leaf[TLOG_HASH], uint64_t index, uint64_t n,
			 const unsigned char proof[][TLOG_HASH], size_t len,
			 const unsigned char root[TLOG_HASH])
{
	unsigned char r[TLOG_HASH];
	uint64_t fn = index, sn;
	size_t i;

	if (index >= n)
		return 0;
	sn = n - 1;
	memcpy(r, leaf, TLOG_HASH);
	for (i = 0; i < len; i++) {
		if (sn == 0)
			return 0;
		if ((fn & 1) || fn == sn) {
			tlog_node_hash(proof[i], r, r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			tlog_node_hash(r, proof[i], r);
		}
		fn >>= 1;
		sn >>= 1;
	}
	return sn == 0 && sodium_memcmp(r, root, TLOG_HASH) == 0;
}

int tlog_check_consistency(uint64_t m, const unsigned char root_m[TLOG_HASH],
			   uint64_t n, const unsigned char root_n[TLOG_HASH],
			   const unsigned char proof[][TLOG_HASH], size_t len)
{
	unsigned char fr[TLOG_HASH], sr[TLOG_HASH];
	uint64_t fn, sn;
	size_t i = 0;

	if (m == n)
		return len == 0 && sodium_memcmp(root_m, root_n, TLOG_HASH) == 0;
	if (m == 0 || m > n || len == 0)
		return 0;
	if (pow2_level(m) >= 0) {
		memcpy(fr, root_m, TLOG_HASH);
	} else {
		memcpy(fr, proof[0], TLOG_HASH);
		i = 1;
	}
	memcpy(sr, fr, TLOG_HASH);
	fn = m - 1;
	sn = n - 1;
	while (fn & 1) {
		fn >>= 1;
		sn >>= 1;
	}
	for (; i < len; i++) {
		if (sn == 0)
			return 0;
		if ((fn & 1) || fn == sn) {
			tlog_node_hash(proof[i], fr, fr);
			tlog_node_hash(proof[i], sr, sr);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			tlog_node_hash(sr, proof[i], sr);
		}
		fn >>= 1;
		sn >>= 1;
	}
	return sn == 0 && sodium_memcmp(fr, root_m, TLOG_HASH) == 0 &&
	       sodium_memcmp(sr, root_n, TLOG_HASH) == 0;
}

/* ---- tile paths ---- */

/* Reads a decimal number of 1..maxdigits digits without a leading zero
 * (unless it is "0") from *p, advancing it; 0 or -1. */
static int read_dec(const char **p, unsigned maxdigits, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned n = 0;

	while (s[n] >= '0' && s[n] <= '9') {
		if (++n > maxdigits)
			return -1;
		v = v * 10 + (uint64_t)(s[n - 1] - '0');
	}
	if (n == 0 || (n > 1 && s[0] == '0'))
		return -1;
	*p = s + n;
	*out = v;
	return 0;
}

/* Reads N as "x001/x234/067" from *p; 0 or -1. */
static int read_index(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int parts = 0;

	for (;;) {
		int x = *s == 'x';
		unsigned i, d = 0;

		s += x;
		for (i = 0; i < 3; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			d = d * 10 + (unsigned)(s[i] - '0');
		}
		s += 3;
		if (++parts > 7 || v > UINT64_MAX / 1000 || (parts == 1 && x && d == 0))
			return -1;         /* one spelling per index: no leading x000 */
		v = v * 1000 + d;
		if (!x)
			break;
		if (*s++ != '/')
			return -1;
	}
	*p = s;
	*out = v;
	return 0;
}

int tlog_tile_parse(const char *path, struct tlog_tile *t)
{
	const char *p = path;
	uint64_t v;

	if (!strncmp(p, "entries/", 8)) {
		t->level = -1;
		p += 8;
	} else {
		if (read_dec(&p, 2, &v) < 0 || v > 63 || *p++ != '/')
			return -1;
		t->level = (int)v;
	}
	if (read_index(&p, &t->n) < 0)
		return -1;
	t->width = TLOG_TILE_WIDTH;
	if (*p == '\0')
		return 0;
	if (strncmp(p, ".p/", 3))
		return -1;
	p += 3;
	if (read_dec(&p, 3, &v) < 0 || v < 1 || v > 255 || *p)
		return -1;
	t->width = (unsigned)v;
	return 0;
}

void tlog_tile_format(struct buf *b, const struct tlog_tile *t)
{
	char digits[24], padded[32];
	size_t n, pn, g;

	if (t->level < 0)
		buf_puts(b, "entries/");
	else
		buf_printf(b, "%d/", t->level);
	/* Zero-padded to whole groups of three; every group but the last gets an x. */
	n = (size_t)snprintf(digits, sizeof digits, "%llu", (unsigned long long)t->n);
	pn = (n + 2) / 3 * 3;
	memset(padded, '0', pn - n);
	memcpy(padded + (pn - n), digits, n + 1);
	for (g = 0; g < pn; g += 3) {
		if (g + 3 < pn)
			buf_putc(b, 'x');
		buf_add(b, padded + g, 3);
		if (g + 3 < pn)
			buf_putc(b, '/');
	}
	if (t->width < TLOG_TILE_WIDTH)
		buf_printf(b, ".p/%u", t->width);
}

/* ---- checkpoints and signed notes ---- */

/* Appends base64 (standard alphabet, padded) of n bytes. */
static void put_b64(struct buf *b, const unsigned char *p, size_t n)
{
	char out[256];

	if (sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL) > sizeof out) {
		b->err = 1;
		return;
	}
	sodium_bin2base64(out, sizeof out, p, n, sodium_base64_VARIANT_ORIGINAL);
	buf_puts(b, out);
}

/* Decodes exactly want bytes of padded standard base64 from s[0..n); 0 or -1. */
static int get_b64(const char *s, size_t n, unsigned char *out, size_t want)
{
	size_t got;

	if (sodium_base642bin(out, want, s, n, NULL, &got, NULL,
			      sodium_base64_VARIANT_ORIGINAL) != 0 || got != want)
		return -1;
	return 0;
}

void tlog_checkpoint_body(struct buf *b, const char *origin, uint64_t n,
			  const unsigned char root[TLOG_HASH])
{
	buf_printf(b, "%s\n%llu\n", origin, (unsigned long long)n);
	put_b64(b, root, TLOG_HASH);
	buf_putc(b, '\n');
}

int tlog_checkpoint_parse(const char *text, size_t len, char *origin, size_t originlen,
			  uint64_t *n, unsigned char root[TLOG_HASH])
{
	const char *end = text + len, *nl = memchr(text, '\n', len), *p;
	uint64_t v;

	if (!nl || nl == text || (size_t)(nl - text) >= originlen)
		return -1;
	memcpy(origin, text, (size_t)(nl - text));
	origin[nl - text] = '\0';
	p = nl + 1;
	if (read_dec(&p, 20, &v) < 0 || p >= end || *p != '\n')
		return -1;
	*n = v;
	p++;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || get_b64(p, (size_t)(nl - p), root, TLOG_HASH) < 0)
		return -1;
	return 0;
}

uint32_t tlog_key_id(const char *name, const unsigned char pk[32])
{
	crypto_hash_sha256_state s;
	unsigned char h[32], sep[2] = { '\n', 0x01 };

	crypto_hash_sha256_init(&s);
	crypto_hash_sha256_update(&s, (const unsigned char *)name, strlen(name));
	crypto_hash_sha256_update(&s, sep, 2);
	crypto_hash_sha256_update(&s, pk, 32);
	crypto_hash_sha256_final(&s, h);
	return (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
}

void tlog_verifier_key(struct buf *b, const char *name, const unsigned char pk[32])
{
	unsigned char k[33];

	k[0] = 0x01;
	memcpy(k + 1, pk, 32);
	buf_printf(b, "%s+%08x+", name, (unsigned)tlog_key_id(name, pk));
	put_b64(b, k, sizeof k);
}

#define EM_DASH "\xe2\x80\x94"

void tlog_note_sign(struct buf *b, const char *body, size_t len, const char *name,
		    const unsigned char sk[64], const unsigned char pk[32])
{
	unsigned char sig[4 + crypto_sign_BYTES];
	uint32_t id = tlog_key_id(name, pk);

	sig[0] = (unsigned char)(id >> 24);
	sig[1] = (unsigned char)(id >> 16);
	sig[2] = (unsigned char)(id >> 8);
	sig[3] = (unsigned char)id;
	crypto_sign_detached(sig + 4, NULL, (const unsigned char *)body, len, sk);
	buf_add(b, body, len);
	buf_printf(b, "\n" EM_DASH " %s ", name);
	put_b64(b, sig, sizeof sig);
	buf_putc(b, '\n');
}

int tlog_note_verify(const char *text, size_t len, const char *name,
		     const unsigned char pk[32], size_t *body_len)
{
	unsigned char sig[4 + crypto_sign_BYTES];
	uint32_t id = tlog_key_id(name, pk), got;
	const char *end = text + len, *p, *nl;
	size_t nlen = strlen(name), i;

	/* The body ends at the first blank line ("\n\n"). */
	for (i = 0; i + 1 < len; i++)
		if (text[i] == '\n' && text[i + 1] == '\n')
			break;
	if (i + 1 >= len)
		return 0;
	*body_len = i + 1;
	for (p = text + i + 2; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return 0;
		if ((size_t)(nl - p) < 4 + nlen + 1 || memcmp(p, EM_DASH " ", 4) ||
		    memcmp(p + 4, name, nlen) || p[4 + nlen] != ' ')
			continue;
		if (get_b64(p + 5 + nlen, (size_t)(nl - (p + 5 + nlen)), sig, sizeof sig) < 0)
			continue;
		got = (uint32_t)sig[0] << 24 | (uint32_t)sig[1] << 16 | (uint32_t)sig[2] << 8 | sig[3];
		if (got == id && crypto_sign_verify_detached(sig + 4, (const unsigned char *)text,
							     *body_len, pk) == 0)
			return 1;
	}
	return 0;
}
