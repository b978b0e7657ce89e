-- 0001_init.sql: accounts, runs and outlier clusters.

CREATE TABLE accounts (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	token_hash  BLOB NOT NULL UNIQUE,      -- SHA-256 of the bearer token; the token itself is never stored
	created_at  TEXT NOT NULL,
	revoked     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE runs (
	id               TEXT PRIMARY KEY,     -- r_ + 11 random characters
	suite_version    TEXT NOT NULL,
	model_name       TEXT NOT NULL,
	model_slug       TEXT NOT NULL,
	model_digest     TEXT NOT NULL,
	model_quant      TEXT,
	model_format     TEXT,
	accelerator      TEXT NOT NULL,        -- hardware.accelerator_summary
	hw_slug          TEXT NOT NULL,
	fingerprint_hash TEXT,                 -- NULL for strict-anon runs
	hw_class         TEXT NOT NULL,        -- fingerprint hash, or 'slug:' || hw_slug without one
	backend_name     TEXT NOT NULL,
	backend_version  TEXT NOT NULL,
	decode_tok_s     REAL NOT NULL,        -- workloads.chat-short.decode_tok_s
	prefill_tok_s    REAL,
	ttft_ms          REAL,
	created_at       TEXT NOT NULL,        -- as signed by the client
	received_at      TEXT NOT NULL,        -- server clock
	key_thumbprint   TEXT NOT NULL,        -- RFC 7638 thumbprint of the signing key
	alg              TEXT NOT NULL,        -- EdDSA or ES256
	account_id       INTEGER REFERENCES accounts(id),
	payload          TEXT NOT NULL,        -- the signed payload JSON
	jws              BLOB NOT NULL,        -- the exact bytes uploaded
	jws_sha256       BLOB NOT NULL UNIQUE, -- idempotency key
	demo             INTEGER NOT NULL DEFAULT 0,
	outlier          INTEGER NOT NULL DEFAULT 0,
	sigma            REAL,                 -- distance from the cluster mean in standard deviations
	status           TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'upheld'))
);

CREATE INDEX runs_suite_model ON runs(suite_version, model_slug, decode_tok_s DESC);
CREATE INDEX runs_suite_hw    ON runs(suite_version, hw_slug, decode_tok_s DESC);
CREATE INDEX runs_cluster     ON runs(suite_version, model_digest, hw_class, backend_name);
CREATE INDEX runs_digest      ON runs(model_digest);
CREATE INDEX runs_fingerprint ON runs(fingerprint_hash);
CREATE INDEX runs_received    ON runs(suite_version, received_at DESC);
CREATE INDEX runs_outlier     ON runs(outlier) WHERE outlier = 1;

-- Statistics of each cluster (contract section 4), kept in step with runs
-- in the same transaction as every change.
CREATE TABLE clusters (
	suite_version TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_class      TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	n             INTEGER NOT NULL,
	mean          REAL NOT NULL,
	stddev        REAL NOT NULL,
	PRIMARY KEY (suite_version, model_digest, hw_class, backend_name)
) WITHOUT ROWID;
