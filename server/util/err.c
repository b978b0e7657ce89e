/* err.c: filling the one error carrier. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_vset(struct err *e, unsigned status, const char *code, const char *field,
	     const char *fmt, va_list ap)
{
	e->status = status;
	e->code = code;
	snprintf(e->field, sizeof e->field, "%s", field ? field : "");
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	return -1;
}

int err_set(struct err *e, unsigned status, const char *code, const char *field,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, status, code, field, fmt, ap);
	va_end(ap);
	return -1;
}

int err_internal(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, 500, "internal", NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_unavailable(struct err *e, const char *message)
{
	return err_set(e, 503, "unavailable", NULL, "%s", message);
}

int err_nomem(struct err *e)
{
	return err_unavailable(e, MSG_NOMEM);
}

int err_is_nomem(const struct err *e)
{
	return e->status == 503 && !strcmp(e->message, MSG_NOMEM);
}

const char *err_code(const struct err *e)
{
	if (e->code)
		return e->code;
	switch (e->status) {
	case 400: return "invalid_query";
	case 404: return "not_found";
	case 405: return "method_not_allowed";
	case 413: return "payload_too_large";
	case 429: return "rate_limited";
	default:  return e->status >= 500 ? "unavailable" : "invalid_request";
	}
}
