/* card_svg.h: the link-preview card, a 1200 × 630 SVG (pure rendering)
 * that render/raster.c turns into the PNG an og:image names.
 *
 * No I/O and no database: the caller (pages/page_card.c) looks the run up,
 * fills a struct card_run and rasterizes what card_render_run() appended.
 * The same drawer takes a page's top rows (struct card_page) for the
 * model, hardware and model-on-hardware pages.
 *
 *   struct card_run in = { 112.2, 1520.4, 212.0, "Qwen3-Coder-30B-A3B",
 *                          "Apple M3 Ultra", "llama.cpp", "b4567",
 *                          CARD_MARK_NONE, 0 };
 *   struct buf svg = BUF_INIT;
 *   if (card_render_run(&in, &svg)) goto out;
 *   ...
 *   buf_release(&svg);
 */
#ifndef LLMS_CARD_SVG_H
#define LLMS_CARD_SVG_H

#include <stddef.h>

#include "util/buf.h"

#define CARD_WIDTH 1200      /* px: the size link previews ask for */
#define CARD_HEIGHT 630
#define CARD_MARGIN 60       /* px left clear on the left and the right */
#define CARD_ROWS_MAX 5      /* rows a page's card shows at most */

/* What the card says about a run besides its figures. */
enum card_mark {
	CARD_MARK_NONE = 0,
	CARD_MARK_OUTLIER,       /* flagged: the figure is shown, marked */
	CARD_MARK_UPHELD,        /* a dispute was upheld: no figures */
	CARD_MARK_WITHDRAWN,     /* its submitter withdrew it: no figures */
	CARD_MARK__MAX
};

/* A run's card.  Strings are any bytes (cleaned and cut here); NULL or ""
 * omits one. */
struct card_run {
	double decode_tok_s;     /* chat-short decode tok/s: the headline */
	double prefill_tok_s;    /* chat-short prefill tok/s; NAN: not measured */
	double ttft_ms;          /* chat-short time to first token; NAN: none */
	const char *model;       /* as uploaded */
	const char *hardware;    /* the accelerator summary, as uploaded */
	const char *backend, *backend_version;
	enum card_mark mark;
	int demo;                /* 1: made by --demo; the card says "demo" */
};

/* One row of a page's card: a name and its figure. */
struct card_row {
	const char *name;        /* any bytes */
	double value;            /* in the page's unit; a bar shows it against
	                          * the largest row's */
	int hw;                  /* 1: name is hardware (shortened as such) */
};

/* A page's card: what the page is, its name, a line under it and its top
 * rows.  kind, heading and unit are the caller's words; title and
 * subtitle may hold user text.  Any may be NULL. */
struct card_page {
	const char *kind;        /* "model", "hardware", "model on hardware" */
	const char *title;       /* the page's name */
	const char *subtitle;    /* e.g. "12 runs on 4 machines" */
	const char *heading;     /* over the names: "Fastest hardware" */
	const char *unit;        /* over the figures: "decode tok/s" */
	struct card_row rows[CARD_ROWS_MAX];
	size_t nrows;            /* at most CARD_ROWS_MAX are drawn */
	int demo;
};

/* Appends the run's card to out: the site's name on a band at the top
 * (with "demo" and the mark's word, "⚑ outlier", "disputed: upheld" or
 * "withdrawn", in the page's colours for them), the model (the largest of
 * four sizes it fits at whole, else cut after a word), the hardware, then
 * the decode figure as the headline with its prefill and time to first
 * token under it (an upheld or withdrawn run shows why it has none), and
 * the backend and its version at the foot.  Colours are static/style.css's
 * light theme, every text at 4.5:1 or more on what is under it
 * (card_inks()).  Every name is cleaned and cut by badge_fit_name (so no
 * bidirectional control reaches the card), drawn as its own text inside
 * U+2068 ... U+2069, and escaped by html_txt; role="img" with aria-label
 * and <title> saying the same in one line.  Returns 0, or -1 if in is
 * invalid or out is in error (out may then hold part of a card). */
int card_render_run(const struct card_run *in, struct buf *out);

/* Appends a page's card: the band with in->kind, the title and subtitle,
 * then up to CARD_ROWS_MAX rows, each a name (cut to leave room for its
 * figure), its figure (numfmt_fig) at the right and a bar behind it, the
 * largest row's the full width; "No runs yet." without rows.  Escaping,
 * colours and accessible name as card_render_run.  Returns 0 or -1. */
int card_render_page(const struct card_page *in, struct buf *out);

/* The word the card shows for m ("⚑ outlier", "disputed: upheld",
 * "withdrawn"; static), or NULL for CARD_MARK_NONE and invalid marks. */
const char *card_mark_word(enum card_mark m);

/* A text colour and the colour under it, as the card draws them. */
struct card_ink {
	const char *fg, *bg;     /* "#rrggbb" */
	const char *what;        /* where the pair is used */
};

/* Every pair of text and background colours the card uses (a static
 * table of *n entries), for the contrast test: the drawer takes its text
 * colours only from it. */
const struct card_ink *card_inks(size_t *n);

#endif
