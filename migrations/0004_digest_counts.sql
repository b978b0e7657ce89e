-- 0004_digest_counts.sql: the digest list of /m/<slug>, kept in step with runs.
--
-- A model page lists the model's digests with the number of runs that count
-- (status = 'ok') and the fastest of them.  Counting them per request is a
-- pass over every run of the model; this table holds the answer instead, one
-- row per (suite, model, digest) with at least one run that counts, so the
-- page reads one row per digest however many runs there are.
--
-- The triggers below keep it exact in the same transaction as every insert,
-- delete and change of runs, whoever makes it (uploads, moderators, demo
-- data, tests writing with sqlite3).  Each costs a few seeks: a run that
-- enters adds one and becomes the best when it beats it; a run that leaves
-- takes one off, drops the row at zero, and when it was the best, finds the
-- next best with one seek in runs_ok_model.

CREATE TABLE digest_counts (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	runs          INTEGER NOT NULL,     -- runs with status 'ok', always > 0
	best_decode   REAL NOT NULL,        -- the best of them, in list order:
	best_id       TEXT NOT NULL,        --   decode_tok_s DESC, id DESC
	model_quant   TEXT,                 -- of the best run, as the page shows them
	model_format  TEXT,
	PRIMARY KEY (suite_version, model_slug, model_digest)
) WITHOUT ROWID;

INSERT INTO digest_counts
SELECT g.suite_version, g.model_slug, g.model_digest, g.n,
       r.decode_tok_s, r.id, r.model_quant, r.model_format
FROM (SELECT suite_version, model_slug, model_digest, count(*) AS n
      FROM runs WHERE status = 'ok'
      GROUP BY suite_version, model_slug, model_digest) AS g
JOIN runs AS r ON r.id = (
	SELECT id FROM runs
	WHERE suite_version = g.suite_version AND model_slug = g.model_slug
	  AND model_digest = g.model_digest AND status = 'ok'
	ORDER BY decode_tok_s DESC, id DESC LIMIT 1);

-- A run that counts enters its digest's row.
CREATE TRIGGER digest_counts_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_counts VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, 1,
		NEW.decode_tok_s, NEW.id, NEW.model_quant, NEW.model_format)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE digest_counts
	SET best_decode = NEW.decode_tok_s, best_id = NEW.id,
	    model_quant = NEW.model_quant, model_format = NEW.model_format
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND model_digest = NEW.model_digest
	  AND (NEW.decode_tok_s, NEW.id) > (best_decode, best_id);
END;

-- A run that counted leaves its digest's row.
CREATE TRIGGER digest_counts_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_counts SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest;
	DELETE FROM digest_counts
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND runs <= 0;
	UPDATE digest_counts
	SET (best_decode, best_id, model_quant, model_format) = (
		SELECT decode_tok_s, id, model_quant, model_format FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND model_digest = OLD.model_digest AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND best_id = OLD.id;
END;

-- A change to what the table holds (a moderator upholding a dispute sets
-- status; nothing else changes these columns today, but any change stays
-- exact) is the old row leaving and the new one entering.  Flags such as
-- outlier and demo fire nothing.
CREATE TRIGGER digest_counts_update_leave
AFTER UPDATE OF id, suite_version, model_slug, model_digest, model_quant, model_format,
	decode_tok_s, status ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_counts SET runs = runs - 1
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest;
	DELETE FROM digest_counts
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND runs <= 0;
	UPDATE digest_counts
	SET (best_decode, best_id, model_quant, model_format) = (
		SELECT decode_tok_s, id, model_quant, model_format FROM runs
		WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
		  AND model_digest = OLD.model_digest AND status = 'ok'
		ORDER BY decode_tok_s DESC, id DESC LIMIT 1)
	WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	  AND model_digest = OLD.model_digest AND best_id = OLD.id;
END;

CREATE TRIGGER digest_counts_update_enter
AFTER UPDATE OF id, suite_version, model_slug, model_digest, model_quant, model_format,
	decode_tok_s, status ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_counts VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, 1,
		NEW.decode_tok_s, NEW.id, NEW.model_quant, NEW.model_format)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE digest_counts
	SET best_decode = NEW.decode_tok_s, best_id = NEW.id,
	    model_quant = NEW.model_quant, model_format = NEW.model_format
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND model_digest = NEW.model_digest
	  AND (NEW.decode_tok_s, NEW.id) > (best_decode, best_id);
END;
