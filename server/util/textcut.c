/* textcut.c: long names shortened at a code point, ended with "…". */
#include "util/textcut.h"

#include <string.h>
#include <strings.h>

#include "util/utf8.h"
#include "util/nelem.h"

/* The width as escaped in HTML of the code point whose first byte is c. */
static size_t width(unsigned char c)
{
	return c == '&' || c == '\'' ? 5 : c == '"' ? 6 : c == '<' || c == '>' ? 4 : 1;
}

void textcut_words(struct buf *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i, k, w = 0, cut = 0, word = 0, word_w = 0;
	uint32_t cp;

	for (i = 0; i < n; i += k) {
		k = utf8_next(u + i, n - i, &cp);
		w += width(u[i]);
		if (w < max)
			cut = i + k;   /* the text up to here still fits with "…" */
		if (w < max && i + k < n && s[i + k] == ' ' && s[i] != ' ') {
			word = i + k;   /* a word ends here, and fits with "…" */
			word_w = w;
		}
	}
	if (w <= max) {
		buf_add(out, s, n);
		return;
	}
	if (word && 2 * word_w >= max)
		cut = word;
	buf_add(out, s, cut);
	buf_puts(out, "\xe2\x80\xa6");
}

size_t textcut_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i, w = 0;
	uint32_t cp;

	for (i = 0; i < n; i += utf8_next(u + i, n - i, &cp))
		w += width(u[i]);
	return w;
}

void textcut(struct buf *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i, k, w = 0, cut = 0;
	uint32_t cp;

	for (i = 0; i < n; i += k) {
		k = utf8_next(u + i, n - i, &cp);
		w += width(u[i]);
		if (w < max)
			cut = i + k;   /* the text up to here still fits with "…" */
	}
	if (w <= max) {
		buf_add(out, s, n);
		return;
	}
	buf_add(out, s, cut);
	buf_puts(out, "\xe2\x80\xa6");
}

size_t textcut_hw(const char *s, size_t n, size_t *len)
{
	static const char *const vendors[] = { "nvidia", "geforce", "amd", "intel", "apple" };
	size_t at = 0, w, i;

	for (;;) {
		while (at < n && s[at] == ' ')
			at++;
		for (w = 0; at + w < n && s[at + w] != ' '; w++)
			;
		if (at + w == n)
			break;   /* the last word always stays */
		for (i = 0; i < NELEM(vendors); i++)
			if (w == strlen(vendors[i]) && !strncasecmp(s + at, vendors[i], w))
				break;
		if (i == NELEM(vendors))
			break;
		at += w;
	}
	while (n > at && s[n - 1] == ' ')
		n--;
	if (n - at > 4 && !strncasecmp(s + n - 4, " gpu", 4))
		n -= 4;
	while (n > at && s[n - 1] == ' ')
		n--;
	*len = n - at;
	return at;
}
