/* check_page_describe.c: each page's <meta name="description">
 * (server/pages/page_describe.c) from the view models the builders make in
 * process: a run's own figures, a model's fastest combination, the board's
 * counts, the fixed sentence of a reference page, and the fallback. */
#include "check_pages.h"

static struct pages P;
static char id[RUN_ID_LEN];

static void setup(void)
{
	pages_begin(&P, "check_page_describe");
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 61.2,
		  .prefill_tok_s = 480, .ttft_ms = 250 }, "key-a", id);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 140.5 }, "key-b", NULL);
	/* Two more keys each confirm both combinations (issue 35); a third
	 * model has one key and awaits confirmation. */
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 61.2 }, "key-c", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 61.2 }, "key-d", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 140.5 }, "key-c", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Qwen3-8B", .accelerator = "NVIDIA GeForce RTX 4090",
		  .decode_tok_s = 140.5 }, "key-d", NULL);
	pages_run(&P, &(struct sample_opts){ .model = "Phi-4", .accelerator = "M3 Ultra",
		  .backend = "mlx", .backend_version = "0.31.3", .decode_tok_s = 300.0 }, "key-e", NULL);
}

static void teardown(void)
{
	pages_end(&P);
}

/* The description of template name for the view model of target. */
static void describe(const char *name, const char *target, struct buf *d)
{
	struct page_req q;
	json_t *m = pages_build(pages_get(&q, &P, target));

	ck_assert_msg(m, "%s: %s", target, q.v.err.message);
	buf_reset(d);
	page_describe(d, name, m);
	ck_assert(!buf_error(d));
	pages_done(&q, m);
}

/* A run's description is its own figures, names and date. */
START_TEST(a_run_says_its_figures)
{
	struct buf d = BUF_INIT;
	char target[40];

	snprintf(target, sizeof target, "/r/%s", id);
	describe("run", target, &d);
	ck_assert_msg(!strncmp(d.buf, "Qwen3-8B", 8), "%s", d.buf);
	ck_assert_msg(strstr(d.buf, " on M3 Ultra with mlx 0.31.3: "), "%s", d.buf);
	ck_assert_msg(strstr(d.buf, "61.2 tok/s decode, 480.0 tok/s prefill, 250.0 ms to first token (chat-short)"),
		      "%s", d.buf);
	ck_assert_msg(strstr(d.buf, "a signed run of "), "%s", d.buf);
	buf_release(&d);
}
END_TEST

/* A model's description names its fastest combination; a hardware's its
 * fastest model; the two are not the same sentence. */
START_TEST(model_and_hardware_name_their_fastest)
{
	struct buf d = BUF_INIT, e = BUF_INIT;

	describe("model", "/m/qwen3-8b", &d);
	ck_assert_msg(strstr(d.buf, "Qwen3-8B") && strstr(d.buf, "140.5"), "%s", d.buf);
	describe("hw", "/hw/m3-ultra", &e);
	ck_assert_msg(strstr(e.buf, "M3 Ultra") && strstr(e.buf, "61.2"), "%s", e.buf);
	ck_assert_msg(!strstr(e.buf, "300"), "%s", e.buf);    /* Phi-4's one key leads nothing */
	ck_assert_str_ne(d.buf, e.buf);
	/* A model whose only row awaits confirmation names no fastest. */
	describe("model", "/m/phi-4", &d);
	ck_assert_msg(strstr(d.buf, "1 combination awaiting confirmation (fewer than 3 submitters") &&
		      !strstr(d.buf, "fastest:") && !strstr(d.buf, "300"), "%s", d.buf);
	buf_release(&d);
	buf_release(&e);
}
END_TEST

/* A reference page's description is its fixed sentence; a template with
 * none of its own gets its title and what the site is. */
START_TEST(fixed_and_fallback)
{
	struct buf d = BUF_INIT;
	json_t *m = json_pack("{s:s}", "title", "Something new");

	page_describe(&d, "glossary", m);
	ck_assert_msg(!strncmp(d.buf, "What the words on llm-speed mean", 32), "%s", d.buf);
	buf_reset(&d);
	page_describe(&d, "no_such_template", m);
	ck_assert_msg(!strncmp(d.buf, "Something new on llm-speed: ", 28), "%s", d.buf);
	json_decref(m);
	buf_release(&d);
}
END_TEST

static Suite *suite_page_describe(void)
{
	Suite *s = suite_create("page_describe");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_run_says_its_figures);
	tcase_add_test(tc, model_and_hardware_name_their_fastest);
	tcase_add_test(tc, fixed_and_fallback);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_page_describe)
