/* sample.h: sample run payloads and signing keys, for `llm-speedd
 * sample-run`, the demo data and the tests. */
#ifndef LLMS_SAMPLE_H
#define LLMS_SAMPLE_H

#include <jansson.h>
#include <sodium.h>

struct sample_opts {
	const char *model;          /* default Qwen3-Coder-30B-A3B-Instruct */
	const char *digest;         /* default derived from the model name */
	const char *accelerator;    /* default "M3 Ultra" */
	const char *backend;        /* default "mlx" */
	const char *backend_version;
	const char *fingerprint;    /* NULL: none (strict-anon) */
	const char *created_at;     /* NULL: now */
	double decode_tok_s;        /* 0: 112.2 */
	double prefill_tok_s;       /* 0: 204.0 */
	double ttft_ms;             /* 0: 539.3 */
	int all_workloads;          /* 1: all five workloads, else chat-short */
	int serial;                 /* concurrent-decode ran serially */
};

/* Writes a model digest derived from name ("sha256:" + its SHA-256 in
 * hex), so sample runs of one model share a digest and a cluster. */
void sample_digest(const char *name, char out[80]);

/* A complete, valid suite-v1 payload built from o: a new reference. */
json_t *sample_payload(const struct sample_opts *o);

/* Loads the Ed25519 secret key kept at path (64 bytes as 128 hex digits),
 * creating it with mode 0600 when the file does not exist.  0 or -1. */
int sample_key(const char *path, unsigned char sk[crypto_sign_SECRETKEYBYTES]);

/* Prints a signed sample run to stdout: `llm-speedd sample-run [options]`.
 * Returns the process exit status. */
int sample_main(int argc, char **argv);

#endif
