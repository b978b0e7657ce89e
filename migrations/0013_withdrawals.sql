-- 0013_withdrawals.sql: a submitter withdraws their own run.
--
-- The holder of a run's signing key may take the run back with a signed
-- request (POST /api/v1/runs/<id>/withdraw).  The withdrawal is kept here,
-- beside the run, with the exact signed bytes that asked for it, so anyone
-- can re-verify it against the run's key.  runs itself is not widened: its
-- status CHECK stays ('ok', 'upheld'), since changing it rebuilds the table.
--
-- A withdrawn run leaves every ranking by the path an upheld ruling takes:
-- the writer sets runs.status from 'ok' to 'upheld' in the same transaction
-- as the insert here, so the triggers of 0004 (digest_counts) and 0007
-- (board_best, hw_best) take it out of the summaries, every list's
-- "status = 'ok'" leaves it out, and the writer takes it out of its cluster
-- (outlier_run_status_changed).  The pages tell the two apart by this
-- table: a run with a row here shows "withdrawn", not "upheld".

CREATE TABLE run_withdrawals (
	run_id       TEXT PRIMARY KEY REFERENCES runs(id),
	withdrawn_at TEXT NOT NULL,             -- server clock, RFC 3339
	reason       TEXT NOT NULL,             -- as signed, cleaned for display
	jws          BLOB NOT NULL,             -- the exact signed request
	jws_sha256   BLOB NOT NULL UNIQUE       -- a replay of the same bytes is refused
);

-- Once withdrawn, a run never counts again: a later ruling that would set
-- its status back to 'ok' (a moderator dismissing its dispute) leaves the
-- row as it is.  Costs one primary-key seek, and only on such an update.
CREATE TRIGGER run_withdrawals_stay_out BEFORE UPDATE OF status ON runs
WHEN NEW.status = 'ok' AND EXISTS (SELECT 1 FROM run_withdrawals WHERE run_id = NEW.id)
BEGIN
	SELECT RAISE(IGNORE);
END;

-- Atom feeds (page_feed.c) and account pages (page_account.c) read the
-- newest runs that count, or an account's, from these indexes in feed
-- order: a feed costs its 50 rows whatever the number of runs.  Partial,
-- so a run that leaves the rankings (withdrawn, upheld) leaves them too,
-- and anonymous runs are in neither account index.
CREATE INDEX runs_recent ON runs(received_at DESC, id DESC) WHERE status = 'ok';
CREATE INDEX runs_model_recent ON runs(model_slug, received_at DESC, id DESC) WHERE status = 'ok';
CREATE INDEX runs_hw_recent ON runs(hw_slug, received_at DESC, id DESC) WHERE status = 'ok';
CREATE INDEX runs_account_recent ON runs(account_id, received_at DESC, id DESC)
	WHERE account_id IS NOT NULL AND status = 'ok';
CREATE INDEX runs_account_board ON runs(account_id, suite_version, decode_tok_s DESC, id DESC)
	WHERE account_id IS NOT NULL AND status = 'ok';
-- /disputes.atom: open threads of every suite, latest post first.
CREATE INDEX dispute_threads_recent ON dispute_threads(last_post_id DESC, run_id DESC)
	WHERE state = 'open';
