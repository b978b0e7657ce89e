/* fuzz_jws_pack.c: libFuzzer target for the stored form of a run's JWS
 * (server/store/jws_pack.c).  Any input, taken as an upload, either does
 * not pack or packs to a value that unpacks to the very same bytes and
 * the same payload; taken as a stored value (packed or not), it unpacks
 * or is refused, never a crash, a leak or undefined behaviour. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/jws_pack.h"
#include "util/b64u.h"

/* The input as an upload: a pack gives it back byte for byte. */
static void as_upload(const char *s, size_t n)
{
	struct buf p = BUF_INIT, back = BUF_INIT;
	unsigned char *a = NULL, *b = NULL;
	size_t an, bn;

	if (jws_pack(s, n, &p) == 0) {
		assert(jws_unpack(p.buf, p.len, &back) == 0);
		assert(back.len == n && memcmp(back.buf, s, n) == 0);
		assert(jws_stored_payload(p.buf, p.len, &a, &an) == 0);
		assert(b64u_jws_payload(s, n, &b, &bn) == 0);
		assert(an == bn && memcmp(a, b, an) == 0);
	} else {
		assert(p.len == 0);
	}
	free(a);
	free(b);
	buf_release(&p);
	buf_release(&back);
}

/* The input as a stored value: read or refused. */
static void as_stored(const uint8_t *d, size_t n)
{
	struct buf back = BUF_INIT;
	unsigned char *pl = NULL;
	size_t pn;

	if (jws_unpack(d, n, &back) == 0)
		assert(back.buf[back.len] == '\0');
	if (jws_stored_payload(d, n, &pl, &pn) == 0)
		assert(pl[pn] == '\0');
	else
		assert(pl == NULL);
	free(pl);
	buf_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_upload((const char *)data, size);
	as_stored(data, size);
	return 0;
}
