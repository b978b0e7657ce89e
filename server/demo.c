/* demo.c: demo runs for a newcomer's first look at the board. */
#include "demo.h"

#include "log.h"

int demo_fill(struct db *db)
{
	(void)db;
	log_info("demo data is not available yet");
	return 0;
}
