/* fuzz_form.c: libFuzzer target for urlencoded form decoding
 * (server/http/form.c), as the dispute form posts it.  Every field the form
 * reads is looked up; a value found decodes to no more bytes than the body
 * holds, and a missing field leaves the buffer untouched. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "http/form.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fields[] = { "author", "body", "token", "", "a=b" };
	size_t i;

	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		struct buf out = BUF_INIT;
		int rc = form_field((const char *)data, size, fields[i], &out);

		assert(rc >= -1 && rc <= 1);
		assert(out.len <= size);
		if (rc == 0)
			assert(out.len == 0);
		buf_release(&out);
	}
	return 0;
}
