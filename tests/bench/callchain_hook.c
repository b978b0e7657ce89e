/* callchain_hook.c: -finstrument-functions hooks for callchain.py.  While
 * the file named by $LLMSPEED_TRACE_ON exists (a thread polls it every
 * 2 ms), each function entered is written once per thread to
 * $LLMSPEED_TRACE_OUT as "<thread> <address>".  Not part of the daemon. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NO_TRACE __attribute__((no_instrument_function))
#define SEEN 8192

static atomic_int on;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread void *seen[SEEN];
static __thread int nseen, gen_seen;
static atomic_int gen;

NO_TRACE static void *poll_on(void *path)
{
	for (;;) {
		int now = access(path, F_OK) == 0;

		if (now && !atomic_load(&on))
			atomic_fetch_add(&gen, 1);   /* a new window: forget what was seen */
		atomic_store(&on, now);
		if (!now && out)
			fflush(out);
		usleep(2000);
	}
	return NULL;
}

NO_TRACE __attribute__((constructor)) static void start(void)
{
	const char *p = getenv("LLMSPEED_TRACE_ON"), *o = getenv("LLMSPEED_TRACE_OUT");
	pthread_t t;

	if (!p || !o || !(out = fopen(o, "w")))
		return;
	pthread_create(&t, NULL, poll_on, (void *)p);
	pthread_detach(t);
}

NO_TRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	int i;

	if (!atomic_load(&on))
		return;
	if (gen_seen != atomic_load(&gen)) {
		gen_seen = atomic_load(&gen);
		nseen = 0;
	}
	for (i = 0; i < nseen; i++)
		if (seen[i] == fn)
			return;
	if (nseen < SEEN)
		seen[nseen++] = fn;
	pthread_mutex_lock(&lock);
	fprintf(out, "%lu %p\n", (unsigned long)pthread_self(), fn);
	pthread_mutex_unlock(&lock);
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site)
{
}
