/* page_wellknown.c: the files crawlers and reporters look for at fixed
 * places: /robots.txt (RFC 9309) and /.well-known/security.txt (RFC 9116). */
#include "pages/page.h"

#include <stdio.h>
#include <time.h>

#include "app.h"
#include "util/buf.h"
#include "util/timefmt.h"

/* How far ahead security.txt's Expires lies (RFC 9116 section 2.5.5
 * advises less than a year). */
#define SECURITY_TXT_DAYS 180

/* GET /robots.txt: crawlers may read every page as its link names it, and
 * nothing that only repeats one: any address with a query string (sorts,
 * filters, cursors, searches, comparisons, the picker's redirect), the
 * .json, .csv and .jws twins, the export, the log's tiles and the API.
 * Names the sitemap.  Always 200. */
int page_robots(struct req *r, struct answer *a)
{
	struct buf b = BUF_INIT;
	char origin[512];

	http_origin(r, origin, sizeof origin);
	buf_puts(&b,
		 "# llm-speed: index each page at its own address, not its variants.\n"
		 "User-agent: *\n"
		 "Disallow: /*?\n"
		 "Disallow: /*.json$\n"
		 "Disallow: /*.csv$\n"
		 "Disallow: /*.jws$\n"
		 "Disallow: /export\n"
		 "Disallow: /log/tile/\n"
		 "Disallow: /api/v1/\n"
		 "Disallow: /metrics\n"
		 "\n");
	buf_printf(&b, "Sitemap: %s/sitemap.xml\n", origin);
	return answer_buf(a, 200, CT_TEXT, &b, &(struct http_opts){ .cache_control = CC_STATIC });
}

/* GET /.well-known/security.txt: where to report a security problem: the
 * --security-contact URI, else the privacy page's section on reporting
 * problems; Expires SECURITY_TXT_DAYS ahead, at midnight UTC.  Always 200. */
int page_security_txt(struct req *r, struct answer *a)
{
	const char *contact = r->app->cfg.security_contact;
	struct buf b = BUF_INIT;
	char origin[512], expires[32];
	time_t t = (time_t)time_now() + (time_t)SECURITY_TXT_DAYS * 86400;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(expires, sizeof expires, "%Y-%m-%dT00:00:00.000Z", &tm);
	http_origin(r, origin, sizeof origin);
	if (contact)
		buf_printf(&b, "Contact: %s\n", contact);
	else
		buf_printf(&b, "Contact: %s/privacy#reporting\n", origin);
	buf_printf(&b, "Expires: %s\n", expires);
	buf_printf(&b, "Canonical: %s/.well-known/security.txt\n", origin);
	buf_printf(&b, "Policy: %s/privacy#reporting\n", origin);
	buf_puts(&b, "Preferred-Languages: en\n");
	return answer_buf(a, 200, CT_TEXT, &b, &(struct http_opts){ .cache_control = CC_STATIC });
}
