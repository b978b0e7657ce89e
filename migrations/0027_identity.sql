-- 0027_identity.sql: one model, one machine, whatever they are called
-- (issue 32; contract sections 4 and 9).
--
-- Uploads name the same model and hardware many ways ("Meta-Llama-3.1-
-- 8B-Instruct", "llama3.1:8b-instruct-q4_K_M", "Meta-Llama-3.1-8B-
-- Instruct-Q4_K_M.gguf"; "AMD Ryzen AI Max+ 395 w/ Radeon 8060S").  The
-- writer resolves each upload against the reference data
-- (server/domain/resolve.c) and keeps, in the run's row:
--   model_slug, hw_slug   the page slugs: the reference ids where the
--                         names resolve, else the contract's slugs of the
--                         uploaded names (the hardware's without notes);
--   model_name, accelerator  the names pages show: the reference's
--                         display name, else the uploaded name without
--                         its organisation and quantization (a model) or
--                         its notes (hardware);
--   model_quant           the canonical quantization (Q4_K_M, AWQ-4bit),
--                         else the label as sent;
--   model_format          the weights family, the payload's or the one
--                         its name tells;
--   hw_bin                the hardware's bin (1 + its index in
--                         hardware.json), NULL when none or unknown;
--   hw_class              the fingerprint together with the page's
--                         hardware slug (section 4).
-- The exact uploaded strings stay in the signed payload (the JWS), which
-- the run's own page and JSON show.  When the reference data changes, the
-- server resolves every run again at start-up (store/identity.c), moving
-- each changed run out of every figure and back in under its new names.

ALTER TABLE runs ADD COLUMN hw_bin INTEGER;

-- An uploaded name's own slug that is not its page's, and the page it
-- redirects to (/m/meta-llama-3-1-8b-instruct -> /m/llama-3-1-8b).
CREATE TABLE slug_aliases (
	kind   TEXT NOT NULL CHECK (kind IN ('model', 'hw')),
	slug   TEXT NOT NULL,
	target TEXT NOT NULL,
	PRIMARY KEY (kind, slug)
) WITHOUT ROWID;

-- The reference data the runs were last resolved against: '' resolves
-- every run at the next start.
INSERT OR REPLACE INTO stats_state VALUES ('identity', '');
