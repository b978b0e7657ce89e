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
	for (k = 0; k < page_kinds_n; k++) {
		ck_assert_msg(page_kinds[k].name && page_kinds[k].build, "kind %d has no row", k);
		/* Its template is named after it, and so is it found. */
		ck_assert_str_eq(page_kinds[k].tmpl, page_kinds[k].name);
		ck_assert_ptr_eq(page_kind_named(page_kinds[k].name), &page_kinds[k]);
	}
	ck_assert_ptr_null(page_kind_named("no-such-kind"));
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
	char path[64], header[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/home.html", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("<p>{{title}}</p>\n", f);
	fclose(f);
	snprintf(header, sizeof header, "%s/_header.html", dir);
	ck_assert_ptr_nonnull(f = fopen(header, "w"));
	fputs("<a href=\"/\"{{#nav.home}} aria-current=\"page\"{{/nav.home}}>Leaderboard</a>\n", f);
	fclose(f);
	t = tmpl_set_load(dir, &te);
	ck_assert_msg(t, "%s", te.message);
	ck_assert_int_eq(page_kinds_check(t, &e), -1);
	ck_assert_uint_eq(e.status, 500);
	ck_assert_msg(strstr(e.message, "(run)") && strstr(e.message, "template"), "%s", e.message);
	tmpl_set_free(t);
	remove(path);
	remove(header);
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
	for (k = 0; k < page_kinds_n; k++) {
		assert_row(k, page_kinds[k].path, HTTP_FMT_HTML, ROUTE_HTML);
		if (page_kinds[k].json)
			assert_row(k, page_kinds[k].json, HTTP_FMT_JSON, 0);
		if (page_kinds[k].csv)
			assert_row(k, page_kinds[k].csv, HTTP_FMT_CSV, 0);
	}
	/* "index" is the home page's twin and nothing else. */
	assert_row((int)(page_kind_named("home") - page_kinds), "/index.json", HTTP_FMT_JSON, 0);
}
END_TEST

/* The table as the browser tests read it: one entry per kind, in order,
 * with the CSV's columns where it has one. */
START_TEST(json_lists_every_kind)
{
	json_t *a = page_kinds_json(), *o;
	int k;

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(json_array_size(a), (size_t)page_kinds_n);
	for (k = 0; k < page_kinds_n; k++) {
		o = json_array_get(a, (size_t)k);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), page_kinds[k].name);
		ck_assert_str_eq(json_string_value(json_object_get(o, "path")), page_kinds[k].path);
		ck_assert(json_is_array(json_object_get(o, "csv_columns")) == !!page_kinds[k].csv);
	}
	o = json_array_get(a, (size_t)(page_kind_named("run") - page_kinds));
	ck_assert_str_eq(json_string_value(json_object_get(o, "arg")), "run");
	ck_assert_str_eq(json_string_value(json_object_get(o, "sitemap")), "each");
	ck_assert(json_is_null(json_object_get(o, "csv")));
	json_decref(a);
}
END_TEST

/* A templates/ folder in dir holding a header with the nav link of
 * "models" only, and the templates of the rows below. */
static struct tmpl_set *header_set(char *dir)
{
	static const char *const files[][2] = {
		{ "_header.html", "<a href=\"/models\"{{#nav.models}} aria-current=\"page\"{{/nav.models}}>Models</a>\n" },
		{ "models.html", "{{> _header}}\n" }, { "x.html", "{{> _header}}\n" },
	};
	struct err te = ERR_INIT;
	struct tmpl_set *t;
	char path[64];
	size_t i;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
		ck_assert_ptr_nonnull(f = fopen(path, "w"));
		fputs(files[i][1], f);
		fclose(f);
	}
	t = tmpl_set_load(dir, &te);
	ck_assert_msg(t, "%s", te.message);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
		remove(path);
	}
	rmdir(dir);
	return t;
}

static json_t *no_view(struct page_view *v)
{
	(void)v;
	return NULL;
}

/* The mistakes start-up refuses in one row: a kind the sitemap lists once
 * at an address with a '*' (the sitemap would carry a broken address), a
 * kind in the nav that the header does not link; and what it lets by. */
START_TEST(row_mistakes_are_refused)
{
	char dir[] = "/tmp/llms-nav-XXXXXX";
	struct tmpl_set *t = header_set(dir);
	struct page_kind_def ok = { .name = "models", .tmpl = "models", .build = no_view,
				    .path = "/models", .sitemap = SITEMAP_ONE, .flags = PAGE_NAV };
	struct page_kind_def k;
	const char *why;

	ck_assert_ptr_null(page_kind_problem(&ok, t));
	k = ok;
	k.path = "/m/*";
	k.arg = PAGE_ARG_MODEL;
	ck_assert_ptr_nonnull(why = page_kind_problem(&k, t));
	ck_assert_msg(strstr(why, "sitemap") && strstr(why, "'*'"), "%s", why);
	k.sitemap = SITEMAP_EACH;          /* one address per model: fine */
	ck_assert_ptr_null(page_kind_problem(&k, t));
	k = ok;
	k.name = k.tmpl = "x";
	k.path = "/x";
	ck_assert_ptr_nonnull(why = page_kind_problem(&k, t));
	ck_assert_msg(strstr(why, "nav") && strstr(why, "_header.html"), "%s", why);
	k.flags = 0;                       /* not in the nav: no link needed */
	ck_assert_ptr_null(page_kind_problem(&k, t));
	k.json = "/y.json";                /* a twin elsewhere than the page */
	ck_assert_ptr_nonnull(page_kind_problem(&k, t));
	tmpl_set_free(t);
}
END_TEST

static Suite *suite_kinds(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, table_is_whole);
	tcase_add_test(tc, row_mistakes_are_refused);
	tcase_add_test(tc, missing_template_is_refused);
	tcase_add_test(tc, routes_come_from_the_table);
	tcase_add_test(tc, json_lists_every_kind);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_kinds)
