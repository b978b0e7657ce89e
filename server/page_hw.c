/* page_hw.c: one hardware class's runs at /hw/<slug>. */
#include "page.h"

enum MHD_Result page_hw(struct req *r)
{
	return page_error(r, 501, "Hardware pages are not built yet.");
}

enum MHD_Result page_hw_json(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Hardware pages are not built yet.", NULL);
}
