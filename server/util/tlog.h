/* tlog.h: the Merkle tree of the transparency log (RFC 6962 hashing), its
 * proofs, C2SP tlog-tiles paths and signed-note checkpoints.  Pure
 * functions over a hash reader: no database, no I/O (tlog_store.h keeps the
 * tree in SQLite, tlog_signer.h signs and publishes checkpoints).
 *
 * Hash coordinates: the hash at (level, idx) is MTH of the 2^level leaves
 * starting at idx * 2^level, the subtree hashes Go's sumdb/tlog calls
 * "stored hashes".  A tlog-tiles tile at level L holds tree level 8L. */
#ifndef LLMS_TLOG_H
#define LLMS_TLOG_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define TLOG_HASH 32
#define TLOG_TILE_HEIGHT 8
#define TLOG_TILE_WIDTH 256
#define TLOG_MAX_PROOF 64

/* Reads the stored hash at (level, idx) into out; 0, or -1 when it is not
 * stored (or the store failed). */
struct tlog_reader {
	int (*get)(void *ctx, unsigned level, uint64_t idx, unsigned char out[TLOG_HASH]);
	void *ctx;
};

/* RFC 6962 section 2.1: SHA-256(0x00 || data) and SHA-256(0x01 || l || r). */
void tlog_leaf_hash(const void *data, size_t len, unsigned char out[TLOG_HASH]);
void tlog_node_hash(const unsigned char l[TLOG_HASH], const unsigned char r[TLOG_HASH],
		    unsigned char out[TLOG_HASH]);

/* MTH of the leaves [lo, hi) of a tree (lo aligned as in the tree: the
 * ranges RFC 6962's recursion makes); 0 or -1 when a hash is missing. */
int tlog_subtree(const struct tlog_reader *rd, uint64_t lo, uint64_t hi,
		 unsigned char out[TLOG_HASH]);
/* The root hash of the tree of the first n leaves (n >= 1; n == 0 gives the
 * SHA-256 of the empty string, RFC 6962's MTH({})). */
int tlog_root(const struct tlog_reader *rd, uint64_t n, unsigned char out[TLOG_HASH]);

/* RFC 6962 2.1.1 PATH(index, D[n]) into proof, *len hashes; 0 or -1
 * (index >= n, or a hash missing). */
int tlog_prove_inclusion(const struct tlog_reader *rd, uint64_t index, uint64_t n,
			 unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len);
/* RFC 6962 2.1.2 PROOF(m, D[n]) for 0 < m <= n; 0 or -1. */
int tlog_prove_consistency(const struct tlog_reader *rd, uint64_t m, uint64_t n,
			   unsigned char proof[TLOG_MAX_PROOF][TLOG_HASH], size_t *len);

/* RFC 9162 2.1.3.2: 1 when proof shows leaf at index in the tree of size n
 * with root, else 0. */
int tlog_check_inclusion(const unsigned char leaf[TLOG_HASH], uint64_t index, uint64_t n,
			 const unsigned char proof[][TLOG_HASH], size_t len,
			 const unsigned char root[TLOG_HASH]);
/* RFC 9162 2.1.4.2: 1 when proof shows the tree (m, root_m) is a prefix of
 * (n, root_n), else 0.  m == n needs an empty proof and equal roots. */
int tlog_check_consistency(uint64_t m, const unsigned char root_m[TLOG_HASH],
			   uint64_t n, const unsigned char root_n[TLOG_HASH],
			   const unsigned char proof[][TLOG_HASH], size_t len);

/* A tile named by its tlog-tiles path. level -1 is an entry bundle. */
struct tlog_tile {
	int level;
	uint64_t n;
	unsigned width;          /* 1..256; 256 is a full tile (no .p/) */
};
/* Parses the path after "tile/": "<L>/<N>[.p/<W>]" or "entries/<N>[.p/<W>]",
 * N as x001/x234/067, refusing every other spelling (leading zeros, a
 * missing x, W outside 1..255); 0 or -1. */
int tlog_tile_parse(const char *path, struct tlog_tile *t);
/* Appends the path after "tile/" for t. */
void tlog_tile_format(struct buf *b, const struct tlog_tile *t);

/* The checkpoint body (C2SP tlog-checkpoint): origin, size, base64 root,
 * each followed by a newline. */
void tlog_checkpoint_body(struct buf *b, const char *origin, uint64_t n,
			  const unsigned char root[TLOG_HASH]);
/* Parses a checkpoint's (or note's) first three lines: origin (copied into
 * origin, at most originlen bytes with the NUL), size and root; 0 or -1. */
int tlog_checkpoint_parse(const char *text, size_t len, char *origin, size_t originlen,
			  uint64_t *n, unsigned char root[TLOG_HASH]);

/* C2SP signed-note with an Ed25519 key (type 0x01): the key id is the first
 * four bytes of SHA-256(name || "\n" || 0x01 || pk). */
uint32_t tlog_key_id(const char *name, const unsigned char pk[32]);
/* Appends the verifier key "<name>+<8 hex key id>+<base64(0x01 || pk)>". */
void tlog_verifier_key(struct buf *b, const char *name, const unsigned char pk[32]);
/* Appends the signed note: body (ending in "\n"), a blank line, and
 * "\u2014 <name> <base64(key id || signature)>\n".  sk is libsodium's
 * 64-byte secret key. */
void tlog_note_sign(struct buf *b, const char *body, size_t len, const char *name,
		    const unsigned char sk[64], const unsigned char pk[32]);
/* 1 when text is a note carrying a valid signature by (name, pk) over its
 * body; *body_len gets the body's length (including its last newline). */
int tlog_note_verify(const char *text, size_t len, const char *name,
		     const unsigned char pk[32], size_t *body_len);

#endif
