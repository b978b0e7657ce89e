/* tmpl.c: the Mustache template engine: compile once to a node list, render many times.
 * One cohesive thing (parser, compiler and renderer of one language share
 * its node types), so it is one file past the usual 600 lines. */
#include "render/tmpl.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render/html.h"
#include "util/numfmt.h"

/* Longest delimiter a set-delimiter tag may choose. */
#define DELIM_MAX 16

enum op {
	OP_TEXT,      /* literal bytes of the source */
	OP_INDENT,    /* a template line starts: the partial indentation, if any */
	OP_VAR,       /* {{name}}: escaped */
	OP_RAW,       /* {{{name}}} and {{&name}}: not escaped */
	OP_TIME,      /* {{@name}}: a timestamp as <time datetime> */
	OP_SECTION,   /* {{#name}}: body is the nodes up to end */
	OP_INVERTED,  /* {{^name}}: body is the nodes up to end */
	OP_PARTIAL    /* {{>name}} */
};

struct node {
	enum op op;
	size_t off, len;  /* OP_TEXT: the bytes t->src[off, off + len) */
	size_t end;       /* sections: index of the first node after the body */
	char *name;       /* names: segments "a\0b\0c"; OP_PARTIAL: the partial */
	int nseg;         /* segments in name; 0 for the implicit iterator "." */
	char *indent;     /* OP_PARTIAL: NULL inline; standalone, the whitespace
			   * before the tag, prepended to each partial line */
};

/* A compiled template owns a copy of its source and the nodes that point
 * into it.  Sections are not subtrees: a section node's body is the run of
 * nodes after it, up to its end index. */
struct tmpl {
	char *src;
	size_t len;
	struct node *nodes;
	size_t n, cap;
};

/* 1 when the segments "a\0b\0c" (nseg of them) spell the dotted name. */
static int name_is(const char *seg, int nseg, const char *dotted)
{
	size_t n;

	while (nseg-- > 0) {
		n = strlen(seg);
		if (strncmp(seg, dotted, n) || (dotted[n] != (nseg ? '.' : '\0')))
			return 0;
		dotted += n + (nseg ? 1 : 0);
		seg += n + 1;
	}
	return 1;
}

int tmpl_has_section(const struct tmpl *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->nodes[i].op == OP_SECTION && t->nodes[i].nseg > 0 &&
		    name_is(t->nodes[i].name, t->nodes[i].nseg, name))
			return 1;
	return 0;
}

/* ---- compiling -------------------------------------------------------- */

struct open_section {
	size_t node;        /* index of its OP_SECTION or OP_INVERTED node */
	size_t at;          /* where its tag starts, for errors */
	const char *name;   /* its raw name in the source */
	size_t nlen;
};

struct parser {
	struct tmpl *t;
	const char *src;
	size_t len;
	size_t pos;         /* first byte not yet compiled */
	int bol;            /* at a line start, nothing emitted for the line yet */
	char open[DELIM_MAX], close[DELIM_MAX];
	size_t olen, clen;
	struct open_section sec[TMPL_MAX_NESTING];
	int nsec;
	struct err *err;
};

/* One tag: its kind is the sigil after the open delimiter ('#', '^', '/',
 * '>', '!', '&', '{', '=') or 0 for a variable; body is the content with
 * the sigil and surrounding whitespace removed. */
struct tag {
	char kind;
	size_t start, end;  /* the whole tag, delimiters included */
	const char *body;
	size_t blen;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\f' || c == '\v';
}

/* Returns the 1-based line of byte at in s. */
static int line_at(const char *s, size_t at)
{
	const char *p = s, *end = s + at;
	int line = 1;

	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		line++;
		p++;
	}
	return line;
}

/* Fills the error with the line of byte at and the formatted message;
 * always returns -1. */
static int fail(struct parser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, size_t at, const char *fmt, ...)
{
	char line[24];
	va_list ap;

	snprintf(line, sizeof line, "%d", line_at(p->src, at));
	va_start(ap, fmt);
	err_vset(p->err, 500, TMPL_ERR_CODE, line, fmt, ap);
	va_end(ap);
	return -1;
}

/* Appends a zeroed node of kind op; returns it, or NULL (error set) when
 * out of memory.  The pointer is good until the next add_node(). */
static struct node *add_node(struct parser *p, enum op op, size_t at)
{
	struct tmpl *t = p->t;
	struct node *n;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		n = realloc(t->nodes, cap * sizeof *n);
		if (!n) {
			fail(p, at, "out of memory");
			return NULL;
		}
		t->nodes = n;
		t->cap = cap;
	}
	n = &t->nodes[t->n++];
	memset(n, 0, sizeof *n);
	n->op = op;
	return n;
}

/* Emits the source bytes [a, b) as text, preceded by an indent marker when
 * they start a line.  Returns 0 or -1. */
static int emit_text(struct parser *p, size_t a, size_t b)
{
	struct node *n;

	if (a == b)
		return 0;
	if (p->bol && !add_node(p, OP_INDENT, a))
		return -1;
	if (!(n = add_node(p, OP_TEXT, a)))
		return -1;
	n->off = a;
	n->len = b - a;
	p->bol = p->src[b - 1] == '\n';
	return 0;
}

/* Reads the tag whose open delimiter starts at byte at.  Returns 0, or -1
 * when it never closes or uses template inheritance. */
static int read_tag(struct parser *p, size_t at, struct tag *tg)
{
	const char *s = p->src, *end;
	char closer[DELIM_MAX + 1];
	size_t b = at + p->olen, e, clen = 0;

	tg->start = at;
	tg->kind = b < p->len && s[b] && strchr("#^/>!&{=<$@", s[b]) ? s[b] : 0;
	if (tg->kind == '<' || tg->kind == '$')
		return fail(p, at, "template inheritance is not supported");
	if (tg->kind)
		b++;
	if (tg->kind == '{' || tg->kind == '=')
		closer[clen++] = tg->kind == '{' ? '}' : '=';
	memcpy(closer + clen, p->close, p->clen);
	clen += p->clen;
	end = memmem(s + b, p->len - b, closer, clen);
	if (!end)
		return fail(p, at, "unclosed tag");
	e = (size_t)(end - s);
	tg->end = e + clen;
	while (b < e && is_ws(s[b]))
		b++;
	while (e > b && is_ws(s[e - 1]))
		e--;
	tg->body = s + b;
	tg->blen = e - b;
	return 0;
}

/* Says whether tg stands alone on its line (only spaces and tabs around
 * it) and may vanish with the line; if so sets *ls to the line start and
 * *next past the line end.  Variables never stand alone. */
static int standalone(const struct parser *p, const struct tag *tg,
		      size_t *ls, size_t *next)
{
	const char *s = p->src;
	size_t i = tg->start, j = tg->end;

	if (!tg->kind || tg->kind == '&' || tg->kind == '{' || tg->kind == '@')
		return 0;
	while (i > p->pos && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	if (i > 0 && s[i - 1] != '\n')
		return 0;
	while (j < p->len && (s[j] == ' ' || s[j] == '\t'))
		j++;
	if (j + 1 < p->len && s[j] == '\r' && s[j + 1] == '\n')
		j += 2;
	else if (j < p->len && s[j] == '\n')
		j++;
	else if (j != p->len)
		return 0;
	*ls = i;
	*next = j;
	return 1;
}

/* Checks that tg's body is a single word.  Returns 0 or -1. */
static int check_word(struct parser *p, const struct tag *tg)
{
	size_t i;

	if (!tg->blen)
		return fail(p, tg->start, "empty tag");
	for (i = 0; i < tg->blen; i++)
		if (is_ws(tg->body[i]) || !tg->body[i])   /* a NUL would cut the name short */
			return fail(p, tg->start, "bad name '%.*s'",
				    (int)(tg->blen > 64 ? 64 : tg->blen), tg->body);
	return 0;
}

/* Gives n the name in tg's body, split at its dots ("." alone is the
 * implicit iterator).  Returns 0 or -1. */
static int set_name(struct parser *p, const struct tag *tg, struct node *n)
{
	size_t i;

	if (check_word(p, tg) < 0)
		return -1;
	if (!(n->name = strndup(tg->body, tg->blen)))
		return fail(p, tg->start, "out of memory");
	if (tg->blen == 1 && tg->body[0] == '.')
		return 0;
	n->nseg = 1;
	for (i = 0; i < tg->blen; i++) {
		if (n->name[i] != '.')
			continue;
		n->name[i] = '\0';
		n->nseg++;
	}
	for (i = 0; i < tg->blen; i++)
		if (!n->name[i] && (i == 0 || !n->name[i - 1] ||
				    i + 1 == tg->blen))
			return fail(p, tg->start, "bad name '%.*s'",
				    (int)(tg->blen > 64 ? 64 : tg->blen), tg->body);
	return 0;
}

/* Compiles {{name}}, {{{name}}}, {{&name}} or {{@name}}.  Returns 0 or -1. */
static int add_var(struct parser *p, const struct tag *tg)
{
	struct node *n = add_node(p, tg->kind == '@' ? OP_TIME : tg->kind ? OP_RAW : OP_VAR,
				  tg->start);

	return n ? set_name(p, tg, n) : -1;
}

/* Compiles {{#name}} or {{^name}} and opens its section.  Returns 0 or -1. */
static int open_section(struct parser *p, const struct tag *tg)
{
	struct node *n;
	struct open_section *o;

	if (p->nsec == TMPL_MAX_NESTING)
		return fail(p, tg->start, "sections nested deeper than %d",
			    TMPL_MAX_NESTING);
	n = add_node(p, tg->kind == '#' ? OP_SECTION : OP_INVERTED, tg->start);
	if (!n || set_name(p, tg, n) < 0)
		return -1;
	o = &p->sec[p->nsec++];
	o->node = p->t->n - 1;
	o->at = tg->start;
	o->name = tg->body;
	o->nlen = tg->blen;
	return 0;
}

/* Compiles {{/name}}, which must close the innermost open section.
 * Returns 0 or -1. */
static int close_section(struct parser *p, const struct tag *tg)
{
	struct open_section *o;
	int len = (int)(tg->blen > 64 ? 64 : tg->blen);

	if (!p->nsec)
		return fail(p, tg->start, "close tag '/%.*s' without a section",
			    len, tg->body);
	o = &p->sec[p->nsec - 1];
	if (o->nlen != tg->blen || memcmp(o->name, tg->body, tg->blen))
		return fail(p, tg->start,
			    "close tag '/%.*s' does not match section '%.*s' "
			    "of line %d", len, tg->body,
			    (int)(o->nlen > 64 ? 64 : o->nlen), o->name,
			    line_at(p->src, o->at));
	p->t->nodes[o->node].end = p->t->n;
	p->nsec--;
	return 0;
}

/* Compiles {{>name}}; a standalone one (ls is its line start) keeps the
 * whitespace before it as indentation.  Returns 0 or -1. */
static int add_partial(struct parser *p, const struct tag *tg, int alone,
		       size_t ls)
{
	struct node *n;

	if (check_word(p, tg) < 0 ||
	    !(n = add_node(p, OP_PARTIAL, tg->start)))
		return -1;
	n->name = strndup(tg->body, tg->blen);
	if (alone)
		n->indent = strndup(p->src + ls, tg->start - ls);
	if (!n->name || (alone && !n->indent))
		return fail(p, tg->start, "out of memory");
	return 0;
}

/* Compiles {{=<% %>=}}: two words, neither holding '=', become the open
 * and close delimiters for the rest of this template.  Returns 0 or -1. */
static int set_delims(struct parser *p, const struct tag *tg)
{
	const char *s = tg->body, *e = s + tg->blen, *a, *b;
	size_t alen, blen;

	for (a = s; s < e && !is_ws(*s); s++)
		;
	alen = (size_t)(s - a);
	while (s < e && is_ws(*s))
		s++;
	for (b = s; s < e && !is_ws(*s); s++)
		;
	blen = (size_t)(s - b);
	if (s != e || !alen || !blen || alen > DELIM_MAX || blen > DELIM_MAX ||
	    memchr(a, '=', alen) || memchr(b, '=', blen))
		return fail(p, tg->start, "bad set-delimiter tag");
	memcpy(p->open, a, alen);
	p->olen = alen;
	memcpy(p->close, b, blen);
	p->clen = blen;
	return 0;
}

/* Compiles one tag, first emitting the text before it; a standalone tag
 * takes its whole line with it.  Returns 0 or -1. */
static int compile_tag(struct parser *p, const struct tag *tg)
{
	size_t ls = tg->start, next = tg->end;
	int alone = standalone(p, tg, &ls, &next);

	if (emit_text(p, p->pos, ls) < 0)
		return -1;
	if (!alone && p->bol && !add_node(p, OP_INDENT, tg->start))
		return -1;
	p->bol = alone;
	p->pos = next;
	switch (tg->kind) {
	case '!': return 0;
	case '=': return set_delims(p, tg);
	case '#': case '^': return open_section(p, tg);
	case '/': return close_section(p, tg);
	case '>': return add_partial(p, tg, alone, ls);
	default: return add_var(p, tg);
	}
}

/* Compiles all of p's source into p->t.  Returns 0 or -1. */
static int parse(struct parser *p)
{
	const char *at;
	struct tag tg;

	while ((at = memmem(p->src + p->pos, p->len - p->pos,
			    p->open, p->olen))) {
		if (read_tag(p, (size_t)(at - p->src), &tg) < 0 ||
		    compile_tag(p, &tg) < 0)
			return -1;
	}
	if (emit_text(p, p->pos, p->len) < 0)
		return -1;
	if (p->nsec) {
		struct open_section *o = &p->sec[p->nsec - 1];
		return fail(p, o->at, "unclosed section '%.*s'",
			    (int)(o->nlen > 64 ? 64 : o->nlen), o->name);
	}
	return 0;
}

struct tmpl *tmpl_compile(const char *src, size_t len, struct err *err)
{
	struct err dummy = ERR_INIT;
	struct tmpl *t = NULL, *ret = NULL;
	struct parser p;

	if (!err)
		err = &dummy;
	*err = (struct err)ERR_INIT;
	if (!(t = calloc(1, sizeof *t)) || !(t->src = malloc(len + 1))) {
		err_set(err, 500, TMPL_ERR_CODE, NULL, "out of memory");
		goto out;
	}
	if (len)
		memcpy(t->src, src, len);
	t->src[len] = '\0';
	t->len = len;
	memset(&p, 0, sizeof p);
	p.t = t;
	p.src = t->src;
	p.len = len;
	p.bol = 1;
	memcpy(p.open, "{{", 2);
	memcpy(p.close, "}}", 2);
	p.olen = p.clen = 2;
	p.err = err;
	if (parse(&p) < 0)
		goto out;
	ret = t;
	t = NULL;
out:
	tmpl_free(t);
	return ret;
}

void tmpl_free(struct tmpl *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].indent);
	}
	free(t->nodes);
	free(t->src);
	free(t);
}

/* ---- rendering -------------------------------------------------------- */

/* The indentation of nested standalone partials, outermost first; lives
 * on the C stack of the rendering thread. */
struct indent {
	const char *s;
	const struct indent *outer;
};

/* Everything one render needs; on the caller's stack, so renders of the
 * same template in several threads share nothing writable. */
struct render {
	tmpl_partial_fn partials;
	void *ud;
	struct buf *out;
	int depth;    /* open sections and partials */
	int pdepth;   /* open partials */
	int nctx;
	const json_t *ctx[TMPL_MAX_DEPTH + 1];
};

static int render_nodes(struct render *r, const struct tmpl *t, size_t i,
			size_t end, const struct indent *ind);

/* Appends the indentation, outermost first. */
static void put_indent(struct buf *out, const struct indent *ind)
{
	if (!ind)
		return;
	put_indent(out, ind->outer);
	buf_puts(out, ind->s);
}

/* Appends text, indenting each line that starts inside it. */
static void put_text(struct buf *out, const char *s, size_t n,
		     const struct indent *ind)
{
	const char *nl;
	size_t k;

	while (ind && (nl = memchr(s, '\n', n)) && nl + 1 < s + n) {
		k = (size_t)(nl + 1 - s);
		buf_add(out, s, k);
		put_indent(out, ind);
		s += k;
		n -= k;
	}
	buf_add(out, s, n);
}

/* Appends d in the shortest form that reads back as d (numfmt_shortest). */
static void put_real(struct buf *out, double d)
{
	char s[NUMFMT_SHORTEST_LEN];

	if (numfmt_shortest(s, d) >= 0)
		buf_puts(out, s);
}

/* Appends a timestamp string v as <time datetime="v">, its text as
 * numfmt_date writes it; anything but a string appends nothing. */
static void put_time(struct buf *out, const json_t *v)
{
	if (!json_is_string(v))
		return;
	buf_puts(out, "<time datetime=\"");
	html_attr(out, json_string_value(v));
	buf_puts(out, "\">");
	if (numfmt_date(out, json_string_value(v), json_string_length(v)) < 0)
		html_txt_n(out, json_string_value(v), json_string_length(v));
	buf_puts(out, "</time>");
}

/* Appends the value v as text, HTML-escaped when escape is set; null,
 * missing (NULL), objects and arrays append nothing. */
static void put_value(struct buf *out, const json_t *v, int escape)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_STRING:
		if (escape)
			html_txt_n(out, json_string_value(v), json_string_length(v));
		else
			buf_add(out, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		buf_printf(out, "%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		put_real(out, json_real_value(v));
		break;
	case JSON_TRUE:
		buf_puts(out, "true");
		break;
	case JSON_FALSE:
		buf_puts(out, "false");
		break;
	default:
		break;
	}
}

/* Says whether a section over v renders: not for missing (NULL), null,
 * false, 0, 0.0, "" or []. */
static int truthy(const json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_NULL: case JSON_FALSE: return 0;
	case JSON_ARRAY: return json_array_size(v) > 0;
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_INTEGER: return json_integer_value(v) != 0;
	case JSON_REAL: return json_real_value(v) != 0.0;
	default: return 1;
	}
}

/* Resolves n's name against the context stack: "." is the top; otherwise
 * the first context, top down, that is an object with the first segment,
 * then each further segment inside the value found.  NULL on a miss. */
static const json_t *lookup(const struct render *r, const struct node *n)
{
	const json_t *v = NULL;
	const char *seg = n->name;
	int i;

	if (!n->nseg)
		return r->nctx ? r->ctx[r->nctx - 1] : NULL;
	for (i = r->nctx - 1; i >= 0 && !v; i--)
		v = json_object_get(r->ctx[i], seg);
	for (i = 1; i < n->nseg && v; i++) {
		seg += strlen(seg) + 1;
		v = json_object_get(v, seg);
	}
	return v;
}

/* Renders nodes [from, to) of t one level deeper, with v pushed on the
 * context stack unless it is NULL.  Returns 0, or -1 past TMPL_MAX_DEPTH
 * or once out is in error. */
static int descend(struct render *r, const struct tmpl *t, size_t from,
		   size_t to, const json_t *v, const struct indent *ind)
{
	int rc;

	if (r->depth >= TMPL_MAX_DEPTH || buf_error(r->out))
		return -1;
	r->depth++;
	if (v)
		r->ctx[r->nctx++] = v;
	rc = render_nodes(r, t, from, to, ind);
	if (v)
		r->nctx--;
	r->depth--;
	return rc;
}

/* Renders the section at node i once per element of a non-empty array,
 * once for any other truthy value.  Returns 0 or -1. */
static int render_section(struct render *r, const struct tmpl *t, size_t i,
			  const struct indent *ind)
{
	const struct node *n = &t->nodes[i];
	const json_t *v = lookup(r, n);
	size_t k;

	if (!truthy(v))
		return 0;
	if (!json_is_array(v))
		return descend(r, t, i + 1, n->end, v, ind);
	for (k = 0; k < json_array_size(v); k++)
		if (descend(r, t, i + 1, n->end, json_array_get(v, k), ind) < 0)
			return -1;
	return 0;
}

/* Renders the partial of node n, if there is one, with the current
 * context stack; a standalone partial adds its indentation to ind, an
 * inline one starts without.  Returns 0 or -1. */
static int render_partial(struct render *r, const struct node *n,
			  const struct indent *ind)
{
	const struct tmpl *p = r->partials ? r->partials(r->ud, n->name) : NULL;
	struct indent here = { n->indent, ind };
	const struct indent *pi = NULL;
	int rc;

	if (!p)
		return 0;
	if (r->pdepth >= TMPL_MAX_PARTIAL_DEPTH)
		return -1;
	if (n->indent)
		pi = *n->indent ? &here : ind;
	r->pdepth++;
	rc = descend(r, p, 0, p->n, NULL, pi);
	r->pdepth--;
	return rc;
}

/* Renders node i of t (with its body, for a section).  Returns 0 or -1. */
static int render_node(struct render *r, const struct tmpl *t, size_t i,
		       const struct indent *ind)
{
	const struct node *n = &t->nodes[i];

	switch (n->op) {
	case OP_TEXT:
		put_text(r->out, t->src + n->off, n->len, ind);
		return 0;
	case OP_INDENT:
		put_indent(r->out, ind);
		return 0;
	case OP_VAR: case OP_RAW:
		put_value(r->out, lookup(r, n), n->op == OP_VAR);
		return 0;
	case OP_TIME:
		put_time(r->out, lookup(r, n));
		return 0;
	case OP_SECTION:
		return render_section(r, t, i, ind);
	case OP_INVERTED:
		if (truthy(lookup(r, n)))
			return 0;
		return descend(r, t, i + 1, n->end, NULL, ind);
	case OP_PARTIAL:
		return render_partial(r, n, ind);
	}
	return 0;
}

/* Renders nodes [i, end) of t, stepping over section bodies.  Returns 0
 * or -1. */
static int render_nodes(struct render *r, const struct tmpl *t, size_t i,
			size_t end, const struct indent *ind)
{
	const struct node *n;

	while (i < end) {
		if (render_node(r, t, i, ind) < 0)
			return -1;
		n = &t->nodes[i];
		i = n->op == OP_SECTION || n->op == OP_INVERTED ? n->end : i + 1;
	}
	return 0;
}

int tmpl_render(const struct tmpl *t, const json_t *ctx,
		tmpl_partial_fn partials, void *ud, struct buf *out)
{
	struct render r;

	if (!t || !out || buf_error(out))
		return -1;
	r.partials = partials;
	r.ud = ud;
	r.out = out;
	r.depth = r.pdepth = r.nctx = 0;
	if (ctx)
		r.ctx[r.nctx++] = ctx;
	if (render_nodes(&r, t, 0, t->n, NULL) < 0)
		return -1;
	return buf_error(out);
}

/* ---- sets ------------------------------------------------------------- */

struct tmpl_entry {
	char *name;
	struct tmpl *t;
};

/* A set owns its entries, sorted by name once loaded. */
struct tmpl_set {
	struct tmpl_entry *e;
	size_t n;
};

/* qsort comparison of two entries, by name. */
static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tmpl_entry *)a)->name,
		      ((const struct tmpl_entry *)b)->name);
}

/* Fills err with a load failure: the message, and as the field the file
 * and line at fault ("run.html:3"), or only the file when line is 0. */
static void set_error(struct err *err, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_error(struct err *err, const char *file, int line, const char *fmt, ...)
{
	char at[sizeof err->field];
	va_list ap;

	if (line)
		snprintf(at, sizeof at, "%s:%d", file, line);
	else
		snprintf(at, sizeof at, "%s", file);
	va_start(ap, fmt);
	err_vset(err, 500, TMPL_ERR_CODE, at, fmt, ap);
	va_end(ap);
}

/* Returns the length of the template name in file name f ("run" in
 * "run.html"), or 0 when f is not a template: no ".html" suffix, empty
 * name, or a dot file. */
static size_t template_name_len(const char *f)
{
	size_t n = strlen(f);

	if (n <= 5 || f[0] == '.' || strcmp(f + n - 5, ".html"))
		return 0;
	return n - 5;
}

/* Reads the regular file at path into b.  Returns 0, or -1 with errno. */
static int read_file(const char *path, struct buf *b)
{
	char chunk[8192];
	struct stat st;
	FILE *f = NULL;
	size_t n;
	int rc = -1;

	if (stat(path, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EISDIR;
		goto out;
	}
	if (!(f = fopen(path, "rb")))
		goto out;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	if (ferror(f) || buf_error(b)) {
		errno = ferror(f) ? EIO : ENOMEM;
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	return rc;
}

/* Compiles dir/file into a new entry of s.  Returns 0, or -1 with err
 * naming the file. */
static int load_one(struct tmpl_set *s, const char *dir, const char *file,
		    struct err *err)
{
	struct buf path = BUF_INIT, src = BUF_INIT;
	struct err e = ERR_INIT;
	struct tmpl_entry *grown, *ent;
	int rc = -1;

	buf_printf(&path, "%s/%s", dir, file);
	if (buf_error(&path) || read_file(path.buf, &src) < 0) {
		set_error(err, file, 0, "%s: %s", file, strerror(errno));
		goto out;
	}
	if (!(grown = realloc(s->e, (s->n + 1) * sizeof *s->e))) {
		set_error(err, file, 0, "%s: out of memory", file);
		goto out;
	}
	s->e = grown;
	ent = &s->e[s->n];
	ent->t = tmpl_compile(src.buf, src.len, &e);
	ent->name = strndup(file, template_name_len(file));
	if (!ent->t || !ent->name) {
		set_error(err, file, atoi(e.field), "%s:%d: %s", file, atoi(e.field),
			  ent->t ? "out of memory" : e.message);
		tmpl_free(ent->t);
		free(ent->name);
		goto out;
	}
	s->n++;
	rc = 0;
out:
	buf_release(&src);
	buf_release(&path);
	return rc;
}

/* Loads every template of the open directory d (called dir) into s.
 * Returns 0, or -1 with err filled in. */
static int load_dir(struct tmpl_set *s, DIR *d, const char *dir,
		    struct err *err)
{
	struct dirent *de;

	for (;;) {
		errno = 0;
		if (!(de = readdir(d)))
			break;
		if (template_name_len(de->d_name) &&
		    load_one(s, dir, de->d_name, err) < 0)
			return -1;
	}
	if (errno) {
		set_error(err, dir, 0, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

struct tmpl_set *tmpl_set_load(const char *dir, struct err *err)
{
	struct err dummy = ERR_INIT;
	struct tmpl_set *s = NULL, *ret = NULL;
	DIR *d = NULL;

	if (!err)
		err = &dummy;
	*err = (struct err)ERR_INIT;
	if (!(s = calloc(1, sizeof *s)) || !(d = opendir(dir))) {
		set_error(err, dir, 0, "%s: %s", dir, strerror(s ? errno : ENOMEM));
		goto out;
	}
	if (load_dir(s, d, dir, err) < 0)
		goto out;
	if (s->n)
		qsort(s->e, s->n, sizeof *s->e, entry_cmp);
	ret = s;
	s = NULL;
out:
	if (d)
		closedir(d);
	tmpl_set_free(s);
	return ret;
}

/* bsearch comparison of a name with an entry. */
static int name_cmp(const void *name, const void *entry)
{
	return strcmp(name, ((const struct tmpl_entry *)entry)->name);
}

const struct tmpl *tmpl_set_get(const struct tmpl_set *s, const char *name)
{
	const struct tmpl_entry *e;

	if (!s || !name || !s->n)
		return NULL;
	e = bsearch(name, s->e, s->n, sizeof *s->e, name_cmp);
	return e ? e->t : NULL;
}

/* The partial resolver of a set: ud is the set. */
static const struct tmpl *set_partial(void *ud, const char *name)
{
	return tmpl_set_get(ud, name);
}

int tmpl_set_render(const struct tmpl_set *s, const char *name,
		    const json_t *ctx, struct buf *out)
{
	const struct tmpl *t = tmpl_set_get(s, name);

	if (!t)
		return -1;
	return tmpl_render(t, ctx, set_partial, (void *)s, out);
}

void tmpl_set_free(struct tmpl_set *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		tmpl_free(s->e[i].t);
		free(s->e[i].name);
	}
	free(s->e);
	free(s);
}
