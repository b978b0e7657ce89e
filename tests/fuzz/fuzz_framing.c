/* fuzz_framing.c: libFuzzer target for the request framing checks
 * (server/http/framing.c).  The input is a request head: its first byte
 * picks the size limit, then the request line ("TARGET [VERSION]") and
 * header lines ("Name: value"), separated by '\n'.  The target goes
 * through framing_check_target, the headers through framing_note and
 * framing_judge, and each answer is checked against what it promises: a
 * status from the documented set with a code and a message, a target cut
 * only after its '?' and only on a 414, and no accepted target holding a
 * broken or NUL escape in its path, too many arguments or too many bytes. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/framing.h"

static int hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* An independent reading of the path: 1 when every '%' before the '?' is
 * an escape of two hex digits that is not %00. */
static int path_ok(const char *t)
{
	size_t i, n = strcspn(t, "?");

	for (i = 0; i < n; i++) {
		if (t[i] != '%')
			continue;
		if (i + 2 >= n || !hex(t[i + 1]) || !hex(t[i + 2]))
			return 0;
		if (t[i + 1] == '0' && t[i + 2] == '0')
			return 0;
		i += 2;
	}
	return 1;
}

/* Arguments as libmicrohttpd makes records of them. */
static size_t args_of(const char *t)
{
	const char *q = strchr(t, '?');
	size_t n = 0;

	if (!q || !*++q)
		return 0;
	for (; *q; q++)
		n += *q == '&';
	return n + (q[-1] != '&');
}

static void check_target(const char *line, size_t max)
{
	struct err e = ERR_INIT;
	char *t = strdup(line), *before = strdup(line), *q;
	int rc;

	assert(t && before);
	rc = framing_check_target(t, max, &e);
	q = strchr(before, '?');
	if (rc == 0) {
		assert(e.status == 0);
		assert(!strcmp(t, before));                  /* untouched */
		assert(strlen(t) <= max);
		assert(path_ok(t));
		assert(args_of(t) <= FRAMING_MAX_ARGS);
	} else {
		assert(rc == -1);
		assert(e.status == 400 || e.status == 414);
		assert(e.code && *e.message);
		if (e.status == 414 && q) {
			/* Cut to "...?" and nothing else changed. */
			assert(strlen(t) == (size_t)(q - before) + 1);
			assert(!strncmp(t, before, strlen(t)));
		} else {
			assert(!strcmp(t, before));
		}
		if (e.status == 400)
			assert(!path_ok(before));
		if (e.status == 414)
			assert(strlen(before) > max || args_of(before) > FRAMING_MAX_ARGS);
	}
	free(t);
	free(before);
}

static void check_headers(char *rest, const char *version, size_t line, size_t max)
{
	struct framing_seen s = { 0 };
	struct err e = ERR_INIT;
	unsigned hosts = 0, spaced = 0;
	char *l, *colon, *save = NULL;
	int rc;

	for (l = strtok_r(rest, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!(colon = strchr(l, ':')))
			continue;
		*colon = '\0';
		framing_note(&s, l, colon + 1 + strspn(colon + 1, " "));
		hosts += !strcasecmp(l, "Host");
		spaced += strpbrk(l, " \t") != NULL;
	}
	rc = framing_judge(&s, version, line, max, &e);
	if (rc == 0) {
		assert(e.status == 0);
		assert(hosts <= 1 && !spaced);
		assert(line + s.bytes <= max);
		assert(s.lengths == 0 || s.encodings == 0);
		assert(s.encodings <= 1);
		if (s.encodings)
			assert(version && !strcmp(version, MHD_HTTP_VERSION_1_1));
	} else {
		assert(rc == -1);
		assert(e.status == 400 || e.status == 431 || e.status == 501);
		assert(e.code && *e.message);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const versions[] = { MHD_HTTP_VERSION_1_1, MHD_HTTP_VERSION_1_0, "HTTP/2", NULL };
	char *text, *nl, *sp;
	const char *version;
	size_t max;

	if (size < 1)
		return 0;
	max = 16 + (size_t)(data[0] & 0x3f) * 64;       /* 16 .. 4048 bytes */
	version = versions[(data[0] >> 6) & 3];
	text = malloc(size);
	assert(text);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';                          /* stops at an inner NUL */
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if ((sp = strchr(text, ' ')))
		*sp = '\0';                             /* the target ends at a space */
	check_target(text, max);
	check_headers(nl ? nl + 1 : text + strlen(text), version, strlen(text) + 16, max);
	free(text);
	return 0;
}
