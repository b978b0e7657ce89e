/* fuzz_badge.c: libFuzzer target for the run badge's message and SVG
 * (server/render/badge_svg.c) over any model and hardware bytes: the first
 * byte picks the state and the demo flag, the rest is the model, a NUL, the
 * hardware.  The message is well-formed UTF-8 with no control character,
 * and the badge is never wider than BADGE_MAX_WIDTH. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/badge_svg.h"
#include "util/buf.h"

/* 1 when s (n bytes) is well-formed UTF-8 without C0 controls or DEL. */
static int clean_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		unsigned c = s[i];

		if (c < 0x20 || c == 0x7f)
			return 0;
		k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		    c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!k || i + k > n)
			return 0;
		while (--k)
			if ((s[++i] & 0xc0) != 0x80)
				return 0;
		i++;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct badge_in in = { BADGE_OK, 112.2, NULL, NULL, 0 };
	struct buf msg = BUF_INIT, svg = BUF_INIT;
	char *text, *nul;
	const char *w;

	if (!size)
		return 0;
	in.state = (enum badge_state)(data[0] % 5);
	in.demo = data[0] >> 7;
	in.decode_tok_s = (double)(data[0] * 997 % 100000) / 10.0;
	if (!(text = malloc(size + 1)))
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	in.model = text;
	nul = memchr(text, '\0', size - 1);
	in.hardware = nul && nul < text + size - 1 ? nul + 1 : "";
	assert(badge_message(&in, &msg) == 0);
	assert(clean_utf8((const unsigned char *)msg.buf, msg.len));
	assert(badge_render_svg(&in, &svg, NULL) == 0);
	w = strstr(svg.buf, " width=\"");
	assert(w && atol(w + 8) <= BADGE_MAX_WIDTH);
	buf_release(&svg);
	buf_release(&msg);
	free(text);
	return 0;
}
