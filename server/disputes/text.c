/* text.c: the plain-text rules of posts, author names and notes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "disputes/dispute_int.h"
#include "util/err.h"
#include "util/utf8.h"


static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A malloc'd copy of s[0..n) with CR LF and lone CR turned into LF (into a
 * space when !lines) and white space trimmed at both ends; NULL when out of
 * memory. */
static char *clean_text(const char *s, size_t n, int lines)
{
	char *out = malloc(n + 1), *o = out, *start;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\r') {
			if (i + 1 < n && s[i + 1] == '\n')
				i++;
			c = '\n';
		}
		*o++ = c == '\n' && !lines ? ' ' : c;
	}
	while (o > out && is_space(o[-1]))
		o--;
	*o = '\0';
	for (start = out; is_space(*start); start++)
		;
	memmove(out, start, (size_t)(o - start) + 1);
	return out;
}

/* Refuses the cleaned text s of field when it holds a character no
 * output can carry (a noncharacter, a control character other than tab
 * and line break) or, when required, nothing visible (only spaces,
 * bidirectional controls and other invisible characters): -1 with the 422
 * in e; else 0. */
static int text_refused(const char *s, const char *field, int required, struct err *e)
{
	size_t len = strlen(s);
	uint32_t cp;
	char name[12];

	if (utf8_text_bad((const unsigned char *)s, len, 1, &cp) >= 0) {
		utf8_cp_name(cp, name);
		return err_set(e, 422, "schema_violation", field, "The \"%s\" field contains %s, %s; remove it.",
			       field, name, utf8_is_noncharacter(cp) ? "a noncharacter" : "a control character");
	}
	if (required && len && !utf8_has_visible((const unsigned char *)s, len))
		return err_set(e, 422, "schema_violation", field, "The \"%s\" field has nothing visible in it, "
			       "only spaces or invisible characters; write what you mean.", field);
	return 0;
}

/* Checks one text field and stores its cleaned copy in *out (NULL when
 * empty and optional).  Returns 0, or -1 with e filled. */
int dispute_text_field(const char *s, size_t n, const char *field, long max,
		      int lines, int required, char **out, struct err *e)
{
	long chars;

	*out = NULL;
	if (!s && !required)
		return 0;
	if (!s)
		return err_set(e, 422, "schema_violation", field,
			       "Write the dispute in \"%s\": 1 to %ld characters of plain text.", field, max);
	if ((chars = utf8_count((const unsigned char *)s, n)) < 0)
		return err_set(e, 422, "schema_violation", field,
			       "The \"%s\" field must be UTF-8 text without NUL characters.", field);
	if (!(*out = clean_text(s, n, lines)))
		return err_nomem(e);
	if (text_refused(*out, field, required, e) < 0)
		goto refused;
	chars = utf8_count((const unsigned char *)*out, strlen(*out));
	if (chars > max || (required && chars == 0)) {
		err_set(e, 422, "schema_violation", field, chars ? "The \"%s\" field is longer than %ld characters; shorten it."
			: "The \"%s\" field is empty; write 1 to %ld characters.", field, max);
		goto refused;
	}
	if (chars == 0) {
		free(*out);
		*out = NULL;
	}
	return 0;
refused:
	free(*out);
	*out = NULL;
	return -1;
}
