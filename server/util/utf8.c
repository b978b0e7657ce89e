/* utf8.c: decoding and counting UTF-8. */
#include "util/utf8.h"

size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len, i;

	*cp = 0xfffd;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if (i >= n || (s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t k = utf8_seq(s, n, cp);

	return k ? k : 1;
}

long utf8_count(const unsigned char *s, size_t n)
{
	size_t i = 0, k;
	uint32_t cp;
	long count = 0;

	while (i < n) {
		if (s[i] == 0 || !(k = utf8_seq(s + i, n - i, &cp)))
			return -1;
		i += k;
		count++;
	}
	return count;
}

size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

size_t utf8_prefix(const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	uint32_t cp;

	for (; i < n && max; max--)
		i += utf8_next(u + i, n - i, &cp);
	return i;
}

size_t utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;   /* back to the first byte of the code point cut */
	return max;
}
