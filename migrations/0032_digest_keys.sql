-- 0032_digest_keys.sql: a model page's weights files in the order of how
-- many submitters ran them, not how many runs (issue 37, H4).
--
-- /m/<slug> listed its digests by runs (0004, 0007), and showed the first:
-- 21 runs from one key beat 20 runs from 20 keys, so one key picked the
-- weights file a model page shows.  digest_counts.keys now holds the
-- distinct signing keys with a counted run (status 'ok') of the digest,
-- and the list (index digest_counts_order) is by keys, then runs, the
-- faster best run and the digest, each descending; the cursor
-- ?digests_after= is <keys>:<runs>:<decode>:<digest>.
--
-- digest_keys holds each key's counted runs of each (suite, model,
-- digest), so a key enters a digest with its first counted run and leaves
-- it with its last, as name_keys does for names (0021).  SQLite promises
-- no order among the AFTER triggers of runs, so digest_counts' row may
-- come before or after the key's: a key entering adds one to a row that
-- exists, and a row made counts the keys already there (one or none).

CREATE TABLE digest_keys (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	key           TEXT NOT NULL,        -- runs.key_thumbprint
	runs          INTEGER NOT NULL,     -- its counted runs of the digest, > 0
	PRIMARY KEY (suite_version, model_slug, model_digest, key)
) WITHOUT ROWID;

ALTER TABLE digest_counts ADD COLUMN keys INTEGER NOT NULL DEFAULT 0;

-- 0004's triggers insert by position: they name their columns now.
DROP TRIGGER digest_counts_insert;
CREATE TRIGGER digest_counts_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_counts(suite_version, model_slug, model_digest, runs, best_decode, best_id,
		model_quant, model_format)
	VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, 1,
		NEW.decode_tok_s, NEW.id, NEW.model_quant, NEW.model_format)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE digest_counts
	SET best_decode = NEW.decode_tok_s, best_id = NEW.id,
	    model_quant = NEW.model_quant, model_format = NEW.model_format
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND model_digest = NEW.model_digest
	  AND (NEW.decode_tok_s, NEW.id) > (best_decode, best_id);
END;
DROP TRIGGER digest_counts_update_enter;
CREATE TRIGGER digest_counts_update_enter
AFTER UPDATE OF id, suite_version, model_slug, model_digest, model_quant, model_format,
	decode_tok_s, status ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_counts(suite_version, model_slug, model_digest, runs, best_decode, best_id,
		model_quant, model_format)
	VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, 1,
		NEW.decode_tok_s, NEW.id, NEW.model_quant, NEW.model_format)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	UPDATE digest_counts
	SET best_decode = NEW.decode_tok_s, best_id = NEW.id,
	    model_quant = NEW.model_quant, model_format = NEW.model_format
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	  AND model_digest = NEW.model_digest
	  AND (NEW.decode_tok_s, NEW.id) > (best_decode, best_id);
END;

INSERT INTO digest_keys
SELECT suite_version, model_slug, model_digest, key_thumbprint, count(*) FROM runs
WHERE status = 'ok' GROUP BY suite_version, model_slug, model_digest, key_thumbprint;
UPDATE digest_counts SET keys = (
	SELECT count(*) FROM digest_keys k WHERE k.suite_version = digest_counts.suite_version
	AND k.model_slug = digest_counts.model_slug AND k.model_digest = digest_counts.model_digest);

DROP INDEX digest_counts_order;
CREATE INDEX digest_counts_order ON digest_counts(suite_version, model_slug,
	keys DESC, runs DESC, best_decode DESC, model_digest DESC);

CREATE TRIGGER digest_keys_enter AFTER INSERT ON digest_keys
BEGIN
	UPDATE digest_counts SET keys = keys + 1 WHERE suite_version = NEW.suite_version
	AND model_slug = NEW.model_slug AND model_digest = NEW.model_digest;
END;
CREATE TRIGGER digest_keys_leave AFTER DELETE ON digest_keys
BEGIN
	UPDATE digest_counts SET keys = keys - 1 WHERE suite_version = OLD.suite_version
	AND model_slug = OLD.model_slug AND model_digest = OLD.model_digest;
END;
CREATE TRIGGER digest_counts_keys AFTER INSERT ON digest_counts
BEGIN
	UPDATE digest_counts SET keys = (
		SELECT count(*) FROM digest_keys WHERE suite_version = NEW.suite_version
		AND model_slug = NEW.model_slug AND model_digest = NEW.model_digest)
	WHERE suite_version = NEW.suite_version AND model_slug = NEW.model_slug
	AND model_digest = NEW.model_digest;
END;

-- A run that counts enters; one that counted leaves (deleted, or changed:
-- withdrawn or upheld sets status).
CREATE TRIGGER digest_keys_run_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_keys VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest,
		NEW.key_thumbprint, 1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;
CREATE TRIGGER digest_keys_run_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_keys SET runs = runs - 1 WHERE suite_version = OLD.suite_version
	AND model_slug = OLD.model_slug AND model_digest = OLD.model_digest AND key = OLD.key_thumbprint;
	DELETE FROM digest_keys WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	AND model_digest = OLD.model_digest AND key = OLD.key_thumbprint AND runs <= 0;
END;
CREATE TRIGGER digest_keys_run_update_leave
AFTER UPDATE OF suite_version, model_slug, model_digest, key_thumbprint, status ON runs
WHEN OLD.status = 'ok'
BEGIN
	UPDATE digest_keys SET runs = runs - 1 WHERE suite_version = OLD.suite_version
	AND model_slug = OLD.model_slug AND model_digest = OLD.model_digest AND key = OLD.key_thumbprint;
	DELETE FROM digest_keys WHERE suite_version = OLD.suite_version AND model_slug = OLD.model_slug
	AND model_digest = OLD.model_digest AND key = OLD.key_thumbprint AND runs <= 0;
END;
CREATE TRIGGER digest_keys_run_update_enter
AFTER UPDATE OF suite_version, model_slug, model_digest, key_thumbprint, status ON runs
WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO digest_keys VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest,
		NEW.key_thumbprint, 1)
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;
