/* slug.h: model and hardware slugs (contract section 2), the names in /m/<slug> and /hw/<slug>.
 *
 * A slug is [a-z0-9]+(-[a-z0-9]+)*, at most SLUG_MAX characters.  Both
 * builders write a NUL-terminated slug into a caller's buffer; nothing is
 * allocated that outlives the call.
 */
#ifndef LLMS_SLUG_H
#define LLMS_SLUG_H

#include <stddef.h>

/* Longest slug, in characters; longer results are cut here (then any
 * trailing '-' trimmed).  A buffer of SLUG_MAX + 1 bytes always suffices. */
#define SLUG_MAX 120

/* Model slug of model.name into out (size n): drop everything up to the last
 * '/', lowercase, turn every run of characters outside [a-z0-9] into one '-',
 * trim '-' at both ends, then drop trailing quantization and format tokens
 * ("4bit", "bf16", "gguf", "mlx", "mxfp4", "q4-k-m", "4-bit", ...) one after
 * another, but never the last token left.  Returns 0, or -1 when the result
 * is empty (no ASCII letter or digit), does not fit in n, or memory runs out. */
int slug_model(const char *name, char *out, size_t n);

/* Hardware slug of hardware.accelerator_summary into out (size n): slugged as
 * above with the words Apple, NVIDIA, GeForce, AMD and Intel dropped (any
 * case, whole words, a word being a run of ASCII letters and digits).  No
 * "org/" or quantization stripping.  Returns 0, or -1 as slug_model. */
int slug_hw(const char *accelerator_summary, char *out, size_t n);

/* 1 when s is a syntactically valid slug ([a-z0-9]+(-[a-z0-9]+)*, 1 to
 * SLUG_MAX characters), else 0.  For routing /m/<slug> and /hw/<slug>. */
int slug_valid(const char *s);

#endif
