/* confusable.h: names that look like other names, by ICU's spoof checker
 * (libicu's uspoof: Unicode's confusables data and the rules of UTS #39,
 * "Unicode Security Mechanisms"), not by a table of our own.
 *
 * Three uses:
 *
 * - An unsigned dispute post may not call itself "the submitter" (only a
 *   post signed with the run's key is the submitter's) or "moderator",
 *   however it is spelt: case, spaces and punctuation ("The Sub-Mitter"),
 *   invisible characters, accents, fullwidth letters, Cyrillic or Greek
 *   look-alikes ("ѕubmіtter"), digits ("subm1tter"), "rn" for "m".
 * - A model or hardware name that only looks like an existing page's name
 *   must not make a page of its own (issues 23 and 37): its keys
 *   (confusable_keys) are compared with those of every page's names
 *   (store/names.c), and its reading (confusable_latin) is resolved as an
 *   upload is.
 * - A word spelt in two scripts ("Cоder" with a Cyrillic о), or digits of
 *   two number systems, is refused outright (confusable_mixed,
 *   confusable_mixed_digits).
 *
 * Every function is safe to call from any thread (one spoof checker of
 * each kind is made once and only read); text that is not well-formed
 * UTF-8 is read with U+FFFD for each bad byte.  Should ICU fail to set up,
 * which only a broken install does, names are kept as they are: nothing
 * reads as anything else, nothing is mixed, but every author name is
 * reserved (refuse rather than guess). */
#ifndef LLMS_CONFUSABLE_H
#define LLMS_CONFUSABLE_H

#include <stddef.h>

#include "util/buf.h"

/* Appends to b what s comes to when look-alikes are folded: NFKC, without
 * default-ignorable (invisible) characters, then its UTS #39 skeleton
 * (ICU's uspoof_getSkeleton: each character as the prototype of its
 * confusables, "m" as "rn", "0" as "O", "1", "I" and "|" as "l", Cyrillic
 * "о" as "o"), without combining marks, lower-cased, skeleton again (so
 * "M" folds as "m" does), and then only its ASCII letters, "l" read as
 * "i" (the dot of an i is too small to tell a 1, an I or an l from it in
 * a name).  "The Sub-Mitter!" is "thesubrnitter". */
void confusable_skeleton(const char *s, struct buf *b);

/* 1 when name's skeleton contains the skeleton of "submitter" or
 * "moderator". */
int confusable_reserved(const char *name);

/* Appends to b the UTF-8 name s as it reads: NFKC (fullwidth, ligatures,
 * mathematical and other compatibility letters as the letters they are),
 * default-ignorable characters and combining marks left out, and every
 * other character outside ASCII whose UTS #39 prototype, without its
 * marks, is ASCII written as that prototype (Cyrillic "А" as "A", Armenian
 * "օ" as "o", Latin "ɑ" as "a", Cherokee "Ꮮ" as "L", "é" as "e"); the rest
 * kept as it is, ASCII included. */
void confusable_latin(const char *s, struct buf *b);

/* Keys a name is compared by: the UTS #39 skeleton of its NFKC form
 * without default-ignorable characters, as sent, lower-cased and
 * upper-cased (a page's slug is case-blind, and a capital I looks like a
 * small l only in its own case), without combining marks, through the slug
 * rules slug_fn (util/slug.h: slug_model or slug_hw).  Two names read the
 * same when a key of one equals a key of the other: "LIama-3.1-8B",
 * "Llarna-3.1-8B" and "Llama-3.1-8B" all have the key "llarna-3-l-8b".
 * Writes the keys into keys[0..CONFUSABLE_KEYS) ("" for one with no slug;
 * the same key may come twice) and returns how many are not "". */
#define CONFUSABLE_KEYS 3
#define CONFUSABLE_KEY_MAX 128
int confusable_keys(const char *s, int (*slug_fn)(const char *, char *, size_t),
		    char keys[CONFUSABLE_KEYS][CONFUSABLE_KEY_MAX]);

/* A word spelt in two scripts. */
struct confusable_mix {
	size_t at, len;            /* the word: bytes s[at .. at + len) */
	const char *script[2];     /* the first two scripts in it: "Latin", "Cyrillic", ... */
};

/* 1 when a word of s (a run of letters and combining marks; digits,
 * spaces and punctuation end a word) mixes scripts beyond what UTS #39
 * calls highly restrictive (ICU's restriction level: one script, or Latin
 * with Han and Japanese kana or Korean Hangul; Latin with Greek,
 * Cyrillic, Armenian, Cherokee ... is not), with the first such word in
 * *m; else 0.  A word wholly in one script is a name like any other,
 * whatever the scripts of the other words. */
int confusable_mixed(const char *s, struct confusable_mix *m);

/* 1 when s holds digits of two number systems ("4٠90", ASCII 4 and an
 * Arabic-Indic zero: ICU's mixed-numbers check, UTS #39 section 5.3). */
int confusable_mixed_digits(const char *s);

/* Writes what the keys depend on, "ICU 72.1 Unicode 15.0", into out, so
 * that keys kept from another version can be made again. */
void confusable_data_version(char out[64]);

#endif
