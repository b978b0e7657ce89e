/* slug.c: model and hardware slugs (contract section 2). */
#include "util/slug.h"

#include <stdlib.h>
#include <string.h>

/* Whole words dropped from a hardware slug. */
static const char *const vendor_words[] = {
	"apple", "nvidia", "geforce", "amd", "intel", NULL
};

/* Single trailing tokens dropped from a model slug: formats, quantization
 * schemes and dtypes.  "\d+bit(s)", "\d+bpw" and the ggml k-quant names are
 * recognised by shape in quant_suffix(). */
static const char *const quant_words[] = {
	"gguf", "ggml", "mlx", "safetensors", "onnx", "awq", "gptq", "exl2",
	"exl3", "bnb", "dwq", "ud", "nf4", "int4", "int8", "bf16", "fp16",
	"fp32", "fp8", "fp4", "f16", "f32", "mxfp4", "mxfp6", "mxfp8", "nvfp4",
	"w4a16", "w8a8", "w4a8", "w8a16", NULL
};

/* Tokens that may follow a ggml quant type: q4-k-m, q8-0, iq4-xs, iq2-xxs. */
static const char *const kquant_tails[] = {
	"0", "1", "k", "s", "m", "l", "xs", "xxs", "xl", "nl", "small", "medium", "large", NULL
};

static int is_alnum(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static unsigned char lower(unsigned char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch - 'A' + 'a') : ch;
}

/* 1 when the w bytes at t equal one of the words in list. */
static int tok_in(const char *t, size_t w, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == w && memcmp(t, *list, w) == 0)
			return 1;
	return 0;
}

/* Number of ASCII digits at the start of the w bytes at t. */
static size_t ndigits(const char *t, size_t w)
{
	size_t i = 0;

	while (i < w && t[i] >= '0' && t[i] <= '9')
		i++;
	return i;
}

/* 1 when the token is one or more digits followed by exactly suffix
 * ("" for digits only): 4bit, 65bpw, 4. */
static int digits_then(const char *t, size_t w, const char *suffix)
{
	size_t d = ndigits(t, w);

	return d > 0 && w - d == strlen(suffix) && memcmp(t + d, suffix, w - d) == 0;
}

/* 1 when the token is a ggml quant type: i?q\d+(f\d+)?  (q4, iq4, q4f16). */
static int is_kquant_type(const char *t, size_t w)
{
	size_t i = (w > 0 && t[0] == 'i') ? 1 : 0, d;

	if (i >= w || t[i++] != 'q')
		return 0;
	d = ndigits(t + i, w - i);
	if (d == 0)
		return 0;
	i += d;
	if (i == w)
		return 1;
	return t[i] == 'f' && digits_then(t + i + 1, w - i - 1, "");
}

/* Start of the token that ends (exclusive) at end. */
static size_t tok_start(const char *t, size_t end)
{
	while (end > 0 && t[end - 1] != '-')
		end--;
	return end;
}

/* Start of a trailing ggml quant name (type plus up to two tails) in the
 * slug t of length len, or len when it does not end in one. */
static size_t kquant_suffix(const char *t, size_t len)
{
	size_t e = len, s;
	int i;

	for (i = 0; i < 3; i++) {
		s = tok_start(t, e);
		if (is_kquant_type(t + s, e - s))
			return s;
		if (s == 0 || !tok_in(t + s, e - s, kquant_tails))
			return len;
		e = s - 1;
	}
	return len;
}

/* Start of the trailing quantization or format suffix (one or more tokens)
 * of the slug t of length len, or len when there is none. */
static size_t quant_suffix(const char *t, size_t len)
{
	size_t s = tok_start(t, len), w = len - s, s2;

	if (tok_in(t + s, w, quant_words) || digits_then(t + s, w, "bit") ||
	    digits_then(t + s, w, "bits"))
		return s;
	if (s == 0)
		return len;
	s2 = tok_start(t, s - 1);
	if (w == 3 && memcmp(t + s, "bit", 3) == 0 && digits_then(t + s2, s - 1 - s2, ""))
		return s2;                                     /* 4-bit */
	if (digits_then(t + s, w, "bpw"))                  /* 5bpw, 4-65bpw */
		return digits_then(t + s2, s - 1 - s2, "") ? s2 : s;
	if (w == 7 && memcmp(t + s, "dynamic", 7) == 0 && s - 1 - s2 == 3 &&
	    memcmp(t + s2, "fp8", 3) == 0)
		return s2;                                     /* fp8-dynamic */
	return kquant_suffix(t, len);
}

/* Drops trailing quantization and format suffixes from the slug t of length
 * len, one after another, never the first token.  Returns the new length. */
static size_t strip_quant(const char *t, size_t len)
{
	size_t s;

	while ((s = quant_suffix(t, len)) > 0 && s < len)
		len = s - 1;
	return len;
}

/* Writes the slug of s into t (room for strlen(s) + 1): ASCII letters
 * lowercased, digits kept, every other run of bytes one '-', no '-' at
 * either end.  Returns its length. */
static size_t slugify(const char *s, char *t)
{
	size_t len = 0;
	unsigned char ch;

	for (; *s; s++) {
		ch = lower((unsigned char)*s);
		if (is_alnum(ch))
			t[len++] = (char)ch;
		else if (len > 0 && t[len - 1] != '-')
			t[len++] = '-';
	}
	if (len > 0 && t[len - 1] == '-')
		len--;
	t[len] = '\0';
	return len;
}

/* Removes the tokens of slug t (length len) that are in list, in place.
 * Returns the new length. */
static size_t drop_words(char *t, size_t len, const char *const *list)
{
	size_t r = 0, w = 0, e;

	while (r < len) {
		for (e = r; e < len && t[e] != '-'; e++)
			;
		if (!tok_in(t + r, e - r, list)) {
			if (w > 0)
				t[w++] = '-';
			memmove(t + w, t + r, e - r);
			w += e - r;
		}
		r = e + 1;
	}
	return w;
}

/* Copies the first len bytes of slug t into out (size n), cut to SLUG_MAX
 * with any trailing '-' trimmed.  Returns 0, or -1 (out "") when the result
 * is empty or does not fit. */
static int finish(const char *t, size_t len, char *out, size_t n)
{
	if (len > SLUG_MAX)
		len = SLUG_MAX;
	while (len > 0 && t[len - 1] == '-')
		len--;
	if (len == 0 || len >= n) {
		if (n > 0)
			out[0] = '\0';
		return -1;
	}
	memcpy(out, t, len);
	out[len] = '\0';
	return 0;
}

/* The slug of s by one of the two rules (model: strip the quantization
 * words; hardware: drop the vendor words) into out; 0, or -1 with out "". */
static int slug_of(const char *s, int model, char *out, size_t n)
{
	char *t = s ? malloc(strlen(s) + 1) : NULL;
	size_t len;
	int rc = -1;

	if (t) {
		len = slugify(s, t);
		len = model ? strip_quant(t, len) : drop_words(t, len, vendor_words);
		rc = finish(t, len, out, n);
	}
	if (rc && n > 0)
		out[0] = '\0';
	free(t);
	return rc;
}

int slug_model(const char *name, char *out, size_t n)
{
	const char *slash = name ? strrchr(name, '/') : NULL;

	return slug_of(slash ? slash + 1 : name, 1, out, n);
}

int slug_hw(const char *accelerator_summary, char *out, size_t n)
{
	return slug_of(accelerator_summary, 0, out, n);
}

int slug_valid(const char *s)
{
	size_t i;

	if (!s || !is_alnum((unsigned char)s[0]))
		return 0;
	for (i = 1; s[i]; i++) {
		if (i >= SLUG_MAX)
			return 0;
		if (s[i] == '-' ? s[i - 1] == '-' : !is_alnum((unsigned char)s[i]))
			return 0;
	}
	return s[i - 1] != '-';
}
