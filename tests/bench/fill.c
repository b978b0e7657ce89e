/* fill.c: builds a large database for `make bench-scale` through the write path the daemon uses.
 *
 *   build/bench/fill --db FILE --migrations DIR --runs N [--seed S] [--list FILE]
 *                    [--hot SHARE] [--old-data] [--reference DIR]
 *
 * Each run is what an upload would bring: a suite-v1 payload (chat-short)
 * signed with Ed25519 by one of many keys, parsed and verified as a JWS,
 * validated against the contract, then stored by run_store_run(), the
 * writer job of POST /api/v1/runs (outlier cluster update and every
 * trigger included), in writer jobs of BATCH runs each.  Preparing the next
 * batch (signing, verifying, validating) overlaps with the writer storing
 * the previous one, as the daemon's request threads overlap with its
 * writer.
 *
 * The spread is like real data: 2,600 models and 60 accelerators with
 * Zipf-like popularity (a few hot, a long tail), 4 backends, 50,000
 * machines (fingerprints, Zipf-like activity) with their own accelerator and
 * key, a decode speed from model and accelerator, each machine a few per
 * cent faster or slower than that (its own offset, log-normal, sigma 4%),
 * each run with 2% noise of its own, and 1 run in 500 four times too fast
 * (planted: an outlier).  Real keys differ like that: one machine's cooling,
 * clocks and drivers; without the offsets every key's median is the same
 * and the 3-sigma bounds over key medians are far too tight (37% of
 * honest runs flagged in a hot cluster).  --old-data makes the runs as
 * before (no offsets, 3% noise), to compare.
 *
 * A hot cluster: --hot SHARE (0.1) of the runs go to one cluster, the
 * hottest model on the hottest accelerator with llama.cpp, one fingerprint
 * hash, from HOT_KEYS signing keys of Zipf-like activity (a few keys with
 * thousands of runs), each key with its own offset.  --hot 1 puts every run
 * in it, to measure the writer against the size of one cluster.
 *
 * 1 run in 1,000 gets a dispute thread with one post (written with
 * dispute.c's statements).
 *
 * At the end it prints the share of honest runs flagged (and of the
 * planted ones), overall and in the hot cluster, and the writer's CPU per
 * run (its thread's CPU time in the jobs, commits not counted) in windows
 * of WINDOW runs ending at 10,000, 100,000, 1,000,000 and the last.
 *
 * --list FILE writes every run id, one a line, for the benchmark's random
 * paths; the hottest model and accelerator slugs are printed on stdout as
 * "hot_model <slug>" and "hot_hw <slug>". */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "domain/ceiling.h"
#include "store/db.h"
#include "store/identity.h"
#include "store/names.h"
#include "store/versions.h"
#include "ingest/jws.h"
#include "util/log.h"
#include "store/run_store.h"
#include "ingest/sample.h"
#include "util/slug.h"
#include "ingest/validate.h"

#define MODELS 2600
#define ACCELS 60
#define MACHINES 50000
#define KEYS 20000
#define BATCH 500
#define HOT_KEYS 2000
#define WINDOW 10000
#define MAX_WINDOWS 1000

static const char *const backends[] = { "llama.cpp", "mlx", "ollama", "vllm" };

struct item {
	struct run_new n;
	struct jws jws;
	json_t *payload;
	char *compact;
	int dispute;
	int planted;                 /* four times too fast */
	int hot;                     /* in the hot cluster */
};

struct batch {
	struct db_job j;
	struct item items[BATCH];
	size_t n;
	int busy;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int failed;
static FILE *list;
static double writer_s;          /* time the writer spent in the batches */
static double writer_cpu;        /* its thread's CPU time in them */
static double versions_cpu;      /* and in the versions passes after each batch */
static double window_cpu[MAX_WINDOWS];  /* the writer's CPU in runs [k * WINDOW, (k + 1) * WINDOW) */
static long stored_n;            /* runs the writer has stored */
/* The planted runs' ids (to count their flags apart at the end). */
static char (*planted_ids)[RUN_ID_LEN];
static size_t planted_n, planted_cap;
static struct batch batches[2];  /* one being filled while the writer stores the other */

static double now_s(void);

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* A standard normal draw (Box-Muller). */
static double gauss(void)
{
	double u = unit(), v = unit();

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Cumulative Zipf weights 1/(k+1)^s over n items. */
static double *zipf(size_t n, double s)
{
	double *c = malloc(n * sizeof *c), t = 0;
	size_t k;

	for (k = 0; k < n; k++)
		c[k] = (t += 1.0 / pow((double)k + 1.0, s));
	for (k = 0; k < n; k++)
		c[k] /= t;
	return c;
}

static size_t pick(const double *c, size_t n)
{
	double u = unit();
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char sql_open_thread[] =
	"INSERT INTO dispute_threads(run_id, state, opened_at, last_post_at) "
	"VALUES (?1, 'open', ?2, ?2) ON CONFLICT(run_id) DO NOTHING";
static const char sql_add_post[] =
	"INSERT INTO dispute_posts(run_id, author, body, by_submitter, created_at) "
	"VALUES (?1, NULL, 'These figures look too high for this hardware.', 0, ?2)";
static const char sql_bump_thread[] =
	"UPDATE dispute_threads SET last_post_at = ?1, last_post_id = ?2, "
	"posts = posts + 1 WHERE run_id = ?3";

/* Opens run id's thread with one post, as a dispute post does. */
static int add_dispute(struct dbconn *w, const char *id)
{
	const char *sqls[] = { sql_open_thread, sql_add_post, sql_bump_thread };
	char now[32];
	sqlite3_stmt *st;
	int i, rc;

	snprintf(now, sizeof now, "2026-11-30T00:00:00Z");
	for (i = 0; i < 3; i++) {
		if (!(st = db_stmt(w, sqls[i])))
			return DB_ERR;
		if (i == 0) {
			db_bind_text(st, 1, id);
			db_bind_text(st, 2, now);
		} else if (i == 1) {
			db_bind_text(st, 1, id);
			db_bind_text(st, 2, now);
		} else {
			db_bind_text(st, 1, now);
			sqlite3_bind_int64(st, 2, sqlite3_last_insert_rowid(w->h));
			db_bind_text(st, 3, id);
		}
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return db_status_of(rc);
	}
	return DB_OK;
}

/* Every CKPT_EVERY runs, with the writer idle: a TRUNCATE checkpoint of
 * the WAL on a connection of its own.  db.c's checkpointer runs passive
 * checkpoints beside the writer; while the writer commits without a pause,
 * as here, none of them ever catches up with the end of the log, so the
 * log never restarts: the WAL reached 75 GB at 555,000 runs. */
#define CKPT_EVERY 10000

static int ckpt_idle(const char *path)
{
	sqlite3 *h = NULL;
	int k, rc;

	pthread_mutex_lock(&mu);
	for (k = 0; k < 2; k++)
		while (batches[k].busy)
			pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	sqlite3_stmt *st = NULL;

	/* The pragma, not sqlite3_wal_checkpoint_v2(): on a connection that
	 * has read nothing yet (the WAL not opened), SQLite 3.40's call does
	 * nothing and says SQLITE_OK.  Its first column is 1 when blocked. */
	rc = sqlite3_open(path, &h);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(h, 60000);
		rc = sqlite3_prepare_v2(h, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &st, NULL);
	}
	/* db.c's checkpointer may hold the checkpoint lock: try again. */
	for (k = 0; rc == SQLITE_OK && k < 600; k++) {
		rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0 ? SQLITE_OK : SQLITE_BUSY;
		sqlite3_reset(st);
		if (rc == SQLITE_OK)
			break;
		rc = SQLITE_OK;
		usleep(100000);
	}
	if (k == 600)
		rc = SQLITE_BUSY;
	if (rc != SQLITE_OK)
		fprintf(stderr, "fill: checkpoint: %s\n", h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc == SQLITE_OK ? 0 : -1;
}

/* On the writer, once: a page cache large enough for the indexes of a
 * million runs.  Only the speed of the build changes, not what is
 * stored; commits stay synchronous=FULL, one per batch. */
static int tune_run(struct dbconn *w, struct db_job *j)
{
	return sqlite3_exec(w->h, "PRAGMA cache_size = -1000000",
			    NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
}

/* db_after_migrate, on the writer before it starts: what the daemon's
 * start does to the new database against the reference data (the names
 * pass and the judged names recorded), so its first start on the filled
 * one finds the runs resolved as their uploads resolved them, with no
 * pass to make. */
static int start_run(struct dbconn *w, struct err *err)
{
	int moved, rc = identity_refresh(w, &moved, err);

	return rc == DB_OK ? names_refresh(w, err) : rc;
}

/* On the writer: stores the batch's runs, each as an upload's job would,
 * in a savepoint of its own as the writer gives each upload's job
 * (db.c's "job" savepoint is released and taken again between runs).
 * Under one savepoint for all 500, SQLite's in-memory statement journal
 * grew with the batch and every statement's release walked it, which
 * made the build quadratic in the batch (5 ms a run, most of it there). */
static int batch_run(struct dbconn *w, struct db_job *j)
{
	struct batch *b = (struct batch *)j;
	double t0 = now_s(), c0 = cpu_s(), c1;
	size_t i;
	int rc = DB_OK;

	for (i = 0; i < b->n && rc == DB_OK; i++) {
		if (i > 0 && sqlite3_exec(w->h, "RELEASE job; SAVEPOINT job", NULL, NULL, NULL) != SQLITE_OK)
			return DB_ERR;
		rc = run_store_run(w, &b->items[i].n.j);
		if (rc == DB_OK && b->items[i].dispute)
			rc = add_dispute(w, b->items[i].n.id);
	}
	c1 = cpu_s();
	writer_s += now_s() - t0;
	writer_cpu += c1 - c0;
	if (stored_n / WINDOW < MAX_WINDOWS)
		window_cpu[stored_n / WINDOW] += c1 - c0;
	stored_n += (long)b->n;
	/* The refresh thread's versions passes, as the daemon makes them
	 * between commits (not in the writer's CPU per run above): the
	 * versions the batch touched are recomputed, and version_dirty stays
	 * as small as a running daemon keeps it. */
	for (int left = 1; rc == DB_OK && left; )
		rc = versions_pass(w, VERSIONS_PASS_MAX, &left, NULL);
	versions_cpu += cpu_s() - c1;
	return rc;
}

static void item_free(struct item *it)
{
	json_decref(it->n.affected);
	buf_release(&it->n.packed);
	json_decref(it->payload);
	jws_free(&it->jws);
	free(it->compact);
	memset(it, 0, sizeof *it);
}

/* After the commit: lists the ids and frees the batch for reuse. */
static void batch_done(struct db_job *j)
{
	struct batch *b = (struct batch *)j;
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (list && !b->items[i].n.duplicate)
			fprintf(list, "%s\n", b->items[i].n.id);
		if (b->items[i].planted && !b->items[i].n.duplicate) {
			if (planted_n == planted_cap) {
				planted_cap = planted_cap ? 2 * planted_cap : 1024;
				planted_ids = realloc(planted_ids, planted_cap * sizeof *planted_ids);
				if (!planted_ids)
					abort();
			}
			memcpy(planted_ids[planted_n++], b->items[i].n.id, RUN_ID_LEN);
		}
		item_free(&b->items[i]);
	}
	pthread_mutex_lock(&mu);
	if (j->rc != DB_OK)
		failed = 1;
	b->busy = 0;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

struct world {
	double *model_c, *accel_c, *machine_c, *hot_key_c;
	double model_speed[MODELS], accel_speed[ACCELS];
	double machine_off[MACHINES], hot_key_off[HOT_KEYS];  /* each machine's own speed factor */
	double hot;                                            /* share of runs in the hot cluster */
	int old_data;                                          /* the runs as before: no offsets */
	unsigned short machine_accel[MACHINES];
	char machine_fp[MACHINES][17];
	unsigned char keys[KEYS][crypto_sign_SECRETKEYBYTES];
	char model_name[MODELS][48], accel_name[ACCELS][32];
};

static void world_init(struct world *wd)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	size_t i;

	wd->model_c = zipf(MODELS, 1.1);
	wd->accel_c = zipf(ACCELS, 1.2);
	wd->machine_c = zipf(MACHINES, 0.6);
	wd->hot_key_c = zipf(HOT_KEYS, 0.8);
	for (i = 0; i < MODELS; i++) {
		snprintf(wd->model_name[i], sizeof wd->model_name[i], "Bench Model %04zu Instruct", i);
		wd->model_speed[i] = 20.0 + 180.0 * unit();
	}
	for (i = 0; i < ACCELS; i++) {
		snprintf(wd->accel_name[i], sizeof wd->accel_name[i], "Bench GPU %02zu", i);
		wd->accel_speed[i] = 0.3 + 1.7 * unit();
	}
	for (i = 0; i < MACHINES; i++) {
		wd->machine_accel[i] = (unsigned short)pick(wd->accel_c, ACCELS);
		snprintf(wd->machine_fp[i], sizeof wd->machine_fp[i], "%016llx", rnd());
		wd->machine_off[i] = exp(0.04 * gauss());
	}
	for (i = 0; i < HOT_KEYS; i++)
		wd->hot_key_off[i] = exp(0.04 * gauss());
	for (i = 0; i < KEYS; i++)
		crypto_sign_keypair(pk, wd->keys[i]);
}

/* Makes one run the way an upload arrives and is checked; 0 or -1. */
static int item_make(struct world *wd, struct item *it)
{
	size_t m = pick(wd->model_c, MODELS), mach = pick(wd->machine_c, MACHINES);
	size_t a = wd->machine_accel[mach], key = mach % KEYS;
	struct sample_opts o = { 0 };
	struct err je;
	struct err ve;
	json_t *p;
	char *text;
	double off = wd->machine_off[mach], d;

	it->hot = unit() < wd->hot;
	if (it->hot) {
		size_t hk = pick(wd->hot_key_c, HOT_KEYS);
		m = 0;
		a = 0;
		key = hk * (KEYS / HOT_KEYS);
		off = wd->hot_key_off[hk];
	}
	if (wd->old_data)
		d = wd->model_speed[m] * wd->accel_speed[a] * (1.0 + 0.03 * (unit() + unit() + unit() - 1.5));
	else
		d = wd->model_speed[m] * wd->accel_speed[a] * off * (1.0 + 0.02 * gauss());
	it->planted = rnd() % 500 == 0;
	if (it->planted)
		d *= 4.0;
	o.model = wd->model_name[m];
	o.accelerator = wd->accel_name[a];
	o.backend = it->hot ? backends[0] : backends[(mach + rnd() % 8 / 7) % 4];
	o.fingerprint = it->hot ? "b0b0b0b0b0b0b0b0" : wd->machine_fp[mach];
	o.decode_tok_s = round(d * 10.0) / 10.0 + 0.1;
	p = sample_payload(&o);
	text = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	it->compact = text ? jws_sign_eddsa(wd->keys[key], (unsigned char *)text, strlen(text)) : NULL;
	free(text);
	if (!it->compact || jws_parse_verify(it->compact, strlen(it->compact), &it->jws, &je) != JWS_OK)
		return -1;
	if (validate_payload_bytes(it->jws.payload, it->jws.payload_len, (long long)time(NULL),
				   &it->payload, &it->n.f, &ve) != 0) {
		fprintf(stderr, "fill: a run does not validate: %s\n", ve.message);
		return -1;
	}
	it->n.payload = it->jws.payload;
	it->n.payload_len = it->jws.payload_len;
	it->n.jws = it->compact;
	it->n.jws_len = strlen(it->compact);
	run_store_pack(&it->n);
	it->n.thumbprint = it->jws.thumbprint;
	it->n.alg = "EdDSA";
	it->dispute = rnd() % 1000 == 0;
	it->n.j.run = run_store_run;
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Prints the share of honest and of planted runs flagged, over all counted
 * runs and in the hot cluster; 0 or -1. */
static int flag_report(const char *path)
{
	static const char *const sql[] = {
		"SELECT count(*), total(outlier) FROM runs WHERE status = 'ok' "
		"AND id NOT IN (SELECT id FROM temp.planted)",
		"SELECT count(*), total(outlier) FROM runs WHERE status = 'ok' "
		"AND id IN (SELECT id FROM temp.planted)",
		"SELECT count(*), total(outlier) FROM runs WHERE status = 'ok' "
		"AND fingerprint_hash = 'b0b0b0b0b0b0b0b0' AND id NOT IN (SELECT id FROM temp.planted)",
		"SELECT count(*), total(outlier) FROM runs WHERE status = 'ok' "
		"AND fingerprint_hash = 'b0b0b0b0b0b0b0b0' AND id IN (SELECT id FROM temp.planted)",
	};
	static const char *const what[] = { "honest runs", "planted runs", "hot cluster's honest runs",
					    "hot cluster's planted runs" };
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = sqlite3_open(path, &h);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h, "CREATE TEMP TABLE planted(id TEXT PRIMARY KEY)", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h, "INSERT OR IGNORE INTO temp.planted VALUES (?)", -1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < planted_n; i++) {
		sqlite3_bind_text(st, 1, planted_ids[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	for (i = 0; rc == SQLITE_OK && i < sizeof sql / sizeof *sql; i++) {
		rc = sqlite3_prepare_v2(h, sql[i], -1, &st, NULL);
		if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
			long long n = sqlite3_column_int64(st, 0);
			double f = sqlite3_column_double(st, 1);
			printf("flagged: %.0f of %lld %s (%.2f%%)\n", f, n, what[i], n ? 100.0 * f / (double)n : 0.0);
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (rc != SQLITE_OK)
		fprintf(stderr, "fill: flag report: %s\n", h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
	sqlite3_close(h);
	return rc == SQLITE_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct world wd;
	const char *path = NULL, *migrations = NULL, *list_path = NULL, *refdir = NULL;
	char refbuf[4096];
	const struct ceiling_ref *ref;
	long runs = 0, done = 0, k;
	struct db *db;
	struct err err = ERR_INIT;
	char slug[SLUG_MAX + 1];
	double t0, t1;
	int c, cur = 0;

	wd.hot = 0.1;
	while ((c = getopt_long(argc, argv, "", (struct option[]){
			{ "db", required_argument, NULL, 'd' }, { "migrations", required_argument, NULL, 'm' },
			{ "runs", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
			{ "list", required_argument, NULL, 'l' }, { "hot", required_argument, NULL, 'h' },
			{ "old-data", no_argument, NULL, 'o' },
			{ "reference", required_argument, NULL, 'r' }, { 0, 0, 0, 0 } }, NULL)) != -1) {
		if (c == 'd') path = optarg;
		else if (c == 'm') migrations = optarg;
		else if (c == 'n') runs = atol(optarg);
		else if (c == 's') rng = strtoull(optarg, NULL, 10) | 1;
		else if (c == 'l') list_path = optarg;
		else if (c == 'h') wd.hot = atof(optarg);
		else if (c == 'o') wd.old_data = 1;
		else if (c == 'r') refdir = optarg;
		else return 2;
	}
	if (!path || !migrations || runs <= 0 || wd.hot < 0 || wd.hot > 1) {
		fprintf(stderr, "usage: fill --db FILE --migrations DIR --runs N [--seed S] [--list FILE] "
			"[--hot SHARE] [--old-data] [--reference DIR]\n");
		return 2;
	}
	/* The daemon's reference data (static/reference beside migrations/):
	 * runs resolve and meet their ceilings as uploads do. */
	if (!refdir) {
		snprintf(refbuf, sizeof refbuf, "%s/../static/reference", migrations);
		refdir = refbuf;
	}
	if (!(ref = ceiling_load(refdir, &err))) {
		fprintf(stderr, "fill: no reference data: %s\n", err.message);
		return 1;
	}
	db_set_reference(ref);
	db_after_migrate = start_run;
	if (sodium_init() < 0)
		return 1;
	log_set_quiet(1);
	if (db_open(path, migrations, &db, &err) != DB_OK) {
		fprintf(stderr, "fill: %s\n", err.message);
		return 1;
	}
	if (list_path && !(list = fopen(list_path, "w"))) {
		fprintf(stderr, "fill: cannot write %s\n", list_path);
		return 1;
	}
	{
		struct db_job tune = { .run = tune_run };
		if (db_write(db, &tune) != DB_OK) {
			fprintf(stderr, "fill: cannot set the writer's page cache\n");
			return 1;
		}
	}
	world_init(&wd);
	slug_model(wd.model_name[0], slug, sizeof slug);
	printf("hot_model %s\n", slug);
	slug_hw(wd.accel_name[0], slug, sizeof slug);
	printf("hot_hw %s\n", slug);
	fflush(stdout);
	t0 = t1 = now_s();
	while (done < runs && !failed) {
		struct batch *b = &batches[cur];
		pthread_mutex_lock(&mu);
		while (b->busy)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		if (failed)
			break;
		for (b->n = 0; b->n < BATCH && done + (long)b->n < runs; b->n++)
			if (item_make(&wd, &b->items[b->n]) < 0) {
				fprintf(stderr, "fill: could not make a run\n");
				return 1;
			}
		done += (long)b->n;
		b->busy = 1;
		b->j = (struct db_job){ .run = batch_run, .done = batch_done };
		db_submit(db, &b->j);
		cur ^= 1;
		if (done % CKPT_EVERY < BATCH && ckpt_idle(path) < 0)
			return 1;
		if (now_s() - t1 >= 10.0) {
			t1 = now_s();
			fprintf(stderr, "fill: %ld of %ld runs, %.0f s, %.0f runs/s\n", done, runs,
				t1 - t0, (double)done / (t1 - t0));
		}
	}
	pthread_mutex_lock(&mu);
	for (k = 0; k < 2; k++)
		while (batches[k].busy)
			pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	db_close(db);
	if (list)
		fclose(list);
	t1 = now_s();
	printf("filled %ld runs in %.1f s (%.0f runs/s)\n", done, t1 - t0, (double)done / (t1 - t0));
	printf("writer jobs took %.1f s (%.0f runs/s), commits not counted; writer CPU %.0f us/run\n",
	       writer_s, (double)done / writer_s, 1e6 * writer_cpu / (double)done);
	printf("versions passes (the refresh thread's): %.0f us/run\n", 1e6 * versions_cpu / (double)done);
	for (k = 0; k < MAX_WINDOWS && k * WINDOW < stored_n; k++) {
		long end = (k + 1) * WINDOW;
		if (end == 10000 || end == 100000 || end == 1000000 || end >= stored_n)
			printf("writer CPU in runs %ld-%ld: %.0f us/run\n", k * WINDOW, end < stored_n ? end : stored_n,
			       1e6 * window_cpu[k] / (double)((end < stored_n ? end : stored_n) - k * WINDOW));
	}
	if (!failed && flag_report(path) < 0)
		return 1;
	return failed ? 1 : 0;
}
