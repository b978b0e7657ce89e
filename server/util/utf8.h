/* utf8.h: the one UTF-8 reader, and the classes of code points that user
 * text is checked against.  Well-formed means RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF, nothing cut off. */
#ifndef LLMS_UTF8_H
#define LLMS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the code point at s[0..n), n >= 1, into *cp and returns its
 * length in bytes (1..4); 0 when the bytes there are not a well-formed
 * sequence, with *cp set to U+FFFD (callers that go on step one byte). */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

/* As utf8_seq, for readers that go on past bad bytes: a malformed byte
 * decodes as U+FFFD of length 1, so the result is always 1..4. */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* The number of code points of s[0..n), or -1 when it is not well-formed
 * UTF-8 or holds a NUL. */
long utf8_count(const unsigned char *s, size_t n);

/* The number of code points of the well-formed NUL-terminated s (its
 * bytes that are not continuation bytes); 0 for NULL. */
size_t utf8_len(const char *s);

/* Classes of one code point. */

/* 1 for the 66 noncharacters: U+FDD0..U+FDEF and the last two code points
 * of every plane, U+FFFE, U+FFFF, U+1FFFE, ..., U+10FFFF. */
int utf8_is_noncharacter(uint32_t cp);

/* 1 for the control characters: C0 (U+0000..U+001F), DEL and C1
 * (U+0080..U+009F). */
int utf8_is_control(uint32_t cp);

/* 1 for Unicode's White_Space characters (space, tab, line breaks, no-break
 * and ideographic spaces, U+2000..U+200A, ...). */
int utf8_is_space(uint32_t cp);

/* 1 for what draws nothing: Unicode's default-ignorable code points (the
 * soft hyphen, zero-width characters, bidirectional controls, variation
 * selectors, the byte order mark, Hangul fillers, tags) and the blank
 * braille pattern U+2800. */
int utf8_is_invisible(uint32_t cp);

/* 1 for a character XML 1.0 allows (its Char production): tab, LF, CR,
 * U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. */
int utf8_is_xml_char(uint32_t cp);

/* Checks user text s[0..n) (a name, a post, a reason) for what no output
 * format can carry: bytes that are not well-formed UTF-8, NUL,
 * noncharacters, and control characters, except tab and LF when lines is
 * 1 (text of several lines).  Returns the byte offset of the first such
 * code point, with it in *cp (U+FFFD for a malformed byte), or -1 when
 * there is none. */
long utf8_text_bad(const unsigned char *s, size_t n, int lines, uint32_t *cp);

/* Finds in the well-formed s[0..n) what text of one line shown inside a
 * page's own bidirectional isolate must not hold: U+2028 LINE SEPARATOR
 * and U+2029 PARAGRAPH SEPARATOR (a line break by another name), a
 * U+2069 POP DIRECTIONAL ISOLATE with no isolate of its own to close (it
 * would close the page's), and an isolate initiator U+2066..U+2068 left
 * open at the end (the page's U+2069 would close it, and the page's own
 * isolate would stay open over the rest of the page).  Returns the byte
 * offset of the first such code point (of the initiator, for one left
 * open), with it in *cp, or -1 when there is none. */
long utf8_line_unsafe(const unsigned char *s, size_t n, uint32_t *cp);

/* 1 when s[0..n) (well-formed) holds at least one code point that is
 * neither white space, invisible nor a control: text a reader can see. */
int utf8_has_visible(const unsigned char *s, size_t n);

/* Writes "U+XXXX" (at least four hex digits) for cp into out. */
void utf8_cp_name(uint32_t cp, char out[12]);
/* The length in bytes of the first max code points of s[0..n) (n when it
 * holds no more), stepping as utf8_next() does. */
size_t utf8_prefix(const char *s, size_t n, size_t max);

/* The length of the longest start of the well-formed s[0..n) that is at
 * most max bytes and ends between two code points (n when n <= max). */
size_t utf8_cut(const char *s, size_t n, size_t max);

#endif
