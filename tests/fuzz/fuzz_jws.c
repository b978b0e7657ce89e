/* fuzz_jws.c: libFuzzer target for compact JWS parsing and verification
 * (server/ingest/jws.c jws_parse_verify).  Any input must come back as JWS_OK or a
 * negative status with a message, never a crash, a leak or undefined
 * behaviour; a verified JWS must carry a NUL-terminated payload and a key. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ingest/jws.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jws j;
	struct err e;
	int st;

	memset(&j, 0, sizeof j);
	st = jws_parse_verify((const char *)data, size, &j, &e);
	if (st == JWS_OK) {
		assert(j.payload && j.payload[j.payload_len] == '\0');
		assert(j.pub_len == 32 || j.pub_len == 65);
		assert(j.thumbprint[0] != '\0');
	} else {
		assert(st < 0 && memchr(e.message, '\0', sizeof e.message));
		assert(!j.payload && !j.header);
	}
	jws_free(&j);
	jws_free(&j);   /* documented as safe on a freed struct */
	return 0;
}
