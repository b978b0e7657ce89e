/* card_svg.c: the link-preview card as a 1200 × 630 SVG, for a run and
 * for a page's top rows.  Names are cleaned and cut by the badge's
 * badge_fit_name, measured with its Verdana table (DejaVu Sans, which the
 * card is drawn in, has nearly the same advances), and escaped by
 * html_txt and html_attr. */
#include "render/card_svg.h"

#include <math.h>
#include <string.h>

#include "render/badge_svg.h"
#include "render/html.h"
#include "util/numfmt.h"
#include "util/nelem.h"

#define FSI "\xe2\x81\xa8"         /* U+2068: a name starts its own isolate */
#define PDI "\xe2\x81\xa9"         /* U+2069: ... and ends it */
#define FONT "DejaVu Sans,Verdana,sans-serif"
#define TEXT_W (CARD_WIDTH - 2 * CARD_MARGIN)
#define RIGHT (CARD_WIDTH - CARD_MARGIN)
#define BAND_H 96                  /* the band with the site's name */

/* ---- colours ------------------------------------------------------------- */

/* static/style.css's light theme. */
#define C_BG "#ffffff"          /* --bg */
#define C_FG "#1d2125"          /* --fg */
#define C_MUTED "#5c6670"       /* --muted */
#define C_SOFT "#f3f5f7"        /* --soft: the band */
#define C_LINE "#d8dde2"        /* --line */
#define C_BAR "#0072b2"         /* --accent: a row's bar, 5:1 on the card, under its texts */
#define C_FLAG_BG "#fff3e6"     /* --flag-bg, -line, -fg */
#define C_FLAG_LINE "#d97a1c"
#define C_FLAG_FG "#8a4300"
#define C_UPHELD_BG "#fdecec"   /* --upheld-bg, -line, -fg (withdrawn too) */
#define C_UPHELD_LINE "#c62828"
#define C_UPHELD_FG "#8e1c1c"
#define C_DEMO_BG "#f1effa"     /* --demo-bg, -line */
#define C_DEMO_LINE "#8f7fd0"

/* Every text colour on what lies under it; the drawer names text colours
 * by these indexes only, so card_inks() is the whole list to check. */
enum ink {
	INK_TEXT, INK_LABEL, INK_BAND, INK_BAND_LABEL, INK_ROW, INK_ROW_LABEL,
	INK_OUTLIER, INK_UPHELD, INK_WITHDRAWN, INK_DEMO, INK_NO_FIGURES,
	INK__MAX
};

static const struct card_ink inks[INK__MAX] = {
	[INK_TEXT] = { C_FG, C_BG, "names and figures" },
	[INK_LABEL] = { C_MUTED, C_BG, "labels, units, the backend" },
	[INK_BAND] = { C_FG, C_SOFT, "the site's name on the band" },
	[INK_BAND_LABEL] = { C_MUTED, C_SOFT, "the kind of page on the band" },
	[INK_ROW] = { C_FG, C_BG, "a row's name and figure, above its bar" },
	[INK_ROW_LABEL] = { C_MUTED, C_BG, "a row's name above its bar, muted" },
	[INK_OUTLIER] = { C_FLAG_FG, C_FLAG_BG, "the outlier word" },
	[INK_UPHELD] = { C_UPHELD_FG, C_UPHELD_BG, "the upheld word" },
	[INK_WITHDRAWN] = { C_UPHELD_FG, C_UPHELD_BG, "the withdrawn word" },
	[INK_DEMO] = { C_FG, C_DEMO_BG, "the demo word" },
	[INK_NO_FIGURES] = { C_UPHELD_FG, C_BG, "why a run shows no figures" },
};

const struct card_ink *card_inks(size_t *n)
{
	*n = NELEM(inks);
	return inks;
}

/* A word in a pill on the band: its ink and its outline. */
struct pill {
	const char *word;
	enum ink ink;
	const char *line;
};

static const struct pill marks[CARD_MARK__MAX] = {
	[CARD_MARK_OUTLIER] = { "\xe2\x9a\x91 outlier", INK_OUTLIER, C_FLAG_LINE },
	[CARD_MARK_UPHELD] = { "disputed: upheld", INK_UPHELD, C_UPHELD_LINE },
	[CARD_MARK_WITHDRAWN] = { "withdrawn", INK_WITHDRAWN, C_UPHELD_LINE },
	[CARD_MARK_DISPUTED] = { "disputed", INK_OUTLIER, C_FLAG_LINE },
	[CARD_MARK_CAPPED] = { "not counted", INK_WITHDRAWN, C_UPHELD_LINE },
};

static const struct pill demo_pill = { "demo", INK_DEMO, C_DEMO_LINE };

/* Why an upheld or withdrawn run's card has no figures: a line in the
 * mark's colour where the headline would be, and one under it. */
static const struct {
	const char *head, *detail;
} no_figures[CARD_MARK__MAX] = {
	[CARD_MARK_UPHELD] = { "Its figures no longer count.",
			       "A moderator upheld a dispute about this run." },
	[CARD_MARK_WITHDRAWN] = { "Its figures no longer count.",
				  "Its submitter withdrew this run." },
	[CARD_MARK_CAPPED] = { "Its figures do not count.",
			       "Its network had already sent as many signing keys as count." },
};

const char *card_mark_word(enum card_mark m)
{
	return (unsigned)m < CARD_MARK__MAX ? marks[m].word : NULL;
}

/* ---- measuring ------------------------------------------------------------- */

/* How much wider than the Verdana table a face may draw a text: the
 * largest ratio of any printable ASCII character's advance in DejaVu Sans
 * (1.074, '&') and DejaVu Sans Bold (1.249, 'i' and 'l') to the table's,
 * read from the fonts' hmtx tables; most text is within 1.0 and 1.1, so
 * a text measured with these never overruns its room. */
static double widen(int bold)
{
	return bold ? 1.25 : 1.08;
}

/* The px s (our own text, or a name already cleaned) takes at size px. */
static double text_px(const char *s, int size, int bold)
{
	return badge_text_width(s) * size / 11.0 * widen(bold);
}

/* px at size px, in badge_fit_name's units (hundredths of a px of
 * Verdana 11 px). */
static unsigned long room_of(double px, int size, int bold)
{
	double r = px * 11.0 / size / widen(bold) * 100.0;

	return r > 0 ? (unsigned long)r : 0;
}

/* ---- drawing ------------------------------------------------------------- */

/* A text's place and face. */
struct at {
	int x, y, size, bold;
	enum ink ink;
	const char *anchor;    /* "start" (NULL), "middle" or "end" */
};

/* Appends the opening tag of a <text> at a (its text and </text> follow). */
static void open_text(struct buf *out, const struct at *a)
{
	buf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"%s\"",
		   a->x, a->y, a->size, inks[a->ink].fg);
	if (a->bold)
		buf_puts(out, " font-weight=\"bold\"");
	if (a->anchor)
		buf_printf(out, " text-anchor=\"%s\"", a->anchor);
	buf_putc(out, '>');
}

/* Appends our own words s (escaped all the same) as one text at a. */
static void put_words(struct buf *out, const struct at *a, const char *s)
{
	open_text(out, a);
	html_txt(out, s);
	buf_puts(out, "</text>");
}

/* Fits name (any bytes; hw: a hardware name) into px at a's weight: at
 * the first of the n sizes it fits at whole, else cut to fit at the last.
 * Writes the shown text to shown (reset first) and returns its size. */
static int fit_sizes(struct buf *shown, const char *name, int hw, double px,
		     const int *sizes, size_t n, int bold)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_reset(shown);
		if (badge_fit_name(shown, name, hw, room_of(px, sizes[i], bold)) <= 0)
			break;
	}
	return sizes[i < n ? i : n - 1];
}

/* Appends a cleaned name as one text at a, isolated in U+2068 ... U+2069
 * so that a right-to-left name cannot reorder the card's other words. */
static void put_name(struct buf *out, const struct at *a, const char *shown)
{
	open_text(out, a);
	buf_puts(out, FSI);
	html_txt(out, shown);
	buf_puts(out, PDI "</text>");
}

/* Appends the pill p on the band with its right edge at right; returns
 * its left edge. */
static int put_pill(struct buf *out, int right, const struct pill *p)
{
	int w = (int)ceil(text_px(p->word, 26, 1)) + 36;
	struct at a = { right - w / 2, 58, 26, 1, p->ink, "middle" };

	buf_printf(out, "<rect x=\"%d\" y=\"22\" width=\"%d\" height=\"52\" rx=\"26\""
		   " fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>",
		   right - w, w, inks[p->ink].bg, p->line);
	put_words(out, &a, p->word);
	return right - w;
}

/* Appends the opening tag with the accessible name label (plain text),
 * the background and the band: the site's name, kind in muted words,
 * and at the right the pills (the mark, if any, then "demo"). */
static void put_frame(struct buf *out, const char *label, const char *kind,
		      const struct pill *mark, int demo)
{
	struct at site = { CARD_MARGIN, 62, 38, 1, INK_BAND, NULL };
	struct at k = { 0, 61, 28, 0, INK_BAND_LABEL, NULL };
	int right = RIGHT;

	buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
		   " height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		   CARD_WIDTH, CARD_HEIGHT, CARD_WIDTH, CARD_HEIGHT);
	html_attr(out, label);
	buf_puts(out, "\"><title>");
	html_txt(out, label);
	buf_printf(out, "</title><rect width=\"%d\" height=\"%d\" fill=\"%s\"/>"
		   "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>"
		   "<rect y=\"%d\" width=\"%d\" height=\"2\" fill=\"%s\"/>"
		   "<g font-family=\"" FONT "\">",
		   CARD_WIDTH, CARD_HEIGHT, C_BG, CARD_WIDTH, BAND_H, C_SOFT,
		   BAND_H, CARD_WIDTH, C_LINE);
	put_words(out, &site, BADGE_LABEL);
	if (mark && mark->word)
		right = put_pill(out, right, mark) - 16;
	if (demo)
		put_pill(out, right, &demo_pill);
	if (kind) {
		k.x = CARD_MARGIN + (int)ceil(text_px(BADGE_LABEL, 38, 1)) + 24;
		put_words(out, &k, kind);
	}
}

/* Closes what put_frame opened. */
static void put_close(struct buf *out)
{
	buf_puts(out, "</g></svg>");
}

/* ---- the run's card -------------------------------------------------------- */

static const int title_sizes[] = { 60, 52, 44, 36 };
static const int hw_sizes[] = { 40, 34, 30 };
static const int headline_sizes[] = { 140, 112, 88, 64 };

/* Appends v as a figure ("?" when it is not a finite, non-negative one). */
static void put_fig(struct buf *out, double v)
{
	if (!isfinite(v) || v < 0)
		buf_putc(out, '?');
	else
		numfmt_fig(out, v);
}

/* The headline: "Decode, chat-short" over the figure and " tok/s", at the
 * largest size the whole line fits at. */
static void put_headline(struct buf *out, double decode)
{
	static const struct at label = { CARD_MARGIN, 334, 30, 0, INK_LABEL, NULL };
	struct buf fig = BUF_INIT;
	struct at a = { CARD_MARGIN, 460, 0, 1, INK_TEXT, NULL };
	size_t i;

	put_fig(&fig, decode);
	for (i = 0; i + 1 < NELEM(headline_sizes); i++)
		if (text_px(fig.buf, headline_sizes[i], 1) + 10 + text_px(" tok/s", 56, 0) <= TEXT_W)
			break;
	a.size = headline_sizes[i];
	put_words(out, &label, "Decode, chat-short");
	open_text(out, &a);
	html_txt(out, fig.buf);
	buf_printf(out, "<tspan dx=\"10\" font-size=\"56\" font-weight=\"normal\" fill=\"%s\">"
		   " tok/s</tspan></text>", inks[INK_LABEL].fg);
	buf_release(&fig);
}

/* One secondary figure at x: its label muted, then the figure and unit
 * in bold; nothing for a figure not measured (NAN). */
static void put_second(struct buf *out, int x, const char *label, double v,
		       const char *unit)
{
	struct at a = { x, 540, 32, 0, INK_LABEL, NULL };

	if (isnan(v))
		return;
	open_text(out, &a);
	html_txt(out, label);
	buf_printf(out, " <tspan font-weight=\"bold\" fill=\"%s\">", inks[INK_TEXT].fg);
	put_fig(out, v);
	buf_printf(out, " %s</tspan></text>", unit);
}

/* The accessible name of a run's card (plain text): "llm-speed: <model>
 * on <hardware>: 112.2 tok/s decode (chat-short), outlier"; the names
 * are the shown ones, each isolated. */
static void run_label(struct buf *label, const struct card_run *in,
		      const char *model, const char *hw)
{
	buf_puts(label, in->demo ? BADGE_LABEL " (demo): " : BADGE_LABEL ": ");
	buf_puts(label, FSI);
	buf_puts(label, model);
	buf_puts(label, PDI);
	if (*hw) {
		buf_puts(label, " on " FSI);
		buf_puts(label, hw);
		buf_puts(label, PDI);
	}
	if (no_figures[in->mark].head) {
		buf_printf(label, ": %s", marks[in->mark].word);
		return;
	}
	buf_puts(label, ": ");
	put_fig(label, in->decode_tok_s);
	buf_puts(label, " tok/s decode (chat-short)");
	if (in->mark == CARD_MARK_OUTLIER)
		buf_puts(label, ", outlier");
	else if (in->mark == CARD_MARK_DISPUTED)
		buf_puts(label, ", disputed");
}

/* The backend and its version as one name ("llama.cpp b4567"), cut to
 * the card's width, at the foot.  Returns 0, or -1 out of memory. */
static int put_backend(struct buf *out, const struct card_run *in)
{
	struct at a = { CARD_MARGIN, 600, 28, 0, INK_LABEL, NULL };
	struct buf both = BUF_INIT, shown = BUF_INIT;
	int ret;

	buf_puts(&both, in->backend ? in->backend : "");
	if (in->backend_version && *in->backend_version)
		buf_printf(&both, " %s", in->backend_version);
	ret = badge_fit_name(&shown, both.buf, 0, room_of(TEXT_W, a.size, 0));
	if (shown.len)
		put_name(out, &a, shown.buf);
	ret = ret < 0 || buf_error(&both) ? -1 : 0;
	buf_release(&shown);
	buf_release(&both);
	return ret;
}

/* See card_svg.h. */
int card_render_run(const struct card_run *in, struct buf *out)
{
	struct buf model = BUF_INIT, hw = BUF_INIT, label = BUF_INIT;
	struct at m = { CARD_MARGIN, 192, 0, 1, INK_TEXT, NULL };
	struct at h = { CARD_MARGIN, 256, 0, 0, INK_TEXT, NULL };
	struct at why = { CARD_MARGIN, 400, 48, 1, INK_NO_FIGURES, NULL };
	struct at detail = { CARD_MARGIN, 460, 32, 0, INK_LABEL, NULL };
	int ret = -1;

	if (!in || (unsigned)in->mark >= CARD_MARK__MAX)
		return -1;
	m.size = fit_sizes(&model, in->model, 0, TEXT_W, title_sizes, NELEM(title_sizes), 1);
	h.size = fit_sizes(&hw, in->hardware, 1, TEXT_W, hw_sizes, NELEM(hw_sizes), 0);
	run_label(&label, in, model.buf, hw.buf);
	if (buf_error(&model) || buf_error(&hw) || buf_error(&label))
		goto out;
	put_frame(out, label.buf, "benchmark run", &marks[in->mark], in->demo);
	if (model.len)
		put_name(out, &m, model.buf);
	if (hw.len)
		put_name(out, &h, hw.buf);
	if (no_figures[in->mark].head) {
		put_words(out, &why, no_figures[in->mark].head);
		put_words(out, &detail, no_figures[in->mark].detail);
	} else {
		put_headline(out, in->decode_tok_s);
		put_second(out, CARD_MARGIN, "Prefill", in->prefill_tok_s, "tok/s");
		put_second(out, CARD_WIDTH / 2, "Time to first token", in->ttft_ms, "ms");
	}
	if (put_backend(out, in) < 0)
		goto out;
	put_close(out);
	ret = buf_error(out);
out:
	buf_release(&label);
	buf_release(&hw);
	buf_release(&model);
	return ret;
}

/* ---- a page's card --------------------------------------------------------- */

#define ROW_Y 318     /* the first row's top */
#define ROW_STEP 60   /* from one row's top to the next */
#define ROW_H 12      /* a row's bar, under its texts (never behind them) */
#define ROW_BAR_Y 40  /* from a row's top to its bar's */
#define ROW_PAD 16    /* px between a bar's edge and its texts */
#define ROW_SIZE 32

/* The largest value among the rows, for the bars; 0 when none is a
 * finite positive figure. */
static double rows_max(const struct card_page *in, size_t n)
{
	double max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(in->rows[i].value) && in->rows[i].value > max)
			max = in->rows[i].value;
	return max;
}

/* Row i: its name cut to leave room for its figure, the figure at the
 * right, and under both its bar (value against max) in the accent blue,
 * which no text lies on.  Appends ": name figure" (then
 * "; name figure") to label.  Returns 0, or -1 out of memory. */
static int put_row(struct buf *out, struct buf *label, const struct card_page *in,
		    size_t i, double max)
{
	const struct card_row *row = &in->rows[i];
	int top = ROW_Y + (int)i * ROW_STEP;
	struct at name = { CARD_MARGIN, top + 30, ROW_SIZE, 0, INK_ROW, NULL };
	struct at fig = { RIGHT, top + 30, ROW_SIZE, 1, INK_ROW, "end" };
	struct buf f = BUF_INIT, shown = BUF_INIT;
	double share = max > 0 && isfinite(row->value) && row->value > 0 ? row->value / max : 0;
	double room;
	int ret;

	buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\"/>",
		   CARD_MARGIN, top + ROW_BAR_Y, (int)lround(share * TEXT_W) > 4 ? (int)lround(share * TEXT_W) : 4,
		   ROW_H, C_BAR);
	put_fig(&f, row->value);
	room = TEXT_W - 2 * ROW_PAD - text_px(f.buf, ROW_SIZE, 1) - 32;
	ret = badge_fit_name(&shown, row->name, row->hw, room_of(room, ROW_SIZE, 0));
	put_name(out, &name, shown.buf);
	put_words(out, &fig, f.buf);
	buf_printf(label, "%s" FSI "%s" PDI " %s", i ? "; " : ": ", shown.buf, f.buf);
	ret = ret < 0 || buf_error(&f) ? -1 : 0;
	buf_release(&shown);
	buf_release(&f);
	return ret;
}

/* See card_svg.h. */
int card_render_page(const struct card_page *in, struct buf *out)
{
	struct buf title = BUF_INIT, sub = BUF_INIT, label = BUF_INIT, rows = BUF_INIT;
	struct at t = { CARD_MARGIN, 192, 0, 1, INK_TEXT, NULL };
	struct at s = { CARD_MARGIN, 246, 30, 0, INK_LABEL, NULL };
	struct at head = { CARD_MARGIN, 298, 26, 0, INK_LABEL, NULL };
	struct at unit = { RIGHT, 298, 26, 0, INK_LABEL, "end" };
	struct at none = { CARD_MARGIN, 380, 32, 0, INK_LABEL, NULL };
	size_t i, n;
	double max;
	int ret = -1;

	if (!in)
		return -1;
	n = in->nrows < CARD_ROWS_MAX ? in->nrows : CARD_ROWS_MAX;
	max = rows_max(in, n);
	t.size = fit_sizes(&title, in->title, 0, TEXT_W, title_sizes, NELEM(title_sizes), 1);
	if (badge_fit_name(&sub, in->subtitle, 0, room_of(TEXT_W, s.size, 0)) < 0)
		goto out;
	buf_printf(&label, "%s%s: " FSI "%s" PDI, BADGE_LABEL, in->demo ? " (demo)" : "",
		   title.buf);
	for (i = 0; i < n; i++)
		if (put_row(&rows, &label, in, i, max) < 0)
			goto out;
	if (buf_error(&title) || buf_error(&sub) || buf_error(&label) || buf_error(&rows))
		goto out;
	put_frame(out, label.buf, in->kind, NULL, in->demo);
	put_name(out, &t, title.buf);
	if (sub.len)
		put_name(out, &s, sub.buf);
	if (n && in->heading)
		put_words(out, &head, in->heading);
	if (n && in->unit)
		put_words(out, &unit, in->unit);
	if (!n)
		put_words(out, &none, "No runs yet.");
	buf_add(out, rows.buf, rows.len);
	put_close(out);
	ret = buf_error(out);
out:
	buf_release(&rows);
	buf_release(&label);
	buf_release(&sub);
	buf_release(&title);
	return ret;
}
