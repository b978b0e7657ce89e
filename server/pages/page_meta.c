/* page_meta.c: what a page says about itself in its <head> to search
 * engines and link previews: its description (page_describe.c), its
 * canonical address under --base-url, OpenGraph and Twitter card tags
 * with its preview card on run, model, hardware and model-on-hardware pages, and schema.org
 * JSON-LD where the page carries one (the glossary's common questions as a
 * FAQPage, the export as a Dataset on /api).  Every attribute value goes
 * through html_attr, every JSON-LD block through jsonw with JSONW_SCRIPT. */
#include "pages/page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "render/html.h"
#include "util/buf.h"
#include "util/jsonw.h"
#include "util/nelem.h"

/* The glossary's common questions as a FAQPage, built once at start
 * (page_meta_init) from the template's own text: read-only afterwards. */
static json_t *faq;

/* ---- the glossary's questions, read from its template ------------------ */

/* The named character references the questions may use, and what they
 * stand for; any other one is refused at start, so no answer shows a
 * half-decoded "&foo;". */
static const char *const entities[][2] = {
	{ "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" }, { "#39", "'" },
	{ "ldquo", "\xe2\x80\x9c" }, { "rdquo", "\xe2\x80\x9d" }, { "lsquo", "\xe2\x80\x98" },
	{ "rsquo", "\xe2\x80\x99" }, { "mdash", "\xe2\x80\x94" }, { "ndash", "\xe2\x80\x93" },
	{ "nbsp", " " }, { "hellip", "\xe2\x80\xa6" }, { "times", "\xc3\x97" },
};

/* Appends the text of the HTML s[0..n): tags dropped, the references of
 * entities[] decoded, runs of white space as one space, trimmed.  -1
 * (err says which) on a reference it does not know or a template tag. */
static int html_text(struct buf *out, const char *s, size_t n, struct err *err)
{
	const char *p = s, *end = s + n;
	int space = 0;
	size_t i, start = out->len;

	while (p < end) {
		if (*p == '<') {
			const char *gt = memchr(p, '>', (size_t)(end - p));

			p = gt ? gt + 1 : end;
			continue;
		}
		if (*p == '{' && p + 1 < end && p[1] == '{') {
			err_internal(err, "a template tag in the glossary's common questions");
			return -1;
		}
		if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
			space = 1;
			p++;
			continue;
		}
		if (space && out->len > start)
			buf_putc(out, ' ');
		space = 0;
		if (*p == '&') {
			const char *semi = memchr(p, ';', (size_t)(end - p) < 12 ? (size_t)(end - p) : 12);

			for (i = 0; semi && i < NELEM(entities); i++)
				if ((size_t)(semi - p - 1) == strlen(entities[i][0]) &&
				    !strncmp(p + 1, entities[i][0], (size_t)(semi - p - 1)))
					break;
			if (!semi || i == NELEM(entities)) {
				err_internal(err, "the glossary's common questions use a character reference "
					 "page_meta.c does not decode: %.12s", p);
				return -1;
			}
			buf_puts(out, entities[i][1]);
			p = semi + 1;
			continue;
		}
		buf_putc(out, *p++);
	}
	return 0;
}

/* The FAQPage of the section id="common-questions" of the glossary's
 * source src: each <h3> a Question, the paragraphs up to the next <h3>
 * its accepted Answer.  NULL with err on a section missing or malformed. */
static json_t *faq_of(const char *src, struct err *err)
{
	const char *p = strstr(src, "id=\"common-questions\""), *end;
	json_t *qs = json_array(), *page;
	struct buf q = BUF_INIT, a = BUF_INIT;

	end = p ? strstr(p, "</section>") : NULL;
	if (!p || !end) {
		err_internal(err, "the glossary has no section id=\"common-questions\"");
		goto fail;
	}
	while ((p = strstr(p, "<h3")) && p < end) {
		const char *h_end = strstr(p, "</h3>"), *next;

		if (!h_end || h_end > end)
			break;
		next = strstr(h_end, "<h3");
		if (!next || next > end)
			next = end;
		buf_reset(&q);
		buf_reset(&a);
		if (html_text(&q, p, (size_t)(h_end - p), err) < 0 ||
		    html_text(&a, h_end + 5, (size_t)(next - h_end - 5), err) < 0)
			goto fail;
		if (!q.len || !a.len || buf_error(&q) || buf_error(&a)) {
			err_internal(err, "a common question in the glossary without its answer");
			goto fail;
		}
		json_array_append_new(qs, json_pack("{s:s, s:s%, s:{s:s, s:s%}}", "@type", "Question",
			"name", q.buf, q.len, "acceptedAnswer", "@type", "Answer", "text", a.buf, a.len));
		p = next;
	}
	if (!json_array_size(qs)) {
		err_internal(err, "the glossary's common questions hold no <h3> question");
		goto fail;
	}
	buf_release(&q);
	buf_release(&a);
	page = json_pack("{s:s, s:s, s:o}", "@context", "https://schema.org", "@type", "FAQPage",
			 "mainEntity", qs);
	return page;
fail:
	buf_release(&q);
	buf_release(&a);
	json_decref(qs);
	return NULL;
}

/* See page.h. */
int page_meta_init(const char *templates_dir, struct err *err)
{
	struct buf path = BUF_INIT, src = BUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *f;
	int rc = -1;

	buf_printf(&path, "%s/glossary.html", templates_dir);
	if (buf_error(&path) || !(f = fopen(path.buf, "rb"))) {
		err_internal(err, "%s: %s", path.buf ? path.buf : "glossary.html", strerror(errno));
		goto out;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&src, chunk, n);
	fclose(f);
	if (buf_error(&src)) {
		err_internal(err, "out of memory reading %s", path.buf);
		goto out;
	}
	json_decref(faq);
	faq = faq_of(src.buf, err);
	rc = faq ? 0 : -1;
out:
	buf_release(&path);
	buf_release(&src);
	return rc;
}

void page_meta_free(void)
{
	json_decref(faq);
	faq = NULL;
}

/* ---- the head block ----------------------------------------------------- */

/* The pages with a link preview: the card the page's view model names by
 * its member key (or key's member sub), under prefix: a model on one
 * hardware shows its model's card. */
static const struct {
	const char *name, *prefix, *key, *sub;
} cards[] = {
	{ "run", "/card/", "id", NULL },
	{ "model", "/card/m/", "slug", NULL },
	{ "hw", "/card/hw/", "slug", NULL },
	{ "model_hw", "/card/m/", "model", "slug" },
};

/* Appends <meta name|property="key" content="value">, value escaped. */
static void meta(struct buf *b, const char *attr, const char *key, const char *value)
{
	buf_printf(b, "<meta %s=\"%s\" content=\"", attr, key);
	html_attr(b, value);
	buf_puts(b, "\">\n");
}

/* See page.h: each segment percent-encoded, so the address is one
 * whatever bytes the path holds. */
void page_meta_address(struct buf *b, const char *origin, const char *path)
{
	const char *p = path && *path == '/' ? path : "/", *slash;
	struct buf seg = BUF_INIT;

	buf_puts(b, origin);
	while (*p == '/') {
		buf_putc(b, '/');
		p++;
		slash = strchr(p, '/');
		buf_reset(&seg);
		buf_add(&seg, p, slash ? (size_t)(slash - p) : strlen(p));
		if (!buf_error(&seg))
			html_url_arg(b, seg.buf);
		p = slash ? slash : p + strlen(p);
	}
	buf_release(&seg);
}

/* The page's title as the header shows it (title_parts joined, else
 * title), plain text. */
static void title_text(struct buf *b, const json_t *m)
{
	const json_t *parts = json_object_get(m, "title_parts"), *part;
	size_t i;

	if (json_array_size(parts)) {
		json_array_foreach(parts, i, part) {
			buf_puts(b, json_string_value(json_object_get(part, "text")) ?
				 json_string_value(json_object_get(part, "text")) : "");
			buf_puts(b, json_string_value(json_object_get(part, "sep")) ?
				 json_string_value(json_object_get(part, "sep")) : "");
		}
	} else
		buf_puts(b, json_string_value(json_object_get(m, "title")) ?
			 json_string_value(json_object_get(m, "title")) : "llm-speed");
}

/* Appends the schema.org Dataset describing /export (on /api). */
static json_t *dataset(const char *origin)
{
	struct buf api = BUF_INIT, exp = BUF_INIT;
	json_t *d;

	buf_printf(&api, "%s/api", origin);
	buf_printf(&exp, "%s/export", origin);
	d = json_pack("{s:s, s:s, s:s, s:s, s:s%, s:[s, s, s, s], s:b, s:[s, s, s], "
		      "s:{s:s, s:s}, s:[{s:s, s:s, s:s%, s:s}]}",
		"@context", "https://schema.org", "@type", "Dataset",
		"name", "llm-speed runs: signed decode speeds of language models",
		"description", "Every benchmark run accepted by this llm-speed server, one JSON object per "
			"line: its decode tok/s, status, outlier flag and the exact signed bytes (JWS) its "
			"submitter uploaded, so every figure can be checked offline against its signature.",
		"url", api.buf ? api.buf : "", api.len,
		"keywords", "LLM inference", "tokens per second", "benchmark", "local language models",
		"isAccessibleForFree", 1,
		"variableMeasured", "decode tokens per second", "prefill tokens per second",
			"time to first token",
		"creator", "@type", "Organization", "name", "llm-speed",
		"distribution", "@type", "DataDownload", "encodingFormat", "application/x-ndjson",
			"contentUrl", exp.buf ? exp.buf : "", exp.len, "name", "NDJSON export");
	buf_release(&api);
	buf_release(&exp);
	return d;
}

/* Appends v as a JSON-LD script element. */
static void json_ld(struct buf *b, const json_t *v)
{
	size_t at = b->len;

	buf_puts(b, "<script type=\"application/ld+json\">");
	if (!v || jsonw_buf(b, v, JSONW_SCRIPT) < 0) {
		b->len = at;    /* no half a script */
		b->buf[at] = '\0';
		return;
	}
	buf_puts(b, "</script>\n");
}

/* See page.h. */
int page_meta_add(struct req *r, const char *name, json_t *m, unsigned status)
{
	struct buf b = BUF_INIT, desc = BUF_INIT, url = BUF_INIT, img = BUF_INIT, title = BUF_INIT;
	char origin[300];
	size_t i;
	int rc;

	http_origin(r, origin, sizeof origin);
	page_describe(&desc, name, m);
	meta(&b, "name", "description", buf_error(&desc) ? "" : desc.buf);
	if (status != 200) {
		/* An error page is nobody's address. */
		buf_puts(&b, "<meta name=\"robots\" content=\"noindex\">\n");
		goto done;
	}
	page_meta_address(&url, origin, r->path);
	if (buf_error(&url))
		goto done;
	buf_puts(&b, "<link rel=\"canonical\" href=\"");
	html_attr(&b, url.buf);
	buf_puts(&b, "\">\n");
	for (i = 0; i < NELEM(cards); i++) {
		const json_t *k = json_object_get(m, cards[i].key);
		const char *key = json_string_value(cards[i].sub ? json_object_get(k, cards[i].sub) : k);

		if (strcmp(name, cards[i].name) || !key)
			continue;
		buf_printf(&img, "%s%s", origin, cards[i].prefix);
		html_url_arg(&img, key);
		buf_puts(&img, ".png");
		title_text(&title, m);
		if (buf_error(&img) || buf_error(&title))
			break;
		meta(&b, "property", "og:type", "website");
		meta(&b, "property", "og:site_name", "llm-speed");
		meta(&b, "property", "og:title", title.buf);
		meta(&b, "property", "og:description", desc.buf);
		meta(&b, "property", "og:url", url.buf);
		meta(&b, "property", "og:image", img.buf);
		meta(&b, "property", "og:image:type", "image/png");
		meta(&b, "property", "og:image:width", "1200");
		meta(&b, "property", "og:image:height", "630");
		meta(&b, "property", "og:image:alt", title.buf);
		meta(&b, "name", "twitter:card", "summary_large_image");
		break;
	}
	if (!strcmp(name, "glossary"))
		json_ld(&b, faq);
	else if (!strcmp(name, "api")) {
		json_t *d = dataset(origin);

		json_ld(&b, d);
		json_decref(d);
	}
done:
	rc = buf_error(&b) ? -1 : json_object_set_new(m, "head", json_stringn(b.buf, b.len));
	buf_release(&b);
	buf_release(&desc);
	buf_release(&url);
	buf_release(&img);
	buf_release(&title);
	return rc;
}
