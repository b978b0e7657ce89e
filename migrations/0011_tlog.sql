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

-- What the database held before the log existed, in the order it arrived,
-- waiting to be appended (tlog_store_backfill() drains it at start, before
-- anything new is written): runs with the SHA-256 of their exact JWS bytes,
-- dispute posts and rulings with the SHA-256 of their canonical records
-- (schema/TLOG.md; a signed post's JWS was not kept, so older signed posts
-- are logged by their record too).  sha256() is the daemon's SQL function.
CREATE TABLE tlog_backlog (
	seq    INTEGER PRIMARY KEY,
	kind   TEXT NOT NULL CHECK (kind IN ('run', 'post', 'ruling')),
	ref    TEXT NOT NULL,
	sha    BLOB NOT NULL,
	run_id TEXT                  -- a run: the row that gets its log_index
);
INSERT INTO tlog_backlog(kind, ref, sha, run_id)
SELECT kind, ref, sha, run_id FROM (
	SELECT 'run' AS kind, id AS ref, sha256(coalesce(jws, x'')) AS sha, id AS run_id,
	       received_at AS t, 0 AS o, rowid AS k
	FROM runs
	UNION ALL
	SELECT 'post', run_id || '/' || id,
	       sha256(CAST('llm-speed-post-v1' || char(10)
		|| length(CAST(run_id AS BLOB)) || ':' || run_id || ','
		|| length(CAST(CAST(id AS TEXT) AS BLOB)) || ':' || id || ','
		|| length(CAST(coalesce(author, '') AS BLOB)) || ':' || coalesce(author, '') || ','
		|| length(CAST(body AS BLOB)) || ':' || body || ','
		|| length(CAST(created_at AS BLOB)) || ':' || created_at || ',' AS BLOB)),
	       NULL, created_at, 1, id
	FROM dispute_posts
	UNION ALL
	SELECT 'ruling', run_id,
	       sha256(CAST('llm-speed-ruling-v1' || char(10)
		|| length(CAST(run_id AS BLOB)) || ':' || run_id || ','
		|| length(CAST(state AS BLOB)) || ':' || state || ','
		|| length(CAST(coalesce(note, '') AS BLOB)) || ':' || coalesce(note, '') || ','
		|| length(CAST(resolved_at AS BLOB)) || ':' || resolved_at || ',' AS BLOB)),
	       NULL, resolved_at, 2, 0
	FROM dispute_threads WHERE state <> 'open' AND resolved_at IS NOT NULL
) ORDER BY t, o, k;
