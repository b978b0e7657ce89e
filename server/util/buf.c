/* buf.c: the growable string buffer with a sticky error (see buf.h). */
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char buf_slop[1];

void buf_init(struct buf *b)
{
	b->buf = buf_slop;
	b->len = b->cap = 0;
	b->err = 0;
}

void buf_release(struct buf *b)
{
	if (b->cap)
		free(b->buf);
	buf_init(b);
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *s;

	if (b->err) {
		buf_release(b);
		return NULL;
	}
	if (!b->cap) {
		s = calloc(1, 1);
	} else {
		s = b->buf;
	}
	if (len)
		*len = b->len;
	buf_init(b);
	return s;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->cap)
		b->buf[0] = '\0';
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->err)
		return;
	if (extra > BUF_MAX || b->len + extra + 1 > BUF_MAX) {
		b->err = 1;
		return;
	}
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->cap ? b->buf : NULL, cap);
	if (!p) {
		b->err = 1;
		return;
	}
	if (!b->cap)
		p[0] = '\0';
	b->buf = p;
	b->cap = cap;
}

void buf_add(struct buf *b, const void *data, size_t n)
{
	if (!n)
		return;
	buf_grow(b, n);
	if (b->err)
		return;
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (b->err)
		return;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		b->err = 1;
		return;
	}
	buf_grow(b, (size_t)n);
	if (b->err)
		return;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}
