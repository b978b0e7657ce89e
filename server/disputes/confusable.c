/* confusable.c: skeletons of names, for the reserved author names (confusable.h). */
#include "disputes/confusable.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

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
	for (i = 0; i < sizeof lookalike / sizeof lookalike[0]; i++)
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
	for (i = 0; !buf_error(&b) && i < sizeof words / sizeof words[0]; i++)
		if (strstr(b.buf, words[i]))
			hit = 1;
	hit |= buf_error(&b);   /* out of memory: refuse rather than guess */
	buf_release(&b);
	return hit;
}
