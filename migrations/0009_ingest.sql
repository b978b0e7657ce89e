-- 0009_ingest.sql: two fewer index entries per upload.
--
-- Every upload writes one entry in each index on runs, each in its own
-- B-tree leaf page, written to the WAL at the commit and again into the
-- database at the checkpoint: those pages are most of the writer's cost
-- (tests/bench/README.md, "Ingest scenarios").  The two indexes of 0001
-- on all runs by model and by hardware answered only the name lookups of
-- /m/<slug>, /hw/<slug> and the front page's hardware filter.  Those now
-- take the name of a counted run found by one seek in the summaries that
-- writes keep anyway (digest_counts_order, hw_best_order), or, for a model
-- or hardware whose every run was taken out of the rankings, of one of
-- those runs, found in the two partial indexes below.  They hold only runs
-- that do not count, so an upload (always status 'ok') writes nothing in
-- them.  Every list reads the partial runs_ok_* indexes of 0002.
CREATE INDEX runs_gone_model ON runs(suite_version, model_slug) WHERE status <> 'ok';
CREATE INDEX runs_gone_hw ON runs(suite_version, hw_slug) WHERE status <> 'ok';
DROP INDEX IF EXISTS runs_suite_model;
DROP INDEX IF EXISTS runs_suite_hw;
