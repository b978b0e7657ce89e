"""What migration 0018's partial indexes on runs (the /outliers orders by
decode, prefill and TTFT) cost an upload: the same runs rows inserted into
two copies of one freshly migrated database, one with the indexes and one
without, batches alternating between them, every trigger of the schema
firing.  1 run in 300 is flagged, as outliers are rare.  Prints the ratio
of CPU time (the figure that counts on a shared machine) and of wall time;
never fails on speed.

    /usr/bin/python3 tests/bench/list_sort_ingest.py --bin ./llm-speedd [--runs 10000]
"""
import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
INDEXES = ("runs_outliers_decode", "runs_outliers_prefill", "runs_outliers_ttft")
SQL = ("INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, accelerator, hw_slug, "
       "hw_class, backend_name, backend_version, decode_tok_s, prefill_tok_s, ttft_ms, created_at, "
       "received_at, key_thumbprint, alg, payload, jws, jws_sha256, outlier) "
       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")


def migrated(binary, folder):
    """A database migrated by the daemon itself (its account command)."""
    path = os.path.join(folder, "base.db")
    subprocess.run([binary, "--db", path, "--assets", ROOT, "account", "add", "bench"],
                   check=True, capture_output=True, timeout=60)
    return path


def open_copy(base, path, drop):
    shutil.copy(base, path)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    for name in INDEXES if drop else ():
        con.execute("DROP INDEX " + name)
    return con


def rows(rng, start, n):
    for k in range(start, start + n):
        yield ("r_%011d" % k, "suite-v1", "M%d" % (k % 40), "m-%d" % (k % 40), "sha256:%064x" % (k % 40),
               "Acc%d" % (k % 25), "acc-%d" % (k % 25), "fp%d" % (k % 500), "mlx", "0.1",
               50 + rng.random() * 100, 100 + rng.random() * 200, 300 + rng.random() * 500,
               "2026-11-30T00:00:00Z", "2026-11-30T%02d:%02d:%02dZ" % (k // 3600 % 24, k // 60 % 60, k % 60),
               "kt%d" % k, "EdDSA", "{}", b"x", os.urandom(32), 1 if k % 300 == 0 else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "llm-speedd"))
    ap.add_argument("--runs", type=int, default=10000)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="list-sort-bench-")
    try:
        base = migrated(a.bin, folder)
        cons = {"with": open_copy(base, os.path.join(folder, "with.db"), False),
                "without": open_copy(base, os.path.join(folder, "without.db"), True)}
        cpu = {"with": 0.0, "without": 0.0}
        wall = {"with": 0.0, "without": 0.0}
        rng = random.Random(1)
        batch = 500
        for b in range(a.runs // batch):
            data = list(rows(rng, b * batch, batch))
            for name in ("with", "without") if b % 2 else ("without", "with"):
                con = cons[name]
                c0, w0 = time.process_time(), time.perf_counter()
                con.execute("BEGIN")
                for r in data:       # one savepoint per upload, as the writer does
                    con.execute("SAVEPOINT up")
                    con.execute(SQL, r)
                    con.execute("RELEASE up")
                con.execute("COMMIT")
                cpu[name] += time.process_time() - c0
                wall[name] += time.perf_counter() - w0
        n = a.runs // batch * batch
        print("%d runs each: CPU with 0018's indexes %.3f s, without %.3f s, ratio %.3f; "
              "wall %.3f s / %.3f s, ratio %.3f" % (n, cpu["with"], cpu["without"], cpu["with"] / cpu["without"],
                                                    wall["with"], wall["without"], wall["with"] / wall["without"]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
