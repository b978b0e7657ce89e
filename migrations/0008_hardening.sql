-- 0008_hardening.sql: one run per signed payload, and replay-proof signed
-- dispute posts.
--
-- An ES256 signature (r, s) has a twin (r, n - s) that verifies just as
-- well, so the bytes of a JWS are not the identity of a run: anyone could
-- fetch /r/<id>.jws, flip s and upload "another" run.  A run is therefore
-- identified by its signing key and the SHA-256 of its signed payload;
-- payload_sha256 holds the latter, the digest of the exact signed bytes
-- (sha256() and jws_payload() are the daemon's own SQL functions,
-- registered on its connections; runs keep their payload inside the JWS).  Rows written by hand without
-- it keep NULL and are still found by jws_sha256.
ALTER TABLE runs ADD COLUMN payload_sha256 BLOB;
UPDATE runs SET payload_sha256 = sha256(jws_payload(jws));
-- Not UNIQUE: a database that already holds flipped twins must still
-- migrate; the writer looks the pair up before every insert, and answers
-- with the oldest run.
CREATE INDEX runs_key_payload ON runs(key_thumbprint, payload_sha256);

-- A signed dispute post is bound to its signed payload: the same payload
-- (whatever its signature bytes) makes no second post.  The payload may
-- carry "iat" and "nonce" (contract section 5), so a submitter who says the
-- same thing twice signs two different payloads.  Posts stored before this
-- migration kept no payload and have NULL here.
ALTER TABLE dispute_posts ADD COLUMN signed_sha256 BLOB;
CREATE UNIQUE INDEX dispute_posts_signed ON dispute_posts(run_id, signed_sha256)
	WHERE signed_sha256 IS NOT NULL;
-- The submitter's posts, pinned on every page of a long thread.
CREATE INDEX dispute_posts_submitter ON dispute_posts(run_id, id) WHERE by_submitter = 1;
