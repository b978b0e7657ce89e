/* browse_cache.c: list pages kept in the response cache by their path and
 * query until the next write (browse_cached(), browse_keep(); browse_send()
 * keeps them). */
#include "pages/browse.h"

#include <string.h>

#include "app.h"
#include "http/cache.h"
#include "util/buf.h"
#include "util/sha256.h"

/* Adds one query argument to the key's input: key and value each ended by
 * a NUL (no argument can hold one), a missing value by "\1". */
static void key_arg(void *ctx, const char *k, const char *v)
{
	struct buf *in = ctx;

	buf_add(in, k, strlen(k) + 1);
	if (v)
		buf_add(in, v, strlen(v) + 1);
	else
		buf_add(in, "\1", 2);
}

int browse_list_key(struct req *r, char key[CACHE_ID_MAX + 1])
{
	static const char hex[] = "0123456789abcdef";
	struct buf in = BUF_INIT;
	unsigned char d[32];
	int i;

	buf_add(&in, r->path, strlen(r->path) + 1);
	http_query_each(r, key_arg, &in);
	if (buf_error(&in)) {
		buf_release(&in);
		return -1;
	}
	sha256_digest(d, in.buf, in.len);
	buf_release(&in);
	key[0] = 'L';
	for (i = 0; i < 16; i++) {
		key[1 + 2 * i] = hex[d[i] >> 4];
		key[2 + 2 * i] = hex[d[i] & 15];
	}
	key[33] = '\0';
	return 0;
}

int browse_cached(struct req *r, enum MHD_Result *ret)
{
	char key[CACHE_ID_MAX + 1];

	return r->html && browse_list_key(r, key) == 0 &&
	       cache_serve(r->app->cache, r, key, REP_LIST_HTML, ret);
}

void browse_keep(struct browse *b)
{
	b->keep = b->html && !b->csv;
}
