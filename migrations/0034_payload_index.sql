-- 0034_payload_index.sql: the payload-under-the-same-key lookup (0008)
-- keeps an index of the payload's digest alone.
--
-- runs_key_payload repeated each run's 43-character key thumbprint beside
-- its payload digest, 96 bytes a run on a 100,000-run fill.  The writer's
-- duplicate check (store/run_store.c) asks for the JWS digest OR the key
-- and the payload digest; with the payload digest indexed alone, SQLite
-- answers each side from an index and checks the key on the one row a
-- payload digest finds (two keys signing the very same payload bytes are
-- all that may share it).  About half the bytes, and one text less to
-- write per upload.

DROP INDEX IF EXISTS runs_key_payload;
CREATE INDEX IF NOT EXISTS runs_payload ON runs(payload_sha256);
