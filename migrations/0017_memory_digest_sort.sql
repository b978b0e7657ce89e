-- 0017_memory_digest_sort.sql: the cheatsheet's memory-class filter, and
-- /m/<slug>?sort= within the digest the page shows.  One column on runs
-- (mem_gb, no index on it) and summary rows kept by triggers; no index on
-- runs is added.  An upload pays two upserts that write only when the run
-- beats its group's best (cheat_best, digest_sort).
--
-- Memory class.  One accelerator name covers several sizes (an "M3 Max"
-- has 36 to 128 GB), so the cheatsheet can be narrowed to the memory a
-- run reported: the GPU's memory (hardware.vram_gb, when given and not
-- 0), else the machine's RAM (hardware.ram_gb: Apple silicon's unified
-- memory, or a CPU-only machine).  The classes are the sizes people buy,
-- each up to a bound with 10% to spare, so a 24 GB card that reports
-- 25.8 GB (24,564 MiB counted in decimal GB) stays a 24 GB card:
--   '8' up to 8 GB, '16' 9-16, '24' 17-24, '48' 25-48, '96' 49-96,
--   '192' 97-192, 'over-192' more, 'unknown' when neither is reported.
-- runs.mem_gb holds that figure (NULL when neither is reported), written
-- by the upload from the payload it has parsed anyway, and backfilled
-- here from each run's signed payload (inside its JWS: the daemon's
-- jws_payload(), decoded once a run).  mem_classes holds the bounds, so a
-- run's class is one seek:
--   (SELECT key FROM mem_classes WHERE upper_gb >= coalesce(mem_gb, 0)
--    ORDER BY upper_gb LIMIT 1)
-- pages/page_cheatsheet.c has the same keys with their labels;
-- tests/check_browse.c recounts every class from the payloads.
ALTER TABLE runs ADD COLUMN mem_gb REAL;
UPDATE runs SET mem_gb = (SELECT coalesce(nullif(a ->> 0, 0), a ->> 1)
	FROM (SELECT json_extract(CAST(jws_payload(runs.jws) AS TEXT), '$.hardware.vram_gb',
		'$.hardware.ram_gb') AS a LIMIT 1));

CREATE TABLE mem_classes (
	upper_gb REAL PRIMARY KEY,
	key      TEXT NOT NULL UNIQUE
) WITHOUT ROWID;
INSERT INTO mem_classes VALUES (0, 'unknown'), (8.8, '8'), (17.6, '16'), (26.4, '24'),
	(52.8, '48'), (105.6, '96'), (211.2, '192'), (1e308, 'over-192');

-- cheat_best: the best run (decode_tok_s DESC, id DESC) of each (suite,
-- memory class, model, hardware, backend) among the runs that count, as
-- board_best (0007) is without the class: the cheatsheet's cells when a
-- class is chosen.  Kept as board_best is: a run that enters is one upsert
-- that writes only when it beats the best; a run that leaves costs nothing
-- unless it was the best, and then its group's runs (runs_ok_board, 0002)
-- are read fastest first until one of the class is found.
CREATE TABLE cheat_best (
	suite_version TEXT NOT NULL,
	mem_class     TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	best_decode   REAL,               -- NULL only inside a trigger
	best_id       TEXT,
	PRIMARY KEY (suite_version, mem_class, model_slug, hw_slug, backend_name)
) WITHOUT ROWID;

-- The cheatsheet's rows and columns within a class, kept from cheat_best
-- (so they change only when a cell does, not on every upload): each
-- model's best decode, and each hardware's number of cells (model and
-- backend pairs), in the orders the sheet lists them.
CREATE TABLE cheat_model (
	suite_version TEXT NOT NULL,
	mem_class     TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	best_decode   REAL,               -- NULL only inside a trigger
	PRIMARY KEY (suite_version, mem_class, model_slug)
) WITHOUT ROWID;
CREATE INDEX cheat_model_order ON cheat_model(suite_version, mem_class, best_decode DESC, model_slug DESC);

CREATE TABLE cheat_hw (
	suite_version TEXT NOT NULL,
	mem_class     TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	cells         INTEGER NOT NULL,
	PRIMARY KEY (suite_version, mem_class, hw_slug)
) WITHOUT ROWID;
CREATE INDEX cheat_hw_order ON cheat_hw(suite_version, mem_class, cells DESC, hw_slug DESC);

-- Backfill: one pass over the runs that count,
-- then the rows and columns from the cells.
INSERT INTO cheat_best
SELECT r.suite_version, (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(r.mem_gb, 0) ORDER BY upper_gb LIMIT 1),
	r.model_slug, r.hw_slug, r.backend_name, r.decode_tok_s, r.id
FROM runs r WHERE r.status = 'ok'
ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);

INSERT INTO cheat_model
SELECT suite_version, mem_class, model_slug, max(best_decode) FROM cheat_best
GROUP BY suite_version, mem_class, model_slug;

INSERT INTO cheat_hw
SELECT suite_version, mem_class, hw_slug, count(*) FROM cheat_best
GROUP BY suite_version, mem_class, hw_slug;

-- A run that counts enters its cell.
CREATE TRIGGER cheat_best_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO cheat_best
	SELECT NEW.suite_version, (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(NEW.mem_gb, 0) ORDER BY upper_gb LIMIT 1),
		NEW.model_slug, NEW.hw_slug, NEW.backend_name, NEW.decode_tok_s, NEW.id
	WHERE true
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;

-- A run that counted leaves (deleted, upheld, withdrawn, changed): when it
-- was its cell's best, the next best of the class takes its place, and the
-- cell goes when none is left.
CREATE TRIGGER cheat_best_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE cheat_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs r
		WHERE r.suite_version = OLD.suite_version AND r.model_slug = OLD.model_slug
		  AND r.hw_slug = OLD.hw_slug AND r.backend_name = OLD.backend_name AND r.status = 'ok'
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
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, mem_gb, status
ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE cheat_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs r
		WHERE r.suite_version = OLD.suite_version AND r.model_slug = OLD.model_slug
		  AND r.hw_slug = OLD.hw_slug AND r.backend_name = OLD.backend_name AND r.status = 'ok'
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
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, mem_gb, status
ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO cheat_best
	SELECT NEW.suite_version, (SELECT key FROM mem_classes
			WHERE upper_gb >= coalesce(NEW.mem_gb, 0) ORDER BY upper_gb LIMIT 1),
		NEW.model_slug, NEW.hw_slug, NEW.backend_name, NEW.decode_tok_s, NEW.id
	WHERE true
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id)
	   OR best_decode IS NULL;
END;

-- A new cell: its hardware gains one, its model's best may rise.
CREATE TRIGGER cheat_cell_insert AFTER INSERT ON cheat_best
BEGIN
	INSERT INTO cheat_hw VALUES (NEW.suite_version, NEW.mem_class, NEW.hw_slug, 1)
	ON CONFLICT DO UPDATE SET cells = cells + 1;
	INSERT INTO cheat_model VALUES (NEW.suite_version, NEW.mem_class, NEW.model_slug, NEW.best_decode)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode
	WHERE excluded.best_decode > best_decode OR best_decode IS NULL;
END;

-- A cell's best changed: a faster one raises its model's; a slower one
-- (its best left) has the model's best read again from its cells, one
-- seek and the model's cells in the class.
CREATE TRIGGER cheat_cell_update AFTER UPDATE OF best_decode ON cheat_best
WHEN NEW.best_decode IS NOT NULL
BEGIN
	UPDATE cheat_model SET best_decode = NEW.best_decode
	WHERE suite_version = NEW.suite_version AND mem_class = NEW.mem_class
	  AND model_slug = NEW.model_slug AND NEW.best_decode > best_decode;
	UPDATE cheat_model SET best_decode = (SELECT max(best_decode) FROM cheat_best
		WHERE suite_version = NEW.suite_version AND mem_class = NEW.mem_class
		  AND model_slug = NEW.model_slug)
	WHERE suite_version = NEW.suite_version AND mem_class = NEW.mem_class
	  AND model_slug = NEW.model_slug AND NEW.best_decode < OLD.best_decode;
END;

-- A cell went: its hardware loses one, and its model's best is read again.
CREATE TRIGGER cheat_cell_delete AFTER DELETE ON cheat_best
BEGIN
	UPDATE cheat_hw SET cells = cells - 1
	WHERE suite_version = OLD.suite_version AND mem_class = OLD.mem_class AND hw_slug = OLD.hw_slug;
	DELETE FROM cheat_hw
	WHERE suite_version = OLD.suite_version AND mem_class = OLD.mem_class
	  AND hw_slug = OLD.hw_slug AND cells <= 0;
	UPDATE cheat_model SET best_decode = (SELECT max(best_decode) FROM cheat_best
		WHERE suite_version = OLD.suite_version AND mem_class = OLD.mem_class
		  AND model_slug = OLD.model_slug)
	WHERE suite_version = OLD.suite_version AND mem_class = OLD.mem_class
	  AND model_slug = OLD.model_slug;
	DELETE FROM cheat_model
	WHERE suite_version = OLD.suite_version AND mem_class = OLD.mem_class
	  AND model_slug = OLD.model_slug AND best_decode IS NULL;
END;

-- digest_sort: /m/<slug>?sort=prefill|ttft|date within the digest shown.
-- board_sort (0012) holds each (model, hardware, backend)'s best run
-- across the model's digests, so a digest column there would name only
-- the digest of that one run, and a group whose best is of another digest
-- would vanish from the digest's page.  This table holds the best run
-- (decode_tok_s DESC, id DESC, as board_best) of each (suite, model,
-- digest, hardware, backend) with its sort figures, and an index per sort
-- answers a page of one digest in one seek.  A run that enters is one
-- upsert that writes only when it beats the best; one that leaves costs
-- nothing unless it was the best, and then one seek in runs_ok_model_hw_be
-- (0002) finds the next.  Unknown figures sort last, as in board_sort.
CREATE TABLE digest_sort (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	best_decode   REAL,               -- these NULL only inside a trigger
	best_id       TEXT,
	sort_prefill  REAL,
	sort_ttft     REAL,
	sort_date     INTEGER,            -- unixepoch(received_at)
	PRIMARY KEY (suite_version, model_slug, model_digest, hw_slug, backend_name)
) WITHOUT ROWID;
CREATE INDEX digest_sort_prefill ON digest_sort(suite_version, model_slug, model_digest,
	sort_prefill DESC, best_id DESC);
CREATE INDEX digest_sort_ttft ON digest_sort(suite_version, model_slug, model_digest,
	sort_ttft, best_id);
CREATE INDEX digest_sort_date ON digest_sort(suite_version, model_slug, model_digest,
	sort_date DESC, best_id DESC);

-- Backfill: the covering index walked in group order (the first row of a
-- group is its best), then the best runs' figures, one seek each.
INSERT INTO digest_sort(suite_version, model_slug, model_digest, hw_slug, backend_name,
	best_decode, best_id)
SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, decode_tok_s, id
FROM runs INDEXED BY runs_ok_model_hw_be WHERE status = 'ok'
ORDER BY suite_version, model_slug, model_digest, hw_slug, backend_name, decode_tok_s DESC, id DESC
ON CONFLICT DO NOTHING;
UPDATE digest_sort SET (sort_prefill, sort_ttft, sort_date) = (
	SELECT coalesce(prefill_tok_s, 0), coalesce(ttft_ms, 1e300), unixepoch(received_at)
	FROM runs WHERE id = digest_sort.best_id);

CREATE TRIGGER digest_sort_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_sort VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest,
		NEW.hw_slug, NEW.backend_name, NEW.decode_tok_s, NEW.id, coalesce(NEW.prefill_tok_s, 0),
		coalesce(NEW.ttft_ms, 1e300), unixepoch(NEW.received_at))
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id,
		sort_prefill = excluded.sort_prefill, sort_ttft = excluded.sort_ttft,
		sort_date = excluded.sort_date
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;

CREATE TRIGGER digest_sort_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_sort SET (best_decode, best_id, sort_prefill, sort_ttft, sort_date) = (
		SELECT decode_tok_s, id, coalesce(prefill_tok_s, 0), coalesce(ttft_ms, 1e300),
			unixepoch(received_at)
		FROM runs WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
		  AND backend_name = OLD.backend_name AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM digest_sort
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id IS NULL;
END;

CREATE TRIGGER digest_sort_update_leave
AFTER UPDATE OF id, suite_version, model_slug, model_digest, hw_slug, backend_name, decode_tok_s,
	prefill_tok_s, ttft_ms, received_at, status
ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_sort SET (best_decode, best_id, sort_prefill, sort_ttft, sort_date) = (
		SELECT decode_tok_s, id, coalesce(prefill_tok_s, 0), coalesce(ttft_ms, 1e300),
			unixepoch(received_at)
		FROM runs WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
		  AND backend_name = OLD.backend_name AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM digest_sort
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND best_id IS NULL;
END;

CREATE TRIGGER digest_sort_update_enter
AFTER UPDATE OF id, suite_version, model_slug, model_digest, hw_slug, backend_name, decode_tok_s,
	prefill_tok_s, ttft_ms, received_at, status
ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_sort VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest,
		NEW.hw_slug, NEW.backend_name, NEW.decode_tok_s, NEW.id, coalesce(NEW.prefill_tok_s, 0),
		coalesce(NEW.ttft_ms, 1e300), unixepoch(NEW.received_at))
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id,
		sort_prefill = excluded.sort_prefill, sort_ttft = excluded.sort_ttft,
		sort_date = excluded.sort_date
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id)
	   OR best_id = excluded.best_id OR best_decode IS NULL;
END;
