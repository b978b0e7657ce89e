/* badge_svg.c: the run badge as a shields.io-style flat SVG, and the
 * widths its text is laid out by (the message is badge_msg.c's). */
#include "render/badge_int.h"
#include "render/html.h"
#include "util/nelem.h"
#include "util/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- font metrics ------------------------------------------------------ */

/* Verdana 11px advance widths in hundredths of a px for U+0020..U+007E,
 * copied from anafanafo's data/verdana-11px-normal.json
 * (github.com/metabolize/anafanafo, measured in Chrome), the table shields.io's
 * badge-maker measures with.  Checks: 'm' 10.70 and "v1.2.511" 49.46 (its
 * tests: 10.7 and 49.48 +- 0.1); "build" 26.70, shields' 37 px "build" box. */
static const unsigned short ascii_w[0x7f - 0x20] = {
	387, 433, 505, 900, 699, 1184, 799, 295,     /* 0x20  !"#$%&' */
	500, 500, 699, 900, 400, 500, 400, 500,      /* 0x28 ()*+,-./ */
	699, 699, 699, 699, 699, 699, 699, 699,      /* 0x30 01234567 */
	699, 699, 500, 500, 900, 900, 900, 600,      /* 0x38 89:;<=>? */
	1100, 752, 754, 768, 848, 696, 632, 853,     /* 0x40 @ABCDEFG */
	827, 463, 500, 762, 612, 927, 823, 866,      /* 0x48 HIJKLMNO */
	663, 866, 765, 752, 678, 805, 752, 1088,     /* 0x50 PQRSTUVW */
	754, 677, 754, 500, 500, 500, 900, 699,      /* 0x58 XYZ[\]^_ */
	699, 661, 685, 573, 685, 655, 387, 685,      /* 0x60 `abcdefg */
	696, 302, 379, 651, 302, 1070, 696, 668,     /* 0x68 hijklmno */
	685, 685, 469, 573, 433, 696, 651, 900,      /* 0x70 pqrstuvw */
	651, 651, 578, 698, 500, 698, 900,           /* 0x78 xyz{|}~  */
};

/* The same table for U+00A0..U+00FF (U+00FF, missing there, takes 'y'). */
static const unsigned short latin1_w[0x100 - 0xa0] = {
	387, 433, 699, 699, 699, 699, 500, 699,      /* 0xA0 */
	699, 1100, 600, 709, 900, 0, 1100, 699,      /* 0xA8 */
	596, 900, 596, 596, 699, 706, 699, 400,      /* 0xB0 (B7 is ·) */
	699, 596, 600, 709, 1100, 1100, 1100, 600,   /* 0xB8 */
	752, 752, 752, 752, 752, 752, 1083, 768,     /* 0xC0 */
	696, 696, 696, 696, 463, 463, 463, 463,      /* 0xC8 */
	853, 823, 866, 866, 866, 866, 866, 900,      /* 0xD0 */
	866, 805, 805, 805, 805, 677, 666, 682,      /* 0xD8 */
	661, 661, 661, 661, 661, 661, 1051, 573,     /* 0xE0 */
	655, 655, 655, 655, 302, 302, 302, 302,      /* 0xE8 (E9 is é) */
	673, 696, 668, 668, 668, 668, 668, 900,      /* 0xF0 */
	668, 696, 696, 696, 696, 651, 685, 651,      /* 0xF8 */
};

/* Punctuation a name or the message may hold, from the same table, and two
 * characters Verdana lacks, from DejaVu Sans (next in our font-family):
 * U+2691 1836/2048 em and U+FFFD 2100/2048 em at 11px. */
static const struct { uint32_t cp; unsigned short w; } extra_w[] = {
	{ 0x2010, 636 }, { 0x2011, 636 }, { 0x2013, 699 }, { 0x2014, 1100 },
	{ 0x2018, 295 }, { 0x2019, 295 }, { 0x201c, 505 }, { 0x201d, 505 },
	{ 0x2022, 600 }, { 0x2026, 900 }, { 0x20ac, 699 }, { 0x2122, 1074 },
	{ 0x2691, 986 }, { 0xfffd, 1128 },
};

/* Code points that take no room: combining marks, zero-width and
 * bidirectional controls, variation selectors, the BOM. */
static const uint32_t zero_ranges[][2] = {
	{ 0x0300, 0x036f }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff },
};

/* East Asian wide code points and emoji: one em (11 px, as the table has
 * for CJK ideographs). */
static const uint32_t wide_ranges[][2] = {
	{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff },
	{ 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
	{ 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
	{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
	{ 0x1f680, 0x1f6ff }, { 0x1f900, 0x1faff }, { 0x20000, 0x3fffd },
};

#define W_WIDE 1100      /* one em */
#define W_FALLBACK 699   /* a digit; Verdana's letters average 6.2 to 7.5 */


/* Returns 1 if cp lies in one of the n [lo, hi] ranges. */
static int in_ranges(const uint32_t (*r)[2], size_t n, uint32_t cp)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

unsigned badge_cp_cents(uint32_t cp)
{
	size_t i;

	if (cp >= 0x20 && cp < 0x7f)
		return ascii_w[cp - 0x20];
	if (cp >= 0xa0 && cp <= 0xff)
		return latin1_w[cp - 0xa0];
	for (i = 0; i < NELEM(extra_w); i++)
		if (extra_w[i].cp == cp)
			return extra_w[i].w;
	if (in_ranges(zero_ranges, NELEM(zero_ranges), cp))
		return 0;
	if (in_ranges(wide_ranges, NELEM(wide_ranges), cp))
		return W_WIDE;
	return W_FALLBACK;
}

unsigned long badge_cents(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long sum = 0;
	uint32_t cp;

	while (n) {
		size_t k = utf8_next(p, n, &cp);
		sum += badge_cp_cents(cp);
		p += k, n -= k;
	}
	return sum;
}

unsigned long badge_cents_of(const char *s)
{
	return s ? badge_cents(s, strlen(s)) : 0;
}

/* See badge_svg.h. */
double badge_text_width(const char *utf8)
{
	return (double)badge_cents_of(utf8) / 100.0;
}

/* The px a text of width cents (hundredths of a px) takes in its box, as
 * shields' badge-maker lays it out: cut to a whole px, raised to an odd
 * one, and BADGE_HPAD on each side. */
long badge_box_px(unsigned long cents)
{
	long w = (long)(cents / 100);

	return (w % 2 ? w : w + 1) + 2 * BADGE_HPAD;
}

/* ---- the SVG ------------------------------------------------------------- */

/* The message box's color per state: hex for the SVG, shields' name.  The
 * hex are darker than shields' own so that white text reads at 4.5:1 or
 * more on every one (4.85:1 under the gradient's lighter top; the label's
 * #555 7.5:1); the names are for shields' endpoint, which draws its own. */
static const struct {
	const char *hex, *name;
} state_color[] = {
	[BADGE_OK] = { "#237a0f", "brightgreen" },
	[BADGE_OUTLIER] = { "#b34700", "orange" },
	[BADGE_UPHELD] = { "#c0392b", "red" },
	[BADGE_NOT_FOUND] = { "#5f6b75", "lightgrey" },
	[BADGE_WITHDRAWN] = { "#5f6b75", "lightgrey" },
};

/* See badge_svg.h. */
const char *badge_color(enum badge_state state)
{
	if ((unsigned)state > BADGE_NOT_FOUND)
		return NULL;
	return state_color[state].name;
}

/* Where everything goes, in whole px. */
struct layout {
	long label_tw, msg_tw;   /* text widths, cut to whole px, odd */
	long label_w, msg_w;     /* box widths: text plus padding */
};

/* Fills l for the two texts, both at 11 px, as badge-maker does: every
 * number comes from the width table. */
static void layout(struct layout *l, const char *label, const char *msg)
{
	l->label_w = badge_box_px(badge_cents_of(label));
	l->msg_w = badge_box_px(badge_cents_of(msg));
	l->label_tw = l->label_w - 2 * BADGE_HPAD;
	l->msg_tw = l->msg_w - 2 * BADGE_HPAD;
}

/* The opening tag, the accessible name and the rounded-corner clip. */
static void put_head(struct buf *out, const struct layout *l,
		     const char *label, const char *msg)
{
	long w = l->label_w + l->msg_w;

	buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%ld\""
		   " height=\"%d\" role=\"img\" aria-label=\"", w, BADGE_HEIGHT);
	html_attr(out, label);
	html_attr(out, ": ");
	html_attr(out, msg);
	buf_puts(out, "\"><title>");
	html_txt(out, label);
	html_txt(out, ": ");
	html_txt(out, msg);
	buf_puts(out, "</title><linearGradient id=\"s\" x2=\"0\" y2=\"100%\">"
		 "<stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/>"
		 "<stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>");
	buf_printf(out, "<clipPath id=\"r\"><rect width=\"%ld\" height=\"%d\""
		   " rx=\"3\" fill=\"#fff\"/></clipPath>", w, BADGE_HEIGHT);
}

/* The two colored boxes and the gradient over them. */
static void put_boxes(struct buf *out, const struct layout *l, const char *hex)
{
	buf_printf(out, "<g clip-path=\"url(#r)\">"
		   "<rect width=\"%ld\" height=\"%d\" fill=\"#555\"/>"
		   "<rect x=\"%ld\" width=\"%ld\" height=\"%d\" fill=\"%s\"/>"
		   "<rect width=\"%ld\" height=\"%d\" fill=\"url(#s)\"/></g>",
		   l->label_w, BADGE_HEIGHT, l->label_w, l->msg_w, BADGE_HEIGHT,
		   hex, l->label_w + l->msg_w, BADGE_HEIGHT);
}

/* One text, its shadow first, stretched to tw px and centred where
 * badge-maker puts it: margin px in, then the padding and half the text
 * (the label 1 px right of its box's middle, the message 1 px left of
 * its).  Coordinates are in tenths of a px: the group draws at font-size
 * 110 and each text scales by .1, as shields does. */
static void put_text(struct buf *out, long margin, long tw, const char *s)
{
	long x = 10 * margin + 5 * tw + 10 * BADGE_HPAD;

	buf_printf(out, "<text aria-hidden=\"true\" x=\"%ld\" y=\"150\""
		   " fill=\"#010101\" fill-opacity=\".3\" transform=\"scale(.1)\""
		   " textLength=\"%ld\">", x, tw * 10);
	html_txt(out, s);
	buf_printf(out, "</text><text x=\"%ld\" y=\"140\" transform=\"scale(.1)\""
		   " fill=\"#fff\" textLength=\"%ld\">", x, tw * 10);
	html_txt(out, s);
	buf_puts(out, "</text>");
}

/* The text group: the font once, then the label and the message, both at
 * 11 px as shields draws them. */
static void put_texts(struct buf *out, const struct layout *l,
		      const char *label, const char *msg)
{
	buf_puts(out, "<g fill=\"#fff\" text-anchor=\"middle\""
		 " font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\""
		 " text-rendering=\"geometricPrecision\" font-size=\"110\">");
	put_text(out, 1, l->label_tw, label);
	put_text(out, l->label_w - 1, l->msg_tw, msg);
	buf_puts(out, "</g>");
}

/* See badge_svg.h: appends the SVG and names its color, or returns -1. */
int badge_render_svg(const struct badge_in *in, struct buf *out,
		     const char **color_out)
{
	struct buf msg = BUF_INIT;
	struct layout l;
	int ret = -1;

	if (badge_message(in, &msg))
		goto out;
	layout(&l, badge_label(in), msg.buf);
	put_head(out, &l, badge_label(in), msg.buf);
	put_boxes(out, &l, state_color[in->state].hex);
	put_texts(out, &l, badge_label(in), msg.buf);
	buf_puts(out, "</svg>");
	if (buf_error(out))
		goto out;
	if (color_out)
		*color_out = state_color[in->state].name;
	ret = 0;
out:
	buf_release(&msg);
	return ret;
}
