-- 0015_ingest_indexes.sql: fewer index entries per upload (issue 9).
--
-- An upload writes one entry in every index on runs that holds it, each in
-- a leaf page of its own, written to the WAL at the commit and again into
-- the database at the checkpoint.  Two of them served only a rare path:
-- runs_ok_model_best and runs_ok_hw_best (0012) found a model's or a
-- hardware's next best run when its best one left (upheld, withdrawn,
-- deleted, changed).  The summaries below the runs answer that already:
-- a model's best run is the best of its digests' bests (digest_counts,
-- 0004, a few rows per model), and a hardware's is the first row of its
-- models' bests in hw_best_order (hw_best, 0007, one seek).  Those rows
-- change only when a group's best does, so the next best is taken from
-- them by triggers on the summaries themselves, which fire after the
-- summary row has changed whatever order SQLite runs the triggers of runs
-- in.  find_index's triggers on runs keep the counts and raise the best;
-- they no longer read runs.
--
-- Every best here is in list order, (decode_tok_s, id) descending, as in
-- digest_counts and hw_best: a run that ties the best's decode and has the
-- greater id is the best (before, the older of two ties stayed the best on
-- upload but the greater id won after a leave), so a model's best run is
-- always its digest's best and the triggers below see it leave.

DROP TRIGGER find_index_insert;
DROP TRIGGER find_index_delete;
DROP TRIGGER find_index_update_leave;
DROP TRIGGER find_index_update_enter;
DROP INDEX runs_ok_model_best;
DROP INDEX runs_ok_hw_best;

-- A run that counts enters its model's and hardware's rows: one more run,
-- and the best when it beats it.  The best is set by an UPDATE of its own
-- that writes only when the run beats it (as digest_counts does), so an
-- upload that does not touches no entry of model_index_decode or
-- hw_index_decode (an upsert setting best_decode = iif(...) rewrote them
-- on every upload).
CREATE TRIGGER find_index_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index VALUES (NEW.suite_version, NEW.model_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE model_index SET best_decode = NEW.decode_tok_s, best_id = NEW.id
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND ((NEW.decode_tok_s, NEW.id) > (best_decode, best_id) OR best_decode IS NULL);
	INSERT INTO hw_index VALUES (NEW.suite_version, NEW.hw_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE hw_index SET best_decode = NEW.decode_tok_s, best_id = NEW.id
	WHERE suite_version = NEW.suite_version AND hw_slug = NEW.hw_slug
	  AND ((NEW.decode_tok_s, NEW.id) > (best_decode, best_id) OR best_decode IS NULL);
END;

-- A run that counted leaves: one off each count, the row gone at zero.
-- Its best, if it was, is replaced by the summary triggers further down.
CREATE TRIGGER find_index_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE model_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug;
	DELETE FROM model_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND runs <= 0;
	UPDATE hw_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug;
	DELETE FROM hw_index
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug AND runs <= 0;
END;

-- A change to what the rows hold is the old row leaving and the new one
-- entering.
CREATE TRIGGER find_index_update_leave
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, decode_tok_s, status ON runs
WHEN OLD.status = 'ok'
BEGIN
	UPDATE model_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug;
	DELETE FROM model_index
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug AND runs <= 0;
	UPDATE hw_index SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug;
	DELETE FROM hw_index
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug AND runs <= 0;
END;

CREATE TRIGGER find_index_update_enter
AFTER UPDATE OF id, suite_version, model_slug, hw_slug, decode_tok_s, status ON runs
WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO model_index VALUES (NEW.suite_version, NEW.model_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE model_index SET best_decode = NEW.decode_tok_s, best_id = NEW.id
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND ((NEW.decode_tok_s, NEW.id) > (best_decode, best_id) OR best_decode IS NULL);
	INSERT INTO hw_index VALUES (NEW.suite_version, NEW.hw_slug, 1, NEW.decode_tok_s, NEW.id)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE hw_index SET best_decode = NEW.decode_tok_s, best_id = NEW.id
	WHERE suite_version = NEW.suite_version AND hw_slug = NEW.hw_slug
	  AND ((NEW.decode_tok_s, NEW.id) > (best_decode, best_id) OR best_decode IS NULL);
END;

-- A digest's best changed: when it held the model's best (which may have
-- fallen) or now beats it (a run that moved from another digest of the
-- model), the model's best is again the best of its digests' bests.  The
-- row has changed when this fires, whatever order the triggers on runs
-- took.  An upload that does not beat its digest's best does not update
-- the row and fires nothing; one that does costs one primary-key probe of
-- model_index, and a few rows more when it beats the model's best.
CREATE TRIGGER model_index_best_moves AFTER UPDATE OF best_decode, best_id ON digest_counts
BEGIN
	UPDATE model_index SET (best_decode, best_id) = (
		SELECT best_decode, best_id FROM digest_counts
		WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
		ORDER BY best_decode DESC, best_id DESC LIMIT 1)
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND (best_id = OLD.best_id OR (NEW.best_decode, NEW.best_id) > (best_decode, best_id));
END;

CREATE TRIGGER model_index_best_goes AFTER DELETE ON digest_counts
BEGIN
	UPDATE model_index SET (best_decode, best_id) = (
		SELECT best_decode, best_id FROM digest_counts
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		ORDER BY best_decode DESC, best_id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND best_id = OLD.best_id;
END;

-- The same for a hardware and its models' bests in hw_best, whose best is
-- NULL for a moment before its row goes (0007): NULLs sort last, so the
-- seek in hw_best_order finds the best run left on that hardware, if any.
CREATE TRIGGER hw_index_best_moves AFTER UPDATE OF best_decode, best_id ON hw_best
BEGIN
	UPDATE hw_index SET (best_decode, best_id) = (
		SELECT best_decode, best_id FROM hw_best
		WHERE suite_version = NEW.suite_version AND hw_slug = NEW.hw_slug
		ORDER BY best_decode DESC, best_id DESC LIMIT 1)
	WHERE suite_version = NEW.suite_version AND hw_slug = NEW.hw_slug
	  AND (best_id = OLD.best_id OR (NEW.best_decode, NEW.best_id) > (best_decode, best_id));
END;

CREATE TRIGGER hw_index_best_goes AFTER DELETE ON hw_best WHEN OLD.best_id IS NOT NULL
BEGIN
	UPDATE hw_index SET (best_decode, best_id) = (
		SELECT best_decode, best_id FROM hw_best
		WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
		ORDER BY best_decode DESC, best_id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND best_id = OLD.best_id;
END;

-- An existing database: each best taken again from the summaries, so that
-- it is in list order (ties) as the triggers above expect.  One row per
-- model and per hardware, whatever the number of runs.
UPDATE model_index SET (best_decode, best_id) = (
	SELECT d.best_decode, d.best_id FROM digest_counts d
	WHERE d.suite_version = model_index.suite_version AND d.model_slug = model_index.model_slug
	ORDER BY d.best_decode DESC, d.best_id DESC LIMIT 1);
UPDATE hw_index SET (best_decode, best_id) = (
	SELECT h.best_decode, h.best_id FROM hw_best h
	WHERE h.suite_version = hw_index.suite_version AND h.hw_slug = hw_index.hw_slug
	ORDER BY h.best_decode DESC, h.best_id DESC LIMIT 1);
