-- 0006_cluster_figures.sql: exact running sums per outlier cluster, the
-- signing keys behind each cluster, and an index that finds flag changes.
--
-- An upload used to read every run of its cluster to recompute the mean and
-- standard deviation.  Now clusters keeps exact integer sums of the
-- cluster's counted runs (server/store/outlier.c says how), so an upload updates
-- one row, and the runs whose flag changes are found with range seeks in
-- runs_cluster_flag.  The sums of existing clusters are filled in by the
-- server right after this migration (outlier_backfill, with progress on
-- stderr); a row whose sum_q is NULL is one it has not reached yet.

ALTER TABLE clusters ADD COLUMN sum_q BLOB;        -- Σq, q = decode_tok_s in units of 2^-30, int128 big-endian
ALTER TABLE clusters ADD COLUMN sum_qq BLOB;       -- Σq², 256-bit big-endian
ALTER TABLE clusters ADD COLUMN keys INTEGER NOT NULL DEFAULT 0;      -- distinct signing keys of its counted runs
ALTER TABLE clusters ADD COLUMN new_keys INTEGER NOT NULL DEFAULT 0;  -- of those, keys that are new (see signing_keys)

-- Every cluster with a counted run has a row (the old code kept this true;
-- this makes sure), to be filled in by the backfill.
INSERT OR IGNORE INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, stddev)
SELECT DISTINCT suite_version, model_digest, hw_class, backend_name, 0, 0, 0
FROM runs WHERE status = 'ok';
UPDATE clusters SET sum_q = NULL, sum_qq = NULL;

-- Every signing key that has stored a run, with the number of its runs
-- (any status).  A key is "new" while it has stored exactly one run.
CREATE TABLE signing_keys (
	thumbprint TEXT PRIMARY KEY,
	runs       INTEGER NOT NULL,     -- > 0
	first_seen TEXT NOT NULL         -- received_at of its first run
) WITHOUT ROWID;

INSERT INTO signing_keys
SELECT key_thumbprint, count(*), min(received_at) FROM runs GROUP BY key_thumbprint;

-- The counted runs (status 'ok') of each cluster per signing key.
CREATE TABLE cluster_keys (
	suite_version  TEXT NOT NULL,
	model_digest   TEXT NOT NULL,
	hw_class       TEXT NOT NULL,
	backend_name   TEXT NOT NULL,
	key_thumbprint TEXT NOT NULL,
	runs           INTEGER NOT NULL,  -- > 0
	PRIMARY KEY (suite_version, model_digest, hw_class, backend_name, key_thumbprint)
) WITHOUT ROWID;
-- A key's clusters: when a key stores its second run, the cluster of its
-- first loses a new key.
CREATE INDEX cluster_keys_key ON cluster_keys(key_thumbprint);
-- Filled per cluster by the backfill, with the figures.

-- A cluster's counted runs by flag and value: the runs whose flag changes
-- when the bounds move are two range seeks ("unflagged and below the lower
-- bound", "unflagged and above the upper bound") and one for "flagged and
-- inside".  It replaces runs_cluster, whose queries it also answers.
CREATE INDEX runs_cluster_flag ON runs(suite_version, model_digest, hw_class, backend_name,
	outlier, decode_tok_s) WHERE status = 'ok';
DROP INDEX runs_cluster;

-- Runs out of every cluster carry no flag.
UPDATE runs SET outlier = 0 WHERE status <> 'ok' AND outlier <> 0;

-- Indexes no query uses (EXPLAIN QUERY PLAN of every statement: lists by
-- digest go through runs_ok_model, nothing looks runs up by fingerprint);
-- each costs a page write per upload.
DROP INDEX runs_digest;
DROP INDEX runs_fingerprint;
