/* fuzz_router.c: libFuzzer target for URL routing (server/router.c).
 * The first byte picks the method and the capture size; the rest, up to a
 * newline, is a pattern and after it a path.  The route table is matched
 * against the path, and the pattern against the path, and whatever matches
 * must have captured one non-empty segment that fits its buffer. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "router.h"

/* A match through a '*' must capture a non-empty segment that fits argn,
 * without '/' unless the pattern ends in "**" (the rest of the path); a
 * pattern of several stars (/m/<*>/hw/<*>) captures nothing and leaves arg
 * empty; a literal match leaves arg alone. */
static void check_capture(const char *arg, size_t argn, const char *pattern)
{
	const char *star = strchr(pattern, '*');
	size_t n;

	if (!star)
		return;
	if (star[1] != '*' && strchr(star + 1, '*')) {
		assert(arg[0] == '\0');
		return;
	}
	n = strnlen(arg, argn);
	assert(n > 0 && n < argn);
	assert(!strcmp(star, "**") || !memchr(arg, '/', n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum http_method methods[] = { HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_OTHER };
	char arg[160], *text, *nl, *path;
	const struct route *rt;
	size_t argn;

	if (size < 1)
		return 0;
	argn = 1 + data[0] % sizeof arg;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	nl = strchr(text, '\n');
	path = nl ? nl + 1 : text;
	if (nl)
		*nl = '\0';
	memset(arg, 'x', sizeof arg);
	rt = router_match(methods[(data[0] >> 6) & 3], path, arg, argn);
	if (rt) {
		assert(rt->handler && rt->pattern);
		check_capture(arg, argn, rt->pattern);
	}
	(void)router_allow(path);
	if (nl) {
		memset(arg, 'x', sizeof arg);
		if (router_pattern_match(text, path, arg, argn))
			check_capture(arg, argn, text);
	}
	free(text);
	return 0;
}
