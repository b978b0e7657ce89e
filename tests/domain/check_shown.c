/* check_shown.c: which names a page may be shown by, of
 * server/domain/shown.c (issue 37, H5), with the reference data's labels. */
#include "check_util.h"
#include "domain/ceiling.h"
#include "domain/shown.h"
#include "util/err.h"

static struct ceiling_ref *ref;

static void setup(void)
{
	struct err err = ERR_INIT;
	char dir[1024];

	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	ref = ceiling_load(dir, &err);
	ck_assert_msg(ref != NULL, "%s", err.message);
}

static void teardown(void)
{
	ceiling_free(ref);
	ref = NULL;
}

/* Names as tools print them, from the resolver's corpus and the issues. */
START_TEST(model_and_hardware_names_may_be_shown)
{
	static const char *const ok[] = {
		"Acme-Coder-30B-A3B-Instruct", "Qwen/Qwen2.5-Coder-32B-Instruct", "Qwen2.5-7B",
		"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama3.1:8b-instruct-q4_K_M",
		"mlx-community/Qwen3-30B-A3B-4bit", "DeepSeek-V2.5", "Phi-3.5-mini-instruct",
		"gpt-oss-20b", "Mistral-7B-Instruct-v0.3", "Llama 3.1 8B Instruct",
		"AMD Ryzen AI Max+ 395 w/ Radeon 8060S", "NVIDIA GeForce RTX 4090",
		"Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9", "Apple M3 Ultra",
		"Intel(R) Core(TM) i9-13900K", "Qwen1.5-MoE-A2.7B", "EXL2-4.0bpw", "v1.2.3",
		"model.safetensors", "Yi-1.5-34B", "llama-2-7b-chat.ggmlv3.q4_0.bin",
		"lmstudio-community\\Meta-Llama-3.1-8B-Instruct-GGUF\\Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
		"TheBloke/Mixtral-8x7B-Instruct-v0.1.Q3_K_M.gguf", "ik_llama.cpp build", "Acme \xe2\x80\x94 \xd0\x9f\xd0\x9e\xd0\x94\xd0\x94\xd0\x95\xd0\x9b\xd0\x9a\xd0\x90",
	};
	size_t i;

	for (i = 0; i < sizeof ok / sizeof *ok; i++)
		ck_assert_msg(shown_ok(ref, ok[i]), "%s", ok[i]);
}
END_TEST

/* Without the reference data no label is known as a file type: every
 * dotted word ending in letters reads as a domain (refuse rather than
 * guess); names without one are shown as ever. */
START_TEST(no_reference_data_refuses_file_names_too)
{
	ck_assert(!shown_ok(NULL, "Acme-Coder.gguf"));
	ck_assert(!shown_ok(NULL, "evil.example"));
	ck_assert(shown_ok(NULL, "Qwen2.5-7B"));
}
END_TEST

START_TEST(names_with_an_address_are_never_shown)
{
	static const char *const bad[] = {
		"FAKE WEIGHTS - download at evil.example/Acme-Coder-30B-A3B-Instruct",
		"https://evil.example/x/Acme-Coder", "ftp://files/Acme", "Acme www.evil/Coder",
		"evil.com/Acme-Coder", "Acme-Coder (mirror: dl.evil.example)", "hf.co/Acme/Acme-Coder",
		"Acme EVIL.COM Coder", "Acme-Coder-30B at 203.0.113.5/weights", "mail admin@evil.example",
		"ask me@x", "Acme-Coder evil\xef\xbc\x8e" "com",          /* a fullwidth dot */
		"Acme-Coder \xef\xbd\x85vil.com",                          /* a fullwidth e */
		"Acme.Coder.download", "get-it.xyz", "Acme-Coder.zip",
		/* top-level domains no list names: every letter label is one */
		"Acme-Coder evil.rocks", "x.ninja/Acme", "Acme-Coder-weights.lol",
		"Acme evil.xn--p1ai", "Acme-Coder model.pt",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(!shown_ok(ref, bad[i]), "%s", bad[i]);
}
END_TEST

static Suite *suite_shown(void)
{
	Suite *s = suite_create("shown");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, model_and_hardware_names_may_be_shown);
	tcase_add_test(tc, names_with_an_address_are_never_shown);
	tcase_add_test(tc, no_reference_data_refuses_file_names_too);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_shown)
