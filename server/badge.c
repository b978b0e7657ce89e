/* badge.c: serving run badges (rendering is in badge_svg.c). */
#include "badge.h"

enum MHD_Result badge_svg(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Badges are not served yet.", NULL);
}

enum MHD_Result badge_json(struct req *r)
{
	return http_error(r, 501, "not_implemented", "Badges are not served yet.", NULL);
}
