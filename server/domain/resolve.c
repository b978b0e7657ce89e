/* resolve.c: reading model names, quantization labels and hardware strings
 * as real tools write them, against the reference data's aliases (the
 * rules are in resolve.h). */
#include "domain/resolve.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"

/* The kinds of entries in the index. */
enum ix_kind {
	IX_MODEL,       /* a model alias's key -> model index */
	IX_BENCH,       /* a llama-bench description's key -> model index */
	IX_HW,          /* a hardware alias's key -> hardware index */
	IX_FORMAT,      /* a format alias's tokens -> format index */
	IX_GENERIC,     /* a width-only label's tokens ("4bit") */
	IX_FAMTOK,      /* a format word ("gguf") -> its family */
	IX_MDROP,       /* names.json model.drop */
	IX_MVENDOR,     /* names.json model.vendors */
	IX_ORG,         /* names.json model.orgs */
	IX_HWDROP,      /* names.json hardware.vendors and hardware.drop */
	IX_FMTHEAD,     /* the first token of every IX_FORMAT, IX_GENERIC, IX_FAMTOK key */
};

struct ix_entry {
	enum ix_kind kind;
	size_t key;          /* offset of the key in the index's arena */
	int idx;             /* into the reference data's list, or -1 */
	const char *sval;    /* IX_GENERIC: the label as formats.json writes it;
			      * IX_FAMTOK: the family */
};

struct resolve_index {
	const struct ceiling_ref *ref;
	struct ix_entry *e;
	size_t n, cap;
	size_t sorted;       /* e[0 .. sorted) is in order: what find() searches */
	int fmt_tokens;      /* the most tokens a format key has */
	struct buf arena;    /* the keys, each NUL-terminated */
	/* Once sealed: each distinct (kind, key) at a slot of an open-
	 * addressing table, holding 1 + the index of its first entry (0:
	 * empty); nslots is a power of two. */
	size_t *slot;
	size_t nslots;
};

/* FNV-1a of kind and key. */
static size_t hash_of(enum ix_kind kind, const char *key)
{
	size_t h = 1469598103934665603u ^ (size_t)kind;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211u;
	return h;
}

/* ---- tokens ---- */

#define TOK_MAX 48
#define TOK_BYTES 256

/* A string slugged (ASCII letters lowercased, digits kept, every other
 * run of bytes a separator) and cut into tokens. */
struct toks {
	char buf[TOK_BYTES];
	const char *t[TOK_MAX];
	unsigned char len[TOK_MAX];
	unsigned char used[TOK_MAX];    /* taken out of the name's key */
	int n;
};

static int is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Tokens of the first len bytes of s. */
static void tokenize(const char *s, size_t len, struct toks *k)
{
	size_t i, w = 0;
	int in = 0;

	memset(k, 0, sizeof *k);
	for (i = 0; i < len && s[i] && w + 2 < TOK_BYTES && k->n < TOK_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_alnum(c)) {
			if (in)
				k->buf[w++] = '\0';
			in = 0;
			continue;
		}
		if (!in) {
			k->t[k->n++] = k->buf + w;
			in = 1;
		}
		k->buf[w++] = (char)tolower(c);
		k->len[k->n - 1]++;
	}
	k->buf[w] = '\0';
}

/* 1 when token i is all digits. */
static int tok_digits(const struct toks *k, int i)
{
	int j;

	for (j = 0; j < k->len[i]; j++)
		if (!is_digit((unsigned char)k->t[i][j]))
			return 0;
	return k->len[i] > 0;
}

/* 1 when token i is digits followed by exactly suffix ("16gb", "5bpw"). */
static int tok_digits_then(const struct toks *k, int i, const char *suffix)
{
	int d = 0, sl = (int)strlen(suffix);

	while (d < k->len[i] && is_digit((unsigned char)k->t[i][d]))
		d++;
	return d > 0 && k->len[i] - d == sl && !memcmp(k->t[i] + d, suffix, (size_t)sl);
}

static int tok_is(const struct toks *k, int i, const char *w)
{
	return i >= 0 && i < k->n && strlen(w) == k->len[i] && !memcmp(k->t[i], w, k->len[i]);
}

/* Tokens i .. i+len-1 joined by '-' into out (size n); 0, or -1 when they
 * do not fit. */
static int join(const struct toks *k, int i, int len, char *out, size_t n)
{
	size_t w = 0;
	int j;

	for (j = i; j < i + len; j++) {
		if (w + k->len[j] + 2 > n)
			return -1;
		if (j > i)
			out[w++] = '-';
		memcpy(out + w, k->t[j], k->len[j]);
		w += k->len[j];
	}
	out[w] = '\0';
	return 0;
}

/* ---- the index ---- */

/* The arena qsort's comparison reads keys from (one index is sealed at a
 * time: ceiling_load runs before any thread starts). */
static const char *sort_arena;

static int entry_cmp_in(const char *arena, const struct ix_entry *x, enum ix_kind kind,
			const char *key)
{
	if (x->kind != kind)
		return x->kind < kind ? -1 : 1;
	return strcmp(arena + x->key, key);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ix_entry *y = b;

	return entry_cmp_in(sort_arena, a, y->kind, sort_arena + y->key);
}

/* The entries of kind with key: [*lo, *hi) of ix->e. */
static void find(const struct resolve_index *ix, enum ix_kind kind, const char *key,
		 size_t *lo, size_t *hi)
{
	size_t a = 0, b = ix ? ix->sorted : 0, m, s;

	if (ix && ix->slot) {
		for (s = hash_of(kind, key) & (ix->nslots - 1); ix->slot[s]; s = (s + 1) & (ix->nslots - 1)) {
			a = ix->slot[s] - 1;
			if (!entry_cmp_in(ix->arena.buf, &ix->e[a], kind, key))
				break;
		}
		if (!ix->slot[s]) {
			*lo = *hi = 0;
			return;
		}
		for (*lo = a; a < ix->sorted && !entry_cmp_in(ix->arena.buf, &ix->e[a], kind, key); a++)
			;
		*hi = a;
		return;
	}

	while (a < b) {
		m = a + (b - a) / 2;
		if (entry_cmp_in(ix->arena.buf, &ix->e[m], kind, key) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < (ix ? ix->sorted : 0) && !entry_cmp_in(ix->arena.buf, &ix->e[a], kind, key))
		a++;
	*hi = a;
}

/* The one entry of kind with key, or NULL when none, or when two name
 * different things (ambiguous). */
static const struct ix_entry *find_one(const struct resolve_index *ix, enum ix_kind kind,
				       const char *key)
{
	size_t lo, hi, i;

	find(ix, kind, key, &lo, &hi);
	if (lo == hi)
		return NULL;
	for (i = lo + 1; i < hi; i++)
		if (ix->e[i].idx != ix->e[lo].idx)
			return NULL;
	return &ix->e[lo];
}

static int has(const struct resolve_index *ix, enum ix_kind kind, const char *key)
{
	size_t lo, hi;

	find(ix, kind, key, &lo, &hi);
	return lo < hi;
}

/* 1 when token i alone is an entry of kind. */
static int tok_has(const struct resolve_index *ix, const struct toks *k, int i, enum ix_kind kind)
{
	char key[TOK_BYTES];

	return join(k, i, 1, key, sizeof key) == 0 && has(ix, kind, key);
}

/* Adds (kind, key, idx, sval); 0 or -1 when out of memory. */
static int add(struct resolve_index *ix, enum ix_kind kind, const char *key, int idx,
	       const char *sval)
{
	if (!key || !*key)
		return 0;
	if (ix->n == ix->cap) {
		size_t nc = ix->cap ? ix->cap * 2 : 512;
		struct ix_entry *ne = realloc(ix->e, nc * sizeof *ne);

		if (!ne)
			return -1;
		ix->e = ne;
		ix->cap = nc;
	}
	ix->e[ix->n++] = (struct ix_entry){ kind, ix->arena.len, idx, sval };
	buf_add(&ix->arena, key, strlen(key) + 1);
	return buf_error(&ix->arena);
}

/* The tokens of the first len bytes of s into k, and all of them joined
 * into key: how many (0 when none, or they do not fit). */
static int key_of(const char *s, size_t len, struct toks *k, char key[TOK_BYTES])
{
	tokenize(s ? s : "", s ? len : 0, k);
	return k->n && join(k, 0, k->n, key, TOK_BYTES) == 0 ? k->n : 0;
}

/* Adds the slugged tokens of s, joined, under kind. */
static int add_slug(struct resolve_index *ix, enum ix_kind kind, const char *s, int idx,
		    const char *sval)
{
	struct toks k;
	char key[TOK_BYTES];

	return key_of(s, s ? strlen(s) : 0, &k, key) ? add(ix, kind, key, idx, sval) : 0;
}

/* Adds s's key under kind, as add_slug, and its first token as the head
 * of a format key (take_format tries only tokens that start one). */
static int add_format_key(struct resolve_index *ix, enum ix_kind kind, const char *s, int idx,
			  const char *sval)
{
	struct toks k;
	char key[TOK_BYTES];

	if (!key_of(s, s ? strlen(s) : 0, &k, key))
		return 0;
	if (k.n > ix->fmt_tokens)
		ix->fmt_tokens = k.n;
	if (add(ix, kind, key, idx, sval) < 0 || join(&k, 0, 1, key, sizeof key) < 0)
		return -1;
	return add(ix, IX_FMTHEAD, key, -1, NULL);
}

/* Every string of array a (a names.json token list, say) under kind. */
static int add_list(struct resolve_index *ix, enum ix_kind kind, const json_t *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (add_slug(ix, kind, json_string_value(v), -1, NULL) < 0)
			return -1;
	return 0;
}

static const json_t *path2(const json_t *root, const char *a, const char *b, const char *c)
{
	return json_object_get(json_object_get(json_object_get(root, a), b), c);
}

/* names.json's lists. */
static int add_names(struct resolve_index *ix, const json_t *names)
{
	const json_t *fam = path2(names, "model", "formats", "tokens");
	const char *k;
	json_t *v;

	if (add_list(ix, IX_MDROP, path2(names, "model", "drop", "tokens")) < 0 ||
	    add_list(ix, IX_MVENDOR, path2(names, "model", "vendors", "tokens")) < 0 ||
	    add_list(ix, IX_ORG, path2(names, "model", "orgs", "tokens")) < 0 ||
	    add_list(ix, IX_HWDROP, path2(names, "hardware", "vendors", "tokens")) < 0 ||
	    add_list(ix, IX_HWDROP, path2(names, "hardware", "drop", "tokens")) < 0)
		return -1;
	json_object_foreach((json_t *)fam, k, v)
		if (add_format_key(ix, IX_FAMTOK, k, -1, json_string_value(v)) < 0)
			return -1;
	return 0;
}

/* The formats' ids, names and aliases, and the width-only labels. */
static int add_formats(struct resolve_index *ix, const struct ceiling_ref *ref)
{
	const struct ceiling_bits *f;
	size_t i, j;
	json_t *a, *v;
	const char *k;

	for (i = 0; (f = ceiling_format_at(ref, i)); i++) {
		if (add_format_key(ix, IX_FORMAT, f->id, (int)i, NULL) < 0 ||
		    add_format_key(ix, IX_FORMAT, f->name, (int)i, NULL) < 0)
			return -1;
		a = (json_t *)ceiling_format_aliases(ref, i);
		json_array_foreach(a, j, v)
			if (add_format_key(ix, IX_FORMAT, json_string_value(v), (int)i, NULL) < 0)
				return -1;
	}
	json_object_foreach((json_t *)ceiling_generic_labels(ref), k, v)
		if (add_format_key(ix, IX_GENERIC, k, -1, k) < 0)
			return -1;
	return 0;
}

/* ---- model names ---- */

/* What a model name's scan found besides its key. */
struct mscan {
	char key[TOK_BYTES];          /* "" when nothing is left */
	int fmt;                      /* format index, -1 none */
	const char *generic;          /* a width-only label, or NULL */
	const char *family;           /* a format word's family, or NULL */
	double bpw;                   /* a label's own bits ("4.0bpw"), or 0 */
};

/* Takes out the longest run of tokens from i that spells a format alias,
 * a width-only label or a format word; returns how many (0: none). */
static int take_format(const struct resolve_index *ix, struct toks *k, int i, struct mscan *m)
{
	char key[TOK_BYTES];
	const struct ix_entry *e;
	int len, j;

	if (!tok_has(ix, k, i, IX_FMTHEAD))
		return 0;
	for (len = k->n - i < ix->fmt_tokens ? k->n - i : ix->fmt_tokens; len > 0; len--) {
		for (j = i; j < i + len; j++)
			if (k->used[j])
				break;
		if (j < i + len || join(k, i, len, key, sizeof key) < 0)
			continue;
		if ((e = find_one(ix, IX_FORMAT, key))) {
			if (m->fmt < 0)
				m->fmt = e->idx;
		} else if ((e = find_one(ix, IX_GENERIC, key))) {
			if (!m->generic)
				m->generic = e->sval;
		} else if (len == 1 && (e = find_one(ix, IX_FAMTOK, key))) {
			if (!m->family)
				m->family = e->sval;
		} else {
			continue;
		}
		for (j = i; j < i + len; j++)
			k->used[j] = 1;
		return len;
	}
	return 0;
}

/* Takes out a label's bits ("4-0bpw", "5bpw", "2-0625-bpw") at token i. */
static void take_bpw(struct toks *k, int i, struct mscan *m)
{
	char num[32];
	int whole = -1, frac = -1;

	if (tok_digits_then(k, i, "bpw")) {
		if (i > 0 && !k->used[i - 1] && tok_digits(k, i - 1))
			whole = i - 1;
	} else if (tok_is(k, i, "bpw") && i > 0 && tok_digits(k, i - 1)) {
		if (i > 1 && tok_digits(k, i - 2))
			whole = i - 2, frac = i - 1;
		else
			whole = i - 1;
	} else {
		return;
	}
	if (whole >= 0 && frac < 0 && !tok_is(k, i, "bpw"))
		snprintf(num, sizeof num, "%.*s.%.*s", k->len[whole], k->t[whole], k->len[i] - 3, k->t[i]);
	else if (whole >= 0 && frac >= 0)
		snprintf(num, sizeof num, "%.*s.%.*s", k->len[whole], k->t[whole], k->len[frac], k->t[frac]);
	else if (whole >= 0)
		snprintf(num, sizeof num, "%.*s", k->len[whole], k->t[whole]);
	else
		snprintf(num, sizeof num, "%.*s", k->len[i] - 3, k->t[i]);
	if (!m->bpw)
		m->bpw = atof(num);
	k->used[i] = 1;
	if (whole >= 0)
		k->used[whole] = 1;
	if (frac >= 0)
		k->used[frac] = 1;
}

/* Takes out a GGUF shard suffix: 00001-of-00003. */
static void take_shard(struct toks *k, int i)
{
	if (i + 2 < k->n && tok_digits(k, i) && tok_is(k, i + 1, "of") && tok_digits(k, i + 2))
		k->used[i] = k->used[i + 1] = k->used[i + 2] = 1;
}

/* The key of the tokens left: each letter parts from a digit after it
 * ("llama3" -> "llama-3", "a3b" -> "a-3b"), all joined by '-'. */
static void model_key(const struct toks *k, char *out, size_t n)
{
	size_t w = 0;
	int i, j;

	out[0] = '\0';
	for (i = 0; i < k->n; i++) {
		if (k->used[i])
			continue;
		for (j = 0; j < k->len[i]; j++) {
			unsigned char c = (unsigned char)k->t[i][j];

			if (w + 3 >= n)
				return;
			if (w > 0 && (j == 0 || (is_digit(c) && !is_digit((unsigned char)k->t[i][j - 1]))))
				out[w++] = '-';
			out[w++] = (char)c;
			out[w] = '\0';
		}
	}
}

/* The part of a model name after its organisation, path or host, and
 * after an organisation a file name puts before an underscore; *org gets
 * what came before the last '/' (its length in *org_len). */
static const char *model_base(const struct resolve_index *ix, const char *name,
			      const char **org, size_t *org_len)
{
	const char *p = name, *s, *u;
	char key[TOK_BYTES];
	struct toks k;

	for (s = name; *s; s++)
		if (*s == '/' || *s == '\\')
			p = s + 1;
	*org = name;
	*org_len = (size_t)(p - name);
	if ((u = strchr(p, '_')) && u > p && u[1] && key_of(p, (size_t)(u - p), &k, key) &&
	    has(ix, IX_ORG, key))
		p = u + 1;
	return p;
}

/* An alias that lacks its model's size (IX_MODEL's sval). */
static const char WEAK[] = "weak";

/* 1 when name, after its organisation or path, is written as Ollama
 * writes its tags: no capital letter, no space. */
static int tag_shaped(const char *name)
{
	const char *s, *p = name;

	for (s = name; *s; s++)
		if (*s == '/' || *s == '\\')
			p = s + 1;
	for (s = p; *s; s++)
		if ((*s >= 'A' && *s <= 'Z') || *s == ' ')
			return 0;
	return 1;
}

/* 1 when a model name has the shape of llama-bench's model_type: an
 * architecture in lower case, a space, a size in capital B ("8B",
 * "30B.A3B", "1.5B") and the file type ("llama 8B Q4_K - Medium"). */
static int bench_shaped(const char *name)
{
	const char *s = name;
	int digits = 0;

	if (!(*s >= 'a' && *s <= 'z'))
		return 0;
	while ((*s >= 'a' && *s <= 'z') || is_digit((unsigned char)*s) || *s == '-' || *s == '_')
		s++;
	if (*s++ != ' ')
		return 0;
	while (is_digit((unsigned char)*s) || (*s == '.' && digits))
		s++, digits++;
	if (!digits || (*s != 'B' && *s != 'M'))
		return 0;
	s++;
	if (*s == '.' && s[1] == 'A')       /* 30B.A3B */
		for (s += 2; is_digit((unsigned char)*s) || *s == '.'; s++)
			;
	if (s[-1] == 'A' || (*s == 'B' && s[-1] != 'B'))
		s++;
	return *s == '\0' || *s == ' ';
}

/* Scans a model name: its key and what it says of its format. */
static void model_scan(const struct resolve_index *ix, const char *name, struct mscan *m)
{
	const char *org, *base;
	size_t org_len;
	struct toks k, o;
	int i, first = 1;

	memset(m, 0, sizeof *m);
	m->fmt = -1;
	if (!name)
		return;
	base = model_base(ix, name, &org, &org_len);
	tokenize(base, strlen(base), &k);
	for (i = 0; i < k.n; i++) {
		if (k.used[i])
			continue;
		take_shard(&k, i);
		if (!k.used[i])
			take_bpw(&k, i, m);
		if (!k.used[i])
			take_format(ix, &k, i, m);
	}
	for (i = 0; i < k.n; i++) {
		if (k.used[i])
			continue;
		if (tok_has(ix, &k, i, IX_MDROP))
			k.used[i] = 1;
		else if (first && i + 1 < k.n && tok_has(ix, &k, i, IX_MVENDOR))
			k.used[i] = 1;
		first = 0;
	}
	/* An organisation such as mlx-community says the family when the name
	 * does not. */
	tokenize(org, org_len, &o);
	for (i = 0; i < o.n && !m->family; i++) {
		const struct ix_entry *e;
		char key[TOK_BYTES];

		if (join(&o, i, 1, key, sizeof key) == 0 && (e = find_one(ix, IX_FAMTOK, key)))
			m->family = e->sval;
	}
	model_key(&k, m->key, sizeof m->key);
}

/* ---- hardware strings ---- */

#define HW_PARTS 4

/* A hardware string cut into the name and the notes in its brackets. */
struct hparts {
	char main[TOK_BYTES];                /* outside brackets, before a note tail */
	char note[HW_PARTS][TOK_BYTES];      /* each bracket's text */
	int nnotes;
};

/* What a hardware string's scan found besides its key. */
struct hscan {
	char key[TOK_BYTES];     /* "" when nothing is left */
	char bare[TOK_BYTES];    /* the key without a memory size, or "" */
	double mem_gb;           /* a size the name states ("12GB"), or 0 */
};

/* 1 when s at i starts a note marker ("w/", "with") as a whole word. */
static int note_at(const json_t *markers, const char *s, size_t i)
{
	size_t j, n;
	json_t *v;

	if (i > 0 && is_alnum((unsigned char)s[i - 1]))
		return 0;
	json_array_foreach(markers, j, v) {
		const char *w = json_string_value(v);

		if (!w || !(n = strlen(w)) || strncasecmp(s + i, w, n))
			continue;
		if (!is_alnum((unsigned char)s[i + n]) || !is_alnum((unsigned char)w[n - 1]))
			return 1;
	}
	return 0;
}

/* Where the name of a device listing starts: after the last '=' or ':'
 * outside brackets ("Device 0: ...", "ggml_vulkan: 0 = ..."), before the
 * first '|' or ',' outside them; *end gets where it ends. */
static const char *listing_name(const char *s, const char **end)
{
	const char *p = s, *q;
	int depth = 0;

	for (q = s; *q && !(depth == 0 && (*q == '|' || *q == ',')); q++) {
		if (*q == '(' || *q == '[')
			depth++;
		else if ((*q == ')' || *q == ']') && depth > 0)
			depth--;
		else if (!depth && (*q == '=' || *q == ':') && q[1])
			p = q + 1;
	}
	*end = q;
	return p;
}

/* Cuts s into its name and its bracketed notes (non-ASCII bytes, such as
 * the symbols (R) and (TM) stand for, become spaces; a note tail "w/ ..."
 * and a list after " / " end the name). */
static void hw_parts(const struct resolve_index *ix, const char *s, struct hparts *h)
{
	const json_t *markers = path2(ceiling_names(ix->ref), "hardware", "notes", "markers");
	const char *end, *p = listing_name(s, &end);
	size_t w = 0, nw = 0;
	int depth = 0, cut = 0;

	memset(h, 0, sizeof *h);
	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '(' || c == '[') {
			if (depth++ == 0 && h->nnotes < HW_PARTS)
				nw = 0, h->nnotes++;
			continue;
		}
		if ((c == ')' || c == ']') && depth > 0) {
			depth--;
			if (!cut && w + 1 < TOK_BYTES)
				h->main[w++] = ' ';
			continue;
		}
		if (c >= 0x80)
			c = ' ';
		if (depth) {
			if (h->nnotes && nw + 1 < TOK_BYTES)
				h->note[h->nnotes - 1][nw++] = (char)c;
			continue;
		}
		if (!cut && (note_at(markers, s, (size_t)(p - s)) ||
			     (c == '/' && p > s && p[-1] == ' ' && p[1] == ' ')))
			cut = 1;
		if (!cut && w + 1 < TOK_BYTES)
			h->main[w++] = (char)c;
	}
}

/* Appends to h's name the words of its notes that say which form of a part
 * it is ("RTX4090 (Laptop)"): names.json hardware.forms. */
static void hw_with_forms(const struct resolve_index *ix, struct hparts *h)
{
	const json_t *forms = path2(ceiling_names(ix->ref), "hardware", "forms", "tokens");
	struct toks k;
	size_t i, w;
	int j, t;
	json_t *v;

	for (j = 0; j < h->nnotes; j++) {
		tokenize(h->note[j], strlen(h->note[j]), &k);
		for (t = 0; t < k.n; t++)
			json_array_foreach((json_t *)forms, i, v)
				if (json_is_string(v) && tok_is(&k, t, json_string_value(v)) &&
				    (w = strlen(h->main)) + k.len[t] + 2 < sizeof h->main)
					snprintf(h->main + w, sizeof h->main - w, " %.*s", k.len[t], k.t[t]);
	}
}

/* The GPU cores a string names ("30-core GPU", "(40-core GPU)"), or 0. */
static int gpu_cores_of(const char *s)
{
	struct toks k;
	int i;

	if (!s)
		return 0;
	tokenize(s, strlen(s), &k);
	for (i = 1; i + 1 < k.n; i++)
		if (tok_is(&k, i, "core") && tok_is(&k, i + 1, "gpu") && tok_digits(&k, i - 1))
			return atoi(k.t[i - 1]);
	return 0;
}

/* Appends token t (length n) to key, letters parted from digits both ways
 * ("rtx4090" and "RTX 4090" are one key; "6900xt" is "6900 XT"). */
static void key_add(char *key, size_t size, const char *t, size_t n, int split)
{
	size_t w = strlen(key), j;

	for (j = 0; j < n && w + 3 < size; j++) {
		unsigned char c = (unsigned char)t[j];

		if (w > 0 && (j == 0 || (split && is_digit(c) != is_digit((unsigned char)t[j - 1]))))
			key[w++] = '-';
		key[w++] = (char)c;
	}
	key[w] = '\0';
}

/* The token the data says means the same as token i ("mobile" for
 * "laptop"), or token i itself. */
static void tok_same(const struct resolve_index *ix, const struct toks *k, int i,
		     const char **t, size_t *n)
{
	const json_t *same = path2(ceiling_names(ix->ref), "hardware", "same", "tokens");
	char key[TOK_BYTES];
	const char *to;

	*t = k->t[i];
	*n = k->len[i];
	if (join(k, i, 1, key, sizeof key) == 0 && (to = json_string_value(json_object_get(same, key)))) {
		*t = to;
		*n = strlen(to);
	}
}

/* Scans one part of a hardware string (form words of the notes already
 * appended): its key and a stated memory size. */
static void hw_scan_part(const struct resolve_index *ix, const char *s, struct hscan *h)
{
	struct toks k;
	const char *t;
	size_t n;
	int i, mem = -1, pass;

	memset(h, 0, sizeof *h);
	tokenize(s, strlen(s), &k);
	for (i = 0; i < k.n; i++) {
		if (tok_has(ix, &k, i, IX_HWDROP))
			k.used[i] = 1;
		else if ((tok_is(&k, i, "core") || tok_is(&k, i, "cores")) && i > 0 && tok_digits(&k, i - 1))
			k.used[i] = k.used[i - 1] = 1;             /* "16-Core", "24 cores" */
		else if (tok_digits_then(&k, i, "gb") && mem < 0)
			mem = i;
	}
	/* Pass 0 makes the key, pass 1 the key without the memory size. */
	for (pass = 0; pass < 2 && (pass == 0 || mem >= 0); pass++)
		for (i = 0; i < k.n; i++) {
			if (k.used[i] || (pass && i == mem))
				continue;
			tok_same(ix, &k, i, &t, &n);
			key_add(pass ? h->bare : h->key, sizeof h->key, t, n, i != mem);
		}
	if (mem >= 0)
		h->mem_gb = atof(k.t[mem]);
}

/* Scans a whole hardware string as an alias is read: its name, with the
 * form words of its notes ("(Laptop)"). */
static void hw_scan(const struct resolve_index *ix, const char *s, struct hscan *h)
{
	struct hparts p;

	memset(h, 0, sizeof *h);
	if (!s)
		return;
	hw_parts(ix, s, &p);
	hw_with_forms(ix, &p);
	hw_scan_part(ix, p.main, h);
}

/* Of the entries [lo, hi) (memory variants sharing a name), the one whose
 * memory matches mem_gb; NULL when none does or mem_gb is 0. */
static const struct ceiling_hw *by_memory(const struct resolve_index *ix, size_t lo, size_t hi,
					  double mem_gb)
{
	const struct ceiling_hw *best = NULL, *h;
	double bd = 0, d;
	size_t i;

	for (i = lo; mem_gb > 0 && i < hi; i++) {
		h = ceiling_hw_at(ix->ref, (size_t)ix->e[i].idx);
		d = fabs((h->memory_match_gb > 0 ? h->memory_match_gb : h->memory_gb) - mem_gb);
		if (d <= fmax(1.5, 0.15 * mem_gb) && (!best || d < bd))
			best = h, bd = d;
	}
	return best;
}

/* The hardware of key (memory mem_gb when the name states none): NULL
 * when unknown or ambiguous. */
static const struct ceiling_hw *key_lookup(const struct resolve_index *ix, const char *key,
					   double mem_gb)
{
	size_t lo, hi, i;
	int same = 1;

	find(ix, IX_HW, key, &lo, &hi);
	if (lo == hi)
		return NULL;
	for (i = lo + 1; i < hi; i++)
		if (ix->e[i].idx != ix->e[lo].idx)
			same = 0;
	if (same)
		return ceiling_hw_at(ix->ref, (size_t)ix->e[lo].idx);
	return by_memory(ix, lo, hi, mem_gb);
}

/* The hardware of a scanned part: its key, else its key without the
 * memory size (the size then tells variants apart), else, for a name that
 * starts with a model number ("3090 24GB", "7900 XTX"), the series the
 * data's prefixes give it when exactly one does. */
static const struct ceiling_hw *hw_lookup(const struct resolve_index *ix, const struct hscan *h,
					  double mem_gb)
{
	const json_t *series = path2(ceiling_names(ix->ref), "hardware", "series", "tokens");
	const struct ceiling_hw *hw = NULL, *x;
	const char *base;
	char key[2 * TOK_BYTES];
	size_t i;
	json_t *v;

	if (!h->key[0])
		return NULL;
	if ((hw = key_lookup(ix, h->key, mem_gb)))
		return hw;
	if (h->bare[0] && (hw = key_lookup(ix, h->bare, h->mem_gb)))
		return hw;
	base = h->bare[0] ? h->bare : h->key;
	if (!is_digit((unsigned char)base[0]))
		return NULL;
	json_array_foreach((json_t *)series, i, v) {
		snprintf(key, sizeof key, "%s-%s", json_string_value(v), base);
		if ((x = key_lookup(ix, key, h->bare[0] ? h->mem_gb : mem_gb))) {
			if (hw && hw != x)
				return NULL;
			hw = x;
		}
	}
	return hw;
}

/* 1 when hw is a processor (its name what a CPU listing prints), so that
 * a GPU named beside it is the accelerator. */
static int is_cpu(const struct ceiling_hw *hw)
{
	return hw && hw->cpu;
}

/* The hardware one string names: its name, else a note's ("MTL0 (Apple
 * M1 Max)", "Intel 265K Custom PC (Nvidia RTX 4090)"); a GPU in a note
 * wins over a processor named outside it. */
static const struct ceiling_hw *hw_of_string(const struct resolve_index *ix, const char *s,
					     double mem_gb, struct hscan *main_scan)
{
	const struct ceiling_hw *hw, *n;
	struct hparts p;
	struct hscan h;
	int i;

	memset(main_scan, 0, sizeof *main_scan);
	if (!s)
		return NULL;
	hw_parts(ix, s, &p);
	hw_with_forms(ix, &p);
	hw_scan_part(ix, p.main, main_scan);
	hw = hw_lookup(ix, main_scan, mem_gb);
	for (i = 0; i < p.nnotes && (!hw || is_cpu(hw)); i++) {
		hw_scan_part(ix, p.note[i], &h);
		if ((n = hw_lookup(ix, &h, mem_gb)) && (!hw || !is_cpu(n)))
			hw = n;
	}
	return hw;
}

/* 1 when key a's tokens are a proper prefix of key b's: b names a part
 * of a (a laptop part, a memory variant), as "rtx-4090" of
 * "rtx-4090-laptop". */
static int key_refines(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n > 0 && !strncmp(a, b, n) && b[n] == '-';
}

/* The hardware in names, refined by gpu_name; NULL when the accelerator
 * name resolves to nothing. */
static const struct ceiling_hw *hw_resolve(const struct resolve_index *ix,
					   const struct resolve_in *in, int *gpu_cores)
{
	struct hscan a, g;
	const struct ceiling_hw *ha, *hg;
	double vram = in->vram_gb > 0 ? in->vram_gb : 0;

	*gpu_cores = in->gpu_cores > 0 ? in->gpu_cores : gpu_cores_of(in->accel);
	if (!*gpu_cores)
		*gpu_cores = gpu_cores_of(in->gpu_name);
	if (!*gpu_cores)
		*gpu_cores = gpu_cores_of(in->cpu_model);
	ha = hw_of_string(ix, in->accel, vram, &a);
	if (!a.key[0])
		return NULL;
	hg = in->gpu_name ? hw_of_string(ix, in->gpu_name, vram, &g) : NULL;
	if (!hg || hg == ha)
		return ha;
	/* The GPU's name refines the summary's (a laptop part, a memory
	 * variant), or is one of the variants the summary cannot tell apart;
	 * anything else contradicts it and is ignored. */
	if (ha ? key_refines(a.key, g.key) || key_refines(a.bare[0] ? a.bare : a.key, g.key)
	       : (!strcmp(a.key, g.bare) || !strcmp(a.key, g.key) || key_refines(a.key, g.key)))
		return hg;
	return ha;
}

/* 1 when the memory options array a holds gb (within half a GB). */
static int mem_in(const json_t *a, double gb)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (fabs(json_number_value(v) - gb) < 0.5 + 0.03 * gb)
			return 1;
	return 0;
}

/* 1 + the index of hw's bin that the GPU cores, the CPU cores or the
 * memory (in that order: VRAM for a card, else RAM) tell, or 0 when they
 * do not tell one. */
static int bin_of(const struct ceiling_hw *hw, const struct resolve_in *in, int gpu_cores)
{
	double mem = in->vram_gb > 0 ? in->vram_gb : in->ram_gb;
	size_t i;
	int hit = 0, n = 0;

	for (i = 0; gpu_cores > 0 && i < hw->nbins; i++)
		if (hw->bins[i].gpu_cores == gpu_cores)
			return (int)i + 1;
	for (i = 0; in->cpu_cores > 0 && i < hw->nbins; i++)
		if (hw->bins[i].cpu_cores == in->cpu_cores)
			hit = (int)i + 1, n++;
	if (n == 1)
		return hit;
	n = 0;
	for (i = 0; mem > 0 && i < hw->nbins; i++)
		if (mem_in(hw->bins[i].memory_options, mem) ||
		    (hw->bins[i].memory_gb > 0 && fabs(hw->bins[i].memory_gb - mem) < 1.5))
			hit = (int)i + 1, n++;
	return n == 1 ? hit : 0;
}

int resolve_format_at(const struct resolve_index *ix, const char *name)
{
	const struct ix_entry *e;
	char key[TOK_BYTES];
	struct toks k;

	if (!key_of(name, strlen(name), &k, key))
		return -1;
	return (e = find_one(ix, IX_FORMAT, key)) ? e->idx : -1;
}

/* ---- building the index ---- */

/* 1 when key names a family of several sizes or versions without saying
 * which: the ids of two models or more are key followed by a size or a
 * version number ("llama-3-1" of Llama 3.1 8B, 70B and 405B; "phi" of
 * Phi-2, Phi-3 and Phi-4; not "llama-4-scout", one model). */
static int sizeless(char (*ids)[TOK_BYTES], size_t nids, const char *key)
{
	size_t i, n = strlen(key);
	int k = 0;

	for (i = 0; k < 2 && i < nids; i++)
		k += key_refines(key, ids[i]) && is_digit((unsigned char)ids[i][n + 1]);
	return k >= 2;
}

/* Every alias of every model and hardware entry, and their ids. */
static int add_entries(struct resolve_index *ix, const struct ceiling_ref *ref)
{
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	struct mscan ms;
	struct hscan hs;
	size_t i, j;
	json_t *v;

	char (*ids)[TOK_BYTES];
	size_t nids = 0;

	while (ceiling_model_at(ref, nids))
		nids++;
	if (!(ids = calloc(nids ? nids : 1, sizeof *ids)))
		return -1;
	for (i = 0; i < nids; i++) {
		model_scan(ix, ceiling_model_at(ref, i)->id, &ms);
		snprintf(ids[i], sizeof ids[i], "%s", ms.key);
	}
	for (i = 0; (m = ceiling_model_at(ref, i)); i++) {
		if (add(ix, IX_MODEL, ids[i], (int)i, NULL) < 0)
			goto nomem;
		json_array_foreach((json_t *)m->aliases, j, v) {
			model_scan(ix, json_string_value(v), &ms);
			if (add(ix, IX_MODEL, ms.key, (int)i, sizeless(ids, nids, ms.key) ? WEAK : NULL) < 0)
				goto nomem;
		}
		json_array_foreach((json_t *)m->llama_bench, j, v) {
			model_scan(ix, json_string_value(v), &ms);
			if (add(ix, IX_BENCH, ms.key, (int)i, NULL) < 0)
				goto nomem;
		}
	}
	free(ids);
	for (i = 0; (h = ceiling_hw_at(ref, i)); i++) {
		hw_scan(ix, h->slug, &hs);
		if (add(ix, IX_HW, hs.key, (int)i, NULL) < 0)
			return -1;
		hw_scan(ix, h->name, &hs);
		if (add(ix, IX_HW, hs.key, (int)i, NULL) < 0)
			return -1;
		json_array_foreach((json_t *)h->aliases, j, v) {
			hw_scan(ix, json_string_value(v), &hs);
			if (add(ix, IX_HW, hs.key, (int)i, NULL) < 0)
				return -1;
		}
	}
	return 0;
nomem:
	free(ids);
	return -1;
}

/* Sorts the entries, so find() sees them all; with table, also fills the
 * hash table of the distinct keys.  0, or -1 when out of memory. */
static int seal(struct resolve_index *ix, int table)
{
	size_t i, s;

	sort_arena = ix->arena.buf;
	qsort(ix->e, ix->n, sizeof *ix->e, entry_cmp);
	sort_arena = NULL;
	ix->sorted = ix->n;
	if (!table)
		return 0;
	for (ix->nslots = 64; ix->nslots < 2 * ix->n; ix->nslots *= 2)
		;
	if (!(ix->slot = calloc(ix->nslots, sizeof *ix->slot)))
		return -1;
	for (i = 0; i < ix->n; i++) {
		if (i > 0 && !entry_cmp_in(ix->arena.buf, &ix->e[i], ix->e[i - 1].kind,
					   ix->arena.buf + ix->e[i - 1].key))
			continue;           /* not the first of its key */
		for (s = hash_of(ix->e[i].kind, ix->arena.buf + ix->e[i].key) & (ix->nslots - 1);
		     ix->slot[s]; s = (s + 1) & (ix->nslots - 1))
			;
		ix->slot[s] = i + 1;
	}
	return 0;
}

struct resolve_index *resolve_index_new(const struct ceiling_ref *ref, struct err *err)
{
	struct resolve_index *ix = calloc(1, sizeof *ix);

	if (!ix) {
		err_nomem(err);
		return NULL;
	}
	ix->ref = ref;
	buf_init(&ix->arena);
	/* The token lists and formats first: the aliases' keys are read
	 * with them. */
	if (add_names(ix, ceiling_names(ref)) < 0 || add_formats(ix, ref) < 0)
		goto fail;
	seal(ix, 0);
	if (add_entries(ix, ref) < 0 || seal(ix, 1) < 0)
		goto fail;
	return ix;
fail:
	resolve_index_free(ix);
	err_nomem(err);
	return NULL;
}

void resolve_index_free(struct resolve_index *ix)
{
	if (!ix)
		return;
	free(ix->e);
	free(ix->slot);
	buf_release(&ix->arena);
	free(ix);
}

/* ---- what callers use ---- */

static const char *sget(const json_t *o, const char *a, const char *k)
{
	return json_string_value(json_object_get(json_object_get(o, a), k));
}

static double nget(const json_t *o, const char *a, const char *k)
{
	const json_t *v = json_object_get(json_object_get(o, a), k);

	return json_is_number(v) ? json_number_value(v) : 0;
}

void resolve_in_of_payload(const json_t *p, struct resolve_in *in)
{
	*in = (struct resolve_in){
		sget(p, "model", "name"), sget(p, "model", "quantization"), sget(p, "model", "format"),
		sget(p, "backend", "name"), sget(p, "hardware", "accelerator_summary"),
		sget(p, "hardware", "gpu_name"), sget(p, "hardware", "cpu_model"),
		nget(p, "hardware", "vram_gb"), nget(p, "hardware", "ram_gb"),
		(int)nget(p, "hardware", "cpu_cores"), (int)nget(p, "hardware", "gpu_cores") };
}

/* The model of name, whose scan is m. */
static const struct ceiling_model *model_of_scan(const struct resolve_index *ix, const char *name,
						 const struct mscan *m)
{
	const struct ix_entry *e;

	if (!name || !m->key[0])
		return NULL;
	/* llama-bench's descriptions name an architecture, which several
	 * models share ("llama 13B" is Mistral Small as well as LLaMA 13B):
	 * they are looked up among its descriptions only.  An alias without
	 * the size (Ollama's default tag "llama3.1") reads only a name written
	 * as Ollama writes it, in lower case without spaces: "Meta-Llama-3.1"
	 * says no size. */
	if (bench_shaped(name))
		e = find_one(ix, IX_BENCH, m->key);
	else if ((e = find_one(ix, IX_MODEL, m->key)) && !tag_shaped(name)) {
		size_t lo, hi, i;

		find(ix, IX_MODEL, m->key, &lo, &hi);
		for (e = NULL, i = lo; i < hi && !e; i++)
			if (ix->e[i].sval != WEAK)
				e = &ix->e[i];
	}
	return e ? ceiling_model_at(ix->ref, (size_t)e->idx) : NULL;
}

const struct ceiling_model *resolve_model_name(const struct ceiling_ref *ref, const char *name)
{
	const struct resolve_index *ix = ceiling_index(ref);
	struct mscan m;

	if (!ix || !name)
		return NULL;
	model_scan(ix, name, &m);
	return model_of_scan(ix, name, &m);
}

const struct ceiling_hw *resolve_hw_name(const struct ceiling_ref *ref, const char *name)
{
	const struct resolve_index *ix = ceiling_index(ref);
	struct hscan h;

	if (!ix || !name)
		return NULL;
	return hw_of_string(ix, name, 0, &h);
}

/* The family a weights format field names ("GGUF", "mlx"), as a format
 * word or a family id; NULL when neither. */
static const char *family_of_field(const struct resolve_index *ix, const char *format)
{
	const struct ceiling_family *f;
	const struct ix_entry *e;
	struct toks k;
	char key[TOK_BYTES];

	if (key_of(format, format ? strlen(format) : 0, &k, key) == 1) {
		if ((e = find_one(ix, IX_FAMTOK, key)))
			return e->sval;
		if ((f = ceiling_family(ix->ref, key)))
			return f->id;
	}
	return NULL;
}

/* Fills q from format index fmt, or a label's own bits in family fam. */
static int quant_known(const struct ceiling_ref *ref, int fmt, double bpw, const char *fam,
		       struct resolve_quant *q)
{
	const struct ceiling_bits *f = fmt >= 0 ? ceiling_format_at(ref, (size_t)fmt) : NULL;

	if (f) {
		q->f = f;
		q->bits = f->bits;
		snprintf(q->name, sizeof q->name, "%s", f->name);
		if (!q->family)
			q->family = f->family;
		return 0;
	}
	if (bpw > 0 && bpw <= 16 && ceiling_label_bits(ref, fam)) {
		q->f = NULL;
		q->bits = bpw;
		/* "EXL2-4.0bpw", "EXL2-4.65bpw": as the quantizers name them */
		if (bpw * 10 == (double)(long)(bpw * 10))
			snprintf(q->name, sizeof q->name, "%s-%.1fbpw", fam, bpw);
		else
			snprintf(q->name, sizeof q->name, "%s-%gbpw", fam, bpw);
		for (char *c = q->name; *c && *c != '-'; c++)
			*c = (char)toupper((unsigned char)*c);
		return 0;
	}
	return -1;
}

/* resolve_quant with the model name's scan fn done. */
static int quant_of_scan(const struct resolve_index *ix, const char *quant, const char *format,
			 const struct mscan *name_scan, const char *backend, struct resolve_quant *q)
{
	const struct ceiling_ref *ref = ix->ref;
	struct mscan fq, fn = *name_scan;
	const char *generic, *fam;
	const struct ceiling_bits *g;

	memset(q, 0, sizeof *q);
	q->bits = NAN;
	model_scan(ix, quant && *quant ? quant : NULL, &fq);
	fam = family_of_field(ix, format);
	if (!fam)
		fam = fq.family ? fq.family : fn.family;
	if (!fam && backend && !strcmp(backend, "mlx"))
		fam = "mlx";
	if (!fam && backend && !strcmp(backend, "exllamav2"))
		fam = "exl2";
	q->family = fam;
	/* The field names the format; a width-only or missing one is read
	 * from the name. */
	if (quant_known(ref, fq.fmt, fq.bpw, fam, q) == 0 ||
	    quant_known(ref, fn.fmt, fn.bpw, fam, q) == 0)
		return 0;
	generic = fq.generic ? fq.generic : fn.generic;
	if (generic && (g = ceiling_generic(ref, generic, fam))) {
		q->f = g;
		q->bits = g->bits;
		snprintf(q->name, sizeof q->name, "%s", g->name);
		return 0;
	}
	return -1;
}

int resolve_quant(const struct ceiling_ref *ref, const char *quant, const char *format,
		  const char *name, const char *backend, struct resolve_quant *q)
{
	const struct resolve_index *ix = ceiling_index(ref);
	struct mscan fn;

	if (!ix) {
		memset(q, 0, sizeof *q);
		q->bits = NAN;
		return -1;
	}
	model_scan(ix, name, &fn);
	return quant_of_scan(ix, quant, format, &fn, backend, q);
}

int resolve_hw_slug(const char *accel, char *out, size_t n)
{
	char part[TOK_BYTES];
	size_t w = 0;
	int depth = 0;
	const char *s;

	/* Brackets and a "w/" tail, as hw_name_part drops them. */
	for (s = accel ? accel : ""; *s && w + 1 < sizeof part; s++) {
		if (*s == '(' || *s == '[')
			depth++;
		else if ((*s == ')' || *s == ']') && depth > 0)
			depth--;
		else if (!depth && (!strncasecmp(s, " w/ ", 4) || !strncasecmp(s, " with ", 6)))
			break;
		else if (!depth)
			part[w++] = *s;
	}
	part[w] = '\0';
	if (slug_hw(part, out, n) == 0)
		return 0;
	return slug_hw(accel, out, n);
}

/* An unresolved name whose own slug is a reference id ("llama 13B Q4_0",
 * an architecture several models share; "RTX 3080" without its memory)
 * must not land on that reference's page: its slug gets "-unmatched". */
static void apart(char *slug, size_t n)
{
	size_t len = strlen(slug), tail = sizeof "-unmatched" - 1;

	if (len + tail >= n)
		len = n - tail - 1;
	snprintf(slug + len, n - len, "-unmatched");
}

int resolve_run(const struct ceiling_ref *ref, const struct resolve_in *in, struct resolve_out *out)
{
	const struct resolve_index *ix = ceiling_index(ref);
	int cores = 0;

	memset(out, 0, sizeof *out);
	out->q.bits = NAN;
	if (ix) {
		struct mscan m;

		model_scan(ix, in->model_name, &m);
		out->model = model_of_scan(ix, in->model_name, &m);
		out->hw = hw_resolve(ix, in, &cores);
		if (out->hw && out->hw->nbins)
			out->bin = bin_of(out->hw, in, cores);
		quant_of_scan(ix, in->quant, in->format, &m, in->backend, &out->q);
	}
	if (out->model)
		snprintf(out->model_slug, sizeof out->model_slug, "%s", out->model->id);
	else if (slug_model(in->model_name, out->model_slug, sizeof out->model_slug) != 0)
		return -1;
	else if (ceiling_model(ref, out->model_slug))
		apart(out->model_slug, sizeof out->model_slug);
	if (out->hw)
		snprintf(out->hw_slug, sizeof out->hw_slug, "%s", out->hw->slug);
	else if (resolve_hw_slug(in->accel, out->hw_slug, sizeof out->hw_slug) != 0)
		return -1;
	else if (ceiling_hw(ref, out->hw_slug))
		apart(out->hw_slug, sizeof out->hw_slug);
	return 0;
}

/* name without the quantization and format tokens the slug rules drop
 * ("Foo-7B-Instruct-Q4_K_M AWQ" shows as "Foo-7B-Instruct"): the shortest
 * prefix ending at a separator whose model slug is the whole name's, when
 * what it leaves out holds a letter or digit. */
static void shown_model(const char *name, struct buf *out)
{
	char want[SLUG_MAX + 1], got[SLUG_MAX + 1], pre[512], whole[512];
	const char *p = name, *s;
	size_t n, i;

	n = strlen(p);
	if (n >= sizeof pre) {
		buf_puts(out, p);
		return;
	}
	/* The slugs are compared with the organisation kept ('/' as any other
	 * separator), so that only a tail can be left out. */
	for (i = 0; i <= n; i++)
		whole[i] = p[i] == '/' || p[i] == '\\' ? ' ' : p[i];
	if (slug_model(whole, want, sizeof want) != 0) {
		buf_puts(out, p);
		return;
	}
	for (i = 1; i < n; i++) {
		if (is_alnum((unsigned char)p[i]) || !is_alnum((unsigned char)p[i - 1]))
			continue;
		memcpy(pre, whole, i);
		pre[i] = '\0';
		if (slug_model(pre, got, sizeof got) == 0 && !strcmp(got, want)) {
			for (s = p + i; *s && !is_alnum((unsigned char)*s); s++)
				;
			buf_add(out, p, *s ? i : n);
			return;
		}
	}
	buf_puts(out, p);
}

/* name without notes in brackets or a "w/" tail, spaces trimmed. */
static void shown_hw(const char *name, struct buf *out)
{
	size_t start = out->len;
	int depth = 0;
	const char *s;

	for (s = name; *s; s++) {
		if (*s == '(' || *s == '[')
			depth++;
		else if ((*s == ')' || *s == ']') && depth > 0)
			depth--;
		else if (!depth && (!strncasecmp(s, " w/ ", 4) || !strncasecmp(s, " with ", 6)))
			break;
		else if (!depth && !(*s == ' ' && (out->len == start || out->buf[out->len - 1] == ' ')))
			buf_putc(out, *s);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	if (out->len == start)
		buf_puts(out, name);
}

void resolve_shown_name(const struct ceiling_ref *ref, const char *kind, const char *slug,
			const char *name, struct buf *out)
{
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	int model = kind && !strcmp(kind, "model");

	if (model && (m = ceiling_model(ref, slug)))
		buf_puts(out, m->name);
	else if (!model && (h = ceiling_hw(ref, slug)))
		buf_puts(out, h->name);
	else if (name && model)
		shown_model(name, out);
	else if (name)
		shown_hw(name, out);
}

int resolve_payload(const struct ceiling_ref *ref, const json_t *payload, struct resolve_names *out)
{
	struct resolve_in in;
	struct resolve_out r;
	struct buf b = BUF_INIT;
	char own[SLUG_MAX + 1];

	memset(out, 0, sizeof *out);
	resolve_in_of_payload(payload, &in);
	if (resolve_run(ref, &in, &r) < 0)
		return -1;
	snprintf(out->model_slug, sizeof out->model_slug, "%s", r.model_slug);
	snprintf(out->hw_slug, sizeof out->hw_slug, "%s", r.hw_slug);
	if (slug_model(in.model_name, own, sizeof own) == 0 && strcmp(own, r.model_slug))
		snprintf(out->name_slug, sizeof out->name_slug, "%s", own);
	if (slug_hw(in.accel, own, sizeof own) == 0 && strcmp(own, r.hw_slug))
		snprintf(out->accel_slug, sizeof out->accel_slug, "%s", own);
	resolve_shown_name(ref, "model", r.model_slug, in.model_name, &b);
	snprintf(out->model_name, sizeof out->model_name, "%s", buf_error(&b) ? in.model_name : b.buf);
	buf_reset(&b);
	resolve_shown_name(ref, "hw", r.hw_slug, in.accel, &b);
	snprintf(out->accelerator, sizeof out->accelerator, "%s", buf_error(&b) ? in.accel : b.buf);
	buf_release(&b);
	snprintf(out->quant, sizeof out->quant, "%s", r.q.name[0] ? r.q.name : in.quant ? in.quant : "");
	snprintf(out->format, sizeof out->format, "%s",
		 in.format ? in.format : r.q.family ? r.q.family : "");
	out->bin = r.bin;
	snprintf(out->backend_version, sizeof out->backend_version, "%s",
		 version_shown(json_string_value(json_object_get(json_object_get(payload, "backend"), "version"))));
	return 0;
}
