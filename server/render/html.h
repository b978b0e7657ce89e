/* html.h: one escaper per output context.  Every byte of user data that
 * reaches HTML or SVG goes through one of these.  JSON goes through jansson,
 * SQL through bound parameters. */
#ifndef LLMS_HTML_H
#define LLMS_HTML_H

#include "util/buf.h"

/* Text content of an HTML or XML (SVG, Atom) element.  Escapes & < > " '
 * and replaces every character outside XML 1.0's Char production (C0
 * controls other than tab, LF and CR; U+FFFE and U+FFFF) and every byte
 * that is not well-formed UTF-8 with U+FFFD, so the output is well-formed
 * in both languages whatever the text holds: the one place every XML
 * writer (feeds, badges, charts) gets this from.
 * Text holding a bidirectional formatting character (U+202E and its kin)
 * is wrapped in U+2068 ... U+2069, a Unicode isolate, so it cannot reorder
 * the text around it; an unmatched U+2069 of its own is dropped, and an
 * isolate of its own left open is closed.  The
 * attribute escaper does the same. */
void html_txt(struct buf *b, const char *s);
void html_txt_n(struct buf *b, const char *s, size_t n);

/* A double- or single-quoted attribute value in HTML or XML.  Escapes as
 * html_txt and also tab, LF and CR, which attribute normalisation would
 * otherwise turn into spaces. */
void html_attr(struct buf *b, const char *s);

/* One URL path segment or query argument: every byte outside the RFC 3986
 * unreserved set [A-Za-z0-9-._~] is percent-encoded.  The result is safe in
 * an attribute too. */
void html_url_arg(struct buf *b, const char *s);


/* Plain text with its line breaks kept: html_txt, then each LF as <br>. */
void html_txt_lines(struct buf *b, const char *s);

#endif
