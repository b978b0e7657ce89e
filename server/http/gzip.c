/* gzip.c: see gzip.h.  zlib's gzip wrapper (windowBits 15 + 16) does the
 * header and the CRC-32 trailer. */
#include "http/gzip.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define GZ_WBITS (15 + 16)

int gz_compress(const void *in, size_t n, int level, struct buf *out)
{
	z_stream z;
	uLong bound;
	int rc;

	memset(&z, 0, sizeof z);
	if (n > 0xffffffffu || deflateInit2(&z, level, Z_DEFLATED, GZ_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		goto fail;
	bound = deflateBound(&z, (uLong)n);
	buf_grow(out, bound);
	if (buf_error(out)) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out->buf + out->len;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	if (rc == Z_STREAM_END) {
		out->len += bound - z.avail_out;
		out->buf[out->len] = '\0';
	}
	deflateEnd(&z);
	if (rc == Z_STREAM_END)
		return 0;
fail:
	out->err = 1;
	return -1;
}

int gz_expand(const void *in, size_t n, void *out, size_t plain)
{
	unsigned char extra;
	z_stream z;
	int rc;

	memset(&z, 0, sizeof z);
	if (n > 0xffffffffu || plain > 0xffffffffu || inflateInit2(&z, GZ_WBITS) != Z_OK)
		return -1;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)plain;
	rc = inflate(&z, Z_FINISH);
	if (rc == Z_BUF_ERROR && z.avail_out == 0) {
		/* Full: one byte more would be too long, the end is right. */
		z.next_out = &extra;
		z.avail_out = 1;
		rc = inflate(&z, Z_FINISH);
		if (z.avail_out == 0)
			rc = Z_DATA_ERROR;
	}
	inflateEnd(&z);
	return rc == Z_STREAM_END && z.total_out == plain && z.avail_in == 0 ? 0 : -1;
}

/* The q of one coding's parameters p[0..n) ("; q=0.5"): 1000ths, 1000
 * when it names none. */
static int qvalue(const char *p, size_t n)
{
	const char *e = p + n, *q;
	int v = 0, scale = 1000;

	for (q = p; q + 1 < e; q++)
		if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=' && (q == p || q[-1] == ';' ||
								 q[-1] == ' ' || q[-1] == '\t'))
			break;
	if (q + 1 >= e)
		return 1000;
	for (q += 2; q < e && *q == ' '; q++)
		;
	if (q < e && *q == '1')
		return 1000;
	if (q >= e || *q != '0')
		return 0;       /* not a qvalue: taken as refused */
	for (q++, q += q < e && *q == '.'; q < e && *q >= '0' && *q <= '9' && scale > 1; q++)
		v += (*q - '0') * (scale /= 10);
	return v;
}

int gz_accepted(const char *ae)
{
	int gz = -1, star = -1;
	const char *p, *tok;
	size_t n, tn;

	for (p = ae; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		tok = p + strspn(p, " \t");
		tn = strcspn(tok, ";, \t");
		if ((tn == 4 && !strncasecmp(tok, "gzip", 4)) || (tn == 6 && !strncasecmp(tok, "x-gzip", 6)))
			gz = qvalue(tok + tn, n - (size_t)(tok - p) - tn);
		else if (tn == 1 && *tok == '*')
			star = qvalue(tok + 1, n - (size_t)(tok - p) - 1);
	}
	return gz >= 0 ? gz > 0 : star > 0;
}
