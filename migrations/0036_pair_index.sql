-- 0036_pair_index.sql: each model-on-hardware pair of a suite with runs
-- that count, their number and the newest run's time, kept as runs come
-- and go, for the sitemap's pair files (pages/page_sitemap.c).
--
-- The sitemap listed the pairs as the distinct (model, hardware) of
-- combos, sorted in a temporary b-tree, and found each pair's newest run
-- by walking its model's runs newest first until one was on that
-- hardware: for the busiest model that is most of its runs, so one pair
-- file took a second at 200,000 runs, longer than the freshness bound of
-- kept pages, and its rebuilds held the build threads.  Here a pair is one
-- row in key order, its time beside it.
--
-- last_at is the newest received_at the pair has had: a run leaving does
-- not move it back (finding the newest left is that walk again), so it is
-- never older than the newest run listed.

CREATE TABLE pair_index (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	runs          INTEGER NOT NULL,     -- runs with status 'ok', > 0
	last_at       TEXT NOT NULL,        -- max(received_at) the pair has had
	PRIMARY KEY (suite_version, model_slug, hw_slug)
) WITHOUT ROWID;

INSERT INTO pair_index
SELECT suite_version, model_slug, hw_slug, count(*), max(received_at) FROM runs
WHERE status = 'ok' GROUP BY suite_version, model_slug, hw_slug;

CREATE TRIGGER pair_index_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO pair_index VALUES (NEW.suite_version, NEW.model_slug, NEW.hw_slug, 1, NEW.received_at)
	ON CONFLICT DO UPDATE SET runs = runs + 1, last_at = max(last_at, excluded.last_at);
END;

CREATE TRIGGER pair_index_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE pair_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug;
	DELETE FROM pair_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug
	  AND runs <= 0;
END;

-- A run renamed (the identity pass), moved to another suite, withdrawn or
-- upheld: out of its old pair, into its new one.
CREATE TRIGGER pair_index_update_leave
AFTER UPDATE OF suite_version, model_slug, hw_slug, status ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE pair_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug;
	DELETE FROM pair_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND hw_slug = OLD.hw_slug
	  AND runs <= 0;
END;

CREATE TRIGGER pair_index_update_enter
AFTER UPDATE OF suite_version, model_slug, hw_slug, status ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO pair_index VALUES (NEW.suite_version, NEW.model_slug, NEW.hw_slug, 1, NEW.received_at)
	ON CONFLICT DO UPDATE SET runs = runs + 1, last_at = max(last_at, excluded.last_at);
END;
