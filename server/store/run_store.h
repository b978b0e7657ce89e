/* run_store.h: storing one verified, validated run.  The write runs on the
 * database writer thread (db.h) and updates the run's outlier cluster in the
 * same transaction. */
#ifndef LLMS_RUN_STORE_H
#define LLMS_RUN_STORE_H

#include <jansson.h>
#include <stddef.h>

#include "store/db.h"
#include "store/names.h"
#include "store/run_fields.h"
#include "util/buf.h"

#define RUN_ID_LEN 14   /* "r_" + 11 characters + NUL */

struct run_new {
	struct db_job j;
	/* in: borrowed, must outlive the job */
	struct run_fields f;
	const unsigned char *payload;  /* the signed payload JSON bytes (not stored
					* again: runs.payload is '' and readers
					* decode it from the JWS) */
	size_t payload_len;
	const char *jws;               /* the exact uploaded bytes */
	size_t jws_len;
	struct buf packed;             /* jws as stored (store/jws_pack.h), made by
					* run_store_pack() off the writer thread;
					* empty: jws is stored as it came (the
					* caller frees it with buf_release) */
	const char *thumbprint;        /* RFC 7638 thumbprint of the signing key */
	const char *alg;               /* "EdDSA" or "ES256" */
	long long account_id;          /* 0: not attributed */
	int demo;                      /* 1 for runs made by --demo */
	const char *fixed_id;          /* demo only: store under this id */
	const char *net;               /* the uploader's network (store/netkey.h), "" or
					* NULL: none known */
	/* out */
	unsigned char sha[32];         /* SHA-256 of jws */
	unsigned char payload_sha[32]; /* SHA-256 of payload; with thumbprint,
					* the idempotency key (ES256 s -> n-s) */
	char id[RUN_ID_LEN];
	int duplicate;                 /* 1: the same bytes, or the same payload
					* under the same key, were stored before */
	struct names_clash clash;      /* field set: refused, nothing stored, as its
					* name reads as another slug's (names.h) */
	int outlier;                   /* the run's flag after the cluster update */
	int capped;                    /* 1: stored, but its key is beyond its network's
					* cap in the run's scope (store/netcap.h) */
	int new_key_refused;           /* 1: refused, nothing stored: its network brought
					* its allowance of new keys today */
	unsigned retry_after;          /* with it: seconds until the next UTC day */
	json_t *affected;              /* ids whose outlier flag changed (array, owned) */
	unsigned cluster_tag;          /* outlier_cluster_tag() of the run's cluster */
	unsigned other_tag;            /* and of the cluster whose new keys changed, or 0 */
	unsigned other_scopes[3];      /* the scope tags (store/scope.h) of that
					* combination's model, hardware and digest */
	unsigned combo_tag;            /* the tag of the run's combination (run_store_combo_tag) */
	int wide;                      /* 1: it changed what pages beyond its model's and
					* its hardware's show (store/scope.h): outlier
					* flags moved on runs of another model's name
					* (or on many), a shown name it renamed, a digest that reads
					* as another's (RUN_DIGEST_TWIN_SQL), a new
					* slug alias, the suite's first run */
};

/* A row when another digest than ?3 in suite ?4 has counted runs and
 * starts with the same "sha256:" and 12 hex digits (?1 those 19
 * characters, ?2 the same followed by '~'): such digests are shown in
 * full wherever a short digest is (pages/browse.h, browse_digest_short). */
#define RUN_DIGEST_TWIN_SQL \
	"SELECT 1 FROM runs WHERE suite_version = ?4 AND status = 'ok' AND model_digest >= ?1 " \
	"AND model_digest < ?3 UNION ALL " \
	"SELECT 1 FROM runs WHERE suite_version = ?4 AND status = 'ok' AND model_digest > ?3 " \
	"AND model_digest < ?2 LIMIT 1"

/* Writes a new unguessable run id: "r_" and 11 of [a-z0-9_-]. */
void run_id_new(char out[RUN_ID_LEN]);

/* 1 when s has the shape of a run id. */
int run_id_valid(const char *s);

/* The cache tag of the pages that show the figures of a combination
 * (suite, digest, hardware slug, backend), as run_new.combo_tag. */
unsigned run_store_combo_tag(const char *suite, const char *digest, const char *hw_slug,
			     const char *backend);

/* The hardware class a run's fingerprint cluster is keyed by (contract
 * section 4): its fingerprint hash together with its page's hardware slug
 * ("3f9a0c11d2e4b5a6:rtx-4090"), or "slug:" and the slug without a
 * fingerprint.  Runs that reuse a fingerprint under another hardware name
 * never judge it. */
void run_store_hw_class(const char *fingerprint, const char *hw_slug, char *out, size_t n);

/* Records that pages of kind ("model", "hw") named by slug now live under
 * target (an uploaded name's own slug, resolved to a reference id), unless
 * slug is empty or target itself; *added (NULL: not asked) gets 1 when
 * the alias is new.  Returns a db_status. */
int run_store_alias(struct dbconn *w, const char *kind, const char *slug, const char *target,
		    int *added);

/* Packs n->jws into n->packed for the writer, on the caller's thread
 * (jws_pack.h); a JWS that does not pack is stored as it came. */
void run_store_pack(struct run_new *n);

/* The db_job run function of a struct run_new (its j.run), on the writer
 * thread: keys the run on the SHA-256 of its JWS bytes and of its payload
 * (sha, payload_sha: the same bytes, or the same payload under the same
 * key, are a duplicate), then stores it or finds it stored. */
int run_store_run(struct dbconn *w, struct db_job *j);

#endif
