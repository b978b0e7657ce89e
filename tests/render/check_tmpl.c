/* check_tmpl.c: the template engine of server/render/tmpl.c against the Mustache spec and our own rules. */
#include "check_util.h"
#include "util/buf.h"
#include "render/tmpl.h"

#include <jansson.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the Mustache spec vectors ---------------------------------------- */

/* Spec cases deliberately not run, with the reason for each.  Kept short:
 * the suite fails if this list grows past MAX_SKIPS. */
static const struct { const char *file, *name, *why; } skips[] = {
	{ NULL, NULL, NULL }  /* none: every case of the six files runs */
};
#define MAX_SKIPS 3

static const struct { const char *file; int count; } spec_files[] = {
	{ "interpolation", 42 },
	{ "sections", 34 },
	{ "inverted", 22 },
	{ "partials", 12 },
	{ "comments", 12 },
	{ "delimiters", 14 },
};

static int is_skipped(const char *file, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof skips / sizeof skips[0]; i++)
		if (skips[i].file && !strcmp(skips[i].file, file) &&
		    !strcmp(skips[i].name, name))
			return 1;
	return 0;
}

/* The partials of one spec case, compiled. */
struct partials {
	size_t n;
	const char *names[16];
	struct tmpl *t[16];
};

static const struct tmpl *find_partial(void *ud, const char *name)
{
	const struct partials *p = ud;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->names[i], name))
			return p->t[i];
	return NULL;
}

static void compile_partials(struct partials *p, json_t *map)
{
	const char *name;
	json_t *src;
	struct err err = ERR_INIT;

	p->n = 0;
	json_object_foreach(map, name, src) {
		ck_assert_uint_lt(p->n, 16);
		p->names[p->n] = name;
		p->t[p->n] = tmpl_compile(json_string_value(src),
					  json_string_length(src), &err);
		ck_assert_msg(p->t[p->n], "partial %s: %s", name, err.message);
		p->n++;
	}
}

static void free_partials(struct partials *p)
{
	while (p->n)
		tmpl_free(p->t[--p->n]);
}

/* Runs one spec case; returns 1 when the output is exactly as expected. */
static int run_case(const char *file, json_t *c)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	json_t *tpl = json_object_get(c, "template");
	const char *want = json_string_value(json_object_get(c, "expected"));
	struct partials parts;
	struct err err = ERR_INIT;
	struct tmpl *t;
	struct buf out = BUF_INIT;
	int ok;

	compile_partials(&parts, json_object_get(c, "partials"));
	t = tmpl_compile(json_string_value(tpl), json_string_length(tpl), &err);
	ck_assert_msg(t, "%s / %s: compile: %s (line %s)", file, name,
		      err.message, err.field);
	ok = tmpl_render(t, json_object_get(c, "data"), find_partial, &parts,
			 &out) == 0 && !strcmp(out.buf, want);
	if (!ok)
		fprintf(stderr, "FAIL %s / %s\n  want: [%s]\n  got:  [%s]\n",
			file, name, want, out.buf);
	buf_release(&out);
	tmpl_free(t);
	free_partials(&parts);
	return ok;
}

START_TEST(spec_file)
{
	const char *file = spec_files[_i].file;
	char path[64];
	char *text;
	json_t *doc, *c;
	json_error_t jerr;
	size_t len, k;
	int run = 0, passed = 0, skipped = 0;

	snprintf(path, sizeof path, "mustache/%s.json", file);
	text = read_vector(path, &len);
	ck_assert_msg(text, "cannot read %s/%s", vectors_dir(), path);
	doc = json_loadb(text, len, 0, &jerr);
	ck_assert_msg(doc, "%s: %s", path, jerr.text);
	json_array_foreach(json_object_get(doc, "tests"), k, c) {
		if (is_skipped(file, json_string_value(json_object_get(c, "name")))) {
			skipped++;
			continue;
		}
		run++;
		passed += run_case(file, c);
	}
	printf("mustache %-13s run %2d, passed %2d, skipped %d\n",
	       file, run, passed, skipped);
	ck_assert_int_eq(run + skipped, spec_files[_i].count);
	ck_assert_int_eq(passed, run);
	json_decref(doc);
	free(text);
}
END_TEST

START_TEST(skip_list_is_short)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof skips / sizeof skips[0]; i++)
		n += skips[i].file != NULL;
	ck_assert_uint_le(n, MAX_SKIPS);
}
END_TEST

/* ---- helpers for our own cases ---------------------------------------- */

/* Compiles src (which must compile) and renders it with the JSON ctx;
 * returns the output, or NULL when rendering returned -1. */
static char *render(const char *src, const char *ctx_json)
{
	struct err err = ERR_INIT;
	struct tmpl *t = tmpl_compile(src, strlen(src), &err);
	json_t *ctx = ctx_json ? json_loads(ctx_json, JSON_DECODE_ANY, NULL) : NULL;
	struct buf out = BUF_INIT;
	char *s = NULL;

	ck_assert_msg(t, "%s: %s", src, err.message);
	ck_assert(!ctx_json || ctx);
	if (tmpl_render(t, ctx, NULL, NULL, &out) == 0)
		s = buf_detach(&out, NULL);
	buf_release(&out);
	json_decref(ctx);
	tmpl_free(t);
	return s;
}

#define RENDER_EQ(src, ctx, want) do { char *s_ = render(src, ctx); \
	ck_assert_ptr_nonnull(s_); ck_assert_str_eq(s_, want); free(s_); } while (0)

START_TEST(escapes_by_default)
{
	const char *ctx = "{\"v\": \"<script>alert('x')</script>\"}";

	RENDER_EQ("<p>{{v}}</p>", ctx,
		  "<p>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</p>");
	RENDER_EQ("<p>{{{v}}}</p>", ctx, "<p><script>alert('x')</script></p>");
	RENDER_EQ("<p>{{& v}}</p>", ctx, "<p><script>alert('x')</script></p>");
	RENDER_EQ("{{=<% %>=}}<%v%>|<%{v}%>", "{\"v\": \"a&b\"}", "a&amp;b|a&b");
	RENDER_EQ("{{#l}}{{.}}{{/l}}", "{\"l\": [\"<\", \"&\"]}", "&lt;&amp;");
}
END_TEST

START_TEST(time_tag)
{
	RENDER_EQ("{{@t}}", "{\"t\": \"2026-11-30T18:04:05Z\"}",
		  "<time datetime=\"2026-11-30T18:04:05Z\">30 Nov 2026</time>");
	RENDER_EQ("<p>{{#r}}{{@at}}{{/r}}</p>", "{\"r\": {\"at\": \"2026-01-02\"}}",
		  "<p><time datetime=\"2026-01-02\">2 Jan 2026</time></p>");
	/* Not a timestamp: shown as it is, escaped in the text and the attribute. */
	RENDER_EQ("{{@t}}", "{\"t\": \"<b>\\\"x\"}",
		  "<time datetime=\"&lt;b&gt;&quot;x\">&lt;b&gt;&quot;x</time>");
	RENDER_EQ("[{{@t}}][{{@n}}][{{@missing}}]", "{\"t\": 5, \"n\": null}", "[][][]");
	/* Never standalone: the line around it stays. */
	RENDER_EQ("a\n{{@t}}\nb", "{\"t\": \"2026-12-31\"}",
		  "a\n<time datetime=\"2026-12-31\">31 Dec 2026</time>\nb");
}
END_TEST

START_TEST(value_formatting)
{
	RENDER_EQ("{{i}}", "{\"i\": 9007199254740993}", "9007199254740993");
	RENDER_EQ("{{i}}", "{\"i\": -42}", "-42");
	RENDER_EQ("{{r}}", "{\"r\": 0.1}", "0.1");
	RENDER_EQ("{{r}}", "{\"r\": 1.21}", "1.21");
	RENDER_EQ("{{r}}", "{\"r\": 2.5e-7}", "2.5e-7");
	RENDER_EQ("{{r}}", "{\"r\": 0.30000000000000004}", "0.30000000000000004");
	RENDER_EQ("{{r}}", "{\"r\": 3.0}", "3");
	RENDER_EQ("{{t}}/{{f}}/{{n}}/{{o}}/{{a}}",
		  "{\"t\": true, \"f\": false, \"n\": null, \"o\": {\"x\": 1}, \"a\": [1]}",
		  "true/false///");
}
END_TEST

START_TEST(section_truthiness)
{
	const char *ctx = "{\"z\": 0, \"zr\": 0.0, \"e\": \"\", \"l\": [], "
			  "\"o\": {}, \"n\": 7, \"s\": \"x\"}";

	RENDER_EQ("{{#z}}z{{/z}}{{#zr}}zr{{/zr}}{{#e}}e{{/e}}{{#l}}l{{/l}}", ctx, "");
	RENDER_EQ("{{#o}}o{{/o}}{{#n}}{{.}}{{/n}}{{#s}}{{.}}{{/s}}", ctx, "o7x");
	RENDER_EQ("{{^z}}z{{/z}}{{^e}}e{{/e}}{{^o}}o{{/o}}", ctx, "ze");
	RENDER_EQ("[{{x}}]", NULL, "[]");
}
END_TEST

START_TEST(nested_partial_indentation)
{
	const char *top = "<ul>\n  {{>a}}\n</ul>\n";
	const char *a = "<li>\n  {{>b}}\n</li>\n", *b = "x\ny\n";
	struct partials p = { 2, { "a", "b" }, { NULL, NULL } };
	struct tmpl *t = tmpl_compile(top, strlen(top), NULL);
	struct buf out = BUF_INIT;

	p.t[0] = tmpl_compile(a, strlen(a), NULL);
	p.t[1] = tmpl_compile(b, strlen(b), NULL);
	ck_assert(t && p.t[0] && p.t[1]);
	ck_assert_int_eq(tmpl_render(t, NULL, find_partial, &p, &out), 0);
	ck_assert_str_eq(out.buf, "<ul>\n  <li>\n    x\n    y\n  </li>\n</ul>\n");
	buf_release(&out);
	tmpl_free(t);
	free_partials(&p);
}
END_TEST

/* ---- syntax errors ---------------------------------------------------- */

static void expect_error(const char *src, int line, const char *msg)
{
	struct err err = ERR_INIT;
	struct tmpl *t = tmpl_compile(src, strlen(src), &err);

	ck_assert_msg(!t, "compiled: %s", src);
	ck_assert_msg(strstr(err.message, msg), "%s: got \"%s\", want \"%s\"",
		      src, err.message, msg);
	ck_assert_msg(atoi(err.field) == line, "%s: line %s, want %d", src, err.field, line);
	ck_assert_uint_eq(err.status, 500);
	ck_assert_str_eq(err.code, TMPL_ERR_CODE);
}

START_TEST(syntax_errors)
{
	char deep[64 * 12 + 16] = "";
	int i;

	expect_error("a\n{{#x}}\nb\n", 2, "unclosed section 'x'");
	expect_error("{{#x}}\n{{#y}}\n{{/x}}", 3, "does not match section 'y'");
	expect_error("a\n\n<p>{{name</p>", 3, "unclosed tag");
	expect_error("x\n{{/x}}", 2, "without a section");
	expect_error("{{=<% %>=}}\n<%name}}", 2, "unclosed tag");
	expect_error("{{{x}}", 1, "unclosed tag");
	expect_error("\n{{a..b}}", 2, "bad name");
	expect_error("{{a.}}", 1, "bad name");
	expect_error("{{a b}}", 1, "bad name");
	expect_error("{{ }}", 1, "empty tag");
	expect_error("{{> }}", 1, "empty tag");
	expect_error("{{=x=}}", 1, "bad set-delimiter");
	expect_error("{{=a= b=}}", 1, "bad set-delimiter");
	expect_error("{{<parent}}{{/parent}}", 1, "inheritance");
	for (i = 0; i <= TMPL_MAX_NESTING; i++)
		strcat(deep, "{{#a}}");
	expect_error(deep, 1, "nested deeper");
	ck_assert_ptr_null(tmpl_compile("{{#a}}", 6, NULL));
}
END_TEST

/* ---- limits ----------------------------------------------------------- */

static const struct tmpl *self_partial(void *ud, const char *name)
{
	return ud;
}

static int render_self(const char *src, const char *ctx_json, struct buf *out)
{
	struct tmpl *t = tmpl_compile(src, strlen(src), NULL);
	json_t *ctx = json_loads(ctx_json, 0, NULL);
	int rc;

	ck_assert(t && ctx);
	rc = tmpl_render(t, ctx, self_partial, t, out);
	json_decref(ctx);
	tmpl_free(t);
	return rc;
}

START_TEST(self_recursive_partial_stops)
{
	struct buf out = BUF_INIT;

	ck_assert_int_eq(render_self("x{{>me}}", "{}", &out), -1);
	ck_assert_uint_eq(out.len, TMPL_MAX_PARTIAL_DEPTH + 1);
	buf_reset(&out);
	/* Two branches per level: stops at the first overflow, not 2^32. */
	ck_assert_int_eq(render_self("{{#l}}{{>me}}{{/l}}", "{\"l\": [1, 2]}",
				     &out), -1);
	buf_release(&out);
}
END_TEST

/* Returns {"c": {"c": ... {"c": false}}} with n objects holding "c"; the
 * false stops the name lookup falling through to an outer "c". */
static json_t *nested_c(int n)
{
	json_t *v = json_false();

	while (n-- > 0) {
		json_t *o = json_object();
		json_object_set_new(o, "c", v);
		v = o;
	}
	return v;
}

START_TEST(recursion_bounded_by_data_is_fine)
{
	const char *src = "{{#c}}<{{>me}}>{{/c}}";
	struct tmpl *t = tmpl_compile(src, strlen(src), NULL);
	json_t *ctx = nested_c(21);
	struct buf out = BUF_INIT;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(tmpl_render(t, ctx, self_partial, t, &out), 0);
	ck_assert_str_eq(out.buf, "<<<<<<<<<<<<<<<<<<<<>>>>>>>>>>>>>>>>>>>>");
	json_decref(ctx);
	/* Deeper data passes the partial limit: an error, not a crash. */
	ctx = nested_c(TMPL_MAX_PARTIAL_DEPTH + 8);
	buf_reset(&out);
	ck_assert_int_eq(tmpl_render(t, ctx, self_partial, t, &out), -1);
	buf_release(&out);
	json_decref(ctx);
	tmpl_free(t);
}
END_TEST

START_TEST(buffer_in_error_fails)
{
	struct tmpl *t = tmpl_compile("x", 1, NULL);
	struct buf out = BUF_INIT;

	buf_grow(&out, BUF_MAX);
	ck_assert_int_eq(tmpl_render(t, NULL, NULL, NULL, &out), -1);
	buf_release(&out);
	tmpl_free(t);
}
END_TEST

/* ---- sets loaded from a directory ------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void remove_files(const char *dir, const char *const *names)
{
	char path[512];

	for (; *names; names++) {
		snprintf(path, sizeof path, "%s/%s", dir, *names);
		unlink(path);
	}
	rmdir(dir);
}

static const char *const set_files[] = {
	"page.html", "_row.html", "notes.txt", ".page.html", "bad.html", NULL
};

static struct tmpl_set *load_page_set(char *dir)
{
	struct err err = ERR_INIT;
	struct tmpl_set *s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "page.html",
		   "<h1>{{title}}</h1>\n<ul>\n  {{#runs}}\n  {{>_row}}\n"
		   "  {{/runs}}\n</ul>\n");
	write_file(dir, "_row.html", "<li>{{model}}: {{tps}}</li>\n");
	write_file(dir, "notes.txt", "{{#broken");
	write_file(dir, ".page.html", "{{#broken");
	s = tmpl_set_load(dir, &err);
	ck_assert_msg(s, "%s", err.message);
	return s;
}

static const char page_ctx[] =
	"{\"title\": \"Runs <all>\", \"runs\": ["
	"{\"model\": \"llama & co\", \"tps\": 41.5}, {\"model\": \"qwen\", \"tps\": 7}]}";
static const char page_out[] =
	"<h1>Runs &lt;all&gt;</h1>\n<ul>\n"
	"  <li>llama &amp; co: 41.5</li>\n  <li>qwen: 7</li>\n</ul>\n";

START_TEST(set_load_and_render)
{
	char dir[] = "/tmp/check_tmpl.XXXXXX";
	struct tmpl_set *s = load_page_set(dir);
	json_t *ctx = json_loads(page_ctx, 0, NULL);
	struct buf out = BUF_INIT;

	ck_assert_ptr_nonnull(tmpl_set_get(s, "page"));
	ck_assert_ptr_nonnull(tmpl_set_get(s, "_row"));
	ck_assert_ptr_null(tmpl_set_get(s, "notes"));
	ck_assert_ptr_null(tmpl_set_get(s, ".page"));
	ck_assert_int_eq(tmpl_set_render(s, "page", ctx, &out), 0);
	ck_assert_str_eq(out.buf, page_out);
	buf_reset(&out);
	ck_assert_int_eq(tmpl_set_render(s, "nope", ctx, &out), -1);
	ck_assert_uint_eq(out.len, 0);
	buf_release(&out);
	json_decref(ctx);
	tmpl_set_free(s);
	remove_files(dir, set_files);
}
END_TEST

START_TEST(set_load_names_bad_file)
{
	char dir[] = "/tmp/check_tmpl.XXXXXX";
	struct err err = ERR_INIT;
	struct tmpl_set *s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "page.html", "fine {{x}}\n");
	write_file(dir, "bad.html", "one\ntwo {{#open}}\nthree\n");
	s = tmpl_set_load(dir, &err);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err.message, "bad.html:2: unclosed section 'open'"),
		      "%s", err.message);
	ck_assert_str_eq(err.field, "bad.html:2");
	remove_files(dir, set_files);
	ck_assert_ptr_null(tmpl_set_load("/nonexistent/templates", &err));
	ck_assert(strstr(err.message, "/nonexistent/templates"));
}
END_TEST

/* ---- many threads, one compiled set ----------------------------------- */

struct job {
	const struct tmpl_set *s;
	const json_t *ctx;
	int bad;
};

static void *render_many(void *arg)
{
	struct job *j = arg;
	struct buf out = BUF_INIT;
	int i;

	for (i = 0; i < 300; i++) {
		if (tmpl_set_render(j->s, "page", j->ctx, &out) < 0 ||
		    strcmp(out.buf, page_out))
			j->bad++;
		/* Reset after use: buf_reset() of a buffer that never grew
		 * writes to the shared buf_slop, a race between threads. */
		buf_reset(&out);
	}
	buf_release(&out);
	return NULL;
}

START_TEST(threads_share_a_set)
{
	char dir[] = "/tmp/check_tmpl.XXXXXX";
	struct tmpl_set *s = load_page_set(dir);
	json_t *ctx = json_loads(page_ctx, 0, NULL);
	pthread_t th[8];
	struct job jobs[8];
	int i;

	for (i = 0; i < 8; i++) {
		jobs[i] = (struct job){ s, ctx, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, render_many, &jobs[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(jobs[i].bad, 0);
	}
	json_decref(ctx);
	tmpl_set_free(s);
	remove_files(dir, set_files);
}
END_TEST

static Suite *suite_tmpl(void)
{
	Suite *s = suite_create("tmpl");
	TCase *spec = tcase_create("spec");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(spec, spec_file, 0,
			    (int)(sizeof spec_files / sizeof spec_files[0]));
	tcase_add_test(spec, skip_list_is_short);
	suite_add_tcase(s, spec);
	tcase_add_test(tc, escapes_by_default);
	tcase_add_test(tc, value_formatting);
	tcase_add_test(tc, time_tag);
	tcase_add_test(tc, section_truthiness);
	tcase_add_test(tc, nested_partial_indentation);
	tcase_add_test(tc, syntax_errors);
	tcase_add_test(tc, self_recursive_partial_stops);
	tcase_add_test(tc, recursion_bounded_by_data_is_fine);
	tcase_add_test(tc, buffer_in_error_fails);
	tcase_add_test(tc, set_load_and_render);
	tcase_add_test(tc, set_load_names_bad_file);
	tcase_add_test(tc, threads_share_a_set);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_tmpl)
