/* check_predict_ref.c: what the real reference data (static/reference/)
 * says of a prediction (domain/predict_ref.c): which backends run on which
 * hardware, a combination's class and kin, the refusals (a backend that
 * cannot run there, weights that do not fit), and the evidence rows the
 * store makes of measured combinations. */
#include "check_ref.h"

#include "domain/ceiling.h"
#include "domain/predict.h"

/* Every hardware the data knows: mlx only on Apple silicon, vLLM and
 * ExLlamaV2 never there nor on a processor, TensorRT-LLM on NVIDIA alone,
 * llama.cpp and Ollama everywhere. */
START_TEST(backends_run_only_where_they_can)
{
	const struct ceiling_hw *hw;
	size_t i;

	for (i = 0; (hw = ceiling_hw_at(ref, i)); i++) {
		int apple = !strcmp(hw->vendor, "apple"), nvidia = !strcmp(hw->vendor, "nvidia");

		ck_assert_int_eq(ceiling_backend_runs(ref, "mlx", hw), apple);
		if (apple || hw->cpu) {
			ck_assert_int_eq(ceiling_backend_runs(ref, "vllm", hw), 0);
			ck_assert_int_eq(ceiling_backend_runs(ref, "exllamav2", hw), 0);
		}
		if (!nvidia)
			ck_assert_int_eq(ceiling_backend_runs(ref, "tensorrt-llm", hw), 0);
		ck_assert_int_eq(ceiling_backend_runs(ref, "llama.cpp", hw), 1);
		ck_assert_int_eq(ceiling_backend_runs(ref, "ollama", hw), 1);
	}
	ck_assert_int_eq(ceiling_backend_runs(ref, "vllm", ceiling_hw(ref, "rtx-4090")), 1);
	ck_assert_int_eq(ceiling_backend_runs(ref, "vllm", ceiling_hw(ref, "gtx-1080-ti")), 0);
	ck_assert_int_eq(ceiling_backend_runs(ref, "exllamav2", ceiling_hw(ref, "rtx-4090")), 1);
	ck_assert_int_eq(ceiling_backend_runs(ref, "no-such-backend", ceiling_hw(ref, "rtx-4090")), -1);
}
END_TEST

/* What predict_where tells the store: the three cases. */
START_TEST(where_refuses_what_cannot_be)
{
	struct predict_where w;

	ck_assert_int_eq(predict_where(ref, "llama-3-3-70b", "Q4_K_M", "rtx-4090", "llama.cpp", &w), 0);
	ck_assert_int_eq(w.refusal, PREDICT_NO_FIT);
	ck_assert_double_gt(w.need_gb, 40);
	ck_assert_double_eq(w.have_gb, 24);
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "mlx", &w), 0);
	ck_assert_int_eq(w.refusal, PREDICT_CANNOT_RUN);
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q4_K_M", "m4-max", "vllm", &w), 0);
	ck_assert_int_eq(w.refusal, PREDICT_CANNOT_RUN);
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q4_K_M", "m4-max", "mlx", &w), 0);
	ck_assert_int_eq(w.refusal, PREDICT_OK);
	ck_assert_str_eq(w.kin, "apple");
	ck_assert_str_eq(predict_class_name(w.cls), "dense-4bit");
	/* A mixture of experts is its own class; so are 8- and 16-bit weights. */
	ck_assert_int_eq(predict_where(ref, "qwen3-30b-a3b", "Q4_K_M", "rtx-5090", "llama.cpp", &w), 0);
	ck_assert_str_eq(predict_class_name(w.cls), "moe-4bit");
	ck_assert_str_eq(w.kin, "nvidia");
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q8_0", "rtx-4090", NULL, &w), 0);
	ck_assert_str_eq(predict_class_name(w.cls), "dense-8bit");
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "F16", "rtx-4090", NULL, &w), 0);
	ck_assert_str_eq(predict_class_name(w.cls), "dense-16bit");
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q4_K_M", "ryzen-9-7950x", NULL, &w), 0);
	ck_assert_str_eq(w.kin, "amd-cpu");
	ck_assert_int_eq(predict_where(ref, "no-such-model", "Q4_K_M", "rtx-4090", NULL, &w), -1);
}
END_TEST

/* A measured combination is evidence only where it could run and fit:
 * its row carries the reference's ids, kin, class and ceiling. */
START_TEST(rows_only_of_what_ran_whole)
{
	struct predict_combo row;
	struct predict_where w;

	ck_assert_int_eq(predict_row(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "llama.cpp", 120,
				     PREDICT_MIN_KEYS, 9, &row), 0);
	ck_assert_int_eq(predict_where(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "llama.cpp", &w), 0);
	ck_assert_str_eq(row.model, w.m->id);
	ck_assert_str_eq(row.hw, "rtx-4090");
	ck_assert_str_eq(row.kin, "nvidia");
	ck_assert_str_eq(row.backend, "llama.cpp");
	ck_assert_int_eq(row.cls, w.cls);
	ck_assert_double_eq(row.median, 120);
	ck_assert_double_eq(row.ceiling, w.ceiling);
	ck_assert_double_gt(row.ceiling, row.median);
	ck_assert_int_eq(row.keys, PREDICT_MIN_KEYS);
	/* mlx on an NVIDIA card, a 70B model that spilled out of 24 GB, a
	 * model the data does not know: no evidence. */
	ck_assert_int_eq(predict_row(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "mlx", 120,
				     PREDICT_MIN_KEYS, 9, &row), -1);
	ck_assert_int_eq(predict_row(ref, "llama-3-3-70b", "Q4_K_M", "rtx-4090", "llama.cpp", 3,
				     PREDICT_MIN_KEYS, 9, &row), -1);
	ck_assert_int_eq(predict_row(ref, "no-such-model", "Q4_K_M", "rtx-4090", "llama.cpp", 3,
				     PREDICT_MIN_KEYS, 9, &row), -1);
	/* Above the peak ceiling (about 206 tok/s here): no run reads faster
	 * than the memory allows, so it teaches nothing (issue 37, H7). */
	ck_assert_double_gt(w.peak, w.ceiling);
	ck_assert_int_eq(predict_row(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "llama.cpp", w.peak,
				     PREDICT_MIN_KEYS, 9, &row), 0);
	ck_assert_int_eq(predict_row(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "llama.cpp", w.peak * 1.01,
				     PREDICT_MIN_KEYS, 9, &row), -1);
	ck_assert_int_eq(predict_row(ref, "llama-3-1-8b", "Q4_K_M", "rtx-4090", "llama.cpp", 600,
				     PREDICT_MIN_KEYS, 9, &row), -1);
}
END_TEST

static Suite *suite_predict_ref(void)
{
	Suite *s = suite_create("predict_ref");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, ref_setup, ref_teardown);
	tcase_add_test(tc, backends_run_only_where_they_can);
	tcase_add_test(tc, where_refuses_what_cannot_be);
	tcase_add_test(tc, rows_only_of_what_ran_whole);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_predict_ref)
