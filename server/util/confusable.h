/* confusable.h: names that look like other names.
 *
 * Two uses, one table of look-alike letters (after the idea of Unicode's
 * confusable skeletons, UTS #39, for the characters that matter here):
 *
 * - An unsigned dispute post may not call itself "the submitter" (only a
 *   post signed with the run's key is the submitter's) or "moderator".
 *   People get round an exact comparison with case, spaces and punctuation
 *   ("The Sub-Mitter"), invisible characters, accents, fullwidth letters,
 *   Cyrillic or Greek look-alikes ("ѕubmіtter") and digits ("subm1tter").
 *   A name's skeleton folds all of these to lower-case ASCII letters; a
 *   name is reserved when its skeleton contains a reserved word.
 * - A model or hardware name that only looks like an existing one
 *   ("Qwen3-Cоder" with a Cyrillic о) must not make a look-alike page
 *   (issue 23): confusable_latin() gives the name as it reads, whose slug
 *   the upload compares with the slugs that exist, and confusable_mixed()
 *   finds a word spelt in two scripts.
 *
 * In util/ so that ingest/ (uploads) and disputes/ (posts) both reach it. */
#ifndef LLMS_CONFUSABLE_H
#define LLMS_CONFUSABLE_H

#include <stddef.h>

#include "util/buf.h"

/* Appends the skeleton of UTF-8 s to b: letters folded to a-z, look-alike
 * letters and digits to the ASCII letter they imitate, "rn" to "m", and
 * everything else (spaces, punctuation, marks, invisible and unknown
 * characters) left out. */
void confusable_skeleton(const char *s, struct buf *b);

/* 1 when name's skeleton contains "submitter" or "moderator". */
int confusable_reserved(const char *name);

/* Appends to b the UTF-8 name s as it reads: each letter that imitates an
 * ASCII letter (Greek and Cyrillic look-alikes, fullwidth forms, the
 * dotless i, Latin-1 letters with accents) as that letter, keeping its
 * case, or beside an ASCII digit as the digit it imitates (the Cyrillic О
 * of "RTX 4О90" reads as 0); fullwidth digits as digits; invisible
 * characters (utf8.h) left
 * out; everything else, ASCII included, kept as it is.  Malformed bytes
 * are kept too (the upload refuses them before). */
void confusable_latin(const char *s, struct buf *b);

/* A word spelt in two scripts. */
struct confusable_mix {
	size_t at, len;            /* the word: bytes s[at .. at + len) */
	const char *script[2];     /* the first two scripts in it: "Latin", "Greek", "Cyrillic" */
};

/* 1 when a word of s (a run of letters and combining marks; digits,
 * spaces and punctuation end a word) holds letters of two of the scripts
 * Latin, Greek and Cyrillic, with the first such word in *m; else 0. */
int confusable_mixed(const char *s, struct confusable_mix *m);

#endif
