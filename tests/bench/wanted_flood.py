#!/usr/bin/env python3
"""wanted_flood.py: /wanted with 100 rows hammered by 8 connections, and
what kept `/` and uploads keep meanwhile (issue 37, C3).

A benchmark, not a test: it prints figures and exits non-zero only when
something is broken (the daemon did not start, an upload was refused).

  /usr/bin/python3 tests/bench/wanted_flood.py --bin ./llm-speedd [--runs 2000] [--seconds 5] [--db PATH]

The daemon is filled with --runs synthetic runs (bench.py's), then /wanted
is given 100 rows by visits to 100 unmeasured model-on-hardware pages of
the reference data.  Quiet: `wrk -c8 /` for --seconds, and 50 uploads one
after another (10 a second, one key) from 127.0.0.2.  Flood: the same while
`wrk -c8 /wanted` runs beside them.  wrk cannot choose its source address,
so the flood and `/` both come from 127.0.0.1; the uploads come from
another address.  Reports requests/s and p99 of `/` and the uploads' p50
and p99, quiet and flooded, and the flood's own rate.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "http"))
import bench  # noqa: E402
from bench import Children, Daemon, Failure, fill, wrk  # noqa: E402
from conftest import client_from, make_payload, new_key, sign  # noqa: E402


def wanted_rows(port, n=100):
    """Visits n unmeasured model-on-hardware pages of the reference data."""
    with open(os.path.join(ROOT, "static", "reference", "models.json")) as f:
        models = list(json.load(f)["models"])
    hws = ["rtx-4090", "rtx-3090", "m3-ultra", "m4-max", "radeon-rx-7900-xtx"]
    s = client_from("127.0.0.4")
    done = 0
    for m in models:
        for h in hws:
            if done == n:
                return
            if s.get("http://127.0.0.1:%d/m/%s/hw/%s.json" % (port, m, h), timeout=30).status_code == 200:
                done += 1


def uploads(port, n=50, pace=0.1):
    """n uploads from 127.0.0.2 with one key, pace seconds apart; their
    latencies in ms."""
    s, key, out = client_from("127.0.0.2"), new_key(), []
    for i in range(n):
        p = make_payload()
        p["workloads"]["chat-short"]["decode_tok_s"] = 100.0 + i * 0.01
        body = sign(p, key)[0].encode()
        t0 = time.perf_counter()
        r = s.post("http://127.0.0.1:%d/api/v1/runs" % port, data=body,
                   headers={"Content-Type": "application/jose"}, timeout=30)
        out.append((time.perf_counter() - t0) * 1000)
        if r.status_code != 201:
            raise Failure("upload: %d %s" % (r.status_code, r.text[:200]))
        time.sleep(pace)
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def phase(port, seconds, flood):
    """`/` by wrk and the uploads, with wrk on /wanted beside them when flood."""
    bg, result = None, {}
    if flood:
        bg = threading.Thread(target=lambda: result.update(flood=wrk(port, "/wanted", seconds + 2, 8)))
        bg.start()
        time.sleep(0.5)
    up = []
    t = threading.Thread(target=lambda: up.extend(uploads(port)))
    t.start()
    home = wrk(port, "/", seconds, 8)
    t.join()
    if bg:
        bg.join()
    return home, up, result.get("flood")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--assets", default=ROOT, help="templates/, static/, migrations/ of that binary")
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--db", help="a copy of this database instead of --runs synthetic runs "
                    "(a fill's, say the 200,000 runs of tests/bench/fill.c)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="llms-wflood-")
    children = Children()
    bench.ROOT = os.path.abspath(a.assets)
    try:
        if a.db:
            shutil.copy(a.db, os.path.join(tmp, "bench.db"))
        d = Daemon(children, os.path.abspath(a.bin), tmp, 2, ["--keys-per-network", "0"])
        if not a.db:
            fill(d.port, a.runs)
        wanted_rows(d.port)
        time.sleep(2.5)                                  # the asks are flushed each second
        rows = len(json.loads(bench.fetch(d.port, "/wanted.json")[2])["rows"])
        quiet, quiet_up, _ = phase(d.port, a.seconds, False)
        loud, loud_up, fl = phase(d.port, a.seconds, True)
        print("binary %s, %s, /wanted rows %d" % (a.bin, a.db or "%d runs" % a.runs, rows))
        print("flood on /wanted: %.0f req/s, p99 %.1f ms %s" % (fl["rps"], fl["p99"], " ".join(fl["errors"])))
        print("kept /: quiet %.0f req/s (p99 %.1f ms), flooded %.0f req/s (p99 %.1f ms): %.2fx the quiet rate"
              % (quiet["rps"], quiet["p99"], loud["rps"], loud["p99"], loud["rps"] / quiet["rps"]))
        print("uploads: quiet p50 %.1f / p99 %.1f ms, flooded p50 %.1f / p99 %.1f ms"
              % (statistics.median(quiet_up), pct(quiet_up, 0.99), statistics.median(loud_up), pct(loud_up, 0.99)))
        d.stop()
    finally:
        children.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
