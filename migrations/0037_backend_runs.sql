-- 0037_backend_runs.sql: each backend's counted runs in a suite, kept as
-- clusters change, for the backend results of /search (pages/page_search.c).
--
-- The count was total(n) over the suite's clusters with a filter on the
-- backend: clusters' key starts with the model digest, so that read every
-- cluster of the suite, 161,432 rows at 200,000 runs (36-56 ms a search
-- that names a backend, against 1-2 ms for a model).  Here it is one row
-- a backend.  clusters.n is the cluster's runs with status 'ok'; the store
-- writes clusters by upsert (an UPDATE when the row is there) and delete,
-- so the triggers sit on clusters.

CREATE TABLE backend_runs (
	suite_version TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	runs          INTEGER NOT NULL,     -- sum(clusters.n)
	PRIMARY KEY (suite_version, backend_name)
) WITHOUT ROWID;

INSERT INTO backend_runs
SELECT suite_version, backend_name, sum(n) FROM clusters GROUP BY suite_version, backend_name;

CREATE TRIGGER backend_runs_in AFTER INSERT ON clusters
BEGIN
	INSERT INTO backend_runs VALUES (NEW.suite_version, NEW.backend_name, NEW.n)
	ON CONFLICT DO UPDATE SET runs = runs + excluded.runs;
END;

CREATE TRIGGER backend_runs_out AFTER DELETE ON clusters
BEGIN
	UPDATE backend_runs SET runs = runs - OLD.n
	WHERE suite_version = OLD.suite_version AND backend_name = OLD.backend_name;
END;

-- The common write (a cluster's figures stored again) changes n alone:
-- one keyed update.
CREATE TRIGGER backend_runs_n AFTER UPDATE OF n ON clusters
WHEN NEW.n <> OLD.n AND NEW.suite_version = OLD.suite_version
 AND NEW.backend_name = OLD.backend_name
BEGIN
	UPDATE backend_runs SET runs = runs + NEW.n - OLD.n
	WHERE suite_version = NEW.suite_version AND backend_name = NEW.backend_name;
END;

-- A cluster moved to another suite or backend: out of the old, into the new.
CREATE TRIGGER backend_runs_move AFTER UPDATE OF suite_version, backend_name ON clusters
WHEN NEW.suite_version <> OLD.suite_version OR NEW.backend_name <> OLD.backend_name
BEGIN
	UPDATE backend_runs SET runs = runs - OLD.n
	WHERE suite_version = OLD.suite_version AND backend_name = OLD.backend_name;
	INSERT INTO backend_runs VALUES (NEW.suite_version, NEW.backend_name, NEW.n)
	ON CONFLICT DO UPDATE SET runs = runs + excluded.runs;
END;
