-- 0018_list_sort.sql: ?sort= on /outliers and /disputes, each order read
-- from an index that holds exactly the list's rows in that order, so a
-- page costs one seek plus its rows, whatever its depth.
--
-- /outliers (flagged runs that count, one suite): by decode, prefill and
-- TTFT beside the newest-first runs_outliers_list of 0007.  Partial, like
-- that one: an upload that is not flagged is in none of them, so an
-- ordinary upload pays only the check of their WHERE.  An unknown figure
-- (prefill or TTFT left NULL by an old row) sorts last, as on the board
-- (0012): prefill as 0, TTFT as 1e300.  Sigma is not among the orders: it
-- is read from the cluster's figures, which move with every upload to the
-- cluster, so no index can hold it.
CREATE INDEX runs_outliers_decode ON runs(suite_version, decode_tok_s DESC, id DESC)
	WHERE outlier = 1 AND status = 'ok';
CREATE INDEX runs_outliers_prefill ON runs(suite_version, coalesce(prefill_tok_s, 0) DESC, id DESC)
	WHERE outlier = 1 AND status = 'ok';
CREATE INDEX runs_outliers_ttft ON runs(suite_version, coalesce(ttft_ms, 1e300), id)
	WHERE outlier = 1 AND status = 'ok';

-- /disputes (open threads, one suite): by the day the thread opened, by
-- its number of posts and by its run's decode rate, beside the latest
-- activity order of dispute_threads_open (0007).  Threads are written by
-- posts and rulings, never by an upload.  The run's decode rate is copied
-- onto its thread when the thread is opened (and followed should an
-- UPDATE ever name the run's decode_tok_s; no upload does), as 0007 does
-- with the suite, so the order is an index, not a join sorted per request.
ALTER TABLE dispute_threads ADD COLUMN decode_tok_s REAL;
UPDATE dispute_threads SET decode_tok_s = (
	SELECT decode_tok_s FROM runs WHERE runs.id = dispute_threads.run_id);
CREATE TRIGGER dispute_threads_decode_set AFTER INSERT ON dispute_threads
WHEN NEW.decode_tok_s IS NULL
BEGIN
	UPDATE dispute_threads SET decode_tok_s = (
		SELECT decode_tok_s FROM runs WHERE runs.id = NEW.run_id)
	WHERE run_id = NEW.run_id;
END;
CREATE TRIGGER dispute_threads_decode_follows AFTER UPDATE OF decode_tok_s ON runs
BEGIN
	UPDATE dispute_threads SET decode_tok_s = NEW.decode_tok_s WHERE run_id = NEW.id;
END;
CREATE INDEX dispute_threads_opened ON dispute_threads(suite_version, opened_at DESC, run_id DESC)
	WHERE state = 'open';
CREATE INDEX dispute_threads_posts ON dispute_threads(suite_version, posts DESC, run_id DESC)
	WHERE state = 'open';
CREATE INDEX dispute_threads_decode ON dispute_threads(suite_version, decode_tok_s DESC, run_id DESC)
	WHERE state = 'open';
