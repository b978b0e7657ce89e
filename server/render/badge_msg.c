/* badge_msg.c: the run badge's message, the text of its right half: the
 * figure, then the model and the hardware, cleaned and shortened at word
 * boundaries to fit the badge's width. */
#include "render/badge_int.h"
#include "util/numfmt.h"
#include "util/textcut.h"
#include "util/nelem.h"
#include "util/utf8.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#define MIDDOT " \xc2\xb7 "        /* " · " between the message's parts */
#define ELLIPSIS "\xe2\x80\xa6"    /* "…" ends a shortened name */
#define FLAG "\xe2\x9a\x91"        /* "⚑" marks an outlier's figure */

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

/* s without a maker's name as its first word when more follows:
 * "Meta-Llama-3.1-8B" is "Llama-3.1-8B" (the org of a Hugging Face id is
 * drop_org's). */
static struct span drop_vendor(struct span s)
{
	static const char *const vendors[] = { "meta", "mistralai", "microsoft", "google", "ibm", "nvidia" };
	size_t i, w;

	for (w = 0; w < s.n && s.p[w] != '-' && s.p[w] != ' '; w++)
		;
	if (w + 1 >= s.n)
		return s;
	for (i = 0; i < NELEM(vendors); i++)
		if (w == strlen(vendors[i]) && !strncasecmp(s.p, vendors[i], w))
			return (struct span){ s.p + w + 1, s.n - w - 1 };
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
	return badge_cents(s.p, s.n);
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
		if (w + badge_cp_cents(cp) > room)
			break;
		w += badge_cp_cents(cp);
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
 *   1  without its part in parentheses or after " w/ ": "Ryzen AI Max+ 395"
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
	/* "Ryzen AI Max+ 395 w/ Radeon 8060S": the part after "w/" too. */
	for (i = 1; i + 4 <= s.n; i++)
		if (!memcmp(s.p + i, " w/ ", 4)) {
			s = trim((struct span){ s.p, i });
			break;
		}
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

/* The names as the badge shows them; a cut one is followed by "…".  A
 * model cut in its middle is model, "…", then model_tail (its size). */
struct fit {
	struct span model, hw;
	int model_cut, hw_cut;
	struct span model_tail;
};

/* 1 if the word w[0..n) gives a model's size: "8B", "405b", "1.5B",
 * "270M", and the active size of a mixture "A3B", "E4B". */
static int is_size(const char *w, size_t n)
{
	size_t i = 0, d;

	if (n && (w[0] == 'A' || w[0] == 'a' || w[0] == 'E' || w[0] == 'e'))
		i = 1;
	for (d = i; d < n && ((w[d] >= '0' && w[d] <= '9') || (d > i && w[d] == '.')); d++)
		;
	return d > i && d + 1 == n && strchr("BbMm", w[d]) && w[i] != '.';
}

/* Where the size words of s lie: from the start of the first to the end of
 * the last, into *lo and *hi; 0 when s has none. */
static int size_words(struct span s, size_t *lo, size_t *hi)
{
	size_t i = 0, start;
	int found = 0;

	while (i < s.n) {
		start = i;
		while (i < s.n && !word_sep(s.p[i]))
			i++;
		if (is_size(s.p + start, i - start)) {
			if (!found)
				*lo = start;
			*hi = i;
			found = 1;
		}
		while (i < s.n && word_sep(s.p[i]))
			i++;
	}
	return found;
}

/* Cuts model m to room at word boundaries, keeping its size: the longest
 * start of whole words that fits with "…" when it keeps every size word
 * (or m has none); else its first words, "…" and its size words
 * ("Qwen3…30B-A3B"); else the start that fits.  Sets f's model,
 * model_tail and model_cut; the model is empty when not a word fits.
 * Returns 1 when the cut keeps the size (or m gives none), else 0. */
static int cut_model(struct fit *f, struct span m, unsigned long room)
{
	struct span head = word_prefix(m, room), tail;
	size_t lo = 0, hi = 0, at, cand[2], i;
	unsigned long tw;

	f->model = head, f->model_tail = (struct span){ "", 0 }, f->model_cut = 1;
	if (!size_words(m, &lo, &hi) || (size_t)(head.p + head.n - m.p) >= hi)
		return head.n > 0;
	/* The tail from the version before the size ("3.1-8B") when it fits,
	 * else from the size ("8B"). */
	for (at = lo; at && word_sep(m.p[at - 1]); at--)
		;
	while (at && !word_sep(m.p[at - 1]))
		at--;
	cand[0] = at && at < lo && m.p[at] >= '0' && m.p[at] <= '9' ? at : lo;
	cand[1] = lo;
	for (i = 0; i < 2; i++) {
		tail = (struct span){ m.p + cand[i], hi - cand[i] };
		if ((tw = span_cents(tail)) >= room)
			continue;
		head = word_prefix(trim((struct span){ m.p, cand[i] }), room - tw);
		if (!head.n)
			continue;
		f->model = head, f->model_tail = tail;
		return 1;
	}
	return 0;
}

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
	cut_model(f, m, room);
	if (!f->model.n)
		f->model = char_prefix(m, room);
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
	struct fit f = { m, h, 0, 0, { "", 0 } };
	unsigned long hw;
	size_t t;
	int k, pass, sized;

	if (!h.n || !m.n) {
		if (h.n)
			fit_hw(&f, h, room);
		else
			fit_model(&f, m, room);
		return f;
	}
	/* First only cuts that keep the model's size, then any. */
	for (pass = 0; pass < 2; pass++)
		for (t = 0; t < NELEM(tries); t++)
			for (k = tries[t].lo; k <= tries[t].hi; k++) {
				if ((hw = span_cents(hw_form(h, k))) >= room)
					continue;
				f.hw = hw_form(h, k);
				if (span_cents(m) <= room - hw) {
					f.model = m, f.model_cut = 0, f.model_tail = (struct span){ "", 0 };
					return f;
				}
				sized = cut_model(&f, m, room - hw);
				if (tries[t].words && (sized || pass) &&
				    words_in(f.model) + words_in(f.model_tail) >= tries[t].words)
					return f;
			}
	/* Neither fits as it should: the shorter name whole when it takes
	 * at most half the room, the other cut to the rest; else half each. */
	f.model_cut = f.hw_cut = 0;
	f.model_tail = (struct span){ "", 0 };
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

/* Appends " · " and s (with "…" when cut, then tail if any), or nothing
 * for an empty s. */
static void put_name(struct buf *out, struct span s, int cut, struct span tail)
{
	if (!s.n)
		return;
	buf_puts(out, MIDDOT);
	buf_add(out, s.p, s.n);
	if (cut)
		buf_puts(out, ELLIPSIS);
	if (cut && tail.n)
		buf_add(out, tail.p, tail.n);
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
	return in && in->demo ? BADGE_LABEL_DEMO
	     : in && in->state == BADGE_UNCONFIRMED ? BADGE_LABEL_UNCONFIRMED : BADGE_LABEL;
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
		return trim(drop_inner_noise(trim(drop_noise(drop_vendor(drop_org(s)))), tight));
	return short_hw(s);
}

/* See badge_svg.h: appends the message, or returns -1. */
int badge_message(const struct badge_in *in, struct buf *out)
{
	struct buf cm = BUF_INIT, ch = BUF_INIT, tight = BUF_INIT;
	unsigned long room, head, all;
	struct span m, h;
	struct fit f;
	size_t from = out->len, names;
	long r;
	int ret = -1;

	if (!in || (unsigned)in->state >= BADGE__MAX)
		return -1;
	if (in->state == BADGE_NOT_FOUND) {
		buf_puts(out, "run not found");
		return buf_error(out);
	}
	if (in->state == BADGE_UPHELD) {
		buf_puts(out, "disputed: upheld");
	} else if (in->state == BADGE_WITHDRAWN) {
		buf_puts(out, "withdrawn");
	} else if (in->state == BADGE_CAPPED) {
		buf_puts(out, "not counted");
	} else {
		if (in->state == BADGE_DISPUTED)
			buf_puts(out, "disputed: ");
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
	head = badge_cents_of(out->buf + from) + (m.n ? badge_cents_of(MIDDOT) : 0) + (h.n ? badge_cents_of(MIDDOT) : 0);
	r = BADGE_MAX_WIDTH - badge_box_px(badge_cents_of(badge_label(in))) - 2 * BADGE_HPAD;
	room = r > 0 ? (unsigned long)(r % 2 ? r + 1 : r) * 100 - 1 : 0;
	all = room;
	room = room > head ? room - head : 0;
	f = fit_names(m, h, room);
	names = out->len;
	put_name(out, f.model, f.model_cut, f.model_tail);
	put_name(out, f.hw, f.hw_cut, (struct span){ "", 0 });
	/* Whatever the cuts above made of odd text (replacement characters
	 * measured apart from their neighbours), the message never takes
	 * more than all: cut at a code point, with "…". */
	if (!buf_error(out) && badge_cents_of(out->buf + from) > all) {
		while (out->len > names && badge_cents_of(out->buf + from) + ELLIPSIS_CENTS > all) {
			size_t n = out->len - names;
			out->len = names + utf8_cut(out->buf + names, n, n - 1);
			out->buf[out->len] = '\0';
		}
		buf_puts(out, ELLIPSIS);
	}
	ret = buf_error(out);
out:
	buf_release(&tight);
	buf_release(&ch);
	buf_release(&cm);
	return ret;
}

/* See badge_svg.h: the cleaned name, shortened to room when need be. */
int badge_fit_name(struct buf *out, const char *name, int hw, unsigned long room)
{
	struct fit f = { { "", 0 }, { "", 0 }, 0, 0, { "", 0 } };
	struct buf clean = BUF_INIT;
	struct span s, got;
	int cut;

	if (name)
		put_clean(&clean, name);
	s = trim((struct span){ clean.buf, clean.len });
	if (span_cents(s) <= room) {
		got = s, cut = 0;
	} else if (hw) {
		fit_hw(&f, short_hw(s), room);
		got = f.hw, cut = f.hw_cut ? 2 : 1;
	} else {
		fit_model(&f, s, room);
		got = f.model, cut = f.model_cut ? 2 : 1;
	}
	buf_add(out, got.p, got.n);
	if (cut == 2)
		buf_puts(out, ELLIPSIS);
	if (cut == 2 && f.model_tail.n)
		buf_add(out, f.model_tail.p, f.model_tail.n);
	cut = buf_error(&clean) || buf_error(out) ? -1 : cut != 0;
	buf_release(&clean);
	return cut;
}
