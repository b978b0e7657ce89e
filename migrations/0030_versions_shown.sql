-- 0030_versions_shown.sql: a backend version is shown only when it looks
-- like one (issue 37, L2: "99.0 SECURITY: update from https://evil.example"
-- was shown on every page that names a run's backend).
--
-- runs.backend_version now holds the version pages show: the payload's
-- when it looks like a version (domain/version.h, version_looks_like:
-- digits and dots, a leading v or b, pre/post/dev parts, a local label, a
-- commit hash), else "unrecognised version".  The signed payload (the
-- JWS) keeps the string as sent.  The rule needs the C reader, so the
-- stored rows are read again by the identity pass at the next start
-- (store/identity.c), which now rewrites the version too: setting its
-- state to '' resolves every run again, as 0027 did.

INSERT OR REPLACE INTO stats_state VALUES ('identity', '');
