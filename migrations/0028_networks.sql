-- 0028_networks.sql: many keys from one network are one voice, and one
-- extreme key cannot mask a flag (issue 37; contract section 4).
--
-- Networks.  Each run keeps the network it was uploaded from as a keyed
-- hash (store/netkey.c: HMAC-SHA-256 under the secret in "<db>.netkey" of
-- its IPv4 /24 or IPv6 /48), never the address; runs stored before this
-- have none and count each as its own network.  In each scope (suite,
-- model digest, hardware slug, backend) a network counts the first
-- --keys-per-network keys seen from it (net_keys, in the order seen); a
-- run of any other key there is stored with status 'upheld' and
-- capped = 1, so it stays on its own page and in its key's history but
-- takes part in no count, figure, flag or name (store/netcap.c).
ALTER TABLE runs ADD COLUMN net TEXT;
ALTER TABLE runs ADD COLUMN capped INTEGER NOT NULL DEFAULT 0;

-- A key in a scope: the network it was first seen from there, in which
-- order (seq), and whether it was within the cap when last judged.
CREATE TABLE net_keys (
	suite_version  TEXT NOT NULL,
	model_digest   TEXT NOT NULL,
	hw_slug        TEXT NOT NULL,
	backend_name   TEXT NOT NULL,
	key_thumbprint TEXT NOT NULL,
	net            TEXT NOT NULL,
	seq            INTEGER NOT NULL,
	counted        INTEGER NOT NULL,
	PRIMARY KEY (suite_version, model_digest, hw_slug, backend_name, key_thumbprint)
) WITHOUT ROWID;
-- A network's keys in a scope, first seen first.
CREATE INDEX net_keys_net ON net_keys(suite_version, model_digest, hw_slug, backend_name, net, seq);

-- New keys per network and UTC day, for the daily allowance.
CREATE TABLE net_days (
	net      TEXT NOT NULL,
	day      TEXT NOT NULL,
	new_keys INTEGER NOT NULL,
	PRIMARY KEY (net, day)
) WITHOUT ROWID;

-- A key's network in a combination (its first run's there), so that
-- "confirmed" can count networks (store/outlier_pop.c).
ALTER TABLE combo_keys ADD COLUMN net TEXT;

-- Confirmed (contract section 9): 3 counted keys from 2 networks.
ALTER TABLE combos ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;

-- Sigma clipping (store/outlier_clip.c) seeks the keys beyond each bound.
CREATE INDEX cluster_keys_val ON cluster_keys(suite_version, model_digest, hw_class, backend_name, val);
CREATE INDEX combo_keys_val ON combo_keys(cid, val);

-- A run above its ceiling never enters a population: the indexes that
-- hold the populations' runs leave it out (flag_bits 4 is that verdict).
DROP INDEX runs_cluster_key;
CREATE INDEX runs_cluster_key ON runs(suite_version, model_digest, hw_class, backend_name,
	key_thumbprint, decode_tok_s, id, status) WHERE status = 'ok' AND flag_bits < 4;
DROP INDEX runs_combo_key;
CREATE INDEX runs_combo_key ON runs(suite_version, model_slug, model_digest, hw_slug, backend_name,
	key_thumbprint, outlier, decode_tok_s, id, status) WHERE status = 'ok' AND flag_bits < 4;

-- Every population, verdict and typical figure again under the new rules
-- (outlier_backfill.c, at the next start, with progress on stderr).
DELETE FROM combo_hist;
DELETE FROM key_hist;
DELETE FROM combo_keys;
UPDATE combos SET filled = 0;
UPDATE clusters SET sum_q = NULL, sum_qq = NULL;
INSERT OR REPLACE INTO stats_state VALUES ('flags', 'pending'), ('tops', 'pending');

-- A capped run stays out whatever a ruling says: only the cap's own pass
-- (store/netcap.c), which clears capped in the same update, lets it in.
CREATE TRIGGER runs_capped_stay_out BEFORE UPDATE OF status ON runs
WHEN NEW.status = 'ok' AND NEW.capped = 1
BEGIN
	SELECT RAISE(IGNORE);
END;

-- The cap the runs were judged under; a start with another judges every
-- key again (store/netcap.c, netcap_refresh).
INSERT OR REPLACE INTO stats_state VALUES ('net_cap', '3');

-- A best run that can stand (issue 35): runs.marks holds what keeps a
-- counted, unflagged run from being a combination's best without taking
-- it out of the figures: 1 above its peak-bandwidth ceiling (below the
-- 1.5x that flags it), 2 under an open dispute.  combos.disputed counts
-- the runs in a combination's typical figures under an open dispute, so
-- a row can say "disputed" beside its figure.  The best runs and the
-- counts are made anew by the fill above; the ceiling marks by the
-- ceiling pass at the next start.
ALTER TABLE runs ADD COLUMN marks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE combos ADD COLUMN disputed INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET marks = marks | 2 WHERE id IN (SELECT run_id FROM dispute_threads WHERE state = 'open');
INSERT OR REPLACE INTO stats_state VALUES ('ceiling_ref', '');

-- Confirmed rows first (contract section 9): lists rank a combination by
-- rank_med / rank_best, its median / best less 1e13 unless it is
-- confirmed (store/typical.h, typical_rank), and /models, /hardware and
-- the cheatsheet rank each model and hardware by its leader's, in
-- top_rank / best_rank.  The pages show the figures.  Filled by the fill
-- above (every combination's typical figures, then every leader).
ALTER TABLE combos ADD COLUMN rank_med REAL;
ALTER TABLE combos ADD COLUMN rank_best REAL;
DROP INDEX combos_med;
DROP INDEX combos_med_hw;
DROP INDEX combos_med_be;
DROP INDEX combos_best;
DROP INDEX combos_best_hw;
DROP INDEX combos_best_be;
DROP INDEX combos_digest_med;
DROP INDEX combos_digest_best;
CREATE INDEX combos_med ON combos(suite_version, rank_med DESC, key_id DESC);
CREATE INDEX combos_med_hw ON combos(suite_version, hw_slug, rank_med DESC, key_id DESC);
CREATE INDEX combos_med_be ON combos(suite_version, backend_name, rank_med DESC, key_id DESC);
CREATE INDEX combos_best ON combos(suite_version, rank_best DESC, key_id DESC);
CREATE INDEX combos_best_hw ON combos(suite_version, hw_slug, rank_best DESC, key_id DESC);
CREATE INDEX combos_best_be ON combos(suite_version, backend_name, rank_best DESC, key_id DESC);
CREATE INDEX combos_digest_med ON combos(suite_version, model_slug, model_digest, rank_med DESC, key_id DESC);
CREATE INDEX combos_digest_best ON combos(suite_version, model_slug, model_digest, rank_best DESC, key_id DESC);
ALTER TABLE model_index ADD COLUMN top_rank REAL NOT NULL DEFAULT -2e13;
ALTER TABLE model_index ADD COLUMN best_rank REAL NOT NULL DEFAULT -2e13;
ALTER TABLE hw_index ADD COLUMN top_rank REAL NOT NULL DEFAULT -2e13;
ALTER TABLE hw_index ADD COLUMN best_rank REAL NOT NULL DEFAULT -2e13;
DROP INDEX model_index_med;
DROP INDEX hw_index_med;
DROP INDEX model_index_decode;
DROP INDEX hw_index_decode;
CREATE INDEX model_index_med ON model_index(suite_version, top_rank DESC, model_slug DESC);
CREATE INDEX hw_index_med ON hw_index(suite_version, top_rank DESC, hw_slug DESC);
CREATE INDEX model_index_decode ON model_index(suite_version, best_rank DESC, model_slug DESC);
CREATE INDEX hw_index_decode ON hw_index(suite_version, best_rank DESC, hw_slug DESC);
