/* check_badge_svg.c: the run badge of server/render/badge_svg.c, text and SVG. */
#include "check_util.h"
#include "render/badge_svg.h"
#include "util/buf.h"
#include "render/html.h"

#include <math.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#define DOT "\xc2\xb7"          /* · */
#define ELL "\xe2\x80\xa6"      /* … */
#define FLAG "\xe2\x9a\x91"     /* ⚑ */
#define E_ACUTE "\xc3\xa9"      /* é */
#define HAN "\xe4\xb8\xad"      /* 中 */
#define HOSTILE "<script>alert(1)</script>&\"'"

static const struct badge_in sample = {
	BADGE_OK, 112.2, "Qwen3-Coder-30B-A3B-Instruct", "M3 Ultra", 0
};

static struct badge_in with_state(enum badge_state st)
{
	struct badge_in in = sample;
	in.state = st;
	return in;
}

/* The message for in; the caller frees. */
static char *message(const struct badge_in *in)
{
	struct buf b = BUF_INIT;
	ck_assert_int_eq(badge_message(in, &b), 0);
	return buf_detach(&b, NULL);
}

/* The SVG for in; the caller frees. */
static char *render(const struct badge_in *in, const char **color)
{
	struct buf b = BUF_INIT;
	ck_assert_int_eq(badge_render_svg(in, &b, color), 0);
	return buf_detach(&b, NULL);
}

/* The model's message for a run on "H", the model part only (between the
 * first and second " · "); the caller frees. */
static char *model_part(const char *model)
{
	struct badge_in in = { BADGE_OK, 1, model, "H", 0 };
	char *m = message(&in), *a, *z, *r;

	a = strstr(m, " " DOT " ");
	ck_assert_ptr_nonnull(a);
	a += strlen(" " DOT " ");
	z = strstr(a, " " DOT " ");
	ck_assert_ptr_nonnull(z);
	r = strndup(a, (size_t)(z - a));
	free(m);
	return r;
}

/* 1 if s is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF). */
static int utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 :
			*p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		uint32_t c = n == 1 ? *p : n == 2 ? *p & 0x1fu : n == 3 ? *p & 0xfu : *p & 7u;
		int i;
		if (!n)
			return 0;
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (p[i] & 0x3fu);
		}
		if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return 0;
		p += n;
	}
	return 1;
}

/* Code points in well-formed UTF-8 s. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

/* The number in attr="..." of the tag that anchor's last '<' opens (or
 * that anchor is inside of), at anchor's first occurrence in svg. */
static long attr_num(const char *svg, const char *anchor, const char *attr)
{
	char key[64];
	const char *p = strstr(svg, anchor), *end;

	ck_assert_msg(p != NULL, "no %s", anchor);
	p += strrchr(anchor, '<') ? strrchr(anchor, '<') - anchor : 0;
	end = strchr(p, '>');
	snprintf(key, sizeof key, " %s=\"", attr);
	p = strstr(p, key);
	ck_assert_msg(p != NULL && p < end, "no %s in %s", attr, anchor);
	return strtol(p + strlen(key), NULL, 10);
}

/* ---- widths ------------------------------------------------------------- */

START_TEST(width_table_values)
{
	/* Hand sums from anafanafo's verdana-11px-normal.json. */
	ck_assert_double_eq_tol(badge_text_width("a"), 6.61, 1e-9);
	ck_assert_double_eq_tol(badge_text_width("m"), 10.70, 1e-9);
	ck_assert_double_eq_tol(badge_text_width("M"), 9.27, 1e-9);
	ck_assert_double_eq_tol(badge_text_width(" "), 3.87, 1e-9);
	ck_assert_double_eq_tol(badge_text_width("~"), 9.00, 1e-9);
	/* l l m - s p e e d */
	ck_assert_double_eq_tol(badge_text_width("llm-speed"),
				3.02 + 3.02 + 10.70 + 5.00 + 5.73 + 6.85 + 6.55 +
				6.55 + 6.85, 1e-6);
	ck_assert(fabs(badge_text_width("llm-speed") - 54.27) < 1.0);
	/* anafanafo's own test: "v1.2.511" measured 49.48 +- 0.1 in Chrome. */
	ck_assert(fabs(badge_text_width("v1.2.511") - 49.48) < 0.1);
	/* shields' "build" label box is 37 px: 26.7 -> 27 + 2 * 5. */
	ck_assert_double_eq_tol(badge_text_width("build"), 26.70, 1e-6);
	ck_assert_double_eq_tol(badge_text_width(DOT), 4.00, 1e-9);
	ck_assert_double_eq_tol(badge_text_width(ELL), 9.00, 1e-9);
	ck_assert_double_eq_tol(badge_text_width(E_ACUTE), 6.55, 1e-9);
	ck_assert_double_eq_tol(badge_text_width(""), 0, 1e-9);
	ck_assert_double_eq_tol(badge_text_width(NULL), 0, 1e-9);
}
END_TEST

START_TEST(width_outside_table)
{
	ck_assert_double_eq_tol(badge_text_width(HAN), 11.0, 1e-9);
	ck_assert_double_eq_tol(badge_text_width("\xea\xb0\x80"), 11.0, 1e-9); /* 가 */
	ck_assert_double_eq_tol(badge_text_width("\xf0\x9f\x9a\x80"), 11.0, 1e-9); /* 🚀 */
	ck_assert_double_eq_tol(badge_text_width("e\xcc\x81"), 6.55, 1e-9); /* e + ◌́ */
	ck_assert_double_eq_tol(badge_text_width("\xd0\x96"), 6.99, 1e-9); /* Ж */
	ck_assert(badge_text_width(FLAG) > 6 && badge_text_width(FLAG) < 11);
	/* A stray byte counts as one U+FFFD, not as nothing. */
	ck_assert(badge_text_width("a\xffz") > badge_text_width("az"));
	ck_assert(badge_text_width("\xe4\xb8") > 0);
}
END_TEST

/* ---- the message ---------------------------------------------------------- */

START_TEST(figure_formats)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 112.2, "112.2 tok/s" }, { 112.26, "112.3 tok/s" },
		{ 5, "5.0 tok/s" }, { 1, "1.0 tok/s" }, { 999.9, "999.9 tok/s" },
		{ 999.96, "1,000 tok/s" }, { 1234.56, "1,235 tok/s" },
		{ 1234567.4, "1,234,567 tok/s" }, { 0.42, "0.42 tok/s" },
		{ 0.4, "0.40 tok/s" }, { 0.0456, "0.046 tok/s" },
		{ 0.996, "1.0 tok/s" }, { 0, "0 tok/s" },
		{ 0.00001, "<0.0001 tok/s" }, { 5e12, ">999,999,999 tok/s" },
		{ -1, "? tok/s" }, { NAN, "? tok/s" }, { INFINITY, "? tok/s" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct badge_in in = { BADGE_OK, cases[i].v, NULL, NULL, 0 };
		char *m = message(&in);
		ck_assert_msg(!strcmp(m, cases[i].want), "%g: got \"%s\" want \"%s\"",
			      cases[i].v, m, cases[i].want);
		free(m);
	}
}
END_TEST

START_TEST(message_per_state)
{
	struct badge_in in = with_state(BADGE_OK);
	char *m;

	m = message(&in);
	ck_assert_str_eq(m, "112.2 tok/s " DOT " Qwen3-Coder-30B-A3B " DOT " M3 Ultra");
	free(m);

	in = with_state(BADGE_OUTLIER);
	m = message(&in);
	/* The flag makes it too wide: the model loses a word, never its size
	 * (issue 38: "30B-A3B" says which Qwen3 it is). */
	ck_assert_str_eq(m, FLAG " 112.2 tok/s " DOT " Qwen3" ELL "30B-A3B " DOT " M3 Ultra");
	free(m);

	in = with_state(BADGE_UPHELD);
	m = message(&in);
	ck_assert_str_eq(m, "disputed: upheld " DOT " Qwen3" ELL "30B-A3B " DOT " M3 Ultra");
	ck_assert_ptr_null(strstr(m, "tok/s"));
	ck_assert_ptr_null(strstr(m, "112"));
	free(m);

	in = with_state(BADGE_NOT_FOUND);
	m = message(&in);
	ck_assert_str_eq(m, "run not found");
	free(m);
}
END_TEST

START_TEST(message_omits_missing_parts)
{
	struct badge_in in = { BADGE_OK, 42, NULL, "  ", 0 };
	char *m = message(&in);

	ck_assert_str_eq(m, "42.0 tok/s");
	free(m);
	in.model = "";
	in.hardware = "RTX 4090";
	m = message(&in);
	ck_assert_str_eq(m, "42.0 tok/s " DOT " RTX 4090");
	free(m);
}
END_TEST

START_TEST(message_rejects_bad_input)
{
	struct buf b = BUF_INIT;
	struct badge_in in = sample;

	ck_assert_int_eq(badge_message(NULL, &b), -1);
	in.state = BADGE__MAX;
	ck_assert_int_eq(badge_message(&in, &b), -1);
	ck_assert_int_eq(badge_render_svg(&in, &b, NULL), -1);
	ck_assert_int_eq(badge_render_svg(NULL, &b, NULL), -1);
	buf_release(&b);
}
END_TEST

START_TEST(model_suffixes_dropped)
{
	static const char *const cases[][2] = {
		{ "Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B" },
		{ "Qwen/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf", "Qwen3-Coder-30B-A3B" },
		{ "gemma-3-27b-it", "gemma-3-27b" },
		{ "llama-2-7b-chat.Q4_K_M.gguf", "llama-2-7b" },
		{ "Llama-2-7b-chat-hf", "Llama-2-7b" },
		{ "mlx-community/Qwen3-8B-4bit", "Qwen3-8B" },
		{ "gpt-oss-120b-MXFP4", "gpt-oss-120b" },
		{ "unsloth/Qwen3-8B-UD-Q4_K_XL", "Qwen3-8B" },
		{ "Llama-3.1-8B-Instruct-IQ4_XS", "Llama-3.1-8B" },
		{ "Mistral-7B-Instruct-v0.3", "Mistral-7B-v0.3" },
		{ "stable-code-instruct-3b", "stable-code-3b" },
		{ "deepseek-llm-7b-chat-v1.5", "deepseek-llm-7b-v1.5" },
		{ "Instruct", "Instruct" },
		{ "  phi-4  ", "phi-4" },
		{ "org/", "org" },
		{ "a/b/c-it", "a/b/c" },
		{ "/x-chat", "/x" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = model_part(cases[i][0]);
		ck_assert_msg(!strcmp(p, cases[i][1]), "%s: got \"%s\" want \"%s\"",
			      cases[i][0], p, cases[i][1]);
		free(p);
	}
}
END_TEST

/* n copies of unit (one character) followed by "-Instruct". */
static char *repeat(const char *unit, int n)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i < n; i++)
		buf_puts(&b, unit);
	buf_puts(&b, "-Instruct");
	return buf_detach(&b, NULL);
}

/* The width in px of in's badge. */
static long width_of(const struct badge_in *in)
{
	char *svg = render(in, NULL);
	long w = attr_num(svg, "<svg", "width");

	free(svg);
	return w;
}

/* A model of 60 units with no word break in it: cut at a code point, with
 * "…", whole characters only, and the badge no wider than
 * BADGE_MAX_WIDTH. */
static void check_cut(const char *unit)
{
	struct badge_in in = { BADGE_OK, 1, NULL, "H", 0 };
	char *name = repeat(unit, 60), *p;

	in.model = name;
	p = model_part(name);
	ck_assert_msg(utf8_ok(p), "invalid UTF-8 for %s", unit);
	ck_assert(ends_with(p, ELL));
	ck_assert_uint_ge(utf8_len(p), 8);
	ck_assert(strncmp(p, name, strlen(p) - strlen(ELL)) == 0);
	ck_assert_int_le(width_of(&in), BADGE_MAX_WIDTH);
	free(name);
	free(p);
}

START_TEST(long_names_cut_at_characters)
{
	check_cut("a");
	check_cut(E_ACUTE);
	check_cut(HAN);
	check_cut("\xf0\x9f\x9a\x80");
}
END_TEST

/* Long names are cut at word boundaries until the badge fits in
 * BADGE_MAX_WIDTH px, the hardware keeping the words that tell one GPU
 * from another ("RTX 4090", "Ryzen AI Max+ 395") the longest. */
START_TEST(long_names_cut_at_words)
{
	static const struct { enum badge_state st; double v; const char *model, *hw, *want; } cases[] = {
		{ BADGE_OK, 112.2, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "Apple M3 Ultra",
		  "112.2 tok/s " DOT " Qwen3-Coder-30B-A3B " DOT " M3 Ultra" },
		{ BADGE_OUTLIER, 1234.5, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "Apple M3 Ultra",
		  FLAG " 1,234 tok/s " DOT " Qwen3" ELL "30B-A3B " DOT " M3 Ultra" },
		{ BADGE_OK, 112.2, "stabilityai/stable-code-instruct-3b", "NVIDIA GeForce RTX 4090",
		  "112.2 tok/s " DOT " stable-code-3b " DOT " RTX 4090" },
		/* The part in parentheses goes first, the model's words next. */
		{ BADGE_OK, 112.2, "Qwen/Qwen3-8B", "AMD Ryzen AI Max+ 395 (Radeon 8060S)",
		  "112.2 tok/s " DOT " Qwen3-8B " DOT " Ryzen AI Max+ 395" },
		{ BADGE_OK, 112.2, "meta-llama/Meta-Llama-3.1-405B-Instruct-with-extras",
		  "AMD Ryzen AI Max+ 395 (Radeon 8060S)",
		  "112.2 tok/s " DOT " Llama-3.1-405B" ELL " " DOT " Max+ 395" },
		/* Issue 38: the maker's prefix goes, the size stays, and a
		 * name after "w/" goes before the model number's words. */
		{ BADGE_OUTLIER, 1234.5, "meta-llama/Meta-Llama-3.1-70B-Instruct-Q4_K_M",
		  "AMD Ryzen AI Max+ 395 w/ Radeon 8060S",
		  FLAG " 1,234 tok/s " DOT " Llama-3.1-70B " DOT " Max+ 395" },
		{ BADGE_DISPUTED, 112.2, "Meta-Llama-3.1-8B-Instruct", "AMD Ryzen AI Max+ 395 w/ Radeon 8060S",
		  "disputed: 112.2 tok/s " DOT " Llama" ELL "8B " DOT " Max+ 395" },
		{ BADGE_OK, 1, "m", "NVIDIA GeForce RTX 4090 Laptop GPU",
		  "1.0 tok/s " DOT " m " DOT " RTX 4090 Laptop" },
		/* No number to keep: cut after a word, never before a separator. */
		{ BADGE_OK, 1, "m", "ABCDEFGHIJKLMNO-UVWXYZ-ABCDEFGHIJKLMNO-UVWXYZ-ABCDEFGHIJKLMNO",
		  "1.0 tok/s " DOT " m " DOT " ABCDEFGHIJKLMNO-UVWXYZ" ELL },
		{ BADGE_OK, 1, "phi-4-reasoning-plus-with-a-much-longer-name", "M3 Ultra",
		  "1.0 tok/s " DOT " phi-4-reasoning-plus" ELL " " DOT " M3 Ultra" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct badge_in in = { cases[i].st, cases[i].v, cases[i].model, cases[i].hw, 0 };
		char *m = message(&in);

		ck_assert_msg(!strcmp(m, cases[i].want), "%s on %s: got \"%s\"", cases[i].model, cases[i].hw, m);
		ck_assert_msg(width_of(&in) <= BADGE_MAX_WIDTH, "%s: %ld px", m, width_of(&in));
		ck_assert_ptr_null(strstr(m, "-" ELL));
		ck_assert_ptr_null(strstr(m, " " ELL));
		free(m);
	}
}
END_TEST

START_TEST(malformed_input_cleaned)
{
	static const char *const bad[] = {
		"a\xffz", "\xc3", "\xe4\xb8", "\xc0\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "tab\there", "nl\nx", "nul\x01x",
		"\xef\xbf\xbe", "\xef\xbf\xbf",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct badge_in in = { BADGE_OUTLIER, 3, bad[i], bad[i], 0 };
		char *m = message(&in);
		ck_assert_msg(utf8_ok(m), "case %zu", i);
		ck_assert_msg(strpbrk(m, "\t\n\x01") == NULL, "case %zu", i);
		ck_assert_ptr_null(strstr(m, "\xef\xbf\xbe"));
		ck_assert_ptr_null(strstr(m, "\xef\xbf\xbf"));
		free(m);
	}
}
END_TEST

START_TEST(invisible_format_characters_dropped)
{
	/* U+202E would reorder the hardware and the figure after the model;
	 * U+200B, U+2066 and U+FEFF would hide in it. */
	struct badge_in in = { BADGE_OUTLIER, 3, "Qwen\xe2\x80\xae" "7B\xe2\x80\x8b",
			       "M3\xe2\x81\xa6 Ultra\xef\xbb\xbf", 0 };
	char *m = message(&in);

	ck_assert(utf8_ok(m));
	ck_assert_ptr_null(strstr(m, "\xe2\x80\xae"));
	ck_assert_ptr_null(strstr(m, "\xe2\x80\x8b"));
	ck_assert_ptr_null(strstr(m, "\xe2\x81\xa6"));
	ck_assert_ptr_null(strstr(m, "\xef\xbb\xbf"));
	ck_assert_ptr_nonnull(strstr(m, "M3 Ultra"));
	free(m);
}
END_TEST

/* ---- the SVG ------------------------------------------------------------- */

/* Checks the geometry of svg for message m against the width table. */
static void check_geometry(const char *svg, const char *m)
{
	long lw, mx, mw, total;
	/* As badge-maker: the width cut to a whole px, raised to an odd one. */
	long want_l = (long)floor(badge_text_width(BADGE_LABEL) + 1e-9) | 1;
	long want_m = (long)floor(badge_text_width(m) + 1e-9) | 1;
	const char *t;

	/* The grey rect is the first <rect width= inside the clip group. */
	t = strstr(svg, "<g clip-path");
	ck_assert_ptr_nonnull(t);
	lw = attr_num(t, "<rect", "width");
	mx = attr_num(t, "<rect x=", "x");
	mw = attr_num(t, "<rect x=", "width");
	total = attr_num(svg, "<svg", "width");

	ck_assert_int_eq(lw, want_l + 2 * BADGE_HPAD);
	ck_assert_int_eq(lw, 65);   /* 54.27 -> 54 -> 55, plus 10 */
	ck_assert_int_eq(mx, lw);
	ck_assert_int_eq(mw, want_m + 2 * BADGE_HPAD);
	ck_assert_int_eq(total, lw + mw);
	ck_assert_int_eq(attr_num(svg, "<clipPath id=\"r\"><rect", "width"), total);
	ck_assert_int_eq(attr_num(svg, "<svg", "height"), 20);

	/* Text where badge-maker puts it: the label 1 px right of its box's
	 * middle, the message 1 px left of its; textLength = width. */
	t = strstr(svg, "<text x=");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(attr_num(t, "<text", "textLength"), want_l * 10);
	ck_assert_int_eq(attr_num(t, "<text", "x"), lw * 5 + 10);
	t = strstr(t + 1, "<text x=");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(attr_num(t, "<text", "textLength"), want_m * 10);
	ck_assert_int_eq(attr_num(t, "<text", "x"), lw * 10 + mw * 5 - 10);
}

START_TEST(svg_box_widths)
{
	enum badge_state st;

	for (st = BADGE_OK; st <= BADGE_NOT_FOUND; st++) {
		struct badge_in in = with_state(st);
		char *m = message(&in), *svg = render(&in, NULL);
		check_geometry(svg, m);
		free(svg);
		free(m);
	}
}
END_TEST

START_TEST(svg_width_grows_with_text)
{
	struct badge_in in = sample;
	char *a, *b, *c;

	in.model = "phi-4";
	a = render(&in, NULL);
	in.model = "phi-4-reasoning-plus";
	b = render(&in, NULL);
	in.model = "phi-4-reasoning-plus-with-a-much-longer-name";
	c = render(&in, NULL);
	ck_assert_int_lt(attr_num(a, "<svg", "width"), attr_num(b, "<svg", "width"));
	ck_assert_int_lt(attr_num(b, "<svg", "width"), attr_num(c, "<svg", "width"));
	/* The cut bounds the growth. */
	ck_assert_int_le(attr_num(c, "<svg", "width"), BADGE_MAX_WIDTH);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* Typical names stay within BADGE_MAX_WIDTH px, with an outlier's flag and
 * a four-digit figure too (400 before), and never lose the hardware's
 * distinguishing part. */
START_TEST(svg_typical_width_bounded)
{
	static const struct { const char *model, *hw, *keep; } cases[] = {
		{ "stabilityai/stable-code-instruct-3b", "NVIDIA GeForce RTX 5090", "RTX 5090" },
		{ "Qwen/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf", "Apple M3 Ultra", "M3 Ultra" },
		{ "meta-llama/Llama-3.1-8B-Instruct", "AMD Radeon RX 7900 XTX", "7900 XTX" },
		{ "deepseek-llm-7b-chat", "NVIDIA GeForce RTX 3090 Ti", "RTX 3090 Ti" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* A demo run's, and an outlier's with a four-digit figure. */
		struct badge_in in[2] = {
			{ BADGE_OK, 112.2, cases[i].model, cases[i].hw, 1 },
			{ BADGE_OUTLIER, 1234.5, cases[i].model, cases[i].hw, 0 },
		};
		size_t k;

		for (k = 0; k < 2; k++) {
			char *svg = render(&in[k], NULL);
			long w = attr_num(svg, "<svg", "width");

			ck_assert_msg(w <= BADGE_MAX_WIDTH, "%s on %s: %ld px",
				      cases[i].model, cases[i].hw, w);
			ck_assert_msg(strstr(svg, cases[i].keep), "%s: lost \"%s\"",
				      cases[i].hw, cases[i].keep);
			free(svg);
		}
	}
}
END_TEST

START_TEST(svg_escapes_hostile_names)
{
	struct badge_in in = { BADGE_OUTLIER, 9.5, HOSTILE, "\"'&<>", 0 };
	char *svg = render(&in, NULL);

	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_null(strstr(svg, "</script"));
	ck_assert_ptr_null(strstr(svg, "&\""));
	/* Too wide with the hardware: cut after a "word" (at its '/'). */
	ck_assert_ptr_nonnull(strstr(svg, ">" FLAG " 9.5 tok/s " DOT
		" &lt;script&gt;alert(1)&lt;" ELL " " DOT
		" &quot;&#39;&amp;&lt;&gt;</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "aria-label=\"llm-speed: " FLAG " 9.5 tok/s "
		DOT " &lt;script&gt;alert(1)&lt;" ELL " " DOT));
	free(svg);

	/* Not taken for an "org/" prefix: its '/' is inside markup. */
	in.model = "<b>/x";
	svg = render(&in, NULL);
	ck_assert_ptr_nonnull(strstr(svg, " &lt;b&gt;/x " DOT));
	free(svg);
}
END_TEST

/* The accessible name, as its context escapes it, appears in svg. */
static void check_name(const char *svg, const char *m)
{
	struct buf want = BUF_INIT;

	buf_puts(&want, "aria-label=\"");
	html_attr(&want, BADGE_LABEL ": ");
	html_attr(&want, m);
	buf_puts(&want, "\"");
	ck_assert_msg(strstr(svg, want.buf) != NULL, "no %s", want.buf);
	buf_reset(&want);
	buf_puts(&want, "<title>");
	html_txt(&want, BADGE_LABEL ": ");
	html_txt(&want, m);
	buf_puts(&want, "</title>");
	ck_assert_msg(strstr(svg, want.buf) != NULL, "no %s", want.buf);
	buf_release(&want);
}

START_TEST(svg_accessible_name)
{
	struct badge_in in = sample;
	char *m, *svg;

	m = message(&in);
	svg = render(&in, NULL);
	ck_assert_ptr_nonnull(strstr(svg, "role=\"img\""));
	check_name(svg, m);
	free(svg);
	free(m);

	in.model = HOSTILE;
	m = message(&in);
	svg = render(&in, NULL);
	check_name(svg, m);
	free(svg);
	free(m);
}
END_TEST

START_TEST(svg_state_colors)
{
	static const char *const hex[] = { "#237a0f", "#b34700", "#c0392b", "#5f6b75", "#5f6b75",
					   "#5f6b75", "#8f5f00", "#5f6b75" };
	static const char *const name[] = { "brightgreen", "orange", "red", "lightgrey", "lightgrey",
					    "lightgrey", "yellow", "lightgrey" };
	static const char *const text[] = {
		">112.2 tok/s", ">" FLAG " 112.2 tok/s", ">disputed: upheld ", ">run not found<",
		">withdrawn ", ">112.2 tok/s ", ">disputed: 112.2 tok/s ", ">not counted "
	};
	enum badge_state st;

	_Static_assert(sizeof hex / sizeof *hex == BADGE__MAX, "a color per state");
	for (st = BADGE_OK; st < BADGE__MAX; st++) {
		struct badge_in in = with_state(st);
		const char *color = NULL;
		char *svg = render(&in, &color), want[64];

		ck_assert_str_eq(color, name[st]);
		ck_assert_str_eq(badge_color(st), name[st]);
		if (st != BADGE_UNCONFIRMED) {
			snprintf(want, sizeof want, "<rect x=\"65\" width=");
			ck_assert_ptr_nonnull(strstr(svg, want));
		}
		snprintf(want, sizeof want, "fill=\"%s\"/>", hex[st]);
		ck_assert_ptr_nonnull(strstr(svg, want));
		ck_assert_msg(strstr(svg, text[st]) != NULL, "state %d: %s", st, svg);
		if (st == BADGE_UNCONFIRMED)
			ck_assert_ptr_nonnull(strstr(svg, ">unconfirmed</text>"));
		else
			ck_assert_ptr_nonnull(strstr(svg, "<rect width=\"65\" height=\"20\" fill=\"#555\"/>"));
		free(svg);
	}
	ck_assert_ptr_null(badge_color(BADGE__MAX));
}
END_TEST

/* badge_state_of: the first fact that holds decides, green only for a
 * confirmed, undisputed, unflagged run. */
START_TEST(state_of_facts)
{
	struct badge_facts f = { 0, 0, 0, 0, 0, 1 };

	ck_assert_int_eq(badge_state_of(&f), BADGE_OK);
	f.confirmed = 0;
	ck_assert_int_eq(badge_state_of(&f), BADGE_UNCONFIRMED);
	f.flagged = 1;
	ck_assert_int_eq(badge_state_of(&f), BADGE_OUTLIER);
	f.disputed = 1;
	ck_assert_int_eq(badge_state_of(&f), BADGE_DISPUTED);
	f.upheld = 1;
	ck_assert_int_eq(badge_state_of(&f), BADGE_UPHELD);
	f.capped = 1;
	ck_assert_int_eq(badge_state_of(&f), BADGE_CAPPED);
	f.withdrawn = 1;
	ck_assert_int_eq(badge_state_of(&f), BADGE_WITHDRAWN);
}
END_TEST

/* ---- parsed by a real XML parser ------------------------------------------ */

/* Runs python3's ElementTree over every *.svg in dir; each must parse, be
 * an <svg> in the SVG namespace, and have aria-label equal to its <title>,
 * starting "llm-speed: ".  Returns the exit status (0 when all pass). */
static int python_check(const char *dir, int quiet)
{
	static const char script[] =
		"import sys, glob, xml.etree.ElementTree as E\n"
		"ns = '{http://www.w3.org/2000/svg}'\n"
		"fs = sorted(glob.glob(sys.argv[1] + '/*.svg'))\n"
		"assert fs\n"
		"for f in fs:\n"
		"    r = E.parse(f).getroot()\n"
		"    assert r.tag == ns + 'svg', f\n"
		"    t = r.find(ns + 'title').text\n"
		"    assert r.get('aria-label') == t, (f, t)\n"
		"    assert t.startswith('llm-speed: '), f\n";
	char cmd[512], path[256];
	FILE *f;
	int rc;

	snprintf(path, sizeof path, "%s/check.py", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s%s", path, dir,
		 quiet ? " 2>/dev/null" : "");
	rc = system(cmd);
	unlink(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void write_file(const char *dir, int i, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%02d.svg", dir, i);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void remove_files(const char *dir, int n)
{
	char path[256];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%02d.svg", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

START_TEST(svg_parses_as_xml)
{
	static const char *const names[] = {
		"Qwen3-Coder-30B-A3B-Instruct", HOSTILE, "a]]>b<!--c-->&amp;",
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
		HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN
		HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN HAN,
		"bad\xff\xc3utf8\xed\xa0\x80", "ctl\x01\x1f\x7f\t\n\r",
		"\xef\xbf\xbf\xef\xbf\xbe", "", NULL,
	};
	char dir[] = "/tmp/check_badge_XXXXXX";
	int n = 0, st;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		for (st = BADGE_OK; st <= BADGE_NOT_FOUND; st++) {
			struct badge_in in = { (enum badge_state)st, 12.5,
					       names[i], names[i], 0 };
			char *svg = render(&in, NULL);
			write_file(dir, n++, svg);
			free(svg);
		}
	}
	ck_assert_int_eq(python_check(dir, 0), 0);

	/* The checker does reject what is not XML. */
	write_file(dir, n++, "<svg xmlns=\"http://www.w3.org/2000/svg\"><title>x</svg>");
	ck_assert_int_ne(python_check(dir, 1), 0);
	remove_files(dir, n);
}
END_TEST

/* badge_fit_name, for drawings beyond the badge (the link-preview card):
 * whole when it fits, cleaned always, cut the badge's way when not. */
START_TEST(fit_name_for_other_drawings)
{
	struct buf b = BUF_INIT;
	unsigned long w = (unsigned long)(badge_text_width("Qwen3-Coder-30B-A3B-Instruct") * 100 + 0.5);

	/* Whole: nothing dropped, not even the variant words the badge drops. */
	ck_assert_int_eq(badge_fit_name(&b, "Qwen3-Coder-30B-A3B-Instruct", 0, w), 0);
	ck_assert_str_eq(b.buf, "Qwen3-Coder-30B-A3B-Instruct");
	buf_reset(&b);
	/* One cent short: cut after the last word that fits with the "…". */
	ck_assert_int_eq(badge_fit_name(&b, "Qwen3-Coder-30B-A3B-Instruct", 0, w - 1), 1);
	ck_assert_str_eq(b.buf, "Qwen3-Coder-30B-A3B" ELL);
	ck_assert(badge_text_width(b.buf) * 100 <= (double)(w - 1));
	buf_reset(&b);
	/* Hardware: the short form first, then without the part in parentheses. */
	ck_assert_int_eq(badge_fit_name(&b, "NVIDIA GeForce RTX 4090", 1, 100000), 0);
	ck_assert_str_eq(b.buf, "NVIDIA GeForce RTX 4090");
	buf_reset(&b);
	ck_assert_int_eq(badge_fit_name(&b, "NVIDIA GeForce RTX 4090", 1,
					(unsigned long)(badge_text_width("RTX 4090") * 100 + 1)), 1);
	ck_assert_str_eq(b.buf, "RTX 4090");
	buf_reset(&b);
	ck_assert_int_eq(badge_fit_name(&b, "AMD Ryzen AI Max+ 395 (Radeon 8060S)", 1,
					(unsigned long)(badge_text_width("Ryzen AI Max+ 395") * 100 + 1)), 1);
	ck_assert_str_eq(b.buf, "Ryzen AI Max+ 395");
	buf_reset(&b);
	/* Cleaned: bidi controls and zero-width characters gone, bad bytes
	 * and controls as U+FFFD, trailing separators trimmed. */
	ck_assert_int_eq(badge_fit_name(&b, " a\xe2\x80\xae" "b\xe2\x80\x8b\x01\xff-", 0, 100000), 0);
	ck_assert_str_eq(b.buf, "ab\xef\xbf\xbd\xef\xbf\xbd");
	buf_reset(&b);
	/* NULL is the empty name. */
	ck_assert_int_eq(badge_fit_name(&b, NULL, 0, 100), 0);
	ck_assert_str_eq(b.buf, "");
	buf_release(&b);
}
END_TEST

static Suite *suite_badge_svg(void)
{
	Suite *s = suite_create("badge_svg");
	TCase *w = tcase_create("width");
	TCase *m = tcase_create("message");
	TCase *g = tcase_create("svg");

	tcase_add_test(w, width_table_values);
	tcase_add_test(w, width_outside_table);
	tcase_add_test(m, figure_formats);
	tcase_add_test(m, message_per_state);
	tcase_add_test(m, message_omits_missing_parts);
	tcase_add_test(m, message_rejects_bad_input);
	tcase_add_test(m, model_suffixes_dropped);
	tcase_add_test(m, long_names_cut_at_characters);
	tcase_add_test(m, long_names_cut_at_words);
	tcase_add_test(m, malformed_input_cleaned);
	tcase_add_test(m, invisible_format_characters_dropped);
	tcase_add_test(m, fit_name_for_other_drawings);
	tcase_add_test(g, svg_box_widths);
	tcase_add_test(g, svg_width_grows_with_text);
	tcase_add_test(g, svg_typical_width_bounded);
	tcase_add_test(g, svg_escapes_hostile_names);
	tcase_add_test(g, svg_accessible_name);
	tcase_add_test(g, svg_state_colors);
	tcase_add_test(g, state_of_facts);
	tcase_add_test(g, svg_parses_as_xml);
	tcase_set_timeout(g, 30);
	suite_add_tcase(s, w);
	suite_add_tcase(s, m);
	suite_add_tcase(s, g);
	return s;
}

CHECK_MAIN(suite_badge_svg)
