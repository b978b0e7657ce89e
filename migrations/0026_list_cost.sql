-- 0026_list_cost.sql: what the lists of issue 22 cost at 1,000,000 runs
-- (tests/bench/README.md, "Issue 22's cost").
--
-- The board filtered by backend in the best-run order (/?backend=mlx&sort=best)
-- read the suite's combos_best and skipped every other backend's rows, each
-- a read of the row: a rare backend's page cost a walk over the others'.
-- One backend's combinations by best run, as combos_med_be (0020) serves
-- them by median.  An upload moves its entry only when its combination's
-- best run changes (store/outlier_pop.c sets best_decode only then).
CREATE INDEX combos_best_be ON combos(suite_version, backend_name, best_decode DESC, key_id DESC);
