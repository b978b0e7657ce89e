/* shown.h: which names a model or hardware page may be shown by (issue
 * 37, H5).  A page whose name resolves shows its reference's name; an
 * unresolved one shows the name most counted keys sent (migration 0021),
 * among the names that look like a model's or a machine's.  An upload
 * under another name is stored and counted as ever: the rule decides only
 * what is shown.
 *
 * A name does not look like one when, read with its look-alike letters as
 * the ASCII ones (util/confusable.h, confusable_latin: a fullwidth dot is
 * a dot) and case aside, it holds
 *   - "://" (a URL) or a word that starts "www.";
 *   - a domain: two or more labels of ASCII letters, digits and '-' joined
 *     by single dots, the last one of 2 to 63 letters or an IDNA "xn--"
 *     label, as every top-level domain is, unless it is one of names.json's
 *     shown.files labels, file types such as "gguf" ("evil.example",
 *     "hf.co", "x.rocks"; not "Qwen2.5", "Q4.0", "Q4_K_M.gguf");
 *   - an IPv4 address: four dotted numbers of at most three digits;
 *   - an "@" between two ASCII letters or digits (an e-mail address). */
#ifndef LLMS_SHOWN_H
#define LLMS_SHOWN_H

#include "domain/ceiling.h"

/* 1 when name may be a page's shown name by the rule above, 0 when not.
 * ref NULL: no file types are known (every letter label is a domain). */
int shown_ok(const struct ceiling_ref *ref, const char *name);

#endif
