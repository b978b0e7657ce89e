/* sample.c: sample payloads, a persistent signing key, and the sample-run
 * subcommand that lets a new user try an upload with curl. */
#include "ingest/sample.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest/jws.h"
#include "util/timefmt.h"
#include "util/jsonw.h"

/* A digest derived from the model name, so samples of one model cluster. */
void sample_digest(const char *name, char out[80])
{
	unsigned char h[32];
	char hex[65];

	crypto_hash_sha256(h, (const unsigned char *)name, strlen(name));
	sodium_bin2hex(hex, sizeof hex, h, sizeof h);
	snprintf(out, 80, "sha256:%.64s", hex);
}

/* chat-short or chat-long figures scaled from the decode rate. */
static json_t *chat(double decode, double prefill, double ttft, int prompt, int out)
{
	return json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f}",
		"prompt_tokens", prompt, "output_tokens", out, "batch_size", 1,
		"ttft_ms", ttft, "prefill_tok_s", prefill, "decode_tok_s", decode,
		"p50_ms", 1000.0 / decode, "p95_ms", 1150.0 / decode,
		"wall_ms", ttft + out * 1000.0 / decode);
}

/* The three optional long workloads, in proportion to decode. */
static void add_long_workloads(json_t *w, double d, double p, int serial)
{
	json_t *pts = json_array(), *cpts = json_array(), *turns = json_array();
	static const int ctx[] = { 32768, 65536, 131072 };
	static const int batch[] = { 1, 4, 8, 16 };
	int i;

	for (i = 0; i < 3; i++)
		json_array_append_new(pts, json_pack("{s:i, s:i, s:f, s:f, s:f}",
			"context_tokens", ctx[i], "output_tokens", 256,
			"ttft_ms", ctx[i] * 1000.0 / (p * (1.0 - 0.2 * i)),
			"prefill_tok_s", p * (1.0 - 0.2 * i), "decode_tok_s", d * (0.8 - 0.15 * i)));
	for (i = 0; i < 4; i++) {
		double agg = serial ? d : d * batch[i] * (1.0 - 0.08 * i);
		json_array_append_new(cpts, json_pack("{s:i, s:f, s:f, s:f, s:f}",
			"batch_size", batch[i], "aggregate_tok_s", agg,
			"per_stream_tok_s", agg / batch[i],
			"p50_ms", 1000.0 * batch[i] / agg, "p95_ms", 1200.0 * batch[i] / agg));
	}
	for (i = 1; i <= 6; i++)
		json_array_append_new(turns, json_pack("{s:i, s:i, s:f, s:f}",
			"turn", i, "context_tokens", 2000 + 2800 * (i - 1),
			"ttft_ms", 300.0 + 90.0 * i, "decode_tok_s", d * (1.0 - 0.03 * i)));
	json_object_set_new(w, "chat-long", chat(d * 0.9, p * 1.4, 4096 * 1000.0 / (p * 1.4), 4096, 1024));
	json_object_set_new(w, "long-context-decay", json_pack("{s:o}", "points", pts));
	json_object_set_new(w, "concurrent-decode", json_pack("{s:b, s:o}", "serial", serial, "points", cpts));
	json_object_set_new(w, "agent-trace", json_pack("{s:o, s:f, s:f}", "turns", turns,
		"wall_ms", 6 * 256 * 1000.0 / d, "prefix_cache_hit_rate", 0.82));
}

json_t *sample_payload(const struct sample_opts *o)
{
	const char *model = o->model ? o->model : "Qwen3-Coder-30B-A3B-Instruct";
	const char *accel = o->accelerator ? o->accelerator : "M3 Ultra";
	double d = o->decode_tok_s > 0 ? o->decode_tok_s : 112.2;
	double p = o->prefill_tok_s > 0 ? o->prefill_tok_s : 204.0;
	double t = o->ttft_ms > 0 ? o->ttft_ms : 539.3;
	char created[32], digest[80];
	json_t *w, *hw, *pl;

	time_now_rfc3339(created);
	sample_digest(model, digest);
	w = json_pack("{s:o}", "chat-short", chat(d, p, t, 128, 256));
	if (o->all_workloads)
		add_long_workloads(w, d, p, o->serial);
	hw = json_pack("{s:s, s:i, s:i, s:s, s:s}", "cpu_model", accel, "cpu_cores", 24,
		       "ram_gb", 128, "os", "macOS 15", "accelerator_summary", accel);
	if (o->fingerprint)
		json_object_set_new(hw, "fingerprint_hash", json_string(o->fingerprint));
	pl = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:n}, s:{s:s, s:s}, s:o, s:o}",
		"suite_version", "suite-v1",
		"created_at", o->created_at ? o->created_at : created,
		"client", "name", "llm-speed", "version", "1.4.0",
		"backend", "name", o->backend ? o->backend : "mlx",
		"version", o->backend_version ? o->backend_version : "0.31.3", "runner",
		"model", "name", model, "digest", o->digest ? o->digest : digest,
		"hardware", hw, "workloads", w);
	return pl;
}

int sample_key(const char *path, unsigned char sk[crypto_sign_SECRETKEYBYTES])
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	char hex[2 * crypto_sign_SECRETKEYBYTES + 2];
	size_t n;
	FILE *f;
	int fd;

	if ((f = fopen(path, "r"))) {
		n = fread(hex, 1, sizeof hex - 1, f);
		fclose(f);
		hex[n] = '\0';
		return sodium_hex2bin(sk, crypto_sign_SECRETKEYBYTES, hex, n, "\n", &n, NULL) == 0 &&
		       n == crypto_sign_SECRETKEYBYTES ? 0 : -1;
	}
	crypto_sign_keypair(pk, sk);
	sodium_bin2hex(hex, sizeof hex, sk, crypto_sign_SECRETKEYBYTES);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	n = strlen(hex);
	hex[n++] = '\n';
	if (write(fd, hex, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The usage text: on stdout when asked for (--help), else on stderr. */
static void sample_usage(FILE *to)
{
	fputs("usage: llm-speedd sample-run [--key FILE] [--model NAME] [--hardware SUMMARY]\n"
	      "         [--backend NAME] [--backend-version V] [--decode TOK_S]\n"
	      "         [--fingerprint HEX16] [--all]\n"
	      "Prints a signed sample suite-v1 run (compact JWS) for trying an upload:\n"
	      "  ./llm-speedd sample-run > run.jws\n"
	      "  curl -H 'Content-Type: application/jose' --data-binary @run.jws \\\n"
	      "       http://127.0.0.1:8080/api/v1/runs\n"
	      "Without --key a fresh key signs each run (like --strict-anon).\n", to);
}

int sample_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "model", required_argument, NULL, 'm' },
		{ "hardware", required_argument, NULL, 'w' },
		{ "backend", required_argument, NULL, 'b' },
		{ "backend-version", required_argument, NULL, 'v' },
		{ "decode", required_argument, NULL, 'd' },
		{ "fingerprint", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sample_opts o = { 0 };
	unsigned char sk[crypto_sign_SECRETKEYBYTES], pk[crypto_sign_PUBLICKEYBYTES];
	const char *key = NULL;
	char *payload, *jws;
	json_t *p;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k': key = optarg; break;
		case 'm': o.model = optarg; break;
		case 'w': o.accelerator = optarg; break;
		case 'b': o.backend = optarg; break;
		case 'v': o.backend_version = optarg; break;
		case 'd': o.decode_tok_s = atof(optarg); break;
		case 'f': o.fingerprint = optarg; break;
		case 'a': o.all_workloads = 1; break;
		default: sample_usage(c == 'h' ? stdout : stderr); return c == 'h' ? 0 : 2;
		}
	}
	if (sodium_init() < 0)
		return 1;
	if (key ? sample_key(key, sk) : crypto_sign_keypair(pk, sk)) {
		fprintf(stderr, "llm-speedd: cannot read or create the key file %s\n", key);
		return 1;
	}
	p = sample_payload(&o);
	payload = jsonw_dumps(p, 0);
	jws = payload ? jws_sign_eddsa(sk, (unsigned char *)payload, strlen(payload)) : NULL;
	/* No newline into a file: whitespace makes a JWS malformed. */
	if (jws)
		printf(isatty(STDOUT_FILENO) ? "%s\n" : "%s", jws);
	sodium_memzero(sk, sizeof sk);
	free(jws);
	free(payload);
	json_decref(p);
	return jws ? 0 : 1;
}
