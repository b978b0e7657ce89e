-- 0003_disputes.sql: the public dispute thread of every run (contract section 5).

-- One row per run whose thread has a post or a moderator's ruling; a run
-- without a row has an empty open thread.
CREATE TABLE dispute_threads (
	run_id       TEXT PRIMARY KEY REFERENCES runs(id),
	state        TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'upheld', 'dismissed')),
	note         TEXT,                 -- the moderator's note with the ruling
	opened_at    TEXT NOT NULL,        -- server clock, RFC 3339
	resolved_at  TEXT,                 -- the latest ruling; NULL while open
	last_post_at TEXT NOT NULL,        -- the latest post (opened_at before any)
	last_post_id INTEGER NOT NULL DEFAULT 0,  -- dispute_posts.id of the latest post: a strict order
	posts        INTEGER NOT NULL DEFAULT 0   -- number of posts
) WITHOUT ROWID;

-- /disputes: open threads, most recent activity first.
CREATE INDEX dispute_threads_state ON dispute_threads(state, last_post_id DESC);

CREATE TABLE dispute_posts (
	id           INTEGER PRIMARY KEY,
	run_id       TEXT NOT NULL REFERENCES runs(id),
	author       TEXT,                 -- NULL: shown as anonymous
	body         TEXT NOT NULL,        -- plain text, 1..4000 characters, LF line breaks
	by_submitter INTEGER NOT NULL DEFAULT 0,  -- 1: signed by the run's own key
	created_at   TEXT NOT NULL         -- server clock, RFC 3339
);

CREATE INDEX dispute_posts_run ON dispute_posts(run_id, id);
