/* shell.c: one shell word per argument (shell.h). */
#include "render/shell.h"

#include <string.h>

int shell_arg(struct buf *b, const char *s)
{
	const char *q;

	if (!s || !*s || *s == '-')
		return -1;
	buf_putc(b, '\'');
	while ((q = strchr(s, '\''))) {
		buf_add(b, s, (size_t)(q - s));
		buf_puts(b, "'\\''");
		s = q + 1;
	}
	buf_puts(b, s);
	buf_putc(b, '\'');
	return 0;
}
