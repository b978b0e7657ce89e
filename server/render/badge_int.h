/* badge_int.h: what the badge's two files share, badge_svg.c (the widths
 * text is laid out by, and the SVG) and badge_msg.c (the message); nothing
 * else includes it. */
#ifndef LLMS_BADGE_INT_H
#define LLMS_BADGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "render/badge_svg.h"

/* The advance of code point cp in Verdana 11 px, in hundredths of a px
 * (the table badge_text_width describes). */
unsigned badge_cp_cents(uint32_t cp);

/* The advance of the UTF-8 s[0..n) (malformed bytes as U+FFFD), and of the
 * string s (NULL: 0), in hundredths of a px. */
unsigned long badge_cents(const char *s, size_t n);
unsigned long badge_cents_of(const char *s);

/* The px a text cents wide takes in its box, as badge-maker lays it out:
 * cut to a whole px, raised to an odd one, BADGE_HPAD on each side. */
long badge_box_px(unsigned long cents);

#endif
