/* check_slug.c: model and hardware slugs of server/util/slug.c (contract section 2). */
#include "check_util.h"
#include "util/slug.h"

struct slug_case {
	const char *in, *want;     /* want NULL: the slug is refused */
};

static const struct slug_case model_cases[] = {
	/* the contract's examples */
	{ "Qwen2.5-7B-Instruct", "qwen2-5-7b-instruct" },
	{ "Qwen2.5-Coder-32B-Instruct-4bit", "qwen2-5-coder-32b-instruct" },
	{ "meta-llama/Llama-4-Scout", "llama-4-scout" },
	{ "Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder-30b-a3b-instruct" },
	/* org prefixes: everything up to the last '/' */
	{ "mlx-community/Qwen2.5-Coder-32B-Instruct-4bit", "qwen2-5-coder-32b-instruct" },
	{ "hf.co/bartowski/Llama-3.3-70B-Instruct-GGUF", "llama-3-3-70b-instruct" },
	{ "org/", NULL },
	{ "/", NULL },
	/* quantization and format tokens, repeatedly */
	{ "gpt-oss-20b-MXFP4-Q4", "gpt-oss-20b" },
	{ "gpt-oss-120b-MXFP4", "gpt-oss-120b" },
	{ "Llama-3.3-70B-Instruct-Q4_K_M.gguf", "llama-3-3-70b-instruct" },
	{ "llama 8B Q4_K - Medium", "llama-8b" },          /* llama-bench's model_type */
	{ "Mistral-Small", "mistral-small" },              /* a tail word, no quant type */
	{ "Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "meta-llama-3-1-8b-instruct" },
	{ "Qwen3-30B-A3B-UD-Q4_K_XL.gguf", "qwen3-30b-a3b" },
	{ "Mistral-7B-Instruct-v0.3.IQ4_XS.gguf", "mistral-7b-instruct-v0-3" },
	{ "phi-4-IQ2_XXS", "phi-4" },
	{ "gemma-2-9b-it-Q6_K", "gemma-2-9b-it" },
	{ "Llama-3.2-3B-Instruct-bf16", "llama-3-2-3b-instruct" },
	{ "Llama-3.2-3B-Instruct-fp16-mlx", "llama-3-2-3b-instruct" },
	{ "DeepSeek-R1-Distill-Qwen-7B-8bit", "deepseek-r1-distill-qwen-7b" },
	{ "Qwen3-30B-A3B-Instruct-2507-4bit-DWQ", "qwen3-30b-a3b-instruct-2507" },
	{ "Mistral-Small-24B-Instruct-2501-4-bit", "mistral-small-24b-instruct-2501" },
	{ "Meta-Llama-3.1-8B-Instruct-AWQ-INT4", "meta-llama-3-1-8b-instruct" },
	{ "Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "meta-llama-3-1-8b-instruct" },
	{ "Llama-3-70B-Instruct-exl2-4.65bpw", "llama-3-70b-instruct" },
	{ "llama-3-8b-bnb-4bit", "llama-3-8b" },
	{ "Qwen2.5-7B-Instruct-q4f16_1-MLC", "qwen2-5-7b-instruct-q4f16-1-mlc" },
	/* never the whole name, and only trailing tokens */
	{ "4bit", "4bit" },
	{ "MLX-4bit", "mlx" },
	{ "Q4_K_M", "q4-k-m" },
	{ "gguf-bf16", "gguf" },
	{ "mlx-Qwen-7B", "mlx-qwen-7b" },
	{ "Mistral-7B-v0.1", "mistral-7b-v0-1" },
	{ "Llama-4-Scout-17B-16E", "llama-4-scout-17b-16e" },
	{ "Phi-3-mini-4k-instruct", "phi-3-mini-4k-instruct" },
	{ "SDXL", "sdxl" },
	/* punctuation and Unicode */
	{ "  --Qwen__2.5!!  ", "qwen-2-5" },
	{ "Llama-3-8B-\xd0\x98\xd0\xbd\xd1\x81\xd1\x82\xd1\x80\xd1\x83\xd0\xba\xd1\x82", "llama-3-8b" },
	{ "\xe9\x80\x9a\xe4\xb9\x89\xe5\x8d\x83\xe9\x97\xae-7B", "7b" },
	{ "Caf\xc3\xa9-7B", "caf-7b" },
	{ "\xe9\x80\x9a\xe4\xb9\x89\xe5\x8d\x83\xe9\x97\xae", NULL },
	{ "???", NULL },
	{ "-_-/.", NULL },
	{ "", NULL },
};

static const struct slug_case hw_cases[] = {
	{ "M3 Ultra", "m3-ultra" },
	{ "NVIDIA GeForce RTX 4090", "rtx-4090" },
	{ "Apple M3 Ultra", "m3-ultra" },
	{ "AMD Radeon RX 7900 XTX", "radeon-rx-7900-xtx" },
	{ "nvidia geforce rtx 3090 ti", "rtx-3090-ti" },
	{ "NVIDIA-GeForce-RTX-5090", "rtx-5090" },
	{ "2x NVIDIA RTX 6000 Ada", "2x-rtx-6000-ada" },
	{ "Intel(R) Arc(TM) A770", "r-arc-tm-a770" },
	{ "Intel Core Ultra 7 155H", "core-ultra-7-155h" },
	{ "AMD Ryzen AI Max+ 395", "ryzen-ai-max-395" },
	/* whole words only */
	{ "Applesilicon M4", "applesilicon-m4" },
	{ "AMDX 1", "amdx-1" },
	{ "Radeon Pro (AMD)", "radeon-pro" },
	/* no org or quantization stripping for hardware */
	{ "Jetson AGX/Orin 64GB", "jetson-agx-orin-64gb" },
	{ "Gaudi 3 fp8", "gaudi-3-fp8" },
	{ "Apple", NULL },
	{ "NVIDIA GeForce", NULL },
	{ "  ", NULL },
	{ "", NULL },
};

START_TEST(model_slugs)
{
	const struct slug_case *c = &model_cases[_i];
	char out[128];
	int rc = slug_model(c->in, out, sizeof out);

	if (c->want) {
		ck_assert_msg(rc == 0, "slug_model(\"%s\") failed", c->in);
		ck_assert_str_eq(out, c->want);
		ck_assert(slug_valid(out));
	} else {
		ck_assert_msg(rc == -1, "slug_model(\"%s\") gave \"%s\"", c->in, out);
		ck_assert_str_eq(out, "");
	}
}
END_TEST

START_TEST(hw_slugs)
{
	const struct slug_case *c = &hw_cases[_i];
	char out[128];
	int rc = slug_hw(c->in, out, sizeof out);

	if (c->want) {
		ck_assert_msg(rc == 0, "slug_hw(\"%s\") failed", c->in);
		ck_assert_str_eq(out, c->want);
		ck_assert(slug_valid(out));
	} else {
		ck_assert_msg(rc == -1, "slug_hw(\"%s\") gave \"%s\"", c->in, out);
		ck_assert_str_eq(out, "");
	}
}
END_TEST

START_TEST(long_names_are_cut)
{
	char in[801], out[SLUG_MAX + 1];
	size_t i;

	/* 200 characters "ab-ab-...": cut at 120, no trailing '-' */
	for (i = 0; i < 200; i++)
		in[i] = "ab-"[i % 3];
	in[200] = '\0';
	ck_assert_int_eq(slug_model(in, out, sizeof out), 0);
	ck_assert_uint_eq(strlen(out), 119);
	ck_assert(slug_valid(out));
	ck_assert_int_eq(slug_hw(in, out, sizeof out), 0);
	ck_assert(slug_valid(out));

	/* 800 bytes of multibyte characters and letters */
	for (i = 0; i + 4 <= 800; i += 4)
		memcpy(in + i, "\xe6\x97\xa5x", 4);
	in[800] = '\0';
	ck_assert_int_eq(slug_model(in, out, sizeof out), 0);
	ck_assert(slug_valid(out));
	ck_assert_uint_le(strlen(out), SLUG_MAX);
}
END_TEST

START_TEST(small_buffer_refused)
{
	char out[8];

	ck_assert_int_eq(slug_model("Qwen2.5-7B-Instruct", out, sizeof out), -1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(slug_model("Qwen2", out, sizeof out), 0);
	ck_assert_str_eq(out, "qwen2");
	ck_assert_int_eq(slug_model("abcdefg", out, sizeof out), 0);
	ck_assert_int_eq(slug_model("abcdefgh", out, sizeof out), -1);
	ck_assert_int_eq(slug_hw("M3 Ultra", out, 0), -1);
	ck_assert_int_eq(slug_model(NULL, out, sizeof out), -1);
	ck_assert_int_eq(slug_hw(NULL, out, sizeof out), -1);
}
END_TEST

START_TEST(valid_slugs)
{
	char s[SLUG_MAX + 2];

	ck_assert(slug_valid("qwen2-5-7b-instruct"));
	ck_assert(slug_valid("m3-ultra"));
	ck_assert(slug_valid("a"));
	ck_assert(slug_valid("4090"));
	ck_assert(!slug_valid(""));
	ck_assert(!slug_valid(NULL));
	ck_assert(!slug_valid("-a"));
	ck_assert(!slug_valid("a-"));
	ck_assert(!slug_valid("a--b"));
	ck_assert(!slug_valid("A"));
	ck_assert(!slug_valid("a_b"));
	ck_assert(!slug_valid("a.json"));
	ck_assert(!slug_valid("a/b"));
	ck_assert(!slug_valid("../x"));
	ck_assert(!slug_valid("a%20b"));
	ck_assert(!slug_valid("caf\xc3\xa9"));
	memset(s, 'a', SLUG_MAX);
	s[SLUG_MAX] = '\0';
	ck_assert(slug_valid(s));
	s[SLUG_MAX] = 'a';
	s[SLUG_MAX + 1] = '\0';
	ck_assert(!slug_valid(s));
}
END_TEST

static Suite *suite_slug(void)
{
	Suite *s = suite_create("slug");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, model_slugs, 0, (int)(sizeof model_cases / sizeof model_cases[0]));
	tcase_add_loop_test(tc, hw_slugs, 0, (int)(sizeof hw_cases / sizeof hw_cases[0]));
	tcase_add_test(tc, long_names_are_cut);
	tcase_add_test(tc, small_buffer_refused);
	tcase_add_test(tc, valid_slugs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_slug)
