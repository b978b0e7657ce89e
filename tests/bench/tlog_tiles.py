#!/usr/bin/env python3
"""tlog_tiles.py: how fast llm-speedd serves the tiles of a 1M-entry
transparency log, against nginx serving the same bytes as static files,
measured with wrk in the same run (`make bench-tiles`).

A benchmark, not a test: it prints ratios (ours / nginx) and fails only when
something is broken.  Steps: tlogfill appends --entries synthetic entries to
a fresh database (tlog_store_append(), as the writer does); the daemon starts on
it and signs its checkpoint; every full level-0 tile, a level-1 tile and an
entry bundle are fetched from it and written into nginx's root; then wrk
measures, alternating servers (see bench.py):
  - one hot tile (kept in the daemon's memory after the first request);
  - every level-0 tile in turn (3,906 of them at 1M entries: more than the
    daemon keeps, so most requests read their 256 hashes from SQLite);
  - an entry bundle.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the helpers of the serving benchmark)

ROOT = bench.ROOT


def tile_path(level, n):
    digits = "%d" % n
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i:i + 3] for i in range(0, len(digits), 3)]
    return "/log/tile/%s/%s" % (level, "/".join(["x" + g for g in groups[:-1]] + [groups[-1]]))


def wrk_rotating(port, list_path, duration, connections):
    """wrk over the paths listed in list_path, one after another."""
    script = list_path + ".lua"
    with open(script, "w") as f:
        f.write('local p = {}\nfor l in io.lines("%s") do p[#p + 1] = l end\n'
                'local i = 0\nrequest = function()\n  i = i %% #p + 1\n'
                '  return wrk.format("GET", p[i])\nend\n' % list_path)
    args = ["wrk", "-t1", "-c%d" % connections, "-d%ds" % duration, "-s", script,
            "http://127.0.0.1:%d/" % port]
    out = subprocess.run(args, capture_output=True, text=True, timeout=duration + 30).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not rps or "Non-2xx" in out or "Socket errors" in out:
        raise bench.Failure("wrk over the tiles failed:\n" + out)
    return float(rps.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="path to llm-speedd")
    ap.add_argument("--fill", required=True, help="path to tlogfill (tests/bench/tlogfill.c)")
    ap.add_argument("--entries", type=int, default=1000000, help="log entries (1000000)")
    ap.add_argument("--threads", type=int, default=2, help="daemon --threads (2)")
    ap.add_argument("--duration", type=int, default=2, help="seconds per wrk slice (2)")
    ap.add_argument("--rounds", type=int, default=3, help="wrk slices per server and path (3)")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="llms-tiles-")
    children = bench.Children()
    try:
        t0 = time.time()
        subprocess.run([a.fill, os.path.join(tmp, "bench.db"), os.path.join(ROOT, "migrations"),
                        str(a.entries)], check=True, stderr=subprocess.DEVNULL, timeout=3600)
        print("filled: %d log entries in %.1f s" % (a.entries, time.time() - t0), flush=True)
        d = bench.Daemon(children, os.path.abspath(a.bin), tmp, a.threads)
        status, _, ck = bench.fetch(d.port, "/log/checkpoint")
        if status != 200 or int(ck.split(b"\n")[1]) != a.entries:
            raise bench.Failure("the checkpoint does not cover the %d entries: %r" % (a.entries, ck[:200]))
        full = a.entries // 256
        level0 = [tile_path(0, n) for n in range(full)]
        hot = level0[full // 2]
        bundle = tile_path("entries", full // 3)
        files = {}
        for path in level0 + [tile_path(1, 0), bundle]:
            status, headers, body = bench.fetch(d.port, path)
            if status != 200:
                raise bench.Failure("%s: HTTP %d" % (path, status))
            files[path] = (headers, body)
        print("  %d full level-0 tiles, hot %s, bundle %s (%d bytes)"
              % (full, hot, bundle, len(files[bundle][1])), flush=True)
        d.stop()
        nport, _ = bench.start_nginx(children, tmp, files, "auto", "off")
        d = bench.Daemon(children, os.path.abspath(a.bin), tmp, a.threads)
        for path in (hot, bundle):
            theirs, ours, ratio = bench.measure_pair(a, nport, d.port, path)
            print("  %-28s ours %7.0f req/s  nginx %7.0f req/s  %5.2fx nginx"
                  % (path, ours["rps"], theirs["rps"], ratio), flush=True)
        listing = os.path.join(tmp, "level0.txt")
        with open(listing, "w") as f:
            f.write("\n".join(level0) + "\n")
        ratios = []
        for i in range(a.rounds):
            order = (nport, d.port) if i % 2 == 0 else (d.port, nport)
            got = {p: wrk_rotating(p, listing, a.duration, a.connections) for p in order}
            ratios.append(got[d.port] / got[nport])
            print("  every level-0 tile in turn: ours %7.0f req/s  nginx %7.0f req/s  %5.2fx"
                  % (got[d.port], got[nport], ratios[-1]), flush=True)
        print("every level-0 tile in turn: %.2fx nginx (median of %d rounds)"
              % (bench.median(ratios), a.rounds))
        d.stop()
        return 0
    except bench.Failure as e:
        print("tlog_tiles: FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        children.stop_all()
        if a.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
