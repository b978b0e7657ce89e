/* check_kinds.c: the table of page kinds (server/pages/kinds.c) holds
 * together, and the router's rows for each kind's page and twins are the
 * ones the table names, in the form the table names. */
#include "check_util.h"
#include "router.h"
#include "pages/kinds.h"
#include "pages/page.h"
#include "render/tmpl.h"

/* Every kind has a row, and the templates/ of the repository hold every
 * template the table names. */
START_TEST(table_is_whole)
{
	struct err te = ERR_INIT;
	struct err e = ERR_INIT;
	struct tmpl_set *t;
	char dir[1024];
	int k;

	snprintf(dir, sizeof dir, "%s/templates", repo_root());
	t = tmpl_set_load(dir, &te);
	ck_assert_msg(t, "%s", te.message);
	ck_assert_msg(page_kinds_check(t, &e) == 0, "%s", e.message);
	for (k = 0; k < PAGE_KIND__MAX; k++)
		ck_assert_msg(page_kinds[k].name && page_kinds[k].build, "kind %d has no row", k);
	tmpl_set_free(t);
}
END_TEST

/* A template the table names and templates/ lacks stops the start. */
START_TEST(missing_template_is_refused)
{
	char dir[] = "/tmp/llms-kinds-XXXXXX";
	struct err te = ERR_INIT;
	struct err e = ERR_INIT;
	struct tmpl_set *t;
	FILE *f;
	char path[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/home.html", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("<p>{{title}}</p>\n", f);
	fclose(f);
	t = tmpl_set_load(dir, &te);
	ck_assert_msg(t, "%s", te.message);
	ck_assert_int_eq(page_kinds_check(t, &e), -1);
	ck_assert_uint_eq(e.status, 500);
	ck_assert_msg(strstr(e.message, "(run)") && strstr(e.message, "template"), "%s", e.message);
	tmpl_set_free(t);
	remove(path);
	rmdir(dir);
}
END_TEST

/* The row a kind's path reaches is page_serve's with that kind and form. */
static void assert_row(int k, const char *pattern, enum http_format f, unsigned flags)
{
	char path[200], arg[160];
	const struct route *rt = router_match(HTTP_GET, router_sample_path(pattern, path, sizeof path), arg, sizeof arg);

	ck_assert_msg(rt, "%s reaches no route", pattern);
	ck_assert_str_eq(rt->pattern, pattern);
	ck_assert(rt->handler == page_serve);
	ck_assert_int_eq(rt->kind, k);
	ck_assert_int_eq(rt->format, f);
	ck_assert_uint_eq(rt->flags, flags);
}

/* Each kind's page, JSON and CSV twin is a route of that kind in that
 * form; the page is for people (HTML errors), the twins for scripts. */
START_TEST(routes_come_from_the_table)
{
	struct err e = ERR_INIT;
	int k;

	ck_assert_msg(router_init(&e) == 0, "%s", e.message);
	for (k = 0; k < PAGE_KIND__MAX; k++) {
		assert_row(k, page_kinds[k].path, HTTP_FMT_HTML, ROUTE_HTML);
		if (page_kinds[k].json)
			assert_row(k, page_kinds[k].json, HTTP_FMT_JSON, 0);
		if (page_kinds[k].csv)
			assert_row(k, page_kinds[k].csv, HTTP_FMT_CSV, 0);
	}
	/* "index" is the home page's twin and nothing else. */
	assert_row(PAGE_HOME, "/index.json", HTTP_FMT_JSON, 0);
	ck_assert_str_eq(page_kinds[PAGE_MODELS].tmpl, "catalog");
	ck_assert_str_eq(page_kinds[PAGE_HARDWARE].tmpl, "catalog");
}
END_TEST

/* The table as the browser tests read it: one entry per kind, in order,
 * with the CSV's columns where it has one. */
START_TEST(json_lists_every_kind)
{
	json_t *a = page_kinds_json(), *o;
	int k;

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(json_array_size(a), PAGE_KIND__MAX);
	for (k = 0; k < PAGE_KIND__MAX; k++) {
		o = json_array_get(a, (size_t)k);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), page_kinds[k].name);
		ck_assert_str_eq(json_string_value(json_object_get(o, "path")), page_kinds[k].path);
		ck_assert(json_is_array(json_object_get(o, "csv_columns")) == !!page_kinds[k].csv);
	}
	o = json_array_get(a, PAGE_RUN);
	ck_assert_str_eq(json_string_value(json_object_get(o, "arg")), "run");
	ck_assert_str_eq(json_string_value(json_object_get(o, "sitemap")), "each");
	ck_assert(json_is_null(json_object_get(o, "csv")));
	json_decref(a);
}
END_TEST

static Suite *suite_kinds(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, table_is_whole);
	tcase_add_test(tc, missing_template_is_refused);
	tcase_add_test(tc, routes_come_from_the_table);
	tcase_add_test(tc, json_lists_every_kind);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_kinds)
