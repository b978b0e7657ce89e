/* html.c: escapers for HTML/XML text, attributes and URL arguments. */
#include "render/html.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

/* Appends the entity for c, or returns 0 when c needs none. */
static int put_entity(struct buf *b, unsigned char c, int attr)
{
	switch (c) {
	case '&': buf_puts(b, "&amp;"); return 1;
	case '<': buf_puts(b, "&lt;"); return 1;
	case '>': buf_puts(b, "&gt;"); return 1;
	case '"': buf_puts(b, "&quot;"); return 1;
	case '\'': buf_puts(b, "&#39;"); return 1;
	case '\t': case '\n': case '\r':
		if (!attr)
			return 0;
		buf_printf(b, "&#%d;", c);
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		buf_puts(b, "\xef\xbf\xbd");
		return 1;
	}
	return 0;
}

/* The length of the bidirectional formatting character at s (n bytes
 * left): the embeddings and overrides U+202A..U+202E, the isolates
 * U+2066..U+2069, the marks U+200E, U+200F and U+061C; 0 for anything
 * else.  *pdi is set when it is U+2069 POP DIRECTIONAL ISOLATE, *opens
 * when it starts an isolate. */
static size_t bidi_at(const unsigned char *s, size_t n, int *pdi, int *opens)
{
	*pdi = *opens = 0;
	if (n >= 2 && s[0] == 0xd8 && s[1] == 0x9c)
		return 2;
	if (n < 3 || s[0] != 0xe2)
		return 0;
	if (s[1] == 0x80 && ((s[2] >= 0xaa && s[2] <= 0xae) || s[2] == 0x8e || s[2] == 0x8f))
		return 3;
	if (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9) {
		*pdi = s[2] == 0xa9;
		*opens = !*pdi;
		return 3;
	}
	return 0;
}

/* 1 when s holds a bidirectional formatting character. */
static int has_bidi(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	int pdi, opens;
	size_t i;

	for (i = 0; i < n; i++)
		if ((p[i] == 0xe2 || p[i] == 0xd8) && bidi_at(p + i, n - i, &pdi, &opens))
			return 1;
	return 0;
}

/* The length of the character at s (n bytes left, s[0] >= 0x80): its
 * byte count, with *ok set when XML 1.0 allows it; 1 with *ok clear for a
 * malformed byte.  A well-formed sequence is never a surrogate or a C0
 * control, so only U+FFFE and U+FFFF are left out here. */
static size_t xml_char_at(const unsigned char *s, size_t n, int *ok)
{
	uint32_t cp;
	size_t k = utf8_seq(s, n, &cp);

	*ok = k && utf8_is_xml_char(cp);
	return k ? k : 1;
}

/* Escapes s[0..n) without bidi isolation; every character outside XML
 * 1.0's Char production (C0 controls but tab, LF and CR; U+FFFE, U+FFFF)
 * and every malformed byte comes out as U+FFFD, so that Atom and SVG stay
 * well-formed whatever the stored text holds. */
static void escape_plain(struct buf *b, const char *s, size_t n, int attr)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, start = 0, k;
	int ok;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c >= 0x80) {
			k = xml_char_at(p + i, n - i, &ok);
			if (!ok) {
				buf_add(b, s + start, i - start);
				buf_puts(b, "\xef\xbf\xbd");
				start = i + k;
			}
			i += k - 1;
			continue;
		}
		if (c >= 0x3f && c != 0x7f)   /* fast path: nothing to escape */
			continue;
		if (c >= 0x20 && c != '&' && c != '<' && c != '>' &&
		    c != '"' && c != '\'' && c != 0x7f)
			continue;
		if (!attr && (c == '\t' || c == '\n' || c == '\r'))
			continue;
		buf_add(b, s + start, i - start);
		put_entity(b, c, attr);
		start = i + 1;
	}
	buf_add(b, s + start, n - start);
}

/* Escapes s; text with bidirectional formatting characters is isolated
 * between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE,
 * so an override it opens (U+202E) ends with it and cannot reorder the
 * page around it.  A U+2069 of its own that would close that isolate early
 * (one without an isolate of its own to close) is dropped, and an isolate
 * of its own left open is closed before it, so that its U+2069 closes
 * its own isolate and not the text's (issue 37, L5). */
static void escape(struct buf *b, const char *s, size_t n, int attr)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, start = 0, k;
	int pdi, opens, depth = 0;

	if (!has_bidi(s, n)) {
		escape_plain(b, s, n, attr);
		return;
	}
	buf_puts(b, "\xe2\x81\xa8");
	for (i = 0; i < n; i += k ? k : 1) {
		k = bidi_at(p + i, n - i, &pdi, &opens);
		if (opens)
			depth++;
		if (!pdi)
			continue;
		if (depth) {
			depth--;
			continue;
		}
		escape_plain(b, s + start, i - start, attr);
		start = i + k;
	}
	escape_plain(b, s + start, n - start, attr);
	while (depth--)                 /* its own isolates left open close here */
		buf_puts(b, "\xe2\x81\xa9");
	buf_puts(b, "\xe2\x81\xa9");
}

void html_txt_n(struct buf *b, const char *s, size_t n)
{
	escape(b, s, n, 0);
}

void html_txt(struct buf *b, const char *s)
{
	if (s)
		escape(b, s, strlen(s), 0);
}

void html_attr(struct buf *b, const char *s)
{
	if (s)
		escape(b, s, strlen(s), 1);
}

void html_url_arg(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	if (!s)
		return;
	for (p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			buf_putc(b, (char)c);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			buf_add(b, e, 3);
		}
	}
}

void html_txt_lines(struct buf *b, const char *s)
{
	const char *nl;

	if (!s)
		return;
	while ((nl = strchr(s, '\n'))) {
		size_t n = (size_t)(nl - s);
		if (n && s[n - 1] == '\r')
			n--;
		html_txt_n(b, s, n);
		buf_puts(b, "<br>\n");
		s = nl + 1;
	}
	html_txt(b, s);
}
