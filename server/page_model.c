/* page_model.c: one model's runs at /m/<slug>. */
#include "page.h"

enum MHD_Result page_model(struct req *r)
{
	return page_error(r, 501, "Model pages are not built yet.");
}

enum MHD_Result page_model_json(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Model pages are not built yet.", NULL);
}
