/* check_validate.c: the payload schema of server/ingest/validate*.c, rule by rule, and the JSON parsing vectors. */
#include "check_util.h"
#include "ingest/validate.h"

#include <dirent.h>
#include <jansson.h>

/* The server's clock in these tests: 2026-04-28T10:12:00Z. */
#define NOW 1777371120LL

#define CHAT "{\"prompt_tokens\": 512, \"output_tokens\": 256, \"batch_size\": 1, " \
	"\"ttft_ms\": 120.5, \"prefill_tok_s\": 4250.0, \"decode_tok_s\": 41.2, " \
	"\"p50_ms\": 24.1, \"p95_ms\": 27.9, \"wall_ms\": 6400, \"prefix_cache_hit_rate\": 0.25}"

static const char full_payload[] =
	"{\"suite_version\": \"suite-v1\", \"created_at\": \"2026-04-28T10:12:00Z\","
	" \"client\": {\"name\": \"llm-speed\", \"version\": \"1.4.0\"},"
	" \"backend\": {\"name\": \"mlx\", \"version\": \"0.31.3\", \"runner\": null},"
	" \"model\": {\"name\": \"mlx-community/Qwen2.5-Coder-32B-Instruct-4bit\","
	"   \"digest\": \"sha256:3f9a0c11d2e4b5a6\", \"quantization\": \"4bit\","
	"   \"format\": \"mlx\", \"weights_bytes\": 17200000000},"
	" \"hardware\": {\"cpu_model\": \"Apple M3 Ultra\", \"cpu_cores\": 32, \"ram_gb\": 512,"
	"   \"gpu_name\": \"Apple M3 Ultra\", \"vram_gb\": 512, \"os\": \"macOS 15\","
	"   \"accelerator_summary\": \"Apple M3 Ultra\", \"fingerprint_hash\": \"3f9a0c11d2e4b5a6\"},"
	" \"workloads\": {"
	"  \"chat-short\": " CHAT ","
	"  \"chat-long\": " CHAT ","
	"  \"long-context-decay\": {\"points\": ["
	"    {\"context_tokens\": 4096, \"output_tokens\": 128, \"ttft_ms\": 900, \"prefill_tok_s\": 4500, \"decode_tok_s\": 40.1},"
	"    {\"context_tokens\": 16384, \"output_tokens\": 128, \"ttft_ms\": 4100, \"prefill_tok_s\": 4000, \"decode_tok_s\": 35.7},"
	"    {\"context_tokens\": 65536, \"output_tokens\": 128, \"ttft_ms\": 21000, \"prefill_tok_s\": 3100, \"decode_tok_s\": 27.3}]},"
	"  \"concurrent-decode\": {\"serial\": false, \"points\": ["
	"    {\"batch_size\": 1, \"aggregate_tok_s\": 41, \"per_stream_tok_s\": 41, \"p50_ms\": 24, \"p95_ms\": 27},"
	"    {\"batch_size\": 4, \"aggregate_tok_s\": 120, \"per_stream_tok_s\": 30, \"p50_ms\": 33, \"p95_ms\": 40}]},"
	"  \"agent-trace\": {\"turns\": ["
	"    {\"turn\": 1, \"context_tokens\": 2000, \"ttft_ms\": 300, \"decode_tok_s\": 40},"
	"    {\"turn\": 2, \"context_tokens\": 5000, \"ttft_ms\": 450, \"decode_tok_s\": 38}],"
	"   \"wall_ms\": 90000, \"prefix_cache_hit_rate\": 0.8}"
	" }}";

static const char minimal_payload[] =
	"{\"suite_version\": \"suite-v1\", \"created_at\": \"2026-04-28T10:12:00Z\","
	" \"client\": {\"name\": \"llm-speed\", \"version\": \"1.4.0\"},"
	" \"backend\": {\"name\": \"llama.cpp\", \"version\": \"b5000\"},"
	" \"model\": {\"name\": \"Qwen2.5-7B-Instruct\", \"digest\": \"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"},"
	" \"hardware\": {\"cpu_model\": \"AMD Ryzen 9 7950X\", \"accelerator_summary\": \"NVIDIA GeForce RTX 4090\"},"
	" \"workloads\": {\"chat-short\": {\"prompt_tokens\": 0, \"output_tokens\": 0, \"batch_size\": 1,"
	"   \"ttft_ms\": 0, \"prefill_tok_s\": 0.001, \"decode_tok_s\": 99.5, \"p50_ms\": 0, \"p95_ms\": 0, \"wall_ms\": 0}}}";

static json_t *load(const char *text)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);

	ck_assert_ptr_nonnull(v);
	return v;
}

/* The value at a dotted path like "workloads.long-context-decay.points[2]"
 * ("" is root), or NULL. */
static json_t *nav(json_t *root, const char *path)
{
	char buf[256], *seg, *save = NULL, *br;
	json_t *v = root;

	snprintf(buf, sizeof buf, "%s", path);
	for (seg = strtok_r(buf, ".", &save); seg && v; seg = strtok_r(NULL, ".", &save)) {
		br = strchr(seg, '[');
		if (br)
			*br = '\0';
		v = json_object_get(v, seg);
		if (br)
			v = json_array_get(v, strtoul(br + 1, NULL, 10));
	}
	return v;
}

/* Sets parent.key (or parent[i] when key is "[i]") to the JSON text value,
 * or deletes it when value is NULL; the member must exist beforehand. */
static void mutate(json_t *root, const char *parent, const char *key, const char *value)
{
	json_t *p = nav(root, parent);

	ck_assert_msg(p != NULL, "no %s in the payload", parent);
	if (key[0] == '[') {
		ck_assert_int_eq(json_array_set_new(p, strtoul(key + 1, NULL, 10), load(value)), 0);
	} else if (!value) {
		ck_assert_msg(json_object_del(p, key) == 0, "no %s.%s to delete", parent, key);
	} else {
		ck_assert_int_eq(json_object_set_new(p, key, load(value)), 0);
	}
}

/* 1 when every byte of s is printable ASCII. */
static int ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* Asserts root is rejected with status, code and field, by validate_payload
 * and, dumped to bytes, by validate_payload_bytes; the message must be
 * ASCII and start with the field. */
static void expect_reject(json_t *root, long long now, int status, const char *code,
			  const char *field)
{
	struct err e;
	struct run_fields rf;
	json_t *back = (json_t *)1;
	char *text;

	ck_assert_int_eq(validate_payload(root, now, &rf, &e), -1);
	ck_assert_int_eq(e.status, status);
	ck_assert_str_eq(e.code, code);
	ck_assert_str_eq(e.field, field);
	ck_assert_msg(e.message[0] && ascii(e.message), "message: %s", e.message);
	if (field[0])
		ck_assert_msg(strstr(e.message, field) == e.message,
			      "message does not start with the field: %s", e.message);

	text = json_dumps(root, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(validate_payload_bytes((const unsigned char *)text, strlen(text), now,
						&back, &rf, &e), -1);
	ck_assert_ptr_null(back);
	ck_assert_int_eq(e.status, status);
	ck_assert_str_eq(e.code, code);
	ck_assert_str_eq(e.field, field);
	free(text);
}

static void expect_accept(json_t *root, long long now)
{
	struct err e;
	struct run_fields rf;

	ck_assert_msg(validate_payload(root, now, &rf, &e) == 0, "%s: %s", e.field, e.message);
	ck_assert_int_eq(e.status, 0);
	ck_assert_ptr_null(e.code);
}

#define SV "schema_violation"

/* One mutation of full_payload and the error it must give. */
struct mutation {
	const char *parent, *key, *value;     /* value NULL: delete the member */
	int status;
	const char *code, *field;
};

static const struct mutation mutations[] = {
	/* Text no output format can carry: noncharacters of every kind and
	 * controls (C0, DEL, C1), in every string the payload names. */
	{ "model", "name", "\"Qwen\\uffff\"", 422, SV, "model.name" },
	{ "hardware", "accelerator_summary", "\"RTX 4090\\ufffe\"", 422, SV, "hardware.accelerator_summary" },
	{ "model", "name", "\"Qwen\\ud83f\\udffe\"", 422, SV, "model.name" },     /* U+1FFFE */
	{ "model", "name", "\"Qwen\\udbff\\udfff\"", 422, SV, "model.name" },     /* U+10FFFF */
	{ "model", "quantization", "\"4bit\\ufdd0\"", 422, SV, "model.quantization" },
	{ "backend", "version", "\"0.31\\ufdef\"", 422, SV, "backend.version" },
	{ "hardware", "os", "\"macOS\\u0085\"", 422, SV, "hardware.os" },
	{ "hardware", "gpu_name", "\"M3\\u007f\"", 422, SV, "hardware.gpu_name" },
	{ "client", "name", "\"llm\\tspeed\"", 422, SV, "client.name" },
	{ "hardware", "cpu_model", "\"M3\\nUltra\"", 422, SV, "hardware.cpu_model" },
	{ "", "suite_version", NULL, 422, SV, "suite_version" },
	{ "", "suite_version", "\"suite-v2\"", 422, "unknown_suite", "suite_version" },
	{ "", "suite_version", "1", 422, SV, "suite_version" },
	{ "", "created_at", NULL, 422, SV, "created_at" },
	{ "", "created_at", "1777371120", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28 10:12:00Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T10:12:00+02:00\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T10:12:00-00:00\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T10:12:00\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T10:12:00.Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-02-29T10:12:00Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-31T10:12:00Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T24:00:00Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2022-12-31T23:59:59Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"2026-04-28T10:23:00Z\"", 422, SV, "created_at" },
	{ "", "created_at", "\"9999-12-31T23:59:59Z\"", 422, SV, "created_at" },
	{ "", "client", NULL, 422, SV, "client" },
	{ "", "client", "\"llm-speed\"", 422, SV, "client" },
	{ "client", "name", NULL, 422, SV, "client.name" },
	{ "client", "version", "1", 422, SV, "client.version" },
	{ "", "backend", NULL, 422, SV, "backend" },
	{ "backend", "name", NULL, 422, SV, "backend.name" },
	{ "backend", "name", "\"hosted-api\"", 422, "hosted_api_rejected", "backend.name" },
	{ "backend", "name", "\"tgi\"", 422, SV, "backend.name" },
	{ "backend", "name", "\"MLX\"", 422, SV, "backend.name" },
	{ "backend", "version", NULL, 422, SV, "backend.version" },
	{ "backend", "version", "\"\"", 422, SV, "backend.version" },
	{ "backend", "runner", "3", 422, SV, "backend.runner" },
	{ "", "model", NULL, 422, SV, "model" },
	{ "model", "name", NULL, 422, SV, "model.name" },
	{ "model", "name", "\"\"", 422, SV, "model.name" },
	{ "model", "name", "\"???\"", 422, SV, "model.name" },
	{ "model", "name", "\"org/\"", 422, SV, "model.name" },
	{ "model", "digest", NULL, 422, SV, "model.digest" },
	{ "model", "digest", "\"sha256:3F9A0C11D2E4B5A6\"", 422, SV, "model.digest" },
	{ "model", "digest", "\"sha256:3f9a0c11d2e4b5a\"", 422, SV, "model.digest" },
	{ "model", "digest", "\"3f9a0c11d2e4b5a6\"", 422, SV, "model.digest" },
	{ "model", "digest", "\"sha512:3f9a0c11d2e4b5a6\"", 422, SV, "model.digest" },
	{ "model", "digest", "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\"",
	  422, SV, "model.digest" },
	{ "model", "digest", "\"sha256:3f9a0c11d2e4b5ag\"", 422, SV, "model.digest" },
	{ "model", "quantization", "4", 422, SV, "model.quantization" },
	{ "model", "format", "\"mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-mlx-m\"",
	  422, SV, "model.format" },
	{ "model", "weights_bytes", "1.72e10", 422, SV, "model.weights_bytes" },
	{ "model", "weights_bytes", "-1", 422, SV, "model.weights_bytes" },
	{ "model", "weights_bytes", "\"17200000000\"", 422, SV, "model.weights_bytes" },
	{ "", "hardware", NULL, 422, SV, "hardware" },
	{ "hardware", "cpu_model", NULL, 422, SV, "hardware.cpu_model" },
	{ "hardware", "cpu_model", "\"\"", 422, SV, "hardware.cpu_model" },
	{ "hardware", "accelerator_summary", NULL, 422, SV, "hardware.accelerator_summary" },
	{ "hardware", "accelerator_summary", "\"\"", 422, SV, "hardware.accelerator_summary" },
	{ "hardware", "accelerator_summary", "\"Apple\"", 422, SV, "hardware.accelerator_summary" },
	{ "hardware", "accelerator_summary", "\"NVIDIA GeForce\"", 422, SV, "hardware.accelerator_summary" },
	{ "hardware", "fingerprint_hash", "\"3F9A0C11D2E4B5A6\"", 422, SV, "hardware.fingerprint_hash" },
	{ "hardware", "fingerprint_hash", "\"3f9a0c11d2e4b5a\"", 422, SV, "hardware.fingerprint_hash" },
	{ "hardware", "fingerprint_hash", "\"3f9a0c11d2e4b5a67\"", 422, SV, "hardware.fingerprint_hash" },
	{ "hardware", "fingerprint_hash", "\"\"", 422, SV, "hardware.fingerprint_hash" },
	{ "hardware", "fingerprint_hash", "16", 422, SV, "hardware.fingerprint_hash" },
	{ "hardware", "cpu_cores", "-1", 422, SV, "hardware.cpu_cores" },
	{ "hardware", "ram_gb", "\"512\"", 422, SV, "hardware.ram_gb" },
	{ "hardware", "vram_gb", "true", 422, SV, "hardware.vram_gb" },
	{ "hardware", "os", "5", 422, SV, "hardware.os" },
	{ "hardware", "gpu_name", "\"RTX\\u0007 4090\"", 422, SV, "hardware.gpu_name" },
	{ "", "workloads", NULL, 422, SV, "workloads" },
	{ "", "workloads", "[]", 422, SV, "workloads" },
	{ "workloads", "chat-short", NULL, 422, SV, "workloads.chat-short" },
	{ "workloads", "chat-short", "null", 422, SV, "workloads.chat-short" },
	{ "workloads", "chat-short", "[]", 422, SV, "workloads.chat-short" },
	{ "workloads.chat-short", "decode_tok_s", "\"41.2\"", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "0", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "-41.2", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "-0.0", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "1e13", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "null", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "decode_tok_s", "[41.2]", 422, SV, "workloads.chat-short.decode_tok_s" },
	{ "workloads.chat-short", "prefill_tok_s", "0", 422, SV, "workloads.chat-short.prefill_tok_s" },
	{ "workloads.chat-short", "ttft_ms", "-0.5", 422, SV, "workloads.chat-short.ttft_ms" },
	{ "workloads.chat-short", "prompt_tokens", "12.5", 422, SV, "workloads.chat-short.prompt_tokens" },
	{ "workloads.chat-short", "prompt_tokens", "512.0", 422, SV, "workloads.chat-short.prompt_tokens" },
	{ "workloads.chat-short", "output_tokens", "-3", 422, SV, "workloads.chat-short.output_tokens" },
	{ "workloads.chat-short", "batch_size", "2", 422, SV, "workloads.chat-short.batch_size" },
	{ "workloads.chat-short", "batch_size", "0", 422, SV, "workloads.chat-short.batch_size" },
	{ "workloads.chat-short", "batch_size", NULL, 422, SV, "workloads.chat-short.batch_size" },
	{ "workloads.chat-short", "prefix_cache_hit_rate", "1.5", 422, SV,
	  "workloads.chat-short.prefix_cache_hit_rate" },
	{ "workloads.chat-short", "prefix_cache_hit_rate", "-0.1", 422, SV,
	  "workloads.chat-short.prefix_cache_hit_rate" },
	{ "workloads.chat-short", "p95_ms", NULL, 422, SV, "workloads.chat-short.p95_ms" },
	{ "workloads.chat-short", "wall_ms", "true", 422, SV, "workloads.chat-short.wall_ms" },
	{ "workloads.chat-long", "batch_size", "2", 422, SV, "workloads.chat-long.batch_size" },
	{ "workloads.chat-long", "wall_ms", NULL, 422, SV, "workloads.chat-long.wall_ms" },
	{ "workloads", "long-context-decay", "5", 422, SV, "workloads.long-context-decay" },
	{ "workloads.long-context-decay", "points", NULL, 422, SV, "workloads.long-context-decay.points" },
	{ "workloads.long-context-decay", "points", "[]", 422, SV, "workloads.long-context-decay.points" },
	{ "workloads.long-context-decay", "points", "{}", 422, SV, "workloads.long-context-decay.points" },
	{ "workloads.long-context-decay.points", "[1]", "5", 422, SV,
	  "workloads.long-context-decay.points[1]" },
	{ "workloads.long-context-decay.points[2]", "decode_tok_s", "0", 422, SV,
	  "workloads.long-context-decay.points[2].decode_tok_s" },
	{ "workloads.long-context-decay.points[0]", "context_tokens", "\"4096\"", 422, SV,
	  "workloads.long-context-decay.points[0].context_tokens" },
	{ "workloads.long-context-decay.points[1]", "ttft_ms", NULL, 422, SV,
	  "workloads.long-context-decay.points[1].ttft_ms" },
	{ "workloads.concurrent-decode", "serial", NULL, 422, SV, "workloads.concurrent-decode.serial" },
	{ "workloads.concurrent-decode", "serial", "\"true\"", 422, SV, "workloads.concurrent-decode.serial" },
	{ "workloads.concurrent-decode", "serial", "0", 422, SV, "workloads.concurrent-decode.serial" },
	{ "workloads.concurrent-decode", "points", NULL, 422, SV, "workloads.concurrent-decode.points" },
	{ "workloads.concurrent-decode.points[0]", "batch_size", "0", 422, SV,
	  "workloads.concurrent-decode.points[0].batch_size" },
	{ "workloads.concurrent-decode.points[1]", "per_stream_tok_s", NULL, 422, SV,
	  "workloads.concurrent-decode.points[1].per_stream_tok_s" },
	{ "workloads.concurrent-decode.points[1]", "aggregate_tok_s", "-5", 422, SV,
	  "workloads.concurrent-decode.points[1].aggregate_tok_s" },
	{ "workloads.concurrent-decode.points[1]", "p95_ms", "\"40\"", 422, SV,
	  "workloads.concurrent-decode.points[1].p95_ms" },
	{ "workloads.agent-trace", "turns", NULL, 422, SV, "workloads.agent-trace.turns" },
	{ "workloads.agent-trace", "wall_ms", NULL, 422, SV, "workloads.agent-trace.wall_ms" },
	{ "workloads.agent-trace", "prefix_cache_hit_rate", "2", 422, SV,
	  "workloads.agent-trace.prefix_cache_hit_rate" },
	{ "workloads.agent-trace.turns[0]", "turn", "1.5", 422, SV, "workloads.agent-trace.turns[0].turn" },
	{ "workloads.agent-trace.turns[1]", "decode_tok_s", "0", 422, SV,
	  "workloads.agent-trace.turns[1].decode_tok_s" },
	{ "workloads.agent-trace.turns[1]", "context_tokens", NULL, 422, SV,
	  "workloads.agent-trace.turns[1].context_tokens" },
};

#define N_MUTATIONS ((int)(sizeof mutations / sizeof mutations[0]))

START_TEST(mutation_rejected)
{
	const struct mutation *m = &mutations[_i];
	json_t *root = load(full_payload);

	mutate(root, m->parent, m->key, m->value);
	expect_reject(root, NOW, m->status, m->code, m->field);
	json_decref(root);
}
END_TEST

START_TEST(full_payload_passes)
{
	struct err e;
	struct run_fields rf;
	json_t *root = NULL;

	ck_assert_int_eq(validate_payload_bytes((const unsigned char *)full_payload,
						strlen(full_payload), NOW, &root, &rf, &e), 0);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(e.status, 0);
	ck_assert_ptr_null(e.code);
	ck_assert_str_eq(e.field, "");
	ck_assert_str_eq(rf.suite_version, "suite-v1");
	ck_assert_str_eq(rf.created_at, "2026-04-28T10:12:00Z");
	ck_assert_int_eq(rf.created_unix, NOW);
	ck_assert_str_eq(rf.client_name, "llm-speed");
	ck_assert_str_eq(rf.client_version, "1.4.0");
	ck_assert_str_eq(rf.backend_name, "mlx");
	ck_assert_str_eq(rf.backend_version, "0.31.3");
	ck_assert_str_eq(rf.model_name, "mlx-community/Qwen2.5-Coder-32B-Instruct-4bit");
	ck_assert_str_eq(rf.model_digest, "sha256:3f9a0c11d2e4b5a6");
	ck_assert_str_eq(rf.model_quant, "4bit");
	ck_assert_str_eq(rf.model_format, "mlx");
	ck_assert_str_eq(rf.accelerator, "Apple M3 Ultra");
	ck_assert_str_eq(rf.cpu_model, "Apple M3 Ultra");
	ck_assert_str_eq(rf.fingerprint_hash, "3f9a0c11d2e4b5a6");
	ck_assert_double_eq(rf.decode_tok_s, 41.2);
	ck_assert_double_eq(rf.prefill_tok_s, 4250.0);
	ck_assert_double_eq(rf.ttft_ms, 120.5);
	ck_assert_str_eq(rf.model_slug, "qwen2-5-coder-32b-instruct");
	ck_assert_str_eq(rf.hw_slug, "m3-ultra");
	/* the fields borrow from the returned document */
	ck_assert_ptr_eq(rf.model_name,
			 json_string_value(json_object_get(json_object_get(root, "model"), "name")));
	json_decref(root);
}
END_TEST

START_TEST(minimal_payload_passes)
{
	struct err e;
	struct run_fields rf;
	json_t *root = load(minimal_payload);

	ck_assert_int_eq(validate_payload(root, NOW, &rf, &e), 0);
	ck_assert_ptr_null(rf.model_quant);
	ck_assert_ptr_null(rf.model_format);
	ck_assert_ptr_null(rf.fingerprint_hash);
	ck_assert_str_eq(rf.backend_name, "llama.cpp");
	ck_assert_str_eq(rf.model_slug, "qwen2-5-7b-instruct");
	ck_assert_str_eq(rf.hw_slug, "rtx-4090");
	ck_assert_double_eq(rf.decode_tok_s, 99.5);
	/* out and err may be NULL */
	ck_assert_int_eq(validate_payload(root, NOW, NULL, NULL), 0);
	json_decref(root);
}
END_TEST

START_TEST(optional_members_may_be_null)
{
	struct run_fields rf;
	struct err e;
	json_t *root = load(full_payload);

	mutate(root, "model", "quantization", "null");
	mutate(root, "model", "format", "null");
	mutate(root, "model", "weights_bytes", "null");
	mutate(root, "hardware", "fingerprint_hash", "null");
	mutate(root, "hardware", "cpu_cores", "null");
	mutate(root, "hardware", "os", "\"\"");
	mutate(root, "backend", "runner", "\"mlx_lm.server\"");
	mutate(root, "workloads.chat-short", "prefix_cache_hit_rate", "null");
	mutate(root, "workloads", "chat-long", "null");
	mutate(root, "workloads", "agent-trace", NULL);
	ck_assert_int_eq(validate_payload(root, NOW, &rf, &e), 0);
	ck_assert_ptr_null(rf.model_quant);
	ck_assert_ptr_null(rf.fingerprint_hash);
	json_decref(root);
}
END_TEST

START_TEST(unknown_members_ignored)
{
	json_t *root = load(full_payload);

	mutate(root, "", "extra", "{\"anything\": [1, 2, {\"deep\": null}]}");
	mutate(root, "model", "license", "\"apache-2.0\"");
	mutate(root, "hardware", "cpu_model_extra", "42");
	mutate(root, "workloads", "w6-future", "\"not checked\"");
	mutate(root, "workloads", "chat-shortish", "-1");
	mutate(root, "workloads.chat-short", "notes", "[\"x\"]");
	mutate(root, "workloads.long-context-decay.points[1]", "kv_cache_mb", "\"big\"");
	mutate(root, "workloads.agent-trace.turns[0]", "tool", "\"grep\"");
	expect_accept(root, NOW);
	json_decref(root);
}
END_TEST

START_TEST(edge_values_accepted)
{
	json_t *root = load(full_payload);

	mutate(root, "workloads.chat-short", "prefix_cache_hit_rate", "0");
	mutate(root, "workloads.chat-long", "prefix_cache_hit_rate", "1");
	mutate(root, "workloads.chat-short", "ttft_ms", "0");
	mutate(root, "workloads.chat-short", "decode_tok_s", "1e12");
	mutate(root, "workloads.chat-short", "prefill_tok_s", "5e-324");
	mutate(root, "workloads.concurrent-decode", "serial", "true");
	mutate(root, "model", "weights_bytes", "9223372036854775807");
	mutate(root, "model", "digest", "\"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"");
	mutate(root, "hardware", "ram_gb", "24.5");
	mutate(root, "backend", "name", "\"exllamav2\"");
	expect_accept(root, NOW);
	json_decref(root);
}
END_TEST

/* A model.name of "a" followed by n - 1 copies of the 3-byte U+65E5. */
static json_t *name_of(size_t n)
{
	char s[1024] = "a";
	size_t i;

	for (i = 1; i < n; i++)
		strcat(s, "\xe6\x97\xa5");
	return json_string(s);
}

START_TEST(name_length_counts_code_points)
{
	json_t *root = load(full_payload);
	json_t *model = json_object_get(root, "model");

	json_object_set_new(model, "name", name_of(200));
	expect_accept(root, NOW);
	json_object_set_new(model, "name", name_of(201));
	expect_reject(root, NOW, 422, SV, "model.name");
	json_object_set_new(model, "name", json_string("\xc3\xa9\xc3\xa9"));
	expect_reject(root, NOW, 422, SV, "model.name");
	json_decref(root);
}
END_TEST

/* Sets created_at to s and validates against the clock now. */
static int with_time(const char *s, long long now)
{
	json_t *root = load(full_payload);
	struct err e;
	int rc;

	json_object_set_new(root, "created_at", json_string(s));
	rc = validate_payload(root, now, NULL, &e);
	json_decref(root);
	return rc;
}

START_TEST(created_at_window)
{
	struct run_fields rf;
	struct err e;
	json_t *root = load(full_payload);

	/* the clock is 10:12:00; up to 10 minutes ahead is fine */
	ck_assert_int_eq(with_time("2026-04-28T10:21:00Z", NOW), 0);       /* +9 min */
	ck_assert_int_eq(with_time("2026-04-28T10:22:00Z", NOW), 0);       /* +600 s */
	ck_assert_int_eq(with_time("2026-04-28T10:22:00.999Z", NOW), 0);
	ck_assert_int_eq(with_time("2026-04-28T10:22:01Z", NOW), -1);      /* +601 s */
	ck_assert_int_eq(with_time("2026-04-28T10:23:00Z", NOW), -1);      /* +11 min */
	ck_assert_int_eq(with_time("2026-04-28T10:23:00Z", NOW + 60), 0);
	ck_assert_int_eq(with_time("2026-04-28T10:12:00+00:00", NOW), 0);
	ck_assert_int_eq(with_time("2026-04-28t10:12:00.123456789z", NOW), 0);
	ck_assert_int_eq(with_time("2026-04-28T10:12:00.1234567890Z", NOW), -1);
	ck_assert_int_eq(with_time("2024-02-29T23:59:59Z", NOW), 0);
	ck_assert_int_eq(with_time("2023-01-01T00:00:00Z", NOW), 0);
	ck_assert_int_eq(with_time("2026-04-28T10:12:60Z", NOW), -1);
	ck_assert_int_eq(with_time("2026-4-28T10:12:00Z", NOW), -1);
	ck_assert_int_eq(with_time("2026-04-28T10:12:00Z ", NOW), -1);
	ck_assert_int_eq(with_time("", NOW), -1);

	json_object_set_new(root, "created_at", json_string("2024-02-29T12:00:00.5Z"));
	ck_assert_int_eq(validate_payload(root, NOW, &rf, &e), 0);
	ck_assert_int_eq(rf.created_unix, 1709208000LL);

	json_object_set_new(root, "created_at", json_string("2026-04-28T10:23:00Z"));
	ck_assert_int_eq(validate_payload(root, NOW, &rf, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "future"));
	ck_assert_ptr_nonnull(strstr(e.message, "clock"));
	json_decref(root);
}
END_TEST

START_TEST(array_length_capped)
{
	json_t *root = load(full_payload);
	json_t *points = nav(root, "workloads.long-context-decay.points");
	json_t *first = json_array_get(points, 0);
	int i;

	for (i = 3; i < 64; i++)
		json_array_append_new(points, json_deep_copy(first));
	expect_accept(root, NOW);
	json_array_append_new(points, json_deep_copy(first));
	expect_reject(root, NOW, 422, SV, "workloads.long-context-decay.points");
	json_decref(root);
}
END_TEST

START_TEST(messages_say_what_to_send)
{
	struct err e;
	json_t *root = load(full_payload);

	mutate(root, "workloads.chat-short", "decode_tok_s", "\"41.2\"");
	validate_payload(root, NOW, NULL, &e);
	ck_assert_str_eq(e.message, "workloads.chat-short.decode_tok_s must be a number, "
			 "not a string; send it without quotes.");
	mutate(root, "workloads.chat-short", "decode_tok_s", "41.2");

	mutate(root, "backend", "name", "\"hosted-api\"");
	validate_payload(root, NOW, NULL, &e);
	ck_assert_ptr_nonnull(strstr(e.message, "local hardware only"));
	mutate(root, "backend", "name", "\"tgi\"");
	validate_payload(root, NOW, NULL, &e);
	ck_assert_ptr_nonnull(strstr(e.message, "mlx, llama.cpp, vllm, ollama, exllamav2"));
	mutate(root, "backend", "name", "\"mlx\"");

	mutate(root, "", "suite_version", "\"suite-v9\"");
	validate_payload(root, NOW, NULL, &e);
	ck_assert_ptr_nonnull(strstr(e.message, "suite-v1"));
	mutate(root, "", "suite_version", "\"suite-v1\"");

	mutate(root, "workloads.chat-short", "batch_size", "2");
	validate_payload(root, NOW, NULL, &e);
	ck_assert_str_eq(e.message, "workloads.chat-short.batch_size is 2; send 1 "
			 "(the chat workloads measure a single stream).");
	mutate(root, "workloads.chat-short", "batch_size", "1");

	mutate(root, "workloads", "chat-short", NULL);
	validate_payload(root, NOW, NULL, &e);
	ck_assert_str_eq(e.message, "workloads.chat-short is missing; send an object with "
			 "prompt_tokens, output_tokens, batch_size, ttft_ms, prefill_tok_s, "
			 "decode_tok_s, p50_ms, p95_ms and wall_ms.");
	json_decref(root);
}
END_TEST

/* Runs the n bytes at p through validate_payload_bytes; returns its result
 * and leaves the error in *e. */
static int bytes(const char *p, size_t n, struct err *e)
{
	struct run_fields rf;
	json_t *root = (json_t *)1;
	int rc = validate_payload_bytes((const unsigned char *)p, n, NOW, &root, &rf, e);

	if (rc)
		ck_assert_ptr_null(root);
	json_decref(root);
	return rc;
}

#define EXPECT_BYTES(text, st, cd) do { struct err e_; \
	ck_assert_int_eq(bytes(text, sizeof(text) - 1, &e_), -1); \
	ck_assert_int_eq(e_.status, st); ck_assert_str_eq(e_.code, cd); \
	ck_assert_str_eq(e_.field, ""); ck_assert(ascii(e_.message)); } while (0)

START_TEST(bytes_strict_json)
{
	struct err e;
	char deep[200];

	EXPECT_BYTES("", 400, "invalid_json");
	EXPECT_BYTES("{\"suite_version\": \"suite-v1\",}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": 1, \"a\": 2}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": 1e400}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": -1e400}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": 99999999999999999999}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": NaN}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": \"x\\u0000y\"}", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": 1}\0", 400, "invalid_json");
	EXPECT_BYTES("{\"a\": \"\xff\"}", 400, "invalid_json");
	EXPECT_BYTES("\xef\xbb\xbf{}", 400, "invalid_json");
	EXPECT_BYTES("{} {}", 400, "invalid_json");
	EXPECT_BYTES("[]", 422, SV);
	EXPECT_BYTES("[{\"suite_version\": \"suite-v1\"}]", 422, SV);
	EXPECT_BYTES("\"suite-v1\"", 422, SV);
	EXPECT_BYTES("null", 422, SV);
	ck_assert_int_eq(bytes("{}", 2, &e), -1);
	ck_assert_int_eq(e.status, 422);
	ck_assert_str_eq(e.field, "suite_version");

	ck_assert_int_eq(bytes("{\"a\" 1}", 7, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "line 1"));
	ck_assert_ptr_nonnull(strstr(e.message, "column"));

	memset(deep, '[', 33);
	memset(deep + 33, ']', 33);
	ck_assert_int_eq(bytes(deep, 66, &e), -1);
	ck_assert_int_eq(e.status, 400);
	/* brackets inside strings do not count */
	snprintf(deep, sizeof deep, "{\"a\": \"%.*s\"}", 100,
		 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
	ck_assert_int_eq(bytes(deep, strlen(deep), &e), -1);
	ck_assert_int_eq(e.status, 422);
}
END_TEST

/* A character no output can carry is named by its code point and its
 * place, so the submitter can find it. */
START_TEST(bad_characters_are_named)
{
	static const struct { const char *value, *want; } cases[] = {
		{ "\"Qwen\\uffff\"", "model.name contains U+FFFF, a noncharacter" },
		{ "\"Q\\u00e9\\ud83f\\udffe\"", "U+1FFFE, a noncharacter that feeds and badges cannot carry, at character 3" },
		{ "\"Qwen\\u0007\"", "U+0007, a control character, at character 5" },
		{ "\"Qwen\\u009b\"", "U+009B, a control character" },
	};
	struct err e;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *root = load(full_payload);

		mutate(root, "model", "name", cases[i].value);
		ck_assert_int_eq(validate_payload(root, NOW, NULL, &e), -1);
		ck_assert_msg(strstr(e.message, cases[i].want), "%s", e.message);
		json_decref(root);
	}
}
END_TEST

/* The memory a run reported (run_fields.mem_gb, the store's runs.mem_gb):
 * the GPU's when more than 0, else the RAM, else none. */
START_TEST(memory_is_the_gpus_else_the_rams)
{
	static const struct { const char *vram, *ram; double want; } cases[] = {
		{ "24", "64", 24 }, { NULL, "128", 128 }, { "0", "16", 16 },
		{ "null", "36.5", 36.5 }, { NULL, NULL, 0 },
	};
	struct run_fields rf;
	struct err e;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *root = load(full_payload), *hw = nav(root, "hardware"), *out = NULL;
		char *text;

		json_object_del(hw, "vram_gb");
		json_object_del(hw, "ram_gb");
		if (cases[i].vram)
			json_object_set_new(hw, "vram_gb", load(cases[i].vram));
		if (cases[i].ram)
			json_object_set_new(hw, "ram_gb", load(cases[i].ram));
		text = json_dumps(root, JSON_COMPACT);
		ck_assert_msg(validate_payload_bytes((const unsigned char *)text, strlen(text), NOW,
						     &out, &rf, &e) == 0, "%s: %s", e.field, e.message);
		ck_assert_msg(rf.mem_gb == cases[i].want, "case %zu: %g", i, rf.mem_gb);
		json_decref(out);
		free(text);
		json_decref(root);
	}
}
END_TEST

START_TEST(bytes_null_out_json)
{
	struct err e;
	struct run_fields rf;

	ck_assert_int_eq(validate_payload_bytes((const unsigned char *)full_payload,
						strlen(full_payload), NOW, NULL, NULL, &e), 0);
	/* out is ignored when out_json is NULL: nothing may dangle */
	memset(&rf, 0, sizeof rf);
	ck_assert_int_eq(validate_payload_bytes((const unsigned char *)full_payload,
						strlen(full_payload), NOW, NULL, &rf, NULL), 0);
	ck_assert_ptr_null(rf.model_name);
	ck_assert_int_eq(validate_payload(NULL, NOW, NULL, &e), -1);
	ck_assert_int_eq(e.status, 422);
	ck_assert_str_eq(e.field, "");
}
END_TEST

/* Every file of JSONTestSuite: n_ is 400 invalid_json; y_ and i_ never pass
 * our schema and never crash; every message is ASCII. */
START_TEST(json_parsing_vectors)
{
	char dir[1024], name[300];
	DIR *d;
	struct dirent *de;
	struct err e;
	size_t len;
	char *data;
	int seen = 0, rc;

	snprintf(dir, sizeof dir, "%s/json_parsing", vectors_dir());
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((de = readdir(d))) {
		if (de->d_name[0] != 'n' && de->d_name[0] != 'y' && de->d_name[0] != 'i')
			continue;
		snprintf(name, sizeof name, "json_parsing/%s", de->d_name);
		data = read_vector(name, &len);
		ck_assert_msg(data != NULL, "cannot read %s", name);
		rc = bytes(data, len, &e);
		ck_assert_msg(rc == -1, "%s passed", de->d_name);
		ck_assert_msg(e.status == 400 || e.status == 422, "%s: %d", de->d_name, e.status);
		ck_assert_msg(ascii(e.message), "%s: non-ASCII message", de->d_name);
		if (de->d_name[0] == 'n')
			ck_assert_msg(e.status == 400 && strcmp(e.code, "invalid_json") == 0,
				      "%s: %d %s", de->d_name, e.status, e.code);
		free(data);
		seen++;
	}
	closedir(d);
	ck_assert_int_ge(seen, 300);
}
END_TEST

static Suite *suite_validate(void)
{
	Suite *s = suite_create("validate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, full_payload_passes);
	tcase_add_test(tc, minimal_payload_passes);
	tcase_add_test(tc, optional_members_may_be_null);
	tcase_add_test(tc, unknown_members_ignored);
	tcase_add_test(tc, edge_values_accepted);
	tcase_add_loop_test(tc, mutation_rejected, 0, N_MUTATIONS);
	tcase_add_test(tc, name_length_counts_code_points);
	tcase_add_test(tc, created_at_window);
	tcase_add_test(tc, array_length_capped);
	tcase_add_test(tc, messages_say_what_to_send);
	tcase_add_test(tc, bytes_strict_json);
	tcase_add_test(tc, bytes_null_out_json);
	tcase_add_test(tc, memory_is_the_gpus_else_the_rams);
	tcase_add_test(tc, bad_characters_are_named);
	tcase_add_test(tc, json_parsing_vectors);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_validate)
