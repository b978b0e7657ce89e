/* fuzz_card.c: libFuzzer target for the link-preview card
 * (server/render/card_svg.c) over any name bytes: the first byte picks the
 * mark, the demo flag and the row count, the rest is split at NULs into
 * the model, the hardware, the backend and its version (the page card
 * takes the same pieces as its title, subtitle and rows).  Both cards
 * render, every isolate opened is closed, every '<' opens one of the
 * card's own tags and every '&' one of the escaper's entities (so no name
 * became markup), and nothing is a control character or bad UTF-8. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/card_svg.h"
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

/* 1 when p starts one of the strings in list. */
static int starts_one(const char *p, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(p, *list, strlen(*list)))
			return 1;
	return 0;
}

/* Asserts what the file comment promises of the SVG in b. */
static void check(const struct buf *b)
{
	static const char *const tags[] = {
		"<svg ", "</svg>", "<title>", "</title>", "<rect ", "<g ", "</g>",
		"<text ", "</text>", "<tspan ", "</tspan>", NULL
	};
	static const char *const ents[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#9;", "&#10;", "&#13;", NULL
	};
	size_t opens = 0, closes = 0;
	const char *p;

	assert(clean_utf8((const unsigned char *)b->buf, b->len));
	for (p = b->buf; (p = strchr(p, '<')); p++)
		assert(starts_one(p, tags));
	for (p = b->buf; (p = strchr(p, '&')); p++)
		assert(starts_one(p, ents));
	for (p = b->buf; (p = strstr(p, "\xe2\x81\xa8")); p += 3)
		opens++;
	for (p = b->buf; (p = strstr(p, "\xe2\x81\xa9")); p += 3)
		closes++;
	assert(opens == closes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct card_run in = { 112.2, 1520.4, 212.0, "", "", "", "", CARD_MARK_NONE, 0 };
	struct card_page pg = { "model", "", "", "Fastest hardware", "decode tok/s", { { 0 } }, 0, 0 };
	const char *part[4] = { "", "", "", "" };
	struct buf a = BUF_INIT, b = BUF_INIT;
	char *text, *p, *end;
	size_t i;

	if (!size)
		return 0;
	in.mark = (enum card_mark)(data[0] % CARD_MARK__MAX);
	in.demo = pg.demo = data[0] >> 7;
	in.decode_tok_s = (double)(data[0] * 997 % 100000) / 10.0;
	if (!(text = malloc(size)))
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	end = text + size - 1;
	for (i = 0, p = text; i < 4 && p <= end; i++, p += strlen(p) + 1)
		part[i] = p;
	in.model = pg.title = part[0];
	in.hardware = pg.subtitle = part[1];
	in.backend = part[2];
	in.backend_version = part[3];
	pg.nrows = (size_t)(data[0] >> 4 & 7);
	for (i = 0; i < CARD_ROWS_MAX; i++)
		pg.rows[i] = (struct card_row){ part[i % 4], (double)(i * data[0]), (int)(i & 1) };
	assert(card_render_run(&in, &a) == 0);
	check(&a);
	assert(card_render_page(&pg, &b) == 0);
	check(&b);
	buf_release(&b);
	buf_release(&a);
	free(text);
	return 0;
}
