/* jsonw.c: the one JSON writer (see jsonw.h). */
#include "util/jsonw.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/utf8.h"

#define JSONW_MAX_DEPTH 2048

int jsonw_real(struct buf *b, double x)
{
	char num[NUMFMT_SHORTEST_LEN];

	if (numfmt_shortest(num, x) < 0)
		return -1;
	buf_puts(b, num);
	if (!strpbrk(num, ".e"))
		buf_puts(b, ".0");
	return 0;
}

/* Appends \uXXXX for the code point (a surrogate pair past U+FFFF), hex in
 * capitals as jansson writes it. */
static void put_escape(struct buf *b, uint32_t cp)
{
	if (cp < 0x10000) {
		buf_printf(b, "\\u%04X", (unsigned)cp);
		return;
	}
	cp -= 0x10000;
	buf_printf(b, "\\u%04X\\u%04X", (unsigned)(0xD800 | (cp >> 10)),
		   (unsigned)(0xDC00 | (cp & 0x3FF)));
}

/* Whether cp could end or change an HTML script element's text, or a
 * JavaScript string, if it stood unescaped. */
static int is_script_special(uint32_t cp)
{
	return cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029;
}

/* Appends s[0..n) as a JSON string: '"' and '\\' escaped, control
 * characters as \b \f \n \r \t or \u00XX, and with JSONW_ASCII every code
 * point past U+007F as \uXXXX, with JSONW_SCRIPT what could end or change
 * an HTML script element (see jsonw.h).  -1 when s is not well-formed UTF-8. */
static int put_string(struct buf *b, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
	static const char short_esc[] = { ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
					  ['\r'] = 'r', ['\t'] = 't' };
	uint32_t cp;
	size_t len;

	buf_putc(b, '"');
	while (p < end) {
		if (!(len = utf8_seq(p, (size_t)(end - p), &cp)))
			return -1;
		if (cp >= 0x20 && cp != '"' && cp != '\\' && (cp < 0x80 || !(flags & JSONW_ASCII)) &&
		    (!(flags & JSONW_SCRIPT) || !is_script_special(cp))) {
			p += len;
			continue;
		}
		buf_add(b, run, (size_t)(p - run));
		if (cp == '"' || cp == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)cp);
		} else if (cp < sizeof short_esc && short_esc[cp]) {
			buf_putc(b, '\\');
			buf_putc(b, short_esc[cp]);
		} else {
			put_escape(b, cp);
		}
		p += len;
		run = p;
	}
	buf_add(b, run, (size_t)(p - run));
	buf_putc(b, '"');
	return 0;
}

static int put_value(struct buf *b, const json_t *v, unsigned flags, int depth);

/* An object's members in insertion order, as jansson keeps them. */
static int put_object(struct buf *b, json_t *o, unsigned flags, int depth)
{
	void *it;
	int first = 1;

	buf_putc(b, '{');
	for (it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
		if (!first)
			buf_putc(b, ',');
		first = 0;
		if (put_string(b, json_object_iter_key(it), json_object_iter_key_len(it), flags) < 0)
			return -1;
		buf_putc(b, ':');
		if (put_value(b, json_object_iter_value(it), flags, depth + 1) < 0)
			return -1;
	}
	buf_putc(b, '}');
	return 0;
}

static int put_value(struct buf *b, const json_t *v, unsigned flags, int depth)
{
	size_t i;

	if (depth > JSONW_MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return put_object(b, (json_t *)v, flags, depth);
	case JSON_ARRAY:
		buf_putc(b, '[');
		for (i = 0; i < json_array_size(v); i++) {
			if (i)
				buf_putc(b, ',');
			if (put_value(b, json_array_get(v, i), flags, depth + 1) < 0)
				return -1;
		}
		buf_putc(b, ']');
		return 0;
	case JSON_STRING:
		return put_string(b, json_string_value(v), json_string_length(v), flags);
	case JSON_INTEGER:
		buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		return jsonw_real(b, json_real_value(v));
	case JSON_TRUE:
		buf_puts(b, "true");
		return 0;
	case JSON_FALSE:
		buf_puts(b, "false");
		return 0;
	case JSON_NULL:
		buf_puts(b, "null");
		return 0;
	}
	return -1;
}

int jsonw_buf(struct buf *b, const json_t *v, unsigned flags)
{
	return v ? put_value(b, v, flags, 0) : -1;
}

char *jsonw_dumps(const json_t *v, unsigned flags)
{
	struct buf b = BUF_INIT;

	if (jsonw_buf(&b, v, flags) < 0 || buf_error(&b)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}
