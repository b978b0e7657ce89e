/* validate_rules.c: the rules of single payload fields beyond their kind:
 * the known suites and backends, digests, fingerprints, names, the time. */
#include "ingest/validate_int.h"
#include "util/buf.h"
#include "util/confusable.h"
#include "util/slug.h"
#include "util/textcut.h"
#include "util/timefmt.h"
#include "util/utf8.h"

#include <string.h>

static const char *const known_suites[] = { VALIDATE_SUITE, NULL };
const char *const validate_backends[] = {
	"mlx", "llama.cpp", "vllm", "ollama", "exllamav2", NULL
};


/* suite_version: one of known_suites, else 422 unknown_suite. */
int validate_check_suite(const json_t *v, const char *field, struct vctx *c)
{
	const char *const *k;

	for (k = known_suites; *k; k++)
		if (strcmp(json_string_value(v), *k) == 0)
			return 0;
	return validate_fail(c, 422, "unknown_suite", field,
		    "%s is not a suite this server knows; the known suites are: %s.",
		    field, VALIDATE_SUITE);
}

int validate_backend_known(const char *name)
{
	const char *const *k;

	for (k = validate_backends; *k; k++)
		if (strcmp(name, *k) == 0)
			return 1;
	return 0;
}

/* backend.name: one of validate_backends; hosted-api is 422 hosted_api_rejected. */
int validate_check_backend(const json_t *v, const char *field, struct vctx *c)
{
	const char *name = json_string_value(v);

	if (validate_backend_known(name))
		return 0;
	if (strcmp(name, "hosted-api") == 0)
		return validate_fail(c, 422, "hosted_api_rejected", field,
			    "%s is hosted-api, but the public leaderboard measures local "
			    "hardware only; rerun the benchmark on a local backend (%s).",
			    field, HINT_BACKEND);
	return validate_bad(c, field, "%s is not a known backend; send %s.", field, HINT_BACKEND);
}

/* 1 when the n bytes at s are all lowercase hex digits. */
static int lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int validate_digest_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 7 + 16 && n <= 7 + 64 && strncmp(s, "sha256:", 7) == 0 &&
	       lower_hex(s + 7, n - 7);
}

/* model.digest: validate_digest_ok. */
int validate_check_digest(const json_t *v, const char *field, struct vctx *c)
{
	if (validate_digest_ok(json_string_value(v)))
		return 0;
	return validate_bad(c, field, "%s must be %s.", field, HINT_DIGEST);
}

/* hardware.fingerprint_hash: exactly 16 lowercase hex digits. */
int validate_check_fingerprint(const json_t *v, const char *field, struct vctx *c)
{
	const char *s = json_string_value(v);

	if (strlen(s) == 16 && lower_hex(s, 16))
		return 0;
	return validate_bad(c, field, "%s must be exactly 16 lowercase hex digits; send it that way "
		   "or leave it out.", field);
}

/* Refuses a name with a word spelt in two scripts ("Cоder", a Cyrillic о
 * among Latin letters), or with digits of two number systems, with 422
 * confusable_name, naming the word and what the name reads as: such a
 * word is there to look like another name.  The
 * quotes are cut short (util/textcut.h) so the sentence fits its buffer
 * whole. */
static int check_mixed(const char *name, const char *field, struct vctx *c)
{
	struct buf word = BUF_INIT, latin = BUF_INIT, w = BUF_INIT, reads = BUF_INIT;
	struct confusable_mix m;
	int rc = 0;

	if (confusable_mixed_digits(name))
		return validate_fail(c, 422, "confusable_name", field,
			  "%s mixes digits of two number systems, so it looks like another name; write its "
			  "digits 0 to 9 (a name that looks like another is refused).", field);
	if (!confusable_mixed(name, &m))
		return 0;
	buf_add(&word, name + m.at, m.len);
	confusable_latin(name, &latin);
	textcut(&w, word.buf ? word.buf : "", 24);
	textcut(&reads, latin.buf ? latin.buf : "", 60);
	rc = validate_fail(c, 422, "confusable_name", field,
		  "%s mixes %s and %s letters in the word \"%s\", so it looks like \"%s\"; "
		  "write each word in one script (a name that looks like another is refused).",
		  field, m.script[0], m.script[1], w.buf ? w.buf : "", reads.buf ? reads.buf : "");
	buf_release(&word);
	buf_release(&latin);
	buf_release(&w);
	buf_release(&reads);
	return rc;
}

/* Refuses in a name what breaks its line or the page's bidirectional
 * isolate around it (util/utf8.h, utf8_line_unsafe): a line or paragraph
 * separator, an isolate that is not closed, a close with no isolate. */
static int check_one_line(const char *s, const char *field, struct vctx *c)
{
	char name[12];
	uint32_t cp = 0;
	long at = utf8_line_unsafe((const unsigned char *)s, strlen(s), &cp);

	if (at < 0)
		return 0;
	utf8_cp_name(cp, name);
	if (cp == 0x2028 || cp == 0x2029)
		return validate_bad(c, field, "%s contains %s, a %s separator, at character %zu; a name is one "
			   "line, so remove it.", field, name, cp == 0x2028 ? "line" : "paragraph",
			   validate_nth(s, at));
	if (cp == 0x2069)
		return validate_bad(c, field, "%s contains %s at character %zu, which closes a direction "
			   "isolate the name never opened; remove it.", field, name, validate_nth(s, at));
	return validate_bad(c, field, "%s opens a direction isolate with %s at character %zu and does not "
		   "close it with U+2069; close it, or remove it.", field, name, validate_nth(s, at));
}

/* Refuses a label that reads as another (util/confusable.h,
 * confusable_latin: a Cyrillic К between underscores, "Q4_К_M", reads as
 * Q4_K_M) with 422 confusable_name naming what it reads as: a word of one
 * letter is in no two scripts, so check_mixed lets it pass. */
static int check_reads_as_itself(const char *s, const char *field, struct vctx *c)
{
	struct buf latin = BUF_INIT, reads = BUF_INIT;
	int rc = 0;

	confusable_latin(s, &latin);
	if (!buf_error(&latin) && latin.buf && strcmp(latin.buf, s)) {
		textcut(&reads, latin.buf, 60);
		rc = validate_fail(c, 422, "confusable_name", field,
			  "%s is spelt with look-alike letters and reads as \"%s\"; send the label "
			  "as the tool prints it.", field, reads.buf ? reads.buf : "");
	}
	buf_release(&latin);
	buf_release(&reads);
	return rc;
}

/* hardware.cpu_model, gpu_name, os: names of one line (check_one_line). */
int validate_check_line(const json_t *v, const char *field, struct vctx *c)
{
	return check_one_line(json_string_value(v), field, c);
}

/* model.quantization and model.format: read as written to find the
 * weights' format (and so the ceiling), so besides a name's rules
 * (one line, no word in two scripts) nothing in them may be invisible
 * ("Q4_K_M" with a zero-width space reads as Q4_K_M but is no known
 * label), and a label that is not empty has an ASCII letter or digit. */
int validate_check_label(const json_t *v, const char *field, struct vctx *c)
{
	const unsigned char *p = (const unsigned char *)json_string_value(v);
	size_t i, n = strlen((const char *)p), k;
	char name[12];
	int alnum = 0;
	uint32_t cp;

	for (i = 0; i < n; i += k) {
		k = utf8_next(p + i, n - i, &cp);
		alnum |= (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
		if (utf8_is_invisible(cp) || (utf8_is_space(cp) && cp != ' ')) {
			utf8_cp_name(cp, name);
			return validate_bad(c, field, "%s contains %s, %s, at character %zu; a label is read "
				   "as written, so remove it.", field, name,
				   utf8_is_invisible(cp) ? "an invisible character" : "a space other than U+0020",
				   validate_nth((const char *)p, (long)i));
		}
	}
	if (n && !alnum)
		return validate_bad(c, field, "%s has no ASCII letter or digit; send %s.", field, HINT_LABEL);
	if (check_one_line((const char *)p, field, c) || check_mixed((const char *)p, field, c))
		return -1;
	return check_reads_as_itself((const char *)p, field, c);
}

/* model.name: must give a non-empty model slug, be one line, with no word
 * in two scripts. */
int validate_check_model_name(const json_t *v, const char *field, struct vctx *c)
{
	char slug[SLUG_MAX + 1];

	if (slug_model(json_string_value(v), slug, sizeof slug) != 0)
		return validate_bad(c, field, "%s has no ASCII letter or digit to name the model's page by; send %s.",
			   field, HINT_MODEL);
	if (check_one_line(json_string_value(v), field, c))
		return -1;
	return check_mixed(json_string_value(v), field, c);
}

/* The slug name reads as, when not its own (validate_int.h). */
void validate_lookalike_slug(const char *name, int (*slug_fn)(const char *, char *, size_t),
		    const char *own, char *out, size_t n)
{
	struct buf b = BUF_INIT;

	out[0] = '\0';
	confusable_latin(name, &b);
	if (buf_error(&b) || !b.buf || slug_fn(b.buf, out, n) != 0 || !strcmp(out, own))
		out[0] = '\0';
	buf_release(&b);
}

/* hardware.accelerator_summary: must give a non-empty hardware slug, be
 * one line, with no word in two scripts. */
int validate_check_accel(const json_t *v, const char *field, struct vctx *c)
{
	char slug[SLUG_MAX + 1];

	if (slug_hw(json_string_value(v), slug, sizeof slug) != 0)
		return validate_bad(c, field, "%s names no accelerator beyond a vendor word; send %s.",
			   field, HINT_ACCEL);
	if (check_one_line(json_string_value(v), field, c))
		return -1;
	return check_mixed(json_string_value(v), field, c);
}

/* created_at: RFC 3339 in UTC, a real time, not before VALIDATE_OLDEST_UNIX
 * and not more than VALIDATE_FUTURE_SKEW seconds past the server's clock. */
int validate_check_time(const json_t *v, const char *field, struct vctx *c)
{
	long long t = 0;
	int rc = time_parse_rfc3339_utc(json_string_value(v), &t);

	if (rc == -2)
		return validate_bad(c, field, "%s must be in UTC, ending in Z, such as \"2026-04-28T10:12:00Z\".",
			   field);
	if (rc == -3)
		return validate_bad(c, field, "%s is not a real calendar date and time; send %s.",
			   field, HINT_TIME);
	if (rc)
		return validate_bad(c, field, "%s must be %s.", field, HINT_TIME);
	if (t < VALIDATE_OLDEST_UNIX)
		return validate_bad(c, field, "%s is before 2023-01-01, earlier than any llm-speed run; "
			   "check the computer's clock and send when the run finished.", field);
	if (t > c->now + 86400)
		return validate_bad(c, field, "%s is more than a day in the future by the server's clock; "
			   "set the computer's clock right and send when the run finished.", field);
	if (t > c->now + VALIDATE_FUTURE_SKEW)
		return validate_bad(c, field, "%s is %lld minutes in the future by the server's clock; "
			   "set the computer's clock right and send when the run finished.",
			   field, (t - c->now + 59) / 60);
	c->created = t;
	return 0;
}
