-- 0023_row_counts.sql: how many runs, signing keys and clusters are
-- stored, kept current on write so that /metrics reads three rows rather
-- than counting a million (count(*) over runs, or over the 755,000
-- clusters of the 1,000,000-run benchmark database, reads a whole index
-- or table on every scrape).
--
-- The triggers fire only when a row is inserted or deleted: an upsert
-- that updates (a key's second run, an upload to a cluster that exists)
-- costs nothing here, so an ordinary upload pays one update of the
-- 'runs' row.
CREATE TABLE row_counts (
	name TEXT PRIMARY KEY,
	n    INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO row_counts VALUES
	('runs', (SELECT count(*) FROM runs)),
	('signing_keys', (SELECT count(*) FROM signing_keys)),
	('clusters', (SELECT count(*) FROM clusters));

CREATE TRIGGER row_counts_runs_in AFTER INSERT ON runs
BEGIN
	UPDATE row_counts SET n = n + 1 WHERE name = 'runs';
END;
CREATE TRIGGER row_counts_runs_out AFTER DELETE ON runs
BEGIN
	UPDATE row_counts SET n = n - 1 WHERE name = 'runs';
END;
CREATE TRIGGER row_counts_keys_in AFTER INSERT ON signing_keys
BEGIN
	UPDATE row_counts SET n = n + 1 WHERE name = 'signing_keys';
END;
CREATE TRIGGER row_counts_keys_out AFTER DELETE ON signing_keys
BEGIN
	UPDATE row_counts SET n = n - 1 WHERE name = 'signing_keys';
END;
CREATE TRIGGER row_counts_clusters_in AFTER INSERT ON clusters
BEGIN
	UPDATE row_counts SET n = n + 1 WHERE name = 'clusters';
END;
CREATE TRIGGER row_counts_clusters_out AFTER DELETE ON clusters
BEGIN
	UPDATE row_counts SET n = n - 1 WHERE name = 'clusters';
END;
