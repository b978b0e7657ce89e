/* badge_svg.c: the run badge as a shields.io-style flat SVG, and its text. */
#include "render/badge_svg.h"
#include "render/html.h"
#include "util/utf8.h"
#include "util/numfmt.h"
#include "util/textcut.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MIDDOT " \xc2\xb7 "        /* " · " between the message's parts */
#define ELLIPSIS "\xe2\x80\xa6"    /* "…" ends a shortened name */
#define FLAG "\xe2\x9a\x91"        /* "⚑" marks an outlier's figure */
#define UTF8_FFFD "\xef\xbf\xbd"

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

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Returns 1 if cp lies in one of the n [lo, hi] ranges. */
static int in_ranges(const uint32_t (*r)[2], size_t n, uint32_t cp)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

/* The advance of one code point in hundredths of a px. */
static unsigned cp_width(uint32_t cp)
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

/* ---- UTF-8 --------------------------------------------------------------- */

/* Appends cp (a valid scalar value) to b as UTF-8. */
static void utf8_put(struct buf *b, uint32_t cp)
{
	char e[4];
	size_t n, i;

	if (cp < 0x80) {
		e[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		e[0] = (char)(0xc0 | cp >> 6), n = 2;
	} else if (cp < 0x10000) {
		e[0] = (char)(0xe0 | cp >> 12), n = 3;
	} else {
		e[0] = (char)(0xf0 | cp >> 18), n = 4;
	}
	for (i = 1; i < n; i++)
		e[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	buf_add(b, e, n);
}

/* The width of s in hundredths of a px (see badge_text_width). */
static unsigned long text_cents(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0;
	unsigned long sum = 0;
	uint32_t cp;

	while (n) {
		size_t k = utf8_next(p, n, &cp);
		sum += cp_width(cp);
		p += k, n -= k;
	}
	return sum;
}

/* See badge_svg.h. */
double badge_text_width(const char *utf8)
{
	return (double)text_cents(utf8) / 100.0;
}

/* ---- the message ----------------------------------------------------------- */

/* A view of bytes inside some other buffer. */
struct span {
	const char *p;
	size_t n;
};

/* 1 for the invisible format characters a badge drops: the bidi marks,
 * embeddings, overrides and isolates (which could reorder the badge's
 * other parts), zero-width spaces and joiners, the word joiner and
 * invisible operators, and the byte order mark. */
static int invisible(uint32_t cp)
{
	return cp == 0x061c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) ||
	       cp == 0xfeff;
}

/* Appends s to out as one line of text XML accepts: malformed UTF-8, C0
 * controls (tab and newline too), DEL, U+FFFE and U+FFFF become U+FFFD;
 * invisible format characters are left out. */
static void put_clean(struct buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	uint32_t cp;

	while (n) {
		size_t k = utf8_next(p, n, &cp);
		if (cp < 0x20 || cp == 0x7f || cp == 0xfffe || cp == 0xffff)
			cp = 0xfffd;
		if (!invisible(cp))
			utf8_put(out, cp);
		p += k, n -= k;
	}
}

/* Returns 1 for the characters a name's words are joined with. */
static int is_sep(char c)
{
	return c == '-' || c == '.' || c == ' ' || c == '_' || c == '/';
}

/* s without leading and trailing spaces, and without trailing separators. */
static struct span trim(struct span s)
{
	while (s.n && s.p[0] == ' ')
		s.p++, s.n--;
	while (s.n && is_sep(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* s after "org/" when s looks like a Hugging Face id, "org/name" with an
 * org of [A-Za-z0-9._-]: "Qwen/Qwen3-8B" is "Qwen3-8B". */
static struct span drop_org(struct span s)
{
	static const char org[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char *slash = memchr(s.p, '/', s.n);
	size_t i;

	if (!slash || slash == s.p || slash == s.p + s.n - 1 ||
	    memchr(slash + 1, '/', (size_t)(s.p + s.n - slash - 1)))
		return s;
	for (i = 0; s.p + i < slash; i++)
		if (!strchr(org, s.p[i]))
			return s;
	i++;
	s.p += i, s.n -= i;
	return s;
}

/* Returns 1 if the lower-case token t is a quantization: q4_k_m, iq4_xs,
 * q8_0, 4bit, 8bits. */
static int is_quant(const char *t)
{
	size_t d;

	if (t[0] == 'i' && t[1] == 'q')
		t++;
	if (t[0] == 'q' && t[1] >= '0' && t[1] <= '9')
		return strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(t);
	d = strspn(t, "0123456789");
	return d && (!strcmp(t + d, "bit") || !strcmp(t + d, "bits"));
}

/* Returns 1 if the token tok[0..n) says nothing a badge reader needs: a
 * variant, a format or a quantization. */
static int is_noise(const char *tok, size_t n)
{
	static const char *const words[] = {
		"instruct", "chat", "it", "hf", "gguf", "ggml", "mlx", "awq",
		"gptq", "exl2", "exl3", "ud", "dwq", "f16", "f32", "bf16",
		"fp16", "fp8", "fp4", "mxfp4", "nvfp4", "int4", "int8",
	};
	char t[16];
	size_t i;

	if (n == 0 || n >= sizeof t)
		return 0;
	for (i = 0; i < n; i++)
		t[i] = (char)(tok[i] >= 'A' && tok[i] <= 'Z' ? tok[i] + 32 : tok[i]);
	t[n] = '\0';
	for (i = 0; i < NELEM(words); i++)
		if (!strcmp(t, words[i]))
			return 1;
	return is_quant(t);
}

/* s without trailing noise tokens, each after a '-', '.' or ' ', keeping at
 * least the first token: "x-Instruct-Q4_K_M.gguf" is "x". */
static struct span drop_noise(struct span s)
{
	for (;;) {
		size_t i = s.n;
		while (i && s.p[i - 1] != '-' && s.p[i - 1] != '.' &&
		       s.p[i - 1] != ' ')
			i--;
		if (i < 2 || !is_noise(s.p + i, s.n - i))
			return s;
		s.n = i - 1;
	}
}

/* s without noise tokens inside it (after the first, split at '-' or ' '),
 * copied into tmp: "stable-code-instruct-3b" is "stable-code-3b".  On
 * running out of memory tmp is in error and s comes back as it was. */
static struct span drop_inner_noise(struct span s, struct buf *tmp)
{
	size_t i = 0, start;

	while (i < s.n) {
		start = i;
		while (i < s.n && s.p[i] != '-' && s.p[i] != ' ')
			i++;
		if (start == 0 || !is_noise(s.p + start, i - start))
			buf_add(tmp, s.p + (start ? start - 1 : 0),
				i - start + (start ? 1 : 0));
		if (i < s.n)
			i++;
	}
	if (buf_error(tmp) || !tmp->len)
		return s;
	return (struct span){ tmp->buf, tmp->len };
}

/* The width of s in hundredths of a px. */
static unsigned long span_cents(struct span s)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t n = s.n;
	unsigned long sum = 0;
	uint32_t cp;

	while (n) {
		size_t k = utf8_next(p, n, &cp);
		sum += cp_width(cp);
		p += k, n -= k;
	}
	return sum;
}

#define ELLIPSIS_CENTS 900UL   /* "…" */

/* 1 for the characters a name's words are joined with ('.' stays inside
 * a word: "3.1", "v0.3"). */
static int word_sep(char c)
{
	return c == '-' || c == ' ' || c == '_' || c == '/';
}

/* The longest start of s that ends at a word's end and fits in room
 * (hundredths of a px) with "…" after it; of length 0 when not even the
 * first word does. */
static struct span word_prefix(struct span s, unsigned long room)
{
	struct span best = { s.p, 0 };
	size_t i;

	for (i = 1; i < s.n; i++)
		if (word_sep(s.p[i]) && !word_sep(s.p[i - 1])) {
			struct span head = trim((struct span){ s.p, i });

			if (span_cents(head) + ELLIPSIS_CENTS <= room)
				best = head;
		}
	return best;
}

/* The longest start of s, in whole code points, that fits in room with
 * "…" after it. */
static struct span char_prefix(struct span s, unsigned long room)
{
	unsigned long w = ELLIPSIS_CENTS;
	size_t i = 0, k;
	uint32_t cp;

	while (i < s.n) {
		k = utf8_next((const unsigned char *)s.p + i, s.n - i, &cp);
		if (w + cp_width(cp) > room)
			break;
		w += cp_width(cp);
		i += k;
	}
	return trim((struct span){ s.p, i });
}

/* s in its short hardware form (textcut_hw). */
static struct span short_hw(struct span s)
{
	size_t len, at = textcut_hw(s.p, s.n, &len);

	return (struct span){ s.p + at, len };
}

/* Form k of hardware name s, from the fullest to the barest, each keeping
 * its model number (the first word with a digit: "4090", "395", "M3"):
 *   0  the short name: "Ryzen AI Max+ 395 (Radeon 8060S)", "RTX 4090 Laptop"
 *   1  without its part in parentheses: "Ryzen AI Max+ 395"
 *   2  from the word before the number: "Max+ 395", "RTX 4090 Laptop"
 *   3  from the number: "395", "4090 Laptop", "M3 Ultra"
 * Forms 0 and 1 are the ones that tell one GPU from another. */
static struct span hw_form(struct span s, int k)
{
	const char *paren;
	size_t i, num, prev;

	if (k == 0)
		return s;
	if ((paren = memchr(s.p, '(', s.n)) && paren > s.p)
		s = trim((struct span){ s.p, (size_t)(paren - s.p) });
	if (k == 1)
		return s;
	for (i = 0, num = s.n; i < s.n && num == s.n; i++)
		if (s.p[i] >= '0' && s.p[i] <= '9')
			for (num = i; num && s.p[num - 1] != ' '; num--)
				;
	if (num == s.n)
		return s;   /* no number to keep it by */
	for (prev = num; prev && s.p[prev - 1] == ' '; prev--)
		;
	while (prev && s.p[prev - 1] != ' ')
		prev--;
	i = k == 2 ? prev : num;
	return (struct span){ s.p + i, s.n - i };
}

/* The names as the badge shows them; a cut one is followed by "…". */
struct fit {
	struct span model, hw;
	int model_cut, hw_cut;
};

/* Fits hardware h alone into room: its fullest form that fits, else its
 * number onwards cut after a word, or at a code point. */
static void fit_hw(struct fit *f, struct span h, unsigned long room)
{
	int k;

	for (k = 0; k < 4; k++)
		if (span_cents(hw_form(h, k)) <= room) {
			f->hw = hw_form(h, k);
			return;
		}
	f->hw = word_prefix(hw_form(h, 3), room);
	if (!f->hw.n)
		f->hw = char_prefix(hw_form(h, 3), room);
	f->hw_cut = 1;
}

/* Fits model m alone into room: whole, else cut after its last word that
 * fits, else at a code point. */
static void fit_model(struct fit *f, struct span m, unsigned long room)
{
	if (span_cents(m) <= room) {
		f->model = m;
		return;
	}
	f->model = word_prefix(m, room);
	if (!f->model.n)
		f->model = char_prefix(m, room);
	f->model_cut = 1;
}

/* The number of words in s. */
static int words_in(struct span s)
{
	size_t i;
	int n = s.n > 0;

	for (i = 1; i < s.n; i++)
		n += word_sep(s.p[i - 1]) && !word_sep(s.p[i]);
	return n;
}

/* What each try keeps, best first: the hardware's forms lo..hi, and the
 * model whole (words 0) or cut after at least that many words. */
static const struct { int lo, hi, words; } tries[] = {
	{ 0, 1, 0 },   /* the telling hardware name, the model whole */
	{ 0, 1, 2 },   /* ... the model's first two words or more */
	{ 2, 2, 0 },   /* the number and the word before it, the model whole */
	{ 2, 2, 2 },
	{ 0, 1, 1 },   /* the telling hardware name, at least a word of the model */
	{ 3, 3, 0 },   /* the number on, the model whole */
	{ 2, 3, 1 },
};

/* Fits model m and hardware h into room hundredths of a px (the " · "
 * before each already taken off): the first of tries that fits, else half
 * the room each, cut at a code point when need be. */
static struct fit fit_names(struct span m, struct span h, unsigned long room)
{
	struct fit f = { m, h, 0, 0 };
	unsigned long hw;
	size_t t;
	int k;

	if (!h.n || !m.n) {
		if (h.n)
			fit_hw(&f, h, room);
		else
			fit_model(&f, m, room);
		return f;
	}
	for (t = 0; t < NELEM(tries); t++)
		for (k = tries[t].lo; k <= tries[t].hi; k++) {
			if ((hw = span_cents(hw_form(h, k))) >= room)
				continue;
			f.hw = hw_form(h, k);
			if (span_cents(m) <= room - hw)
				return f.model = m, f;
			f.model = word_prefix(m, room - hw);
			if (tries[t].words && words_in(f.model) >= tries[t].words)
				return f.model_cut = 1, f;
		}
	/* Neither fits as it should: the shorter name whole when it takes
	 * at most half the room, the other cut to the rest; else half each. */
	f.model_cut = f.hw_cut = 0;
	if (span_cents(m) <= room / 2 || span_cents(hw_form(h, 3)) > room / 2) {
		fit_model(&f, m, room / 2);
		hw = span_cents(f.model) + (f.model_cut ? ELLIPSIS_CENTS : 0);
		fit_hw(&f, h, room > hw ? room - hw : 0);
	} else {
		fit_hw(&f, h, room / 2);
		hw = span_cents(f.hw) + (f.hw_cut ? ELLIPSIS_CENTS : 0);
		fit_model(&f, m, room > hw ? room - hw : 0);
	}
	return f;
}

/* Appends " · " and s (with "…" when cut), or nothing for an empty s. */
static void put_name(struct buf *out, struct span s, int cut)
{
	if (!s.n)
		return;
	buf_puts(out, MIDDOT);
	buf_add(out, s.p, s.n);
	if (cut)
		buf_puts(out, ELLIPSIS);
}

/* Appends the figure and " tok/s" (formats in badge_message's comment). */
static void put_figure(struct buf *out, double v)
{
	if (!isfinite(v) || v < 0)
		buf_puts(out, "?");
	else if (v >= 1e9)
		buf_puts(out, ">999,999,999");
	else if (v >= 0.0001 || v == 0)
		numfmt_fig(out, v);
	else
		buf_puts(out, "<0.0001");
	buf_puts(out, " tok/s");
}

/* See badge_svg.h. */
const char *badge_label(const struct badge_in *in)
{
	return in && in->demo ? BADGE_LABEL_DEMO : BADGE_LABEL;
}

/* The px a text of width cents (hundredths of a px) takes in its box, as
 * shields' badge-maker lays it out: cut to a whole px, raised to an odd
 * one, and BADGE_HPAD on each side. */
static long box_px(unsigned long cents)
{
	long w = (long)(cents / 100);

	return (w % 2 ? w : w + 1) + 2 * BADGE_HPAD;
}

/* A name cleaned (put_clean) into clean, as a span of it; with model set,
 * without its org and its variant and quantization words. */
static struct span clean_name(const char *name, struct buf *clean, struct buf *tight, int model)
{
	struct span s;

	if (!name)
		return (struct span){ "", 0 };
	put_clean(clean, name);
	if (buf_error(clean))
		return (struct span){ "", 0 };
	s = trim((struct span){ clean->buf, clean->len });
	if (model)
		return trim(drop_inner_noise(trim(drop_noise(drop_org(s))), tight));
	return short_hw(s);
}

/* See badge_svg.h: appends the message, or returns -1. */
int badge_message(const struct badge_in *in, struct buf *out)
{
	struct buf cm = BUF_INIT, ch = BUF_INIT, tight = BUF_INIT;
	unsigned long room, head;
	struct span m, h;
	struct fit f;
	size_t from = out->len;
	long r;
	int ret = -1;

	if (!in || (unsigned)in->state > BADGE_WITHDRAWN)
		return -1;
	if (in->state == BADGE_NOT_FOUND) {
		buf_puts(out, "run not found");
		return buf_error(out);
	}
	if (in->state == BADGE_UPHELD) {
		buf_puts(out, "disputed: upheld");
	} else if (in->state == BADGE_WITHDRAWN) {
		buf_puts(out, "withdrawn");
	} else {
		if (in->state == BADGE_OUTLIER)
			buf_puts(out, FLAG " ");
		put_figure(out, in->decode_tok_s);
	}
	m = clean_name(in->model, &cm, &tight, 1);
	h = clean_name(in->hardware, &ch, NULL, 0);
	if (buf_error(out) || buf_error(&cm) || buf_error(&ch) || buf_error(&tight))
		goto out;
	/* What the names may take: the message's text may be r px wide once
	 * cut to a whole px and raised to an odd one (box_px), r being the
	 * badge's width less the label's box and the padding; so under r + 1
	 * px when r is odd, under r when it is even; less its head and a " · "
	 * before each name. */
	head = text_cents(out->buf + from) + (m.n ? text_cents(MIDDOT) : 0) + (h.n ? text_cents(MIDDOT) : 0);
	r = BADGE_MAX_WIDTH - box_px(text_cents(badge_label(in))) - 2 * BADGE_HPAD;
	room = r > 0 ? (unsigned long)(r % 2 ? r + 1 : r) * 100 - 1 : 0;
	room = room > head ? room - head : 0;
	f = fit_names(m, h, room);
	put_name(out, f.model, f.model_cut);
	put_name(out, f.hw, f.hw_cut);
	ret = buf_error(out);
out:
	buf_release(&tight);
	buf_release(&ch);
	buf_release(&cm);
	return ret;
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
	l->label_w = box_px(text_cents(label));
	l->msg_w = box_px(text_cents(msg));
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
