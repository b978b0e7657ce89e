/* fuzz_tlog.c: libFuzzer target for what the transparency log parses
 * (server/util/tlog.c): tile paths from URLs, checkpoints and signed notes read
 * back from disk.  A tile path that parses formats back to the same bytes
 * (there is one spelling of each tile); a checkpoint's parse stays within
 * its buffers; no note verifies under a key that signed nothing. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/tlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char pk[32] = { 1 };
	char *s = malloc(size + 1), origin[64];
	unsigned char root[TLOG_HASH];
	struct tlog_tile t;
	size_t body;
	uint64_t n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (tlog_tile_parse(s, &t) == 0) {
		struct buf b = BUF_INIT;

		assert(t.width >= 1 && t.width <= 256 && t.level >= -1 && t.level <= 63);
		tlog_tile_format(&b, &t);
		assert(b.len == strlen(s) && !memcmp(b.buf, s, b.len));
		buf_release(&b);
	}
	if (tlog_checkpoint_parse(s, size, origin, sizeof origin, &n, root) == 0)
		assert(strlen(origin) < sizeof origin);
	assert(!tlog_note_verify(s, size, "example.com/log", pk, &body));
	free(s);
	return 0;
}
