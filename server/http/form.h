/* form.h: decoding application/x-www-form-urlencoded request bodies (the
 * dispute form on the run page). */
#ifndef LLMS_FORM_H
#define LLMS_FORM_H

#include <stddef.h>

#include "util/buf.h"

/* Finds field name in the urlencoded form s[0..n) and appends its first
 * value, decoded ('+' as space, %XX escapes), to out.  Returns 1 when found,
 * 0 when absent, -1 when its value has a broken %-escape.  The decoded
 * bytes are not checked for UTF-8; the caller validates the text. */
int form_field(const char *s, size_t n, const char *name, struct buf *out);

#endif
