-- 0031_names_shown.sql: names no swarm of keys sets, and names that read
-- as another page's (issue 37, H5 and H6).
--
-- H5.  4 keys against 3 showed a model page as "FAKE WEIGHTS - download at
-- evil.example/...": the name most keys used (0021) is shown whatever it
-- says.  A name may now be shown only when it looks like a model's or a
-- machine's (domain/shown.h: no URL, no domain, no address):
-- name_votes.plain is 1 when it may, 0 when it may never, NULL until the
-- writer judged it (store/names.c: an upload's names are judged before its
-- run is stored; names that came another way, such as a run moved by the
-- identity pass or a row written with sqlite3, at the next start).  NULL
-- counts as may.  The shown name is the top of name_votes among those that
-- may be shown (most keys, ties to the earliest), else the slug itself.
--
-- H6.  name_skeletons holds the keys every page's names are compared by
-- (util/confusable.h, confusable_keys: ICU's UTS #39 skeletons, case
-- aside, through the slug rules), for each name a page was uploaded under
-- and each name and alias of the reference data: an upload whose name has
-- a key of another page that exists is refused (422 confusable_name),
-- unless it spells one of that page's names as it is (the same own slug:
-- then nothing in it looks like anything else, and it landed elsewhere
-- by the resolver's choice, as llama-bench's "gemma3 27B" does).
-- The writer fills it as names arrive, and makes it again at a start when
-- ICU, the reference data or the rules changed (stats_state 'names').

ALTER TABLE name_votes ADD COLUMN plain INTEGER;
CREATE INDEX name_votes_unjudged ON name_votes(id) WHERE plain IS NULL;

CREATE TABLE name_skeletons (
	kind  TEXT NOT NULL CHECK (kind IN ('model', 'hw')),
	key   TEXT NOT NULL,                -- a key of a name of the page
	slug  TEXT NOT NULL,                -- the page
	plain TEXT NOT NULL,                -- that name's own slug, without the keys' folding
	PRIMARY KEY (kind, key, slug, plain)
) WITHOUT ROWID;

INSERT OR REPLACE INTO stats_state VALUES ('names', '');

-- The shown name of (kind, slug), written out in each trigger below:
--   coalesce((SELECT name FROM name_votes WHERE kind = K AND slug = S
--             AND plain IS NOT 0 ORDER BY keys DESC, id LIMIT 1), S)
-- one walk of name_votes_top from the slug's top, past the names that
-- may not be shown.

DROP TRIGGER name_votes_shown;
CREATE TRIGGER name_votes_shown AFTER UPDATE OF keys ON name_votes
WHEN (NEW.keys > OLD.keys) = (NEW.name IS NOT (
	SELECT name FROM search_names WHERE kind = NEW.kind AND slug = NEW.slug)) OR NEW.plain IS 0
BEGIN
	UPDATE search_names SET name = coalesce((
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.slug)
	WHERE kind = NEW.kind AND slug = NEW.slug AND name IS NOT coalesce((
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.slug);
END;

-- A name judged (or judged again) may change what its slug shows.
CREATE TRIGGER name_votes_plain AFTER UPDATE OF plain ON name_votes
BEGIN
	UPDATE search_names SET name = coalesce((
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.slug)
	WHERE kind = NEW.kind AND slug = NEW.slug AND name IS NOT coalesce((
		SELECT name FROM name_votes WHERE kind = NEW.kind AND slug = NEW.slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.slug);
END;

-- A slug's first run enters search with its shown name, not its own (the
-- run's name may be one that is never shown; SQLite fires these and the
-- key-counting triggers in no promised order, so each computes it).
DROP TRIGGER search_names_model;
CREATE TRIGGER search_names_model AFTER INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM search_names WHERE kind = 'model' AND slug = NEW.model_slug)
BEGIN
	INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
	VALUES ('model', NEW.model_slug, coalesce((
		SELECT name FROM name_votes WHERE kind = 'model' AND slug = NEW.model_slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.model_slug), replace(NEW.model_slug, '-', ''));
END;
DROP TRIGGER search_names_hw;
CREATE TRIGGER search_names_hw AFTER INSERT ON runs
WHEN NOT EXISTS (SELECT 1 FROM search_names WHERE kind = 'hw' AND slug = NEW.hw_slug)
BEGIN
	INSERT OR IGNORE INTO search_names(kind, slug, name, squash)
	VALUES ('hw', NEW.hw_slug, coalesce((
		SELECT name FROM name_votes WHERE kind = 'hw' AND slug = NEW.hw_slug AND plain IS NOT 0
		ORDER BY keys DESC, id LIMIT 1), NEW.hw_slug), replace(NEW.hw_slug, '-', ''));
END;
