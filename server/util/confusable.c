/* confusable.c: skeletons, readings, keys and mixed scripts of names, by
 * ICU's spoof checker and normalizers (confusable.h). */
#include "util/confusable.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>
#include <unicode/uversion.h>

#include "util/utf8.h"
#include "util/nelem.h"

/* Made once (ready()), then only read: ICU's checks on a checker that is
 * not changed may run in many threads at once. */
static USpoofChecker *skel_sc;     /* skeletons */
static USpoofChecker *level_sc;    /* restriction level: highly restrictive */
static USpoofChecker *digits_sc;   /* mixed numbers */
static const UNormalizer2 *nfkc, *nfd;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int usable;

static void set_up(void)
{
	UErrorCode st = U_ZERO_ERROR;

	skel_sc = uspoof_open(&st);
	level_sc = uspoof_open(&st);
	digits_sc = uspoof_open(&st);
	uspoof_setChecks(skel_sc, USPOOF_CONFUSABLE, &st);
	uspoof_setChecks(level_sc, USPOOF_RESTRICTION_LEVEL, &st);
	uspoof_setRestrictionLevel(level_sc, USPOOF_HIGHLY_RESTRICTIVE);
	uspoof_setChecks(digits_sc, USPOOF_MIXED_NUMBERS, &st);
	nfkc = unorm2_getNFKCInstance(&st);
	nfd = unorm2_getNFDInstance(&st);
	usable = U_SUCCESS(st);
	if (!usable)
		fprintf(stderr, "llm-speedd: ICU's spoof checker is not usable (%s): names are not "
			"checked for look-alikes\n", u_errorName(st));
}

/* 1 once the checkers and normalizers are made. */
static int ready(void)
{
	pthread_once(&once, set_up);
	return usable;
}

/* A UTF-16 string on the heap; p is NULL until it holds something. */
struct u16 {
	UChar *p;
	int32_t len, cap;
};

static void u16_release(struct u16 *u)
{
	free(u->p);
	u->p = NULL;
	u->len = u->cap = 0;
}

/* Makes room for cap UTF-16 units and a NUL; 0, or -1 out of memory. */
static int u16_room(struct u16 *u, int32_t cap)
{
	UChar *p;

	if (cap < u->cap)
		return 0;
	if (cap > (1 << 20) || !(p = realloc(u->p, ((size_t)cap + 1) * sizeof *p)))
		return -1;
	u->p = p;
	u->cap = cap + 1;
	return 0;
}

/* What an ICU call writing into out does. */
enum op { OP_FROM_UTF8, OP_NFKC, OP_NFD, OP_SKELETON, OP_LOWER, OP_UPPER };

/* Runs op (not OP_FROM_UTF8) from in into out; returns the length out
 * needs, with *st as ICU leaves it. */
static int32_t run_op(enum op op, const struct u16 *in, struct u16 *out, UErrorCode *st)
{
	switch (op) {
	case OP_FROM_UTF8:
		break;
	case OP_NFKC:
		return unorm2_normalize(nfkc, in->p, in->len, out->p, out->cap, st);
	case OP_NFD:
		return unorm2_normalize(nfd, in->p, in->len, out->p, out->cap, st);
	case OP_SKELETON:
		return uspoof_getSkeleton(skel_sc, 0, in->p, in->len, out->p, out->cap, st);
	case OP_LOWER:
		return u_strToLower(out->p, out->cap, in->p, in->len, "", st);
	case OP_UPPER:
		return u_strToUpper(out->p, out->cap, in->p, in->len, "", st);
	}
	return 0;
}

/* out = op(in) (or op(s) for OP_FROM_UTF8), growing out as ICU asks; 0, or
 * -1 when ICU or memory fails. */
static int apply(enum op op, const struct u16 *in, const char *s, struct u16 *out)
{
	UErrorCode st = U_ZERO_ERROR;
	int32_t need;

	if (op == OP_FROM_UTF8) {
		u_strFromUTF8WithSub(NULL, 0, &need, s, -1, 0xfffd, NULL, &st);
		if (st != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(st))
			return -1;
		st = U_ZERO_ERROR;
		if (u16_room(out, need) < 0)
			return -1;
		u_strFromUTF8WithSub(out->p, out->cap, &out->len, s, -1, 0xfffd, NULL, &st);
		return U_SUCCESS(st) ? 0 : -1;
	}
	if (u16_room(out, in->len + 16) < 0)
		return -1;
	need = run_op(op, in, out, &st);
	if (st == U_BUFFER_OVERFLOW_ERROR) {
		st = U_ZERO_ERROR;
		if (u16_room(out, need) < 0)
			return -1;
		need = run_op(op, in, out, &st);
	}
	out->len = need;
	return U_SUCCESS(st) ? 0 : -1;
}

/* 1 for what draws nothing: Unicode's default-ignorable code points and
 * the others util/utf8.h counts invisible (the blank braille pattern). */
static int invisible(UChar32 c)
{
	return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || utf8_is_invisible((uint32_t)c);
}

/* 1 for a combining mark that draws on the letter before it (general
 * categories Mn and Me). */
static int overlay_mark(UChar32 c)
{
	return (U_GET_GC_MASK(c) & (U_GC_MN_MASK | U_GC_ME_MASK)) != 0;
}

/* Leaves out of u, in place, the code points drop() says to. */
static void u16_drop(struct u16 *u, int (*drop)(UChar32))
{
	int32_t i = 0, j = 0, at;
	UChar32 c;

	while (i < u->len) {
		at = i;
		U16_NEXT(u->p, i, u->len, c);
		if (!drop(c))
			while (at < i)
				u->p[j++] = u->p[at++];
	}
	u->len = j;
}

/* Appends u to b as UTF-8. */
static void u16_put(const struct u16 *u, struct buf *b)
{
	UErrorCode st = U_ZERO_ERROR;
	char stack[512];
	int32_t n = 0;
	char *p;

	u_strToUTF8WithSub(stack, (int32_t)sizeof stack, &n, u->p, u->len, 0xfffd, NULL, &st);
	if (U_SUCCESS(st) && st != U_STRING_NOT_TERMINATED_WARNING) {
		buf_add(b, stack, (size_t)n);
		return;
	}
	if (st != U_BUFFER_OVERFLOW_ERROR || !(p = malloc((size_t)n + 1)))
		return;
	st = U_ZERO_ERROR;
	u_strToUTF8WithSub(p, n + 1, NULL, u->p, u->len, 0xfffd, NULL, &st);
	if (U_SUCCESS(st))
		buf_add(b, p, (size_t)n);
	free(p);
}

/* *out = s in NFKC without invisible characters; 0 or -1. */
static int prepared(const char *s, struct u16 *out)
{
	struct u16 raw = { 0 };
	int rc = -1;

	if (apply(OP_FROM_UTF8, NULL, s, &raw) < 0 || apply(OP_NFKC, &raw, NULL, out) < 0)
		goto out;
	u16_drop(out, invisible);
	rc = 0;
out:
	u16_release(&raw);
	return rc;
}

/* *out = the skeleton of in without combining marks; 0 or -1. */
static int skeleton_bare(const struct u16 *in, struct u16 *out)
{
	struct u16 sk = { 0 };
	int rc = -1;

	if (apply(OP_SKELETON, in, NULL, &sk) < 0 || apply(OP_NFD, &sk, NULL, out) < 0)
		goto out;
	u16_drop(out, overlay_mark);
	rc = 0;
out:
	u16_release(&sk);
	return rc;
}

void confusable_skeleton(const char *s, struct buf *b)
{
	struct u16 a = { 0 }, c = { 0 }, d = { 0 };
	int32_t i;

	if (!ready() || prepared(s, &a) < 0 || skeleton_bare(&a, &c) < 0 ||
	    apply(OP_LOWER, &c, NULL, &d) < 0 || skeleton_bare(&d, &a) < 0)
		goto out;
	for (i = 0; i < a.len; i++)
		if (a.p[i] >= 'a' && a.p[i] <= 'z')
			buf_putc(b, a.p[i] == 'l' ? 'i' : (char)a.p[i]);
out:
	u16_release(&a);
	u16_release(&c);
	u16_release(&d);
}

int confusable_reserved(const char *name)
{
	static const char *const words[] = { "submitter", "moderator" };
	struct buf b = BUF_INIT, w = BUF_INIT;
	int hit = !ready();
	size_t i;

	confusable_skeleton(name, &b);
	for (i = 0; !hit && i < NELEM(words); i++) {
		buf_reset(&w);
		confusable_skeleton(words[i], &w);
		hit = buf_error(&w) || (b.buf && w.buf && strstr(b.buf, w.buf));
	}
	hit |= buf_error(&b);   /* out of memory: refuse rather than guess */
	buf_release(&b);
	buf_release(&w);
	return hit;
}

/* Appends the reading of the one code point c (outside ASCII): its
 * prototype without marks when that is ASCII, nothing when that is empty
 * (a mark), else c itself. */
static void read_one(UChar32 c, struct buf *b)
{
	struct u16 one = { 0 }, bare = { 0 };
	int32_t i, n = 0;
	int ascii = 1;

	if (u16_room(&one, 2) < 0)
		return;
	U16_APPEND_UNSAFE(one.p, n, c);
	one.len = n;
	if (skeleton_bare(&one, &bare) < 0)
		ascii = 0;
	for (i = 0; ascii && i < bare.len; i++)
		ascii = bare.p[i] < 0x80;
	if (ascii)
		u16_put(&bare, b);
	else if (!overlay_mark(c))
		u16_put(&one, b);
	u16_release(&one);
	u16_release(&bare);
}

void confusable_latin(const char *s, struct buf *b)
{
	struct u16 a = { 0 };
	int32_t i = 0;
	UChar32 c;

	if (!ready() || prepared(s, &a) < 0) {
		buf_puts(b, s);
		goto out;
	}
	while (i < a.len) {
		U16_NEXT(a.p, i, a.len, c);
		if (c < 0x80)
			buf_putc(b, (char)c);
		else
			read_one(c, b);
	}
out:
	u16_release(&a);
}

int confusable_keys(const char *s, int (*slug_fn)(const char *, char *, size_t),
		    char keys[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX])
{
	static const enum op cases[CONFUSABLE_KEYS] = { OP_NFKC, OP_LOWER, OP_UPPER };
	struct u16 a = { 0 }, c = { 0 }, d = { 0 };
	struct buf b = BUF_INIT;
	int i, n = 0;

	for (i = 0; i < CONFUSABLE_KEYS; i++)
		keys[i][0] = '\0';
	if (!ready() || prepared(s, &a) < 0)
		goto out;
	for (i = 0; i < CONFUSABLE_KEYS; i++) {
		buf_reset(&b);
		if (cases[i] != OP_NFKC && apply(cases[i], &a, NULL, &c) < 0)
			continue;
		if (skeleton_bare(cases[i] == OP_NFKC ? &a : &c, &d) < 0)
			continue;
		u16_put(&d, &b);
		if (!buf_error(&b) && b.buf && slug_fn(b.buf, keys[i], CONFUSABLE_KEY_MAX) == 0)
			n++;
		else
			keys[i][0] = '\0';
	}
out:
	buf_release(&b);
	u16_release(&a);
	u16_release(&c);
	u16_release(&d);
	return n;
}

/* The scripts of the word s[0..n): the first two other than Common and
 * Inherited into m->script. */
static void word_scripts(const char *s, int32_t n, struct confusable_mix *m)
{
	UScriptCode first = USCRIPT_INVALID_CODE, sc;
	UErrorCode st = U_ZERO_ERROR;
	int32_t i = 0;
	UChar32 c;

	m->script[0] = m->script[1] = "another";
	while (i < n) {
		U8_NEXT(s, i, n, c);
		sc = uscript_getScript(c < 0 ? 0xfffd : c, &st);
		if (U_FAILURE(st) || sc == USCRIPT_COMMON || sc == USCRIPT_INHERITED || sc == first)
			continue;
		if (first == USCRIPT_INVALID_CODE) {
			first = sc;
			m->script[0] = uscript_getName(sc);
		} else {
			m->script[1] = uscript_getName(sc);
			return;
		}
	}
}

/* 1 when the word s[0..n) is not highly restrictive (ICU). */
static int word_mixed(const char *s, int32_t n)
{
	UErrorCode st = U_ZERO_ERROR;
	int32_t r = uspoof_check2UTF8(level_sc, s, n, NULL, &st);

	return U_SUCCESS(st) && (r & USPOOF_RESTRICTION_LEVEL);
}

int confusable_mixed(const char *s, struct confusable_mix *m)
{
	int32_t i = 0, at = -1, prev, n = (int32_t)strlen(s);
	UChar32 c;

	if (!ready())
		return 0;
	for (;;) {
		prev = i;
		c = -1;
		if (i < n)
			U8_NEXT(s, i, n, c);
		if (c >= 0 && (U_GET_GC_MASK(c) & (U_GC_L_MASK | U_GC_M_MASK))) {
			if (at < 0)
				at = prev;
			continue;
		}
		if (at >= 0 && word_mixed(s + at, prev - at)) {
			m->at = (size_t)at;
			m->len = (size_t)(prev - at);
			word_scripts(s + at, prev - at, m);
			return 1;
		}
		at = -1;
		if (i >= n)
			return 0;
	}
}

int confusable_mixed_digits(const char *s)
{
	UErrorCode st = U_ZERO_ERROR;
	int32_t r;

	if (!ready())
		return 0;
	r = uspoof_check2UTF8(digits_sc, s, -1, NULL, &st);
	return U_SUCCESS(st) && (r & USPOOF_MIXED_NUMBERS);
}

void confusable_data_version(char out[64])
{
	UVersionInfo v;
	char uni[U_MAX_VERSION_STRING_LENGTH];

	u_getUnicodeVersion(v);
	u_versionToString(v, uni);
	snprintf(out, 64, "ICU %s Unicode %s", U_ICU_VERSION, uni);
}
