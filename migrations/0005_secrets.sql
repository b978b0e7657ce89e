-- 0005_secrets.sql: server secrets that must outlive a restart, such as the
-- key of the dispute form's token (pages cached by browsers and proxies
-- carry tokens made with it).
CREATE TABLE secrets (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
) WITHOUT ROWID;
