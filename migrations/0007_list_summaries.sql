-- 0007_list_summaries.sql: the lists and aggregates of /, /hw/<slug>,
-- /m/<slug>, /outliers and /disputes read summary rows or indexes that
-- answer them directly, never a pass over the runs.
--
-- board_best holds the best run (decode_tok_s DESC, id DESC) of each
-- (suite, model, hardware, backend) among the runs that count
-- (status = 'ok'): the front page's board.  hw_best holds the same per
-- (suite, hardware, model): the sections of /hw/<slug>.  A page then reads
-- one page of summary rows in list order by index, whatever the number of
-- runs behind them.
--
-- The triggers keep both exact in the transaction of every change to runs,
-- whoever makes it.  Their cost per upload is kept low:
--   - a run that enters is one upsert per table, and its DO UPDATE writes
--     only when the new run beats the best, so an upload to a busy group
--     reads two rows and writes none;
--   - a run that leaves (deleted, upheld, or changed) costs nothing unless
--     it was the best of its group; then one seek in runs_ok_board or
--     runs_ok_hw finds the next best, and the row goes when none is left.
-- No run count is kept, so the rows do not change on every upload.

CREATE TABLE board_best (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	best_decode   REAL,                 -- NULL only inside a trigger, while the
	best_id       TEXT,                 --   row is about to go (no run left)
	PRIMARY KEY (suite_version, model_slug, hw_slug, backend_name)
) WITHOUT ROWID;

-- The board in list order, unfiltered and with each filter the page offers.
CREATE INDEX board_best_order ON board_best(suite_version, best_decode DESC, best_id DESC);
CREATE INDEX board_best_hw ON board_best(suite_version, hw_slug, best_decode DESC, best_id DESC);
CREATE INDEX board_best_be ON board_best(suite_version, backend_name, best_decode DESC, best_id DESC);
CREATE INDEX board_best_hw_be ON board_best(suite_version, hw_slug, backend_name,
	best_decode DESC, best_id DESC);

CREATE TABLE hw_best (
	suite_version TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	best_decode   REAL,
	best_id       TEXT,
	PRIMARY KEY (suite_version, hw_slug, model_slug)
) WITHOUT ROWID;

-- /hw/<slug>'s model sections in list order.
CREATE INDEX hw_best_order ON hw_best(suite_version, hw_slug, best_decode DESC, best_id DESC);

-- Backfill: each index walked in group order; the first row of a group is
-- its best, later ones are ignored by the primary key.
INSERT INTO board_best
SELECT suite_version, model_slug, hw_slug, backend_name, decode_tok_s, id
FROM runs INDEXED BY runs_ok_board WHERE status = 'ok'
ORDER BY suite_version, model_slug, hw_slug, backend_name, decode_tok_s DESC, id DESC
ON CONFLICT DO NOTHING;

INSERT INTO hw_best
SELECT suite_version, hw_slug, model_slug, decode_tok_s, id
FROM runs INDEXED BY runs_ok_hw WHERE status = 'ok'
ORDER BY suite_version, hw_slug, model_slug, decode_tok_s DESC, id DESC
ON CONFLICT DO NOTHING;

-- A run that counts enters: it becomes its groups' best when it beats them.
CREATE TRIGGER list_summaries_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO board_best VALUES (NEW.suite_version, NEW.model_slug, NEW.hw_slug,
		NEW.backend_name, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
	INSERT INTO hw_best VALUES (NEW.suite_version, NEW.hw_slug, NEW.model_slug,
		NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;

-- A run that counted leaves (after the change, so the next best is found
-- among what remains).  Shared by delete and update through the WHERE on
-- best_id: only the group whose best it was is touched.
CREATE TRIGGER list_summaries_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE board_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM board_best
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id IS NULL;
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

-- A change to what the summaries hold (a moderator upholding a dispute, or
-- dismissing it after an uphold, sets status) is the old row leaving and
-- the new one entering.  Flags such as outlier and demo fire nothing.
CREATE TRIGGER list_summaries_update_leave
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, backend_name, decode_tok_s, status
ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE board_best SET (best_decode, best_id) = (
		SELECT decode_tok_s, id FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id = OLD.id;
	DELETE FROM board_best
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND hw_slug = OLD.hw_slug AND backend_name = OLD.backend_name AND best_id IS NULL;
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
	INSERT INTO board_best VALUES (NEW.suite_version, NEW.model_slug, NEW.hw_slug,
		NEW.backend_name, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
	INSERT INTO hw_best VALUES (NEW.suite_version, NEW.hw_slug, NEW.model_slug,
		NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET best_decode = excluded.best_decode, best_id = excluded.best_id
	WHERE (excluded.best_decode, excluded.best_id) > (best_decode, best_id);
END;

-- /outliers: one suite's flagged runs that count, newest first.  Partial,
-- so it holds the flagged runs only and an unflagged upload pays nothing.
CREATE INDEX runs_outliers_list ON runs(suite_version, received_at DESC, id DESC)
	WHERE outlier = 1 AND status = 'ok';

-- /disputes: one suite's open threads, latest post first.  A thread's
-- suite is its run's, set when the thread is opened and followed should
-- the run's suite ever be rewritten (no upload does; the trigger fires only
-- on an UPDATE naming the column); the partial index holds open threads
-- only.
ALTER TABLE dispute_threads ADD COLUMN suite_version TEXT;
UPDATE dispute_threads SET suite_version = (
	SELECT suite_version FROM runs WHERE runs.id = dispute_threads.run_id);
CREATE TRIGGER dispute_threads_suite AFTER INSERT ON dispute_threads
WHEN NEW.suite_version IS NULL
BEGIN
	UPDATE dispute_threads SET suite_version = (
		SELECT suite_version FROM runs WHERE runs.id = NEW.run_id)
	WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER dispute_threads_suite_follows AFTER UPDATE OF suite_version ON runs
BEGIN
	UPDATE dispute_threads SET suite_version = NEW.suite_version WHERE run_id = NEW.id;
END;
CREATE INDEX dispute_threads_open ON dispute_threads(suite_version, last_post_id DESC, run_id DESC)
	WHERE state = 'open';

-- /m/<slug>'s digest list, a page at a time in its order (most runs
-- first, then the faster best run, then the digest, each descending so
-- that one row value is the keyset cursor).  The row moves in this index
-- when its run count changes: one small index update per upload.
CREATE INDEX digest_counts_order ON digest_counts(suite_version, model_slug,
	runs DESC, best_decode DESC, model_digest DESC);
