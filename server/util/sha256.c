/* sha256.c: SHA-256 with the x86 SHA extensions when the CPU has them, else libsodium's. */
#include "util/sha256.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t K[64] __attribute__((aligned(16))) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Compresses n 64-byte blocks at p into state (H0..H7), four rounds per
 * step: W holds the next 16 schedule words in four vectors; sha256msg1
 * and sha256msg2 extend it, sha256rnds2 runs two rounds at a time on the
 * state split as ABEF and CDGH. */
__attribute__((target("sha,sse4.1,ssse3")))
static void blocks_shani(uint32_t state[8], const unsigned char *p, size_t n)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i s0, s1, tmp, msg, w[4], abef, cdgh;
	int i;

	tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);  /* CDAB */
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);   /* EFGH */
	s0 = _mm_alignr_epi8(tmp, s1, 8);                                            /* ABEF */
	s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                         /* CDGH */
	for (; n > 0; n--, p += 64) {
		abef = s0;
		cdgh = s1;
		for (i = 0; i < 4; i++)
			w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), mask);
		for (i = 0; i < 16; i++) {
			msg = _mm_add_epi32(w[i & 3], _mm_load_si128((const __m128i *)&K[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			if (i >= 3 && i < 15) {
				tmp = _mm_alignr_epi8(w[i & 3], w[(i - 1) & 3], 4);
				w[(i + 1) & 3] = _mm_add_epi32(w[(i + 1) & 3], tmp);
				w[(i + 1) & 3] = _mm_sha256msg2_epu32(w[(i + 1) & 3], w[i & 3]);
			}
			msg = _mm_shuffle_epi32(msg, 0x0E);
			s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
			if (i >= 1 && i < 13)
				w[(i - 1) & 3] = _mm_sha256msg1_epu32(w[(i - 1) & 3], w[i & 3]);
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	tmp = _mm_shuffle_epi32(s0, 0x1B);       /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);        /* DCHG */
	s0 = _mm_blend_epi16(tmp, s1, 0xF0);     /* DCBA */
	s1 = _mm_alignr_epi8(s1, tmp, 8);        /* HGFE */
	_mm_storeu_si128((__m128i *)&state[0], s0);
	_mm_storeu_si128((__m128i *)&state[4], s1);
}

/* 1 when the CPU has the SHA extensions and the SSE4.1/SSSE3 they need. */
static int have_shani(void)
{
	static _Atomic int known = -1;
	unsigned a, b, c, d;
	int yes = 0;

	if (known >= 0)
		return known;
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
	    __get_cpuid_count(7, 0, &a, &b, &c, &d))
		yes = (b & bit_SHA) != 0;
	known = yes;    /* every thread finds the same answer */
	return yes;
}

/* The digest of in[0..n) with blocks_shani: whole blocks, then the last
 * one or two with the padding (0x80, zeros, the bit length big-endian). */
static void sha256_shani(unsigned char out[32], const unsigned char *in, size_t n)
{
	uint32_t st[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	unsigned char last[128] = { 0 };
	size_t whole = n / 64, rest = n % 64, tail;
	uint64_t bits = (uint64_t)n * 8;
	int i;

	blocks_shani(st, in, whole);
	memcpy(last, in + whole * 64, rest);
	last[rest] = 0x80;
	tail = rest + 9 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		last[tail - 1 - i] = (unsigned char)(bits >> (8 * i));
	blocks_shani(st, last, tail / 64);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(st[i] >> 24);
		out[4 * i + 1] = (unsigned char)(st[i] >> 16);
		out[4 * i + 2] = (unsigned char)(st[i] >> 8);
		out[4 * i + 3] = (unsigned char)st[i];
	}
}
#endif

void sha256_digest(unsigned char out[32], const void *in, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (have_shani()) {
		sha256_shani(out, in, n);
		return;
	}
#endif
	crypto_hash_sha256(out, in, n);
}

void sha256_portable(unsigned char out[32], const void *in, size_t n)
{
	crypto_hash_sha256(out, in, n);
}
