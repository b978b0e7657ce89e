/* warm.h: the kept pages built ahead after start (warm.c). */
#ifndef LLMS_WARM_H
#define LLMS_WARM_H

struct app;
struct warm;

/* Builds ahead, once, on a thread of its own at the lowest priority and
 * from a second after start, the kept pages whose first visitors would
 * otherwise wait for a build: every hardware's page and the board
 * filtered to it, every model's page (most runs first), the sitemap and
 * its files; each is then kept as a visit would keep it, unless it is
 * kept already.  NULL (nothing built ahead) when the thread cannot start
 * or with --test-warm 0. */
struct warm *warm_start(struct app *app);
/* Stops the builds ahead (waits for the one under way) and frees w
 * (NULL: nothing).  Before the cache and the database go. */
void warm_stop(struct warm *w);

/* Its statements, for the test of their query plans. */
extern const char *const warm_sql[];

#endif
