/* dispute.c: dispute threads: posts, signed replies and moderation. */
#include "dispute.h"

enum MHD_Result dispute_api_post(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Disputes are not open yet.", NULL);
}

enum MHD_Result dispute_api_resolve(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Disputes are not open yet.", NULL);
}

enum MHD_Result dispute_form_post(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Disputes are not open yet.", NULL);
}

json_t *dispute_thread_json(struct req *r, const char *id)
{
	return json_pack("{s:s, s:n, s:n, s:[]}", "state", "open", "resolution",
			 "note", "posts");
}
