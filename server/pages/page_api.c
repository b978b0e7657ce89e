/* page_api.c: the /api page, schema/openapi.json made readable, its view model built once at start. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* The page's view model, built by page_api_init and only read afterwards. */
static json_t *api_model;

/* node with local references ("#/components/...") followed; NULL when one
 * leads nowhere. */
static json_t *deref(json_t *spec, json_t *node)
{
	const char *ref, *p;
	char part[128];
	size_t n;
	int hops = 0;

	while (json_is_object(node) && (ref = json_string_value(json_object_get(node, "$ref"))) &&
	       !strncmp(ref, "#/", 2)) {
		if (++hops > 8)
			return NULL;
		for (node = spec, p = ref + 2; *p && node; p += n + (p[n] == '/')) {
			n = strcspn(p, "/");
			if (n >= sizeof part)
				return NULL;
			memcpy(part, p, n);
			part[n] = '\0';
			node = json_object_get(node, part);
		}
	}
	return node;
}

static const char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* A description as blocks: {"p": text} for a paragraph, {"is_list": true,
 * "list": [{"text"}]} for consecutive "- " lines. */
static json_t *blocks_of(const char *text)
{
	json_t *blocks = json_array(), *list = NULL;
	const char *line = text ? text : "", *end;
	size_t n;

	while (blocks && *line) {
		end = strchr(line, '\n');
		n = end ? (size_t)(end - line) : strlen(line);
		if (n > 2 && !strncmp(line, "- ", 2)) {
			if (!list) {
				list = json_array();
				json_array_append_new(blocks, json_pack("{s:b, s:o}", "is_list", 1, "list", list));
			}
			json_array_append_new(list, json_pack("{s:s%}", "text", line + 2, n - 2));
		} else if (n) {
			list = NULL;
			json_array_append_new(blocks, json_pack("{s:s%}", "p", line, n));
		} else {
			list = NULL;
		}
		line += n + (end != NULL);
	}
	return blocks;
}

/* "Name: description" of each header of a response. */
static json_t *headers_of(json_t *spec, json_t *resp)
{
	json_t *out = json_array(), *h;
	const char *name;

	json_object_foreach(json_object_get(resp, "headers"), name, h) {
		h = deref(spec, h);
		json_array_append_new(out, json_pack("{s:s, s:s}", "name", name,
						     "description", str_of(h, "description")));
	}
	return out;
}

static json_t *responses_of(json_t *spec, json_t *op)
{
	json_t *out = json_array(), *resp;
	const char *status;

	json_object_foreach(json_object_get(op, "responses"), status, resp) {
		resp = deref(spec, resp);
		json_array_append_new(out, json_pack("{s:s, s:s, s:o, s:b}", "status", status,
						     "description", str_of(resp, "description"),
						     "headers", headers_of(spec, resp),
						     "has_headers", json_object_size(json_object_get(resp, "headers")) > 0));
	}
	return out;
}

static json_t *params_of(json_t *spec, json_t *op)
{
	json_t *out = json_array(), *p;
	size_t i;

	json_array_foreach(json_object_get(op, "parameters"), i, p) {
		p = deref(spec, p);
		json_array_append_new(out, json_pack("{s:s, s:s, s:b, s:s}", "name", str_of(p, "name"),
						     "in", str_of(p, "in"),
						     "required", json_is_true(json_object_get(p, "required")),
						     "description", str_of(p, "description")));
	}
	return out;
}

/* The request body: its media types and description; null when none. */
static json_t *body_of(json_t *op)
{
	json_t *body = json_object_get(op, "requestBody"), *types, *v;
	const char *type;

	if (!body)
		return json_null();
	types = json_array();
	json_object_foreach(json_object_get(body, "content"), type, v)
		json_array_append_new(types, json_pack("{s:s}", "type", type));
	return json_pack("{s:o, s:s}", "types", types, "description", str_of(body, "description"));
}

/* Who may call: the security schemes an operation names; optional when
 * the operation also accepts no credentials (an empty requirement). */
static json_t *auth_of(json_t *spec, json_t *op)
{
	json_t *out = json_array(), *req, *v, *security = json_object_get(op, "security");
	json_t *schemes = json_object_get(json_object_get(spec, "components"), "securitySchemes");
	const char *name;
	int optional = 0;
	size_t i;

	json_array_foreach(security, i, req)
		optional |= json_object_size(req) == 0;
	json_array_foreach(security, i, req)
		json_object_foreach(req, name, v)
			json_array_append_new(out, json_pack("{s:s, s:s, s:b}", "name", name,
				"description", str_of(json_object_get(schemes, name), "description"),
				"optional", optional));
	return out;
}

/* The first paragraph of a description's blocks, taken out of them (the
 * page shows it; the rest is folded with the reference); null when the
 * blocks do not start with one. */
static json_t *lead_of(json_t *blocks)
{
	json_t *first = json_array_get(blocks, 0), *p = json_object_get(first, "p");

	if (!json_is_string(p))
		return json_null();
	json_incref(p);
	json_array_remove(blocks, 0);
	return p;
}

static json_t *operation_of(json_t *spec, const char *path, const char *method, json_t *op)
{
	json_t *blocks = blocks_of(str_of(op, "description")), *lead = lead_of(blocks);
	char upper[16];
	size_t i;

	for (i = 0; method[i] && i < sizeof upper - 1; i++)
		upper[i] = (char)(method[i] >= 'a' && method[i] <= 'z' ? method[i] - 32 : method[i]);
	upper[i] = '\0';
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:b, s:o, s:o, s:b, s:o}",
			 "id", str_of(op, "operationId"), "method", upper, "path", path,
			 "summary", str_of(op, "summary"), "lead", lead,
			 "blocks", blocks,
			 "params", params_of(spec, op),
			 "has_params", json_array_size(json_object_get(op, "parameters")) > 0,
			 "body", body_of(op), "auth", auth_of(spec, op),
			 "has_auth", json_array_size(json_object_get(op, "security")) > 0,
			 "responses", responses_of(spec, op));
}

/* The operations whose first tag is tag, in the order of the paths object
 * (each operation shows once, under its first tag). */
static json_t *group_of(json_t *spec, json_t *tag)
{
	const char *want = str_of(tag, "name"), *path, *method;
	json_t *ops = json_array(), *item, *op, *t;

	json_object_foreach(json_object_get(spec, "paths"), path, item) {
		json_object_foreach(item, method, op) {
			if (!json_is_object(op) || !json_object_get(op, "responses"))
				continue;
			t = json_array_get(json_object_get(op, "tags"), 0);
			if (json_is_string(t) && !strcmp(json_string_value(t), want))
				json_array_append_new(ops, operation_of(spec, path, method, op));
		}
	}
	return json_pack("{s:s, s:s, s:I, s:o}", "tag", want, "description", str_of(tag, "description"),
			 "count", (json_int_t)json_array_size(ops), "ops", ops);
}

/* The error codes of the Error schema, with its description. */
static json_t *errors_of(json_t *spec)
{
	json_t *code = json_object_get(json_object_get(json_object_get(json_object_get(
			json_object_get(json_object_get(json_object_get(spec, "components"), "schemas"),
					"Error"), "properties"), "error"), "properties"), "code");
	json_t *codes = json_array(), *v;
	size_t i;

	json_array_foreach(json_object_get(code, "enum"), i, v)
		json_array_append_new(codes, json_pack("{s:O}", "code", v));
	return json_pack("{s:o, s:s}", "codes", codes, "description", str_of(code, "description"));
}

static json_t *model_of(json_t *spec)
{
	json_t *info = json_object_get(spec, "info"), *groups = json_array(), *tag;
	size_t i;

	json_array_foreach(json_object_get(spec, "tags"), i, tag)
		json_array_append_new(groups, group_of(spec, tag));
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "title", "API",
			 "summary", str_of(info, "summary"), "version", str_of(info, "version"),
			 "intro", blocks_of(str_of(info, "description")),
			 "groups", groups, "errors", errors_of(spec));
}

int page_api_init(const char *path, struct err *err)
{
	json_error_t je;
	json_t *spec = json_load_file(path, 0, &je);

	if (!spec)
		return err_internal(err, "cannot read the API description %s: %s (line %d)", path, je.text, je.line);
	json_decref(api_model);
	api_model = json_is_object(json_object_get(spec, "paths")) ? model_of(spec) : NULL;
	json_decref(spec);
	if (!api_model)
		return err_internal(err, "cannot make the /api page from %s (no paths, or out of memory)", path);
	return 0;
}

void page_api_free(void)
{
	json_decref(api_model);
	api_model = NULL;
}

/* /api: the page renderer adds per-request fields, so each request renders
 * its own copy of the model. */
json_t *page_api_view(struct page_view *v)
{
	json_t *m = api_model ? json_deep_copy(api_model) : NULL;

	if (!m)
		err_unavailable(&v->err, "The API description is not available.");
	return m;
}
