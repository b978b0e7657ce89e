#!/usr/bin/env python3
"""scale.py: the pages of llm-speedd on a database of a million runs.

A benchmark, not a test: it prints figures and asserts nothing about speed.
It exits non-zero only when something is broken (the fill failed, the
daemon did not start, wrk saw errors or non-2xx answers).

  make bench-scale
  /usr/bin/python3 tests/bench/scale.py --bin ./llm-speedd --fill build/bench/fill \
      --cache build/bench [--runs 1000000] [--duration 10] [--connections 8]

Steps (see README.md here):
1. Builds the database with build/bench/fill (the upload's write path:
   signed, verified, validated, stored by run_store jobs) unless the cache
   folder holds one built by the same fill program and migrations; prints
   how long the build took (then or when it was cached).
2. Migration backfill: takes the objects of the newest migration out of the
   database (back to the previous schema, same runs), starts the daemon,
   which migrates it again, and reports how long that took, with the
   progress lines the migration printed.
3. Start-up: starts the daemon on the migrated database and times it to
   its first 200 from /healthz.
4. Runs wrk -t1 -c8 --latency for --duration seconds on each page, one after
   the other in this one run: /, /m/<hottest model>, /hw/<hottest
   accelerator>, /r/<random id>, /badge/<random id>.svg, /outliers,
   /disputes.  Run and badge ids are drawn at random (a Lua script) from
   every id stored, so the response cache stays cold.
5. Reports VmHWM and RssAnon of the daemon (RssAnon before and after the
   run and badge pages, whose responses the cache keeps), the database's
   bytes per run, and the table for README.md.
"""
import argparse
import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from bench import Children, Failure, free_port, tail, to_ms  # noqa: E402

import http.client  # noqa: E402

# The objects of migration 0007, dropped to rebuild the previous schema.
UNMIGRATE = """
DROP TRIGGER IF EXISTS list_summaries_insert;
DROP TRIGGER IF EXISTS list_summaries_delete;
DROP TRIGGER IF EXISTS list_summaries_update_leave;
DROP TRIGGER IF EXISTS list_summaries_update_enter;
DROP TRIGGER IF EXISTS dispute_threads_suite;
DROP TRIGGER IF EXISTS dispute_threads_suite_follows;
DROP INDEX IF EXISTS runs_outliers_list;
DROP INDEX IF EXISTS dispute_threads_open;
DROP INDEX IF EXISTS digest_counts_order;
DROP TABLE IF EXISTS board_best;
DROP TABLE IF EXISTS hw_best;
ALTER TABLE dispute_threads DROP COLUMN suite_version;
DELETE FROM schema_migrations WHERE version = 7;
"""


def cache_key(fill_bin, runs):
    """What the cached database depends on: the fill program's source, the
    migrations and the number of runs."""
    h = hashlib.sha256(str(runs).encode())
    for p in [os.path.join(HERE, "fill.c")] + sorted(
            os.path.join(ROOT, "migrations", f) for f in os.listdir(os.path.join(ROOT, "migrations"))):
        with open(p, "rb") as f:
            h.update(p.encode() + b"\0" + f.read())
    return h.hexdigest()


def build(a):
    """The database, its id list, hot slugs and the build time (cached)."""
    base = os.path.join(a.cache, "scale-%d" % a.runs)
    db, ids, out, key_file = base + ".db", base + ".ids", base + ".fill.out", base + ".key"
    key = cache_key(a.fill, a.runs)
    cached = os.path.exists(key_file) and open(key_file).read().strip() == key and os.path.exists(db)
    if not cached:
        for p in (db, db + "-wal", db + "-shm", ids, out, key_file):
            if os.path.exists(p):
                os.remove(p)
        print("building %d runs through the write path (minutes) ..." % a.runs, flush=True)
        with open(out, "w") as o:
            r = subprocess.run([a.fill, "--db", db, "--migrations", os.path.join(ROOT, "migrations"),
                                "--runs", str(a.runs), "--list", ids], stdout=o)
        if r.returncode != 0:
            raise Failure("fill failed; see " + out)
        with open(key_file, "w") as k:
            k.write(key + "\n")
    text = open(out).read()
    m = re.search(r"filled (\d+) runs in ([\d.]+) s", text)
    hot_m = re.search(r"hot_model (\S+)", text).group(1)
    hot_h = re.search(r"hot_hw (\S+)", text).group(1)
    return db, ids, hot_m, hot_h, float(m.group(2)), cached


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def start(children, a, db, log):
    """Starts the daemon with default settings (but for limits wrk needs);
    returns (process, port, seconds until /healthz answered 200)."""
    port = free_port()
    args = [a.bin, "--listen", "127.0.0.1:%d" % port, "--db", db, "--assets", ROOT,
            "--base-url", "https://llm-speed.example", "--max-per-ip", "4096"]
    t0 = time.monotonic()
    p = children.start(args, log)
    while True:
        if p.poll() is not None:
            raise Failure("llm-speedd exited: " + tail(log))
        try:
            if get(port, "/healthz") == 200:
                return p, port, time.monotonic() - t0
        except OSError:
            pass
        if time.monotonic() - t0 > 3600:
            raise Failure("llm-speedd not ready after an hour: " + tail(log))
        time.sleep(0.01)


def memory(pid):
    """VmHWM and RssAnon of pid in MB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "RssAnon", "RssFile"):
                out[k] = int(v.split()[0]) / 1024.0
    return out


LUA = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
math.randomseed(%d)
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


def wrk(port, paths_file, seed, duration, connections, tmp):
    script = os.path.join(tmp, "paths-%d.lua" % seed)
    with open(script, "w") as f:
        f.write(LUA % (paths_file, seed))
    args = ["wrk", "-t1", "-c%d" % connections, "-d%ds" % duration, "--latency", "-s", script,
            "http://127.0.0.1:%d" % port]
    out = subprocess.run(args, capture_output=True, text=True, timeout=duration + 60).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    if not (rps and p50 and p99):
        raise Failure("could not read wrk's output:\n" + out)
    for bad in ("Socket errors", "Non-2xx or 3xx responses"):
        if bad in out:
            raise Failure("wrk: " + re.search(bad + r".*", out).group(0))
    return float(rps.group(1)), to_ms(p50.group(1)), to_ms(p99.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fill", required=True)
    ap.add_argument("--cache", required=True, help="folder keeping the built database")
    ap.add_argument("--runs", type=int, default=1000000)
    ap.add_argument("--duration", type=int, default=10, help="seconds of wrk per page (10)")
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--skip-migration", action="store_true", help="skip the backfill measurement")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    children = Children()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    tmp = tempfile.mkdtemp(prefix="llms-scale-")
    try:
        db, ids_file, hot_m, hot_h, fill_s, cached = build(a)
        n = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
        size = os.path.getsize(db)
        print("database: %d runs, %.2f GB, %.0f bytes per run; built in %.0f s (%.0f runs/s)%s"
              % (n, size / 1e9, size / n, fill_s, n / fill_s, ", cached" if cached else ""), flush=True)
        migrate_s = None
        if not a.skip_migration:
            con = sqlite3.connect(db)
            con.executescript(UNMIGRATE)
            con.close()
            log = os.path.join(tmp, "migrate.log")
            p, port, migrate_s = start(children, a, db, log)
            children.stop(p)
            progress = [l for l in open(log).read().splitlines() if "migration" in l]
            print("migration backfill (previous schema -> now), start to /healthz: %.1f s" % migrate_s)
            for l in progress:
                print("  " + l)
        log = os.path.join(tmp, "daemon.log")
        p, port, start_s = start(children, a, db, log)
        print("start-up on the migrated database: %.3f s" % start_s, flush=True)
        ids = [l.strip() for l in open(ids_file) if l.strip()]
        lists = {"/": ["/"], "/m/<hottest>": ["/m/" + hot_m], "/hw/<hottest>": ["/hw/" + hot_h],
                 "/r/<random id>": ["/r/" + i for i in ids],
                 "/badge/<random id>.svg": ["/badge/%s.svg" % i for i in ids],
                 "/outliers": ["/outliers"], "/disputes": ["/disputes"]}
        for name, paths in lists.items():
            if get(port, paths[0]) != 200:
                raise Failure("%s answered other than 200" % paths[0])
        mem0 = memory(p.pid)
        rows = []
        for seed, (name, paths) in enumerate(lists.items(), 1):
            f = os.path.join(tmp, "paths-%d.txt" % seed)
            with open(f, "w") as out:
                out.write("\n".join(paths) + "\n")
            rps, p50, p99 = wrk(port, f, seed, a.duration, a.connections, tmp)
            rows.append((name, p50, p99, rps))
            print("%-24s p50 %7.2f ms  p99 %7.2f ms  %9.0f req/s" % (name, p50, p99, rps), flush=True)
        mem = memory(p.pid)
        children.stop(p)
        print()
        print("| page | p50 | p99 | req/s |")
        print("|---|---|---|---|")
        for name, p50, p99, rps in rows:
            print("| `%s` | %.2f ms | %.2f ms | %.0f |" % (name, p50, p99, rps))
        print()
        print("runs: %d; database %.0f bytes per run; fill %.0f s (%.0f runs/s)" % (n, size / n, fill_s, n / fill_s))
        if migrate_s is not None:
            print("migration backfill: %.1f s" % migrate_s)
        print("start-up: %.3f s" % start_s)
        print("VmHWM %.0f MB, RssAnon %.0f MB at the end (%.0f MB before the run and badge pages), RssFile %.0f MB"
              % (mem["VmHWM"], mem["RssAnon"], mem0["RssAnon"], mem["RssFile"]))
        return 0
    except Failure as e:
        print("bench-scale: " + str(e), file=sys.stderr)
        return 1
    finally:
        children.stop_all()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
