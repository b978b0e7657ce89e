/* buf.h: a growable string buffer with a sticky error.
 *
 * b->buf is never NULL and is always NUL-terminated, so it can be passed to
 * any C string function at any time.  Appends never fail visibly: when an
 * allocation fails (or the buffer would pass its limit) the buffer stops
 * growing and remembers the error; read it once at the end with buf_error().
 *
 *   struct buf b = BUF_INIT;
 *   buf_puts(&b, "hello");
 *   if (buf_error(&b)) goto out;
 *   ...
 *   buf_release(&b);
 */
#ifndef LLMS_BUF_H
#define LLMS_BUF_H

#include <stdarg.h>
#include <stddef.h>

extern char buf_slop[1];

struct buf {
	char *buf;     /* never NULL, always NUL-terminated */
	size_t len;    /* bytes used, not counting the NUL */
	size_t cap;    /* bytes allocated; 0 while buf points at buf_slop */
	int err;       /* sticky: set on the first failed append */
};

#define BUF_INIT { buf_slop, 0, 0, 0 }

/* Largest buffer we will ever grow to; past it the buffer sets err. */
#define BUF_MAX ((size_t)256 << 20)

void buf_init(struct buf *b);
/* Frees the memory and leaves b as BUF_INIT. */
void buf_release(struct buf *b);
/* Hands the malloc'd string to the caller (who frees it) and resets b.
 * Never returns NULL unless the buffer is in error. */
char *buf_detach(struct buf *b, size_t *len);
/* Empties b but keeps its memory; clears the error. */
void buf_reset(struct buf *b);
/* Makes room for at least extra more bytes; sets err on failure. */
void buf_grow(struct buf *b, size_t extra);

void buf_add(struct buf *b, const void *data, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Returns 0 when every append so far succeeded, -1 otherwise. */
static inline int buf_error(const struct buf *b) { return b->err ? -1 : 0; }

#endif
