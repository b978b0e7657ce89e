-- 0020_typical.sql: flags one submitter cannot move, and the typical
-- figures of every combination (issues 22 and 23; contract sections 4, 8).
--
-- Flags (server/store/outlier.c).  Each signing key counts once: a
-- cluster's mean and spread are over one value per key, the exact median
-- of that key's counted runs there.  A run is judged against its
-- fingerprint cluster when that has 11 keys or more, else against the
-- wider combination (suite, model, digest, hardware slug, backend), and is
-- flagged whatever the size of either when its decode is far above its
-- bandwidth ceiling.  runs.flag_bits keeps the three verdicts apart, so
-- that a move of one population's bounds, or a cluster crossing 11 keys,
-- touches only the runs whose flag changes:
--   1  outside the 3-sigma bounds of its fingerprint cluster
--   2  outside those of its combination
--   4  above its bandwidth ceiling by more than the margin (domain/ceiling.h)
-- runs.outlier stays the one flag every list reads: 4, or 1 when the
-- cluster has 11 keys, or 2 when it has fewer.
--
-- Typical figures (server/store/typical.c).  combos holds, per
-- combination, the key-counted figures of the flags (runs, keys, exact
-- sums of the key values) and the typical figures: over its counted runs
-- that are not flagged, each key's median decode (exact), prefill and TTFT
-- (from fine buckets), and over those key values the median and quartiles
-- of decode, the median prefill and TTFT, the runs and keys behind them and
-- the best run.  combo_keys holds each key's values in a combination,
-- combo_hist the buckets (per key: its prefill and TTFT; per combination,
-- key_thumbprint '': its key values).  An upload updates its key's row, its
-- combination's row and two bucket rows; the order indexes below move only
-- when the figure they hold changes.
--
-- Existing databases: the server refills every cluster, combination and
-- flag under these rules right after this migration (outlier_backfill,
-- progress on stderr): clusters whose sums are NULL, combinations whose
-- filled < 2, and the steps named in stats_state.

ALTER TABLE runs ADD COLUMN flag_bits INTEGER NOT NULL DEFAULT 0;

-- A cluster's counted runs by decode: the runs whose verdict changes when
-- its bounds move are the ones between the old and the new bound.  It
-- replaces runs_cluster_flag (0006).  The verdicts and the flag are read
-- from the row, not kept here, so that a verdict changing rewrites fewer
-- index entries.
DROP INDEX runs_cluster_flag;
CREATE INDEX runs_cluster_decode ON runs(suite_version, model_digest, hw_class, backend_name,
	decode_tok_s, status) WHERE status = 'ok';
-- A key's counted runs in its cluster, by decode: its exact median is a
-- pointer that an upload moves by one step at most.
CREATE INDEX runs_cluster_key ON runs(suite_version, model_digest, hw_class, backend_name,
	key_thumbprint, decode_tok_s, id, status) WHERE status = 'ok';
-- The same in its combination, flagged runs apart (outlier = 1), so one
-- index gives both the key's median over its counted runs (the flags) and
-- over its unflagged ones (the typical figures).
CREATE INDEX runs_combo_key ON runs(suite_version, model_slug, model_digest, hw_slug, backend_name,
	key_thumbprint, outlier, decode_tok_s, id, status) WHERE status = 'ok';
-- (runs_ok_model_hw_be, 0002, serves a combination's counted runs by
-- decode: its bounds' bands and its next best run.)
-- The runs whose two verdicts differ: when a cluster reaches 11 keys (or
-- falls below), exactly these change flag.  An upload is in it only when
-- one of its verdicts says outlier.
CREATE INDEX runs_flag_split ON runs(suite_version, model_digest, hw_class, backend_name)
	WHERE status = 'ok' AND (flag_bits & 3) IN (1, 2);

-- Clusters: n stays the counted runs; keys, sum_q, sum_qq, mean and stddev
-- are now over key values.  Each key's median pointer (the lower middle
-- of its runs in runs_cluster_key) and value.
ALTER TABLE cluster_keys ADD COLUMN mid_x REAL;
ALTER TABLE cluster_keys ADD COLUMN mid_id TEXT;
ALTER TABLE cluster_keys ADD COLUMN val REAL;
INSERT OR IGNORE INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, stddev)
SELECT DISTINCT suite_version, model_digest, hw_class, backend_name, 0, 0, 0
FROM runs INDEXED BY runs_cluster_decode WHERE status = 'ok';
UPDATE clusters SET sum_q = NULL, sum_qq = NULL;

CREATE TABLE combos (
	cid           INTEGER PRIMARY KEY, -- the row's number: combo_keys and combo_hist name it so
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	key_id        TEXT NOT NULL,       -- the run that opened the row: the row's stable name, for cursors
	first_at      INTEGER NOT NULL,    -- unixepoch(received_at) of that run
	filled        INTEGER NOT NULL DEFAULT 2,  -- 0, 1: the backfill has not reached it
	-- the flags' population: every counted run, each key once
	runs          INTEGER NOT NULL DEFAULT 0,
	keys          INTEGER NOT NULL DEFAULT 0,
	sum_q         BLOB,
	sum_qq        BLOB,
	mean          REAL NOT NULL DEFAULT 0,
	stddev        REAL NOT NULL DEFAULT 0,
	-- the typical figures: counted runs that are not flagged
	t_runs        INTEGER NOT NULL DEFAULT 0,
	t_keys        INTEGER NOT NULL DEFAULT 0,
	med           REAL,
	p25           REAL,
	p75           REAL,
	pre_keys      INTEGER NOT NULL DEFAULT 0,
	med_prefill   REAL,
	ttft_keys     INTEGER NOT NULL DEFAULT 0,
	med_ttft      REAL,
	sort_prefill  REAL NOT NULL DEFAULT 0,      -- med_prefill, 0 when unknown (sorts last)
	sort_ttft     REAL NOT NULL DEFAULT 1e300,  -- med_ttft, 1e300 when unknown (sorts last)
	best_decode   REAL,
	best_id       TEXT,
	-- pointers into combo_hist (bucket, values below it, values in it and
	-- their sum): the decode quartiles over key values, and the prefill
	-- and TTFT medians
	q1_b INTEGER, q1_below INTEGER, q1_n INTEGER, q1_sum REAL,
	q2_b INTEGER, q2_below INTEGER, q2_n INTEGER, q2_sum REAL,
	q3_b INTEGER, q3_below INTEGER, q3_n INTEGER, q3_sum REAL,
	pre_b INTEGER, pre_below INTEGER, pre_n INTEGER, pre_sum REAL,
	ttft_b INTEGER, ttft_below INTEGER, ttft_n INTEGER, ttft_sum REAL,
	UNIQUE (suite_version, model_slug, model_digest, hw_slug, backend_name)
);
CREATE INDEX combos_unfilled ON combos(suite_version) WHERE filled < 2;

-- The lists in each order.  The board and /hw/<slug>: every sort, and
-- hardware or backend filters for the default one; /m/<slug>: one weights
-- file's combinations.  Unknown prefill sorts as 0, unknown TTFT as 1e300,
-- last (sort_prefill, sort_ttft: columns, not expressions, so a cursor is a
-- range seek).  Not partial: a partial index on t_runs > 0 would be
-- rewritten by every upload (t_runs moves each time); the few rows without
-- a typical figure (every run flagged) hold NULL or the last value and the
-- lists skip them.  The writer sets each figure only when it changes
-- (store/outlier_pop.c), so an upload moves only the entries whose figure
-- moved.
CREATE INDEX combos_med ON combos(suite_version, med DESC, key_id DESC);
CREATE INDEX combos_med_hw ON combos(suite_version, hw_slug, med DESC, key_id DESC);
CREATE INDEX combos_med_be ON combos(suite_version, backend_name, med DESC, key_id DESC);
CREATE INDEX combos_best ON combos(suite_version, best_decode DESC, key_id DESC);
CREATE INDEX combos_best_hw ON combos(suite_version, hw_slug, best_decode DESC, key_id DESC);
CREATE INDEX combos_prefill ON combos(suite_version, sort_prefill DESC, key_id DESC);
CREATE INDEX combos_prefill_hw ON combos(suite_version, hw_slug, sort_prefill DESC, key_id DESC);
CREATE INDEX combos_ttft ON combos(suite_version, sort_ttft, key_id);
CREATE INDEX combos_ttft_hw ON combos(suite_version, hw_slug, sort_ttft, key_id);
CREATE INDEX combos_date ON combos(suite_version, first_at DESC, key_id DESC);
CREATE INDEX combos_date_hw ON combos(suite_version, hw_slug, first_at DESC, key_id DESC);
CREATE INDEX combos_digest_med ON combos(suite_version, model_slug, model_digest, med DESC, key_id DESC);
CREATE INDEX combos_digest_best ON combos(suite_version, model_slug, model_digest, best_decode DESC, key_id DESC);
CREATE INDEX combos_digest_prefill ON combos(suite_version, model_slug, model_digest, sort_prefill DESC, key_id DESC);
CREATE INDEX combos_digest_ttft ON combos(suite_version, model_slug, model_digest, sort_ttft, key_id);
CREATE INDEX combos_digest_date ON combos(suite_version, model_slug, model_digest, first_at DESC, key_id DESC);

CREATE TABLE combo_keys (
	cid            INTEGER NOT NULL,   -- combos.cid
	key_thumbprint TEXT NOT NULL,
	-- every counted run (the flags): count, median pointer, median
	runs     INTEGER NOT NULL DEFAULT 0,
	mid_x    REAL,
	mid_id   TEXT,
	val      REAL,
	-- the unflagged ones (the typical figures)
	t_runs   INTEGER NOT NULL DEFAULT 0,
	t_x      REAL,
	t_id     TEXT,
	t_val    REAL,
	pre_runs INTEGER NOT NULL DEFAULT 0, pre_b INTEGER, pre_below INTEGER, pre_n INTEGER,
	pre_sum REAL, pre_val REAL,
	ttft_runs INTEGER NOT NULL DEFAULT 0, ttft_b INTEGER, ttft_below INTEGER, ttft_n INTEGER,
	ttft_sum REAL, ttft_val REAL,
	PRIMARY KEY (cid, key_thumbprint)
) WITHOUT ROWID;

-- The buckets: a combination's of its key values, one row per bucket
-- named by one integer (store/typical_hist.c: (cid * 4 + metric) * 16384
-- + bucket + 4096), and a key's of its own runs (prefill and TTFT, from
-- its second run on; one run's value is kept in combo_keys alone).
CREATE TABLE combo_hist (
	hid            INTEGER PRIMARY KEY,
	n              INTEGER NOT NULL,   -- > 0
	sum            REAL NOT NULL       -- of the values in it: the bucket stands for their mean
);
CREATE TABLE key_hist (
	cid            INTEGER NOT NULL,   -- combos.cid
	key_thumbprint TEXT NOT NULL,
	metric         INTEGER NOT NULL,   -- 1 prefill, 2 TTFT
	bucket         INTEGER NOT NULL,   -- domain/quantile.h
	n              INTEGER NOT NULL,   -- > 0
	sum            REAL NOT NULL,
	PRIMARY KEY (cid, key_thumbprint, metric, bucket)
) WITHOUT ROWID;

-- Steps of the start-up refill still to run, and what the ceiling flags
-- were last decided against (the SHA-256 of the reference data, hex).
CREATE TABLE stats_state (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO stats_state VALUES ('flags', 'pending'), ('tops', 'pending');

-- Every combination with a counted run, to be filled by the backfill: the
-- index walked in group order, its first row taken as the row's name.
INSERT INTO combos(suite_version, model_slug, model_digest, hw_slug, backend_name, key_id,
	first_at, filled)
SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, min(id), 0, 0
FROM runs INDEXED BY runs_ok_model_hw_be WHERE status = 'ok'
GROUP BY suite_version, model_slug, model_digest, hw_slug, backend_name;
UPDATE combos SET first_at = (SELECT unixepoch(received_at) FROM runs WHERE id = combos.key_id);

-- /models and /hardware: each row's typical figures are its leading
-- combination's (the highest median), and its best run the best that is
-- not flagged; both kept by the writer from combos (typical.c), no longer
-- by triggers from digest_counts and hw_best, which count flagged runs.
ALTER TABLE model_index ADD COLUMN top_med REAL NOT NULL DEFAULT -1;   -- -1: no typical figure (sorts last)
ALTER TABLE model_index ADD COLUMN top_digest TEXT;
ALTER TABLE model_index ADD COLUMN top_hw TEXT;
ALTER TABLE model_index ADD COLUMN top_backend TEXT;
ALTER TABLE model_index ADD COLUMN top_key TEXT;     -- the leading combination's key_id
ALTER TABLE model_index ADD COLUMN best_key TEXT;    -- the key_id of the combination of best_id
ALTER TABLE hw_index ADD COLUMN top_med REAL NOT NULL DEFAULT -1;
ALTER TABLE hw_index ADD COLUMN top_model TEXT;
ALTER TABLE hw_index ADD COLUMN top_digest TEXT;
ALTER TABLE hw_index ADD COLUMN top_backend TEXT;
ALTER TABLE hw_index ADD COLUMN top_key TEXT;
ALTER TABLE hw_index ADD COLUMN best_key TEXT;
CREATE INDEX model_index_med ON model_index(suite_version, top_med DESC, model_slug DESC);
CREATE INDEX hw_index_med ON hw_index(suite_version, top_med DESC, hw_slug DESC);
DROP TRIGGER model_index_best_moves;
DROP TRIGGER model_index_best_goes;
DROP TRIGGER hw_index_best_moves;
DROP TRIGGER hw_index_best_goes;
DROP TRIGGER find_index_insert;
DROP TRIGGER find_index_update_enter;
CREATE TRIGGER find_index_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index(suite_version, model_slug, runs, best_decode) VALUES (NEW.suite_version, NEW.model_slug, 1, -1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	INSERT INTO hw_index(suite_version, hw_slug, runs, best_decode) VALUES (NEW.suite_version, NEW.hw_slug, 1, -1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;
CREATE TRIGGER find_index_update_enter
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, decode_tok_s, status ON runs
WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index(suite_version, model_slug, runs, best_decode) VALUES (NEW.suite_version, NEW.model_slug, 1, -1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	INSERT INTO hw_index(suite_version, hw_slug, runs, best_decode) VALUES (NEW.suite_version, NEW.hw_slug, 1, -1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;
-- best_decode is now the best unflagged run's, -1 when every run is flagged.
UPDATE model_index SET best_decode = -1, best_id = NULL;
UPDATE hw_index SET best_decode = -1, best_id = NULL;

-- The board's best-run summaries are replaced by combos: board_best and
-- board_sort (0007, 0012, 0014) and digest_sort (0017) go with their
-- triggers and indexes.  hw_best stays: the hardware pages take their
-- display name from it.
DROP TRIGGER list_summaries_insert;
DROP TRIGGER list_summaries_delete;
DROP TRIGGER list_summaries_update_leave;
DROP TRIGGER list_summaries_update_enter;
DROP TRIGGER board_sort_insert;
DROP TRIGGER board_sort_update;
DROP TRIGGER board_sort_delete;
DROP TABLE board_sort;
DROP TABLE board_best;
DROP TRIGGER digest_sort_insert;
DROP TRIGGER digest_sort_delete;
DROP TRIGGER digest_sort_update_leave;
DROP TRIGGER digest_sort_update_enter;
DROP TABLE digest_sort;
-- runs_ok_board (0002) served only the next-best seeks of board_best and
-- cheat_best; cheat_best keeps it.

CREATE TRIGGER list_summaries_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO hw_best VALUES (NEW.suite_version, NEW.hw_slug, NEW.model_slug,
		NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;
CREATE TRIGGER list_summaries_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE hw_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
		  AND model_slug = OLD.model_slug AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND model_slug = OLD.model_slug AND best_id = OLD.id;
	DELETE FROM hw_best
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND model_slug = OLD.model_slug AND best_id IS NULL;
END;
CREATE TRIGGER list_summaries_update_leave
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, status
ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE hw_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
		  AND model_slug = OLD.model_slug AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND model_slug = OLD.model_slug AND best_id = OLD.id;
	DELETE FROM hw_best
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND model_slug = OLD.model_slug AND best_id IS NULL;
END;
CREATE TRIGGER list_summaries_update_enter
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, status
ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO hw_best VALUES (NEW.suite_version, NEW.hw_slug, NEW.model_slug,
		NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;

-- The cheatsheet by memory class (0017) keeps its best run per cell, now
-- the best that is not flagged: a run leaves its cell when it is flagged
-- and comes back when the flag clears.  The next best of a cell is read
-- from runs_ok_board (0002), rebuilt here with the flag ahead of the
-- decode rate and the memory after it: the unflagged runs of a group are
-- one range, and a run of another memory class is skipped inside the
-- index, without reading its row (mem_gb and outlier follow the JWS in
-- the row, so each would cost its overflow pages).  Only the statements that name
-- outlier in their SET fire these (typical.c sets it only when it changes).
DROP INDEX runs_ok_board;
CREATE INDEX runs_ok_board ON runs(suite_version, model_slug, hw_slug, backend_name, outlier,
	decode_tok_s DESC, id DESC, mem_gb, status) WHERE status = 'ok';
DROP TRIGGER cheat_best_delete;
DROP TRIGGER cheat_best_update_leave;
DROP TRIGGER cheat_best_update_enter;
CREATE TRIGGER cheat_best_delete AFTER DELETE ON runs WHEN OLD.status = 'ok' AND OLD.outlier = 0
BEGIN
	UPDATE cheat_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs r
		WHERE r.suite_version = OLD.suite_version AND r.model_slug = OLD.model_slug
		  AND r.hw_slug = OLD.hw_slug AND r.backend_name = OLD.backend_name AND r.status = 'ok'
		  AND r.outlier = 0
		  AND cheat_best.mem_class = (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(r.mem_gb, 0) ORDER BY upper_gb LIMIT 1)
		ORDER BY r.decode_tok_s DESC, r.id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND mem_class = (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(OLD.mem_gb, 0) ORDER BY upper_gb LIMIT 1)
	  AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM cheat_best
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id IS NULL
	  AND mem_class IN (SELECT key FROM mem_classes);
END;
CREATE TRIGGER cheat_best_update_leave
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, mem_gb, status,
	outlier
ON runs WHEN OLD.status = 'ok' AND OLD.outlier = 0
BEGIN
	UPDATE cheat_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs r
		WHERE r.suite_version = OLD.suite_version AND r.model_slug = OLD.model_slug
		  AND r.hw_slug = OLD.hw_slug AND r.backend_name = OLD.backend_name AND r.status = 'ok'
		  AND r.outlier = 0
		  AND cheat_best.mem_class = (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(r.mem_gb, 0) ORDER BY upper_gb LIMIT 1)
		ORDER BY r.decode_tok_s DESC, r.id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND mem_class = (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(OLD.mem_gb, 0) ORDER BY upper_gb LIMIT 1)
	  AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM cheat_best
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id IS NULL
	  AND mem_class IN (SELECT key FROM mem_classes);
END;
CREATE TRIGGER cheat_best_update_enter
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, mem_gb, status,
	outlier
ON runs WHEN NEW.status = 'ok' AND NEW.outlier = 0
BEGIN
	INSERT INTO cheat_best
	SELECT NEW.suite_version, (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(NEW.mem_gb, 0) ORDER BY upper_gb LIMIT 1),
		NEW.model_slug, NEW.hw_slug, NEW.backend_name, NEW.decode_tok_s, NEW.id
	WHERE true
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id)
	   OR best_id = excluded.best_id OR best_decode IS NULL;
END;
-- Existing flagged runs leave their cells now (the backfill's new flags
-- then move them through the triggers above).
UPDATE runs SET outlier = 0 WHERE outlier = 1;
