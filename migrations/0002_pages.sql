-- 0002_pages.sql: indexes for the browse pages (/, /m/<slug>, /hw/<slug>).
--
-- Every list shows one suite's status = 'ok' runs in the order
-- decode_tok_s DESC, id DESC and pages by the keyset (decode_tok_s, id).
-- These partial indexes hold exactly those runs in exactly that order, one
-- per combination of filters a page offers, so a page is one seek plus its
-- rows however many runs match.  The best-per-group aggregates (the board,
-- the model chart, the hardware page's model sections) step from group to
-- group with one seek each in the same indexes.
--
-- Each index ends with status although its value is fixed: SQLite 3.40
-- counts a partial index as covering only when it holds every column the
-- query names, and status sits after the payload and JWS blobs, so reading
-- it from the table row would walk their overflow pages.  Run pages, badges
-- and the cluster statistics keep using the indexes of 0001.

-- /: the best run of each (model, hardware, backend).
CREATE INDEX runs_ok_board ON runs(suite_version, model_slug, hw_slug, backend_name,
	decode_tok_s DESC, id DESC, status) WHERE status = 'ok';

-- /m/<slug>: one digest's runs, unfiltered, by hardware, by backend, by both.
CREATE INDEX runs_ok_model ON runs(suite_version, model_slug, model_digest,
	decode_tok_s DESC, id DESC, status) WHERE status = 'ok';
CREATE INDEX runs_ok_model_hw ON runs(suite_version, model_slug, model_digest, hw_slug,
	decode_tok_s DESC, id DESC, status) WHERE status = 'ok';
CREATE INDEX runs_ok_model_be ON runs(suite_version, model_slug, model_digest, backend_name,
	decode_tok_s DESC, id DESC, status) WHERE status = 'ok';
CREATE INDEX runs_ok_model_hw_be ON runs(suite_version, model_slug, model_digest, hw_slug,
	backend_name, decode_tok_s DESC, id DESC, status) WHERE status = 'ok';

-- /hw/<slug>: the runs on one hardware class, grouped by model.
CREATE INDEX runs_ok_hw ON runs(suite_version, hw_slug, model_slug,
	decode_tok_s DESC, id DESC, status) WHERE status = 'ok';

-- The "This board holds demo data" banner: is there any demo run at all.
CREATE INDEX runs_demo ON runs(demo) WHERE demo = 1;
