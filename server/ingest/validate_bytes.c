/* validate_bytes.c: the payload's bytes to JSON, strictly (RFC 8259, no NUL,
 * bounded nesting), then to validate_payload. */
#include "ingest/validate_int.h"

#include <string.h>

int validate_json_depth(const unsigned char *p, size_t n, int limit)
{
	int depth = 0, max = 0, in_str = 0;
	size_t i;

	for (i = 0; i < n && max <= limit; i++) {
		if (in_str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_str = 0;
		} else if (p[i] == '"') {
			in_str = 1;
		} else if (p[i] == '[' || p[i] == '{') {
			if (++depth > max)
				max = depth;
		} else if ((p[i] == ']' || p[i] == '}') && depth > 0) {
			depth--;
		}
	}
	return max;
}

/* Rejects, before parsing, what no JSON payload of ours can be: empty, with
 * a NUL byte, or nested too deeply.  Returns 0 or -1 with 400 invalid_json. */
static int precheck(const unsigned char *p, size_t n, struct vctx *c)
{
	const unsigned char *nul = n ? memchr(p, 0, n) : NULL;

	if (n == 0)
		return validate_fail(c, 400, "invalid_json", "",
			    "The payload is empty; send a JSON object.");
	if (nul)
		return validate_fail(c, 400, "invalid_json", "",
			    "The payload has a NUL byte at offset %zu; send a JSON object "
			    "encoded in UTF-8.", (size_t)(nul - p));
	if (validate_json_depth(p, n, VALIDATE_MAX_DEPTH) > VALIDATE_MAX_DEPTH)
		return validate_fail(c, 400, "invalid_json", "",
			    "The payload nests arrays and objects more than %d deep; "
			    "send the documented payload.", VALIDATE_MAX_DEPTH);
	return 0;
}

/* Copies s into out (size n) keeping printable ASCII only, so that parser
 * messages quoting raw input stay valid UTF-8. */
static void ascii_copy(char *out, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n; i++)
		out[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[i] = '\0';
}

/* Parses the n bytes at p strictly into *root.  Returns 0 or -1 with 400
 * invalid_json naming jansson's line and column. */
static int parse(const unsigned char *p, size_t n, json_t **root, struct vctx *c)
{
	json_error_t jerr;
	char text[JSON_ERROR_TEXT_LENGTH];

	*root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (*root)
		return 0;
	ascii_copy(text, sizeof text, jerr.text);
	return validate_fail(c, 400, "invalid_json", "",
		    "The payload is not valid JSON (%s, at line %d, column %d); send "
		    "a JSON object encoded in UTF-8.", text, jerr.line, jerr.column);
}

int validate_payload_bytes(const unsigned char *p, size_t n, long long now_unix,
			   json_t **out_json, struct run_fields *out, struct err *err)
{
	struct err scratch;
	struct vctx c = { now_unix, 0, err ? err : &scratch };
	json_t *root = NULL;
	int rc = -1;

	validate_err_clear(c.e);
	if (out_json)
		*out_json = NULL;
	else
		out = NULL;
	if (precheck(p, n, &c) || parse(p, n, &root, &c))
		goto out;
	if (validate_payload(root, now_unix, out, c.e))
		goto out;
	if (out_json) {
		*out_json = root;
		root = NULL;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}
