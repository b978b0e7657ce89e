/* demo.c: demo runs for a newcomer's first look at the board.
 *
 * `llm-speedd --demo` on a database without runs stores the historical
 * example runs the seed documents cite (under their published ids) and a
 * few hundred clearly synthetic runs across backends and hardware.  Every
 * one is marked demo (runs.demo = 1), so pages label it and the board
 * says it holds demo data.  Each run goes the way of an upload: a payload
 * signed by a fresh Ed25519 key, the JWS parsed and verified, the payload
 * validated, then the run_store job; all of them in one transaction that
 * first checks that the database is still empty.
 *
 * The synthetic figures come from a small model of memory-bound decoding
 * (tok/s = 1 / (bytes read per token / usable bandwidth + fixed cost per
 * token)) with a seeded random spread, so the board looks plausible and
 * is the same on every machine; they are not measurements. */
#include "ingest/demo.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/db.h"
#include "ingest/jws.h"
#include "util/log.h"
#include "store/run_store.h"
#include "ingest/sample.h"
#include "ingest/validate.h"
#include "util/timefmt.h"
#include "util/container_of.h"
#include "util/jsonw.h"
#include "util/nelem.h"

/* A historical chat-short run from the seed documents.  Decode tok/s,
 * ids, backend and date are as published; prefill and TTFT of the two
 * stable-code runs are not published and are estimates; the hardware of
 * the last three is not published and is taken to be the M3 Ultra of the
 * same batch. */
struct hist {
	const char *id, *model, *accel, *quant;
	double decode, prefill, ttft;
	const char *created;
};

static const struct hist historical[] = {
	{ "r_y2_5y8oo97d", "stable-code-instruct-3b", "M3 Ultra", NULL, 192.5, 402.0, 331.0, "2026-04-28T09:41:00Z" },
	{ "r_pqjsvd-cub4", "stable-code-instruct-3b", "M3 Pro", NULL, 19.4, 71.0, 1838.0, "2026-04-28T09:58:00Z" },
	{ "r_fpsca03u2o_", "Qwen3-Coder-30B-A3B-Instruct", "M3 Ultra", NULL, 112.2, 204.0, 539.3, "2026-04-28T10:12:00Z" },
	{ "r_3ijun8ltjnb", "gpt-oss-20b-MXFP4-Q4", "M3 Ultra", "MXFP4-Q4", 152.7, 239.9, 692.1, "2026-04-28T10:31:00Z" },
	{ "r_l_v1-zq_qaz", "DeepSeek-Coder-V2-Lite-Instruct", "M3 Ultra", NULL, 168.3, 291.5, 449.5, "2026-04-28T10:47:00Z" },
	{ "r_721b4bls_oq", "Qwen2.5-Coder-32B-Instruct-4bit", "M3 Ultra", "4bit", 34.5, 144.1, 909.4, "2026-04-28T11:05:00Z" },
};
#define NHIST (NELEM(historical))

/* A model of the synthetic runs: GB read per decoded token at about 4.5
 * bits per weight (active parameters for mixture-of-experts), the fixed
 * cost per token in ms, and the memory the weights need. */
struct dmodel {
	const char *name;          /* as the MLX runs name it */
	const char *base;          /* as the other backends' weights name it */
	const char *mlx_quant;     /* quantization of the MLX weights */
	double gb_per_token, fixed_ms, size_gb;
};

static const struct dmodel models[] = {
	{ "stable-code-instruct-3b", "stable-code-instruct-3b", NULL, 1.7, 2.6, 1.7 },
	{ "Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B-Instruct", NULL, 1.9, 5.8, 17.0 },
	{ "gpt-oss-20b-MXFP4-Q4", "gpt-oss-20b", "MXFP4-Q4", 2.1, 3.1, 12.0 },
	{ "DeepSeek-Coder-V2-Lite-Instruct", "DeepSeek-Coder-V2-Lite-Instruct", NULL, 1.5, 3.5, 9.0 },
	{ "Qwen2.5-Coder-32B-Instruct-4bit", "Qwen2.5-Coder-32B-Instruct", "4bit", 18.5, 0.3, 18.5 },
	{ "Qwen2.5-7B-Instruct-4bit", "Qwen2.5-7B-Instruct", "4bit", 4.4, 1.5, 4.4 },
	{ "Llama-3.3-70B-Instruct-4bit", "Llama-3.3-70B-Instruct", "4bit", 40.0, 0.3, 40.0 },
};

/* Hardware: the accelerator summary, memory bandwidth GB/s and memory GB
 * for weights, Apple (MLX runs there) or not, and prefill per decode. */
struct dhw {
	const char *accel, *cpu, *os;
	double bw, mem_gb;
	int apple;
	double prefill_ratio;
};

static const struct dhw hardware[] = {
	{ "M3 Ultra", "Apple M3 Ultra", "macOS 15", 819, 192, 1, 2.1 },
	{ "M3 Pro", "Apple M3 Pro", "macOS 15", 150, 36, 1, 3.4 },
	{ "M4 Max", "Apple M4 Max", "macOS 15", 546, 128, 1, 2.4 },
	{ "NVIDIA GeForce RTX 4090", "AMD Ryzen 9 7950X", "Ubuntu 24.04", 1008, 24, 0, 11.0 },
	{ "NVIDIA GeForce RTX 5090", "AMD Ryzen 9 9950X", "Ubuntu 24.04", 1792, 32, 0, 13.0 },
};

/* A backend: where it runs, its weight format and quantization (NULL: the
 * model's MLX one), the share of bandwidth it reaches and its fixed-cost
 * factor. */
struct dbackend {
	const char *name, *version, *format, *quant;
	int on_apple, on_nvidia;
	double eff, fixed;
};

static const struct dbackend backends[] = {
	{ "mlx", "0.31.3", "mlx", NULL, 1, 0, 0.75, 1.0 },
	{ "llama.cpp", "b6123", "gguf", "Q4_K_M", 1, 1, 0.70, 0.9 },
	{ "ollama", "0.12.6", "gguf", "Q4_K_M", 1, 1, 0.66, 1.1 },
	{ "vllm", "0.11.0", "safetensors", "AWQ-4bit", 0, 1, 0.78, 0.5 },
	{ "exllamav2", "0.3.2", "exl2", "4.0bpw", 0, 1, 0.80, 0.5 },
};

#define NMODELS (NELEM(models))
#define NHW (NELEM(hardware))
#define NBACKENDS (NELEM(backends))
/* The cluster that shows an outlier flag: model 1 on hardware 3 with
 * backend 1, OUTLIER_N runs, one of them at OUTLIER_SHARE of the rest. */
#define OUTLIER_MODEL 1
#define OUTLIER_HW 3
#define OUTLIER_BACKEND 1
#define OUTLIER_N 20
#define OUTLIER_SHARE 0.42
#define MAX_RUNS 1000

/* ---- a seeded generator, so the demo is the same everywhere ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static double rng_unit(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
}

/* About normal with mean 0 and standard deviation 1 (sum of uniforms). */
static double rng_gauss(void)
{
	return (rng_unit() + rng_unit() + rng_unit() + rng_unit() - 2.0) * 1.732;
}

static double round1(double v)
{
	return round(v * 10.0) / 10.0;
}

/* ---- one run, from options to a prepared run_store job ---- */

struct item {
	struct run_new n;
	struct jws jws;
	json_t *payload;          /* the validated payload n.f borrows from */
	char *compact;            /* the signed JWS */
};

/* Signs payload with a fresh key and takes it through the upload path up
 * to the write: JWS verification, then payload validation.  0 or -1. */
static int item_prepare(struct item *it, json_t *payload, const char *fixed_id)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	char *text = jsonw_dumps(payload, 0);
	struct err je;
	struct err ve;
	int rc = -1;

	crypto_sign_keypair(pk, sk);
	it->compact = text ? jws_sign_eddsa(sk, (unsigned char *)text, strlen(text)) : NULL;
	sodium_memzero(sk, sizeof sk);
	if (!it->compact || jws_parse_verify(it->compact, strlen(it->compact), &it->jws, &je) != JWS_OK)
		goto out;
	if (validate_payload_bytes(it->jws.payload, it->jws.payload_len, time_now(),
				   &it->payload, &it->n.f, &ve) != 0) {
		log_error("demo run does not validate: %s", ve.message);
		goto out;
	}
	validate_resolve(db_reference(), it->payload, &it->n.f);
	it->n.payload = it->jws.payload;
	it->n.payload_len = it->jws.payload_len;
	it->n.jws = it->compact;
	it->n.jws_len = strlen(it->compact);
	run_store_pack(&it->n);
	it->n.thumbprint = it->jws.thumbprint;
	it->n.alg = "EdDSA";
	it->n.demo = 1;
	it->n.fixed_id = fixed_id;
	it->n.j.run = run_store_run;
	rc = 0;
out:
	free(text);
	return rc;
}

static void item_free(struct item *it)
{
	json_decref(it->n.affected);
	buf_release(&it->n.packed);
	json_decref(it->payload);
	jws_free(&it->jws);
	free(it->compact);
}

/* Sets model.quantization and model.format of payload p. */
static void set_quant(json_t *p, const char *quant, const char *format)
{
	json_t *m = json_object_get(p, "model");

	if (quant)
		json_object_set_new(m, "quantization", json_string(quant));
	json_object_set_new(m, "format", json_string(format));
}

/* The hardware block for h (sample_payload's is an Apple one). */
static void set_hardware(json_t *p, const struct dhw *h, int fingerprint)
{
	json_t *hw = json_object_get(p, "hardware");
	unsigned char d[32];
	char hex[65];

	json_object_set_new(hw, "cpu_model", json_string(h->cpu));
	json_object_set_new(hw, "os", json_string(h->os));
	json_object_set_new(hw, "ram_gb", json_integer(h->apple ? (json_int_t)h->mem_gb : 64));
	if (!h->apple) {
		json_object_set_new(hw, "gpu_name", json_string(h->accel));
		json_object_set_new(hw, "vram_gb", json_integer((json_int_t)h->mem_gb));
	}
	if (fingerprint) {
		crypto_hash_sha256(d, (const unsigned char *)h->accel, strlen(h->accel));
		sodium_bin2hex(hex, sizeof hex, d, sizeof d);
		hex[16] = '\0';
		json_object_set_new(hw, "fingerprint_hash", json_string(hex));
	}
}

/* ---- the runs ---- */

struct plan {
	struct item *items;
	size_t n;
};

static struct item *next_item(struct plan *pl)
{
	return pl->n < MAX_RUNS ? &pl->items[pl->n++] : NULL;
}

/* The historical runs, under their published ids and dates. */
static int add_historical(struct plan *pl)
{
	const struct dhw *h;
	size_t i;
	int rc;

	for (i = 0; i < NHIST; i++) {
		const struct hist *x = &historical[i];
		struct sample_opts o = { .model = x->model, .accelerator = x->accel,
			.backend = "mlx", .backend_version = "0.31.3", .created_at = x->created,
			.decode_tok_s = x->decode, .prefill_tok_s = x->prefill, .ttft_ms = x->ttft };
		json_t *p = sample_payload(&o);
		struct item *it = next_item(pl);

		h = !strcmp(x->accel, "M3 Pro") ? &hardware[1] : &hardware[0];
		set_quant(p, x->quant, "mlx");
		set_hardware(p, h, 0);
		rc = it ? item_prepare(it, p, x->id) : -1;
		json_decref(p);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The typical decode tok/s of model m on h with backend be: bytes per
 * token over the bandwidth the backend reaches, plus the fixed cost; on
 * the pairs with a historical run, scaled so MLX centres on it. */
static double typical_decode(const struct dmodel *m, size_t h, const struct dbackend *be)
{
	static const double bits[] = { 1.0, 1.08, 1.08, 1.0, 0.9 };
	const struct dhw *hw = &hardware[h];
	double fixed = m->fixed_ms * be->fixed * (hw->apple ? 1.0 : 0.6);
	double gb = m->gb_per_token * bits[be - backends];
	double d = 1000.0 / (gb / (be->eff * hw->bw) * 1000.0 + fixed);
	double mlx = 1000.0 / (m->gb_per_token / (0.75 * hw->bw) * 1000.0 + m->fixed_ms);
	size_t i;

	for (i = 0; i < NHIST; i++)
		if (!strcmp(historical[i].model, m->name) && hw == (!strcmp(historical[i].accel, "M3 Pro") ? &hardware[1] : &hardware[0]))
			return d * historical[i].decode / mlx;
	return d;
}

/* A synthetic created_at between the historical day and an hour ago. */
static void synthetic_date(char out[32])
{
	time_t start = 1777420800;   /* 2026-04-29T00:00:00Z */
	time_t end = (time_t)time_now() - 3600;
	time_t t = end > start ? start + (time_t)(rng_unit() * (double)(end - start)) : end;

	time_rfc3339(t, out);
}

/* One synthetic run of model m on hardware h with backend be at decode. */
static int add_synthetic(struct plan *pl, const struct dmodel *m, size_t h,
			 const struct dbackend *be, double decode)
{
	const struct dhw *hw = &hardware[h];
	double prefill = round1(decode * hw->prefill_ratio * (1.0 + 0.05 * rng_gauss()));
	char created[32], digest[80], key[200];
	struct sample_opts o = { 0 };
	struct item *it = next_item(pl);
	json_t *p;
	int rc;

	if (!it)
		return -1;
	synthetic_date(created);
	/* Ollama loads its own copy of the weights (a blob of its library),
	 * another file than the GGUF llama.cpp loads, though both are
	 * Q4_K_M: its digest is its own. */
	snprintf(key, sizeof key, "%s %s %s%s", m->name, be->format, be->quant ? be->quant : "",
		 strcmp(be->name, "ollama") ? "" : " ollama");
	sample_digest(be->quant ? key : m->name, digest);
	o.model = be->quant ? m->base : m->name;
	o.digest = digest;
	o.accelerator = hw->accel;
	o.backend = be->name;
	o.backend_version = be->version;
	o.created_at = created;
	o.decode_tok_s = decode;
	o.prefill_tok_s = prefill > 1 ? prefill : 1;
	o.ttft_ms = round1(110000.0 / o.prefill_tok_s + 35.0);
	o.all_workloads = 1;
	o.serial = !strcmp(be->name, "mlx");
	p = sample_payload(&o);
	set_quant(p, be->quant ? be->quant : m->mlx_quant, be->format);
	set_hardware(p, hw, 1);
	rc = item_prepare(it, p, NULL);
	json_decref(p);
	return rc;
}

/* Runs of one (model, hardware, backend): a handful spread a few percent
 * around the typical figure; the outlier cluster has one far below. */
static int add_cluster(struct plan *pl, size_t mi, size_t h, size_t bi)
{
	const struct dmodel *m = &models[mi];
	double typical = typical_decode(m, h, &backends[bi]);
	int outlier = mi == OUTLIER_MODEL && h == OUTLIER_HW && bi == OUTLIER_BACKEND;
	int k, n = outlier ? OUTLIER_N : 2 + (int)(rng_unit() * 5);

	for (k = 0; k < n; k++) {
		double d = typical * (1.0 + 0.035 * rng_gauss());
		if (outlier && k == n / 2)
			d = typical * OUTLIER_SHARE;
		if (add_synthetic(pl, m, h, &backends[bi], round1(d)) < 0)
			return -1;
	}
	return 0;
}

/* Every model on every hardware its weights fit, with the backends that
 * run there. */
static int add_all_synthetic(struct plan *pl)
{
	size_t mi, h, bi;

	for (mi = 0; mi < NMODELS; mi++)
		for (h = 0; h < NHW; h++) {
			if (models[mi].size_gb + 2 > hardware[h].mem_gb)
				continue;
			for (bi = 0; bi < NBACKENDS; bi++) {
				const struct dbackend *be = &backends[bi];
				if (!(hardware[h].apple ? be->on_apple : be->on_nvidia))
					continue;
				if (add_cluster(pl, mi, h, bi) < 0)
					return -1;
			}
		}
	return 0;
}

/* ---- the write ---- */

struct demo_job {
	struct db_job j;
	struct plan *pl;
	int skipped;              /* 1: the database already had runs */
};

static const char sql_any_run[] = "SELECT 1 FROM runs LIMIT 1";

/* On the writer: stores every run unless the database has runs by now;
 * one failure undoes them all. */
static int demo_run(struct dbconn *w, struct db_job *j)
{
	struct demo_job *d = container_of(j, struct demo_job, j);
	sqlite3_stmt *st = db_stmt(w, sql_any_run);
	size_t i;
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW) {
		d->skipped = 1;
		return DB_OK;
	}
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	for (i = 0; i < d->pl->n; i++)
		if ((rc = run_store_run(w, &d->pl->items[i].n.j)) != DB_OK)
			return rc;
	return DB_OK;
}

int demo_fill(struct db *db)
{
	struct plan pl = { calloc(MAX_RUNS, sizeof(struct item)), 0 };
	struct demo_job job = { .j = { .run = demo_run }, .pl = &pl };
	int rc = -1;
	size_t i;

	rng_state = 0x9e3779b97f4a7c15ULL;
	if (!pl.items || add_historical(&pl) < 0 || add_all_synthetic(&pl) < 0) {
		log_error("demo data could not be prepared");
		goto out;
	}
	if (db_write(db, &job.j) != DB_OK) {
		log_error("demo data could not be stored: %s", db_status_message(job.j.rc));
		goto out;
	}
	if (job.skipped)
		log_info("the database already holds runs; --demo added nothing");
	else
		log_info("stored %zu demo runs (%zu historical, %zu synthetic)", pl.n, NHIST, pl.n - NHIST);
	rc = 0;
out:
	for (i = 0; pl.items && i < pl.n; i++)
		item_free(&pl.items[i]);
	free(pl.items);
	return rc;
}
