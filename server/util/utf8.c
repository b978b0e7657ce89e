/* utf8.c: decoding and counting UTF-8, and the classes of code points. */
#include "util/utf8.h"
#include "util/nelem.h"

#include <stdio.h>

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

int utf8_is_noncharacter(uint32_t cp)
{
	return (cp >= 0xfdd0 && cp <= 0xfdef) || ((cp & 0xfffe) == 0xfffe && cp <= 0x10ffff);
}

int utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

int utf8_is_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* Default_Ignorable_Code_Point (Unicode 15, DerivedCoreProperties.txt) as
 * ranges, and U+2800. */
static const struct { uint32_t lo, hi; } invisible[] = {
	{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x061c, 0x061c }, { 0x115f, 0x1160 },
	{ 0x17b4, 0x17b5 }, { 0x180b, 0x180f }, { 0x200b, 0x200f }, { 0x202a, 0x202e },
	{ 0x2060, 0x206f }, { 0x2800, 0x2800 }, { 0x3164, 0x3164 }, { 0xfe00, 0xfe0f },
	{ 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff0, 0xfff8 }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

int utf8_is_invisible(uint32_t cp)
{
	size_t i;

	if (cp < 0xad)
		return 0;
	for (i = 0; i < NELEM(invisible); i++)
		if (cp >= invisible[i].lo && cp <= invisible[i].hi)
			return 1;
	return 0;
}

int utf8_is_xml_char(uint32_t cp)
{
	return cp == 0x09 || cp == 0x0a || cp == 0x0d || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

long utf8_text_bad(const unsigned char *s, size_t n, int lines, uint32_t *cp)
{
	size_t i = 0, k;
	uint32_t c;

	while (i < n) {
		k = utf8_seq(s + i, n - i, &c);
		if (!k || utf8_is_noncharacter(c) ||
		    (utf8_is_control(c) && !(lines && (c == '\t' || c == '\n')))) {
			*cp = c;
			return (long)i;
		}
		i += k;
	}
	return -1;
}

long utf8_line_unsafe(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t i = 0, k, open_at[8];
	size_t depth = 0;
	uint32_t c;

	while (i < n) {
		k = utf8_next(s + i, n - i, &c);
		if (c == 0x2028 || c == 0x2029 || (c == 0x2069 && !depth)) {
			*cp = c;
			return (long)i;
		}
		if (c >= 0x2066 && c <= 0x2068) {
			if (depth == sizeof open_at / sizeof open_at[0]) {
				*cp = c;          /* deeper than any name needs */
				return (long)i;
			}
			open_at[depth++] = i;
		} else if (c == 0x2069) {
			depth--;
		}
		i += k;
	}
	if (!depth)
		return -1;
	utf8_next(s + open_at[depth - 1], n - open_at[depth - 1], cp);
	return (long)open_at[depth - 1];
}

int utf8_has_visible(const unsigned char *s, size_t n)
{
	size_t i = 0;
	uint32_t c;

	while (i < n) {
		i += utf8_next(s + i, n - i, &c);
		if (!utf8_is_space(c) && !utf8_is_invisible(c) && !utf8_is_control(c))
			return 1;
	}
	return 0;
}

void utf8_cp_name(uint32_t cp, char out[12])
{
	snprintf(out, 12, "U+%04X", (unsigned)cp);
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
