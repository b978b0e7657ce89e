/* check_ceiling.c: the bandwidth arithmetic against the explainer's figures,
 * computed from static/reference/ (never copied into the code under test). */
#include "check_ref.h"

#include <math.h>

#include "util/buf.h"
#include "domain/ceiling.h"
#include "util/slug.h"

/* v formatted with three significant digits must read want. */
static void assert_fmt(double v, const char *want)
{
	struct buf b = BUF_INIT;

	ceiling_fmt3(&b, v);
	ck_assert_str_eq(b.buf, want);
	buf_release(&b);
}

START_TEST(fmt3_keeps_trailing_zeros)
{
	assert_fmt(16.0, "16.0");
	assert_fmt(8.5, "8.50");
	assert_fmt(4.6855, "4.69");
	assert_fmt(10.48, "10.5");
	assert_fmt(9.996, "10.0");
	assert_fmt(162.6, "163");
	assert_fmt(0.5, "0.500");
}
END_TEST

/* The explainer's table: Llama 3.1 8B at 8K context (8,192 tokens), FP16
 * cache, on the M2 (100 GB/s peak, 80 GB/s sustained). */
static const struct { const char *format, *bits, *download, *read, *ceiling; } table[] = {
	{ "fp16",     "16.0", "16.0", "17.1", "4.69" },
	{ "q8_0",     "8.50", "8.50", "9.57", "8.36" },
	{ "q6_k",     "6.56", "6.56", "7.63", "10.5" },
	{ "q5_k_m",   "5.67", "5.67", "6.74", "11.9" },
	{ "q4_k_m",   "4.85", "4.85", "5.92", "13.5" },
	{ "mlx-4bit", "4.50", "4.50", "5.57", "14.4" },
	{ "q3_k_m",   "3.91", "3.91", "4.98", "16.1" },
};

START_TEST(weight_format_table)
{
	const struct ceiling_model *m = ceiling_model(ref, "llama-3-1-8b");
	const struct ceiling_bits *f = ceiling_format(ref, table[_i].format);
	const struct ceiling_bits *kv = ceiling_kv(ref, "f16");
	const struct ceiling_hw *hw = ceiling_hw(ref, "m2");
	struct ceiling_step s;

	ck_assert(m && f && kv && hw);
	ceiling_step(m, f->bits, kv->bits, 8 * CEILING_K, 1, ceiling_sustained(hw), &s);
	assert_fmt(f->bits, table[_i].bits);
	assert_fmt(s.weights / CEILING_GB, table[_i].download);
	assert_fmt(s.read / CEILING_GB, table[_i].read);
	assert_fmt(s.tok_s, table[_i].ceiling);
}
END_TEST

/* The sustained bandwidth the table implies is 80 GB/s: 80% of peak. */
START_TEST(table_implies_80_gb_s)
{
	const struct ceiling_hw *hw = ceiling_hw(ref, "m2");

	ck_assert(hw);
	ck_assert(fabs(ceiling_sustained(hw) - 80e9) < 1);
}
END_TEST

/* "2.88x against the cache's 1.05x": from FP16 weights and FP16 cache at
 * 8K, take only the weights to Q4_K_M, or only the cache to q4_0.  And at
 * 8K the cache is 18% of the Q4_K_M step. */
START_TEST(weights_beat_cache_at_8k)
{
	const struct ceiling_model *m = ceiling_model(ref, "llama-3-1-8b");
	double fp16 = ceiling_format(ref, "fp16")->bits, q4 = ceiling_format(ref, "Q4_K_M")->bits;
	double f16kv = ceiling_kv(ref, "f16")->bits, q4kv = ceiling_kv(ref, "q4_0")->bits;
	struct ceiling_step base, w4, c4;
	char s[16];

	ceiling_step(m, fp16, f16kv, 8 * CEILING_K, 1, 80e9, &base);
	ceiling_step(m, q4, f16kv, 8 * CEILING_K, 1, 80e9, &w4);
	ceiling_step(m, fp16, q4kv, 8 * CEILING_K, 1, 80e9, &c4);
	snprintf(s, sizeof s, "%.2fx", w4.tok_s / base.tok_s);
	ck_assert_str_eq(s, "2.88x");
	snprintf(s, sizeof s, "%.2fx", c4.tok_s / base.tok_s);
	ck_assert_str_eq(s, "1.05x");
	snprintf(s, sizeof s, "%.0f%%", 100 * w4.kv / w4.read);
	ck_assert_str_eq(s, "18%");
}
END_TEST

/* Crossover contexts at Q4_K_M weights and an FP16 cache, in K of 1,024
 * tokens: Llama 3.2 3B about 17K, Llama 3.1 8B 36K, Qwen3.5 9B 163K,
 * gpt-oss 20B past 500K (its whole file; the active experts it reads per
 * step cross over far sooner). */
static const struct { const char *model, *k; } crossings[] = {
	{ "llama-3-2-3b", "17" },
	{ "llama-3-1-8b", "36" },
	{ "qwen3-5-9b", "163" },
};

START_TEST(crossover_contexts)
{
	const struct ceiling_model *m = ceiling_model(ref, crossings[_i].model);
	char s[16];

	ck_assert(m);
	snprintf(s, sizeof s, "%.0f", ceiling_crossover(m, 4.85, 16, 0) / CEILING_K);
	ck_assert_str_eq(s, crossings[_i].k);
	/* A dense model reads all it holds: both crossovers agree. */
	ck_assert(fabs(ceiling_crossover(m, 4.85, 16, 1) - ceiling_crossover(m, 4.85, 16, 0)) < 1);
}
END_TEST

START_TEST(gpt_oss_crosses_past_half_a_million)
{
	const struct ceiling_model *m = ceiling_model(ref, "gpt-oss-20b");
	double file = ceiling_crossover(m, 4.85, 16, 0), read = ceiling_crossover(m, 4.85, 16, 1);

	ck_assert(m);
	ck_assert_msg(file / CEILING_K > 500, "%.0fK", file / CEILING_K);
	ck_assert_msg(read < file / 4, "a mixture of experts reads a fraction of its file");
}
END_TEST

/* The sliding layers hold at most their window; the full ones grow. */
START_TEST(sliding_window_caps_the_cache)
{
	const struct ceiling_model *m = ceiling_model(ref, "gpt-oss-20b");
	double a = ceiling_kv_bytes(m, 16, 1000), b = ceiling_kv_bytes(m, 16, 2000);
	double small = ceiling_kv_bytes(m, 16, 64), smaller = ceiling_kv_bytes(m, 16, 32);

	ck_assert(fabs((b - a) - 1000 * ceiling_kv_token_bytes(m, 16)) < 1);
	ck_assert(fabs((small - smaller) - 32 * 2.0 * 24 * 8 * 64 * 2) < 1);
}
END_TEST

/* A batch reads the weights once per step and every stream's cache. */
START_TEST(batch_shares_the_weights)
{
	const struct ceiling_model *m = ceiling_model(ref, "llama-3-1-8b");
	struct ceiling_step one, four;

	ceiling_step(m, 4.85, 16, 4096, 1, 80e9, &one);
	ceiling_step(m, 4.85, 16, 4096, 4, 80e9, &four);
	ck_assert(fabs(four.kv - 4 * one.kv) < 1);
	ck_assert(fabs(four.read - (one.read + 3 * one.kv)) < 1);
	ck_assert(four.aggregate > 3 * one.tok_s && four.tok_s < one.tok_s);
}
END_TEST

/* Hybrid layers add a fixed state that does not grow with context. */
START_TEST(hybrid_state_is_fixed)
{
	const struct ceiling_model *m = ceiling_model(ref, "qwen3-5-9b");
	struct ceiling_step a, b;

	ceiling_step(m, 4.85, 16, 1024, 1, 80e9, &a);
	ceiling_step(m, 4.85, 16, 2048, 1, 80e9, &b);
	ck_assert(a.state > 0 && a.state == b.state);
	ck_assert(fabs((b.kv - a.kv) - 1024 * 2.0 * 8 * 4 * 256 * 2) < 1);
}
END_TEST

/* Every hardware key is what slug_hw makes of the name, so the run page
 * finds it; lookups of unknown names answer NULL. */
START_TEST(hardware_keys_are_site_slugs)
{
	const struct ceiling_hw *h;
	char s[SLUG_MAX + 1];
	size_t i;

	for (i = 0; (h = ceiling_hw_at(ref, i)); i++) {
		ck_assert_int_eq(slug_hw(h->name, s, sizeof s), 0);
		ck_assert_str_eq(s, h->slug);
	}
	ck_assert(i > 0);
	ck_assert(!ceiling_hw(ref, "no-such-gpu"));
	ck_assert(!ceiling_model_by_slug(ref, "no-such-model"));
	ck_assert(!ceiling_format(ref, "q9_z"));
	ck_assert(ceiling_model_by_slug(ref, "gpt-oss-20b") == ceiling_model(ref, "gpt-oss-20b"));
	/* A width alone names no format; in a family it does (resolve.h). */
	ck_assert(!ceiling_format(ref, "4bit"));
	ck_assert(ceiling_generic(ref, "4bit", "mlx") == ceiling_format(ref, "mlx-4bit"));
	ck_assert(ceiling_generic(ref, "4bit", "awq") == ceiling_format(ref, "AWQ-4bit"));
	ck_assert(ceiling_format(ref, "MXFP4") == ceiling_format(ref, "mxfp4"));
}
END_TEST

/* Llama 3.1 8B on an RTX 4090: exact with a label, the GGUF range (Q8_0 to
 * Q4_K_M) without one, nothing without either; the flag's margin. */
START_TEST(range_when_quantization_is_unknown)
{
	struct ceiling_range c, q4, q8;
	json_t *j;

	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", "Q4_K_M", NULL,
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &q4), 0);
	ck_assert_ptr_null(q4.family);
	ck_assert_double_eq(q4.low.step.tok_s, q4.high.step.tok_s);
	/* 1,008 GB/s x 0.8 over 8.03e9 x 4.85 / 8 bytes: about 165 tok/s. */
	ck_assert_double_gt(q4.high.step.tok_s, 150);
	ck_assert_double_lt(q4.high.step.tok_s, 175);
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", "q8_0", "gguf",
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &q8), 0);
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", NULL, "GGUF",
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &c), 0);
	ck_assert_ptr_nonnull(c.family);
	ck_assert_str_eq(c.family->name, "GGUF");
	ck_assert_double_eq(c.low.step.tok_s, q8.high.step.tok_s);
	ck_assert_double_eq(c.high.step.tok_s, q4.high.step.tok_s);
	/* A label the data does not know falls back to the format too. */
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", "Q9_ZZ", "gguf",
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &c), 0);
	ck_assert_ptr_nonnull(c.family);
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", NULL, NULL,
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &c), -1);
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", NULL, "exl9",
					      "rtx-4090", CEILING_CHAT_SHORT_CONTEXT, &c), -1);
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b-instruct", "q4_k_m", "gguf",
					      "no-such-gpu", CEILING_CHAT_SHORT_CONTEXT, &c), -1);
	/* The physical line is the peak bandwidth's ceiling: a run between
	 * the sustained ceiling and it is not above; above it is; only past
	 * 1.5 times it is a run flagged, and without a format the bound is the
	 * lightest format's, higher still. */
	ck_assert_double_gt(q4.high.peak_tok_s, q4.high.step.tok_s * 1.2);
	ck_assert(!ceiling_above(&q4, q4.high.step.tok_s * 1.1));
	ck_assert(ceiling_above(&q4, q4.high.peak_tok_s * 1.01));
	ck_assert(!ceiling_above(&q4, 100));
	ck_assert_double_eq_tol(ceiling_flag_bound(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", 0,
						   CEILING_CHAT_SHORT_CONTEXT),
				CEILING_FLAG_FACTOR * q4.high.peak_tok_s, 1e-9);
	ck_assert_double_gt(ceiling_flag_bound(ref, "llama-3-1-8b", NULL, "rtx-4090", 0,
					       CEILING_CHAT_SHORT_CONTEXT),
			    2.5 * CEILING_FLAG_FACTOR * q4.high.peak_tok_s);
	ck_assert(isinf(ceiling_flag_bound(ref, "no-such-model", "Q4_K_M", "rtx-4090", 0, 384)));
	/* A range of formats never accuses a run. */
	ck_assert_int_eq(ceiling_range_of_run(ref, "llama-3-1-8b", NULL, "gguf", "rtx-4090",
					      CEILING_CHAT_SHORT_CONTEXT, &c), 0);
	ck_assert(!ceiling_above(&c, 10000));
	ck_assert_ptr_nonnull(j = ceiling_range_json(&q8, q8.high.peak_tok_s * 1.05));
	ck_assert(json_is_null(json_object_get(j, "range")));
	ck_assert(json_is_true(json_object_get(j, "above")));
	ck_assert_double_eq(json_number_value(json_object_get(j, "peak_tok_s")), q8.high.peak_tok_s);
	json_decref(j);
	ceiling_range_of_run(ref, "llama-3-1-8b-instruct", NULL, "gguf", "rtx-4090",
			     CEILING_CHAT_SHORT_CONTEXT, &c);
	ck_assert_ptr_nonnull(j = ceiling_range_json(&c, 100));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "range"), "family")), "GGUF");
	ck_assert(strstr(json_string_value(json_object_get(json_object_get(j, "text"), "ceiling")),
			 "\xe2\x80\x93"));
	ck_assert(json_is_false(json_object_get(j, "above")));
	json_decref(j);
}
END_TEST

/* The fingerprint follows the data: the same files, the same digest. */
START_TEST(fingerprint_is_stable)
{
	unsigned char a[32], b[32];
	struct ceiling_ref *again = ref_load();

	ceiling_fingerprint(ref, a);
	ceiling_fingerprint(again, b);
	ck_assert_mem_eq(a, b, 32);
	ceiling_free(again);
}
END_TEST

START_TEST(missing_folder_is_an_error)
{
	struct err err = ERR_INIT;

	ck_assert(!ceiling_load("/nonexistent-folder", &err));
	ck_assert(strstr(err.message, "hardware.json"));
}
END_TEST

static Suite *suite_ceiling(void)
{
	Suite *s = suite_create("ceiling");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, ref_setup, ref_teardown);
	tcase_add_test(tc, fmt3_keeps_trailing_zeros);
	tcase_add_loop_test(tc, weight_format_table, 0, (int)(sizeof table / sizeof table[0]));
	tcase_add_test(tc, table_implies_80_gb_s);
	tcase_add_test(tc, weights_beat_cache_at_8k);
	tcase_add_loop_test(tc, crossover_contexts, 0, (int)(sizeof crossings / sizeof crossings[0]));
	tcase_add_test(tc, gpt_oss_crosses_past_half_a_million);
	tcase_add_test(tc, sliding_window_caps_the_cache);
	tcase_add_test(tc, batch_shares_the_weights);
	tcase_add_test(tc, hybrid_state_is_fixed);
	tcase_add_test(tc, hardware_keys_are_site_slugs);
	tcase_add_test(tc, range_when_quantization_is_unknown);
	tcase_add_test(tc, fingerprint_is_stable);
	tcase_add_test(tc, missing_folder_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_ceiling)
