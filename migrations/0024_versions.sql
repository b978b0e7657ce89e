-- 0024_versions.sql: typical figures per backend version, the speed
-- changes between consecutive versions, and the measurements visitors
-- asked for (issue 26; contract section 8).
--
-- Per version (server/store/versions.c).  combo_versions holds, per
-- combination (suite, model slug, model digest, hardware slug, backend)
-- and backend version (as domain/version.c orders it: version_key, so
-- "b6200" and "b6200-abc1234" are one version), the typical figures over
-- signing keys of its counted, unflagged runs: each key's exact median
-- decode, and over those the median and quartiles, the keys and the runs,
-- with the key values themselves (key_values, sorted, a JSON array) for the
-- rank test between versions.  Triggers below put each (combination, raw
-- version) that a write touches into version_dirty, one row however many
-- runs; the refresh thread (store/refresh.c) recomputes only those
-- versions from runs_version_key, then tests the combination's
-- consecutive versions (domain/changes.c) and keeps the ones that changed
-- in changes.  No request reads runs for any of it.

CREATE TABLE version_dirty (
	seq             INTEGER PRIMARY KEY,
	suite_version   TEXT NOT NULL,
	model_slug      TEXT NOT NULL,
	model_digest    TEXT NOT NULL,
	hw_slug         TEXT NOT NULL,
	backend_name    TEXT NOT NULL,
	backend_version TEXT NOT NULL,
	UNIQUE (suite_version, model_slug, model_digest, hw_slug, backend_name, backend_version)
);

-- A version's counted, unflagged runs by key and decode: one version's
-- key medians are one range of it.
CREATE INDEX runs_version_key ON runs(suite_version, model_slug, model_digest, hw_slug,
	backend_name, backend_version, key_thumbprint, decode_tok_s)
	WHERE status = 'ok' AND outlier = 0;

-- The raw version strings of a combination and the version each is.
CREATE TABLE version_raw (
	suite_version   TEXT NOT NULL,
	model_slug      TEXT NOT NULL,
	model_digest    TEXT NOT NULL,
	hw_slug         TEXT NOT NULL,
	backend_name    TEXT NOT NULL,
	backend_version TEXT NOT NULL,
	version_key     TEXT NOT NULL,
	PRIMARY KEY (suite_version, model_slug, model_digest, hw_slug, backend_name, backend_version)
) WITHOUT ROWID;
CREATE INDEX version_raw_key ON version_raw(suite_version, model_slug, model_digest, hw_slug,
	backend_name, version_key);

CREATE TABLE combo_versions (
	vid           INTEGER PRIMARY KEY,
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	version_key   TEXT NOT NULL,       -- domain/version.h: ORDER BY it is version order
	version       TEXT NOT NULL,       -- as pages show it (version_canon)
	runs          INTEGER NOT NULL,
	keys          INTEGER NOT NULL,
	med           REAL NOT NULL,
	p25           REAL NOT NULL,
	p75           REAL NOT NULL,
	key_values    TEXT NOT NULL,       -- JSON array of each key's median, ascending
	updated_at    INTEGER NOT NULL,
	UNIQUE (suite_version, model_slug, model_digest, hw_slug, backend_name, version_key)
);

-- A change: two consecutive testable versions of one combination whose
-- key values differ by the rank test (domain/changes.h).  found_at is when
-- the pair first qualified (a later upload updates the figures, not the
-- date); a pair that stops qualifying goes.
CREATE TABLE changes (
	id            INTEGER PRIMARY KEY,
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	model_digest  TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	backend_name  TEXT NOT NULL,
	quant         TEXT,                -- the weights' quantization, as a run names it
	from_key      TEXT NOT NULL,
	to_key        TEXT NOT NULL,
	from_version  TEXT NOT NULL,
	to_version    TEXT NOT NULL,
	from_median   REAL NOT NULL,
	to_median     REAL NOT NULL,
	from_keys     INTEGER NOT NULL,
	to_keys       INTEGER NOT NULL,
	change_pct    REAL NOT NULL,
	u             REAL NOT NULL,
	p             REAL NOT NULL,
	exact         INTEGER NOT NULL,
	live          INTEGER NOT NULL DEFAULT 1,
	found_at      INTEGER NOT NULL,
	UNIQUE (suite_version, model_slug, model_digest, hw_slug, backend_name, from_key, to_key)
);
CREATE INDEX changes_new ON changes(suite_version, found_at DESC, id DESC);
CREATE INDEX changes_backend ON changes(suite_version, backend_name, found_at DESC, id DESC);
CREATE INDEX changes_hw ON changes(suite_version, hw_slug, found_at DESC, id DESC);

-- Measurements people asked for (store/wanted.c): a model on a hardware
-- with no runs that a visit or search ended on, counted at most once per
-- address and day in memory (no address is stored) and flushed here.
CREATE TABLE wanted (
	suite_version TEXT NOT NULL,
	model_slug    TEXT NOT NULL,
	hw_slug       TEXT NOT NULL,
	asks          INTEGER NOT NULL,
	last_at       INTEGER NOT NULL,
	PRIMARY KEY (suite_version, model_slug, hw_slug)
) WITHOUT ROWID;
CREATE INDEX wanted_asks ON wanted(suite_version, asks DESC, last_at DESC, model_slug, hw_slug);

-- What a write touches.  A run counts for the per-version figures while
-- status = 'ok' and outlier = 0.
CREATE TRIGGER version_dirty_insert AFTER INSERT ON runs WHEN NEW.status = 'ok'
BEGIN
	INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug,
		backend_name, backend_version)
	VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, NEW.hw_slug,
		NEW.backend_name, NEW.backend_version);
END;
CREATE TRIGGER version_dirty_update
AFTER UPDATE OF suite_version, model_slug, model_digest, hw_slug, backend_name, backend_version,
	key_thumbprint, decode_tok_s, status, outlier ON runs
WHEN OLD.status = 'ok' OR NEW.status = 'ok'
BEGIN
	INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug,
		backend_name, backend_version)
	VALUES (OLD.suite_version, OLD.model_slug, OLD.model_digest, OLD.hw_slug,
		OLD.backend_name, OLD.backend_version);
	INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug,
		backend_name, backend_version)
	VALUES (NEW.suite_version, NEW.model_slug, NEW.model_digest, NEW.hw_slug,
		NEW.backend_name, NEW.backend_version);
END;
CREATE TRIGGER version_dirty_delete AFTER DELETE ON runs WHEN OLD.status = 'ok'
BEGIN
	INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug,
		backend_name, backend_version)
	VALUES (OLD.suite_version, OLD.model_slug, OLD.model_digest, OLD.hw_slug,
		OLD.backend_name, OLD.backend_version);
END;

-- Existing databases: every version with a counted run, to be filled by
-- the refresh thread after start-up (a few versions per pass).
INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug,
	backend_name, backend_version)
SELECT DISTINCT suite_version, model_slug, model_digest, hw_slug, backend_name, backend_version
FROM runs WHERE status = 'ok';
