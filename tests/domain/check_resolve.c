/* check_resolve.c: the resolver on names as real tools write them (the
 * corpus of tests/vectors/names/ is checked whole by
 * tests/http/test_resolve_corpus.py; these are the rules one at a time). */
#include "check_ref.h"

#include <ctype.h>
#include <math.h>

#include "domain/ceiling.h"
#include "domain/resolve.h"
#include "util/buf.h"

/* The reference model id name resolves to, or "" for none. */
static const char *model_of(const char *name)
{
	const struct ceiling_model *m = resolve_model_name(ref, name);

	return m ? m->id : "";
}

/* The reference hardware id of an upload's accelerator summary, GPU name
 * and VRAM, or "" for none. */
static const char *hw_of(const char *accel, const char *gpu, double vram)
{
	struct resolve_in in = { .accel = accel, .gpu_name = gpu, .vram_gb = vram,
				 .model_name = "x" };
	static struct resolve_out out;

	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	return out.hw ? out.hw->slug : "";
}

static const struct { const char *name, *id; } model_names[] = {
	/* The picker's example and the spellings its runs were uploaded as. */
	{ "Meta-Llama-3.1-8B-Instruct", "llama-3-1-8b" },
	{ "meta-llama/Llama-3.1-8B-Instruct", "llama-3-1-8b" },
	{ "llama3.1:8b-instruct-q4_K_M", "llama-3-1-8b" },
	{ "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3-1-8b" },
	{ "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "llama-3-1-8b" },
	{ "mlx-community/Meta-Llama-3.1-8B-Instruct-4bit", "llama-3-1-8b" },
	{ "hf.co/bartowski/Llama-3.1-8B-Instruct-GGUF:Q4_K_M", "llama-3-1-8b" },
	{ "llama3.1", "llama-3-1-8b" },
	{ "llama-3-1-8b", "llama-3-1-8b" },
	/* Qwen under every tool. */
	{ "Qwen/Qwen2.5-7B-Instruct-AWQ", "qwen2-5-7b" },
	{ "qwen2.5:7b", "qwen2-5-7b" },
	{ "Qwen2.5-7B-Instruct-Q4_K_M", "qwen2-5-7b" },
	{ "mlx-community/Qwen3-Coder-30B-A3B-Instruct-4bit", "qwen3-coder-30b-a3b" },
	{ "Qwen_Qwen3-30B-A3B-Q4_K_M.gguf", "qwen3-30b-a3b" },
	{ "unsloth/Qwen3-30B-A3B-GGUF", "qwen3-30b-a3b" },
	{ "qwen3:30b-a3b-q4_K_M", "qwen3-30b-a3b" },
	/* Split GGUF files, chat tunes, old dot names. */
	{ "gpt-oss-120b-mxfp4-00001-of-00003.gguf", "gpt-oss-120b" },
	{ "llama-2-7b-chat.Q4_K_M.gguf", "llama-2-7b" },
	{ "gemma-2-9b-it", "gemma-2-9b" },
	{ "DeepSeek-R1-Distill-Qwen-7B", "deepseek-r1-distill-qwen-7b" },
	/* llama-bench's description, where only one model has it. */
	{ "gpt-oss 20B MXFP4 MoE", "gpt-oss-20b" },
};

START_TEST(real_model_names_resolve)
{
	ck_assert_msg(!strcmp(model_of(model_names[_i].name), model_names[_i].id), "%s -> %s, not %s",
		      model_names[_i].name, model_of(model_names[_i].name), model_names[_i].id);
}
END_TEST

/* What differs in speed never merges; what several models share, or
 * nobody knows, resolves to nothing (a wrong match is worse than none). */
START_TEST(what_differs_stays_apart)
{
	ck_assert_str_ne(model_of("Llama-3.1-8B-Instruct"), model_of("Llama-3.1-70B-Instruct"));
	ck_assert_str_ne(model_of("Llama-3-8B-Instruct"), model_of("Llama-3.1-8B-Instruct"));
	ck_assert_str_ne(model_of("Qwen2.5-Coder-7B-Instruct"), model_of("Qwen2.5-7B-Instruct"));
	ck_assert_str_ne(model_of("DeepSeek-R1-Distill-Qwen-7B"), model_of("Qwen2.5-7B-Instruct"));
	ck_assert_str_eq(model_of("llama 13B Q4_0"), "");          /* LLaMA 13B or Mistral Small */
	ck_assert_str_eq(model_of("qwen2 7B Q4_K - Medium"), "");  /* Qwen2 or Qwen2.5 */
	ck_assert_str_eq(model_of("Qwen2.5-7B-Instruct-abliterated"), "");
	ck_assert_str_eq(model_of("my-finetune-7b"), "");
	ck_assert_str_eq(model_of(""), "");
}
END_TEST

/* Hardware: notes and "w/" tails are notes; laptop parts and memory
 * variants are machines of their own; the GPU name refines the summary
 * but never replaces it with another machine. */
START_TEST(hardware_strings)
{
	ck_assert_str_eq(hw_of("AMD Ryzen AI Max+ 395 w/ Radeon 8060S", NULL, 0), "ryzen-ai-max-395");
	ck_assert_str_eq(hw_of("AMD Ryzen AI Max+ 395", NULL, 0), "ryzen-ai-max-395");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 4090 Laptop GPU (175W TGP, MUX switch enabled)", NULL, 0),
			 "rtx-4090-laptop-gpu");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 4090", NULL, 0), "rtx-4090");
	ck_assert_str_eq(hw_of("RTX 4090", "NVIDIA GeForce RTX 4090 Laptop GPU", 16), "rtx-4090-laptop-gpu");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 4090", "Apple M3 Max", 0), "rtx-4090");
	ck_assert_str_eq(hw_of("Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes",
			       NULL, 0), "rtx-3090");
	ck_assert_str_eq(hw_of("ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) | uma: 0", NULL, 0),
			 "radeon-rx-7900-xtx");
	ck_assert_str_eq(hw_of("Intel(R) Arc(TM) A770 Graphics", NULL, 16), "arc-a770-16gb");
	ck_assert_str_eq(hw_of("Chipset Model: Apple M3 Max", NULL, 0), "m3-max");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 3080", NULL, 12), "rtx-3080-12gb");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 3080", NULL, 10), "rtx-3080");
	ck_assert_str_eq(hw_of("NVIDIA GeForce RTX 3080", NULL, 0), "");   /* which one? */
	ck_assert_str_eq(hw_of("My Gaming PC", "NVIDIA GeForce RTX 4090", 24), "");
}
END_TEST

/* An unresolved name whose slug is a reference id gets a page of its own,
 * and keeps the contract's slug otherwise. */
START_TEST(unresolved_pages_stay_apart)
{
	struct resolve_in in = { .model_name = "llama 13B Q4_0", .accel = "NVIDIA GeForce RTX 3080" };
	struct resolve_out out;

	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	ck_assert_ptr_null(out.model);
	ck_assert_str_eq(out.model_slug, "llama-13b-unmatched");
	ck_assert_str_eq(out.hw_slug, "rtx-3080-unmatched");
	in.model_name = "SomeOrg/Foo-Bar-7B-Q4_K_M";
	in.accel = "Custom Accelerator (water-cooled)";
	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	ck_assert_str_eq(out.model_slug, "foo-bar-7b");
	ck_assert_str_eq(out.hw_slug, "custom-accelerator");
}
END_TEST

/* The quantization: the field's, else the name's, a width-only label by
 * its family; one canonical spelling. */
START_TEST(quantization_labels)
{
	struct resolve_quant q;

	ck_assert_int_eq(resolve_quant(ref, "q4_k_m", NULL, NULL, NULL, &q), 0);
	ck_assert_str_eq(q.name, "Q4_K_M");
	ck_assert_int_eq(resolve_quant(ref, "4bit", NULL, "Qwen/Qwen2.5-7B-Instruct-AWQ", "vllm", &q), 0);
	ck_assert_str_eq(q.name, "AWQ-4bit");
	ck_assert_int_eq(resolve_quant(ref, "4bit", NULL, "mlx-community/Qwen3-Coder-30B-A3B-Instruct-4bit",
				       "mlx", &q), 0);
	ck_assert_str_eq(q.name, "MLX-4bit");
	ck_assert_int_eq(resolve_quant(ref, NULL, NULL, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
				       "llama.cpp", &q), 0);
	ck_assert_str_eq(q.name, "Q4_K_M");
	ck_assert_str_eq(q.family, "gguf");
	ck_assert_int_eq(resolve_quant(ref, NULL, NULL, "llama 7B Q4_0", "llama.cpp", &q), 0);
	ck_assert_str_eq(q.name, "Q4_0");
	ck_assert_int_eq(resolve_quant(ref, NULL, "exl2", "Llama-3.1-8B-Instruct-exl2_4.0bpw",
				       "exllamav2", &q), 0);
	ck_assert_str_eq(q.name, "EXL2-4.0bpw");
	ck_assert_double_eq(q.bits, 4.0);
	/* A width with no family, and a label nobody uses: unknown. */
	ck_assert_int_eq(resolve_quant(ref, "4bit", NULL, "Foo-7B", "vllm", &q), -1);
	ck_assert_int_eq(resolve_quant(ref, "Q9_ZZ", "gguf", "Foo-7B", "llama.cpp", &q), -1);
	ck_assert_str_eq(q.family, "gguf");
}
END_TEST

/* Pages show the reference's name, else the uploaded one without what
 * the slug rules drop. */
START_TEST(shown_names)
{
	struct buf b = BUF_INIT;

	resolve_shown_name(ref, "model", "llama-3-1-8b", "Meta-Llama-3.1-8B-Instruct-Q4_K_M", &b);
	ck_assert_str_eq(b.buf, ref ? ceiling_model(ref, "llama-3-1-8b")->name : "");
	buf_reset(&b);
	resolve_shown_name(ref, "model", "foo-7b-instruct", "org/Foo-7B-Instruct-Q4_K_M AWQ", &b);
	ck_assert_str_eq(b.buf, "org/Foo-7B-Instruct");
	buf_reset(&b);
	resolve_shown_name(ref, "model", "x", "Foo 'x'", &b);
	ck_assert_str_eq(b.buf, "Foo 'x'");
	buf_reset(&b);
	resolve_shown_name(ref, "hw", "custom-box", "Custom Box (overclocked) w/ Radeon 780M", &b);
	ck_assert_str_eq(b.buf, "Custom Box");
	buf_reset(&b);
	resolve_shown_name(ref, "hw", "ryzen-ai-max-395", "AMD Ryzen AI Max+ 395 w/ Radeon 8060S", &b);
	ck_assert_str_eq(b.buf, "AMD Ryzen AI Max+ 395");
	buf_release(&b);
}
END_TEST

/* A binned chip's bin from its GPU cores, CPU cores or memory; none from
 * memory both bins are sold with. */
START_TEST(bins)
{
	struct resolve_in in = { .model_name = "x", .accel = "Apple M3 Max" };
	struct resolve_out out;

	in.cpu_cores = 14;
	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	ck_assert_int_gt(out.bin, 0);
	ck_assert_double_eq(out.hw->bins[out.bin - 1].peak_gb_s, 300);
	in.cpu_cores = 0;
	in.accel = "Apple M3 Max (40-core GPU)";
	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	ck_assert_double_eq(out.hw->bins[out.bin - 1].peak_gb_s, 400);
	in.accel = "Apple M3 Max";
	ck_assert_int_eq(resolve_run(ref, &in, &out), 0);
	ck_assert_int_eq(out.bin, 0);
}
END_TEST

/* The aliases of two entries never make one key (except memory variants,
 * which memory tells apart): checked on every entry of the data. */
START_TEST(aliases_never_collide)
{
	const struct ceiling_model *m;
	const struct ceiling_hw *h;
	size_t i, j;
	json_t *v;

	for (i = 0; (m = ceiling_model_at(ref, i)); i++) {
		ck_assert_msg(resolve_model_name(ref, m->id) == m, "%s", m->id);
		json_array_foreach((json_t *)m->aliases, j, v) {
			const struct ceiling_model *got = resolve_model_name(ref, json_string_value(v));
			char tag[256];
			size_t c;

			/* An alias that names no size (Ollama's "llama3.1") reads
			 * only names written as Ollama writes them. */
			snprintf(tag, sizeof tag, "%s", json_string_value(v));
			for (c = 0; tag[c]; c++)
				tag[c] = tag[c] == ' ' ? '-' : (char)tolower((unsigned char)tag[c]);
			if (!got)
				got = resolve_model_name(ref, tag);
			ck_assert_msg(got == m, "%s: alias %s -> %s", m->id, json_string_value(v),
				      got ? got->id : "nothing");
		}
	}
	for (i = 0; (h = ceiling_hw_at(ref, i)); i++) {
		if (h->memory_match_gb > 0)
			continue;
		ck_assert_msg(resolve_hw_name(ref, h->name) == h, "%s", h->slug);
		json_array_foreach((json_t *)h->aliases, j, v)
			ck_assert_msg(resolve_hw_name(ref, json_string_value(v)) == h, "%s: alias %s",
				      h->slug, json_string_value(v));
	}
}
END_TEST

static Suite *suite_resolve(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, ref_setup, ref_teardown);
	tcase_add_loop_test(tc, real_model_names_resolve, 0,
			    (int)(sizeof model_names / sizeof model_names[0]));
	tcase_add_test(tc, what_differs_stays_apart);
	tcase_add_test(tc, hardware_strings);
	tcase_add_test(tc, unresolved_pages_stay_apart);
	tcase_add_test(tc, quantization_labels);
	tcase_add_test(tc, shown_names);
	tcase_add_test(tc, bins);
	tcase_add_test(tc, aliases_never_collide);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_resolve)
