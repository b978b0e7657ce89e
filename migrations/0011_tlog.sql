-- 0011_tlog.sql: the public transparency log (schema/TLOG.md).
--
-- tlog_entries holds each entry's exact bytes (a line naming a run, post,
-- ruling or withdrawal and the SHA-256 of its signed bytes or canonical
-- record; never the content itself).  tlog_hashes holds every complete
-- subtree hash, keyed by level * 2^56 + index, so an entry costs O(log n)
-- rows on write (two on average) and a tile is one range read.
CREATE TABLE tlog_entries (
	idx  INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);
CREATE TABLE tlog_hashes (
	id   INTEGER PRIMARY KEY,
	hash BLOB NOT NULL
);
-- The run's leaf index, for its inclusion proof on /r/<id>.json.
ALTER TABLE runs ADD COLUMN log_index INTEGER;
