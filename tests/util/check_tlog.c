/* check_tlog.c: the transparency log's tree, proofs, tile paths and notes
 * (server/util/tlog.c), its SQLite store (tlog_store.c) and its signer's refusal
 * to fork (tlog_signer.c), against hashes made by Go's sumdb/tlog
 * (tests/vectors/tlog_go.txt) and RFC 6962's worked examples. */
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_util.h"
#include "store/db.h"
#include "store/db_int.h"
#include <sqlite3.h>
#include "util/tlog.h"
#include "store/tlog_signer.h"
#include "store/tlog_store.h"

/* ---- an in-memory tree: every complete subtree hash, by level ---- */

#define MEM_MAX 1024

struct mem {
	unsigned char h[11][MEM_MAX][TLOG_HASH];   /* [level][idx] */
	uint64_t n;
};

static int mem_get(void *ctx, unsigned level, uint64_t idx, unsigned char out[TLOG_HASH])
{
	struct mem *m = ctx;

	if (level > 10 || ((idx + 1) << level) > m->n)
		return -1;                 /* not complete: never stored */
	memcpy(out, m->h[level][idx], TLOG_HASH);
	return 0;
}

/* Appends a leaf of data and the subtree hashes it completes. */
static void mem_append(struct mem *m, const void *data, size_t len)
{
	uint64_t i = m->n;
	unsigned level = 0;

	tlog_leaf_hash(data, len, m->h[0][i]);
	while (i & 1) {
		tlog_node_hash(m->h[level][i - 1], m->h[level][i], m->h[level + 1][i >> 1]);
		i >>= 1;
		level++;
	}
	m->n++;
}

static struct mem *mem_of_entries(unsigned n)
{
	struct mem *m = calloc(1, sizeof *m);
	char rec[32];
	unsigned i;

	ck_assert_ptr_nonnull(m);
	for (i = 0; i < n; i++) {
		snprintf(rec, sizeof rec, "entry %u", i);
		mem_append(m, rec, strlen(rec));
	}
	return m;
}

static void unhex(const char *s, unsigned char out[TLOG_HASH])
{
	ck_assert_int_eq(sodium_hex2bin(out, TLOG_HASH, s, 64, NULL, NULL, NULL), 0);
}

/* Reads up to max hex hashes separated by spaces from p. */
static size_t read_hashes(const char *p, unsigned char out[][TLOG_HASH], size_t max)
{
	size_t n = 0;

	while (*p == ' ' && n < max) {
		unhex(p + 1, out[n++]);
		p += 65;
	}
	return n;
}

/* ---- Go's known hashes ---- */

START_TEST(go_leaf_and_root_hashes)
{
	char *v = read_vector("tlog_go.txt", NULL), *line, *save = NULL;
	struct mem *m = mem_of_entries(1000);
	struct tlog_reader rd = { mem_get, m };
	unsigned char want[TLOG_HASH], got[TLOG_HASH];
	unsigned long long a;
	unsigned leaves = 0, roots = 0;
	char hex[65];

	ck_assert_ptr_nonnull(v);
	for (line = strtok_r(v, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "leaf %llu %64s", &a, hex) == 2) {
			unhex(hex, want);
			ck_assert_msg(!memcmp(m->h[0][a], want, TLOG_HASH), "leaf %llu", a);
			leaves++;
		} else if (sscanf(line, "root %llu %64s", &a, hex) == 2) {
			unhex(hex, want);
			ck_assert_int_eq(tlog_root(&rd, a, got), 0);
			ck_assert_msg(!memcmp(got, want, TLOG_HASH), "root of %llu", a);
			roots++;
		}
	}
	ck_assert_uint_eq(leaves, 1000);
	ck_assert_uint_eq(roots, 1000);
	free(m);
	free(v);
}
END_TEST

START_TEST(go_proofs)
{
	char *v = read_vector("tlog_go.txt", NULL), *line, *save = NULL;
	struct mem *m = mem_of_entries(1000);
	struct tlog_reader rd = { mem_get, m };
	unsigned char want[TLOG_MAX_PROOF][TLOG_HASH], got[TLOG_MAX_PROOF][TLOG_HASH];
	unsigned char ra[TLOG_HASH], rb[TLOG_HASH];
	unsigned long long a, b;
	unsigned proofs = 0;
	size_t nw, ng;
	int off;

	ck_assert_ptr_nonnull(v);
	for (line = strtok_r(v, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "inclusion %llu %llu%n", &a, &b, &off) == 2) {
			nw = read_hashes(line + off, want, TLOG_MAX_PROOF);
			ck_assert_int_eq(tlog_prove_inclusion(&rd, a, b, got, &ng), 0);
			ck_assert_uint_eq(ng, nw);
			ck_assert_msg(!memcmp(got, want, ng * TLOG_HASH), "inclusion %llu in %llu", a, b);
			ck_assert_int_eq(tlog_root(&rd, b, rb), 0);
			ck_assert(tlog_check_inclusion(m->h[0][a], a, b, (const unsigned char (*)[TLOG_HASH])got, ng, rb));
			proofs++;
		} else if (sscanf(line, "consistency %llu %llu%n", &a, &b, &off) == 2) {
			nw = read_hashes(line + off, want, TLOG_MAX_PROOF);
			ck_assert_int_eq(tlog_prove_consistency(&rd, a, b, got, &ng), 0);
			ck_assert_uint_eq(ng, nw);
			ck_assert_msg(!memcmp(got, want, ng * TLOG_HASH), "consistency %llu %llu", a, b);
			ck_assert_int_eq(tlog_root(&rd, a, ra), 0);
			ck_assert_int_eq(tlog_root(&rd, b, rb), 0);
			ck_assert(tlog_check_consistency(a, ra, b, rb, (const unsigned char (*)[TLOG_HASH])got, ng));
			proofs++;
		}
	}
	ck_assert_uint_eq(proofs, 16);
	free(m);
	free(v);
}
END_TEST

/* Every inclusion and consistency proof of small trees checks, and fails
 * once any hash of it, the index or a size is wrong. */
START_TEST(proofs_check_and_tampering_fails)
{
	struct mem *m = mem_of_entries(70);
	struct tlog_reader rd = { mem_get, m };
	unsigned char p[TLOG_MAX_PROOF][TLOG_HASH], ra[TLOG_HASH], rb[TLOG_HASH], rnext[TLOG_HASH];
	const unsigned char (*cp)[TLOG_HASH] = (const unsigned char (*)[TLOG_HASH])p;
	uint64_t a, b;
	size_t n, k;

	for (b = 1; b < 70; b++) {
		ck_assert_int_eq(tlog_root(&rd, b, rb), 0);
		ck_assert_int_eq(tlog_root(&rd, b + 1, rnext), 0);
		for (a = 0; a < b; a++) {
			ck_assert_int_eq(tlog_prove_inclusion(&rd, a, b, p, &n), 0);
			ck_assert(tlog_check_inclusion(m->h[0][a], a, b, cp, n, rb));
			ck_assert(!tlog_check_inclusion(m->h[0][a], a, b, cp, n, rnext));
			if (b > 1)
				ck_assert(!tlog_check_inclusion(m->h[0][a], (a + 1) % b, b, cp, n, rb));
			for (k = 0; k < n; k++) {
				p[k][0] ^= 1;
				ck_assert(!tlog_check_inclusion(m->h[0][a], a, b, cp, n, rb));
				p[k][0] ^= 1;
			}
			ck_assert_int_eq(tlog_root(&rd, a + 1, ra), 0);
			ck_assert_int_eq(tlog_prove_consistency(&rd, a + 1, b, p, &n), 0);
			ck_assert(tlog_check_consistency(a + 1, ra, b, rb, cp, n));
			for (k = 0; k < n; k++) {
				p[k][5] ^= 0x80;
				ck_assert(!tlog_check_consistency(a + 1, ra, b, rb, cp, n));
				p[k][5] ^= 0x80;
			}
			ra[0] ^= 1;
			ck_assert(!tlog_check_consistency(a + 1, ra, b, rb, cp, n));
		}
	}
	free(m);
}
END_TEST

/* ---- RFC 6962 section 2.1.3, the worked examples for seven leaves ---- */

struct rfc_tree {
	struct mem *m;
	unsigned char a[TLOG_HASH], b[TLOG_HASH], c[TLOG_HASH], d[TLOG_HASH],
		e[TLOG_HASH], f[TLOG_HASH], g[TLOG_HASH], h[TLOG_HASH], i[TLOG_HASH],
		j[TLOG_HASH], k[TLOG_HASH], l[TLOG_HASH];
};

/* The tree of the RFC's figure, its nodes computed by hand from d0 .. d6. */
static void rfc_tree(struct rfc_tree *t)
{
	static const char *const d[7] = { "d0", "d1", "d2", "d3", "d4", "d5", "d6" };
	unsigned x;

	t->m = calloc(1, sizeof *t->m);
	ck_assert_ptr_nonnull(t->m);
	for (x = 0; x < 7; x++)
		mem_append(t->m, d[x], 2);
	tlog_leaf_hash("d0", 2, t->a);
	tlog_leaf_hash("d1", 2, t->b);
	tlog_leaf_hash("d2", 2, t->c);
	tlog_leaf_hash("d3", 2, t->d);
	tlog_leaf_hash("d4", 2, t->e);
	tlog_leaf_hash("d5", 2, t->f);
	tlog_leaf_hash("d6", 2, t->j);
	tlog_node_hash(t->a, t->b, t->g);
	tlog_node_hash(t->c, t->d, t->h);
	tlog_node_hash(t->e, t->f, t->i);
	tlog_node_hash(t->g, t->h, t->k);
	tlog_node_hash(t->i, t->j, t->l);
}

/* Asserts that proof (n hashes) is exactly the listed nodes. */
static void assert_nodes(unsigned char proof[][TLOG_HASH], size_t n,
			 const unsigned char *const *want, size_t nwant, const char *what)
{
	size_t x;

	ck_assert_msg(n == nwant, "%s: %zu hashes, want %zu", what, n, nwant);
	for (x = 0; x < n; x++)
		ck_assert_msg(!memcmp(proof[x], want[x], TLOG_HASH), "%s: hash %zu", what, x);
}

START_TEST(rfc6962_audit_paths)
{
	struct rfc_tree t;
	struct tlog_reader rd;
	unsigned char p[TLOG_MAX_PROOF][TLOG_HASH], root[TLOG_HASH], hash[TLOG_HASH];
	size_t n;

	rfc_tree(&t);
	rd = (struct tlog_reader){ mem_get, t.m };
	tlog_node_hash(t.k, t.l, hash);
	ck_assert_int_eq(tlog_root(&rd, 7, root), 0);
	ck_assert(!memcmp(root, hash, TLOG_HASH));
	/* "The audit path for d0 is [b, h, l]." */
	tlog_prove_inclusion(&rd, 0, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.b, t.h, t.l }, 3, "d0");
	/* "The audit path for d3 is [c, g, l]." */
	tlog_prove_inclusion(&rd, 3, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.c, t.g, t.l }, 3, "d3");
	/* "The audit path for d4 is [f, j, k]." */
	tlog_prove_inclusion(&rd, 4, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.f, t.j, t.k }, 3, "d4");
	ck_assert(tlog_check_inclusion(t.e, 4, 7, (const unsigned char (*)[TLOG_HASH])p, n, root));
	/* "The audit path for d6 is [i, k]." */
	tlog_prove_inclusion(&rd, 6, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.i, t.k }, 2, "d6");
	ck_assert(tlog_check_inclusion(t.j, 6, 7, (const unsigned char (*)[TLOG_HASH])p, n, root));
	free(t.m);
}
END_TEST

START_TEST(rfc6962_consistency_proofs)
{
	struct rfc_tree t;
	struct tlog_reader rd;
	unsigned char p[TLOG_MAX_PROOF][TLOG_HASH], root[TLOG_HASH], old[TLOG_HASH];
	size_t n;

	rfc_tree(&t);
	rd = (struct tlog_reader){ mem_get, t.m };
	tlog_root(&rd, 7, root);
	/* "PROOF(3, D[7]) = [c, d, g, l]" */
	tlog_prove_consistency(&rd, 3, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.c, t.d, t.g, t.l }, 4, "hash0");
	tlog_root(&rd, 3, old);
	ck_assert(tlog_check_consistency(3, old, 7, root, (const unsigned char (*)[TLOG_HASH])p, n));
	/* "PROOF(4, D[7]) = [l]" */
	tlog_prove_consistency(&rd, 4, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.l }, 1, "hash1");
	ck_assert(tlog_check_consistency(4, t.k, 7, root, (const unsigned char (*)[TLOG_HASH])p, n));
	/* "PROOF(6, D[7]) = [i, j, k]" */
	tlog_prove_consistency(&rd, 6, 7, p, &n);
	assert_nodes(p, n, (const unsigned char *const[]){ t.i, t.j, t.k }, 3, "hash2");
	tlog_node_hash(t.k, t.i, old);
	ck_assert(tlog_check_consistency(6, old, 7, root, (const unsigned char (*)[TLOG_HASH])p, n));
	free(t.m);
}
END_TEST

/* ---- tile paths ---- */

START_TEST(tile_paths)
{
	static const struct { const char *path; int level; uint64_t n; unsigned w; } ok[] = {
		{ "0/000", 0, 0, 256 },
		{ "0/x001/x234/067", 0, 1234067, 256 },
		{ "1/x001/000.p/17", 1, 1000, 17 },
		{ "entries/067.p/255", -1, 67, 255 },
		{ "entries/x999/999", -1, 999999, 256 },
		{ "63/001.p/1", 63, 1, 1 },
	};
	static const char *const bad[] = {
		"", "0", "0/", "0/0", "0/00", "0/0000", "00/000", "01/000", "64/000", "0/x000",
		"0/x01/000", "0/001/002", "0/000.p/0", "0/000.p/256", "0/000.p/01", "0/000.p/",
		"0/000.p", "0/000/", "entries/", "entries/000.p/300", "data/000", "-1/000",
		"0/000.p/1/", "0/x000x/000", "0/x000/001", "entries/x000/x001/000",
	};
	struct tlog_tile t;
	size_t i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct buf b = BUF_INIT;

		ck_assert_msg(tlog_tile_parse(ok[i].path, &t) == 0, "%s", ok[i].path);
		ck_assert_int_eq(t.level, ok[i].level);
		ck_assert_uint_eq(t.n, ok[i].n);
		ck_assert_uint_eq(t.width, ok[i].w);
		tlog_tile_format(&b, &t);
		ck_assert_str_eq(b.buf, ok[i].path);
		buf_release(&b);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(tlog_tile_parse(bad[i], &t) < 0, "accepted %s", bad[i]);
}
END_TEST

/* ---- signed notes ---- */

START_TEST(notes_sign_and_verify)
{
	unsigned char pk[32], sk[64], root[TLOG_HASH], got_root[TLOG_HASH];
	struct buf body = BUF_INIT, note = BUF_INIT, vkey = BUF_INIT;
	char origin[64];
	uint64_t n;
	size_t blen;

	crypto_sign_keypair(pk, sk);
	memset(root, 7, sizeof root);
	tlog_checkpoint_body(&body, "example.com/log", 12345, root);
	tlog_note_sign(&note, body.buf, body.len, "example.com/log", sk, pk);
	ck_assert(tlog_note_verify(note.buf, note.len, "example.com/log", pk, &blen));
	ck_assert_uint_eq(blen, body.len);
	ck_assert_int_eq(tlog_checkpoint_parse(note.buf, note.len, origin, sizeof origin, &n, got_root), 0);
	ck_assert_str_eq(origin, "example.com/log");
	ck_assert_uint_eq(n, 12345);
	ck_assert(!memcmp(root, got_root, TLOG_HASH));
	ck_assert(!strncmp(note.buf, "example.com/log\n12345\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n\n\xe2\x80\x94 example.com/log ", 85));
	/* another name, another key, an edited body: no valid signature */
	ck_assert(!tlog_note_verify(note.buf, note.len, "example.com/other", pk, &blen));
	pk[0] ^= 1;
	ck_assert(!tlog_note_verify(note.buf, note.len, "example.com/log", pk, &blen));
	pk[0] ^= 1;
	note.buf[17] = '9';
	ck_assert(!tlog_note_verify(note.buf, note.len, "example.com/log", pk, &blen));
	tlog_verifier_key(&vkey, "example.com/log", pk);
	ck_assert(!strncmp(vkey.buf, "example.com/log+", 16));
	ck_assert_uint_eq(vkey.len, 16 + 8 + 1 + 44);
	buf_release(&body);
	buf_release(&note);
	buf_release(&vkey);
}
END_TEST

START_TEST(origin_of_base_url)
{
	char o[64];

	tlog_signer_origin_of("https://llm-speed.example/", o, sizeof o);
	ck_assert_str_eq(o, "llm-speed.example");
	tlog_signer_origin_of("https://host.example/sub/path//", o, sizeof o);
	ck_assert_str_eq(o, "host.example/sub/path");
	tlog_signer_origin_of("http://127.0.0.1:8080", o, sizeof o);
	ck_assert_str_eq(o, "127.0.0.1:8080");
}
END_TEST

/* ---- the SQLite store and the signer ---- */

static char tmpdir[256];

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/check_tlog.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "check_tlog: could not remove %s\n", tmpdir);
}

static struct db *open_db_at(const char *name)
{
	struct err err = ERR_INIT;
	char path[300], mig[600];
	struct db *db = NULL;

	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	ck_assert_msg(db_open(path, mig, &db, &err) == DB_OK, "%s", err.message);
	return db;
}

struct append_job {
	struct db_job j;
	unsigned from, count;
	const char *prefix;
};

/* Appends run entries "<prefix><i>" for i in [from, from + count). */
static int append_run(struct dbconn *w, struct db_job *j)
{
	struct append_job *a = (struct append_job *)j;
	unsigned char sha[32];
	char ref[64];
	uint64_t index;
	unsigned i;
	int rc;

	for (i = a->from; i < a->from + a->count; i++) {
		snprintf(ref, sizeof ref, "%s%u", a->prefix, i);
		crypto_hash_sha256(sha, (const unsigned char *)ref, strlen(ref));
		if ((rc = tlog_store_append(w, TLOG_RUN, ref, sha, &index)) != DB_OK)
			return rc;
		ck_assert_uint_eq(index, i);
	}
	return DB_OK;
}

static void append_runs(struct db *db, const char *prefix, unsigned from, unsigned count)
{
	struct append_job a = { .j = { .run = append_run }, .from = from, .count = count,
				.prefix = prefix };

	ck_assert_int_eq(db_write(db, &a.j), DB_OK);
}

/* The store's tree equals the in-memory tree of the same entry lines, and
 * its tiles are the stored hashes at levels 0 and 8. */
START_TEST(store_matches_memory_and_tiles)
{
	struct db *db = open_db_at("t.db");
	struct mem *m = calloc(1, sizeof *m);
	struct dbconn *c;
	struct tlog_reader rd;
	struct tlog_tile t;
	struct buf b = BUF_INIT;
	unsigned char sha[32], got[TLOG_HASH], want[TLOG_HASH];
	char ref[64], line[200], hex[65];
	unsigned i;

	ck_assert_ptr_nonnull(m);
	append_runs(db, "r_", 0, 300);
	append_runs(db, "r_", 300, 300);
	for (i = 0; i < 600; i++) {
		snprintf(ref, sizeof ref, "r_%u", i);
		crypto_hash_sha256(sha, (const unsigned char *)ref, strlen(ref));
		sodium_bin2hex(hex, sizeof hex, sha, 32);
		snprintf(line, sizeof line, "run %s %s\n", ref, hex);
		mem_append(m, line, strlen(line));
	}
	c = db_reader(db);
	ck_assert_int_eq(tlog_store_size(c), 600);
	rd = tlog_store_reader(c);
	ck_assert_int_eq(tlog_root(&rd, 600, got), 0);
	tlog_root(&(struct tlog_reader){ mem_get, m }, 600, want);
	ck_assert(!memcmp(got, want, TLOG_HASH));
	ck_assert_int_eq(tlog_root(&rd, 257, got), 0);
	tlog_root(&(struct tlog_reader){ mem_get, m }, 257, want);
	ck_assert(!memcmp(got, want, TLOG_HASH));
	/* level 0, tile 1: leaves 256..511 */
	t = (struct tlog_tile){ 0, 1, 256 };
	ck_assert_int_eq(tlog_store_tile(c, &t, &b), DB_OK);
	ck_assert_uint_eq(b.len, 256 * TLOG_HASH);
	ck_assert(!memcmp(b.buf, m->h[0][256], 256 * TLOG_HASH));
	/* level 1, partial width 2: the roots of leaves 0..255 and 256..511 */
	buf_reset(&b);
	t = (struct tlog_tile){ 1, 0, 2 };
	ck_assert_int_eq(tlog_store_tile(c, &t, &b), DB_OK);
	ck_assert(!memcmp(b.buf, m->h[8][0], 2 * TLOG_HASH));
	/* no third full subtree yet; no full third level-0 tile */
	buf_reset(&b);
	t = (struct tlog_tile){ 1, 0, 3 };
	ck_assert_int_eq(tlog_store_tile(c, &t, &b), DB_NOTFOUND);
	t = (struct tlog_tile){ 0, 2, 256 };
	buf_reset(&b);
	ck_assert_int_eq(tlog_store_tile(c, &t, &b), DB_NOTFOUND);
	/* the entry bundle of the partial last tile: 88 length-prefixed lines */
	t = (struct tlog_tile){ -1, 2, 88 };
	buf_reset(&b);
	ck_assert_int_eq(tlog_store_tile(c, &t, &b), DB_OK);
	ck_assert_uint_eq((unsigned char)b.buf[0] << 8 | (unsigned char)b.buf[1], strlen("run r_512 ") + 65);
	ck_assert(!strncmp(b.buf + 2, "run r_512 ", 10));
	buf_release(&b);
	free(m);
	db_close(db);
}
END_TEST

struct kind_job {
	struct db_job j;
	int bad_refs;              /* out: refs refused */
	uint64_t index;
};

/* A withdrawal is recorded as its own kind; refs with a space, a control
 * character or nothing at all are refused and add nothing. */
static int kinds_run(struct dbconn *w, struct db_job *j)
{
	struct kind_job *k = (struct kind_job *)j;
	static const char *const bad[] = { "", "r_a b", "r_a\n", "r_\x7f" };
	unsigned char sha[32];
	size_t i;

	memset(sha, 0xab, sizeof sha);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		k->bad_refs += tlog_store_append(w, TLOG_RUN, bad[i], sha, NULL) != DB_OK;
	k->bad_refs += tlog_store_append(w, TLOG_KIND__MAX, "r_a", sha, NULL) != DB_OK;
	return tlog_store_append(w, TLOG_WITHDRAWAL, "r_abcdefghijk", sha, &k->index);
}

START_TEST(store_kinds_and_refs)
{
	struct db *db = open_db_at("t.db");
	struct kind_job k = { .j = { .run = kinds_run } };
	struct tlog_tile t = { -1, 0, 1 };
	struct buf b = BUF_INIT;
	char want[128];

	ck_assert_int_eq(db_write(db, &k.j), DB_OK);
	ck_assert_int_eq(k.bad_refs, 5);
	ck_assert_uint_eq(k.index, 0);
	ck_assert_int_eq(tlog_store_size(db_reader(db)), 1);
	ck_assert_int_eq(tlog_store_tile(db_reader(db), &t, &b), DB_OK);
	snprintf(want, sizeof want, "withdrawal r_abcdefghijk %s\n",
		 "abababababababababababababababababababababababababababababababab");
	ck_assert_uint_eq(b.len, 2 + strlen(want));
	ck_assert(!memcmp(b.buf + 2, want, strlen(want)));
	buf_release(&b);
	db_close(db);
}
END_TEST

static void copy_file(const char *from, const char *to)
{
	char cmd[800];

	snprintf(cmd, sizeof cmd, "cp '%s/%s' '%s/%s'", tmpdir, from, tmpdir, to);
	ck_assert_int_eq(system(cmd), 0);
}

static int open_signer(struct db *db, struct tlog_signer **s, struct err *err)
{
	char path[300];

	snprintf(path, sizeof path, "%s/t.db", tmpdir);
	return tlog_signer_open(db, path, "example.com/log", s, err);
}

/* A database restored from an older backup is refused: smaller than the
 * published checkpoint, or as large but with other entries; the key file
 * is 0600; a database that extends the checkpoint is signed. */
START_TEST(signer_refuses_a_rolled_back_database)
{
	struct tlog_signer *s = NULL;
	struct db *db = open_db_at("t.db");
	struct err err = ERR_INIT;
	char path[300];
	struct buf ckpt = BUF_INIT;
	struct stat sb;
	uint64_t n;

	append_runs(db, "r_", 0, 5);
	db_close(db);
	copy_file("t.db", "backup.db");              /* the backup: 5 entries */
	db = open_db_at("t.db");
	append_runs(db, "r_", 5, 3);
	ck_assert_msg(open_signer(db, &s, &err) == 0, "%s", err.message);
	ck_assert_int_eq(tlog_signer_latest(s, &ckpt, &n, NULL), 0);
	ck_assert_uint_eq(n, 8);
	snprintf(path, sizeof path, "%s/t.db.logkey", tmpdir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	tlog_signer_close(s);
	db_close(db);

	/* restored: 5 entries, the log published 8 */
	copy_file("backup.db", "t.db");
	db = open_db_at("t.db");
	ck_assert_int_lt(open_signer(db, &s, &err), 0);
	ck_assert_msg(strstr(err.message, "older than the log"), "%s", err.message);
	/* the restored database took 3 other entries: the same size, another tree */
	append_runs(db, "x_", 5, 3);
	ck_assert_int_lt(open_signer(db, &s, &err), 0);
	ck_assert_msg(strstr(err.message, "fork"), "%s", err.message);
	append_runs(db, "x_", 8, 10);
	ck_assert_int_lt(open_signer(db, &s, &err), 0);
	db_close(db);

	/* the checkpoint file still holds the 8-entry checkpoint */
	snprintf(path, sizeof path, "%s/t.db.checkpoint", tmpdir);
	{
		FILE *f = fopen(path, "rb");
		char text[1024];
		size_t got;

		ck_assert_ptr_nonnull(f);
		got = fread(text, 1, sizeof text, f);
		fclose(f);
		ck_assert_uint_eq(got, ckpt.len);
		ck_assert(!memcmp(text, ckpt.buf, got));
	}
	buf_release(&ckpt);
}
END_TEST

/* A database that extends the published log is signed at its new size. */
START_TEST(signer_signs_an_extended_tree)
{
	struct tlog_signer *s = NULL;
	struct db *db = open_db_at("t.db");
	struct err err = ERR_INIT;
	uint64_t n;

	append_runs(db, "r_", 0, 3);
	ck_assert_msg(open_signer(db, &s, &err) == 0, "%s", err.message);
	append_runs(db, "r_", 3, 4);
	ck_assert_int_eq(tlog_signer_sign(s), 0);
	ck_assert_int_eq(tlog_signer_latest(s, NULL, &n, NULL), 0);
	ck_assert_uint_eq(n, 7);
	tlog_signer_close(s);
	s = NULL;
	ck_assert_msg(open_signer(db, &s, &err) == 0, "%s", err.message);
	ck_assert_int_eq(tlog_signer_latest(s, NULL, &n, NULL), 0);
	ck_assert_uint_eq(n, 7);
	tlog_signer_close(s);
	db_close(db);
}
END_TEST

/* The test's fdatasync(): holds every sync until the gate opens. */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int open, waiting;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

static int gated_sync(int fd)
{
	pthread_mutex_lock(&gate.m);
	gate.waiting++;
	pthread_cond_broadcast(&gate.c);
	while (!gate.open)
		pthread_cond_wait(&gate.c, &gate.m);
	pthread_mutex_unlock(&gate.m);
	return fdatasync(fd);
}

static void gate_set(int open)
{
	pthread_mutex_lock(&gate.m);
	gate.open = open;
	pthread_cond_broadcast(&gate.c);
	pthread_mutex_unlock(&gate.m);
}

static void noop_done(struct db_job *j)
{
	(void)j;
}

static void *sign_thread(void *arg)
{
	return (void *)(intptr_t)tlog_signer_sign(arg);
}

/* Readers see a commit while its sync is still under way, but the signer
 * signs only what is on disk: it waits for the sync, then signs it. */
START_TEST(signer_signs_only_what_is_on_disk)
{
	struct append_job a = { .j = { .run = append_run, .done = noop_done }, .from = 3,
				.count = 2, .prefix = "d_" };
	struct tlog_signer *s = NULL;
	struct db *db = open_db_at("t.db");
	struct timespec pause = { 0, 200 * 1000000L };
	struct err err = ERR_INIT;
	pthread_t t;
	void *ret;
	uint64_t n;

	append_runs(db, "d_", 0, 3);
	ck_assert_msg(open_signer(db, &s, &err) == 0, "%s", err.message);
	ck_assert_int_eq(tlog_signer_sign(s), 0);
	ck_assert_int_eq(tlog_signer_latest(s, NULL, &n, NULL), 0);
	ck_assert_uint_eq(n, 3);

	gate_set(0);
	pthread_mutex_lock(&db->lock);
	db->sync_fn = gated_sync;
	pthread_mutex_unlock(&db->lock);
	db_submit(db, &a.j);
	pthread_mutex_lock(&gate.m);
	while (!gate.waiting)
		pthread_cond_wait(&gate.c, &gate.m);
	pthread_mutex_unlock(&gate.m);
	ck_assert_int_eq(tlog_store_size(db_reader(db)), 5);    /* visible */
	ck_assert_int_eq(pthread_create(&t, NULL, sign_thread, s), 0);
	nanosleep(&pause, NULL);
	ck_assert_int_eq(tlog_signer_latest(s, NULL, &n, NULL), 0);
	ck_assert_uint_eq(n, 3);                                 /* not on disk yet */
	gate_set(1);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_int_eq((int)(intptr_t)ret, 0);
	ck_assert_int_eq(a.j.rc, DB_OK);
	ck_assert_int_eq(tlog_signer_latest(s, NULL, &n, NULL), 0);
	ck_assert_uint_eq(n, 5);
	tlog_signer_close(s);
	db_close(db);
}
END_TEST

/* A database from before the log: its runs, posts and ruling are appended
 * at the upgrade, with the same canonical records the daemon makes. */
START_TEST(upgrade_logs_earlier_rows)
{
	static const char *const names[] = { "0001_init.sql", "0002_pages.sql", "0003_disputes.sql",
		"0004_digest_counts.sql", "0005_secrets.sql", "0006_cluster_figures.sql",
		"0008_hardening.sql" };
	struct err err = ERR_INIT;
	char old[300], cmd[1200], path[300], hex[65], want[3][300];
	unsigned char sha[32];
	struct db *db = NULL;
	sqlite3 *h;
	sqlite3_stmt *st;
	size_t i;
	int n = 0;

	snprintf(old, sizeof old, "%s/old", tmpdir);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/migrations/%s' '%s/'", old,
			 repo_root(), names[i], old);
		ck_assert_int_eq(system(cmd), 0);
	}
	snprintf(path, sizeof path, "%s/t.db", tmpdir);
	ck_assert_msg(db_open(path, old, &db, &err) == DB_OK, "%s", err.message);
	db_close(db);
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(h,
		"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, "
		"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, "
		"created_at, received_at, key_thumbprint, alg, payload, jws, jws_sha256) "
		"VALUES ('r_aaaaaaaaaaa', 's', 'M', 'm', 'd', 'A', 'a', 'c', 'b', '1', 1.0, "
		"'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 't', 'EdDSA', '{}', "
		"CAST('h.p.s' AS BLOB), randomblob(32));"
		"INSERT INTO dispute_threads(run_id, state, note, opened_at, resolved_at, last_post_at) "
		"VALUES ('r_aaaaaaaaaaa', 'upheld', 'Na\xc3\xafve.', '2026-01-02T00:00:00Z', "
		"'2026-01-03T00:00:00Z', '2026-01-02T00:00:00Z');"
		"INSERT INTO dispute_posts(id, run_id, author, body, created_at) VALUES "
		"(7, 'r_aaaaaaaaaaa', NULL, 'caf\xc3\xa9\nline', '2026-01-02T00:00:00Z');",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	crypto_hash_sha256(sha, (const unsigned char *)"h.p.s", 5);
	sodium_bin2hex(hex, sizeof hex, sha, 32);
	snprintf(want[0], sizeof want[0], "run r_aaaaaaaaaaa %s\n", hex);
	tlog_store_entry_sha(sha, "post", (const char *const[]){ "r_aaaaaaaaaaa", "7", NULL,
		"caf\xc3\xa9\nline", "2026-01-02T00:00:00Z" }, 5);
	sodium_bin2hex(hex, sizeof hex, sha, 32);
	snprintf(want[1], sizeof want[1], "post r_aaaaaaaaaaa/7 %s\n", hex);
	tlog_store_entry_sha(sha, "ruling", (const char *const[]){ "r_aaaaaaaaaaa", "upheld",
		"Na\xc3\xafve.", "2026-01-03T00:00:00Z" }, 4);
	sodium_bin2hex(hex, sizeof hex, sha, 32);
	snprintf(want[2], sizeof want[2], "ruling r_aaaaaaaaaaa %s\n", hex);

	db_after_migrate = tlog_store_backfill;   /* as main.c does, after 0011 */
	db = open_db_at("t.db");        /* every migration: 0011 and its backlog */
	db_after_migrate = NULL;
	db_close(db);
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT idx, data FROM tlog_entries ORDER BY idx",
					    -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ck_assert_int_lt(n, 3);
		ck_assert_int_eq(sqlite3_column_int(st, 0), n);
		ck_assert_str_eq((const char *)sqlite3_column_text(st, 1), want[n]);
		n++;
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT log_index FROM runs", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_type(st, 0), SQLITE_INTEGER);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM tlog_backlog", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
}
END_TEST

static Suite *suite_tlog(void)
{
	Suite *s = suite_create("tlog");
	TCase *tc = tcase_create("tree");
	TCase *st = tcase_create("store");

	tcase_add_test(tc, go_leaf_and_root_hashes);
	tcase_add_test(tc, go_proofs);
	tcase_add_test(tc, proofs_check_and_tampering_fails);
	tcase_add_test(tc, rfc6962_audit_paths);
	tcase_add_test(tc, rfc6962_consistency_proofs);
	tcase_add_test(tc, tile_paths);
	tcase_add_test(tc, notes_sign_and_verify);
	tcase_add_test(tc, origin_of_base_url);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(st, setup, teardown);
	tcase_set_timeout(st, 60);
	tcase_add_test(st, store_matches_memory_and_tiles);
	tcase_add_test(st, store_kinds_and_refs);
	tcase_add_test(st, signer_refuses_a_rolled_back_database);
	tcase_add_test(st, signer_signs_an_extended_tree);
	tcase_add_test(st, signer_signs_only_what_is_on_disk);
	tcase_add_test(st, upgrade_logs_earlier_rows);
	suite_add_tcase(s, st);
	return s;
}

CHECK_MAIN(suite_tlog)
