/* tmpl.h: Mustache templates, compiled once at start and rendered many times.
 *
 * The language is Mustache (spec v1.4: interpolation, sections, inverted
 * sections, partials, comments, set delimiters; no lambdas, no inheritance).
 * Output is HTML-escaped by default: {{name}} goes through html_txt().  Raw
 * output needs an explicit marker, {{{name}}} or {{& name}}, and is for
 * markup the server built itself (for example an SVG from an escaping
 * generator), never for user data.
 *
 * Values print as: strings as they are, integers in decimal, reals in the
 * shortest form that reads back as the same double (1.21 -> "1.21"; a
 * figure for people goes through numfmt into a string first), true
 * and false as "true" and "false", null, missing names, objects and arrays
 * as nothing.  A section is skipped for a missing name, null, false, 0, 0.0,
 * "" and []; it repeats once per element of a non-empty array and is
 * rendered once, with the value pushed on the context stack, for anything
 * else (objects included, even {}).
 *
 * One addition to Mustache: {{@name}} writes a timestamp string as
 * <time datetime="...">30 Nov 2026</time> (numfmt_date), the one way the
 * site shows a date; a string that is not a timestamp is shown escaped.
 *
 * A compiled template is immutable: any number of threads may render the
 * same template, or the same set, at once.  Rendering allocates nothing but
 * the output buffer's growth and keeps its state on the caller's stack.
 *
 *   struct err err = ERR_INIT;
 *   struct tmpl_set *set = tmpl_set_load("templates", &err);
 *   if (!set) die("%s", err.message);
 *   ...
 *   if (tmpl_set_render(set, "run", view, &out) < 0) ... 500 ...
 */
#ifndef LLMS_TMPL_H
#define LLMS_TMPL_H

#include <stddef.h>
#include <jansson.h>

#include "util/buf.h"
#include "util/err.h"

/* Partials may nest this deep (a self-including partial stops here). */
#define TMPL_MAX_PARTIAL_DEPTH 32
/* Sections may nest this deep inside one template (checked at compile). */
#define TMPL_MAX_NESTING 64
/* Open sections plus partials while rendering; bounds the context stack
 * (the root plus one per open section) and the C stack. */
#define TMPL_MAX_DEPTH 256

struct tmpl;       /* one compiled template */
struct tmpl_set;   /* named templates, each also usable as a partial */

/* Why a compile or load failed, in the one error carrier (util/err.h):
 * status 500, code TMPL_ERR_CODE, the message, and as the field the
 * 1-based line at fault ("3"; tmpl_compile) or the file and line
 * ("run.html:3"; tmpl_set_load, the file alone when not about a line). */
#define TMPL_ERR_CODE "bad_template"

/* Compiles src[0..len).  Returns the template, which the caller frees with
 * tmpl_free(), or NULL with err filled in (when err is not NULL) on a
 * syntax error: an unclosed tag or section, a close tag that does not match
 * the open section, a bad name or set-delimiter tag, nesting past
 * TMPL_MAX_NESTING, or an allocation failure. */
struct tmpl *tmpl_compile(const char *src, size_t len, struct err *err);

/* Frees t; NULL is ignored. */
void tmpl_free(struct tmpl *t);

/* 1 when t holds a section {{#name}} (a dotted name, "nav.models"), else 0. */
int tmpl_has_section(const struct tmpl *t, const char *name);

/* Finds the partial called name, or returns NULL (the partial then renders
 * as nothing).  Called from the rendering thread; must not block. */
typedef const struct tmpl *(*tmpl_partial_fn)(void *ud, const char *name);

/* Renders t with the context ctx (any JSON value; NULL acts as an empty
 * stack) and appends the result to out.  partials may be NULL when t uses
 * none.  Returns 0, or -1 when out is (or goes) into error or when a limit
 * was hit (partials nested past TMPL_MAX_PARTIAL_DEPTH, sections and
 * partials past TMPL_MAX_DEPTH); after -1, out holds partial output to
 * be discarded. */
int tmpl_render(const struct tmpl *t, const json_t *ctx,
		tmpl_partial_fn partials, void *ud, struct buf *out);

/* Compiles every regular file "<name>.html" in dir (dot files skipped) as
 * the template <name>: run.html is "run", _header.html is "_header".
 * Returns the set, which the caller frees with tmpl_set_free(), or NULL
 * with err naming the file and the error ("run.html:3: unclosed section
 * 'x'", err->field "run.html:3") when a file cannot be read or compiled. */
struct tmpl_set *tmpl_set_load(const char *dir, struct err *err);

/* Returns the template called name, or NULL.  The set keeps ownership. */
const struct tmpl *tmpl_set_get(const struct tmpl_set *s, const char *name);

/* Renders the template called name with ctx into out, resolving partials
 * by name within s.  Returns 0, or -1 when name is unknown or as
 * tmpl_render(). */
int tmpl_set_render(const struct tmpl_set *s, const char *name,
		    const json_t *ctx, struct buf *out);

/* Frees s and every template in it; NULL is ignored. */
void tmpl_set_free(struct tmpl_set *s);

#endif
