/* fuzz_tmpl.c: libFuzzer target for the template engine (server/render/tmpl.c):
 * the input is compiled as a template and, when it compiles, rendered with a
 * fixed JSON context holding every kind of value.  A partial named "p" is
 * the input itself, so self-inclusion exercises the depth limits.  Work is
 * bounded so a legitimately exponential template is not reported as a hang:
 * at most 8 section or partial tags, and at most 64 partial look-ups. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "render/tmpl.h"

static const char context_json[] =
	"{\"name\": \"<b>Qwen & \\\"co\\\"</b>\", \"n\": 3, \"zero\": 0, \"r\": 1.21,"
	" \"t\": true, \"f\": false, \"z\": null, \"s\": \"\", \"empty\": [], \"obj\": {},"
	" \"list\": [{\"a\": 1, \"b\": \"x\"}, {\"a\": \"two\", \"c\": [1, 2]}],"
	" \"run\": {\"id\": \"r_y2_5y8oo97d\", \"model\": {\"name\": \"m'1\"},"
	" \"tags\": [\"a\", \"<\"]}}";

struct partials {
	const struct tmpl *self;
	unsigned lookups;
};

static const struct tmpl *partial(void *ud, const char *name)
{
	struct partials *p = ud;

	if (++p->lookups > 64 || strcmp(name, "p") != 0)
		return NULL;
	return p->self;
}

/* Counts the bytes that can open a section or include a partial, whatever
 * the delimiters are. */
static size_t tag_openers(const uint8_t *d, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += d[i] == '#' || d[i] == '^' || d[i] == '>';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *ctx;
	struct err err = ERR_INIT;
	struct partials p = { 0 };
	struct buf out = BUF_INIT;
	struct tmpl *t;

	if (!ctx)
		ctx = json_loads(context_json, 0, NULL);
	assert(ctx);
	if (size > 4096 || tag_openers(data, size) > 8)
		return 0;
	t = tmpl_compile((const char *)data, size, &err);
	if (!t) {
		assert(memchr(err.message, '\0', sizeof err.message) && err.message[0]);
		return 0;
	}
	p.self = t;
	if (tmpl_render(t, ctx, partial, &p, &out) == 0)
		assert(out.buf && strlen(out.buf) <= out.len);
	buf_release(&out);
	tmpl_free(t);
	return 0;
}
