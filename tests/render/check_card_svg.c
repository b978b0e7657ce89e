/* check_card_svg.c: the link-preview card of server/render/card_svg.c, for a
 * run and for a page's top rows: escaping, isolation, cutting, the marks,
 * colours and well-formed XML (checked by xmllint). */
#include "check_util.h"
#include "render/badge_svg.h"
#include "render/card_svg.h"
#include "util/buf.h"

#include <math.h>
#include <stdint.h>
#include <sys/wait.h>

#define ELL "\xe2\x80\xa6"      /* … */
#define FSI "\xe2\x81\xa8"
#define PDI "\xe2\x81\xa9"
#define RLO "\xe2\x80\xae"      /* U+202E RIGHT-TO-LEFT OVERRIDE */
#define HOSTILE "<script>alert(1)</script>&\"'"

static const struct card_run sample = {
	112.2, 1520.4, 212.0, "Qwen3-Coder-30B-A3B-Instruct", "Apple M3 Ultra",
	"llama.cpp", "b4567", CARD_MARK_NONE, 0
};

/* The run card for in; the caller frees. */
static char *run_card(const struct card_run *in)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(card_render_run(in, &b), 0);
	return buf_detach(&b, NULL);
}

/* The page card for in; the caller frees. */
static char *page_card(const struct card_page *in)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(card_render_page(in, &b), 0);
	return buf_detach(&b, NULL);
}

/* xmllint's verdict on svg: 0 when it is well-formed XML. */
static int xmllint(const char *svg)
{
	FILE *p = popen("xmllint --noout --nonet - 2>/dev/null", "w");
	int st;

	ck_assert_ptr_nonnull(p);
	fputs(svg, p);
	st = pclose(p);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* How many times needle occurs in s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)))
		n++, s += strlen(needle);
	return n;
}

/* The text content of the first <text> whose content is an isolate
 * (FSI ... PDI) holding want (NULL: the first one), as a malloc'd copy
 * of what is between FSI and PDI; its font-size in *size. */
static char *isolated_text(const char *svg, const char *want, int *size)
{
	const char *p = svg, *a, *z, *tag;

	while ((a = strstr(p, "\">" FSI))) {   /* after a tag's last attribute */
		a += 2 + strlen(FSI);
		z = strstr(a, PDI "</text>");
		ck_assert_ptr_nonnull(z);
		if (!want || (strstr(a, want) && strstr(a, want) < z)) {
			for (tag = a; tag > svg && strncmp(tag, "<text ", 6); tag--)
				;
			if (size)
				*size = atoi(strstr(tag, "font-size=\"") + 11);
			return strndup(a, (size_t)(z - a));
		}
		p = z;
	}
	return NULL;
}

/* WCAG 2 relative luminance of "#rrggbb". */
static double luminance(const char *hex)
{
	double c[3];
	int i;

	for (i = 0; i < 3; i++) {
		char two[3] = { hex[1 + 2 * i], hex[2 + 2 * i], 0 };
		double v = strtol(two, NULL, 16) / 255.0;

		c[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static double contrast(const char *a, const char *b)
{
	double x = luminance(a), y = luminance(b);

	return (fmax(x, y) + 0.05) / (fmin(x, y) + 0.05);
}

/* 1 when colour is the text colour of one of card_inks(). */
static int is_ink(const char *colour)
{
	size_t n, i;
	const struct card_ink *k = card_inks(&n);

	for (i = 0; i < n; i++)
		if (!strncmp(k[i].fg, colour, 7))
			return 1;
	return 0;
}

/* Every fill of a <text> or <tspan> in svg is one of card_inks()'s. */
static void texts_use_inks(const char *svg)
{
	static const char *const tags[] = { "<text ", "<tspan " };
	size_t t;

	for (t = 0; t < 2; t++) {
		const char *p = svg;

		while ((p = strstr(p, tags[t]))) {
			const char *end = strchr(p, '>'), *f = strstr(p, " fill=\"");

			ck_assert_msg(f && f < end, "a %s without fill", tags[t]);
			ck_assert_msg(is_ink(f + 7), "text colour %.7s is not in card_inks()", f + 7);
			p = end;
		}
	}
}

/* The px the widest face draws s at size in: the drawer's own measure
 * (the Verdana table, widened by DejaVu's largest ratio for the weight). */
static double widest_px(const char *s, int size, int bold)
{
	return badge_text_width(s) * size / 11.0 * (bold ? 1.25 : 1.08);
}

/* Unescapes the five entities html_txt writes, in place. */
static void unescape(char *s)
{
	static const char *const ent[][2] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" }, { "&#39;", "'" },
	};
	char *p = s, *o = s;
	size_t i;

	while (*p) {
		for (i = 0; i < 5; i++)
			if (!strncmp(p, ent[i][0], strlen(ent[i][0])))
				break;
		if (i < 5) {
			*o++ = ent[i][1][0];
			p += strlen(ent[i][0]);
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
}

/* Every left-aligned text that is not a row's (their room is checked in
 * page_card_rows) ends inside the right margin, by the drawer's measure,
 * at its size and weight (a tspan's text counted at the text's size,
 * the larger). */
static void texts_fit(const char *svg)
{
	const char *p = svg;

	while ((p = strstr(p, "<text "))) {
		const char *end = strchr(p, '>'), *close = strstr(p, "</text>");
		int x = atoi(strstr(p, " x=\"") + 4), size = atoi(strstr(p, "font-size=\"") + 11);
		int bold = strstr(p, "font-weight=\"bold\"") && strstr(p, "font-weight=\"bold\"") < end;
		char *t = strndup(end + 1, (size_t)(close - end - 1)), *q, *o;

		for (q = o = t; *q; q++) {   /* drop the tags inside and the isolates */
			if (*q == '<')
				q = strchr(q, '>');
			else if (!strncmp(q, FSI, 3) || !strncmp(q, PDI, 3))
				q += 2;
			else
				*o++ = *q;
		}
		*o = '\0';
		unescape(t);
		if (!strstr(p, "text-anchor") || strstr(p, "text-anchor") > end)
			ck_assert_msg(x + widest_px(t, size, bold) <= CARD_WIDTH - CARD_MARGIN + 0.5,
				      "\"%s\" at x %d, %d px%s, overruns the margin", t, x, size,
				      bold ? " bold" : "");
		free(t);
		p = close;
	}
}

START_TEST(run_card_shows_the_run)
{
	char *svg = run_card(&sample);

	ck_assert_int_eq(xmllint(svg), 0);
	ck_assert(strstr(svg, "width=\"1200\" height=\"630\" viewBox=\"0 0 1200 630\""));
	ck_assert(strstr(svg, ">llm-speed</text>"));
	ck_assert(strstr(svg, ">" FSI "Qwen3-Coder-30B-A3B-Instruct" PDI "</text>"));
	ck_assert(strstr(svg, ">" FSI "Apple M3 Ultra" PDI "</text>"));
	ck_assert(strstr(svg, ">112.2<tspan"));
	ck_assert(strstr(svg, ">Prefill <tspan"));
	ck_assert(strstr(svg, ">1,520 tok/s</tspan>"));
	ck_assert(strstr(svg, ">212.0 ms</tspan>"));
	ck_assert(strstr(svg, ">" FSI "llama.cpp b4567" PDI "</text>"));
	/* The title: each name isolated, and the whole too (html_txt isolates
	 * text holding isolates). */
	ck_assert(strstr(svg, "<title>" FSI "llm-speed: " FSI "Qwen3-Coder-30B-A3B-Instruct" PDI " on "
			 FSI "Apple M3 Ultra" PDI ": 112.2 tok/s decode (chat-short)" PDI "</title>"));
	ck_assert(!strstr(svg, "outlier") && !strstr(svg, "withdrawn") && !strstr(svg, "upheld"));
	ck_assert(!strstr(svg, ">demo<"));
	texts_use_inks(svg);
	free(svg);
}
END_TEST

START_TEST(run_card_marks)
{
	struct card_run in = sample;
	char *svg;

	in.mark = CARD_MARK_OUTLIER;
	svg = run_card(&in);
	ck_assert(strstr(svg, ">\xe2\x9a\x91 outlier</text>"));
	ck_assert(strstr(svg, "fill=\"#fff3e6\" stroke=\"#d97a1c\""));   /* --flag-bg, -line */
	ck_assert(strstr(svg, ">112.2<tspan"));                          /* the figure stays */
	ck_assert(strstr(svg, "tok/s decode (chat-short), outlier" PDI "</title>"));
	free(svg);

	in.mark = CARD_MARK_UPHELD;
	svg = run_card(&in);
	ck_assert(strstr(svg, ">disputed: upheld</text>"));
	ck_assert(strstr(svg, "A moderator upheld a dispute"));
	ck_assert(strstr(svg, "no longer count"));
	ck_assert(!strstr(svg, "112.2") && !strstr(svg, "Prefill") && !strstr(svg, "tok/s"));
	ck_assert(strstr(svg, ": disputed: upheld" PDI "</title>"));
	ck_assert_int_eq(xmllint(svg), 0);
	texts_use_inks(svg);
	free(svg);

	in.mark = CARD_MARK_WITHDRAWN;
	in.demo = 1;
	svg = run_card(&in);
	ck_assert(strstr(svg, ">withdrawn</text>"));
	ck_assert(strstr(svg, ">demo</text>"));
	ck_assert(strstr(svg, "<title>" FSI "llm-speed (demo): "));
	ck_assert(!strstr(svg, "112.2"));
	free(svg);

	ck_assert_str_eq(card_mark_word(CARD_MARK_OUTLIER), "\xe2\x9a\x91 outlier");
	ck_assert_ptr_null(card_mark_word(CARD_MARK_NONE));
	ck_assert_ptr_null(card_mark_word(CARD_MARK__MAX));
	in.mark = CARD_MARK__MAX;
	{
		struct buf b = BUF_INIT;

		ck_assert_int_eq(card_render_run(&in, &b), -1);
		ck_assert_int_eq(card_render_run(NULL, &b), -1);
		ck_assert_int_eq(card_render_page(NULL, &b), -1);
		buf_release(&b);
	}
}
END_TEST

START_TEST(run_card_escapes_hostile_names)
{
	struct card_run in = sample;
	char *svg, *t;

	in.model = HOSTILE;
	in.hardware = "a]]><!--x-->&amp;";
	in.backend = "<b>";
	in.backend_version = "\"'&";
	svg = run_card(&in);
	ck_assert_int_eq(xmllint(svg), 0);
	ck_assert(!strstr(svg, "<script") && !strstr(svg, "<b>") && !strstr(svg, "<!--"));
	ck_assert(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"));
	ck_assert(strstr(svg, "a]]&gt;&lt;!--x--&gt;&amp;amp;"));
	ck_assert(strstr(svg, ">" FSI "&lt;b&gt; &quot;&#39;&amp;" PDI "</text>"));
	t = strstr(svg, "aria-label=\"");
	ck_assert(t && strstr(t, "&lt;script&gt;") < strstr(t, "\">"));
	free(svg);
}
END_TEST

START_TEST(run_card_isolates_and_cleans)
{
	struct card_run in = sample;
	char *svg, *m;

	/* A bidi override in a name never reaches the card: it is dropped
	 * (as on the badge), and every name is its own isolate. */
	in.model = "abc" RLO "def";
	in.hardware = "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d 3";   /* Hebrew, right to left */
	in.backend = "x\x01y\xff";
	svg = run_card(&in);
	ck_assert_int_eq(xmllint(svg), 0);
	ck_assert(!strstr(svg, RLO));
	ck_assert(!strstr(svg, "\x01") && !strstr(svg, "\xff"));
	m = isolated_text(svg, "abc", NULL);
	ck_assert_str_eq(m, "abcdef");
	free(m);
	m = isolated_text(svg, "\xd7\xa9", NULL);
	ck_assert_str_eq(m, "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d 3");
	free(m);
	m = isolated_text(svg, "x", NULL);
	ck_assert_str_eq(m, "x\xef\xbf\xbdy\xef\xbf\xbd b4567");
	free(m);
	/* Every isolate opened is closed, in the card and in its title. */
	ck_assert_int_eq(count(svg, FSI), count(svg, PDI));
	ck_assert_int_ge(count(svg, FSI), 4);
	free(svg);
}
END_TEST

START_TEST(run_card_sizes_and_cuts)
{
	struct card_run in = sample;
	char *svg, *m;
	int size;

	/* A short model at the largest size, a long one smaller, and one too
	 * long for any size cut after a word, within the card's margins. */
	in.model = "Qwen3-8B";
	svg = run_card(&in);
	m = isolated_text(svg, "Qwen3", &size);
	ck_assert_int_eq(size, 60);
	free(m);
	free(svg);

	in.model = "Qwen3-Coder-30B-A3B-Instruct-Q4_K_M";
	svg = run_card(&in);
	m = isolated_text(svg, "Qwen3", &size);
	ck_assert_str_eq(m, "Qwen3-Coder-30B-A3B-Instruct-Q4_K_M");
	ck_assert_int_lt(size, 60);
	ck_assert(badge_text_width(m) * size / 11.0 * 1.25 <= CARD_WIDTH - 2 * CARD_MARGIN);
	free(m);
	free(svg);

	in.model = "Meta-Llama-3.1-405B-Instruct-Turbo-Extended-Context-Long-Name-Q4_K_M-imatrix-v2";
	svg = run_card(&in);
	m = isolated_text(svg, "Meta", &size);
	ck_assert_int_eq(size, 36);
	ck_assert(strlen(m) > strlen(ELL) && !strcmp(m + strlen(m) - strlen(ELL), ELL));
	ck_assert(!strncmp(m, "Meta-Llama-3.1-405B", 19));
	ck_assert(badge_text_width(m) * size / 11.0 * 1.25 <= CARD_WIDTH - 2 * CARD_MARGIN);
	free(m);
	free(svg);

	/* A huge figure takes a smaller headline; prefill and TTFT not
	 * measured are left out. */
	in = sample;
	in.decode_tok_s = 123456789.0;
	in.prefill_tok_s = NAN;
	in.ttft_ms = NAN;
	svg = run_card(&in);
	ck_assert(strstr(svg, ">123,456,789<tspan"));
	ck_assert(!strstr(svg, "font-size=\"140\""));
	ck_assert(!strstr(svg, "Prefill") && !strstr(svg, "Time to first token"));
	free(svg);
	in.decode_tok_s = -1;
	svg = run_card(&in);
	ck_assert(strstr(svg, ">?<tspan"));
	free(svg);

	/* Nothing but a model: no empty hardware or backend texts. */
	in = sample;
	in.hardware = in.backend = in.backend_version = NULL;
	svg = run_card(&in);
	ck_assert_int_eq(count(svg, FSI "</"), 0);
	ck_assert_int_eq(xmllint(svg), 0);
	free(svg);
}
END_TEST

START_TEST(page_card_rows)
{
	struct card_page in = {
		"model", "Qwen3-Coder-30B-A3B-Instruct", "42 runs on 7 machines",
		"Fastest hardware", "decode tok/s",
		{ { "Apple M3 Ultra", 100.0, 1 }, { "NVIDIA GeForce RTX 4090", 50.0, 1 },
		  { HOSTILE, 25.0, 0 }, { "a" RLO "b", 0.5, 0 },
		  { "Intel Arc B580 with a very very long name that goes on and on and on and on and on and on and on", 10, 1 } },
		7, 0
	};
	char *svg = page_card(&in), *m, bar[8] = "";

	ck_assert_int_eq(xmllint(svg), 0);
	texts_use_inks(svg);
	texts_fit(svg);
	ck_assert(strstr(svg, ">model</text>"));
	ck_assert(strstr(svg, ">" FSI "Qwen3-Coder-30B-A3B-Instruct" PDI "</text>"));
	ck_assert(strstr(svg, ">" FSI "42 runs on 7 machines" PDI "</text>"));
	ck_assert(strstr(svg, ">Fastest hardware</text>"));
	ck_assert(strstr(svg, "text-anchor=\"end\">decode tok/s</text>"));
	/* nrows 7: five drawn, each with a bar whose width follows its value. */
	ck_assert_int_eq(count(svg, "rx=\"6\""), CARD_ROWS_MAX);
	ck_assert(strstr(svg, "<rect x=\"60\" y=\"358\" width=\"1080\""));
	ck_assert(strstr(svg, "<rect x=\"60\" y=\"418\" width=\"540\""));
	ck_assert(strstr(svg, "<rect x=\"60\" y=\"478\" width=\"270\""));
	ck_assert(strstr(svg, "<rect x=\"60\" y=\"538\" width=\"5\""));
	ck_assert(strstr(svg, ">100.0</text>") && strstr(svg, ">0.50</text>"));
	/* Issue 38: each bar stands out from the card (3:1 or more, WCAG
	 * 1.4.11) and lies under its texts, not behind them. */
	m = strstr(svg, "<rect x=\"60\" y=\"358\"");
	ck_assert(m && strstr(m, "fill=\"#"));
	memcpy(bar, strstr(m, "fill=\"#") + 6, 7);
	ck_assert_msg(contrast(bar, "#ffffff") >= 3, "bar %s", bar);
	ck_assert(!strstr(svg, "<script") && strstr(svg, "&lt;script&gt;"));
	ck_assert(!strstr(svg, RLO));
	/* The long hardware name is cut the badge's way, with room for its figure. */
	m = isolated_text(svg, "B580", NULL);
	ck_assert(!strcmp(m + strlen(m) - strlen(ELL), ELL));
	ck_assert(badge_text_width(m) * 32 / 11.0 * 1.08 + badge_text_width("10.0") * 32 / 11.0 * 1.25
		  <= CARD_WIDTH - 2 * CARD_MARGIN - 32);
	free(m);
	ck_assert(strstr(svg, "<title>" FSI "llm-speed: " FSI "Qwen3-Coder-30B-A3B-Instruct" PDI ": "
			 FSI "Apple M3 Ultra" PDI " 100.0; "));
	ck_assert_int_eq(count(svg, FSI), count(svg, PDI));
	free(svg);

	in.nrows = 0;
	in.demo = 1;
	in.subtitle = NULL;
	svg = page_card(&in);
	ck_assert(strstr(svg, ">No runs yet.</text>"));
	ck_assert(!strstr(svg, "Fastest hardware") && !strstr(svg, "rx=\"6\""));
	ck_assert(strstr(svg, ">demo</text>"));
	ck_assert_int_eq(xmllint(svg), 0);
	free(svg);
}
END_TEST

START_TEST(our_texts_fit)
{
	struct card_run in = sample;
	int m;

	for (m = 0; m < CARD_MARK__MAX; m++) {
		char *svg;

		in.mark = (enum card_mark)m;
		in.demo = m & 1;
		in.model = m & 1 ? "Meta-Llama-3.1-405B-Instruct-Turbo-Extended-Context-Long-Name-Q4_K_M"
				 : sample.model;
		in.backend = m & 1 ? "llama.cpp with a very long backend name that goes on and on and on" : "mlx";
		in.decode_tok_s = m & 1 ? 987654321.5 : 112.2;
		svg = run_card(&in);
		texts_fit(svg);
		free(svg);
	}
}
END_TEST

START_TEST(inks_contrast)
{
	size_t n, i;
	const struct card_ink *k = card_inks(&n);

	ck_assert_uint_ge(n, 8);
	for (i = 0; i < n; i++)
		ck_assert_msg(contrast(k[i].fg, k[i].bg) >= 4.5, "%s: %s on %s is %.2f:1",
			      k[i].what, k[i].fg, k[i].bg, contrast(k[i].fg, k[i].bg));
	/* The checker does tell a pair under 4.5:1: #777 on white is 4.48:1. */
	ck_assert(contrast("#777777", "#ffffff") < 4.5);
}
END_TEST

START_TEST(hostile_bytes_stay_xml)
{
	static const char *const names[] = {
		HOSTILE, "a]]>b<!--c-->&amp;", "bad\xff\xc3utf8\xed\xa0\x80",
		"ctl\x01\x1f\x7f\t\n\r", "\xef\xbf\xbf\xef\xbf\xbe", "", NULL,
		RLO RLO "\xe2\x81\xa9\xe2\x81\xa9" "x",
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct card_run in = { 1, 2, 3, names[i], names[i], names[i], names[i],
				       (enum card_mark)(i % CARD_MARK__MAX), (int)(i & 1) };
		struct card_page pg = { names[i], names[i], names[i], names[i], names[i],
					{ { names[i], 1, 0 }, { names[i], 2, 1 } }, 2, 0 };
		char *a = run_card(&in), *b = page_card(&pg);

		ck_assert_msg(xmllint(a) == 0, "run card %zu is not XML", i);
		ck_assert_msg(xmllint(b) == 0, "page card %zu is not XML", i);
		ck_assert_int_eq(count(a, FSI), count(a, PDI));
		free(a);
		free(b);
	}
	/* xmllint does refuse what is not XML. */
	ck_assert_int_ne(xmllint("<svg><title>x</svg>"), 0);
}
END_TEST

static Suite *suite_card_svg(void)
{
	Suite *s = suite_create("card_svg");
	TCase *r = tcase_create("run");
	TCase *p = tcase_create("page");

	tcase_add_test(r, run_card_shows_the_run);
	tcase_add_test(r, run_card_marks);
	tcase_add_test(r, run_card_escapes_hostile_names);
	tcase_add_test(r, run_card_isolates_and_cleans);
	tcase_add_test(r, run_card_sizes_and_cuts);
	tcase_add_test(r, inks_contrast);
	tcase_add_test(r, our_texts_fit);
	tcase_add_test(p, page_card_rows);
	tcase_add_test(p, hostile_bytes_stay_xml);
	tcase_set_timeout(r, 30);
	tcase_set_timeout(p, 30);
	suite_add_tcase(s, r);
	suite_add_tcase(s, p);
	return s;
}

CHECK_MAIN(suite_card_svg)
