/* demo.h: the demo data of `llm-speedd --demo`. */
#ifndef LLMS_DEMO_H
#define LLMS_DEMO_H

struct db;

/* When the database holds no runs, stores the historical example runs of
 * the seed documents and clearly synthetic runs across backends and
 * hardware, all marked demo.  Returns 0 or -1. */
int demo_fill(struct db *db);

#endif
