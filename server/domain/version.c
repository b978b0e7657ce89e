/* version.c: the order of backend versions: llama.cpp builds and PEP 440
 * versions, their sort keys and shown forms (see version.h). */
#include "domain/version.h"

#include <stdio.h>
#include <string.h>

#define NUM_MAX_DIGITS 9

/* A parsed version.  llama.cpp: nseg 1, seg[0] the build, build set. */
struct ver {
	unsigned long seg[VERSION_SEGS];
	int nseg;                /* release numbers as written */
	int build;               /* 1: a llama.cpp build number */
	char pre;                /* 'a', 'b', 'c' (rc), 'z' none, '0' dev-only release */
	unsigned long pre_n;
	int post;                /* 1 when a post release */
	unsigned long post_n;
	int dev;                 /* 1 when a development release */
	unsigned long dev_n;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Reads 1 to 9 digits at *p into *n and moves *p past them; 0, or -1 when
 * there is no digit or too many. */
static int read_num(const char **p, unsigned long *n)
{
	const char *s = *p;
	unsigned long v = 0;
	int d = 0;

	while (is_digit(*s)) {
		if (++d > NUM_MAX_DIGITS)
			return -1;
		v = v * 10 + (unsigned long)(*s++ - '0');
	}
	if (!d)
		return -1;
	*p = s;
	*n = v;
	return 0;
}

/* When the letters at p spell word (case-blind) and no letter follows,
 * returns its length, else 0. */
static size_t word_at(const char *p, const char *word)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if (lower(p[i]) != word[i])
			return 0;
	return (lower(p[i]) >= 'a' && lower(p[i]) <= 'z') ? 0 : i;
}

/* The tag at p among list (longest spellings first); its length, or 0. */
static size_t tag_at(const char *p, const char *const *list)
{
	size_t n;

	for (; *list; list++)
		if ((n = word_at(p, *list)))
			return n;
	return 0;
}

static const char *const pre_a[] = { "alpha", "a", NULL };
static const char *const pre_b[] = { "beta", "b", NULL };
static const char *const pre_c[] = { "preview", "pre", "rc", "c", NULL };
static const char *const post_tags[] = { "post", "rev", "r", NULL };
static const char *const dev_tags[] = { "dev", NULL };

/* One optional part "[sep]tag[sep][N]" at *p: when a tag of list is there,
 * moves *p past the part, sets *n (0 when no number) and returns 1; 0 when
 * there is no such tag (nothing moved), -1 when its number is too long. */
static int read_part(const char **p, const char *const *list, unsigned long *n)
{
	const char *s = *p;
	size_t t;

	if (*s == '.' || *s == '-' || *s == '_')
		s++;
	if (!(t = tag_at(s, list)))
		return 0;
	s += t;
	*n = 0;
	if ((*s == '.' || *s == '-' || *s == '_') && is_digit(s[1]))
		s++;
	if (is_digit(*s) && read_num(&s, n) < 0)
		return -1;
	*p = s;
	return 1;
}

/* The pre-release part at *p into v->pre and v->pre_n; as read_part. */
static int read_pre(const char **p, struct ver *v)
{
	static const char *const *const lists[] = { pre_a, pre_b, pre_c };
	static const char marks[] = { 'a', 'b', 'c' };
	int i, r;

	for (i = 0; i < 3; i++)
		if ((r = read_part(p, lists[i], &v->pre_n)) != 0) {
			v->pre = marks[i];
			return r;
		}
	return 0;
}

/* A PEP 440 version from s to e into v; 0, or -1 when it is not one. */
static int parse_pep440(const char *s, const char *e, struct ver *v)
{
	if (*s == 'v' || *s == 'V')
		s++;
	if (read_num(&s, &v->seg[0]) < 0)
		return -1;
	for (v->nseg = 1; *s == '.' && is_digit(s[1]); v->nseg++) {
		s++;
		if (v->nseg == VERSION_SEGS || read_num(&s, &v->seg[v->nseg]) < 0)
			return -1;
	}
	v->pre = 'z';
	if (read_pre(&s, v) < 0 || (v->post = read_part(&s, post_tags, &v->post_n)) < 0 ||
	    (v->dev = read_part(&s, dev_tags, &v->dev_n)) < 0)
		return -1;
	if (v->dev && v->pre == 'z' && !v->post)
		v->pre = '0';
	return s == e || *s == '+' ? 0 : -1;
}

/* A llama.cpp build from s to e into v; 0, or -1 when it is not one. */
static int parse_build(const char *s, const char *e, struct ver *v)
{
	if (*s == 'b' || *s == 'B')
		s++;
	if (read_num(&s, &v->seg[0]) < 0)
		return -1;
	v->nseg = 1;
	v->build = 1;
	return s == e || strchr("-+ (", *s) ? 0 : -1;
}

/* The length of the run of lowercase hex digits at s. */
static size_t hex_run(const char *s)
{
	size_t n = 0;

	while (is_digit(s[n]) || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n;
}

/* 1 when s is a whole commit tail: '-' or ' ', then 7 to 40 hex digits,
 * bare or in brackets after the space ("-abc1234", " (abc1234)"). */
static int commit_tail(const char *s)
{
	int paren;
	size_t h;

	if (*s != '-' && *s != ' ')
		return 0;
	paren = s[0] == ' ' && s[1] == '(';
	s += 1 + paren;
	h = hex_run(s);
	if (h < 7 || h > 40)
		return 0;
	s += h;
	return paren ? !strcmp(s, ")") : !*s;
}

/* 1 when s is a whole local label: '+', then dotted runs of ASCII letters
 * and digits ("+cu121"), and optionally a commit tail after it. */
static int local_tail(const char *s)
{
	size_t n;

	if (*s++ != '+')
		return 0;
	for (;;) {
		for (n = 0; is_digit(s[n]) || (lower(s[n]) >= 'a' && lower(s[n]) <= 'z'); n++)
			;
		if (!n)
			return 0;
		s += n;
		if (*s != '.')
			return !*s || commit_tail(s);
		s++;
	}
}

int version_looks_like(const char *v)
{
	char t[VERSION_SHOWN_MAX + 1];
	const char *s = v ? v : "";
	unsigned long n;
	size_t len;
	struct ver p;
	int k;

	while (*s == ' ')
		s++;
	for (len = strlen(s); len && s[len - 1] == ' '; len--)
		;
	if (!len || len > VERSION_SHOWN_MAX)
		return 0;
	memcpy(t, s, len);
	t[len] = '\0';
	if (len >= 7 && len <= 40 && hex_run(t) == len)
		return 1;                       /* a bare commit hash */
	s = t + (*t == 'v' || *t == 'V' || *t == 'b' || *t == 'B');
	if (read_num(&s, &n) < 0)
		return 0;
	for (k = 1; *s == '.' && is_digit(s[1]); k++)
		if (k == VERSION_SEGS || (s++, read_num(&s, &n) < 0))
			return 0;
	memset(&p, 0, sizeof p);
	for (;;) {
		if (!*s || commit_tail(s) || local_tail(s))
			return 1;
		if (read_pre(&s, &p) <= 0 && read_part(&s, post_tags, &n) <= 0 &&
		    read_part(&s, dev_tags, &n) <= 0)
			return 0;
	}
}

const char *version_shown(const char *v)
{
	return version_looks_like(v) ? v : VERSION_UNRECOGNISED;
}

/* Parses version str of backend into v: 0, or -1 when unparsable. */
static int parse(const char *backend, const char *str, struct ver *v)
{
	const char *s = str ? str : "", *e;

	memset(v, 0, sizeof *v);
	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && e[-1] == ' ')
		e--;
	if (e == s)
		return -1;
	if (backend && strcmp(backend, "llama.cpp") == 0)
		return parse_build(s, e, v);
	return parse_pep440(s, e, v);
}

/* Appends n as its digit count and its digits ("10" for 0, "3200" as
 * "43200") at k, which has room; returns the bytes written. */
static int put_num(char *k, unsigned long n)
{
	char d[16];
	int len = snprintf(d, sizeof d, "%lu", n);

	k[0] = (char)('0' + len);
	memcpy(k + 1, d, (size_t)len);
	return len + 1;
}

/* The key of a parsed version into k (room for 128 bytes); its length. */
static int key_of(const struct ver *v, char *k)
{
	int i, len = 0;

	k[len++] = '1';
	for (i = 0; i < (v->build ? 1 : VERSION_SEGS); i++)
		len += put_num(k + len, i < v->nseg ? v->seg[i] : 0);
	if (!v->build) {
		k[len++] = v->pre;
		len += put_num(k + len, v->pre_n);
		k[len++] = v->post ? '1' : '0';
		len += put_num(k + len, v->post_n);
		k[len++] = v->dev ? '0' : '1';
		len += put_num(k + len, v->dev_n);
	}
	k[len] = '\0';
	return len;
}

/* Copies the len bytes at src and a NUL into out; len, or -1 (out "")
 * when they do not fit. */
static int put_out(char *out, size_t outlen, const char *src, size_t len)
{
	if (len + 1 > outlen) {
		if (outlen)
			out[0] = '\0';
		return -1;
	}
	memcpy(out, src, len);
	out[len] = '\0';
	return (int)len;
}

int version_parsable(const char *backend, const char *v)
{
	struct ver p;

	return parse(backend, v, &p) == 0;
}

int version_key(const char *backend, const char *v, char *out, size_t outlen)
{
	struct ver p;
	char k[128];
	const char *raw = v ? v : "";
	size_t n = strlen(raw);

	if (parse(backend, v, &p) == 0)
		return put_out(out, outlen, k, (size_t)key_of(&p, k));
	if (n + 2 > outlen) {
		if (outlen)
			out[0] = '\0';
		return -1;
	}
	out[0] = '0';
	memcpy(out + 1, raw, n + 1);
	return (int)n + 1;
}

int version_cmp(const char *backend, const char *a, const char *b)
{
	struct ver pa, pb;
	char ka[128], kb[128];
	int oa = parse(backend, a, &pa) == 0, ob = parse(backend, b, &pb) == 0;

	if (oa != ob)
		return oa - ob;
	if (!oa)
		return strcmp(a ? a : "", b ? b : "");
	key_of(&pa, ka);
	key_of(&pb, kb);
	return strcmp(ka, kb);
}

/* Appends a tag and its number ("rc1", ".post2") to the c string at s
 * of room 128; returns the new length. */
static int put_tag(char *s, int len, const char *tag, unsigned long n)
{
	return len + snprintf(s + len, (size_t)(128 - len), "%s%lu", tag, n);
}

int version_canon(const char *backend, const char *v, char *out, size_t outlen)
{
	static const char *const pre_names[] = { "a", "b", "rc" };
	struct ver p;
	char s[128];
	int i, len = 0;

	if (parse(backend, v, &p) < 0)
		return put_out(out, outlen, v ? v : "", strlen(v ? v : ""));
	if (p.build)
		len = put_tag(s, 0, "b", p.seg[0]);
	for (i = 0; !p.build && i < p.nseg; i++)
		len = put_tag(s, len, i ? "." : "", p.seg[i]);
	if (p.pre >= 'a' && p.pre <= 'c')
		len = put_tag(s, len, pre_names[p.pre - 'a'], p.pre_n);
	if (p.post)
		len = put_tag(s, len, ".post", p.post_n);
	if (p.dev)
		len = put_tag(s, len, ".dev", p.dev_n);
	return put_out(out, outlen, s, (size_t)len);
}
