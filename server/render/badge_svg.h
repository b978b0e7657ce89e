/* badge_svg.h: the run badge, a shields.io-style flat SVG (pure rendering).
 *
 * No I/O and no database: the caller (badge.c) looks the run up, fills a
 * struct badge_in and sends what badge_render_svg() appended, with the
 * caching headers schema/API.md and schema/openapi.json describe.
 *
 *   struct badge_in in = { BADGE_OK, 112.2, "Qwen3-Coder-30B-A3B-Instruct",
 *                          "M3 Ultra" };
 *   struct buf svg = BUF_INIT;
 *   if (badge_render_svg(&in, &svg, NULL)) goto out;
 *   ...
 *   buf_release(&svg);
 */
#ifndef LLMS_BADGE_SVG_H
#define LLMS_BADGE_SVG_H

#include "util/buf.h"

/* What the badge says about the run. */
enum badge_state {
	BADGE_OK = 0,        /* green: the figure, model and hardware */
	BADGE_OUTLIER = 1,   /* orange: the same, the figure flagged */
	BADGE_UPHELD = 2,    /* red: a dispute was upheld; no figure */
	BADGE_NOT_FOUND = 3, /* grey: "run not found" */
	BADGE_WITHDRAWN = 4, /* grey: its submitter withdrew it; no figure */
	BADGE_UNCONFIRMED = 5, /* grey: the figure, its combination not confirmed */
	BADGE_DISPUTED = 6,  /* amber: the figure, under an open dispute */
	BADGE_CAPPED = 7,    /* grey: stored beyond its network's cap; no figure */
	BADGE__MAX
};

/* What decides a run's badge state. */
struct badge_facts {
	int withdrawn, capped, upheld;   /* no figure, in this order */
	int disputed;                    /* an open dispute: amber */
	int flagged;                     /* an outlier: orange */
	int confirmed;                   /* its combination is confirmed: else grey */
};

/* The state f gives: withdrawn, capped, upheld, disputed, outlier,
 * unconfirmed, the first that holds; else BADGE_OK (green), which only a
 * confirmed, undisputed, unflagged run gets.  The badge and the run
 * page's embed text both take it from here. */
enum badge_state badge_state_of(const struct badge_facts *f);

struct badge_in {
	enum badge_state state;
	double decode_tok_s;   /* chat-short decode tok/s */
	const char *model;     /* as uploaded; any bytes; NULL or "" omits it */
	const char *hardware;  /* accelerator summary; NULL or "" omits it */
	int demo;              /* 1: made by --demo; the label says "demo" */
};

#define BADGE_LABEL "llm-speed"   /* the grey left half */
#define BADGE_LABEL_DEMO "demo"   /* ... of a demo run's badge, in its place */
/* ... of a run whose combination is not confirmed (the message keeps its
 * whole width for the figure and the names). */
#define BADGE_LABEL_UNCONFIRMED "unconfirmed"

/* The grey left half's text for in: BADGE_LABEL_DEMO for a demo run,
 * BADGE_LABEL_UNCONFIRMED for one not yet confirmed. */
const char *badge_label(const struct badge_in *in);

#define BADGE_HPAD 5              /* px of box on each side of its text */
#define BADGE_HEIGHT 20
#define BADGE_MAX_WIDTH 340       /* px of the whole badge at most: about 330 */

/* Appends the badge's message (the right half's text) to out, always as
 * well-formed UTF-8 with no character XML forbids:
 *
 *   OK         "112.2 tok/s · Qwen3-Coder-30B-A3B · M3 Ultra"
 *   OUTLIER    "⚑ 112.2 tok/s · Qwen3-Coder-30B… · M3 Ultra" (cut to fit)
 *   UPHELD     "disputed: upheld · Qwen3-Coder-30B-A3B · M3 Ultra"
 *   NOT_FOUND  "run not found"
 *   WITHDRAWN  "withdrawn · Qwen3-Coder-30B-A3B · M3 Ultra"
 *   UNCONFIRMED "112.2 tok/s · Qwen3-Coder-30B-A3B · M3 Ultra", labelled "unconfirmed"
 *   DISPUTED   "disputed: 112.2 tok/s · Qwen3-Coder-30B-A3B · M3 Ultra"
 *   CAPPED     "not counted · Qwen3-Coder-30B-A3B · M3 Ultra"
 *
 * The figure has two significant digits below 1 ("0.42"), one decimal below
 * 1000 ("112.2") and none from 1000, with thousands commas ("1,235"); a
 * negative or non-finite figure shows "?".
 *
 * A demo run's badge says "demo" in its label instead.
 *
 * The model loses an "org/" prefix and trailing variant or quantization
 * tokens ("-Instruct", "-Chat", "-it", "-hf", "-Q4_K_M", ".gguf", "-4bit",
 * "-FP8", ...); the hardware loses leading vendor and brand words
 * ("NVIDIA GeForce RTX 4090" is "RTX 4090").  Then both are shortened, at
 * word boundaries, until the whole badge is at most BADGE_MAX_WIDTH px
 * wide as badge_render_svg() lays it out: first the hardware's part in
 * parentheses goes ("Ryzen AI Max+ 395 (Radeon 8060S)" is "Ryzen AI Max+
 * 395"), then the model loses words from its end ("Meta-Llama-3.1…"),
 * and only when its first word would not fit either does the hardware
 * lose the words before its model number ("Max+ 395", then "395"); a name
 * that is cut ends in "…", and the words that tell one GPU from another
 * are the last to go.
 * Malformed UTF-8, control characters, U+FFFE and U+FFFF become U+FFFD.
 *
 * The text is not escaped: it goes through html_txt or html_attr on its way
 * into markup.  Returns 0, or -1 if in is invalid or out is in error. */
int badge_message(const struct badge_in *in, struct buf *out);

/* Appends name to out cleaned as the badge's message cleans its names
 * (malformed UTF-8, control characters, U+FFFE and U+FFFF as U+FFFD;
 * invisible format characters, the bidirectional controls among them,
 * left out; leading spaces and trailing separators trimmed) and, when it
 * is wider than room (hundredths of a px of Verdana 11 px, as
 * badge_text_width measures), shortened the way the badge shortens a name
 * of its kind: a model after its last word that fits, else at a code
 * point; hardware (hw set) first to its short form (textcut_hw), then
 * without its part in parentheses, then from the word before its model
 * number, then cut.  A cut name ends in "…", counted in room.  For other
 * drawings in the badge's font metrics (the link-preview card,
 * render/card_svg.c).  The text is not escaped.  Returns 0 when name came
 * out whole, 1 when it was shortened, -1 when out is in error. */
int badge_fit_name(struct buf *out, const char *name, int hw, unsigned long room);

/* The advance width in px of utf8 in Verdana 11px, summed per code point
 * from anafanafo's Verdana table (the one shields.io measures with).
 * Characters outside the table: 0 for combining and zero-width ones, 11
 * (one em) for East Asian wide ones and emoji, 6.99 otherwise.  Malformed
 * bytes count as U+FFFD.  NULL measures 0. */
double badge_text_width(const char *utf8);

/* Appends the whole flat badge to out: "llm-speed" on #555, the message on
 * the state's color, both in 11 px Verdana, each box its text's width cut
 * to a whole px and raised to an odd one, plus BADGE_HPAD on each side, as
 * shields' badge-maker lays them out (so the same texts make the same
 * widths), text stretched to that width with textLength; role="img" with aria-label and <title> "llm-speed: <message>".
 * Every piece of text goes through html_txt or html_attr.  If color_out is
 * not NULL it receives the message color as a shields color name
 * ("brightgreen", "orange", "red", "lightgrey"; a static string).
 * Returns 0, or -1 if in is invalid or out is in error. */
int badge_render_svg(const struct badge_in *in, struct buf *out,
		     const char **color_out);

/* The message color of state as a shields color name, the one
 * badge_render_svg() reports (a static string); NULL for an invalid state.
 * For the shields.io endpoint JSON, which draws the badge itself. */
const char *badge_color(enum badge_state state);

#endif
