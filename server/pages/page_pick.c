/* page_pick.c: the home page's picker (issue 22, contract section 8):
 * GET /?model=<slug or name>&hw=<slug or name>, a plain form that works
 * without JavaScript, answered by a 303 to /m/<model>/hw/<hw>.  A name is
 * turned into its slug as uploads are (util/slug.c), so "Llama 3.1 8B
 * Instruct" and "NVIDIA GeForce RTX 4090" find their pages; a field left
 * empty or naming nothing known gets the form again, with a sentence
 * under that field saying what to fix. */
#include "pages/page.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "domain/ceiling.h"
#include "ingest/validate.h"
#include "domain/resolve.h"
#include "render/html.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/slug.h"

/* A typed value is at most this many bytes (a payload's names are 100
 * code points). */
#define PICK_MAX 400
/* Names offered for a field that names nothing known. */
#define CANDIDATES_MAX 8

/* Any suite's model or hardware of that slug (search_names, migration
 * 0012: its unique index on kind and slug). */
static const char sql_known[] = "SELECT 1 FROM search_names WHERE kind = ?1 AND slug = ?2";
const char *const page_pick_sql[] = { sql_known, NULL };

/* One field of the picker. */
struct field {
	const char *name;      /* "model" or "hw" */
	char typed[PICK_MAX + 1];
	char slug[SLUG_MAX + 1];
	char error[PICK_MAX + 300];
};

/* 1 when a model (hw 0) or hardware (hw 1) of slug is known: uploaded in
 * any suite or in the reference data; 0 when not, -1 on error. */
static int known(struct req *r, int hw, const char *slug)
{
	struct dbconn *c = db_reader(r->app->db);
	sqlite3_stmt *st = c ? db_stmt(c, sql_known) : NULL;
	int rc;

	if (hw ? ceiling_hw(r->app->ref, slug) != NULL : ceiling_model_by_slug(r->app->ref, slug) != NULL)
		return 1;
	if (!st)
		return -1;
	db_bind_text(st, 1, hw ? "hw" : "model");
	db_bind_text(st, 2, slug);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* typed (trimmed, not empty) as a model (hw 0) or hardware: the
 * reference id the resolver reads it as (any spelling an upload might
 * use: "Meta-Llama-3.1-8B-Instruct", "llama3.1:8b", "4090"), else its
 * slug when it is one that is known, else the slug of it read as a name
 * when that is known.  1 with it, 0 when none is, -1 on error. */
static int resolve(struct req *r, int hw, const char *typed, char slug[SLUG_MAX + 1])
{
	const struct ceiling_model *m = hw ? NULL : resolve_model_name(r->app->ref, typed);
	const struct ceiling_hw *h = hw ? resolve_hw_name(r->app->ref, typed) : NULL;
	size_t n = strlen(typed);
	int k;

	if (m || h) {
		snprintf(slug, SLUG_MAX + 1, "%s", m ? m->id : h->slug);
		return 1;
	}
	if (slug_valid(typed) && (k = known(r, hw, typed)) != 0) {
		memcpy(slug, typed, n + 1);   /* a valid slug fits */
		return k;
	}
	if ((hw ? slug_hw(typed, slug, SLUG_MAX + 1) : slug_model(typed, slug, SLUG_MAX + 1)) < 0)
		return 0;
	return known(r, hw, slug);
}

/* Takes field f (hw: the hardware's) from the query into f->slug, or an
 * error sentence into f->error when it is empty, too long or names
 * nothing known.  0, or -1 when the database does not answer. */
static int take(struct req *r, struct field *f, int hw)
{
	const char *v = http_query(r, f->name), *what = hw ? "hardware" : "model";
	size_t n;
	int k;

	v = v ? v + strspn(v, " \t") : "";
	n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (n > PICK_MAX) {
		snprintf(f->error, sizeof f->error, "The %s field is at most %d characters: type its name or slug, like %s.",
			 what, PICK_MAX, hw ? "RTX 4090" : "Llama 3.1 8B Instruct");
		return 0;
	}
	memcpy(f->typed, v, n);
	f->typed[n] = '\0';
	if (!n) {
		snprintf(f->error, sizeof f->error, "Choose a %s: type its name or slug, like %s.", what,
			 hw ? "RTX 4090 or m3-ultra" : "Llama 3.1 8B Instruct or qwen2-5-7b-instruct");
		return 0;
	}
	if ((k = resolve(r, hw, f->typed, f->slug)) != 0)
		return k < 0 ? -1 : 0;
	f->slug[0] = '\0';
	snprintf(f->error, sizeof f->error, "No %s called \"%s\" has runs here or is in the reference data. Check the spelling, choose one of the suggestions, or find it in %s.",
		 what, f->typed, hw ? "the list of hardware" : "the list of models");
	return 0;
}

int page_pick_pair(struct req *r, const char *q, char *out, size_t n)
{
	char left[PICK_MAX + 1], model[SLUG_MAX + 1], hw[SLUG_MAX + 1];
	const char *on = strcasestr(q, " on ");
	size_t len = on ? (size_t)(on - q) : 0;
	int k;

	if (!on || len > PICK_MAX)
		return 0;
	memcpy(left, q, len);
	left[len] = '\0';
	if ((k = resolve(r, 0, left, model)) != 1 || (k = resolve(r, 1, on + 4, hw)) != 1)
		return k;
	snprintf(out, n, "/m/%s/hw/%s", model, hw);
	return 1;
}

/* Appends key=value to the picker's link b ("/?model=...&hw=..."). */
static void link_arg(struct buf *b, const char *key, const char *value)
{
	buf_puts(b, b->len > 2 ? "&" : "");
	buf_puts(b, key);
	buf_putc(b, '=');
	html_url_arg(b, value);
}

/* What search finds for field f (hw: the hardware's) when it names
 * nothing known: [{name, href}], each href the pick of it with the other
 * field (its page when the other is known); NULL when the database does
 * not answer. */
static json_t *candidates(struct req *r, const struct field *f, int hw, const struct field *other)
{
	struct dbconn *c = db_reader(r->app->db);
	json_t *names, *out = json_array(), *n;
	size_t i;

	if (!out || !f->error[0] || !f->typed[0] || f->slug[0])
		return out;
	if (!c || !(names = page_search_names(r, c, VALIDATE_SUITE, f->typed, hw ? "hw" : "model",
					      CANDIDATES_MAX))) {
		json_decref(out);
		return NULL;
	}
	json_array_foreach(names, i, n) {
		const char *slug = json_string_value(json_object_get(n, "slug"));
		struct buf b = BUF_INIT;

		if (other->slug[0]) {
			buf_printf(&b, "/m/%s/hw/%s", hw ? other->slug : slug, hw ? slug : other->slug);
		} else {
			buf_puts(&b, "/?");
			link_arg(&b, "model", hw ? other->typed : slug);
			link_arg(&b, "hw", hw ? slug : other->typed);
		}
		if (!buf_error(&b))
			json_array_append_new(out, json_pack("{s:O, s:s}", "name", json_object_get(n, "name"),
							     "href", b.buf));
		buf_release(&b);
	}
	json_decref(names);
	return out;
}

/* The form again with its errors, as the "pick" page's view model (a new
 * reference, NULL out of memory or when the database does not answer):
 * 400 for an empty or overlong field, 404 when a field names nothing
 * known, with the names search finds for it (links to their picks). */
static json_t *form_again(struct page_view *v, struct field *m, struct field *h)
{
	/* Empty or too long (typed left empty) is a 400; else what was typed is unknown. */
	int bad = (m->error[0] && !m->typed[0]) || (h->error[0] && !h->typed[0]);
	json_t *mc = candidates(v->r, m, 0, h), *hc = candidates(v->r, h, 1, m);

	if (!mc || !hc) {
		json_decref(mc);
		json_decref(hc);
		return NULL;
	}
	v->tmpl = "pick";
	v->status = bad ? 400 : 404;
	/* With names to offer, the sentence leads to them. */
	if (json_array_size(mc))
		snprintf(m->error, sizeof m->error,
			 "No model is called \"%s\" exactly; these match it:", m->typed);
	if (json_array_size(hc))
		snprintf(h->error, sizeof h->error,
			 "No hardware is called \"%s\" exactly; these match it:", h->typed);
	return json_pack("{s:s, s:{s:s, s:s, s:s?, s:s?, s:b, s:o, s:o, s:b, s:b}}", "title", "Choose a model and a hardware",
		"pick", "model", m->typed, "hw", h->typed,
		"model_error", m->error[0] ? m->error : NULL, "hw_error", h->error[0] ? h->error : NULL,
		"failed", 1, "model_candidates", mc, "hw_candidates", hc,
		"has_model_candidates", json_array_size(mc) > 0, "has_hw_candidates", json_array_size(hc) > 0);
}

int page_pick(struct page_view *v, json_t **out)
{
	struct field m = { .name = "model" }, h = { .name = "hw" };
	struct req *r = v->r;
	const char *suite = http_query(r, "suite");
	struct buf to = BUF_INIT;

	*out = NULL;
	if (!http_query(r, "model"))
		return 0;
	if (take(r, &m, 0) < 0 || take(r, &h, 1) < 0) {
		err_unavailable(&v->err, MSG_DB_DOWN);
		return 1;
	}
	if (m.error[0] || h.error[0]) {
		if (!(*out = form_again(v, &m, &h)))
			err_unavailable(&v->err, MSG_DB_DOWN);
		return 1;
	}
	buf_printf(&to, "/m/%s/hw/%s", m.slug, h.slug);
	if (suite && *suite) {
		buf_puts(&to, "?suite=");
		html_url_arg(&to, suite);
	}
	if (!buf_error(&to))
		page_view_redirect(v, 303, CC_NONE, to.buf);
	buf_release(&to);
	return 1;
}
