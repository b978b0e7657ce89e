#!/usr/bin/python3
"""Reads under writes (issue 39): p50 and p99 of kept pages at 8
connections with no uploads, then with uploads paced at --rate a second
beside them (signed ahead), as ratios to the quiet figures.  A benchmark,
not a test: it prints figures and fails only when something is broken.

  /usr/bin/python3 tests/bench/reads_writes.py --bin ./llm-speedd [--runs 3000] [--rate 20]
"""
import argparse
import http.client
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def pacer(port, bodies, rate, stop, lat):
    """Posts one body every 1/rate s until stop is set; keeps each latency."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    step, t = 1.0 / rate, time.monotonic()
    for body in bodies:
        if stop.is_set():
            break
        t0 = time.monotonic()
        c.request("POST", "/api/v1/runs", body=body, headers={"Content-Type": "application/jose"})
        r = c.getresponse()
        r.read()
        if r.status not in (200, 201):
            raise bench.Failure("upload: HTTP %d" % r.status)
        lat.append(time.monotonic() - t0)
        t += step
        time.sleep(max(0.0, t - time.monotonic()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--rate", type=float, default=20)
    ap.add_argument("--seconds", type=int, default=5)
    a = ap.parse_args()
    children = bench.Children()
    tmp = tempfile.mkdtemp(prefix="rw39-")
    try:
        d = bench.Daemon(children, os.path.abspath(a.bin), tmp, 2)
        ids = bench.fill(d.port, a.runs)
        model = bench.fetch(d.port, "/r/%s.json" % ids[0])
        import json
        slug = json.loads(model[2])["model"]["slug"]
        paths = ["/", "/m/" + slug, "/cheatsheet", "/wanted", "/m/%s/hw/no-such-hw-in-bench" % slug]
        paths = [p for p in paths if bench.fetch(d.port, p)[0] == 200]
        extra = bench.synthetic_payloads(int(a.rate * (a.seconds + 3)) * len(paths) + 100, seed=7)
        signers = [bench.Signer() for _ in range(32)]
        bodies = [signers[i % 32].sign(p) for i, p in enumerate(extra)]
        print("filled %d runs; uploads beside at %g/s" % (len(ids), a.rate))
        print("%-44s %9s %9s %9s %9s %7s %7s" % ("page", "p50 q", "p99 q", "p50 w", "p99 w", "p50 x", "p99 x"))
        at = 0
        for path in paths:
            quiet = bench.wrk(d.port, path, a.seconds, 8)
            stop, lat = threading.Event(), []
            t = threading.Thread(target=pacer, args=(d.port, bodies[at:], a.rate, stop, lat))
            t.start()
            busy = bench.wrk(d.port, path, a.seconds, 8)
            stop.set()
            t.join()
            at += len(lat) + 1
            for r in (quiet, busy):
                if r["errors"]:
                    raise bench.Failure("%s: %s" % (path, r["errors"]))
            lat.sort()
            print("%-44s %8.2fms %8.2fms %8.2fms %8.2fms %6.1fx %6.1fx   (%d uploads, p99 %.1f ms)" % (
                path[:44], quiet["p50"], quiet["p99"], busy["p50"], busy["p99"],
                busy["p50"] / max(quiet["p50"], 1e-3), busy["p99"] / max(quiet["p99"], 1e-3),
                len(lat), 1000 * lat[int(0.99 * (len(lat) - 1))] if lat else 0), flush=True)
        d.stop()
    finally:
        children.stop_all()


if __name__ == "__main__":
    main()
