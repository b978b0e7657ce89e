#!/usr/bin/env python3
"""wal_busy.py: the WAL's high-water mark during a fill while other
processes keep the cores busy.

A benchmark, not a test: it prints figures, and exits non-zero only when
something is broken (the daemon did not start or exited, wrk failed) or,
with --check, when the WAL passed --bound-mb or fewer than --min-uploads
runs were stored within --seconds.

  make bench-busy
  /usr/bin/python3 tests/bench/wal_busy.py --bin ./llm-speedd [--runs 150000]
      [--hogs 2] [--seconds 300] [--connections 64] [--check]

Steps (see README.md here): signs --runs full five-workload payloads over
many clusters (512 Ed25519 keys) before the clock starts; starts the daemon
on a fresh database and --hogs CPU-bound processes beside it (busy loops,
one per core of a 2-core machine); posts the bodies with wrk -t1
-c<connections>, each once, until all are stored or --seconds have passed;
every 0.2 s samples the WAL's size on disk and frame count, the stored
runs and the daemon threads' run and wait times (/proc/<pid>/task/*/schedstat).
Reports uploads/s, the WAL's high-water mark against the bound, how often
the log restarted, and how long each database thread waited for a core.
"""
import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import (INGEST_FROM_LUA, Children, Daemon, Failure, signed_bodies,  # noqa: E402
                   synthetic_payloads)
from scale import wal_frames  # noqa: E402

HOG = "while True: pass"


def stored(db):
    """Runs stored so far (the largest rowid: one seek, a short read)."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5)
        try:
            return con.execute("SELECT coalesce(max(rowid), 0) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return -1


def schedstat(pid):
    """{thread name: (ns on a core, ns runnable but waiting)} of pid."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                run, wait = (int(x) for x in f.read().split()[:2])
        except (OSError, ValueError):
            continue
        name = "serving" if name.startswith("MHD") else name
        r, w = out.get(name, (0, 0))
        out[name] = (r + run, w + wait)
    return out


class Sampler(threading.Thread):
    """Every 0.2 s: WAL bytes on disk, WAL frames, and (every second) the
    runs stored."""

    def __init__(self, db):
        super().__init__(daemon=True)
        self.db, self.stop = db, threading.Event()
        self.wal_bytes = self.wal_frames = self.restarts = 0
        self.runs, self.samples = 0, []

    def run(self):
        last_frames, tick = 0, 0
        while not self.stop.is_set():
            try:
                size = os.stat(self.db + "-wal").st_size
            except OSError:
                size = 0
            frames = wal_frames(self.db)
            if frames < last_frames:
                self.restarts += 1
            last_frames = frames
            self.wal_bytes = max(self.wal_bytes, size)
            self.wal_frames = max(self.wal_frames, frames)
            if tick % 5 == 0:
                n = stored(self.db)
                if n >= 0:
                    self.runs = n
                self.samples.append((time.time(), self.runs, size, frames))
            tick += 1
            time.sleep(0.2)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="path to llm-speedd")
    ap.add_argument("--runs", type=int, default=150000, help="uploads to send, each once (150000)")
    ap.add_argument("--hogs", type=int, default=2, help="CPU-bound processes beside the daemon (2)")
    ap.add_argument("--seconds", type=int, default=300, help="longest the fill may take (300)")
    ap.add_argument("--connections", type=int, default=64, help="wrk connections (64)")
    ap.add_argument("--bound-mb", type=float, default=512, help="the WAL's bound for --check (512)")
    ap.add_argument("--min-uploads", type=int, default=75000,
                    help="runs that must be stored within --seconds for --check (75000)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a bound is not met")
    ap.add_argument("--bodies", default="",
                    help="signed bodies, one a line: reused when the file exists, else written there")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return ap.parse_args()


def fill(children, a, tmp):
    bodies = a.bodies or os.path.join(tmp, "bodies.txt")
    if not os.path.exists(bodies):
        os.makedirs(os.path.dirname(os.path.abspath(bodies)), exist_ok=True)
        t0 = time.time()
        payloads = synthetic_payloads(a.runs, seed=5, keys=512)
        for i, p in enumerate(payloads):
            p["workloads"]["chat-short"]["decode_tok_s"] += i * 1e-7     # every body distinct
        signed_bodies(payloads, bodies)
        del payloads
        print("wal_busy: %d bodies signed in %.0f s" % (a.runs, time.time() - t0), flush=True)
    with open(bodies, "rb") as f:
        if sum(1 for _ in f) < a.runs:
            raise Failure("%s holds fewer than --runs bodies" % bodies)
    d = Daemon(children, os.path.abspath(a.bin), tmp, 2)
    db = os.path.join(tmp, "bench.db")
    hogs = [children.start([sys.executable, "-c", HOG], os.path.join(tmp, "hog.log"))
            for _ in range(a.hogs)]
    script = os.path.join(tmp, "ingest-from.lua")
    with open(script, "w") as f:
        f.write(INGEST_FROM_LUA)
    sampler = Sampler(db)
    sampler.start()
    s0 = schedstat(d.proc.pid)
    w = children.start(["wrk", "-t1", "-c%d" % a.connections, "-d%ds" % (a.seconds + 30),
                        "-s", script, "http://127.0.0.1:%d/api/v1/runs" % d.port],
                       os.path.join(tmp, "wrk.log"),
                       env=dict(os.environ, LLMS_BODIES=bodies, LLMS_START="0"))
    # wrk reads the bodies before it sends: the clock starts at the first run.
    while sampler.runs <= 0 and w.poll() is None:
        time.sleep(0.05)
    start = time.time()
    loads = [os.getloadavg()[0]]
    at_limit = None
    while w.poll() is None and d.proc.poll() is None:
        now = time.time() - start
        if sampler.runs >= a.runs:
            break
        if now >= a.seconds and at_limit is None:
            at_limit = sampler.runs
            break
        if int(now) % 30 == 0 and int(now) // 30 >= len(loads):
            loads.append(os.getloadavg()[0])
            print("  %3.0f s: %d runs, WAL %.0f MB (high-water %.0f MB)"
                  % (now, sampler.runs, sampler.samples[-1][2] / 1e6 if sampler.samples else 0,
                     sampler.wal_bytes / 1e6), flush=True)
        time.sleep(0.2)
    elapsed = time.time() - start
    s1 = schedstat(d.proc.pid)
    children.stop(w, signal.SIGINT)
    for h in hogs:
        children.stop(h, signal.SIGKILL)
    time.sleep(0.5)
    sampler.stop.set()
    sampler.join()
    runs = stored(db)
    d.stop()
    if d.proc.returncode not in (0, None):
        raise Failure("llm-speedd exited with %s" % d.proc.returncode)
    print("wal_busy: %d runs stored in %.0f s (%.0f uploads/s), %d CPU-bound processes beside"
          " the daemon, wrk -t1 -c%d; load average %s"
          % (runs, elapsed, runs / elapsed, a.hogs, a.connections,
             ", ".join("%.1f" % x for x in loads)))
    print("  WAL high-water: %.0f MB on disk (%d frames, %.0f MB), bound %.0f MB; the log"
          " restarted %d times" % (sampler.wal_bytes / 1e6, sampler.wal_frames,
                                  sampler.wal_frames * 4120 / 1e6, a.bound_mb, sampler.restarts))
    print("  database size at the end: %.0f MB"
          % (os.stat(db).st_size / 1e6))
    for name in ("db-writer", "db-checkpoint", "db-sync", "serving"):
        if name in s1:
            run = (s1[name][0] - s0.get(name, (0, 0))[0]) / 1e9
            wait = (s1[name][1] - s0.get(name, (0, 0))[1]) / 1e9
            print("  %-13s %6.1f s on a core, %6.1f s waiting for one" % (name, run, wait))
    ok = True
    if sampler.wal_bytes > a.bound_mb * 1e6:
        print("  WAL bound: NOT met (%.0f MB > %.0f MB)" % (sampler.wal_bytes / 1e6, a.bound_mb))
        ok = False
    in_time = at_limit if at_limit is not None else runs
    if in_time < min(a.min_uploads, a.runs):
        print("  uploads within %d s: NOT met (%d < %d)" % (a.seconds, in_time, a.min_uploads))
        ok = False
    return ok


def main():
    a = parse_args()
    if not shutil.which("wrk"):
        print("wal_busy: wrk is not installed (make deps installs it)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="llms-walbusy-")
    children = Children()

    def on_term(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        ok = fill(children, a, tmp)
        return 1 if a.check and not ok else 0
    except Failure as e:
        print("wal_busy: " + str(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("wal_busy: interrupted", file=sys.stderr)
        return 130
    finally:
        children.stop_all()
        if a.keep:
            print("wal_busy: kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
