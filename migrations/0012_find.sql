-- 0012_find.sql: what search and the index pages (/search, /models,
-- /hardware) read, kept current by triggers, never a pass over the runs.
--
-- search_names holds each distinct model, hardware and backend once (not
-- one row per run), with the name of the first run that brought it and its
-- "squash": the slug without hyphens, lowercase letters and digits only,
-- so "Qwen 2.5 7b", "qwen2.5-7B" and "qwen2-5-7b" all find it.
-- search_fts indexes squash and name by trigram (FTS5, external content),
-- for substrings of three characters or more; shorter queries use the
-- prefix index on squash.  An upload costs one primary-key probe per name
-- kind; only a new name writes (and indexes) a row.
--
-- model_index and hw_index hold, per suite, each model's and each
-- hardware's count of runs that count (status = 'ok') and its best decode,
-- in the orders /models and /hardware sort by.  An upload adds one to each
-- count (one small update per table and per order index); a run that
-- leaves takes one off, and when it was the best, one seek in
-- runs_suite_model / runs_suite_hw (0001) finds the next.

CREATE TABLE search_names (
	id     INTEGER PRIMARY KEY,
	kind   TEXT NOT NULL CHECK (kind IN ('model', 'hw', 'backend')),
	slug   TEXT NOT NULL,        -- model_slug, hw_slug or backend_name
	name   TEXT NOT NULL,        -- as the first run named it
	squash TEXT NOT NULL,        -- slug without '-', '.', '_'
	UNIQUE (kind, slug)
);
CREATE INDEX search_names_squash ON search_names(squash);

CREATE VIRTUAL TABLE search_fts USING fts5(squash, name, content = 'search_names',
	content_rowid = 'id', tokenize = 'trigram');

CREATE TRIGGER search_names_fts AFTER INSERT ON search_names
BEGIN
	INSERT INTO search_fts(rowid, squash, name) VALUES (NEW.id, NEW.squash, NEW.name);
END;

-- When a model's or a hardware's best run leaves (upheld, withdrawn,
-- deleted), the triggers below seek the next best: these two indexes make
-- that one seek, whatever the number of runs (0009 dropped the suite/model
-- and suite/hardware indexes; runs_ok_model and runs_ok_hw put the digest
-- or the model before the decode rate, which would sort every run).
CREATE INDEX runs_ok_model_best ON runs(suite_version, model_slug, decode_tok_s DESC, id DESC)
	WHERE status = 'ok';
CREATE INDEX runs_ok_hw_best ON runs(suite_version, hw_slug, decode_tok_s DESC, id DESC)
	WHERE status = 'ok';

CREATE TABLE model_index (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	runs          INTEGER NOT NULL,   -- runs with status 'ok', > 0
	best_decode   REAL,               -- NULL only inside a trigger
	best_id       TEXT,
	PRIMARY KEY (suite_version, model_slug)
) WITHOUT ROWID;
CREATE INDEX model_index_decode ON model_index(suite_version, best_decode DESC, model_slug DESC);
CREATE INDEX model_index_runs ON model_index(suite_version, runs DESC, model_slug DESC);

CREATE TABLE hw_index (
	suite_version TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	runs          INTEGER NOT NULL,
	best_decode   REAL,
	best_id       TEXT,
	PRIMARY KEY (suite_version, hw_slug)
) WITHOUT ROWID;
CREATE INDEX hw_index_decode ON hw_index(suite_version, best_decode DESC, hw_slug DESC);
CREATE INDEX hw_index_runs ON hw_index(suite_version, runs DESC, hw_slug DESC);

-- Backfill, from the summaries of 0004 and 0007 where they answer and
-- one pass of a covering index otherwise.
INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
SELECT 'model', r.model_slug, r.model_name, replace(r.model_slug, '-', '')
FROM board_best b JOIN runs r ON r.id = b.best_id;
INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
SELECT 'hw', r.hw_slug, r.accelerator, replace(r.hw_slug, '-', '')
FROM board_best b JOIN runs r ON r.id = b.best_id;
INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
SELECT 'backend', backend_name, backend_name,
	replace(replace(replace(lower(backend_name), '.', ''), '-', ''), '_', '')
FROM board_best;

INSERT INTO model_index
SELECT suite_version, model_slug, sum(runs), max(best_decode), best_id
FROM digest_counts GROUP BY suite_version, model_slug;

INSERT INTO hw_index
SELECT h.suite_version, h.hw_slug, c.n, h.best_decode, h.best_id
FROM (SELECT suite_version, hw_slug, max(best_decode) AS best_decode, best_id
      FROM hw_best GROUP BY suite_version, hw_slug) AS h
JOIN (SELECT suite_version, hw_slug, count(*) AS n FROM runs INDEXED BY runs_ok_hw
      WHERE status = 'ok' GROUP BY suite_version, hw_slug) AS c
  ON c.suite_version = h.suite_version AND c.hw_slug = h.hw_slug;

-- Every run names its model, hardware and backend, whatever its status.
-- One trigger each, whose WHEN probe (the UNIQUE index) skips it for a
-- name already known: an upload then runs no statement at all here, about
-- a third of the cost of an INSERT OR IGNORE per name.
CREATE TRIGGER search_names_model AFTER INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM search_names WHERE kind = 'model' AND slug = NEW.model_slug)
BEGIN
	INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
	VALUES ('model', NEW.model_slug, NEW.model_name, replace(NEW.model_slug, '-', ''));
END;
CREATE TRIGGER search_names_hw AFTER INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM search_names WHERE kind = 'hw' AND slug = NEW.hw_slug)
BEGIN
	INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
	VALUES ('hw', NEW.hw_slug, NEW.accelerator, replace(NEW.hw_slug, '-', ''));
END;
CREATE TRIGGER search_names_backend AFTER INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM search_names WHERE kind = 'backend' AND slug = NEW.backend_name)
BEGIN
	INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
	VALUES ('backend', NEW.backend_name, NEW.backend_name,
		replace(replace(replace(lower(NEW.backend_name), '.', ''), '-', ''), '_', ''));
END;

-- A run that counts enters its model's and hardware's rows.
CREATE TRIGGER find_index_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index VALUES (NEW.suite_version, NEW.model_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1,
		best_decode = iif(excluded.best_decode > best_decode, excluded.best_decode, best_decode),
		best_id = iif(excluded.best_decode > best_decode, excluded.best_id, best_id);
	INSERT INTO hw_index VALUES (NEW.suite_version, NEW.hw_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1,
		best_decode = iif(excluded.best_decode > best_decode, excluded.best_decode, best_decode),
		best_id = iif(excluded.best_decode > best_decode, excluded.best_id, best_id);
END;

-- A run that counted leaves (deleted, or changed: see below).
CREATE TRIGGER find_index_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE model_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug;
	DELETE FROM model_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND runs <= 0;
	UPDATE model_index SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND status = 'ok' ORDER BY decode_tok_s DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND best_id = OLD.id;
	UPDATE hw_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug;
	DELETE FROM hw_index
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug AND runs <= 0;
	UPDATE hw_index SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
		  AND status = 'ok' ORDER BY decode_tok_s DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND best_id = OLD.id;
END;

-- A change to what the rows hold (a moderator upholding a dispute sets
-- status) is the old row leaving and the new one entering.  SQLite may
-- fire the two in either order, so the leaving one finds the next best
-- among the runs as they are after the change (the changed run included
-- where it still belongs), and the entering one only ever raises it.
CREATE TRIGGER find_index_update_leave
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, decode_tok_s, status ON runs
WHEN OLD.status = 'ok'
BEGIN
	UPDATE model_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug;
	DELETE FROM model_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND runs <= 0;
	UPDATE model_index SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND status = 'ok' ORDER BY decode_tok_s DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND best_id = OLD.id;
	UPDATE hw_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug;
	DELETE FROM hw_index
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug AND runs <= 0;
	UPDATE hw_index SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
		  AND status = 'ok' ORDER BY decode_tok_s DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND best_id = OLD.id;
END;

CREATE TRIGGER find_index_update_enter
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, decode_tok_s, status ON runs
WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index VALUES (NEW.suite_version, NEW.model_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1,
		best_decode = iif(excluded.best_decode > best_decode OR best_decode IS NULL,
			excluded.best_decode, best_decode),
		best_id = iif(excluded.best_decode > best_decode OR best_decode IS NULL,
			excluded.best_id, best_id);
	INSERT INTO hw_index VALUES (NEW.suite_version, NEW.hw_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1,
		best_decode = iif(excluded.best_decode > best_decode OR best_decode IS NULL,
			excluded.best_decode, best_decode),
		best_id = iif(excluded.best_decode > best_decode OR best_decode IS NULL,
			excluded.best_id, best_id);
END;

-- Rank: where a run's decode falls among the runs of its cluster (suite,
-- digest, hardware class, backend) and among all runs of its weights file
-- (suite, digest), for the run page's "faster than P% of N runs".  Each
-- keeps a histogram over fixed log-scale buckets of chat-short decode:
-- bucket = floor(16 * log2(decode_tok_s)), 16 buckets per doubling, each
-- 4.4% wide, so a percentile is read from at most a few hundred bucket
-- rows whatever the number of runs, and an upload adds one to one row of
-- each.  Runs that leave (deleted, upheld, changed) take theirs off; empty
-- buckets go.  Only runs that count (status = 'ok') are in them.
-- log2() is SQLite's built-in math function (3.35 on, in Debian's build).
CREATE TABLE rank_cluster (
	suite_version TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_class      TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	bucket        INTEGER NOT NULL,
	n             INTEGER NOT NULL,
	PRIMARY KEY (suite_version, model_digest, hw_class, backend_name, bucket)
) WITHOUT ROWID;

CREATE TABLE rank_digest (
	suite_version TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	bucket        INTEGER NOT NULL,
	n             INTEGER NOT NULL,
	PRIMARY KEY (suite_version, model_digest, bucket)
) WITHOUT ROWID;

INSERT INTO rank_cluster
SELECT suite_version, model_digest, hw_class, backend_name,
	CAST(floor(16 * log2(max(decode_tok_s, 0.001))) AS INTEGER) AS b, count(*)
FROM runs INDEXED BY runs_cluster_flag WHERE status = 'ok'
GROUP BY suite_version, model_digest, hw_class, backend_name, b;

INSERT INTO rank_digest
SELECT suite_version, model_digest, bucket, sum(n) FROM rank_cluster
GROUP BY suite_version, model_digest, bucket;

CREATE TRIGGER rank_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO rank_cluster VALUES (NEW.suite_version, NEW.model_digest, NEW.hw_class,
		NEW.backend_name, CAST(floor(16 * log2(max(NEW.decode_tok_s, 0.001))) AS INTEGER), 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
	INSERT INTO rank_digest VALUES (NEW.suite_version, NEW.model_digest,
		CAST(floor(16 * log2(max(NEW.decode_tok_s, 0.001))) AS INTEGER), 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rank_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE rank_cluster SET n = n - 1
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND hw_class = OLD.hw_class AND backend_name = OLD.backend_name
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER);
	DELETE FROM rank_cluster
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND hw_class = OLD.hw_class AND backend_name = OLD.backend_name
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER) AND n <= 0;
	UPDATE rank_digest SET n = n - 1
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER);
	DELETE FROM rank_digest
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER) AND n <= 0;
END;

CREATE TRIGGER rank_update_leave
AFTER UPDATE OF suite_version, model_digest, hw_class, backend_name, decode_tok_s, status ON runs
WHEN OLD.status = 'ok'
BEGIN
	UPDATE rank_cluster SET n = n - 1
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND hw_class = OLD.hw_class AND backend_name = OLD.backend_name
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER);
	DELETE FROM rank_cluster
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND hw_class = OLD.hw_class AND backend_name = OLD.backend_name
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER) AND n <= 0;
	UPDATE rank_digest SET n = n - 1
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER);
	DELETE FROM rank_digest
	WHERE suite_version = OLD.suite_version AND model_digest = OLD.model_digest
	  AND bucket = CAST(floor(16 * log2(max(OLD.decode_tok_s, 0.001))) AS INTEGER) AND n <= 0;
END;

CREATE TRIGGER rank_update_enter
AFTER UPDATE OF suite_version, model_digest, hw_class, backend_name, decode_tok_s, status ON runs
WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO rank_cluster VALUES (NEW.suite_version, NEW.model_digest, NEW.hw_class,
		NEW.backend_name, CAST(floor(16 * log2(max(NEW.decode_tok_s, 0.001))) AS INTEGER), 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
	INSERT INTO rank_digest VALUES (NEW.suite_version, NEW.model_digest,
		CAST(floor(16 * log2(max(NEW.decode_tok_s, 0.001))) AS INTEGER), 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- The board of / sorted by other figures of each group's best run:
-- prefill (fastest first), TTFT (quickest first) and date received
-- (newest first).  board_sort mirrors board_best (0007) row for row, kept
-- by triggers on board_best itself, so it changes only when a group's
-- best run does, not on every upload; its indexes answer each sort with
-- each filter the page offers in one seek.  Unknown figures sort last:
-- prefill as 0, TTFT as 1e300.  (An upsert, not INSERT OR REPLACE: the
-- statement that fires a trigger overrides the trigger's OR clause.)
CREATE TABLE board_sort (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	best_id       TEXT NOT NULL,
	sort_prefill  REAL NOT NULL,
	sort_ttft     REAL NOT NULL,
	sort_date     INTEGER NOT NULL,  -- unixepoch(received_at)
	PRIMARY KEY (suite_version, model_slug, hw_slug, backend_name)
) WITHOUT ROWID;
CREATE INDEX board_sort_prefill ON board_sort(suite_version, sort_prefill DESC, best_id DESC);
CREATE INDEX board_sort_prefill_hw ON board_sort(suite_version, hw_slug, sort_prefill DESC, best_id DESC);
CREATE INDEX board_sort_prefill_be ON board_sort(suite_version, backend_name, sort_prefill DESC, best_id DESC);
CREATE INDEX board_sort_prefill_hw_be ON board_sort(suite_version, hw_slug, backend_name, sort_prefill DESC, best_id DESC);
CREATE INDEX board_sort_ttft ON board_sort(suite_version, sort_ttft, best_id);
CREATE INDEX board_sort_ttft_hw ON board_sort(suite_version, hw_slug, sort_ttft, best_id);
CREATE INDEX board_sort_ttft_be ON board_sort(suite_version, backend_name, sort_ttft, best_id);
CREATE INDEX board_sort_ttft_hw_be ON board_sort(suite_version, hw_slug, backend_name, sort_ttft, best_id);
CREATE INDEX board_sort_date ON board_sort(suite_version, sort_date DESC, best_id DESC);
CREATE INDEX board_sort_date_hw ON board_sort(suite_version, hw_slug, sort_date DESC, best_id DESC);
CREATE INDEX board_sort_date_be ON board_sort(suite_version, backend_name, sort_date DESC, best_id DESC);
CREATE INDEX board_sort_date_hw_be ON board_sort(suite_version, hw_slug, backend_name, sort_date DESC, best_id DESC);

INSERT INTO board_sort
SELECT b.suite_version, b.model_slug, b.hw_slug, b.backend_name, b.best_id,
	coalesce(r.prefill_tok_s, 0), coalesce(r.ttft_ms, 1e300), unixepoch(r.received_at)
FROM board_best b JOIN runs r ON r.id = b.best_id;

CREATE TRIGGER board_sort_insert AFTER INSERT ON board_best WHEN NEW.best_id IS NOT NULL
BEGIN
	INSERT INTO board_sort
	SELECT NEW.suite_version, NEW.model_slug, NEW.hw_slug, NEW.backend_name, r.id,
		coalesce(r.prefill_tok_s, 0), coalesce(r.ttft_ms, 1e300), unixepoch(r.received_at)
	FROM runs r WHERE r.id = NEW.best_id
	ON CONFLICT DO UPDATE SET best_id = excluded.best_id, sort_prefill = excluded.sort_prefill,
		sort_ttft = excluded.sort_ttft, sort_date = excluded.sort_date;
END;

CREATE TRIGGER board_sort_update AFTER UPDATE OF best_id ON board_best
WHEN NEW.best_id IS NOT NULL AND NEW.best_id IS NOT OLD.best_id
BEGIN
	INSERT INTO board_sort
	SELECT NEW.suite_version, NEW.model_slug, NEW.hw_slug, NEW.backend_name, r.id,
		coalesce(r.prefill_tok_s, 0), coalesce(r.ttft_ms, 1e300), unixepoch(r.received_at)
	FROM runs r WHERE r.id = NEW.best_id
	ON CONFLICT DO UPDATE SET best_id = excluded.best_id, sort_prefill = excluded.sort_prefill,
		sort_ttft = excluded.sort_ttft, sort_date = excluded.sort_date;
END;

CREATE TRIGGER board_sort_delete AFTER DELETE ON board_best
BEGIN
	DELETE FROM board_sort
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name;
END;
