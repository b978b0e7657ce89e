/* version.h: the order of a backend's versions (issue 26).  This is the
 * one place the ordering rule lives; the store, the /changes pages and the
 * model-on-hardware chart order versions only through it.
 *
 * The rules, by backend name (as validate_backends spells it):
 *
 * llama.cpp numbers its releases by build: "b6200".  Accepted: an optional
 * "b" or "B", 1 to 9 digits, then the end or a separator ('-', '+', ' ',
 * '(') and anything after it, which is a commit or build note and not
 * part of the version: "b6200", "6200", "b6200-abc1234" and
 * "6200 (abc1234)" are one version, build 6200.  A dotted version
 * ("0.0.6200", a wrapper's numbering) is not a build: unparsable.
 *
 * Every other backend (mlx, vllm, ollama, exllamav2, and any name not
 * listed) is read as a PEP 440 version, which covers semantic versions:
 * an optional 'v', 1 to VERSION_SEGS release numbers "N(.N)*" (trailing
 * zeros do not count: "0.5" is "0.5.0"), then optionally a pre-release
 * (a/alpha, b/beta, c/rc/pre/preview, a number or none for 0), a post
 * release (post/rev/r), a development release (dev), each with an
 * optional separator ('.', '-', '_') before the tag and between tag and
 * number, and a local or build label after '+', which is not part of the
 * version ("0.2.8+cu121" is "0.2.8").  Letters are case-blind.  The order
 * is PEP 440's:
 *     1.0.dev1 < 1.0a1.dev1 < 1.0a1 < 1.0b2 < 1.0rc1 < 1.0 < 1.0.post1.dev1
 *     < 1.0.post1 < 1.0.1
 * so vLLM's "0.7.0rc1" < "0.7.0", "0.6.3" < "0.6.3.post1" < "0.6.4", and
 * ollama's "0.6.0-rc0" < "0.6.0" (semver's "-rc.1" reads as rc1).
 *
 * Numbers have at most 9 digits.  Spaces around a version are ignored.
 *
 * Anything else is unparsable ("unknown", "abc1234", "1!2.0", "0.5.7-dirty",
 * "", NULL).  Unparsable versions sort BEFORE every parsable one, among
 * themselves by their bytes (strcmp), so the largest version of a
 * combination is always a real one; they are never tested for a change
 * (changes.c skips them).
 *
 * Two strings are the same version when their keys are equal; group runs by
 * version_key(), not by the raw string. */
#ifndef LLMS_VERSION_H
#define LLMS_VERSION_H

#include <stddef.h>

#define VERSION_SEGS 6          /* release numbers at most: "1.2.3.4.5.6" */
/* Bytes a key may need, NUL included: a parsable key is at most 95 bytes;
 * an unparsable one is '0' and the version's bytes (a payload string is at
 * most 100 code points, 400 bytes). */
#define VERSION_KEY_MAX 416

/* What pages show for a backend version that does not look like one. */
#define VERSION_UNRECOGNISED "unrecognised version"
/* The longest version that can look like one, in bytes (spaces around it
 * aside). */
#define VERSION_SHOWN_MAX 64

/* 1 when v looks like a version, whatever the backend, so that pages may
 * show it (issue 37: "99.0 SECURITY: update from https://evil.example"
 * must not reach them): spaces around it aside, at most
 * VERSION_SHOWN_MAX bytes of
 *     [v|V|b|B] N(.N)*   1 to VERSION_SEGS numbers of 1 to 9 digits
 *     then any of the pre, post and dev parts of the PEP 440 rule above
 *         ("rc1", "-rc.1", ".post2", ".dev0", "a1", "-beta")
 *     then optionally a local label: '+' and letters and digits in dotted
 *         parts ("+cu121", "+cuda")
 *     then optionally a commit: '-' or ' ' and 7 to 40 lowercase hex
 *         digits, or " (" those ")" ("b6200-abc1234", "6200 (abc1234)");
 * or a bare commit hash of 7 to 40 lowercase hex digits ("abc1234").
 * NULL and anything else, letters of another word included ("0.5.7-dirty",
 * "main", "99.0 SECURITY: ..."), do not.  A version that looks like one
 * need not be parsable for ordering (a commit hash is not). */
int version_looks_like(const char *v);

/* v when it looks like a version, else VERSION_UNRECOGNISED: the version a
 * run's row keeps and every page shows (its signed payload keeps v). */
const char *version_shown(const char *v);

/* 1 when v is a version of backend that the rules above place, else 0. */
int version_parsable(const char *backend, const char *v);

/* Writes v's sort key into out, NUL-terminated: strcmp() of two keys of one
 * backend has the sign of version_cmp(), and keys are equal exactly when
 * the versions are the same.  Printable ASCII for a parsable version
 * ('1' then fixed fields: each number as its digit count and its digits,
 * "0.5.7" is "1101517101010z10010110"), '0' and the bytes of v otherwise,
 * so it can be an indexed TEXT column (ORDER BY key is version order).
 * Returns the key's length, or -1 (out then "") when outlen is too small;
 * VERSION_KEY_MAX is always enough for a payload's version. */
int version_key(const char *backend, const char *v, char *out, size_t outlen);

/* Orders two versions of backend: < 0 when a is older, 0 when they are the
 * same version, > 0 when a is newer.  Total and deterministic for any
 * strings (NULL reads as "", unparsable); no allocation. */
int version_cmp(const char *backend, const char *a, const char *b);

/* Writes the version as pages show it into out: "b6200" for a llama.cpp
 * build, PEP 440's normal form without the local label for the others
 * ("0.7.0rc1", "0.6.3.post1", "0.5.7" for "v0.5.7"), v itself when
 * unparsable.  Returns its length, or -1 (out then "") when outlen is too
 * small. */
int version_canon(const char *backend, const char *v, char *out, size_t outlen);

#endif
