-- 0029_version_networks.sql: the networks behind each backend version
-- (issue 37; contract section 4).
--
-- /changes needs its keys a side from CHANGES_MIN_NETS networks, and a
-- version slipped in between two others after the newer one needs twice
-- (domain/changes.h): each version's networks and first run, computed
-- anew for every version by the refresh thread after this migration.
ALTER TABLE combo_versions ADD COLUMN nets INTEGER NOT NULL DEFAULT 0;
ALTER TABLE combo_versions ADD COLUMN first_seen INTEGER NOT NULL DEFAULT 0;
INSERT OR IGNORE INTO version_dirty(suite_version, model_slug, model_digest, hw_slug, backend_name,
	backend_version)
SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, backend_version FROM version_raw;
