-- 0021_names.sql: the name a model or hardware page shows is the one most
-- submitters used, not the fastest run's (issue 23, finding 3).
--
-- A slug (/m/<slug>, /hw/<slug>) gathers runs whose names differ: the slug
-- drops an "org/" prefix, every character outside [a-z0-9] and a trailing
-- quantization word, so "FAKE WEIGHTS - download at evil.example/
-- Qwen3-Coder-30B-A3B-Instruct" is qwen3-coder-30b-a3b-instruct too.  Its
-- name is the one most distinct signing keys used among the runs that
-- count (status 'ok'), ties to the name seen first; so a name that one key
-- brought never replaces one another key brought earlier, however many
-- runs it sends.
--
-- name_votes holds each (kind, slug, name) ever seen, in the order first
-- seen (id), with its count of keys; name_keys holds each key's count of
-- counted runs under each name, so a key enters a name once and leaves it
-- with its last run.  search_names.name (0012) is kept equal to the top of
-- name_votes for its slug, read in one seek of name_votes_top: every page,
-- list, feed and search that names a model or hardware reads it there
-- (store/names.h), and a run's own page, JSON and badge keep what it was
-- sent with.  An upload costs two unique-index probes in name_votes and an
-- upsert of two name_keys rows; search_names is written only when the top
-- name changes.  Runs that leave (withdrawn, upheld, deleted) take their
-- key off; names stay registered, so the order first seen is kept.

CREATE TABLE name_votes (
	id    INTEGER PRIMARY KEY,          -- order first seen: the earlier wins a tie
	kind  TEXT NOT NULL CHECK (kind IN ('model', 'hw')),
	slug  TEXT NOT NULL,                -- model_slug or hw_slug
	name  TEXT NOT NULL,                -- model_name or accelerator, as sent
	keys  INTEGER NOT NULL DEFAULT 0,   -- distinct keys with a counted run under it
	UNIQUE (kind, slug, name)
);
CREATE INDEX name_votes_top ON name_votes(kind, slug, keys DESC, id);

CREATE TABLE name_keys (
	vote  INTEGER NOT NULL,             -- name_votes.id
	key   TEXT NOT NULL,                -- runs.key_thumbprint
	runs  INTEGER NOT NULL,             -- its counted runs under that name, > 0
	PRIMARY KEY (vote, key)
) WITHOUT ROWID;

-- Backfill, before the triggers: every name in the order its first run
-- came, each key's counted runs, the counts of keys, then the shown names.
INSERT INTO name_votes(kind, slug, name)
SELECT kind, slug, name FROM (
	SELECT 'model' AS kind, model_slug AS slug, model_name AS name, min(rowid) AS first
	FROM runs GROUP BY model_slug, model_name
	UNION ALL
	SELECT 'hw', hw_slug, accelerator, min(rowid) FROM runs GROUP BY hw_slug, accelerator)
ORDER BY first, kind DESC;    -- a run's model before its hardware, as the trigger below

INSERT INTO name_keys(vote, key, runs)
SELECT v.id, r.key_thumbprint, count(*) FROM runs r
JOIN name_votes v ON v.kind = 'model' AND v.slug = r.model_slug AND v.name = r.model_name
WHERE r.status = 'ok' GROUP BY v.id, r.key_thumbprint;
INSERT INTO name_keys(vote, key, runs)
SELECT v.id, r.key_thumbprint, count(*) FROM runs r
JOIN name_votes v ON v.kind = 'hw' AND v.slug = r.hw_slug AND v.name = r.accelerator
WHERE r.status = 'ok' GROUP BY v.id, r.key_thumbprint;

UPDATE name_votes SET keys = (SELECT count(*) FROM name_keys WHERE vote = name_votes.id);

-- search_fts (0012) indexes search_names' names as external content: a
-- name that changes leaves the index and enters it again.
CREATE TRIGGER search_names_fts_rename AFTER UPDATE OF name ON search_names
BEGIN
	INSERT INTO search_fts(search_fts, rowid, squash, name) VALUES ('delete', OLD.id, OLD.squash, OLD.name);
	INSERT INTO search_fts(rowid, squash, name) VALUES (NEW.id, NEW.squash, NEW.name);
END;

UPDATE search_names SET name = (
	SELECT v.name FROM name_votes v WHERE v.kind = search_names.kind AND v.slug = search_names.slug
	ORDER BY v.keys DESC, v.id LIMIT 1)
WHERE kind IN ('model', 'hw') AND name IS NOT (
	SELECT v.name FROM name_votes v WHERE v.kind = search_names.kind AND v.slug = search_names.slug
	ORDER BY v.keys DESC, v.id LIMIT 1)
  AND EXISTS (SELECT 1 FROM name_votes v WHERE v.kind = search_names.kind AND v.slug = search_names.slug);

-- A key enters a name with its first counted run there, leaves it with
-- its last.
CREATE TRIGGER name_keys_enter AFTER INSERT ON name_keys
BEGIN
	UPDATE name_votes SET keys = keys + 1 WHERE id = NEW.vote;
END;
CREATE TRIGGER name_keys_leave AFTER DELETE ON name_keys
BEGIN
	UPDATE name_votes SET keys = keys - 1 WHERE id = OLD.vote;
END;

-- The shown name moves only when a name other than it gains a key, or it
-- loses one: then the top of its slug is read again (one seek) and
-- search_names written if it differs.
CREATE TRIGGER name_votes_shown AFTER UPDATE OF keys ON name_votes
WHEN (NEW.keys > OLD.keys) = (NEW.name IS NOT (
	SELECT name FROM search_names WHERE kind = NEW.kind AND slug = NEW.slug))
BEGIN
	UPDATE search_names SET name = (
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug
		ORDER BY keys DESC, id LIMIT 1)
	WHERE kind = NEW.kind AND slug = NEW.slug AND name IS NOT (
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug
		ORDER BY keys DESC, id LIMIT 1);
END;

-- Every run registers its names, whatever its status (the order first
-- seen), in a trigger of its own whose WHEN probe skips it for a name
-- already known (as 0012's search_names triggers do: no statement runs).
-- These fire BEFORE the insert, so the name is there for the AFTER
-- trigger (SQLite promises no order among triggers of one kind), and go
-- with the insert when it fails.  Then a run that counts adds its key.
-- (An upsert after INSERT ... SELECT needs the SELECT's WHERE.)
CREATE TRIGGER names_run_model BEFORE INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM name_votes
		 WHERE kind = 'model' AND slug = NEW.model_slug AND name = NEW.model_name)
BEGIN
	INSERT OR IGNORE INTO name_votes(kind, slug, name) VALUES ('model', NEW.model_slug, NEW.model_name);
END;
CREATE TRIGGER names_run_hw BEFORE INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM name_votes
		 WHERE kind = 'hw' AND slug = NEW.hw_slug AND name = NEW.accelerator)
BEGIN
	INSERT OR IGNORE INTO name_votes(kind, slug, name) VALUES ('hw', NEW.hw_slug, NEW.accelerator);
END;
CREATE TRIGGER names_run_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT INTO name_keys(vote, key, runs)
	SELECT id, NEW.key_thumbprint, 1 FROM name_votes
	WHERE kind = 'model' AND slug = NEW.model_slug AND name = NEW.model_name
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	INSERT INTO name_keys(vote, key, runs)
	SELECT id, NEW.key_thumbprint, 1 FROM name_votes
	WHERE kind = 'hw' AND slug = NEW.hw_slug AND name = NEW.accelerator
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;

-- A run that counted leaves (deleted, or changed: withdrawn or upheld
-- sets status) ...
CREATE TRIGGER names_run_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	UPDATE name_keys SET runs = runs - 1 WHERE key = OLD.key_thumbprint AND vote = (
		SELECT id FROM name_votes WHERE kind = 'model' AND slug = OLD.model_slug AND name = OLD.model_name);
	UPDATE name_keys SET runs = runs - 1 WHERE key = OLD.key_thumbprint AND vote = (
		SELECT id FROM name_votes WHERE kind = 'hw' AND slug = OLD.hw_slug AND name = OLD.accelerator);
	DELETE FROM name_keys WHERE runs <= 0 AND key = OLD.key_thumbprint AND vote IN (
		SELECT id FROM name_votes WHERE kind = 'model' AND slug = OLD.model_slug AND name = OLD.model_name
		UNION ALL
		SELECT id FROM name_votes WHERE kind = 'hw' AND slug = OLD.hw_slug AND name = OLD.accelerator);
END;

CREATE TRIGGER names_run_update_leave
AFTER UPDATE OF model_name, model_slug, accelerator, hw_slug, key_thumbprint, status ON runs
WHEN OLD.status = 'ok'
BEGIN
	UPDATE name_keys SET runs = runs - 1 WHERE key = OLD.key_thumbprint AND vote = (
		SELECT id FROM name_votes WHERE kind = 'model' AND slug = OLD.model_slug AND name = OLD.model_name);
	UPDATE name_keys SET runs = runs - 1 WHERE key = OLD.key_thumbprint AND vote = (
		SELECT id FROM name_votes WHERE kind = 'hw' AND slug = OLD.hw_slug AND name = OLD.accelerator);
	DELETE FROM name_keys WHERE runs <= 0 AND key = OLD.key_thumbprint AND vote IN (
		SELECT id FROM name_votes WHERE kind = 'model' AND slug = OLD.model_slug AND name = OLD.model_name
		UNION ALL
		SELECT id FROM name_votes WHERE kind = 'hw' AND slug = OLD.hw_slug AND name = OLD.accelerator);
END;

-- ... and one that counts enters (a dismissed dispute brings it back).
CREATE TRIGGER names_run_update_enter
AFTER UPDATE OF model_name, model_slug, accelerator, hw_slug, key_thumbprint, status ON runs
BEGIN
	INSERT INTO name_votes(kind, slug, name) VALUES ('model', NEW.model_slug, NEW.model_name)
	ON CONFLICT DO NOTHING;
	INSERT INTO name_votes(kind, slug, name) VALUES ('hw', NEW.hw_slug, NEW.accelerator)
	ON CONFLICT DO NOTHING;
	INSERT INTO name_keys(vote, key, runs)
	SELECT id, NEW.key_thumbprint, 1 FROM name_votes
	WHERE NEW.status = 'ok' AND kind = 'model' AND slug = NEW.model_slug AND name = NEW.model_name
	ON CONFLICT DO UPDATE SET runs = runs + 1;
	INSERT INTO name_keys(vote, key, runs)
	SELECT id, NEW.key_thumbprint, 1 FROM name_votes
	WHERE NEW.status = 'ok' AND kind = 'hw' AND slug = NEW.hw_slug AND name = NEW.accelerator
	ON CONFLICT DO UPDATE SET runs = runs + 1;
END;
