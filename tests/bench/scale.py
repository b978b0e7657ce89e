#!/usr/bin/env python3
"""scale.py: the pages of llm-speedd on a database of a million runs.

A benchmark, not a test: it prints figures and asserts nothing about speed.
It exits non-zero only when something is broken (the fill failed, the
daemon did not start, wrk saw errors or non-2xx answers, the export lost or
repeated a run, an upload during the export was not stored).

  make bench-scale
  /usr/bin/python3 tests/bench/scale.py --bin ./llm-speedd --fill build/bench/fill \
      --cache build/bench [--runs 1000000] [--duration 10] [--connections 8]
  # a newer daemon on a database built before (migrated forward on a copy):
  /usr/bin/python3 tests/bench/scale.py --bin ./llm-speedd --cache build/bench \
      --db build/bench/scale-1000000.db [--in-place]

Steps (see README.md here):
1. Builds the database with build/bench/fill (the upload's write path:
   signed, verified, validated, stored by run_store jobs) unless the cache
   folder holds one built by the same fill program and migrations; prints
   how long the build took (then or when it was cached).  A cached database
   built with other migrations is not deleted: it is renamed
   scale-<runs>.prev.db (with its .ids and .fill.out) for --db.
   With --db PATH instead: PATH is copied to <cache>/scale-work.db (or used
   as it is with --in-place), and its ids and hot slugs are read from
   PATH's .ids and .fill.out beside it, or from the database.
2. Migration backfill: with --db, the migrations the daemon has and PATH
   has not; otherwise the migrations from --backfill-from on (default 12:
   the find summaries, the withdrawals' indexes on runs, the model sort
   indexes) are taken out of the database (their objects dropped, their
   rows in schema_migrations deleted: the previous schema, same runs).
   The daemon is started, migrates, and the time to its first /healthz 200
   is reported with the progress lines the migrations printed.
3. Start-up: starts the daemon on the migrated database and times it to
   its first 200 from /healthz, then waits for the pages it builds ahead
   (llmspeed_pages_built_ahead_total still for 3 s) and says how long
   they took: the pages are measured on a warm daemon, as the reads
   under writes are.
4. Runs wrk -t1 -c8 --latency for --duration seconds on each page, one after
   the other in this one run: /, /m/<hottest model>, /hw/<hottest
   accelerator>, /r/<random id>, /badge/<random id>.svg, /outliers,
   /disputes.  Run and badge ids are drawn at random (a Lua script) from
   every id stored, so the response cache stays cold.
5. Reports VmHWM and RssAnon of the daemon (RssAnon before and after the
   run and badge pages, whose responses the cache keeps), the database's
   bytes per run, and the table for README.md.
6. Export: on a fresh daemon, streams the whole /export twice, gzip
   (alone: the line count must equal the runs) and plain (while a client
   fetches /r/<random id> and uploads runs: every line once, in id order,
   every upload stored), sampling RssAnon and VmHWM every 0.2 s and the
   WAL's frame count; reports peak/idle RssAnon, runs/s and MB/s.
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from bench import (Children, Failure, Signer, fetch, free_port, start_nginx,  # noqa: E402
                   synthetic_payloads, tail, to_ms)

import http.client  # noqa: E402


def migration_files():
    """(version, path) of every migration, in order."""
    d = os.path.join(ROOT, "migrations")
    return sorted((int(f[:4]), os.path.join(d, f)) for f in os.listdir(d)
                  if re.match(r"\d{4}_.*\.sql$", f))


def unmigrate_sql(first):
    """SQL taking the migrations from version first on out of a database:
    drops what they create (triggers, views, indexes, tables, added
    columns) and their schema_migrations rows.  Refuses a migration that
    drops or changes an object made before it, which cannot be put back."""
    made = {"TRIGGER": [], "VIEW": [], "INDEX": [], "TABLE": []}
    columns = []
    versions = []
    for v, path in migration_files():
        if v < first:
            continue
        versions.append(os.path.basename(path))
        sql = re.sub(r"--[^\n]*", "", open(path).read())
        for kind, name in re.findall(r"CREATE\s+(?:UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|TRIGGER|VIEW)\s+"
                                     r"(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", sql, re.I):
            made[kind.upper()].append(name)
        columns += re.findall(r"ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", sql, re.I)
        for kind, name in re.findall(r"DROP\s+(TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF\s+EXISTS\s+)?(\w+)",
                                     sql, re.I):
            if name not in made[kind.upper()]:
                raise Failure("migration %s drops %s, made before it, which this cannot put back; "
                              "give a --backfill-from after it" % (os.path.basename(path), name))
    out = ["BEGIN;"]
    for kind in ("TRIGGER", "VIEW", "INDEX", "TABLE"):
        out += ["DROP %s IF EXISTS %s;" % (kind, n) for n in reversed(made[kind])]
    out += ["ALTER TABLE %s DROP COLUMN %s;" % c for c in reversed(columns)]
    out += ["DELETE FROM schema_migrations WHERE version >= %d;" % first, "COMMIT;"]
    return "\n".join(out), versions


def cache_key(fill_bin, runs):
    """What the cached database depends on: the fill program's source, the
    migrations and the number of runs."""
    h = hashlib.sha256(str(runs).encode())
    for p in [os.path.join(HERE, "fill.c")] + [p for _, p in migration_files()]:
        with open(p, "rb") as f:
            h.update(p.encode() + b"\0" + f.read())
    return h.hexdigest()


def sidecars(db):
    """The files kept beside a database: ids, fill output, key."""
    base = db[:-3] if db.endswith(".db") else db
    return base + ".ids", base + ".fill.out", base + ".key"


def build(a):
    """The database, its id list, fill output and whether it was cached.
    One built with other migrations or another fill is kept as .prev."""
    db = os.path.join(a.cache, "scale-%d.db" % a.runs)
    ids, out, key_file = sidecars(db)
    key = cache_key(a.fill, a.runs)
    cached = os.path.exists(key_file) and open(key_file).read().strip() == key and os.path.exists(db)
    if not cached:
        prev = os.path.join(a.cache, "scale-%d.prev.db" % a.runs)
        if os.path.exists(db) and os.path.exists(out):
            for src, dst in zip([db + x for x in WORK_FILES] + list(sidecars(db)),
                                [prev + x for x in WORK_FILES] + list(sidecars(prev))):
                if os.path.exists(src):
                    os.replace(src, dst)
            print("kept the database built with other migrations as %s (for --db)" % prev)
        for p in [db + x for x in WORK_FILES] + [ids, out, key_file]:
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
    return db, ids, out, cached


# A database's files: itself, its WAL, and the log's key and checkpoint
# the daemon keeps beside it.
WORK_FILES = ("", "-wal", "-shm", ".logkey", ".checkpoint")


def existing(a):
    """--db: the database to measure (a copy unless --in-place), its id
    list and fill output (None when not beside it)."""
    src = os.path.abspath(a.db)
    if not os.path.exists(src):
        raise Failure("--db %s: no such file" % a.db)
    ids, out, _ = sidecars(src)
    db = src
    if not a.in_place:
        db = os.path.join(a.cache, "scale-work.db")
        for p in [db + x for x in WORK_FILES]:
            if os.path.exists(p):
                os.remove(p)
        t0 = time.monotonic()
        for x in WORK_FILES:   # the log's key and checkpoint too: the same log goes on
            if os.path.exists(src + x) and x != "-shm":
                shutil.copyfile(src + x, db + x)
        print("copied %s to %s in %.0f s" % (src, db, time.monotonic() - t0), flush=True)
    return db, ids if os.path.exists(ids) else None, out if os.path.exists(out) else None


def hot_slugs(db, out):
    """The hottest model and accelerator slugs and the fill's seconds
    (None when unknown): from the fill's output, else from the runs."""
    if out:
        text = open(out).read()
        m = re.search(r"filled (\d+) runs in ([\d.]+) s", text)
        return (re.search(r"hot_model (\S+)", text).group(1), re.search(r"hot_hw (\S+)", text).group(1),
                float(m.group(2)))
    con = sqlite3.connect(db)
    q = "SELECT %s FROM runs WHERE status = 'ok' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
    hot = [con.execute(q % c).fetchone()[0] for c in ("model_slug", "hw_slug")]
    con.close()
    return hot[0], hot[1], None


def run_ids(db, ids_file):
    if ids_file:
        return [l.strip() for l in open(ids_file) if l.strip()]
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM runs")]
    con.close()
    return ids


def applied(db):
    con = sqlite3.connect(db)
    v = [r[0] for r in con.execute("SELECT version FROM schema_migrations ORDER BY version")]
    con.close()
    return v


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def start(children, a, db, log, extra=()):
    """Starts the daemon with default settings (but for limits wrk needs,
    and extra); returns (process, port, seconds until /healthz answered 200)."""
    port = free_port()
    args = [a.bin, "--listen", "127.0.0.1:%d" % port, "--db", db, "--assets", ROOT,
            "--base-url", "https://llm-speed.example", "--max-per-ip", "4096",
            "--search-rate", "1000000"] + list(extra)
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


def ahead(port):
    """llmspeed_pages_built_ahead_total, or None when /metrics lacks it."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    c.close()
    m = re.search(r"^llmspeed_pages_built_ahead_total (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def wait_ahead(port, what):
    """Waits until the pages the daemon builds ahead after start are built
    (their count still for 3 s, after a second's wait for the first),
    at most 300 s, and says how many and how long: a warm daemon is
    measured, as one that has been running is."""
    t0 = time.monotonic()
    last, since = None, t0
    while time.monotonic() - t0 < 300:
        n = ahead(port)
        if n is None:
            return
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since >= 3 and time.monotonic() - t0 >= 4:
            break
        time.sleep(0.25)
    print("%s: %d pages built ahead in %.1f s (waited for)" % (what, last or 0, since - t0), flush=True)


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
local bust = %s
request = function()
  local p = paths[math.random(#paths)]
  if bust then
    -- an argument the page ignores: never kept, so built from the database
    p = p .. (string.find(p, "?", 1, true) and "&" or "?") .. "bust=" .. math.random(1000000000)
  end
  return wrk.format("GET", p)
end
"""


def cpu_seconds(pid):
    """User + system CPU seconds of process pid (every thread) so far."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, paths_file, seed, duration, connections, tmp, bust=False, pid=None):
    """wrk on the paths of paths_file drawn at random; with bust, each with
    an argument of its own that the page ignores, so no answer comes from
    the response cache.  Returns (req/s, p50 ms, p99 ms), and with pid the
    CPU microseconds process pid spent per request as a fourth figure
    (which the rest of a shared machine moves far less than the others)."""
    cpu0 = cpu_seconds(pid) if pid else 0
    script = os.path.join(tmp, "paths-%d%s.lua" % (seed, "-bust" if bust else ""))
    with open(script, "w") as f:
        f.write(LUA % (paths_file, seed, "true" if bust else "false"))
    args = ["wrk", "-t1", "-c%d" % connections, "-d%ds" % duration, "--latency", "-s", script,
            "http://127.0.0.1:%d" % port]
    out = subprocess.run(args, capture_output=True, text=True, timeout=duration + 60).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    if not (rps and p50 and p99):
        raise Failure("could not read wrk's output:\n" + out)
    if "Non-2xx or 3xx responses" in out:
        raise Failure("wrk: " + re.search(r"Non-2xx or 3xx responses.*", out).group(0))
    if "Socket errors" in out:
        # Requests past wrk's 2 s timeout: a figure too (the page is that
        # slow), said on its own line rather than ending the run.
        print("  (wrk: %s)" % re.search(r"Socket errors.*", out).group(0), flush=True)
    figures = (float(rps.group(1)), to_ms(p50.group(1)), to_ms(p99.group(1)))
    if pid:
        n = int(re.search(r"(\d+) requests in", out).group(1))
        return figures + (1e6 * (cpu_seconds(pid) - cpu0) / max(n, 1),)
    return figures


# ---- the export at scale ----------------------------------------------------

def wal_frames(db):
    """Frames in the WAL now (mxFrame of the wal-index header in -shm, native
    byte order); 0 once a checkpoint has let the writer restart the log."""
    try:
        with open(db + "-shm", "rb") as f:
            return struct.unpack("=I", f.read(20)[16:20])[0]
    except (OSError, struct.error):
        return 0


class Sampler(threading.Thread):
    """Every 0.2 s: the daemon's RssAnon and VmHWM and the WAL's frames."""

    def __init__(self, pid, db):
        super().__init__(daemon=True)
        self.pid, self.db, self.stop, self.samples = pid, db, threading.Event(), []

    def run(self):
        while not self.stop.is_set():
            m = memory(self.pid)
            self.samples.append((time.monotonic(), m["RssAnon"], m["VmHWM"], wal_frames(self.db)))
            self.stop.wait(0.2)


class Traffic(threading.Thread):
    """During an export: GET /r/<random id> every 0.25 s and an upload
    (a new signed run) after each, recording statuses and latencies."""

    def __init__(self, port, ids):
        super().__init__(daemon=True)
        self.port, self.ids, self.stop = port, ids, threading.Event()
        self.pages, self.uploads, self.stored, self.errors = [], [], [], []

    def call(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        t0 = time.monotonic()
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, time.monotonic() - t0, data

    def run(self):
        payloads = synthetic_payloads(20000, seed=int(time.time()))
        signer, rnd, i = Signer(), random.Random(5), 0
        while i < len(payloads):   # at least one round, however short the export
            try:
                st, dt, _ = self.call("GET", "/r/" + rnd.choice(self.ids))
                self.pages.append((st, dt))
                st, dt, body = self.call("POST", "/api/v1/runs", signer.sign(payloads[i]),
                                         {"Content-Type": "application/jose"})
                i += 1
                self.uploads.append((st, dt))
                if st == 201:
                    self.stored.append(re.search(rb'"id"\s*:\s*"([^"]+)"', body).group(1).decode())
            except (OSError, http.client.HTTPException, AttributeError) as e:
                self.errors.append(repr(e))
            if self.stop.wait(0.25):
                break


def runs_count(db):
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    return n


def stream_export(port, gzip):
    """GET /export to the end; returns (lines, wire bytes, ndjson bytes,
    seconds, whether the ids were strictly increasing)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    t0 = time.monotonic()
    c.request("GET", "/export", headers={"Accept-Encoding": "gzip"} if gzip else {})
    r = c.getresponse()
    if r.status != 200:
        raise Failure("/export answered %d: %s" % (r.status, r.read()[:300]))
    if gzip != (r.getheader("Content-Encoding") == "gzip"):
        raise Failure("/export: Content-Encoding %r" % r.getheader("Content-Encoding"))
    z = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzip else None
    lines = wire = raw = 0
    rest, last, ordered = b"", b"", True
    while True:
        chunk = r.read(1 << 20)
        if not chunk:
            break
        wire += len(chunk)
        data = z.decompress(chunk) if z else chunk
        raw += len(data)
        parts = (rest + data).split(b"\n")
        rest = parts.pop()
        for line in parts:
            lines += 1
            if not line.startswith(b'{"id":"'):
                raise Failure("/export line %d does not start with its id: %r" % (lines, line[:80]))
            rid = line[7:line.index(b'"', 7)]
            ordered = ordered and rid > last
            last = rid
    if z:
        raw += len(z.flush())
    c.close()
    if rest:
        raise Failure("/export ended inside a line (%d bytes after the last newline)" % len(rest))
    return lines, wire, raw, time.monotonic() - t0, ordered


def export_once(port, pid, db, gzip, traffic_ids=None):
    """One whole export while sampling; with traffic_ids, page fetches and
    uploads go on beside it.  Returns a dict of figures."""
    idle = memory(pid)
    n0 = runs_count(db)
    sampler = Sampler(pid, db)
    traffic = Traffic(port, traffic_ids) if traffic_ids else None
    sampler.start()
    if traffic:
        traffic.start()
    try:
        lines, wire, raw, secs, ordered = stream_export(port, gzip)
    finally:
        if traffic:
            traffic.stop.set()
            traffic.join()
        sampler.stop.set()
        sampler.join()
    n1 = runs_count(db)
    s = sampler.samples
    early = [x[1] for x in s if x[0] - s[0][0] <= 0.1 * secs] or [idle["RssAnon"]]
    late = [x[1] for x in s if x[0] - s[0][0] >= 0.5 * secs] or [idle["RssAnon"]]
    frames = [x[3] for x in s]
    f = {"gzip": gzip, "lines": lines, "runs_before": n0, "runs_after": n1, "wire": wire, "raw": raw,
         "secs": secs, "ordered": ordered, "idle": idle["RssAnon"], "peak": max(x[1] for x in s),
         "early_peak": max(early), "late_peak": max(late), "hwm_before": idle["VmHWM"],
         "hwm_after": memory(pid)["VmHWM"], "wal_max": max(frames), "samples": len(s),
         "wal_restarts": sum(1 for a_, b_ in zip(frames, frames[1:]) if b_ < a_)}
    if not ordered:
        raise Failure("/export: ids not strictly increasing (a run repeated or out of order)")
    if not n0 <= lines <= n1:
        raise Failure("/export gave %d lines; the database held %d runs before and %d after"
                      % (lines, n0, n1))
    if traffic:
        bad = [st for st, _ in traffic.pages if st != 200] + [st for st, _ in traffic.uploads if st != 201]
        if traffic.errors or bad or not traffic.uploads:
            raise Failure("during the export: statuses %s, errors %s, %d uploads"
                          % (bad[:10], traffic.errors[:3], len(traffic.uploads)))
        for rid in traffic.stored:
            if get(port, "/r/" + rid) != 200:
                raise Failure("upload %s answered 201 during the export but /r/ does not show it" % rid)
        f["pages"] = sorted(dt for _, dt in traffic.pages)
        f["uploads"] = sorted(dt for _, dt in traffic.uploads)
    return f


def report_export(f):
    kind = "gzip" if f["gzip"] else "plain"
    print("/export %s: %d lines (runs %d before, %d after), %.0f s, %.0f runs/s, %.1f MB/s on the wire"
          " (%.1f MB/s of NDJSON, %.2f GB)"
          % (kind, f["lines"], f["runs_before"], f["runs_after"], f["secs"], f["lines"] / f["secs"],
             f["wire"] / 1e6 / f["secs"], f["raw"] / 1e6 / f["secs"], f["raw"] / 1e9))
    print("  RssAnon idle %.1f MB, peak %.1f MB (%.2fx idle); peak in the first 10%% %.1f MB, "
          "in the second half %.1f MB; VmHWM %.0f -> %.0f MB; %d samples"
          % (f["idle"], f["peak"], f["peak"] / f["idle"], f["early_peak"], f["late_peak"],
             f["hwm_before"], f["hwm_after"], f["samples"]))
    print("  WAL: at most %d frames, restarted %d times after a checkpoint"
          % (f["wal_max"], f["wal_restarts"]))
    if "pages" in f:
        p, u = f["pages"], f["uploads"]
        print("  beside it: %d /r/<random id> all 200, median %.1f ms, max %.1f ms; "
              "%d uploads all 201 and shown, median %.1f ms, max %.1f ms"
              % (len(p), 1000 * p[len(p) // 2], 1000 * p[-1], len(u), 1000 * u[len(u) // 2], 1000 * u[-1]))
    sys.stdout.flush()


def export_step(children, a, db, ids, tmp):
    """The export on a fresh daemon (uploads unlimited, so they can keep
    the writer and the checkpointer busy): gzip alone, then plain with
    traffic beside it."""
    p, port, _ = start(children, a, db, os.path.join(tmp, "export.log"), ["--upload-rate", "0"])
    try:
        time.sleep(1)
        figures = [export_once(port, p.pid, db, True), export_once(port, p.pid, db, False, ids)]
        if figures[0]["lines"] != figures[0]["runs_before"]:
            raise Failure("gzip /export: %d lines for %d runs" % (figures[0]["lines"], figures[0]["runs_before"]))
    finally:
        children.stop(p)
    for f in figures:
        report_export(f)
    return figures


# ---- the pages ---------------------------------------------------------------

GOAL_P99_MS = 10.0

# The pages measured, in order: (name, path).  In a path, {model} and {hw}
# are the hottest model's and accelerator's slugs; {run} stands for a run
# id drawn at random from every stored id by the Lua script (so the
# response cache stays cold).  Add a page by adding a line.
PAGES = [
    ("/", "/"),
    ("/?sort=best", "/?sort=best"),
    ("/?backend=mlx", "/?backend=mlx"),
    ("/?hw=<hottest>", "/?hw={hw}"),
    ("/?hw=<random>", "/?hw={rhw}"),
    ("/?hw=rtx-4090", "/?hw=rtx-4090"),
    ("/index.json", "/index.json"),
    ("/index.json?sort=best", "/index.json?sort=best"),
    ("/m/<hottest>", "/m/{model}"),
    ("/m/<hottest>?sort=best", "/m/{model}?sort=best"),
    ("/m/<hottest>.json", "/m/{model}.json"),
    ("/m/<random>", "/m/{rmodel}"),
    ("/m/<hottest>/hw/<hottest>", "/m/{model}/hw/{hw}"),
    ("/m/<random>/hw/<random> (mostly unmeasured)", "/m/{rmodel}/hw/{rhw}"),
    ("/m/<hottest>/hw/rtx-4090 (unmeasured)", "/m/{model}/hw/rtx-4090"),
    ("/hw/<hottest>", "/hw/{hw}"),
    ("/hw/<hottest>?sort=best", "/hw/{hw}?sort=best"),
    ("/hw/<hottest>.json", "/hw/{hw}.json"),
    ("/hw/<random>", "/hw/{rhw}"),
    ("/models", "/models"),
    ("/models?sort=best", "/models?sort=best"),
    ("/models.json", "/models.json"),
    ("/hardware", "/hardware"),
    ("/hardware?sort=best", "/hardware?sort=best"),
    ("/hardware.json", "/hardware.json"),
    ("/cheatsheet", "/cheatsheet"),
    ("/cheatsheet.json", "/cheatsheet.json"),
    ("/fit?hw=rtx-4090&model=llama-3-1-8b", "/fit?hw=rtx-4090&model=llama-3-1-8b"),
    ("/fit.json?hw=<hottest>", "/fit.json?hw={hw}"),
    ("/changes", "/changes"),
    ("/wanted", "/wanted"),
    ("/sitemap.xml", "/sitemap.xml"),
    ("/sitemap-<random>.xml", "/sitemap-{smap}.xml"),
    ("/search?q=<random model's first 15 letters>", "/search?q={rprefix}"),
    ("/compare?r=<random pair>", "/compare?r={run},{run2}"),
    ("/r/<random id>", "/r/{run}"),
    ("/badge/<random id>.svg", "/badge/{run}.svg"),
    ("/outliers", "/outliers"),
    ("/disputes", "/disputes"),
]

# Placeholders drawn at random per path (wrk's Lua script then picks one of
# the paths per request): at most this many paths a page.
RANDOM_PATHS = 100000


def page_paths(path, subs):
    """The URL paths wrk asks for one PAGES entry: subs maps a placeholder
    ("model") to one value (a str) or to a list to draw from."""
    rnd = random.Random(path)
    if any(not v and "{%s}" % k in path for k, v in subs.items()):
        return []   # nothing to draw from (no sitemap files on a small database)
    drawn = [k for k, v in subs.items() if not isinstance(v, str) and "{%s}" % k in path]
    for k, v in subs.items():
        if isinstance(v, str):
            path = path.replace("{%s}" % k, v)
    if not drawn:
        return [path]
    out = []
    for _ in range(RANDOM_PATHS):
        q = path
        for k in drawn:
            q = q.replace("{%s}" % k, rnd.choice(subs[k]))
        out.append(q)
    return out


def subs_of(port, db, hot_m, hot_h, ids):
    """The placeholders' values: the hottest model and accelerator, every
    model and hardware slug with runs, run ids, sitemap file numbers."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    models = [r[0] for r in con.execute("SELECT model_slug FROM model_index WHERE runs > 0")]
    hws = [r[0] for r in con.execute("SELECT hw_slug FROM hw_index WHERE runs > 0")]
    con.close()
    status, _, body = fetch(port, "/sitemap.xml")
    smaps = re.findall(rb"/sitemap-(\d+)\.xml", body) if status == 200 else []
    return {"model": hot_m, "hw": hot_h, "rmodel": models or [hot_m], "rhw": hws or [hot_h],
            "rprefix": sorted({m[:15] for m in models}) or [hot_m[:15]], "run": ids, "run2": ids, "smap": [x.decode() for x in smaps]}


def pages_step(children, a, p, port, subs, tmp):
    """wrk on each page of PAGES (a.pages: only those whose name contains
    one of them), each against its reference: nginx serving the very bytes
    the daemon sent for that page (for random paths, one of them) as a
    static file, measured right after it.  Returns (rows, memory before,
    memory after)."""
    chosen = [(n, page_paths(path, subs)) for n, path in PAGES
              if not a.pages or any(x in n for x in a.pages.split(","))]
    chosen = [(n, paths) for n, paths in chosen if paths]
    files, refs = {}, {}
    for k, (name, paths) in enumerate(chosen):
        status, headers, body = fetch(port, paths[0])
        if status != 200:
            raise Failure("%s answered %d" % (paths[0], status))
        refs[name] = "/ref/%d" % k
        files[refs[name]] = (headers, body)
    nginx_port, nginx = start_nginx(children, tmp, files, "auto", "off")
    rows = []
    mem0 = memory(p.pid)
    for seed, (name, paths) in enumerate(chosen, 1):
        f = os.path.join(tmp, "paths-%d.txt" % seed)
        with open(f, "w") as o:
            o.write("\n".join(paths) + "\n")
        rps, p50, p99, cpu = wrk(port, f, seed, a.duration, a.connections, tmp, pid=p.pid)
        built = (wrk(port, f, seed, a.built_duration, a.connections, tmp, bust=True, pid=p.pid)
                 if a.built_duration and "{run}" not in dict(PAGES)[name] else None)
        rf = os.path.join(tmp, "ref-%d.txt" % seed)
        with open(rf, "w") as o:
            o.write(refs[name] + "\n")
        nrps, np50, np99 = wrk(nginx_port, rf, seed, a.ref_duration, a.connections, tmp)
        rows.append((name, p50, p99, rps, np50, np99, nrps, len(files[refs[name]][1]), built, cpu))
        print("%-40s p50 %7.2f ms  p99 %7.2f ms  %8.0f req/s %6.0f us CPU | nginx p99 %5.2f ms %8.0f req/s | "
              "p99 %.2fx goal%s" % (name, p50, p99, rps, cpu, np99, nrps, p99 / GOAL_P99_MS,
                                    " | built: p50 %.2f ms p99 %.2f ms %.0f req/s %.0f us CPU" % (
                                        built[1], built[2], built[0], built[3]) if built else ""), flush=True)
    mem = memory(p.pid)
    children.stop(nginx)
    return rows, mem0, mem


def report_pages(rows, a):
    """The pages' table for README.md: the daemon's p50 and p99 at
    a.connections, nginx's serving the same bytes (the reference), the
    ratios, and p99 against the goal."""
    print("| page | bytes | p50 | p99 | req/s | nginx p99 | nginx req/s | p99 / nginx | req/s / nginx "
          "| p99 / 10 ms | CPU/req | built each time: p50 / p99, req/s, CPU/req |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, p50, p99, rps, np50, np99, nrps, size, built, cpu in rows:
        print("| `%s` | %d | %.2f ms | %.2f ms | %.0f | %.2f ms | %.0f | %.2f | %.2f | %.2f%s | %.0f us | %s |"
              % (name, size, p50, p99, rps, np99, nrps, p99 / max(np99, 0.001), rps / nrps,
                 p99 / GOAL_P99_MS, "" if p99 < GOAL_P99_MS else " (missed)", cpu,
                 "%.2f / %.2f ms, %.0f, %.0f us" % (built[1], built[2], built[0], built[3]) if built else "-"))
    print()


# ---- reads under writes -----------------------------------------------------

class Pacer(threading.Thread):
    """Posts signed bodies from a shared queue of (source address, body)
    at rate/s in all (threads of its own, each at its share), until stop;
    keeps each upload's latency and the monotonic time its answer came."""

    def __init__(self, port, bodies, rate):
        super().__init__(daemon=True)
        self.port, self.bodies, self.rate = port, bodies, rate
        self.stop, self.lock = threading.Event(), threading.Lock()
        self.lat, self.done, self.errors, self.answered = [], [], [], {}

    def one(self, share):
        conns, step, t = {}, share / self.rate, time.monotonic()
        while not self.stop.is_set():
            with self.lock:
                if not self.bodies:
                    return
                src, body = self.bodies.pop()
            c = conns.get(src)
            if c is None:
                c = conns[src] = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                            source_address=(src, 0))
            t0, answer = time.monotonic(), None
            for attempt in (0, 1):
                try:
                    c.request("POST", "/api/v1/runs", body=body, headers={"Content-Type": "application/jose"})
                    r = c.getresponse()
                    answer = r.read()
                    # 200: a payload signed twice by one key (the generator
                    # can repeat one), answered as the run already stored.
                    if r.status not in (200, 201):
                        self.errors.append("HTTP %d" % r.status)
                    break
                except (OSError, http.client.HTTPException) as e:
                    # A connection the daemon closed while it sat idle (an
                    # address sends one upload in 64): once more on a new one.
                    c = conns[src] = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                                source_address=(src, 0))
                    if attempt:
                        self.errors.append(repr(e))
            t1 = time.monotonic()
            m = re.search(rb'"id":"(r_[A-Za-z0-9_-]+)"', answer) if answer else None
            with self.lock:
                self.lat.append(t1 - t0)
                self.done.append(t1)
                if m:
                    self.answered[m.group(1).decode()] = t1
            t += step
            self.stop.wait(max(0.0, t - time.monotonic()))

    def run(self):
        n = max(1, int(self.rate // 20))
        ts = [threading.Thread(target=self.one, args=(n,), daemon=True) for _ in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()


class Staleness(threading.Thread):
    """Every 20 ms: the run ids a kept page links to.  A run uploaded
    beside the reads is seen first some time after its upload was
    answered: those delays are the staleness seen.  (Not every run is
    shown: the recent runs are the newest by their second, so runs of one
    second can hide each other; those are not counted.)"""

    def __init__(self, port, path, pacer):
        super().__init__(daemon=True)
        self.port, self.path, self.pacer = port, path, pacer
        self.stop, self.ages, self.seen = threading.Event(), [], set()

    def run(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop.wait(0.02):
            try:
                c.request("GET", self.path)
                r = c.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException):
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                continue
            now = time.monotonic()
            for rid in set(re.findall(rb'href="/r/(r_[A-Za-z0-9_-]+)"', body)) - self.seen:
                self.seen.add(rid)
                with self.pacer.lock:
                    t = self.pacer.answered.get(rid.decode())
                if t is not None:
                    self.ages.append(max(0.0, now - t))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))] if xs else float("nan")


def rw_step(children, a, db, subs, quiet, tmp):
    """Reads under writes (issue 39): for each --rw-rates rate, on a daemon
    whose uploads are not rate-limited, each page of PAGES measured as in
    the pages step (wrk, a.connections, --rw-duration s) while uploads
    signed ahead are posted at that rate beside it; returns
    [(rate, [(name, p50, p99, quiet p50, quiet p99)], upload p50, p99,
    uploads, staleness p50, max)]."""
    rates = [float(x) for x in a.rw_rates.split(",") if x]
    chosen = [(n, page_paths(path, subs)) for n, path in PAGES
              if n in quiet and (not a.pages or any(x in n for x in a.pages.split(",")))]
    total = sum(int(r * (a.rw_duration + 1) * len(chosen) * 1.2) + 100 for r in rates)
    print("signing %d uploads for the reads under writes ..." % total, flush=True)
    signers = [Signer() for _ in range(64)]
    payloads = synthetic_payloads(total, seed=int(time.time()) % 100000, keys=64)
    # Each key uploads from a network of its own (127.1.k.1, a /24 each),
    # as the daemon's default network cap expects of keys that are people:
    # from one address, all but 3 keys a combination would be stored but
    # counted nowhere, and the writes would change no list.
    bodies = [("127.1.%d.1" % (i % 64), signers[i % 64].sign(pl)) for i, pl in enumerate(payloads)]
    p, port, _ = start(children, a, db, os.path.join(tmp, "rw.log"), ["--upload-rate", "0"])
    wait_ahead(port, "reads under writes")
    out = []
    try:
        for k, (name, paths) in enumerate(chosen):   # warm: every kept page once
            with open(os.path.join(tmp, "rw-%d.txt" % k), "w") as o:
                o.write("\n".join(paths) + "\n")
            fetch(port, paths[0])
        at = 0
        for rate in rates:
            n = int(rate * (a.rw_duration + 1) * len(chosen) * 1.2) + 100
            pacer = Pacer(port, bodies[at:at + n], rate)
            at += n
            stale = Staleness(port, "/", pacer)
            pacer.start()
            stale.start()
            rows = []
            try:
                for k, (name, paths) in enumerate(chosen):
                    rps, p50, p99, cpu = wrk(port, os.path.join(tmp, "rw-%d.txt" % k), 100 + k,
                                             a.rw_duration, a.connections, tmp, pid=p.pid)
                    q = quiet[name]
                    rows.append((name, p50, p99, q[0], q[1]))
                    print("%g uploads/s  %-40s p50 %7.2f ms (%.1fx)  p99 %7.2f ms (%.1fx)"
                          % (rate, name, p50, p50 / max(q[0], 1e-3), p99, p99 / max(q[1], 1e-3)), flush=True)
            finally:
                pacer.stop.set()
                stale.stop.set()
                pacer.join()
                stale.join()
            if pacer.errors:
                raise Failure("uploads beside the reads: %s" % pacer.errors[:5])
            secs = (pacer.done[-1] - pacer.done[0]) if len(pacer.done) > 1 else 1
            print("%g uploads/s: %d uploads (%.1f/s), p50 %.1f ms, p99 %.1f ms; staleness of / seen: "
                  "p50 %.2f s, max %.2f s over %d runs seen there" % (
                      rate, len(pacer.lat), len(pacer.lat) / secs, 1000 * pct(pacer.lat, 0.5),
                      1000 * pct(pacer.lat, 0.99), pct(stale.ages, 0.5),
                      max(stale.ages) if stale.ages else float("nan"), len(stale.ages)), flush=True)
            out.append((rate, rows, 1000 * pct(pacer.lat, 0.5), 1000 * pct(pacer.lat, 0.99),
                        len(pacer.lat), len(pacer.lat) / secs, pct(stale.ages, 0.5),
                        max(stale.ages) if stale.ages else float("nan")))
    finally:
        children.stop(p)
    return out


def report_rw(rw):
    """The reads-under-writes table for README.md: per page, the quiet
    p50 / p99 and, per rate, p50 / p99 with uploads as ratios to quiet."""
    if not rw:
        return
    rates = [r[0] for r in rw]
    print("| page | quiet p50 / p99 | " + " | ".join("%g uploads/s: p50 / p99 (x quiet)" % r
                                                     for r in rates) + " |")
    print("|---|---|" + "---|" * len(rates))
    for i, (name, _, _, q50, q99) in enumerate(rw[0][1]):
        cells = []
        for r in rw:
            _, p50, p99, _, _ = r[1][i]
            cells.append("%.2f / %.2f ms (%.1fx / %.1fx)%s" % (
                p50, p99, p50 / max(q50, 1e-3), p99 / max(q99, 1e-3), "" if p99 < GOAL_P99_MS else " (missed)"))
        print("| `%s` | %.2f / %.2f ms | %s |" % (name, q50, q99, " | ".join(cells)))
    print("| uploads: p50 / p99, done (per s) | | " + " | ".join(
        "%.1f / %.1f ms, %d (%.1f/s)" % (r[2], r[3], r[4], r[5]) for r in rw) + " |")
    print("| staleness of `/` seen: p50 / max | | " + " | ".join(
        "%.2f / %.2f s" % (r[6], r[7]) for r in rw) + " |")
    print()


# ---- the run -----------------------------------------------------------------

def migrate_step(children, a, db, tmp):
    """Starts the daemon on db so it migrates; prints what it applied and
    its progress lines; returns the seconds to /healthz."""
    if not a.db or a.backfill_from is not None:
        first = 12 if a.backfill_from is None else a.backfill_from
        sql, names = unmigrate_sql(first)
        print("taking %s out of the database ..." % ", ".join(names), flush=True)
        con = sqlite3.connect(db)
        con.executescript(sql)
        con.close()
    before = applied(db)
    log = os.path.join(tmp, "migrate.log")
    p, port, secs = start(children, a, db, log)
    children.stop(p)
    new = [v for v in applied(db) if v not in before]
    print("migration backfill (%s), start to /healthz: %.1f s"
          % (", ".join("%04d" % v for v in new) or "nothing to apply", secs))
    for line in open(log).read().splitlines():
        if "migration" in line:
            print("  " + line)
    sys.stdout.flush()
    return secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fill", help="build/bench/fill (needed unless --db)")
    ap.add_argument("--cache", required=True, help="folder keeping the built database")
    ap.add_argument("--runs", type=int, default=1000000)
    ap.add_argument("--db", help="measure this existing database instead of building one "
                    "(copied to <cache>/scale-work.db first, unless --in-place)")
    ap.add_argument("--in-place", action="store_true", help="with --db: migrate and use PATH itself")
    ap.add_argument("--keep-work", action="store_true", help="with --db: keep the working copy")
    ap.add_argument("--backfill-from", type=int, help="take the migrations from this version on out "
                    "and time the daemon putting them back (default 12; with --db, none: "
                    "the daemon's pending migrations are the backfill)")
    ap.add_argument("--duration", type=int, default=10, help="seconds of wrk per page (10)")
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--ref-duration", type=int, default=3,
                    help="seconds of wrk per page on the reference, nginx (3)")
    ap.add_argument("--built-duration", type=int, default=3,
                    help="seconds of wrk per page with an ignored argument, so each answer is built "
                    "from the database, not the response cache (3; 0: skip)")
    ap.add_argument("--pages", help="only the pages whose name contains one of these (comma-separated)")
    ap.add_argument("--skip-migration", action="store_true", help="skip the backfill measurement")
    ap.add_argument("--skip-pages", action="store_true", help="skip the pages (wrk) and their memory")
    ap.add_argument("--skip-export", action="store_true", help="skip the /export measurement")
    ap.add_argument("--rw-rates", default="10,50,200",
                    help="uploads/s beside the reads in the reads-under-writes table (10,50,200; '' skips it)")
    ap.add_argument("--rw-duration", type=int, default=5, help="seconds of wrk per page and rate there (5)")
    a = ap.parse_args()
    if not a.db and not a.fill:
        ap.error("give --fill (to build the database) or --db (an existing one)")
    os.makedirs(a.cache, exist_ok=True)
    children = Children()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    tmp = tempfile.mkdtemp(prefix="llms-scale-")
    work = None
    try:
        if a.db:
            db, ids_file, out = existing(a)
            work, cached = (None if a.in_place else db), True
        else:
            db, ids_file, out, cached = build(a)
        hot_m, hot_h, fill_s = hot_slugs(db, out)
        n = runs_count(db)
        size = os.path.getsize(db)
        print("database %s: %d runs, %.2f GB, %.0f bytes per run%s" % (
            db, n, size / 1e9, size / n,
            "; built in %.0f s (%.0f runs/s)%s" % (fill_s, n / fill_s, ", cached" if cached else "")
            if fill_s else ""), flush=True)
        migrate_s = None if a.skip_migration else migrate_step(children, a, db, tmp)
        log = os.path.join(tmp, "daemon.log")
        p, port, start_s = start(children, a, db, log)
        print("start-up on the migrated database: %.3f s" % start_s, flush=True)
        wait_ahead(port, "pages")
        ids = run_ids(db, ids_file)
        subs = subs_of(port, db, hot_m, hot_h, ids)
        rows, mem, mem0, rw = [], None, None, []
        if not a.skip_pages:
            rows, mem0, mem = pages_step(children, a, p, port, subs, tmp)
        children.stop(p)
        if rows and a.rw_rates:
            rw = rw_step(children, a, db, subs, {r[0]: (r[1], r[2]) for r in rows}, tmp)
        exports = [] if a.skip_export else export_step(children, a, db, ids, tmp)
        print()
        if rows:
            report_pages(rows, a)
        report_rw(rw)
        print("runs: %d; database %.0f bytes per run%s" % (
            n, size / n, "; fill %.0f s (%.0f runs/s)" % (fill_s, n / fill_s) if fill_s else ""))
        if migrate_s is not None:
            print("migration backfill: %.1f s" % migrate_s)
        print("start-up: %.3f s" % start_s)
        if mem:
            print("VmHWM %.0f MB, RssAnon %.0f MB at the end (%.0f MB before the run and badge pages), "
                  "RssFile %.0f MB" % (mem["VmHWM"], mem["RssAnon"], mem0["RssAnon"], mem["RssFile"]))
        for f in exports:
            print("/export %s: peak RssAnon %.2fx idle (%.1f / %.1f MB), %.0f runs/s, %.1f MB/s"
                  % ("gzip" if f["gzip"] else "plain", f["peak"] / f["idle"], f["peak"], f["idle"],
                     f["lines"] / f["secs"], f["wire"] / 1e6 / f["secs"]))
        print("uptime during the run's end: " + subprocess.run(["uptime"], capture_output=True,
                                                              text=True).stdout.strip())
        return 0
    except Failure as e:
        print("bench-scale: " + str(e), file=sys.stderr)
        return 1
    finally:
        children.stop_all()
        subprocess.run(["rm", "-rf", tmp])
        if work and not a.keep_work:
            for x in [work + x for x in WORK_FILES]:
                if os.path.exists(x):
                    os.remove(x)


if __name__ == "__main__":
    sys.exit(main())
