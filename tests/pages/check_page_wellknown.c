/* check_page_wellknown.c: /robots.txt and /.well-known/security.txt
 * (server/pages/page_wellknown.c) as answers, in process. */
#include "check_pages.h"

static struct pages P;

static void setup(void)
{
	pages_begin(&P, "check_page_wellknown");
}

static void teardown(void)
{
	pages_end(&P);
}

/* The answer of route fn to a request made by hand. */
static void answer_of(int (*fn)(struct req *, struct answer *), struct answer *a)
{
	struct page_req q;

	pages_get(&q, &P, "/");
	*a = (struct answer)ANSWER_INIT;
	ck_assert_int_eq(fn(&q.r, a), 0);
	pages_done(&q, NULL);
}

/* robots.txt keeps crawlers off every variant of a page and names the
 * sitemap at the public origin; cached a day. */
START_TEST(robots_names_the_sitemap)
{
	struct answer a;

	answer_of(page_robots, &a);
	ck_assert_uint_eq(a.status, 200);
	ck_assert_str_eq(a.ctype, CT_TEXT);
	ck_assert_str_eq(a.o.cache_control, CC_STATIC);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "User-agent: *\nDisallow: /*?\n"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Disallow: /*.json$\n"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Sitemap: " PAGES_ORIGIN "/sitemap.xml\n"));
	answer_release(&a);
}
END_TEST

/* security.txt names the privacy page's section without a contact, the
 * operator's when set, with its canonical address and an expiry. */
START_TEST(security_txt_names_the_contact)
{
	struct answer a;

	answer_of(page_security_txt, &a);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Contact: " PAGES_ORIGIN "/privacy#reporting\n"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Canonical: " PAGES_ORIGIN "/.well-known/security.txt\n"));
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Expires: "));
	answer_release(&a);
	P.app.cfg.security_contact = "mailto:security@llm-speed.example";
	answer_of(page_security_txt, &a);
	ck_assert_ptr_nonnull(strstr(a.body.buf, "Contact: mailto:security@llm-speed.example\n"));
	answer_release(&a);
}
END_TEST

static Suite *suite_page_wellknown(void)
{
	Suite *s = suite_create("page_wellknown");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, robots_names_the_sitemap);
	tcase_add_test(tc, security_txt_names_the_contact);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_wellknown)
