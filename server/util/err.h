/* err.h: the one error carrier.  Whatever refuses a request (a parser, the
 * JWS verifier, a store call, a handler) fills a struct err; the HTTP layer
 * turns it into the answer (the responder of http/http.c: an HTML page on
 * routes for people, the contract's JSON error body elsewhere).  A handler
 * fills its answer's:
 *
 *   if (check(x, &a->err) < 0)
 *           return -1;
 *
 * Messages are one sentence a person can act on.  The sentences every layer
 * repeats are named below. */
#ifndef LLMS_ERR_H
#define LLMS_ERR_H

#include <stdarg.h>

struct err {
	unsigned status;     /* HTTP status; 0 while nothing went wrong */
	const char *code;    /* the contract's error code ("schema_violation");
	                      * static storage; NULL: derived from status */
	char field[160];     /* dotted path of the field at fault; "" for none */
	char message[2048];  /* one sentence naming what to fix (with, at
	                      * most, the list of values that would do); room
	                      * for start-up's, which name up to three files */
};

#define ERR_INIT { 0, NULL, "", "" }

/* The sentences for the two failures any request can meet (status 503,
 * code "unavailable"). */
#define MSG_DB_DOWN "The database is not answering; try again shortly."
#define MSG_NOMEM   "The server is out of memory; try again shortly."
/* 404 for a run id no run has. */
#define MSG_NO_RUN  "There is no run with this id; a run id is r_ and 11 letters, digits, _ or -. Check the link."

/* Fills e (status, code, field or NULL, printf-style sentence) and returns
 * -1, so a refusal is one line: return err_set(e, 404, ...). */
int err_set(struct err *e, unsigned status, const char *code, const char *field,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* err_set with the sentence's arguments as a va_list: the one formatter
 * behind every error, for a module's own error function (a parser's,
 * that adds the line or the field it was at).  Returns -1. */
int err_vset(struct err *e, unsigned status, const char *code, const char *field,
	     const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* err_set(e, 503, "unavailable", NULL, message): the server cannot answer
 * now (MSG_DB_DOWN, MSG_NOMEM); returns -1. */
int err_unavailable(struct err *e, const char *message);

/* err_set(e, 500, "internal", NULL, ...): a failure of the server's own
 * (a file it cannot read, a database it cannot open or migrate), met by
 * start-up code and the command line, which print e->message; returns -1. */
int err_internal(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* err_unavailable(e, MSG_NOMEM): an allocation failed; returns -1.  The
 * HTTP layer answers it with its one out-of-memory response. */
int err_nomem(struct err *e);

/* 1 when e says out of memory (status 503 with MSG_NOMEM), else 0. */
int err_is_nomem(const struct err *e);

/* The contract's code for a status when none was set: "not_found" for 404,
 * "unavailable" for 503, and so on. */
const char *err_code(const struct err *e);

#endif
