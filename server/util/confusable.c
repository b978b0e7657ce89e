/* confusable.c: skeletons of names (the reserved author names), names as
 * they read, and words in two scripts (confusable.h). */
#include "util/confusable.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"
#include "util/nelem.h"

/* Look-alikes outside ASCII and Latin-1, each with the letter it imitates. */
static const struct { uint32_t cp; char to; } lookalike[] = {
	{ 0x0131, 'i' },                                       /* dotless i */
	{ 0x0391, 'a' }, { 0x0392, 'b' }, { 0x0395, 'e' }, { 0x0396, 'z' },
	{ 0x0397, 'h' }, { 0x0399, 'i' }, { 0x039a, 'k' }, { 0x039c, 'm' },
	{ 0x039d, 'n' }, { 0x039f, 'o' }, { 0x03a1, 'p' }, { 0x03a4, 't' },
	{ 0x03a5, 'y' }, { 0x03a7, 'x' }, { 0x03b1, 'a' }, { 0x03b5, 'e' },
	{ 0x03b9, 'i' }, { 0x03ba, 'k' }, { 0x03bd, 'v' }, { 0x03bf, 'o' },
	{ 0x03c1, 'p' }, { 0x03c4, 't' }, { 0x03c5, 'u' },     /* Greek */
	{ 0x0405, 's' }, { 0x0406, 'i' }, { 0x0408, 'j' }, { 0x0410, 'a' },
	{ 0x0412, 'b' }, { 0x0415, 'e' }, { 0x041a, 'k' }, { 0x041c, 'm' },
	{ 0x041d, 'h' }, { 0x041e, 'o' }, { 0x0420, 'p' }, { 0x0421, 'c' },
	{ 0x0422, 't' }, { 0x0425, 'x' }, { 0x0430, 'a' }, { 0x0435, 'e' },
	{ 0x043c, 'm' }, { 0x043e, 'o' }, { 0x0440, 'p' }, { 0x0441, 'c' },
	{ 0x0442, 't' }, { 0x0443, 'y' }, { 0x0445, 'x' }, { 0x0455, 's' },
	{ 0x0456, 'i' }, { 0x0458, 'j' }, { 0x0501, 'd' },     /* Cyrillic */
};

/* Latin-1 letters U+00C0..U+00FF without their accents; '.' for none. */
static const char latin1[] =
	"aaaaaaaceeeeiiii" "dnooooo.ouuuuyps"
	"aaaaaaaceeeeiiii" "dnooooo.ouuuuypy";

/* The ASCII letter cp folds to, or 0 to leave it out. */
static char fold(uint32_t cp)
{
	size_t i;

	if (cp >= 'A' && cp <= 'Z')
		return (char)(cp - 'A' + 'a');
	if (cp >= 'a' && cp <= 'z')
		return cp == 'l' ? 'i' : (char)cp;
	if (cp == '0')
		return 'o';
	if (cp == '1' || cp == '|' || cp == '!')
		return 'i';
	if (cp >= 0xff21 && cp <= 0xff3a)       /* fullwidth A-Z */
		return (char)(cp - 0xff21 + 'a');
	if (cp >= 0xff41 && cp <= 0xff5a)       /* fullwidth a-z */
		return (char)(cp - 0xff41 + 'a');
	if (cp >= 0xc0 && cp <= 0xff)
		return latin1[cp - 0xc0] == '.' ? 0 : latin1[cp - 0xc0];
	for (i = 0; i < NELEM(lookalike); i++)
		if (lookalike[i].cp == cp)
			return lookalike[i].to;
	return 0;
}

void confusable_skeleton(const char *s, struct buf *b)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	char c;

	while (*p) {
		p += utf8_next(p, 4, &cp);   /* stops at the NUL */
		if (!(c = fold(cp)))
			continue;
		if (c == 'n' && b->len && b->buf[b->len - 1] == 'r')
			b->buf[b->len - 1] = 'm';       /* "rn" looks like "m" */
		else
			buf_putc(b, c);
	}
}

int confusable_reserved(const char *name)
{
	static const char *const words[] = { "submitter", "moderator" };
	struct buf b = BUF_INIT;
	int hit = 0;
	size_t i;

	confusable_skeleton(name, &b);
	for (i = 0; !buf_error(&b) && i < NELEM(words); i++)
		if (strstr(b.buf, words[i]))
			hit = 1;
	hit |= buf_error(&b);   /* out of memory: refuse rather than guess */
	buf_release(&b);
	return hit;
}

/* Look-alikes of ASCII letters, with their case: what confusable_latin
 * writes for each. */
static const struct { uint32_t cp; char to; } latin_of[] = {
	{ 0x0131, 'i' },                                       /* dotless i */
	{ 0x0391, 'A' }, { 0x0392, 'B' }, { 0x0395, 'E' }, { 0x0396, 'Z' },
	{ 0x0397, 'H' }, { 0x0399, 'I' }, { 0x039a, 'K' }, { 0x039c, 'M' },
	{ 0x039d, 'N' }, { 0x039f, 'O' }, { 0x03a1, 'P' }, { 0x03a4, 'T' },
	{ 0x03a5, 'Y' }, { 0x03a7, 'X' }, { 0x03b1, 'a' }, { 0x03b3, 'y' },
	{ 0x03b5, 'e' }, { 0x03b9, 'i' }, { 0x03ba, 'k' }, { 0x03bd, 'v' },
	{ 0x03bf, 'o' }, { 0x03c1, 'p' }, { 0x03c4, 't' }, { 0x03c5, 'u' },
	{ 0x03c7, 'x' },                                       /* Greek */
	{ 0x0405, 'S' }, { 0x0406, 'I' }, { 0x0408, 'J' }, { 0x0410, 'A' },
	{ 0x0412, 'B' }, { 0x0415, 'E' }, { 0x041a, 'K' }, { 0x041c, 'M' },
	{ 0x041d, 'H' }, { 0x041e, 'O' }, { 0x0420, 'P' }, { 0x0421, 'C' },
	{ 0x0422, 'T' }, { 0x0423, 'Y' }, { 0x0425, 'X' }, { 0x0430, 'a' },
	{ 0x0435, 'e' }, { 0x043a, 'k' }, { 0x043c, 'm' }, { 0x043e, 'o' },
	{ 0x0440, 'p' }, { 0x0441, 'c' }, { 0x0442, 't' }, { 0x0443, 'y' },
	{ 0x0445, 'x' }, { 0x0455, 's' }, { 0x0456, 'i' }, { 0x0458, 'j' },
	{ 0x04ae, 'Y' }, { 0x04bb, 'h' }, { 0x04c0, 'I' }, { 0x04cf, 'l' },
	{ 0x0501, 'd' }, { 0x051a, 'Q' }, { 0x051b, 'q' }, { 0x051c, 'W' },
	{ 0x051d, 'w' },                                       /* Cyrillic */
};

/* Latin-1 letters U+00C0..U+00FF without their accents, with their case;
 * '.' for those kept as they are (Æ, ×, Þ, ß, ...). */
static const char latin1_cased[] =
	"AAAAAA.CEEEEIIII" "DNOOOOO.OUUUUY.."
	"aaaaaa.ceeeeiiii" ".nooooo.ouuuuy.y";

/* The ASCII character cp reads as, or 0 when it is kept as it is. */
static char reads_as(uint32_t cp)
{
	size_t i;

	if (cp >= 0xff21 && cp <= 0xff3a)       /* fullwidth A-Z */
		return (char)(cp - 0xff21 + 'A');
	if (cp >= 0xff41 && cp <= 0xff5a)       /* fullwidth a-z */
		return (char)(cp - 0xff41 + 'a');
	if (cp >= 0xff10 && cp <= 0xff19)       /* fullwidth 0-9 */
		return (char)(cp - 0xff10 + '0');
	if (cp >= 0xc0 && cp <= 0xff)
		return latin1_cased[cp - 0xc0] == '.' ? 0 : latin1_cased[cp - 0xc0];
	for (i = 0; i < NELEM(latin_of); i++)
		if (latin_of[i].cp == cp)
			return latin_of[i].to;
	return 0;
}

/* The digit the look-alike letter cp imitates beside other digits (a
 * Cyrillic or Greek O in "4О90", I in "1І", Ze in "З2"), or 0. */
static char digit_of(uint32_t cp)
{
	switch (cp) {
	case 0x039f: case 0x03bf: case 0x041e: case 0x043e: return '0';
	case 0x0399: case 0x03b9: case 0x0406: case 0x0456: case 0x04c0: case 0x04cf: return '1';
	case 0x0417: case 0x0437: return '3';
	case 0x0431: return '6';
	}
	return 0;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

void confusable_latin(const char *s, struct buf *b)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k;
	uint32_t cp;
	char c;

	while (*p) {
		k = utf8_next(p, 4, &cp);   /* stops at the NUL */
		if (*p < 0x80)
			buf_putc(b, (char)*p);
		else if ((c = digit_of(cp)) && (is_digit(p[k]) ||
			 (b->len && is_digit((unsigned char)b->buf[b->len - 1]))))
			buf_putc(b, c);
		else if ((c = reads_as(cp)))
			buf_putc(b, c);
		else if (!utf8_is_invisible(cp))
			buf_add(b, p, k);
		p += k;
	}
}

enum script { S_NONE, S_LATIN, S_GREEK, S_CYRILLIC, S_MARK };
static const char *const script_name[] = { "", "Latin", "Greek", "Cyrillic", "" };

/* The script of the letter cp, S_MARK for a combining mark (part of a
 * word, of no script), S_NONE for anything that ends a word. */
static enum script script_of(uint32_t cp)
{
	if ((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') ||
	    (cp >= 0xc0 && cp <= 0x24f && cp != 0xd7 && cp != 0xf7) ||
	    (cp >= 0x1e00 && cp <= 0x1eff) || (cp >= 0xff21 && cp <= 0xff3a) ||
	    (cp >= 0xff41 && cp <= 0xff5a))
		return S_LATIN;
	if ((cp >= 0x370 && cp <= 0x3ff && cp != 0x37e && cp != 0x387) ||
	    (cp >= 0x1f00 && cp <= 0x1fff))
		return S_GREEK;
	if ((cp >= 0x400 && cp <= 0x52f) || (cp >= 0x1c80 && cp <= 0x1c8f) ||
	    (cp >= 0x2de0 && cp <= 0x2dff) || (cp >= 0xa640 && cp <= 0xa69f))
		return S_CYRILLIC;
	if (cp >= 0x300 && cp <= 0x36f)
		return S_MARK;
	return S_NONE;
}

int confusable_mixed(const char *s, struct confusable_mix *m)
{
	const unsigned char *p = (const unsigned char *)s, *word = NULL;
	enum script first = S_NONE, other = S_NONE, sc;
	uint32_t cp = 0;
	size_t k;

	for (;; p += k) {
		k = *p ? utf8_next(p, 4, &cp) : 0;
		sc = *p ? script_of(cp) : S_NONE;
		if (sc != S_NONE) {
			if (!word)
				word = p;
			if (sc == S_MARK || sc == first)
				continue;
			if (first == S_NONE)
				first = sc;
			else if (other == S_NONE)
				other = sc;
			continue;
		}
		if (other != S_NONE) {          /* the word ends here */
			m->at = (size_t)(word - (const unsigned char *)s);
			m->len = (size_t)(p - word);
			m->script[0] = script_name[first];
			m->script[1] = script_name[other];
			return 1;
		}
		word = NULL;
		first = S_NONE;
		if (!*p)
			return 0;
	}
}
