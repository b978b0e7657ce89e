/* validate.c: the upload payload schema of contract section 1, one table of
 * kinds walked member by member, with the field path of every error.  The
 * rules of single fields are in validate_rules.c, the strict parsing of the
 * bytes in validate_bytes.c. */
#include "ingest/validate_int.h"
#include "domain/resolve.h"
#include "domain/version.h"
#include "util/confusable.h"
#include "util/slug.h"
#include "util/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What a member must be; kind_desc[] says it in words for error messages. */
enum kind {
	K_STRING,      /* string; spec.max code points; 1 or more when required */
	K_NUMBER,      /* number >= 0 */
	K_MS,          /* number >= 0, milliseconds */
	K_RATE,        /* number > 0, tokens per second */
	K_COUNT,       /* JSON integer >= 0 */
	K_BYTES,       /* JSON integer >= 0, no upper bound but int64 */
	K_ONE,         /* JSON integer equal to 1 */
	K_BATCH,       /* JSON integer >= 1 */
	K_FRAC,        /* number in [0, 1] */
	K_BOOL,        /* true or false */
	K_OBJECT,      /* object whose members are spec.sub */
	K_ARRAY,       /* 1..spec.max objects whose members are spec.sub */
	K__MAX
};

static const char *const kind_desc[K__MAX] = {
	[K_STRING] = "a string",
	[K_NUMBER] = "a number (0 or more)",
	[K_MS] = "a time in milliseconds (0 or more)",
	[K_RATE] = "a rate in tokens per second greater than 0",
	[K_COUNT] = "a whole number (0 or more)",
	[K_BYTES] = "a whole number of bytes (0 or more)",
	[K_ONE] = "1 (the chat workloads measure a single stream)",
	[K_BATCH] = "a whole number of streams (1 or more)",
	[K_FRAC] = "a fraction from 0 to 1",
	[K_BOOL] = "true or false",
	[K_OBJECT] = "an object",
	[K_ARRAY] = "an array of objects",
};


/* One member of an object in the schema. */
struct spec {
	const char *key;
	enum kind kind;
	int required;
	size_t max;                /* K_STRING: code points; K_ARRAY: elements */
	const struct spec *sub;    /* K_OBJECT, K_ARRAY: members of the object(s) */
	const char *hint;          /* what to send, when kind_desc is too vague */
	int (*check)(const json_t *v, const char *field, struct vctx *c);
};

#define STR(k, req, max) { k, K_STRING, req, max, NULL, NULL, NULL }
#define STRC(k, req, max, hint, fn) { k, K_STRING, req, max, NULL, hint, fn }
#define NUM(k, kind, req) { k, kind, req, 0, NULL, NULL, NULL }
#define OBJ(k, req, sub) { k, K_OBJECT, req, 0, sub, NULL, NULL }
#define ARR(k, sub) { k, K_ARRAY, 1, VALIDATE_MAX_ITEMS, sub, NULL, NULL }
#define END { NULL, K__MAX, 0, 0, NULL, NULL, NULL }


static const struct spec client_spec[] = {
	STR("name", 1, 100),
	STR("version", 1, 100),
	END
};

static const struct spec backend_spec[] = {
	STRC("name", 1, 100, HINT_BACKEND, validate_check_backend),
	STR("version", 1, 100),
	STR("runner", 0, 100),
	END
};

static const struct spec model_spec[] = {
	STRC("name", 1, 200, HINT_MODEL, validate_check_model_name),
	STRC("digest", 1, 100, HINT_DIGEST, validate_check_digest),
	STRC("quantization", 0, 64, HINT_LABEL, validate_check_label),
	STRC("format", 0, 64, HINT_LABEL, validate_check_label),
	NUM("weights_bytes", K_BYTES, 0),
	END
};

static const struct spec hardware_spec[] = {
	STRC("cpu_model", 1, 200, NULL, validate_check_line),
	NUM("cpu_cores", K_NUMBER, 0),
	NUM("ram_gb", K_NUMBER, 0),
	STRC("gpu_name", 0, 200, NULL, validate_check_line),
	NUM("vram_gb", K_NUMBER, 0),
	STRC("os", 0, 100, NULL, validate_check_line),
	STRC("accelerator_summary", 1, 200, HINT_ACCEL, validate_check_accel),
	STRC("fingerprint_hash", 0, 100, HINT_FPRINT, validate_check_fingerprint),
	END
};

/* chat-short (W1) and chat-long (W2). */
static const struct spec chat_spec[] = {
	NUM("prompt_tokens", K_COUNT, 1),
	NUM("output_tokens", K_COUNT, 1),
	NUM("batch_size", K_ONE, 1),
	NUM("ttft_ms", K_MS, 1),
	NUM("prefill_tok_s", K_RATE, 1),
	NUM("decode_tok_s", K_RATE, 1),
	NUM("p50_ms", K_MS, 1),
	NUM("p95_ms", K_MS, 1),
	NUM("wall_ms", K_MS, 1),
	NUM("prefix_cache_hit_rate", K_FRAC, 0),
	END
};

/* long-context-decay (W3). */
static const struct spec decay_point_spec[] = {
	NUM("context_tokens", K_COUNT, 1),
	NUM("output_tokens", K_COUNT, 1),
	NUM("ttft_ms", K_MS, 1),
	NUM("prefill_tok_s", K_RATE, 1),
	NUM("decode_tok_s", K_RATE, 1),
	END
};

static const struct spec decay_spec[] = {
	ARR("points", decay_point_spec),
	END
};

/* concurrent-decode (W4). */
static const struct spec conc_point_spec[] = {
	NUM("batch_size", K_BATCH, 1),
	NUM("aggregate_tok_s", K_RATE, 1),
	NUM("per_stream_tok_s", K_RATE, 1),
	NUM("p50_ms", K_MS, 1),
	NUM("p95_ms", K_MS, 1),
	END
};

static const struct spec conc_spec[] = {
	NUM("serial", K_BOOL, 1),
	ARR("points", conc_point_spec),
	END
};

/* agent-trace (W5). */
static const struct spec turn_spec[] = {
	NUM("turn", K_COUNT, 1),
	NUM("context_tokens", K_COUNT, 1),
	NUM("ttft_ms", K_MS, 1),
	NUM("decode_tok_s", K_RATE, 1),
	END
};

static const struct spec agent_spec[] = {
	ARR("turns", turn_spec),
	NUM("wall_ms", K_MS, 1),
	NUM("prefix_cache_hit_rate", K_FRAC, 0),
	END
};

static const struct spec workloads_spec[] = {
	OBJ("chat-short", 1, chat_spec),
	OBJ("chat-long", 0, chat_spec),
	OBJ("long-context-decay", 0, decay_spec),
	OBJ("concurrent-decode", 0, conc_spec),
	OBJ("agent-trace", 0, agent_spec),
	END
};

static const struct spec payload_spec[] = {
	STRC("suite_version", 1, 100, HINT_SUITE, validate_check_suite),
	STRC("created_at", 1, 100, HINT_TIME, validate_check_time),
	OBJ("client", 1, client_spec),
	OBJ("backend", 1, backend_spec),
	OBJ("model", 1, model_spec),
	OBJ("hardware", 1, hardware_spec),
	OBJ("workloads", 1, workloads_spec),
	END
};

/* Fills c->e with status, code, field and the formatted message; returns -1. */
static int vfail(struct vctx *c, int status, const char *code, const char *field,
		 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static int vfail(struct vctx *c, int status, const char *code, const char *field,
		 const char *fmt, va_list ap)
{
	return err_vset(c->e, (unsigned)status, code, field, fmt, ap);
}

/* Reports an error with the given status and code; returns -1. */
int validate_fail(struct vctx *c, int status, const char *code, const char *field,
	 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, status, code, field, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reports a 422 schema_violation at field; returns -1. */
int validate_bad(struct vctx *c, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, 422, "schema_violation", field, fmt, ap);
	va_end(ap);
	return -1;
}

/* The JSON type of v in words, for "must be X, not Y" messages. */
static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Writes "the required members of sub" as "a, b and c" into out (size n). */
static void list_required(const struct spec *sub, char *out, size_t n)
{
	size_t len = 0, k = 0, total = 0;
	const struct spec *s;

	out[0] = '\0';
	for (s = sub; s->key; s++)
		total += s->required;
	for (s = sub; s->key && len < n; s++) {
		if (!s->required)
			continue;
		k++;
		len += (size_t)snprintf(out + len, n - len, "%s%s",
					k == 1 ? "" : k == total ? " and " : ", ", s->key);
	}
}

/* Writes what to send for the member s, in words, into out (size n). */
static void describe(const struct spec *s, char *out, size_t n)
{
	char members[200];

	if (s->hint) {
		snprintf(out, n, "%s", s->hint);
	} else if (s->kind == K_STRING) {
		snprintf(out, n, "a string of %s%zu characters",
			 s->required ? "1 to " : "at most ", s->max);
	} else if (s->kind == K_OBJECT || s->kind == K_ARRAY) {
		list_required(s->sub, members, sizeof members);
		if (s->kind == K_OBJECT)
			snprintf(out, n, "an object with %s", members);
		else
			snprintf(out, n, "an array of 1 to %zu objects, each with %s",
				 s->max, members);
	} else {
		snprintf(out, n, "%s", kind_desc[s->kind]);
	}
}

/* Reports member s at field as missing. */
static int missing(struct vctx *c, const char *field, const struct spec *s)
{
	char want[240];

	describe(s, want, sizeof want);
	return validate_bad(c, field, "%s is missing; send %s.", field, want);
}

/* Reports the required string member s at field as empty. */
static int empty(struct vctx *c, const char *field, const struct spec *s)
{
	char want[240];

	describe(s, want, sizeof want);
	return validate_bad(c, field, "%s is empty; send %s.", field, want);
}

/* Reports member s at field as having the wrong JSON type. */
static int wrong_type(struct vctx *c, const char *field, const struct spec *s,
		      const json_t *v)
{
	char want[240];

	describe(s, want, sizeof want);
	return validate_bad(c, field, "%s must be %s, not %s.", field, want, type_name(v));
}

/* Reports the code point ch at byte offset at of the string at field as
 * one no output can carry; returns -1. */
static int bad_char(struct vctx *c, const char *field, const char *str, long at, uint32_t ch)
{
	char name[12];

	utf8_cp_name(ch, name);
	return validate_bad(c, field, "%s contains %s, %s, at character %zu; remove it.", field, name,
		   utf8_is_noncharacter(ch) ? "a noncharacter that feeds and badges cannot carry"
					    : "a control character", validate_nth(str, at));
}

size_t validate_nth(const char *str, long at)
{
	long before = utf8_count((const unsigned char *)str, (size_t)at);   /* well-formed up to at */

	return before < 0 ? 1 : (size_t)before + 1;
}

/* K_STRING: a string of 1 (when required) to s->max code points, without
 * NULs, control characters (tab and line breaks included: these are names
 * of one line) or noncharacters (U+FFFE, U+FDD0, ...), which XML feeds and
 * badges cannot carry. */
static int check_string(const json_t *v, const char *field, const struct spec *s,
			struct vctx *c)
{
	const char *str;
	size_t cp;
	uint32_t ch;
	long at;

	if (!json_is_string(v))
		return wrong_type(c, field, s, v);
	str = json_string_value(v);
	if (strlen(str) != json_string_length(v))
		return validate_bad(c, field, "%s contains a NUL character (\\u0000); remove it.", field);
	if ((at = utf8_text_bad((const unsigned char *)str, strlen(str), 0, &ch)) >= 0)
		return bad_char(c, field, str, at, ch);
	cp = utf8_len(str);
	if (cp == 0 && s->required)
		return empty(c, field, s);
	if (cp > s->max)
		return validate_bad(c, field, "%s is %zu characters long; send at most %zu.",
			   field, cp, s->max);
	return 0;
}

/* 1 when x is in range for the numeric kind k (finiteness checked before). */
static int in_range(double x, enum kind k)
{
	switch (k) {
	case K_RATE: return x > 0;
	case K_ONE: return x == 1;
	case K_BATCH: return x >= 1;
	case K_FRAC: return x >= 0 && x <= 1;
	default: return x >= 0;
	}
}

/* K_NUMBER .. K_FRAC: a finite JSON number (an integer for the whole-number
 * kinds) in the kind's range. */
static int check_number(const json_t *v, const char *field, const struct spec *s,
			struct vctx *c)
{
	int whole = s->kind == K_COUNT || s->kind == K_BYTES ||
		    s->kind == K_ONE || s->kind == K_BATCH;
	double x;

	if (json_is_string(v))
		return validate_bad(c, field, "%s must be a number, not a string; send it without quotes.",
			   field);
	if (!json_is_number(v))
		return wrong_type(c, field, s, v);
	if (whole && !json_is_integer(v))
		return validate_bad(c, field, "%s must be %s, written without a decimal point or exponent.",
			   field, kind_desc[s->kind]);
	x = json_number_value(v);
	if (!isfinite(x))
		return validate_bad(c, field, "%s must be a finite number; send %s.", field,
			   kind_desc[s->kind]);
	if (x > VALIDATE_NUM_MAX && s->kind != K_BYTES)
		return validate_bad(c, field, "%s is %g, larger than any real measurement; send at most 1e12.",
			   field, x);
	if (!in_range(x, s->kind))
		return validate_bad(c, field, "%s is %g; send %s.", field, x, kind_desc[s->kind]);
	return 0;
}

/* K_BOOL: true or false. */
static int check_bool(const json_t *v, const char *field, const struct spec *s,
		      struct vctx *c)
{
	return json_is_boolean(v) ? 0 : wrong_type(c, field, s, v);
}

static int check_members(const json_t *obj, const char *path, const struct spec *specs,
			 struct vctx *c);

/* K_OBJECT: an object whose members pass s->sub. */
static int check_obj(const json_t *v, const char *field, const struct spec *s,
		     struct vctx *c)
{
	if (!json_is_object(v))
		return wrong_type(c, field, s, v);
	return check_members(v, field, s->sub, c);
}

/* K_ARRAY: 1 to s->max objects, each of whose members pass s->sub; element
 * paths are field[i]. */
static int check_array(const json_t *v, const char *field, const struct spec *s,
		       struct vctx *c)
{
	char path[160], want[240];
	size_t i, n;
	const json_t *el;

	if (!json_is_array(v))
		return wrong_type(c, field, s, v);
	n = json_array_size(v);
	if (n == 0 || n > s->max) {
		describe(s, want, sizeof want);
		if (n == 0)
			return validate_bad(c, field, "%s is empty; send %s.", field, want);
		return validate_bad(c, field, "%s has %zu elements; send %s.", field, n, want);
	}
	json_array_foreach(v, i, el) {
		if (snprintf(path, sizeof path, "%s[%zu]", field, i) >= (int)sizeof path)
			return validate_bad(c, field, "%s is nested too deeply.", field);
		if (!json_is_object(el)) {
			list_required(s->sub, want, sizeof want);
			return validate_bad(c, path, "%s must be an object with %s, not %s.",
				   path, want, type_name(el));
		}
		if (check_members(el, path, s->sub, c))
			return -1;
	}
	return 0;
}

/* The per-kind validators, indexed by enum kind. */
static int (*const kind_check[K__MAX])(const json_t *, const char *,
				       const struct spec *, struct vctx *) = {
	[K_STRING] = check_string,
	[K_NUMBER] = check_number,
	[K_MS] = check_number,
	[K_RATE] = check_number,
	[K_COUNT] = check_number,
	[K_BYTES] = check_number,
	[K_ONE] = check_number,
	[K_BATCH] = check_number,
	[K_FRAC] = check_number,
	[K_BOOL] = check_bool,
	[K_OBJECT] = check_obj,
	[K_ARRAY] = check_array,
};

/* Checks the value v of member s at field: absent or null is fine for an
 * optional member; then its kind, then its extra rule. */
static int check_value(const json_t *v, const char *field, const struct spec *s,
		       struct vctx *c)
{
	if (!v || json_is_null(v))
		return s->required ? missing(c, field, s) : 0;
	if (kind_check[s->kind](v, field, s, c))
		return -1;
	return s->check ? s->check(v, field, c) : 0;
}

/* Checks every member of specs in the object obj, whose path is path ("" for
 * the payload); members not in specs are ignored. */
static int check_members(const json_t *obj, const char *path, const struct spec *specs,
			 struct vctx *c)
{
	char field[160];
	const struct spec *s;
	int n;

	for (s = specs; s->key; s++) {
		n = snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", s->key);
		if (n < 0 || (size_t)n >= sizeof field)
			return validate_bad(c, path, "%s is nested too deeply.", path);
		if (check_value(json_object_get(obj, s->key), field, s, c))
			return -1;
	}
	return 0;
}


/* The string member key of the member obj of root (root itself when obj is
 * NULL), or NULL when absent or not a string. */
static const char *str_at(const json_t *root, const char *obj, const char *key)
{
	const json_t *o = obj ? json_object_get(root, obj) : root;

	return json_string_value(json_object_get(o, key));
}

/* Fills *out from the valid payload p. */
static void fill_fields(const json_t *p, const struct vctx *c, struct run_fields *out)
{
	const json_t *chat = json_object_get(json_object_get(p, "workloads"), "chat-short");
	const json_t *hw = json_object_get(p, "hardware");
	double vram = json_number_value(json_object_get(hw, "vram_gb"));

	memset(out, 0, sizeof *out);
	out->suite_version = str_at(p, NULL, "suite_version");
	out->created_at = str_at(p, NULL, "created_at");
	out->created_unix = c->created;
	out->client_name = str_at(p, "client", "name");
	out->client_version = str_at(p, "client", "version");
	out->backend_name = str_at(p, "backend", "name");
	out->backend_version = version_shown(str_at(p, "backend", "version"));
	out->model_name = str_at(p, "model", "name");
	out->model_digest = str_at(p, "model", "digest");
	out->model_quant = str_at(p, "model", "quantization");
	out->model_format = str_at(p, "model", "format");
	out->accelerator = str_at(p, "hardware", "accelerator_summary");
	out->cpu_model = str_at(p, "hardware", "cpu_model");
	out->fingerprint_hash = str_at(p, "hardware", "fingerprint_hash");
	out->decode_tok_s = json_number_value(json_object_get(chat, "decode_tok_s"));
	out->prefill_tok_s = json_number_value(json_object_get(chat, "prefill_tok_s"));
	out->ttft_ms = json_number_value(json_object_get(chat, "ttft_ms"));
	out->mem_gb = vram > 0 ? vram : json_number_value(json_object_get(hw, "ram_gb"));
	slug_model(out->model_name, out->model_slug, sizeof out->model_slug);
	slug_hw(out->accelerator, out->hw_slug, sizeof out->hw_slug);
	validate_lookalike_slug(out->model_name, slug_model, out->model_slug, out->model_lookalike,
		       sizeof out->model_lookalike);
	validate_lookalike_slug(out->accelerator, slug_hw, out->hw_slug, out->hw_lookalike,
		       sizeof out->hw_lookalike);
}

/* The page the name reads as (its look-alike letters as the ASCII ones,
 * invisible characters left out), through the resolver as the upload
 * itself is read, into out (size n), when that is not its own page own;
 * else "", and "" for a name that reads as itself (nothing in it looks
 * like something else: where it landed is the resolver's choice).  The
 * store refuses a name whose reading is another page. */
static void lookalike_page(const struct ceiling_ref *ref, int model, const char *name,
			   const char *own, char *out, size_t n)
{
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	struct buf b = BUF_INIT;

	out[0] = '\0';
	confusable_latin(name, &b);
	if (!buf_error(&b) && b.buf && b.buf[0] && strcmp(b.buf, name)) {
		if (model && (m = resolve_model_name(ref, b.buf)))
			snprintf(out, n, "%s", m->id);
		else if (!model && (h = resolve_hw_name(ref, b.buf)))
			snprintf(out, n, "%s", h->slug);
		else if ((model ? slug_model(b.buf, out, n) : resolve_hw_slug(b.buf, out, n)) != 0)
			out[0] = '\0';
	}
	if (!strcmp(out, own))
		out[0] = '\0';
	buf_release(&b);
}

void validate_resolve(const struct ceiling_ref *ref, const json_t *payload,
		      struct run_fields *out)
{
	struct resolve_names *n = &out->res;

	if (resolve_payload(ref, payload, n) < 0)
		return;                 /* validation refused such names already */
	snprintf(out->model_slug, sizeof out->model_slug, "%s", n->model_slug);
	snprintf(out->hw_slug, sizeof out->hw_slug, "%s", n->hw_slug);
	lookalike_page(ref, 1, out->model_name, out->model_slug, out->model_lookalike,
		       sizeof out->model_lookalike);
	lookalike_page(ref, 0, out->accelerator, out->hw_slug, out->hw_lookalike,
		       sizeof out->hw_lookalike);
	out->model_name = n->model_name;
	out->accelerator = n->accelerator;
	out->backend_version = n->backend_version;
	out->model_quant = n->quant[0] ? n->quant : NULL;
	out->model_format = n->format[0] ? n->format : NULL;
}

/* Empties *e: status 0, no code, field and message "". */
void validate_err_clear(struct err *e)
{
	e->status = 0;
	e->code = NULL;
	e->field[0] = '\0';
	e->message[0] = '\0';
}

int validate_payload(const json_t *payload, long long now_unix,
		     struct run_fields *out, struct err *err)
{
	struct err scratch;
	struct vctx c = { now_unix, 0, err ? err : &scratch };

	validate_err_clear(c.e);
	if (!json_is_object(payload))
		return validate_bad(&c, "", "The payload must be a JSON object, not %s.",
			   payload ? type_name(payload) : "nothing");
	if (check_members(payload, "", payload_spec, &c))
		return -1;
	if (out)
		fill_fields(payload, &c, out);
	return 0;
}

