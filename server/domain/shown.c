/* shown.c: names a page may be shown by: no address in them (shown.h). */
#include "domain/shown.h"

#include <string.h>

#include "util/buf.h"
#include "util/confusable.h"

static int is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A character of a domain label. */
static int is_label(char c)
{
	return is_lower(c) || is_digit(c) || c == '-';
}

/* 1 when the n bytes at s are one of names.json's shown.files labels: a
 * file type tools name weights by (".gguf"), not a top-level domain. */
static int file_label(const struct ceiling_ref *ref, const char *s, size_t n)
{
	const json_t *labels = ref ? json_object_get(json_object_get(json_object_get(
		ceiling_names(ref), "shown"), "files"), "tokens") : NULL;
	const char *l;
	size_t i;
	json_t *v;

	json_array_foreach(labels, i, v)
		if ((l = json_string_value(v)) && strlen(l) == n && !memcmp(l, s, n))
			return 1;
	return 0;
}

/* 1 when the n bytes at s may be a top-level domain: 2 to 63 letters, or
 * an IDNA label ("xn--"), and not a file type. */
static int tld_label(const struct ceiling_ref *ref, const char *s, size_t n)
{
	size_t i;

	if (n >= 5 && !memcmp(s, "xn--", 4))
		return 1;
	if (n < 2 || n > 63)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_lower(s[i]))
			return 0;
	return !file_label(ref, s, n);
}

/* 1 when the dotted word at s (lower-case ASCII, starting at a label that
 * no label character precedes) is a domain or an IPv4 address. */
static int address_at(const struct ceiling_ref *ref, const char *s)
{
	const char *label = s, *p = s;
	int labels = 0, numbers = 0, number;

	for (;;) {
		for (number = 1; is_label(*p); p++)
			number &= is_digit(*p);
		if (p == label)
			return 0;               /* an empty label: no dotted word */
		labels++;
		numbers += number && p - label <= 3;
		if (*p != '.' || !is_label(p[1]))
			break;
		label = ++p;
	}
	if (labels == 4 && numbers == 4)
		return 1;
	return labels >= 2 && tld_label(ref, label, (size_t)(p - label));
}

/* 1 when the lower-cased reading r holds an address (shown.h). */
static int has_address(const struct ceiling_ref *ref, const char *r)
{
	const char *p;

	if (strstr(r, "://"))
		return 1;
	for (p = r; *p; p++) {
		if (*p == '@' && p > r && (is_lower(p[-1]) || is_digit(p[-1])) &&
		    (is_lower(p[1]) || is_digit(p[1])))
			return 1;           /* an e-mail address */
		if (p > r && is_label(p[-1]))
			continue;           /* not the start of a word */
		if (!strncmp(p, "www.", 4) || address_at(ref, p))
			return 1;
	}
	return 0;
}

int shown_ok(const struct ceiling_ref *ref, const char *name)
{
	struct buf b = BUF_INIT;
	size_t i;
	int ok;

	confusable_latin(name, &b);
	if (buf_error(&b) || !b.buf) {
		buf_release(&b);
		return 0;                   /* out of memory: never shown */
	}
	for (i = 0; i < b.len; i++)
		if (b.buf[i] >= 'A' && b.buf[i] <= 'Z')
			b.buf[i] = (char)(b.buf[i] - 'A' + 'a');
	ok = !has_address(ref, b.buf);
	buf_release(&b);
	return ok;
}
