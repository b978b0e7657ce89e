/* log.h: operator log lines on stderr.  Never pass a client address or a
 * token: the log must stay free of personal data. */
#ifndef LLMS_LOG_H
#define LLMS_LOG_H

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 silences log_info (tests, benchmarks). */
void log_set_quiet(int quiet);

#endif
