/* access_log.h: the access log (--access-log FILE, "-" for standard output).
 *
 * One line per request in the combined log format nginx and Apache write,
 * followed by the request's time in seconds (nginx's $request_time):
 *
 *   203.0.113.7 - - [28/Apr/2026:10:12:00 +0000] "GET /r/r_y2_5y8oo97d HTTP/1.1" 200 28847 "-" "curl/8.5.0" 0.002
 *
 * The address is the client's (the forwarded one under --trust-proxy),
 * the user is always "-" (a bearer token is never written), the request
 * line is the target as sent but without its query string on a POST, and
 * bytes are the body's ("-" for none, or for a streamed /export).  Quotes,
 * backslashes and bytes outside printable ASCII are written \xHH, a NUL
 * in a header's value too (the whole value is logged, not what precedes
 * its first NUL).
 *
 * Off the request path: a request only formats its line in a buffer of its
 * thread (no allocation; the date once a second) and copies it into a
 * shared buffer (a memcpy under a lock held for nothing else); a thread of its
 * own writes the buffer out at least twice a second, or sooner when it
 * fills.  A line that finds the buffer full is dropped and counted
 * (llmspeed_access_log_dropped_lines_total), so a slow disk never slows a
 * request.  access_log_reopen() (SIGHUP) makes the thread reopen the file
 * before its next write, for logrotate. */
#ifndef LLMS_ACCESS_LOG_H
#define LLMS_ACCESS_LOG_H

#include "http/http.h"

struct access_log;

/* Opens path for appending (created 0640; "-": standard output) and
 * starts the writing thread.  NULL with the reason in err. */
struct access_log *access_log_open(const char *path, struct err *err);
/* Writes out what is buffered, stops the thread, closes the file (NULL is fine). */
void access_log_close(struct access_log *l);
/* The file is reopened by its name before the next write (SIGHUP). */
void access_log_reopen(struct access_log *l);

/* Logs the request r, answered with status (0: no answer was sent, and
 * nothing is logged), taking micros microseconds. */
void access_log_request(struct access_log *l, struct req *r, unsigned status, uint64_t micros);

/* Appends s to b as the log writes a quoted field's text: '"', '\\' and
 * bytes outside 0x20..0x7e as \xHH ("-" for NULL or ""). */
void access_log_escape(struct buf *b, const char *s, size_t n);

#endif
