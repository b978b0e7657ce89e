-- 0014_model_sort.sql: /m/<slug>?sort=prefill|ttft|date lists the
-- model's best run per hardware and backend (board_sort, 0012) in that
-- order.  One index per sort on the summary table, which changes only when
-- a group's best run does (never on an ordinary upload); a hardware or
-- backend filter reads the model's own rows of it in order, never runs.
CREATE INDEX board_sort_model_prefill ON board_sort(suite_version, model_slug, sort_prefill DESC, best_id DESC);
CREATE INDEX board_sort_model_ttft ON board_sort(suite_version, model_slug, sort_ttft, best_id);
CREATE INDEX board_sort_model_date ON board_sort(suite_version, model_slug, sort_date DESC, best_id DESC);
