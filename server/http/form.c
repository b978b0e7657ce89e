/* form.c: application/x-www-form-urlencoded decoding. */
#include "http/form.h"

#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes one urlencoded value into out; -1 on a broken %-escape. */
static int url_decode(const char *s, size_t n, struct buf *out)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] == '+') {
			buf_putc(out, ' ');
		} else if (s[i] != '%') {
			buf_putc(out, s[i]);
		} else {
			if (i + 2 >= n)
				return -1;
			if ((hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0)
				return -1;
			buf_putc(out, (char)(hi * 16 + lo));
			i += 2;
		}
	}
	return 0;
}

int form_field(const char *s, size_t n, const char *name, struct buf *out)
{
	const char *p = s, *end = s + n, *amp, *eq, *v;
	size_t nl = strlen(name);

	while (p < end) {
		amp = memchr(p, '&', (size_t)(end - p));
		if (!amp)
			amp = end;
		eq = memchr(p, '=', (size_t)(amp - p));
		if ((size_t)((eq ? eq : amp) - p) == nl && !memcmp(p, name, nl)) {
			v = eq ? eq + 1 : amp;
			return url_decode(v, (size_t)(amp - v), out) < 0 ? -1 : 1;
		}
		p = amp + 1;
	}
	return 0;
}
