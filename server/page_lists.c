/* page_lists.c: /outliers and /disputes. */
#include "page.h"

enum MHD_Result page_outliers(struct req *r)
{
	return page_error(r, 501, "The outlier list is not built yet.");
}

enum MHD_Result page_disputes(struct req *r)
{
	return page_error(r, 501, "The dispute list is not built yet.");
}
