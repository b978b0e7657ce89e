/* page_changes.c: /changes, /changes.json and /changes.atom, the speed
 * changes between consecutive backend versions on one model and hardware
 * (issue 26; contract section 8), newest first, filtered by ?backend= and
 * ?hw=.  The changes are found by the refresh thread (store/versions.h);
 * this file reads one range of an index and words each one. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "domain/changes.h"
#include "ingest/validate.h"
#include "pages/browse.h"
#include "render/html.h"
#include "store/versions.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "util/slug.h"
#include "util/timefmt.h"

#define CHANGES_SHOWN 100

/* The rule, as /changes and /methodology state it. */
#define CHANGES_RULE "A change is reported when two consecutive versions of a backend, each " \
	"measured by at least 5 submitters on the same weights and hardware, differ by the " \
	"two-sided Mann-Whitney U test over one value per submitter (their own median decode) " \
	"at p < 0.01. Versions are ordered as each backend numbers them: llama.cpp by build " \
	"(b6200), the others by PEP 440 (semantic versions, rc before the release)."

/* The checked filters: ?backend= (a backend name) and ?hw= (a slug). */
static int filters(struct req *r, const char **backend, const char **hw, struct err *e)
{
	*backend = http_query(r, "backend");
	*hw = http_query(r, "hw");
	if (*backend && !**backend)
		*backend = NULL;
	if (*hw && !**hw)
		*hw = NULL;
	if (*backend && !validate_backend_known(*backend))
		return err_set(e, 400, "invalid_query", "backend",
			       "The backend= argument must be one of: %s.", VALIDATE_BACKENDS_TEXT);
	if (*hw && !slug_valid(*hw))
		return err_set(e, 400, "invalid_query", "hw",
			       "The hw= argument must be a hardware slug such as rtx-4090 "
			       "(lowercase letters and digits joined by single hyphens).");
	return 0;
}

/* "llama.cpp b6200 is 12.4% faster than b6123 on RTX 4090 with
 * Qwen2.5-7B-Instruct Q4_K_M (9 vs 14 submitters)": plain text, the
 * change rounded as the page's column rounds it (change_text). */
static void sentence(struct buf *b, const json_t *c)
{
	double pct = json_number_value(json_object_get(c, "change_pct"));
	const char *q = json_string_value(json_object_get(c, "quant"));

	buf_printf(b, "%s %s is ", json_string_value(json_object_get(c, "backend")),
		   json_string_value(json_object_get(c, "to_version")));
	numfmt_fixed(b, fabs(pct), 1);
	buf_printf(b, "%% %s than %s on %s with %s%s%s (",
		   pct >= 0 ? "faster" : "slower",
		   json_string_value(json_object_get(c, "from_version")),
		   json_string_value(json_object_get(c, "hw_name")),
		   json_string_value(json_object_get(c, "model_name")), q ? " " : "", q ? q : "");
	buf_printf(b, "%lld vs %lld submitters)",
		   (long long)json_integer_value(json_object_get(c, "to_keys")),
		   (long long)json_integer_value(json_object_get(c, "from_keys")));
}

/* Adds each change's words, link, date and test to the rows of a. */
static int decorate(json_t *a)
{
	json_t *c;
	size_t i;

	json_array_foreach(a, i, c) {
		struct buf b = BUF_INIT, href = BUF_INIT;
		char when[TIMEFMT_LEN];

		sentence(&b, c);
		buf_printf(&href, "/m/%s/hw/%s", json_string_value(json_object_get(c, "model_slug")),
			   json_string_value(json_object_get(c, "hw_slug")));
		time_rfc3339((time_t)json_integer_value(json_object_get(c, "found_at")), when);
		if (buf_error(&b) || buf_error(&href)) {
			buf_release(&b);
			buf_release(&href);
			return -1;
		}
		json_object_set_new(c, "sentence", json_string(b.buf));
		json_object_set_new(c, "href", json_string(href.buf));
		json_object_set_new(c, "found_at", json_string(when));
		json_object_set_new(c, "faster", json_boolean(json_number_value(json_object_get(c, "change_pct")) > 0));
		json_object_set_new(c, "statistic", json_pack("{s:s, s:O, s:O, s:O}",
			"test", "mann_whitney_u", "u", json_object_get(c, "u"),
			"p", json_object_get(c, "p"), "exact", json_object_get(c, "exact")));
		json_object_del(c, "u");
		json_object_del(c, "p");
		json_object_del(c, "exact");
		buf_release(&b);
		buf_release(&href);
	}
	return 0;
}

/* A test's p as a page writes it: "p < 0.001" below a thousandth, else
 * two significant digits ("p = 0.0042"). */
static void p_text(struct buf *b, double p)
{
	if (!(p >= 0.001))
		buf_puts(b, "p < 0.001");
	else
		buf_printf(b, "p = %.2g", p);
}

/* The page's words for change c, as "text": {"change" "+18.8%" (one
 * decimal, as the sentence), "from" and "to" (the medians, numfmt_fig),
 * "from_keys" and "to_keys" ("8 submitters"), "p" (p_text)}; -1 when out
 * of memory. */
static int change_text(json_t *c)
{
	struct buf b[6] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	double pct = json_number_value(json_object_get(c, "change_pct"));
	int rc = -1, i;

	buf_puts(&b[0], pct > 0 ? "+" : pct < 0 ? "\xe2\x88\x92" : "");
	numfmt_fixed(&b[0], fabs(pct), 1);
	buf_puts(&b[0], "%");
	numfmt_fig(&b[1], json_number_value(json_object_get(c, "from_median_tok_s")));
	numfmt_fig(&b[2], json_number_value(json_object_get(c, "to_median_tok_s")));
	numfmt_count(&b[3], json_integer_value(json_object_get(c, "from_keys")), "submitter", "submitters");
	numfmt_count(&b[4], json_integer_value(json_object_get(c, "to_keys")), "submitter", "submitters");
	p_text(&b[5], json_number_value(json_object_get(json_object_get(c, "statistic"), "p")));
	for (i = 0; i < 6 && !buf_error(&b[i]); i++)
		;
	if (i == 6 && json_object_set_new(c, "text", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
			"change", b[0].buf, "from", b[1].buf, "to", b[2].buf,
			"from_keys", b[3].buf, "to_keys", b[4].buf, "p", b[5].buf)) == 0)
		rc = 0;
	for (i = 0; i < 6; i++)
		buf_release(&b[i]);
	return rc;
}

/* Adds name (a string member of each change of a) to the sorted, distinct
 * choices of out, as {"value", "name" (label_key's, else the value),
 * "selected"}; sel is the filter's current value, kept as a choice even
 * when no change has it. */
static void add_choices(json_t *out, const json_t *a, const char *name, const char *label_key,
			const char *sel)
{
	const json_t *c;
	size_t i, j;
	int seen = 0;

	json_array_foreach(a, i, c) {
		const char *v = json_string_value(json_object_get(c, name));
		const char *l = label_key ? json_string_value(json_object_get(c, label_key)) : NULL;
		const json_t *o;
		int dup = 0;

		if (!v)
			continue;
		json_array_foreach(out, j, o)
			dup |= !strcmp(json_string_value(json_object_get(o, "value")), v);
		if (dup)
			continue;
		seen |= sel && !strcmp(sel, v);
		json_array_append_new(out, json_pack("{s:s, s:s, s:b}", "value", v, "name", l ? l : v,
						     "selected", sel && !strcmp(sel, v)));
	}
	if (sel && !seen)
		json_array_append_new(out, json_pack("{s:s, s:s, s:b}", "value", sel, "name", sel, "selected", 1));
	browse_sort_by_name(out);
}

/* The page's filter choices into m: "backend_choices" (every backend a
 * change names, else the known ones) and "hw_choices", from the newest
 * CHANGES_SHOWN changes of every backend and hardware (all, a second read
 * only when a filter narrowed m's list); 0, or -1 without the database. */
static int choices(struct dbconn *c, json_t *m, const char *backend, const char *hw)
{
	json_t *all = json_object_get(m, "changes"), *bes = json_array(), *hws = json_array();
	const char *const *k;
	int own = 0;

	if ((backend || hw) &&
	    versions_changes(c, VALIDATE_SUITE, NULL, NULL, CHANGES_SHOWN, &all) != DB_OK) {
		json_decref(bes);
		json_decref(hws);
		return -1;
	}
	own = backend || hw;
	add_choices(bes, all, "backend", NULL, backend);
	if (!json_array_size(bes))
		for (k = validate_backends; *k; k++)
			json_array_append_new(bes, json_pack("{s:s, s:s, s:b}", "value", *k, "name", *k, "selected", 0));
	add_choices(hws, all, "hw_slug", "hw_name", hw);
	if (own)
		json_decref(all);
	json_object_set_new(m, "backend_choices", bes);
	json_object_set_new(m, "hw_choices", hws);
	return 0;
}

/* The view model of the list, or NULL with e set. */
static json_t *changes_model(struct req *r, struct err *e)
{
	const char *backend, *hw;
	struct dbconn *c;
	json_t *a, *m;

	if (filters(r, &backend, &hw, e) < 0)
		return NULL;
	if (!(c = db_reader(r->app->db)) ||
	    versions_changes(c, VALIDATE_SUITE, backend, hw, CHANGES_SHOWN, &a) != DB_OK) {
		err_unavailable(e, MSG_DB_DOWN);
		return NULL;
	}
	if (decorate(a) < 0) {
		json_decref(a);
		err_unavailable(e, MSG_NOMEM);
		return NULL;
	}
	m = json_pack("{s:s, s:s, s:{s:s?, s:s?}, s:o, s:b, s:I}",
		"title", "Speed changes between backend versions", "rule", CHANGES_RULE,
		"filters", "backend", backend, "hw", hw, "changes", a,
		"has_changes", json_array_size(a) > 0, "min_keys", (json_int_t)CHANGES_MIN_KEYS);
	if (!m)
		err_unavailable(e, MSG_NOMEM);
	return m;
}

/* GET /changes and /changes.json: the list; NULL with a 400 naming a
 * bad filter, a 503 without the database.  Kept like the other lists
 * (page.c) until the next write or the refresh thread's round after it,
 * when its query names nothing but ?backend= (one of the known
 * backends): any slug is a valid ?hw=, and ?suite= and ?sort=, which the
 * key holds, are read by no part of this page, so a copy for each value
 * would be bounded by nothing that exists; those are built each time. */
json_t *page_changes_view(struct page_view *v)
{
	json_t *m = changes_model(v->r, &v->err), *c;
	const char *backend, *hw;
	struct dbconn *db;
	size_t i;

	v->keep = m && v->key[0] && !http_query(v->r, "hw") && !http_query(v->r, "suite") &&
		  !http_query(v->r, "sort");
	if (!m || v->format != HTTP_FMT_HTML)
		return m;
	json_array_foreach(json_object_get(m, "changes"), i, c)
		if (change_text(c) < 0)
			goto nomem;
	backend = json_string_value(json_object_get(json_object_get(m, "filters"), "backend"));
	hw = json_string_value(json_object_get(json_object_get(m, "filters"), "hw"));
	if (!(db = db_reader(v->r->app->db)) || choices(db, m, backend, hw) < 0) {
		json_decref(m);
		err_unavailable(&v->err, MSG_DB_DOWN);
		return NULL;
	}
	return m;
nomem:
	json_decref(m);
	err_unavailable(&v->err, MSG_NOMEM);
	return NULL;
}

/* <name>text</name>, escaped for XML. */
static void el(struct buf *b, const char *name, const char *text)
{
	buf_printf(b, "<%s>", name);
	html_txt(b, text ? text : "");
	buf_printf(b, "</%s>\n", name);
}

static void link_el(struct buf *b, const char *type, const char *href)
{
	buf_printf(b, "<link rel=\"alternate\" type=\"%s\" href=\"", type);
	html_attr(b, href);
	buf_puts(b, "\"/>\n");
}

/* GET /changes.atom: the list as an Atom feed (RFC 4287), each change an
 * entry named by its combination and versions; filters as the page. */
int page_changes_atom(struct req *r, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	json_t *m = changes_model(r, &a->err), *c;
	struct buf b = BUF_INIT, t = BUF_INIT;
	char origin[300];
	size_t i;
	int rc;

	if (!m)
		return -1;
	http_origin(r, origin, sizeof origin);
	c = json_array_get(json_object_get(m, "changes"), 0);
	buf_puts(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		     "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
	buf_printf(&t, "%s/changes.atom", origin);
	el(&b, "id", t.buf);
	buf_puts(&b, "<link rel=\"self\" type=\"" CT_ATOM "\" href=\"");
	html_attr(&b, t.buf);
	buf_puts(&b, "\"/>\n");
	buf_reset(&t);
	buf_printf(&t, "%s/changes", origin);
	link_el(&b, MT_HTML, t.buf);
	el(&b, "title", "llm-speed: speed changes between backend versions");
	el(&b, "updated", c ? json_string_value(json_object_get(c, "found_at")) : "1970-01-01T00:00:00Z");
	buf_puts(&b, "<author><name>llm-speed</name></author>\n<generator>llm-speedd</generator>\n");
	json_array_foreach(json_object_get(m, "changes"), i, c) {
		const char *when = json_string_value(json_object_get(c, "found_at"));

		buf_puts(&b, "<entry>\n");
		buf_reset(&t);
		buf_printf(&t, "%s/changes#change-%lld", origin,
			   (long long)json_integer_value(json_object_get(c, "id")));
		el(&b, "id", t.buf);
		buf_reset(&t);
		buf_printf(&t, "%s%s", origin, json_string_value(json_object_get(c, "href")));
		link_el(&b, MT_HTML, t.buf);
		el(&b, "title", json_string_value(json_object_get(c, "sentence")));
		el(&b, "updated", when);
		el(&b, "published", when);
		buf_reset(&t);
		buf_printf(&t, "%s. Median decode ", json_string_value(json_object_get(c, "sentence")));
		numfmt_fig(&t, json_number_value(json_object_get(c, "from_median_tok_s")));
		buf_puts(&t, " tok/s before, ");
		numfmt_fig(&t, json_number_value(json_object_get(c, "to_median_tok_s")));
		buf_printf(&t, " tok/s after; Mann-Whitney U = ");
		numfmt_fig(&t, json_number_value(json_object_get(json_object_get(c, "statistic"), "u")));
		buf_printf(&t, ", p = %.2g.", json_number_value(json_object_get(json_object_get(c, "statistic"), "p")));
		el(&b, "summary", t.buf);
		buf_puts(&b, "</entry>\n");
	}
	buf_puts(&b, "</feed>\n");
	rc = buf_error(&t) ? -1 : answer_buf(a, 200, CT_ATOM, &b, &o);
	buf_release(&b);
	buf_release(&t);
	json_decref(m);
	return rc;
}
