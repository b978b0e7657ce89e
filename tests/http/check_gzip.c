/* check_gzip.c: server/http/gzip.c: gzip bodies that decode to exactly
 * what went in (and nothing else: wrong lengths, cut or damaged streams
 * are refused), and the reading of Accept-Encoding. */
#include "check_util.h"
#include "http/gzip.h"

#include <zlib.h>

/* n bytes of page-like text, the same each time. */
static char *page_text(size_t n)
{
	char *s = malloc(n);
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++)
		s[i] = "<tr><td class=\"num\">123.4</td><td>Llama 3.1 8B</td></tr>\n"[i % 56] + (char)(i / 997 % 3);
	return s;
}

/* What goes in comes out, at each level, and zlib's own gzip reader agrees;
 * text shrinks several times over. */
START_TEST(a_body_comes_back_whole)
{
	static const size_t sizes[] = { 0, 1, 1024, 40000, 300000 };
	size_t i, got;
	int level;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (level = 1; level <= 9; level += 3) {
			char *in = page_text(sizes[i] ? sizes[i] : 1), *out = malloc(sizes[i] + 1);
			struct buf z = BUF_INIT;
			uLongf n = sizes[i] + 1;
			z_stream zs;

			ck_assert_int_eq(gz_compress(in, sizes[i], level, &z), 0);
			ck_assert_uint_ge(z.len, 18);                       /* header and trailer */
			ck_assert_int_eq((unsigned char)z.buf[0], 0x1f);
			ck_assert_int_eq((unsigned char)z.buf[1], 0x8b);
			if (sizes[i] >= 40000)
				ck_assert_uint_lt(z.len, sizes[i] / 4);
			ck_assert_int_eq(gz_expand(z.buf, z.len, out, sizes[i]), 0);
			ck_assert(memcmp(in, out, sizes[i]) == 0);
			memset(&zs, 0, sizeof zs);
			ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
			zs.next_in = (Bytef *)z.buf;
			zs.avail_in = (uInt)z.len;
			zs.next_out = (Bytef *)out;
			zs.avail_out = (uInt)n;
			ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
			got = zs.total_out;
			inflateEnd(&zs);
			ck_assert_uint_eq(got, sizes[i]);
			buf_release(&z);
			free(in);
			free(out);
		}
}
END_TEST

/* A length other than the body's, a cut stream, a damaged byte, a
 * stream with more after it: each is refused, never half-read. */
START_TEST(a_wrong_or_damaged_stream_is_refused)
{
	size_t n = 20000, i;
	char *in = page_text(n), *out = malloc(n + 10);
	struct buf z = BUF_INIT, two = BUF_INIT;

	ck_assert_int_eq(gz_compress(in, n, 6, &z), 0);
	ck_assert_int_eq(gz_expand(z.buf, z.len, out, n), 0);
	ck_assert_int_eq(gz_expand(z.buf, z.len, out, n - 1), -1);   /* longer than said */
	ck_assert_int_eq(gz_expand(z.buf, z.len, out, n + 1), -1);   /* shorter */
	for (i = 1; i < z.len; i += z.len / 7)
		ck_assert_int_eq(gz_expand(z.buf, i, out, n), -1);   /* cut */
	z.buf[z.len - 5] ^= 0x40;                                 /* the CRC-32 */
	ck_assert_int_eq(gz_expand(z.buf, z.len, out, n), -1);
	z.buf[z.len - 5] ^= 0x40;
	z.buf[z.len / 2] ^= 0x01;                                 /* the data */
	ck_assert_int_eq(gz_expand(z.buf, z.len, out, n), -1);
	z.buf[z.len / 2] ^= 0x01;
	buf_add(&two, z.buf, z.len);
	buf_add(&two, "x", 1);                                    /* trailing garbage */
	ck_assert_int_eq(gz_expand(two.buf, two.len, out, n), -1);
	ck_assert_int_eq(gz_expand("not gzip at all", 15, out, 15), -1);
	buf_release(&z);
	buf_release(&two);
	free(in);
	free(out);
}
END_TEST

/* Accept-Encoding as browsers, curl, CDNs and hand-written clients send it. */
START_TEST(accept_encoding_is_read_by_its_codings)
{
	static const struct { const char *ae; int gz; } cases[] = {
		{ NULL, 0 },
		{ "", 0 },
		{ "gzip", 1 },
		{ "GZIP", 1 },
		{ "gzip, deflate, br, zstd", 1 },            /* Chromium */
		{ "gzip, deflate", 1 },                      /* python-requests */
		{ "deflate, gzip;q=1.0, *;q=0.5", 1 },       /* RFC 9110's example */
		{ "x-gzip", 1 },
		{ "br;q=1, gzip;q=0.8", 1 },
		{ "identity", 0 },
		{ "br, zstd", 0 },
		{ "gzip;q=0", 0 },
		{ "gzip; q=0.000", 0 },
		{ "gzip;q=0.001", 1 },
		{ "gzip;q=0, *", 0 },                        /* named and refused wins */
		{ "*", 1 },
		{ "*;q=0", 0 },
		{ "identity, *;q=0", 0 },
		{ "gzipper, nogzip", 0 },                    /* not the coding */
		{ "deflate;q=0.5, gzip ;q=0", 0 },
		{ "gzip;level=9", 1 },
		{ "gzip;q=x", 0 },
		{ ",,, gzip ,", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(gz_accepted(cases[i].ae) == cases[i].gz, "%s", cases[i].ae ? cases[i].ae : "(none)");
}
END_TEST

static Suite *suite_gzip(void)
{
	Suite *s = suite_create("gzip");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_body_comes_back_whole);
	tcase_add_test(tc, a_wrong_or_damaged_stream_is_refused);
	tcase_add_test(tc, accept_encoding_is_read_by_its_codings);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_gzip)
