/* confusable.h: names that look like the reserved ones.
 *
 * An unsigned dispute post may not call itself "the submitter" (only a post
 * signed with the run's key is the submitter's) or "moderator".  People get
 * round an exact comparison with case, spaces and punctuation ("The
 * Sub-Mitter"), invisible characters, accents, fullwidth letters, Cyrillic
 * or Greek look-alikes ("ѕubmіtter") and digits ("subm1tter").  A name's
 * skeleton folds all of these to lower-case ASCII letters, after the idea
 * of Unicode's confusable skeletons (UTS #39) for the characters that
 * matter here; a name is reserved when its skeleton contains a reserved
 * word. */
#ifndef LLMS_CONFUSABLE_H
#define LLMS_CONFUSABLE_H

#include "util/buf.h"

/* Appends the skeleton of UTF-8 s to b: letters folded to a-z, look-alike
 * letters and digits to the ASCII letter they imitate, "rn" to "m", and
 * everything else (spaces, punctuation, marks, invisible and unknown
 * characters) left out. */
void confusable_skeleton(const char *s, struct buf *b);

/* 1 when name's skeleton contains "submitter" or "moderator". */
int confusable_reserved(const char *name);

#endif
