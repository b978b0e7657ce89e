-- 0035_hw_backends.sql: each hardware's backends with their counted runs,
-- kept as combinations change, for the copy-paste command of /wanted and
-- of the unmeasured pages (pages/page_wanted.c).
--
-- The command names the backends that ran on the hardware, most runs
-- first.  Summed from combos on each page, it read every combination of
-- the hardware: 10,004 rows for the busiest of a million-run fill, and
-- 232,594 for one build of /wanted's 148 rows.  Here it is at most one
-- row per backend.  combos rows are written by the store (outlier.c and
-- identity.c), never by a trigger on runs, so the triggers sit on combos:
-- a row in adds its runs and one combination, a row out takes them away,
-- and a (suite, hardware, backend) with no combination left goes.

CREATE TABLE hw_backends (
	suite_version TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	runs          INTEGER NOT NULL,     -- sum(combos.runs)
	combos        INTEGER NOT NULL,     -- combinations, > 0
	PRIMARY KEY (suite_version, hw_slug, backend_name)
) WITHOUT ROWID;

INSERT INTO hw_backends
SELECT suite_version, hw_slug, backend_name, sum(runs), count(*) FROM combos
GROUP BY suite_version, hw_slug, backend_name;

CREATE TRIGGER hw_backends_in AFTER INSERT ON combos
BEGIN
	INSERT INTO hw_backends VALUES (NEW.suite_version, NEW.hw_slug, NEW.backend_name, NEW.runs, 1)
	ON CONFLICT DO UPDATE SET runs = runs + excluded.runs, combos = combos + 1;
END;

CREATE TRIGGER hw_backends_out AFTER DELETE ON combos
BEGIN
	UPDATE hw_backends SET runs = runs - OLD.runs, combos = combos - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name;
	DELETE FROM hw_backends
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND combos <= 0;
END;

-- The common write (a combination's figures stored again) changes runs
-- alone: one keyed update.
CREATE TRIGGER hw_backends_runs AFTER UPDATE OF runs ON combos
WHEN NEW.runs <> OLD.runs AND NEW.suite_version = OLD.suite_version
 AND NEW.hw_slug = OLD.hw_slug AND NEW.backend_name = OLD.backend_name
BEGIN
	UPDATE hw_backends SET runs = runs + NEW.runs - OLD.runs
	WHERE suite_version = NEW.suite_version AND hw_slug = NEW.hw_slug
	  AND backend_name = NEW.backend_name;
END;

-- A combination renamed (the identity pass): out of the old, into the new.
CREATE TRIGGER hw_backends_move AFTER UPDATE OF suite_version, hw_slug, backend_name ON combos
WHEN NEW.suite_version <> OLD.suite_version OR NEW.hw_slug <> OLD.hw_slug
  OR NEW.backend_name <> OLD.backend_name
BEGIN
	UPDATE hw_backends SET runs = runs - OLD.runs, combos = combos - 1
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name;
	DELETE FROM hw_backends
	WHERE suite_version = OLD.suite_version AND hw_slug = OLD.hw_slug
	  AND backend_name = OLD.backend_name AND combos <= 0;
	INSERT INTO hw_backends VALUES (NEW.suite_version, NEW.hw_slug, NEW.backend_name, NEW.runs, 1)
	ON CONFLICT DO UPDATE SET runs = runs + excluded.runs, combos = combos + 1;
END;
