/* page_home.c: the leaderboard at /. */
#include "page.h"

enum MHD_Result page_home(struct req *r)
{
	return page_error(r, 501, "The leaderboard is not built yet.");
}
