/* ratelimit.h: per-client token buckets, in memory only.  Keys (client
 * addresses, account ids) are kept as keyed hashes and forgotten on restart;
 * nothing of them is ever written to disk or to the log. */
#ifndef LLMS_RATELIMIT_H
#define LLMS_RATELIMIT_H

struct ratelimit;

/* A limiter allowing per_minute events per key on average, in bursts of up
 * to burst.  per_minute 0 means unlimited. */
struct ratelimit *ratelimit_new(unsigned per_minute, unsigned burst);
void ratelimit_free(struct ratelimit *rl);

/* A limiter allowing at most most events per key in any minute: bursts of
 * a quarter of that (at least 1), refilled at the rest per minute.  0 means
 * unlimited. */
struct ratelimit *ratelimit_new_capped(unsigned most);

/* Takes one event for key: returns 0 when allowed, else the whole seconds
 * to wait before the next event would be (at least 1). */
unsigned ratelimit_take(struct ratelimit *rl, const char *key);

/* As ratelimit_take, but an allowed event takes nothing: for refusing a
 * request over its limit before costly checks that may refuse it anyway. */
unsigned ratelimit_check(struct ratelimit *rl, const char *key);

/* Events refused so far (take or check answering non-zero), for monitoring. */
unsigned long ratelimit_refused(struct ratelimit *rl);

#endif
