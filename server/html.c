/* html.c: escapers for HTML/XML text, attributes and URL arguments. */
#include "html.h"

#include <string.h>

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

static void escape(struct buf *b, const char *s, size_t n, int attr)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
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
