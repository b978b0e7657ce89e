/* jws_pack.c: a run's JWS packed for the disk and back (jws_pack.h). */
#include "store/jws_pack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/b64u.h"

/* Largest decoded JWS a packed value may hold: uploads are at most 64 KiB
 * of base64url, so a damaged value can never inflate past this. */
#define PACK_MAX (64 * 1024)

/* The compressor's window (4 KiB: the dictionary and a CLI upload's parts
 * fit in it) and hash memory: a small state, quick to set up for each
 * upload.  Any window up to 32 KiB unpacks. */
#define DEFLATE_BITS 12
#define DEFLATE_MEM 6

/* The dictionary of JWS_PACK_V1: the strings the CLI's headers and
 * payloads are made of, most common last (DEFLATE reaches the end of a
 * dictionary in the fewest bits).  Packed values depend on every byte of
 * it: never edit it; a new dictionary is a new tag. */
static const char dict_v1[] =
	"{\"alg\":\"ES256\",\"jwk\":{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"\",\"y\":\"\"}}"
	"\"typ\":\"JWT\",\"kid\":\"\"\"gguf\"\"mlx\"\"safetensors\"\"exl2\"\"Q4_K_M\"\"Q8_0\"\"4bit\""
	"\"vllm\"\"ollama\"\"exllamav2\"\"llama.cpp\"\"Linux\"\"Ubuntu 24.04\"\"NVIDIA GeForce RTX \""
	"\"weights_bytes\":,\"prefix_cache_hit_rate\":0."
	"\"long-context-decay\":{\"points\":[{\"context_tokens\":,\"output_tokens\":,"
	"\"ttft_ms\":,\"prefill_tok_s\":,\"decode_tok_s\":},{\"context_tokens\":"
	"\"concurrent-decode\":{\"serial\":false,\"points\":[{\"batch_size\":,"
	"\"aggregate_tok_s\":,\"per_stream_tok_s\":,\"p50_ms\":,\"p95_ms\":},{\"batch_size\":"
	"\"agent-trace\":{\"turns\":[{\"turn\":1,\"context_tokens\":,\"ttft_ms\":,"
	"\"decode_tok_s\":},{\"turn\":2,\"context_tokens\":}],\"wall_ms\":"
	"\"chat-long\":{\"prompt_tokens\":,\"output_tokens\":,\"batch_size\":1,\"ttft_ms\":,"
	"\"prefill_tok_s\":,\"decode_tok_s\":,\"p50_ms\":,\"p95_ms\":,\"wall_ms\":},"
	"\"gpu_name\":\"\",\"vram_gb\":,\"quantization\":\"\",\"format\":\"\","
	"{\"alg\":\"EdDSA\",\"jwk\":{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"\"}}"
	"{\"suite_version\":\"suite-v1\",\"created_at\":\"2026-12-01T12:00:00Z\","
	"\"client\":{\"name\":\"llm-speed\",\"version\":\"1.4.0\"},"
	"\"backend\":{\"name\":\"llama.cpp\",\"version\":\"\",\"runner\":null},"
	"\"model\":{\"name\":\"\",\"digest\":\"sha256:\"},"
	"\"hardware\":{\"cpu_model\":\"\",\"cpu_cores\":,\"ram_gb\":,\"os\":\"\","
	"\"accelerator_summary\":\"\",\"fingerprint_hash\":\"\"},"
	"\"workloads\":{\"chat-short\":{\"prompt_tokens\":128,\"output_tokens\":256,"
	"\"batch_size\":1,\"ttft_ms\":,\"prefill_tok_s\":,\"decode_tok_s\":,"
	"\"p50_ms\":,\"p95_ms\":,\"wall_ms\":}}}";

/* Appends n as a LEB128 varint. */
static void put_varint(struct buf *b, size_t n)
{
	do {
		buf_putc(b, (char)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
		n >>= 7;
	} while (n);
}

/* Reads a varint from p[*at..n) into *v, at most PACK_MAX; -1 when there
 * is none. */
static int get_varint(const unsigned char *p, size_t n, size_t *at, size_t *v)
{
	size_t x = 0;
	unsigned shift = 0;

	while (*at < n && shift < 28) {
		unsigned char c = p[(*at)++];
		x |= (size_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return x <= PACK_MAX ? 0 : -1;
		}
		shift += 7;
	}
	return -1;
}

/* Appends the strict base64url decoding of s[0..n) to out, with a varint
 * of its length before it when lead (strict text of n characters decodes
 * to exactly n * 3 / 4 bytes, so the length is known before decoding);
 * -1 when it is not strict base64url. */
static int put_segment(struct buf *out, const char *s, size_t n, int lead)
{
	size_t want = n * 3 / 4, got;

	if (n > PACK_MAX)
		return -1;
	if (lead)
		put_varint(out, want);
	buf_grow(out, want + 2);
	if (buf_error(out) || b64u_decode(s, n, (unsigned char *)out->buf + out->len, want + 2, &got) ||
	    got != want)
		return -1;
	out->len += got;
	out->buf[out->len] = '\0';
	return 0;
}

/* Appends the base64url text of p[0..n) to out. */
static void put_b64u(struct buf *out, const unsigned char *p, size_t n)
{
	buf_grow(out, B64U_LEN(n));
	if (buf_error(out))
		return;
	out->len += b64u_encode(p, n, out->buf + out->len);
	out->buf[out->len] = '\0';
}

/* Inflates packed value b[0..n) (tag included) into out, its checksum
 * checked; 0 or -1.  out grows from about what a CLI upload's parts take
 * (four times the packed bytes) to at most PACK_MAX. */
static int inflate_v1(const unsigned char *b, size_t n, struct buf *out)
{
	size_t room = n * 4 + 256;
	z_stream z;
	int rc = Z_OK;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)b + 1;
	z.avail_in = (uInt)(n - 1);
	for (;;) {
		room = room < PACK_MAX ? room : PACK_MAX;
		buf_grow(out, room - out->len);
		if (buf_error(out))
			break;
		z.next_out = (unsigned char *)out->buf + out->len;
		z.avail_out = (uInt)(room - out->len);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_NEED_DICT)
			rc = inflateSetDictionary(&z, (const Bytef *)dict_v1, sizeof dict_v1 - 1);
		out->len = room - z.avail_out;
		if (rc != Z_OK || (z.avail_out == 0 && room == PACK_MAX))
			break;
		if (z.avail_out == 0)
			room *= 2;
		else if (z.avail_in == 0)
			break;          /* cut short: no end of stream */
	}
	out->buf[out->len] = '\0';
	inflateEnd(&z);
	return rc == Z_STREAM_END && z.avail_in == 0 && !buf_error(out) ? 0 : -1;
}

/* The three decoded parts of a packed value: header, payload, signature,
 * pointing into raw. */
struct parts {
	const unsigned char *p[3];
	size_t n[3];
};

/* Inflates b[0..n) into raw and splits it; 0 or -1. */
static int unpack_parts(const unsigned char *b, size_t n, struct buf *raw, struct parts *out)
{
	const unsigned char *r;
	size_t at = 0, i;

	if (n < 2 || b[0] != JWS_PACK_V1 || inflate_v1(b, n, raw))
		return -1;
	r = (const unsigned char *)raw->buf;
	for (i = 0; i < 2; i++) {
		if (get_varint(r, raw->len, &at, &out->n[i]) || out->n[i] > raw->len - at)
			return -1;
		out->p[i] = r + at;
		at += out->n[i];
	}
	out->p[2] = r + at;
	out->n[2] = raw->len - at;
	return out->n[0] && out->n[1] && out->n[2] ? 0 : -1;
}

/* Deflates raw[0..n) with the dictionary into out after its tag, as a
 * zlib stream (its Adler-32 catches a damaged value); 0 or -1. */
static int deflate_v1(const char *raw, size_t n, struct buf *out)
{
	z_stream z;
	uLong bound;
	int rc;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, DEFLATE_BITS, DEFLATE_MEM, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	bound = deflateBound(&z, (uLong)n);
	buf_putc(out, JWS_PACK_V1);
	buf_grow(out, bound + 1);
	if (buf_error(out) || deflateSetDictionary(&z, (const Bytef *)dict_v1, sizeof dict_v1 - 1) != Z_OK) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (unsigned char *)raw;
	z.avail_in = (uInt)n;
	z.next_out = (unsigned char *)out->buf + out->len;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	out->len += bound - z.avail_out;
	out->buf[out->len] = '\0';
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int jws_pack(const char *s, size_t n, struct buf *out)
{
	const char *d1 = memchr(s, '.', n);
	const char *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s)) : NULL;
	struct buf raw = BUF_INIT, back = BUF_INIT;
	int rc = -1;

	buf_reset(out);
	if (!d2 || memchr(d2 + 1, '.', n - (size_t)(d2 + 1 - s)))
		goto out;
	if (put_segment(&raw, s, (size_t)(d1 - s), 1) ||
	    put_segment(&raw, d1 + 1, (size_t)(d2 - d1 - 1), 1) ||
	    put_segment(&raw, d2 + 1, n - (size_t)(d2 + 1 - s), 0))
		goto out;
	if (deflate_v1(raw.buf, raw.len, out))
		goto out;
	/* What is stored must give back the very bytes uploaded: the parts
	 * inflate as they were, and strict base64url has one text each. */
	if (inflate_v1((const unsigned char *)out->buf, out->len, &back) || back.len != raw.len ||
	    memcmp(back.buf, raw.buf, raw.len))
		goto out;
	rc = 0;
out:
	if (rc)
		buf_reset(out);
	buf_release(&raw);
	buf_release(&back);
	return rc;
}

int jws_pack_unpack(const void *b, size_t n, struct buf *out)
{
	const unsigned char *u = b;
	struct buf raw = BUF_INIT;
	struct parts pt;
	int rc = -1;

	if (!n || u[0] != JWS_PACK_V1) {
		buf_add(out, b, n);
		return buf_error(out);
	}
	if (unpack_parts(u, n, &raw, &pt))
		goto out;
	put_b64u(out, pt.p[0], pt.n[0]);
	buf_putc(out, '.');
	put_b64u(out, pt.p[1], pt.n[1]);
	buf_putc(out, '.');
	put_b64u(out, pt.p[2], pt.n[2]);
	rc = buf_error(out);
out:
	buf_release(&raw);
	return rc;
}

int jws_pack_payload(const void *b, size_t n, unsigned char **out, size_t *len)
{
	const unsigned char *u = b;
	struct buf raw = BUF_INIT;
	struct parts pt;
	int rc = -1;

	*out = NULL;
	if (!n || u[0] != JWS_PACK_V1)
		return b64u_jws_payload(b, n, out, len);
	if (unpack_parts(u, n, &raw, &pt) || !(*out = malloc(pt.n[1] + 1)))
		goto out;
	memcpy(*out, pt.p[1], pt.n[1]);
	(*out)[pt.n[1]] = '\0';
	*len = pt.n[1];
	rc = 0;
out:
	buf_release(&raw);
	return rc;
}
